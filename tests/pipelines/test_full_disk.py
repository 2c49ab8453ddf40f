"""A full disk (ENOSPC injected into the writers) during simulate, tournament and analyze.

Each must stop with one line naming the path, leave nothing half-written, and resume once there is
space; a statistics folder is replaced as a whole set, and ``report --stats`` refuses an incomplete one.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import polars as pl
import pytest

from fivehundred.cli.statistics import require_complete
from fivehundred.pipelines import rundir as storage
from fivehundred.pipelines.analysis import AnalysisError, analyze
from fivehundred.pipelines.analysis.io import STATS_MARKER
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.pipelines.tournament import load_config, run_tournament
from fivehundred.reports.tables import ReportError, read_statistics
from fivehundred.sim.errors import UserError
from tests.strategies.isolated_bots import two_entry_tournament

LONG = "random(pass_probability=0.6, max_raise=2)"


def _full(after: int, real):  # type: ignore[no-untyped-def]
    """A writer that works ``after`` times, then fails like a full disk."""
    calls = {"n": 0}

    def write(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(args[-1]) if args else None)
        return real(*args, **kwargs)

    return write


def parts(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run_dir / "deals").glob("*.parquet"))}


def test_simulate_on_a_full_disk_stops_in_one_line_and_resumes(tmp_path: Path, monkeypatch) -> None:
    cfg = make_config(
        None, strategies=LONG, seed=4, games=40, chunk_size=5, workers=0, out=str(tmp_path / "r")
    )
    real_fsync = os.fsync
    monkeypatch.setattr(storage.os, "fsync", _full(5, real_fsync))  # the 6th write finds the disk full
    with pytest.raises(UserError) as info:
        run_simulation(cfg)
    message = str(info.value)
    assert "\n" not in message and "No space left on device" in message and str(tmp_path / "r") in message
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["status"] == "running"
    listed = [c["file"] for c in manifest["chunks"]]  # committed (the manifest may lag the parts)
    assert set(listed) <= {f"deals/{p}" for p in parts(tmp_path / "r")}
    assert not [p for p in (tmp_path / "r").rglob("*.tmp") if p.is_file()]
    monkeypatch.setattr(storage.os, "fsync", real_fsync)  # space again
    run_simulation(cfg)
    ref = make_config(
        None, strategies=LONG, seed=4, games=40, chunk_size=5, workers=0, out=str(tmp_path / "ref")
    )
    run_simulation(ref)
    assert parts(tmp_path / "r") == parts(tmp_path / "ref")


TOURNAMENT = two_entry_tournament("disk", 2, ("a", "random"), ("b", "random(pass_probability=0.5)"), 8, 2)


def test_a_tournament_on_a_full_disk_stops_in_one_line_and_resumes(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT)
    cfg = load_config(path)
    real = os.fsync
    monkeypatch.setattr(storage.os, "fsync", _full(4, real))
    with pytest.raises(UserError) as info:
        run_tournament(cfg, tmp_path / "out")
    assert "\n" not in str(info.value) and "No space left on device" in str(info.value)
    assert str(tmp_path / "out") in str(info.value)
    assert not [p for p in (tmp_path / "out").rglob("*.tmp") if p.is_file()]
    monkeypatch.setattr(storage.os, "fsync", real)
    run_tournament(cfg, tmp_path / "out")
    run_tournament(cfg, tmp_path / "ref")
    got = {p.name: p.read_bytes() for p in (tmp_path / "out" / "deals").glob("*")}
    assert got and got == {p.name: p.read_bytes() for p in (tmp_path / "ref" / "deals").glob("*")}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "r"
    run_simulation(make_config(None, strategies=LONG, seed=9, games=30, workers=0, out=str(out)))
    return out


def test_analyze_on_a_full_disk_keeps_the_old_set_and_leaves_no_partial_one(
    run_dir: Path, monkeypatch
) -> None:
    stats = run_dir / "stats"
    analyze([run_dir], stats)
    before = {p.name: p.read_bytes() for p in stats.iterdir()}
    assert STATS_MARKER in before
    monkeypatch.setattr(pl.DataFrame, "write_csv", _full(3, pl.DataFrame.write_csv))
    with pytest.raises(AnalysisError) as info:
        analyze([run_dir], stats)
    assert "\n" not in str(info.value) and "No space left on device" in str(info.value)
    assert {p.name: p.read_bytes() for p in stats.iterdir()} == before  # the old set, whole
    assert [p.name for p in run_dir.iterdir() if p.name.startswith(".stats")] == []
    monkeypatch.undo()
    analyze([run_dir], stats)
    assert (stats / STATS_MARKER).is_file()


def test_an_interrupted_first_analysis_leaves_no_stats_folder(
    run_dir: Path, monkeypatch, tmp_path: Path
) -> None:
    out = tmp_path / "fresh"

    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    monkeypatch.setattr(pl.DataFrame, "write_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        analyze([run_dir], out)
    assert not out.exists() and not list(tmp_path.iterdir())


def test_report_refuses_an_incomplete_stats_folder(run_dir: Path, tmp_path: Path) -> None:
    stats = tmp_path / "stats"
    analyze([run_dir], stats)
    require_complete(stats)
    assert read_statistics(stats)
    (stats / STATS_MARKER).unlink()  # as a killed analysis of an older version would leave it
    with pytest.raises(ReportError, match=r"incomplete .*run fivehundred analyze again") as info:
        require_complete(stats)
    assert "\n" not in str(info.value)


def test_a_user_folder_is_written_in_place_with_the_marker_last(run_dir: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    analyze([run_dir], mine)
    assert (mine / "notes.txt").read_text() == "keep me" and (mine / STATS_MARKER).is_file()
