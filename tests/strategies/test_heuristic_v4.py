"""heuristic.v4: the lead and follow features read the position right, the shipped weights are whole,
the fit is deterministic and finds the effect in its data, the weights choose the cards of the roles
they were fitted for, and every other decision is heuristic.v3's."""

from __future__ import annotations

import json
import math

import pytest

from fivehundred.sim import PLAY, load_rules, play_game
from fivehundred.sim.engine import KITTY, State
from fivehundred.sim.game import decide, new_deal
from fivehundred.strategies.base import make
from fivehundred.strategies.calibrate_v4 import SHIPPED_ROLES, fit_leads, simulate_leads
from fivehundred.strategies.heuristic4 import (
    FOLLOW_FEATURES,
    LEAD_FEATURES,
    ROLES,
    FollowContext,
    Heuristic4Strategy,
    LeadContext,
    follow_features,
    lead_features,
    load_models,
    role_index,
    weights,
)
from fivehundred.strategies.sampling import distinct_actions, distinct_cards
from fivehundred.strategies.tables import card_info, rules_info
from tests.strategies.helpers import decision_points

PAGAT = load_rules("pagat-au")
DECK = PAGAT.deck


def test_registered() -> None:
    bot = make("heuristic.v4(aggression=0.25)")
    assert isinstance(bot, Heuristic4Strategy) and bot.aggression == 0.25
    assert bot.reach == 0.5 and make("heuristic.v4(reach=0)").reach == 0.0  # v3's default is 0
    assert make("heuristic.v3").reach == 0.0
    assert make("heuristic").name == "heuristic.v1"  # a bare name keeps its first version


def _hearts_deal() -> State:
    """Seat 0 declares 6 hearts (joker, both bowers, AH 5H; AS KS QS; 9D 4D), its kitty (5D 6D 7D)
    thrown back: its lead to the first trick is next."""
    hands = [
        DECK.mask("JK JH JD AH 5H AS KS QS 9D 4D"),
        DECK.mask("5S 6S 7S 8S 9S TS 5C 6C 7C 8C"),
        DECK.mask("KH QH TH 9H AC KC QC JC TC 9C"),
        DECK.mask("JS 4H 6H 7H 8H AD KD QD TD 8D"),
    ]
    state = State(PAGAT, hands, DECK.mask("5D 6D 7D"), 3)
    state.force_contract("6H", 0)
    while state.phase == KITTY:
        state.apply(_next_kitty(state))
    assert state.phase == PLAY and state.turn == 0
    return state


def _next_kitty(state: State) -> int:
    for name in ("5D", "6D", "7D"):
        c = DECK.index[name]
        if c in state.legal_actions():
            return c
    raise AssertionError("the kitty cards are not in the declarer's hand")


def _features(state: State, names: tuple[str, ...]) -> dict[str, list[float]]:
    view = state.view(state.turn)
    ctx = LeadContext(view, card_info(view.tables), rules_info(PAGAT).full)
    if view.led_suit < 0:
        return {n: lead_features(ctx, DECK.index[n], -1) for n in names}
    fc = FollowContext(ctx, view, state.legal_actions())
    return {n: follow_features(ctx, fc, DECK.index[n], -1) for n in names}


def test_lead_features_read_the_position() -> None:
    state = _hearts_deal()
    f = {
        n: dict(zip(LEAD_FEATURES, v, strict=True))
        for n, v in _features(state, ("JK", "5H", "AS", "QS", "9D")).items()
    }
    # Eight trumps are out (13 hearts with the joker and both bowers; the declarer holds five).
    assert (f["JK"]["trump"], f["JK"]["trump_top"], f["JK"]["trump_top_out"], f["JK"]["trumps_out"]) == (
        1,
        1,
        1,
        8,
    )
    assert (f["5H"]["trump_top"], f["5H"]["trump_low_out"]) == (0, 1)
    assert (f["AS"]["side_top"], f["AS"]["side_top_out"], f["AS"]["side_length"], f["AS"]["side_lower"]) == (
        1,
        1,
        3,
        7,
    )
    assert (f["QS"]["side_higher"], f["QS"]["side_own_above"], f["QS"]["side_lowest"]) == (0, 2, 1)
    assert (f["9D"]["side_higher"], f["9D"]["side_doubleton"], f["9D"]["side_lowest"], f["9D"]["trump"]) == (
        4,
        1,
        0,
        0,
    )
    assert all(v == 0 for v in (f["AS"]["default"], f["AS"]["made"], f["AS"]["side_opp_void"]))


def test_follow_features_read_the_trick() -> None:
    state = _hearts_deal()
    state.apply(DECK.index["AS"])
    f1 = {n: dict(zip(FOLLOW_FEATURES, v, strict=True)) for n, v in _features(state, ("5S", "TS")).items()}
    assert f1["5S"]["beats"] == 0 and f1["TS"]["loser_higher"] == 3  # JS, QS, KS unseen above it
    state.apply(DECK.index["5S"])
    # The partner, void in spades: ruffing its partner's ace overtakes it; clubs are a discard.
    f2 = {
        n: dict(zip(FOLLOW_FEATURES, v, strict=True)) for n, v in _features(state, ("KH", "9H", "9C")).items()
    }
    kh, nine_c = f2["KH"], f2["9C"]
    assert (kh["beats"], kh["overtakes"], kh["ruff"], kh["ruff_overruffable"], kh["third_beats"]) == (
        1,
        1,
        1,
        1,
        1,
    )
    assert (kh["cheapest_winner"], f2["9H"]["cheapest_winner"], kh["overtakes_sure"]) == (0, 1, 0)
    assert (nine_c["beats"], nine_c["discard_length"], nine_c["discard_top"], nine_c["trump"]) == (0, 6, 1, 0)


def test_the_shipped_weights_are_whole() -> None:
    shape = load_models()["shapes"]["p4j1"]
    assert set(shape) == set(SHIPPED_ROLES) and set(SHIPPED_ROLES) <= set(ROLES)
    for role in SHIPPED_ROLES:
        n = len(FOLLOW_FEATURES if "_follow" in role else LEAD_FEATURES)
        assert len(shape[role]["weights"]) == n and all(math.isfinite(w) for w in shape[role]["weights"])
        assert shape[role]["decisions"] >= 5000  # fitted on a real run, not on a test input
    w = weights(PAGAT)
    assert w is not None and [r for r, x in zip(ROLES, w.by_role, strict=True) if x] == list(SHIPPED_ROLES)
    assert weights(load_rules("three-player")) is None


def test_the_fit_finds_the_effect_and_is_deterministic() -> None:
    pytest.importorskip("numpy")
    # Values made of 10 points for the first feature and 4 against the third, per decision.
    rows = []
    for k in range(300):
        feats = [[float((k + i) % 2), float(i), float((k * i) % 3)] for i in range(3)]
        rows.append(("partner", feats, [10 * f[0] - 4 * f[2] + 7 * k for f in feats]))
    w = fit_leads(rows, ridge=0.0)["partner"]["weights"]
    assert w == pytest.approx([10.0, 0.0, -4.0], abs=1e-6)
    sim = simulate_leads(PAGAT, 16, 5, 2, roles=("partner", "partner_follow2"))
    assert sim and {r for r, _, _ in sim} == {"partner", "partner_follow2"}
    assert json.dumps(sim) == json.dumps(
        simulate_leads(PAGAT, 16, 5, 2, roles=("partner", "partner_follow2"))
    )


def _role(state: State) -> str:
    view = state.view(state.turn)
    return ROLES[role_index(state.turn, view.declarer, 2, len(view.trick))]


def test_role_index() -> None:
    assert [ROLES[role_index(s, 1, 2, 0)] for s in range(4)] == [
        "defender",
        "declarer",
        "defender",
        "partner",
    ]
    assert (
        ROLES[role_index(3, 1, 2, 1)] == "partner_follow1"
        and ROLES[role_index(1, 2, 2, 3)] == "defender_follow3"
    )
    assert ROLES[role_index(1, 1, 2, 2)] == "declarer_follow2"


def test_the_weights_choose_their_roles_cards_and_v3_the_rest() -> None:
    """A decision of a role with weights plays the first distinct card of best score (heuristic.v3's
    card when every legal card is the same choice); every other decision is heuristic.v3's with
    v4's reach."""
    bot, v3, v1 = Heuristic4Strategy(), make("heuristic.v3(reach=0.5)"), make("heuristic.v1")
    w = weights(PAGAT)
    assert w is not None
    full = rules_info(PAGAT).full
    scored = same = 0
    for d in range(6):
        state, _ = new_deal(PAGAT, 9, d, d % 4)
        bots = [bot, v1, bot, v1]
        while not state.done:
            seat = state.turn
            got = decide(bots[seat], state, None)
            if bots[seat] is bot:
                view, legal = state.view(seat), state.legal_actions()
                base = decide(v3, state, None)
                contract = view.contract
                role = _role(state) if state.phase == PLAY and contract and not contract.misere else ""
                cands = distinct_actions(view, legal) if role else []
                if role in SHIPPED_ROLES and contract.trump < 4 and len(cands) > 1:
                    weights_ = w.by_role[ROLES.index(role)]
                    assert weights_ is not None
                    ctx = LeadContext(view, card_info(view.tables), full, view.led_suit < 0)
                    fc = FollowContext(ctx, view, legal) if view.led_suit >= 0 else None
                    scores = [
                        weights_.score(follow_features(ctx, fc, a, -1) if fc else lead_features(ctx, a, -1))
                        for a in cands
                    ]
                    assert got == cands[scores.index(max(scores))]
                    scored += got != base
                else:
                    assert got == base
                    same += 1
            state.apply(got)
    assert scored > 0 and same > 0


@pytest.mark.parametrize("variant", ["pagat-au", "two-jokers"])
def test_plays_whole_reproducible_games(variant: str) -> None:
    rules = load_rules(variant)
    bots = [make("heuristic.v4" if s % 2 == 0 else "heuristic") for s in range(rules.players)]
    first = [play_game(rules, bots, 11, g) for g in range(2)]
    assert first == [play_game(rules, bots, 11, g) for g in range(2)]


def test_without_weights_it_plays_as_heuristic_v3() -> None:
    rules = load_rules("three-player")
    v4 = play_game(rules, [make("heuristic.v4") for _ in range(3)], 4, 0)
    v3 = play_game(rules, [make("heuristic.v3(reach=0.5)") for _ in range(3)], 4, 0)
    assert [r["plays"] for r in v4] == [r["plays"] for r in v3]


def test_distinct_cards_are_the_samplers_distinct_actions() -> None:
    """The bot's own merge of touching cards gives distinct_actions's list, in its order."""
    checked = 0
    for state in decision_points(PAGAT, 13, deals=8):
        if state.phase != PLAY or state.contract is None or state.contract.trump >= 4:
            continue
        view, legal = state.view(state.turn), state.legal_actions()
        outside = rules_info(PAGAT).full & ~view.hand & ~view.played
        assert distinct_cards(card_info(view.tables), outside, legal) == distinct_actions(view, legal)
        checked += len(legal) > 2
    assert checked > 20
