"""Smoke test: whole games with random bots run to their end under every shipped variant."""

import pytest

from fivehundred.sim import available_variants, load_rules, play_game
from fivehundred.strategies import make


@pytest.mark.parametrize("variant", available_variants())
def test_random_games_finish(variant: str) -> None:
    rules = load_rules(variant)
    bots = [make("random")] * rules.players
    for game in range(20):
        records = play_game(rules, bots, master_seed=11, game_id=game)
        assert records[-1]["game_over"]
        assert all(not r["game_over"] for r in records[:-1])
