"""The ``dd_`` statistics tables (docs/statistics.md) from a run's DD sidecar (``analyze --dd``).

:func:`dd_tables` makes one pass over the sampled deals (:func:`row_batches`: a sample's rows, or every
deal in batches of whole games), each chunk reduced to partial aggregates (:func:`dd_partials`,
:data:`DD_AGGREGATES`) that are merged, so that no per-deal frame of the run is held.  The sidecar
itself is :mod:`~pipelines.analysis.dd_sidecar`'s, the sample :mod:`~pipelines.analysis.dd_sample`'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import polars as pl

from fivehundred.pipelines.analysis.batches import Partial, Spec, finish, merge, plan_batches
from fivehundred.pipelines.analysis.dd_sample import (
    row_exprs,
)
from fivehundred.pipelines.analysis.frame import LEVEL_ORDER, Frame
from fivehundred.pipelines.analysis.intervals import cluster_sums, wilson
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.analysis.variants import _joint, unpairable

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


_COUNTS = ("n", "made", "dd_made", "made_not_dd", "dd_not_made")


#: The sums over the clusters (games) of a cluster-robust mean (:func:`intervals.cluster_sums`).
CLUSTER_SUMS = ("G", "a", "b", "syy", "sym", "smm")


#: The DD tables' partial aggregates of a chunk of whole games (:func:`dd_partials`): each one's key
#: columns and how its value columns merge (:func:`~pipelines.analysis.batches.merge`).
DD_AGGREGATES: Spec = {
    "dd_rates": (("contract", "crank", "level", "is_mis"), dict.fromkeys(_COUNTS, "sum")),
    "dd_gain": (("role", "strategy"), dict.fromkeys((*CLUSTER_SUMS, "below", "above"), "sum")),
    "dd_counts": ((), {"sampled": "sum"}),
}


#: The pairing of a compared run with the base over a chunk: pairs per (metric, base value, run value).
DD_PAIR_AGGREGATES: Spec = {"dd_pair": (("metric", "a", "b"), {"_c": "sum"})}


#: Deals of one run (at most, plus one game) in a chunk of the DD tables' pass over every deal.
DD_BATCH_ROWS = 200_000


def id_slice(table: pl.DataFrame, rows: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``table`` (sorted by ``deal_id``) within the deal-id range of ``rows``."""
    if rows.height == 0:
        return table.clear()
    ids = table["deal_id"]
    lo = ids.search_sorted(rows["deal_id"].min(), "left")
    hi = ids.search_sorted(rows["deal_id"].max(), "right")
    return table.slice(lo, hi - lo)


def row_batches(
    frames: Sequence[Frame], rows: Sequence[pl.DataFrame] | None = None
) -> Iterator[list[pl.DataFrame | None]]:
    """Each run's sampled deals (:data:`ROW_COLUMNS`) in chunks of whole games, the same game ids of
    every run in one chunk (None: the run has none there): a sample's ``rows`` (held) as one chunk;
    every deal (``rows`` None) read in ranges of game ids of at most about :data:`DD_BATCH_ROWS`
    deals of a run (:func:`~pipelines.analysis.batches.plan_batches`), one range at a time."""
    if rows is not None:
        yield list(rows)
        return
    shapes = [(f.players, f.teams) for f in frames]
    plan = plan_batches([f.run for f in frames], shapes, [False] * len(frames), DD_BATCH_ROWS)
    exprs = [row_exprs(f) for f in frames]
    for b in plan:
        out: list[pl.DataFrame | None] = []
        for src, ex in zip(b.sources, exprs, strict=True):
            if src is None:
                out.append(None)
                continue
            lf = src.run.log.scan(list(src.files))
            if src.filtered:
                lf = lf.filter((pl.col("game_id") >= b.lo) & (pl.col("game_id") < b.hi))
            out.append(lf.select(ex).collect(engine="streaming"))
        yield out


def _dd_ok() -> pl.Expr:
    return (
        pl.when(pl.col("is_mis"))
        .then(pl.col("dd_tricks") == 0)
        .otherwise(pl.col("dd_tricks") >= pl.col("level_n"))
    )


def dd_partials(rows: pl.DataFrame, sidecar: pl.DataFrame, teams: int) -> Partial:
    """The partial aggregates (:data:`DD_AGGREGATES`) of a chunk of a run's sampled deals (whole
    games) and its DD sidecar: per contract the deals played, made, DD-makeable and the discordant
    pairs; per role and strategy the trick gain's sums over the chunk's games; the deals sampled."""
    d = rows.filter(pl.col("contract").is_not_null()).join(
        id_slice(sidecar, rows).select("deal_id", "dd_tricks"), on="deal_id", how="inner"
    )
    made, dd = pl.col("made"), _dd_ok()
    i64 = pl.Int64
    rates = d.group_by("contract", "crank", "level", "is_mis").agg(
        pl.len().cast(i64).alias("n"),
        made.sum().cast(i64).alias("made"),
        dd.sum().cast(i64).alias("dd_made"),
        (made & ~dd).sum().cast(i64).alias("made_not_dd"),
        (~made & dd).sum().cast(i64).alias("dd_not_made"),
    )
    return {
        "dd_rates": rates,
        "dd_gain": _gain_sums(d.filter(~pl.col("is_mis")), teams),
        "dd_counts": pl.DataFrame({"sampled": [rows.height]}, schema={"sampled": i64}),
    }


def cluster_exprs(y: pl.Expr, m: pl.Expr) -> list[pl.Expr]:
    """The :data:`CLUSTER_SUMS` of per-cluster sums ``y`` over ``m`` observations (integer columns)."""
    y, m = y.cast(pl.Int64), m.cast(pl.Int64)
    return [
        pl.len().cast(pl.Int64).alias("G"),
        y.sum().alias("a"),
        m.sum().alias("b"),
        (y * y).sum().alias("syy"),
        (y * m).sum().alias("sym"),
        (m * m).sum().alias("smm"),
    ]


def _gain_sums(d: pl.DataFrame, teams: int) -> pl.DataFrame:
    """Per role and strategy, the trick gain's cluster sums over the games of ``d`` (suit and NT
    deals with their DD tricks; whole games) and its deals below and above DD play."""
    seats = (
        d.select("deal_id", "dteam", "strategies")
        .with_columns(pl.int_ranges(0, pl.col("strategies").list.len()).alias("seat"))
        .explode("strategies", "seat")
        .filter(pl.col("seat") % teams != pl.col("dteam"))
        .group_by("deal_id")
        .agg(pl.col("strategies").unique().sort().str.join("+").alias("defence"))
    )
    d = d.join(seats, on="deal_id", how="left")
    diff = pl.col("dtricks").cast(pl.Int64) - pl.col("dd_tricks").cast(pl.Int64)
    both = pl.concat(
        d.select(
            "game_id", pl.lit(role).alias("role"), pl.col(who).alias("strategy"), (sign * diff).alias("g")
        )
        for role, who, sign in (("declarer", "dstrategy", 1), ("defence", "defence", -1))
    )
    per_game = both.group_by("role", "strategy", "game_id").agg(
        pl.col("g").sum().alias("y"),
        pl.len().alias("m"),
        (pl.col("g") < 0).sum().alias("below"),
        (pl.col("g") > 0).sum().alias("above"),
    )
    return per_game.group_by("role", "strategy").agg(
        *cluster_exprs(pl.col("y"), pl.col("m")),
        pl.col("below").cast(pl.Int64).sum(),
        pl.col("above").cast(pl.Int64).sum(),
    )


def _pair_partials(base: pl.DataFrame, other: pl.DataFrame) -> tuple[Partial, int]:
    """The pairs of a chunk (:data:`DD_PAIR_AGGREGATES`) of two runs' :func:`dd_sampled_deals`, and
    how many pairs are not the same deal (seed or dealer differ)."""
    joined = base.join(other, on=["game_id", "hand_no"], how="inner", suffix="_o")
    bad = joined.filter((pl.col("seed") != pl.col("seed_o")) | (pl.col("dealer") != pl.col("dealer_o")))
    hist = pl.concat(
        [
            _joint(joined.filter(pl.col(m).is_not_null() & pl.col(f"{m}_o").is_not_null()), [m])
            for m, _ in DD_EFFECTS
        ]
    )
    return {"dd_pair": hist}, bad.height


def dd_pass(
    frames: Sequence[Frame], sidecars: Sequence[pl.DataFrame], rows: Sequence[pl.DataFrame] | None = None
) -> tuple[list[Partial], list[Partial | None]]:
    """Each run's merged :data:`DD_AGGREGATES` and, for a run after the first on its table, its
    merged pairing with the first (:data:`DD_PAIR_AGGREGATES`), over :func:`row_batches` (``rows``:
    a sample's deals, held; None: every deal, in batches).  One-line error when paired deals differ."""
    pairable = [False] + [unpairable(frames[0], f) is None for f in frames[1:]]
    merged: list[Partial | None] = [None] * len(frames)
    pairs: list[Partial | None] = [None] * len(frames)
    for chunk in row_batches(frames, rows):
        base = None
        if chunk[0] is not None and any(pairable):
            base = dd_sampled_deals(id_slice(sidecars[0], chunk[0]), chunk[0])
        for i, (f, r, side) in enumerate(zip(frames, chunk, sidecars, strict=True)):
            if r is None:
                continue
            merged[i] = merge(merged[i], dd_partials(r, side, f.teams), DD_AGGREGATES)
            if pairable[i] and base is not None:
                part, bad = _pair_partials(base, dd_sampled_deals(id_slice(side, r), r))
                if bad:
                    raise AnalysisError(
                        f"runs {frames[0].run.path} and {f.run.path}: the DD samples cannot be paired "
                        "(the deals differ: different master seeds?)"
                    )
                pairs[i] = merge(pairs[i], part, DD_PAIR_AGGREGATES)
    done = [finish(m, DD_AGGREGATES) for m in merged]
    assert all(m is not None for m in done), "every run has deals (open_run refuses an empty log)"
    return [m for m in done if m is not None], [finish(p, DD_PAIR_AGGREGATES) for p in pairs]


def _rates(frame: Frame, counts: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    g = counts.group_by(keys).agg(pl.col(c).sum() for c in _COUNTS)
    g = g.with_columns(
        *wilson(pl.col("made"), pl.col("n"), "success"),
        *wilson(pl.col("dd_made"), pl.col("n"), "dd"),
        *frame.run_columns(),
    )
    return g.select("run_id", "variant", *keys, *RATE_COLUMNS)


def _empty(keys: dict[str, pl.DataType]) -> pl.DataFrame:
    schema: dict[str, Any] = {"run_id": pl.String, "variant": pl.String, **keys}
    for c in RATE_COLUMNS:
        schema[c] = pl.Int64 if c in _COUNTS else pl.Float64
    return pl.DataFrame(schema=schema)


def dd_success(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Per suit and NT contract: success as played beside success under DD play (the same deals)."""
    keys = {"contract": pl.String, "crank": pl.Int16}
    out = [
        _rates(f, m["dd_rates"].filter(~pl.col("is_mis")), list(keys)).sort("crank")
        for f, m in zip(frames, merged, strict=True)
    ]
    return pl.concat([_empty(keys), *out], how="vertical_relaxed")


def dd_by_level(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Per bid level 6..10: how often the contract bid is DD-makeable (and was made as played)."""
    order = {v: i for i, v in enumerate(LEVEL_ORDER)}
    out = []
    for f, m in zip(frames, merged, strict=True):
        t = _rates(f, m["dd_rates"].filter(~pl.col("is_mis")), ["level"])
        t = t.with_columns(pl.col("level").replace_strict(order, return_dtype=pl.Int16).alias("order"))
        out.append(t.sort("order").drop("order"))
    return pl.concat([_empty({"level": pl.String}), *out], how="vertical_relaxed")


def dd_misere(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Per misère contract: made as played beside DD-viable (the declarer can avoid every trick)."""
    keys = {"contract": pl.String, "crank": pl.Int16}
    out = [
        _rates(f, m["dd_rates"].filter(pl.col("is_mis")), list(keys)).sort("crank")
        for f, m in zip(frames, merged, strict=True)
    ]
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


def dd_trick_gain(frames: Sequence[Frame], merged: Sequence[Partial]) -> pl.DataFrame:
    """Tricks each strategy gains (+) or loses (-) against DD play, as declarer and as defence.

    Suit and NT deals.  As declarer: the declaring side's tricks minus its DD tricks; as defence: the
    DD tricks minus the declaring side's tricks, credited to the defenders' strategies (sorted, joined
    with ``+``).  Each deal's difference is the net of both sides' departures from DD play.  The mean's
    interval is cluster-robust by game (docs/statistics.md), from the merged sums over the games.
    """
    rows: dict[str, list[Any]] = {k: [] for k in GAIN_SCHEMA}
    for f, m in zip(frames, merged, strict=True):
        for r in sorted(m["dd_gain"].iter_rows(named=True), key=lambda r: (r["role"], r["strategy"])):
            mean, lo, hi, se, games = cluster_sums(*(int(r[c]) for c in CLUSTER_SUMS))
            for k, v in (
                ("run_id", f.run.run_id),
                ("variant", f.run.variant),
                ("role", r["role"]),
                ("strategy", r["strategy"]),
                ("n", int(r["b"])),
                ("games", games),
                ("below_dd", int(r["below"])),
                ("above_dd", int(r["above"])),
                ("gain_mean", mean),
                ("gain_lo", lo),
                ("gain_hi", hi),
                ("gain_se", se),
            ):
                rows[k].append(None if isinstance(v, float) and v != v else v)  # nan -> null
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
    merged: Sequence[Partial],
) -> pl.DataFrame:
    """``dd_sample``: per run, its deals, the sample asked for (null: every deal), the deals sampled
    (up to the first run's ``sample``-th key) and the contracts among them solved (the ``n``
    every other ``dd_`` table is a part of); ``merged``: each run's :func:`dd_pass` aggregates."""
    out: dict[str, list[Any]] = {k: [] for k in SAMPLE_SCHEMA}
    for f, side, m in zip(frames, sidecars, merged, strict=True):
        for k, v in (
            ("run_id", f.run.run_id),
            ("variant", f.run.variant),
            ("deals", f.count("deals")),
            ("sample", sample),
            ("sampled", int(m["dd_counts"]["sampled"][0])),
            ("solved", side.height),
        ):
            out[k].append(v)
    return pl.DataFrame(out, schema=SAMPLE_SCHEMA)


def dd_tables(
    frames: Sequence[Frame],
    sidecars: Sequence[pl.DataFrame],
    rows: Sequence[pl.DataFrame] | None = None,
    sample: int | None = None,
) -> dict[str, pl.DataFrame]:
    """The ``dd_`` tables of the runs' frames and their DD sidecars (``deal_id`` and ``dd_tricks``
    at least), from one :func:`dd_pass` over the sampled deals: ``rows`` (:func:`dd_rows`) for a
    sample, every deal of the log in batches when None; ``sample`` is the ``--dd-sample`` the
    sidecars were solved for (``None``: every deal)."""
    merged, pairs = dd_pass(frames, sidecars, rows)
    out = {"dd_sample": dd_sample_table(frames, sidecars, sample, merged)}
    if len(frames) > 1:
        own = [int(m["dd_counts"]["sampled"][0]) for m in merged]
        out["dd_variant_effects"] = dd_variant_effects(frames, pairs, own)
    return out | {
        "dd_success": dd_success(frames, merged),
        "dd_by_level": dd_by_level(frames, merged),
        "dd_misere": dd_misere(frames, merged),
        "dd_trick_gain": dd_trick_gain(frames, merged),
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


def dd_variant_effects(
    frames: Sequence[Frame], pairs: Sequence[Partial | None], own: Sequence[int]
) -> pl.DataFrame:
    """``dd_variant_effects``: for runs 2.. on the first run's table, each :data:`DD_EFFECTS` metric's
    paired difference (run − base) over the sampled deals both runs played (the conditional rates:
    over the pairs where both played such a contract), with the columns and intervals of
    ``variant_effects`` and Holm's adjustment within each run; from the merged pairs of
    :func:`dd_pass` and each run's number of sampled deals ``own``."""
    from fivehundred.pipelines.analysis.multiplicity import with_adjusted
    from fivehundred.pipelines.analysis.variants import EFFECT_COLUMNS, _paired_rows

    base = frames[0]
    rows: list[dict[str, Any]] = []
    for other, pair, n_other in zip(frames[1:], pairs[1:], own[1:], strict=True):
        if unpairable(base, other) is not None or pair is None:
            continue
        key = (base.run.run_id, other.run.run_id, "dd")
        for m, _ in DD_EFFECTS:
            hist = pair["dd_pair"].filter(pl.col("metric") == m)
            if int(hist["_c"].sum()) == 0:
                continue
            for r in _paired_rows(hist, [m], "deal", "dd_effects", key, (own[0], n_other)):
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
