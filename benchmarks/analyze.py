"""Time ``fivehundred analyze`` on a 1,000,000-deal log: wall time and peak memory.

The log is synthesised once (and reused): a real log of ``--base`` deals is played with the engine
(heuristic bots when registered, else random), then replicated with fresh game and deal ids into
``--deals`` rows of ``RUN_DIR/deals/part-*.parquet``.  The analysis runs in a child process so that
its peak RSS (``ru_maxrss``) is measured alone.

    python benchmarks/analyze.py [--deals 1000000] [--dir /tmp/fivehundred-bench-analyze]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _bots() -> str:
    """The bots of the synthetic log: heuristic when registered, else random."""
    from fivehundred.strategies import available

    return "heuristic" if any(n.startswith("heuristic.") for n in available()) else "random"


def build_log(run_dir: Path, deals: int, base: int, seed: int) -> None:
    """Play ``base`` deals, then replicate them into ``deals`` rows with new ids."""
    import polars as pl
    import pyarrow.parquet as pq

    from fivehundred import sim
    from fivehundred.pipelines.schema import records_to_table
    from fivehundred.sim.game import play_game
    from fivehundred.strategies import make

    spec = _bots()
    rules = sim.load_rules("pagat-au")
    bots = [make(spec) for _ in range(4)]
    records: list[dict] = []
    game = 0
    while len(records) < base:
        records += play_game(rules, bots, seed, game)
        game += 1
    games = game
    table = records_to_table(records, "bench-1m", 0)
    small = pl.from_arrow(table)
    assert isinstance(small, pl.DataFrame)
    n = small.height
    (run_dir / "deals").mkdir(parents=True, exist_ok=True)
    copies = -(-deals // n)
    written = 0
    for k in range(copies):
        part = small.with_columns(
            (pl.col("deal_id") + k * n).alias("deal_id"), (pl.col("game_id") + k * games).alias("game_id")
        )
        part = part.head(deals - written)
        pq.write_table(part.to_arrow().cast(table.schema), run_dir / "deals" / f"part-{k:05d}.parquet")
        written += part.height
    (run_dir / "manifest.json").write_text(
        json.dumps(
            {
                "run_id": "bench-1m",
                "variant": "pagat-au",
                "seed": seed,
                "deals": written,
                "bots": spec,
                "synthetic_copies": copies,
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1_000_000)
    ap.add_argument("--base", type=int, default=20_000, help="deals really played before replication")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/fivehundred-bench-analyze"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    run_dir: Path = args.dir
    if args.child:
        from fivehundred.pipelines.analysis import analyze

        t0 = time.perf_counter()
        tables = analyze([run_dir], run_dir / "stats")
        wall = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps({"wall_s": wall, "peak_bytes": peak, "tables": len(tables)}))
        return
    manifest = run_dir / "manifest.json"
    want = {"deals": args.deals, "bots": _bots()}
    have = json.loads(manifest.read_text()) if manifest.exists() else {}
    if any(have.get(k) != v for k, v in want.items()):
        t0 = time.perf_counter()
        build_log(run_dir, args.deals, args.base, seed=2026)
        print(f"built {args.deals:,} deals in {run_dir} in {time.perf_counter() - t0:.1f} s")
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--dir", str(run_dir), "--deals", str(args.deals)],
        check=True,
        capture_output=True,
        text=True,
    )
    res = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"analyze: {args.deals:,} deals, {res['tables']} tables, {res['wall_s']:.2f} s wall, "
        f"peak RSS {res['peak_bytes'] / 2**30:.2f} GiB (targets: <= 15 s, <= 2 GiB)"
    )


if __name__ == "__main__":
    main()
