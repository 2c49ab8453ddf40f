"""Every bot plays whole games under every shipped variant (and the larger tables) without errors."""

from __future__ import annotations

import pytest

from fivehundred.sim import available_variants, load_rules, play_game
from fivehundred.strategies.base import make

TABLES = [{"table.players": 3}, {"table.players": 6}, {"table.jokers": 2}]


@pytest.mark.parametrize("variant", available_variants())
def test_heuristic_games(variant: str) -> None:
    rules = load_rules(variant)
    bots = [make("heuristic") for _ in range(rules.players)]
    contracts = set()
    for game in range(15):
        records = play_game(rules, bots, 31, game)  # raises StrategyError on any illegal action
        assert records[-1]["game_over"]
        contracts.update(r["contract"] for r in records)
    assert len(contracts) > 3  # it bids more than one thing


@pytest.mark.parametrize("overrides", TABLES, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_heuristic_other_tables(overrides: dict) -> None:
    rules = load_rules("pagat-au", overrides)
    bots = [make("heuristic") for _ in range(rules.players)]
    for game in range(8):
        assert play_game(rules, bots, 32, game)[-1]["game_over"]


@pytest.mark.parametrize("variant", [*available_variants(), "players=3", "players=6", "jokers=2"])
def test_montecarlo_games(variant: str) -> None:
    if "=" in variant:
        key, value = variant.split("=")
        rules = load_rules("pagat-au", {f"table.{key}": int(value)})
    else:
        rules = load_rules(variant)
    mc = make("montecarlo(samples=2)")
    h = make("heuristic")
    bots = [mc if s % rules.teams == 0 else h for s in range(rules.players)]
    records = play_game(rules, bots, 33, 0)
    assert records and all(r["plays"] or r["contract"] is None for r in records)


def test_montecarlo_is_reproducible() -> None:
    rules = load_rules("pagat-au")
    bots = [make("montecarlo(samples=3)"), make("heuristic")] * 2
    first = play_game(rules, bots, 34, 1)
    again = play_game(rules, [make("montecarlo(samples=3)"), make("heuristic")] * 2, 34, 1)
    assert first == again


def test_heuristic_beats_random() -> None:
    rules = load_rules("pagat-au")
    h, r = make("heuristic"), make("random")
    wins = 0
    for game in range(20):
        wins += play_game(rules, [h, r, h, r], 35, game)[-1]["winner"] == 0
    assert wins >= 18
