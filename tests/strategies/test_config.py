"""Strategy parameters from specs and TOML-style tables; one-line errors that list what exists."""

from __future__ import annotations

import pytest

from fivehundred.strategies.base import StrategyConfigError, available, label, make
from fivehundred.strategies.heuristic import HeuristicStrategy
from fivehundred.strategies.montecarlo import MonteCarloStrategy


def test_registered_names() -> None:
    names = available()
    assert {"random.v1", "heuristic.v1", "montecarlo.v1"} <= set(names)


def test_parameters_from_spec_and_table() -> None:
    bot = make("heuristic(aggression=0.5, misere=False)")
    assert isinstance(bot, HeuristicStrategy)
    assert bot.aggression == 0.5 and bot.misere is False
    table = {"aggression": -1, "nt_stoppers": 3}  # as a TOML table would give them
    bot = make("heuristic.v1", table)
    assert bot.aggression == -1.0 and bot.nt_stoppers == 3
    mc = make("montecarlo", {"samples": 7, "rollout": "random"})
    assert isinstance(mc, MonteCarloStrategy) and mc.samples == 7 and mc.policy.name == "random.v1"
    assert label("montecarlo", {"samples": 7}) == "montecarlo.v1(samples=7)"


def test_defaults_are_valid() -> None:
    for cls in (HeuristicStrategy, MonteCarloStrategy):
        bot = cls()
        for key, check in cls.PARAMS.items():
            assert check(getattr(bot, key)) is None, key


def _one_line(exc: pytest.ExceptionInfo) -> str:
    msg = str(exc.value)
    assert "\n" not in msg
    return msg


def test_unknown_strategy_lists_what_exists() -> None:
    with pytest.raises(StrategyConfigError) as exc:
        make("heuristc")
    msg = _one_line(exc)
    assert "heuristc" in msg and "heuristic.v1" in msg and "montecarlo.v1" in msg


def test_unknown_parameter_lists_parameters() -> None:
    with pytest.raises(StrategyConfigError) as exc:
        make("heuristic(agression=1)")
    msg = _one_line(exc)
    assert "agression" in msg and "aggression" in msg and "partner_tricks" in msg


@pytest.mark.parametrize(
    ("spec", "params", "words"),
    [
        ("heuristic", {"aggression": 9}, ["aggression", "between"]),
        ("heuristic", {"aggression": "high"}, ["aggression", "number"]),
        ("heuristic", {"misere": 1}, ["misere", "true or false"]),
        ("montecarlo", {"samples": 0}, ["samples", "between"]),
        ("montecarlo", {"samples": 2.5}, ["samples", "whole number"]),
        ("montecarlo", {"rollout": "nosuchbot"}, ["rollout", "heuristic.v1"]),
        ("montecarlo", {"rollout": "montecarlo"}, ["rollout", "cannot"]),
    ],
)
def test_bad_values(spec: str, params: dict, words: list[str]) -> None:
    with pytest.raises(StrategyConfigError) as exc:
        make(spec, params)
    msg = _one_line(exc)
    for w in words:
        assert w in msg


def test_bad_spec_syntax() -> None:
    with pytest.raises(StrategyConfigError) as exc:
        make("heuristic(aggression=)")
    _one_line(exc)


def test_whole_number_parameter() -> None:
    with pytest.raises(StrategyConfigError) as exc:
        make("heuristic(nt_stoppers=3.5)")
    assert "whole number" in _one_line(exc)
