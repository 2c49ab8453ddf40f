"""``fivehundred run``: simulate, analyse and report end to end (in-process here; Ray in the README job)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.pipelines.verify import verify_run
from tests.reports.helpers import figure_keys

pytestmark = pytest.mark.slow  # starts Ray or long-running processes: `-m 'not slow'` skips it


def test_run_makes_runs_statistics_and_report(tmp_path: Path) -> None:
    out = tmp_path / "job"
    args = ["run", "--deals", "150", "--out", str(out), "--workers", "0", "--what-if-sample", "20"]
    args += ["--dd-sample", "30"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"report: {out / 'report.html'}" in result.output
    main, compare = out / "main", out / "compare-club-004"
    main_manifest = json.loads((main / "manifest.json").read_text())
    compare_manifest = json.loads((compare / "manifest.json").read_text())
    assert main_manifest["totals"]["deals"] >= 150
    # The compared run plays the same games with the same seed and strategies under other rules.
    assert compare_manifest["totals"]["games"] == main_manifest["totals"]["games"]
    assert compare_manifest["master_seed"] == main_manifest["master_seed"]
    assert compare_manifest["variant"] == "club-004"
    for name in ("overview", "contracts", "variant_effects", "misere_whatif", "dd_success", "dd_sample"):
        assert (out / "stats" / f"{name}.parquet").exists()
    sample = pl.read_parquet(out / "stats" / "dd_sample.parquet")
    # The compared run samples the same hands up to the first run's key: as many deals or more or fewer,
    # as its games run longer or shorter (the pairing itself: tests/pipelines/test_dd_analysis.py).
    assert sample["sample"].to_list() == [30, 30] and sample["sampled"][0] == 30 and sample["sampled"][1] > 0
    assert len(list((main / "dd").glob("part-*.parquet"))) == 1  # 30 deals: one part of each run
    html = (out / "report.html").read_text()
    # Every figure but the unpaired table comparison (both runs are on the 4-player table: paired);
    # the double-dummy section shows the DD sample.
    assert html.count('<figure id="fig-') == len(figure_keys()) - 1 and 'class="failed"' not in html
    assert '<section id="dd">' in html and "a sample of 30 of" in html
    assert '<span data-left-out="tables" data-why="every run is on the same table">' in html  # named
    assert '<section id="tables"' not in html
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")
    assert verify_run(main).ok and verify_run(compare).ok
    # The same command again resumes: nothing is played twice and the report is rewritten.
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert again.output.count("; finished before: reused, nothing played again)") == 2  # it says so
    assert json.loads((main / "manifest.json").read_text())["totals"] == main_manifest["totals"]
