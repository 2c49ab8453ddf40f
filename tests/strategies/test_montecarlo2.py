"""``montecarlo.v2``: v1's search on ``heuristic.v2``, its auction inference, and v1 left unchanged."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.engine import JOKER, KITTY, NAME_NONE, PLAY
from fivehundred.sim.game import new_deal
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import StrategyConfigError, describe_params, label, make, resolve
from fivehundred.strategies.heuristic import HeuristicStrategy
from fivehundred.strategies.heuristic2 import Heuristic2Strategy
from fivehundred.strategies.montecarlo import MonteCarlo2Strategy, MonteCarloStrategy
from fivehundred.strategies.sampling import played_by
from tests.cli.helpers import in_process
from tests.strategies.helpers import decision_points

#: The five tables every bot must play.
TABLES = ["pagat-au", "club-004", "three-player", "six-player", "two-jokers"]


def _game(spec: str, variant: str, master_seed: int, game: int) -> list[dict]:
    """One whole game: ``spec`` in the first team's seats, ``heuristic`` in the others."""
    rules = load_rules(variant)
    bots = [make(spec) if s % rules.teams == 0 else make("heuristic") for s in range(rules.players)]
    return play_game(rules, bots, master_seed, game)


def _digest(records: list[dict]) -> str:
    return hashlib.sha256(json.dumps(records, sort_keys=True, default=str).encode()).hexdigest()[:16]


#: Hashes of montecarlo.v1 games measured on main (23e1b26) before montecarlo.v2 shared its code.
V1_GAMES = {
    "pagat-au": "20342bfc7085cd2a",
    "three-player": "a1760ef34e34ac4b",
    "two-jokers": "d06bf596d0f7e259",
}


@pytest.mark.parametrize("variant", sorted(V1_GAMES))
def test_montecarlo_v1_games_are_unchanged(variant: str) -> None:
    assert _digest(_game("montecarlo.v1(samples=6)", variant, 41, 0)) == V1_GAMES[variant]


def test_bare_montecarlo_means_v1() -> None:
    """Like ``heuristic``, the bare family name stays pinned to v1 (configs and tests name it bare)."""
    assert resolve("montecarlo")[0] == "montecarlo.v1"
    assert type(make("montecarlo")) is MonteCarloStrategy
    assert label("montecarlo(samples=3)") == "montecarlo.v1(samples=3)"
    assert label("montecarlo.v2") == "montecarlo.v2"
    v1, v2 = make("montecarlo"), make("montecarlo.v2")
    assert type(v1.base) is HeuristicStrategy and v1.policy.name == "heuristic.v1"
    assert isinstance(v2, MonteCarlo2Strategy) and type(v2.base) is Heuristic2Strategy
    assert v2.policy.name == "heuristic.v2"


def test_parameters_described_with_v2_defaults() -> None:
    params = {p.name: p for p in describe_params("montecarlo.v2")}
    assert list(params) == ["samples", "rollout", "min_tricks_left", "infer", "draws"]
    assert params["rollout"].default == "heuristic.v2" and params["draws"].default == 8
    assert "draws" not in {p.name for p in describe_params("montecarlo.v1")}
    bot = MonteCarlo2Strategy()
    for key, check in MonteCarlo2Strategy.PARAMS.items():
        assert check(getattr(bot, key)) is None, key


#: A bad spec and the words its one-line error must hold (the first names the parameter).
BAD_SPECS = {
    "montecarlo.v2(samples=0)": "samples between",
    "montecarlo.v2(samples=2.5)": "samples whole number",
    "montecarlo.v2(rollout='nosuch')": "rollout heuristic.v2",
    "montecarlo.v2(rollout='montecarlo.v2')": "rollout cannot",
    "montecarlo.v2(rollout='montecarlo')": "rollout cannot",
    "montecarlo.v2(rollout=3)": "rollout strategy name",
    "montecarlo.v2(infer=1)": "infer true or false",
    "montecarlo.v2(draws=0)": "draws between",
    "montecarlo.v2(draws=True)": "draws whole number",
    "montecarlo.v1(draws=4)": "draws unknown parameter",
}


@pytest.mark.parametrize("spec", sorted(BAD_SPECS))
def test_bad_parameters_are_one_line(spec: str, tmp_path: Path) -> None:
    words = BAD_SPECS[spec].split(" ", 1)
    with pytest.raises(StrategyConfigError) as exc:
        make(spec)
    msg = str(exc.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    out = tmp_path / "o"
    args = ["simulate", "--games", "1", "--seed", "1", "--out", str(out), "--workers", "0"]
    status, stdout, stderr = in_process([*args, "--strategies", spec])
    assert status == 2 and stdout == ""
    assert stderr.startswith("error: ") and stderr.count("\n") == 1 and words[0] in stderr
    assert not out.exists()  # refused before any work


@pytest.mark.parametrize("variant", TABLES)
def test_whole_games_are_legal_and_reproducible(variant: str) -> None:
    first = _game("montecarlo.v2(samples=2)", variant, 43, 0)  # raises StrategyError on an illegal action
    assert first[-1]["game_over"] or len(first) == load_rules(variant).deal_limit
    assert all(r["plays"] or r["contract"] is None for r in first)
    assert all(r["strategies"][0] == "montecarlo.v2" for r in first)
    assert _game("montecarlo.v2(samples=2)", variant, 43, 0) == first


@pytest.mark.parametrize("variant", ["pagat-au", "six-player", "two-jokers"])
def test_auction_discard_and_naming_are_heuristic_v2s(variant: str) -> None:
    """At every auction, kitty and naming decision the bot answers as ``heuristic.v2`` would."""
    rules = load_rules(variant)
    mc, v2 = make("montecarlo.v2(samples=2)"), make("heuristic.v2")
    phases = set()
    for k, state in enumerate(decision_points(rules, 44, deals=25)):
        if state.phase == PLAY:
            continue
        view, legal = state.view(state.turn), state.legal_actions()
        method = ("bid", "discard", "name_joker")[state.phase]
        assert getattr(mc, method)(view, legal, Rng(k)) == getattr(v2, method)(view, legal, Rng(k))
        phases.add(state.phase)
    assert {0, 1} <= phases  # the naming: test_joker_naming_is_heuristic_v2s


@pytest.mark.parametrize("variant", ["pagat-au", "two-jokers"])
def test_joker_naming_is_heuristic_v2s(variant: str) -> None:
    """Forced no-trump contracts: the declarer names (or keeps suitless) each joker as v2 does."""
    rules = load_rules(variant)
    mc, v2 = make("montecarlo.v2(samples=2)"), make("heuristic.v2")
    named = asked = 0
    for d in range(60):
        state, _ = new_deal(rules, 48, d, 0)
        state.force_contract("7NT", d % rules.players)
        while state.phase in (KITTY, JOKER):
            view, legal = state.view(state.turn), state.legal_actions()
            if state.phase == KITTY:
                action = v2.discard(view, legal, Rng(d))
                assert mc.discard(view, legal, Rng(d)) == action
            else:
                action = v2.name_joker(view, legal, Rng(d))
                assert mc.name_joker(view, legal, Rng(d)) == action
                asked += 1
                named += action != NAME_NONE
            state.apply(action)
    assert asked > 10 and named > 0  # v2 does name a suit at times


def test_without_a_search_it_plays_heuristic_v2s_games() -> None:
    """Below ``min_tricks_left`` tricks left the bot plays v2's card: with 20, every game is v2's."""
    for variant in ("pagat-au", "three-player"):
        mc = _game("montecarlo.v2(min_tricks_left=20)", variant, 45, 1)
        v2 = _game("heuristic.v2", variant, 45, 1)
        assert len(mc) > 1
        assert [{**r, "strategies": None} for r in mc] == [{**r, "strategies": None} for r in v2]


def test_the_search_changes_some_cards() -> None:
    rules = load_rules("pagat-au")
    mc, v2 = make("montecarlo.v2(samples=8)"), make("heuristic.v2")
    changed = checked = 0
    for k, state in enumerate(decision_points(rules, 46, deals=12, every=3)):
        if state.phase != PLAY or len(state.legal_actions()) < 2:
            continue
        view, legal = state.view(state.turn), state.legal_actions()
        choice = mc.play(view, legal, Rng(k))
        assert choice in legal
        changed += choice != v2.play(view, legal, Rng(k))
        checked += 1
    assert checked > 20 and changed > 0


def _declarer_trumps(spec: str, infer: bool) -> tuple[float, int]:
    """The mean trump count the bot's ``draw`` gives a suit declarer, over defenders' play decisions."""
    rules = load_rules("pagat-au")
    bot = make(spec)
    rng = random.Random(5)
    total = n = 0
    for state in decision_points(rules, 47, deals=40, every=4):
        c = state.contract
        if state.phase != PLAY or c is None or c.trump >= 4 or c.misere or state.turn == state.declarer:
            continue
        view = state.view(state.turn)
        mask = state.tables.suit_mask[c.trump] if infer else 0
        gone = played_by(view)[state.declarer]
        for _ in range(5):
            hands, _discards = bot.draw(view, rng, mask, gone)
            total += ((hands[state.declarer] | gone) & state.tables.suit_mask[c.trump]).bit_count()
            n += 1
    return total / n, n


def test_inference_gives_the_declarer_more_trumps() -> None:
    """The resampling moves the declarer's sampled trumps towards what declarers hold; more draws move
    them further; without ``infer`` (no mask) the sampler is left alone."""
    plain, n = _declarer_trumps("montecarlo.v2", infer=False)
    one, _ = _declarer_trumps("montecarlo.v2(draws=1)", infer=True)
    some, _ = _declarer_trumps("montecarlo.v2(draws=4)", infer=True)
    many, _ = _declarer_trumps("montecarlo.v2(draws=16)", infer=True)
    assert n > 100
    assert one == plain  # one draw: nothing to choose from (and the same random numbers)
    assert plain + 0.3 < some < many


def test_draw_keeps_placements_by_their_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resampling keeps a placement with probability proportional to its weight: with weights 1 (for
    no trumps) and 3 (for one), one-trump placements are kept three times as often."""
    import fivehundred.strategies.montecarlo as mod

    zero, one = ([0, 0], 0), ([0b10, 0], 0)  # hands: seat 0 (the declarer) holds card 1 or nothing
    feed = iter([zero, one] * 20_000)
    monkeypatch.setattr(mod, "sample_hidden", lambda view, rng: next(feed))
    bot = MonteCarlo2Strategy(draws=2)
    monkeypatch.setattr(MonteCarlo2Strategy, "TRUMP_LIKELIHOOD", (1.0, 3.0))

    class View:
        declarer = 0

    rng = Rng(3)
    kept = [bot.draw(View(), rng, 0b10, 0) for _ in range(20_000)]  # type: ignore[arg-type]
    share = sum(k is one for k in kept) / len(kept)
    assert 0.73 < share < 0.77
