"""What one seat may know of a deal: :class:`SeatView`, the snapshot a strategy is handed at each
decision, and its plain-data form (:func:`view_fields`, :class:`PlainView`) for a strategy in
another process.

A view is built from a :class:`~sim.engine.State` and keeps no reference to it: nothing reachable
from a view leads to the state, to another seat's cards, to a random stream or to a seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from fivehundred.sim.cards import flag_mask
from fivehundred.sim.contract import ContractTables, contract_tables
from fivehundred.sim.notation import JOKER_LEAD
from fivehundred.sim.phases import PLAY

if TYPE_CHECKING:
    from fivehundred.sim.engine import State
    from fivehundred.sim.rules import Bid, Rules


def _mask_flags(m: int, n: int) -> tuple[bool, ...]:
    """The ``n`` flags of a bitmask made by :func:`sim.cards.flag_mask`."""
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
        self._passed = flag_mask(s.passed) if s.n_passed else 0
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
        self._active = s.comp.all_seats if s.n_active == s.comp.n else flag_mask(s.active)
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
        self._passed = flag_mask([bool(x) for x in f[11]])
        self.declarer = int(f[12])
        self.kitty = None if f[13] is None else int(f[13])
        self.discards = None if f[14] is None else int(f[14])
        named = tuple(int(x) for x in f[15])
        self._named = _pack(list(named), 1)
        self._active = flag_mask([bool(x) for x in f[16]])
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
