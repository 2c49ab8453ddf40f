"""A hostile bot looks for hidden information through everything it is handed (docs/strategies.md).

At every decision of real games it walks what it holds -- the view's attributes and properties, the
transitive ``gc.get_referents`` of the view, the legal actions and its RNG, and ``gc.get_referrers`` of
the view, of the RNG and of every container in the view -- and records any engine state, any other
seat's view or generator, any seed and any other seat's cards it meets.  The promise is that it meets
none.  What the promise does not cover is tested too, so that the docs stay honest: walking the call
stack's frames, and ``gc.get_objects()``, reach the engine's objects in-process; the isolation mode
(tests/pipelines/test_isolation.py) is the answer to those.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import Any

import pytest

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.engine import ContractTables, SeatView, State
from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import deal_seed
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
        # 3. Who refers to what it holds (frames of the call stack aside: see test_frames_reach_...).
        mine = {id(o) for o in reach} | {id(o) for o in closure([self], rules)}  # and its own memory
        # The view's own containers (``legal`` may be an entry of the engine's shared constant tables).
        of_view = closure([view], rules)
        containers = [o for o in of_view if isinstance(o, tuple | list) and o and not _public(o, rules)]
        targets = [view, rng, *containers]  # () is one object shared by all: public
        for obj in targets:
            for ref in gc.get_referrers(obj):
                ours = (reach, of_view, targets, containers)
                if isinstance(ref, types.FrameType) or id(ref) in mine or any(ref is x for x in ours):
                    continue
                self.found.append(
                    f"get_referrers({type(obj).__name__}) -> {type(ref).__name__} {str(ref)[:80]}"
                )
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


_STATES: dict[tuple[Any, ...], list[State]] = {}


def _truth(view: SeatView) -> dict[str, list[int]]:
    """What the bot must not find, read by the test itself (the state, from gc: test code may)."""
    key = (view.hand_no, view.dealer, *view.scores)  # not the view's own tuple: it would be a referrer
    states = [st for st in _STATES.get(key, []) if st.hands[view.seat] == view.hand]
    if not states:
        states = [
            o
            for o in gc.get_objects()
            if isinstance(o, State) and o.hand_no == view.hand_no and o.hands[view.seat] == view.hand
        ]
        _STATES[key] = states
    hidden: list[int] = []
    for st in states:
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


@pytest.mark.parametrize("variant", ["pagat-au", "nullo", "six-player"])
def test_nothing_a_bot_is_handed_leads_to_hidden_information(variant: str) -> None:
    rules = load_rules(variant)
    hostile = Hostile()
    bots = [hostile] + [HeuristicStrategy() for _ in range(rules.players - 1)]
    try:
        play_game(rules, bots, MASTER, 0, rng_keys=[7] * rules.players)
    finally:
        _STATES.clear()
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
    views = [leaky]  # the runner's list of every seat's view, as it was
    assert any(r is views for r in gc.get_referrers(leaky))


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
    """Plays at random; at every card records who, besides call frames, refers to its RNG."""

    name = "rngwatcher.v1"
    referrers: list[str]
    checked: int

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        self.referrers += [
            type(r).__name__ for r in gc.get_referrers(rng) if not isinstance(r, types.FrameType)
        ]
        self.checked += 1
        return super().play(view, legal, rng)


def test_a_drawing_bot_holds_its_seats_generator_which_the_runner_lists_nowhere_meanwhile() -> None:
    """The seat's generator is out of the runner's list during the decision (no fork per decision)."""
    rules = load_rules("pagat-au")
    watcher = RngWatcher()
    watcher.referrers, watcher.checked = [], 0
    bots = [watcher] + [RandomStrategy() for _ in range(3)]
    records = [r for game in range(4) for r in play_game(rules, bots, MASTER, game)]
    assert watcher.checked > 30 and records
    assert watcher.referrers == []


class FrameWalker(HeuristicStrategy):
    """Walks the call stack's frames looking for the engine's state and the master seed."""

    name = "framewalker.v1"

    def __init__(self) -> None:
        super().__init__()
        self.states = 0
        self.seeds: set[int] = set()
        self.gc_states = 0

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
        self.gc_states += sum(isinstance(o, State) for o in gc.get_objects())
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
    assert walker.gc_states > 0  # and gc.get_objects() lists every object, the engine's state too
