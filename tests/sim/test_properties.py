"""Hypothesis properties of the engine over random deals, random play and random rule switches."""

from __future__ import annotations

import ast
import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import fivehundred.sim.engine  # noqa: F401 (sim.engine below)
from fivehundred import sim
from fivehundred.sim import JOKER_LEAD, NAME_SUIT, PLAY, Rules, State, load_rules, step
from fivehundred.sim.game import new_deal, play_out
from fivehundred.sim.notation import played_card
from tests.helpers import random_legal

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SWITCHES = st.fixed_dictionaries(
    {
        "bidding.misere": st.sampled_from(["after_seven", "anytime", "off"]),
        "bidding.open_misere": st.booleans(),
        "bidding.misere_values": st.sampled_from(["standard", "nullo"]),
        "bidding.blind_misere": st.booleans(),
        "bidding.declarer_raise": st.booleans(),
        "joker.no_trump": st.sampled_from(["pagat", "north_american"]),
        "joker.lead_only_last_trick": st.booleans(),
        "scoring.slam_floor": st.booleans(),
        "scoring.overtrick_points": st.sampled_from([0, 10]),
        "scoring.defensive_cap": st.sampled_from([0, 490]),
        "scoring.lose_at_minus_500": st.booleans(),
    }
)
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
DEFAULT = {"bidding.misere": "after_seven"}
#: Seeds whose uniform random play (:func:`play_random`) under pagat-au hits a rare path, each checked
#: by ``test_each_pinned_seed_walks_its_path``: a slam (6), a suitless joker led (7), the joker named
#: (16), an open misère played past its first trick (31), a misère stopped by the declarer's trick
#: (74521).  A misère made never came up in the first 400,000 seeds; the hand-made rule tests cover it.
PINS = {
    6: "slam",
    7: "joker_led",
    16: "joker_named",
    31: "open_misere_past_first_trick",
    74521: "misere_stopped",
}


def random_deals(test):
    """A property of ``(switches, seed)``: random rule switches and deal seeds, plus an ``@example``
    under the default rules for every pinned seed."""
    for seed in PINS:
        test = example(switches=dict(DEFAULT), seed=seed)(test)
    return SETTINGS(given(switches=SWITCHES, seed=SEEDS)(test))


def rare_paths(s: State) -> set[str]:
    """The rare paths of :data:`PINS` that a finished deal walked."""
    c = s.contract
    out = set()
    if any(JOKER_LEAD <= a < NAME_SUIT for a in s.plays):
        out.add("joker_led")
    if any(j >= 0 for j in s.jokers_named):
        out.add("joker_named")
    if c is not None and c.open and s.tricks_played > 1:
        out.add("open_misere_past_first_trick")
    if c is not None and c.misere and not c.open and s.declarer in s.trick_winners and s.tricks_played < 10:
        out.add("misere_stopped")
    if c is not None and not c.misere and s.declarer_tricks() == s.rules.hand_size:
        out.add("slam")
    return out


def rules_for(switches: dict) -> Rules:
    """A rule set from a combination of switches, made consistent (as a variant author must)."""
    return _rules_for(tuple(sorted(switches.items())))


@cache
def _rules_for(items: tuple) -> Rules:
    sw = dict(items)
    if sw.get("bidding.misere") == "off":
        sw.update({"bidding.open_misere": False, "bidding.blind_misere": False})
        sw["bidding.misere_values"] = "standard"
    if sw.get("bidding.misere_values") == "nullo":
        sw["bidding.open_misere"] = False
    return load_rules("pagat-au", overrides=sw)


def play_random(rules: Rules, seed: int) -> tuple[State, State, list[int]]:
    """Deal from ``seed`` and play uniformly random legal actions; return (dealt, final, actions)."""
    rng = random.Random(seed)
    dealt = State.deal(rules, seed, seed % rules.players)
    s = dealt.clone()
    actions: list[int] = []
    draw = random_legal(rng)

    def choose(st: State) -> int:
        assert st.legal_actions(), "no legal action in a live deal"
        actions.append(draw(st))
        return actions[-1]

    play_out(s, choose)
    return dealt, s, actions


def expected_delta(rules: Rules, s: State) -> list[int]:
    """RULES.md section 9 recomputed from the contract and the trick winners alone."""
    if s.contract is None:
        return [0] * rules.teams
    c, d = s.contract, s.declarer
    team = d % rules.teams
    delta = [0] * rules.teams
    if c.misere:
        delta[team] = c.points if d not in s.trick_winners else -c.points
        return delta
    got = sum(1 for w in s.trick_winners if w % rules.teams == team)
    if got >= c.tricks:
        pts = c.points + rules.overtrick_points * (got - c.tricks)
        if got == 10 and rules.slam_floor and pts < 250:
            pts = 250
        delta[team] = pts
    else:
        delta[team] = -c.points
    for t in range(rules.teams):
        if t != team:
            delta[t] = 10 * sum(1 for w in s.trick_winners if w % rules.teams == t)
    return delta


@SETTINGS
@given(switches=SWITCHES, seed=SEEDS, dealer=st.integers(0, 3))
def test_every_card_dealt_exactly_once(switches: dict, seed: int, dealer: int) -> None:
    rules = rules_for(switches)
    s = State.deal(rules, seed, dealer)
    seen = 0
    for h in [*s.hands, s.kitty]:
        assert seen & h == 0
        seen |= h
    assert seen == rules.deck.full_mask
    assert [h.bit_count() for h in s.hands] == [rules.hand_size] * rules.players
    assert s.kitty.bit_count() == rules.kitty_size
    assert (rules.hand_size, rules.kitty_size, rules.deck.size) == (10, 3, 43)


@random_deals
def test_random_play_is_a_whole_legal_deal(switches: dict, seed: int) -> None:
    rules = rules_for(switches)
    _, s, _ = play_random(rules, seed)
    if s.contract is None:  # thrown in: four passes
        assert len(s.bids) == 4 and s.trick_winners == [] and s.score_delta == [0, 0]
        return
    n_trick = 3 if s.contract.misere else 4
    plays = [a for a in s.plays]
    assert len(plays) == n_trick * len(s.trick_winners)
    played_cards = [played_card(rules.deck, p) for p in plays]
    assert len(set(played_cards)) == len(played_cards)  # every played card distinct
    assert s.discards.bit_count() == rules.kitty_size and s.played & s.discards == 0
    if s.contract.misere:
        wins = [w == s.declarer for w in s.trick_winners]
        assert (len(wins) == 10 and not any(wins)) or (wins[-1] and not any(wins[:-1]))
        assert all(p != (s.declarer + 2) % 4 for p in s.play_seats)
    else:
        assert len(s.trick_winners) == 10
        assert s.played | s.discards == rules.deck.full_mask
    remaining = 0
    for h in s.hands:
        remaining |= h
    assert remaining | s.played | s.discards == rules.deck.full_mask
    assert remaining & s.played == 0


@random_deals
def test_scores_consistent_with_tricks(switches: dict, seed: int) -> None:
    rules = rules_for(switches)
    _, s, _ = play_random(rules, seed)
    assert s.score_delta == expected_delta(rules, s)
    if s.contract is not None:
        team = s.declarer % 2
        expect = sum(1 for w in s.trick_winners if (w == s.declarer if s.contract.misere else w % 2 == team))
        assert s.declarer_tricks() == expect


def _check_views(s: State) -> None:
    """No public fact of a seat's view reveals a card hidden from that seat."""
    rules = s.rules
    for seat in range(rules.players):
        v = s.view(seat)
        assert v.hand == s.hands[seat]
        exposed_ok = (
            s.contract is not None and s.contract.open and s.phase == PLAY and len(s.trick_winners) >= 1
        )
        hidden = 0
        for other in range(rules.players):
            if other != seat and not (exposed_ok and other == s.declarer):
                hidden |= s.hands[other]
        if seat != s.declarer:
            hidden |= s.kitty_dealt | s.discards
            assert v.kitty is None and v.discards is None
        else:
            assert v.kitty == s.kitty_dealt and v.discards == s.discards
        hidden &= ~s.played
        if exposed_ok:  # the open-misère hand, kitty cards kept in it included, is public now
            hidden &= ~s.hands[s.declarer]
        shown = v.hand | v.played | (v.kitty or 0) | (v.discards or 0) | (v.exposed or 0)
        for _, c in v.trick:
            shown |= 1 << c
        assert shown & hidden == 0
        if v.exposed is not None:
            assert exposed_ok and v.exposed == s.hands[s.declarer]
        elif s.contract is not None and s.contract.open and s.phase == PLAY:
            assert not exposed_ok
        if s.phase < PLAY:
            assert v.jokers_named == tuple(-1 for _ in rules.deck.jokers)


@random_deals
def test_view_never_exposes_hidden_cards(switches: dict, seed: int) -> None:
    rules = rules_for(switches)
    _, _, actions = play_random(rules, seed)
    s = State.deal(rules, seed, seed % rules.players)
    _check_views(s)
    for a in actions:
        s.apply(a)
        _check_views(s)


@cache
def state_fields() -> tuple[str, ...]:
    """The fields of :class:`State`, read from its ``__slots__`` in the source (the compiled class
    has no ``__slots__`` attribute)."""
    tree = ast.parse((Path(sim.engine.__file__).parent / "engine.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "State")
    slots = next(
        n.value
        for n in cls.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__slots__"
    )
    return tuple(ast.literal_eval(slots))


def _snapshot(s: State) -> tuple:
    return tuple(
        tuple(v) if isinstance(v, list) else v
        for v in (getattr(s, name) for name in state_fields())
        if not callable(v)
    )


def test_clone_copies_every_field_and_shares_no_list() -> None:
    rules = load_rules("pagat-au")
    s = State.deal(rules, 5, 1)
    for a in play_random(rules, 5)[2][:25]:
        s.apply(a)
    c = s.clone()
    assert len(state_fields()) > 30
    for name in state_fields():
        a, b = getattr(s, name), getattr(c, name)
        assert a == b, name
        if isinstance(a, list):
            assert a is not b, f"clone shares the list {name}"


@SETTINGS
@given(switches=SWITCHES, seed=SEEDS, cut=st.floats(0, 1))
def test_step_is_pure(switches: dict, seed: int, cut: float) -> None:
    rules = rules_for(switches)
    _, _, actions = play_random(rules, seed)
    k = int(cut * (len(actions) - 1))
    s = State.deal(rules, seed, seed % rules.players)
    for a in actions[:k]:
        s.apply(a)
    before = _snapshot(s)
    new = step(s, actions[k])
    assert _snapshot(s) == before
    s.apply(actions[k])
    assert _snapshot(new) == _snapshot(s)


@SETTINGS
@given(seed=SEEDS, dealer=st.integers(0, 3))
def test_same_seed_same_deal(seed: int, dealer: int) -> None:
    rules = load_rules("pagat-au")
    a, b = State.deal(rules, seed, dealer), State.deal(rules, seed, dealer)
    assert a.hands == b.hands and a.kitty == b.kitty


@SETTINGS
@given(master=SEEDS, game=st.integers(0, 10**6), hand=st.integers(0, 300))
def test_new_deal_depends_only_on_master_game_hand(master: int, game: int, hand: int) -> None:
    rules = load_rules("pagat-au")
    a, seed_a = new_deal(rules, master, game, hand)
    b, seed_b = new_deal(load_rules("club-004"), master, game, hand)
    assert seed_a == seed_b and a.hands == b.hands and a.kitty == b.kitty and a.dealer == b.dealer


@pytest.mark.parametrize(("seed", "path"), sorted(PINS.items()))
def test_each_pinned_seed_walks_its_path(seed: int, path: str) -> None:
    _, final, _ = play_random(rules_for(DEFAULT), seed)
    assert path in rare_paths(final), f"seed {seed} no longer walks {path}: choose another pin"
