"""Engine speed against another checkout: the same games, alternating between the two trees.

    python benchmarks/engine_ab.py --base /tmp/base [--rounds 10] [--seconds 1]
                                   [--strategies random,heuristic] [--variant pagat-au]

``--base`` is a checkout of another commit with its own virtual environment, installed in place
(``git worktree add /tmp/base COMMIT && cd /tmp/base && python3 -m venv .venv && .venv/bin/pip
install -e .``: its core compiled next to its sources).  Two installs of the ``fivehundred``
namespace cannot share one process, so each round runs one child process per tree, each with its own
interpreter, playing whole games (``play_game``, one log record per deal, master seed 7, the game
numbers continuing round after round) with the strategy in every seat for ``--seconds`` of its own
CPU time after one warm-up game; the order of the two is swapped every round, so a change of the
machine's load between slices weighs on both alike.  It prints deals per CPU second of each and their
ratio per round; the last lines give, per strategy, the median ratio and the total deals over the
total CPU time of each side.  A ratio of 0.95 means this tree plays 5% fewer deals per CPU second.

``--workload SPEC GAMES`` plays games ``0 .. GAMES-1`` (master seed 7) with ``SPEC`` in every seat in
this process and prints the deals: a fixed workload for counting instructions, which the load of a
shared machine does not change.  Run it with each tree's interpreter under callgrind:

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=CPyDef_game___play_game \\
        /tmp/base/.venv/bin/python benchmarks/engine_ab.py --workload heuristic 100
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

#: What a child runs: whole games for a CPU-time budget, then one JSON line (deals, CPU seconds).
CHILD = """
import json, sys, time
from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make
spec, variant, seconds, game = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
rules = load_rules(variant)
bots = [make(spec) for _ in range(rules.players)]
play_game(rules, bots, 7, 10**6)  # warm-up
deals = 0
start = time.process_time()
while time.process_time() - start < seconds:
    deals += len(play_game(rules, bots, 7, game))
    game += 1
print(json.dumps({"deals": deals, "cpu": time.process_time() - start, "game": game}))
"""


def workload(spec: str, games: int, variant: str = "pagat-au") -> int:
    """Play games ``0 .. games-1`` of master seed 7 with ``spec`` in every seat; the deals played."""
    from fivehundred.sim import load_rules, play_game
    from fivehundred.strategies import make

    rules = load_rules(variant)
    bots = [make(spec) for _ in range(rules.players)]
    return sum(len(play_game(rules, bots, 7, g)) for g in range(games))


def slice_of(python: str, cwd: Path, spec: str, variant: str, seconds: float, game: int) -> dict:
    """One child's slice: ``{"deals", "cpu", "game"}`` (the next game number)."""
    out = subprocess.run(
        [python, "-c", CHILD, spec, variant, str(seconds), str(game)],
        cwd=cwd, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Parse arguments and run the rounds (or the fixed workload)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, help="a checkout of another commit with its own .venv")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per slice")
    ap.add_argument("--strategies", default="random,heuristic")
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--workload", nargs=2, metavar=("SPEC", "GAMES"), help="the fixed workload only")
    args = ap.parse_args()
    if args.workload:
        spec, games = args.workload[0], int(args.workload[1])
        print(f"{spec}: {games} games, {workload(spec, games, args.variant)} deals")
        return
    if args.base is None:
        ap.error("--base is required (or --workload)")
    base_python = args.base / ".venv" / "bin" / "python"
    if not base_python.exists():
        ap.error(f"--base {args.base}: no .venv/bin/python there")
    sides = {"base": (str(base_python), args.base), "now": (sys.executable, Path.cwd())}
    for spec in [s.strip() for s in args.strategies.split(",") if s.strip()]:
        totals = {k: [0, 0.0] for k in sides}
        ratios = []
        game = 0
        for r in range(args.rounds):
            order = ["base", "now"] if r % 2 == 0 else ["now", "base"]
            rate = {}
            for side in order:
                python, cwd = sides[side]
                got = slice_of(python, cwd, spec, args.variant, args.seconds, game)
                totals[side][0] += got["deals"]
                totals[side][1] += got["cpu"]
                rate[side] = got["deals"] / got["cpu"]
            game += 1000
            ratios.append(rate["now"] / rate["base"])
            print(f"{spec} round {r + 1}: base {rate['base']:,.0f}, now {rate['now']:,.0f} deals/s, "
                  f"ratio {ratios[-1]:.3f}", flush=True)  # fmt: skip
        base_rate = totals["base"][0] / totals["base"][1]
        now_rate = totals["now"][0] / totals["now"][1]
        print(f"{spec}: median ratio {statistics.median(ratios):.3f}; total base {base_rate:,.0f}, "
              f"now {now_rate:,.0f} deals per CPU second, ratio {now_rate / base_rate:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
