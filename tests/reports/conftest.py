"""Fixtures of the report tests: one small ``fivehundred run`` per test session, made as a user makes
it (the command, in-process without Ray), whose HTML and PDF the document tests read."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from tests.reports.helpers import FreshRun

#: The main job, small: two runs (pagat-au and club-004 on the same deals), the misère what-if and
#: a double-dummy sample of each run.
RUN_ARGS = ["--deals", "150", "--workers", "0", "--what-if-sample", "20", "--dd-sample", "25"]


@pytest.fixture(scope="session")
def fresh_run(tmp_path_factory: pytest.TempPathFactory) -> FreshRun:
    """``fivehundred run`` into a fresh folder (once per test session and worker)."""
    out = tmp_path_factory.mktemp("fresh") / "job"
    result = CliRunner().invoke(app, ["run", *RUN_ARGS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return FreshRun(out, result.output)
