"""Double-dummy results of positions given as JSON lines (``fivehundred dd``), docs/dd.md.

:func:`read_positions` reads and checks every line first (one :class:`PositionsError` naming the line
and what is wrong; nothing solved, nothing written); :func:`solve_positions` then solves each with
:func:`sim.dd.dd_tricks` and writes the same objects, in order, with ``"dd_tricks"`` added, to a
temporary file renamed into place (a failed or interrupted run leaves no output file).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fivehundred.pipelines.outputs import check_output_file
from fivehundred.sim.configfile import read_text
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import Rules, load_rules

#: The fields of a position line, in the order the issue and docs/dd.md give them.
FIELDS = (
    "variant",
    "contract",
    "declarer",
    "leader",
    "hands",
    "joker_suit",
    "suits_led",
    "tricks_played",
    "declarer_tricks",
)
#: Fields a line may leave out, with the value they take (a position at the opening lead).
DEFAULTS: dict[str, Any] = {"joker_suit": None, "suits_led": [], "tricks_played": 0, "declarer_tricks": 0}


class PositionsError(UserError, ValueError):
    """A positions file that cannot be read, or a line that is no valid position."""


@dataclass(frozen=True)
class PositionLine:
    """One checked line: the object as read (written back with ``dd_tricks``) and its position."""

    number: int
    data: dict[str, Any]
    position: Position


def _rules(variant: Any, cache: dict[str, Rules]) -> Rules:
    if not isinstance(variant, str):
        raise ValueError(f"variant {variant!r} is not a variant name or a .toml path")
    if variant not in cache:
        try:
            cache[variant] = load_rules(variant)
        except (UserError, OSError) as exc:
            raise ValueError(f"variant {variant!r}: {exc}") from None
    return cache[variant]


def position_of(data: Any, cache: dict[str, Rules] | None = None) -> Position:
    """The :class:`~sim.dd.Position` of one decoded line; ``ValueError`` says what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    unknown = sorted(set(data) - set(FIELDS) - {"dd_tricks"})
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)} (fields: {', '.join(FIELDS)})")
    missing = [f for f in FIELDS if f not in data and f not in DEFAULTS]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    f = {**DEFAULTS, **data}
    hands, suits_led = f["hands"], f["suits_led"]
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        raise ValueError("hands must be a list of one list of card names per seat")
    if not isinstance(suits_led, list):
        raise ValueError("suits_led must be a list of suit letters")
    for name in ("declarer", "leader", "tricks_played", "declarer_tricks"):
        if type(f[name]) is not int:
            raise ValueError(f"{name} {f[name]!r} is not an integer")
    rules = _rules(f["variant"], cache if cache is not None else {})
    return Position.from_fields(
        rules,
        f["contract"],
        f["declarer"],
        f["leader"],
        hands,
        joker_suit=f["joker_suit"],
        suits_led=suits_led,
        tricks_played=f["tricks_played"],
        declarer_tricks=f["declarer_tricks"],
    )


def read_positions(path: str | Path) -> list[PositionLine]:
    """Every non-blank line of ``path`` checked and turned into a position (blank lines are skipped).

    :class:`PositionsError` at the first bad line: ``FILE line N: what is wrong``.
    """
    p = Path(path)
    text = read_text(p, "positions", PositionsError)
    cache: dict[str, Rules] = {}
    out: list[PositionLine] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PositionsError(f"{p} line {number}: not JSON ({exc.msg} at column {exc.colno})") from None
        try:
            pos = position_of(data, cache)
        except (ValueError, TypeError) as exc:
            raise PositionsError(f"{p} line {number}: {exc}") from None
        out.append(PositionLine(number, data, pos))
    if not out:
        raise PositionsError(f"{p}: no positions (the file is empty)")
    return out


def solve_positions(
    path: str | Path,
    out: str | Path | None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Solve every position of ``path`` and write them with ``"dd_tricks"`` to ``out`` (JSON lines;
    ``None``: write nothing, the caller prints the objects, :func:`json_line`).

    Every line is checked before the first solve (:func:`read_positions`); ``out`` is written whole
    or not at all.  ``progress(done, total)`` is called after each solve.  Returns the solved objects.
    """
    target = check_output_file(out, "--out") if out is not None else None
    if target is not None and Path(path).resolve() == target.resolve():
        raise PositionsError(f"--out {target}: is the positions file itself; give another file")
    lines = read_positions(path)
    results = solve_lines(lines, progress)
    if target is not None:
        write_lines(target, results)
    return results


def json_line(obj: dict[str, Any]) -> str:
    """One solved object as a line of the output (no newline)."""
    return json.dumps(obj, ensure_ascii=False)


def solve_lines(
    lines: Sequence[PositionLine], progress: Callable[[int, int], None] | None = None
) -> list[dict[str, Any]]:
    """Each line's object with ``"dd_tricks"`` set (an input ``dd_tricks`` is replaced)."""
    results = []
    for i, line in enumerate(lines, 1):
        results.append(
            {
                **{k: v for k, v in line.data.items() if k != "dd_tricks"},
                "dd_tricks": dd_tricks(line.position),
            }
        )
        if progress is not None:
            progress(i, len(lines))
    return results


def write_lines(target: Path, objects: Sequence[dict[str, Any]]) -> None:
    """JSON lines written to a temporary file beside ``target``, then renamed onto it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            for obj in objects:
                fh.write(json_line(obj) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
