"""Fit heuristic.v4's lead and follow weights and write strategies/data/heuristic_v4.json (or check it).

For each table shape: deals played by heuristic.v3 against heuristic.v1, each lead and follow of the
declaring side in a trump contract with two or more distinct candidates valued by heuristic.v3
rollouts on --worlds sampled placements of the unseen cards (calibrate_v4.simulate_leads), then per
role the ridge least-squares weights of the candidates' features (calibrate_v4.fit_leads).
Deterministic: the same options give the same file, byte for byte.

    python scripts/fit_heuristic_v4.py                    # the shipped weights (the defaults)
    python scripts/fit_heuristic_v4.py --check            # exit 1 if a fresh fit differs from the file
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shipped import fit_weights_main  # beside this script

from fivehundred.sim.rules import Rules
from fivehundred.strategies.calibrate_v4 import SHIPPED_ROLES, fit_leads, simulate_leads

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "strategies" / "data" / "heuristic_v4.json"


def fit_shape(
    rules: Rules, deals: int, seed: int, worlds: int, progress: Callable[[int], None]
) -> dict[str, Any]:
    """The shipped roles' weights of one table shape."""
    rows = simulate_leads(rules, deals, seed, worlds, progress, SHIPPED_ROLES)
    fitted = fit_leads(rows)
    return {role: fitted[role] for role in SHIPPED_ROLES if role in fitted}


def main(argv: list[str] | None = None) -> int:
    """Simulate, fit and write (or check) the weights."""
    about = "heuristic.v4's lead and follow weights: scripts/fit_heuristic_v4.py"
    return fit_weights_main(argv, __doc__ or "", DEFAULT_OUT, 20_000, fit_shape, "heuristic.v4", about)


if __name__ == "__main__":
    sys.exit(main())
