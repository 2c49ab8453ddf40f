"""End-to-end benchmark of ``simulate``: random deals to Parquet on embedded local Ray.

    python benchmarks/pipeline.py                  # 1,000,000 deals with 2 workers, then 1 worker
    python benchmarks/pipeline.py --deals 100000   # scaled down

Each run is a fresh process (``run_simulation`` on a new embedded Ray, Ray start included) while
this script samples the resident memory (RSS) of that process and all its descendants (Ray's GCS,
raylet, agents, workers) every 0.1 s.  RSS sums count shared pages (the object store) once per
process that maps them, so the peak is an upper bound.  It prints, for each run, the wall time,
deals per second end to end, the steady throughput (from the first committed chunk to the last,
Ray start excluded) and the peak memory; then the 2-worker / 1-worker ratio of steady throughputs.
Targets on a 2-core machine: 1M deals in at most 60 s, peak memory at most 2 GiB, ratio >= 1.8.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from fivehundred.pipelines.runconfig import DEFAULT_CHUNK_SIZE  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
args = json.loads(sys.argv[1])
marks = []
def progress(p):
    marks.append((time.perf_counter() - t0, p.deals, time.process_time()))
cfg = make_config(None, **args)
summary = run_simulation(cfg, progress=progress)
print(json.dumps({"wall": time.perf_counter() - t0, "deals": summary.deals, "games": summary.games,
                  "chunks": summary.chunks, "marks": marks, "driver_cpu": time.process_time()}))
"""


def tree_rss(root: int) -> int:
    """Bytes resident in ``root`` and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/statm") as fh:
                rss[pid] = int(fh.read().split()[1]) * PAGE
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def run_once(deals: int, workers: int, seed: int, chunk_size: int) -> dict:
    """One simulate run in a fresh process; its figures and the peak RSS of its process tree."""
    out = Path(tempfile.mkdtemp(prefix="fh-bench-"))
    args = {
        "strategies": "random",
        "deals": deals,
        "seed": seed,
        "chunk_size": chunk_size,
        "workers": workers,
        "out": str(out / "run"),
    }
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(args)], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
    )
    peak = 0
    try:
        while proc.poll() is None:
            peak = max(peak, tree_rss(proc.pid))
            time.sleep(0.1)
        stdout = proc.stdout.read() if proc.stdout else ""
    finally:
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(out, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark run failed (exit {proc.returncode})")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["outer_wall"] = time.perf_counter() - start
    result["peak_rss"] = peak
    marks = [m for m in result["marks"] if m[1] > 0]
    first_t, first_d, first_cpu = marks[0]
    last_t, last_d, last_cpu = marks[-1]
    result["first_commit"] = first_t
    result["steady"] = (last_d - first_d) / (last_t - first_t) if last_t > first_t else float("nan")
    result["driver_us"] = (
        (last_cpu - first_cpu) * 1e6 / (last_d - first_d) if last_d > first_d else float("nan")
    )
    return result


def main() -> None:
    """Parse the flags, run the benchmark, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1_000_000, help="deals per run (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, help="games per chunk")
    parser.add_argument("--workers", type=int, default=2, help="workers of the main run (default 2)")
    parser.add_argument("--skip-single", action="store_true", help="skip the 1-worker run")
    args = parser.parse_args()

    print(f"pipeline benchmark: {args.deals:,} random deals, pagat-au, {os.cpu_count()} cores", flush=True)
    runs = {}
    for workers in (args.workers, 1) if not args.skip_single and args.workers != 1 else (args.workers,):
        r = run_once(args.deals, workers, args.seed, args.chunk_size)
        runs[workers] = r
        print(
            f"workers={workers}: {r['deals']:,} deals ({r['games']:,} games, {r['chunks']} parts) "
            f"wall {r['outer_wall']:.1f} s end to end, {r['deals'] / r['outer_wall']:,.0f} deals/s; "
            f"first chunk at {r['first_commit']:.1f} s; steady {r['steady']:,.0f} deals/s; "
            f"peak RSS of all processes {r['peak_rss'] / 2**30:.2f} GiB; "
            f"driver CPU {r['driver_cpu']:.1f} s ({r['driver_us']:.1f} us/deal once running)",
            flush=True,
        )
    main_run = runs[args.workers]
    print(f"wall_seconds={main_run['outer_wall']:.1f}")
    print(f"deals_per_second={main_run['deals'] / main_run['outer_wall']:.0f}")
    print(f"peak_memory_gib={main_run['peak_rss'] / 2**30:.2f}")
    if 1 in runs and len(runs) > 1:
        one, many = runs[1]["steady"], main_run["steady"]
        print(f"throughput_1_worker={one:.0f}")
        print(f"throughput_{args.workers}_workers={many:.0f}")
        print(f"ratio={many / one:.2f}")


if __name__ == "__main__":
    main()
