"""A hostile bot looks for hidden information through everything it is handed (docs/strategies.md).

At every decision of real games it walks what it holds -- the view's attributes and properties and
everything reachable (``gc.get_referents``, transitively) from the view, the legal actions and its RNG
-- and records any engine state, any other seat's view or generator, any seed and any other seat's
cards it meets.  The promise is that it meets none.  What the promise does not cover is tested too, so
that the docs stay honest: walking the call stack's frames reaches the engine's objects in-process (as
would ``gc.get_objects()``, which no test here runs: it scans the whole process); the isolation mode
(tests/strategies/test_isolation.py) is the answer to those.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import Any

import pytest

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.engine import ContractTables, State
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import deal_seed
from fivehundred.sim.view import SeatView
from fivehundred.strategies.heuristic import HeuristicStrategy
from fivehundred.strategies.random_bot import RandomStrategy

MASTER = 0x5EED_0F_5EED_0F
#: Immutable public objects every view shares with the engine (the rules and what hangs off them).
_ATOMS = (int, float, str, bytes, bool, type(None))


def _public(obj: Any, rules: Rules) -> bool:
    """Shared, immutable and public: the rules (deck, ladder, derived tables) and contract tables."""
    return isinstance(obj, (*_ATOMS, type, types.ModuleType, ContractTables)) or obj is rules


def closure(roots: list[Any], rules: Rules) -> list[Any]:
    """Everything reachable from ``roots`` by ``gc.get_referents``, stopping at shared public objects."""
    seen: dict[int, Any] = {}
    todo = list(roots)
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen[id(obj)] = obj
        if _public(obj, rules):
            continue
        todo.extend(gc.get_referents(obj))
    return list(seen.values())


class Hostile(HeuristicStrategy):
    """Plays like the heuristic; at every decision searches for hidden information and records it."""

    name = "hostile.v1"

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.checked = 0

    def _search(self, view: SeatView, legal: Any, rng: Any) -> None:
        rules = view.rules
        assert not hasattr(view, "_s") and not hasattr(view, "__dict__")
        truth = _truth(view)
        secrets = set(truth["hidden"]) | set(truth["seeds"])
        # 1. Attributes and properties.
        for name in dir(view):
            if not name.startswith("__"):
                value = getattr(view, name)
                self._judge(f"view.{name}", value, view, rng, secrets)
        # 2. Everything reachable from what it is handed (the rules are public; not walked).
        reach = closure([view, legal, rng], rules)
        for obj in reach:
            self._judge("reachable", obj, view, rng, secrets)
        self.checked += 1

    def _judge(self, where: str, obj: Any, view: SeatView, rng: Any, secrets: set[int]) -> None:
        if isinstance(obj, State):
            self.found.append(f"{where}: a State")
        elif isinstance(obj, SeatView) and obj is not view:
            self.found.append(f"{where}: another view")
        elif isinstance(obj, Rng) and obj is not rng:
            self.found.append(f"{where}: another RNG")
        elif isinstance(obj, int) and not isinstance(obj, bool) and obj > 511 and obj in secrets:
            self.found.append(f"{where}: a seed or another seat's cards ({obj:#x})")

    def bid(self, view, legal, rng):  # type: ignore[no-untyped-def]
        self._search(view, legal, rng)
        return super().bid(view, legal, rng)

    def discard(self, view, legal, rng):  # type: ignore[no-untyped-def]
        self._search(view, legal, rng)
        return super().discard(view, legal, rng)

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        self._search(view, legal, rng)
        return super().play(view, legal, rng)


#: The state of the deal being played, handed over by the runner's ``on_deal`` hook (test code only).
_DEAL: list[State] = []


def _truth(view: SeatView) -> dict[str, list[int]]:
    """What the bot must not find, read by the test itself from the deal's state."""
    (st,) = _DEAL
    assert st.hands[view.seat] == view.hand
    hidden: list[int] = []
    for seat in range(len(st.hands)):
        if seat != view.seat:
            hidden += [st.hands[seat], st.dealt[seat]]
    if view.seat != st.declarer:
        hidden.append(st.kitty_dealt)
    if view.exposed:
        hidden = [h for h in hidden if h != view.exposed]
    own = {view.hand, view.kitty, view.discards, view.played}
    seeds = [MASTER] + [deal_seed(MASTER, g, h) for g in range(4) for h in range(view.hand_no + 1)]
    return {"hidden": [h for h in hidden if h not in own and h.bit_count() > 1], "seeds": seeds}


def _watch(state: State) -> None:
    _DEAL[:] = [state]


@pytest.mark.parametrize("variant", ["pagat-au", "nullo", "six-player"])
def test_nothing_a_bot_is_handed_leads_to_hidden_information(variant: str) -> None:
    rules = load_rules(variant)
    hostile = Hostile()
    bots = [hostile] + [HeuristicStrategy() for _ in range(rules.players - 1)]
    try:
        play_game(rules, bots, MASTER, 0, rng_keys=[7] * rules.players, on_deal=_watch)
    finally:
        _DEAL.clear()
    assert hostile.checked > 30
    assert hostile.found == []


def test_the_search_would_see_the_old_view() -> None:
    """Self-check: the same search on a view that keeps the state (as before) finds it."""

    class Leaky:
        __slots__ = ("_s", "seat")

    rules = load_rules("pagat-au")
    from fivehundred.sim.game import new_deal

    state, _ = new_deal(rules, MASTER, 0, 0)
    leaky = Leaky()
    leaky._s, leaky.seat = state, 0
    assert any(isinstance(o, State) for o in closure([leaky], rules))


def test_the_view_is_a_snapshot_and_the_rng_a_fork() -> None:
    """Later actions do not show in a view taken earlier; the bot's RNG is not the runner's."""
    rules = load_rules("pagat-au")
    from fivehundred.sim.game import new_deal

    state, _ = new_deal(rules, MASTER, 1, 0)
    view = state.view(state.turn)
    before = (view.bids, view.turn, view.hand)
    state.apply(state.legal_actions()[0])
    assert (view.bids, view.turn, view.hand) == before
    assert state.view(view.seat).bids != view.bids
    rng = Rng(5)
    fork = rng.fork()
    reference = Rng(5)
    assert fork is not rng and [fork.next32() for _ in range(3)] == [reference.next32() for _ in range(3)]
    rng.follow(fork)
    assert rng.next32() == reference.next32()


class RngWatcher(RandomStrategy):
    """Plays at random; at every card records any other generator reachable from its own."""

    name = "rngwatcher.v1"
    others: list[str]
    checked: int
    rules: Rules

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        reach = closure([rng], self.rules)
        self.others += [type(o).__name__ for o in reach if isinstance(o, Rng) and o is not rng]
        self.checked += 1
        return super().play(view, legal, rng)


def test_a_drawing_bot_holds_its_seats_generator_which_leads_to_no_other() -> None:
    """The seat's generator is its own: nothing reachable from it is another seat's or the runner's."""
    rules = load_rules("pagat-au")
    watcher = RngWatcher()
    watcher.others, watcher.checked, watcher.rules = [], 0, rules
    bots = [watcher] + [RandomStrategy() for _ in range(3)]
    records = [r for game in range(4) for r in play_game(rules, bots, MASTER, game)]
    assert watcher.checked > 30 and records
    assert watcher.others == []


class FrameWalker(HeuristicStrategy):
    """Walks the call stack's frames looking for the engine's state and the master seed."""

    name = "framewalker.v1"

    def __init__(self) -> None:
        super().__init__()
        self.states = 0
        self.seeds: set[int] = set()

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        frame = sys._getframe(1)
        while frame is not None:
            for value in frame.f_locals.values():
                if isinstance(value, State):
                    self.states += 1
                seed = getattr(value, "master_seed", None)
                if isinstance(seed, int):
                    self.seeds.add(seed)
            frame = frame.f_back
        return super().play(view, legal, rng)


def test_frames_reach_the_engine_in_process_which_is_why_isolation_exists() -> None:
    """Documented limit: frames of the callers (here a chunk) hold the master seed in-process."""
    from fivehundred.pipelines.chunks import GameChunk, play_chunk
    from fivehundred.pipelines.runconfig import SeatSpec

    rules = load_rules("pagat-au")
    walker = FrameWalker()
    seats = tuple(SeatSpec.parse("heuristic") for _ in range(4))
    chunk = GameChunk(0, rules, seats, MASTER, range(1))
    original = SeatSpec.build
    try:
        SeatSpec.build = lambda self, rules=None: walker  # type: ignore[method-assign]
        play_chunk(chunk)
    finally:
        SeatSpec.build = original  # type: ignore[method-assign]
    assert MASTER in walker.seeds
