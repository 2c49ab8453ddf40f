"""Seeds derived from (master seed, game, hand, seat) so that deals never depend on history.

The cards and the dealer of hand ``j`` of game ``g`` depend only on (master seed, ``g``, ``j``)
and the deck; each bot's RNG only on (master seed, ``g``, ``j``, seat).  Two runs with the same
master seed therefore see the same deals hand by hand, whatever the strategies, the rule switches
or the number of workers.
"""

from __future__ import annotations

from sim.rng import Rng

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


def bot_seed(seed_of_deal: int, seat: int, key: int = 0) -> int:
    """The seed of the RNG handed to the strategy in ``seat`` for one deal.

    ``key`` (below 2**64) separates streams further: tournaments give each entry its own.  The
    :class:`~sim.rng.Rng` seeding hashes the whole integer, so no extra mixing is needed; bit 72
    keeps these seeds apart from every deal seed (which are below 2**64).
    """
    return (key << 80) | (1 << 72) | (seed_of_deal << 8) | seat


def bot_rng(seed_of_deal: int, seat: int, key: int = 0) -> Rng:
    """The seeded RNG of the strategy in ``seat`` for one deal (see :func:`bot_seed`)."""
    return Rng(bot_seed(seed_of_deal, seat, key))


def shuffled(seed_of_deal: int, n_cards: int) -> list[int]:
    """A uniform permutation of ``range(n_cards)`` from a deal seed (Fisher–Yates on an :class:`Rng`)."""
    order = list(range(n_cards))
    Rng(seed_of_deal).shuffle(order)
    return order
