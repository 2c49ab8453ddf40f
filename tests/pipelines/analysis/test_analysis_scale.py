"""Bounded-memory analysis: the batch plan holds whole games, pairs the same game ids of every run,
and refuses a Ray address that does not answer in one line, before any table is written."""

from __future__ import annotations

import itertools
import socket
from pathlib import Path

import polars as pl
import pytest

from fivehundred.pipelines.analysis import analyze, batches
from fivehundred.pipelines.analysis.frame import run_shape
from fivehundred.pipelines.analysis.io import open_run
from fivehundred.sim.errors import UserError
from tests.pipelines.analysis.golden.make_golden import golden_runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return golden_runs(tmp_path_factory.mktemp("scale"))


def test_batches_cover_every_game_once_and_hold_whole_games(runs: list[Path]) -> None:
    opened = [open_run(p) for p in runs]
    plan = batches.plan_batches(opened, [run_shape(r) for r in opened], [False, True, True, False], rows=50)
    assert [b.key for b in plan] == list(range(len(plan)))
    assert all(a.hi == b.lo for a, b in itertools.pairwise(plan)), "ranges are contiguous"
    for i, run in enumerate(opened):
        every = run.scan.select("game_id", "hand_no").collect()
        got = []
        for b in plan:
            src = b.sources[i]
            if src is None:
                assert every.filter(pl.col("game_id").is_between(b.lo, b.hi, closed="left")).height == 0
                continue
            lf = run.log.scan(list(src.files))
            if src.filtered:
                lf = lf.filter(pl.col("game_id").is_between(b.lo, b.hi, closed="left"))
            part = lf.select("game_id", "hand_no").collect()
            assert part["game_id"].is_between(b.lo, b.hi, closed="left").all()
            assert part.height <= 50 + part.group_by("game_id").len()["len"].max(), "at most rows + a game"
            got.append(part)
        assert pl.concat(got).sort("game_id", "hand_no").equals(every.sort("game_id", "hand_no"))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_address_is_one_line_and_writes_nothing(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "stats"
    with pytest.raises(UserError) as err:
        analyze(runs[:1], out, address=f"127.0.0.1:{_closed_port()}")
    assert "cannot reach a Ray head" in str(err.value) and "\n" not in str(err.value)
    assert not out.exists()


def test_negative_workers_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="must be at least 0"):
        analyze([tmp_path / "missing"], tmp_path / "s", workers=-1)


def test_tables_never_read_a_whole_per_deal_frame(runs: list[Path]) -> None:
    """Every table comes from the merged aggregates: no frame's whole-run per-deal rows are built."""
    from fivehundred.pipelines.analysis import build_tables

    frames = batches.deal_frames([open_run(p) for p in runs], rows=100)
    tables = build_tables(frames)
    assert tables["overview"]["deals"].to_list() == [f.count("deals") for f in frames]


@pytest.mark.slow  # every table built twice over the golden runs
def test_frames_built_one_by_one_are_paired_when_compared(runs: list[Path]) -> None:
    """``build_tables`` of frames read apart reads them again together for the pairing."""
    from fivehundred.pipelines.analysis import build_tables

    opened = [open_run(p) for p in runs[:3]]
    apart = [batches.deal_frame(r) for r in opened]
    assert all(f.paired is None for f in apart)
    together = build_tables(batches.deal_frames(opened))
    got = build_tables(apart)
    for name in ("pairing", "variant_effects", "strategy_duplicate", "success_comparison"):
        assert got[name].equals(together[name]), name
    assert got["variant_effects"].height > 0 and got["strategy_duplicate"].height > 0
