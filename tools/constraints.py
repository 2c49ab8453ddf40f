"""What ``fivehundred hand --constraints`` says about the unseen cards, and dealing them uniformly.

The language (docs/hand.md has it with examples) is parsed here and nowhere else; card names and
suit letters are read with :mod:`sim.notation`::

    constraints := clause { ";" clause }            (an empty clause is ignored)
    clause      := holder ":" condition { "," condition }
    holder      := "partner" | "left" | "right" | "kitty" | "seat" N
    condition   := SUIT OP COUNT                     (cards of a printed suit: "H>=3", "S=0")
                 | "no" CARD                         ("no JK")
                 | "has" CARD                        ("has AS")
    SUIT        := S | C | D | H
    OP          := ">=" | "<=" | ">" | "<" | "=" | "=="

Words are case-insensitive.  ``left`` plays after the seat, ``right`` before it, ``partner`` is the
one partner of the 4-player table; ``seat N`` names any other seat by number.  A suit's length
counts the cards of its printed suit (a jack is its printed suit's card whatever the contract; the
joker is in no suit).  Several conditions on one holder must all hold.

:class:`DealSampler` deals the cards the seat does not hold uniformly over every deal that meets
the constraints: the cards a ``has`` places are put there first (dealing the rest uniformly is the
uniform deal given them), the rest are dealt to the other holders by
:func:`strategies.sampling.deal_cards` (the Monte Carlo bots' dealing of unseen cards) and a deal that
breaks a ``no`` or a suit length is drawn again (rejection sampling keeps the result exactly uniform).
Constraints that no deal can meet are refused before any dealing when it can be seen from the
counts alone (a card placed twice, more cards asked of a suit than are out, a hand that cannot be
filled ...); otherwise a deal that needs more than :data:`MAX_ATTEMPTS` draws fails with an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fivehundred.sim.cards import bits
from fivehundred.sim.errors import UserError
from fivehundred.sim.notation import SUITS, parse_cards, suit_index, typed_text
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.strategies.sampling import deal_cards

#: Draws allowed for one deal before the constraints are called too unlikely.
MAX_ATTEMPTS: Final = 100_000
#: The kitty's holder number is the number of players (seats are 0 .. players-1).
_OPS: Final = (">=", "<=", "==", ">", "<", "=")


class HandError(UserError, ValueError):
    """A bad hand, seat, constraint or option of ``fivehundred hand`` (one line, exit status 2)."""


def _impossible(why: str) -> HandError:
    return HandError(f"impossible constraints: {why}")


@dataclass(frozen=True)
class Condition:
    """One condition on one holder: ``kind`` ``length`` (``lo <= cards of suit <= hi``), ``has`` or
    ``no`` (``card``); ``text`` is how it was written."""

    holder: int
    kind: str
    text: str
    suit: int = -1
    lo: int = 0
    hi: int = 99
    card: int = -1


def holder_name(rules: Rules, seat: int, holder: int) -> str:
    """``kitty``, ``partner``, ``left``, ``right`` (4 players) or ``seat N``."""
    n = rules.players
    if holder == n:
        return "kitty"
    if holder == (seat + 1) % n:
        return "left"
    if holder == (seat - 1) % n:
        return "right"
    if n == 4 and holder == (seat + 2) % n:
        return "partner"
    return f"seat {holder}"


def _holder(rules: Rules, seat: int, word: str, where: str) -> int:
    n = rules.players
    w = " ".join(word.lower().split())
    if w == "kitty":
        return n
    if w == "left":
        return (seat + 1) % n
    if w == "right":
        return (seat - 1) % n
    if w == "partner":
        if n != 4:
            raise HandError(f"{where}: 'partner' is for the 4-player table; name the seat ('seat N')")
        return (seat + 2) % n
    head, _, num = w.partition(" ")
    if head == "seat" and num.isdigit():
        s = int(num)
        if s >= n:
            raise HandError(f"{where}: no seat {s} ({rules.name} has seats 0..{n - 1})")
        if s == seat:
            raise HandError(f"{where}: seat {s} is your own seat; the hand says what it holds")
        return s
    raise HandError(f"{where}: {word.strip()!r} is not a holder (partner, left, right, kitty or seat N)")


def _condition(rules: Rules, holder: int, text: str, where: str) -> Condition:
    t = text.strip()
    low = t.lower()
    for word in ("no", "has"):
        if low.startswith(word + " "):
            name = t[len(word) :].strip().upper()
            try:
                cards = parse_cards(rules.deck, name)
            except ValueError as exc:
                raise HandError(f"{where}: {exc}") from None
            if len(cards) != 1:
                raise HandError(f"{where}: '{word}' takes one card, as in '{word} JK'")
            return Condition(holder, word, t, card=cards[0])
    for op in _OPS:
        i = t.find(op)
        if i > 0:
            letter, count = typed_text(t[:i]), t[i + len(op) :].strip()
            break
    else:
        raise HandError(f"{where}: {t!r} is not a condition (H>=3, S=0, no JK, has AS)")
    try:
        suit = suit_index(letter)
    except ValueError:
        suit = -1
    if not 0 <= suit < 4:
        raise HandError(f"{where}: {letter!r} is not a suit ({' '.join(SUITS)})")
    if not count.isdigit():
        raise HandError(f"{where}: {count!r} is not a number of cards")
    k = int(count)
    lo, hi = {">=": (k, 99), "<=": (0, k), ">": (k + 1, 99), "<": (0, k - 1)}.get(op, (k, k))
    return Condition(holder, "length", t, suit=suit, lo=lo, hi=hi)


def parse_constraints(rules: Rules, seat: int, text: str) -> tuple[Condition, ...]:
    """The conditions of a constraints text (the grammar in the module doc); :class:`HandError`
    names the clause at fault."""
    out: list[Condition] = []
    for k, clause in enumerate(text.split(";"), 1):
        if not clause.strip():
            continue
        where = f"constraints clause {k} ({clause.strip()!r})"
        head, colon, body = clause.partition(":")
        if not colon:
            raise HandError(f"{where}: expected 'holder: condition', as in 'partner: H>=3'")
        holder = _holder(rules, seat, head, where)
        parts = body.split(",")
        if not any(p.strip() for p in parts):
            raise HandError(f"{where}: no condition after ':'")
        for part in parts:
            if not part.strip():
                raise HandError(f"{where}: an empty condition between commas")
            out.append(_condition(rules, holder, part, where))
    return tuple(out)


class DealSampler:
    """Uniform deals of the unseen cards given ``seat``'s ``hand`` (a bitmask) and ``conditions``.

    Raises :class:`HandError` at construction for conditions that no deal can meet (seen from the
    counts), and from :meth:`sample` when :data:`MAX_ATTEMPTS` draws give no deal that meets them.
    """

    def __init__(self, rules: Rules, seat: int, hand: int, conditions: tuple[Condition, ...]) -> None:
        n = rules.players
        deck = rules.deck
        self.rules = rules
        self.seat = seat
        self.hand = hand
        self.holders: tuple[int, ...] = (*(s for s in range(n) if s != seat), n)
        self.size: dict[int, int] = {h: rules.hand_size for h in self.holders}
        self.size[n] = rules.kitty_size
        unseen = deck.full_mask & ~hand
        self.unseen = unseen
        name = {h: holder_name(rules, seat, h) for h in self.holders}
        pinned: dict[int, int] = {}  # card -> holder
        banned = dict.fromkeys(self.holders, 0)
        lo = {h: [0, 0, 0, 0] for h in self.holders}
        hi = {h: [99, 99, 99, 99] for h in self.holders}
        for c in conditions:
            card = deck.names[c.card] if c.card >= 0 else ""
            if c.kind == "has":
                if hand >> c.card & 1:
                    raise _impossible(f"{card} is in your hand, not the {name[c.holder]}'s")
                other = pinned.get(c.card, c.holder)
                if other != c.holder:
                    raise _impossible(f"{card} is placed with {name[other]} and {name[c.holder]}")
                pinned[c.card] = c.holder
            elif c.kind == "no":
                banned[c.holder] |= 1 << c.card & unseen
            else:
                lo[c.holder][c.suit] = max(lo[c.holder][c.suit], c.lo)
                hi[c.holder][c.suit] = min(hi[c.holder][c.suit], c.hi)
        masks = deck.printed_suit_masks
        for card, h in pinned.items():
            if banned[h] >> card & 1:
                raise _impossible(f"{name[h]} has {deck.names[card]} and has not")
        for card in bits(unseen):
            if all(banned[h] >> card & 1 for h in self.holders):
                raise _impossible(f"{deck.names[card]} can be nowhere")
        placed = {h: sum(1 for x in pinned.values() if x == h) for h in self.holders}
        for h in self.holders:
            if placed[h] > self.size[h]:
                raise _impossible(f"{placed[h]} cards placed with {name[h]}, who holds {self.size[h]}")
            mine = sum(1 << card for card, x in pinned.items() if x == h)
            room = (unseen & deck.joker_mask & ~banned[h]).bit_count()
            for s in range(4):
                out = (unseen & masks[s]).bit_count()
                if lo[h][s] > hi[h][s]:
                    raise _impossible(f"{name[h]} cannot hold {SUITS[s]} both ways")
                if lo[h][s] > out:
                    raise _impossible(f"{name[h]} needs {lo[h][s]} {SUITS[s]}, only {out} are out")
                if (mine & masks[s]).bit_count() > hi[h][s]:
                    raise _impossible(f"{name[h]} has more {SUITS[s]} placed than allowed")
                room += min(hi[h][s], (unseen & masks[s] & ~banned[h]).bit_count())
            if sum(lo[h]) > self.size[h]:
                raise _impossible(f"{name[h]} holds {self.size[h]} cards, fewer than asked")
            if room < self.size[h]:
                raise _impossible(f"{name[h]} cannot be dealt {self.size[h]} cards")
        for s in range(4):
            out = (unseen & masks[s]).bit_count()
            if sum(lo[h][s] for h in self.holders) > out:
                raise _impossible(f"more {SUITS[s]} asked for than the {out} out")
            if sum(min(hi[h][s], 99) for h in self.holders) < out:
                raise _impossible(f"the {out} {SUITS[s]} out do not fit the limits")
        self.pinned_masks = {h: sum(1 << card for card, x in pinned.items() if x == h) for h in self.holders}
        self.free: list[int] = [c for c in bits(unseen) if c not in pinned]
        self.banned = banned
        #: (holder, suit mask, lo, hi) for every suit length that is limited.
        self.lengths = tuple(
            (h, masks[s], lo[h][s], hi[h][s])
            for h in self.holders
            for s in range(4)
            if lo[h][s] > 0 or hi[h][s] < 99
        )
        self.attempts = 0

    def _draw(self, rng: Rng) -> dict[int, int] | None:
        takes = [self.size[h] - self.pinned_masks[h].bit_count() for h in self.holders]
        dealt = deal_cards(list(self.free), takes, rng)  # the Monte Carlo bots' dealing of unseen cards
        out: dict[int, int] = {}
        for h, m in zip(self.holders, dealt, strict=True):
            m |= self.pinned_masks[h]
            if m & self.banned[h]:
                return None
            out[h] = m
        for h, suit, lo, hi in self.lengths:
            if not lo <= (out[h] & suit).bit_count() <= hi:
                return None
        return out

    def sample(self, rng: Rng) -> tuple[list[int], int]:
        """One deal: every seat's hand (the seat's own included) as bitmasks, and the kitty."""
        for _ in range(MAX_ATTEMPTS):
            self.attempts += 1
            got = self._draw(rng)
            if got is not None:
                n = self.rules.players
                hands = [self.hand if s == self.seat else got[s] for s in range(n)]
                return hands, got[n]
        raise HandError(
            f"impossible or too unlikely constraints: none of {MAX_ATTEMPTS} random deals meets them"
        )
