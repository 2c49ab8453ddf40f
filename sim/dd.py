"""Double-dummy (DD) solver: the tricks a position makes with all hands open and perfect play.

The declaring side maximises the tricks it takes, the defenders minimise them; every trick counts
(overtricks too).  In misère the question is whether the declarer can avoid every trick: the value
is 0 when it can, else 1 (play stops at the declarer's first trick, RULES.md §7).

- :class:`Position` is a play position (at a trick boundary or within a trick), built from an
  engine :class:`~sim.engine.State` with :meth:`Position.from_state`.
- :func:`dd_tricks` is the declaring side's total tricks at the end of the deal under DD play.
- :func:`move_values` gives that value after each legal action of the seat to move.

The rules are the engine's: the legal plays come from :func:`sim.engine.playable_mask` and
:func:`sim.engine.joker_lead_suits`, the card order from :class:`~sim.engine.ContractTables`.

The search (compiled with mypyc like the engine core; the same source runs pure) answers
null-window questions "can the counted side take at least ``t`` of the remaining tricks?" and
narrows ``t`` to the exact value.  Within one solve the cards in play are renumbered so that each
effective suit (trumps with the bowers and the joker; a suitless-joker pseudo-suit) is a run of
bits in order of strength: a trick's winner is a comparison of small ints, and cards of one seat
with no other unplayed card between them (equivalent cards) are searched once.  A transposition
table at trick boundaries (bounded: cleared when it holds :data:`TT_LIMIT` entries) keeps a lower
and upper bound and the best lead for each (cards of every seat, leader, led suits if a suitless
joker is still out); quick tricks (top cards the leader can cash) cut the search early.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ._loader import c_extension, c_extension_reason
from ._mypyc import mypyc_attr
from .cards import bits
from .engine import JOKER_LEAD, PLAY, State, compiled, contract_tables, joker_lead_suits, playable_mask
from .notation import NT, parse_bid, parse_joker_suit, suit_index
from .rules import Bid, Rules  # at run time: the compiled dataclass resolves its field types

#: Entries of the transposition table before it is cleared (about 350 bytes each: at most ~70 MB).
TT_LIMIT: Final = 200_000

_JOKERS: Final = 4  # the pseudo-suit of the suitless jokers in the solver's numbering
_NAMING: Final = 64  # a lead of a suitless joker naming suit s is coded card + 64 * (s + 1)
#: The C search (``sim/_ddc.c``, built at install beside the compiled core), or None: the pure search.
_EXT: Final[Any] = c_extension("sim/_ddc.c")
_USE_C: Final[list[bool]] = [_EXT is not None]  # which search runs (see use_backend)
#: Bits set in each 11-bit number (``int.bit_count`` is a method call in compiled code, this is not).
_POP: Final = tuple(bin(v).count("1") for v in range(2048))


def _popcount(x: int) -> int:
    """Number of set bits of a mask below ``2**66``."""
    pop = _POP
    n = 0
    while x:
        n += pop[x & 2047]
        x >>= 11
    return n


@mypyc_attr(native_class=False)
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
        """Which seats play (in misère the declarer's partners sit out)."""
        rules = self.rules
        team = self.declarer % rules.teams
        return tuple(
            not self.contract.misere or s == self.declarer or s % rules.teams != team
            for s in range(rules.players)
        )

    @property
    def turn(self) -> int:
        """The seat to move."""
        active = self.active
        seat = self.leader
        for _ in self.trick:
            seat = (seat + 1) % len(active)
            while not active[seat]:
                seat = (seat + 1) % len(active)
        return seat

    @property
    def tricks_left(self) -> int:
        """Tricks not completed yet (the current one included)."""
        return self.hands[self.turn].bit_count()

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the seat to move, as the engine's action ints (ascending)."""
        comp = compiled(self.rules)
        t = contract_tables(self.rules.deck, self.contract.trump, self.jokers_named)
        hand = self.hands[self.turn]
        if self.trick:
            forced = self.contract.misere and comp.joker_pagat
            return bits(playable_mask(hand, t.suit_mask[self.led], t.suitless_jokers, forced))
        jk = hand & t.suitless_jokers
        acts = list(bits(hand ^ jk))
        if jk:
            suits = joker_lead_suits(comp, self.tricks_played, self.led_suits, hand != jk)
            for j, c in enumerate(comp.jokers):
                if jk >> c & 1:
                    acts.extend(JOKER_LEAD + 4 * j + s for s in range(4) if suits >> s & 1)
        return tuple(acts)

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
        team = declarer % rules.teams
        active = [not bid_.misere or s == declarer or s % rules.teams != team for s in range(n)]
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
            if not (bid_.no_trump and compiled(rules).joker_pagat):
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


def backend() -> str:
    """Which search runs: ``"c"`` (the C extension ``sim/_ddc.c``) or ``"pure"`` (this module's)."""
    return "c" if _USE_C[0] else "pure"


def backend_reason() -> str:
    """Why the C search is not available ("" when it is)."""
    return "" if _EXT is not None else c_extension_reason("sim/_ddc.c")


def use_backend(name: str) -> str:
    """Select the search (``"c"`` or ``"pure"``; both give the same answers) and return the previous
    one.  ``"c"`` when the extension is not built raises :class:`ValueError`."""
    if name not in ("c", "pure"):
        raise ValueError(f"unknown DD backend {name!r} (c or pure)")
    if name == "c" and _EXT is None:
        raise ValueError(f"the C DD search is not available ({backend_reason()})")
    previous = backend()
    _USE_C[0] = name == "c"
    return previous


def c_lead_nodes() -> int:
    """Trick-boundary nodes the C search has visited in this process, over all solves (a statistic of
    the search's work, independent of the machine's speed); 0 when the C search is not built."""
    return int(_EXT.nodes()) if _EXT is not None else 0


def dd_tricks(pos: Position) -> int:
    """The declaring side's total tricks at the end of the deal under double-dummy play.

    Tricks already won (``pos.declarer_tricks``) count.  Misère: 0 when the declarer can avoid
    every trick, else 1.
    """
    if pos.contract.misere and pos.declarer_tricks > 0:
        return 1
    solver = _Solver(pos)
    if _USE_C[0] and solver.fits_c:
        return pos.declarer_tricks + int(_EXT.solve(solver.c_frame(), ())[0])
    return pos.declarer_tricks + solver.exact()


def move_values(pos: Position) -> dict[int, int]:
    """:func:`dd_tricks` after each legal action (engine action ints) of the seat to move."""
    acts = pos.legal_actions()
    if pos.contract.misere and pos.declarer_tricks > 0:
        return dict.fromkeys(acts, 1)
    solver = _Solver(pos)
    deck = pos.rules.deck
    moves: list[tuple[int, int]] = []
    for a in acts:
        if a >= JOKER_LEAD:
            j, s = divmod(a - JOKER_LEAD, 4)
            moves.append((deck.jokers[j], s))
        else:
            moves.append((a, -1))
    if _USE_C[0] and solver.fits_c:
        coded = [solver.internal[card] + _NAMING * (naming + 1) for card, naming in moves]
        values = [int(v) for v in _EXT.solve(solver.c_frame(), coded)]
    else:
        values = [solver.value_after(card, naming) for card, naming in moves]
    return {a: pos.declarer_tricks + v for a, v in zip(acts, values, strict=True)}


class _Solver:
    """The search over one position, in the solver's own card numbering (see the module doc)."""

    def __init__(self, pos: Position) -> None:
        rules = pos.rules
        contract = pos.contract
        comp = compiled(rules)
        tables = contract_tables(rules.deck, contract.trump, pos.jokers_named)
        n = rules.players
        active = pos.active
        self.n = n
        self.comp = comp
        self.misere: bool = contract.misere
        self.forced: bool = contract.misere and comp.joker_pagat
        # led_suits matters only to the pagat lead rule of a suitless joker
        self.ls_matters: bool = comp.joker_pagat and not comp.joker_lead_only_last_trick
        self.hand_size: int = rules.hand_size
        self.nact: int = sum(active)
        self.next: list[int] = []
        for s in range(n):
            t = (s + 1) % n
            while not active[t]:
                t = (t + 1) % n
            self.next.append(t)
        team = pos.declarer % rules.teams
        self.counted: list[bool] = [
            (s == pos.declarer) if contract.misere else (s % rules.teams == team) for s in range(n)
        ]
        self.maxer: list[bool] = [self.counted[s] != contract.misere for s in range(n)]
        # Renumber the cards in play: effective suit by effective suit, weakest first.
        in_play = 0
        for s in range(n):
            if active[s]:
                in_play |= pos.hands[s]
        for c in pos.trick:
            in_play |= 1 << c
        keyed: list[tuple[int, int, int]] = []
        for c in bits(in_play):
            e = tables.eff_suit[c]
            block = e if e >= 0 else _JOKERS
            keyed.append((block, tables.power[c] or tables.rank[c], c))
        keyed.sort()
        self.to_engine: list[int] = []
        self.block_of: list[int] = []
        self.block_mask: list[int] = [0, 0, 0, 0, 0]
        self.pw: list[int] = []  # winning score for trumps and suitless jokers, else 0
        internal: dict[int, int] = {}
        trump = tables.trump
        for i, (block, _key, c) in enumerate(keyed):
            internal[c] = i
            self.to_engine.append(c)
            self.block_of.append(block)
            self.block_mask[block] |= 1 << i
            self.pw.append(192 + i if block == _JOKERS else (128 + i if block == trump else 0))
        self.internal = internal
        self.base: list[int] = [(m & -m).bit_length() - 1 if m else 0 for m in self.block_mask]
        self.suitless: int = self.block_mask[_JOKERS]
        self.power_mask: int = self.suitless | (self.block_mask[trump] if trump >= 0 else 0)
        self.trump: int = trump
        hands: list[int] = [0] * n
        for s in range(n):
            if active[s]:
                for c in bits(pos.hands[s]):
                    hands[s] |= 1 << internal[c]
        self.rem: int = 0
        for h in hands:
            self.rem |= h
        # Relative-rank codes: for each block, the owners (seat + 1, 3 bits each) of its cards still
        # in hands, weakest first.  Positions with equal codes are the same up to renaming cards.
        codes = [0, 0, 0, 0, 0]
        for s in range(n):
            h = hands[s]
            while h:
                low = h & -h
                h ^= low
                i = low.bit_length() - 1
                b = self.block_of[i]
                p = (self.rem & self.block_mask[b] & (low - 1)).bit_count()
                codes[b] |= (s + 1) << (3 * p)
        self.c0: int = codes[0]
        self.c1: int = codes[1]
        self.c2: int = codes[2]
        self.c3: int = codes[3]
        self.c4: int = codes[4]
        hands += [0] * (6 - n)
        # the hands are six attributes, not a list, for the same reason as the codes
        self.h0: int = hands[0]
        self.h1: int = hands[1]
        self.h2: int = hands[2]
        self.h3: int = hands[3]
        self.h4: int = hands[4]
        self.h5: int = hands[5]
        self.trick_mask: int = 0
        for c in pos.trick:
            self.trick_mask |= 1 << internal[c]
        self.led_suits: int = pos.led_suits
        self.declarer: int = pos.declarer
        self.sure_max: int = 0
        self.sure_min: int = 0
        self.guess: int = contract.tricks + 1 - pos.declarer_tricks
        self.tt: dict[tuple[int, int, int, int, int, int], int] = {}
        self.nodes: int = 0
        # The frame the search starts from: the current trick.
        self.k: int = len(pos.trick)
        self.seat: int = pos.turn
        self.led: int = pos.led
        self.best: int = -1
        self.win: int = -1
        seat = pos.leader
        for c in pos.trick:
            i = internal[c]
            sc = self._score(i, pos.led)
            if sc > self.best:
                self.best = sc
                self.win = seat
            seat = self.next[seat]
        self.left: int = hands[self.seat].bit_count()
        self.tp: int = rules.hand_size - self.left
        # the C search takes 64 cards at most, 21 of them in a block (3 bits per card in a 64-bit code)
        self.fits_c: bool = len(keyed) <= 64 and max(m.bit_count() for m in self.block_mask) <= 21
        self.lead_table: list[int] = [
            joker_lead_suits(comp, rules.hand_size - 1 if last else 0, ls, other == 1)
            for last in (False, True)
            for ls in range(16)
            for other in (0, 1)
        ]

    def c_frame(self) -> tuple[int, ...]:
        """This solver's tables and start frame as plain ints, in the layout ``sim/_ddc.c`` reads
        (``read_frame``): the rule facts are this module's, derived from the engine's tables."""
        n = self.n
        seats = range(n)
        pad = [0] * (6 - n)
        return (
            n, self.nact, int(self.misere), int(self.forced), int(self.ls_matters), self.hand_size,
            self.trump, self.declarer, len(self.to_engine), self.suitless, self.power_mask,
            *self.next, *pad, *[int(self.counted[s]) for s in seats], *pad,
            *[int(self.maxer[s]) for s in seats], *pad, *self.block_mask, *self.lead_table,
            *self.block_of, *self.pw,
            self.h0, self.h1, self.h2, self.h3, self.h4, self.h5, self.trick_mask, self.led_suits,
            self.k, self.seat, self.led, self.best, self.win, self.left, self.tp, self.guess,
        )  # fmt: skip

    # ------------------------------------------------------------------ drivers

    def exact(self) -> int:
        """The counted side's tricks from the current frame on (misère: 0 or 1)."""
        if self.misere:
            return 1 if self._search(0, 1) >= 1 else 0
        # MTD(f): null-window searches from a guess (the contract's level plus one) to the value
        lo = 0
        hi = self.left
        g = max(0, min(hi, self.guess))
        while lo < hi:
            beta = g + 1 if g == lo else g
            g = self._search(beta - 1, beta)
            if g < beta:
                hi = g
            else:
                lo = g
        return lo

    def _search(self, alpha: int, beta: int) -> int:
        if self.k == 0:
            return self._lead(self.seat, alpha, beta)
        return self._play(self.k, self.seat, alpha, beta, self.led, self.best, self.win)

    def value_after(self, card: int, naming: int) -> int:
        """:meth:`exact` after the seat to move plays engine ``card`` (``naming``: a led joker's suit)."""
        i = self.internal[card]
        bit = 1 << i
        seat = self.seat
        saved = (self.k, self.seat, self.led, self.best, self.win, self.led_suits, self.left, self.tp)
        saved_trick = self.trick_mask
        if self.k == 0:
            self.led = naming if naming >= 0 else self.block_of[i]
            self.led_suits |= 1 << self.led
        sc = self._score(i, self.led)
        if sc > self.best:
            self.best = sc
            self.win = seat
        old_code = self._take(seat, i)
        self.trick_mask |= bit
        gained = 0
        if self.k + 1 == self.nact:
            winner = self.win
            self.trick_mask = 0
            self.left -= 1
            self.tp += 1
            self.k = 0
            self.seat = winner
            self.best = -1
            self.win = -1
            if self.counted[winner]:
                gained = 1
            if self.misere and gained:
                value = 1
            else:
                value = gained + self.exact()
        else:
            self.k += 1
            self.seat = self.next[seat]
            value = self.exact()
        self._give(seat, i, old_code)
        self.trick_mask = saved_trick
        self.k, self.seat, self.led, self.best, self.win, self.led_suits, self.left, self.tp = saved
        return value

    # ------------------------------------------------------------------ search

    def _take(self, seat: int, c: int) -> int:
        """Remove card ``c`` from ``seat``'s hand (and its block's code); return the old code."""
        bit = 1 << c
        b = self.block_of[c]
        old = self._code(b)
        p = 3 * _popcount((self.rem & self.block_mask[b] & (bit - 1)) >> self.base[b])
        self._set_code(b, (old >> (p + 3) << p) | (old & ((1 << p) - 1)))
        self._flip(seat, bit)
        self.rem ^= bit
        return old

    def _give(self, seat: int, c: int, old: int) -> None:
        """Undo :meth:`_take`."""
        bit = 1 << c
        self._set_code(self.block_of[c], old)
        self._flip(seat, bit)
        self.rem ^= bit

    def _hand(self, seat: int) -> int:
        if seat == 0:
            return self.h0
        if seat == 1:
            return self.h1
        if seat == 2:
            return self.h2
        if seat == 3:
            return self.h3
        if seat == 4:
            return self.h4
        return self.h5

    def _flip(self, seat: int, bit: int) -> None:
        if seat == 0:
            self.h0 ^= bit
        elif seat == 1:
            self.h1 ^= bit
        elif seat == 2:
            self.h2 ^= bit
        elif seat == 3:
            self.h3 ^= bit
        elif seat == 4:
            self.h4 ^= bit
        else:
            self.h5 ^= bit

    def _code(self, b: int) -> int:
        # the codes are five attributes, not a list: a compiled attribute holds an int unboxed
        if b == 0:
            return self.c0
        if b == 1:
            return self.c1
        if b == 2:
            return self.c2
        if b == 3:
            return self.c3
        return self.c4

    def _set_code(self, b: int, code: int) -> None:
        if b == 0:
            self.c0 = code
        elif b == 1:
            self.c1 = code
        elif b == 2:
            self.c2 = code
        elif b == 3:
            self.c3 = code
        else:
            self.c4 = code

    def _score(self, c: int, led: int) -> int:
        p = self.pw[c]
        if p:
            return p
        return 64 + c if self.block_of[c] == led else 0

    def _lead(self, leader: int, alpha: int, beta: int) -> int:
        """At a trick boundary, ``leader`` to lead: the counted side's tricks from here, fail-soft.

        A result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound, else the exact value.
        """
        left = self.left
        if left <= 1:
            return self._last(leader) if left else 0
        if beta <= 0:
            return 0
        if alpha >= left:
            return left
        self.nodes += 1
        rem = self.rem
        ls = self.led_suits if (self.ls_matters and rem & self.suitless) else 0
        key = (self.c0, self.c1, self.c2, self.c3, self.c4, leader * 16 + ls)
        entry = self.tt.get(key, -1)
        lo = 0
        hi = left
        hint = -1
        if entry >= 0:
            lo = entry & 15
            hi = entry >> 4 & 15
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            hint = (entry >> 8) - 1
        if self.misere:
            jk = self.suitless & rem
            if jk and self._hand(self.declarer) >> (jk.bit_length() - 1) & 1:
                return 1  # the declarer holds the top suitless joker: it must win a trick
        else:
            self._bounds(leader)
            sure_max = self.sure_max
            sure_min = self.sure_min
            if sure_max > lo or left - sure_min < hi:
                lo = max(lo, sure_max)
                hi = min(hi, left - sure_min)
                if lo >= beta or lo == hi:
                    self._store(key, lo, hi, hint)
                    return lo
                if hi <= alpha:
                    self._store(key, lo, hi, hint)
                    return hi
        a = max(alpha, lo)
        b = min(beta, hi)
        a0 = a
        b0 = b
        maxer = self.maxer[leader]
        best = -1 if maxer else 99
        found = -1
        saved_ls = self.led_suits
        nxt = self.next[leader]
        for m in self._lead_moves(leader, hint):
            c = m & 63
            naming = m >> 6
            led = naming - 1 if naming else self.block_of[c]
            old = self._take(leader, c)
            self.trick_mask = 1 << c
            self.led_suits = saved_ls | 1 << led
            v = self._play(1, nxt, a, b, led, self._score(c, led), leader)
            self._give(leader, c, old)
            self.trick_mask = 0
            self.led_suits = saved_ls
            if maxer:
                if v > best:
                    best = v
                    found = m
                    if best >= b:
                        break
                    if best > a:
                        a = best
            elif v < best:
                best = v
                found = m
                if best <= a:
                    break
                if best < b:
                    b = best
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        self._store(key, lo, hi, self._rel(found) if found >= 0 else hint)
        return best

    def _store(self, key: tuple[int, int, int, int, int, int], lo: int, hi: int, move: int) -> None:
        tt = self.tt
        if len(tt) >= TT_LIMIT:
            tt.clear()
        tt[key] = lo | hi << 4 | (move + 1) << 8

    def _play(self, k: int, seat: int, alpha: int, beta: int, led: int, best: int, win: int) -> int:
        """Within a trick: ``k`` cards played, ``seat`` to play, ``best``/``win`` the score and seat
        winning so far; the counted side's tricks from this trick on, fail-soft like :meth:`_lead`."""
        hand = self._hand(seat)
        legal = playable_mask(hand, self.block_mask[led], self.suitless, self.forced)
        maxer = self.maxer[seat]
        last = k + 1 == self.nact
        nxt = self.next[seat]
        a = alpha
        b = beta
        value = -1 if maxer else 99
        for c in self._follow_moves(seat, legal, led, best, win, k):
            bit = 1 << c
            sc = self._score(c, led)
            nb = best
            nw = win
            if sc > best:
                nb = sc
                nw = seat
            old = self._take(seat, c)
            if last:
                tm = self.trick_mask
                self.trick_mask = 0
                self.left -= 1
                self.tp += 1
                if self.counted[nw]:
                    v = 1 if self.misere else 1 + self._lead(nw, a - 1, b - 1)
                else:
                    v = self._lead(nw, a, b)
                self.left += 1
                self.tp -= 1
                self.trick_mask = tm
            else:
                self.trick_mask |= bit
                v = self._play(k + 1, nxt, a, b, led, nb, nw)
                self.trick_mask ^= bit
            self._give(seat, c, old)
            if maxer:
                if v > value:
                    value = v
                    if value >= b:
                        return value
                    if value > a:
                        a = value
            elif v < value:
                value = v
                if value <= a:
                    return value
                if value < b:
                    b = value
        return value

    def _last(self, leader: int) -> int:
        """The last trick, one card in each active hand: 1 if the counted side wins it."""
        c = self._hand(leader).bit_length() - 1
        led = self.block_of[c]
        best = self._score(c, led)
        win = leader
        seat = self.next[leader]
        while seat != leader:
            x = self._hand(seat).bit_length() - 1
            sc = self._score(x, led)
            if sc > best:
                best = sc
                win = seat
            seat = self.next[seat]
        return 1 if self.counted[win] else 0

    def _bounds(self, leader: int) -> None:
        """Tricks each side is sure of from here, set in ``sure_max`` and ``sure_min`` (maximising and
        minimising side; attributes rather than a returned tuple, which would be an allocation).

        A trump (or suitless joker) above every one the other side holds wins the trick it is
        played to, and every card is played by the end (not in misère, which does not use this):
        a seat holding ``j`` of them gives its side ``j`` tricks.  The leader can also cash its
        top cards at once (:meth:`_cash`).
        """
        power = self.power_mask & self.rem
        top_max = 0
        top_min = 0
        for s in range(self.n):
            if self.maxer[s]:
                top_max |= self._hand(s) & power
            else:
                top_min |= self._hand(s) & power
        sure_max = 0
        sure_min = 0
        if power:
            floor_max = 1 << top_min.bit_length()  # maximiser's power cards above this win
            floor_min = 1 << top_max.bit_length()
            for s in range(self.n):
                h = self._hand(s) & power
                if not h:
                    continue
                if self.maxer[s]:
                    over = _popcount(h & ~(floor_max - 1))
                    if over > sure_max:
                        sure_max = over
                else:
                    over = _popcount(h & ~(floor_min - 1))
                    if over > sure_min:
                        sure_min = over
        cash = self._cash(leader)
        if self.maxer[leader]:
            sure_max = max(sure_max, cash)
        else:
            sure_min = max(sure_min, cash)
        self.sure_max = sure_max
        self.sure_min = sure_min

    @staticmethod
    def _top_run(hand: int, cards: int) -> int:
        """How many of the top ``cards`` ``hand`` holds without a break."""
        run = 0
        while cards:
            top = cards.bit_length() - 1
            if not hand >> top & 1:
                break
            run += 1
            cards ^= 1 << top
        return run

    def _cash(self, leader: int) -> int:
        """Tricks the leader can cash at once: top trumps (drawing the opponents' trumps), then the
        top cards of side suits when no opponent can ruff them."""
        hand = self._hand(leader)
        rem = self.rem
        side = self.maxer[leader]
        total = 0
        can_ruff = False
        if self.trump >= 0:
            trumps = self.block_mask[self.trump] & rem
            total = self._top_run(hand, trumps)
            for s in range(self.n):
                if self.maxer[s] != side and _popcount(self._hand(s) & trumps) > total:
                    can_ruff = True
        else:
            jokers = self.suitless & rem
            if jokers:
                if hand >> (jokers.bit_length() - 1) & 1:
                    if joker_lead_suits(self.comp, self.tp, self.led_suits, hand != hand & jokers):
                        total = 1  # one suitless joker (a second one may not be leadable after it)
                for s in range(self.n):
                    if self.maxer[s] != side and self._hand(s) & jokers:
                        can_ruff = True
        if not can_ruff:
            for b in range(4):
                if b != self.trump:
                    total += self._top_run(hand, self.block_mask[b] & rem)
        return min(total, self.left)

    def _runs(self, cards: int) -> list[int]:
        """The lowest card of each run of ``cards`` (no other unplayed card between: equivalent)."""
        out: list[int] = []
        u = self.rem | self.trick_mask
        prev = -1
        block = -1
        while cards:
            low = cards & -cards
            c = low.bit_length() - 1
            cards ^= low
            b = self.block_of[c]
            if b == block and not u & (low - (2 << prev)):
                prev = c
                continue
            out.append(c)
            prev = c
            block = b
        return out

    def _lead_moves(self, leader: int, hint: int) -> list[int]:
        """Lead moves, most promising first (the table's hint, then winners, then low cards)."""
        hand = self._hand(leader)
        jk = hand & self.suitless
        reps = self._runs(hand ^ jk)
        out: list[int] = []
        rest: list[int] = []
        others = self.rem & ~hand
        ruff = False
        if not self.misere:
            side = self.maxer[leader]
            for s in range(self.n):
                if self.maxer[s] != side and self._hand(s) & self.power_mask:
                    ruff = True
        partners = 0
        for s in range(self.n):
            if s != leader and self.maxer[s] == self.maxer[leader]:
                partners |= self._hand(s)
        to_partner: list[int] = []
        for c in reps:
            b = self.block_of[c]
            higher = others & self.block_mask[b] & ~((2 << c) - 1)
            if not self.misere and not higher and (b == self.trump or not ruff):
                out.append(c)
            elif not self.misere and higher and partners >> (higher.bit_length() - 1) & 1:
                to_partner.append(c)  # partner holds the top card of the suit
            else:
                rest.append(c)
        out.extend(to_partner)
        if jk:
            joker_moves: list[int] = []
            suits = joker_lead_suits(self.comp, self.tp, self.led_suits, hand != jk)
            for c in self._runs(jk):
                alone = not (self.suitless & self.rem & ~(1 << c))
                void_done = False
                for s in range(4):
                    if not suits >> s & 1:
                        continue
                    if alone and not others & self.block_mask[s]:
                        if void_done:
                            continue  # naming another suit nobody holds: the same lead
                        void_done = True
                    joker_moves.append(c + _NAMING * (s + 1))
            if self.misere:
                rest.extend(joker_moves)
            else:
                out = joker_moves + out
        out.extend(rest)
        if hint >= 0:
            for i in range(len(out)):
                if self._rel(out[i]) == hint:
                    m = out.pop(i)
                    out.insert(0, m)
                    break
        return out

    def _rel(self, m: int) -> int:
        """A lead move in relative terms (block, place among the block's cards in hands, naming)."""
        c = m & 63
        b = self.block_of[c]
        p = _popcount(self.rem & self.block_mask[b] & ((1 << c) - 1))
        return p | b << 4 | (m >> 6) << 7

    def _follow_moves(self, seat: int, legal: int, led: int, best: int, win: int, k: int) -> list[int]:
        """Cards to play to a trick, most promising first."""
        if best >= 192:
            beat = self.suitless & ~((2 << (best - 192)) - 1)
        elif best >= 128:
            beat = self.suitless | (self.power_mask & ~self.suitless & ~((2 << (best - 128)) - 1))
        else:
            beat = self.power_mask | (self.block_mask[led] & ~((2 << (best - 64)) - 1))
        # no run of equivalent cards straddles the card winning the trick (it is unplayed)
        win_cards = legal & beat
        lose_cards = legal & ~beat
        out: list[int] = []
        if self.misere:
            if seat == self.declarer or win == self.declarer:
                self._add_runs(out, lose_cards, True)  # shed the highest card that still loses
            else:
                self._add_runs(out, lose_cards, False)
            self._add_runs(out, win_cards, False)
        elif self.maxer[win] == self.maxer[seat]:
            self._add_runs(out, lose_cards, False)  # partner winning: low first
            self._add_runs(out, win_cards, False)
        else:
            self._add_runs(out, win_cards, False)  # cheapest winner first
            self._add_runs(out, lose_cards, False)
        return out

    def _add_runs(self, out: list[int], cards: int, high_first: bool) -> None:
        """Append one card of each run of equivalent ``cards`` (see :meth:`_runs`) to ``out``."""
        if not cards:
            return
        if not high_first:
            u = self.rem | self.trick_mask
            prev = -1
            block = -1
            while cards:
                low = cards & -cards
                c = low.bit_length() - 1
                cards ^= low
                b = self.block_of[c]
                if b != block or u & (low - (2 << prev)):
                    out.append(c)
                    block = b
                prev = c
            return
        start = len(out)
        for c in self._runs(cards):
            out.insert(start, c)
