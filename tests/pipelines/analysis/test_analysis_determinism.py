"""The same logs give the same bytes: every table (Parquet and CSV) and the report, run after run, with
one Polars thread or many, in fresh processes (other hash seeds)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from fivehundred.pipelines.analysis.tidy import MAX_LINEUPS, lineup_text, normalise_floats
from tests.pipelines.analysis.helpers import play_run

pytestmark = pytest.mark.slow  # analyses and reports in fresh processes: `-m 'not slow'` skips it

SCRIPT = """
import sys
from pathlib import Path
from fivehundred.pipelines.analysis import analyze
from fivehundred.cli.statistics import make_report
runs, out = [Path(p) for p in sys.argv[1:-1]], Path(sys.argv[-1])
analyze(runs, out / "stats")
make_report(runs, out / "report.html", stats_dir=out / "stats")
"""


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A base run, a variant on the same deals, and a duplicate run with other bots."""
    root = tmp_path_factory.mktemp("det")
    play_run(root / "a", "pagat-au", 3, 12)
    play_run(root / "b", "north-american", 3, 12)
    play_run(root / "c", "pagat-au", 3, 12, spec="random(pass_probability=0.7)", run_id="dup")
    return [root / "a", root / "b", root / "c"]


def _analyse(logs: list[Path], out: Path, threads: str | None, hash_seed: str) -> dict[str, bytes]:
    env = {k: v for k, v in os.environ.items() if k != "POLARS_MAX_THREADS"}
    env["PYTHONHASHSEED"] = hash_seed
    if threads is not None:
        env["POLARS_MAX_THREADS"] = threads
    cmd = [sys.executable, "-c", SCRIPT, *map(str, logs), str(out)]
    subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=600)
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_every_file_is_byte_identical(logs: list[Path], tmp_path: Path) -> None:
    first = _analyse(logs, tmp_path / "one", "1", "1")
    again = _analyse(logs, tmp_path / "two", None, "2")
    assert first.keys() == again.keys()
    assert {"stats/variant_effects.parquet", "stats/success_by_variant.csv", "report.html"} <= set(first)
    assert sum(name.endswith(".parquet") for name in first) >= 20
    differ = [name for name in first if first[name] != again[name]]
    assert differ == []
    # No negative zero anywhere in the readable tables.
    for name, data in first.items():
        if name.endswith(".csv"):
            cells = {c for line in data.decode().splitlines() for c in line.split(",")}
            assert not {"-0.0", "-0", "-0.000000"} & cells, name


def test_signed_zeros_and_nans_normalised() -> None:
    df = pl.DataFrame({"x": [-0.0, 0.0, float("nan"), -1.5], "k": [1, 2, 3, 4]})
    out = normalise_floats(df)
    assert out["x"].to_list()[:2] == [0.0, 0.0] and out["x"][2] is None and out["x"][3] == -1.5
    assert [str(v) for v in out["x"].to_list()[:2]] == ["0.0", "0.0"]  # the sign bit is gone
    assert out["k"].to_list() == [1, 2, 3, 4]


def test_lineup_text_lists_or_summarises() -> None:
    @dataclass
    class _F:  # a frame's merged line-ups (distinct, as the batches merge them)
        lineups: pl.DataFrame

        @property
        def stats(self) -> dict[str, pl.DataFrame]:
            return {"lineups": self.lineups.unique()}

    two = _F(pl.DataFrame({"strategies": [["b", "a", "b", "a"], ["a", "b", "a", "b"], ["a", "b", "a", "b"]]}))
    assert lineup_text(two) == "a,b,a,b | b,a,b,a"
    many = [[f"s{i}", "x", f"s{i}", "x"] for i in range(MAX_LINEUPS + 1)]
    assert lineup_text(_F(pl.DataFrame({"strategies": many}))) == "5 line-ups of s0, s1, s2, s3, s4, x"
