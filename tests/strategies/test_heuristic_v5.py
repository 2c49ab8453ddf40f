"""heuristic.v5: the no-trump lead features read the position right, the shipped weights are whole,
the fit is deterministic, the weights choose the no-trump leads and every other decision is
heuristic.v4's."""

from __future__ import annotations

import json
import math

import pytest

from fivehundred.sim import PLAY, load_rules, play_game
from fivehundred.sim.engine import AUCTION, JOKER_LEAD, KITTY, NAME_NONE, State
from fivehundred.sim.game import decide, new_deal
from fivehundred.strategies.base import make
from fivehundred.strategies.calibrate_v5 import fit_leads, simulate_nt_leads
from fivehundred.strategies.heuristic5 import (
    NT_LEAD_FEATURES,
    ROLES,
    Heuristic5Strategy,
    NtLeadContext,
    lead_role,
    load_models,
    nt_candidates,
    nt_lead_features,
    weights,
)
from fivehundred.strategies.tables import card_info, rules_info

PAGAT = load_rules("pagat-au")
DECK = PAGAT.deck


def test_registered() -> None:
    bot = make("heuristic.v5(aggression=0.25)")
    assert isinstance(bot, Heuristic5Strategy) and bot.aggression == 0.25
    assert bot.reach == 0.5  # heuristic.v4's default


def _nt_deal() -> State:
    """Seat 0 declares 7NT (joker; AS KS QS 5S; AH KH 5H; 9D 4D), its kitty (5D 6D JD) thrown back
    and the joker left unnamed: its lead to the first trick is next."""
    hands = [
        DECK.mask("JK AS KS QS 5S AH KH 5H 9D 4D"),
        DECK.mask("6S 7S 8S 9S TS 5C 6C 7C 8C 9C"),
        DECK.mask("QH TH 9H 8H 4H AC KC QC JC TC"),
        DECK.mask("JS 6H 7H JH AD KD QD TD 8D 7D"),
    ]
    state = State(PAGAT, hands, DECK.mask("5D 6D JD"), 3)
    state.force_contract("7NT", 0)
    kitty = DECK.mask("5D 6D JD")
    while state.phase != PLAY:
        legal = state.legal_actions()
        state.apply(next(a for a in legal if kitty >> a & 1) if state.phase == KITTY else NAME_NONE)
    assert state.turn == 0
    return state


def test_nt_lead_features_read_the_position() -> None:
    state = _nt_deal()
    view, legal = state.view(0), state.legal_actions()
    ci = card_info(view.tables)
    full = rules_info(PAGAT).full
    cands = nt_candidates(make("heuristic.v5"), ci, full & ~view.hand & ~view.played, legal, view.hand)
    joker = [a for a in cands if a >= JOKER_LEAD]
    assert len(joker) == 1 and len(cands) == 7  # AS-KS-QS touch: one; 5S; AH-KH; 5H; 9D; 4D; the joker
    nc = NtLeadContext(view, ci, full)

    def f(action: int) -> dict[str, float]:
        return dict(zip(NT_LEAD_FEATURES, nt_lead_features(nc, action), strict=True))

    ace, five, nine = f(DECK.index["AS"]), f(DECK.index["5S"]), f(DECK.index["9D"])
    assert (ace["top"], ace["length"], ace["top_length"], ace["own_above"]) == (1, 4, 4, 0)
    assert ace["top_joker_out"] == 0  # the declarer holds the joker
    assert (five["top"], five["higher"], five["lowest"], five["suit_out"]) == (0, 6, 1, 6)  # 6S to JS unseen
    # The discards (5D 6D JD) are known to the declarer: TD-AD above the nine, 7D 8D below are unseen.
    assert (nine["higher"], nine["lower"], nine["doubleton"], nine["highest_of_long"]) == (4, 2, 1, 1)
    # Sure winners: the joker, AS KS QS, AH KH: six, short of the seven tricks needed.
    assert (ace["enough"], ace["top_enough"], ace["made"], ace["trick_no"]) == (0, 0, 0, 0)
    jk = f(joker[0])
    assert jk["joker"] == 1 and sum(jk.values()) == 1


def test_the_shipped_weights_are_whole() -> None:
    shape = load_models()["shapes"]["p4j1"]
    assert set(shape) == set(ROLES)
    for role in ROLES:
        w = shape[role]["weights"]
        assert len(w) == len(NT_LEAD_FEATURES) and all(math.isfinite(x) for x in w)
        assert shape[role]["decisions"] >= 1000  # fitted on a real run, not on a test input
    w5 = weights(PAGAT)
    assert w5 is not None and all(x is not None for x in w5.by_role)
    assert weights(load_rules("three-player")) is None


def test_lead_role() -> None:
    assert [ROLES[lead_role(s, 1, 2)] for s in range(4)] == [
        "nt_defender",
        "nt_declarer",
        "nt_defender",
        "nt_partner",
    ]


def test_the_fit_is_deterministic_and_fits_each_role() -> None:
    pytest.importorskip("numpy")
    sim = simulate_nt_leads(PAGAT, 40, 3, 2)
    assert sim and {r for r, _, _ in sim} <= set(ROLES)
    assert all(len(f) == len(NT_LEAD_FEATURES) for _, feats, _ in sim for f in feats)
    assert json.dumps(sim) == json.dumps(simulate_nt_leads(PAGAT, 40, 3, 2))
    rows = []
    for k in range(60):
        feats = [[float(i == k % 3)] + [0.0] * (len(NT_LEAD_FEATURES) - 1) for i in range(3)]
        rows.append(("nt_partner", feats, [12.0 * f[0] + k for f in feats]))
    fitted = fit_leads(rows, ridge=1e-6, roles=ROLES)
    assert set(fitted) == {"nt_partner"}
    assert fitted["nt_partner"]["weights"][0] == pytest.approx(12.0, abs=1e-3)


def _forced_nt(d: int) -> State:
    """Deal ``d`` of seed 9 with 7NT forced on a seat (every deal has no-trump leads)."""
    state, _ = new_deal(PAGAT, 9, d, d % 4)
    assert state.phase == AUCTION
    state.force_contract("7NT", d % 4)
    return state


def test_the_weights_choose_nt_leads_and_v4_the_rest() -> None:
    """A lead in no-trumps with two or more candidates is the first candidate of best score; every
    other decision is heuristic.v4's."""
    bot, v4, v1 = Heuristic5Strategy(), make("heuristic.v4"), make("heuristic.v1")
    w = weights(PAGAT)
    assert w is not None
    full = rules_info(PAGAT).full
    scored = same = 0
    for d in range(8):
        state = _forced_nt(d) if d < 5 else new_deal(PAGAT, 9, d, d % 4)[0]
        bots = [bot, v1, bot, v1]
        while not state.done:
            seat = state.turn
            got = decide(bots[seat], state, None)
            if bots[seat] is bot:
                view, legal = state.view(seat), state.legal_actions()
                contract = view.contract
                nt_lead = (
                    state.phase == PLAY and contract.trump == 4 and not contract.misere and view.led_suit < 0
                )
                ci = card_info(view.tables) if nt_lead else None
                outside = full & ~view.hand & ~view.played
                cands = nt_candidates(bot, ci, outside, legal, view.hand) if ci else []
                if len(cands) > 1:
                    ws = w.by_role[lead_role(seat, view.declarer, 2)]
                    nc = NtLeadContext(view, ci, full)
                    feats = [nt_lead_features(nc, c) for c in cands]
                    scores = [sum(a * b for a, b in zip(ws, f, strict=True)) for f in feats]
                    assert got == cands[scores.index(max(scores))]
                    scored += got != decide(v4, state, None)
                else:
                    assert got == decide(v4, state, None)
                    same += 1
            state.apply(got)
    assert scored > 0 and same > 0


@pytest.mark.parametrize("variant", ["pagat-au", "two-jokers"])
def test_plays_whole_reproducible_games(variant: str) -> None:
    rules = load_rules(variant)
    bots = [make("heuristic.v5" if s % 2 == 0 else "heuristic") for s in range(rules.players)]
    first = [play_game(rules, bots, 11, g) for g in range(2)]
    assert first == [play_game(rules, bots, 11, g) for g in range(2)]


def test_without_weights_it_plays_as_heuristic_v4() -> None:
    rules = load_rules("three-player")
    v5 = play_game(rules, [make("heuristic.v5") for _ in range(3)], 4, 0)
    v4 = play_game(rules, [make("heuristic.v4") for _ in range(3)], 4, 0)
    assert [r["plays"] for r in v5] == [r["plays"] for r in v4]
