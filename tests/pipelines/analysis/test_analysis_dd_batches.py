"""The DD tables read the sampled deals chunk by chunk (``dd.dd_rows``): the chunk size changes no
table (``--dd par`` with a sample and ``--compare``, and every deal), a sample keeps only its deals
(and the key ties of its last one) whatever the chunks, and no whole-run per-deal frame is built."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from fivehundred.pipelines.analysis import analyze, dd_sample, dd_sidecar, ddpar
from fivehundred.pipelines.analysis import dd as ddmod
from fivehundred.pipelines.analysis import frame as framemod
from fivehundred.pipelines.analysis.batches import deal_frame
from fivehundred.pipelines.analysis.io import open_run
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("ddbatches")
    out = []
    for name, variant in (("a", "pagat-au"), ("b", "club-004")):
        cfg = make_config(
            None, variant=variant, strategies="heuristic", seed=3, games=3, workers=0, out=str(root / name)
        )
        run_simulation(cfg)
        out.append(root / name)
    return out


def _dd_tables(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    return {n: t for n, t in tables.items() if n.startswith("dd_")}


@pytest.mark.parametrize(
    "kw",
    [
        {"dd": "par", "dd_sample": 9},
        pytest.param({"dd": "contract"}, marks=pytest.mark.slow),
        pytest.param({"dd": "par"}, marks=pytest.mark.slow),
    ],
)
def test_the_chunk_size_changes_no_dd_table(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kw: dict
) -> None:
    """The sampled rows read in chunks of 5 deals, the DD tables' pass over every deal in batches of
    5 deals (plus a game), the sidecar parts gathered 2 at a time: the same tables, to the bit."""
    want = _dd_tables(analyze(runs, tmp_path / "s1", **kw))
    assert {"dd_variant_effects", "dd_success", "dd_trick_gain"} <= set(want)
    chunks: list[int] = []
    real = framemod.chunks
    monkeypatch.setattr(framemod, "CHUNK_ROWS", 5)
    monkeypatch.setattr(framemod, "chunks", lambda run, rows: chunks.append(rows) or real(run, rows))
    monkeypatch.setattr(ddmod, "DD_BATCH_ROWS", 5)
    monkeypatch.setattr(dd_sidecar, "_COMPACT_PARTS", 2)
    held = _spy_batches(monkeypatch)
    got = _dd_tables(analyze(runs, tmp_path / "s2", **kw))
    assert chunks and set(chunks) == {5}, "the DD rows were read in chunks of 5 deals"
    if kw.get("dd_sample") is None:
        longest = max(
            pl.read_parquet(f"{r}/deals/*.parquet").group_by("game_id").len()["len"].max() for r in runs
        )
        assert len(held) >= 3 and max(held) <= 5 + longest, "every deal read in batches of whole games"
    else:
        assert len(held) == 2, "a sample's rows are one chunk (the dd_ pass, the par pass)"
    assert sorted(got) == sorted(want)
    for name in want:
        assert_frame_equal(got[name], want[name], check_exact=True)


def _spy_batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the most deals of one run in each chunk the DD tables' passes read."""
    held: list[int] = []
    real = ddmod.row_batches

    def spy(frames: list, rows: list | None = None):  # type: ignore[no-untyped-def]
        for chunk in real(frames, rows):
            held.append(max(d.height for d in chunk if d is not None))
            yield chunk

    monkeypatch.setattr(ddmod, "row_batches", spy)
    monkeypatch.setattr(ddpar, "row_batches", spy)
    return held


def test_every_deal_holds_no_per_deal_rows_and_solves_in_windows(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--dd`` of every deal never reads the sampled rows whole (``dd_rows``); solved with the log
    rows of 8 deals (two parts of 4) read at a time, a fresh copy writes the same parts and the same
    tables as one solved with the default window."""
    monkeypatch.setattr(dd_sidecar, "CHUNK_DEALS", 4)

    def fresh(name: str) -> list[Path]:
        out = []
        for r in runs:
            shutil.copytree(
                r, tmp_path / name / r.name, ignore=shutil.ignore_patterns("dd", "dd_par", "stats")
            )
            out.append(tmp_path / name / r.name)
        return out

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("dd_rows read every deal's rows")

    monkeypatch.setattr(dd_sample, "dd_rows", refuse)
    one, two = fresh("one"), fresh("two")
    want = _dd_tables(analyze(one, tmp_path / "s1", dd="contract"))
    reads: list[int] = []
    real = dd_sidecar.log_rows

    def spy(run: object, ids: pl.Series, cols: tuple) -> pl.DataFrame:
        reads.append(ids.len())
        return real(run, ids, cols)

    monkeypatch.setattr(dd_sidecar, "log_rows", spy)
    monkeypatch.setattr(dd_sidecar, "SOLVE_WINDOW_DEALS", 8)
    got = _dd_tables(analyze(two, tmp_path / "s2", dd="contract"))
    solved = [int(n) for n in got["dd_sample"]["solved"]]
    parts = [math.ceil(n / 4) for n in solved]
    assert sum(parts) > 4 and max(reads) <= 8 and sum(reads) == sum(solved)
    assert len(reads) == sum(math.ceil(k / 2) for k in parts), "the log rows of two parts at a time"
    for name in want:
        assert_frame_equal(got[name], want[name], check_exact=True)
    for a, b in zip(one, two, strict=True):
        pa_, pb = sorted((a / "dd").glob("*.parquet")), sorted((b / "dd").glob("*.parquet"))
        assert pa_ and [p.name for p in pa_] == [p.name for p in pb]
        assert [p.read_bytes() for p in pa_] == [p.read_bytes() for p in pb], "the same part files"


@pytest.mark.parametrize(
    ("log_deals", "window"),
    [
        (0, 4_096),
        (100_010, 4_096),  # the benchmark's log: the least window
        (409_601, 4_097),  # just over 100 scans of the least window: it grows by one deal
        (1_000_000, 10_000),
        (10_000_000, 50_000),  # the largest window: 200 scans
    ],
)
def test_the_window_keeps_the_scans_of_the_log_few_and_its_rows_bounded(log_deals: int, window: int) -> None:
    assert dd_sidecar.window_deals(log_deals) == window
    scans = math.ceil(log_deals / window)
    assert scans <= dd_sidecar.SOLVE_WINDOW_SCANS or window == dd_sidecar.SOLVE_WINDOW_MAX


def test_a_sample_holds_only_its_deals_whatever_the_chunks(
    runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = deal_frame(open_run(runs[0]))
    every = dd_sample.dd_rows(frame)
    assert every["deal_id"].n_unique() == frame.count("deals")
    held: list[int] = []
    real = dd_sample.sample_order

    def spy(log: pl.DataFrame, cut: int | None = None) -> pl.DataFrame:
        held.append(log.height)
        return real(log, cut)

    monkeypatch.setattr(dd_sample, "sample_order", spy)
    for rows in (1, 4, 1000):
        monkeypatch.setattr(framemod, "CHUNK_ROWS", rows)
        for sample in (1, 6, every.height):
            held.clear()
            got = dd_sample.dd_rows(frame, sample=sample)
            cut = every["sample_key"][sample - 1]
            assert_frame_equal(got, every.filter(pl.col("sample_key") <= cut), check_exact=True)
            assert max(held) <= rows, "one chunk decoded at a time"


def test_ties_at_the_cut_are_kept(runs: list[Path], tmp_path: Path) -> None:
    """A log holding every deal twice (a copy under other ids): the sample keeps both copies of its
    last deal's hand, as the whole-run sort did (keys tie, broken by deal id)."""
    src = runs[0]
    dup = tmp_path / "dup"
    shutil.copytree(src, dup, ignore=shutil.ignore_patterns("dd", "dd_par", "stats", "manifest.json"))
    log = pl.read_parquet(f"{dup}/deals/*.parquet")
    for p in (dup / "deals").glob("*.parquet"):
        p.unlink()
    log.write_parquet(dup / "deals" / "part-00000.parquet")
    shifted = log.with_columns(pl.col("deal_id") + log.height, pl.col("game_id") + 1000)
    shifted.write_parquet(dup / "deals" / "part-00001.parquet")
    frame = deal_frame(open_run(dup))
    got = dd_sample.dd_rows(frame, sample=5)
    assert got.height == 6 and got["seed"].n_unique() == 3
    assert dd_sample.sample_cut(frame, 5, got) == got["sample_key"][-1]


def test_no_whole_run_per_deal_frame() -> None:
    assert not hasattr(framemod.Frame, "df") and not hasattr(framemod, "deal_rows")


@pytest.mark.slow
def test_one_ray_for_every_phase_gives_the_in_process_tables(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--workers 2`` with the what-if and ``--dd``: the batches, the replays and the DD solves run on
    one embedded Ray (started once, shut down at the end), and every table file is the in-process
    one's bytes (fresh copies: every replay and solve is a Ray task)."""
    import ray

    kw = {"what_if": "misere", "sample": 6, "dd": "par", "dd_sample": 4}
    local = analyze(runs, tmp_path / "local", workers=0, **kw)
    copies = []
    for r in runs:
        skip = shutil.ignore_patterns("dd", "dd_par", "whatif_misere", "stats")
        shutil.copytree(r, tmp_path / "copies" / r.name, ignore=skip)
        copies.append(tmp_path / "copies" / r.name)
    starts: list[int] = []
    real = ray.init
    monkeypatch.setattr(ray, "init", lambda *a, **k: starts.append(1) or real(*a, **k))
    got = analyze(copies, tmp_path / "ray", workers=2, **kw)
    assert len(starts) == 1 and not ray.is_initialized()
    assert sorted(got) == sorted(local) and {"dd_par", "misere_whatif"} <= set(got)
    for name in local:
        assert (tmp_path / "ray" / f"{name}.parquet").read_bytes() == (
            tmp_path / "local" / f"{name}.parquet"
        ).read_bytes(), name
    for r, c in zip(runs, copies, strict=True):
        for folder in ("dd", "dd_par", "whatif_misere"):
            parts = sorted((r / folder).glob("*.parquet"))
            assert parts and [p.read_bytes() for p in parts] == [
                (c / folder / p.name).read_bytes() for p in parts
            ], folder


def test_the_lean_sample_order_is_the_sampled_ids(runs: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """``sample_order_ids`` (every-deal ``--dd``: arrays of three columns) gives the deals of
    ``sampled_ids`` in the same order, with or without a contract, with or without a cut, whatever
    the chunks."""
    frame = deal_frame(open_run(runs[0]))
    every = dd_sample.sampled_ids(frame)
    for rows in (3, 1000):
        monkeypatch.setattr(framemod, "CHUNK_ROWS", rows)
        for cut in (None, int(every["sample_key"][7]), 0):
            want = every if cut is None else every.filter(pl.col("sample_key") <= cut)
            for only in (False, True):
                w = want.filter(pl.col("contract").is_not_null()) if only else want
                got = dd_sample.sample_order_ids(frame, cut, only)
                assert_frame_equal(got, w.select("deal_id", "seed"), check_exact=True)
    assert dd_sample.sample_order_ids(frame, 0).height == 0
