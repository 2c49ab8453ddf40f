"""Per-rules and per-contract card tables of the bots, built once and cached.

Everything here is derived from the rules and the contract tables of the engine (never from a
deal): card strengths within effective suits, the cards above and below each card, seats, teams,
trump and side-suit orders, and the side each seat plays on.  Nothing assumes 4 seats or 43 cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from fivehundred.sim.cards import bits
from fivehundred.sim.engine import ContractTables, contract_tables
from fivehundred.sim.notation import NT

if TYPE_CHECKING:
    from fivehundred.sim.rules import Rules

#: Honour tricks are read from the top cards only (with the suit length), so the memo tables keyed
#: by (top pattern, length) stay small and warm up within a few hundred deals.
TOP_TRUMPS: Final = 8
TOP_SIDE: Final = 5


class CardInfo:
    """Per-contract-table facts about every card, derived from a :class:`ContractTables`.

    - ``strength[c]``: order of ``c`` within its effective suit (trumps by power);
    - ``higher[c]``: cards that beat ``c`` when ``c`` is the best card of a trick in its own suit
      (higher cards of its suit and every card with more trick power);
    - ``lower[c]``: cards of ``c``'s effective suit that ``c`` beats (same suit, weaker);
    - ``trump_mask``: every card with trick power (trumps, or suitless jokers in no-trumps);
    - ``suit_mask``: each effective suit (trumps included in the trump suit);
    - ``tables``: the contract tables it was derived from.
    """

    __slots__ = ("eff", "higher", "lower", "power", "strength", "suit_mask", "tables", "trump", "trump_mask")

    def __init__(self, tables: ContractTables, size: int) -> None:
        power, rank, eff = tables.power, tables.rank, tables.eff_suit
        self.tables = tables
        self.power = power
        self.eff = eff
        self.trump = tables.trump
        self.suit_mask = tables.suit_mask
        strength = [power[c] or rank[c] for c in range(size)]
        trump_mask = 0
        for c in range(size):
            if power[c]:
                trump_mask |= 1 << c
        higher = [0] * size
        lower = [0] * size
        for c in range(size):
            h = 0
            lo = 0
            pc = power[c]
            for d in range(size):
                if d == c:
                    continue
                pd = power[d]
                if pc:
                    if pd > pc:
                        h |= 1 << d
                    elif pd and eff[d] == eff[c] and eff[c] >= 0:
                        lo |= 1 << d
                else:
                    if pd or (eff[d] == eff[c] and rank[d] > rank[c]):
                        h |= 1 << d
                    elif eff[d] == eff[c] and eff[c] >= 0:
                        lo |= 1 << d
            higher[c] = h
            lower[c] = lo
        self.strength = tuple(strength)
        self.higher = tuple(higher)
        self.lower = tuple(lower)
        self.trump_mask = trump_mask


_CARD_INFO: dict[int, tuple[ContractTables, CardInfo]] = {}


def card_info(tables: ContractTables) -> CardInfo:
    """The cached :class:`CardInfo` of a contract table."""
    hit = _CARD_INFO.get(id(tables))
    if hit is not None and hit[0] is tables:
        return hit[1]
    info = CardInfo(tables, len(tables.eff_suit))
    _CARD_INFO[id(tables)] = (tables, info)
    return info


class RulesInfo:
    """Per-rule-set facts used by the bots: seats, teams, the deck and bidding tables.

    ``suit_info[t]`` is the :class:`CardInfo` of a ``t``-trump contract (``t`` 0..3) and
    ``suit_info[4]`` that of no-trumps with no joker named.  ``trump_order[t]`` lists the trumps of
    suit ``t`` strongest first; ``side_order[t][s]`` the cards of side suit ``s`` strongest first;
    ``top_masks[t][s]`` the top cards of effective suit ``s`` that the estimates read.  The ``*_memo``,
    ``*_raw`` and ``sides_memo`` dicts are the caches of :mod:`~strategies.estimates` and
    :func:`play_sides`, kept here so that they live as long as the rule set.
    """

    def __init__(self, rules: Rules) -> None:
        deck = rules.deck
        self.rules, self.n, self.teams = rules, rules.players, rules.teams
        self.hand_size, self.kitty_size = rules.hand_size, rules.kitty_size
        self.full, self.jokers, self.joker_mask = deck.full_mask, deck.jokers, deck.joker_mask
        no_named = tuple(-1 for _ in deck.jokers)
        tables = [contract_tables(deck, t, no_named) for t in range(5)]
        self.suit_info = [card_info(t) for t in tables]
        self.partners = [
            tuple(s for s in range(self.n) if s != seat and s % self.teams == seat % self.teams)
            for seat in range(self.n)
        ]
        self.trump_order: list[list[int]] = []
        self.side_order: list[list[list[int]]] = []
        for t in range(5):
            ci = self.suit_info[t]
            strength = ci.strength
            if t < 4:
                tm = ci.suit_mask[t]
                self.trump_order.append(sorted(bits(tm), key=lambda c: -strength[c]))
            else:
                self.trump_order.append([])
            sides: list[list[int]] = []
            for s in range(4):
                m = ci.suit_mask[s] if s != t else 0
                sides.append(sorted(bits(m), key=lambda c: -strength[c]))
            self.side_order.append(sides)
        self.n_trumps = [len(o) for o in self.trump_order]
        # Fraction of the cards outside one hand that sit in the other players' hands.
        outside = deck.size - self.hand_size
        self.in_hand_frac = self.hand_size / outside if outside else 0.0
        self.masks = [self.suit_info[t].suit_mask for t in range(5)]
        # Per contract t and effective suit s: the mask of its top cards (8 trumps, 5 side cards).
        self.top_masks: list[list[int]] = []
        for t in range(5):
            row = []
            for s in range(4):
                order = self.trump_order[t] if s == t else self.side_order[t][s]
                row.append(sum(1 << c for c in order[: TOP_TRUMPS if s == t else TOP_SIDE]))
            self.top_masks.append(row)
        self.trump_memo: list[dict[int, float]] = [{} for _ in range(4)]
        self.side_memo: list[list[list[dict[int, float]]]] = [[[{}, {}] for _ in range(4)] for _ in range(5)]
        self.stop_memo: list[dict[int, int]] = [{} for _ in range(4)]
        self.danger_memo: dict[float, list[dict[int, list[tuple[float, int]]]]] = {}
        self.danger_sum_memo: dict[float, list[dict[int, float]]] = {}
        #: Raw-holding memos of :func:`suit_estimates`: trump holding -> (tricks, ruff), natural suit
        #: holding -> per-trump side values, NT value and stopper.
        self.trump_masks = [self.suit_info[t].suit_mask[t] for t in range(4)]
        self.nat_masks = list(self.suit_info[NT].suit_mask)
        self.trump_raw: list[dict[int, tuple[float, int]]] = [{} for _ in range(4)]
        self.suit_raw: list[dict[int, tuple[float | int, ...]]] = [{} for _ in range(4)]
        #: :func:`play_sides` per declarer seat.
        self.sides_memo: dict[int, tuple[int, ...]] = {}


def rules_info(rules: Rules) -> RulesInfo:
    """The :class:`RulesInfo` of a rule set, built once and kept on the rules object."""
    return rules.derived("_bot_info", RulesInfo)


def play_sides(info: RulesInfo, declarer: int) -> tuple[int, ...]:
    """The side of each seat in the play of a deal with ``declarer`` (-1: no declarer yet).

    The teams (``seat % teams``), except at a table where every seat is its own team (the 3-player
    game): there the defenders defend together for the deal (RULES.md section 11), so they form one
    side (1) against the declarer (0), and a bot treats the other defender as a partner in play.
    """
    sides = info.sides_memo.get(declarer)
    if sides is None:
        if info.teams == info.n and info.n > 2 and declarer >= 0:
            sides = tuple(0 if s == declarer else 1 for s in range(info.n))
        else:
            sides = tuple(s % info.teams for s in range(info.n))
        info.sides_memo[declarer] = sides
    return sides
