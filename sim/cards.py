"""Cards as small ints, hands as bitmasks, and decks built from a table description.

A deck is an ordered tuple of card names; a card's int is its index in that tuple and a set of
cards is an int bitmask (bit ``c`` set when card ``c`` is present).  Suits are ``0..3`` in the
order ``S C D H`` (the bid order of RULES.md); ``NT`` is suit index 4 in contracts.  Card names
(``TH``, ``JK``, ``JK1``) are spelled by :mod:`sim.notation`, which owns every notation.

Ranks are ordered ``2 .. 9 T 11 12 13 J Q K A``: the 6-player pack's 11, 12 and 13 sit between the
ten and the jack (RULES.md section 11).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from fivehundred.sim._mypyc import mypyc_attr
from fivehundred.sim.notation import RANKS, card_text, joker_text

SUIT_NAMES: Final = ("spades", "clubs", "diamonds", "hearts")
#: Rank strength: higher wins (the notation's rank order, from 2).  The jack sits above 13 so that
#: the 6-player pack orders correctly.
RANK_ORDER: Final[dict[str, int]] = {r: i + 2 for i, r in enumerate(RANKS)}
JACK = RANK_ORDER["J"]
#: Suit of the same colour: spades<->clubs, diamonds<->hearts (the left bower's suit).
SAME_COLOUR: Final = (1, 0, 3, 2)


@mypyc_attr(native_class=False)  # a plain Python class even when compiled: pickles
@dataclass(frozen=True)
class Deck:
    """An ordered set of cards: names, suits and ranks as parallel tuples, jokers last.

    ``suit[c]`` is the printed suit (``-1`` for a joker); ``rank[c]`` the rank strength from
    :data:`RANK_ORDER` (jokers get ``100 - joker_number`` so that joker 1 ranks above joker 2).
    The derived tables (:attr:`index`, :attr:`jokers`, the masks) are built once, with the deck:
    compiled by mypyc, ``functools.cached_property`` became a plain property here and rebuilt them
    at every read (about 2.7 µs for ``jokers``).
    """

    names: tuple[str, ...]
    suit: tuple[int, ...]
    rank: tuple[int, ...]
    #: Card name -> card int.
    index: dict[str, int] = field(init=False, repr=False, compare=False)
    #: Card ints of the jokers, highest first.
    jokers: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: Bitmask of all jokers.
    joker_mask: int = field(init=False, repr=False, compare=False)
    #: Bitmask of the whole deck.
    full_mask: int = field(init=False, repr=False, compare=False)
    #: Bitmask of each printed suit (jokers excluded).
    printed_suit_masks: tuple[int, int, int, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        jokers = tuple(c for c, s in enumerate(self.suit) if s < 0)
        masks = [0, 0, 0, 0]
        for c, s in enumerate(self.suit):
            if s >= 0:
                masks[s] |= 1 << c
        derived = {
            "index": {n: i for i, n in enumerate(self.names)},
            "jokers": jokers,
            "joker_mask": mask_of(jokers),
            "full_mask": (1 << len(self.names)) - 1,
            "printed_suit_masks": (masks[0], masks[1], masks[2], masks[3]),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)  # a frozen dataclass

    @property
    def size(self) -> int:
        """Number of cards in the deck."""
        return len(self.names)

    def card(self, name: str) -> int:
        """Return the card int for a name such as ``TH`` or ``JK``; ``KeyError`` names the card."""
        try:
            return self.index[name]
        except KeyError:
            raise KeyError(f"no card {name!r} in this deck") from None

    def cards(self, names: str | list[str] | tuple[str, ...]) -> list[int]:
        """Card ints for a space-separated string or a list of names."""
        if isinstance(names, str):
            names = names.split()
        return [self.card(n) for n in names]

    def mask(self, names: str | list[str] | tuple[str, ...]) -> int:
        """Bitmask for a space-separated string or list of card names."""
        return mask_of(self.cards(names))

    def names_of(self, mask: int) -> list[str]:
        """Card names of a bitmask, in deck order."""
        return [self.names[c] for c in iter_bits(mask)]


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    """Bitmask of a collection of card ints."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _chunk_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    return tuple(
        tuple(tuple(k * 11 + i for i in range(11) if v >> i & 1) for v in range(2048)) for k in range(6)
    )


_TABLES: Final = _chunk_tables()
_T0: Final = _TABLES[0]
_T1: Final = _TABLES[1]
_T2: Final = _TABLES[2]
_T3: Final = _TABLES[3]
_T4: Final = _TABLES[4]
_T5: Final = _TABLES[5]


def bits(mask: int) -> tuple[int, ...]:
    """Set bit positions of a 64-bit ``mask``, lowest first, by 11-bit table look-ups (fast path)."""
    r = _T0[mask & 2047] + _T1[mask >> 11 & 2047] + _T2[mask >> 22 & 2047] + _T3[mask >> 33 & 2047]
    if mask >> 44:
        r += _T4[mask >> 44 & 2047] + _T5[mask >> 55]
    return r


def iter_bits(mask: int) -> list[int]:
    """Set bit positions of ``mask``, lowest first, as a list."""
    return list(bits(mask))


def popcount(mask: int) -> int:
    """Number of set bits."""
    return mask.bit_count()


def build_deck(ranks_by_suit: tuple[tuple[str, ...], ...], n_jokers: int) -> Deck:
    """Build a deck from the rank letters of each suit (``S C D H``) and a number of jokers."""
    names: list[str] = []
    suits: list[int] = []
    ranks: list[int] = []
    for s, suit_ranks in enumerate(ranks_by_suit):
        for r in sorted(suit_ranks, key=RANK_ORDER.__getitem__):
            names.append(card_text(r, s))
            suits.append(s)
            ranks.append(RANK_ORDER[r])
    for j in range(n_jokers):
        names.append(joker_text(j, n_jokers))
        suits.append(-1)
        ranks.append(100 - j)
    return Deck(tuple(names), tuple(suits), tuple(ranks))


def _span(low: str) -> tuple[str, ...]:
    order = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
    return tuple(order[order.index(low) :])


def standard_deck(players: int, jokers: int) -> Deck:
    """The deck of a table (RULES.md sections 1 and 11).

    - 4 players, 1 joker: 43 cards (red suits from 4, black from 5).
    - 3 players: 33 cards (7 to A in every suit) and the joker.
    - 6 players: 63 cards: 2 to A, plus 11 and 12 in every suit and 13 in the red suits, and the joker.
    - 4 players, 2 jokers: 46 cards (4 to A in every suit) and two jokers.
    """
    if players == 4 and jokers == 1:
        ranks = (_span("5"), _span("5"), _span("4"), _span("4"))
    elif players == 4 and jokers == 2:
        ranks = (_span("4"),) * 4
    elif players == 3 and jokers == 1:
        ranks = (_span("7"),) * 4
    elif players == 6 and jokers == 1:
        black = (*_span("2"), "11", "12")
        red = (*_span("2"), "11", "12", "13")
        ranks = (black, black, red, red)
    else:
        raise ValueError(f"no deck for {players} players with {jokers} joker(s)")
    return build_deck(ranks, jokers)


def flag_mask(flags: list[bool]) -> int:
    """A list of flags as a bitmask (bit ``i`` = ``flags[i]``): a set of seats."""
    m = 0
    for i, f in enumerate(flags):
        if f:
            m |= 1 << i
    return m
