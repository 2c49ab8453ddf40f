"""Double-dummy (DD) results of the contracts as played (``analyze --dd``), docs/dd.md.

For every deal with a contract, :func:`opening_fields` builds the position at the opening lead from the facts
the engine logged (the declarer's hand as dealt plus the kitty minus its ``discards``, the sitting-out
partners' hands empty, the first seat of ``play_seats`` to lead, ``joker_suit`` as the declarer named it) and
:func:`sim.dd.dd_tricks` solves it.  The results are a per-deal sidecar of the run,
``RUN/dd/part-NNNNN.parquet``: the deals with a contract in :func:`sample_order` (a hash of each deal's seed,
so that a sample of ``N`` deals is the first ``N`` of that order and the same hands in every run of one master
seed), :data:`CHUNK_DEALS` per part, each part solved by one task (on Ray with the shared scheduler of
:mod:`pipelines.chunks`, or in this process) and written atomically as it comes back, so an interrupted
analysis resumes where it stopped.  A part whose deal ids, seeds and :data:`DD_VERSION` match the log is
reused; the bytes depend only on the log (never on the number of workers).

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

from fivehundred.pipelines.analysis.frame import LEVEL_ORDER, Frame, deal_exprs
from fivehundred.pipelines.analysis.intervals import cluster_mean, wilson
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.rundir import encode_parquet
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import derive

#: The sidecar's version: what a DD value means and how the position is built from the log.  The
#: solver is exact, so a faster solver keeps it; a change of definition bumps it (and re-solves).
DD_VERSION = "dd.v1"
#: Deals solved per task and per part file (fixed: the parts, and their bytes, do not depend on workers).
CHUNK_DEALS = 64
DD_DIR = "dd"
#: The sample order's own stream: a deal's place is ``derive(deal seed, SAMPLE_KEY)``.
SAMPLE_KEY = 0x44445341  # "DDSA"
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


def check_sample(value: object, low: int = 1, error: type[Exception] = AnalysisError) -> None:
    """Refuse a ``--dd-sample`` that is not an integer of at least ``low`` (None passes) with ``error``."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
        bound = "at least 1" if low == 1 else f"{low} or more"
        raise error(f"--dd-sample must be {bound}, got {value!r}")


def sample_key(deal_seed: int) -> int:
    """A deal's place in the sample order: a hash of its seed (which the master seed, the game and the
    hand fix, so hand ``j`` of game ``g`` has the same place in every run of one sweep)."""
    return derive(deal_seed, SAMPLE_KEY)


def sample_order(log: pl.DataFrame, cut: int | None = None) -> pl.DataFrame:
    """The deals of ``log`` (columns ``deal_id``, ``seed``, ...) in sample order (:func:`sample_key`,
    ties by ``deal_id``) with the key, column ``sample_key``; those whose key is at most ``cut`` (all
    when ``None``)."""
    keys = pl.Series("sample_key", [sample_key(s) for s in log["seed"].to_list()], dtype=pl.UInt64)
    ordered = log.with_columns(keys).sort("sample_key", "deal_id")
    return ordered if cut is None else ordered.filter(pl.col("sample_key") <= cut)


def part_name(index: int, folder: str = DD_DIR) -> str:
    """The sidecar part file of chunk ``index``, relative to the run."""
    return f"{folder}/part-{index:05d}.parquet"


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


def _part_matches(data: bytes | None, ids: list[int], seeds: list[int], version: str = DD_VERSION) -> bool:
    if data is None:
        return False
    try:
        t = pq.read_table(io.BytesIO(data), columns=["deal_id", "seed", "dd_version"])
    except (pa.ArrowInvalid, OSError):
        return False
    return (
        t.column("deal_id").to_pylist() == ids
        and t.column("seed").to_pylist() == seeds
        and set(t.column("dd_version").to_pylist()) == {version}
    )


#: The per-deal frame's columns (:func:`~pipelines.analysis.frame.deal_exprs`) the DD sidecars and
#: tables read of the sampled deals.
ROW_COLUMNS = (
    "deal_id",
    "game_id",
    "hand_no",
    "seed",
    "dealer",
    "strategies",
    "contract",
    "declarer",
    "dtricks",
    "is_mis",
    "crank",
    "level",
    "level_n",
    "made",
    "dteam",
    "dstrategy",
)


def dd_rows(
    frame: Frame, cut: int | None = None, sample: int | None = None, ids: pl.Series | None = None
) -> pl.DataFrame:
    """The per-deal rows (:data:`ROW_COLUMNS` and ``sample_key``) of the run's sampled deals in sample
    order: with ``sample``, the first ``sample`` deals (and any deal tied with the last one's key);
    else those whose :func:`sample_key` is at most ``cut`` (every deal when ``None``); only the deals
    ``ids`` when given.  Read chunk by chunk (:func:`~pipelines.analysis.frame.chunks`): what is held
    at once is one chunk and the sampled rows, never the whole run."""
    from fivehundred.pipelines.analysis import frame as framemod

    run = frame.run
    exprs = [e for e in deal_exprs(run, frame.players, frame.teams) if e.meta.output_name() in ROW_COLUMNS]
    kept: list[pl.DataFrame] = []
    for lf in framemod.chunks(run, framemod.CHUNK_ROWS):
        if ids is not None:
            lf = lf.filter(pl.col("deal_id").is_in(ids.implode()))
        d = sample_order(lf.select(exprs).collect(engine="streaming"), cut)
        if sample is not None:  # the first `sample` so far, ties with the last included
            d = pl.concat([*kept, d]).sort("sample_key", "deal_id")
            if d.height > sample:
                d = d.filter(pl.col("sample_key") <= d["sample_key"][sample - 1])
            kept = [d]
        else:
            kept.append(d)
    assert kept, "a run has part files (open_run refuses an empty log)"
    return pl.concat(kept).sort("sample_key", "deal_id")


def sampled_ids(frame: Frame, cut: int | None = None, rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """``deal_id``, ``seed``, ``contract`` and ``sample_key`` of the run's sampled deals (those whose
    :func:`sample_key` is at most ``cut``; all deals when ``None``), in sample order, with or without
    a contract (of ``rows``, :func:`dd_rows`, when given)."""
    rows = dd_rows(frame, cut) if rows is None else rows
    return rows.select("deal_id", "seed", "contract", "sample_key")


def sample_cut(frame: Frame, sample: int, rows: pl.DataFrame | None = None) -> int:
    """The key of the ``sample``-th deal of ``frame`` in sample order (its last deal's when the run
    is shorter): the first run's sample size becomes the key every run samples up to (of ``rows``,
    :func:`dd_rows` with this ``sample``, when given)."""
    keys = (dd_rows(frame, sample=sample) if rows is None else rows)["sample_key"]
    return int(keys[min(sample, keys.len()) - 1]) if keys.len() else 0


@dataclass(frozen=True)
class SidecarKind:
    """What a per-deal sidecar of the run holds: its folder, version (the ``dd_version`` column),
    schema, the log columns its tasks read, whether only deals with a contract are solved, the task
    (a module-level function: chunk -> the part's bytes) and the deals per part."""

    folder: str
    version: str
    schema: pa.Schema
    log_columns: tuple[str, ...]
    contracts_only: bool
    task: Callable[[DDChunk], bytes]
    chunk_deals: int


def dd_sidecar(
    frame: Frame,
    rules: Rules,
    workers: int | None = 0,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    cut: int | None = None,
    kind: SidecarKind | None = None,
    rows: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The run's DD sidecar (computed where missing or stale, else read), one row per deal with a
    contract (of the sampled deals up to the key ``cut``, :func:`sampled_ids`; of every deal when
    ``None``), in ``deal_id`` order; another sidecar with ``kind`` (the par sidecar,
    :func:`pipelines.analysis.ddpar.par_kind`).  ``rows``: the sampled deals' :func:`dd_rows` when
    already read.

    Parts hold the deals in sample order, :attr:`SidecarKind.chunk_deals` each; a part whose deal
    ids, seeds and version match is reused, parts beyond the request are removed.  ``workers`` 0: in
    this process; otherwise on Ray (``None``: all cores, or ``address``'s cluster).
    ``progress(parts done, parts)`` is called after each part.
    """
    if kind is None:
        kind = SidecarKind(DD_DIR, DD_VERSION, SIDECAR_SCHEMA, LOG_COLUMNS, True, solve_chunk, CHUNK_DEALS)
    run = frame.run
    order = sampled_ids(frame, cut, rows)
    if kind.contracts_only:
        order = order.filter(pl.col("contract").is_not_null())
    order = order.select("deal_id")
    log = run.scan.filter(pl.col("deal_id").is_in(order["deal_id"].implode())).select(kind.log_columns)
    picked = order.join(
        log.collect(engine="streaming"), on="deal_id", how="left", maintain_order="left"
    ).to_dicts()
    size = kind.chunk_deals
    chunks = [picked[i : i + size] for i in range(0, len(picked), size)]
    parts = sidecar_parts(
        run.log.dir,
        kind.folder,
        [DDChunk(i, rules, tuple(c)) for i, c in enumerate(chunks)],
        [([r["deal_id"] for r in c], [r["seed"] for r in c]) for c in chunks],
        kind.version,
        kind.task,
        workers,
        address,
        progress,
    )
    tables = [pq.read_table(io.BytesIO(p)) for p in parts]
    if not tables:
        return pl.DataFrame(schema=pl.from_arrow(kind.schema.empty_table()).schema)
    return pl.from_arrow(pa.concat_tables(tables)).sort("deal_id")  # type: ignore[union-attr]


def sidecar_parts(
    rundir: Any,
    folder: str,
    chunks: Sequence[Any],
    keys: Sequence[tuple[list[int], list[int]]],
    version: str,
    task: Callable[[Any], bytes],
    workers: int | None,
    address: str | None,
    progress: Callable[[int, int], None] | None = None,
) -> list[bytes]:
    """The bytes of every part of a per-deal sidecar ``RUN/<folder>/`` (:func:`part_name`), each
    computed where missing or stale, else read: part ``i`` is chunk ``i`` (whose ``key`` is ``i``),
    whose rows must hold the ``deal_id`` and ``seed`` lists ``keys[i]`` and ``version`` in their
    ``dd_version`` column to be reused.  ``task(chunk)`` gives a part's bytes (in this process when
    ``workers`` is 0 and ``address`` None, else a Ray task), written atomically when it comes back;
    parts beyond the last chunk are removed; ``progress(parts done, parts)`` after each part."""
    parts: list[bytes | None] = []
    for i, (ids, seeds) in enumerate(keys):
        data = rundir.read(part_name(i, folder))
        parts.append(data if _part_matches(data, ids, seeds, version) else None)
    wanted = {part_name(i, folder) for i in range(len(chunks))}
    for rel in rundir.files(folder):  # parts of an earlier, longer log or sample
        if rel not in wanted:
            rundir.delete(rel)
    todo = [c for c, p in zip(chunks, parts, strict=True) if p is None]
    done = len(chunks) - len(todo)
    for key, data in _solve(todo, workers, address, task):
        rundir.write(part_name(key, folder), data)
        parts[key] = data
        done += 1
        if progress is not None:
            progress(done, len(chunks))
    assert all(p is not None for p in parts)
    return [p for p in parts if p is not None]


def _solve(
    todo: Sequence[Any], workers: int | None, address: str | None, task: Callable[[Any], bytes]
) -> Iterator[tuple[int, bytes]]:
    from fivehundred.pipelines.chunks import RayPool, run_chunks

    if not todo:
        return
    if workers == 0 and address is None:
        for done in run_chunks(todo, None, task=task):
            yield done.chunk.key, done.table
        return
    with RayPool(workers=workers, address=address, task=task) as pool:
        with closing(run_chunks(todo, pool, task=task)) as stream:
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


def dd_deals(frame: Frame, sidecar: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """The run's sampled deals (``rows``, :func:`dd_rows`) with a contract joined with their DD tricks,
    and whether DD makes the contract."""
    d = rows.filter(pl.col("contract").is_not_null()).join(
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


SAMPLE_SCHEMA: dict[str, Any] = {
    "run_id": pl.String,
    "variant": pl.String,
    **dict.fromkeys(("deals", "sample", "sampled", "solved"), pl.Int64),
}


def dd_sample_table(
    frames: Sequence[Frame],
    sidecars: Sequence[pl.DataFrame],
    sample: int | None,
    rows: Sequence[pl.DataFrame],
) -> pl.DataFrame:
    """``dd_sample``: per run, its deals, the sample asked for (null: every deal), the deals sampled
    (up to the first run's ``sample``-th key) and the contracts among them solved (the ``n``
    every other ``dd_`` table is a part of); ``rows``: each run's sampled deals (:func:`dd_rows`)."""
    out: dict[str, list[Any]] = {k: [] for k in SAMPLE_SCHEMA}
    for f, side, sampled in zip(frames, sidecars, rows, strict=True):
        n = f.count("deals")
        for k, v in (
            ("run_id", f.run.run_id),
            ("variant", f.run.variant),
            ("deals", n),
            ("sample", sample),
            ("sampled", sampled.height),
            ("solved", side.height),
        ):
            out[k].append(v)
    return pl.DataFrame(out, schema=SAMPLE_SCHEMA)


def dd_tables(
    frames: Sequence[Frame],
    sidecars: Sequence[pl.DataFrame],
    rows: Sequence[pl.DataFrame],
    sample: int | None = None,
) -> dict[str, pl.DataFrame]:
    """The ``dd_`` tables of the runs' frames, their DD sidecars and sampled deals (``rows``,
    :func:`dd_rows`; no I/O); ``sample`` is the ``--dd-sample`` the sidecars were solved for
    (``None``: every deal)."""
    deals = [dd_deals(f, s, r) for f, s, r in zip(frames, sidecars, rows, strict=True)]
    out = {"dd_sample": dd_sample_table(frames, sidecars, sample, rows)}
    if len(frames) > 1:
        sampled = [dd_sampled_deals(s, r) for s, r in zip(sidecars, rows, strict=True)]
        out["dd_variant_effects"] = dd_variant_effects(frames, sampled)
    return out | {
        "dd_success": dd_success(deals),
        "dd_by_level": dd_by_level(deals),
        "dd_misere": dd_misere(deals),
        "dd_trick_gain": dd_trick_gain(deals, [f.teams for f in frames]),
    }


# ------------------------------------------------------------------------ paired effects (runs 2..)

#: The paired DD effects of a compared run, per deal of the sampled deals both runs played (1/0):
#: the metric and what it is in words.  ``dd_rate``/``dd_misere_rate`` are over the pairs where both
#: runs played a suit or NT contract (a misère) only.
DD_EFFECTS: tuple[tuple[str, str], ...] = (
    ("dd_makeable", "deals with a DD-makeable suit or NT contract"),
    ("dd_defeated", "deals with a suit or NT contract DD play defeats"),
    ("dd_rate", "DD-makeable share of the suit and NT contracts bid"),
    ("dd_misere_viable", "deals with a DD-viable misère"),
    ("dd_misere_doomed", "deals with a misère DD play defeats"),
    ("dd_misere_rate", "DD-viable share of the misères bid"),
)
_CONDITIONAL = {"dd_rate": "dd_suit", "dd_misere_rate": "dd_mis"}


def dd_sampled_deals(sidecar: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """Per sampled deal (``rows``, :func:`dd_rows`; with or without a contract), keyed by (``game_id``,
    ``hand_no``): the 0/1 metrics of :data:`DD_EFFECTS` (null where a conditional one does not
    apply), ``seed`` and ``dealer`` (to check the pairing)."""
    d = rows.join(sidecar.select("deal_id", "dd_tricks"), on="deal_id", how="left")
    has = pl.col("contract").is_not_null()
    suit = has & ~pl.col("is_mis").fill_null(False)
    mis = has & pl.col("is_mis").fill_null(False)
    ok = pl.when(mis).then(pl.col("dd_tricks") == 0).otherwise(pl.col("dd_tricks") >= pl.col("level_n"))
    return d.select(
        "game_id",
        "hand_no",
        "seed",
        "dealer",
        (suit & ok).fill_null(False).cast(pl.Int8).alias("dd_makeable"),
        (suit & ~ok).fill_null(False).cast(pl.Int8).alias("dd_defeated"),
        pl.when(suit).then(ok.cast(pl.Int8)).alias("dd_rate"),
        (mis & ok).fill_null(False).cast(pl.Int8).alias("dd_misere_viable"),
        (mis & ~ok).fill_null(False).cast(pl.Int8).alias("dd_misere_doomed"),
        pl.when(mis).then(ok.cast(pl.Int8)).alias("dd_misere_rate"),
    ).sort("game_id", "hand_no")


def dd_variant_effects(frames: Sequence[Frame], sampled: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """``dd_variant_effects``: for runs 2.. on the first run's table, each :data:`DD_EFFECTS` metric's
    paired difference (run − base) over the sampled deals both runs played (the conditional rates:
    over the pairs where both played such a contract), with the columns and intervals of
    ``variant_effects`` and Holm's adjustment within each run."""
    from fivehundred.pipelines.analysis.multiplicity import with_adjusted
    from fivehundred.pipelines.analysis.variants import EFFECT_COLUMNS, _joint, _paired_rows, unpairable

    base, bd = frames[0], sampled[0]
    rows: list[dict[str, Any]] = []
    for other, od in zip(frames[1:], sampled[1:], strict=True):
        if unpairable(base, other) is not None:
            continue
        joined = bd.join(od, on=["game_id", "hand_no"], how="inner", suffix="_o").sort("game_id", "hand_no")
        bad = joined.filter((pl.col("seed") != pl.col("seed_o")) | (pl.col("dealer") != pl.col("dealer_o")))
        if bad.height:
            raise AnalysisError(
                f"runs {base.run.path} and {other.run.path}: the DD samples cannot be paired "
                "(the deals differ: different master seeds?)"
            )
        key = (base.run.run_id, other.run.run_id, "dd")
        metrics = [m for m, _ in DD_EFFECTS]
        for m in metrics:
            pairs = joined.filter(pl.col(m).is_not_null() & pl.col(f"{m}_o").is_not_null())
            if pairs.height == 0:
                continue
            for r in _paired_rows(_joint(pairs, [m]), [m], "deal", "dd_effects", key, (bd.height, od.height)):
                r.update(
                    base_run=base.run.run_id,
                    run_id=other.run.run_id,
                    base_variant=base.run.variant,
                    variant=other.run.variant,
                )
                rows.append(r)
    columns = [c for c in EFFECT_COLUMNS if c not in ("base_lineup", "lineup")]  # tidy.finish adds them
    schema: dict[str, Any] = {c: pl.Float64 for c in columns if c not in ("p_holm", "holm_significant")}
    schema.update({c: pl.String for c in columns[: columns.index("method") + 1]})
    schema.update({c: pl.Int64 for c in ("base_n", "run_n", "paired_n")})
    df = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    df = with_adjusted(
        df.fill_nan(None), "p_value", "p_holm", "holm", ["base_run", "run_id"], "holm_significant"
    )
    return df.select(columns)
