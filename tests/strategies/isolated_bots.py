"""Strategies for the isolation tests: not shipped with the project (so tournaments isolate them).

They play like ``random.v1`` unless told otherwise, and record facts about their process in the file
named by ``FIVEHUNDRED_TEST_ISOLATION_LOG`` (one line per fact).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any, ClassVar

from fivehundred.sim.engine import State
from fivehundred.strategies.random_bot import RandomStrategy

LOG_ENV = "FIVEHUNDRED_TEST_ISOLATION_LOG"


def entries_toml(*entries: tuple[str, str]) -> str:
    """``[[entries]]`` tables of a tournament config, one per (name, strategy)."""
    return "".join(f'[[entries]]\nname = "{n}"\nstrategy = "{s}"\n' for n, s in entries)


def two_entry_tournament(
    name: str, seed: int, a: tuple[str, str], b: tuple[str, str], pairs: int, chunk: int
) -> str:
    """A fixed-length duplicate match between entries ``a`` and ``b`` ((name, strategy) each), as TOML."""
    return (
        f'name = "{name}"\nseed = {seed}\n{entries_toml(a, b)}'
        f'[stop]\nrule = "fixed"\npairs = {pairs}\n[run]\nchunk_pairs = {chunk}\n'
    )


def _note(text: str) -> None:
    path = os.environ.get(LOG_ENV)
    if path:
        with open(path, "a") as fh:
            fh.write(text + "\n")


class WherePlays(RandomStrategy):
    """``random.v1`` that notes its pid and what frames and gc show it, once per object."""

    name = "random.v1"
    PARAMS: ClassVar[dict[str, Any]] = {}
    uses_view = True
    _noted = False

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        if not self._noted:
            self._noted = True
            states = sum(isinstance(o, State) for o in gc.get_objects())
            seeds = set()
            frame = sys._getframe(1)
            while frame is not None:
                for value in frame.f_locals.values():
                    seed = getattr(value, "master_seed", None)
                    if isinstance(seed, int):
                        seeds.add(seed)
                frame = frame.f_back
            tokens = sorted(k for k in os.environ if "TOKEN" in k or k.startswith("RAY_"))
            _note(f"pid={os.getpid()} states={states} seeds={sorted(seeds)} env={tokens} hand={view.hand}")
        return super().play(view, legal, rng)


class Crashes(RandomStrategy):
    """Its process dies at its first play."""

    name = "crashes.v1"
    PARAMS: ClassVar[dict[str, Any]] = {}

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        print("about to die", file=sys.stderr)
        os._exit(3)


class Hangs(RandomStrategy):
    """Never answers its first play."""

    name = "hangs.v1"
    PARAMS: ClassVar[dict[str, Any]] = {}

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        time.sleep(3600)
        return legal[0]


class Nonsense(RandomStrategy):
    """Answers a string, then prints into its stdout (which must not reach the protocol)."""

    name = "nonsense.v1"
    PARAMS: ClassVar[dict[str, Any]] = {}

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        print('{"action": 0}')  # a bot printing must not be able to answer for itself
        return "AS"


class Illegal(RandomStrategy):
    """Answers a card it does not hold."""

    name = "illegal.v1"
    PARAMS: ClassVar[dict[str, Any]] = {}

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        return max(range(64), key=lambda c: c not in legal)
