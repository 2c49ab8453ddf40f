"""What the play has shown, and determinization: hidden cards sampled consistently with a seat's view.

:func:`shown_voids` and :func:`played_by` read the public play history; :func:`distinct_actions`
merges touching cards (the choices a search needs to tell apart); :func:`sample_hidden`
places the cards a seat cannot see (respecting shown voids, a named joker, the exposed open-misère
hand, the declarer's known kitty and discards) and :func:`rebuild_state` turns such a placement into
a legal engine :class:`~sim.engine.State` at the view's point of the deal; :func:`sample_deal` deals
the unseen cards of a seat in the auction (the other hands and the kitty), with :func:`deal_cards`,
the one dealing of unseen cards (``fivehundred hand``'s constrained sampler deals with it too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fivehundred.sim.cards import bits, mask_of
from fivehundred.sim.engine import JOKER, JOKER_LEAD, NAME_NONE, NAME_SUIT, State
from fivehundred.sim.notation import led_suit_of_action, played_card
from fivehundred.sim.rng import Rng
from fivehundred.strategies.tables import CardInfo, card_info, rules_info

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

    from fivehundred.sim.view import SeatView


def shown_voids(view: SeatView) -> list[int]:
    """For each seat, a bitmask of effective suits (bit ``s``) it has shown it cannot follow."""
    n = view.rules.players
    voids = [0] * n
    tables = view.tables
    if tables is None:
        return voids
    eff = tables.eff_suit
    plays = view.plays
    active = sum(view.active)
    led = -1
    for i, (seat, a) in enumerate(plays):
        if i % active == 0:
            led = led_suit_of_action(a) if a >= JOKER_LEAD else eff[a]
            continue
        c = a if a < JOKER_LEAD else -1
        if c < 0 or eff[c] != led:
            voids[seat] |= 1 << led
    return voids


def played_by(view: SeatView) -> list[int]:
    """For each seat, the bitmask of cards it has played so far in this deal."""
    rules = view.rules
    deck = rules.deck
    out = [0] * rules.players
    for seat, a in view.plays:
        out[seat] |= 1 << played_card(deck, a)
    return out


def sample_hidden(view: SeatView, rng: Rng | random.Random, tries: int = 30) -> tuple[list[int], int] | None:
    """One random placement of the cards this seat cannot see, consistent with what it knows.

    Returns ``(hands, discards)``: every seat's current hand (this seat's real one, the exposed
    open-misère hand as shown) and the declarer's discards (known to the declarer, sampled for the
    others).  Cards go only to seats that have not shown out of their suit; a joker the declarer
    named stays with the declarer; in a Pagat misère a seat that showed out holds no suitless joker.
    ``None`` if no placement was found (should not happen on a consistent view).
    """
    rules = view.rules
    info = rules_info(rules)
    n = info.n
    seat = view.seat
    decl = view.declarer
    tables = view.tables
    assert tables is not None  # only asked in the play, where the contract tables exist
    hand = view.hand
    by = played_by(view)
    exposed = view.exposed
    own_discards = view.discards
    pool = info.full & ~hand & ~view.played
    if own_discards:
        pool &= ~own_discards
    if exposed:
        pool &= ~exposed
    voids = shown_voids(view)
    hands = [0] * n
    hands[seat] = hand
    holders: list[int] = []  # seat numbers, or -1 for the discard pile
    need: list[int] = []
    banned: list[int] = []  # per holder: card mask it cannot hold
    eff_masks = tables.suit_mask
    suitless = tables.suitless_jokers
    contract = view.contract
    assert contract is not None
    misere_pagat = contract.misere and rules.joker_no_trump == "pagat"
    active = view.active
    named_holder = 0
    for j, c in enumerate(info.jokers):
        if view.jokers_named[j] >= 0:
            named_holder |= 1 << c
    for s in range(n):
        if s == seat:
            continue
        if exposed and s == decl:
            hands[s] = exposed
            continue
        cnt = info.hand_size - by[s].bit_count()
        ban = 0
        if active[s]:
            v = voids[s]
            for su in range(4):
                if v >> su & 1:
                    ban |= eff_masks[su]
            if misere_pagat and v:
                ban |= suitless
        if s != decl:
            ban |= named_holder
        holders.append(s)
        need.append(cnt)
        banned.append(ban)
    if seat != decl and decl >= 0:
        holders.append(-1)
        need.append(info.kitty_size)
        banned.append(named_holder)
    cards = list(bits(pool))
    if sum(need) != len(cards):
        return None
    k = len(holders)
    for attempt in range(tries):
        rng.shuffle(cards)
        if attempt < tries - 1:
            cards.sort(key=lambda c: sum(1 for h in range(k) if not banned[h] >> c & 1))
        left = list(need)
        got = [0] * k
        ok = True
        for c in cards:
            total = 0
            for h in range(k):
                if left[h] and not banned[h] >> c & 1:
                    total += left[h]
            if total == 0:
                if attempt < tries - 1:
                    ok = False
                    break
                # Last resort: ignore the void inference for this card.
                total = sum(left)
                r = rng.randrange(total)
                for h in range(k):
                    if r < left[h]:
                        break
                    r -= left[h]
            else:
                r = rng.randrange(total)
                for h in range(k):
                    if left[h] and not banned[h] >> c & 1:
                        if r < left[h]:
                            break
                        r -= left[h]
            got[h] |= 1 << c
            left[h] -= 1
        if ok:
            discards = own_discards or 0
            for h in range(k):
                if holders[h] < 0:
                    discards = got[h]
                else:
                    hands[holders[h]] = got[h]
            return hands, discards
    return None


def initial_state(view: SeatView, hands: list[int], discards: int) -> State:
    """The deal of this view's game before any call, from sampled current hands and discards.

    Each seat is dealt its current hand and the cards it has played; the kitty is the declarer's
    discards (the real kitty when the seat is the declarer, whose dealt hand is then its hand and
    discards without the kitty).  The game scores and the deal's number are the view's.
    """
    by = played_by(view)
    dealt = [h | p for h, p in zip(hands, by, strict=True)]
    kitty = discards
    known = view.kitty
    if known is not None:  # the declarer knows the real kitty: keep it
        kitty = known
        dealt[view.seat] = (dealt[view.seat] | discards) & ~known
    st = State(view.rules, dealt, kitty, view.dealer)
    st.scores = view.scores
    st.hand_no = view.hand_no
    return st


def replay_state(view: SeatView, st: State, discards: int) -> State:
    """``st`` (an :func:`initial_state`, perhaps with some of the auction applied) brought to this
    view's point of the deal: the rest of the auction (or the contract forced, when the view has no
    auction), the discards, the joker naming and the plays."""
    st = replay_to_play(view, st, discards)
    for _, a in view.plays:
        st.apply(a)
    return st


def replay_to_play(view: SeatView, st: State, discards: int) -> State:
    """:func:`replay_state` up to the first card: the rest of the auction (or the contract forced),
    the discards and the joker naming; the view's plays are left to the caller."""
    calls = view.bids
    if calls:
        for a in calls[len(st.bids) :]:
            st.apply(a)
    else:
        contract = view.contract
        assert contract is not None
        st.force_contract(contract.code, view.declarer)
    d = discards
    while d:
        low = d & -d
        st.apply(low.bit_length() - 1)
        d ^= low
    named = view.jokers_named
    while st.phase == JOKER:
        j = st.naming_index
        st.apply(NAME_SUIT + named[j] if named[j] >= 0 else NAME_NONE)
    return st


def rebuild_state(view: SeatView, hands: list[int], discards: int) -> State:
    """A full :class:`State` at this view's point of the deal, from sampled current hands.

    The deal is rebuilt as if the kitty had been the declarer's discards (the real kitty when the
    seat is the declarer), then the public history (auction, discards, joker naming, plays) is
    replayed, so the result is a legal engine state (:func:`initial_state`, :func:`replay_state`).
    """
    return replay_state(view, initial_state(view, hands, discards), discards)


def touching(ci: CardInfo, outside: int, a: int, b: int) -> bool:
    """Whether cards ``a`` and ``b`` are the same choice for a player to whom the cards of
    ``outside`` are unseen: one effective suit, both trumps or neither, no card of ``outside``
    between them (joker leads are never merged).  The one owner of the touching rule
    (:func:`distinct_actions`, and the expert's play inference)."""
    if a >= JOKER_LEAD or b >= JOKER_LEAD:
        return a == b
    eff = ci.eff
    if eff[a] != eff[b] or eff[a] < 0 or bool(ci.power[a]) != bool(ci.power[b]):
        return False
    lo, hi = (a, b) if ci.strength[a] < ci.strength[b] else (b, a)
    return not ci.higher[lo] & ci.lower[hi] & outside


def distinct_cards(ci: CardInfo, outside: int, legal: Sequence[int]) -> list[int]:
    """The cards of ``legal`` (no joker leads) with touching cards merged (:func:`touching`;
    ``outside``: the cards neither in the seat's hand nor played), the weakest of each run standing for
    it, in order of effective suit and strength."""
    eff, strength = ci.eff, ci.strength
    cards: list[int] = []
    for a in legal:  # insertion sort by (effective suit, strength), stable as sorted() is
        ea, sa = eff[a], strength[a]
        i = len(cards)
        cards.append(a)
        while i > 0:
            b = cards[i - 1]
            eb = eff[b]
            if eb < ea or (eb == ea and strength[b] <= sa):
                break
            cards[i] = b
            i -= 1
        cards[i] = a
    out: list[int] = []
    prev = -1
    for c in cards:
        if prev >= 0 and touching(ci, outside, prev, c):
            prev = c
            continue
        out.append(c)
        prev = c
    return out


def distinct_actions(view: SeatView, legal: Sequence[int]) -> list[int]:
    """The legal actions with touching cards merged (:func:`touching`: cards of one effective suit
    with no card between them that the seat cannot see; played cards and its own do not separate
    them) are the same choice, and the weakest of each run stands for it; joker leads are kept as
    they are (:func:`distinct_cards`, then the joker leads)."""
    tables = view.tables
    assert tables is not None  # asked in the play
    info = rules_info(view.rules)
    out = distinct_cards(
        card_info(tables), info.full & ~view.hand & ~view.played, [a for a in legal if a < JOKER_LEAD]
    )
    out.extend(a for a in legal if a >= JOKER_LEAD)
    return out


def deal_cards(cards: list[int], sizes: Sequence[int], rng: Rng | random.Random) -> list[int]:
    """Shuffle ``cards`` (in place) with ``rng`` and deal them out in that order: the first
    ``sizes[0]`` to the first holder, the next ``sizes[1]`` to the second, ...; each holder's cards as
    a mask.  Every ordering of ``cards`` is equally likely, so every split is."""
    rng.shuffle(cards)
    out: list[int] = []
    k = 0
    for size in sizes:
        out.append(mask_of(cards[k : k + size]))
        k += size
    return out


def sample_deal(view: SeatView, rng: Rng | random.Random) -> tuple[list[int], int]:
    """One random deal of the cards this seat cannot see, for a view before the play.

    Returns ``(hands, kitty)``: this seat's hand as it is, every other seat dealt ``hand_size``
    cards, uniformly from the cards outside the seat's hand and its known discards, and the kitty
    the rest (``kitty_size`` cards in the auction; none once the declarer holds the kitty: its
    discards are known to it).  Before the play nothing else is known of the hidden cards.
    """
    rules = view.rules
    info = rules_info(rules)
    n = info.n
    seat = view.seat
    hand = view.hand
    unseen = info.full & ~hand
    known = view.discards
    if known:
        unseen &= ~known
    cards = list(bits(unseen))
    others = [s for s in range(n) if s != seat]
    sizes = [info.hand_size] * len(others)
    dealt = deal_cards(cards, [*sizes, len(cards) - sum(sizes)], rng)
    hands = [0] * n
    hands[seat] = hand
    for s, m in zip(others, dealt, strict=False):
        hands[s] = m
    return hands, dealt[-1]
