"""The heuristic's maxims, checked on every relevant decision of real deals (not on hand-picked ones)."""

from __future__ import annotations

import random

import pytest

from fivehundred.sim import load_rules
from fivehundred.sim.engine import BID, KITTY, PASS, PLAY, contract_tables
from fivehundred.sim.game import new_deal
from fivehundred.sim.notation import JOKER_LEAD
from fivehundred.strategies.base import make
from tests.helpers import bot_choice, states_along
from tests.strategies.helpers import decision_points

RULES = load_rules("pagat-au")
BOT = make("heuristic")


def _power(state, c: int) -> int:  # type: ignore[no-untyped-def]
    return state.tables.power[c]


def _trick_strength(state, c: int) -> int:  # type: ignore[no-untyped-def]
    t = state.tables
    return t.power[c] or (t.rank[c] if t.eff_suit[c] == state.led else 0)


def _beats(state, c: int) -> int:  # type: ignore[no-untyped-def]
    """Mask of cards that would beat ``c`` as the best card of the current trick."""
    s = _trick_strength(state, c)
    return sum(1 << d for d in range(RULES.deck.size) if _trick_strength(state, d) > s)


def _forced_points(contracts: list[str], deals: int):  # type: ignore[no-untyped-def]
    """Play-phase states of heuristic deals with forced contracts."""
    rng = random.Random(0)
    for d in range(deals):
        state, _ = new_deal(RULES, 61, d, 0)
        state.force_contract(contracts[d % len(contracts)], d % 4)
        yield from states_along(state, bot_choice(BOT, rng), lambda s: s.phase == PLAY)


SUITS = ["6S", "7C", "8D", "7H", "9H", "6D"]


def test_discard_keeps_trumps_joker_and_bowers() -> None:
    checked = 0
    for d in range(120):
        state, _ = new_deal(RULES, 62, d, 0)
        state.force_contract(SUITS[d % len(SUITS)], d % 4)
        power = contract_tables(RULES.deck, state.contract.trump, (-1,)).power
        rng = random.Random(d)
        while state.phase == KITTY:
            legal = state.legal_actions()
            card = BOT.discard(state.view(state.turn), legal, rng)
            assert card in legal
            if power[card]:  # a trump (joker, bowers included) only when nothing else is left
                assert all(power[c] for c in legal)
            state.apply(card)
            checked += 1
    assert checked == 360


def test_never_trumps_a_partners_sure_winner() -> None:
    checked = 0
    for state in _forced_points(SUITS, 150):
        seat = state.turn
        if not state.trick:
            continue
        legal = state.legal_actions()
        hand = state.hands[seat]
        led_mask = state.tables.suit_mask[state.led]
        if hand & led_mask:
            continue  # not void
        best = max(state.trick, key=lambda c: _trick_strength(state, c))
        winner = state.trick_seats[state.trick.index(best)]
        if winner % 2 != seat % 2:
            continue
        last = len(state.trick) == state.n_active - 1
        unseen = RULES.deck.full_mask & ~hand & ~state.played
        sure = last or not (_beats(state, best) & unseen)
        side = [c for c in legal if not _power(state, c)]
        if not sure or not side:
            continue
        card = BOT.play(state.view(seat), legal, random.Random(1))
        assert not _power(state, card), "trumped the partner's winner"
        checked += 1
    assert checked > 20


def _plays_the_extreme(state, cards: list[int], pick) -> int:  # type: ignore[no-untyped-def]
    """With ``cards`` to choose from, the bot to act in ``state`` plays one of them, the one ``pick``
    (min/max) chooses by trick strength; 1 if that was checked, 0 when ``cards`` is empty."""
    if not cards:
        return 0
    card = BOT.play(state.view(state.turn), state.legal_actions(), random.Random(1))
    assert card in cards
    assert _trick_strength(state, card) == pick(_trick_strength(state, c) for c in cards)
    return 1


def test_last_hand_wins_as_cheaply_as_possible() -> None:
    checked = 0
    for state in _forced_points(SUITS, 150):
        seat = state.turn
        if len(state.trick) != state.n_active - 1:
            continue
        best = max(state.trick, key=lambda c: _trick_strength(state, c))
        winner = state.trick_seats[state.trick.index(best)]
        if winner % 2 == seat % 2:
            continue
        legal = state.legal_actions()
        bs = _trick_strength(state, best)
        winning = [c for c in legal if _trick_strength(state, c) > bs]
        checked += _plays_the_extreme(state, winning, min)
    assert checked > 50


def _opponents_out_of_trumps(state, seat: int) -> bool:  # type: ignore[no-untyped-def]
    """Whether every opponent has failed to follow a trump lead (public knowledge)."""
    eff = state.tables.eff_suit
    trump = state.contract.trump
    out = set()
    for i in range(0, len(state.plays) - len(state.trick), state.n_active):
        first = state.plays[i]
        if first >= JOKER_LEAD or eff[first] != trump:
            continue
        for k in range(1, state.n_active):
            who, card = state.play_seats[i + k], state.plays[i + k]
            if card < JOKER_LEAD and eff[card] != trump:
                out.add(who)
    return all(s in out for s in range(RULES.players) if s % 2 != seat % 2)


def test_declarer_draws_trumps_with_a_winner() -> None:
    checked = 0
    for state in _forced_points(SUITS, 150):
        seat = state.turn
        if state.trick or seat != state.declarer:
            continue
        hand = state.hands[seat]
        tm = state.tables.suit_mask[state.contract.trump]
        unseen = RULES.deck.full_mask & ~hand & ~state.played & ~state.discards
        if not unseen & tm or not hand & tm:
            continue
        if _opponents_out_of_trumps(state, seat):
            continue  # drawing is over: the unseen trumps are the partner's
        top = max(
            (c for c in range(RULES.deck.size) if hand >> c & 1 and tm >> c & 1),
            key=lambda c: _power(state, c),
        )
        if any(_power(state, d) > _power(state, top) for d in range(RULES.deck.size) if unseen >> d & 1):
            continue
        card = BOT.play(state.view(seat), state.legal_actions(), random.Random(1))
        assert tm >> card & 1, "declarer holding the top trump did not lead trumps"
        checked += 1
    assert checked > 20


def _stoppers(hand: int) -> int:
    deck = RULES.deck
    n = 1 if hand & deck.joker_mask else 0
    for s in range(4):
        mine = sorted(
            (deck.rank[c] for c in range(deck.size) if hand >> c & 1 and deck.suit[c] == s), reverse=True
        )
        top = sorted((deck.rank[c] for c in range(deck.size) if deck.suit[c] == s), reverse=True)
        if any(len(mine) > i and top[i] in mine for i in range(3)):
            n += 1
    return n


def test_no_trump_bids_only_with_stoppers() -> None:
    nt_bids = 0
    for state in decision_points(RULES, 63, deals=1500, every=1):
        if state.phase != 0:
            continue
        legal = state.legal_actions()
        call = BOT.bid(state.view(state.turn), legal, random.Random(0))
        if call != PASS and RULES.ladder[call - BID].code.endswith("NT"):
            assert _stoppers(state.hands[state.turn]) >= BOT.nt_stoppers
            nt_bids += 1
    assert nt_bids > 0


def test_bidding_is_more_careful_near_minus_500() -> None:
    differ = 0
    for d in range(400):
        state, _ = new_deal(RULES, 64, d, 0)
        legal = state.legal_actions()
        state.scores = (0, 0)
        normal = BOT.bid(state.view(state.turn), legal, random.Random(0))  # views are snapshots
        state.scores = (-460, 0) if state.turn % 2 == 0 else (0, -460)
        careful = BOT.bid(state.view(state.turn), legal, random.Random(0))
        rank = lambda a: -1 if a == PASS else RULES.ladder[a - BID].rank  # noqa: E731
        assert careful == normal or careful == PASS or rank(careful) <= rank(normal)
        differ += careful != normal
    assert differ > 0


@pytest.mark.parametrize("code", ["MIS", "OMIS"])
def test_misere_declarer_ducks(code: str) -> None:
    """Following suit with a card that loses available, the misère declarer never wins the trick."""
    checked = 0
    for state in _forced_points([code], 120):
        seat = state.turn
        if seat != state.declarer or not state.trick:
            continue
        legal = state.legal_actions()
        best = max(_trick_strength(state, c) for c in state.trick)
        losing = [c for c in legal if _trick_strength(state, c) < best]
        checked += _plays_the_extreme(state, losing, max)
    assert checked > 10


def _lowest_in(state, mask: int) -> int:  # type: ignore[no-untyped-def]
    """The weakest card of a single-suit mask (misère is played at no-trumps)."""
    return min((c for c in range(RULES.deck.size) if mask >> c & 1), key=lambda c: _trick_strength(state, c))


def test_open_misere_defence_leads_under_the_exposed_hand() -> None:
    """Leading against the exposed hand, a defender who can get under the declarer's lowest card
    of a suit the declarer holds leads such a card (the declarer then cannot duck), or, to unblock
    the other defender first, a card over the declarer's top card of such a suit it holds two of."""
    checked = unblocks = 0
    for state in _forced_points(["OMIS"], 200):
        seat = state.turn
        if seat == state.declarer or state.trick:
            continue
        view = state.view(seat)
        exposed = view.exposed
        if not exposed:
            continue
        t = state.tables
        hand = state.hands[seat]
        catching = set()
        unblocking = set()
        for s in range(4):
            dm = exposed & t.suit_mask[s]
            if not dm:
                continue
            mine = [c for c in range(RULES.deck.size) if hand >> c & 1 and t.eff_suit[c] == s]
            low = t.rank[_lowest_in(state, dm)]
            under = {c for c in mine if t.rank[c] < low}
            catching |= under
            top = max(t.rank[c] for c in range(RULES.deck.size) if dm >> c & 1)
            if under and dm.bit_count() >= 2:
                unblocking |= {c for c in mine if t.rank[c] > top}
        legal = state.legal_actions()
        if not catching or legal[-1] >= JOKER_LEAD:
            continue  # (a defender who may lead the suitless joker leads it first)
        card = BOT.play(view, legal, random.Random(1))
        assert card in catching or card in unblocking, "did not lead under the exposed hand"
        checked += 1
        unblocks += card in unblocking
    assert checked > 20 and 0 < unblocks < checked


@pytest.mark.parametrize("code", ["MIS", "OMIS"])
def test_misere_defender_stays_under_the_declarer(code: str) -> None:
    """When the misère declarer is winning the trick, a defender following suit plays under it if it
    can (its highest such card); forced over it, the defender unblocks its highest card."""
    under_checked = over_checked = 0
    for state in _forced_points([code], 200):
        seat = state.turn
        if seat == state.declarer or not state.trick or state.declarer not in state.trick_seats:
            continue
        best = max(state.trick, key=lambda c: _trick_strength(state, c))
        if state.trick_seats[state.trick.index(best)] != state.declarer:
            continue
        legal = state.legal_actions()
        following = [c for c in legal if state.tables.eff_suit[c] == state.led]
        if len(following) < 2:
            continue
        bs = _trick_strength(state, best)
        under = [c for c in following if _trick_strength(state, c) < bs]
        card = BOT.play(state.view(seat), legal, random.Random(1))
        pool = under or following
        assert _trick_strength(state, card) == max(_trick_strength(state, c) for c in pool)
        if under:
            under_checked += 1
        else:
            over_checked += 1
    assert under_checked > 5 and over_checked > 5


def test_misere_is_a_minority_contract() -> None:
    """Misère bidding judges the whole hand: heuristic tables do not live on misère contracts."""
    from fivehundred.sim.game import play_game

    bots = [BOT] * RULES.players
    contracts = miseres = 0
    for g in range(150):
        for r in play_game(RULES, bots, 71, g, ["h"] * RULES.players):
            if r["contract"] is not None:
                contracts += 1
                miseres += "MIS" in r["contract"]
    assert 0 < miseres < 0.12 * contracts


@pytest.mark.parametrize("code", ["MIS", "OMIS"])
def test_misere_defender_leads_the_suitless_joker(code: str) -> None:
    """A suitless joker wins whatever trick it falls on, so a misère defender who may lead it does."""
    checked = 0
    for state in _forced_points([code], 300):
        seat = state.turn
        if seat == state.declarer or state.trick:
            continue
        legal = state.legal_actions()
        if legal[-1] < JOKER_LEAD or len(legal) == 1:
            continue
        card = BOT.play(state.view(seat), legal, random.Random(1))
        assert card >= JOKER_LEAD, "kept the joker"
        checked += 1
    assert checked > 3
