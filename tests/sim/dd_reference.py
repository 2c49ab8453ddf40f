"""The plain reference search the double-dummy solver is checked against, and the endings it is given.

:func:`reference_tricks` is minimax over the engine's own :class:`~sim.engine.State`: its legal
actions, its ``apply`` (trick winner, sitting out, the joker's naming and lead rules, the end of a
misère at the declarer's first trick) and its count of tricks; nothing of the rules is written
here.  Positions already valued are kept (the same hands, trick, turn and suits led give the same
future).  It is slow (every card of every trick is tried), so it is given endings of a few tricks.
"""

from __future__ import annotations

import random
import shutil

import pytest

from fivehundred.sim import JOKER, JOKER_LEAD, KITTY, NAME_NONE, NAME_SUIT, State, dd, load_rules


def reference_tricks(state: State) -> int:
    """The declaring side's total tricks at the end of the deal under perfect play from ``state``
    (misère: 0 when the declarer can avoid every trick, else 1)."""
    contract = state.contract
    assert contract is not None
    rules = state.rules
    memo: dict[tuple[object, ...], int] = {}

    def ours(seat: int) -> bool:
        if contract.misere:
            return seat == state.declarer
        return seat % rules.teams == state.declarer % rules.teams

    def won(st: State) -> int:
        return st.declarer_tricks() or 0

    def future(st: State) -> int:
        """The declaring side's tricks from ``st`` on."""
        if st.done:
            return 0
        key = (tuple(st.hands), tuple(st.trick), st.turn, st.led, st.led_suits)
        if key in memo:
            return memo[key]
        values = []
        for action in st.legal_actions():
            child = st.clone()
            child.apply(action)
            values.append(won(child) - won(st) + future(child))
        best = max(values) if ours(st.turn) != contract.misere else min(values)
        memo[key] = best
        return best

    total = won(state) + future(state)
    return min(total, 1) if contract.misere else total


def ending(variant: str, contract: str, seed: int, left: int, naming: int = -1, mid: bool = False) -> State:
    """A seeded deal with ``contract`` forced, random discards, the joker named ``naming`` (a suit,
    ``-1`` none) when asked, then random play (keeping suitless jokers while it can) until ``left``
    tricks remain; ``mid``: a card or two into that trick."""
    rules = load_rules(variant)
    rng = random.Random(seed)
    state = State.deal(rules, rng.getrandbits(64), rng.randrange(rules.players))
    state.force_contract(contract, rng.randrange(rules.players))
    while state.phase == KITTY:
        hand = [a for a in state.legal_actions() if a not in rules.deck.jokers]
        state.apply(rng.choice(hand))
    while state.phase == JOKER:
        state.apply(NAME_SUIT + naming if naming >= 0 else NAME_NONE)
    stop = rng.randrange(1, 3) if mid else 0
    while not state.done and (
        rules.hand_size - state.tricks_played > left
        or (rules.hand_size - state.tricks_played == left and len(state.trick) < stop)
    ):
        legal = state.legal_actions()
        keep = [a for a in legal if a < JOKER_LEAD and a not in rules.deck.jokers]
        state.apply(rng.choice(keep or list(legal)))
    return state


def require_solver() -> None:
    """Fail (not skip) when the C solver is missing on a machine with a C compiler: the install
    must have built it.  Skip only where no compiler exists."""
    if dd.available():
        return
    if shutil.which("cc") or shutil.which("gcc") or shutil.which("clang"):
        pytest.fail(f"a C compiler is here but the DD solver is not available: {dd.unavailable_reason()}")
    pytest.skip(f"no C compiler here: {dd.unavailable_reason()}")
