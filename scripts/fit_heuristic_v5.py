"""Fit heuristic.v5's no-trump lead weights and write strategies/data/heuristic_v5.json (or check it).

For each table shape: deals played by heuristic.v3 against heuristic.v1, each lead of a
heuristic.v3 seat in a no-trump contract with two or more candidates valued by heuristic.v3
rollouts on --worlds sampled placements of the unseen cards (calibrate_v5.simulate_nt_leads), then
per role (declarer, partner, defender) the ridge least-squares weights of the candidates' features
(calibrate_v4.fit_leads).  Deterministic: the same options give the same file, byte for byte.

    python scripts/fit_heuristic_v5.py                    # the shipped weights (the defaults)
    python scripts/fit_heuristic_v5.py --check            # exit 1 if a fresh fit differs from the file
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from shipped import write_or_check  # beside this script

from fivehundred.sim import load_rules
from fivehundred.strategies.calibrate_v5 import ROLES, fit_leads, simulate_nt_leads

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "strategies" / "data" / "heuristic_v5.json"
#: The table shapes fitted and the rule set that stands for each (other shapes play as heuristic.v4).
SHAPES = {"p4j1": "pagat-au"}


def main(argv: list[str] | None = None) -> int:
    """Simulate, fit and write (or check) the weights."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=60_000, help="deals per table shape (default 60000)")
    ap.add_argument("--worlds", type=int, default=16, help="sampled placements per decision (default 16)")
    ap.add_argument("--seed", type=int, default=1, help="master seed of the deals (default 1)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="compare with the shipped file, write nothing")
    args = ap.parse_args(argv)
    for flag, value in (("--deals", args.deals), ("--worlds", args.worlds)):
        if value < 1:
            print(f"error: {flag} must be at least 1", file=sys.stderr)
            return 2
    t0 = time.process_time()
    shapes = {}
    for key, variant in SHAPES.items():
        rules = load_rules(variant)

        def progress(done: int, key: str = key) -> None:
            print(f"{key}: {done} deals", file=sys.stderr, flush=True)

        rows = simulate_nt_leads(rules, args.deals, args.seed, args.worlds, progress)
        shapes[key] = fit_leads(rows, roles=ROLES)
    data = {
        "about": "heuristic.v5's no-trump lead weights: scripts/fit_heuristic_v5.py",
        "deals": args.deals,
        "worlds": args.worlds,
        "seed": args.seed,
        "shapes": shapes,
    }
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    print(f"fitted in {time.process_time() - t0:.0f} cpu-s", file=sys.stderr)
    return write_or_check(args.out, text, "heuristic.v5 weights", args.check)


if __name__ == "__main__":
    sys.exit(main())
