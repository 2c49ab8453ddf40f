"""Hand features as Polars expressions over 64-bit card masks.

A hand (``list<str>`` of card names, RULES.md notation) becomes one ``UInt64`` mask with
:func:`mask_of`: suit ``s`` (``S C D H`` = 0..3) owns bits ``16*s .. 16*s+15``, one per rank
``2 3 4 5 6 7 8 9 T 11 12 13 J Q K A`` (the 11s to 13s of the six-hand deck included).  Thirteens
of spades and clubs exist in no deck, so their bits hold the jokers (``JK``/``JK1`` at bit 11,
``JK2`` at bit 27).  Every feature is then a mask and a popcount, so no Python touches a row.
"""

from __future__ import annotations

import polars as pl

SUITS = "SCDH"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "11", "12", "13", "J", "Q", "K", "A")
RANK_POS = {r: i for i, r in enumerate(RANKS)}
JOKER_BITS = {"JK": 11, "JK1": 11, "JK2": 16 + 11}
JOKERS = (1 << 11) | (1 << 27)
LOW_RANK_MAX = RANK_POS["7"]  # "low card" for misère: rank 7 or below


def card_bit(name: str) -> int:
    """The bit of one card name in a hand mask."""
    if name in JOKER_BITS:
        return JOKER_BITS[name]
    return 16 * SUITS.index(name[-1]) + RANK_POS[name[:-1]]


#: Every card name any deck may hold, with its mask value.
CARD_VALUES: dict[str, int] = {
    **{f"{r}{s}": 1 << card_bit(f"{r}{s}") for s in SUITS for r in RANKS if not (r == "13" and s in "SC")},
    **{j: 1 << b for j, b in JOKER_BITS.items()},
}


def suit_bits(s: int) -> int:
    """The printed cards of suit ``s`` (jokers excluded)."""
    return (0xFFFF << (16 * s)) & ~JOKERS


def jack_bit(s: int) -> int:
    """The jack of suit ``s``."""
    return 1 << (16 * s + RANK_POS["J"])


ACES = sum(1 << (16 * s + RANK_POS["A"]) for s in range(4))
LOW = sum(((1 << (LOW_RANK_MAX + 1)) - 1) << (16 * s) for s in range(4)) & ~JOKERS


def mask_of(cards: pl.Expr) -> pl.Expr:
    """A ``list<str>`` of card names as one ``UInt64`` mask (null stays null)."""
    return cards.list.eval(pl.element().replace_strict(CARD_VALUES, return_dtype=pl.UInt64)).list.sum()


def popcount(mask: pl.Expr) -> pl.Expr:
    """Number of set bits, as Int16."""
    return mask.bitwise_count_ones().cast(pl.Int16)


def _by_trump(trump: pl.Expr, values: dict[int, int], default: int) -> pl.Expr:
    """A per-row UInt64 constant chosen by the trump suit index (null/other -> ``default``)."""
    return trump.replace_strict(values, default=default, return_dtype=pl.UInt64)


def trump_mask(trump: pl.Expr) -> pl.Expr:
    """The trump cards of a suit contract (suit, left bower, jokers); 0 for NT and misère."""
    return _by_trump(trump, {s: suit_bits(s) | jack_bit(s ^ 1) | JOKERS for s in range(4)}, 0)


def bower_mask(trump: pl.Expr) -> pl.Expr:
    """Right and left bowers of a suit contract; 0 for NT and misère."""
    return _by_trump(trump, {s: jack_bit(s) | jack_bit(s ^ 1) for s in range(4)}, 0)


def effective_suit_mask(trump: pl.Expr, s: int) -> pl.Expr:
    """The cards that belong to suit ``s`` under the contract: the trump suit gains the left bower
    and the jokers, its same-colour suit loses its jack; in NT/misère the printed suit."""
    values = {}
    for t in range(4):
        if t == s:
            values[t] = suit_bits(s) | jack_bit(s ^ 1) | JOKERS
        elif t == s ^ 1:
            values[t] = suit_bits(s) & ~jack_bit(s)
        else:
            values[t] = suit_bits(s)
    return _by_trump(trump, values, suit_bits(s))


def suit_lengths(mask: pl.Expr, trump: pl.Expr) -> list[pl.Expr]:
    """Lengths of the four suits of a hand under the contract."""
    return [popcount(mask & effective_suit_mask(trump, s)) for s in range(4)]


def voids(mask: pl.Expr, trump: pl.Expr) -> pl.Expr:
    """Number of suits with no card."""
    return pl.sum_horizontal([(n == 0).cast(pl.Int16) for n in suit_lengths(mask, trump)]).cast(pl.Int16)


def longest(mask: pl.Expr, trump: pl.Expr) -> pl.Expr:
    """Length of the longest suit."""
    return pl.max_horizontal(suit_lengths(mask, trump)).cast(pl.Int16)


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
    if value == "JK":
        return len(RANKS)
    return RANK_POS[value]


def hand_features(d: pl.DataFrame) -> pl.DataFrame:
    """Add the declarer's hand features ``f_*`` (docs/statistics.md, ``success_by_feature``) from the
    masks ``dmask`` (dealt hand), ``kmask`` (kitty), ``xmask`` (discards) and the trump index ``tidx``."""
    dm, km, xm, tr = pl.col("dmask"), pl.col("kmask"), pl.col("xmask"), pl.col("tidx")
    suit = tr.is_not_null()
    tmask = trump_mask(tr)
    final = (dm | km) & ~xm
    d = d.with_columns(
        pl.when(suit).then(popcount(dm & tmask)).alias("f_trumps"),
        pl.when(suit).then(popcount(dm & bower_mask(tr))).alias("f_bowers"),
        popcount(dm & pl.lit(JOKERS, dtype=pl.UInt64)).alias("f_joker"),
        popcount(dm & pl.lit(ACES, dtype=pl.UInt64)).alias("f_aces"),
        pl.when(suit).then(popcount(km & tmask)).alias("f_kitty_trumps"),
        pl.when(suit).then(popcount(final & tmask)).alias("f_trumps_final"),
        *[n.alias(f"_len{s}") for s, n in enumerate(suit_lengths(dm, tr))],
    )
    lengths = [pl.col(f"_len{s}") for s in range(4)]
    return d.with_columns(
        pl.sum_horizontal([(n == 0).cast(pl.Int16) for n in lengths]).cast(pl.Int16).alias("f_voids"),
        pl.max_horizontal(lengths).cast(pl.Int16).alias("f_longest"),
    ).drop([f"_len{s}" for s in range(4)])
