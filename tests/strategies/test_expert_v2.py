"""expert.v2: expert.v1 with the misère play searched double-dummy from the first trick; registered with
its parameter, DD (never a rollout) in a misère, expert.v1's play in the other contracts."""

from __future__ import annotations

import pytest

from fivehundred.sim import load_rules, play_deal
from fivehundred.sim.game import new_deal
from fivehundred.sim.rng import Rng
from fivehundred.strategies import expert as expert_mod
from fivehundred.strategies.base import StrategyConfigError, label, make
from fivehundred.strategies.expert import Expert2Strategy

SMALL = "worlds=3, pool=2, rollout_worlds=3, early_worlds=2"


def test_registered_and_a_bare_expert_is_still_v1() -> None:
    bot = make("expert.v2(misere_dd_tricks=8)")
    assert isinstance(bot, Expert2Strategy) and bot.misere_dd_tricks == 8
    assert label("expert") == "expert.v1"
    with pytest.raises(StrategyConfigError, match="misere_dd_tricks"):
        make("expert.v2(misere_dd_tricks=21)")
    with pytest.raises(StrategyConfigError, match="misere_dd_tricks"):
        make("expert(misere_dd_tricks=5)")  # v1 has no such parameter


def _forced(code: str, spec: str, deal: int) -> tuple[list[int], list[bool]]:
    """The plays of a deal with ``code`` forced on seat 0 and ``spec`` in every seat, and for each
    search of the play whether it rolled out (True) or solved DD (False)."""
    rules = load_rules("pagat-au")
    state, _ = new_deal(rules, 5, deal, 3)
    state.force_contract(code, 0)
    rolled: list[bool] = []
    real = expert_mod.rollout_play

    def spy(bot, view, legal, rng, default):  # type: ignore[no-untyped-def]
        rolled.append(True)
        return real(bot, view, legal, rng, default)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(expert_mod, "rollout_play", spy)
        m.setattr(expert_mod, "move_values", _counting(rolled))
        play_deal(state, [make(spec) for _ in range(4)], [Rng(s) for s in range(4)])
    return list(state.plays), rolled


def _counting(log: list[bool]):  # type: ignore[no-untyped-def]
    real = expert_mod.move_values

    def solve(position):  # type: ignore[no-untyped-def]
        log.append(False)
        return real(position)

    return solve


def test_a_misere_is_searched_double_dummy_from_the_first_trick() -> None:
    for code in ("OMIS", "MIS"):
        _, v2 = _forced(code, f"expert.v2({SMALL})", 1)
        assert v2 and not any(v2)  # every search of the misère solved DD
        _, v1 = _forced(code, f"expert.v1({SMALL})", 1)
        assert any(v1)  # expert.v1 rolled out the early tricks


def test_the_other_contracts_are_played_as_expert_v1() -> None:
    v2, how = _forced("7H", f"expert.v2({SMALL})", 2)
    v1, _ = _forced("7H", f"expert.v1({SMALL})", 2)
    assert v2 == v1 and any(how)  # rollouts early, as v1
