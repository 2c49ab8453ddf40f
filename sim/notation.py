"""Notation: the one owner of how cards, bids, contracts and actions are written, in both directions.

Every text of the deal log (docs/deal-log.md, "Notation") is read and written here, as a move is
by python-chess's ``Move.uci`` / ``Move.from_uci``:

- a card is its rank then its suit letter: ``TH`` (ten of hearts), ``11S`` (the 6-player pack's
  eleven), ``AS``; ranks ``2 .. 9 T 11 12 13 J Q K A`` (:data:`RANKS`, weakest first), suits
  ``S C D H`` (:data:`SUITS`, the bid order, indices 0..3).  The joker is ``JK``; a two-joker deck
  has ``JK1`` (the higher) and ``JK2``;
- a call is ``P`` (pass) or a bid code: tricks then trump, ``6S`` .. ``10NT``, or ``MIS``, ``OMIS``,
  ``BMIS`` (misère, open misère, blind misère); the contract is the code of the winning bid;
- a joker naming (the declarer of a no-trump or misère contract names the joker's suit) is a suit
  letter or ``-`` (none); the log's ``joker_suit`` joins one entry per kept joker with commas,
  trailing ``-`` dropped (``H``, ``-,H``);
- a play is a card, or ``JK=H`` for a suitless joker led naming the suit ``H``.

It also owns the engine's action integers (the same notation as ints): ``0..63`` a card,
:data:`JOKER_LEAD` ``+ 4*j + s`` a led joker ``j`` naming suit ``s``, :data:`NAME_SUIT` ``+ s`` /
:data:`NAME_NONE` a naming, :data:`PASS` and :data:`BID` ``+ i`` a call (``i`` into the ladder).
:mod:`sim.engine` re-exports these constants.  Nothing else in the project spells or splits a
card, bid or play itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from fivehundred.sim.cards import Deck
    from fivehundred.sim.rules import Rules

#: Suit letters in bid order; a suit's index is its position (``S`` = 0 .. ``H`` = 3).
SUITS: Final = "SCDH"
#: The no-trump suffix of a bid code, and the trump index of NT contracts.
NT_TEXT: Final = "NT"
NT: Final = 4
#: Every rank any deck holds, weakest first (the 6-player 11, 12, 13 sit between the ten and the jack).
RANKS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "11", "12", "13", "J", "Q", "K", "A")
#: The joker of a one-joker deck; a two-joker deck writes ``JK1`` and ``JK2``.
JOKER: Final = "JK"
#: A pass in the auction.
PASS_TEXT: Final = "P"
#: A joker left unnamed (in ``joker_suit`` and as the naming action).
NO_SUIT: Final = "-"
#: Between a led joker and the suit it names: ``JK=H``.
LEAD_SEP: Final = "="
#: The misère bid codes: misère, open misère, blind misère.
MISERE: Final = "MIS"
OPEN_MISERE: Final = "OMIS"
BLIND_MISERE: Final = "BMIS"
MISERE_CODES: Final = (MISERE, OPEN_MISERE, BLIND_MISERE)
#: The trick levels of suit and NT bids.
LEVELS: Final = (6, 7, 8, 9, 10)

# The action space (one int per action of any phase).
JOKER_LEAD: Final = 128
NAME_SUIT: Final = 160
NAME_NONE: Final = 164
PASS: Final = 255
BID: Final = 256


# ------------------------------------------------------------------------------------------ cards


def suit_index(letter: str) -> int:
    """The suit index of ``S``, ``C``, ``D`` or ``H`` (``NT`` gives :data:`NT`); ``ValueError`` else."""
    if letter == NT_TEXT:
        return NT
    i = SUITS.find(letter)
    if i < 0 or len(letter) != 1:
        raise ValueError(f"{letter!r} is not a suit (one of {' '.join(SUITS)} or NT)")
    return i


def suit_text(suit: int) -> str:
    """The letter of suit ``0..3``, or ``NT`` for :data:`NT`."""
    if suit == NT:
        return NT_TEXT
    if not 0 <= suit < 4:
        raise ValueError(f"no suit {suit}")
    return SUITS[suit]


def card_text(rank: str, suit: int) -> str:
    """The name of a printed card: ``card_text("T", 3) == "TH"``."""
    if rank not in RANKS:
        raise ValueError(f"{rank!r} is not a rank ({' '.join(RANKS)})")
    return rank + SUITS[suit]


def joker_text(j: int, n_jokers: int) -> str:
    """The name of joker number ``j`` (0 = the highest) of a deck with ``n_jokers`` jokers."""
    if not 0 <= j < n_jokers:
        raise ValueError(f"no joker {j} in a deck of {n_jokers}")
    return JOKER if n_jokers == 1 else f"{JOKER}{j + 1}"


def joker_number(name: str) -> int:
    """0 for ``JK``/``JK1``, 1 for ``JK2`` ..., -1 for a name that is not a joker."""
    if name == JOKER:
        return 0
    if name.startswith(JOKER) and name[2:].isdigit() and int(name[2:]) >= 1:
        return int(name[2:]) - 1
    return -1


def is_joker(name: str) -> bool:
    """True for a joker's name (``JK``, ``JK1``, ``JK2``)."""
    return joker_number(name) >= 0


def split_card(name: str) -> tuple[str, int]:
    """``(rank, suit)`` of a printed card's name (``"TH"`` -> ``("T", 3)``); ``ValueError`` for a
    joker or a name that is no card."""
    rank, letter = name[:-1], name[-1:]
    if rank not in RANKS or not letter or letter not in SUITS:
        raise ValueError(f"{name!r} is not a card name (rank {'|'.join(RANKS)} then suit S|C|D|H)")
    return rank, SUITS.index(letter)


#: Suit symbols a person may type or paste for the suit letters (filled and outlined).
SUIT_SYMBOLS: Final = {"♠": "S", "♤": "S", "♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H"}


def typed_text(text: str) -> str:
    """A typed card, bid or suit in the notation's letters: upper case, suit symbols as suit letters
    (``"8♥"`` -> ``"8H"``, ``"jk=♠"`` -> ``"JK=S"``)."""
    t = text.strip().upper().replace("\ufe0f", "")  # a symbol pasted as an emoji carries U+FE0F
    for symbol, letter in SUIT_SYMBOLS.items():
        t = t.replace(symbol, letter)
    return t


def card_name(text: str) -> str:
    """A card name as a person types it, in the notation: any case, ``10`` for the ten and a suit
    symbol for the suit letter (``"10♥"``, ``"th"`` -> ``"TH"``; ``"jk"`` -> ``"JK"``).

    Only the spelling is read here; whether the name is a card of a deck is the deck's question.
    """
    t = typed_text(text)
    if len(t) == 3 and t.startswith("10"):
        t = "T" + t[2]
    return t


def parse_cards(deck: Deck, text: str) -> list[int]:
    """The card ints of a space-separated list of card names (``"JK JH AH TH"``), in the order given;
    each name as a person may type it (:func:`card_name`: ``10H``, ``10♥``, ``th``).

    ``ValueError`` names the first unknown card (not in ``deck``) or repeated card.
    """
    out: list[int] = []
    seen = 0
    index = deck.index
    for given in text.split():
        name = card_name(given)
        c = index.get(name, -1)
        if c < 0:
            raise ValueError(
                f"{given!r} is not a card of this deck (cards are rank then suit: TH or 10H, 9S or 9♠, JK)"
            )
        if seen >> c & 1:
            raise ValueError(f"{name} is given twice")
        seen |= 1 << c
        out.append(c)
    return out


#: A deck-independent 64-bit layout of every card name any deck holds (for statistics over runs of
#: different decks): suit ``s`` owns bits ``16*s .. 16*s+15``, one per rank of :data:`RANKS`; the
#: thirteens of spades and clubs exist in no deck, so their bits hold the jokers (``JK``/``JK1`` at
#: bit 11, ``JK2`` at bit 27).
UNIVERSAL_BIT: Final[dict[str, int]] = {
    **{
        card_text(r, s): 16 * s + i
        for s in range(4)
        for i, r in enumerate(RANKS)
        if not (r == "13" and s < 2)
    },
    JOKER: 11,
    "JK1": 11,
    "JK2": 16 + 11,
}


# ------------------------------------------------------------------------------------------ places


def game_number(game_id: int) -> int:
    """The number a person reads and types for the log's ``game_id``: games are counted from 1."""
    return game_id + 1


def game_id_of(number: int) -> int:
    """The log's ``game_id`` of game ``number`` as a person counts (from 1)."""
    return number - 1


def deal_place(game_id: int, hand_no: int) -> str:
    """Where a deal is, as a person reads it: ``"game 3, deal 2"`` for the log's game_id 2, hand_no 1
    (games and the deals of a game are counted from 1; ``play``, ``replay`` and errors say this)."""
    return f"game {game_id + 1}, deal {hand_no + 1}"


# ------------------------------------------------------------------------------------------ bids


def bid_text(tricks: int, trump: int) -> str:
    """The code of a suit or NT bid: ``bid_text(8, 4) == "8NT"``, ``bid_text(6, 0) == "6S"``."""
    if tricks not in LEVELS:
        raise ValueError(f"a bid is for 6 to 10 tricks, not {tricks}")
    return f"{tricks}{suit_text(trump)}"


def parse_bid(code: str) -> tuple[int, int]:
    """``(tricks, trump)`` of a bid code: ``"8NT"`` -> ``(8, 4)``; a misère code -> ``(0, -1)``.

    ``ValueError`` for a text that is no bid code.
    """
    if code in MISERE_CODES:
        return 0, -1
    head, tail = (code[:-2], code[-2:]) if code.endswith(NT_TEXT) else (code[:-1], code[-1:])
    if not head.isdigit() or int(head) not in LEVELS or not tail:
        raise ValueError(f"{code!r} is not a bid code (6S .. 10NT, MIS, OMIS, BMIS)")
    return int(head), suit_index(tail)


def is_misere(code: str) -> bool:
    """True for ``MIS``, ``OMIS`` and ``BMIS``."""
    return code in MISERE_CODES


def bid_level(code: str) -> str:
    """The level of a contract as the tables show it: ``"8"`` for ``8H``, the code itself for a misère."""
    if is_misere(code):
        return code
    return str(parse_bid(code)[0])


def bid_denomination(code: str) -> str:
    """The denomination of a contract: ``8H`` -> ``H``, ``10NT`` -> ``NT``, every misère -> ``MIS``
    (the rows of a DD table, where the misères share one solve)."""
    return MISERE if is_misere(code) else bid_trump(code)


def bid_trump(code: str) -> str:
    """The trump of a contract as the tables show it: ``"H"``, ``"NT"``, or the misère code itself."""
    if is_misere(code):
        return code
    return suit_text(parse_bid(code)[1])


# ------------------------------------------------------------------------------------------ jokers


def joker_suit_text(named: list[int] | tuple[int, ...]) -> str | None:
    """The ``joker_suit`` of the suits named for the kept jokers (-1 = unnamed), or None if none named.

    ``[3] -> "H"``, ``[-1, 3] -> "-,H"``, ``[3, -1] -> "H"`` (trailing unnamed jokers dropped).
    """
    if not named or max(named) < 0:
        return None
    return ",".join(SUITS[s] if s >= 0 else NO_SUIT for s in named).rstrip(NO_SUIT + ",")


def parse_joker_suit(text: str | None) -> list[int]:
    """The inverse of :func:`joker_suit_text`: ``"-,H" -> [-1, 3]``; None or ``""`` -> ``[]``."""
    if not text:
        return []
    return [naming_suit(x) for x in text.split(",")]


def naming_text(suit: int) -> str:
    """A joker naming: the suit letter, or ``-`` for none (``suit`` -1)."""
    return NO_SUIT if suit < 0 else SUITS[suit]


def naming_suit(text: str) -> int:
    """The suit of a naming text (``-`` -> -1); ``ValueError`` for anything else."""
    if text == NO_SUIT:
        return -1
    if len(text) != 1 or text not in SUITS:
        raise ValueError(f"{text!r} names no suit (S, C, D, H or -)")
    return SUITS.index(text)


def split_play(text: str) -> tuple[str, int]:
    """``(card name, named suit)`` of a play: ``"JK=H"`` -> ``("JK", 3)``, ``"TH"`` -> ``("TH", -1)``."""
    card, sep, suit = text.partition(LEAD_SEP)
    if not sep:
        return text, -1
    if not is_joker(card):
        raise ValueError(f"{text!r}: only a joker is led naming a suit")
    return card, naming_suit(suit)


def played_card(deck: Deck, action: int) -> int:
    """The card int of a play action (a led joker's action gives that joker)."""
    if action >= JOKER_LEAD:
        return deck.jokers[(action - JOKER_LEAD) >> 2]
    return action


def led_suit_of_action(action: int) -> int:
    """The suit a joker-lead action names (-1 for a card action)."""
    return (action - JOKER_LEAD) & 3 if action >= JOKER_LEAD else -1


# ------------------------------------------------------------------------------------------ actions


def action_name(rules: Rules, action: int) -> str:
    """The log notation of an action: ``TH``, ``JK=H``, ``8H``, ``P``, or a naming (``H``, ``-``).

    ``IndexError`` or ``ValueError`` for an int that is no action of the rule set.
    """
    deck = rules.deck
    if action < 0:
        raise ValueError(f"no action {action}")
    if action < JOKER_LEAD:
        return deck.names[action]
    if action < NAME_SUIT:
        j, s = divmod(action - JOKER_LEAD, 4)
        return f"{deck.names[deck.jokers[j]]}{LEAD_SEP}{SUITS[s]}"
    if action < NAME_NONE:
        return SUITS[action - NAME_SUIT]
    if action == NAME_NONE:
        return NO_SUIT
    if action == PASS:
        return PASS_TEXT
    if action < BID:
        raise ValueError(f"no action {action}")
    return rules.ladder[action - BID].code


def action_names(rules: Rules) -> tuple[str, ...]:
    """The log notation of every action int of a rule set (index = action; ``?`` for no action),
    built once per rule set: the log writer's per-play look-up."""
    return rules.derived("_action_names", _all_action_names)


def _all_action_names(rules: Rules) -> tuple[str, ...]:
    out = []
    for a in range(BID + len(rules.ladder)):
        try:
            out.append(action_name(rules, a))
        except (IndexError, ValueError):
            out.append("?")
    return tuple(out)


class ActionCodes:
    """The inverse tables of :func:`action_names` for one rule set, by phase kind: ``calls`` (``P``
    and bid codes), ``plays`` (cards and led jokers ``JK=H``; a discard is a card) and ``namings``
    (suit letters and ``-``).  Built once per rule set (:func:`action_codes`): a dict look-up per text."""

    def __init__(self, rules: Rules) -> None:
        names = action_names(rules)
        self.plays: dict[str, int] = {names[a]: a for a in range(NAME_SUIT) if names[a] != "?"}
        self.namings: dict[str, int] = {names[a]: a for a in range(NAME_SUIT, NAME_NONE + 1)}
        self.calls: dict[str, int] = {names[a]: a for a in range(PASS, len(names)) if names[a] != "?"}


def action_codes(rules: Rules) -> ActionCodes:
    """The :class:`ActionCodes` of a rule set, built once and kept on the rules object."""
    return rules.derived("_action_codes", ActionCodes)


def parse_call(rules: Rules, text: str) -> int:
    """The action of an auction call (``P`` or a bid code of the ladder); ``KeyError`` otherwise."""
    if text == PASS_TEXT:
        return PASS
    i = rules.bid_index.get(text)
    if i is None:
        raise KeyError(f"{text!r} is not a call of rule set {rules.name}")
    return BID + i


def parse_naming(text: str) -> int:
    """The action of a joker naming (a suit letter or ``-``); ``ValueError`` otherwise."""
    s = naming_suit(text)
    return NAME_NONE if s < 0 else NAME_SUIT + s


def parse_play(rules: Rules, text: str) -> int:
    """The action of a card (discard or play) or of a joker led naming a suit (``JK=H``).

    ``KeyError`` for a card not in the deck, ``ValueError`` for a malformed text.
    """
    card, suit = split_play(text)
    c = rules.deck.card(card)
    if suit < 0:
        return c
    return JOKER_LEAD + 4 * rules.deck.jokers.index(c) + suit


def universal_mask(deck: Deck, mask: int) -> int:
    """A deck's card bitmask in the deck-independent layout of :data:`UNIVERSAL_BIT`."""
    names = deck.names
    out = 0
    for c in range(deck.size):
        if mask >> c & 1:
            out |= 1 << UNIVERSAL_BIT[names[c]]
    return out
