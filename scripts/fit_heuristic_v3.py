"""Fit heuristic.v3's models and write strategies/data/heuristic_v3.json (or check it).

For each table shape: the misère declarer's first-lead model (calibrate_v3.simulate_misere_leads and
fit_lead: --lead-deals forced misères, each candidate lead valued by rollouts on --worlds sampled
placements); then forced contracts played by heuristic.v3's card play with that lead
(calibrate_v3.simulate: every suit and no-trumps a seat's estimate nearly reaches at the 6
level, misère and open misère when its risk allows) and the logistic models of the hand fitted on
them (calibrate_v3.fit).  Deterministic: the same options give the same file, byte for byte.

    python scripts/fit_heuristic_v3.py                    # the shipped models (the defaults)
    python scripts/fit_heuristic_v3.py --check            # exit 1 if a fresh fit differs from the file
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from shipped import SHAPES, arguments_error, write_or_check  # beside this script

from fivehundred.sim import load_rules
from fivehundred.strategies.calibrate_v3 import fit, fit_lead, simulate, simulate_misere_leads
from fivehundred.strategies.heuristic3 import Heuristic3Strategy, use_models

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "strategies" / "data" / "heuristic_v3.json"


def main(argv: list[str] | None = None) -> int:
    """Simulate, fit and write (or check) the models."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=200_000, help="deals per table shape (default 200000)")
    ap.add_argument("--lead-deals", type=int, default=4000, help="forced misères for the lead model")
    ap.add_argument("--worlds", type=int, default=24, help="sampled placements per lead decision")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="compare with the shipped file, write nothing")
    args = ap.parse_args(argv)
    counts = (("--deals", args.deals), ("--lead-deals", args.lead_deals), ("--worlds", args.worlds))
    bad = arguments_error(counts, args.out, args.check)
    if bad:
        print(bad, file=sys.stderr)
        return 2
    t0 = time.process_time()
    shapes = {}
    for key, variant in SHAPES.items():
        rules = load_rules(variant)

        def progress(done: int, key: str = key) -> None:
            print(f"{key}: {done} deals", file=sys.stderr, flush=True)

        leads = simulate_misere_leads(
            rules, args.lead_deals, args.seed, Heuristic3Strategy, args.worlds, progress
        )
        lead = fit_lead(leads)
        use_models({"shapes": {key: {"misere_lead": lead}}})  # the forced contracts play that lead
        observations = simulate(rules, args.deals, args.seed, Heuristic3Strategy, progress)
        shapes[key] = {"variant": variant, "deals": args.deals, **fit(observations), "misere_lead": lead}
    data = {
        "about": "heuristic.v3's models of the hand: see strategies/calibrate_v3.py",
        "command": (
            f"python scripts/fit_heuristic_v3.py --deals {args.deals} --lead-deals {args.lead_deals} "
            f"--worlds {args.worlds} --seed {args.seed}"
        ),
        "seed": args.seed,
        "shapes": shapes,
    }
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    print(f"done in {time.process_time() - t0:.0f} CPU seconds", file=sys.stderr)
    return write_or_check(args.out, text, "models are", args.check)


if __name__ == "__main__":
    raise SystemExit(main())
