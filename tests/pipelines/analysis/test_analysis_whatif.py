"""The misère what-if as a resumable sidecar (``RUN/whatif_misere/``, pipelines/analysis/whatif.py):
the golden tables for any part size and on Ray, a second analysis replays nothing, a torn, stale or
extra part is redone or removed, another seat strategy replays everything, and the sample is the
evenly spaced one of the sorted ids whatever the part files."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from fivehundred.pipelines.analysis import analyze, whatif
from fivehundred.pipelines.analysis.batches import deal_frame
from fivehundred.pipelines.analysis.io import open_run
from fivehundred.pipelines.idspans import Span, ids_at_ranks
from fivehundred.sim import load_rules
from tests.pipelines.analysis.golden.make_golden import WHATIF_SAMPLE, golden_runs
from tests.pipelines.analysis.helpers import check_golden

WHATIF_TABLES = ("misere_whatif", "misere_whatif_by_feature")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return golden_runs(tmp_path_factory.mktemp("whatif"))


@pytest.fixture
def base(runs: list[Path], tmp_path: Path) -> Path:
    """A fresh copy of the golden base run (no sidecar)."""
    return Path(shutil.copytree(runs[0], tmp_path / "base", ignore=shutil.ignore_patterns(whatif.WHATIF_DIR)))


def _parts(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run / whatif.WHATIF_DIR).glob("*.parquet"))}


def _count_replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    replayed: list[int] = []
    real = whatif.replay_chunk

    def counting(chunk: whatif.ReplayChunk) -> bytes:
        replayed.append(chunk.key)
        return real(chunk)

    monkeypatch.setattr(whatif, "replay_chunk", counting)
    return replayed


def _whatif(run: Path, out: Path, **kw: object) -> dict[str, pl.DataFrame]:
    tables = analyze([run], out, what_if="misere", sample=WHATIF_SAMPLE, **kw)  # type: ignore[arg-type]
    return {n: tables[n] for n in WHATIF_TABLES}


def _same(
    run: Path, parts: dict[str, bytes], again: dict[str, pl.DataFrame], first: dict[str, pl.DataFrame]
) -> None:
    """The run's parts are ``parts`` again and the tables those of the first analysis."""
    assert _parts(run) == parts
    for name in WHATIF_TABLES:
        assert_frame_equal(again[name], first[name], check_exact=True)


@pytest.mark.slow  # the what-if replayed again in parts of every size
def test_any_part_size_gives_the_golden_tables(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(whatif, "CHUNK_DEALS", 7)
    check_golden(analyze(runs, tmp_path / "stats", what_if="misere", sample=WHATIF_SAMPLE))
    parts = _parts(runs[0])
    assert len(parts) == -(-WHATIF_SAMPLE // 7)
    side = pl.read_parquet(f"{runs[0]}/{whatif.WHATIF_DIR}/*.parquet")
    assert side.height == 2 * WHATIF_SAMPLE  # MIS and OMIS per deal
    assert side["deal_id"].is_sorted() and side["deal_id"].n_unique() == WHATIF_SAMPLE
    assert not (runs[1] / whatif.WHATIF_DIR).exists() or not _parts(runs[1])  # north-american: no misère


def test_a_second_analysis_replays_nothing(
    base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replayed = _count_replays(monkeypatch)
    first = _whatif(base, tmp_path / "s1")
    n = -(-WHATIF_SAMPLE // whatif.CHUNK_DEALS)
    assert replayed == list(range(n))
    before = _parts(base)
    replayed.clear()
    again = _whatif(base, tmp_path / "s2")
    assert replayed == []
    _same(base, before, again, first)


def test_torn_stale_and_extra_parts_are_redone_or_removed(
    base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(whatif, "CHUNK_DEALS", 9)
    first = _whatif(base, tmp_path / "s1")
    folder = base / whatif.WHATIF_DIR
    before = _parts(base)
    assert len(before) == 5
    torn = folder / "part-00001.parquet"
    torn.write_bytes(torn.read_bytes()[:200])
    stale = folder / "part-00003.parquet"
    t = pq.read_table(stale)
    old = pa.array(["whatif.v0"] * t.num_rows, pa.string())
    pq.write_table(t.set_column(t.schema.get_field_index("dd_version"), "dd_version", old), stale)
    (folder / "part-00042.parquet").write_bytes(before["part-00000.parquet"])  # beyond the sample
    replayed = _count_replays(monkeypatch)
    again = _whatif(base, tmp_path / "s2")
    assert replayed == [1, 3]
    _same(base, before, again, first)


def test_another_seat_strategy_or_sample_replays_what_changed(
    base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _whatif(base, tmp_path / "s1")
    replayed = _count_replays(monkeypatch)
    tables = _whatif(base, tmp_path / "s2", seat_strategy="random")
    n = -(-WHATIF_SAMPLE // whatif.CHUNK_DEALS)
    assert replayed == list(range(n)), "the version names the seat strategy"
    assert set(tables["misere_whatif"]["strategy"]) == {"random.v1"}
    side = pl.read_parquet(f"{base}/{whatif.WHATIF_DIR}/*.parquet")
    assert {v.split()[1] for v in side["dd_version"]} == {"random.v1"}
    replayed.clear()
    analyze([base], tmp_path / "s3", what_if="misere", sample=7, seat_strategy="random")
    assert replayed == [0] and len(_parts(base)) == 1  # another sample: other deals, the rest removed


def test_the_version_names_the_strategy_engine_and_rules() -> None:
    a, b = load_rules("pagat-au"), load_rules("two-jokers")
    va = whatif.replay_version(a, "heuristic.v1")
    assert va == whatif.replay_version(load_rules("pagat-au"), "heuristic.v1")
    assert va.startswith(f"{whatif.WHATIF_VERSION} heuristic.v1 engine.")
    assert va != whatif.replay_version(b, "heuristic.v1")
    assert va != whatif.replay_version(a, "random.v1")


def test_the_sample_is_evenly_spaced_over_the_sorted_ids(base: Path) -> None:
    frame = deal_frame(open_run(base))
    ids = np.sort(pl.read_parquet(f"{base}/deals/*.parquet")["deal_id"].to_numpy())
    for sample in (1, 2, 13, WHATIF_SAMPLE, ids.size - 1, ids.size, ids.size + 5):
        want = ids[np.unique(np.linspace(0, ids.size - 1, min(sample, ids.size)).round().astype(np.int64))]
        if sample >= ids.size:
            want = ids
        assert whatif.sample_ids(frame, sample) == want.tolist(), sample


def test_the_sample_reads_one_part_file_at_a_time(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files' spans come from the log's check (``open_run``): the sample reads only the files
    holding one of its ranks, each alone and once (the golden log's parts hold disjoint id ranges);
    a run opened without its spans reads each file's span first, one file at a time."""
    from dataclasses import replace

    from fivehundred.pipelines import idspans

    frame = deal_frame(open_run(base))
    sizes = {p.name: pq.read_metadata(p).num_rows for p in (base / "deals").glob("*.parquet")}
    assert [(Path(s.file).name, s.rows) for s in frame.run.spans] == sorted(sizes.items())
    read: list[tuple[str, int]] = []
    real = idspans.read_ids

    def spy(open_file, rel):  # type: ignore[no-untyped-def]
        ids = real(open_file, rel)
        read.append((Path(rel).name, ids.size))
        return ids

    monkeypatch.setattr(idspans, "read_ids", spy)
    monkeypatch.setattr(whatif, "read_ids", spy)
    want = whatif.sample_ids(frame, WHATIF_SAMPLE)
    assert read and all(sizes[name] == n for name, n in read) and len(set(read)) == len(read)
    holding = sorted({Path(s.file).name for s in frame.run.spans for i in want if s.lo <= i <= s.hi})
    assert [name for name, _ in read] == holding, "only the files holding a sampled rank, no span pass"
    read.clear()
    assert whatif.sample_ids(frame, 1) == want[:1] and len(read) == 1, "one rank: one file read"
    read.clear()
    bare = replace(frame, run=replace(frame.run, spans=()))
    assert whatif.sample_ids(bare, WHATIF_SAMPLE) == want
    assert read[: len(sizes)] == sorted(sizes.items())  # each file's span, one file at a time


def _opener(files: dict[str, np.ndarray]):  # type: ignore[no-untyped-def]
    blobs = {}
    for name, ids in files.items():
        buf = io.BytesIO()
        pq.write_table(pa.table({"deal_id": pa.array(ids, pa.int64())}), buf)
        blobs[name] = buf.getvalue()
    return lambda rel: pa.BufferReader(blobs[rel])


@settings(max_examples=60, deadline=None)
@given(
    ids=st.sets(st.integers(0, 400), min_size=1, max_size=120),
    owner=st.lists(st.integers(0, 4), min_size=120, max_size=120),
    picks=st.sets(st.integers(0, 119), max_size=30),
)
@example(ids=set(range(20)), owner=[i % 3 for i in range(120)], picks={0, 7, 19})  # interleaved files
@example(ids=set(range(20)), owner=[i // 5 for i in range(120)], picks={0, 4, 5, 19})  # disjoint files
def test_ids_at_ranks_is_the_sorted_ids_at_those_ranks(
    ids: set[int], owner: list[int], picks: set[int]
) -> None:
    values = sorted(ids)
    files: dict[str, list[int]] = {}
    for i, v in enumerate(values):
        files.setdefault(f"part-{owner[i]}", []).append(v)
    arrays = {k: np.array(v[::-1], dtype=np.int64) for k, v in files.items()}  # unsorted inside a file
    spans = [Span(k, int(a.min()), int(a.max()), int(a.size)) for k, a in arrays.items()]
    ranks = sorted(r for r in picks if r < len(values))
    got = list(ids_at_ranks(_opener(arrays), spans, ranks))
    assert got == [values[r] for r in ranks]


@pytest.mark.slow
def test_ray_workers_write_the_same_parts_and_the_golden_tables(runs: list[Path], tmp_path: Path) -> None:
    """The replays as Ray tasks (an embedded instance of 2 workers): the same part bytes as in this
    process, and the golden what-if tables."""
    copies = [
        Path(shutil.copytree(r, tmp_path / r.name, ignore=shutil.ignore_patterns(whatif.WHATIF_DIR)))
        for r in runs
    ]
    tables = analyze(copies, tmp_path / "ray", what_if="misere", sample=WHATIF_SAMPLE, workers=2)
    check_golden(tables)
    ray_parts = _parts(copies[0])
    assert ray_parts
    shutil.rmtree(copies[0] / whatif.WHATIF_DIR)
    analyze(copies[:1], tmp_path / "local", what_if="misere", sample=WHATIF_SAMPLE, workers=0)
    assert _parts(copies[0]) == ray_parts
