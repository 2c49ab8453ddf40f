"""Faults on Ray: a worker that SIGKILLs itself, the driver killed mid-run (a node of a multi-node
cluster killed mid-run: tests/pipelines/cluster/test_ray_cluster.py).  Every run must end with every
deal exactly once and the rows of an undisturbed run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fivehundred.pipelines.loopback import kill_session
from fivehundred.pipelines.raypool import ChunkFailed
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from tests.pipelines.faulty_bots import KILL_AT_ENV, KILL_MARKER_ENV
from tests.pipelines.runs import descendants, parts, reference_run, wait_for_chunks

REPO = Path(__file__).resolve().parents[2]
RAY = str(Path(sys.executable).parent / "ray")
LONG = "random(pass_probability=0.6, max_raise=2)"

pytestmark = pytest.mark.slow


def log(run_dir: Path) -> pa.Table:
    """The whole deal log in deal-id order."""
    files = sorted((run_dir / "deals").glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).sort_by("deal_id")


def reference(tmp_path: Path, **kw: object) -> Path:
    """An undisturbed in-process run."""
    out = tmp_path / "reference"
    run_simulation(make_config(None, out=str(out), workers=0, **kw))
    return out


def assert_exactly_once_like(run_dir: Path, ref_dir: Path) -> None:
    got, ref = log(run_dir), log(ref_dir)
    ids = got.column("deal_id").to_pylist()
    assert ids == list(range(len(ids)))  # every deal once, no duplicate ids
    assert got.drop_columns(["run_id"]).equals(ref.drop_columns(["run_id"]))


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(tmp_path: Path, monkeypatch) -> None:
    """A worker process SIGKILLs itself once; Ray retries its chunk; the log is exact."""
    marker = tmp_path / "killed"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv(KILL_MARKER_ENV, str(marker))
    common = {"seed": 21, "games": 400, "chunk_size": 25}
    ref = reference(tmp_path, strategies="random", **common)
    out = tmp_path / "run"
    cfg = make_config(
        None, strategies="tests.pipelines.faulty_bots:KillOnce", out=str(out), workers=2, **common
    )
    summary = run_simulation(cfg)
    assert marker.exists(), "no worker was killed: the test proved nothing"
    assert summary.chunks == 16
    assert_exactly_once_like(out, ref)


def test_a_chunk_that_keeps_failing_stops_the_run_in_one_line_and_it_resumes(
    tmp_path: Path, monkeypatch
) -> None:
    """No retries left: one-line ChunkFailed, committed chunks kept; the rerun completes exactly."""
    marker = tmp_path / "killed"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv(KILL_MARKER_ENV, str(marker))
    monkeypatch.setenv(KILL_AT_ENV, "3000")  # in a worker's third chunk or so
    common = {"seed": 22, "games": 400, "chunk_size": 25}
    out = tmp_path / "run"
    spec = "tests.pipelines.faulty_bots:KillOnce"
    with pytest.raises(ChunkFailed, match=r"chunk \d+ failed after 0 retries: .*Worker") as info:
        run_simulation(make_config(None, strategies=spec, out=str(out), workers=2, max_retries=0, **common))
    assert "\n" not in str(info.value) and marker.exists()
    committed = json.loads((out / "manifest.json").read_text())["chunks"]
    assert 0 < len(committed) < 16
    marker.unlink()  # the rerun's worker dies once more, and Ray retries it this time
    summary = run_simulation(make_config(None, strategies=spec, out=str(out), workers=2, **common))
    assert marker.exists() and summary.resumed_chunks == len(committed) and summary.chunks == 16
    assert_exactly_once_like(out, reference(tmp_path, strategies="random", **common))


def test_the_driver_killed_mid_run_then_the_same_command(tmp_path: Path) -> None:
    """SIGKILL the command (embedded Ray, 2 workers) mid-run; rerun it; rows as undisturbed."""
    # 200 chunks: enough that the compiled engine cannot finish them all before the kill lands.
    args = ["--games", "600", "--seed", "8", "--strategies", LONG, "--chunk-size", "3", "--workers", "2"]
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "simulate", *args, "--out", str(out)]
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        wait_for_chunks(proc, out / "manifest.json", 3, timeout=120)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        time.sleep(1.0)  # Ray's processes share the driver's fate; remove any straggler of ours
        kill_session(proc.pid)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "running" and 3 <= len(manifest["chunks"]) < 200
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert again.returncode == 0, again.stderr
    ref = reference(tmp_path, strategies=LONG, seed=8, games=600, chunk_size=3)
    assert parts(out) == parts(ref)
    assert_exactly_once_like(out, ref)


def _descendants(root: int) -> set[int]:
    """Live processes below ``root`` (Ray's GCS, raylet, agents and workers are all below the driver)."""
    return descendants(root) - {root}


def _started(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot), None when it is gone: with the pid it names one
    process, so a pid the system has since given to another process is not taken for ours."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _state(pid: int) -> str | None:
    """The process state letter of ``pid`` (``Z``: a zombie), None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _cmdline(pid: int) -> str:
    """The command line of ``pid`` (for a failure message)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return "?"


def _alive(helpers: dict[int, int]) -> list[int]:
    """The processes of ``helpers`` (pid: start time) that still run (zombies included)."""
    return [p for p, t in helpers.items() if _started(p) == t]


def _terminate_when(
    proc: subprocess.Popen[str],
    manifest: Path,
    chunks: int,
    signums: tuple[int, ...] = (signal.SIGTERM,),
    settle: float = 0.0,
) -> dict[int, int]:
    """Signal the command (``signums``, 50 ms apart) ``settle`` seconds after its manifest lists
    ``chunks`` chunks; the Ray processes it had then (pid: start time)."""
    helpers: dict[int, int] = {}

    def seen() -> None:
        for p in _descendants(proc.pid):
            t = _started(p)
            if t is not None:
                helpers.setdefault(p, t)

    wait_for_chunks(proc, manifest, chunks, timeout=120, each=seen)
    time.sleep(settle)
    assert proc.poll() is None, "the run ended before the signal: the test proved nothing"
    for i, signum in enumerate(signums):
        if i:
            time.sleep(0.05)
        proc.send_signal(signum)
    return helpers


def _assert_stopped_like_ctrl_c(proc: subprocess.Popen[str], helpers: dict[int, int]) -> str:
    """Exit status 130 after one ``interrupted:`` line, Ray's processes gone; the command's stderr."""
    _, stderr = proc.communicate(timeout=90)
    assert proc.returncode == 130, stderr
    lines = stderr.strip().splitlines()
    assert lines[-1].startswith("interrupted: ") and "run the same command again" in lines[-1], stderr
    assert "Traceback" not in stderr and "SIGTERM" not in stderr, stderr
    assert len(helpers) >= 2, "no Ray processes were seen: the run was not on Ray"
    deadline = time.monotonic() + 45  # Ray shut down: its processes end with the driver (slowly under load)
    while time.monotonic() < deadline and _alive(helpers):
        alive = _alive(helpers)
        if all(_state(p) in ("Z", "X", None) for p in alive):
            break
        time.sleep(0.1)
    # Zombies have ended: only a parent that is gone could reap them, and PID 1 of a container may not.
    left = [p for p in _alive(helpers) if _state(p) not in ("Z", "X", None)]
    names = {p: _cmdline(p) for p in left}
    for pid in left:  # never leave ours behind, even when the assertion below fails
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not left, f"Ray processes outlived the driver: {names}"
    return stderr


def test_sigterm_under_ray_stops_like_ctrl_c_and_resumes(tmp_path: Path) -> None:
    """``kill`` of simulate on embedded Ray: status 130, the Ctrl-C line, manifest flushed, Ray gone."""
    out = tmp_path / "terminated"
    args = ["--games", "600", "--seed", "6", "--strategies", LONG, "--chunk-size", "3", "--workers", "2"]
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "simulate", *args, "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    helpers = _terminate_when(proc, out / "manifest.json", 3)
    _assert_stopped_like_ctrl_c(proc, helpers)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "running" and 3 <= len(manifest["chunks"]) < 200
    assert not (out / ".tmp").exists() and not (out / ".lock").exists()
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert again.returncode == 0, again.stderr
    assert parts(out) == parts(reference(tmp_path, strategies=LONG, seed=6, games=600, chunk_size=3))


def _default_sigint() -> None:  # a background child may inherit SIGINT ignored
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("twice", [False, True])
def test_ctrl_c_under_ray_keeps_the_games_in_flight_and_resumes_to_the_same_files(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, twice: bool
) -> None:
    """Ctrl-C of simulate on 2 Ray workers: the finished games of the chunks in flight are kept
    (``partial/``, listed in the manifest) and the same command rebuilds the undisturbed run's part
    files.  A second Ctrl-C right after the first stops at once: only whole files, none half-written."""
    out = tmp_path / "interrupted"
    args = ["--games", "16000", "--seed", "6", "--strategies", LONG, "--chunk-size", "4000", "--workers", "2"]
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "simulate", *args, "--out", str(out)]
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint
    )
    signums = (signal.SIGINT, signal.SIGINT) if twice else (signal.SIGINT,)
    # Once the first chunk is committed (and the next ones have played a second): Ctrl-C.
    helpers = _terminate_when(proc, out / "manifest.json", 1, signums, settle=1.0)
    stderr = _assert_stopped_like_ctrl_c(proc, helpers)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "running"  # stopped, not played to the end
    partial = manifest.get("partial", [])  # usually some (the library test makes sure of it)
    games = manifest["totals"]["games"] + sum(p["games"][1] - p["games"][0] for p in partial)
    last = stderr.strip().splitlines()[-1]
    assert f" deals in {games:,} games (" in last, last
    assert all((out / p["file"]).exists() for p in partial)
    assert not (out / ".tmp").exists() and not (out / ".lock").exists()
    listed = {p["file"] for p in partial}
    assert {f"partial/{p.name}" for p in out.glob("partial/*")} <= listed  # nothing unlisted or half-written
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    ref = reference_run(tmp_path_factory, strategies=LONG, seed=6, games=16000, chunk_size=4000)
    assert parts(out) == parts(ref)


TOURNAMENT = """
name = "sigterm"
seed = 5
[[entries]]
name = "a"
strategy = "random"
[[entries]]
name = "b"
strategy = "random(pass_probability=0.6, max_raise=2)"
[stop]
rule = "fixed"
pairs = 400
[run]
chunk_pairs = 2
"""


def test_sigterm_of_a_tournament_under_ray_stops_like_ctrl_c_and_resumes(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(TOURNAMENT)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "tournament", str(config), "--out", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    helpers = _terminate_when(proc, out / "manifest.json", 3)
    _assert_stopped_like_ctrl_c(proc, helpers)
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        manifest.get("status") != "complete" and not manifest.get("complete") and 3 <= len(manifest["chunks"])
    )
    again = subprocess.run([*cmd, "--workers", "0"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    ref = tmp_path / "ref"
    whole = subprocess.run(
        [*cmd[:-1], str(ref), "--workers", "0"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert whole.returncode == 0, whole.stderr
    assert {p.name: p.read_bytes() for p in (out / "deals").glob("*")} == {
        p.name: p.read_bytes() for p in (ref / "deals").glob("*")
    }
