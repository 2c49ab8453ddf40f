"""A killed ``analyze`` run again with the same arguments reuses the batches it had finished (kept in
the first run's ``analysis_batches/``) and writes the same bytes; a different analysis (other runs,
a changed log) never reuses them; the folder is gone once the tables are written.  A kill is an
exception raised as a batch starts (quick), or a SIGKILL of a fresh process (slow)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from fivehundred.pipelines.analysis import analyze, batch_cache, batches
from fivehundred.pipelines.analysis.batch_cache import BatchCache
from fivehundred.pipelines.analysis.batches import batch_stats, deal_frames
from fivehundred.pipelines.analysis.frame import Frame, run_shape
from fivehundred.pipelines.analysis.io import open_run
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation

#: Deals per batch: the test runs (24 deals in 4 part files) make several batches.
ROWS = 8


class Killed(Exception):
    """Stands for the process being killed in the middle of a batch."""


def _simulate(out: Path, bots: str) -> Path:
    cfg = make_config(
        None, variant="pagat-au", strategies=bots, seed=1, games=24, chunk_size=6, workers=0, out=str(out)
    )
    run_simulation(cfg)
    return out


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("resume")
    return _simulate(root / "a", "random"), _simulate(root / "b", "random(pass_probability=0.7)")


def _counted(monkeypatch: pytest.MonkeyPatch, kill_at: int | None = None) -> list[int]:
    """Count the batches computed (their keys); the ``kill_at``-th one raises :class:`Killed`."""
    calls: list[int] = []

    def task(batch: batches.Batch) -> batches.Result:
        if kill_at is not None and len(calls) + 1 == kill_at:
            raise Killed
        calls.append(batch.key)
        return batch_stats(batch)

    monkeypatch.setattr(batches, "batch_stats", task)
    monkeypatch.setattr(batches, "BATCH_ROWS", ROWS)
    return calls


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _cached(run: Path) -> list[Path]:
    return sorted((run / batch_cache.CACHE_DIR).rglob("*.parquet"))


def _frames(runs: list[Path], cache: bool = True) -> list[Frame]:
    opened = [open_run(r) for r in runs]
    return deal_frames(opened, cache=BatchCache(opened[0].log.dir) if cache else None)


def _same(got: list[Frame], want: list[Frame]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        for mine, theirs in ((g.stats, w.stats), (g.paired or {}, w.paired or {})):
            assert sorted(mine) == sorted(theirs)
            for name in theirs:
                assert_frame_equal(mine[name], theirs[name], check_exact=True)


def test_killed_batches_are_reused_with_the_same_frames(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = shutil.copytree(logs[0], tmp_path / "run")
    calls = _counted(monkeypatch)
    want = _frames([run], cache=False)
    total = len(calls)
    assert total >= 3

    _counted(monkeypatch, kill_at=2)
    with pytest.raises(Killed):
        _frames([run])
    assert [p.name.split("-")[1] for p in _cached(run)] == ["00000"]

    calls = _counted(monkeypatch)
    _same(_frames([run]), want)
    assert calls == list(range(1, total)), "only the batches not finished are computed"


def test_keys_differ_for_another_analysis(logs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = open_run(logs[0]), open_run(logs[1])
    shape = run_shape(a)
    key = batch_cache.analysis_key([a], [False], ROWS)
    assert key == batch_cache.analysis_key([open_run(logs[0])], [False], ROWS)
    others = [
        batch_cache.analysis_key([a, b], [False, True], ROWS),
        batch_cache.analysis_key([a], [False], ROWS + 1),
        batch_cache.analysis_key([replace(a, run_id="other")], [False], ROWS),
        batch_cache.analysis_key([replace(a, master_seed=2)], [False], ROWS),
        batch_cache.analysis_key([replace(a, path=str(tmp_path))], [False], ROWS),
    ]
    assert len({key, *others}) == 1 + len(others)
    batch = batches.plan_batches([a], [shape], [False], ROWS)[0]
    src = batch.sources[0]
    assert src is not None
    one = batch_cache.batch_key(key, batch)
    assert one is not None and one != batch_cache.batch_key(others[0], batch)
    # A part file of the batch holding other deal ids (or another count of them): another key.
    span = next(s for s in a.spans if s.file == src.files[0])
    for changed in (replace(span, hi=span.hi + 1), replace(span, rows=span.rows - 1)):
        spans = tuple(changed if s is span else s for s in a.spans)
        moved = replace(batch, sources=(replace(src, run=replace(a, spans=spans)),))
        assert batch_cache.batch_key(key, moved) not in (None, one)
    unknown = replace(batch, sources=(replace(src, run=replace(a, spans=())),))
    assert batch_cache.batch_key(key, unknown) is None, "deal ids not known: never cached"


@pytest.mark.slow  # four analyses of two runs
def test_another_analysis_never_reuses_them(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = shutil.copytree(logs[0], tmp_path / "run")
    _counted(monkeypatch, kill_at=3)
    with pytest.raises(Killed):
        _frames([run])
    kept = _cached(run)
    assert len(kept) == 2
    # Other runs (the first the same): a folder of their own, every batch computed.
    calls = _counted(monkeypatch)
    _frames([run, logs[1]])
    assert calls == list(range(len(calls))), "every batch computed"
    assert set(kept) <= set(_cached(run)), "the killed analysis's batches stay for its own rerun"
    # The same path holding another run's log (the same deals played by other bots): nothing reused.
    shutil.rmtree(run / "deals")
    shutil.copytree(logs[1] / "deals", run / "deals")
    shutil.copy(logs[1] / "manifest.json", run / "manifest.json")
    calls = _counted(monkeypatch)
    got = _frames([run])
    assert calls == list(range(len(calls))), "every batch computed"
    _same(got, _frames([logs[1]], cache=False))


@pytest.mark.slow  # three analyses, each through every table
def test_a_killed_analysis_resumes_with_the_same_bytes(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = shutil.copytree(logs[0], tmp_path / "run", ignore=shutil.ignore_patterns(".tmp"))
    calls = _counted(monkeypatch)
    analyze([run], tmp_path / "want")
    total = len(calls)
    assert not (run / batch_cache.CACHE_DIR).exists() and not (run / ".tmp").exists(), "left as it was"

    _counted(monkeypatch, kill_at=3)
    with pytest.raises(Killed):
        analyze([run], tmp_path / "got")
    assert not (tmp_path / "got").exists()
    assert len(_cached(run)) == 2

    calls = _counted(monkeypatch)
    analyze([run], tmp_path / "got")
    assert calls == list(range(2, total))
    assert _files(tmp_path / "got") == _files(tmp_path / "want")
    assert not (run / batch_cache.CACHE_DIR).exists()
    assert not list((run / ".tmp").glob("*")), "the kill's temporary folder (of atomic writes) left empty"


#: ``analyze RUN OUT`` with batches of ``ROWS`` deals, the process killed (SIGKILL) as its
#: ``KILL``-th batch starts (0: never); prints the batches it computed.
SCRIPT = """
import os, signal, sys
from fivehundred.pipelines.analysis import analyze, batches
run, out, rows, kill = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
batches.BATCH_ROWS = rows
real, calls = batches.batch_stats, []
def task(batch):
    calls.append(batch.key)
    if len(calls) == kill:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(batch)
batches.batch_stats = task
analyze([run], out)
print(len(calls))
"""


@pytest.mark.slow  # fresh processes, one of them killed
def test_a_process_killed_mid_analysis_resumes(logs: tuple[Path, Path], tmp_path: Path) -> None:
    run = shutil.copytree(logs[0], tmp_path / "run")

    def analyse(out: str, kill: int) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-c", SCRIPT, str(run), str(tmp_path / out), str(ROWS), str(kill)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600)

    want = analyse("want", 0)
    assert want.returncode == 0, want.stderr
    total = int(want.stdout)
    killed = analyse("got", 3)
    assert killed.returncode == -signal.SIGKILL
    assert len(_cached(run)) == 2 and not (tmp_path / "got").exists()
    again = analyse("got", 0)
    assert again.returncode == 0, again.stderr
    assert int(again.stdout) == total - 2
    assert _files(tmp_path / "got") == _files(tmp_path / "want")
    assert not (run / batch_cache.CACHE_DIR).exists()


def test_a_cached_batch_round_trips_and_another_key_is_refused(logs: tuple[Path, Path]) -> None:
    run = open_run(logs[0])
    batch = batches.plan_batches([run], [run_shape(run)], [False], ROWS)[1]
    result = batch_stats(batch)
    data = batch_cache.encode_result("k1", result)
    back = batch_cache.decode_result(data, "k1", 1)
    assert back is not None and back[1] == [None]
    assert back[0][0] is not None and result[0][0] is not None
    assert sorted(back[0][0]) == sorted(result[0][0])
    for name, df in result[0][0].items():
        assert_frame_equal(back[0][0][name], df, check_exact=True)
        assert back[0][0][name].schema == df.schema
    assert batch_cache.decode_result(data, "k2", 1) is None
    assert batch_cache.decode_result(data[: len(data) // 2], "k1", 1) is None
