"""What isolation costs: one bot in every seat, in this process and each seat in its own process.

A strategy that is not shipped with the project runs isolated in a tournament (its own process per
seat, one JSON line each way per decision: ``strategies/isolation.py``).  This plays the same games
both ways and prints deals a second, the decisions and the time a decision costs isolated.  The
isolated figure is wall time on purpose: the cost is two processes waking each other, which no single
process's CPU time shows.  The games are checked to be identical both ways.

    python benchmarks/isolation.py [--bot heuristic.v1] [--games 50] [--variant pagat-au] [--seed 7]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from fivehundred.sim.errors import UserError
from fivehundred.sim.game import play_game
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.strategies.base import check_spec, make
from fivehundred.strategies.isolation import IsolatedStrategy, close_all


class _Counted(IsolatedStrategy):
    """An isolated strategy that counts the decisions it was asked."""

    asked = 0

    def _ask(self, method: int, view: Any, legal: Any, rng: Any) -> int:
        self.asked += 1
        return super()._ask(method, view, legal, rng)


def play(rules: Rules, bots: list[Any], games: int, seed: int) -> tuple[list[list[dict[str, Any]]], float]:
    """The games' records and the wall seconds they took."""
    labels = [f"seat{s}" for s in range(rules.players)]
    start = time.perf_counter()
    logs = [play_game(rules, bots, seed, g, labels=labels) for g in range(games)]
    return logs, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Play the games both ways and print the figures."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--bot", default="heuristic.v1", help="the strategy in every seat (default heuristic.v1)")
    ap.add_argument("--games", type=int, default=50, help="games played each way (default 50)")
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--seed", type=int, default=7, help="master seed of the games (default 7)")
    args = ap.parse_args(argv)
    try:
        rules = load_rules(args.variant)
        check_spec(args.bot)
        if args.games < 1:
            raise UserError("--games must be at least 1")
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    local, t_local = play(rules, [make(args.bot) for _ in range(rules.players)], args.games, args.seed)
    isolated_bots = [_Counted(args.bot, {}, rules, f"seat{s}", 30.0) for s in range(rules.players)]
    try:
        isolated, t_isolated = play(rules, isolated_bots, args.games, args.seed)
    finally:
        close_all(isolated_bots)
    if isolated != local:
        print("error: the isolated games differ from the in-process ones", file=sys.stderr)
        return 1
    deals = sum(len(g) for g in local)
    decisions = sum(bot.asked for bot in isolated_bots)
    print(
        f"{args.bot} in every seat, {args.variant}, {args.games} games, {deals} deals, {decisions} decisions"
    )
    print(f"  in this process: {deals / t_local:,.1f} deals/s ({t_local:.2f} s wall)")
    print(
        f"  isolated:        {deals / t_isolated:,.1f} deals/s ({t_isolated:.2f} s wall), "
        f"{t_isolated / decisions * 1e6:.0f} µs a decision, {t_local / t_isolated:.1%} of the in-process rate"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
