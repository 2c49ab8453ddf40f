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

from typing import TYPE_CHECKING, Final

from fivehundred.sim.cards import bits, flag_mask
from fivehundred.sim.contract import (
    ContractTables,
    active_seats,
    contract_tables,
    joker_forced,
    legal_plays,
    names_jokers,
    next_seat,
    trick_winner,
)
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
from fivehundred.sim.phases import AUCTION, DONE, JOKER, KITTY, PLAY
from fivehundred.sim.seeding import shuffled
from fivehundred.sim.view import SeatView

if TYPE_CHECKING:
    from fivehundred.sim.rules import Bid, Rules

#: Bumped whenever a change to the engine changes any result for the same seed.
ENGINE_VERSION: Final = "engine.v2"

# The action space's constants (JOKER_LEAD, NAME_SUIT, NAME_NONE, PASS, BID) belong to the
# notation (sim/notation.py), which writes and reads actions; the phases to sim/phases.py, the
# contract tables and the rules of play to sim/contract.py, the seat views to sim/view.py.  They are
# re-exported here.

_NAMINGS: Final = (NAME_SUIT, NAME_SUIT + 1, NAME_SUIT + 2, NAME_SUIT + 3, NAME_NONE)


class IllegalAction(ValueError):
    """An action that is not among the legal actions of the state."""


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
        t = self.tables
        assert t is not None
        return legal_plays(
            self.comp, t, self.hands[self.turn], self.led if self.trick else -1, self.tricks_played,
            self.led_suits, self.joker_forced(),
        )  # fmt: skip

    def joker_forced(self) -> bool:
        """Whether a player void in the suit led must play a suitless joker (misère, ``pagat`` joker)."""
        contract = self.contract
        return contract is not None and joker_forced(self.comp, contract)

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
        self.turn = next_seat(seat, n, flag_mask(self.passed))

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
        if names_jokers(self.comp, contract):
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
            self.active = active_seats(rules, contract, d)
            self.n_active = sum(self.active)
            out = flag_mask([not a for a in self.active])
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
        """What ``seat`` may know of this deal (a :class:`~sim.view.SeatView` snapshot)."""
        return SeatView(self, seat)


def step(state: State, action: int) -> State:
    """Pure transition: a new state with ``action`` applied (``state`` is unchanged)."""
    new = state.clone()
    new.apply_checked(action)
    return new


def parse_action(rules: Rules, text: str, phase: int) -> int:
    """The action a log text stands for in a phase (the inverse of :func:`sim.notation.action_name`):
    a call in the auction, a naming in the joker phase, a card (or a led joker) otherwise.
    ``KeyError``/``ValueError`` on bad text (the notation's parsers)."""
    if phase == AUCTION:
        return parse_call(rules, text)
    if phase == JOKER:
        return parse_naming(text)
    return parse_play(rules, text)
