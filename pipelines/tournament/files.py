"""A tournament's files in its run directory (:mod:`pipelines.rundir`, the layout of a simulation run).

::

    OUT/manifest.json            the run's manifest (kind "tournament"): config, rules, entries, board
                                 seed, totals, the chunks done (the commit point)
    OUT/deals/<chunk>.parquet    the deal log (docs/deal-log.md) plus `board`, `match_id`, `entries`
    OUT/pairs/<chunk>.parquet    one row per game pair (what resuming needs)
    OUT/tables/matches.parquet   per-match results; entries.parquet: per-entry results and ratings
    OUT/tables/tournament.md     both tables in Markdown
"""

from __future__ import annotations

import io
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.rundir import (
    DEALS_DIR,
    TOURNAMENT,
    Manifest,
    RunDir,
    package_versions,
    parquet_bytes,
)
from fivehundred.pipelines.schema import DEAL_LOG_SCHEMA, records_to_table
from fivehundred.pipelines.tournament.config import TournamentConfig
from fivehundred.pipelines.tournament.schedule import PairResult
from fivehundred.sim.errors import UserError

PAIRS_DIR = "pairs"
TABLES_DIR = "tables"

#: The deal log's columns plus the tournament's extra ones.
TOURNAMENT_LOG_SCHEMA = pa.schema(
    [
        *DEAL_LOG_SCHEMA,
        ("board", pa.int64()),  # the deals' source: hand j of this row is new_deal(rules, seed, board, j)
        ("match_id", pa.int32()),  # index of the match (see manifest.json "matches")
        ("entries", pa.list_(pa.string())),  # the entry name of each seat
    ]
)

PAIRS_SCHEMA = pa.schema(
    [
        ("match", pa.int32()),
        ("pair", pa.int64()),
        ("score_a_0", pa.float64()),
        ("score_a_1", pa.float64()),
        ("points_a", pa.int64()),
        ("deals_0", pa.int32()),
        ("deals_1", pa.int32()),
        ("end_0", pa.string()),
        ("end_1", pa.string()),
    ]
)


class TournamentDirError(UserError, ValueError):
    """The output directory holds something else than this tournament."""


def run_id_of(config: TournamentConfig) -> str:
    """The run id: the tournament's name and a hash of its whole config (seed included)."""
    return f"{config.name}-{config.digest()[:12]}"


def new_manifest(config: TournamentConfig) -> Manifest:
    """The manifest of a tournament that has not committed any chunk yet."""
    rules = config.rules()
    # The seed is stored as `board_seed`, never as a master seed: deals come from (seed, board, hand),
    # not from (seed, game_id, hand) as in a simulation run, so tools checking the latter must not find it.
    cfg = config.as_dict()
    cfg["board_seed"] = cfg.pop("seed")
    return Manifest(
        kind=TOURNAMENT,
        run_id=run_id_of(config),
        identity={"config_digest": config.digest()},
        config=cfg,
        variant=rules.name,
        rules=rules.as_dict(),
        strategies=[
            {"entry": e.name, "strategy": e.strategy, "params": e.params, "label": e.label}
            for e in config.entries
        ],
        board_seed=config.seed,
        versions=package_versions(),
        totals={"pairs": 0, "games": 0, "deals": 0, "chunks": 0},
        extra={
            "matches": [
                {"match": m, "a": config.entries[a].name, "b": config.entries[b].name}
                for m, (a, b) in enumerate(config.matches)
            ],
            "duplicate": {
                "board": (
                    "pair p of every match plays board p: hand j is sim.game.new_deal(rules, seed, p, j)"
                ),
                "game_id": "2 * (pair * n_matches + match) + side; side 0: match's a at even seats (team 0)",
            },
        },
    )


def open_tournament(run: RunDir, config: TournamentConfig) -> Manifest:
    """The manifest to continue (resume), or a fresh one; refuses a directory holding anything else."""
    try:
        old = run.read_manifest()
    except UserError as exc:
        raise TournamentDirError(f"{run.display}/manifest.json: unreadable manifest ({exc})") from None
    if old is None:
        if not run.is_empty():
            raise TournamentDirError(
                f"{run.display}: exists, is not empty and has no manifest.json; choose another --out"
            )
        return new_manifest(config)
    if old.kind != TOURNAMENT or old.identity != {"config_digest": config.digest()}:
        raise TournamentDirError(
            f"{run.display}: holds another run (its manifest's config differs from {config.source}); "
            "choose another --out"
        )
    manifest = new_manifest(config)
    manifest.chunks, manifest.totals = old.chunks, {**manifest.totals, **old.totals}
    return manifest


def done_pairs(run: RunDir, entry: dict[str, Any]) -> list[PairResult]:
    """The pair results of a committed chunk (from its pairs file)."""
    rel = entry["pairs_file"]
    if not run.exists(rel):
        raise TournamentDirError(
            f"{run.path(rel)}: missing, though the manifest lists chunk {entry['key']} as done"
        )
    return [PairResult.from_row(r) for r in run.read_table(rel).to_pylist()]


def commit_chunk(
    run: RunDir,
    manifest: Manifest,
    key: str,
    results: list[PairResult],
    records: list[dict[str, Any]],
) -> None:
    """Write one consumed chunk (its kept pairs and their deals), then the manifest that commits it."""
    totals = manifest.totals
    log = records_to_table(records, manifest.run_id or "", totals["deals"], TOURNAMENT_LOG_SCHEMA)
    deals_rel, pairs_rel = f"{DEALS_DIR}/{key}.parquet", f"{PAIRS_DIR}/{key}.parquet"
    run.write(deals_rel, parquet_bytes(lambda sink: pq.write_table(log, sink, compression="zstd")))
    pairs = pa.Table.from_pylist([r.as_row() for r in results], schema=PAIRS_SCHEMA)
    run.write(pairs_rel, parquet_bytes(lambda sink: pq.write_table(pairs, sink, compression="zstd")))
    manifest.chunks.append(
        {
            "key": key,
            "file": deals_rel,
            "pairs_file": pairs_rel,
            "pairs": len(results),
            "deals": len(records),
            "first_deal_id": totals["deals"],
        }
    )
    manifest.totals = {
        "pairs": totals["pairs"] + len(results),
        "games": totals["games"] + 2 * len(results),
        "deals": totals["deals"] + len(records),
        "chunks": totals["chunks"] + 1,
    }
    run.write_manifest(manifest)


def write_tables(run: RunDir, tables: dict[str, pl.DataFrame], markdown: str) -> None:
    """Write the final tables (Parquet) and the Markdown report under ``tables/``."""
    for name, df in tables.items():
        buf = io.BytesIO()
        df.write_parquet(buf, compression="zstd", statistics=False)
        run.write(f"{TABLES_DIR}/{name}.parquet", buf.getvalue())
    run.write(f"{TABLES_DIR}/tournament.md", markdown.encode())
