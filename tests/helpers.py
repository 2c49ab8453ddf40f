"""Helpers shared by tests of several packages (plain functions; fixtures live in conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from fivehundred.sim.engine import State
from fivehundred.sim.game import decide, play_out


def random_legal(rng: Random) -> Callable[[State], int]:
    """A ``choose`` for :func:`~sim.game.play_out`: a uniformly random legal action drawn from ``rng``
    (``legal[rng.randrange(len(legal))]``)."""

    def choose(state: State) -> int:
        legal = state.legal_actions()
        return legal[rng.randrange(len(legal))]

    return choose


def bot_choice(bot: Any, rng: Any) -> Callable[[State], int]:
    """A ``choose`` for :func:`~sim.game.play_out`: ``bot``'s action for the seat to act
    (:func:`sim.game.decide`), drawing from ``rng``."""
    return lambda state: decide(bot, state, rng)


def states_along(
    state: State, choose: Callable[[State], int], keep: Callable[[State], bool] = lambda s: True
) -> list[State]:
    """Play ``state`` to its end with ``choose`` (:func:`sim.game.play_out`) and return a copy of
    every state met before an action for which ``keep`` holds."""
    seen: list[State] = []

    def step(s: State) -> int:
        if keep(s):
            seen.append(s.clone())
        return choose(s)

    play_out(state, step)
    return seen
