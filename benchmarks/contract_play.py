"""The play of suit and no-trump contracts: one declaring bot against defending bots, deal by deal.

A match mixes the bidding with the play.  This benchmark holds the contracts fixed: for deal ``d`` of
the master seed (:func:`sim.game.new_deal`) the auction is called by ``heuristic.v2`` in every seat
(it draws nothing, so the auction is a function of the deal), and when it ends in a suit or no-trump
contract the deal is played on from there with the declarer bot in the declaring partnership's seats
(the discard and the joker naming too) and the defender bot in the others, each seat with the deal's
own generator.  Every configuration plays the same contracts with the same generators, so two are
compared deal by deal: the declaring side's points minus the defenders' (the engine's score of the
deal), the made rate, and each one's difference from the first configuration with a 95% interval
over the paired deals, also for the 7s and the 8+ contracts apart.

    python benchmarks/contract_play.py --play expert.v1/expert.v1 \\
        --play "expert.v1(rollout_worlds=40)/expert.v1"
"""

from __future__ import annotations

import datetime
import sys
import time

# this script's folder: run as python benchmarks/contract_play.py
from misere_play import play_arguments, play_configs, table_rules

from fivehundred.pipelines.analysis.intervals import cluster_mean
from fivehundred.sim.engine import AUCTION, State
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import decide, new_deal, play_deal
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.strategies.base import label, make


def contract_deals(rules: Rules, deals: int, seed: int) -> list[tuple[int, State]]:
    """The first ``deals`` deals of the master seed whose ``heuristic.v2`` auction ends in a suit or
    no-trump contract: (deal index, the state after the auction)."""
    bidder = make("heuristic.v2")
    quiet = Rng(0)
    out: list[tuple[int, State]] = []
    d = 0
    while len(out) < deals:
        state, _ = new_deal(rules, seed, d, d % rules.players)
        while state.phase == AUCTION:
            state.apply(decide(bidder, state, quiet))
        if state.contract is not None and not state.contract.misere:
            out.append((d, state))
        d += 1
    return out


def play_contracts(
    rules: Rules, seed: int, chosen: list[tuple[int, State]], declarer: str, defenders: str
) -> list[tuple[float, int, int]]:
    """(declaring side's points minus the defenders', made, contract tricks) for each chosen deal."""
    out: list[tuple[float, int, int]] = []
    for d, after in chosen:
        state, bots, rngs = seated(rules, seed, d, after, declarer, defenders)
        play_deal(state, bots, rngs)
        out.append(deal_result(state))
    return out


def seated(
    rules: Rules, seed: int, d: int, after: State, declarer: str, defenders: str
) -> tuple[State, list, list[Rng]]:
    """Deal ``d`` after its auction (a copy of ``after``), the declarer bot in the declaring
    partnership's seats and the defender bot in the others, and each seat's generator (the deal's)."""
    _, deal_seed = new_deal(rules, seed, d, d % rules.players)
    state = after.clone()
    dteam = state.declarer % rules.teams
    bots = [make(declarer if s % rules.teams == dteam else defenders) for s in range(rules.players)]
    return state, bots, [Rng(deal_seed + s) for s in range(rules.players)]


def deal_result(state: State) -> tuple[float, int, int]:
    """A finished deal's (declaring side's points minus the defenders', made, contract tricks)."""
    delta = state.score_delta
    assert delta is not None and state.contract is not None
    dteam = state.declarer % state.rules.teams
    others = [x for t, x in enumerate(delta) if t != dteam]
    return (delta[dteam] - sum(others) / len(others), int(delta[dteam] > 0), state.contract.tricks)


def main(argv: list[str] | None = None) -> int:
    """Play each ``--play DECLARER/DEFENDERS`` on the same contracts and print the results."""
    ap = play_arguments(__doc__.split("\n")[0], "contracts played", "the declaring side's")
    args = ap.parse_args(argv)
    plays = args.play or ["heuristic.v2/heuristic.v2"]
    try:
        rules = table_rules(args.variant, args.deals)
        configs = play_configs(plays)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    chosen = contract_deals(rules, args.deals, args.seed)
    sevens = sum(1 for _, s in chosen if s.contract is not None and s.contract.tricks == 7)
    print(
        f"variant {args.variant}, master seed {args.seed}, {len(chosen)} heuristic.v2 contracts "
        f"({sevens} of 7 tricks; the first {chosen[-1][0] + 1} deals), {datetime.date.today().isoformat()}"
    )
    base: list[tuple[float, int, int]] | None = None
    for declarer, defenders in configs:
        t0 = time.process_time()
        got = play_contracts(rules, args.seed, chosen, declarer, defenders)
        n = len(got)
        pts = sum(g[0] for g in got) / n
        made = sum(g[1] for g in got)
        line = f"  {label(declarer)} declares, {label(defenders)} defends: {pts:+.1f} points, made {made}/{n}"
        if base is not None:
            parts = []
            for name, keep in (("all", lambda t: True), ("7", lambda t: t == 7), ("8+", lambda t: t >= 8)):
                idx = [i for i in range(n) if keep(got[i][2])]
                if not idx:
                    parts.append(f"{name} (0)")
                    continue
                diff = [got[i][0] - base[i][0] for i in idx]
                m, lo, hi, _, _ = cluster_mean(diff, [1] * len(diff))
                parts.append(f"{name} ({len(idx)}) {m:+.1f} [{lo:+.1f}, {hi:+.1f}]")
            line += " | vs the first: " + "; ".join(parts)
        else:
            base = got
        print(f"{line} | {time.process_time() - t0:.1f} cpu-s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
