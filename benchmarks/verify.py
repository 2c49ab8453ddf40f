"""Throughput of ``fivehundred verify``: replay a log of random deals through the engine.

    python benchmarks/verify.py [--deals 100000]

Plays the deals in-process (not timed), writes them as one run, then times :func:`verify_run`.
The last line is ``verify_deals_per_second=<number>`` (wall clock, one process).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from fivehundred.pipelines.schema import records_to_table
from fivehundred.pipelines.verify import verify_run
from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make


def main() -> None:
    """Build the log, verify it, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--variant", default="pagat-au")
    args = parser.parse_args()
    rules = load_rules(args.variant)
    bots = [make("random")] * rules.players
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        (run / "deals").mkdir(parents=True)
        records: list[dict] = []
        first, part, game = 0, 0, 0
        while first + len(records) < args.deals:
            records += play_game(rules, bots, 1, game)
            game += 1
            if len(records) >= 20_000:
                pq.write_table(
                    records_to_table(records, "bench", first), run / "deals" / f"part-{part:05d}.parquet"
                )
                first, part, records = first + len(records), part + 1, []
        if records:
            pq.write_table(
                records_to_table(records, "bench", first), run / "deals" / f"part-{part:05d}.parquet"
            )
        (run / "manifest.json").write_text(
            json.dumps({"run_id": "bench", "master_seed": 1, "variant": args.variant})
        )
        result = verify_run(run)
    print(result.summary())
    if not result.ok:
        raise SystemExit(f"unexpected findings: {result.findings[:3]}")
    print(f"verify_cpu_deals_per_second={result.replayed / result.cpu_seconds:.0f}")
    print(f"verify_deals_per_second={result.deals_per_second:.0f}")


if __name__ == "__main__":
    main()
