"""``analyze --dd par`` of every deal of a run: deals per second with Ray workers, and the driver's memory.

    python benchmarks/dd_par.py [--deals 100000] [--workers 2] [--dir DIR] [--seed 1] [--keep]

Plays a run of ``--deals`` deals with the heuristic bot in every seat (``simulate``, reused when
``DIR/run`` already holds it), removes its DD sidecars (unless ``--keep``: then an earlier, maybe
interrupted, analysis resumes) and times ``analyze RUN --dd par`` of every deal (no ``--dd-sample``)
on ``--workers`` Ray workers: 24 solves a deal on pagat-au (every seat, the four suits, no trumps,
misère) and the contract as played.  Prints the deals solved, the wall time, deals per second, and
the driver's peak memory (``ru_maxrss``: the log is read a window of deals at a time and about 90
bytes a deal are kept, docs/dd.md).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation


def main() -> None:
    """Make the run, analyse it, print the figures."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", help="keep the run here (default: a temporary folder, removed after)")
    ap.add_argument("--keep", action="store_true", help="keep the DD sidecars already solved (resume)")
    args = ap.parse_args()
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="ddpar-"))
    run = base / "run"
    try:
        if not (run / "manifest.json").exists():
            start = time.perf_counter()
            config = make_config(
                strategies="heuristic", deals=args.deals, seed=args.seed, out=str(run), workers=args.workers
            )
            run_simulation(config)
            print(f"simulated {args.deals} deals in {time.perf_counter() - start:.1f} s")
        if not args.keep:
            for sidecar in ("dd", "dd_par"):
                shutil.rmtree(run / sidecar, ignore_errors=True)
        start = time.perf_counter()
        tables = analyze([run], base / "stats", dd="par", workers=args.workers)
        wall = time.perf_counter() - start
        deals = int(tables["dd_sample"]["sampled"].sum())
        print(f"analyze --dd par: {deals} deals, {args.workers} workers, {wall:.1f} s wall")
        print(f"deals_per_second={deals / wall:.2f}")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"driver peak memory (ru_maxrss): {peak:.0f} MB")
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
