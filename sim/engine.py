"""The deal state: phases, legal actions, applying an action, and what each seat may see.

Actions are small ints in one space (laid out, and written as text, by :mod:`sim.notation`):

- ``0 .. 63``: a card (to discard or to play);
- ``JOKER_LEAD + 4 * j + s``: lead the suitless joker number ``j`` naming suit ``s`` (RULES.md §8);
- ``NAME_SUIT + s`` / ``NAME_NONE``: the declarer names suit ``s`` for a joker, or names nothing;
- ``PASS`` and ``BID + i``: auction calls, ``i`` an index into ``rules.ladder``.

A :class:`State` is mutated in place by :meth:`State.apply` (the fast path used by the game
runner); :func:`step` is the pure form that returns a new state.  :meth:`State.view` gives a
:class:`SeatView`, which exposes only what one seat may know.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from fivehundred.sim.cards import SAME_COLOUR, Deck, bits
from fivehundred.sim.notation import (
    BID,
    JOKER_LEAD,
    NAME_NONE,
    NAME_SUIT,
    PASS,
    action_name,
    parse_call,
    parse_naming,
    parse_play,
)
from fivehundred.sim.seeding import shuffled

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fivehundred.sim.rules import Bid, Rules

#: Bumped whenever a change to the engine changes any result for the same seed.
ENGINE_VERSION: Final = "engine.v2"

# Phases.
AUCTION: Final = 0
KITTY: Final = 1
JOKER: Final = 2
PLAY: Final = 3
DONE: Final = 4

# The action space's constants (JOKER_LEAD, NAME_SUIT, NAME_NONE, PASS, BID) belong to the
# notation (sim/notation.py), which writes and reads actions; they are re-exported here.

_NAMINGS: Final = (NAME_SUIT, NAME_SUIT + 1, NAME_SUIT + 2, NAME_SUIT + 3, NAME_NONE)
_RIGHT_BOWER: Final = 1050
_LEFT_BOWER: Final = 1049


class IllegalAction(ValueError):
    """An action that is not among the legal actions of the state."""


class ContractTables:
    """Per-contract tables: effective suit, suit masks and trick power of every card.

    ``power[c]`` is non-zero for cards that win regardless of the suit led (trumps, the suitless
    joker); ``rank[c]`` ranks a card within its effective suit; ``bowers`` is the mask of the right
    and left bowers of a suit contract (0 otherwise).  Built once per (deck, trump, joker naming)
    and cached.
    """

    __slots__ = ("bowers", "eff_suit", "power", "rank", "suit_mask", "suitless_jokers", "trump")

    def __init__(self, deck: Deck, trump: int, named: tuple[int, ...]) -> None:
        eff = list(deck.suit)
        power = [0] * deck.size
        rank = list(deck.rank)
        suitless = 0
        for j, c in enumerate(deck.jokers):
            if 0 <= trump < 4:
                eff[c] = trump
                power[c] = 1000 + deck.rank[c]
            elif named[j] >= 0:
                eff[c] = named[j]  # a card of that suit only, above its ace
            else:
                suitless |= 1 << c
                power[c] = 10000 + deck.rank[c]
        if 0 <= trump < 4:
            for c in range(deck.size):
                s = deck.suit[c]
                if s == trump:
                    power[c] = _RIGHT_BOWER if deck.rank[c] == 14 else 1000 + deck.rank[c]
                elif s == SAME_COLOUR[trump] and deck.rank[c] == 14:
                    eff[c] = trump
                    power[c] = _LEFT_BOWER
        masks = [0, 0, 0, 0]
        bowers = 0
        for c, s in enumerate(eff):
            if s >= 0:
                masks[s] |= 1 << c
            if power[c] == _RIGHT_BOWER or power[c] == _LEFT_BOWER:
                bowers |= 1 << c
        self.bowers = bowers
        self.trump = trump if 0 <= trump < 4 else -1
        self.eff_suit = tuple(eff)
        self.power = tuple(power)
        self.rank = tuple(rank)
        self.suit_mask = tuple(masks)
        self.suitless_jokers = suitless


@lru_cache(maxsize=4096)
def contract_tables(deck: Deck, trump: int, named: tuple[int, ...]) -> ContractTables:
    """Cached :class:`ContractTables` for a deck, a trump (``4`` or ``-1`` for none) and namings."""
    return ContractTables(deck, trump, named)


def playable_mask(hand: int, suit_cards: int, suitless: int, joker_forced: bool) -> int:
    """The cards of ``hand`` that may be played to a trick whose led suit holds ``suit_cards``.

    Follow suit if able (RULES.md §7); a void player plays any card, except that a suitless joker
    must be played when ``joker_forced`` (misère with the ``pagat`` joker, §8).  ``suitless`` is
    the mask of the suitless jokers.  Shared by the engine and the double-dummy solver
    (:mod:`sim.dd`), which passes masks of its own card numbering.
    """
    follow = hand & suit_cards
    if follow:
        return follow
    jk = hand & suitless
    if jk and joker_forced:
        return jk
    return hand


def trick_winner(tables: ContractTables, cards: Sequence[int], led: int) -> int:
    """The position in ``cards`` (a trick or the trick so far, in the order played) of the card that
    takes it (RULES.md §7): the highest trick power (trumps, a suitless joker), else the highest card
    of the effective suit ``led``; -1 when ``cards`` is empty.  The engine resolves every trick with
    it; a bot reading a trick calls it with its view's ``tables`` and ``led_suit``."""
    power, eff, rank = tables.power, tables.eff_suit, tables.rank
    best = -1
    win = -1
    for i in range(len(cards)):
        c = cards[i]
        p = power[c] or (rank[c] if eff[c] == led else 0)
        if p > best:
            best = p
            win = i
    return win


def next_seat(seat: int, n: int, skip: int = 0) -> int:
    """The seat to the left of ``seat`` at a table of ``n`` (the auction and the play go clockwise),
    passing over the seats of the ``skip`` mask (bit ``s``: seat ``s``), which must leave one seat."""
    nxt = (seat + 1) % n
    while skip >> nxt & 1:
        nxt = (nxt + 1) % n
    return nxt


def joker_lead_suits(comp: CompiledRules, tricks_played: int, led_suits: int, other_cards: bool) -> int:
    """Bitmask of the suits a suitless joker may name when led (RULES.md §8 and the switches).

    ``led_suits`` is the mask of suits led so far in the deal, ``other_cards`` whether the leader
    holds a card other than suitless jokers.  Shared by the engine and :mod:`sim.dd`.
    """
    last = tricks_played == comp.hand_size - 1
    if comp.joker_lead_only_last_trick:
        suits = 15 if last else 0
    elif comp.joker_north_american:
        suits = 15
    else:
        unled = 15 & ~led_suits
        suits = unled if unled else (15 if last else 0)
    if not suits and not other_cards:
        suits = 15  # only jokers left (two-joker deck): any suit rather than no move
    return suits


class CompiledRules:
    """Tables derived once from a :class:`~sim.rules.Rules`: auction legality and the deal plan."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        ladder = rules.ladder
        self.n = rules.players
        self.no_named = tuple(-1 for _ in rules.deck.jokers)
        self.all_seats = (1 << self.n) - 1  # the mask of every seat
        self.open_bids: tuple[bool, ...] = tuple(bool(b.open) for b in ladder)  # per ladder index
        # The switches the state machine reads at every step, copied once (fast attributes).
        self.teams: int = rules.teams
        self.hand_size: int = rules.hand_size
        self.kitty_size: int = rules.kitty_size
        self.jokers: tuple[int, ...] = tuple(rules.deck.jokers)
        self.ladder = tuple(ladder)
        self.joker_pagat: bool = rules.joker_no_trump == "pagat"
        self.joker_north_american: bool = rules.joker_no_trump == "north_american"
        self.joker_lead_only_last_trick: bool = bool(rules.joker_lead_only_last_trick)
        self.declarer_raise: bool = bool(rules.declarer_raise)
        # Deal plan: for each position of the shuffled deck, the receiver as an offset from the
        # dealer (1 = left of the dealer ... n = dealer) or 0 for the kitty.
        plan: list[int] = []
        for who, count in rules.deal_pattern:
            if who == "kitty":
                plan.extend([0] * count)
            else:
                for off in range(1, self.n + 1):
                    plan.extend([off] * count)
        self.deal_plan = tuple(plan)
        # For each dealer: the positions of the shuffled deck that each seat receives, then the kitty's.
        positions = []
        for dealer in range(self.n):
            per: list[list[int]] = [[] for _ in range(self.n + 1)]
            for i, off in enumerate(plan):
                per[(dealer + off) % self.n if off else self.n].append(i)
            positions.append(tuple(tuple(p) for p in per))
        self.deal_positions = tuple(positions)
        # Legal bids above each high bid (index -1 = no bid yet), without and with blind misère.
        restricted = rules.misere == "after_seven"
        above: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for high in range(-1, len(ladder)):
            high_rank = ladder[high].rank if high >= 0 else -1
            seven = high >= 0 and ladder[high].tricks == 7
            normal: list[int] = [PASS]
            first: list[int] = [PASS]
            for i, b in enumerate(ladder):
                if b.rank <= high_rank:
                    continue
                if b.misere and not b.open and not b.blind and restricted and not seven:
                    continue
                if not b.blind:
                    normal.append(BID + i)
                first.append(BID + i)
            above.append((tuple(normal), tuple(first)))
        self.bids_above = tuple(above)


def compiled(rules: Rules) -> CompiledRules:
    """The :class:`CompiledRules` of a rule set, built once and kept on the rules object."""
    return rules.derived("_compiled", CompiledRules)


class State:
    """One deal, from the auction to the score.  Mutable; see :func:`step` for the pure form."""

    __slots__ = (
        "active",
        "bid_seats",
        "bids",
        "comp",
        "contract",
        "dealer",
        "dealt",
        "declarer",
        "discard_order",
        "discards",
        "hand_no",
        "hands",
        "high",
        "high_bidder",
        "jokers_named",
        "kitty",
        "kitty_dealt",
        "led",
        "led_suits",
        "n_active",
        "n_passed",
        "naming_index",
        "next_active",
        "passed",
        "phase",
        "play_seats",
        "played",
        "plays",
        "raise_turn",
        "rules",
        "score_delta",
        "scores",
        "spoken",
        "tables",
        "trick",
        "trick_seats",
        "trick_winners",
        "tricks_played",
        "tricks_won",
        "turn",
    )  # fmt: skip

    def __init__(self, rules: Rules, hands: list[int], kitty: int, dealer: int) -> None:
        comp = compiled(rules)
        n = comp.n
        self.rules = rules
        self.comp = comp
        self.hands = list(hands)
        self.dealt = tuple(hands)
        self.kitty = kitty
        self.kitty_dealt = kitty
        self.dealer = dealer
        self.phase = AUCTION
        self.turn = (dealer + 1) % n
        self.bids: list[int] = []
        self.bid_seats: list[int] = []
        self.passed = [False] * n
        self.spoken = [False] * n
        self.n_passed = 0
        self.high = -1
        self.high_bidder = -1
        self.raise_turn = False
        self.contract: Bid | None = None
        self.declarer = -1
        self.discards = 0
        self.discard_order: list[int] = []
        self.jokers_named: list[int] = list(comp.no_named)
        self.naming_index = 0
        self.tables: ContractTables | None = None
        self.active = [True] * n
        self.n_active = n
        self.next_active = [next_seat(s, n) for s in range(n)]
        self.trick: list[int] = []
        self.trick_seats: list[int] = []
        self.led = -1
        self.led_suits = 0
        self.plays: list[int] = []
        self.play_seats: list[int] = []
        self.played = 0
        self.trick_winners: list[int] = []
        self.tricks_played = 0
        self.tricks_won = [0] * n
        self.score_delta: list[int] | None = None
        self.scores: tuple[int, ...] = (0,) * rules.teams
        self.hand_no = 0

    # ---------------------------------------------------------------- construction

    @classmethod
    def deal(cls, rules: Rules, seed_of_deal: int, dealer: int) -> State:
        """Shuffle with ``seed_of_deal`` and deal by the rules' pattern, starting left of the dealer."""
        comp = compiled(rules)
        order = shuffled(seed_of_deal, rules.deck.size)
        hands = []
        for positions in comp.deal_positions[dealer]:
            m = 0
            for i in positions:
                m |= 1 << order[i]
            hands.append(m)
        kitty = hands.pop()
        return cls(rules, hands, kitty, dealer)

    def clone(self) -> State:
        """A copy that can be changed without touching this state (every field; lists copied)."""
        new = State(self.rules, self.hands, self.kitty, self.dealer)  # list(hands) copied there
        new.dealt = self.dealt
        new.kitty_dealt = self.kitty_dealt
        new.phase = self.phase
        new.turn = self.turn
        new.bids = list(self.bids)
        new.bid_seats = list(self.bid_seats)
        new.passed = list(self.passed)
        new.spoken = list(self.spoken)
        new.n_passed = self.n_passed
        new.high = self.high
        new.high_bidder = self.high_bidder
        new.raise_turn = self.raise_turn
        new.contract = self.contract
        new.declarer = self.declarer
        new.discards = self.discards
        new.discard_order = list(self.discard_order)
        new.jokers_named = list(self.jokers_named)
        new.naming_index = self.naming_index
        new.tables = self.tables
        new.active = list(self.active)
        new.n_active = self.n_active
        new.next_active = list(self.next_active)
        new.trick = list(self.trick)
        new.trick_seats = list(self.trick_seats)
        new.led = self.led
        new.led_suits = self.led_suits
        new.plays = list(self.plays)
        new.play_seats = list(self.play_seats)
        new.played = self.played
        new.trick_winners = list(self.trick_winners)
        new.tricks_played = self.tricks_played
        new.tricks_won = list(self.tricks_won)
        new.score_delta = list(self.score_delta) if self.score_delta is not None else None
        new.scores = self.scores
        new.hand_no = self.hand_no
        return new

    def force_contract(self, code: str, declarer: int) -> None:
        """Skip the auction: make ``code`` the contract with ``declarer`` (for what-if analyses).

        Only valid before any call of the auction.  ``bids`` stays empty.
        """
        if self.phase != AUCTION or self.bids:
            raise IllegalAction("a contract can only be forced before the auction starts")
        if not 0 <= declarer < self.comp.n:
            raise IllegalAction(f"no seat {declarer}")
        self.high = self.rules.bid_index.get(code, -1)
        if self.high < 0:
            self.rules.bid(code)  # raises with the list of bids
        self.high_bidder = declarer
        self._end_auction()

    # ---------------------------------------------------------------- queries

    @property
    def done(self) -> bool:
        """True once the deal is scored (or thrown in)."""
        return self.phase == DONE

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the seat to act, ascending (never empty while the deal is live)."""
        phase = self.phase
        if phase == PLAY:
            return self._legal_plays()
        if phase == AUCTION:
            return self.comp.bids_above[self.high + 1][0 if self.spoken[self.turn] else 1]
        if phase == KITTY:
            return bits(self.hands[self.declarer])
        if phase == JOKER:
            return _NAMINGS
        return ()

    def _legal_plays(self) -> tuple[int, ...]:
        hand = self.hands[self.turn]
        t = self.tables
        assert t is not None
        if self.trick:
            return bits(playable_mask(hand, t.suit_mask[self.led], t.suitless_jokers, self.joker_forced()))
        jk = hand & t.suitless_jokers
        if not jk:
            return bits(hand)
        acts = list(bits(hand ^ jk))
        suits = joker_lead_suits(self.comp, self.tricks_played, self.led_suits, hand != jk)
        for j, c in enumerate(self.comp.jokers):
            if jk >> c & 1:
                base = JOKER_LEAD + 4 * j
                acts.extend(base + s for s in range(4) if suits >> s & 1)
        return tuple(acts)

    def joker_forced(self) -> bool:
        """Whether a player void in the suit led must play a suitless joker (misère, ``pagat`` joker)."""
        contract = self.contract
        return contract is not None and contract.misere and self.comp.joker_pagat

    # ---------------------------------------------------------------- transitions

    def apply(self, action: int) -> None:
        """Apply a legal action of the seat to act (unchecked: see :meth:`apply_checked`)."""
        phase = self.phase
        if phase == PLAY:
            self._play(action)
        elif phase == AUCTION:
            self._call(action)
        elif phase == KITTY:
            self._discard(action)
        elif phase == JOKER:
            self._name(action)
        else:
            raise IllegalAction("the deal is over")

    def apply_checked(self, action: int) -> None:
        """Apply an action after checking that it is legal."""
        if action not in self.legal_actions():
            raise IllegalAction(f"action {action_name(self.rules, action)} is not legal now")
        self.apply(action)

    def _call(self, action: int) -> None:
        seat = self.turn
        n = self.comp.n
        self.bids.append(action)
        self.bid_seats.append(seat)
        self.spoken[seat] = True
        if self.raise_turn:
            if action != PASS:
                self.high = action - BID
            self._end_auction()
            return
        if action == PASS:
            self.passed[seat] = True
            self.n_passed += 1
            if self.n_passed == n:
                self._throw_in()
                return
            if self.high >= 0 and self.n_passed == n - 1:
                if self.comp.declarer_raise:
                    self.raise_turn = True
                    self.turn = self.high_bidder
                    return
                self._end_auction()
                return
        else:
            self.high = action - BID
            self.high_bidder = seat
            if self.n_passed == n - 1:  # the others had all passed already: the auction is over
                self._end_auction()
                return
        self.turn = next_seat(seat, n, _flag_mask(self.passed))

    def _throw_in(self) -> None:
        self.phase = DONE
        self.turn = -1
        self.score_delta = [0] * self.comp.teams

    def _end_auction(self) -> None:
        self.contract = self.comp.ladder[self.high]
        self.declarer = self.high_bidder
        self.phase = KITTY
        self.turn = self.declarer
        self.hands[self.declarer] |= self.kitty

    def _discard(self, card: int) -> None:
        d = self.declarer
        self.hands[d] ^= 1 << card
        self.discards |= 1 << card
        self.discard_order.append(card)
        if len(self.discard_order) < self.comp.kitty_size:
            return
        contract = self.contract
        assert contract is not None
        if contract.no_trump and self.comp.joker_pagat:
            for j, c in enumerate(self.comp.jokers):
                if self.hands[d] >> c & 1:
                    self.naming_index = j
                    self.phase = JOKER
                    return
        self._start_play()

    def _name(self, action: int) -> None:
        d = self.declarer
        self.jokers_named[self.naming_index] = action - NAME_SUIT if action != NAME_NONE else -1
        jokers = self.comp.jokers
        for j in range(self.naming_index + 1, len(jokers)):
            if self.hands[d] >> jokers[j] & 1:
                self.naming_index = j
                return
        self._start_play()

    def _start_play(self) -> None:
        rules = self.rules
        contract = self.contract
        assert contract is not None
        self.tables = contract_tables(rules.deck, contract.trump, tuple(self.jokers_named))
        n = self.comp.n
        d = self.declarer
        if contract.misere:  # the declarer's partners lay their hands down and sit out
            team = d % rules.teams
            self.active = [s == d or s % rules.teams != team for s in range(n)]
            self.n_active = sum(self.active)
            out = _flag_mask([not a for a in self.active])
            self.next_active = [next_seat(s, n, out) for s in range(n)]
        self.phase = PLAY
        self.turn = d

    def _play(self, action: int) -> None:
        seat = self.turn
        trick = self.trick
        if action >= JOKER_LEAD:
            j, s = divmod(action - JOKER_LEAD, 4)
            card = self.comp.jokers[j]
            self.led = s
            self.led_suits |= 1 << s
        else:
            card = action
            if not trick:
                tables = self.tables
                assert tables is not None
                self.led = led = tables.eff_suit[card]
                self.led_suits |= 1 << led
        bit = 1 << card
        self.hands[seat] ^= bit
        self.played |= bit
        trick.append(card)
        self.trick_seats.append(seat)
        self.plays.append(action)
        self.play_seats.append(seat)
        if len(trick) < self.n_active:
            self.turn = self.next_active[seat]
            return
        # Resolve the trick.
        t = self.tables
        assert t is not None
        winner = self.trick_seats[trick_winner(t, trick, self.led)]
        self.tricks_won[winner] += 1
        self.trick_winners.append(winner)
        self.tricks_played += 1
        self.trick = []
        self.trick_seats = []
        self.turn = winner
        contract = self.contract
        assert contract is not None
        if (contract.misere and winner == self.declarer) or self.tricks_played == self.comp.hand_size:
            self._score()

    def _score(self) -> None:
        rules = self.rules
        contract = self.contract
        assert contract is not None
        teams = rules.teams
        dteam = self.declarer % teams
        delta = [0] * teams
        if contract.misere:
            delta[dteam] = rules.declarer_points(contract, self.tricks_won[self.declarer])
        else:
            team_tricks = [0] * teams
            for s, w in enumerate(self.tricks_won):
                team_tricks[s % teams] += w
            delta[dteam] = rules.declarer_points(contract, team_tricks[dteam])
            for t in range(teams):
                if t != dteam:
                    delta[t] = rules.defender_points(team_tricks[t])
        self.score_delta = delta
        self.phase = DONE
        self.turn = -1

    # ---------------------------------------------------------------- derived results

    def declarer_tricks(self) -> int | None:
        """Tricks won by the declaring side (by the declarer alone in misère), or None."""
        if self.contract is None:
            return None
        if self.contract.misere:
            return self.tricks_won[self.declarer]
        teams = self.rules.teams
        team = self.declarer % teams
        return sum(w for s, w in enumerate(self.tricks_won) if s % teams == team)

    def made(self) -> bool | None:
        """Whether the contract was made (None for a thrown-in deal or a live one)."""
        if self.contract is None or self.score_delta is None:
            return None
        return self.score_delta[self.declarer % self.rules.teams] > 0

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know of this deal."""
        return SeatView(self, seat)


def step(state: State, action: int) -> State:
    """Pure transition: a new state with ``action`` applied (``state`` is unchanged)."""
    new = state.clone()
    new.apply_checked(action)
    return new


def _flag_mask(flags: list[bool]) -> int:
    """A list of flags as a bitmask (bit ``i`` = ``flags[i]``)."""
    m = 0
    for i, f in enumerate(flags):
        if f:
            m |= 1 << i
    return m


def _mask_flags(m: int, n: int) -> tuple[bool, ...]:
    """The ``n`` flags of a bitmask made by :func:`_flag_mask`."""
    return tuple([m >> i & 1 == 1 for i in range(n)])


def _pack(values: list[int], offset: int) -> int:
    """Small non-negative ints (after adding ``offset``) as one int, 8 bits each."""
    m = 0
    shift = 0
    for v in values:
        m |= (v + offset) << shift
        shift += 8
    return m


def _unpack(m: int, n: int, offset: int) -> tuple[int, ...]:
    """The ``n`` values of an int made by :func:`_pack` with the same ``offset``."""
    return tuple([(m >> (8 * i) & 255) - offset for i in range(n)])


def _own_copy(t: tuple[Any, ...]) -> Any:
    """A new tuple equal to ``t`` (``tuple(t)`` would return ``t`` itself); its items as objects,
    so that compiled code copies references instead of unboxing and boxing ints."""
    if len(t) == 2:
        return (t[0], t[1])
    if len(t) == 3:
        return (t[0], t[1], t[2])
    return tuple(list(t))


class SeatView:
    """The information state of one seat at one decision (OpenSpiel's information state, as an object).

    It holds the seat's own hand, the auction, the contract, every card played, the kitty and the
    discards only for the declarer, the open-misère declarer's hand only after the first trick,
    and the game scores.  It is a snapshot: built from the state when the seat is asked to act, it
    keeps no reference to the state and does not change afterwards (take a new view to see later
    actions).  What it holds is either made for it alone (ints, tuples of ints) or shared, immutable
    and public (the rules, the contract's bid, the contract tables): nothing reachable from it
    leads to the state, to another seat's view or hand, to a random stream or to a seed.
    docs/strategies.md says what that does and does not protect against in-process.

    A snapshot is taken at every decision, so it copies as little as it can: the per-seat flags
    (:attr:`passed`, :attr:`active`) and :attr:`jokers_named` are kept as ints, the current
    :attr:`trick` as its length (it is the tail of :attr:`plays`) and :attr:`tricks_won` as
    :attr:`trick_winners`; those properties build their tuples when read.
    """

    __slots__ = (
        "_active",
        "_high",
        "_named",
        "_pairs",
        "_passed",
        "_play_seats",
        "_plays",
        "_trick_len",
        "bid_seats",
        "bids",
        "contract",
        "dealer",
        "declarer",
        "discards",
        "exposed",
        "hand",
        "hand_no",
        "high_bidder",
        "kitty",
        "led_suit",
        "led_suits",
        "phase",
        "played",
        "rules",
        "scores",
        "seat",
        "tables",
        "trick_winners",
        "turn",
    )  # fmt: skip

    #: The seat whose view this is.
    seat: int
    #: The rule set.
    rules: Rules
    #: The deal's phase (``AUCTION``, ``KITTY``, ``JOKER``, ``PLAY``, ``DONE``).
    phase: int
    #: The dealer's seat.
    dealer: int
    #: The seat to act.
    turn: int
    #: Each team's game score before this deal.
    scores: tuple[int, ...]
    #: This deal's number within its game.
    hand_no: int
    #: This seat's current cards (bitmask); the declarer's includes the kitty until discarded.
    hand: int
    #: Every auction call so far, in order from the player left of the dealer.
    bids: tuple[int, ...]
    #: The seat that made each auction call of :attr:`bids` (turns skip passed players).
    bid_seats: tuple[int, ...]
    #: Seat of the highest bid so far, or -1.
    high_bidder: int
    #: The contract, once the auction is over.
    contract: Bid | None
    #: The declarer's seat, or -1.
    declarer: int
    #: The kitty as dealt: known to the declarer only, after the auction.
    kitty: int | None
    #: The declarer's discards: known to the declarer only.
    discards: int | None
    #: The contract's card tables (effective suits, powers); None before play.
    tables: ContractTables | None
    #: The effective suit led to the current trick, or -1.
    led_suit: int
    #: Bitmask (bit = suit) of the suits led so far in this deal.
    led_suits: int
    #: Bitmask of every card played so far.
    played: int
    #: The winner of each completed trick.
    trick_winners: tuple[int, ...]
    #: The open-misère declarer's remaining hand, exposed to all after the first trick.
    exposed: int | None

    def __init__(self, state: State, seat: int) -> None:
        s = state
        self.seat = seat
        self.rules = s.rules
        phase = s.phase
        self.phase = phase
        self.dealer = s.dealer
        self.turn = s.turn
        self.scores = _own_copy(s.scores)
        self.hand_no = s.hand_no
        self.hand = s.hands[seat] ^ 0  # a new int: nothing else refers to this one
        self.bids = tuple(s.bids)
        self.bid_seats = tuple(s.bid_seats)
        self._high = s.high
        self.high_bidder = s.high_bidder
        self._passed = _flag_mask(s.passed) if s.n_passed else 0
        contract = s.contract
        declarer = s.declarer
        self.contract = contract
        self.declarer = declarer
        if seat == declarer:
            self.kitty = s.kitty_dealt ^ 0
            self.discards = s.discards ^ 0
        else:
            self.kitty = None
            self.discards = None
        self._named = _pack(s.jokers_named, 1) if phase >= PLAY else 0
        self.tables = s.tables
        self._active = s.comp.all_seats if s.n_active == s.comp.n else _flag_mask(s.active)
        self._trick_len = len(s.trick)
        self.led_suit = s.led if s.trick else -1
        self.led_suits = s.led_suits
        self._plays = tuple(s.plays)
        self._play_seats = tuple(s.play_seats)
        self._pairs: tuple[tuple[int, int], ...] | None = None
        self.played = s.played ^ 0
        self.trick_winners = tuple(s.trick_winners)
        if phase == PLAY and s.tricks_played >= 1 and s.comp.open_bids[s.high]:
            self.exposed = s.hands[declarer] ^ 0
        else:
            self.exposed = None

    @property
    def high_bid(self) -> Bid | None:
        """The highest bid so far (the contract once the auction is over)."""
        return self.rules.ladder[self._high] if self._high >= 0 else None

    @property
    def passed(self) -> tuple[bool, ...]:
        """Which seats have passed in the auction."""
        return _mask_flags(self._passed, self.rules.players)

    @property
    def active(self) -> tuple[bool, ...]:
        """Which seats take part in the play (a misère declarer's partners sit out)."""
        return _mask_flags(self._active, self.rules.players)

    @property
    def tricks_won(self) -> tuple[int, ...]:
        """Tricks won so far by each seat."""
        won = [0] * self.rules.players
        for w in self.trick_winners:
            won[w] += 1
        return tuple(won)

    @property
    def jokers_named(self) -> tuple[int, ...]:
        """The suit named for each joker by the declarer (-1: none), public once play starts."""
        return _unpack(self._named, len(self.rules.deck.jokers), 1)

    @property
    def trick(self) -> tuple[tuple[int, int], ...]:
        """The current trick as (seat, card) pairs (a led suitless joker as its card)."""
        plays, seats = self._plays, self._play_seats
        end = len(plays)
        out = []
        for i in range(end - self._trick_len, end):
            a = plays[i]
            if a >= JOKER_LEAD:  # a led suitless joker: its card
                a = self.rules.deck.jokers[(a - JOKER_LEAD) >> 2]
            out.append((seats[i], a))
        return tuple(out)

    @property
    def plays(self) -> tuple[tuple[int, int], ...]:
        """Every play so far as (seat, action); a led suitless joker keeps its naming action."""
        pairs = self._pairs
        if pairs is None:
            pairs = tuple(zip(self._play_seats, self._plays))  # noqa: B905 (equal lengths by construction)
            self._pairs = pairs
        return pairs


#: The fields of :func:`view_fields`, in order (the isolation mode's wire format).
VIEW_FIELDS: Final = (
    "seat",
    "phase",
    "dealer",
    "turn",
    "scores",
    "hand_no",
    "hand",
    "bids",
    "bid_seats",
    "_high",
    "high_bidder",
    "passed",
    "declarer",
    "kitty",
    "discards",
    "jokers_named",
    "active",
    "_trick_len",
    "led_suit",
    "led_suits",
    "_plays",
    "_play_seats",
    "played",
    "trick_winners",
    "exposed",
)


def view_fields(view: SeatView) -> list[Any]:
    """A view as plain data (ints, None, lists of ints) in :data:`VIEW_FIELDS` order: no rules, tables
    or contract object (:class:`PlainView` rebuilds them from the rules and the bid index)."""
    return [
        view.seat,
        view.phase,
        view.dealer,
        view.turn,
        list(view.scores),
        view.hand_no,
        view.hand,
        list(view.bids),
        list(view.bid_seats),
        view._high,
        view.high_bidder,
        list(view.passed),
        view.declarer,
        view.kitty,
        view.discards,
        list(view.jokers_named),
        list(view.active),
        view._trick_len,
        view.led_suit,
        view.led_suits,
        list(view._plays),
        list(view._play_seats),
        view.played,
        list(view.trick_winners),
        view.exposed,
    ]


class PlainView(SeatView):
    """A :class:`SeatView` rebuilt from :func:`view_fields` data and the rules (in another process).

    The contract is the auction's highest bid once the auction is over, the tables are those of the
    contract and the named jokers: the same public API, the same values, as the view it was made from.
    """

    __slots__ = ()

    def __init__(self, rules: Rules, f: list[Any]) -> None:
        self.rules = rules
        self.seat = int(f[0])
        self.phase = int(f[1])
        self.dealer = int(f[2])
        self.turn = int(f[3])
        self.scores = tuple(int(x) for x in f[4])
        self.hand_no = int(f[5])
        self.hand = int(f[6])
        self.bids = tuple(int(x) for x in f[7])
        self.bid_seats = tuple(int(x) for x in f[8])
        self._high = int(f[9])
        self.high_bidder = int(f[10])
        self._passed = _flag_mask([bool(x) for x in f[11]])
        self.declarer = int(f[12])
        self.kitty = None if f[13] is None else int(f[13])
        self.discards = None if f[14] is None else int(f[14])
        named = tuple(int(x) for x in f[15])
        self._named = _pack(list(named), 1)
        self._active = _flag_mask([bool(x) for x in f[16]])
        self._trick_len = int(f[17])
        self.led_suit = int(f[18])
        self.led_suits = int(f[19])
        self._plays = tuple(int(x) for x in f[20])
        self._play_seats = tuple(int(x) for x in f[21])
        self._pairs = None
        self.played = int(f[22])
        self.trick_winners = tuple(int(x) for x in f[23])
        self.exposed = None if f[24] is None else int(f[24])
        contract = rules.ladder[self._high] if self.declarer >= 0 and self._high >= 0 else None
        self.contract = contract
        if contract is not None and self.phase >= PLAY:
            self.tables = contract_tables(rules.deck, contract.trump, named)
        else:
            self.tables = None


class BlankView(SeatView):
    """Handed to strategies that declare ``uses_view = False``: only :attr:`seat` is set.

    Reading anything else raises ``AttributeError``; the game runner then builds no snapshot.
    """

    __slots__ = ()

    def __init__(self, seat: int) -> None:
        self.seat = seat


def parse_action(rules: Rules, text: str, phase: int) -> int:
    """The action a log text stands for in a phase (the inverse of :func:`sim.notation.action_name`):
    a call in the auction, a naming in the joker phase, a card (or a led joker) otherwise.
    ``KeyError``/``ValueError`` on bad text (the notation's parsers)."""
    if phase == AUCTION:
        return parse_call(rules, text)
    if phase == JOKER:
        return parse_naming(text)
    return parse_play(rules, text)
