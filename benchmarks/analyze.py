"""Time ``fivehundred analyze`` on synthetic logs of 1M and 4M deals: wall time, CPU time, peak memory.

Each log is synthesised once (and reused): a real log of ``--base`` deals is played with the engine
(heuristic bots when registered, else random), then replicated with fresh game and deal ids into
``--deals`` rows of ``<dir>-<deals>/deals/part-*.parquet``.  Each analysis runs in a child process so
that its peak RSS (``ru_maxrss``) and CPU time (user + system, every thread) are measured alone.

    python benchmarks/analyze.py [--deals 1000000 4000000] [--workers K] [--dir DIR]
    python benchmarks/analyze.py --deals 16000000
    python benchmarks/analyze.py --what-if 1000 --dd-sample 2
    python benchmarks/analyze.py --dd-all

``--what-if N`` adds a row per log for ``analyze --what-if misere --sample N`` and ``--dd-sample N``
one for ``analyze --dd-sample N`` (each with the main tables; the log's replay and DD sidecars are
removed first, so the replays and solves are measured too).  The log replicates ``--base`` deals, so
a DD sample of ``N`` hands holds every copy of them: ``N`` times the copies.

``--dd-all`` adds a row for ``analyze --dd`` of every deal.  Solving every deal of a 1M log is out
of reach here, so the log's DD sidecar is built the way the log is (:func:`build_dd`): the base deals
are solved once (cached in ``<dir>-dd-base/``) and each base deal's sidecar row is replicated with
the deal ids of its copies, in the sample order of the whole log, 64 deals a part, exactly the parts
the analysis would write; the row then measures reading the sidecar and building the ``dd_`` tables
(the analysis fails if it would solve a part).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
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


def build_dd(run_dir: Path, base_dir: Path) -> None:
    """The DD sidecar ``run_dir/dd/`` of a replicated log: the base deals (its first part file, the
    first copy) solved once in ``base_dir`` (reused), each sidecar row replicated with the deal ids
    of the copies, sorted in the sample order of the whole log (copies share their deal's seed, so
    they sit together, by deal id) and cut into parts of ``CHUNK_DEALS``."""
    import polars as pl
    import pyarrow as pa

    from fivehundred.pipelines.analysis import dd_sample, dd_sidecar
    from fivehundred.pipelines.analysis.batches import deal_frame
    from fivehundred.pipelines.analysis.io import open_run
    from fivehundred.pipelines.analysis.whatif import rules_of
    from fivehundred.pipelines.rundir import encode_parquet

    meta = json.loads((run_dir / "manifest.json").read_text())
    first = run_dir / "deals" / "part-00000.parquet"
    if not (base_dir / "deals" / first.name).exists():
        (base_dir / "deals").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(first, base_dir / "deals" / first.name)
        keep = ("run_id", "variant", "seed", "bots")
        (base_dir / "manifest.json").write_text(json.dumps({k: meta[k] for k in keep}))
    frame = deal_frame(open_run(base_dir))
    side = dd_sidecar.dd_sidecar(frame, rules_of(frame), workers=0)  # solved once, then reused
    n = frame.count("deals")
    keys = pl.Series("k", [dd_sample.sample_key(s) for s in side["seed"].to_list()], dtype=pl.UInt64)
    base = side.with_columns(keys)
    reps = pl.concat([base.with_columns(pl.col("deal_id") + c * n) for c in range(meta["synthetic_copies"])])
    reps = reps.filter(pl.col("deal_id") < meta["deals"]).sort("k", "deal_id").drop("k")
    table = reps.to_arrow().cast(dd_sidecar.SIDECAR_SCHEMA)
    shutil.rmtree(run_dir / "dd", ignore_errors=True)
    (run_dir / "dd").mkdir()
    size = dd_sidecar.CHUNK_DEALS
    for i in range(-(-table.num_rows // size)):
        part = pa.Table.from_batches(table.slice(i * size, size).to_batches(), dd_sidecar.SIDECAR_SCHEMA)
        (run_dir / dd_sidecar.part_name(i)).write_bytes(encode_parquet(part))
    meta["dd_replicated"] = meta["deals"]
    (run_dir / "manifest.json").write_text(json.dumps(meta))


def _no_solving(run: str, done: int, parts: int) -> None:
    raise RuntimeError(f"{run}: the analysis solved a DD part ({done}/{parts}): the sidecar was not reused")


def measure(run_dir: Path, deals: int, base: int, workers: int, extra: Sequence[str] = ()) -> dict:
    """Build the log of ``deals`` deals if needed, then analyse it in a child process (``extra``:
    ``--what-if N`` or ``--dd-sample N``)."""
    manifest = run_dir / "manifest.json"
    want = {"deals": deals, "bots": _bots()}
    have = json.loads(manifest.read_text()) if manifest.exists() else {}
    if any(have.get(k) != v for k, v in want.items()):
        t0 = time.perf_counter()
        build_log(run_dir, deals, base, seed=2026)
        print(f"built {deals:,} deals in {run_dir} in {time.perf_counter() - t0:.1f} s", flush=True)
    if "--dd-all" in extra and json.loads(manifest.read_text()).get("dd_replicated") != deals:
        t0 = time.perf_counter()
        build_dd(run_dir, Path(f"{run_dir.parent / run_dir.name.rsplit('-', 1)[0]}-dd-base"))
        print(f"built the DD sidecar of {run_dir} in {time.perf_counter() - t0:.1f} s", flush=True)
    if "--dd-sample" in extra:  # its analysis replaces the log's DD sidecar by a sample's
        meta = json.loads(manifest.read_text())
        meta.pop("dd_replicated", None)
        manifest.write_text(json.dumps(meta))
    cmd = [sys.executable, __file__, "--child", "--dir", str(run_dir), "--workers", str(workers), *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, nargs="+", default=[1_000_000, 4_000_000])
    ap.add_argument("--base", type=int, default=20_000, help="deals really played before replication")
    ap.add_argument("--workers", type=int, default=0, help="Ray workers for the analysis (0: in-process)")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/fivehundred-bench-analyze"))
    ap.add_argument("--what-if", type=int, default=0, help="also time --what-if misere --sample N (0: no)")
    ap.add_argument("--dd-sample", type=int, default=0, help="also time --dd-sample N (0: no)")
    ap.add_argument("--dd-all", action="store_true", help="also time --dd of every deal (module docstring)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        from fivehundred.pipelines.analysis import analyze

        kw: dict = {}
        if args.what_if:
            shutil.rmtree(args.dir / "whatif_misere", ignore_errors=True)
            kw = {"what_if": "misere", "sample": args.what_if}
        elif args.dd_sample:
            shutil.rmtree(args.dir / "dd", ignore_errors=True)
            kw = {"dd": "contract", "dd_sample": args.dd_sample}
        elif args.dd_all:
            kw = {"dd": "contract", "dd_progress": _no_solving}
        t0 = time.perf_counter()
        tables = analyze([args.dir], args.dir / "stats", workers=args.workers, **kw)
        wall = time.perf_counter() - t0
        use = resource.getrusage(resource.RUSAGE_SELF)
        peak = use.ru_maxrss * 1024
        print(
            json.dumps(
                {
                    "wall_s": wall,
                    "cpu_s": use.ru_utime + use.ru_stime,
                    "peak_bytes": peak,
                    "tables": len(tables),
                    "dd_sampled": int(tables["dd_sample"]["sampled"][0]) if "dd_sample" in tables else None,
                    "dd_solved": int(tables["dd_sample"]["solved"][0]) if "dd_sample" in tables else None,
                }
            )
        )
        return
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    print(f"load average before: {' '.join(load)} ({os.cpu_count()} cores)")
    results = []
    dd_all: list[tuple[int, dict]] = []
    for deals in args.deals:
        run_dir = Path(f"{args.dir}-{deals}")
        res = measure(run_dir, deals, args.base, args.workers)
        results.append((deals, res))
        _print("analyze", deals, res)
        if args.what_if:
            res = measure(run_dir, deals, args.base, args.workers, ["--what-if", str(args.what_if)])
            _print(f"--what-if misere --sample {args.what_if}", deals, res)
        if args.dd_sample:
            res = measure(run_dir, deals, args.base, args.workers, ["--dd-sample", str(args.dd_sample)])
            _print(f"--dd-sample {args.dd_sample} ({res['dd_sampled']:,} deals sampled)", deals, res)
        if args.dd_all:
            res = measure(run_dir, deals, args.base, args.workers, ["--dd-all"])
            dd_all.append((deals, res))
            _print(f"--dd of every deal ({res['dd_solved']:,} contracts)", deals, res)
    for what, rows in (("analyze", results), ("--dd of every deal", dd_all)):
        if len(rows) > 1:
            (d0, r0), (d1, r1) = rows[0], rows[-1]
            print(
                f"{what}, {d1:,} vs {d0:,} deals: peak memory x{r1['peak_bytes'] / r0['peak_bytes']:.3f} "
                f"(target <= 1.15), CPU per deal x{(r1['cpu_s'] / d1) / (r0['cpu_s'] / d0):.3f} (linear: 1)"
            )


def _print(what: str, deals: int, res: dict) -> None:
    print(
        f"{what}: {deals:>11,} deals, {res['tables']} tables, {res['wall_s']:6.2f} s wall, "
        f"{res['cpu_s']:6.2f} s CPU, {deals / res['wall_s']:9,.0f} deals/s wall, "
        f"{deals / res['cpu_s']:9,.0f} deals per CPU-second, "
        f"peak RSS {res['peak_bytes'] / 2**30:.2f} GiB",
        flush=True,
    )


if __name__ == "__main__":
    main()
