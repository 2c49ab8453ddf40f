"""A double-dummy position: every hand open, the contract, and what the deal's history leaves relevant.

:class:`Position` is what :mod:`sim.dd` solves.  It is built from an engine state in the play phase
(:meth:`Position.from_state`) or from the fields of ``fivehundred dd``'s JSON lines
(:meth:`Position.from_fields`).  Who plays, whose turn it is and what may be played are the engine's
(:func:`sim.contract.active_seats`, :func:`sim.contract.next_seat`, :func:`sim.contract.legal_plays`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import flag_mask
from .contract import active_seats, contract_tables, joker_forced, legal_plays, names_jokers, next_seat
from .engine import PLAY, State, compiled
from .notation import NT, parse_bid, parse_joker_suit, suit_index
from .rules import Bid, Rules


@dataclass(frozen=True)
class Position:
    """A play position: every hand open, the contract and what the deal's history leaves relevant.

    ``hands`` holds each seat's remaining cards as a bitmask of engine card ints (a misère
    declarer's sitting-out partners: 0; they are ignored).  ``leader`` led (or is to lead) the
    current trick; ``trick`` holds the cards played to it so far in play order and ``led`` its
    effective suit (``-1`` when ``trick`` is empty; it tells the suit a led suitless joker named).
    ``led_suits`` is the mask of suits led so far in the deal (the suitless joker's lead rule),
    ``tricks_played`` the completed tricks, ``declarer_tricks`` the tricks the declaring side
    (the declarer alone in misère) has won so far, ``jokers_named`` the suit the declarer named
    for each joker (``-1``: none).
    """

    rules: Rules
    contract: Bid
    declarer: int
    leader: int
    hands: tuple[int, ...]
    jokers_named: tuple[int, ...]
    led_suits: int = 0
    tricks_played: int = 0
    declarer_tricks: int = 0
    trick: tuple[int, ...] = ()
    led: int = -1

    @classmethod
    def from_state(cls, state: State) -> Position:
        """The position of an engine state in the play phase."""
        if state.phase != PLAY or state.contract is None:
            raise ValueError("a DD position needs a state in the play phase")
        n = state.comp.n
        trick = tuple(state.trick)
        won = state.declarer_tricks()
        return cls(
            rules=state.rules,
            contract=state.contract,
            declarer=state.declarer,
            leader=state.trick_seats[0] if trick else state.turn,
            hands=tuple(state.hands[s] if state.active[s] else 0 for s in range(n)),
            jokers_named=tuple(state.jokers_named),
            led_suits=state.led_suits,
            tricks_played=state.tricks_played,
            declarer_tricks=won if won is not None else 0,
            trick=trick,
            led=state.led if trick else -1,
        )

    @property
    def active(self) -> tuple[bool, ...]:
        """Which seats play (in misère the declarer's partners sit out): the engine's rule."""
        return tuple(active_seats(self.rules, self.contract, self.declarer))

    @property
    def turn(self) -> int:
        """The seat to move."""
        out = flag_mask([not a for a in self.active])
        seat = self.leader
        for _ in self.trick:
            seat = next_seat(seat, self.rules.players, out)
        return seat

    @property
    def tricks_left(self) -> int:
        """Tricks not completed yet (the current one included)."""
        return self.hands[self.turn].bit_count()

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the seat to move, as the engine's action ints (ascending)."""
        comp = compiled(self.rules)
        tables = contract_tables(self.rules.deck, self.contract.trump, self.jokers_named)
        return legal_plays(
            comp, tables, self.hands[self.turn], self.led if self.trick else -1, self.tricks_played,
            self.led_suits, joker_forced(comp, self.contract),
        )  # fmt: skip

    @classmethod
    def from_fields(
        cls,
        rules: Rules,
        contract: str,
        declarer: int,
        leader: int,
        hands: Sequence[Sequence[str]],
        joker_suit: str | None = None,
        suits_led: Sequence[str] = (),
        tricks_played: int = 0,
        declarer_tricks: int = 0,
    ) -> Position:
        """The position at a trick boundary given in the log's notation (``fivehundred dd``'s fields).

        ``hands``: each seat's remaining cards (the misère declarer's partners: empty); ``joker_suit``:
        one naming per joker still in the declarer's hand, as the log writes it; ``suits_led``: the
        suits led so far; ``leader``: the seat to lead.  ``ValueError`` says what is wrong.
        """
        n = rules.players
        bid = rules.bid_index.get(contract) if isinstance(contract, str) else None
        if bid is None:
            try:
                parse_bid(contract)
            except (ValueError, TypeError):
                raise ValueError(
                    f"contract {contract!r} is not a bid code (6S .. 10NT, MIS, OMIS, BMIS)"
                ) from None
            raise ValueError(f"contract {contract} is not a bid of variant {rules.name}")
        bid_ = rules.ladder[bid]
        for what, seat in (("declarer", declarer), ("leader", leader)):
            if type(seat) is not int or not 0 <= seat < n:
                raise ValueError(f"{what} {seat!r} is not a seat (0..{n - 1})")
        if len(hands) != n:
            raise ValueError(f"hands has {len(hands)} seats, the variant has {n} players")
        active = active_seats(rules, bid_, declarer)
        if not active[leader]:
            raise ValueError(f"leader {leader} sits out (the misère declarer's partner)")
        index = rules.deck.index
        masks: list[int] = []
        seen = 0
        for s, hand in enumerate(hands):
            m = 0
            for name in hand:
                c = index.get(name) if isinstance(name, str) else None
                if c is None:
                    raise ValueError(f"seat {s}'s hand holds {name!r}, not a card of the {rules.name} deck")
                if (seen | m) >> c & 1:
                    raise ValueError(f"card {name} appears twice")
                m |= 1 << c
            seen |= m
            if not active[s] and m:
                raise ValueError(
                    f"seat {s} sits out in {contract} (the declarer's partner): its hand must be empty"
                )
            masks.append(m)
        sizes = {len(hands[s]) for s in range(n) if active[s]}
        if len(sizes) != 1:
            shown = ", ".join(str(len(hands[s])) for s in range(n) if active[s])
            raise ValueError(f"the playing seats' hands have unequal sizes ({shown})")
        size = sizes.pop()
        if size == 0:
            raise ValueError("the hands are empty: no trick is left to play")
        if type(tricks_played) is not int or tricks_played + size != rules.hand_size:
            raise ValueError(
                f"tricks_played {tricks_played!r} with {size} card(s) per hand: "
                f"the two must add up to {rules.hand_size} tricks"
            )
        if type(declarer_tricks) is not int or not 0 <= declarer_tricks <= tricks_played:
            raise ValueError(f"declarer_tricks {declarer_tricks!r} is not 0..tricks_played ({tricks_played})")
        led = 0
        for letter in suits_led:
            try:
                suit = suit_index(letter) if isinstance(letter, str) else NT
            except ValueError as exc:
                raise ValueError(f"suits_led: {exc}") from None
            if suit == NT or led >> suit & 1:
                raise ValueError(f"suits_led: {letter!r} is not a suit S C D H listed once")
            led |= 1 << suit
        if len(suits_led) > tricks_played:
            raise ValueError(
                f"suits_led lists {len(suits_led)} suits but only {tricks_played} tricks were played"
            )
        try:
            namings = (
                parse_joker_suit(joker_suit) if joker_suit is None or isinstance(joker_suit, str) else None
            )
        except ValueError as exc:
            raise ValueError(f"joker_suit: {exc}") from None
        if namings is None:
            raise ValueError(f"joker_suit {joker_suit!r} is not a naming text (H, -,H) or null")
        jokers = rules.deck.jokers
        kept = [j for j, c in enumerate(jokers) if masks[declarer] >> c & 1]
        named = [-1] * len(jokers)
        if namings:
            if not names_jokers(compiled(rules), bid_):
                raise ValueError(f"joker_suit {joker_suit!r}: the declarer names no joker in {contract} here")
            if len(namings) > len(kept):
                raise ValueError(
                    f"joker_suit {joker_suit!r} names more jokers than the declarer holds ({len(kept)})"
                )
            for j, s in zip(kept, namings, strict=False):
                named[j] = s
        return cls(
            rules=rules,
            contract=bid_,
            declarer=declarer,
            leader=leader,
            hands=tuple(masks),
            jokers_named=tuple(named),
            led_suits=led,
            tricks_played=tricks_played,
            declarer_tricks=declarer_tricks,
        )
