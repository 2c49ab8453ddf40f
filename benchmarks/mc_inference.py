"""Fit montecarlo's auction inference: how many trumps a suit declarer holds, against the sampler.

``montecarlo`` rejects a sampled deal that gives the declarer of a suit contract few trumps: it is
kept with probability ``TRUMP_LIKELIHOOD[n]`` for ``n`` trumps (1 from ``len(TRUMP_LIKELIHOOD)``
on).  The right acceptance is the likelihood ratio P(n | the bot's auction) / P(n | the sampler),
scaled to 1 at its largest.  This script measures both in self-play of ``--bot`` (``heuristic.v2``
by default): at each defender's first play decision of a suit contract, the declarer's real trump
count (its hand after the exchange, the joker and bowers included) and the counts of ``--samples``
placements drawn by :func:`strategies.sampling.sample_hidden` for that defender.  It prints both
distributions and the ratio.

    python benchmarks/mc_inference.py --deals 5000
    python benchmarks/mc_inference.py --deals 5000 --draw montecarlo.v2   # the samples v2 keeps
"""

from __future__ import annotations

import argparse
import random

from fivehundred.sim import load_rules
from fivehundred.sim.engine import PLAY, State
from fivehundred.sim.game import decide, new_deal, play_out
from fivehundred.strategies.base import make
from fivehundred.strategies.sampling import played_by, sample_hidden


def measure(
    variant: str, bot: str, deals: int, samples: int, seed: int, every: bool = False, drawer: str = ""
) -> tuple[list[int], list[int]]:
    """Per trump count (0 .. 13): how often the declarer really held it, and how often samples gave it
    (at each defender's first play decision, or at ``every`` one of its decisions).  ``drawer`` names a
    Monte Carlo bot whose inferring ``draw`` makes the samples (to check its fit); else the sampler."""
    mc = make(drawer) if drawer else None
    rules = load_rules(variant)
    bots = [make(bot) for _ in range(rules.players)]
    real = [0] * 14
    drawn = [0] * 14
    rng = random.Random(seed)
    for d in range(deals):
        state, deal_seed = new_deal(rules, seed, d, d % rules.players)
        seat_rng = random.Random(deal_seed)
        seen: set[int] = set()

        def choose(state: State, seen: set[int] = seen, seat_rng: random.Random = seat_rng) -> int:
            """The seat's bot decides; at a defender's (first) play decision of a suit contract the
            declarer's trump count is counted, really and in the samples, first."""
            seat = state.turn
            c = state.contract
            if state.phase == PLAY and c is not None and c.trump < 4 and not c.misere:
                decl = state.declarer
                if seat != decl and (every or seat not in seen):
                    seen.add(seat)
                    assert state.tables is not None
                    mask = state.tables.suit_mask[c.trump]
                    view = state.view(seat)
                    gone = played_by(view)[decl]
                    real[((state.hands[decl] | gone) & mask).bit_count()] += 1
                    for _ in range(samples):
                        sample = mc.draw(view, rng, mask, gone) if mc else sample_hidden(view, rng)
                        if sample is not None:
                            drawn[((sample[0][decl] | gone) & mask).bit_count()] += 1
            return decide(bots[seat], state, seat_rng)

        play_out(state, choose)
    return real, drawn


#: The options with a value: flag, default (its type is the option's), what it sets.
OPTIONS = (
    ("--variant", "pagat-au", "the rules"),
    ("--bot", "heuristic.v2", "the bot of the self-play, whose declarers are measured"),
    ("--deals", 5000, "deals of self-play"),
    ("--samples", 10, "placements drawn per defender decision"),
    ("--seed", 77, "master seed of the deals"),
    ("--draw", "", "a montecarlo spec whose inference draws the samples (empty: the sampler alone)"),
)


def main(argv: list[str] | None = None) -> int:
    """Print the declarer's trump counts, real and sampled, and their ratio."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for flag, default, text in OPTIONS:
        ap.add_argument(flag, type=type(default), default=default, help=f"{text} (default {default!r})")
    ap.add_argument("--every", action="store_true", help="every defender decision, not just its first")
    args = ap.parse_args(argv)
    real, drawn = measure(args.variant, args.bot, args.deals, args.samples, args.seed, args.every, args.draw)
    nr, nd = sum(real) or 1, sum(drawn) or 1
    ratio = [(r / nr) / (d / nd) if d else 0.0 for r, d in zip(real, drawn, strict=True)]
    top = max(ratio) or 1.0
    which = "decisions" if args.every else "first decisions"
    print(
        f"{args.bot} on {args.variant}: {nr} defender {which} in suit contracts, {args.samples} samples each"
    )
    print("trumps | real | sampled | ratio (scaled to 1 at its largest)")
    for n in range(14):
        if real[n] or drawn[n]:
            print(f"{n:6d} | {real[n] / nr:5.1%} | {drawn[n] / nd:7.1%} | {ratio[n] / top:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
