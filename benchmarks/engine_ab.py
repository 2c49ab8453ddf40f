"""Engine speed against another checkout, both in this one process, in alternating slices.

    python benchmarks/engine_ab.py --base /tmp/base-c6f [--rounds 10] [--seconds 1]
                                   [--strategies random,heuristic] [--variant pagat-au]

``--base`` is a checkout of an earlier commit, built in place (``pip install -e .`` in its own venv
compiles its core next to its sources).  Its packages are imported from that folder under their
import names (``sim``/``strategies`` before issue 20's namespace, ``fivehundred.*`` after it would
clash with this tree's and is refused), this tree's from the installed ``fivehundred`` namespace.
Each round plays whole games (``play_game``, one log record per deal, the same master seed) with
the strategy in every seat for ``--seconds`` of CPU time of this process with the base, then with
this tree (the order swapped every round, so a change of the machine's load between slices
weighs on both alike), and prints deals per CPU second of each and their ratio.  The last lines
give, per strategy, the median ratio over the rounds and the total deals over total CPU time of
each side.  A ratio of 0.95 means this tree plays 5% fewer deals per CPU second than the base.

``--count GAMES --side base|now`` plays games ``0 .. GAMES-1`` (master seed 7) with one side only and
prints the deals: a fixed workload for counting instructions, which the load of a shared machine
does not change (``valgrind --tool=callgrind --collect-atstart=no
--toggle-collect=CPyDef_game___play_game python benchmarks/engine_ab.py ...``: both trees' compiled
``play_game`` have that C name, and only the side asked for runs).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from fivehundred.sim import core, load_rules, play_game
from fivehundred.strategies import make


class Side:
    """One tree's game runner: its rules, strategy factory and compiled-core report."""

    def __init__(self, label: str, load: Any, play: Any, build: Any, info: dict[str, str]) -> None:
        self.label, self.load, self.play, self.build, self.info = label, load, play, build, info
        self.deals: dict[str, int] = {}
        self.cpu: dict[str, float] = {}
        self.games: dict[str, int] = {}

    def run(self, spec: str, variant: str, seconds: float) -> float:
        """Play whole games for ``seconds`` of CPU time (continuing the game numbers of the last
        slice); return deals per CPU second."""
        rules = self.load(variant)
        bots = [self.build(spec) for _ in range(rules.players)]
        game = self.games.get(spec, 0)
        deals = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            deals += len(self.play(rules, bots, 7, game))
            game += 1
        cpu = time.process_time() - start
        self.games[spec] = game
        self.deals[spec] = self.deals.get(spec, 0) + deals
        self.cpu[spec] = self.cpu.get(spec, 0.0) + cpu
        return deals / cpu


def base_side(folder: Path) -> Side:
    """The runner of the checkout in ``folder`` (its top-level ``sim`` and ``strategies``)."""
    if not (folder / "sim" / "engine.py").is_file():
        raise SystemExit(f"error: {folder} is not a checkout of this project (no sim/engine.py)")
    if (folder / "sim" / "notation.py").is_file():
        raise SystemExit(f"error: {folder} uses the fivehundred namespace too; compare with git checkouts")
    sys.path.insert(0, str(folder))
    sim = importlib.import_module("sim")
    strategies = importlib.import_module("strategies")
    return Side(f"base {folder.name}", sim.load_rules, sim.play_game, strategies.make, sim.core())


def main() -> None:
    """Parse arguments, run the rounds, print each slice and the summary."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="checkout of the commit to compare with")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per slice")
    ap.add_argument("--strategies", default="random,heuristic", help="comma-separated strategy specs")
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--count", type=int, default=0, help="play this many games with --side only")
    ap.add_argument("--side", choices=("base", "now"), default="now")
    args = ap.parse_args()

    base = base_side(args.base.resolve())
    now = Side("this tree", load_rules, play_game, make, core())
    if args.count:
        side = base if args.side == "base" else now
        for spec in [s.strip() for s in args.strategies.split(",") if s.strip()]:
            rules = side.load(args.variant)
            bots = [side.build(spec) for _ in range(rules.players)]
            deals = sum(len(side.play(rules, bots, 7, game)) for game in range(args.count))
            print(f"{side.label} {spec}: {args.count} games, {deals} deals")
        return
    for side in (base, now):
        print(f"{side.label}: core {side.info['core']}")
    specs = [s.strip() for s in args.strategies.split(",") if s.strip()]
    ratios: dict[str, list[float]] = {s: [] for s in specs}
    for r in range(args.rounds):
        for spec in specs:
            order = (base, now) if r % 2 == 0 else (now, base)
            rates = {side.label: side.run(spec, args.variant, args.seconds) for side in order}
            ratio = rates[now.label] / rates[base.label]
            ratios[spec].append(ratio)
            print(
                f"round {r + 1:2d} {spec:>10s}: base {rates[base.label]:8,.0f}  now "
                f"{rates[now.label]:8,.0f} deals/s  ratio {ratio:.3f}",
                flush=True,
            )
    for spec in specs:
        b, n = base.deals[spec] / base.cpu[spec], now.deals[spec] / now.cpu[spec]
        print(
            f"{spec}: median ratio {statistics.median(ratios[spec]):.3f} "
            f"(min {min(ratios[spec]):.3f}, max {max(ratios[spec]):.3f}); "
            f"totals base {b:,.0f}, now {n:,.0f} deals/s, ratio {n / b:.3f}"
        )


if __name__ == "__main__":
    main()
