"""The strategy interface: a small Protocol, a registry of versioned names, and how to build bots.

A strategy answers four questions, each given the seat's :class:`~sim.engine.SeatView`, the list of
legal actions and a seeded :class:`sim.rng.Rng` (the usual methods of :class:`random.Random`:
``random``, ``randrange``, ``choice``, ``shuffle``, ...) that belongs to that seat for that deal:

- ``bid(view, legal, rng)`` in the auction (``legal`` holds ``PASS`` and ``BID + i`` actions);
- ``discard(view, legal, rng)``, asked once per kitty card, returns one card to throw;
- ``name_joker(view, legal, rng)``, the declarer naming a suit for the joker in NT/misère;
- ``play(view, legal, rng)``, one card (or a joker-lead action) per trick.

Each must return one of ``legal`` (a tuple of action ints, see ``sim.engine``).  Bots may keep no
hidden state between deals that depends on other seats' cards; all randomness must come from ``rng``
(never the global ``random``).  A bot that never uses ``rng`` may declare ``uses_rng = False``: the
runner then skips seeding one for it (it gets a guard that raises if used).
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from fivehundred.sim.engine import SeatView
from fivehundred.sim.errors import UserError
from fivehundred.sim.rng import Rng

ENTRY_POINT_GROUP = "fivehundred.strategies"


class StrategyConfigError(UserError, ValueError):
    """A strategy name, parameter or value is wrong; the message is one line and lists what exists."""


@runtime_checkable
class Strategy(Protocol):
    """What every bot implements.  ``name`` is its versioned registered name (``heuristic.v1``)."""

    name: str

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int: ...

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int: ...

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int: ...

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int: ...


_REGISTRY: dict[str, Callable[..., Any]] = {}
_entry_points_loaded = False


def register(name: str) -> Callable[[type], type]:
    """Class decorator: register a strategy under a versioned name such as ``random.v1``."""
    if "." not in name or not name.rsplit(".", 1)[1].startswith("v"):
        raise ValueError(f"strategy names are versioned like 'heuristic.v1', got {name!r}")

    def deco(cls: type) -> type:
        _REGISTRY[name] = cls
        setattr(cls, "name", name)  # noqa: B010 (a class attribute that the Protocol declares)
        return cls

    return deco


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in _REGISTRY:
            continue
        try:
            cls = ep.load()
        except Exception as exc:  # a broken third-party package must not break the others
            raise StrategyConfigError(
                f"entry point '{ep.name}' ({ep.value}) in group {ENTRY_POINT_GROUP} failed to load: {exc}"
            ) from exc
        _REGISTRY[ep.name] = cls
        if not isinstance(getattr(cls, "name", None), str):
            cls.name = ep.name


#: The modules of the built-in bots, imported by name (they import this module to register their bots,
#: so this module never imports them: no import cycle).
BUILTIN_MODULES = (
    "fivehundred.strategies.random_bot",
    "fivehundred.strategies.heuristic",
    "fivehundred.strategies.montecarlo",
)


def _import_builtins() -> None:
    # Importing the modules registers their bots; random_bot must be there, the others may be left out.
    for mod in BUILTIN_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod or mod == BUILTIN_MODULES[0]:
                raise


def available() -> list[str]:
    """Every registered versioned name (built-in and from entry points)."""
    _import_builtins()
    _load_entry_points()
    return sorted(_REGISTRY)


def resolve(name: str) -> tuple[str, Callable[..., Any]]:
    """Resolve ``random``, ``random.v1`` or ``package.module:Class`` to (versioned name, class)."""
    if ":" in name:
        mod_name, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(mod_name), attr)
        except (ImportError, AttributeError) as exc:
            raise StrategyConfigError(
                f"strategy '{name}': cannot import {attr} from {mod_name} ({exc})"
            ) from None
        return getattr(cls, "name", name), cls
    names = available()
    if name in _REGISTRY:
        return name, _REGISTRY[name]
    versions = [n for n in names if n.rsplit(".", 1)[0] == name]
    if versions:
        best = max(versions, key=lambda n: int(n.rsplit(".v", 1)[1]) if n.rsplit(".v", 1)[1].isdigit() else 0)
        return best, _REGISTRY[best]
    raise StrategyConfigError(f"unknown strategy '{name}' (available: {', '.join(names)})")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name(param=value, ...)`` into the name and a dict of literal parameters."""
    spec = spec.strip()
    if "(" not in spec:
        return spec, {}
    if not spec.endswith(")"):
        raise StrategyConfigError(f"strategy '{spec}': expected name(param=value, ...)")
    name, _, inner = spec[:-1].partition("(")
    try:
        call = ast.parse(f"f({inner})", mode="eval").body
        assert isinstance(call, ast.Call) and not call.args
        params = {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords if kw.arg}
        assert len(params) == len(call.keywords)  # no **kwargs
    except (SyntaxError, ValueError, AssertionError):
        raise StrategyConfigError(
            f"strategy '{spec}': parameters must be name=value literals, e.g. heuristic(aggression=1.2)"
        ) from None
    return name.strip(), params


def make(spec: str, params: dict[str, Any] | None = None) -> Any:
    """Build a strategy from a spec (``heuristic``, ``heuristic(aggression=1.2)``, ``pkg.mod:Class``).

    Unknown names and parameters, and values the bot refuses, raise :class:`StrategyConfigError`.
    """
    name, spec_params = parse_spec(spec)
    merged = {**spec_params, **(params or {})}
    versioned, cls = resolve(name)
    allowed = getattr(cls, "PARAMS", {})
    for key, value in merged.items():
        if key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise StrategyConfigError(
                f"strategy '{versioned}': unknown parameter '{key}' (parameters: {known})"
            )
        check = allowed[key]
        if callable(check):
            problem = check(value)
            if problem:
                raise StrategyConfigError(f"strategy '{versioned}': parameter '{key}' = {value!r}: {problem}")
    try:
        bot = cls(**merged)
    except (TypeError, ValueError) as exc:
        raise StrategyConfigError(f"strategy '{versioned}': {exc}") from None
    for method in ("bid", "discard", "name_joker", "play"):
        if not callable(getattr(bot, method, None)):
            raise StrategyConfigError(f"strategy '{versioned}' has no {method}() method")
    return bot


def label(spec: str, params: dict[str, Any] | None = None) -> str:
    """The id written to logs: the versioned name, plus sorted parameters when any are set."""
    name, spec_params = parse_spec(spec)
    merged = {**spec_params, **(params or {})}
    versioned, _ = resolve(name)
    if not merged:
        return versioned
    inner = ",".join(f"{k}={merged[k]!r}" for k in sorted(merged))
    return f"{versioned}({inner})"
