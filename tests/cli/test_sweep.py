"""``fivehundred sweep``: flags to runs, tables and a report; progress per run on stderr; a rerun reuses."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app

runner = CliRunner()


@pytest.mark.slow  # the whole command: five runs, their analysis, a report and its PDF
def test_sweep_command_writes_runs_stats_and_report_then_reuses(tmp_path: Path) -> None:
    out = tmp_path / "s"
    args = ["sweep", "--out", str(out), "--switches", "bidding.misere,table.players", "--deals", "120"]
    args += ["--seed", "4", "--strategies", "random", "--workers", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    names = ["base", "bidding.misere=anytime", "bidding.misere=off", "table.players=3", "table.players=6"]
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(names)
    for name in names:  # progress: one line per finished run, on stderr
        assert f"{name}: " in result.stderr
    assert "5 runs (0 reused)" in result.stdout
    assert (out / "report.html").is_file() and (out / "report.pdf").is_file()
    var = pl.read_parquet(out / "stats" / "sweep_variants.parquet")
    kinds = dict(var.select("name", "pairing").iter_rows())
    assert kinds["bidding.misere=off"] == "paired" and kinds["table.players=3"].startswith("unpaired")
    eff = pl.read_parquet(out / "stats" / "sweep_effects.parquet")
    assert set(eff["name"]) == {"bidding.misere=anytime", "bidding.misere=off"}  # other tables: unpaired
    again = runner.invoke(app, [*args, "--no-pdf"])
    assert again.exit_code == 0, again.output
    assert "5 runs (5 reused), 0 deals played" in again.stdout
    assert again.stderr.count("(reused)") == 5


@pytest.mark.slow
def test_report_compares_every_sweep_run_with_the_first(tmp_path: Path) -> None:
    """A sweep's run directories are normal runs: ``report BASE --compare A --compare B`` pairs each
    with the first."""
    out = tmp_path / "s"
    args = ["sweep", "--out", str(out), "--switches", "bidding.misere", "--deals", "100", "--seed", "2"]
    assert runner.invoke(app, [*args, "--strategies", "random", "--workers", "0", "--no-pdf"]).exit_code == 0
    runs = out / "runs"
    compare = [
        "--compare",
        str(runs / "bidding.misere=anytime"),
        "--compare",
        str(runs / "bidding.misere=off"),
    ]
    html = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(runs / "base"), *compare, "-o", str(html)])
    assert result.exit_code == 0, result.output
    page = html.read_text()
    var = pl.read_parquet(out / "stats" / "sweep_variants.parquet")
    for rid in var.filter(pl.col("kind") != "base")["run_id"]:
        assert f'data-value="{rid}"' in page  # a row of the variant-effects table per compared run
