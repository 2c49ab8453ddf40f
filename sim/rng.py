"""The project's random number generator: xoshiro128** with cheap seeding.

Every deal needs one generator for the shuffle and one per seat for the bots, so seeding must be
cheap: Mersenne Twister's seeding alone costs about 4 µs, more than a third of a whole random deal
in the compiled engine.  :class:`Rng` keeps four 32-bit words of state (xoshiro128**, which passes
BigCrush), seeded from any non-negative int by a 128-bit BLAKE2b hash (so nearby seeds give
unrelated streams), and steps on plain ints that never exceed 2**62, so the pure-Python module and
the compiled one (mypyc) give identical numbers.

It offers the part of :class:`random.Random`'s API that bots use (``random``, ``getrandbits``,
``randrange``, ``randint``, ``choice``, ``shuffle``, ``sample``, ``uniform``), with the same meaning;
bounded integers are exactly uniform (rejection sampling).  For anything else,
``random.Random(rng.getrandbits(64))`` gives a Mersenne Twister seeded from this stream.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from hashlib import blake2b
from typing import Any, Final, TypeVar

T = TypeVar("T")

_M32: Final = 0xFFFFFFFF
_TWO_POW_53: Final = 9007199254740992.0


def seed_bytes(value: int) -> bytes:
    """The little-endian bytes of a non-negative int (one byte for 0)."""
    if value < 0:
        raise ValueError(f"seeds are non-negative ints, got {value}")
    return value.to_bytes((value.bit_length() + 7) // 8 or 1, "little")


class Rng:
    """A seeded xoshiro128** generator with the commonly used methods of :class:`random.Random`."""

    __slots__ = ("_s0", "_s1", "_s2", "_s3")

    def __init__(self, seed: int) -> None:
        state = int.from_bytes(
            blake2b(seed_bytes(seed), digest_size=16, person=b"fivehundred.rng").digest(), "little"
        )
        self._s0 = state & _M32
        self._s1 = state >> 32 & _M32
        self._s2 = state >> 64 & _M32
        self._s3 = state >> 96
        if not (self._s0 | self._s1 | self._s2 | self._s3):
            self._s0 = 1  # the all-zero state is the one state xoshiro must avoid

    def fork(self) -> Rng:
        """A new generator in this one's state (no seeding); :meth:`follow` takes its state back.

        The game runner hands a bot a fork at every decision, so that the object the bot holds is
        referred to by nothing of the runner's (no list of every seat's generators).
        """
        return _Fork(self._s0, self._s1, self._s2, self._s3)

    def follow(self, other: Rng) -> None:
        """Continue from ``other``'s state (a fork of this generator that was drawn from)."""
        self._s0 = other._s0
        self._s1 = other._s1
        self._s2 = other._s2
        self._s3 = other._s3

    def next32(self) -> int:
        """The next 32 random bits (xoshiro128**)."""
        # Products are written as shifts and adds: in compiled code a multiplication with an operand
        # of 2**30 or more leaves the fast path for Python's long arithmetic.
        s0, s1, s2, s3 = self._s0, self._s1, self._s2, self._s3
        x = ((s1 << 2) + s1) & _M32  # s1 * 5
        x = ((x << 7) | (x >> 25)) & _M32
        result = ((x << 3) + x) & _M32  # x * 9
        t = (s1 << 9) & _M32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        self._s0 = s0
        self._s1 = s1
        self._s2 = s2
        self._s3 = ((s3 << 11) | (s3 >> 21)) & _M32
        return result

    def random(self) -> float:
        """A float uniform in [0, 1) with 53 random bits."""
        a = self.next32() >> 5
        b = self.next32() >> 6
        return ((a << 26) + b) / _TWO_POW_53

    def getrandbits(self, k: int) -> int:
        """A non-negative int with ``k`` random bits."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        out = 0
        got = 0
        while got < k:
            out |= self.next32() << got
            got += 32
        return out & ((1 << k) - 1)

    def below(self, n: int) -> int:
        """An int uniform in ``range(n)``, exactly (``n`` at least 1)."""
        if n <= 0:
            raise ValueError("empty range")
        if n > _M32:
            bits = n.bit_length()
            r = self.getrandbits(bits)
            while r >= n:
                r = self.getrandbits(bits)
            return r
        # Lemire's multiply-shift with rejection: exact and usually one draw.  The 64-bit product
        # r * n is formed from 16-bit halves of r to stay on compiled code's fast path.
        r = self.next32()
        m = ((r >> 16) * n << 16) + (r & 0xFFFF) * n
        low = m & _M32
        if low < n:
            threshold = (_M32 + 1 - n) % n
            while low < threshold:
                r = self.next32()
                m = ((r >> 16) * n << 16) + (r & 0xFFFF) * n
                low = m & _M32
        return m >> 32

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """Like :meth:`random.Random.randrange`: an int uniform in ``range(start, stop, step)``."""
        if stop is None:
            return self.below(start)
        width = stop - start
        if step == 1:
            if width <= 0:
                raise ValueError(f"empty range in randrange({start}, {stop})")
            return start + self.below(width)
        if step == 0:
            raise ValueError("zero step for randrange()")
        count = (width + step - 1) // step if step > 0 else (width + step + 1) // step
        if count <= 0:
            raise ValueError(f"empty range in randrange({start}, {stop}, {step})")
        return start + step * self.below(count)

    def randint(self, a: int, b: int) -> int:
        """An int uniform in ``[a, b]``, both ends included."""
        return self.randrange(a, b + 1)

    def choice(self, seq: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        if not seq:
            raise IndexError("cannot choose from an empty sequence")
        return seq[self.below(len(seq))]

    def permutation(self, n: int) -> list[int]:
        """A uniformly random order of ``range(n)`` (the same as shuffling ``list(range(n))``)."""
        out = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Shuffle a list in place (Fisher–Yates), every order equally likely."""
        for i in range(len(x) - 1, 0, -1):
            j = self.below(i + 1)
            x[i], x[j] = x[j], x[i]

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements chosen uniformly, in selection order."""
        pool = list(population)
        n = len(pool)
        if not 0 <= k <= n:
            raise ValueError("sample larger than population or is negative")
        for i in range(k):
            j = i + self.below(n - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def uniform(self, a: float, b: float) -> float:
        """A float uniform between ``a`` and ``b``."""
        return a + (b - a) * self.random()


class _Fork(Rng):
    """A generator made by :meth:`Rng.fork`: the given state, without seeding."""

    __slots__ = ()

    def __init__(self, s0: int, s1: int, s2: int, s3: int) -> None:
        self._s0 = s0
        self._s1 = s1
        self._s2 = s2
        self._s3 = s3


class NoRng(Rng):
    """Handed to strategies that declare ``uses_rng = False``: using it is a bug, so it refuses."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(0)

    def fork(self) -> Rng:
        """A new guard (the runner's one is in its list of every seat's generators)."""
        return _NoRngFork()

    def follow(self, other: Rng) -> None:
        """Nothing to follow."""

    def next32(self) -> int:
        """Refuses: the strategy said it needs no random numbers (every other method draws here)."""
        raise RuntimeError("this strategy declared uses_rng = False but asked its RNG for a number")


class _NoRngFork(NoRng):
    """A :class:`NoRng` made without seeding (it is never drawn from)."""

    __slots__ = ()

    def __init__(self) -> None:
        self._s0 = self._s1 = self._s2 = self._s3 = 0
