"""How well the expert's bidding foresees its contracts: estimate against result, by kind of contract.

The expert values each candidate call by ``heuristic.v2`` rollouts on its sampled deals
(:mod:`strategies.expert_bidding`).  This benchmark plays self-play games of one expert spec in
every seat and, for every contract the valued bidding chose, sets the declarer's own estimate at that
call (the weighted share of its bidding deals on which the contract is made, read ``bid_shift``
tricks lower as the bidding reads them) beside what happened: made or not at the table, and on the
true deal (hands and kitty) the made rate of one ``heuristic.v2`` rollout and of a double-dummy
solve, each after ``heuristic.v2``'s discard and naming.  A kind whose estimate stands well above its
table rate is bid too often.  The recording reads the bot's cached bidding deals only (no draw from
its generator), so the games are the spec's own.

    python benchmarks/expert_bids.py --spec expert.v1 --games 60 --seed 7
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
import time
from types import SimpleNamespace
from typing import Any

from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.engine import BID, JOKER, KITTY, PASS, State
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import play_game
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.strategies.base import check_spec, label, make
from fivehundred.strategies.expert import ExpertStrategy
from fivehundred.strategies.expert_bidding import bid_value, contract_tricks, deal_key


def made_points(rules: Rules, contract: Any, tricks: int) -> float:
    """1 when ``tricks`` make ``contract`` (a misère: no trick), else 0 (``bid_value``'s points)."""
    if contract.misere:
        return 1.0 if tricks == 0 else 0.0
    return 1.0 if tricks >= contract.tricks else 0.0


def kind(contract: Any) -> str:
    """The breakdown's kind of a contract."""
    if contract.misere:
        return "open misère" if contract.open else "blind misère" if contract.blind else "misère"
    if contract.trump == 4:
        return "NT"
    return "8+ suit" if contract.tricks >= 8 else f"{contract.tricks} suit"


def attach(bot: ExpertStrategy, log: dict[tuple[int, int], tuple[int, float]], where: list[int]) -> None:
    """Wrap ``bot.dd_bid`` so that each valued call is logged with its estimated made rate."""
    inner = bot.dd_bid

    def dd_bid(view: Any, legal: Any, rng: Rng, default: int) -> int:
        best = inner(view, legal, rng, default)
        worlds = bot._bidding.get(view.seat)
        if best != PASS and worlds is not None and worlds.key == deal_key(view):
            rules = view.rules
            b = rules.ladder[best - BID]
            _, chosen = bot.bid_worlds_of(view, Rng(0))  # cached deals: nothing drawn
            got = [(w, worlds.tricks(view, i, b.code, view.seat, bot.model, bot.roller)) for w, i in chosen]
            p = bid_value(rules, b, got, 0.0 if b.misere else bot.bid_shift, made_points)
            log[(where[0], view.hand_no * 8 + view.seat)] = (best, p)
        return best

    bot.dd_bid = dd_bid  # type: ignore[method-assign]


def true_values(rules: Rules, st: State, code: str, declarer: int, bot: ExpertStrategy) -> tuple[int, int]:
    """(rollout made, DD made) of ``code`` on the true deal after ``heuristic.v2``'s discard and naming."""
    view = SimpleNamespace(rules=rules, dealer=st.dealer, scores=st.scores, hand_no=st.hand_no)
    b = rules.bid(code)
    roll = contract_tricks(view, list(st.hands), st.kitty, code, declarer, bot.model, bot.roller)  # type: ignore[arg-type]
    s2 = State(rules, list(st.hands), st.kitty, st.dealer)
    s2.scores, s2.hand_no = st.scores, st.hand_no
    s2.force_contract(code, declarer)
    quiet = Rng(0)
    while s2.phase == KITTY:
        s2.apply(bot.model.discard(s2.view(declarer), s2.legal_actions(), quiet))
    while s2.phase == JOKER:
        s2.apply(bot.model.name_joker(s2.view(declarer), s2.legal_actions(), quiet))
    dd = dd_tricks(Position.from_state(s2))
    return int(made_points(rules, b, roll)), int(made_points(rules, b, dd))


def main(argv: list[str] | None = None) -> int:
    """Play the games and print the table of estimate against result by kind of contract."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--spec", default="expert.v1", help="the expert in every seat (default expert.v1)")
    ap.add_argument("--seed", type=int, default=7, help="master seed of the games (default 7)")
    ap.add_argument("--games", type=int, default=40, help="self-play games (default 40)")
    args = ap.parse_args(argv)
    try:
        rules = load_rules(args.variant)
        check_spec(args.spec)
        if args.games < 1:
            raise UserError("--games must be at least 1")
        bots = [make(args.spec) for _ in range(rules.players)]
        if not all(isinstance(b, ExpertStrategy) for b in bots):
            raise UserError(f"{args.spec!r} is not an expert")
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    log: dict[tuple[int, int], tuple[int, float]] = {}
    where = [0]
    for b in bots:
        attach(b, log, where)  # type: ignore[arg-type]
    states: dict[tuple[int, int], State] = {}
    rows: dict[str, list[tuple[float, int, int, int]]] = {}
    t0 = time.process_time()
    for g in range(args.games):
        where[0] = g

        def keep(st: State, g: int = g) -> None:
            states[(g, st.hand_no)] = st.clone()

        for rec in play_game(rules, bots, args.seed, g, on_deal=keep):
            if rec["contract"] is None:
                continue
            seat = rec["declarer"]
            est = log.get((g, rec["hand_no"] * 8 + seat))
            b = rules.bid(rec["contract"])
            if est is None or rules.ladder[est[0] - BID].code != b.code:
                continue  # not a call of the valued bidding (v2's raise, a forced call)
            roll, dd = true_values(rules, states[(g, rec["hand_no"])], b.code, seat, bots[0])  # type: ignore[arg-type]
            rows.setdefault(kind(b), []).append((est[1], int(bool(rec["made"])), roll, dd))
    print(
        f"{label(args.spec)} self-play, {args.variant}, master seed {args.seed}, {args.games} games, "
        f"{datetime.date.today().isoformat()}, {time.process_time() - t0:.0f} cpu-s"
    )
    print(
        "| contract | n | estimated made | made at the table [95% CI] | rollout on the true deal "
        "| DD on the true deal |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for k in sorted(rows):
        r = rows[k]
        n = len(r)
        made = sum(x[1] for x in r) / n
        half = 1.96 * math.sqrt(max(made * (1 - made), 1e-9) / n)
        print(
            f"| {k} | {n} | {sum(x[0] for x in r) / n:.1%} | "
            f"{made:.1%} [{made - half:.1%}, {made + half:.1%}] | "
            f"{sum(x[2] for x in r) / n:.1%} | {sum(x[3] for x in r) / n:.1%} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
