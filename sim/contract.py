"""The rules of play: what a contract makes of the cards (each card's effective suit and its power
in a trick), which card takes a trick, which cards may follow, which suits a led suitless joker may
name, and the next seat to act (RULES.md sections 3 and 6 to 8).

These are the one owner of the rules of play: the engine's :class:`~sim.engine.State`, the seat
views, the bots and the double-dummy solver all read them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Final

from fivehundred.sim.cards import SAME_COLOUR, Deck, bits
from fivehundred.sim.notation import JOKER_LEAD

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fivehundred.sim.engine import CompiledRules
    from fivehundred.sim.rules import Bid, Rules

_RIGHT_BOWER: Final = 1050
_LEFT_BOWER: Final = 1049


class ContractTables:
    """Per-contract tables: effective suit, suit masks and trick power of every card.

    ``power[c]`` is non-zero for cards that win regardless of the suit led (trumps, the suitless
    joker); ``rank[c]`` ranks a card within its effective suit; ``bowers`` is the mask of the right
    and left bowers of a suit contract (0 otherwise).  Built once per (deck, trump, joker naming)
    and cached.
    """

    __slots__ = ("bowers", "eff_suit", "power", "rank", "suit_mask", "suitless_jokers", "trump")

    def __init__(self, deck: Deck, trump: int, named: tuple[int, ...]) -> None:
        eff = list(deck.suit)
        power = [0] * deck.size
        rank = list(deck.rank)
        suitless = 0
        for j, c in enumerate(deck.jokers):
            if 0 <= trump < 4:
                eff[c] = trump
                power[c] = 1000 + deck.rank[c]
            elif named[j] >= 0:
                eff[c] = named[j]  # a card of that suit only, above its ace
            else:
                suitless |= 1 << c
                power[c] = 10000 + deck.rank[c]
        if 0 <= trump < 4:
            for c in range(deck.size):
                s = deck.suit[c]
                if s == trump:
                    power[c] = _RIGHT_BOWER if deck.rank[c] == 14 else 1000 + deck.rank[c]
                elif s == SAME_COLOUR[trump] and deck.rank[c] == 14:
                    eff[c] = trump
                    power[c] = _LEFT_BOWER
        masks = [0, 0, 0, 0]
        bowers = 0
        for c, s in enumerate(eff):
            if s >= 0:
                masks[s] |= 1 << c
            if power[c] == _RIGHT_BOWER or power[c] == _LEFT_BOWER:
                bowers |= 1 << c
        self.bowers = bowers
        self.trump = trump if 0 <= trump < 4 else -1
        self.eff_suit = tuple(eff)
        self.power = tuple(power)
        self.rank = tuple(rank)
        self.suit_mask = tuple(masks)
        self.suitless_jokers = suitless


@lru_cache(maxsize=4096)
def contract_tables(deck: Deck, trump: int, named: tuple[int, ...]) -> ContractTables:
    """Cached :class:`ContractTables` for a deck, a trump (``4`` or ``-1`` for none) and namings."""
    return ContractTables(deck, trump, named)


def playable_mask(hand: int, suit_cards: int, suitless: int, joker_forced: bool) -> int:
    """The cards of ``hand`` that may be played to a trick whose led suit holds ``suit_cards``.

    Follow suit if able (RULES.md §7); a void player plays any card, except that a suitless joker
    must be played when ``joker_forced`` (misère with the ``pagat`` joker, §8).  ``suitless`` is
    the mask of the suitless jokers.  Shared by the engine and the double-dummy solver
    (:mod:`sim.dd`), which passes masks of its own card numbering.
    """
    follow = hand & suit_cards
    if follow:
        return follow
    jk = hand & suitless
    if jk and joker_forced:
        return jk
    return hand


def trick_winner(tables: ContractTables, cards: Sequence[int], led: int) -> int:
    """The position in ``cards`` (a trick or the trick so far, in the order played) of the card that
    takes it (RULES.md §7): the highest trick power (trumps, a suitless joker), else the highest card
    of the effective suit ``led``; -1 when ``cards`` is empty.  The engine resolves every trick with
    it; a bot reading a trick calls it with its view's ``tables`` and ``led_suit``."""
    power, eff, rank = tables.power, tables.eff_suit, tables.rank
    best = -1
    win = -1
    for i in range(len(cards)):
        c = cards[i]
        p = power[c] or (rank[c] if eff[c] == led else 0)
        if p > best:
            best = p
            win = i
    return win


def next_seat(seat: int, n: int, skip: int = 0) -> int:
    """The seat to the left of ``seat`` at a table of ``n`` (the auction and the play go clockwise),
    passing over the seats of the ``skip`` mask (bit ``s``: seat ``s``), which must leave one seat."""
    nxt = (seat + 1) % n
    while skip >> nxt & 1:
        nxt = (nxt + 1) % n
    return nxt


def joker_lead_suits(comp: CompiledRules, tricks_played: int, led_suits: int, other_cards: bool) -> int:
    """Bitmask of the suits a suitless joker may name when led (RULES.md §8 and the switches).

    ``led_suits`` is the mask of suits led so far in the deal, ``other_cards`` whether the leader
    holds a card other than suitless jokers.  Shared by the engine and :mod:`sim.dd`.
    """
    last = tricks_played == comp.hand_size - 1
    if comp.joker_lead_only_last_trick:
        suits = 15 if last else 0
    elif comp.joker_north_american:
        suits = 15
    else:
        unled = 15 & ~led_suits
        suits = unled if unled else (15 if last else 0)
    if not suits and not other_cards:
        suits = 15  # only jokers left (two-joker deck): any suit rather than no move
    return suits


def legal_plays(
    comp: CompiledRules,
    tables: ContractTables,
    hand: int,
    led: int,
    tricks_played: int,
    led_suits: int,
    forced: bool,
) -> tuple[int, ...]:
    """The legal play actions, ascending, of a seat holding ``hand`` (RULES.md §7 and §8).

    ``led`` is the trick's led suit, ``-1`` when the seat leads; a led suitless joker is one action per
    suit it may name (``JOKER_LEAD + 4 * j + s``, :func:`joker_lead_suits`).  ``forced``: a void
    seat must play a suitless joker (:func:`joker_forced`).  The engine's and the double-dummy
    solver's one source of the legal plays.
    """
    if led >= 0:
        return bits(playable_mask(hand, tables.suit_mask[led], tables.suitless_jokers, forced))
    jk = hand & tables.suitless_jokers
    if not jk:
        return bits(hand)
    acts = list(bits(hand ^ jk))
    suits = joker_lead_suits(comp, tricks_played, led_suits, hand != jk)
    for j, c in enumerate(comp.jokers):
        if jk >> c & 1:
            base = JOKER_LEAD + 4 * j
            acts.extend(base + s for s in range(4) if suits >> s & 1)
    return tuple(acts)


def joker_forced(comp: CompiledRules, contract: Bid) -> bool:
    """Whether a seat void in the suit led must play a suitless joker: misère with the ``pagat``
    joker (RULES.md §8)."""
    return contract.misere and comp.joker_pagat


def names_jokers(comp: CompiledRules, contract: Bid) -> bool:
    """Whether the declarer names a suit for each suitless joker it holds after the discard: no
    trumps with the ``pagat`` joker (RULES.md §8)."""
    return contract.no_trump and comp.joker_pagat


def active_seats(rules: Rules, contract: Bid, declarer: int) -> list[bool]:
    """Which seats play ``contract``: all, except in misère, where the declarer's partners lay their
    hands down and sit out (RULES.md §7)."""
    n = rules.players
    if not contract.misere:
        return [True] * n
    team = declarer % rules.teams
    return [s == declarer or s % rules.teams != team for s in range(n)]
