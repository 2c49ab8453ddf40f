"""expert.v1's rollout evaluation (``dd_tricks``, ``rollout_worlds``): rollouts before the last tricks,
DD in them, the best rollout card on its worlds, nothing hidden read, whole reproducible games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.engine import PLAY
from fivehundred.sim.rng import Rng
from fivehundred.strategies import expert as expert_mod
from fivehundred.strategies import expert_rollout
from fivehundred.strategies.base import StrategyConfigError, make
from fivehundred.strategies.expert_rollout import side_margin
from fivehundred.strategies.montecarlo import play_out
from fivehundred.strategies.sampling import distinct_actions
from tests.strategies.helpers import assert_plays_whole_games_reproducibly, decision_points, shuffle_hidden

#: A small hybrid for the tests: rollouts with more than 4 tricks left, DD in the last 4.
HYBRID = "expert(worlds=3, pool=2, rollout_worlds=3, dd_tricks=4, bid_worlds=2)"


@pytest.mark.parametrize(
    "spec",
    ["expert(dd_tricks=21)", "expert(dd_tricks=-1)", "expert(rollout_worlds=0)", "expert(dd_tricks=1.5)"],
)
def test_parameters_are_validated(spec: str) -> None:
    with pytest.raises(StrategyConfigError):
        make(spec)


@given(hs.lists(hs.integers(-2000, 2000), min_size=2, max_size=3), hs.integers(-500, 500), hs.data())
def test_side_margin_is_the_declarers_lead_over_the_others_mean(delta: list[int], c: int, data) -> None:  # type: ignore[no-untyped-def]
    t = data.draw(hs.integers(0, len(delta) - 1))
    m = side_margin(delta, t)
    assert m == pytest.approx(side_margin([d + c for d in delta], t))  # a common shift does not count
    if len(delta) == 2:
        assert m == delta[t] - delta[1 - t]
    assert m * (len(delta) - 1) == pytest.approx(sum(delta[t] - d for d in delta))


def test_rollouts_before_the_last_dd_tricks_and_dd_in_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """With dd_tricks=4 the rollouts decide with more than 4 tricks left, DD with at most 4; both
    decide some cards of a game."""
    rules = load_rules("pagat-au")
    seen: dict[str, set[int]] = {"rollout": set(), "dd": set()}
    rollout_play, move_values = expert_rollout.rollout_play, expert_mod.move_values

    def rolled(bot, view, legal, rng, default):  # type: ignore[no-untyped-def]
        seen["rollout"].add(rules.hand_size - len(view.trick_winners))
        return rollout_play(bot, view, legal, rng, default)

    def solved(pos):  # type: ignore[no-untyped-def]
        seen["dd"].add(rules.hand_size - pos.tricks_played)
        return move_values(pos)

    monkeypatch.setattr(expert_mod, "rollout_play", rolled)
    monkeypatch.setattr(expert_mod, "move_values", solved)
    spec = "expert(worlds=3, pool=2, rollout_worlds=3, dd_tricks=4, bid_worlds=0, name_worlds=0)"
    play_game(rules, [make(spec), make("heuristic.v2")] * 2, 5, 0)
    assert seen["rollout"] and min(seen["rollout"]) > 4
    assert seen["dd"] and max(seen["dd"]) <= 4


def test_dd_everywhere_never_rolls_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """``dd_tricks`` at the hand size or more is the DD expert of before: the rollouts are never
    asked (a raising stand-in), and the games are those of dd_tricks=20 (the old default)."""
    rules = load_rules("pagat-au")

    def never(*args):  # type: ignore[no-untyped-def]
        raise AssertionError("rolled out")

    spec = "expert(worlds=3, pool=2, search_tricks=5, dd_tricks={})"
    monkeypatch.setattr(expert_mod, "rollout_play", never)
    at_size = play_game(rules, [make(spec.format(rules.hand_size)), make("heuristic.v2")] * 2, 6, 0)
    old = play_game(rules, [make(spec.format(20)), make("heuristic.v2")] * 2, 6, 0)
    assert at_size == old
    monkeypatch.undo()
    hybrid = play_game(rules, [make(spec.format(3)), make("heuristic.v2")] * 2, 6, 0)
    assert [r["plays"] for r in hybrid] != [r["plays"] for r in old]  # the parameter does something


def _play_decisions(variant: str, deals: int):  # type: ignore[no-untyped-def]
    """Play decisions with a real choice and more than 4 tricks left (where HYBRID rolls out)."""
    rules = load_rules(variant)
    for state in decision_points(rules, 23, deals, every=3):
        if state.phase != PLAY or rules.hand_size - len(state.trick_winners) <= 4:
            continue
        legal = state.legal_actions()
        if len(distinct_actions(state.view(state.turn), legal)) > 1:
            yield state, legal


def test_plays_the_best_rollout_card_over_its_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one world (the true deal) the card is one of best heuristic.v2 rollout result there for
    the seat's side, and heuristic.v2's own card when that is one of the best."""
    bot = make("expert(rollout_worlds=1, dd_tricks=4)")
    checked = differs = 0
    for state, legal in _play_decisions("pagat-au", 6):
        seat = state.turn
        view = state.view(seat)
        monkeypatch.setattr(bot, "sample_worlds", lambda v, r, n, st=state: [(1.0, st.clone())])
        action = bot.play(view, legal, Rng(1))
        rules = state.rules
        team = view.declarer % rules.teams
        sign = 1 if seat % rules.teams == team else -1
        policy = make("heuristic.v2").play
        value = {a: sign * side_margin(play_out(state, a, policy, Rng(0)), team) for a in legal}
        default = bot.base.play(view, legal, Rng(1))
        assert value[action] == max(value.values())
        if value[default] == max(value.values()):
            assert action == default
        checked += 1
        differs += action != default
    assert checked > 10 and differs > 0


@pytest.mark.parametrize("variant", ["pagat-au", "three-player"])
def test_the_card_ignores_hidden_cards(variant: str) -> None:
    """Two deals that differ only in cards the seat cannot see give the same card for the same rng
    when the rollouts decide, and the rollout card is not always heuristic.v2's."""
    rng = random.Random(5)
    checked = differs = 0
    for k, (state, legal) in enumerate(_play_decisions(variant, 4)):
        seat = state.turn
        other = shuffle_hidden(state, seat, rng)
        if other.hands == state.hands:
            continue  # nothing hidden could move (every unseen suit with one holder)
        mine = make(HYBRID).play(state.view(seat), legal, Rng(k))
        assert make(HYBRID).play(other.view(seat), legal, Rng(k)) == mine
        checked += 1
        differs += mine != make("heuristic.v2").play(state.view(seat), legal, Rng(k))
        if checked == 12:
            break
    assert checked >= 6 and differs > 0


@pytest.mark.parametrize("variant", ["pagat-au", "three-player", "six-player", "two-jokers", "nullo"])
def test_plays_whole_games_and_is_reproducible(variant: str) -> None:
    assert_plays_whole_games_reproducibly(variant, HYBRID)
