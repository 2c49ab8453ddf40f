"""Double-dummy solver speed: full solves from the opening lead, solves per CPU second (per core).

    python benchmarks/dd.py [--deals 200] [--seed 1] [--variant pagat-au] [--pure] [--compare 20] [--moves 40]

Each deal ``i`` is dealt from ``deal_seed(seed, 0, i)``; the auction, the discard and the joker
naming are the ``heuristic`` bot's in every seat (deals everyone passes are skipped).  Every fifth
deal is forced to misère (``MIS``, declarer the seat left of the dealer; skipped by a variant without
it) and every fifth, offset by one, to ``7NT``, so that the mix always holds suit, NT and misère
contracts.  The position at the opening lead is solved with :func:`sim.dd.dd_tricks`; only the
solving is timed (``time.process_time``).  It prints per-kind counts, mean DD tricks and solve
rates, the slowest solve, the peak memory (``ru_maxrss``) and, last, ``solves_per_second_per_core=``
of the search that runs: the C one (``sim/_ddc.c``) when it is built, else the pure-Python one
(``--pure`` forces it).  With the C search it also solves the first ``--compare`` positions with the
pure search in the same process (checking the values agree) and prints both rates and their ratio,
and the C search's lead nodes (trick-boundary nodes) per solve.  ``--moves N`` also times
:func:`sim.dd.move_values` (the value of every legal opening lead, what the expert bot asks) on the
first ``N`` positions.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fivehundred.sim import PLAY, State, core, dd, load_rules
from fivehundred.sim.dd import Position, dd_tricks, move_values
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import bot_rng, deal_seed, dealer_of
from fivehundred.strategies import make


def opening_positions(rules: Rules, deals: int, seed: int) -> list[Position]:
    """The opening-lead positions of ``deals`` deals (fewer when some are thrown in)."""
    bots = [make("heuristic") for _ in range(rules.players)]
    out: list[Position] = []
    for i in range(deals):
        dseed = deal_seed(seed, 0, i)
        state = State.deal(rules, dseed, dealer_of(seed, 0, i, rules.players))
        forced = ""
        if i % 5 == 4 and "MIS" in rules.bid_index:
            forced = "MIS"
        elif i % 5 == 3:
            forced = "7NT"
        if forced:
            state.force_contract(forced, (state.dealer + 1) % rules.players)
        rngs = [bot_rng(dseed, s) for s in range(rules.players)]
        while not state.done and state.phase != PLAY:
            seat = state.turn
            bot = bots[seat]
            method = (bot.bid, bot.discard, bot.name_joker)[state.phase]
            state.apply(method(state.view(seat), state.legal_actions(), rngs[seat]))
        if state.phase == PLAY:
            out.append(Position.from_state(state))
    return out


def kind(pos: Position) -> str:
    """``suit``, ``NT`` or ``misere``."""
    if pos.contract.misere:
        return "misere"
    return "NT" if pos.contract.no_trump else "suit"


def main() -> None:
    """Parse the arguments, solve the positions, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="deals to deal (thrown-in ones are skipped)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--pure", action="store_true", help="time the pure-Python search (no C search)")
    ap.add_argument("--compare", type=int, default=20, help="positions also solved by the pure search")
    ap.add_argument("--moves", type=int, default=40, help="positions also timed with move_values")
    args = ap.parse_args()

    rules = load_rules(args.variant)
    positions = opening_positions(rules, args.deals, args.seed)
    info = core()
    print(f"engine core: {info['core']}" + (f" ({info['reason']})" if info["reason"] else ""))
    if args.pure and dd.backend() == "c":
        dd.use_backend("pure")
    reason = dd.backend_reason()
    print(f"DD search: {dd.backend()}" + (f" ({reason})" if dd.backend() == "pure" and reason else ""))
    stats: dict[str, list[float]] = {}
    slowest = (0.0, "")
    total = 0.0
    values: list[int] = []
    times: list[float] = []
    nodes0 = dd.c_lead_nodes()
    for pos in positions:
        start = time.process_time()
        value = dd_tricks(pos)
        spent = time.process_time() - start
        total += spent
        values.append(value)
        times.append(spent)
        k = kind(pos)
        row = stats.setdefault(k, [0, 0.0, 0.0])
        row[0] += 1
        row[1] += value
        row[2] += spent
        if spent > slowest[0]:
            slowest = (spent, f"{pos.contract.code} by seat {pos.declarer}")
    print(f"variant {rules.name}: {len(positions)} positions from {args.deals} deals (seed {args.seed})")
    for k in ("suit", "NT", "misere"):
        if k in stats:
            count, tricks, spent = stats[k]
            rate = count / spent if spent else float("inf")
            print(f"{k:>7s}: {count:4.0f} solves, mean dd_tricks {tricks / count:.2f}, {rate:,.0f} solves/s")
    print(f"slowest solve: {slowest[0] * 1000:.1f} ms ({slowest[1]})")
    if dd.backend() == "c" and positions:
        print(f"lead nodes per solve (C): {(dd.c_lead_nodes() - nodes0) / len(positions):,.0f}")
    moves = min(args.moves, len(positions))
    if moves > 0:
        start = time.process_time()
        count = sum(len(move_values(pos)) for pos in positions[:moves])
        spent = time.process_time() - start
        rate = moves / spent if spent else float("inf")
        print(f"move_values: {moves} positions ({count} opening leads valued), {rate:,.1f} positions/s")
    print(f"peak memory (ru_maxrss): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    compare = min(args.compare, len(positions))
    if dd.backend() == "c" and compare > 0:
        dd.use_backend("pure")
        pure_total = 0.0
        for i, pos in enumerate(positions[:compare]):
            start = time.process_time()
            value = dd_tricks(pos)
            pure_total += time.process_time() - start
            if value != values[i]:
                raise SystemExit(f"error: the pure and C searches disagree on position {i}")
        dd.use_backend("c")
        c_total = sum(times[:compare])
        c_rate = compare / c_total if c_total else float("inf")
        pure_rate = compare / pure_total if pure_total else float("inf")
        print(
            f"first {compare} positions: C {c_rate:,.1f} solves/s, pure {pure_rate:,.2f} solves/s, "
            f"ratio {c_rate / pure_rate:,.0f}x (same values)"
        )
    rate = len(positions) / total if total else 0.0
    print(f"solves_per_second_per_core={rate:.1f}")


if __name__ == "__main__":
    main()
