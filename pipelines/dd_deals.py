"""Opening-lead positions of dealt hands, for the double-dummy solver (docs/dd.md).

- :func:`play_position`: a contract forced for a seat of a deal, its kitty exchange and joker
  naming made by :data:`DISCARD_BOT` from that seat's view: the position ``analyze --dd par`` and
  ``fivehundred hand`` solve.
- :func:`deal_table`: that position for every seat and every denomination of the ladder, grouped
  so that :func:`sim.dd.dd_tricks_many` can share its search between them.
- :func:`opening_positions`: the positions at the opening lead of seeded deals bid and exchanged by
  the heuristic bot, with a fixed share forced to misère and to 7NT (the benchmark's mix).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from fivehundred.sim.dd import Position
from fivehundred.sim.engine import JOKER, PLAY, State
from fivehundred.sim.game import decide, play_out
from fivehundred.sim.rng import NoRng
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import bot_rng, deal_seed, dealer_of
from fivehundred.strategies import make

#: The bot whose kitty discard and joker naming make a forced contract's opening position.
DISCARD_BOT = "heuristic.v1"


@lru_cache(maxsize=1)
def _discard_bot() -> Any:
    return make(DISCARD_BOT)  # one bot for every position: a bot plays deal after deal in a game too


def play_position(rules: Rules, hands: list[int], kitty: int, dealer: int, seat: int, code: str) -> Position:
    """The opening-lead position of ``code`` by ``seat``: the discard bot's kitty and joker choices."""
    state = State(rules, hands, kitty, dealer)
    state.force_contract(code, seat)
    bot = _discard_bot()
    rng = NoRng()
    while state.phase != PLAY:
        method = bot.name_joker if state.phase == JOKER else bot.discard
        state.apply(method(state.view(seat), state.legal_actions(), rng))
    return Position.from_state(state)


def deal_table(
    rules: Rules, hands: list[int], kitty: int, dealer: int, contracts: Sequence[str]
) -> list[list[Position]]:
    """``[contract][seat]``: :func:`play_position` of each contract (one per denomination, say) with
    each seat declaring.  Solve ``[p for row in table for p in row]`` with
    :func:`sim.dd.dd_tricks_many`: one contract's positions follow each other."""
    return [
        [play_position(rules, hands, kitty, dealer, seat, code) for seat in range(rules.players)]
        for code in contracts
    ]


def opening_positions(rules: Rules, deals: int, seed: int) -> list[Position]:
    """The opening-lead positions of ``deals`` seeded deals (fewer when some are thrown in).

    Deal ``i`` is dealt from ``deal_seed(seed, 0, i)``; every seat is the ``heuristic`` bot (auction,
    discard, joker naming).  Every fifth deal is forced to ``MIS`` (when the ladder has it) and every
    fifth offset by one to ``7NT``, declarer left of the dealer, so that the mix holds suit, no-trump
    and misère contracts.
    """
    bots = [make("heuristic") for _ in range(rules.players)]
    out: list[Position] = []
    for i in range(deals):
        dseed = deal_seed(seed, 0, i)
        state = State.deal(rules, dseed, dealer_of(seed, 0, i, rules.players))
        forced = "MIS" if i % 5 == 4 and "MIS" in rules.bid_index else ("7NT" if i % 5 == 3 else "")
        if forced:
            state.force_contract(forced, (state.dealer + 1) % rules.players)
        rngs = [bot_rng(dseed, s) for s in range(rules.players)]

        def choose(st: State, rngs: list[Any] = rngs) -> int:
            return decide(bots[st.turn], st, rngs[st.turn])

        play_out(state, choose, until=lambda st: st.phase == PLAY)
        if state.phase == PLAY:
            out.append(Position.from_state(state))
    return out


def kind(pos: Position) -> str:
    """``suit``, ``NT`` or ``misere``: the benchmark's kinds of contract."""
    if pos.contract.misere:
        return "misere"
    return "NT" if pos.contract.no_trump else "suit"
