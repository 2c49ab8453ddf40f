"""Double-dummy solver speed: full solves from the opening lead, solves per CPU second (per core).

    python benchmarks/dd.py [--deals 200] [--seed 1] [--variant pagat-au] [--moves 40] [--techniques]
                            [--table N]

The positions are :func:`pipelines.dd_deals.opening_positions` (heuristic auctions, discards and
namings; every fifth deal forced to ``MIS``, every fifth offset by one to ``7NT``): suit, no-trump
and misère contracts.  Each is solved with :func:`sim.dd.dd_tricks`; only the solving is timed
(``time.process_time``, the CPU time of this process).  It prints per kind the solves, the mean DD
tricks, the rate and the trick-boundary nodes per solve (:func:`sim.dd.lead_nodes`, independent of
the machine's speed), the slowest solve, the peak memory, a checksum of the values, and last
``solves_per_second_per_core=``.  ``--moves N`` also times :func:`sim.dd.move_values` (every legal
opening lead valued, what the expert bot asks) on the first ``N`` positions.  ``--techniques`` then
solves the positions again with each search technique switched off in turn (:func:`sim.dd.techniques`)
and prints the nodes and rate of each against all on, checking every value is unchanged.
``--table N`` also solves the DD table (every seat declaring every denomination of
:func:`pipelines.analysis.ddpar.denominations`, :func:`pipelines.dd_deals.deal_table`) of ``N`` deals
dealt from ``--seed`` (deal ``i`` from ``deal_seed(seed, 0, i)``), once with
:func:`sim.dd.dd_tricks_many` (what one search learns kept for the next, first guesses from the
last value) and once position by position with :func:`sim.dd.dd_tricks`, and prints both.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fivehundred.pipelines.dd_deals import deal_table, kind, opening_positions
from fivehundred.sim import RulesError, core, dd, load_rules
from fivehundred.sim.dd import Position, dd_tricks, dd_tricks_many, move_values
from fivehundred.sim.engine import State
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import deal_seed, dealer_of


def solve_all(positions: list[Position]) -> tuple[list[int], list[float], int]:
    """Each position's DD tricks, CPU seconds and the nodes of all."""
    nodes0 = dd.lead_nodes()
    values: list[int] = []
    times: list[float] = []
    for pos in positions:
        start = time.process_time()
        values.append(dd_tricks(pos))
        times.append(time.process_time() - start)
    return values, times, dd.lead_nodes() - nodes0


def table_positions(rules: Rules, deals: int, seed: int) -> list[list[Position]]:
    """Per deal, its DD table's positions in :func:`dd_tricks_many`'s order (contract by contract)."""
    from fivehundred.pipelines.analysis.ddpar import denominations  # late: it loads polars (memory)

    codes = [code for _, code in denominations(rules)]
    out = []
    for i in range(deals):
        state = State.deal(rules, deal_seed(seed, 0, i), dealer_of(seed, 0, i, rules.players))
        table = deal_table(rules, list(state.hands), state.kitty, state.dealer, codes)
        out.append([pos for row in table for pos in row])
    return out


def time_tables(tables: list[list[Position]]) -> None:
    """Solve the tables together (dd_tricks_many) and one by one; print both, check they agree."""
    n = sum(len(t) for t in tables)
    results = []
    for name, solve in (
        ("together", dd_tricks_many),
        ("one by one", lambda ps: [dd_tricks(p) for p in ps]),
    ):
        nodes0, start = dd.lead_nodes(), time.process_time()
        got = [solve(t) for t in tables]
        spent, nodes = time.process_time() - start, dd.lead_nodes() - nodes0
        results.append(got)
        rate = n / spent if spent else float("inf")
        print(f"DD table {name:>10s}: {n} positions, {nodes / n:,.0f} nodes/solve, {rate:,.1f} solves/s")
    if results[0] != results[1]:
        raise SystemExit("error: the DD tables solved together and one by one differ")


def main() -> None:
    """Parse the arguments, solve the positions, print the figures."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="deals to deal (thrown-in ones are skipped)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--moves", type=int, default=40, help="positions also timed with move_values")
    ap.add_argument("--techniques", action="store_true", help="measure each technique switched off")
    ap.add_argument("--table", type=int, default=0, help="deals whose DD table is also solved")
    args = ap.parse_args()
    if not dd.available():
        raise SystemExit(f"error: {dd.unavailable_reason()}")

    try:
        rules = load_rules(args.variant)
    except RulesError as exc:
        ap.exit(2, f"error: --variant: {exc}\n")
    positions = opening_positions(rules, args.deals, args.seed)
    info = core()
    print(f"engine core: {info['core']}" + (f" ({info['reason']})" if info["reason"] else ""))
    values, times, nodes = solve_all(positions)
    print(f"variant {rules.name}: {len(positions)} positions from {args.deals} deals (seed {args.seed})")
    for k in ("suit", "NT", "misere"):
        picked = [i for i, pos in enumerate(positions) if kind(pos) == k]
        if picked:
            spent = sum(times[i] for i in picked)
            mean = sum(values[i] for i in picked) / len(picked)
            rate = len(picked) / spent if spent else float("inf")
            print(f"{k:>7s}: {len(picked):4d} solves, mean dd_tricks {mean:.2f}, {rate:,.0f} solves/s")
    slow = max(range(len(positions)), key=lambda i: times[i]) if positions else -1
    if slow >= 0:
        pos = positions[slow]
        print(f"slowest solve: {times[slow] * 1000:.1f} ms ({pos.contract.code} by seat {pos.declarer})")
    print(f"lead nodes per solve: {nodes / max(1, len(positions)):,.0f}")
    print(f"values checksum: {hashlib.sha256(repr(values).encode()).hexdigest()[:16]}")
    moves = min(args.moves, len(positions))
    if moves > 0:
        start = time.process_time()
        count = sum(len(move_values(pos)) for pos in positions[:moves])
        spent = time.process_time() - start
        rate = moves / spent if spent else float("inf")
        print(f"move_values: {moves} positions ({count} opening leads valued), {rate:,.1f} positions/s")
    print(f"peak memory (ru_maxrss): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    total = sum(times)
    if args.techniques:
        every = dd.techniques()
        base = len(positions) / total if total else 0.0
        head = f"{'switched off':>12s}  {'nodes/solve':>11s}  {'solves/s':>8s}"
        print(f"{head}  (all on: {nodes / len(positions):,.0f} nodes/solve, {base:,.1f} solves/s)")
        try:
            for name in every:
                dd.techniques([t for t in every if t != name])
                got, spent, work = solve_all(positions)
                if got != values:
                    raise SystemExit(f"error: the values change with {name} off")
                rate = len(positions) / sum(spent) if sum(spent) else 0.0
                print(f"{name:>12s}  {work / len(positions):11,.0f}  {rate:8,.1f}")
        finally:
            dd.techniques(every)
    if args.table > 0:
        time_tables(table_positions(rules, args.table, args.seed))
    rate = len(positions) / total if total else 0.0
    print(f"solves_per_second_per_core={rate:.1f}")


if __name__ == "__main__":
    main()
