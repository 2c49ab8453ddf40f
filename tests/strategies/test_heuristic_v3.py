"""heuristic.v3: the hand's features read the cards right, the shipped models are whole and sensible, a
fit is deterministic and finds the effect in its data, the models' values replace the table's, and
where no model is fitted the bot bids as heuristic.v2."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest

from fivehundred.sim import PLAY, load_rules, play_game
from fivehundred.strategies.base import StrategyConfigError, make
from fivehundred.strategies.calibrate_v3 import fit, logistic, simulate
from fivehundred.strategies.heuristic2 import calibration
from fivehundred.strategies.heuristic3 import (
    FEATURES,
    KINDS,
    LEAD_FEATURES,
    THRESHOLDS,
    Heuristic3Strategy,
    Model,
    load_models,
    misere_features,
    models,
    nt_features,
    suit_features,
)
from fivehundred.strategies.tables import rules_info

PAGAT = load_rules("pagat-au")


def test_registered_with_its_parameters() -> None:
    bot = make("heuristic.v3(reach=0.5, aggression=0.25)")
    assert isinstance(bot, Heuristic3Strategy) and (bot.reach, bot.aggression) == (0.5, 0.25)
    assert bot.misere_competes and not make("heuristic.v3(misere_competes=False)").misere_competes
    assert make("heuristic").name == "heuristic.v1"  # a bare name keeps its first version
    with pytest.raises(StrategyConfigError, match="reach"):
        make("heuristic.v3(reach=4)")


def test_suit_features_read_the_hand() -> None:
    info = rules_info(PAGAT)
    # Hearts trumps: JK, JH (right bower), JD (left bower), AH and 5H; side AS, KS QS; void in clubs.
    hand = PAGAT.deck.mask("JK JH JD AH 5H AS KS QS 9D 4D")
    f = dict(zip(FEATURES["suit"], suit_features(info, hand, 3, 7.5), strict=True))
    assert f["estimate"] == 7.5 and f["trumps"] == 5 and f["trumps6"] == 0
    assert [f[f"top{i}"] for i in range(1, 7)] == [1, 1, 1, 1, 0, 0]
    assert (f["side_aces"], f["side_kings"], f["voids"], f["singletons"], f["long_side"]) == (1, 1, 1, 0, 3)


def test_nt_and_misere_features_read_the_hand() -> None:
    info = rules_info(PAGAT)
    hand = PAGAT.deck.mask("JK AS KS AH QH 5H 4H 4D 5D 6D")
    nt = dict(zip(FEATURES["nt"], nt_features(info, hand, 6.0, 3), strict=True))
    assert (nt["jokers"], nt["aces"], nt["kings"], nt["queens"]) == (1, 2, 1, 1)
    assert (nt["longest"], nt["voids"], nt["short"], nt["stoppers"]) == (4, 1, 0, 3)
    low = PAGAT.deck.mask("5S 6S 5C 6C 4D 5D 4H 5H AH 6H")
    mis = dict(zip(FEATURES["mis"], misere_features(info, low, 1.0), strict=True))
    # AH is the one high card (top three of hearts), with 4H, 5H, 6H under it: not bare; the low
    # cards are the bottom three of each suit (5S 6S, 5C 6C, 4D 5D, 4H 5H 6H).
    assert (mis["high"], mis["bare_high"], mis["low"], mis["voids"], mis["longest"]) == (1, 0, 9, 0, 4)


def test_the_shipped_models_are_whole_and_sensible() -> None:
    shape = load_models()["shapes"]["p4j1"]
    for kind in KINDS:
        spec = shape[kind]
        assert spec["features"] == list(FEATURES[kind])
        assert spec["observations"] >= 10_000  # fitted on a real run, not on a test input
        weights = spec.get("made") or [w for row in spec["at_least"] for w in row]
        assert all(math.isfinite(w) for w in weights)
    assert len(shape["misere_lead"]["weights"]) == len(LEAD_FEATURES)
    assert shape["misere_lead"]["decisions"] >= 1000
    m = models(PAGAT)
    assert m is not None
    suit = m.get("suit")
    assert suit is not None
    info = rules_info(PAGAT)
    hand = PAGAT.deck.mask("JK JH JD AH 5H AS KS QS 9D 4D")
    weak, strong = suit.row(suit_features(info, hand, 3, 6.0)), suit.row(suit_features(info, hand, 3, 8.0))
    assert all(a <= b for a, b in zip(weak[:5], strong[:5], strict=True))  # a higher estimate is worth more
    assert all(x >= y for x, y in itertools.pairwise(strong[:5]))  # at least 6 >= at least 7 ...
    assert models(load_rules("three-player")) is None  # no model fitted for that table shape


def test_logistic_finds_the_effect_and_the_fit_is_deterministic() -> None:
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4000, 2))
    y = (rng.random(4000) < 1 / (1 + np.exp(-(1.5 * x[:, 0] - 0.5)))).astype(float)
    w = logistic(x, y, ridge=0.0)
    assert w[0] == pytest.approx(1.5, abs=0.15) and abs(w[1]) < 0.15 and w[2] == pytest.approx(-0.5, abs=0.15)
    obs = simulate(PAGAT, 300, 3, Heuristic3Strategy)
    assert {k for k, _, _ in obs} == set(KINDS)
    assert json.dumps(fit(obs), sort_keys=True) == json.dumps(fit(list(obs)), sort_keys=True)
    one = fit(obs)["suit"]
    assert len(one["at_least"]) == len(THRESHOLDS) and len(one["tricks"]) == len(FEATURES["suit"]) + 1


def test_the_models_value_the_contracts() -> None:
    """The bot's row and misère rate are the models' (not the table's) where a model is fitted."""
    bot = Heuristic3Strategy()
    info = rules_info(PAGAT)
    cal = calibration(PAGAT)
    m = models(PAGAT)
    assert m is not None
    hand = PAGAT.deck.mask("JK JH JD AH 5H AS KS QS 9D 4D")
    want = m.get("suit").row(suit_features(info, hand, 3, 7.0))  # type: ignore[union-attr]
    assert bot._row(0, hand, info, cal, 3, 7.0) == pytest.approx(want)
    assert bot._row(0, hand, info, cal, 3, 7.0) != pytest.approx(cal.row(False, 5, 7.0))
    low = PAGAT.deck.mask("5S 6S 5C 6C 4D 5D 4H 5H AH 6H")
    rate = bot._misere_made(low, info, cal, True, 1.0)
    assert rate == pytest.approx(m.get("omis").made_rate(misere_features(info, low, 1.0)))  # type: ignore[union-attr]
    assert 0 < rate < 1


def test_without_a_model_it_bids_as_heuristic_v2() -> None:
    """Where no model is fitted (the three-player table) the models' values are the table's: with
    misère competing off (v3's one other change to the auction) its games are v2's."""
    rules = load_rules("three-player")
    for g in range(3):
        v3 = play_game(rules, [make("heuristic.v3(misere_competes=False)") for _ in range(3)], 4, g)
        v2 = play_game(rules, [make("heuristic.v2") for _ in range(3)], 4, g)
        assert [r["bids"] for r in v3] == [r["bids"] for r in v2]
        assert [r["plays"] for r in v3] == [r["plays"] for r in v2]


@pytest.mark.parametrize("variant", ["pagat-au", "club-004", "two-jokers"])
def test_plays_whole_reproducible_games(variant: str) -> None:
    rules = load_rules(variant)
    bots = [make("heuristic.v3" if s % 2 == 0 else "heuristic") for s in range(rules.players)]
    first = [play_game(rules, bots, 11, g) for g in range(3)]
    assert first == [play_game(rules, bots, 11, g) for g in range(3)]
    assert any(r["contract"] for game in first for r in game)


def test_a_model_row_is_monotone_whatever_the_weights() -> None:
    rng = random.Random(2)
    k = len(FEATURES["suit"])
    spec = {
        "mean": [0.0] * k,
        "scale": [1.0] * k,
        "at_least": [[rng.uniform(-2, 2) for _ in range(k + 1)] for _ in THRESHOLDS],
        "tricks": [0.0] * (k + 1),
    }
    row = Model(spec).row([rng.uniform(-1, 1) for _ in range(k)])
    assert all(a >= b for a, b in itertools.pairwise(row[:5]))


def test_a_misere_competes_over_an_opponents_contract() -> None:
    """Over an opponent's contract v3 sometimes calls a misère worth less than nothing but more than
    passing; with ``misere_competes`` off it never calls a misère worth less than nothing."""
    from fivehundred.sim.engine import AUCTION, BID, PASS
    from fivehundred.sim.game import new_deal

    on, off = make("heuristic.v3"), make("heuristic.v3(misere_competes=False)")
    ladder = PAGAT.ladder
    differ = 0
    for d in range(300):
        state, _ = new_deal(PAGAT, 9, d, d % 4)
        while state.phase == AUCTION:
            view, legal = state.view(state.turn), state.legal_actions()
            a, b = on.bid(view, legal, None), off.bid(view, legal, None)
            if a != b:
                differ += 1
                assert a != PASS and ladder[a - BID].misere  # the difference is a competing misère
                assert view.high_bid is not None and view.high_bidder % 2 != view.seat % 2
            state.apply(b)
    assert differ > 0


def _forced_misere(code: str, deal: int):  # type: ignore[no-untyped-def]
    """A pagat-au deal with ``code`` forced on its seat of least misère risk, the kitty exchanged by
    heuristic.v3: the declarer's first lead is next."""
    from fivehundred.sim.engine import KITTY
    from fivehundred.sim.game import new_deal

    bot = Heuristic3Strategy()
    info = rules_info(PAGAT)
    state, _ = new_deal(PAGAT, 21, deal, deal % 4)
    seat = min(range(4), key=lambda s: bot._misere_risk(s, state.hands[s], info))
    state.force_contract(code, seat)
    while state.phase == KITTY:
        state.apply(bot.discard(state.view(seat), state.legal_actions(), None))
    return state


def test_the_misere_first_lead_is_the_models_pick() -> None:
    """The misère declarer's first lead is the candidate of best first-lead score (heuristic.v2's card
    unless another scores more); the rest of the play is heuristic.v2's."""
    from fivehundred.sim.engine import JOKER_LEAD
    from fivehundred.strategies.heuristic3 import lead_features
    from fivehundred.strategies.sampling import distinct_actions
    from fivehundred.strategies.tables import card_info

    m = models(PAGAT)
    assert m is not None and m.misere_lead is not None
    bot, v2 = Heuristic3Strategy(), make("heuristic.v2")
    info = rules_info(PAGAT)
    moved = later = 0
    for d in range(12):
        state = _forced_misere(("MIS", "OMIS")[d % 2], d)
        view, legal = state.view(state.turn), state.legal_actions()
        got, base = bot.play(view, legal, None), v2.play(view, legal, None)
        ci = card_info(view.tables)
        unseen = info.full & ~view.hand & ~view.discards & ~view.played
        cands = [a for a in distinct_actions(view, legal) if a < JOKER_LEAD]
        score = {a: m.misere_lead.score(lead_features(info, ci, view.hand, unseen, a)) for a in cands}
        if got != base:
            assert got in cands and score[got] == max(score.values())
            moved += 1
        state.apply(got)
        while state.phase == PLAY:  # every later card is heuristic.v2's
            view, legal = state.view(state.turn), state.legal_actions()
            card = bot.play(view, legal, None)
            assert card == v2.play(view, legal, None)
            state.apply(card)
            later += 1
    assert moved > 0 and later > 0
