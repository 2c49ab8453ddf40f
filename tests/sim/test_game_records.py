"""Whole games (RULES.md sections 2 and 10) checked record by record against the rules."""

from __future__ import annotations

import pytest

from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make

VARIANTS = [
    ("pagat-au", {}),
    ("club-004", {}),
    ("nullo", {}),
    ("north-american", {"game.deal_limit": 40}),
    ("pagat-au", {"scoring.defensive_cap": 490, "scoring.lose_at_minus_500": False, "game.deal_limit": 60}),
]


@pytest.mark.parametrize(("variant", "overrides"), VARIANTS)
def test_game_records_follow_section_10(variant: str, overrides: dict) -> None:
    rules = load_rules(variant, overrides=overrides or None)
    for game in range(15):
        recs = play_game(rules, [make("random")] * 4, master_seed=77, game_id=game)
        before = [0, 0]
        d0 = recs[0]["dealer"]
        for i, r in enumerate(recs):
            assert r["hand_no"] == i and r["dealer"] == (d0 + i) % 4
            after = [b + d for b, d in zip(before, r["score_delta"], strict=True)]
            assert r["score_after"] == after
            if r["contract"] is not None:
                team = r["declarer"] % 2
                other = 1 - team
                assert r["score_delta"][other] >= 0  # defenders never lose points
                if rules.defensive_cap:
                    assert after[other] <= max(before[other], rules.defensive_cap)
                won = r["score_delta"][team] > 0 and after[team] >= 500
                fell = rules.lose_at_minus_500 and min(after) <= -500
            else:
                assert r["score_delta"] == [0, 0]
                won = fell = False
            last = i == len(recs) - 1
            assert r["game_over"] == last
            if won:
                assert last and r["winner"] == team and r["end_reason"] == "reached_500"
            elif fell:
                assert last and r["end_reason"] == "fell_to_-500"
                assert r["winner"] == (0 if after[1] <= -500 else 1)
            elif last:
                assert r["end_reason"] == "deal_limit" and r["winner"] is None
                assert len(recs) == rules.deal_limit
            before = after
