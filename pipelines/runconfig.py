"""Run configurations: ``configs/runs/*.toml`` plus command-line overrides, validated at the boundary.

A run file looks like this (every key optional except those the command line does not give)::

    variant = "pagat-au"            # a name from configs/variants/ or a path to a .toml file
    strategies = "random"           # one spec for every seat, or one per seat (seat order):
    # strategies = ["random", "heuristic(aggression=1.2)", "random",
    #               {name = "heuristic", params = {aggression = 1.2}}]
    seed = 7                        # master seed (0 <= seed < 2**64)
    deals = 30000                   # or games = 1000 (exactly one of the two)
    chunk_size = 5000               # games per chunk (one Parquet part file per chunk)
    out = "runs/demo"               # run directory: a path or a URI pyarrow understands (s3://...)
    workers = 2                     # optional: parallelism (0 = in-process, no Ray)
    address = "ray://head:10001"    # optional: join an existing Ray cluster
    max_retries = 3                 # optional: how often a chunk is retried after a worker/node crash
    dd_sample = 1500                # optional: deals the main job (`fivehundred run`) solves double
                                    # dummy (analyze --dd-sample; 0 = none); not part of the run

Every mistake raises :class:`RunConfigError` (a :class:`~sim.errors.UserError`) whose one-line message
names the file (or ``command line``) and the key.  :meth:`RunConfig.identity` is what makes two runs
"the same run" (resume) - execution settings such as ``workers`` and ``address`` are not part of it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from fivehundred.sim.configfile import read_toml
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.strategies.base import StrategyConfigError, check_spec, split_specs

#: Games per chunk when the config does not say: one Parquet part file per chunk.
DEFAULT_CHUNK_SIZE = 5000
DEFAULT_MAX_RETRIES = 3
#: Seconds per decision allowed to an isolated strategy (``isolate_timeout``).
DEFAULT_ISOLATE_TIMEOUT = 30.0
MAX_SEED = 2**64 - 1
#: Games or deals of a run at most: ``game_id`` and ``deal_id`` are int64 columns of the deal log.
MAX_COUNT = 2**63 - 1
#: Games per chunk at most: a chunk's rows are held in memory before its part file is written.
MAX_CHUNK_SIZE = 1_000_000

_KEYS = ("variant", "strategies", "seed", "games", "deals", "chunk_size", "out", "workers", "address")
_KEYS_ALL = (*_KEYS, "max_retries", "isolate", "isolate_timeout", "dd_sample")
#: Deals of a DD sample at most (``dd_sample``; the same bound as a run's deals).
MAX_DD_SAMPLE = MAX_COUNT


class RunConfigError(UserError, ValueError):
    """A run file or flag is wrong: the one-line message names where and which key."""


@dataclass(frozen=True)
class SeatSpec:
    """One seat's strategy: how to build it (``spec`` + ``params``) and the id written to the log."""

    spec: str
    params: tuple[tuple[str, Any], ...] = ()
    label: str = ""
    #: Run the strategy in its own process (strategies/isolation.py); changes no result.
    isolate: bool = field(default=False, compare=False)
    #: Seconds per decision allowed to an isolated strategy.
    timeout: float = field(default=30.0, compare=False)

    @classmethod
    def parse(cls, value: Any, where: str = "strategies") -> SeatSpec:
        """A seat from ``"heuristic(aggression=1.2)"`` or ``{name = ..., params = {...}}``."""
        if isinstance(value, Mapping):
            unknown = sorted(set(value) - {"name", "params"})
            if unknown or not isinstance(value.get("name"), str):
                raise RunConfigError(f"{where}: a strategy table needs name = '...' (and params = {{...}})")
            params = value.get("params", {})
            if not isinstance(params, Mapping):
                raise RunConfigError(f"{where}: params must be a table of name = value")
            spec, extra = value["name"], dict(params)
        elif isinstance(value, str) and value.strip():
            spec, extra = value, {}
        else:
            raise RunConfigError(f"{where}: expected a strategy name such as 'random', got {value!r}")
        try:
            name, merged, lab = check_spec(spec, extra)  # parameters validated now, not in a worker
        except StrategyConfigError as exc:
            raise RunConfigError(f"{where}: {exc}") from None
        return cls(spec=name, params=tuple(sorted(merged.items())), label=lab)

    def build(self, rules: Rules | None = None) -> Any:
        """A fresh strategy object for this seat, or its isolated stand-in (``rules`` needed then)."""
        from fivehundred.strategies.base import make

        if self.isolate:
            from fivehundred.strategies.isolation import IsolatedStrategy

            if rules is None:
                raise ValueError("an isolated seat needs the rules to start its process")
            return IsolatedStrategy(self.spec, dict(self.params), rules, self.label, self.timeout)
        return make(self.spec, dict(self.params))

    def describe(self) -> dict[str, Any]:
        """What the manifest records about this seat: spec, parameters, versioned id, class."""
        from fivehundred.strategies.base import resolve

        versioned, cls = resolve(self.spec)
        return {
            "spec": self.spec,
            "params": dict(self.params),
            "label": self.label,
            "name": versioned,
            "version": versioned.rsplit(".", 1)[1] if "." in versioned else None,
            "class": f"{cls.__module__}:{cls.__qualname__}",
        }


@dataclass(frozen=True)
class RunConfig:
    """A validated simulation run.  Build it with :func:`make_config` or :func:`load_config`."""

    variant: str
    rules: Rules = field(compare=False, repr=False)
    seats: tuple[SeatSpec, ...]
    seed: int
    out: str
    games: int | None = None
    deals: int | None = None
    chunk_size: int = DEFAULT_CHUNK_SIZE
    workers: int | None = None
    address: str | None = None
    max_retries: int = DEFAULT_MAX_RETRIES
    source: str | None = None
    isolate: bool = False
    #: Deals the main job analyses double dummy (0: none); an analysis setting, not in :meth:`identity`.
    dd_sample: int = 0

    def identity(self) -> dict[str, Any]:
        """Everything that determines the rows and files: equal identities make a resumable run."""
        specs = [[s.spec, jsonable(dict(s.params))] for s in self.seats]
        return {
            **rows_identity(self.rules, [s.label for s in self.seats], specs, self.seed, self.games),
            "deals": self.deals,
            "chunk_size": self.chunk_size,
        }

    @cached_property
    def run_id(self) -> str:
        """A deterministic id of the run (a hash of :meth:`identity`), written in every row."""
        return identity_hash(self.identity())

    def as_dict(self) -> dict[str, Any]:
        """The full config as plain data (for the manifest)."""
        return {
            "variant": self.variant,
            "strategies": [
                {"name": s.spec, "params": jsonable(dict(s.params))} if s.params else s.spec
                for s in self.seats
            ],
            "seed": self.seed,
            "games": self.games,
            "deals": self.deals,
            "chunk_size": self.chunk_size,
            "out": self.out,
            "workers": self.workers,
            "address": self.address,
            "max_retries": self.max_retries,
            "source": self.source,
            "isolate": self.isolate,
            "dd_sample": self.dd_sample,
        }


def rows_identity(
    rules: Rules, labels: list[str], specs: list[list[Any]], seed: int, games: int | None
) -> dict[str, Any]:
    """What every kind of run's identity holds: the rows' schema and engine versions, the rules (not
    their description), the strategies' ids and specs, the seed and the games."""
    from fivehundred.pipelines.schema import SCHEMA_VERSION
    from fivehundred.sim.engine import ENGINE_VERSION

    return {
        "schema_version": SCHEMA_VERSION,
        "engine_version": ENGINE_VERSION,
        "variant": rules.name,
        "rules": jsonable({k: v for k, v in rules.as_dict().items() if k != "description"}),
        "strategies": labels,
        "strategy_specs": specs,
        "seed": seed,
        "games": games,
    }


def identity_hash(identity: dict[str, Any]) -> str:
    """The run id of an identity: 16 hex digits of the SHA-256 of its canonical JSON."""
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def jsonable(value: Any) -> Any:
    """Round-trip through JSON so tuples become lists and identities compare like the manifest's."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def read_run_file(path: str | Path) -> dict[str, Any]:
    """The raw key -> value table of a run file; unknown keys are refused."""
    p = Path(path)
    if not p.exists() and p.suffix != ".toml":
        candidate = Path(__file__).resolve().parent.parent / "configs" / "runs" / f"{path}.toml"
        if candidate.exists():
            p = candidate
    data = read_toml(p, "run config", RunConfigError)
    for key in data:
        if key not in _KEYS_ALL:
            raise RunConfigError(f"{p}: unknown key '{key}' (known: {', '.join(_KEYS_ALL)})")
    data["__file__"] = str(p)
    return data


def _int(where: str, key: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RunConfigError(f"{where}: key '{key}' = {value!r}: expected an integer")
    if value < low or (high is not None and value > high):
        bound = f"at least {low}" if high is None else f"between {low} and {high}"
        raise RunConfigError(f"{where}: key '{key}' = {value!r}: must be {bound}")
    return value


def _count(where: str, key: str, value: Any, high: int) -> int:
    """A count: an integer >= 1, and <= ``high``."""
    count = _int(where, key, value, 1)
    if count > high:
        raise RunConfigError(f"{where}: key '{key}' = {count!r}: must be at most {high}")
    return count


def make_config(file_values: Mapping[str, Any] | None = None, **overrides: Any) -> RunConfig:
    """Merge a run file's values (from :func:`read_run_file`) with overrides (``None`` = not given).

    Overrides are the command line: ``variant``, ``strategies`` (a comma-separated string or a
    list), ``seed``, ``games``, ``deals``, ``chunk_size``, ``out``, ``workers``, ``address``,
    ``max_retries``, ``dd_sample``.  Giving ``games`` on the command line drops the file's ``deals``
    and vice versa.
    """
    base = dict(file_values or {})
    source = base.pop("__file__", None)
    file_where = source or "run config"
    for key in overrides:
        if key not in _KEYS_ALL:
            raise TypeError(f"make_config() got an unknown key {key!r}")
    given = {k: v for k, v in overrides.items() if v is not None}
    if "games" in given:
        base.pop("deals", None)
    if "deals" in given:
        base.pop("games", None)
    values = {**base, **given}

    top = file_where if source else "command line"

    def where(key: str) -> str:
        return "command line" if key in given else file_where

    def require(key: str) -> Any:
        if key not in values:
            flag = key.replace("_", "-")
            raise RunConfigError(f"{top}: key '{key}' is missing (--{flag})")
        return values[key]

    variant = values.get("variant", "pagat-au")
    if not isinstance(variant, str) or not variant:
        raise RunConfigError(f"{where('variant')}: key 'variant' = {variant!r}: expected a name or path")
    if source and "variant" not in given and variant.endswith(".toml") and not Path(variant).is_absolute():
        beside = Path(source).parent / variant  # a variant file named in a run file: relative to it
        if beside.exists() and not Path(variant).exists():
            variant = str(beside)
    try:
        rules = load_rules(variant)
    except UserError as exc:
        raise RunConfigError(f"{where('variant')}: key 'variant': {exc}") from None

    raw = require("strategies")
    if isinstance(raw, str):
        items: list[Any] = split_specs(raw)
    elif isinstance(raw, list):
        items = list(raw)
    else:
        raise RunConfigError(f"{where('strategies')}: key 'strategies' = {raw!r}: expected a name or a list")
    if len(items) == 1:
        items = items * rules.players
    if len(items) != rules.players:
        raise RunConfigError(
            f"{where('strategies')}: key 'strategies' has {len(items)} entries; "
            f"give 1 (all seats) or {rules.players} (one per seat) for variant {rules.name}"
        )
    seats = tuple(SeatSpec.parse(v, f"{where('strategies')}: key 'strategies'") for v in items)

    seed = _int(where("seed"), "seed", require("seed"), 0, MAX_SEED)
    games = deals = None
    if "games" in values and "deals" in values:
        raise RunConfigError(f"{where('games')}: give either 'games' or 'deals', not both")
    if "games" in values:
        games = _count(where("games"), "games", values["games"], MAX_COUNT)
    elif "deals" in values:
        deals = _count(where("deals"), "deals", values["deals"], MAX_COUNT)
    else:
        raise RunConfigError(f"{top}: give 'games' or 'deals' (--games N | --deals N)")
    chunk = _count(
        where("chunk_size"), "chunk_size", values.get("chunk_size", DEFAULT_CHUNK_SIZE), MAX_CHUNK_SIZE
    )
    out = require("out")
    if not isinstance(out, str) or not out.strip():
        raise RunConfigError(f"{where('out')}: key 'out' = {out!r}: expected a directory path or URI")
    workers = values.get("workers")
    if workers is not None:
        workers = _int(where("workers"), "workers", workers, 0, 4096)
    address = values.get("address") or None
    if address is not None and not isinstance(address, str):
        raise RunConfigError(
            f"{where('address')}: key 'address' = {address!r}: expected host:port or ray://..."
        )
    if address is not None and workers == 0:
        raise RunConfigError(f"{where('workers')}: key 'workers' = 0 (in-process) excludes an address")
    retries = values.get("max_retries", DEFAULT_MAX_RETRIES)
    retries = _int(where("max_retries"), "max_retries", retries, 0, 100)
    isolate = values.get("isolate", False)
    if not isinstance(isolate, bool):
        raise RunConfigError(f"{where('isolate')}: key 'isolate' = {isolate!r}: expected true or false")
    timeout = values.get("isolate_timeout", DEFAULT_ISOLATE_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 86400:
        raise RunConfigError(
            f"{where('isolate_timeout')}: key 'isolate_timeout' = {timeout!r}: "
            "seconds, above 0 and at most 86400"
        )
    if isolate:
        seats = tuple(replace(s, isolate=True, timeout=float(timeout)) for s in seats)
    dd_sample = _int(where("dd_sample"), "dd_sample", values.get("dd_sample", 0), 0, MAX_DD_SAMPLE)
    return RunConfig(
        variant=variant,
        rules=rules,
        seats=seats,
        seed=seed,
        out=out,
        games=games,
        deals=deals,
        chunk_size=chunk,
        workers=workers,
        address=address,
        max_retries=retries,
        source=source,
        isolate=isolate,
        dd_sample=dd_sample,
    )


def load_config(path: str | Path | None = None, **overrides: Any) -> RunConfig:
    """A run config from an optional TOML file (a path or a name in ``configs/runs/``) and overrides."""
    return make_config(read_run_file(path) if path is not None else None, **overrides)
