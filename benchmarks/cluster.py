"""The cluster path against the single machine, side by side in one run: a Ray cluster of a head and
two worker nodes (``ray start`` on loopback, 1 CPU each) writing to a real S3 server (SeaweedFS),
against embedded Ray (2 CPUs) writing to a local folder; optionally once more with a worker node
killed mid-run (what a lost node costs).

    python benchmarks/cluster.py                     # 200,000 heuristic deals
    python benchmarks/cluster.py --deals 20000 --kill-node

Each run is ``fivehundred simulate`` in a fresh process, timed from start to exit (Ray start or join
included); deals/s is deals over that wall time.  The part files of every run are compared byte for
byte with the embedded run's.  The servers and nodes run on 127.0.0.1/127.0.0.2 only and are stopped
by their session ids when the script ends.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from fivehundred.pipelines.loopback import RayCluster, S3Server, ray_cluster, s3_server  # noqa: E402


def simulate(
    args: list[str], env: dict[str, str], kill: RayCluster | None = None, store: tuple = ()
) -> float:
    """Wall seconds of one ``simulate`` run; with ``kill``, its second worker node is killed once a
    third of the run's chunks are committed (``store`` = (server, manifest key) to watch)."""
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "simulate", *args]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = False
    while kill is not None and not killed and proc.poll() is None:
        server, key, chunks = store
        try:
            with server.filesystem().open_input_stream(key) as fh:
                done = len(json.loads(fh.read())["chunks"])
        except (OSError, ValueError):
            done = 0
        if done >= chunks // 3:
            kill.workers[-1].kill()
            killed = True
        time.sleep(0.1)
    _out, err = proc.communicate()
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd)} failed: {err.strip()[-500:]}")
    return seconds


def store_parts(server: S3Server, prefix: str) -> dict[str, bytes]:
    import pyarrow.fs as pafs

    fs = server.filesystem()
    out = {}
    for info in fs.get_file_info(pafs.FileSelector(prefix)):  # type: ignore[attr-defined]
        with fs.open_input_stream(info.path) as fh:  # type: ignore[attr-defined]
            out[info.base_name] = fh.read()
    return out


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops like Ctrl-C: the server and the nodes are stopped


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strategies", default="heuristic")
    ap.add_argument("--chunk-size", type=int, default=2000, help="games per part file")
    ap.add_argument("--kill-node", action="store_true", help="also a cluster run with a node killed mid-run")
    a = ap.parse_args()
    if a.deals < 1 or a.chunk_size < 1:
        raise SystemExit("error: --deals and --chunk-size must be at least 1")
    base = ["--deals", str(a.deals), "--seed", str(a.seed), "--strategies", a.strategies]
    base += ["--chunk-size", str(a.chunk_size)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="fh-bench-") as tmp, s3_server(Path(tmp) / "s3") as s3:
        bucket = s3.bucket()
        env = {**os.environ, **s3.env()}
        local = Path(tmp) / "local"
        t = simulate([*base, "--workers", "2", "--out", str(local)], env)
        ref = {p.name: p.read_bytes() for p in sorted((local / "deals").glob("*.parquet"))}
        rows.append(("embedded Ray, 2 CPUs, local folder", t, ref))
        with ray_cluster(workers=2, cpus=1, env=s3.env()) as cluster:
            t = simulate([*base, "--address", cluster.address, "--out", f"s3://{bucket}/run"], cluster.env)
            rows.append(("2 worker nodes x 1 CPU, S3", t, store_parts(s3, f"{bucket}/run/deals")))
            if a.kill_node:
                key = f"{bucket}/killed/manifest.json"
                args = [*base, "--address", cluster.address, "--out", f"s3://{bucket}/killed"]
                t = simulate(args, cluster.env, kill=cluster, store=(s3, key, len(ref)))
                rows.append(("same, a node killed at 1/3", t, store_parts(s3, f"{bucket}/killed/deals")))
    deals = sum(_rows(b) for b in ref.values())
    print(f"{deals:,} {a.strategies} deals, seed {a.seed}, {len(ref)} part files of {a.chunk_size} games")
    print(f"{'setup':38s} {'wall s':>8s} {'deals/s':>9s} {'vs embedded':>12s}  bytes")
    for name, seconds, parts in rows:
        same = "identical" if parts == ref else "DIFFERENT"
        ratio = rows[0][1] / seconds
        print(f"{name:38s} {seconds:8.1f} {deals / seconds:9,.0f} {ratio:11.2f}x  {same}")
    if any(parts != ref for _, _, parts in rows):
        raise SystemExit(1)


def _rows(data: bytes) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows


if __name__ == "__main__":
    main()
