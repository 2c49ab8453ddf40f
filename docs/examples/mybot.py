"""A complete Five Hundred bot in one file (docs/writing-a-bot.md explains it line by line).

Play it against a built-in bot in a duplicate match, from the repository's folder:

    fivehundred tournament --entry docs/examples/mybot.py:MyBot --entry heuristic.v2 --pairs 100
"""

from collections.abc import Sequence

from fivehundred.sim import BID, PASS, SeatView
from fivehundred.sim.cards import bits
from fivehundred.sim.notation import played_card
from fivehundred.sim.rng import Rng


class MyBot:
    """Bids six of its longest suit with four of it and two top cards; leads its strongest card and
    follows with its cheapest."""

    name = "mybot.v1"  # the id in the deal log and the results; raise the version when its play changes

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        deck = view.rules.deck
        cards = bits(view.hand)  # the hand is a bitmask: bits() gives its card ints
        top = sum(1 for c in cards if deck.rank[c] >= deck.rank[deck.card("AS")])  # aces and jokers
        length = [sum(1 for c in cards if deck.suit[c] == s) for s in range(4)]  # suits 0..3: S C D H
        longest = max(range(4), key=lambda s: length[s])
        for action in legal:  # PASS and the bids it may make (BID + i, i into the rules' ladder)
            if action >= BID:
                bid = view.rules.ladder[action - BID]
                if bid.tricks == 6 and bid.trump == longest and length[longest] >= 4 and top >= 2:
                    return action
        return PASS

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        deck, trump = view.rules.deck, view.contract.trump  # trump: 0..3 a suit, 4 no trumps, -1 misère
        return min(legal, key=lambda c: (deck.suit[c] == trump, deck.rank[c]))  # the lowest side card

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        return legal[0]  # the joker's suit in no trumps or misère: the first one offered

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        deck, tables = view.rules.deck, view.tables  # tables: the card strengths of this contract

        def strength(action: int) -> tuple[int, int]:
            card = played_card(deck, action)  # a suitless joker led naming a suit is its own action
            return tables.power[card], tables.rank[card]  # trumps and the joker first, then the rank

        if not view.trick:  # leading
            return max(legal, key=strength)
        return min(legal, key=strength)
