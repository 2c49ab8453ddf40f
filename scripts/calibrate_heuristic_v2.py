"""Regenerate heuristic.v2's calibration table, strategies/data/heuristic_v2.json, from a fresh run.

Usage: python scripts/calibrate_heuristic_v2.py [--deals N] [--seed S] [--out FILE] [--check]

For each table shape (4 players, 3, 6, two jokers) it simulates N deals with contracts forced on a
seat (fivehundred.strategies.calibrate_v2.simulate_shape: suit/NT at the 6 level, misère and open
misère on the least risky seat, a blind-chosen closed misère), fits the table (fit_shape), adds the
game-win table from self-play games (fit_wins; the 4-player one under club-004) and writes it (the
other shapes play N times their SCALE).  One process; the runtime of the shipped table's command is
in docs/strategies.md.  ``--check`` writes nothing and exits with status 1 if the fitted
table differs from the shipped one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from shipped import write_or_check  # noqa: E402  (beside this script)

from fivehundred.sim import load_rules  # noqa: E402
from fivehundred.strategies.calibrate_v2 import SHAPE_VARIANTS, WIN_VARIANTS, calibrate  # noqa: E402

DEFAULT_OUT = ROOT / "strategies" / "data" / "heuristic_v2.json"
#: Deals per shape as a fraction of --deals (the 4-player game is the one most runs play).
SCALE = {"p4j1": 1.0, "p3j1": 0.5, "p6j1": 0.5, "p4j2": 0.5}


def main(argv: list[str] | None = None) -> int:
    """Simulate, fit and write (or check) the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=12000, help="deals for the 4-player shape (default 12000)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="compare with the shipped table, write nothing")
    args = ap.parse_args(argv)
    shapes = {key: load_rules(variant) for key, variant in SHAPE_VARIANTS.items()}
    deals = {key: max(1, int(args.deals * SCALE[key])) for key in shapes}
    t0 = time.perf_counter()
    table = {
        "about": "heuristic.v2 calibration: fitted on forced contracts, see strategies/calibrate_v2.py",
        "command": f"python scripts/calibrate_heuristic_v2.py --deals {args.deals} --seed {args.seed}",
        "seed": args.seed,
        "shapes": calibrate(
            shapes,
            deals,
            args.seed,
            lambda m: print(m, file=sys.stderr, flush=True),
            {key: load_rules(variant) for key, variant in WIN_VARIANTS.items()},
        ),
    }
    text = json.dumps(table, indent=1, sort_keys=True) + "\n"
    print(f"done in {time.perf_counter() - t0:.0f} s wall", file=sys.stderr)
    return write_or_check(args.out, text, "table is", args.check)


if __name__ == "__main__":
    raise SystemExit(main())
