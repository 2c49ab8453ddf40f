"""How far real play falls short of double-dummy: the expert bidding's ``bid_shift`` (issue 14).

    python benchmarks/dd_vs_play.py --bot "expert(bid_worlds=0, name_worlds=0)" --games 6
    python benchmarks/dd_vs_play.py --bot heuristic.v2 --games 30

Plays ``--games`` games twice (the bot's team in the even seats, then in the odd ones) against
``--against`` (``heuristic.v1``) and, for every contract, solves the true deal double-dummy from the
opening lead after the real discards and joker naming (:func:`sim.dd.dd_tricks`).  It prints, per
declaring side and kind (suit or NT, misère), the contracts, the mean of the tricks taken minus the DD
tricks and their spread.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.engine import JOKER, NAME_NONE, NAME_SUIT, State
from fivehundred.sim.notation import parse_joker_suit
from fivehundred.sim.rules import Rules
from fivehundred.strategies.base import label, make


def true_dd(rules: Rules, record: dict[str, Any]) -> int:
    """The DD tricks of a logged deal's contract from the opening lead, after its discards and naming."""
    index = rules.deck.index

    def mask(cards: list[str]) -> int:
        m = 0
        for c in cards:
            m |= 1 << index[c]
        return m

    st = State(rules, [mask(h) for h in record["hands"]], mask(record["kitty"]), record["dealer"])
    st.force_contract(record["contract"], record["declarer"])
    for c in record["discards"]:
        st.apply(index[c])
    names = list(parse_joker_suit(record["joker_suit"]) or ())
    while st.phase == JOKER:
        s = names.pop(0) if names else -1
        st.apply(NAME_NONE if s < 0 else NAME_SUIT + s)
    return dd_tricks(Position.from_state(st))


def main(argv: list[str] | None = None) -> int:
    """Play the games and print the DD-minus-play lines."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bot", default="expert(bid_worlds=0, name_worlds=0)")
    ap.add_argument("--against", default="heuristic.v1")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--variant", default="pagat-au")
    args = ap.parse_args(argv)
    rules = load_rules(args.variant)
    rows: dict[tuple[str, str], list[int]] = {}
    for g in range(args.games):
        for team in (0, 1):
            bots = [make(args.bot) if s % 2 == team else make(args.against) for s in range(rules.players)]
            for r in play_game(rules, bots, args.seed, g):
                if r["contract"] is None:
                    continue
                misere = rules.bid(r["contract"]).misere
                took = min(r["declarer_tricks"], 1) if misere else r["declarer_tricks"]
                who = label(args.bot) if r["declarer"] % 2 == team else label(args.against)
                rows.setdefault((who, "misère" if misere else "suit/NT"), []).append(took - true_dd(rules, r))
    print(f"variant {args.variant}, master seed {args.seed}, {args.games} games x 2 seatings")
    for (who, kind), d in sorted(rows.items()):
        mean = sum(d) / len(d)
        spread = {k: d.count(k) for k in range(min(d), max(d) + 1)}
        print(f"{who} declares, {kind}: {len(d)} contracts, play minus DD {mean:+.2f} tricks, {spread}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
