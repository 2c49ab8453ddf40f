"""Engine speed: whole games through the public strategy interface, deals per second per core.

    python benchmarks/engine.py [--seconds 10] [--strategies random,heuristic] [--variant pagat-au]

For each strategy (all four seats) it plays whole games (sim.game.play_game: deal, auction, kitty,
joker naming, play, scoring, one log record per deal) in this one process for about ``--seconds``,
and prints deals per CPU second of this process (so per core, and robust to other load on the
machine).  A baseline runs in the same process: a plain object-per-card Python
trick-taking loop (random deal, 10 tricks, follow suit, trick winner), so the ratio engine/baseline
is comparable across machines.  The last line is ``deals_per_second_per_core=<number>`` for the first
strategy.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from fivehundred.pipelines.tournament.duplicate import self_play
from fivehundred.sim import core


@dataclass
class _Card:
    suit: str
    rank: int


def baseline_deals(seconds: float, seed: int = 1) -> float:
    """Deals per second of a plain object-per-card random game (the in-process baseline)."""
    rng = random.Random(seed)
    deck = [_Card(s, r) for s in "SCDH" for r in range(4 if s in "DH" else 5, 15)] + [_Card("J", 99)]
    deals = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(100):
            cards = deck[:]
            rng.shuffle(cards)
            hands = [cards[i * 10 : i * 10 + 10] for i in range(4)]
            trump = rng.choice("SCDH")
            leader = rng.randrange(4)
            for _trick in range(10):
                played = []
                for k in range(4):
                    hand = hands[(leader + k) % 4]
                    if played:
                        follow = [c for c in hand if c.suit == played[0].suit]
                        options = follow or hand
                    else:
                        options = hand
                    card = rng.choice(options)
                    hand.remove(card)
                    played.append(card)
                best = max(
                    range(4),
                    key=lambda i: (
                        played[i].suit == trump or played[i].suit == "J",
                        played[i].suit == played[0].suit,
                        played[i].rank,
                    ),
                )
                leader = (leader + best) % 4
            deals += 1
    return deals / (time.process_time() - start)


def engine_deals(
    strategy: str, seconds: float, variant: str = "pagat-au", seed: int = 7
) -> tuple[float, int]:
    """Deals per CPU second of whole games with ``strategy`` in every seat (the tournament module's
    :func:`~pipelines.tournament.duplicate.self_play`); also the deals played."""
    p = self_play(variant, [strategy], 10**9, seed, seconds, first_game=0)
    return p.deals_per_second, p.deals


def main() -> None:
    """Parse arguments, run the baseline and each strategy, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    ap.add_argument("--strategies", default="random", help="comma-separated strategy specs")
    ap.add_argument("--variant", default="pagat-au")
    args = ap.parse_args()

    base = baseline_deals(min(args.seconds, 5.0))
    info = core()
    print(f"engine core: {info['core']}" + (f" ({info['reason']})" if info["reason"] else ""))
    print(f"baseline (object-per-card simplified game): {base:,.0f} deals/s")
    first = None
    for spec in [s.strip() for s in args.strategies.split(",") if s.strip()]:
        rate, deals = engine_deals(spec, args.seconds, args.variant)
        ratio = rate / base
        print(f"{spec:>12s}: {rate:,.0f} deals/s per core ({deals} deals), ratio to baseline {ratio:.2f}")
        first = rate if first is None else first
    print(f"deals_per_second_per_core={first:.0f}")


if __name__ == "__main__":
    main()
