"""The embedded Ray instance listens on loopback only; joining a cluster with a bad token says so.

The sockets are read from ``/proc/net/tcp`` and ``/proc/net/tcp6`` (LISTEN entries) and attributed
to processes through ``/proc/PID/fd``: those of this test process and of every process it started
(Ray's GCS, raylet, agents and workers are all descendants of the driver).
"""

from __future__ import annotations

import ipaddress
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fivehundred.pipelines.loopback import ray_cluster
from fivehundred.pipelines.raypool import (
    _JOIN_WAIT_ENV,
    JOIN_WAIT_SECONDS,
    ClusterError,
    RayPool,
    _join_wait,
    cluster_error,
)
from tests.pipelines.runs import descendants

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

_LISTEN = "0A"


def _address(hex_addr: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An address of /proc/net/tcp{,6}: 32-bit words in host (little-endian) order."""
    raw = bytes.fromhex(hex_addr)
    host = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return ipaddress.ip_address(host)


def listening_sockets() -> dict[int, str]:
    """Inode -> ``address:port`` of every listening TCP socket of this network namespace."""
    found: dict[int, str] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            next(fh)
            for line in fh:
                fields = line.split()
                local, state, inode = fields[1], fields[3], int(fields[9])
                if state == _LISTEN:
                    addr, port = local.split(":")
                    found[inode] = f"{_address(addr)}:{int(port, 16)}"
    return found


def is_loopback(text: str) -> bool:
    addr = ipaddress.ip_address(text.rsplit(":", 1)[0])
    mapped = getattr(addr, "ipv4_mapped", None)
    return addr.is_loopback or bool(mapped and mapped.is_loopback)


def sockets_of(pids: set[int]) -> dict[int, set[int]]:
    """Socket inodes held open by each pid."""
    out: dict[int, set[int]] = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        inodes = set()
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:  # closed meanwhile
                continue
            if link.startswith("socket:["):
                inodes.add(int(link[8:-1]))
        out[pid] = inodes
    return out


def _ping(x: int) -> int:
    return x


def test_the_embedded_instance_listens_on_loopback_only() -> None:
    with RayPool(workers=1) as pool:
        import ray

        assert ray.get(pool._task_remote(_ping).remote(3)) == 3  # a worker is up
        time.sleep(1.0)  # the agents open their ports shortly after start
        listening = listening_sockets()
        procs = descendants(os.getpid())
        held = sockets_of(procs)
        mine = {inode: addr for pid in held for inode, addr in listening.items() if inode in held[pid]}
        names = {}
        for pid in held:
            try:
                names[pid] = Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                pass
        gcs = str(ray.get_runtime_context().gcs_address)
    assert len(procs) >= 3, "Ray started no processes below this one: the test would prove nothing"
    assert len(mine) >= 4, f"too few listening sockets found ({mine}): the scan is broken"
    exposed = {addr for addr in mine.values() if not is_loopback(addr)}
    assert not exposed, f"listening beyond loopback: {sorted(exposed)} ({names})"
    assert gcs.startswith("127.0.0.1:")


def test_the_loopback_check_itself_sees_an_open_socket() -> None:
    """Self-check of the scan: a socket bound to all interfaces is found and flagged."""
    import socket

    with socket.socket(socket.AF_INET6) as s:
        s.bind(("::", 0))
        s.listen()
        port = s.getsockname()[1]
        held = sockets_of({os.getpid()})[os.getpid()]
        mine = [addr for inode, addr in listening_sockets().items() if inode in held]
    assert any(a.endswith(f":{port}") and not is_loopback(a) for a in mine)


def test_ray_is_shut_down_and_the_sigterm_handler_put_back() -> None:
    def mine(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, mine)
    before = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")}
    try:
        with RayPool(workers=1):
            assert signal.getsignal(signal.SIGTERM) is mine  # not Ray's sys.exit(15)
            assert os.environ["RAY_AUTH_MODE"] == "disabled"
        assert signal.getsignal(signal.SIGTERM) is mine
        assert {k: os.environ.get(k) for k in before} == before
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize(
    ("raw", "token", "expected"),
    [
        (
            "Unauthenticated: RPC error: InvalidAuthToken: Authentication token is missing",
            "f" * 32,
            "refused",
        ),
        ("Unauthenticated: RPC error: InvalidAuthToken: Authentication token is missing", None, "no authent"),
        ("Failed to connect to Ray cluster at 10.0.0.1:6379", None, "cannot join the Ray cluster"),
    ],
)
def test_cluster_errors_are_one_line_and_name_the_token(
    raw: str, token: str | None, expected: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "none"))
    if token:
        monkeypatch.setenv("RAY_AUTH_TOKEN", token)
    else:
        monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    err = cluster_error("127.0.0.1:6379", RuntimeError("Failed to connect"), f"W gcs_client.cc: {raw}\n" * 3)
    assert isinstance(err, ClusterError)
    assert expected in str(err) and "\n" not in str(err) and "'127.0.0.1:6379'" in str(err)


def test_joining_a_cluster_tries_a_few_seconds_unless_the_user_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused token is reported after JOIN_WAIT_SECONDS tries instead of Ray's 20: the variable is
    set while ``ray.init`` joins and put back after; a value of the user's is left alone; and Ray
    still reads that variable when it connects to the GCS (a Ray upgrade that drops it fails here)."""
    import inspect

    from ray._private.node import Node

    assert _JOIN_WAIT_ENV in inspect.getsource(Node._init_gcs_client)
    monkeypatch.delenv(_JOIN_WAIT_ENV, raising=False)
    with _join_wait():
        assert os.environ[_JOIN_WAIT_ENV] == str(JOIN_WAIT_SECONDS)
    assert _JOIN_WAIT_ENV not in os.environ
    monkeypatch.setenv(_JOIN_WAIT_ENV, "30")
    with _join_wait():
        assert os.environ[_JOIN_WAIT_ENV] == "30"
    assert os.environ[_JOIN_WAIT_ENV] == "30"


def _simulate(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "simulate", "--games", "2", "--seed", "1"]
    cmd += ["--strategies", "random", "--workers", "1", "--out", str(tmp_path / "r"), *args]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=180, env=env)


def test_a_missing_head_is_one_line(tmp_path: Path) -> None:
    done = _simulate(["--address", "127.0.0.1:9"], dict(os.environ), tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2
    assert len(lines) == 1 and lines[0].startswith("error: address '127.0.0.1:9'"), done.stderr


def test_a_token_cluster_refuses_a_missing_or_wrong_token_in_one_line(tmp_path: Path) -> None:
    """A real head with token auth on loopback; drivers without the token and with a wrong one."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    base["RAY_USAGE_STATS_ENABLED"] = "0"
    base["RAY_AUTH_TOKEN_PATH"] = str(tmp_path / "no-token-here")
    with ray_cluster(workers=0, head_cpus=1) as cluster:
        address = ["--address", cluster.address]
        missing = _simulate(address, base, tmp_path)
        wrong = _simulate(address, {**base, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}, tmp_path)
    for done, what in (
        (missing, "no authentication token is set"),
        (wrong, "refused the authentication token"),
    ):
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2, done.stderr
        assert len(lines) == 1 and lines[0].startswith("error: address") and what in lines[0], done.stderr
