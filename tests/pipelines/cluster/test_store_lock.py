"""Two drivers on one run in the S3 server: the lease object taken with ``If-None-Match: *``."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time

import pytest

from fivehundred.pipelines.storelock import LockHeld, StoreLock, Target, lock_note, target
from tests.cli.helpers import in_process
from tests.pipelines.runs import LOCK_TOURNAMENT

SIM = ["simulate", "--games", "3", "--seed", "2", "--strategies", "random", "--workers", "0"]


def test_a_store_without_conditional_writes_gets_one_line_saying_what_to_do(monkeypatch) -> None:
    assert lock_note("runs/local") is None
    note = lock_note("gs://bucket/run")
    assert note is not None and "\n" not in note and "make sure only one command writes" in note
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    note = lock_note("s3://bucket/run")
    assert note is not None and "no S3 credentials" in note
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    assert lock_note("s3://bucket/run") is None
    t = target("s3://bucket/run?endpoint_override=127.0.0.1:9000&scheme=http&region=eu-west-1")
    assert (
        isinstance(t, Target)
        and t.url == "http://127.0.0.1:9000/bucket/run/.lock"
        and t.region == "eu-west-1"
    )


@pytest.mark.slow
def test_the_second_driver_is_refused_and_only_one_of_racing_drivers_wins(s3: str) -> None:
    run = f"{s3}/run"
    t = target(run)
    assert isinstance(t, Target)
    holder = StoreLock(t, run)
    holder.acquire()
    try:
        status, _, err = in_process([*SIM, "--out", run])
        assert status == 2 and err.count("\n") == 1, err
        assert err.startswith(f"error: {run}: another driver is writing this run (host ")
    finally:
        holder.release()
    status, _, err = in_process([*SIM, "--out", run])
    assert status == 0, err
    from fivehundred.pipelines.storelock import _send

    assert _send(t, "GET").status == 404  # the finished driver let go of its lease

    # eight drivers at once: the store lets exactly one take the lease
    racers = [StoreLock(t, run) for _ in range(8)]
    won: list[StoreLock] = []
    refused: list[LockHeld] = []

    def race(lock: StoreLock) -> None:
        try:
            lock.acquire()
            won.append(lock)
        except LockHeld as exc:
            refused.append(exc)

    threads = [threading.Thread(target=race, args=(r,)) for r in racers]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(won) == 1 and len(refused) == 7
    won[0].release()


@pytest.mark.slow
def test_a_second_tournament_driver_is_refused(s3: str, tmp_path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(LOCK_TOURNAMENT)
    run = f"{s3}/tournament"
    args = ["tournament", str(config), "--out", run, "--workers", "0"]
    t = target(run)
    assert isinstance(t, Target)
    holder = StoreLock(t, run)
    holder.acquire()
    try:
        status, _, err = in_process(args)
        assert status == 2 and err.count("\n") == 1, err
        assert err.startswith(f"error: {run}: another driver is writing this run (host ")
    finally:
        holder.release()
    status, _, err = in_process(args)
    assert status == 0, err
    from fivehundred.pipelines.storelock import _send

    assert _send(t, "GET").status == 404  # the finished driver let go of its lease


def _put_lease(t: Target, info: dict) -> None:
    from fivehundred.pipelines.storelock import _send

    assert _send(t, "PUT", json.dumps(info).encode()).status == 200


@pytest.mark.slow
def test_a_lease_left_by_a_killed_driver_or_not_renewed_is_taken_over(s3: str) -> None:
    from fivehundred.pipelines.storelock import _process_start, _this_boot

    run = f"{s3}/run"
    t = target(run)
    assert isinstance(t, Target)
    dead = subprocess.Popen(["true"])
    start = _process_start(dead.pid)
    dead.wait()
    here = {"host": socket.gethostname(), "boot": _this_boot(), "pid": dead.pid, "start": start, "lease": 600}
    _put_lease(t, here)  # a driver of this machine that was killed: taken over at once
    status, _, err = in_process([*SIM, "--out", run])
    assert status == 0, err

    elsewhere = {"host": "another-host", "boot": "x", "pid": 1, "start": "1", "lease": 600}
    _put_lease(t, elsewhere)  # alive as far as anyone here can tell, and renewed just now: refused
    status, _, err = in_process([*SIM, "--out", run])
    assert status == 2 and "another driver is writing this run (host another-host, pid 1" in err, err

    _put_lease(t, {**elsewhere, "lease": 1})  # a one-second lease, not renewed: stale soon
    time.sleep(2.5)
    status, _, err = in_process([*SIM, "--out", run])
    assert status == 0, err
