"""Seeds derived from (master seed, game, hand, seat) so that deals never depend on history.

The cards and the dealer of hand ``j`` of game ``g`` depend only on (master seed, ``g``, ``j``)
and the deck; each bot's RNG only on (master seed, ``g``, ``j``, seat).  Two runs with the same
master seed therefore see the same deals hand by hand, whatever the strategies, the rule switches
or the number of workers.
"""

from __future__ import annotations

from hashlib import blake2b

from fivehundred.sim.rng import Rng, seed_bytes


def derive(*parts: int) -> int:
    """A 64-bit seed from a sequence of non-negative ints (order matters; BLAKE2b of their bytes)."""
    data = bytearray()
    for p in parts:
        b = seed_bytes(p)
        data.append(len(b))  # length-prefixed, so (1, 2) and (258,) never share an encoding
        data += b
    return int.from_bytes(blake2b(bytes(data), digest_size=8, person=b"fivehundred.seed").digest(), "little")


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
    return Rng(seed_of_deal).permutation(n_cards)
