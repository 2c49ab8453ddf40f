"""Regenerate the golden tables of ``test_analysis_golden.py`` (run once, from main's code before the
bounded-memory analysis landed: ``python tests/pipelines/analysis/golden/make_golden.py``).

The logs are played afresh by :func:`golden_runs` (deterministic), split into part files of uneven
game ranges, and every table of one analysis (four runs: a variant pair, a duplicate run and a run on
another table, plus the misère what-if) is written as Parquet into ``tables/``.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT))

from fivehundred import sim  # noqa: E402
from fivehundred.pipelines.schema import records_to_table  # noqa: E402
from fivehundred.sim.game import play_game  # noqa: E402
from fivehundred.strategies import make  # noqa: E402

HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables"
SEED = 7
#: (folder, variant, bots, games, game ids where a new part file starts)
RUNS: tuple[tuple[str, str, str, int, tuple[int, ...]], ...] = (
    ("base", "pagat-au", "heuristic", 60, (0, 17, 18, 41)),
    ("na", "north-american", "heuristic", 60, (0, 30)),
    ("dup", "pagat-au", "random(pass_probability=0.7)", 60, (0,)),
    ("three", "three-player", "heuristic", 20, (0, 9)),
)
WHATIF_SAMPLE = 40


def golden_runs(root: Path) -> list[Path]:
    """Play the golden runs into ``root/<folder>/deals/part-*.parquet`` (no manifest); their paths."""
    out = []
    for name, variant, spec, games, starts in RUNS:
        rules = sim.load_rules(variant)
        bots = [make(spec) for _ in range(rules.players)]
        per_game: list[list[dict[str, Any]]] = [play_game(rules, bots, SEED, g) for g in range(games)]
        run = root / name
        (run / "deals").mkdir(parents=True, exist_ok=True)
        bounds = [*starts, games]
        first = 0
        for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
            recs = [r for g in range(lo, hi) for r in per_game[g]]
            pq.write_table(
                records_to_table(recs, f"golden-{name}", first), run / "deals" / f"part-{k:05d}.parquet"
            )
            first += len(recs)
        out.append(run)
    return out


def main() -> None:
    import tempfile

    from fivehundred.pipelines.analysis import analyze

    with tempfile.TemporaryDirectory() as tmp:
        runs = golden_runs(Path(tmp))
        tables = analyze(runs, Path(tmp) / "stats", what_if="misere", sample=WHATIF_SAMPLE)
    TABLES.mkdir(exist_ok=True)
    for name, df in tables.items():
        df.write_parquet(TABLES / f"{name}.parquet", statistics=False)
    print(f"{len(tables)} tables in {TABLES}")


if __name__ == "__main__":
    main()
