"""Tournament configurations (``configs/tournaments/*.toml``): entries, format, stopping rule, statistics.

Every mistake raises :class:`TournamentConfigError` with one line naming the file and the key::

    name = "heuristic-vs-random"   # optional, defaults to the file's stem
    variant = "pagat-au"           # a rule set name or a path to a variant TOML
    seed = 500                     # master seed: boards and bot streams derive from it
    format = "match"               # match (2 entries) | round_robin | gauntlet
    gauntlet = "heuristic"         # gauntlet only: the entry that meets every other (default: the first)

    [[entries]]
    name = "heuristic"
    strategy = "heuristic"         # any strategy spec: name, name(param=value), package.module:Class
    params = { }                   # optional parameters, merged over those in the spec

    [stop]
    rule = "sprt"                  # fixed | sprt
    pairs = 100                    # fixed: game pairs per match
    max_pairs = 2000               # sprt: give up (inconclusive) after this many pairs per match
    elo0 = 0.0                     # sprt: H0 and H1 as Elo differences ...
    elo1 = 50.0
    # score0 = 0.5, score1 = 0.57  # ... or as expected per-game scores (not both)
    alpha = 0.05
    beta = 0.05

    [stats]
    confidence = 0.95              # of every interval
    interval = "fisher"            # ratings intervals: fisher | bootstrap
    bootstrap = 500                # bootstrap samples
    prior = 1.0                    # virtual drawn games (> 0) added to each pair that met (Bradley–Terry)

    [run]
    chunk_pairs = 4                # game pairs per work unit
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from fivehundred.pipelines.runconfig import MAX_SEED
from fivehundred.pipelines.tournament.stats import Sprt, elo_from_score, score_from_elo
from fivehundred.sim.configfile import read_toml
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import Rules, load_rules

FORMATS = ("match", "round_robin", "gauntlet")
#: Virtual drawn games per pair at most: a finite number (``inf`` or ``nan`` would fail only after play).
MAX_PRIOR = 1e6
#: Bootstrap samples at most (each one refits every rating).
MAX_BOOTSTRAP = 100_000
#: A tournament's name is a folder name under ``runs/tournaments/``: plain, never a path.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
STOP_RULES = ("fixed", "sprt")
INTERVALS = ("fisher", "bootstrap")


class TournamentConfigError(UserError, ValueError):
    """A tournament configuration is wrong; the one-line message names the file and the key."""


@dataclass(frozen=True)
class Entry:
    """One contestant: a strategy spec with parameters, playing as a partnership."""

    name: str
    strategy: str
    params: dict[str, Any] = field(default_factory=dict)
    label: str = ""  # the versioned id written to the log's `strategies` column


@dataclass(frozen=True)
class StopRule:
    """A fixed number of game pairs per match, or a GSPRT with a cap."""

    rule: str
    pairs: int
    elo0: float = 0.0
    elo1: float = 0.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def sprt(self) -> Sprt | None:
        """The sequential test, or ``None`` for a fixed number of pairs."""
        if self.rule != "sprt":
            return None
        return Sprt.from_elo(self.elo0, self.elo1, self.alpha, self.beta)


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament configuration."""

    name: str
    variant: str
    seed: int
    format: str
    entries: tuple[Entry, ...]
    matches: tuple[tuple[int, int], ...]  # entry indices (a, b): a starts at the even seats
    stop: StopRule
    confidence: float = 0.95
    interval: str = "fisher"
    bootstrap: int = 500
    prior: float = 1.0
    chunk_pairs: int = 4
    source: str = "<config>"
    #: Run every entry's strategy in its own process ([run] isolate; same results either way).
    isolate: bool = False
    #: Entries (by name or strategy spec) not shipped with the project that may run in-process.
    trust: tuple[str, ...] = ()
    #: Seconds per decision allowed to an isolated strategy.
    isolate_timeout: float = 30.0

    def isolated(self, entry: Entry) -> bool:
        """Whether ``entry`` runs in its own process: all with ``isolate``, else every strategy not
        shipped with the project (``module:Class``, other packages' entry points) unless trusted."""
        from fivehundred.strategies.isolation import is_shipped

        if self.isolate:
            return True
        return not is_shipped(entry.strategy) and not {entry.name, entry.strategy} & set(self.trust)

    def rules(self) -> Rules:
        """The rule set the tournament is played under."""
        return load_rules(self.variant)

    def as_dict(self) -> dict[str, Any]:
        """Everything that defines the tournament's results (for the manifest and its hash)."""
        d = asdict(self)
        for how in ("source", "isolate", "trust", "isolate_timeout"):  # how it runs, not what it gives
            d.pop(how)
        d["entries"] = [asdict(e) for e in self.entries]
        d["matches"] = [list(m) for m in self.matches]
        return d

    def digest(self) -> str:
        """A stable hash of :meth:`as_dict` (the run id and resume checks use it)."""
        blob = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(blob.encode()).hexdigest()


_TOP_KEYS = {"name", "variant", "seed", "format", "gauntlet", "entries", "stop", "stats", "run"}
_ENTRY_KEYS = {"name", "strategy", "params"}
_STOP_KEYS = {"rule", "pairs", "max_pairs", "elo0", "elo1", "score0", "score1", "alpha", "beta"}
_STATS_KEYS = {"confidence", "interval", "bootstrap", "prior"}
_RUN_KEYS = {"chunk_pairs", "isolate", "trust", "isolate_timeout"}


class _Reader:
    """Typed access to a TOML table, with errors that name the file and the dotted key."""

    def __init__(self, where: str, data: dict[str, Any], prefix: str, allowed: set[str]) -> None:
        self.where, self.data, self.prefix = where, data, prefix
        for key in data:
            if key not in allowed:
                self.fail(key, f"unknown key (known: {', '.join(sorted(allowed))})")

    def fail(self, key: str, problem: str) -> None:
        """Raise the one-line error: ``where: key 'k' = value: problem`` (or ``key 'k': problem``)."""
        sep = " " if problem.startswith("= ") else ": "
        raise TournamentConfigError(f"{self.where}: key '{self.prefix}{key}'{sep}{problem}")

    def get(
        self, key: str, kind: type | tuple[type, ...], default: Any = None, required: bool = False
    ) -> Any:
        if key not in self.data:
            if required:
                self.fail(key, "is required")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            self.fail(key, f"= {value!r}: expected {names}")
        return float(value) if float in kinds and isinstance(value, int) else value

    def prob(self, key: str, default: float) -> float:
        value = self.get(key, (int, float), default)
        if not 0 < value < 1:
            self.fail(key, f"= {value!r}: must be strictly between 0 and 1")
        return value

    def positive_int(
        self, key: str, default: int | None, required: bool = False, high: int | None = None
    ) -> int:
        value = self.get(key, int, default, required)
        if value < 1:
            self.fail(key, f"= {value!r}: must be at least 1")
        if high is not None and value > high:
            self.fail(key, f"= {value!r}: must be at most {high}")
        return value

    def table(self, key: str, allowed: set[str]) -> _Reader:
        value = self.get(key, dict, {})
        return _Reader(self.where, value, f"{self.prefix}{key}.", allowed)


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament TOML file."""
    path = Path(path)
    where = str(path)
    data = read_toml(path, "tournament config", TournamentConfigError)
    return parse_config(data, where, default_name=path.stem)


def parse_config(
    data: dict[str, Any], where: str = "<config>", default_name: str = "tournament"
) -> TournamentConfig:
    """Validate a tournament configuration given as a dict (as read from TOML)."""
    from fivehundred.strategies.base import StrategyConfigError, absolute_spec, check_spec

    top = _Reader(where, data, "", _TOP_KEYS)
    name = top.get("name", str, default_name)
    if not _PLAIN_NAME.fullmatch(name):
        # it names the folder runs/tournaments/<name>: '..', '.', 'a/b' or '' would land elsewhere
        top.fail("name", f"= {name!r}: must be a plain name (letters, digits, '_', '-', '.'; not first '.')")
    variant = top.get("variant", str, "pagat-au")
    try:
        rules = load_rules(variant)
    except UserError as exc:
        top.fail("variant", f"= {variant!r}: {exc}")
    if rules.teams != 2:
        top.fail(
            "variant", f"= {variant!r}: tournaments need two partnerships ({rules.players} players given)"
        )
    seed = top.get("seed", int, 0)
    if not 0 <= seed <= MAX_SEED:
        top.fail("seed", f"= {seed}: must be between 0 and {MAX_SEED} (as simulate's --seed)")

    raw_entries = top.get("entries", list, required=True)
    entries: list[Entry] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_entries):
        if not isinstance(raw, dict):
            top.fail(f"entries[{i}]", "must be a table ([[entries]] with name and strategy)")
        er = _Reader(where, raw, f"entries[{i}].", _ENTRY_KEYS)
        ename = er.get("name", str, required=True)
        if not ename.strip():
            er.fail("name", "must not be empty")
        if ename in seen:
            er.fail("name", f"= {ename!r}: duplicate entry name")
        seen.add(ename)
        spec = er.get("strategy", str, required=True)
        params = er.get("params", dict, {})
        try:
            check_spec(spec)  # unknown names and bad inline parameters fail here
        except StrategyConfigError as exc:
            er.fail("strategy", f"= {spec!r}: {exc}")
        try:
            _, _, lab = check_spec(spec, params)  # unknown parameters and refused values fail here
        except StrategyConfigError as exc:
            er.fail("params", str(exc))
        entries.append(Entry(ename, absolute_spec(spec), dict(params), lab))
    if len(entries) < 2:
        top.fail("entries", f"a tournament needs at least 2 entries, got {len(entries)}")

    fmt = top.get("format", str, "match" if len(entries) == 2 else "round_robin")
    if fmt not in FORMATS:
        top.fail("format", f"= {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "match" and len(entries) != 2:
        top.fail("format", f"= 'match' needs exactly 2 entries, got {len(entries)}")
    if "gauntlet" in data and fmt != "gauntlet":
        top.fail("gauntlet", f"is only used with format = 'gauntlet' (format is {fmt!r})")
    names = [e.name for e in entries]
    if fmt == "gauntlet":
        hero = top.get("gauntlet", str, names[0])
        if hero not in names:
            top.fail("gauntlet", f"= {hero!r}: not an entry name (entries: {', '.join(names)})")
        h = names.index(hero)
        matches = tuple((h, j) for j in range(len(entries)) if j != h)
    else:
        matches = tuple((i, j) for i in range(len(entries)) for j in range(i + 1, len(entries)))

    return TournamentConfig(
        name=name,
        variant=variant,
        seed=seed,
        format=fmt,
        entries=tuple(entries),
        matches=matches,
        stop=_stop_rule(top),
        source=where,
        **_stats_options(top),
        **_run_options(top, entries),
    )


def config_from_specs(
    specs: list[str], variant: str = "pagat-au", seed: int = 0, pairs: int = 100
) -> TournamentConfig:
    """A tournament given on the command line (``tournament --entry A --entry B``): each strategy
    spec an entry named by its versioned id, a match between two (a round robin between more),
    ``pairs`` game pairs each; validated as a config file is."""
    from fivehundred.strategies.base import StrategyConfigError, check_spec, label

    names: list[str] = []
    for spec in specs:
        try:
            check_spec(spec)  # a bad name or inline parameter is the option's error, not a config key's
            base = label(spec)
        except StrategyConfigError as exc:
            raise TournamentConfigError(f"--entry {spec}: {exc}") from None
        name, k = base, 2
        while name in names:
            name, k = f"{base} #{k}", k + 1
        names.append(name)
    title = "-vs-".join(names) if len(names) == 2 else "round-robin-" + "-".join(names)
    data = {
        "name": re.sub(r"[^A-Za-z0-9_.-]+", "-", title).strip("-.")[:100] or "tournament",
        "variant": variant,
        "seed": seed,
        "entries": [{"name": n, "strategy": s} for n, s in zip(names, specs, strict=True)],
        "stop": {"rule": "fixed", "pairs": pairs},
    }
    return parse_config(data, "--entry")


def with_pairs(config: TournamentConfig, pairs: int) -> TournamentConfig:
    """``config`` with each match's length set to ``pairs`` game pairs (a fixed match: its pairs; an
    SPRT: its cap, ``max_pairs``)."""
    if pairs < 1:
        raise TournamentConfigError(f"--pairs {pairs}: must be at least 1")
    return replace(config, stop=replace(config.stop, pairs=pairs))


def _stop_rule(top: _Reader) -> StopRule:
    """The ``[stop]`` table: a fixed number of game pairs or a GSPRT with its bounds."""
    stop_r = top.table("stop", _STOP_KEYS)
    rule = stop_r.get("rule", str, "fixed")
    if rule not in STOP_RULES:
        stop_r.fail("rule", f"= {rule!r}: expected one of {', '.join(STOP_RULES)}")
    if rule == "fixed":
        for key in ("max_pairs", "elo0", "elo1", "score0", "score1", "alpha", "beta"):
            if key in stop_r.data:
                stop_r.fail(key, "is only used with rule = 'sprt'")
        stop = StopRule("fixed", stop_r.positive_int("pairs", 100))
    else:
        if "pairs" in stop_r.data:
            stop_r.fail("pairs", "is only used with rule = 'fixed' (the SPRT cap is 'max_pairs')")
        has_elo = "elo0" in stop_r.data or "elo1" in stop_r.data
        has_score = "score0" in stop_r.data or "score1" in stop_r.data
        if has_elo and has_score:
            stop_r.fail(
                "score0" if "score0" in stop_r.data else "score1",
                "give the bounds as Elo or as score, not both",
            )
        if has_score:
            s0 = stop_r.prob("score0", 0.5)
            s1 = stop_r.prob("score1", 0.55)
            if s0 >= s1:
                stop_r.fail("score1", f"= {s1!r}: must be greater than score0 = {s0!r}")
            elo0, elo1 = elo_from_score(s0), elo_from_score(s1)
        else:
            elo0 = stop_r.get("elo0", (int, float), 0.0)
            elo1 = stop_r.get("elo1", (int, float), 50.0)
            for key, value in (("elo0", elo0), ("elo1", elo1)):
                if not -2000 < value < 2000:
                    stop_r.fail(key, f"= {value!r}: must be between -2000 and 2000")
            if elo0 >= elo1:
                stop_r.fail("elo1", f"= {elo1!r}: must be greater than elo0 = {elo0!r}")
            if score_from_elo(elo1) - score_from_elo(elo0) < 1e-9:
                stop_r.fail("elo1", "is too close to elo0 to tell apart")
        alpha = stop_r.prob("alpha", 0.05)
        beta = stop_r.prob("beta", 0.05)
        if alpha + beta >= 1:
            stop_r.fail("beta", f"= {beta!r}: alpha + beta must be below 1 (alpha = {alpha!r})")
        stop = StopRule("sprt", stop_r.positive_int("max_pairs", 2000), elo0, elo1, alpha, beta)
    return stop


def _stats_options(top: _Reader) -> dict[str, Any]:
    """The ``[stats]`` table as TournamentConfig's keyword arguments."""
    stats_r = top.table("stats", _STATS_KEYS)
    confidence = stats_r.prob("confidence", 0.95)
    interval = stats_r.get("interval", str, "fisher")
    if interval not in INTERVALS:
        stats_r.fail("interval", f"= {interval!r}: expected one of {', '.join(INTERVALS)}")
    bootstrap = stats_r.positive_int("bootstrap", 500, high=MAX_BOOTSTRAP)
    prior = stats_r.get("prior", (int, float), 1.0)
    if not 0 < prior <= MAX_PRIOR:
        stats_r.fail(
            "prior", f"= {prior!r}: must be positive and at most {MAX_PRIOR} (it keeps clean sweeps finite)"
        )
    return {"confidence": confidence, "interval": interval, "bootstrap": bootstrap, "prior": float(prior)}


def _run_options(top: _Reader, entries: list[Entry]) -> dict[str, Any]:
    """The ``[run]`` table as TournamentConfig's keyword arguments (``trust`` names ``entries``)."""
    run_r = top.table("run", _RUN_KEYS)
    chunk_pairs = run_r.positive_int("chunk_pairs", 4)
    isolate = run_r.get("isolate", bool, False)
    trust = run_r.get("trust", list, [])
    known = {e.name for e in entries} | {e.strategy for e in entries}
    for t in trust:
        if not isinstance(t, str) or t not in known:
            run_r.fail("trust", f"= {trust!r}: each item must be an entry name or strategy ({t!r} is not)")
    timeout = run_r.get("isolate_timeout", (int, float), 30.0)
    if not 0 < timeout <= 86400:
        run_r.fail("isolate_timeout", f"= {timeout!r}: seconds, above 0 and at most 86400")
    return {
        "chunk_pairs": chunk_pairs,
        "isolate": isolate,
        "trust": tuple(trust),
        "isolate_timeout": float(timeout),
    }
