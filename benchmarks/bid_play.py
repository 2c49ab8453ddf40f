"""The bidding in isolation: one partnership's bidder changed, everything else held fixed.

A match mixes the bidding with the play, and its deal pairs differ by the play's own luck even where
both sides called alike.  This benchmark changes only the calls: for deal ``d`` of the master seed
(:func:`sim.game.new_deal`, scores 0), in both seatings (team A in the even seats, then in the odd
ones), the auction is called by the A bidder in A's seats and ``--against`` in the others, each seat
with its own generator of the deal; the deal is then played on (discard, joker naming, cards) by
``--player`` in every seat, each seat with a second generator of the deal.  The play's generators do
not depend on the auction's draws, so two bidders whose calls agree on a deal give the same cards and
the same score there: only the deals whose auctions differ move the comparison, which is why it is
far less noisy than a match.  Printed: team A's points minus team B's a deal (both seatings averaged),
and for each bidder after the first its difference from the first, paired by deal with a 95%
interval, and on how many deals its auction differed.  A deal has no game around it (the scores are
0), so a bid that wins a game at 500 is not in it.

    python benchmarks/bid_play.py --deals 2000 --workers 2 --bidder expert.v1 \\
        --bidder "expert.v2(pass_value=40)"
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from fivehundred.pipelines.analysis.intervals import cluster_mean
from fivehundred.sim.engine import AUCTION, State
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import decide, new_deal, play_deal
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.sim.seeding import bot_rng
from fivehundred.strategies.base import check_spec, label, make

#: The key mixed into the play's generators (the auction's use key 0).
PLAY_KEY = 1


def auction(rules: Rules, d: int, seed: int, a_bidder: str, against: str, a_parity: int) -> tuple[State, int]:
    """Deal ``d``'s state after its auction, ``a_bidder`` calling in the seats of parity
    ``a_parity`` and ``against`` in the others (fresh bots, the deal's generators, key 0), and the
    deal's seed."""
    state, deal_seed = new_deal(rules, seed, d, d % rules.players)
    bots = [make(a_bidder if s % 2 == a_parity else against) for s in range(rules.players)]
    rngs = [bot_rng(deal_seed, s) for s in range(rules.players)]
    while state.phase == AUCTION:
        s = state.turn
        state.apply(decide(bots[s], state, rngs[s]))
    return state, deal_seed


def played(rules: Rules, deal_seed: int, after: State, player: str) -> list[int]:
    """The score change of each team when the deal of seed ``deal_seed`` is played on from ``after``
    by ``player`` in every seat, each seat with the play's generator of the deal."""
    state = after.clone()
    bots = [make(player) for _ in range(rules.players)]
    play_deal(state, bots, [bot_rng(deal_seed, s, PLAY_KEY) for s in range(rules.players)])
    assert state.score_delta is not None
    return list(state.score_delta)


def deal_rows(
    job: tuple[str, int, list[int], list[str], str, str],
) -> list[tuple[int, list[int], list[bool]]]:
    """For each deal of the job: (deal, per bidder team A's points minus B's summed over the two
    seatings, per bidder whether its auction differed from the first bidder's in either seating)."""
    variant, seed, deals, bidders, against, player = job
    rules = load_rules(variant)
    out: list[tuple[int, list[int], list[bool]]] = []
    for d in deals:
        points = [0] * len(bidders)
        differs = [False] * len(bidders)
        for parity in (0, 1):
            cache: dict[tuple[int, ...], list[int]] = {}
            first: tuple[int, ...] | None = None
            for i, bidder in enumerate(bidders):
                after, deal_seed = auction(rules, d, seed, bidder, against, parity)
                calls = tuple(after.bids)
                if first is None:
                    first = calls
                differs[i] = differs[i] or calls != first
                delta = cache.get(calls)
                if delta is None:
                    delta = cache[calls] = played(rules, deal_seed, after, player)
                points[i] += delta[parity] - delta[1 - parity]
        out.append((d, points, differs))
    return out


def main(argv: list[str] | None = None) -> int:
    """Call each ``--bidder`` for team A on the same deals and print the results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--seed", type=int, default=500, help="master seed of the deals (default 500)")
    ap.add_argument("--deals", type=int, default=400, help="deals, each in both seatings (default 400)")
    ap.add_argument("--bidder", action="append", help="team A's bidder (repeat; the first is the baseline)")
    ap.add_argument("--against", default="expert.v1", help="team B's bidder (default expert.v1)")
    ap.add_argument("--player", default="expert.v1", help="the card player of every seat (default expert.v1)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = ap.parse_args(argv)
    bidders = args.bidder or ["expert.v1"]
    try:
        rules = load_rules(args.variant)
        if rules.players != 4 or rules.teams != 2:
            raise UserError("this benchmark needs the four-seat table of two partnerships")
        if args.deals < 1:
            raise UserError("--deals must be at least 1")
        if args.workers < 1:
            raise UserError("--workers must be at least 1")
        for spec in [*bidders, args.against, args.player]:
            check_spec(spec)
    except (UserError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"variant {args.variant}, master seed {args.seed}, {args.deals} deals in both seatings, "
        f"against {label(args.against)}, played by {label(args.player)}, {datetime.date.today().isoformat()}"
    )
    chunk = 20
    jobs = [
        (
            args.variant,
            args.seed,
            list(range(k, min(k + chunk, args.deals))),
            bidders,
            args.against,
            args.player,
        )
        for k in range(0, args.deals, chunk)
    ]
    t0 = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(deal_rows, jobs))
    else:
        parts = [deal_rows(j) for j in jobs]
    rows = [r for part in parts for r in part]
    for i, bidder in enumerate(bidders):
        y = [r[1][i] for r in rows]
        m, lo, hi, _, _ = cluster_mean(y, [2] * len(y))
        line = f"  {label(bidder)}: {m:+.1f} [{lo:+.1f}, {hi:+.1f}] points a deal for team A"
        if i:
            diff = [r[1][i] - r[1][0] for r in rows]
            dm, dlo, dhi, _, _ = cluster_mean(diff, [2] * len(diff))
            changed = sum(r[2][i] for r in rows)
            line += (
                f" | vs the first: {dm:+.1f} [{dlo:+.1f}, {dhi:+.1f}] ({changed} deals called differently)"
            )
        print(line, flush=True)
    print(f"  {time.perf_counter() - t0:.1f} s wall, {args.workers} worker(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
