"""Balance of ``simulate`` on Ray: a run of few large chunks played as whole-chunk tasks (the layout
before pieces) against the same run played in pieces (:func:`pipelines.simulate.task_games`).

    python benchmarks/balance.py                          # --deals 40000 heuristic on 2 workers
    python benchmarks/balance.py --deals 20000 --rounds 1 --strategies random

Both modes write the same part files (checked).  Each run starts its own embedded Ray; the time
compared is the playing clock (from the first chunk's start to the run's end, Ray's start-up
excluded), in one process, the modes alternating (A B A B ...) so that a change in the machine's load
hits both.  It prints each run's playing time, tasks and the ratio whole / pieces, and the load
average before and after (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fivehundred.pipelines import simulate  # noqa: E402
from fivehundred.pipelines.runconfig import make_config  # noqa: E402


def one_run(out: Path, whole: bool, args: argparse.Namespace) -> tuple[float, int, dict[str, bytes]]:
    """(playing seconds, tasks, part files' bytes) of one run; ``whole``: one task per chunk."""
    real = simulate.task_games
    if whole:
        simulate.task_games = lambda config, cpus: config.chunk_size  # type: ignore[assignment]
    clock = [0.0]
    try:
        cfg = make_config(
            None, strategies=args.strategies, seed=1, deals=args.deals, out=str(out), workers=args.workers
        )
        summary = simulate.run_simulation(cfg, progress=lambda p: clock.__setitem__(0, p.playing))
    finally:
        simulate.task_games = real
    files = {p.name: p.read_bytes() for p in sorted((out / "deals").glob("*.parquet"))}
    return clock[0], summary.tasks, files


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--deals", type=int, default=40_000)
    parser.add_argument("--strategies", default="heuristic")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="balance-"))
    print(f"load average before: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} cores")
    times: dict[bool, list[float]] = {True: [], False: []}
    files: dict[bool, dict[str, bytes]] = {}
    try:
        for r in range(args.rounds):
            for whole in (True, False):
                out = root / f"{'whole' if whole else 'pieces'}-{r}"
                t0 = time.perf_counter()
                playing, tasks, files[whole] = one_run(out, whole, args)
                times[whole].append(playing)
                what = "whole chunks" if whole else "pieces"
                print(f"round {r + 1} {what:12s}: playing {playing:6.1f} s, {tasks:3d} tasks, "
                      f"{time.perf_counter() - t0:6.1f} s with Ray's start")  # fmt: skip
                shutil.rmtree(out)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert files[True] == files[False], "the two modes wrote different part files"
    a, b = sum(times[True]), sum(times[False])
    print(f"same part files; whole / pieces playing time: {a / b:.2f}")
    print(f"load average after: {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
