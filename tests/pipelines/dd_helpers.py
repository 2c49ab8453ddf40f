"""Helpers of the double-dummy analysis tests."""

from __future__ import annotations

from typing import Any

import pytest

from fivehundred.pipelines.analysis import dd_sidecar


def count_solves(
    monkeypatch: pytest.MonkeyPatch, module: Any = dd_sidecar, task: str = "solve_chunk"
) -> list[int]:
    """Replace ``module.task`` by a wrapper that records each chunk it solves; returns the record."""
    solved: list[int] = []
    real = getattr(module, task)

    def counting(chunk: dd_sidecar.DDChunk) -> bytes:
        solved.append(chunk.key)
        return real(chunk)

    monkeypatch.setattr(module, task, counting)
    return solved
