"""The tables are the same numbers as before the bounded-memory analysis: every table of one analysis
of the golden runs (a variant pair, a duplicate run, a run on another table, the misère what-if) equals
the tables main's whole-frame code wrote for the same logs (``golden/make_golden.py``), bootstrap
columns included, in process and for any batch size."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from fivehundred.pipelines.analysis import analyze
from tests.pipelines.analysis.golden.make_golden import TABLES, WHATIF_SAMPLE, golden_runs
from tests.pipelines.analysis.helpers import check_golden


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return golden_runs(tmp_path_factory.mktemp("golden"))


def test_tables_equal_the_golden_tables(runs: list[Path], tmp_path: Path) -> None:
    check_golden(analyze(runs, tmp_path / "stats", what_if="misere", sample=WHATIF_SAMPLE))


@pytest.mark.slow  # the golden runs analysed again in many batches
@pytest.mark.parametrize("rows", [40, 333])
def test_any_batch_size_gives_the_golden_tables(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: int
) -> None:
    from fivehundred.pipelines.analysis import batches

    monkeypatch.setattr(batches, "BATCH_ROWS", rows)
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(batches, "run_partials", _spy(batches.run_partials, seen))
    check_golden(analyze(runs, tmp_path / "stats", what_if="misere", sample=WHATIF_SAMPLE))
    assert len(seen) > 2 * len(runs), "several batches per run"
    assert max(n for n, _ in seen) <= rows + 40, "a batch holds at most `rows` deals of a run, plus one game"


def _spy(fn, seen):  # type: ignore[no-untyped-def]
    def wrapped(d, players, teams):  # type: ignore[no-untyped-def]
        seen.append((d.height, d["game_id"].n_unique()))
        return fn(d, players, teams)

    return wrapped


@pytest.mark.slow
def test_ray_workers_give_the_golden_tables(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batches as Ray tasks (an embedded instance of 2 workers): the same tables, byte for byte."""
    from fivehundred.pipelines.analysis import batches

    monkeypatch.setattr(batches, "BATCH_ROWS", 150)
    tables = analyze(runs, tmp_path / "ray", workers=2)
    local = analyze(runs, tmp_path / "local", workers=0)
    want = {n: df for n, df in tables.items()}
    check_golden({**want, **_whatif_golden()})
    for name in tables:
        assert (tmp_path / "ray" / f"{name}.parquet").read_bytes() == (
            tmp_path / "local" / f"{name}.parquet"
        ).read_bytes(), name
        assert_frame_equal(tables[name], local[name], check_exact=True)


def _whatif_golden() -> dict[str, pl.DataFrame]:
    return {
        n: pl.read_parquet(TABLES / f"{n}.parquet") for n in ("misere_whatif", "misere_whatif_by_feature")
    }
