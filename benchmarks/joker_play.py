"""The joker's play in suit and no-trump contracts: when the bots play it, and what it costs.

The contracts are ``contract_play.py``'s (the first deals of a master seed whose ``heuristic.v2``
auction ends in a suit or NT contract, played on from the auction with one bot in the declaring
partnership and another defending, every seat with the deal's own generator), so a configuration
here plays the very games it plays there.  At every play decision where the seat holds the joker,
may play it and has another card to play (a *joker decision*), the benchmark records the trick, the
place in the trick (led or followed), the denomination (suit, NT, NT with the joker named by the
declarer), the seat's role, whether its partner was winning the trick so far, and what the bot chose;
and it solves the true deal (every hand open) double dummy after each legal action.  From the solves:
the points (the seat's side's minus the other side's, :func:`strategies.expert.side_points`) its
choice gave up against the best action, and how much of that is the joker's: playing it where the
best other card was worth more, or keeping it where the joker was.  A double-dummy solve of the true
deal knows what no seat knows, so these are a yardstick between kinds of decision, not an
achievable score; the configurations' paired points (as in ``contract_play.py``) are the measure.

    python benchmarks/joker_play.py --deals 800 --seed 2 --play expert.v1/expert.v1
"""

from __future__ import annotations

import datetime
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contract_play import contract_deals, deal_result, seated  # beside this script (run it by its path)
from misere_play import play_arguments, play_configs, table_rules

from fivehundred.pipelines.analysis.intervals import cluster_mean
from fivehundred.sim.contract import trick_winner
from fivehundred.sim.dd import Position, move_values
from fivehundred.sim.engine import DONE, PLAY, State
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import decide
from fivehundred.sim.notation import played_card
from fivehundred.sim.rules import Rules
from fivehundred.strategies.base import label
from fivehundred.strategies.expert import side_points

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass
class JokerDecision:
    """One play decision: where it was, what was chosen, and the true deal's DD points (the mover's
    side's minus the other's) of the choice, of the best joker action and of the best other card
    (without the joker in play: ``best_joker`` is the best action, ``joker`` False)."""

    joker: bool
    deal: int
    trick: int
    place: int
    kind: str
    role: str
    partner_winning: bool
    played: bool
    chosen: float
    best_joker: float
    best_other: float


def denomination(state: State) -> str:
    """``suit``, ``NT`` or ``NT named`` (the declarer named the joker: a plain card of that suit)."""
    contract = state.contract
    assert contract is not None
    if contract.trump != 4:
        return "suit"
    return "NT named" if any(n >= 0 for n in state.jokers_named) else "NT"


def joker_decision(
    rules: Rules, state: State, legal: list[int], deal: int
) -> tuple[JokerDecision, dict[int, float]]:
    """The record of the seat to move's decision (before the choice is known: ``played`` False,
    ``chosen`` 0) and each action's DD points for its side."""
    jokers = rules.deck.jokers
    deck = rules.deck
    is_joker = [played_card(deck, a) in jokers for a in legal]
    joker = any(is_joker) and not all(is_joker)
    if not joker:
        is_joker = [True] * len(legal)
    seat = state.turn
    teams = rules.teams
    contract = state.contract
    assert contract is not None
    declaring = seat % teams == state.declarer % teams
    sign = 1.0 if declaring else -1.0
    values = move_values(Position.from_state(state))
    pts = {a: sign * side_points(rules, contract, values[a]) for a in legal}
    partner_winning = False
    if state.trick:
        tables = state.tables
        assert tables is not None
        leader = state.trick_seats[trick_winner(tables, state.trick, state.led)]
        partner_winning = leader != seat and leader % teams == seat % teams
    role = "declarer" if seat == state.declarer else "partner" if declaring else "defender"
    rec = JokerDecision(
        joker=joker,
        deal=deal,
        trick=state.tricks_played + 1,
        place=len(state.trick),
        kind=denomination(state),
        role=role,
        partner_winning=partner_winning,
        played=False,
        chosen=0.0,
        best_joker=max(pts[a] for a, j in zip(legal, is_joker, strict=True) if j),
        best_other=max((pts[a] for a, j in zip(legal, is_joker, strict=True) if not j), default=-1e9),
    )
    return rec, pts


def play_recorded(
    rules: Rules, seed: int, chosen: list[tuple[int, State]], declarer: str, defenders: str
) -> tuple[list[tuple[float, int, int]], list[JokerDecision]]:
    """``contract_play.play_contracts`` (the same games: each bot asked as :func:`sim.game.play_deal`
    asks it, with its seat's generator), with every joker decision recorded."""
    deck = rules.deck
    out: list[tuple[float, int, int]] = []
    decisions: list[JokerDecision] = []
    for d, after in chosen:
        state, bots, rngs = seated(rules, seed, d, after, declarer, defenders)
        while state.phase != DONE:
            seat = state.turn
            legal = state.legal_actions()
            if len(legal) == 1 and not getattr(bots[seat], "asked_when_forced", True):
                state.apply(legal[0])
                continue
            got = joker_decision(rules, state, legal, d) if state.phase == PLAY and len(legal) > 1 else None
            action = decide(bots[seat], state, rngs[seat])
            if got is not None:
                rec, pts = got
                rec.played = rec.joker and played_card(deck, action) in deck.jokers
                rec.chosen = pts[action]
                decisions.append(rec)
            state.apply(action)
        out.append(deal_result(state))
    return out, decisions


def given_up(recs: list[JokerDecision]) -> str:
    """The DD points the choices gave up against the best action, mean a decision with its 95%
    interval (decisions clustered by deal)."""
    by_deal: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for r in recs:
        g = by_deal[r.deal]
        g[0] += round(max(r.best_joker, r.best_other) - r.chosen)
        g[1] += 1
    if len(by_deal) < 2:
        return "-"
    m, lo, hi, _, _ = cluster_mean([g[0] for g in by_deal.values()], [g[1] for g in by_deal.values()])
    return f"{m:.1f} [{lo:.1f}, {hi:.1f}]"


def per_contract(costs: dict[int, int], contracts: int) -> str:
    """A mean a contract (deals without an entry count 0) with its 95% interval."""
    ys = list(costs.values()) + [0] * (contracts - len(costs))
    m, lo, hi, _, _ = cluster_mean(ys, [1] * len(ys))
    return f"{m:.1f} [{lo:.1f}, {hi:.1f}]"


def loss_line(name: str, recs: list[JokerDecision], others: list[JokerDecision], contracts: int) -> str:
    """One table row: joker decisions, joker played, the DD points given up by the choice; the
    joker's side of it both ways (played where the best other card was better, kept where the
    joker was, each valued as the best of one side against the best of the other, points a contract);
    and the same kind of decision without the joker."""
    n = len(recs)
    tail = f"{len(others)} | {given_up(others)} |"
    if n == 0:
        return f"| {name} | 0 | | | | | {tail}"
    played = [r for r in recs if r.played]
    wasted: dict[int, int] = defaultdict(int)
    held: dict[int, int] = defaultdict(int)
    n_wasted = n_held = 0
    for r in recs:
        if r.played and r.best_other > r.best_joker:
            wasted[r.deal] += round(r.best_other - r.best_joker)
            n_wasted += 1
        elif not r.played and r.best_joker > r.best_other:
            held[r.deal] += round(r.best_joker - r.best_other)
            n_held += 1
    return (
        f"| {name} | {n} | {len(played)} | {given_up(recs)} | "
        f"{n_wasted}, {per_contract(wasted, contracts)} | {n_held}, {per_contract(held, contracts)} | {tail}"
    )


def report(decisions: list[JokerDecision], contracts: int) -> None:
    """Print the joker decisions of one configuration: when the joker was played, and the DD table
    beside the same kinds of decision without the joker."""
    recs = [r for r in decisions if r.joker]
    rest = [r for r in decisions if not r.joker]
    played = [r for r in recs if r.played]
    by_trick = [sum(1 for r in played if r.trick == t) for t in range(1, 11)]
    print(f"    joker decisions {len(recs)} on {len({r.deal for r in recs})} of {contracts} contracts;")
    print(f"    joker played at a decision {len(played)} times, by trick 1-10: {by_trick}")
    for kind in ("suit", "NT", "NT named"):
        k = [r for r in played if r.kind == kind]
        led = sum(1 for r in k if r.place == 0)
        over = sum(1 for r in k if r.partner_winning)
        print(
            f"      {kind}: {len(k)} played ({led} led, {len(k) - led} followed, "
            f"{over} on a partner's winner)"
        )
    print(
        "    | decisions | joker decisions | joker played | DD points given up a decision [95% CI] | "
        "joker played, another card better: n, points a contract [95% CI] | joker kept, the joker "
        "better: n, points a contract [95% CI] | other decisions | DD points given up [95% CI] |"
    )
    groups: list[tuple[str, Callable[[JokerDecision], bool]]] = [("all", lambda r: True)]
    for kind in ("suit", "NT", "NT named"):
        groups.append((f"{kind} leads", lambda r, k=kind: r.kind == k and r.place == 0))
        groups.append((f"{kind} follows", lambda r, k=kind: r.kind == k and r.place > 0))
    groups.append(("partner winning", lambda r: r.partner_winning))
    for role in ("declarer", "partner", "defender"):
        groups.append((role, lambda r, x=role: r.role == x))
    for t0, t1 in ((1, 3), (4, 6), (7, 10)):
        groups.append((f"tricks {t0}-{t1}", lambda r, a=t0, b=t1: a <= r.trick <= b))
    for name, keep in groups:
        print("    " + loss_line(name, [r for r in recs if keep(r)], [r for r in rest if keep(r)], contracts))


def main(argv: list[str] | None = None) -> int:
    """Play each ``--play DECLARER/DEFENDERS`` on the same contracts and print its joker decisions."""
    ap = play_arguments(__doc__.split("\n")[0], "contracts played", "the declaring side's")
    args = ap.parse_args(argv)
    plays = args.play or ["expert.v1/expert.v1"]
    try:
        rules = table_rules(args.variant, args.deals, one_joker=True)
        configs = play_configs(plays)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    chosen = contract_deals(rules, args.deals, args.seed)
    print(
        f"variant {args.variant}, master seed {args.seed}, {len(chosen)} heuristic.v2 contracts "
        f"(the first {chosen[-1][0] + 1} deals), {datetime.date.today().isoformat()}"
    )
    base: list[tuple[float, int, int]] | None = None
    for declarer, defenders in configs:
        t0 = time.process_time()
        got, recs = play_recorded(rules, args.seed, chosen, declarer, defenders)
        n = len(got)
        pts = sum(g[0] for g in got) / n
        made = sum(g[1] for g in got)
        line = f"  {label(declarer)} declares, {label(defenders)} defends: {pts:+.1f} points, made {made}/{n}"
        if base is not None:
            diff = [round(got[i][0] - base[i][0]) for i in range(n)]
            m, lo, hi, _, _ = cluster_mean(diff, [1] * n)
            changed = sum(1 for x in diff if x)
            line += (
                f" | vs the first: {m:+.1f} [{lo:+.1f}, {hi:+.1f}] ({changed} contracts scored differently)"
            )
        else:
            base = got
        print(f"{line} | {time.process_time() - t0:.1f} cpu-s", flush=True)
        report(recs, n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
