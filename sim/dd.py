"""Double-dummy (DD) solver: the tricks a position makes with all hands open and perfect play.

The declaring side maximises the tricks it takes, the defenders minimise them; every trick counts
(overtricks too).  In misère the question is whether the declarer can avoid every trick: the value
is 0 when it can, else 1 (play stops at the declarer's first trick, RULES.md §7).

- :class:`~sim.dd_position.Position` is a play position (at a trick boundary or within a trick).
- :func:`dd_tricks` is the declaring side's total tricks at the end of the deal under DD play;
  :func:`dd_tricks_many` solves several positions of one deal in a row, keeping what the search
  learnt between those that share the card order and the seats (a DD table).
- :func:`move_values` gives that value after each legal action of the seat to move.

The search is the C kernel ``sim/_ddc.c`` (built at install; docs/dd.md says how it works and what
each technique buys).  This module hands it the rules as plain ints, derived from the engine's rules
object and card tables (:func:`_context`): the kernel is the one allowed second copy of the trick's
rules (follow the led suit, highest card wins), checked against the engine on every variant by
``tests/sim/test_dd_reference.py``.  When the kernel is not built, every solve raises
:class:`DDUnavailable` with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ._loader import c_extension, c_extension_reason
from .cards import flag_mask
from .contract import active_seats, contract_tables, joker_forced, joker_lead_suits, next_seat
from .dd_position import Position
from .engine import JOKER_LEAD, compiled
from .notation import led_suit_of_action, played_card
from .rules import Rules

__all__ = [
    "TECHNIQUES",
    "DDUnavailable",
    "Position",
    "available",
    "dd_tricks",
    "dd_tricks_many",
    "lead_nodes",
    "move_values",
    "techniques",
    "unavailable_reason",
]

#: The C search (``sim/_ddc.c``), or None when it is not built (see :func:`unavailable_reason`).
_EXT: Final[Any] = c_extension("sim/_ddc.c")
_SUITLESS: Final = 4  # the block of the suitless jokers in the kernel's numbering
_NAMING: Final = 64  # a led suitless joker naming suit s is coded card + 64 * (s + 1)

#: The search's techniques, by name, as the kernel's switches (see :func:`techniques`; docs/dd.md).
TECHNIQUES: Final = ("runs", "siblings", "table", "partition", "quick", "second", "power", "order", "killer")


class DDUnavailable(RuntimeError):
    """The C double-dummy solver is not built here (the message says why and what to do)."""


def available() -> bool:
    """Whether the C solver is built and loaded."""
    return _EXT is not None


def unavailable_reason() -> str:
    """Why the C solver is not available ("" when it is)."""
    return "" if _EXT is not None else c_extension_reason("sim/_ddc.c")


def _ext() -> Any:
    if _EXT is None:
        raise DDUnavailable(
            f"the double-dummy solver (sim/_ddc.c) is not built: {unavailable_reason()}; "
            "reinstall with a C compiler (pip install -e .)"
        )
    return _EXT


def lead_nodes() -> int:
    """Trick-boundary nodes the search has visited in this process, over all solves (a measure of its
    work that does not depend on the machine's speed)."""
    return int(_ext().nodes())


def techniques(names: Sequence[str] | None = None) -> tuple[str, ...]:
    """The search techniques switched on; with ``names``, switch on exactly those first (returns the
    previous set).  Every set gives the same values, only the work differs: the benchmark switches one
    off at a time to measure what it buys.  ``ValueError`` for an unknown name."""
    ext = _ext()
    bits = {name: getattr(ext, "T_" + name.upper()) for name in TECHNIQUES}
    previous = int(ext.techniques())
    if names is not None:
        unknown = sorted(set(names) - set(bits))
        if unknown:
            raise ValueError(f"unknown DD technique(s) {', '.join(unknown)} (known: {', '.join(TECHNIQUES)})")
        ext.techniques(sum(bits[name] for name in set(names)))
    return tuple(name for name in TECHNIQUES if previous & bits[name])


_SHARE: dict[tuple[Any, ...], int] = {}


def _context(rules: Rules, contract: str, jokers_named: tuple[int, ...], declarer: int) -> Any:
    """The kernel's tables for a contract, its joker namings and its declarer (kept on the rules)."""
    cache: dict[tuple[str, tuple[int, ...], int], Any] = rules.derived("_dd_contexts", lambda _r: {})
    key = (contract, jokers_named, declarer)
    ctx = cache.get(key)
    if ctx is None:
        ctx = cache[key] = _new_context(rules, contract, jokers_named, declarer)
    return ctx


def _new_context(rules: Rules, contract: str, jokers_named: tuple[int, ...], declarer: int) -> Any:
    """The kernel's tables for a contract, its joker namings and its declarer.

    Every fact comes from sim's rules of play: the cards' effective suits and trick order from
    :class:`~sim.contract.ContractTables`, who plays and in what order from
    :func:`~sim.contract.active_seats` and :func:`~sim.contract.next_seat`, the forced joker from
    :func:`~sim.contract.joker_forced`, the joker's lead rule from :func:`~sim.contract.joker_lead_suits`.
    The cards are numbered block by block (effective suit; the suitless jokers last), weakest first.
    """
    bid = rules.bid(contract)
    comp = compiled(rules)
    tables = contract_tables(rules.deck, bid.trump, jokers_named)
    n = rules.players
    active = active_seats(rules, bid, declarer)
    out = flag_mask([not a for a in active])
    nxt = [next_seat(s, n, out) for s in range(n)]
    team = declarer % rules.teams
    counted = [(s == declarer) if bid.misere else (s % rules.teams == team) for s in range(n)]
    maxer = [counted[s] != bid.misere for s in range(n)]
    keyed = []
    for c in range(rules.deck.size):
        e = tables.eff_suit[c]
        block = e if e >= 0 else _SUITLESS
        keyed.append((block, tables.power[c] or tables.rank[c], c))
    place = {c: p for p, (_b, _k, c) in enumerate(sorted(keyed))}
    lead = [
        joker_lead_suits(comp, rules.hand_size - 1 if last else 0, ls, other == 1)
        for last in (False, True)
        for ls in range(16)
        for other in (0, 1)
    ]
    # led suits matter to a search only when the joker's lead rule reads them
    ls_matters = any(
        lead[(last * 16 + ls) * 2 + o] != lead[last * 32 + o]
        for last in (0, 1)
        for ls in range(16)
        for o in (0, 1)
    )
    share = _SHARE.setdefault(
        (rules.deck, tables.trump, jokers_named, bid.misere, tuple(active)), len(_SHARE)
    )
    pad = [0] * (6 - n)
    cards = []
    for c in range(rules.deck.size):
        block = keyed[c][0]
        cards += [block, int(block == _SUITLESS or block == tables.trump), place[c]]
    fields = (
        n, sum(active), int(bid.misere), int(joker_forced(comp, bid)), int(ls_matters), rules.hand_size,
        tables.trump, rules.deck.size, int(rules.teams == 2 and not bid.misere), share,
        *nxt, *pad, *map(int, counted), *pad, *map(int, maxer), *pad, *lead, *cards,
    )  # fmt: skip
    return _ext().Context(fields)


def _solve(pos: Position, moves: Sequence[int], reuse: bool, guess: int = -1) -> list[int]:
    ctx = _context(pos.rules, pos.contract.code, pos.jokers_named, pos.declarer)
    if guess < 0:
        # the first guess (docs/experiments/dd.md measures them): a whole solve in a trump contract
        # starts from every trick left, else from the contract's level plus one
        top = not moves and not pos.contract.no_trump
        guess = pos.tricks_left if top else pos.contract.tricks + 1 - pos.declarer_tricks
    return _ext().solve(
        ctx, pos.hands, pos.trick, pos.leader, pos.led, pos.led_suits, pos.tricks_played, guess, moves, reuse
    )


def dd_tricks(pos: Position, guess: int | None = None) -> int:
    """The declaring side's total tricks at the end of the deal under double-dummy play.

    Tricks already won (``pos.declarer_tricks``) count.  Misère: 0 when the declarer can avoid
    every trick, else 1.  ``guess``: where the search starts (a total; default every trick in a trump
    contract, the contract's level plus one otherwise): the closer to the value, the less work, the
    value is the same whatever it is.
    """
    if pos.contract.misere and pos.declarer_tricks > 0:
        return 1
    start = -1 if guess is None else max(0, guess - pos.declarer_tricks)
    return pos.declarer_tricks + int(_solve(pos, (), False, start)[0])


def dd_tricks_many(positions: Sequence[Position]) -> list[int]:
    """:func:`dd_tricks` of each position, in order: the positions of one deal (every declarer and
    denomination, say) solved in a row, each keeping what the search learnt in the one before when
    both have the same card order (contract suit and joker namings) and seats (the other side
    counting its tricks is fine).  Group them by contract for the most reuse."""
    out: list[int] = []
    reuse = False
    seen: dict[tuple[str, int], int] = {}  # (contract, side) -> the tricks it took last (a first guess)
    for pos in positions:
        if pos.contract.misere and pos.declarer_tricks > 0:
            out.append(1)
            continue
        rules = pos.rules
        side = pos.declarer if pos.contract.misere else pos.declarer % rules.teams
        guess = seen.get((pos.contract.code, side), -1)
        if guess < 0 and rules.teams == 2 and not pos.contract.misere:
            other = seen.get((pos.contract.code, 1 - side), -1)
            guess = pos.tricks_left - other if other >= 0 else -1
        value = int(_solve(pos, (), reuse, guess)[0])
        seen[(pos.contract.code, side)] = value
        out.append(pos.declarer_tricks + value)
        reuse = True
    return out


def move_values(pos: Position) -> dict[int, int]:
    """:func:`dd_tricks` after each legal action (engine action ints) of the seat to move."""
    acts = pos.legal_actions()
    if pos.contract.misere and pos.declarer_tricks > 0:
        return dict.fromkeys(acts, 1)
    deck = pos.rules.deck
    coded = [
        played_card(deck, a) + _NAMING * (led_suit_of_action(a) + 1) if a >= JOKER_LEAD else a for a in acts
    ]
    values = _solve(pos, coded, False)
    return {a: pos.declarer_tricks + int(v) for a, v in zip(acts, values, strict=True)}


def bounds(pos: Position) -> tuple[int, int] | None:
    """The search's sure tricks at a trick boundary: (declaring side's, defenders') from here, or None
    in misère (which uses none).  For tests: each must never exceed what DD play gives."""
    if pos.trick:
        raise ValueError("bounds are taken at a trick boundary")
    ctx = _context(pos.rules, pos.contract.code, pos.jokers_named, pos.declarer)
    return _ext().bounds(ctx, pos.hands, pos.leader, pos.led_suits, pos.tricks_played)
