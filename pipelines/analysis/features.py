"""Hand features as Polars expressions over 64-bit card masks.

A hand (``list<str>`` of card names) becomes one ``UInt64`` mask with :func:`mask_of`, in the
deck-independent layout of :data:`sim.notation.UNIVERSAL_BIT` (suit ``s`` owns bits ``16*s ..
16*s+15``, one per rank; the jokers sit where no deck has a card).  Every feature is then a mask and
a popcount, so no Python touches a row.  What depends on the rules (which cards are trumps, the
bowers, effective suits) is not computed here: the engine logs it (docs/deal-log.md).
"""

from __future__ import annotations

import polars as pl

from fivehundred.sim.notation import JOKER, RANKS, UNIVERSAL_BIT, is_joker

RANK_POS = {r: i for i, r in enumerate(RANKS)}
JOKERS = 0
for _name, _bit in UNIVERSAL_BIT.items():
    if is_joker(_name):
        JOKERS |= 1 << _bit
LOW_RANK_MAX = RANK_POS["7"]  # "low card" for misère: rank 7 or below

#: Every card name any deck may hold, with its mask value (the notation's deck-independent layout).
CARD_VALUES: dict[str, int] = {n: 1 << b for n, b in UNIVERSAL_BIT.items()}


def suit_bits(s: int) -> int:
    """The printed cards of suit ``s`` (jokers excluded)."""
    return (0xFFFF << (16 * s)) & ~JOKERS


ACES = sum(1 << (16 * s + RANK_POS["A"]) for s in range(4))
LOW = sum(((1 << (LOW_RANK_MAX + 1)) - 1) << (16 * s) for s in range(4)) & ~JOKERS


def mask_of(cards: pl.Expr) -> pl.Expr:
    """A ``list<str>`` of card names as one ``UInt64`` mask (null stays null)."""
    return cards.list.eval(pl.element().replace_strict(CARD_VALUES, return_dtype=pl.UInt64)).list.sum()


def popcount(mask: pl.Expr) -> pl.Expr:
    """Number of set bits, as Int16."""
    return mask.bitwise_count_ones().cast(pl.Int16)


def printed_lengths(mask: pl.Expr) -> list[pl.Expr]:
    """Lengths of the four printed suits of a hand (jokers in none)."""
    return [popcount(mask & pl.lit(suit_bits(s), dtype=pl.UInt64)) for s in range(4)]


def voids(mask: pl.Expr) -> pl.Expr:
    """Number of printed suits with no card."""
    return pl.sum_horizontal([(n == 0).cast(pl.Int16) for n in printed_lengths(mask)]).cast(pl.Int16)


def highest_in_suit(mask: pl.Expr, s: int) -> pl.Expr:
    """The rank name of the highest printed card of suit ``s`` in the hand, or ``void``."""
    m = mask & pl.lit(suit_bits(s), dtype=pl.UInt64)
    pos = 63 - m.bitwise_leading_zeros().cast(pl.Int32) - 16 * s
    names = {i: r for i, r in enumerate(RANKS)}
    return pl.when(m == 0).then(pl.lit("void")).otherwise(pos.replace_strict(names, return_dtype=pl.String))


def rank_order(value: str) -> int:
    """Sort key of a ``high_*`` value: void lowest, then ranks, the named joker highest."""
    if value == "void":
        return -1
    if value == JOKER:
        return len(RANKS)
    return RANK_POS[value]


def hand_features(d: pl.DataFrame) -> pl.DataFrame:
    """Add the declarer's hand features ``f_*`` (docs/statistics.md, ``success_by_feature``): the
    trump counts and suit lengths the engine logged (``trumps_dealt`` .. ``suit_lengths``, under the
    contract's trump with its bowers and jokers), and the joker and aces of the dealt mask ``dmask``."""
    dm = pl.col("dmask")
    lengths = pl.col("suit_lengths")
    return d.with_columns(
        pl.col("trumps_dealt").cast(pl.Int16).alias("f_trumps"),
        pl.col("bowers_dealt").cast(pl.Int16).alias("f_bowers"),
        popcount(dm & pl.lit(JOKERS, dtype=pl.UInt64)).alias("f_joker"),
        popcount(dm & pl.lit(ACES, dtype=pl.UInt64)).alias("f_aces"),
        pl.col("trumps_kitty").cast(pl.Int16).alias("f_kitty_trumps"),
        pl.col("trumps_kept").cast(pl.Int16).alias("f_trumps_final"),
        lengths.list.eval((pl.element() == 0).cast(pl.Int16)).list.sum().cast(pl.Int16).alias("f_voids"),
        lengths.list.max().cast(pl.Int16).alias("f_longest"),
    ).drop("trumps_dealt", "bowers_dealt", "trumps_kitty", "trumps_kept", "suit_lengths")
