"""Ctrl-C keeps the games finished in the chunks in flight; the resumed run plays only the rest and
rebuilds the same part files, byte for byte (part files are compared file by file)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fivehundred.pipelines import chunks as chunks_module
from fivehundred.pipelines.chunks import GameChunk, encode_part, game_counts, play_chunk
from fivehundred.pipelines.live import LiveCounter
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.rundir import encode_parquet
from fivehundred.pipelines.schema import CHUNK_SCHEMA
from fivehundred.pipelines.simulate import (
    MIN_TASK_GAMES,
    SimulationInterrupted,
    run_simulation,
    task_games,
)
from tests.pipelines.faulty_bots import InterruptAt
from tests.pipelines.runs import parts, reference_run

BOT = "tests.pipelines.faulty_bots:InterruptAt"
LONG = "random(pass_probability=0.6, max_raise=2)"

CFG = make_config(None, strategies=LONG, seed=5, games=40, out="unused", workers=0)
FULL = play_chunk(GameChunk(0, CFG.rules, CFG.seats, 5, range(40)))


def rows(first: int, stop: int) -> pa.Table:
    """The reference rows of games ``first .. stop-1``, read back as a partial file holds them."""
    ids = FULL.column("game_id").to_pylist()
    lo, hi = ids.index(first), len(ids) - ids[::-1].index(stop - 1)
    data = encode_parquet(FULL.slice(lo, hi - lo))
    return pq.read_table(pa.BufferReader(data)).cast(CHUNK_SCHEMA)


def segments(draw: list[tuple[int, int]]) -> tuple[tuple[int, int, pa.Table], ...]:
    """Played runs of games from (gap, length) pairs, clipped to the chunk's 40 games."""
    out, pos = [], 0
    for gap, length in draw:
        start = pos + gap
        stop = min(40, start + length)
        if start >= 40:
            break
        out.append((start, stop - start, rows(start, stop)))
        pos = stop
    return tuple(out)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(1, 9)), max_size=6), st.integers(1, 17))
@example([], 40)  # nothing played before, one piece: the plain chunk
@example([(0, 40)], 7)  # every game played before: the rows are the kept ones, nothing is played
@example([(0, 3), (0, 4), (5, 1)], 5)  # adjacent runs (two earlier halts), a gap, a one-game run
def test_pieces_and_kept_games_give_the_rows_and_bytes_of_the_whole_chunk(
    runs: list[tuple[int, int]], size: int
) -> None:
    chunk = GameChunk(0, CFG.rules, CFG.seats, 5, range(40), played=segments(runs))
    pieces = chunk.split(size)
    assert [g for p in pieces for g in p.game_ids] == list(range(40))
    assert all(len(p.game_ids) <= size or p.played for p in pieces)
    tables = [play_chunk(p) for p in pieces]
    assert pa.concat_tables(tables).equals(FULL)
    assert play_chunk(chunk).equals(FULL)
    assert encode_part("r", 7, FULL.num_rows - 3, *tables) == encode_part("r", 7, FULL.num_rows - 3, FULL)
    assert sum(game_counts(FULL)) == FULL.num_rows and len(game_counts(FULL)) == 40


class _HaltAfter(LiveCounter):
    """Halts the run once ``n`` games are counted."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def add(self, games: int, deals: int) -> bool:
        super().add(games, deals)
        return self.games >= self.n


def test_a_halted_chunk_returns_the_games_finished_from_its_start(monkeypatch) -> None:
    monkeypatch.setattr(chunks_module, "LIVE_INTERVAL", 0.0)  # a push after every game
    kept = ((0, 5, rows(0, 5)), (12, 4, rows(12, 16)))
    chunk = GameChunk(0, CFG.rules, CFG.seats, 5, range(40), counter=_HaltAfter(3), played=kept)
    got = play_chunk(chunk)  # the 5 kept, then 3 games played (5, 6, 7): stops before game 8
    assert sorted(set(got.column("game_id").to_pylist())) == list(range(8))
    assert got.equals(FULL.slice(0, got.num_rows))
    halted = LiveCounter()
    halted.halt()
    late = play_chunk(GameChunk(0, CFG.rules, CFG.seats, 5, range(5, 40), counter=halted))
    assert late.num_rows == 0  # started after the halt: plays nothing


def test_tasks_are_sized_for_the_workers_within_a_chunk() -> None:
    def cfg(**kw: object):
        return make_config(None, strategies="random", seed=1, out="unused", **kw)

    assert task_games(cfg(games=40_000, chunk_size=5000), 2) == 5000  # 8 tasks: a chunk each
    assert task_games(cfg(games=4000, chunk_size=5000), 2) == 500  # 8 tasks of one chunk
    assert task_games(cfg(deals=40_000, chunk_size=5000), 2) == 625  # deals: ~8 deals a game assumed
    assert task_games(cfg(games=100, chunk_size=5000), 2) == MIN_TASK_GAMES  # never tiny tasks
    assert task_games(cfg(games=100, chunk_size=10), 2) == 10  # never more than a chunk


@pytest.fixture
def ctrl_c(monkeypatch) -> Iterator[type[InterruptAt]]:
    """Python's default Ctrl-C handler (as a command has), a push after every game, no Ctrl-C planned."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(chunks_module, "LIVE_INTERVAL", 0.0)
    InterruptAt.plays, InterruptAt.at = 0, []
    try:
        yield InterruptAt
    finally:
        InterruptAt.at = []
        signal.signal(signal.SIGINT, previous)


def _config(out: Path):
    return make_config(None, strategies=BOT, seed=4, games=300, chunk_size=100, out=str(out), workers=0)


@pytest.mark.parametrize(("play", "committed"), [(1500, 0), (6000, 1)])
def test_ctrl_c_in_process_keeps_the_chunk_in_flight_and_resume_rebuilds_the_files(
    tmp_path: Path, ctrl_c: type[InterruptAt], play: int, committed: int
) -> None:
    ctrl_c.at = [play]  # a random game takes about 45 plays: in the first chunk, or in the second
    out = tmp_path / "run"
    with pytest.raises(SimulationInterrupted) as info:
        run_simulation(_config(out))
    first_plays, e = ctrl_c.plays, info.value
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "running" and e.chunks == len(manifest["chunks"]) == committed
    [rec] = manifest["partial"]
    start = 100 * committed
    assert rec["index"] == committed and rec["games"] == [start, start + e.partial_games]
    assert 0 < e.partial_games < 100 and e.lost_games == 0 and e.partial_chunks == 1
    assert e.games == start + e.partial_games and e.deals == manifest["totals"]["deals"] + rec["deals"]
    kept = pq.read_table(out / rec["file"])
    assert kept.num_rows == rec["deals"]
    assert set(kept.column("game_id").to_pylist()) == set(range(*rec["games"]))
    whole = [f"part-{k:05d}.parquet" for k in range(committed)]
    assert sorted(p.name for p in out.glob("deals/*")) == whole  # the deal log: whole chunks only
    assert not (out / ".tmp").exists() and not (out / ".lock").exists()

    ctrl_c.plays, ctrl_c.at = 0, []
    summary = run_simulation(_config(out))
    assert summary.resumed_chunks == committed and summary.resumed_partial_games == e.partial_games
    resumed_plays = ctrl_c.plays
    ctrl_c.plays = 0
    run_simulation(_config(tmp_path / "ref"))
    assert parts(out) == parts(tmp_path / "ref")
    assert first_plays + resumed_plays == ctrl_c.plays  # the kept games were not played again
    assert not (out / "partial").exists() and "partial" not in json.loads((out / "manifest.json").read_text())


def test_a_second_ctrl_c_stops_at_once_and_keeps_only_whole_files(
    tmp_path: Path, ctrl_c: type[InterruptAt]
) -> None:
    ctrl_c.at = [6000, 6001]  # the second lands within the same game, before the halt is done
    out = tmp_path / "run"
    with pytest.raises(SimulationInterrupted) as info:
        run_simulation(_config(out))
    e = info.value
    manifest = json.loads((out / "manifest.json").read_text())
    assert e.chunks == len(manifest["chunks"]) == 1 and e.partial_games == 0 and "partial" not in manifest
    assert not (out / ".tmp").exists() and not list(out.glob("partial/*"))
    ctrl_c.at = []
    run_simulation(_config(out))
    run_simulation(_config(tmp_path / "ref"))
    assert parts(out) == parts(tmp_path / "ref")


def test_a_damaged_partial_file_is_dropped_and_its_games_played_again(
    tmp_path: Path, ctrl_c: type[InterruptAt]
) -> None:
    ctrl_c.at = [6000]
    out = tmp_path / "run"
    with pytest.raises(SimulationInterrupted):
        run_simulation(_config(out))
    [rec] = json.loads((out / "manifest.json").read_text())["partial"]
    (out / rec["file"]).write_bytes(b"truncated")
    (out / "partial" / "stray.parquet").write_bytes(b"not listed")
    ctrl_c.at = []
    summary = run_simulation(_config(out))
    assert summary.resumed_partial_games == 0 and not (out / "partial").exists()
    run_simulation(_config(tmp_path / "ref"))
    assert parts(out) == parts(tmp_path / "ref")


@pytest.mark.slow
def test_ctrl_c_on_ray_keeps_the_games_of_every_chunk_in_flight(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The driver's Ctrl-C halts the Ray workers' chunks; what they finished is kept; a resumed run
    on 2 workers gives the in-process run's files."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent: list[int] = []

    def progress(p) -> None:  # Ctrl-C once the workers have finished some games
        if not sent and p.played_games >= 300:
            sent.append(p.played_games)
            os.kill(os.getpid(), signal.SIGINT)

    # The reference run is the one test_simulate_faults' Ctrl-C tests compare against (played once).
    common = {"strategies": LONG, "seed": 6, "games": 16000, "chunk_size": 4000}
    out = tmp_path / "run"
    try:
        with pytest.raises(SimulationInterrupted) as info:
            run_simulation(make_config(None, out=str(out), workers=2, **common), progress=progress)
    finally:
        signal.signal(signal.SIGINT, previous)
    e = info.value
    manifest = json.loads((out / "manifest.json").read_text())
    assert sent and e.partial_games > 0 and manifest["partial"]
    assert e.partial_games == sum(r["games"][1] - r["games"][0] for r in manifest["partial"])
    assert all((out / r["file"]).exists() for r in manifest["partial"])
    summary = run_simulation(make_config(None, out=str(out), workers=2, **common))
    assert summary.resumed_partial_games == e.partial_games
    assert parts(out) == parts(reference_run(tmp_path_factory, **common))
