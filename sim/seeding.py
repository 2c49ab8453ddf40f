"""Seeds derived from (master seed, game, hand, seat) so that deals never depend on history.

The cards and the dealer of hand ``j`` of game ``g`` depend only on (master seed, ``g``, ``j``)
and the deck; each bot's RNG only on (master seed, ``g``, ``j``, seat).  Two runs with the same
master seed therefore see the same deals hand by hand, whatever the strategies, the rule switches
or the number of workers.
"""

from __future__ import annotations

import random

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def mix64(x: int) -> int:
    """SplitMix64's finaliser: a bijective 64-bit mix."""
    x = (x + _GOLDEN) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def derive(*parts: int) -> int:
    """A 64-bit seed from a sequence of non-negative ints (order matters)."""
    h = 0x5F3759DF
    for p in parts:
        h = mix64(h ^ (p & MASK64))
    return h


def deal_seed(master: int, game: int, hand: int) -> int:
    """The seed of hand ``hand`` of game ``game``: it alone fixes the shuffle."""
    return derive(master, game, hand, 1)


def first_dealer(master: int, game: int, players: int) -> int:
    """The uniformly random first dealer of a game."""
    return derive(master, game, 0xDEA1E2) % players


def dealer_of(master: int, game: int, hand: int, players: int) -> int:
    """The dealer of a hand: the deal passes one seat clockwise after every deal."""
    return (first_dealer(master, game, players) + hand) % players


def bot_seed(seed_of_deal: int, seat: int) -> int:
    """The seed of the RNG handed to the strategy in ``seat`` for one deal.

    Mersenne Twister's seeding hashes the whole integer, so no extra mixing is needed; the high bit
    keeps these seeds apart from every deal seed (which are below 2**64).
    """
    return (1 << 72) | (seed_of_deal << 8) | seat


def shuffled(seed_of_deal: int, n_cards: int) -> list[int]:
    """A uniform permutation of ``range(n_cards)`` from a deal seed.

    Each card gets an independent uniform key from a Mersenne Twister seeded with the deal seed and
    the cards are sorted by key (ties have probability below 1e-12 and are broken by card order).
    This is a uniform permutation, and faster in CPython than ``Random.shuffle``.
    """
    draw = random.Random(seed_of_deal).random
    return sorted(range(n_cards), key=lambda _card: draw())
