"""Double-dummy (DD) results of the contracts as played (``analyze --dd``), docs/dd.md.

For every deal with a contract, :func:`opening_fields` builds the position at the opening lead from
the facts the engine logged (the declarer's hand as dealt plus the kitty minus its ``discards``,
the sitting-out partners' hands empty, the first seat of ``play_seats`` to lead, ``joker_suit`` as the
declarer named it) and :func:`sim.dd.dd_tricks` solves it.  The results are a per-deal sidecar of the
run, ``RUN/dd/part-NNNNN.parquet``: the deals with a contract in deal-id order, :data:`CHUNK_DEALS` per
part, each part solved by one task (on Ray with the shared scheduler of :mod:`pipelines.chunks`, or in
this process) and written atomically as it comes back, so an interrupted analysis resumes where it
stopped.  A part whose deal ids, seeds and :data:`DD_VERSION` match the log is reused; the bytes
depend only on the log (never on the number of workers).

:func:`dd_tables` turns the sidecars into the ``dd_`` statistics tables.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.analysis.frame import LEVEL_ORDER, Frame
from fivehundred.pipelines.analysis.intervals import cluster_mean, wilson
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.rundir import encode_parquet
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.rules import Rules

#: The sidecar's version: what a DD value means and how the position is built from the log.  The
#: solver is exact, so a faster solver keeps it; a change of definition bumps it (and re-solves).
DD_VERSION = "dd.v1"
#: Deals solved per task and per part file (fixed: the parts, and their bytes, do not depend on workers).
CHUNK_DEALS = 64
DD_DIR = "dd"
#: Log columns the positions are built from.
LOG_COLUMNS = (
    "deal_id",
    "seed",
    "contract",
    "declarer",
    "hands",
    "kitty",
    "discards",
    "joker_suit",
    "play_seats",
    "sitting_out",
)
SIDECAR_SCHEMA = pa.schema(
    [
        ("deal_id", pa.int64()),
        ("seed", pa.uint64()),
        ("contract", pa.string()),
        ("declarer", pa.int8()),
        ("leader", pa.int8()),
        ("dd_tricks", pa.int8()),
        ("dd_version", pa.string()),
    ]
)


def part_name(index: int) -> str:
    """The sidecar part file of chunk ``index``, relative to the run."""
    return f"{DD_DIR}/part-{index:05d}.parquet"


def opening_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The position fields (as ``fivehundred dd`` reads them) of a logged deal at its opening lead."""
    declarer = row["declarer"]
    out = set(row["sitting_out"] or ())
    hands: list[list[str]] = []
    for s, hand in enumerate(row["hands"]):
        if s in out:
            hands.append([])
        elif s == declarer:
            gone = set(row["discards"])
            hands.append([c for c in [*hand, *row["kitty"]] if c not in gone])
        else:
            hands.append(list(hand))
    return {
        "contract": row["contract"],
        "declarer": declarer,
        "leader": row["play_seats"][0],
        "hands": hands,
        "joker_suit": row["joker_suit"],
    }


@dataclass(frozen=True)
class DDChunk:
    """One part's deals: ``key`` is the part's index; ``rows`` the log rows (:data:`LOG_COLUMNS`)."""

    key: int
    rules: Rules
    rows: tuple[dict[str, Any], ...]


def solve_chunk(chunk: DDChunk) -> bytes:
    """The part file's bytes of a chunk: each deal's DD tricks at the opening lead (a Ray task)."""
    cols: dict[str, list[Any]] = {f.name: [] for f in SIDECAR_SCHEMA}
    for row in chunk.rows:
        f = opening_fields(row)
        try:
            pos = Position.from_fields(chunk.rules, **f)
        except ValueError as exc:
            raise AnalysisError(f"deal {row['deal_id']}: no DD position from the log ({exc})") from None
        cols["deal_id"].append(row["deal_id"])
        cols["seed"].append(row["seed"])
        cols["contract"].append(row["contract"])
        cols["declarer"].append(row["declarer"])
        cols["leader"].append(f["leader"])
        cols["dd_tricks"].append(dd_tricks(pos))
        cols["dd_version"].append(DD_VERSION)
    return encode_parquet(pa.table(cols, schema=SIDECAR_SCHEMA))


def _part_matches(data: bytes | None, ids: list[int], seeds: list[int]) -> bool:
    if data is None:
        return False
    try:
        t = pq.read_table(io.BytesIO(data), columns=["deal_id", "seed", "dd_version"])
    except (pa.ArrowInvalid, OSError):
        return False
    return (
        t.column("deal_id").to_pylist() == ids
        and t.column("seed").to_pylist() == seeds
        and set(t.column("dd_version").to_pylist()) == {DD_VERSION}
    )


def dd_sidecar(
    frame: Frame,
    rules: Rules,
    workers: int | None = 0,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pl.DataFrame:
    """The run's DD sidecar (computed where missing or stale, else read), one row per deal with a contract.

    ``workers`` 0: in this process; otherwise on Ray (``None``: all cores, or ``address``'s cluster).
    ``progress(parts done, parts)`` is called after each part.
    """
    run = frame.run
    rundir = run.log.dir
    log = run.scan.filter(pl.col("contract").is_not_null()).select(LOG_COLUMNS).sort("deal_id").collect()
    rows = log.to_dicts()
    chunks = [rows[i : i + CHUNK_DEALS] for i in range(0, len(rows), CHUNK_DEALS)]
    parts: list[bytes | None] = []
    for i, chunk in enumerate(chunks):
        data = rundir.read(part_name(i))
        ids = [r["deal_id"] for r in chunk]
        ok = _part_matches(data, ids, [r["seed"] for r in chunk])
        parts.append(data if ok else None)
    wanted = {part_name(i) for i in range(len(chunks))}
    for rel in rundir.files(DD_DIR):  # parts of an earlier, longer log
        if rel not in wanted:
            rundir.delete(rel)
    todo = [DDChunk(i, rules, tuple(chunks[i])) for i, p in enumerate(parts) if p is None]
    done = len(chunks) - len(todo)
    for key, data in _solve(todo, workers, address):
        rundir.write(part_name(key), data)
        parts[key] = data
        done += 1
        if progress is not None:
            progress(done, len(chunks))
    tables = [pq.read_table(io.BytesIO(p)) for p in parts if p is not None]
    if not tables:
        return pl.DataFrame(schema=pl.from_arrow(SIDECAR_SCHEMA.empty_table()).schema)
    return pl.from_arrow(pa.concat_tables(tables))  # type: ignore[return-value]


def _solve(todo: Sequence[DDChunk], workers: int | None, address: str | None) -> Iterator[tuple[int, bytes]]:
    from fivehundred.pipelines.chunks import RayPool, run_chunks

    if not todo:
        return
    if workers == 0 and address is None:
        for done in run_chunks(todo, None, task=solve_chunk):
            yield done.chunk.key, done.table
        return
    with RayPool(workers=workers, address=address, task=solve_chunk) as pool:
        with closing(run_chunks(todo, pool, task=solve_chunk)) as stream:
            for done in stream:
                yield done.chunk.key, done.table


# ------------------------------------------------------------------------------------------ tables

#: Columns of the rate tables (dd_success, dd_by_level, dd_misere).
RATE_COLUMNS = (
    "n",
    "made",
    "success_rate",
    "success_lo",
    "success_hi",
    "dd_made",
    "dd_rate",
    "dd_lo",
    "dd_hi",
    "made_not_dd",
    "dd_not_made",
)


def dd_deals(frame: Frame, sidecar: pl.DataFrame) -> pl.DataFrame:
    """The run's deals with a contract joined with their DD tricks, and whether DD makes the contract."""
    d = frame.df.filter(pl.col("contract").is_not_null()).join(
        sidecar.select("deal_id", "dd_tricks"), on="deal_id", how="inner"
    )
    dd_made = (
        pl.when(pl.col("is_mis"))
        .then(pl.col("dd_tricks") == 0)
        .otherwise(pl.col("dd_tricks") >= pl.col("level_n"))
    )
    return d.with_columns(dd_made.alias("dd_ok"), *frame.run_columns())


def _rates(d: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    made, dd = pl.col("made"), pl.col("dd_ok")
    g = d.group_by(["run_id", "variant", *keys]).agg(
        pl.len().cast(pl.Int64).alias("n"),
        made.sum().cast(pl.Int64).alias("made"),
        dd.sum().cast(pl.Int64).alias("dd_made"),
        (made & ~dd).sum().cast(pl.Int64).alias("made_not_dd"),
        (~made & dd).sum().cast(pl.Int64).alias("dd_not_made"),
    )
    g = g.with_columns(
        *wilson(pl.col("made"), pl.col("n"), "success"), *wilson(pl.col("dd_made"), pl.col("n"), "dd")
    )
    return g.select("run_id", "variant", *keys, *RATE_COLUMNS)


def _empty(keys: dict[str, pl.DataType]) -> pl.DataFrame:
    schema: dict[str, Any] = {"run_id": pl.String, "variant": pl.String, **keys}
    for c in RATE_COLUMNS:
        schema[c] = pl.Int64 if c in ("n", "made", "dd_made", "made_not_dd", "dd_not_made") else pl.Float64
    return pl.DataFrame(schema=schema)


def dd_success(deals: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per suit and NT contract: success as played beside success under DD play (the same deals)."""
    keys = {"contract": pl.String, "crank": pl.Int16}
    out = [_rates(d.filter(~pl.col("is_mis")), list(keys)).sort("crank") for d in deals]
    return pl.concat([_empty(keys), *out], how="vertical_relaxed")


def dd_by_level(deals: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per bid level 6..10: how often the contract bid is DD-makeable (and was made as played)."""
    order = {v: i for i, v in enumerate(LEVEL_ORDER)}
    out = []
    for d in deals:
        t = _rates(d.filter(~pl.col("is_mis")), ["level"])
        t = t.with_columns(pl.col("level").replace_strict(order, return_dtype=pl.Int16).alias("order"))
        out.append(t.sort("order").drop("order"))
    return pl.concat([_empty({"level": pl.String}), *out], how="vertical_relaxed")


def dd_misere(deals: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per misère contract: made as played beside DD-viable (the declarer can avoid every trick)."""
    keys = {"contract": pl.String, "crank": pl.Int16}
    out = [_rates(d.filter(pl.col("is_mis")), list(keys)).sort("crank") for d in deals]
    return pl.concat([_empty(keys), *out], how="vertical_relaxed")


GAIN_SCHEMA: dict[str, Any] = {
    "run_id": pl.String,
    "variant": pl.String,
    "role": pl.String,
    "strategy": pl.String,
    "n": pl.Int64,
    "games": pl.Int64,
    "below_dd": pl.Int64,
    "above_dd": pl.Int64,
    "gain_mean": pl.Float64,
    "gain_lo": pl.Float64,
    "gain_hi": pl.Float64,
    "gain_se": pl.Float64,
}


def dd_trick_gain(deals: Sequence[pl.DataFrame], teams: Sequence[int]) -> pl.DataFrame:
    """Tricks each strategy gains (+) or loses (-) against DD play, as declarer and as defence.

    Suit and NT deals.  As declarer: the declaring side's tricks minus its DD tricks; as defence: the
    DD tricks minus the declaring side's tricks, credited to the defenders' strategies (sorted, joined
    with ``+``).  Each deal's difference is the net of both sides' departures from DD play.  The mean's
    interval is cluster-robust by game (docs/statistics.md).
    """
    rows: dict[str, list[Any]] = {k: [] for k in GAIN_SCHEMA}
    for d, n_teams in zip(deals, teams, strict=True):
        d = d.filter(~pl.col("is_mis"))
        seats = (
            d.select("deal_id", "dteam", "strategies")
            .with_columns(pl.int_ranges(0, pl.col("strategies").list.len()).alias("seat"))
            .explode("strategies", "seat")
            .filter(pl.col("seat") % n_teams != pl.col("dteam"))
            .group_by("deal_id")
            .agg(pl.col("strategies").unique().sort().str.join("+").alias("defence"))
        )
        d = d.join(seats, on="deal_id", how="left")
        diff = pl.col("dtricks").cast(pl.Int64) - pl.col("dd_tricks").cast(pl.Int64)
        both = pl.concat(
            d.select(
                "run_id",
                "variant",
                "game_id",
                pl.lit(role).alias("role"),
                pl.col(who).alias("strategy"),
                (sign * diff).alias("g"),
            )
            for role, who, sign in (("declarer", "dstrategy", 1), ("defence", "defence", -1))
        )
        per_game = both.group_by("run_id", "variant", "role", "strategy", "game_id").agg(
            pl.col("g").sum().alias("y"),
            pl.len().alias("m"),
            (pl.col("g") < 0).sum().alias("below"),
            (pl.col("g") > 0).sum().alias("above"),
        )
        groups = per_game.sort("run_id", "variant", "role", "strategy", "game_id").partition_by(
            ["run_id", "variant", "role", "strategy"], maintain_order=True, as_dict=True
        )
        for key, g in sorted(groups.items()):
            mean, lo, hi, se, games = cluster_mean(g["y"].to_list(), g["m"].to_list())
            for k, v in zip(("run_id", "variant", "role", "strategy"), key, strict=True):
                rows[k].append(v)
            rows["n"].append(int(g["m"].sum()))
            rows["games"].append(games)
            rows["below_dd"].append(int(g["below"].sum()))
            rows["above_dd"].append(int(g["above"].sum()))
            for k, v in (("gain_mean", mean), ("gain_lo", lo), ("gain_hi", hi), ("gain_se", se)):
                rows[k].append(None if v != v else v)  # nan -> null
    return pl.DataFrame(rows, schema=GAIN_SCHEMA)


def dd_tables(frames: Sequence[Frame], sidecars: Sequence[pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """The ``dd_`` tables of the runs' frames and their DD sidecars (no I/O)."""
    deals = [dd_deals(f, s) for f, s in zip(frames, sidecars, strict=True)]
    return {
        "dd_success": dd_success(deals),
        "dd_by_level": dd_by_level(deals),
        "dd_misere": dd_misere(deals),
        "dd_trick_gain": dd_trick_gain(deals, [f.teams for f in frames]),
    }
