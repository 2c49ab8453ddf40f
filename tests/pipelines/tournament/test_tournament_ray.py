"""Tournaments on embedded Ray give the same files as in-process play, SPRT stops included."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivehundred.pipelines.tournament import run_tournament
from fivehundred.pipelines.tournament.config import parse_config
from fivehundred.pipelines.tournament.executors import RayExecutor

pytestmark = pytest.mark.slow  # starts Ray or long-running processes: `-m 'not slow'` skips it


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_ray_matches_in_process_byte_for_byte(tmp_path: Path) -> None:
    cfg = parse_config(
        {
            "name": "ray",
            "seed": 4,
            "entries": [
                {"name": "h", "strategy": "heuristic"},
                {"name": "r1", "strategy": "random"},
                {"name": "r2", "strategy": "random"},
            ],
            # h's matches stop early on the SPRT while chunks played ahead are still in flight.
            "stop": {"rule": "sprt", "elo0": 0, "elo1": 100, "max_pairs": 40},
            "run": {"chunk_pairs": 2},
        },
        "ray.toml",
    )
    local = run_tournament(cfg, tmp_path / "local")
    executor = RayExecutor(workers=2)
    remote = run_tournament(cfg, tmp_path / "ray", executor=executor)
    assert executor.window >= 2
    assert [s.decision for s in remote.statuses][:2] == ["H1", "H1"]
    assert [s.pairs for s in remote.statuses] == [s.pairs for s in local.statuses]
    assert files(tmp_path / "local") == files(tmp_path / "ray")
