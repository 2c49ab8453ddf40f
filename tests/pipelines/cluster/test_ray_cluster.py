"""A Ray cluster of a head and two worker nodes (``ray start`` on loopback, token authentication)
writing to the S3 server: ``simulate --address`` with a worker node killed mid-run and then the
driver killed, resumed by the same command; every deal exactly once and the part files byte for byte
those of an embedded-Ray run; ``analyze --address`` (with ``--what-if``) on it, tables as a local
analysis's.  One cluster for the module; nodes stopped by their session ids, never ``ray stop``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fivehundred.pipelines.loopback import RayCluster, S3Server, kill_session, ray_cluster
from tests.pipelines.faulty_bots import NODE_LOG_ENV, PLAY_DELAY_ENV

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
BOT = "tests.pipelines.faulty_bots:NodeRecorder"
ARGS = ["simulate", "--games", "480", "--seed", "4", "--chunk-size", "12", "--strategies", BOT]


@pytest.fixture(scope="module")
def cluster(s3_service: S3Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayCluster]:
    node_log = tmp_path_factory.mktemp("nodes")
    env = {
        **s3_service.env(),
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        NODE_LOG_ENV: str(node_log),
        PLAY_DELAY_ENV: "0.0005",  # about 20 ms a deal, sleeping: the run lasts seconds, not CPU
    }
    with ray_cluster(workers=2, cpus=1, env=env) as c:
        c.env["NODE_LOG"] = str(node_log)
        yield c


def command(cluster: RayCluster, *args: str) -> list[str]:
    return [sys.executable, "-m", "fivehundred.cli.main", *args, "--address", cluster.address]


def store_json(server: S3Server, key: str) -> dict | None:
    try:
        with server.filesystem().open_input_stream(key) as fh:  # type: ignore[attr-defined]
            return json.loads(fh.read())
    except (OSError, ValueError):
        return None


def store_parts(server: S3Server, prefix: str) -> dict[str, bytes]:
    import pyarrow.fs as pafs

    fs = server.filesystem()
    out = {}
    for info in fs.get_file_info(pafs.FileSelector(prefix, allow_not_found=True)):  # type: ignore[attr-defined]
        with fs.open_input_stream(info.path) as fh:  # type: ignore[attr-defined]
            out[info.base_name] = fh.read()
    return out


def test_simulate_and_analyze_on_a_three_node_cluster_survive_a_node_and_the_driver(
    cluster: RayCluster, s3: str, s3_service: S3Server, tmp_path: Path
) -> None:
    bucket = s3.removeprefix("s3://")
    run = f"{s3}/run"
    node_log = Path(cluster.env["NODE_LOG"])
    env = {k: v for k, v in cluster.env.items() if k != "NODE_LOG"}
    cmd = command(cluster, *ARGS, "--out", run)
    driver = subprocess.Popen(
        cmd,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    killed_node = killed_driver = False
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and driver.poll() is None:
            manifest = store_json(s3_service, f"{bucket}/run/manifest.json")
            done = len(manifest["chunks"]) if manifest else 0
            nodes = {p.read_text() for p in node_log.glob("*.node")}
            if not killed_node and len(nodes) >= 2 and done >= 3:
                cluster.workers[1].kill()  # a worker node dies: raylet, workers, agents
                killed_node, after = True, done
            elif killed_node and done >= after + 3:
                os.killpg(driver.pid, signal.SIGKILL)  # then the driver dies
                killed_driver = True
                break
            time.sleep(0.05)
        driver.communicate(timeout=60)
    finally:
        kill_session(driver.pid)
    assert killed_node and killed_driver, "the run ended before both kills: the test proved nothing"
    manifest = store_json(s3_service, f"{bucket}/run/manifest.json")
    assert manifest is not None and manifest["status"] == "running" and len(manifest["chunks"]) < 40

    again = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "Started a local Ray instance" not in again.stderr  # it joined the cluster
    manifest = store_json(s3_service, f"{bucket}/run/manifest.json")
    assert manifest is not None and manifest["status"] == "complete" and len(manifest["chunks"]) == 40

    local = tmp_path / "embedded"
    ref_env = {**os.environ, "PYTHONPATH": env["PYTHONPATH"]}
    embedded = [sys.executable, "-m", "fivehundred.cli.main", *ARGS, "--workers", "2", "--out", str(local)]
    ref = subprocess.run(embedded, cwd=REPO, env=ref_env, capture_output=True, text=True, timeout=300)
    assert ref.returncode == 0, ref.stderr
    on_store = store_parts(s3_service, f"{bucket}/run/deals")
    assert on_store == {p.name: p.read_bytes() for p in sorted((local / "deals").glob("*.parquet"))}
    log = pa.concat_tables([pq.read_table(pa.BufferReader(b)) for b in on_store.values()])
    ids = sorted(log.column("deal_id").to_pylist())
    assert ids == list(range(len(ids)))  # every deal exactly once

    # analysis on the cluster (one worker node left), tables on the store = a local analysis's
    analyze = command(cluster, "analyze", run, "--what-if", "misere", "--sample", "40")
    done = subprocess.run(analyze, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    local_stats = tmp_path / "stats"
    here = [sys.executable, "-m", "fivehundred.cli.main", "analyze", str(local), "--out", str(local_stats)]
    here += ["--what-if", "misere", "--sample", "40"]
    mine = subprocess.run(here, cwd=REPO, env=ref_env, capture_output=True, text=True, timeout=300)
    assert mine.returncode == 0, mine.stderr
    assert store_parts(s3_service, f"{bucket}/run/stats") == {
        p.name: p.read_bytes() for p in sorted(local_stats.iterdir())
    }
