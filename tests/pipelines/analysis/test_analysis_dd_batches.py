"""The DD tables read the sampled deals chunk by chunk (``dd.dd_rows``): the chunk size changes no
table (``--dd par`` with a sample and ``--compare``, and every deal), a sample keeps only its deals
(and the key ties of its last one) whatever the chunks, and no whole-run per-deal frame is built."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from fivehundred.pipelines.analysis import analyze
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


@pytest.mark.parametrize("kw", [{"dd": "par", "dd_sample": 9}, {"dd": "contract"}])
def test_the_chunk_size_changes_no_dd_table(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kw: dict
) -> None:
    want = _dd_tables(analyze(runs, tmp_path / "s1", **kw))
    assert {"dd_variant_effects", "dd_success", "dd_trick_gain"} <= set(want)
    chunks: list[int] = []
    real = framemod.chunks
    monkeypatch.setattr(framemod, "CHUNK_ROWS", 5)
    monkeypatch.setattr(framemod, "chunks", lambda run, rows: chunks.append(rows) or real(run, rows))
    got = _dd_tables(analyze(runs, tmp_path / "s2", **kw))
    assert chunks and set(chunks) == {5}, "the DD rows were read in chunks of 5 deals"
    assert sorted(got) == sorted(want)
    for name in want:
        assert_frame_equal(got[name], want[name], check_exact=True)


def test_a_sample_holds_only_its_deals_whatever_the_chunks(
    runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = deal_frame(open_run(runs[0]))
    every = ddmod.dd_rows(frame)
    assert every["deal_id"].n_unique() == frame.count("deals")
    held: list[int] = []
    real = ddmod.sample_order

    def spy(log: pl.DataFrame, cut: int | None = None) -> pl.DataFrame:
        held.append(log.height)
        return real(log, cut)

    monkeypatch.setattr(ddmod, "sample_order", spy)
    for rows in (1, 4, 1000):
        monkeypatch.setattr(framemod, "CHUNK_ROWS", rows)
        for sample in (1, 6, every.height):
            held.clear()
            got = ddmod.dd_rows(frame, sample=sample)
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
    got = ddmod.dd_rows(frame, sample=5)
    assert got.height == 6 and got["seed"].n_unique() == 3
    assert ddmod.sample_cut(frame, 5, got) == got["sample_key"][-1]


def test_no_whole_run_per_deal_frame() -> None:
    assert not hasattr(framemod.Frame, "df") and not hasattr(framemod, "deal_rows")
