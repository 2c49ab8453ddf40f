"""What the fitting scripts share: write a shipped data file, or check that it is up to date; the
command line of the weight fits (heuristic.v4's and v5's)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fivehundred.sim import load_rules
from fivehundred.sim.rules import Rules

#: The table shapes fitted and the rule set that stands for each (the 4-player one-joker game: the
#: main job's); at other shapes a fitted bot plays as the bot it builds on.
SHAPES = {"p4j1": "pagat-au"}


def arguments_error(counts: Sequence[tuple[str, int]], path: Path, check: bool) -> str | None:
    """The one error line of a fit's options, before any work: a count (flag, value) under 1, or
    ``--out`` that cannot be written (:func:`out_error`); None when all is well."""
    for flag, value in counts:
        if value < 1:
            return f"error: {flag} must be at least 1"
    return out_error(path, check)


def out_error(path: Path, check: bool) -> str | None:
    """Why ``path`` cannot be written (or, with ``check``, read), before any work; None when it can."""
    if check:
        return None if path.is_file() else f"error: --out {path}: no such file to check"
    if not path.parent.is_dir():
        return f"error: --out {path}: no folder {path.parent}"
    if path.is_dir():
        return f"error: --out {path}: is a folder"
    return None


def write_or_check(path: Path, text: str, what: str, check: bool) -> int:
    """Write ``text`` to ``path`` (exit status 0); with ``check``, write nothing and say whether the
    file already holds exactly ``text`` (0) or differs (1).  ``what`` names the file's contents."""
    if check:
        same = path.exists() and path.read_text() == text
        print(f"the shipped {what} up to date" if same else f"{path} differs from a fresh fit")
        return 0 if same else 1
    path.write_text(text)
    print(f"wrote {path}")
    return 0


def fit_weights_main(
    argv: Sequence[str] | None,
    doc: str,
    out: Path,
    deals: int,
    fit_shape: Callable[[Rules, int, int, int, Callable[[int], None]], dict[str, Any]],
    bot: str,
    about: str,
) -> int:
    """The command line of a weight fit: ``--deals`` (default ``deals``), ``--worlds`` (16),
    ``--seed`` (1), ``--out`` (default ``out``) and ``--check``.  For each of :data:`SHAPES`,
    ``fit_shape(rules, deals, seed, worlds, progress)`` gives the shape's weights; the file holds
    them with ``about`` and the options.  A count under 1 is one error line (exit status 2)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--deals", type=int, default=deals, help=f"deals per table shape (default {deals})")
    ap.add_argument("--worlds", type=int, default=16, help="sampled placements per decision (default 16)")
    ap.add_argument("--seed", type=int, default=1, help="master seed of the deals (default 1)")
    ap.add_argument("--out", type=Path, default=out)
    ap.add_argument("--check", action="store_true", help="compare with the shipped file, write nothing")
    args = ap.parse_args(argv)
    bad = arguments_error((("--deals", args.deals), ("--worlds", args.worlds)), args.out, args.check)
    if bad:
        print(bad, file=sys.stderr)
        return 2
    t0 = time.process_time()
    shapes = {}
    for key, variant in SHAPES.items():

        def progress(done: int, key: str = key) -> None:
            print(f"{key}: {done} deals", file=sys.stderr, flush=True)

        shapes[key] = fit_shape(load_rules(variant), args.deals, args.seed, args.worlds, progress)
    data = {"about": about, "deals": args.deals, "worlds": args.worlds, "seed": args.seed, "shapes": shapes}
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    print(f"fitted in {time.process_time() - t0:.0f} cpu-s", file=sys.stderr)
    return write_or_check(args.out, text, f"{bot} weights", args.check)
