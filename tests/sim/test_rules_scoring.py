"""RULES.md sections 4 (values), 9 (scoring) and 10 (end of the game) on hand-made deals.

:func:`k_trick_deal` builds a deal in which the declarer takes exactly ``k`` tricks when every seat
plays its first legal card: the declarer holds the ``k`` highest cards of the lead suit (the trumps
in a suit contract) and the lowest hearts; the partner holds only diamonds (nobody leads them); the
defenders hold everything else, so once the declarer leads a heart they win every trick left.
"""

from __future__ import annotations

import pytest

from fivehundred.sim import Rules, State, first_legal, load_rules, play_out, settle
from tests.sim.helpers import PAGAT, act, build

VALUES = {
    6: (40, 60, 80, 100, 120),
    7: (140, 160, 180, 200, 220),
    8: (240, 260, 280, 300, 320),
    9: (340, 360, 380, 400, 420),
    10: (440, 460, 480, 500, 520),
}


def k_trick_deal(rules: Rules, k: int, contract: str, declarer: int = 0) -> State:
    """Play out a deal in which the declarer's side takes exactly ``k`` tricks."""
    names = rules.deck.names
    if contract.endswith("S") and not contract.endswith("MIS"):
        top = "JS JC AS KS QS TS 9S 8S 7S 6S 5S".split()
    else:
        top = "AS KS QS JS TS 9S 8S 7S 6S 5S".split()
    hearts_low = "4H 5H 6H 7H 8H 9H TH JH QH KH AH".split()
    mine = top[:k] + hearts_low[: 10 - k]
    partner = "5D 6D 7D 8D 9D TD JD QD KD AD".split()
    kitty = ["JK", "4D", "5C"]
    used = set(mine) | set(partner) | set(kitty)
    hearts_high = [h for h in reversed(hearts_low) if h not in used]
    rest = hearts_high + [c for c in names if c not in used and c not in hearts_high]
    hands = [""] * 4
    hands[declarer] = " ".join(mine)
    hands[(declarer + 2) % 4] = " ".join(partner)
    hands[(declarer + 1) % 4] = " ".join(rest[:10])
    hands[(declarer + 3) % 4] = " ".join(rest[10:])
    s = build(rules, hands, " ".join(kitty))
    s.force_contract(contract, declarer)
    act(s, "JK 4D 5C")
    play_out(s, first_legal)
    assert s.declarer_tricks() == (k if not s.contract.misere else min(k, 1))
    return s


# ---------------------------------------------------------------- 4. Contract values


def test_s4_contract_values_table() -> None:
    for tricks, row in VALUES.items():
        for suit, points in zip(("S", "C", "D", "H", "NT"), row, strict=True):
            bid = PAGAT.bid(f"{tricks}{suit}")
            assert bid.points == points and bid.tricks == tricks
    assert PAGAT.bid("MIS").points == 250 and PAGAT.bid("OMIS").points == 500


def test_s4_score_is_shared_by_partners() -> None:
    for declarer in range(4):
        s = k_trick_deal(PAGAT, 7, "7NT", declarer)
        team = declarer % 2
        assert s.score_delta[team] == 220 and s.score_delta[1 - team] == 30
        assert len(s.score_delta) == 2


# ---------------------------------------------------------------- 9. Scoring


@pytest.mark.parametrize("k", [7, 8, 9])
def test_s9_made_contract_scores_its_value_without_overtricks(k: int) -> None:
    s = k_trick_deal(PAGAT, k, "7NT")
    assert s.score_delta == [220, 10 * (10 - k)] and s.made()


@pytest.mark.parametrize("k", [0, 3, 6])
def test_s9_failed_contract_loses_its_value(k: int) -> None:
    s = k_trick_deal(PAGAT, k, "7NT")
    assert s.score_delta == [-220, 10 * (10 - k)] and not s.made()


@pytest.mark.parametrize(
    ("contract", "expected"),
    [("6NT", 250), ("7NT", 250), ("6S", 250), ("8S", 250), ("9S", 340), ("8NT", 320), ("10NT", 520)],
)
def test_s9_slam_floor(contract: str, expected: int) -> None:
    s = k_trick_deal(PAGAT, 10, contract)
    assert s.score_delta == [expected, 0]


def test_s9_nine_tricks_is_not_a_slam() -> None:
    assert k_trick_deal(PAGAT, 9, "6NT").score_delta == [120, 10]


@pytest.mark.parametrize("k", [0, 2, 5, 6, 10])
def test_s9_defenders_score_ten_a_trick_made_or_failed(k: int) -> None:
    s = k_trick_deal(PAGAT, k, "6NT")
    assert s.score_delta[1] == 10 * (10 - k) == PAGAT.defender_points(10 - k)


@pytest.mark.parametrize(("contract", "points"), [("MIS", 250), ("OMIS", 500)])
def test_s9_misere_made(contract: str, points: int) -> None:
    s = k_trick_deal(PAGAT, 0, contract)
    assert len(s.trick_winners) == 10 and len(s.plays) == 30
    assert s.score_delta == [points, 0]


@pytest.mark.parametrize(("contract", "points"), [("MIS", 250), ("OMIS", 500)])
def test_s9_misere_failed_and_stopped(contract: str, points: int) -> None:
    s = k_trick_deal(PAGAT, 3, contract)
    assert s.trick_winners == [0]  # stopped at the first trick the declarer won
    assert s.score_delta == [-points, 0]


# ---------------------------------------------------------------- 10. End of the game


def test_s10_minus_500_loses_at_once_going_out_backwards() -> None:
    failed = k_trick_deal(PAGAT, 5, "7NT")  # team 0: -220, team 1: +50
    _, new, over, winner, reason = settle(PAGAT, [-280, 300], failed)
    assert new == [-500, 350] and over and winner == 1 and reason == "fell_to_-500"
    _, new, over, _, _ = settle(PAGAT, [-270, 300], failed)
    assert new == [-490, 350] and not over


def test_s10_win_at_500_through_own_contract() -> None:
    made = k_trick_deal(PAGAT, 7, "7NT")
    _, new, over, winner, reason = settle(PAGAT, [280, 0], made)
    assert new == [500, 30] and over and winner == 0 and reason == "reached_500"
    _, new, over, _, _ = settle(PAGAT, [270, 0], made)
    assert new == [490, 30] and not over


def test_s10_team_past_500_on_defence_does_not_win() -> None:
    made_by_1 = k_trick_deal(PAGAT, 7, "7NT", declarer=1)  # team 1 makes 220, team 0 defends with 30
    _, new, over, winner, _ = settle(PAGAT, [490, 0], made_by_1)
    assert new == [520, 220] and not over and winner is None
    failed_by_1 = k_trick_deal(PAGAT, 2, "7NT", declarer=3)  # team 0 defends with 80
    _, new, over, _, _ = settle(PAGAT, [520, 100], failed_by_1)
    assert new == [600, -120] and not over
    # the team past 500 then wins with a contract of its own, however small
    _, new, over, winner, _ = settle(PAGAT, [600, -120], k_trick_deal(PAGAT, 6, "6S"))
    assert new == [640, -80] and over and winner == 0


def test_s10_failed_contract_never_wins() -> None:
    failed = k_trick_deal(PAGAT, 5, "6NT")
    _, new, over, _, _ = settle(PAGAT, [700, 0], failed)  # still >= 500, but from a failed contract
    assert new == [580, 50] and not over


def test_s10_no_defensive_cap_by_default() -> None:
    failed_by_1 = k_trick_deal(PAGAT, 0, "7NT", declarer=1)  # team 0 defends with all ten tricks
    delta, new, over, _, _ = settle(PAGAT, [480, 0], failed_by_1)
    assert delta == [100, -220] and new == [580, -220] and not over


def test_s10_misere_made_can_win() -> None:
    s = k_trick_deal(PAGAT, 0, "MIS", declarer=1)
    _, new, over, winner, _ = settle(PAGAT, [100, 300], s)
    assert new == [100, 550] and over and winner == 1


# ---------------------------------------------------------------- 11. Scoring switches


def test_s11_slam_floor_off() -> None:
    r = load_rules("pagat-au", overrides={"scoring.slam_floor": False})
    assert k_trick_deal(r, 10, "6NT").score_delta == [120, 0]
    assert k_trick_deal(r, 10, "8S").score_delta == [240, 0]


def test_s11_overtricks_ten_each() -> None:
    r = load_rules("pagat-au", overrides={"scoring.overtrick_points": 10})
    assert k_trick_deal(r, 9, "7NT").score_delta == [240, 10]
    assert k_trick_deal(r, 7, "7NT").score_delta == [220, 30]
    assert k_trick_deal(r, 6, "7NT").score_delta == [-220, 40]
    assert k_trick_deal(r, 10, "6NT").score_delta == [250, 0]  # 160 with overtricks, still floored
    assert k_trick_deal(r, 10, "9NT").score_delta == [430, 0]


def test_s11_north_american_scoring_profile() -> None:
    r = load_rules("north-american")
    assert k_trick_deal(r, 10, "6NT").score_delta == [160, 0]  # overtricks, no slam floor
    failed = k_trick_deal(r, 0, "10NT")
    _, new, over, _, _ = settle(r, [-400, 0], failed)
    assert new == [-920, 100] and not over  # no loss at -500


def test_s11_lose_at_minus_500_off_plays_on_until_500() -> None:
    r = load_rules("pagat-au", overrides={"scoring.lose_at_minus_500": False})
    failed = k_trick_deal(r, 5, "7NT")
    _, new, over, winner, _ = settle(r, [-400, 460], failed)
    assert new == [-620, 510] and not over and winner is None  # defence still never wins
    _, new, over, winner, _ = settle(r, [-620, 480], k_trick_deal(r, 6, "6S", declarer=1))
    assert new == [-580, 520] and over and winner == 1


def test_s11_defensive_cap_490() -> None:
    r = load_rules("pagat-au", overrides={"scoring.defensive_cap": 490})
    failed_by_1 = k_trick_deal(r, 0, "7NT", declarer=1)  # team 0 defends with 100
    assert settle(r, [480, 0], failed_by_1)[:2] == ([10, -220], [490, -220])
    assert settle(r, [490, 0], failed_by_1)[:2] == ([0, -220], [490, -220])
    assert settle(r, [300, 0], failed_by_1)[:2] == ([100, -220], [400, -220])
    assert settle(r, [520, 0], failed_by_1)[:2] == ([0, -220], [520, -220])  # already above: no gain
    # the declaring side is never capped
    made = k_trick_deal(r, 7, "7NT")
    assert settle(r, [480, 480], made)[:5] == ([220, 10], [700, 490], True, 0, "reached_500")


@pytest.mark.parametrize(("k", "delta"), [(0, [500, 0]), (4, [-500, 0])])
def test_s11_nullo_values(k: int, delta: list[int]) -> None:
    r = load_rules("nullo")
    assert r.bid("MIS").points == 500 and "OMIS" not in r.bid_index
    assert k_trick_deal(r, k, "MIS").score_delta == delta


@pytest.mark.parametrize(("k", "delta"), [(0, [500, 0]), (4, [-500, 0])])
def test_s11_blind_misere_worth_500(k: int, delta: list[int]) -> None:
    r = load_rules("club-004")
    s = k_trick_deal(r, k, "BMIS")
    assert s.contract.misere and s.contract.blind and s.score_delta == delta
    assert len(s.plays) == 3 * len(s.trick_winners)  # the partner sits out as in any misère


@pytest.mark.parametrize(
    "overrides",
    [{}, {"scoring.overtrick_points": 10}, {"scoring.slam_floor": False}, {"bidding.misere_values": "nullo"}],
)
@pytest.mark.parametrize("contract", ["6S", "7NT", "9S", "10NT", "MIS"])  # k_trick_deal: spades or NT
def test_s9_declarer_points_is_what_the_engine_scores(overrides: dict, contract: str) -> None:
    """``Rules.declarer_points`` (used by ``fivehundred hand``) for every number of tricks, against
    the score of a deal played out to that many tricks."""
    r = load_rules("pagat-au", overrides=overrides or None)
    if contract not in r.bid_index:
        pytest.skip(f"no {contract} in this rule set")
    bid = r.bid(contract)
    for k in range(0, 11) if not bid.misere else (0, 1, 4):
        s = k_trick_deal(r, k, contract)
        assert r.declarer_points(bid, s.declarer_tricks()) == s.score_delta[0], (contract, k)


def test_defence_points_are_the_defenders_score_of_a_deal() -> None:
    """Against a suit or NT contract the defenders score 10 a trick, against a misère nothing: what
    the engine scores (the par reads them from the rules)."""
    assert PAGAT.defence_points(PAGAT.bid("8H"), 3) == PAGAT.defender_points(3) == 30
    assert PAGAT.defence_points(PAGAT.bid("MIS"), 10) == 0
    assert PAGAT.defence_points(PAGAT.bid("7NT"), 0) == 0
