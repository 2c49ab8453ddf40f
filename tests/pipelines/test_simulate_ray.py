"""``simulate`` on embedded Ray: the same files, byte for byte, with 1 or 2 workers and in-process."""

from __future__ import annotations

import os
from contextlib import closing
from itertools import count
from pathlib import Path

import pytest

from fivehundred.pipelines.chunks import GameChunk, play_chunk
from fivehundred.pipelines.raypool import RayPool
from fivehundred.pipelines.runconfig import SeatSpec, make_config
from fivehundred.pipelines.scheduler import run_chunks
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.sim import StrategyError, load_rules
from tests.pipelines.runs import parts

REPO = Path(__file__).resolve().parents[2]
LONG = "random(pass_probability=0.6, max_raise=2)"

pytestmark = pytest.mark.slow


def test_one_and_two_workers_and_in_process_write_identical_files(tmp_path: Path) -> None:
    common = {"strategies": "random(pass_probability=0.6, max_raise=2)", "seed": 3, "chunk_size": 2}
    runs = {}
    auth_before = os.environ.get("RAY_AUTH_MODE")
    for workers in (0, 1, 2):
        out = tmp_path / f"w{workers}"
        summary = run_simulation(make_config(None, deals=1200, out=str(out), workers=workers, **common))
        runs[workers] = (summary, parts(out))
    assert runs[0][1] == runs[1][1] == runs[2][1]
    assert len(runs[0][1]) == runs[0][0].chunks > 10
    assert runs[2][0].deals == runs[0][0].deals >= 1200
    assert (tmp_path / "w2" / "manifest.json").exists() and not (tmp_path / "w2" / ".tmp").exists()
    assert os.environ.get("RAY_AUTH_MODE") == auth_before  # only the embedded instance ran without auth


def test_chunks_played_in_pieces_write_the_files_of_whole_chunks(tmp_path: Path) -> None:
    """Two chunks of 200 games on 2 workers: 4 tasks of 50 games each, so both workers play each
    chunk; the part files are those of the in-process run (one task per chunk), byte for byte; the
    same with ``deals`` cut inside a chunk played in pieces."""

    def run(name: str, workers: int, **kw: object):
        cfg = make_config(None, strategies=LONG, seed=4, out=str(tmp_path / name), workers=workers, **kw)
        return run_simulation(cfg)

    ray_run, local = run("ray", 2, games=400, chunk_size=200), run("local", 0, games=400, chunk_size=200)
    assert ray_run.tasks == 8 and local.tasks == 2 and ray_run.chunks == local.chunks == 2
    assert parts(tmp_path / "ray") == parts(tmp_path / "local")
    cut, ref = run("cut", 2, deals=500, chunk_size=300), run("cut-ref", 0, deals=500, chunk_size=300)
    assert cut.tasks > cut.chunks and cut.deals == ref.deals >= 500
    assert parts(tmp_path / "cut") == parts(tmp_path / "cut-ref")


def test_run_chunks_yields_in_order_and_stops_early(monkeypatch) -> None:
    """The tournament's entry point: an endless chunk stream, results in order, stop at will.

    A bot's own exception comes back from the worker as itself (one line), without retries.  The
    chunks in flight at the stop are let go, never ``ray.cancel``led (a cancel meeting the task's
    reply aborts the driver inside Ray), and the pool plays on afterwards.
    """
    import ray

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    cancelled: list[object] = []
    monkeypatch.setattr(ray, "cancel", lambda ref, **kw: cancelled.append(ref))
    rules = load_rules("pagat-au")
    seats = tuple(SeatSpec.parse("random") for _ in range(4))
    chunks = (GameChunk(k, rules, seats, 5, range(10 * k, 10 * k + 10)) for k in count())
    got = []
    with RayPool(workers=2) as pool:
        assert pool.window == 4
        with closing(run_chunks(chunks, pool)) as stream:
            for done in stream:
                got.append(done)
                if len(got) == 7:
                    break
        bad = (SeatSpec.parse("tests.pipelines.faulty_bots:Raiser"),) * 4
        with pytest.raises(StrategyError, match=r"strategy 'raiser.v1' \(seat \d\) raised ZeroDivisionError"):
            list(run_chunks([GameChunk("bad", rules, bad, 5, range(3))], pool))
    assert [d.chunk.key for d in got] == list(range(7))
    assert cancelled == []
    for d in got:
        assert d.table.equals(play_chunk(d.chunk))
