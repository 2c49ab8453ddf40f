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

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shipped import fit_weights_main  # beside this script

from fivehundred.sim.rules import Rules
from fivehundred.strategies.calibrate_v5 import ROLES, fit_leads, simulate_nt_leads

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "strategies" / "data" / "heuristic_v5.json"


def fit_shape(
    rules: Rules, deals: int, seed: int, worlds: int, progress: Callable[[int], None]
) -> dict[str, Any]:
    """The no-trump lead weights of one table shape."""
    return fit_leads(simulate_nt_leads(rules, deals, seed, worlds, progress), roles=ROLES)


def main(argv: list[str] | None = None) -> int:
    """Simulate, fit and write (or check) the weights."""
    about = "heuristic.v5's no-trump lead weights: scripts/fit_heuristic_v5.py"
    return fit_weights_main(argv, __doc__ or "", DEFAULT_OUT, 60_000, fit_shape, "heuristic.v5", about)


if __name__ == "__main__":
    sys.exit(main())
