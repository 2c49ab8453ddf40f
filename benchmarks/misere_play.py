"""The play of forced misère contracts: one declarer bot against defender bots, deal by deal.

A match's breakdown says how often each side's misères were made, but mixes the bidding (which hands
declare) with the play of the declarer and of the defence.  This benchmark holds the hands fixed:
for deal ``d`` of the master seed (:func:`sim.game.new_deal`, as :mod:`strategies.calibrate_v3`
deals them) the seat whose hand has the lowest misère risk (``heuristic.v1``'s reading, the one
the bots bid from) declares the contract when that risk is at most ``--reach``: the contract is
forced (``State.force_contract``, no auction) and the deal played out with the declarer bot in the
declarer's seat and its partner's (who sits out in a misère) and the defender bot in the others,
each seat with the deal's own generator.  Every configuration plays the same deals with the same
generators, so two of them are compared deal by deal: each one's made rate with a Wilson interval,
and its difference from the first configuration with a 95% interval over the paired deals.

    python benchmarks/misere_play.py --play expert.v1/expert.v1 --play expert.v1/expert.v2 --deals 400
    python benchmarks/misere_play.py --contract MIS --play heuristic.v2/heuristic.v2 --deals 1000
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time

from fivehundred.pipelines.analysis.intervals import cluster_mean, wilson_interval
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import new_deal, play_deal
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.strategies.base import check_spec, label, make
from fivehundred.strategies.heuristic import HeuristicStrategy


def play_arguments(description: str, deals_help: str, declarer: str) -> argparse.ArgumentParser:
    """The options every fixed-contract benchmark takes (this one, ``contract_play.py``,
    ``joker_play.py``): ``--variant``, ``--seed``, ``--deals`` and the repeated ``--play``;
    ``declarer`` names the declaring seats in ``--play``'s help."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--seed", type=int, default=500, help="master seed of the deals (default 500)")
    ap.add_argument("--deals", type=int, default=400, help=f"{deals_help} (default 400)")
    ap.add_argument(
        "--play",
        action="append",
        metavar="DECLARER/DEFENDERS",
        help=f"a configuration: {declarer} bot and the defenders' (the first is the baseline)",
    )
    return ap


def table_rules(variant: str, deals: int, one_joker: bool = False) -> Rules:
    """The rules of ``variant`` for a fixed-contract benchmark of ``deals`` deals: the four-seat table
    of two partnerships (and one joker when ``one_joker``), else :class:`UserError`."""
    rules = load_rules(variant)
    if deals < 1:
        raise UserError("--deals must be at least 1")
    if rules.teams != 2 or rules.players != 4 or (one_joker and len(rules.deck.jokers) != 1):
        need = "the four-seat table of two partnerships" + (" and one joker" if one_joker else "")
        raise UserError(f"this benchmark needs {need}")
    return rules


def play_configs(plays: list[str]) -> list[tuple[str, str]]:
    """The ``--play DECLARER/DEFENDERS`` options as (declarer's bot, defenders' bot), each spec checked
    (:class:`UserError` on a bad one); ``contract_play.py`` reads its options the same way."""
    configs: list[tuple[str, str]] = []
    for p in plays:
        parts = p.split("/")
        if len(parts) != 2:
            raise UserError(f"--play {p!r}: expected DECLARER/DEFENDERS")
        for spec in parts:
            check_spec(spec)
        configs.append((parts[0], parts[1]))
    return configs


def misere_deals(rules: Rules, deals: int, seed: int, reach: float) -> list[tuple[int, int]]:
    """The (deal index, declarer seat) of the first ``deals`` deals of the master seed that have a
    hand of misère risk at most ``reach`` (the seat of lowest risk, the first on ties)."""
    probe = HeuristicStrategy()
    info = probe._rules_info(rules)
    out: list[tuple[int, int]] = []
    d = 0
    while len(out) < deals:
        state, _ = new_deal(rules, seed, d, d % rules.players)
        risks = [probe._misere_risk(s, state.hands[s], info) for s in range(rules.players)]
        seat = min(range(rules.players), key=lambda s: (risks[s], s))
        if risks[seat] <= reach:
            out.append((d, seat))
        d += 1
    return out


def play_forced(
    rules: Rules, seed: int, chosen: list[tuple[int, int]], code: str, declarer: str, defenders: str
) -> list[int]:
    """1 for each chosen deal whose forced misère ``code`` the declarer made, else 0."""
    teams = rules.teams
    made: list[int] = []
    for d, seat in chosen:
        state, deal_seed = new_deal(rules, seed, d, d % rules.players)
        state.force_contract(code, seat)
        bots = [make(declarer if s % teams == seat % teams else defenders) for s in range(rules.players)]
        play_deal(state, bots, [Rng(deal_seed + s) for s in range(rules.players)])
        made.append(int(state.declarer_tricks() == 0))
    return made


def main(argv: list[str] | None = None) -> int:
    """Play each ``--play DECLARER/DEFENDERS`` on the same forced misère deals and print the rates."""
    ap = play_arguments(__doc__.split("\n")[0], "forced misère deals", "the declarer's")
    ap.add_argument("--contract", default="OMIS", help="the misère forced (default OMIS)")
    ap.add_argument("--reach", type=float, default=3.0, help="highest misère risk that declares (default 3)")
    args = ap.parse_args(argv)
    plays = args.play or ["heuristic.v2/heuristic.v2"]
    try:
        rules = table_rules(args.variant, args.deals)
        if args.contract not in rules.bid_index or not rules.bid(args.contract).misere:
            raise UserError(f"{args.contract!r} is not a misère bid of {args.variant}")
        configs = play_configs(plays)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    chosen = misere_deals(rules, args.deals, args.seed, args.reach)
    print(
        f"variant {args.variant}, master seed {args.seed}, {args.contract} forced on {len(chosen)} deals "
        f"(risk <= {args.reach:g}; the first {chosen[-1][0] + 1} deals), {datetime.date.today().isoformat()}"
    )
    base: list[int] | None = None
    for declarer, defenders in configs:
        t0 = time.process_time()
        made = play_forced(rules, args.seed, chosen, args.contract, declarer, defenders)
        k, n = sum(made), len(made)
        lo, hi = wilson_interval(k, n)
        line = (
            f"  {label(declarer)} declares, {label(defenders)} defends: made {k}/{n} = {k / n:.1%} "
            f"[95% CI {lo:.1%}, {hi:.1%}]"
        )
        if base is not None:
            diff = [b - a for a, b in zip(base, made, strict=True)]
            m, dlo, dhi, _, _ = cluster_mean(diff, [1] * n)
            line += f" | vs the first: {m:+.1%} [95% CI {dlo:+.1%}, {dhi:+.1%}]"
        else:
            base = made
        print(f"{line} | {time.process_time() - t0:.1f} cpu-s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
