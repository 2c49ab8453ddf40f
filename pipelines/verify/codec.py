"""A logged row -> the engine's state: the dealt cards, then every logged action applied with the
engine's legality check.  Every text of the row is read through :mod:`sim.notation`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fivehundred.sim.engine import AUCTION, DONE, JOKER, PLAY, IllegalAction, State
from fivehundred.sim.notation import JOKER_LEAD, NO_SUIT, action_codes, naming_text, parse_joker_suit
from fivehundred.sim.rules import Rules


class Mismatch(Exception):
    """The first problem found while re-running one deal: a kind and a message."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def row_mask(rules: Rules, names: list[str] | None, what: str) -> int:
    """The bitmask of a row's list of card names; :class:`Mismatch` for a null, unknown or repeated card."""
    if names is None:
        raise Mismatch("dealt_cards", f"{what} is null")
    index = rules.deck.index
    m = 0
    for n in names:
        c = index.get(n)
        if c is None:
            raise Mismatch("dealt_cards", f"{what} holds {n!r}, not a card of the {rules.name} deck")
        if m >> c & 1:
            raise Mismatch("dealt_cards", f"{what} holds {n} twice")
        m |= 1 << c
    return m


def dealt_state(rules: Rules, row: dict[str, Any]) -> State:
    """The dealt state of a logged row, from its ``hands``, ``kitty`` and ``dealer`` (checked)."""
    n = rules.players
    hands = row["hands"]
    if hands is None or len(hands) != n:
        raise Mismatch("dealt_cards", f"hands has {0 if hands is None else len(hands)} seats, expected {n}")
    masks = []
    seen = 0
    for s, h in enumerate(hands):
        m = row_mask(rules, h, f"seat {s}'s hand")
        if len(h) != rules.hand_size:
            raise Mismatch("dealt_cards", f"seat {s} was dealt {len(h)} cards, expected {rules.hand_size}")
        if seen & m:
            dup = rules.deck.names_of(seen & m)
            raise Mismatch("dealt_cards", f"card(s) {' '.join(dup)} dealt to two players")
        seen |= m
        masks.append(m)
    kitty = row_mask(rules, row["kitty"], "the kitty")
    if len(row["kitty"]) != rules.kitty_size:
        raise Mismatch("dealt_cards", f"kitty has {len(row['kitty'])} cards, expected {rules.kitty_size}")
    if seen & kitty:
        raise Mismatch(
            "dealt_cards", f"kitty card(s) {' '.join(rules.deck.names_of(seen & kitty))} also dealt"
        )
    dealer = row["dealer"]
    if dealer is None or not 0 <= dealer < n:
        raise Mismatch("dealer_rotation", f"dealer {dealer} is not a seat")
    state = State(rules, masks, kitty, dealer)
    state.hand_no = row["hand_no"] or 0
    return state


@dataclass
class Rerun:
    """What re-running one deal's logged actions gave."""

    state: State
    auction: list[tuple[int, str]]  # (seat, call)
    joker_names: list[str]
    plays: list[tuple[int, str]]  # (seat, logged card)


def rerun(rules: Rules, row: dict[str, Any], state: State | None = None) -> Rerun:
    """Apply a row's logged calls, discards, joker naming and plays to its dealt state.

    Raises :class:`Mismatch` at the first illegal or missing action, or when the logged contract,
    declarer, trick winners or declarer tricks differ from the engine's.
    """
    codec = action_codes(rules)
    st = state if state is not None else dealt_state(rules, row)
    auction: list[tuple[int, str]] = []
    for i, call in enumerate(row["bids"] or ()):
        if st.phase != AUCTION:
            raise Mismatch("auction", f"call {i + 1} ({call}) after the auction had ended")
        a = codec.calls.get(call)
        seat = st.turn
        if a is None:
            raise Mismatch("illegal_action", f"call {i + 1}: {call!r} is not a bid of {rules.name}")
        try:
            st.apply_checked(a)
        except IllegalAction:
            raise Mismatch("illegal_action", f"call {i + 1}: seat {seat} may not call {call} here") from None
        auction.append((seat, call))
    if st.phase == AUCTION:
        raise Mismatch("auction", f"the auction is unfinished after {len(auction)} calls")
    contract = st.contract.code if st.contract is not None else None
    declarer = st.declarer if st.contract is not None else None
    if contract != row["contract"] or declarer != row["declarer"]:
        raise Mismatch(
            "contract",
            f"the auction gives contract {contract} by seat {declarer}, "
            f"the log says {row['contract']} by seat {row['declarer']}",
        )
    discards = row["discards"]
    if contract is None:
        if discards:
            raise Mismatch("illegal_action", "discards logged on a thrown-in deal")
    else:
        if discards is None or len(discards) != rules.kitty_size:
            got = 0 if discards is None else len(discards)
            raise Mismatch(
                "illegal_action", f"{got} discards logged, the declarer must discard {rules.kitty_size}"
            )
        for d in discards:
            c = codec.plays.get(d)
            try:
                if c is None or c >= JOKER_LEAD:
                    raise IllegalAction
                st.apply_checked(c)
            except IllegalAction:
                raise Mismatch("illegal_action", f"discard {d!r} is not in the declarer's hand") from None
    joker_names: list[str] = []
    try:
        named = [naming_text(s) for s in parse_joker_suit(row["joker_suit"])]
    except ValueError:
        raise Mismatch("illegal_action", f"joker_suit {row['joker_suit']!r} names no suit") from None
    while st.phase == JOKER:
        text = named.pop(0) if named else NO_SUIT  # trailing unnamed jokers are not written
        st.apply_checked(codec.namings[text])
        joker_names.append(text)
    if named:
        raise Mismatch(
            "illegal_action", f"joker_suit {row['joker_suit']!r} logged but the declarer names no joker"
        )
    plays: list[tuple[int, str]] = []
    codes = codec.plays
    legal_plays = st.legal_actions
    apply = st.apply
    for i, card in enumerate(row["plays"] or ()):
        a = codes.get(card)
        seat = st.turn
        if st.phase != PLAY or a is None or a not in legal_plays():
            if st.phase != PLAY:
                raise Mismatch("illegal_action", f"play {i + 1} ({card}) after the deal was over")
            what = "is not a card of the deck" if a is None else f"may not be played by seat {seat}"
            raise Mismatch("illegal_action", f"trick {st.tricks_played + 1}: {card!r} {what}")
        apply(a)
        plays.append((seat, card))
    if st.phase != DONE:
        raise Mismatch("illegal_action", f"the play is unfinished after {len(plays)} cards")
    winners = list(row["trick_winners"] or ())
    if winners != st.trick_winners:
        k = next((i for i, (a, b) in enumerate(zip(winners, st.trick_winners, strict=False)) if a != b), None)
        where = (
            f"trick {k + 1}: logged seat {winners[k]}, engine seat {st.trick_winners[k]}"
            if k is not None
            else (f"{len(winners)} winners logged for {len(st.trick_winners)} tricks")
        )
        raise Mismatch("tricks", f"trick winners differ ({where})")
    if row["declarer_tricks"] != st.declarer_tricks():
        raise Mismatch(
            "tricks", f"declarer_tricks is {row['declarer_tricks']}, the tricks give {st.declarer_tricks()}"
        )
    return Rerun(st, auction, joker_names, plays)
