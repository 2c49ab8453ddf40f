"""Shared helpers for bots: per-rules and per-contract tables, auction history, voids, trick estimates.

Everything here works on a :class:`~sim.engine.SeatView` (never on the hidden state) and on int
bitmasks.  Tables are built once per rule set / per contract table and cached, so the hot paths of
the bots only do bit operations and small loops.  Nothing assumes 4 seats or 43 cards: seat counts,
teams, hand and kitty sizes come from ``view.rules``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from fivehundred.sim.cards import bits
from fivehundred.sim.engine import (
    BID,
    JOKER,
    JOKER_LEAD,
    NAME_NONE,
    NAME_SUIT,
    PASS,
    ContractTables,
    State,
    contract_tables,
)
from fivehundred.sim.notation import NT, led_suit_of_action, played_card
from fivehundred.sim.rng import Rng

if TYPE_CHECKING:
    import random

    from fivehundred.sim.engine import SeatView
    from fivehundred.sim.rules import Bid, Rules


class CardInfo:
    """Per-contract-table facts about every card, derived from a :class:`ContractTables`.

    - ``strength[c]``: order of ``c`` within its effective suit (trumps by power);
    - ``higher[c]``: cards that beat ``c`` when ``c`` is the best card of a trick in its own suit
      (higher cards of its suit and every card with more trick power);
    - ``lower[c]``: cards of ``c``'s effective suit that ``c`` beats (same suit, weaker);
    - ``trump_mask``: every card with trick power (trumps, or suitless jokers in no-trumps);
    - ``suit_mask``: each effective suit (trumps included in the trump suit).
    """

    __slots__ = ("eff", "higher", "lower", "power", "strength", "suit_mask", "trump", "trump_mask")

    def __init__(self, tables: ContractTables, size: int) -> None:
        power, rank, eff = tables.power, tables.rank, tables.eff_suit
        self.power = power
        self.eff = eff
        self.trump = tables.trump
        self.suit_mask = tables.suit_mask
        strength = [power[c] or rank[c] for c in range(size)]
        trump_mask = 0
        for c in range(size):
            if power[c]:
                trump_mask |= 1 << c
        higher = [0] * size
        lower = [0] * size
        for c in range(size):
            h = 0
            lo = 0
            pc = power[c]
            for d in range(size):
                if d == c:
                    continue
                pd = power[d]
                if pc:
                    if pd > pc:
                        h |= 1 << d
                    elif pd and eff[d] == eff[c] and eff[c] >= 0:
                        lo |= 1 << d
                else:
                    if pd or (eff[d] == eff[c] and rank[d] > rank[c]):
                        h |= 1 << d
                    elif eff[d] == eff[c] and eff[c] >= 0:
                        lo |= 1 << d
            higher[c] = h
            lower[c] = lo
        self.strength = tuple(strength)
        self.higher = tuple(higher)
        self.lower = tuple(lower)
        self.trump_mask = trump_mask


_CARD_INFO: dict[int, tuple[ContractTables, CardInfo]] = {}


def card_info(tables: ContractTables) -> CardInfo:
    """The cached :class:`CardInfo` of a contract table."""
    hit = _CARD_INFO.get(id(tables))
    if hit is not None and hit[0] is tables:
        return hit[1]
    info = CardInfo(tables, len(tables.eff_suit))
    _CARD_INFO[id(tables)] = (tables, info)
    return info


class RulesInfo:
    """Per-rule-set facts used by the bots: seats, teams, the deck and bidding tables.

    ``suit_info[t]`` is the :class:`CardInfo` of a ``t``-trump contract (``t`` 0..3) and
    ``suit_info[4]`` that of no-trumps with no joker named.  ``trump_order[t]`` lists the trumps of
    suit ``t`` strongest first; ``side_order[t][s]`` the cards of side suit ``s`` strongest first.
    """

    def __init__(self, rules: Rules) -> None:
        deck = rules.deck
        self.rules = rules
        self.n = rules.players
        self.teams = rules.teams
        self.hand_size = rules.hand_size
        self.kitty_size = rules.kitty_size
        self.full = deck.full_mask
        self.jokers = deck.jokers
        self.joker_mask = deck.joker_mask
        no_named = tuple(-1 for _ in deck.jokers)
        self.tables = [contract_tables(deck, t, no_named) for t in range(5)]
        self.suit_info = [card_info(t) for t in self.tables]
        self.partners = [
            tuple(s for s in range(self.n) if s != seat and s % self.teams == seat % self.teams)
            for seat in range(self.n)
        ]
        self.trump_order: list[list[int]] = []
        self.side_order: list[list[list[int]]] = []
        for t in range(5):
            ci = self.suit_info[t]
            strength = ci.strength
            if t < 4:
                tm = ci.suit_mask[t]
                self.trump_order.append(sorted(bits(tm), key=lambda c: -strength[c]))
            else:
                self.trump_order.append([])
            sides: list[list[int]] = []
            for s in range(4):
                m = ci.suit_mask[s] if s != t else 0
                sides.append(sorted(bits(m), key=lambda c: -strength[c]))
            self.side_order.append(sides)
        self.n_trumps = [len(o) for o in self.trump_order]
        # Fraction of the cards outside one hand that sit in the other players' hands.
        outside = deck.size - self.hand_size
        self.in_hand_frac = self.hand_size / outside if outside else 0.0
        #: Memo of per-suit-holding evaluations (keys are small tuples; bounded by the holdings).
        self.memo: dict[tuple[int, ...], object] = {}
        self.masks = [self.suit_info[t].suit_mask for t in range(5)]
        # Per contract t and effective suit s: the mask of its top cards (8 trumps, 5 side cards).
        self.top_masks: list[list[int]] = []
        for t in range(5):
            row = []
            for s in range(4):
                order = self.trump_order[t] if s == t else self.side_order[t][s]
                row.append(sum(1 << c for c in order[: _TOP_TRUMPS if s == t else _TOP_SIDE]))
            self.top_masks.append(row)
        self.trump_memo: list[dict[int, float]] = [{} for _ in range(4)]
        self.side_memo: list[list[list[dict[int, float]]]] = [[[{}, {}] for _ in range(4)] for _ in range(5)]
        self.stop_memo: list[dict[int, int]] = [{} for _ in range(4)]
        self.danger_memo: dict[float, list[dict[int, list[tuple[float, int]]]]] = {}
        self.danger_sum_memo: dict[float, list[dict[int, float]]] = {}
        #: Raw-holding memos of :func:`suit_estimates`: trump holding -> (tricks, ruff), natural suit
        #: holding -> per-trump side values, NT value and stopper.
        self.trump_masks = [self.suit_info[t].suit_mask[t] for t in range(4)]
        self.nat_masks = list(self.suit_info[NT].suit_mask)
        self.trump_raw: list[dict[int, tuple[float, int]]] = [{} for _ in range(4)]
        self.suit_raw: list[dict[int, tuple[float | int, ...]]] = [{} for _ in range(4)]
        #: :func:`play_sides` per declarer seat.
        self.sides_memo: dict[int, tuple[int, ...]] = {}
        #: Auction actions of the (non-blind) misère bids.
        self.misere_actions = frozenset(
            BID + i for i, b in enumerate(rules.ladder) if b.misere and not b.blind
        )


def rules_info(rules: Rules) -> RulesInfo:
    """The :class:`RulesInfo` of a rule set, built once and kept on the rules object."""
    return rules.derived("_bot_info", RulesInfo)


def play_sides(info: RulesInfo, declarer: int) -> tuple[int, ...]:
    """The side of each seat in the play of a deal with ``declarer`` (-1: no declarer yet).

    The teams (``seat % teams``), except at a table where every seat is its own team (the 3-player
    game): there the defenders defend together for the deal (RULES.md section 11), so they form one
    side (1) against the declarer (0), and a bot treats the other defender as a partner in play.
    """
    sides = info.sides_memo.get(declarer)
    if sides is None:
        if info.teams == info.n and info.n > 2 and declarer >= 0:
            sides = tuple(0 if s == declarer else 1 for s in range(info.n))
        else:
            sides = tuple(s % info.teams for s in range(info.n))
        info.sides_memo[declarer] = sides
    return sides


#: Partner help beyond the first partner: each further partner adds this fraction of
#: ``partner_tricks``.  Measured on forced 6-level contracts (the declarer's own estimate against
#: the tricks its side took, 6,000 deals per table): with two partners of the 63-card 6-player
#: deck the side takes about 0.2 of a trick more than the 4-player side with the same estimate, not
#: a whole partner's share more (each hand holds a smaller part of a bigger deck).
MORE_PARTNERS: Final = 0.125
#: Tricks added when the seat has no partner (the 3-player game): against two hands only, its
#: honours and length take more tricks than the suit tables assume (forced 6-level contracts with
#: 4-5 trumps take about 1.7 tricks more than the hand's own estimate, where the kitty counts 0.6).
#: With :data:`PASSED_OPPONENT` and :data:`SHORT_TRUMP` this sets the 3-player trade-off between
#: thrown-in deals and made contracts (1,000 self-play games: 0.4 threw in 21.6% and made 79.0%,
#: 0.55 17.4% and 77.7%, 0.7 13.8% and 76.4%).
ALONE_TRICKS: Final = 0.55


#: With several partners (the 6-player game), tricks asked beyond the estimate for a bid of 8 or
#: more for each partner that passed: it shows less than the average help counted for it.
#: Competitive raises to 8 or more by a seat whose partners had both passed were made 49% of the
#: time without it (taking it off every bid instead threw in a quarter of the deals).
PASSED_PARTNER: Final = 0.6


#: Alone (the 3-player game): trumps wanted, and tricks taken off a trump suit's estimate for each
#: trump short of that.  Forced 6-level contracts in the 3-player game (8,000 deals, own estimate
#: 3.5-6.5) took 1.7 tricks above the estimate with 4-5 trumps, 0.5 with 3, -0.4 with 2 and -1.4
#: with 1 (the 4-player side, with a partner to hold the trumps: 2.6, 2.1, 1.4, 1.6).
ALONE_TRUMPS: Final = 4
SHORT_TRUMP: Final = 1.0
#: Alone (the 3-player game): tricks added to the estimate for each opponent that passed in the
#: auction (a passed opponent holds less than its share, so the bidder's cards take more tricks).
PASSED_OPPONENT: Final = 0.4


def help_tricks(info: RulesInfo, seat: int, partner_tricks: float) -> float:
    """Tricks that ``seat``'s partners are expected to add to its own (table-aware).

    One partner (the 4-player game): ``partner_tricks``.  More partners: the first counts in full,
    each further one :data:`MORE_PARTNERS` of it.  No partner at a table of three or more seats
    (each for themselves): :data:`ALONE_TRICKS`, the extra worth of the hand against two opponents.
    """
    k = len(info.partners[seat])
    if k == 1:
        return partner_tricks
    if k == 0:
        return ALONE_TRICKS if info.n > 2 else 0.0
    return partner_tricks * (1.0 + MORE_PARTNERS * (k - 1))


# ------------------------------------------------------------------------------------- auction


def bid_seats(view: SeatView) -> tuple[int, ...]:
    """The seat of each auction call of ``view.bids`` (the engine's ``SeatView.bid_seats``)."""
    return view.bid_seats


def auction_calls(view: SeatView) -> list[tuple[int, int]]:
    """The auction so far as ``(seat, action)`` pairs."""
    return list(zip(bid_seats(view), view.bids))  # noqa: B905 (equal lengths by construction)


def last_bids(view: SeatView) -> dict[int, Bid]:
    """Each seat's last (highest) bid in the auction so far."""
    ladder = view.rules.ladder
    out: dict[int, Bid] = {}
    for seat, a in auction_calls(view):
        if a != PASS and a >= BID:
            out[seat] = ladder[a - BID]
    return out


# ------------------------------------------------------------------------------------- play


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


def unseen_mask(view: SeatView) -> int:
    """Cards this seat has not seen: not in its hand, not played, not its own discards, not exposed."""
    info = rules_info(view.rules)
    m = info.full & ~view.hand & ~view.played
    d = view.discards
    if d:
        m &= ~d
    exp = view.exposed
    if exp:
        m &= ~exp
    return m


# ------------------------------------------------------------------------------------- estimates

_HONOUR_W: Final[tuple[float, ...]] = (1.0, 0.7, 0.45, 0.25)
_SIDE_W: Final[tuple[float, ...]] = (1.0, 0.45, 0.15)
#: Honour tricks are read from the top cards only (with the suit length), so the memo tables keyed
#: by (top pattern, length) stay small and warm up within a few hundred deals.
_TOP_TRUMPS: Final = 8
_TOP_SIDE: Final = 5


def _trump_eval(info: RulesInfo, t: int, top: int, n: int) -> float:
    """Tricks from ``n`` trumps of suit ``t`` whose top-card pattern is ``top``."""
    if not n:
        return 0.0
    tricks = 0.0
    missing = 0
    used = 0
    counted = 0
    for c in info.trump_order[t][:_TOP_TRUMPS]:
        if top >> c & 1:
            if missing < 4:
                w = _HONOUR_W[missing]
                if n - used <= missing:  # not enough guards to survive the higher trumps
                    w *= 0.3
                tricks += w
                counted += 1
            used += 1
            if used == n:
                break
        else:
            missing += 1
            if missing >= 4:
                break
    opp_long = (info.n_trumps[t] - n) * info.in_hand_frac + 1.0
    low = n - counted
    if low > 0:
        tricks += max(0.0, min(low, n - opp_long))
    return tricks


def _side_eval(info: RulesInfo, t: int, s: int, top: int, length: int, ruffing: bool) -> float:
    """Tricks from a side suit ``s`` (trump ``t``; 4 = NT) of ``length`` cards with top pattern ``top``."""
    if length == 0:
        return 0.8 if ruffing else 0.0
    total = 0.35 if length == 1 and ruffing else 0.0
    missing = 0
    used = 0
    order = info.side_order[t][s]
    for c in order[:_TOP_SIDE]:
        if top >> c & 1:
            if missing < 3 and length > missing:
                w = _SIDE_W[missing]
                if used >= 2 and t < 4:
                    w *= 0.5  # third round of a side suit is often ruffed
                total += w
            used += 1
            if used == length:
                break
        else:
            missing += 1
            if missing >= 3:
                break
    if t == NT and length >= 5 and top >> order[0] & 1:
        total += 0.6 * (length - 4)  # a long running suit
    return total


def _stopper(info: RulesInfo, s: int, top: int, length: int) -> int:
    """1 if a no-trump holding stops suit ``s`` (A, Kx or Qxx), else 0."""
    order = info.side_order[NT][s]
    for depth in range(min(3, len(order))):
        if top >> order[depth] & 1 and length > depth:
            return 1
    return 0


def nt_stopper(info: RulesInfo, s: int, hand: int) -> bool:
    """Whether ``hand`` stops natural suit ``s`` in no-trumps (A, Kx or Qxx; jokers not counted)."""
    m = hand & info.masks[NT][s]
    return bool(_stopper(info, s, m & info.top_masks[NT][s], m.bit_count()))


def suit_estimates(info: RulesInfo, hand: int) -> tuple[list[float], float, int]:
    """The hand's own tricks with each trump suit ``S C D H``, its NT tricks and its NT stoppers.

    Trump tricks: trumps walked from the top (joker, bowers, ace, ...) with a weight that falls with
    the number of missing higher trumps and needs guards, plus low trumps beyond what the longest
    opponent probably holds.  Side suits: aces, guarded kings and queens (a third round counts half),
    a void (0.8) or singleton (0.35) with three trumps or more.  NT: jokers, top cards and long running
    suits; a stopper is A, Kx or Qxx.  Values come from memo tables keyed by the raw holdings: one
    look-up per trump holding and one per natural suit holding (which gives that suit's side value
    under every trump, its NT value and whether it is a stopper).
    """
    trump_raw = info.trump_raw
    trump_masks = info.trump_masks
    nat = info.nat_masks
    suit_raw = info.suit_raw
    v0 = suit_raw[0].get(hand & nat[0]) or _suit_row(info, 0, hand & nat[0])
    v1 = suit_raw[1].get(hand & nat[1]) or _suit_row(info, 1, hand & nat[1])
    v2 = suit_raw[2].get(hand & nat[2]) or _suit_row(info, 2, hand & nat[2])
    v3 = suit_raw[3].get(hand & nat[3]) or _suit_row(info, 3, hand & nat[3])
    est = []
    for t in range(4):
        tm = hand & trump_masks[t]
        tt = trump_raw[t].get(tm)
        if tt is None:
            tt = _trump_row(info, t, tm)
        tv, ruff = tt
        i = 2 * t + ruff
        if t != 0:
            tv += v0[i]
        if t != 1:
            tv += v1[i]
        if t != 2:
            tv += v2[i]
        if t != 3:
            tv += v3[i]
        est.append(tv)
    jokers = (hand & info.joker_mask).bit_count()
    nt = float(jokers) + v0[8] + v1[8] + v2[8] + v3[8]
    # Index 9 of a suit row is its stopper flag, always an int (0 or 1).
    stoppers = jokers + int(v0[9]) + int(v1[9]) + int(v2[9]) + int(v3[9])
    return est, nt, stoppers


def _trump_row(info: RulesInfo, t: int, tm: int) -> tuple[float, int]:
    """Memo entry of a raw trump holding: (its trump tricks, 1 if it allows ruffing)."""
    n = tm.bit_count()
    key = (tm & info.top_masks[t][t]) << 5 | n
    tt = info.trump_memo[t].get(key)
    if tt is None:
        tt = info.trump_memo[t][key] = _trump_eval(info, t, tm & info.top_masks[t][t], n)
    row = (tt, 1 if n >= 3 else 0)
    info.trump_raw[t][tm] = row
    return row


def _suit_row(info: RulesInfo, s: int, m: int) -> tuple[float | int, ...]:
    """Memo entry of a raw natural-suit holding ``m`` of suit ``s``.

    Index ``2 * t + ruff``: its side value under trump ``t`` (0 for ``t == s``); 8: its NT value;
    9: 1 if it stops the suit in NT.
    """
    row: list[float | int] = []
    for t in range(4):
        for ruff in (0, 1):
            if t == s:
                row.append(0.0)
                continue
            mt = m & info.masks[t][s]
            length = mt.bit_count()
            top = mt & info.top_masks[t][s]
            key = top << 5 | length
            d = info.side_memo[t][s][ruff]
            x = d.get(key)
            if x is None:
                x = d[key] = _side_eval(info, t, s, top, length, bool(ruff))
            row.append(x)
    mt = m & info.masks[NT][s]
    length = mt.bit_count()
    top = mt & info.top_masks[NT][s]
    key = top << 5 | length
    d = info.side_memo[NT][s][0]
    x = d.get(key)
    if x is None:
        x = d[key] = _side_eval(info, NT, s, top, length, False)
    row.append(x)
    st = info.stop_memo[s].get(key)
    if st is None:
        st = info.stop_memo[s][key] = _stopper(info, s, top, length)
    row.append(st)
    out = tuple(row)
    info.suit_raw[s][m] = out
    return out


def trump_tricks(info: RulesInfo, hand: int, t: int) -> tuple[float, int]:
    """Estimated tricks from the trumps of suit ``t`` in ``hand``, and the trump length."""
    tm = hand & info.masks[t][t]
    n = tm.bit_count()
    return _trump_eval(info, t, tm & info.top_masks[t][t], n), n


def side_tricks(info: RulesInfo, hand: int, t: int, trump_len: int) -> float:
    """Estimated tricks from the side suits (and ruffs) of ``hand`` with trump ``t`` (4 = NT)."""
    masks = info.masks[t]
    ruffing = trump_len >= 3 and t < 4
    total = 0.0
    for s in range(4):
        if s != t:
            m = hand & masks[s]
            total += _side_eval(info, t, s, m & info.top_masks[t][s], m.bit_count(), ruffing)
    return total


def nt_estimate(info: RulesInfo, hand: int) -> tuple[float, int]:
    """Estimated no-trump tricks of ``hand`` and its number of stoppers (suits held, plus jokers)."""
    _, nt, stoppers = suit_estimates(info, hand)
    return nt, stoppers


def misere_danger(info: RulesInfo, hand: int, live_frac: float) -> list[tuple[float, int]]:
    """Danger of each card of ``hand`` in a misère, as ``(danger, card)`` sorted most dangerous first.

    A card is dangerous when many live outside cards of its suit are lower than it, compared with
    how many of the seat's own cards sit below it.  Jokers are always fully dangerous.  Only cards
    with some danger are listed.
    """
    ci = info.suit_info[NT]
    out: list[tuple[float, int]] = []
    for c in info.jokers:
        if hand >> c & 1:
            out.append((2.0, c))
    memos = info.danger_memo.get(live_frac)
    if memos is None:
        memos = info.danger_memo[live_frac] = [{} for _ in range(4)]
    for s in range(4):
        m = hand & ci.suit_mask[s]
        if not m:
            continue
        memo = memos[s]
        part = memo.get(m)
        if part is None:
            part = []
            i = 0
            for c in reversed(info.side_order[NT][s]):  # lowest first
                if m >> c & 1:
                    below = (ci.lower[c] & ~m).bit_count() * live_frac
                    d = (below - i - 0.5) / 1.5
                    if d > 0:
                        part.append((min(d, 1.0), c))
                    i += 1
            memo[m] = part
        out.extend(part)
    out.sort(reverse=True)
    return out


def misere_total(info: RulesInfo, hand: int, live_frac: float) -> float:
    """The sum of :func:`misere_danger` over ``hand`` (jokers 2.0 each), from per-suit memo tables."""
    memos = info.danger_sum_memo.get(live_frac)
    if memos is None:
        memos = info.danger_sum_memo[live_frac] = [{} for _ in range(4)]
    nat = info.nat_masks
    total = 2.0 * (hand & info.joker_mask).bit_count()
    for s in range(4):
        m = hand & nat[s]
        if m:
            x = memos[s].get(m)
            if x is None:
                x = 0.0
                for d, _ in misere_danger(info, m, live_frac):
                    x += d
                memos[s][m] = x
            total += x
    return total


# ------------------------------------------------------------------------------------- determinization


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


def rebuild_state(view: SeatView, hands: list[int], discards: int) -> State:
    """A full :class:`State` at this view's point of the deal, from sampled current hands.

    The deal is rebuilt as if the kitty had been the declarer's discards (the real kitty when the
    seat is the declarer), then the public history
    (auction, discards, joker naming, plays) is replayed, so the result is a legal engine state.
    """
    rules = view.rules
    by = played_by(view)
    dealt = [h | p for h, p in zip(hands, by, strict=True)]
    kitty = discards
    known = view.kitty
    if known is not None:  # the declarer knows the real kitty: keep it
        kitty = known
        dealt[view.seat] = (dealt[view.seat] | discards) & ~known
    st = State(rules, dealt, kitty, view.dealer)
    calls = view.bids
    if calls:
        for a in calls:
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
    for _, a in view.plays:
        st.apply(a)
    st.scores = view.scores
    st.hand_no = view.hand_no
    return st
