"""expert.v2: expert.v1 with the misère play searched on more worlds; registered with its parameters, DD
(never a rollout) for an open misère's defenders, rollouts for its declarer and the closed misère's
early tricks, ``misere_worlds`` and ``misere_rollout_worlds`` in a misère only, the ``defence_*`` worlds
for a suit contract's defenders only, every seat of a suit or NT contract DD from the first trick."""

from __future__ import annotations

import itertools

import pytest

from fivehundred.sim import load_rules, play_deal
from fivehundred.sim.cards import bits, mask_of
from fivehundred.sim.engine import KITTY, PLAY
from fivehundred.sim.game import new_deal
from fivehundred.sim.notation import NT
from fivehundred.sim.rng import Rng
from fivehundred.strategies import expert as expert_mod
from fivehundred.strategies.base import StrategyConfigError, label, make
from fivehundred.strategies.estimates import misere_danger
from fivehundred.strategies.expert import Expert2Strategy
from fivehundred.strategies.tables import rules_info

SMALL = "worlds=3, pool=2, rollout_worlds=3, early_worlds=2"


def test_registered_and_a_bare_expert_is_still_v1() -> None:
    bot = make("expert.v2(misere_dd_tricks=8, misere_worlds=9, closed_dd_tricks=3)")
    assert isinstance(bot, Expert2Strategy) and bot.misere_dd_tricks == 8
    assert bot.misere_worlds == 9 and bot.closed_dd_tricks == 3
    assert label("expert") == "expert.v1"
    with pytest.raises(StrategyConfigError, match="misere_dd_tricks"):
        make("expert.v2(misere_dd_tricks=21)")
    with pytest.raises(StrategyConfigError, match="misere_dd_tricks"):
        make("expert(misere_dd_tricks=5)")  # v1 has no such parameter


def _forced(code: str, spec: str, deal: int) -> tuple[list[int], list[tuple[int, bool]]]:
    """The plays of a deal with ``code`` forced on seat 0 and ``spec`` in every seat, and for each
    search of the play the seat and whether it rolled out (True) or solved DD (False)."""
    rules = load_rules("pagat-au")
    state, _ = new_deal(rules, 5, deal, 3)
    state.force_contract(code, 0)
    rolled: list[tuple[int, bool]] = []
    real = expert_mod.rollout_play
    seat = [0]

    def spy(bot, view, legal, rng, default):  # type: ignore[no-untyped-def]
        rolled.append((view.seat, True))
        return real(bot, view, legal, rng, default)

    real_play = Expert2Strategy.play

    def play(bot, view, legal, rng):  # type: ignore[no-untyped-def]
        seat[0] = view.seat
        return real_play(bot, view, legal, rng)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(expert_mod, "rollout_play", spy)
        m.setattr(expert_mod, "move_values", _counting(rolled, seat))
        m.setattr(expert_mod.ExpertStrategy, "play", play)
        play_deal(state, [make(spec) for _ in range(4)], [Rng(s) for s in range(4)])
    return list(state.plays), rolled


def _counting(log: list[tuple[int, bool]], seat: list[int]):  # type: ignore[no-untyped-def]
    real = expert_mod.move_values

    def solve(position):  # type: ignore[no-untyped-def]
        log.append((seat[0], False))
        return real(position)

    return solve


def test_the_open_misere_defence_is_searched_double_dummy_from_the_first_trick() -> None:
    _, v2 = _forced("OMIS", f"expert.v2({SMALL})", 1)
    defence = [rolled for seat, rolled in v2 if seat != 0]
    assert defence and not any(defence)  # every search of the defenders solved DD
    assert any(rolled for seat, rolled in v2 if seat == 0)  # the declarer rolled out its early tricks
    _, v1 = _forced("OMIS", f"expert.v1({SMALL})", 1)
    assert any(rolled for seat, rolled in v1 if seat != 0)  # expert.v1's defenders rolled out


def test_the_closed_misere_defence_rolls_out_early_and_the_suit_play_is_v1s_with_v1s_worlds() -> None:
    _, v2 = _forced("MIS", f"expert.v2({SMALL})", 1)
    assert any(rolled for seat, rolled in v2 if seat != 0)  # closed_dd_tricks 6: rollouts early
    assert any(not rolled for seat, rolled in v2 if seat != 0)
    off = "defence_worlds=0, defence_rollout_worlds=0, suit_dd_tricks=0"  # v1's worlds and rollouts
    v2_plays, how = _forced("7H", f"expert.v2({SMALL}, {off})", 2)
    v1_plays, _ = _forced("7H", f"expert.v1({SMALL})", 2)
    assert v2_plays == v1_plays and any(rolled for _, rolled in how)  # rollouts early, as v1


@pytest.mark.parametrize("code", ["7H", "7NT"])
def test_a_suit_or_nt_contract_is_searched_double_dummy_from_the_first_trick(code: str) -> None:
    """By default (``suit_dd_tricks`` 20) every seat of a suit or NT contract solves DD from the first
    trick; ``suit_dd_tricks=3`` rolls the cards out until 3 tricks are left."""
    _, how = _forced(code, f"expert.v2({SMALL})", 2)
    assert {seat for seat, _ in how} == {0, 1, 2, 3} and not any(rolled for _, rolled in how)
    _, how = _forced(code, f"expert.v2({SMALL}, suit_dd_tricks=3)", 2)
    assert any(rolled for _, rolled in how) and any(not rolled for _, rolled in how)


def test_a_misere_is_searched_on_misere_worlds_and_rolled_out_on_misere_rollout_worlds() -> None:
    rules = load_rules("pagat-au")
    state, _ = new_deal(rules, 5, 1, 3)
    state.force_contract("OMIS", 0)
    bot = make(f"expert.v2({SMALL}, misere_worlds=5, misere_rollout_worlds=4)")
    while state.phase != PLAY:  # the declarer's exchange
        state.apply(state.legal_actions()[0])
    assert state.turn == 0  # the declarer leads
    assert len(bot.sample_worlds(state.view(0), Rng(1))) == 5
    assert bot.rollout_worlds_at(state.view(0)) == 4
    state.apply(state.legal_actions()[0])
    assert state.turn != 0
    assert len(bot.sample_worlds(state.view(state.turn), Rng(1))) == 5
    assert len(bot.sample_worlds(state.view(state.turn), Rng(1), 3)) == 3  # a rollout's count
    suit, _ = new_deal(rules, 5, 1, 3)
    suit.force_contract("7H", 0)
    while suit.phase != PLAY:
        suit.apply(suit.legal_actions()[0])
    assert len(bot.sample_worlds(suit.view(0), Rng(1))) == bot.worlds_at(0)  # v1's worlds
    assert bot.rollout_worlds_at(suit.view(0)) == bot.rollout_worlds


def test_a_suit_contracts_defenders_search_defence_worlds_when_set() -> None:
    rules = load_rules("pagat-au")
    state, _ = new_deal(rules, 5, 1, 3)
    state.force_contract("7H", 0)
    while state.phase != PLAY:
        state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])  # the declarer's lead: seat 1 defends
    defender, declarer = state.view(1), state.view(0)
    bot = make(f"expert.v2({SMALL}, defence_worlds=7, defence_early_worlds=4, defence_rollout_worlds=5)")
    assert len(bot.sample_worlds(defender, Rng(1))) == 4  # the first trick: defence_early_worlds
    assert bot.rollout_worlds_at(defender) == 5
    assert len(bot.sample_worlds(declarer, Rng(1))) == bot.worlds_at(0)  # v1's worlds
    assert bot.rollout_worlds_at(declarer) == bot.rollout_worlds
    plain = make(f"expert.v2({SMALL}, defence_worlds=0, defence_rollout_worlds=0)")  # 0: v1's counts
    assert len(plain.sample_worlds(defender, Rng(1))) == plain.worlds_at(0)
    assert plain.rollout_worlds_at(defender) == plain.rollout_worlds


def test_a_joker_decision_is_searched_double_dummy_from_joker_dd_tricks() -> None:
    rules = load_rules("pagat-au")
    state, _ = new_deal(rules, 5, 2, 3)  # seat 0 holds the joker
    state.force_contract("7H", 0)
    while state.phase != PLAY:
        state.apply(state.legal_actions()[0])
    view, legal = state.view(0), state.legal_actions()
    joker = rules.deck.jokers[0]
    assert joker in legal and len(legal) > 1  # the declarer's lead: the joker or another card
    bot = make(f"expert.v2({SMALL}, joker_dd_tricks=10, joker_worlds=7)")
    assert bot.early_dd_worlds(view, legal, 10) == 7
    assert bot.early_dd_worlds(view, [a for a in legal if a != joker], 10) == 0  # no joker to play
    assert bot.early_dd_worlds(view, [joker], 10) == 0  # nothing else to play
    assert make(f"expert.v2({SMALL}, joker_dd_tricks=8)").early_dd_worlds(view, legal, 10) == 0
    assert make(f"expert.v2({SMALL})").early_dd_worlds(view, legal, 10) == 0  # the default: v1's rollouts
    state.apply(legal[0])
    other = state.turn  # a defender without the joker
    assert bot.early_dd_worlds(state.view(other), state.legal_actions(), 10) == 0


def test_joker_margin_handicaps_the_jokers_rollout_value_in_suit_and_nt_only() -> None:
    rules = load_rules("pagat-au")
    joker = rules.deck.jokers[0]
    bot = make(f"expert.v2({SMALL}, joker_margin=30)")
    for code, want in (("7H", 30.0), ("7NT", 30.0), ("MIS", 0.0)):
        state, _ = new_deal(rules, 5, 2, 3)  # seat 0 holds the joker
        state.force_contract(code, 0)
        while state.phase != PLAY:
            state.apply(state.legal_actions()[0])
        view = state.view(0)
        others = [a for a in state.legal_actions() if a != joker and a < 64]
        assert bot.rollout_handicap(view, others[0]) == 0.0
        jokers = [a for a in state.legal_actions() if a == joker or a >= 64]  # a card or a joker lead
        assert jokers and all(bot.rollout_handicap(view, a) == want for a in jokers), code
        for plain in (f"expert.v2({SMALL})", f"expert.v1({SMALL})"):  # the default: no handicap
            assert make(plain).rollout_handicap(view, jokers[0]) == 0.0


def _exchange(spec: str, code: str = "OMIS", deal: int = 2) -> tuple[int, int, object]:
    """A contract forced on seat 0 of a pagat-au deal: (its hand with the kitty, the cards ``spec``
    throws, the bot)."""
    rules = load_rules("pagat-au")
    state, _ = new_deal(rules, 5, deal, 3)
    state.force_contract(code, 0)
    bot = make(spec)
    rng = Rng(7)
    held = state.hands[0]
    thrown = 0
    while state.phase == KITTY:
        c = bot.discard(state.view(0), state.legal_actions(), rng)
        thrown |= 1 << c
        state.apply(c)
    return held, thrown, bot


def test_the_discard_is_v2s_when_off_in_v1_and_in_suit_contracts() -> None:
    for spec, code in (
        ("expert.v2(misere_discard_worlds=0)", "OMIS"),
        ("expert.v1", "MIS"),
        ("expert.v2(misere_discard_worlds=4)", "7H"),
    ):
        held, thrown, _ = _exchange(spec, code)
        _, want, _ = _exchange("heuristic.v2", code)
        assert thrown == want and thrown & ~held == 0 and thrown.bit_count() == 3, (spec, code)


@pytest.mark.parametrize("target", [0, 1, 5])
def test_the_misere_discard_throws_the_set_its_rollouts_make_most_often(target: int) -> None:
    # A stand-in rollout that makes the misère only when the declarer threw one chosen candidate
    # set: the bot must throw exactly that set, whichever it is.
    info = rules_info(load_rules("pagat-au"))
    held, _, _ = _exchange("heuristic.v2")
    frac = min(1.0, 2 * info.hand_size / max(1, info.full.bit_count() - info.hand_size))
    ranked = [c for _, c in misere_danger(info, held, frac)]
    strength = info.suit_info[NT].strength
    ranked += sorted((c for c in bits(held) if c not in ranked), key=lambda c: (-strength[c], c))
    sets = [mask_of(s) for s in itertools.combinations(ranked[:6], 3)]
    want = sets[target]
    calls = []

    def fake(view, hands, kitty, code, declarer, bot, roller):  # type: ignore[no-untyped-def]
        calls.append(1)
        thrown = 0 if not isinstance(bot, expert_mod.FixedDiscard) else bot.cards
        return 0 if thrown == want else 1

    with pytest.MonkeyPatch.context() as m:
        m.setattr(expert_mod, "contract_tricks", fake)
        _, thrown, _ = _exchange("expert.v2(misere_discard_worlds=4)")
    assert thrown == want
    assert len(calls) == 4 * (1 + len(sets))  # every candidate on the same 4 deals, v2's set first


def test_the_misere_discard_sees_only_the_declarers_cards() -> None:
    # Two deals alike in the declarer's hand and the kitty but not in the others' hands: the same
    # discards for the same generator.
    rules = load_rules("pagat-au")
    state, _ = new_deal(rules, 5, 2, 3)
    state.force_contract("OMIS", 0)
    other = state.clone()
    other.hands[1], other.hands[2] = other.hands[2], other.hands[1]
    got = []
    for st in (state, other):
        bot, rng = make("expert.v2(misere_discard_worlds=6)"), Rng(3)
        while st.phase == KITTY:
            st.apply(bot.discard(st.view(0), st.legal_actions(), rng))
        got.append(st.discards)
    assert got[0] == got[1]


@pytest.mark.parametrize("variant", ["pagat-au", "three-player", "two-jokers", "six-player"])
def test_the_misere_discard_is_legal_and_reproducible_on_every_table(variant: str) -> None:
    rules = load_rules(variant)
    kitty = rules_info(rules).kitty_size
    got = []
    for _ in range(2):
        state, _ = new_deal(rules, 5, 1, 0)
        state.force_contract("MIS", 1)
        held = state.hands[1]
        bot, rng = make("expert.v2(misere_discard_worlds=5, bid_pool=2)"), Rng(4)
        while state.phase == KITTY:
            legal = state.legal_actions()
            card = bot.discard(state.view(1), legal, rng)
            assert card in legal
            state.apply(card)
        assert state.discards & ~held == 0 and state.discards.bit_count() == kitty
        got.append(state.discards)
    assert got[0] == got[1]
