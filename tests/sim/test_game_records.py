"""Whole games (RULES.md sections 2 and 10) checked record by record against the rules."""

from __future__ import annotations

from typing import Any

import pytest

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.engine import AUCTION, State
from fivehundred.sim.rules import Rules
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


Seen = list[tuple[int, int, str, bool]]


def _watched(rules: Rules, bots: list[Any], game: int) -> tuple[list[dict[str, Any]], Seen]:
    """A game's records and, per ``on_deal`` call, the state's hand number, dealer, phase and
    whether its hands are still the dealt ones."""
    seen: Seen = []

    def look(state: State) -> None:
        seen.append((state.hand_no, state.dealer, state.phase, tuple(state.hands) == state.dealt))

    return play_game(rules, bots, master_seed=31, game_id=game, on_deal=look), seen


def test_on_deal_sees_each_dealt_state_once_and_changes_nothing() -> None:
    """``play_game``'s ``on_deal`` is handed every deal's state before its first call, once per deal,
    and the records are those of the game without it."""
    rules = load_rules("pagat-au")
    bots = [make("heuristic.v2") for _ in range(4)]
    for game in range(4):
        recs, seen = _watched(rules, bots, game)
        assert recs == play_game(rules, bots, master_seed=31, game_id=game)
        assert [s[0] for s in seen] == [r["hand_no"] for r in recs]
        assert all(s[1] == r["dealer"] for s, r in zip(seen, recs, strict=True))
        assert all(s[2] == AUCTION and s[3] for s in seen)  # nothing called or played yet
