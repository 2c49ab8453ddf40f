"""The rules object: one frozen description of a table, built from a TOML variant file.

Everything the engine needs to know about a rule set lives here: the deck, the deal pattern, the
teams, the bid ladder (rank order and points in one table) and every switch of RULES.md section 11.
The engine reads fields of this object; it never asks for a variant's name.

Variant files live in ``configs/variants/``.  ``pagat-au.toml`` spells out every key; another file
may say ``base = "pagat-au"`` and give only what it changes.  A wrong key, a bad value or an
impossible combination raises :class:`RulesError` with one line naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from fivehundred.sim.cards import Deck, standard_deck
from fivehundred.sim.configfile import read_toml
from fivehundred.sim.errors import UserError
from fivehundred.sim.notation import BLIND_MISERE, MISERE, NT, OPEN_MISERE, parse_bid

T = TypeVar("T")

#: Where the shipped variant files live.
VARIANTS_DIR = Path(__file__).resolve().parent.parent / "configs" / "variants"

#: The one bid ladder: every bid in rank order (lowest first) with its points.  Variants remove or
#: re-value entries (see :func:`build_ladder`); rank and points are never kept in two tables.
BASE_LADDER: tuple[tuple[str, int], ...] = (
    ("6S", 40), ("6C", 60), ("6D", 80), ("6H", 100), ("6NT", 120),
    ("7S", 140), ("7C", 160), ("7D", 180), ("7H", 200), ("7NT", 220),
    ("MIS", 250),
    ("8S", 240), ("8C", 260), ("8D", 280), ("8H", 300), ("8NT", 320),
    ("9S", 340), ("9C", 360), ("9D", 380), ("9H", 400), ("9NT", 420),
    ("10S", 440), ("10C", 460), ("10D", 480),
    ("OMIS", 500),
    ("10H", 500), ("10NT", 520),
)  # fmt: skip


class RulesError(UserError, ValueError):
    """A variant file or rules value is wrong; the message is one line naming file and key."""


@dataclass(frozen=True)
class Bid:
    """One rung of the bid ladder.

    ``rank`` orders bids (a bid must be strictly higher than the highest so far; blind misère
    shares open misère's rank).  ``trump`` is a suit ``0..3``, :data:`sim.notation.NT`, or ``-1``
    for the misère bids.  ``tricks`` is 6..10, or 0 for misère.
    """

    code: str
    rank: int
    points: int
    tricks: int
    trump: int
    misere: bool = False
    open: bool = False
    blind: bool = False

    @property
    def no_trump(self) -> bool:
        """True for NT and the misère bids: contracts without a trump suit (joker rules apply)."""
        return self.trump < 0 or self.trump == NT


def _bid_from_code(code: str, rank: int, points: int) -> Bid:
    if code == MISERE:
        return Bid(code, rank, points, 0, -1, misere=True)
    if code == OPEN_MISERE:
        return Bid(code, rank, points, 0, -1, misere=True, open=True)
    if code == BLIND_MISERE:
        return Bid(code, rank, points, 0, -1, misere=True, blind=True)
    tricks, trump = parse_bid(code)
    return Bid(code, rank, points, tricks, trump)


# --------------------------------------------------------------------------------------------
# The schema: every key a variant file may hold, its type and allowed values.
# --------------------------------------------------------------------------------------------

_CHOICES: dict[str, tuple[Any, ...]] = {
    "table.players": (3, 4, 6),
    "table.jokers": (1, 2),
    "bidding.misere": ("after_seven", "anytime", "off"),
    "bidding.misere_values": ("standard", "nullo"),
    "joker.no_trump": ("pagat", "north_american"),
}
_BOOLS = (
    "bidding.open_misere",
    "bidding.blind_misere",
    "bidding.declarer_raise",
    "joker.lead_only_last_trick",
    "scoring.slam_floor",
    "scoring.lose_at_minus_500",
)
_INTS = {  # key -> (min, max)
    "scoring.overtrick_points": (0, 1000),
    "scoring.defensive_cap": (0, 100000),  # 0 means no cap
    "scoring.win_score": (1, 100000),
    "scoring.lose_score": (-100000, -1),
    "game.deal_limit": (1, 100000),
}
_STRINGS = ("name", "description", "base")
ALL_KEYS = frozenset((*_CHOICES, *_BOOLS, *_INTS, *_STRINGS))


# --------------------------------------------------------------------------------------------
# The schema in words: what each switch's value means, for people (variants show, reports, sweeps).
# --------------------------------------------------------------------------------------------

#: For each switch: its subject and, per value, what the rule then says of it.  Integer switches
#: give a format for any other value under ``"*"`` (``{v}`` is the value).
_WORDS: dict[str, tuple[str, dict[Any, str]]] = {
    "table.players": ("the table", {
        3: "is 3 players, each for themselves (33 cards)",
        4: "is 4 players in two partnerships (43 cards)",
        6: "is 6 players in two teams of three (63 cards)",
    }),
    "table.jokers": ("the pack", {1: "has one joker", 2: "has two jokers (46 cards, kitty 6)"}),
    "bidding.misere": ("misère", {
        "after_seven": "may be bid only over a 7-level bid",
        "anytime": "may be bid at any time",
        "off": "is not played (neither misère nor open misère)",
    }),
    "bidding.open_misere": ("open misère", {True: "may be bid", False: "is not played"}),
    "bidding.misere_values": ("misère", {
        "standard": "is worth 250 (open misère 500)",
        "nullo": "is Nullo, worth 500 and -500, with no open form",
    }),
    "bidding.blind_misere": ("blind misère", {
        True: "may be bid at one's first turn, worth 500",
        False: "is not played",
    }),
    "bidding.declarer_raise": ("the highest bidder", {
        True: "may raise once after the others pass",
        False: "gets no further turn once the others pass",
    }),
    "joker.no_trump": ("the joker in no-trumps and misère", {
        "pagat": "has no suit unless the declarer names one; it is led naming a suit not yet led",
        "north_american": "is the only trump, never named; it may be led naming any suit",
    }),
    "joker.lead_only_last_trick": ("the suitless joker", {
        True: "may be led only to the last trick",
        False: "may be led naming a suit not yet led",
    }),
    "scoring.slam_floor": ("all ten tricks", {
        True: "score at least 250",
        False: "score only the contract's value",
    }),
    "scoring.overtrick_points": ("each trick over the contract", {0: "scores nothing", "*": "scores {v}"}),
    "scoring.defensive_cap": ("defending points", {
        0: "are never capped",
        "*": "cannot lift a side above {v}",
    }),
    "scoring.lose_at_minus_500": ("a side at the losing score", {
        True: "loses at once",
        False: "plays on (a game ends only at the winning score)",
    }),
    "scoring.win_score": ("a side", {"*": "wins at {v} through its own contract"}),
    "scoring.lose_score": ("the losing score", {"*": "is {v}"}),
    "game.deal_limit": ("a game", {"*": "stops with no winner after {v} deals"}),
}  # fmt: skip

#: The values a sweep tries for each integer switch besides the base's (the others take every value).
SWEEP_VALUES: dict[str, tuple[int, ...]] = {
    "scoring.overtrick_points": (0, 10),
    "scoring.defensive_cap": (0, 490),
    "scoring.win_score": (500, 300),
    "scoring.lose_score": (-500, -300),
    "game.deal_limit": (200, 100),
}

#: Every switch a variant file may set (the keys of the schema other than name, description, base).
SWITCHES: tuple[str, ...] = tuple(k for k in (*_CHOICES, *_BOOLS, *_INTS) if k not in _STRINGS)


def switch_values(key: str) -> tuple[Any, ...]:
    """The values of a switch worth playing: every choice, both booleans, or :data:`SWEEP_VALUES`."""
    if key in _CHOICES:
        return _CHOICES[key]
    if key in _BOOLS:
        return (True, False)
    if key in SWEEP_VALUES:
        return SWEEP_VALUES[key]
    raise RulesError(f"unknown switch '{key}' (switches: {', '.join(SWITCHES)})")


def _predicate(key: str, value: Any) -> str:
    phrases = _WORDS[key][1]
    if value in phrases:
        return phrases[value]
    return phrases["*"].format(v=value)


def describe_switch(key: str, value: Any) -> str:
    """One switch's value in words: ``describe_switch("bidding.misere", "anytime")`` ->
    ``"misère may be bid at any time"``."""
    if key not in _WORDS:
        raise RulesError(f"unknown switch '{key}' (switches: {', '.join(SWITCHES)})")
    return f"{_WORDS[key][0]} {_predicate(key, value)}"


def describe_change(key: str, base: Any, value: Any) -> str:
    """A switch changed from ``base`` to ``value`` in words, a common start said once:
    ``"misère may be bid at any time instead of only over a 7-level bid"``, otherwise
    ``"blind misère may be bid at one's first turn, worth 500 (instead of: is not played)"``."""
    new, old = _predicate(key, value).split(" "), _predicate(key, base).split(" ")
    same = 0
    while same < min(len(new), len(old)) - 1 and new[same] == old[same]:
        same += 1
    if same:  # the same verb: "may be bid at any time instead of only over a 7-level bid"
        return f"{_WORDS[key][0]} {' '.join(new)} instead of {' '.join(old[same:])}"
    return f"{_WORDS[key][0]} {' '.join(new)} (instead of: {' '.join(old)})"


def rule_differences(rules: Rules, base: Rules) -> list[tuple[str, Any, Any, str]]:
    """How ``rules`` differs from ``base``, switch by switch, in schema order:
    ``(key, base value, value, the change in words)`` for each switch whose value differs."""
    mine, theirs = rules.as_dict(), base.as_dict()
    out = []
    for key in SWITCHES:
        if key in mine and key in theirs and mine[key] != theirs[key]:
            out.append((key, theirs[key], mine[key], describe_change(key, theirs[key], mine[key])))
    return out


def describe_rules(rules: Rules) -> list[tuple[str, Any, str]]:
    """Every switch of a rule set with its value and what it means: ``(key, value, words)``."""
    values = rules.as_dict()
    return [(key, values[key], describe_switch(key, values[key])) for key in SWITCHES if key in values]


@dataclass(frozen=True)
class VariantDescription:
    """A variant in words: its rules and how they differ from a base rule set."""

    name: str
    description: str
    base: str
    rules: list[tuple[str, Any, str]]
    differences: list[tuple[str, Any, Any, str]]


def describe_variant(name_or_path: str | Path, base: str = "pagat-au") -> VariantDescription:
    """Every rule of a variant in words (:func:`describe_rules`) and its differences from ``base``
    (:func:`rule_differences`)."""
    rules = load_rules(name_or_path)
    return VariantDescription(
        name=rules.name,
        description=str(dict(rules.settings).get("description", "")),
        base=base,
        rules=describe_rules(rules),
        differences=rule_differences(rules, load_rules(base)),
    )


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _check_value(where: str, key: str, value: Any) -> None:
    if key not in ALL_KEYS:
        known = ", ".join(sorted(ALL_KEYS))
        raise RulesError(f"{where}: unknown key '{key}' (known keys: {known})")
    if key in _CHOICES and not any(type(value) is type(c) and value == c for c in _CHOICES[key]):
        # 4.0 or true are not 4 or 1: a choice matches in type as well as value
        allowed = " | ".join(repr(c) for c in _CHOICES[key])
        raise RulesError(f"{where}: key '{key}' = {value!r} is not one of {allowed}")
    if key in _BOOLS and not isinstance(value, bool):
        raise RulesError(f"{where}: key '{key}' = {value!r} must be true or false")
    if key in _INTS:
        lo, hi = _INTS[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError(f"{where}: key '{key}' = {value!r} must be an integer in [{lo}, {hi}]")
    if key in _STRINGS and not isinstance(value, str):
        raise RulesError(f"{where}: key '{key}' = {value!r} must be a string")


def _read_toml(path: Path) -> dict[str, Any]:
    return read_toml(path, "variant", RulesError)


def variant_path(name_or_path: str | Path) -> Path:
    """Resolve a variant name (``pagat-au``) or a path to a TOML file."""
    if not isinstance(name_or_path, str | Path) or not str(name_or_path).strip():
        raise RulesError(f"variant {name_or_path!r}: expected a variant name or a .toml path")
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        return p
    candidate = VARIANTS_DIR / f"{name_or_path}.toml"
    if candidate.exists():
        return candidate
    known = ", ".join(available_variants())
    raise RulesError(f"unknown variant '{name_or_path}' (known: {known}; or give a .toml path)")


def available_variants() -> list[str]:
    """Names of the shipped variant files."""
    return sorted(p.stem for p in VARIANTS_DIR.glob("*.toml"))


def _load_flat(path: Path, seen: tuple[Path, ...] = ()) -> tuple[dict[str, Any], dict[str, Path]]:
    """Flat key->value of a variant file with its bases merged; also where each key came from."""
    if path.resolve() in seen:
        raise RulesError(f"{path}: key 'base' makes a cycle")
    flat = _flatten(_read_toml(path))
    for key, value in flat.items():
        _check_value(str(path), key, value)
    merged: dict[str, Any] = {}
    origin: dict[str, Path] = {}
    if "base" in flat:
        base_path = path.parent / f"{flat['base']}.toml"
        if not base_path.is_file():
            base_path = VARIANTS_DIR / f"{flat['base']}.toml"
        if not base_path.is_file():
            raise RulesError(f"{path}: key 'base' = {flat['base']!r} names no variant file")
        merged, origin = _load_flat(base_path, (*seen, path.resolve()))
        merged.pop("name", None)
        merged.pop("description", None)
    for key, value in flat.items():
        merged[key] = value
        origin[key] = path
    return merged, origin


def load_rules(name_or_path: str | Path = "pagat-au", overrides: dict[str, Any] | None = None) -> Rules:
    """Load a rule set by variant name or TOML path, with optional flat ``section.key`` overrides.

    The overrides are the top layer, as a file's keys are over its base: an impossible combination
    is refused only when the top layer sets both keys itself (``misere = "off"`` over pagat-au turns
    open misère off; ``misere = "off"`` with ``open_misere = true`` in the same layer is refused).
    """
    path = variant_path(name_or_path)
    flat, origin = _load_flat(path)
    if overrides:
        for key, value in overrides.items():
            _check_value(f"{path} (override)", key, value)
            flat[key] = value
        flat.setdefault("name", path.stem)
        return rules_from_flat(flat, f"{path} (override)", explicit=frozenset(overrides))
    flat.setdefault("name", path.stem)
    return rules_from_flat(flat, str(path), explicit=frozenset(k for k in flat if origin.get(k) == path))


def rules_from_flat(flat: dict[str, Any], where: str, explicit: frozenset[str] = frozenset()) -> Rules:
    """Build and validate a :class:`Rules` from flat ``section.key`` values (all keys required)."""
    required = ALL_KEYS - {"base", "description"}
    missing = sorted(required - flat.keys())
    if missing:
        raise RulesError(f"{where}: missing key '{missing[0]}' (every key of pagat-au.toml is needed)")

    misere = flat["bidding.misere"]
    open_misere = flat["bidding.open_misere"]
    nullo = flat["bidding.misere_values"] == "nullo"
    if misere == "off":
        for key in ("bidding.open_misere", "bidding.blind_misere"):
            if flat[key] and key in explicit:
                raise RulesError(f"{where}: key '{key}' = true is impossible with bidding.misere = 'off'")
        if flat["bidding.misere_values"] == "nullo" and "bidding.misere_values" in explicit:
            raise RulesError(f"{where}: key 'bidding.misere_values' = 'nullo' needs misère on")
        open_misere = False
    if nullo:
        if open_misere and "bidding.open_misere" in explicit:
            raise RulesError(f"{where}: key 'bidding.open_misere' = true is impossible with Nullo values")
        open_misere = False
    blind = flat["bidding.blind_misere"] and misere != "off"
    players, jokers = flat["table.players"], flat["table.jokers"]
    if jokers == 2 and players != 4:
        if "table.players" in explicit and "table.jokers" not in explicit:  # name the key this layer set
            raise RulesError(f"{where}: key 'table.players' = {players} is impossible with two jokers")
        raise RulesError(f"{where}: key 'table.jokers' = 2 is played with 4 players only")

    ladder = build_ladder(misere != "off", open_misere, nullo, blind)
    deck = standard_deck(players, jokers)
    teams = 3 if players == 3 else 2
    if jokers == 2:
        pattern: tuple[tuple[str, int], ...] = (
            ("each", 3), ("kitty", 2), ("each", 2), ("kitty", 2),
            ("each", 3), ("kitty", 2), ("each", 2),
        )  # fmt: skip
    else:
        pattern = (("each", 3), ("kitty", 1), ("each", 4), ("kitty", 1), ("each", 3), ("kitty", 1))
    hand_size = sum(n for who, n in pattern if who == "each")
    kitty_size = sum(n for who, n in pattern if who == "kitty")
    if hand_size * players + kitty_size != deck.size:
        raise RulesError(f"{where}: deal pattern does not use the {deck.size}-card deck exactly")
    cap = flat["scoring.defensive_cap"]
    return Rules(
        name=flat["name"],
        players=players,
        teams=teams,
        deck=deck,
        deal_pattern=pattern,
        hand_size=hand_size,
        kitty_size=kitty_size,
        ladder=ladder,
        misere=misere,
        open_misere=open_misere,
        misere_values=flat["bidding.misere_values"],
        blind_misere=blind,
        declarer_raise=flat["bidding.declarer_raise"],
        joker_no_trump=flat["joker.no_trump"],
        joker_lead_only_last_trick=flat["joker.lead_only_last_trick"],
        slam_floor=250 if flat["scoring.slam_floor"] else 0,
        overtrick_points=flat["scoring.overtrick_points"],
        defensive_cap=cap or None,
        lose_at_minus_500=flat["scoring.lose_at_minus_500"],
        win_score=flat["scoring.win_score"],
        lose_score=flat["scoring.lose_score"],
        deal_limit=flat["game.deal_limit"],
        settings=tuple(sorted((k, v) for k, v in flat.items() if k not in ("base",))),
    )


def build_ladder(misere: bool, open_misere: bool, nullo: bool, blind: bool) -> tuple[Bid, ...]:
    """The bid ladder of a rule set, derived from :data:`BASE_LADDER`.

    Misère off removes ``MIS`` and ``OMIS``; open misère off (or Nullo values) removes ``OMIS``;
    Nullo makes ``MIS`` worth 500; blind misère adds ``BMIS`` (500) with open misère's rank.
    """
    bids: list[Bid] = []
    for rank, (code, points) in enumerate(BASE_LADDER):
        if code == MISERE:
            if not misere:
                continue
            points = 500 if nullo else points
        if code == OPEN_MISERE:
            if blind:
                bids.append(_bid_from_code(BLIND_MISERE, rank, 500))
            if not (misere and open_misere):
                continue
        bids.append(_bid_from_code(code, rank, points))
    return tuple(bids)


#: Every bid any rule set can have, in rank order (blind misère just before open misère, which
#: shares its rank), with the base points: the codes that statistics over any ladder know.
ALL_BIDS: tuple[Bid, ...] = build_ladder(misere=True, open_misere=True, nullo=False, blind=True)
#: What the defenders score per trick they take against a suit or NT contract, made or failed (R9).
DEFENDER_TRICK_POINTS = 10


@dataclass(frozen=True)
class Rules:
    """A complete, validated rule set.  Build it with :func:`load_rules`."""

    name: str
    players: int
    teams: int
    deck: Deck
    deal_pattern: tuple[tuple[str, int], ...]
    hand_size: int
    kitty_size: int
    ladder: tuple[Bid, ...]
    misere: str
    open_misere: bool
    misere_values: str
    blind_misere: bool
    declarer_raise: bool
    joker_no_trump: str
    joker_lead_only_last_trick: bool
    slam_floor: int
    overtrick_points: int
    defensive_cap: int | None
    lose_at_minus_500: bool
    win_score: int
    lose_score: int
    deal_limit: int
    settings: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    @cached_property
    def bid_index(self) -> dict[str, int]:
        """Bid code -> index in :attr:`ladder`."""
        return {b.code: i for i, b in enumerate(self.ladder)}

    def bid(self, code: str) -> Bid:
        """The ladder entry for a bid code such as ``8H`` or ``MIS``."""
        try:
            return self.ladder[self.bid_index[code]]
        except KeyError:
            known = " ".join(b.code for b in self.ladder)
            raise RulesError(f"bid {code!r} does not exist in rule set {self.name} ({known})") from None

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the rule set's fields only: derived tables and caches are rebuilt where needed."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def derived(self, key: str, build: Callable[[Rules], T]) -> T:
        """A value derived from this rule set (tables of the engine, a bot, a codec), built once.

        ``build(self)`` runs on the first call for ``key``; the result is kept on the frozen object
        (its ``__dict__``, as :func:`functools.cached_property` does), so every later call is a dict
        look-up.  Use a key of one's own module (``"_engine"``, ``"_bot_info"``...).
        """
        try:
            return self.__dict__[key]
        except KeyError:
            value = self.__dict__[key] = build(self)
            return value

    def declarer_points(self, contract: Bid, tricks: int) -> int:
        """The declaring side's score for ``contract`` when it takes ``tricks`` (R9 with the switches).

        A suit or NT contract: its value when made, plus :attr:`overtrick_points` per trick over,
        at least :attr:`slam_floor` for all the tricks; minus its value when it fails.  A misère
        (``tricks`` the declarer's own): its value for no trick, minus its value otherwise.
        """
        if contract.misere:
            return contract.points if tricks == 0 else -contract.points
        if tricks < contract.tricks:
            return -contract.points
        pts = contract.points + self.overtrick_points * (tricks - contract.tricks)
        if tricks == self.hand_size and pts < self.slam_floor:
            pts = self.slam_floor
        return pts

    def defender_points(self, tricks: int) -> int:
        """A defending side's score for the ``tricks`` it took against a suit or NT contract, made or
        failed (R9: :data:`DEFENDER_TRICK_POINTS` a trick; no rule switch changes it).  Against a
        misère the defenders score nothing (:meth:`defence_points`)."""
        return DEFENDER_TRICK_POINTS * tricks

    def defence_points(self, contract: Bid, tricks: int) -> int:
        """A defending side's score for the ``tricks`` it took against ``contract``:
        :meth:`defender_points` against a suit or NT contract, nothing against a misère (R9)."""
        return 0 if contract.misere else self.defender_points(tricks)

    def team_of(self, seat: int) -> int:
        """The team of a seat: ``seat % teams``."""
        return seat % self.teams

    def as_dict(self) -> dict[str, Any]:
        """The settings that define this rule set (for manifests and logs)."""
        return dict(self.settings)
