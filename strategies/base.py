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
import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from fivehundred.sim.errors import UserError
from fivehundred.sim.rng import Rng
from fivehundred.sim.view import SeatView

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

#: The version a bare family name means when it is not the newest registered one.  ``heuristic``
#: stays ``heuristic.v1`` (the run configs, tournaments and Monte Carlo rollouts name it bare) until
#: the team decides to move the default to ``heuristic.v2``; ask for ``heuristic.v2`` by its full name.
#: ``montecarlo`` stays ``montecarlo.v1`` likewise (the tests, docs and isolation runs that name it
#: bare keep their results); ask for ``montecarlo.v2`` by its full name.
DEFAULT_VERSIONS: dict[str, str] = {
    "heuristic": "heuristic.v1",
    "montecarlo": "montecarlo.v1",
    "expert": "expert.v1",
}

#: The methods of :class:`Strategy` a class must define (checked before it is ever called).
METHODS = ("bid", "discard", "name_joker", "play")

#: ``package.module`` of a ``package.module:Class`` spec: dotted identifiers, never relative.
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
#: A registered name (``random``, ``heuristic.v1``, ``firstlegal-bot.v2``) or the class of a spec.
_NAME = re.compile(r"[A-Za-z_][\w-]*(\.[\w-]+)*")


# --------------------------------------------------------------------------------------------
# Parameter validators: each returns None for a good value, else what is wrong (one phrase).
# --------------------------------------------------------------------------------------------


class AuctionOf:
    """A player that bids, discards and names the joker as its ``base`` strategy does (the search bots
    search only the play): subclasses set ``self.base``."""

    base: Any

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The base strategy's bid."""
        return int(self.base.bid(view, legal, rng))

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The base strategy's discard."""
        return int(self.base.discard(view, legal, rng))

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The base strategy's joker naming."""
        return int(self.base.name_joker(view, legal, rng))


def number(lo: float, hi: float) -> Callable[[Any], str | None]:
    """A validator for an int or float in ``[lo, hi]`` (booleans are not numbers)."""

    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"must be a number between {lo} and {hi}"
        if not lo <= value <= hi:
            return f"must be between {lo} and {hi}"
        return None

    check.allowed = f"a number from {lo} to {hi}"  # type: ignore[attr-defined]
    return check


def whole(lo: int, hi: int | None = None) -> Callable[[Any], str | None]:
    """A validator for an int in ``[lo, hi]`` (``hi`` None: no upper bound; booleans are not ints)."""
    bound = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"

    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a whole number {bound}"
        if value < lo or (hi is not None and value > hi):
            return f"must be {bound}"
        return None

    check.allowed = f"a whole number {bound}"  # type: ignore[attr-defined]
    return check


def boolean(value: Any) -> str | None:
    """A validator for ``true`` / ``false``."""
    return None if isinstance(value, bool) else "must be true or false"


boolean.allowed = "true or false"  # type: ignore[attr-defined]


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
        except (Exception, SystemExit) as exc:  # a broken package: one line that names it
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise StrategyConfigError(
                f"entry point '{ep.name}' ({ep.value}) in group {ENTRY_POINT_GROUP} failed to load: {detail}"
            ) from None
        if inspect.isclass(cls) and not isinstance(getattr(cls, "name", None), str):
            setattr(cls, "name", ep.name)  # noqa: B010 (a class attribute that the Protocol declares)
        _REGISTRY[ep.name] = check_class(cls, f"{ep.name} = {ep.value}")


#: The modules of the built-in bots, imported by name (they import this module to register their bots,
#: so this module never imports them: no import cycle).
BUILTIN_MODULES = (
    "fivehundred.strategies.random_bot",
    "fivehundred.strategies.heuristic",
    "fivehundred.strategies.heuristic2",
    "fivehundred.strategies.heuristic3",
    "fivehundred.strategies.heuristic4",
    "fivehundred.strategies.heuristic5",
    "fivehundred.strategies.montecarlo",
    "fivehundred.strategies.expert",
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


@dataclass(frozen=True)
class ParamInfo:
    """One declared parameter of a bot: its default, the values it accepts, what it does."""

    name: str
    default: Any
    allowed: str
    meaning: str

    @property
    def default_text(self) -> str:
        """The default as it is written in a spec or TOML (``true``, ``1.6``, ``'heuristic'``)."""
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if self.default is None:
            return "unset"
        return repr(self.default)


def summary(name: str) -> str:
    """One line on what a bot is: its class's ``summary``, else the first sentence of its docstring."""
    _versioned, cls = resolve(name)
    text = getattr(cls, "summary", None)
    if not isinstance(text, str) or not text:
        text = " ".join((cls.__doc__ or "").split()).split(". ")[0].rstrip(".")
    return text


def describe_params(name: str) -> list[ParamInfo]:
    """The parameters a registered bot declares (its ``PARAMS`` validators, in order).

    The default is the constructor's; the allowed values are the validator's ``allowed`` text
    (:func:`number`, :func:`whole`, :func:`boolean` carry one); the meaning is the class's
    ``PARAM_HELP`` entry.  Unknown names raise :class:`StrategyConfigError`.
    """
    _versioned, cls = resolve(name)
    params = getattr(cls, "PARAMS", {}) or {}
    meanings = getattr(cls, "PARAM_HELP", {}) or {}
    try:
        signature = inspect.signature(cls)
        defaults = {k: p.default for k, p in signature.parameters.items()}
    except (TypeError, ValueError):  # a compiled class may hide its signature: read a default instance
        defaults = {}
    if any(defaults.get(k, inspect.Parameter.empty) is inspect.Parameter.empty for k in params):
        bot = cls()
        defaults = {k: getattr(bot, k, None) for k in params}
    return [
        ParamInfo(
            name=key,
            default=defaults.get(key),
            allowed=getattr(check, "allowed", None) or "see the bot's documentation",
            meaning=meanings.get(key, "(not described)"),
        )
        for key, check in params.items()
    ]


def check_class(obj: Any, where: str) -> type:
    """``obj`` if it is a class implementing :class:`Strategy`; else :class:`StrategyConfigError`.

    Nothing of ``obj`` is called: a function (``sys:exit``, ``os:abort``), an instance
    (``builtins:quit``) or a class without the four methods is refused before anything runs.
    """
    if not inspect.isclass(obj):
        raise StrategyConfigError(
            f"strategy '{where}' names a {type(obj).__name__}, not a class "
            f"(a strategy is a class with the methods {', '.join(METHODS)})"
        )
    missing = [m for m in METHODS if not callable(inspect.getattr_static(obj, m, None))]
    if missing:
        raise StrategyConfigError(
            f"strategy '{where}': class {obj.__qualname__} does not implement the strategy protocol "
            f"(no {', '.join(m + '()' for m in missing)} method)"
        )
    name = inspect.getattr_static(obj, "name", None)
    if name is not None and not isinstance(name, str):
        raise StrategyConfigError(
            f"strategy '{where}': class {obj.__qualname__} has name = {name!r}; a name is a string "
            "such as 'mybot.v1'"
        )
    params = inspect.getattr_static(obj, "PARAMS", {})
    if not isinstance(params, Mapping):
        raise StrategyConfigError(f"strategy '{where}': class {obj.__qualname__}: PARAMS is not a dict")
    return obj


def is_file_spec(name: str) -> bool:
    """Whether a spec's name is ``path/to/file.py:Class`` (a bot in a file) rather than a module's."""
    return name.rpartition(":")[0].endswith(".py")


def absolute_spec(spec: str) -> str:
    """``spec`` with the file of a ``path/to/file.py:Class`` spec made absolute (from the working
    folder), so that every process of a run, whatever its folder, loads the same file; any other
    spec unchanged.  A run records this form."""
    text = spec.strip()
    head, paren, rest = text.partition("(")
    if not is_file_spec(head.strip()):
        return spec
    path, _, attr = head.strip().rpartition(":")
    return f"{Path(path).expanduser().resolve()}:{attr}{paren}{rest}"


def _load_file(path_text: str, spec: str) -> Any:
    """The module of a bot's file, loaded once per process under a private name (``sys.modules``)."""
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        gone = "is not a file" if path.exists() else "does not exist"
        raise StrategyConfigError(f"strategy '{spec}': {path_text} {gone}")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", path.stem)
    key = f"fivehundred_bot_{stem}_{digest}"
    module = sys.modules.get(key)
    if module is not None:
        return module
    where = importlib.util.spec_from_file_location(key, path)
    if where is None or where.loader is None:
        raise StrategyConfigError(f"strategy '{spec}': {path_text} is not a Python file")
    module = importlib.util.module_from_spec(where)
    sys.modules[key] = module  # dataclasses and pickling look the module up by name
    try:
        where.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # the file itself fails: syntax error, raises, exits
        del sys.modules[key]
        detail = " ".join(str(exc).split()) or "no message"
        raise StrategyConfigError(
            f"strategy '{spec}': running {path_text} failed ({type(exc).__name__}: {detail})"
        ) from None
    return module


def _import_class(spec: str) -> type:
    """The class named by ``package.module:Class`` or ``path/to/file.py:Class``, imported and checked
    (see :func:`check_class`)."""
    mod_name, _, attr = spec.rpartition(":")
    if not all(part.isidentifier() for part in attr.split(".")) or not (
        is_file_spec(spec) or _MODULE.fullmatch(mod_name)
    ):
        raise StrategyConfigError(
            f"strategy '{spec}': expected package.module:Class (dotted names, no relative import) "
            "or path/to/file.py:Class"
        )
    if is_file_spec(spec):
        obj: Any = _load_file(mod_name, spec)
    else:
        try:
            obj = importlib.import_module(mod_name)
        except ImportError as exc:
            raise StrategyConfigError(f"strategy '{spec}': cannot import {mod_name} ({exc})") from None
        except (Exception, SystemExit) as exc:  # the module itself fails: syntax error, raises, exits
            detail = " ".join(str(exc).split()) or "no message"
            raise StrategyConfigError(
                f"strategy '{spec}': importing {mod_name} failed ({type(exc).__name__}: {detail})"
            ) from None
    for part in attr.split("."):
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            raise StrategyConfigError(f"strategy '{spec}': {mod_name} has no attribute {attr}") from None
    return check_class(obj, spec)


def resolve(name: str) -> tuple[str, Callable[..., Any]]:
    """Resolve ``random``, ``random.v1``, ``package.module:Class`` or ``path/to/file.py:Class`` to
    (versioned name, class).  A class's ``name`` attribute is its versioned name; without one, a
    module's class is called by its spec and a file's by ``file.py:Class``.

    A bare family name means its newest version, unless :data:`DEFAULT_VERSIONS` pins another.
    """
    if ":" in name:
        cls = _import_class(name)
        path, _, attr = name.rpartition(":")
        fallback = f"{Path(path).name}:{attr}" if is_file_spec(name) else name
        return getattr(cls, "name", None) or fallback, cls
    names = available()
    if name in _REGISTRY:
        return name, _REGISTRY[name]
    pinned = DEFAULT_VERSIONS.get(name)
    if pinned in _REGISTRY:
        return pinned, _REGISTRY[pinned]
    versions = [n for n in names if n.rsplit(".", 1)[0] == name]
    if versions:
        best = max(versions, key=lambda n: int(n.rsplit(".v", 1)[1]) if n.rsplit(".v", 1)[1].isdigit() else 0)
        return best, _REGISTRY[best]
    raise StrategyConfigError(f"unknown strategy '{name}' (available: {', '.join(names)})")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name(param=value, ...)`` into the name and a dict of literal parameters.

    The whole text must be one such spec: ``heuristic(a=1)(b=2)`` or ``heuristic(a=1) x`` are refused,
    as are positional values, ``**kwargs`` and anything that is not a literal.
    """
    spec = spec.strip()
    name, paren, rest = spec.partition("(")
    name = name.strip()
    module, colon, cls = name.rpartition(":")
    if not (_NAME.fullmatch(name) or (colon and module and cls)):
        raise StrategyConfigError(
            f"strategy '{spec}': expected a name such as 'heuristic', 'heuristic(aggression=1.2)', "
            "'package.module:Class' or 'path/to/file.py:Class'"
        )
    if not paren:
        return name, {}
    syntax = (
        f"strategy '{spec}': expected name(param=value, ...) with literal values, "
        "e.g. heuristic(aggression=1.2)"
    )
    try:
        call = ast.parse(f"f({rest}", mode="eval").body
    except (SyntaxError, ValueError):
        raise StrategyConfigError(syntax) from None
    # One call of the bare name: `f(...)(...)` (trailing text) would parse as a call of a call.
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and not call.args):
        raise StrategyConfigError(syntax)
    params: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise StrategyConfigError(syntax)
        if kw.arg in params:
            raise StrategyConfigError(f"strategy '{spec}': parameter '{kw.arg}' is given twice")
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise StrategyConfigError(syntax) from None
    return name, params


def split_specs(text: str) -> list[str]:
    """Split ``a,b(x=1, y=2),c`` at the commas outside parentheses and quotes (one spec per seat)."""
    parts: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        else:
            depth += (ch == "(") - (ch == ")")
        cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


def make(spec: str, params: dict[str, Any] | None = None) -> Any:
    """Build a strategy from a spec (``heuristic``, ``heuristic(aggression=1.2)``, ``pkg.mod:Class``,
    ``path/to/file.py:Class``).

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
        raise StrategyConfigError(f"strategy '{versioned}': {' '.join(str(exc).split())}") from None
    except (Exception, SystemExit) as exc:  # a user class whose constructor fails or exits
        detail = " ".join(str(exc).split()) or "no message"
        raise StrategyConfigError(
            f"strategy '{versioned}': building it failed ({type(exc).__name__}: {detail})"
        ) from None
    for method in METHODS:
        if not callable(getattr(bot, method, None)):
            raise StrategyConfigError(f"strategy '{versioned}' has no {method}() method")
    return bot


def check_spec(spec: str, params: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any], str]:
    """Validate a spec and extra parameters by building the bot once (here, not in a worker).

    Returns the bare name (a bot's file made absolute, :func:`absolute_spec`), the merged parameters
    and the :func:`label`; every mistake raises :class:`StrategyConfigError`.  The one check that run
    configs and tournaments share.
    """
    name, inline = parse_spec(spec)
    name = absolute_spec(name)
    merged = {**inline, **dict(params or {})}
    make(name, merged)
    return name, merged, label(name, merged)


def label(spec: str, params: dict[str, Any] | None = None) -> str:
    """The id written to logs: the versioned name, plus sorted parameters when any are set."""
    name, spec_params = parse_spec(spec)
    merged = {**spec_params, **(params or {})}
    versioned, _ = resolve(name)
    if not merged:
        return versioned
    inner = ",".join(f"{k}={merged[k]!r}" for k in sorted(merged))
    return f"{versioned}({inner})"
