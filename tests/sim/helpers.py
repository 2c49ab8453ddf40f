"""Helpers for hand-made positions: build a deal from card names and drive it with log notation."""

from __future__ import annotations

from fivehundred.sim import (
    AUCTION,
    PLAY,
    Rules,
    State,
    action_name,
    first_legal,
    load_rules,
    parse_action,
    play_out,
)
from fivehundred.sim.cards import iter_bits

PAGAT = load_rules("pagat-au")


def build(rules: Rules, hands: list[str], kitty: str, dealer: int = 3) -> State:
    """A dealt state from every seat's cards and the kitty; they must be the whole deck exactly."""
    masks = [rules.deck.mask(h) for h in hands]
    k = rules.deck.mask(kitty)
    total = 0
    for m in [*masks, k]:
        assert total & m == 0, f"card given twice: {rules.deck.names_of(total & m)}"
        total |= m
    missing = rules.deck.names_of(rules.deck.full_mask ^ total)
    assert not missing, f"cards missing: {missing}"
    assert all(len(h.split()) == rules.hand_size for h in hands)
    assert len(kitty.split()) == rules.kitty_size
    return State(rules, masks, k, dealer)


def fill(rules: Rules, hands: list[str], kitty: str = "", dealer: int = 3) -> State:
    """A dealt state where each seat holds the named cards; the rest go in deck order to fill up."""
    deck = rules.deck
    masks = [deck.mask(h) for h in hands]
    k = deck.mask(kitty)
    used = k
    for m in masks:
        assert used & m == 0, f"card given twice: {deck.names_of(used & m)}"
        used |= m
    free = [c for c in range(deck.size) if not used >> c & 1]
    for s in range(rules.players):
        while masks[s].bit_count() < rules.hand_size:
            masks[s] |= 1 << free.pop(0)
    while k.bit_count() < rules.kitty_size:
        k |= 1 << free.pop(0)
    assert not free
    return State(rules, masks, k, dealer)


def act(state: State, text: str) -> State:
    """Apply space-separated actions in log notation (``P 7H MIS``, ``TS 9S``, ``JK=H``), checked."""
    for word in text.split():
        state.apply_checked(parse_action(state.rules, word, state.phase))
    return state


def legal(state: State) -> set[str]:
    """The legal actions of the seat to act, in log notation."""
    return {action_name(state.rules, a) for a in state.legal_actions()}


def cards(rules: Rules, mask: int) -> set[str]:
    """Card names of a mask."""
    return {rules.deck.names[c] for c in iter_bits(mask)}


def start(
    rules: Rules, hands: list[str], kitty: str, contract: str, declarer: int, discard: str, name: str = ""
) -> State:
    """A built deal with a forced contract, the discards made and (if asked) the joker named."""
    s = build(rules, hands, kitty)
    s.force_contract(contract, declarer)
    act(s, discard)
    if name:
        act(s, name)
    assert s.phase == PLAY
    return s


def play_tricks(state: State, tricks: list[str]) -> list[int]:
    """Play whole tricks written in play order; return the winner of each."""
    winners = []
    for t in tricks:
        before = len(state.trick_winners)
        act(state, t)
        assert len(state.trick_winners) == before + 1, f"trick {t!r} did not complete"
        winners.append(state.trick_winners[-1])
    return winners


def auction(rules: Rules, calls: str, dealer: int = 3) -> State:
    """A filled deal whose auction has had the given calls."""
    s = fill(rules, ["", "", "", ""], dealer=dealer)
    assert s.phase == AUCTION
    return act(s, calls)


def first_legal_to_end(state: State) -> None:
    """Finish a deal by always taking the first legal action."""
    play_out(state, first_legal)


# ------------------------------------------------------------------ the rules by card name (test oracle)

SAME_COLOUR = {"S": "C", "C": "S", "D": "H", "H": "D"}


def is_trump(name: str, trump: str) -> bool:
    """RULES.md section 6 by name: the trump suit, the jack of the same colour and the jokers."""
    if name.startswith("JK"):
        return True
    rank, suit = name[:-1], name[-1]
    return suit == trump or (rank == "J" and suit == SAME_COLOUR[trump])


def effective_suit(name: str, trump: str | None) -> str | None:
    """The suit a card counts in under a suit trump (None: no trump; jokers in no suit)."""
    if trump is not None and is_trump(name, trump):
        return trump
    return None if name.startswith("JK") else name[-1]


def auction_seats(bids: list[str], dealer: int, players: int) -> list[int]:
    """The seat of each call: from the dealer's left, clockwise, skipping players who passed."""
    seats, passed, seat = [], set(), (dealer + 1) % players
    for call in bids:
        seats.append(seat)
        if call == "P":
            passed.add(seat)
        if len(passed) == players:
            break
        seat = (seat + 1) % players
        while seat in passed and len(passed) < players:
            seat = (seat + 1) % players
    return seats


def hand_facts(hand: list[str], kitty: list[str], discards: list[str], trump: str | None) -> dict:
    """``trumps_dealt`` .. ``suit_lengths`` of a declarer's hand, by card name."""
    out: dict = dict.fromkeys(("trumps_dealt", "bowers_dealt", "trumps_kitty", "trumps_kept"))
    if trump is not None:
        kept = [c for c in hand + kitty if c not in discards]
        out["trumps_dealt"] = sum(is_trump(c, trump) for c in hand)
        out["bowers_dealt"] = sum(c in (f"J{trump}", f"J{SAME_COLOUR[trump]}") for c in hand)
        out["trumps_kitty"] = sum(is_trump(c, trump) for c in kitty)
        out["trumps_kept"] = sum(is_trump(c, trump) for c in kept)
    out["suit_lengths"] = [sum(effective_suit(c, trump) == s for c in hand) for s in "SCDH"]
    return out


# No-trumps: seat 0 holds the joker and the top cards of every suit.
TOPS = (
    [
        "JK AS KS QS AC KC AD KD AH KH",
        "JS TS 9S QC JC TC QD JD QH JH",
        "8S 7S 6S 9C 8C 7C TD 9D TH 9H",
        "5S 6C 5C 8D 7D 6D 5D 8H 7H 6H",
    ],
    "4D 5H 4H",
)


# Seat 2 (a defender of seat 1) holds the joker and is void in diamonds.
DEF_JOKER = (
    [
        "AH KH QH JH TH AS KS QS AC KC",
        "4D 5D 6D 5S 6S 7S 5C 6C 7C 4H",
        "JK 8S 9S TS 8C 9C TC 5H 6H 7H",
        "JS JC QC AD KD QD JD TD 9D 8D",
    ],
    "7D 9H 8H",
)
