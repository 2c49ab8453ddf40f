"""Bid success tables: by contract, level, trump, seat, strategy, variant and hand features."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl

from fivehundred.pipelines.analysis.blocks import POINTS_COLUMNS, RATE_COLUMNS, rate_points, run_blocks
from fivehundred.pipelines.analysis.frame import (
    ALL_CODES,
    LEVEL_ORDER,
    MISERE_CODES,
    TRUMP_ORDER,
    Frame,
    contract_exprs,
)
from fivehundred.pipelines.analysis.intervals import wilson
from fivehundred.pipelines.analysis.multiplicity import versus_rest
from fivehundred.pipelines.schema import SCHEMA_VERSION
from fivehundred.sim.game import END_REASONS
from fivehundred.sim.notation import NT_TEXT, PASS_TEXT, SUITS

HIST_KEYS = (
    "contract",
    "level",
    "level_n",
    "trump",
    "is_mis",
    "seat_rel",
    "dstrategy",
    "made",
    "dpoints",
    "dtricks",
)
COUNT_COLUMNS = ("deals", "games", "thrown_in", "contracts", "finished", "decided_games", "first_dealer_wins")
FEATURE_KEYS = ("contract", "trump", "feature", "value", "order", "made", "dpoints")
TJ_KEYS = ("_rank", "contract", "trumps", "joker", "made", "dpoints")
#: The partial aggregates of this module (:mod:`~pipelines.analysis.batches`): keys, and how values merge.
AGGREGATES = {
    "counts": ((), {**{c: "sum" for c in COUNT_COLUMNS}, "tricks_max": "max"}),
    "hist": (HIST_KEYS, {"_w": "sum"}),
    "called": (("code",), {"called": "sum"}),
    "game_length": (("deals",), {"games": "sum"}),
    "feature": (FEATURE_KEYS, {"_w": "sum"}),
    "trumps_joker": (TJ_KEYS, {"_w": "sum"}),
}

#: The columns of a contract's row in ``contracts`` and ``misere`` after its keys: its value, how
#: often it was called and declared (Wilson intervals), its success and its points.
CALLED_COLUMNS = (
    "value",
    "deals",
    "called",
    "called_rate",
    "called_lo",
    "called_hi",
    "declared_rate",
    "declared_lo",
    "declared_hi",
    *RATE_COLUMNS,
    *POINTS_COLUMNS,
)


def partials(d: pl.DataFrame, teams: int) -> dict[str, pl.DataFrame]:
    """This module's partial aggregates of a batch of whole games (per-deal frame ``d``)."""
    first = d.filter(pl.col("hand_no") == 0).select("game_id", (pl.col("dealer") % teams).alias("fd"))
    ends = d.filter(pl.col("game_over") & pl.col("winner").is_not_null()).select("game_id", "winner")
    j = ends.join(first, on="game_id", how="inner")
    i64 = pl.Int64
    counts = d.select(
        pl.len().cast(i64).alias("deals"),
        pl.col("game_id").n_unique().cast(i64).alias("games"),
        pl.col("contract").is_null().sum().cast(i64).alias("thrown_in"),
        pl.col("contract").is_not_null().sum().cast(i64).alias("contracts"),
        pl.col("game_over").sum().cast(i64).alias("finished"),
        pl.lit(j.height, dtype=i64).alias("decided_games"),
        pl.lit(int((j["winner"] == j["fd"]).sum()), dtype=i64).alias("first_dealer_wins"),
        pl.col("tricks_played").max().alias("tricks_max"),
    )
    contracts_ = d.filter(pl.col("contract").is_not_null())
    hist = contracts_.group_by(HIST_KEYS).agg(pl.len().cast(i64).alias("_w"))
    called = (
        d.select(pl.col("calls").explode().alias("code"))
        .filter(pl.col("code") >= 0)
        .group_by("code")
        .agg(pl.len().cast(i64).alias("called"))
    )
    lengths = (
        d.filter(pl.col("game_over"))
        .select((pl.col("hand_no") + 1).cast(i64).alias("deals"))
        .group_by("deals")
        .agg(pl.len().cast(i64).alias("games"))
    )
    return {
        "counts": counts,
        "hist": hist,
        "called": called,
        "game_length": lengths,
        "feature": _feature_long(contracts_),
        "trumps_joker": _trumps_joker_hist(contracts_),
    }


def overview(frames: Sequence[Frame]) -> pl.DataFrame:
    """One row per run: deals, games, thrown-in deals, contracts, deals per game."""
    rows = []
    for f in frames:
        rows.append(
            f.stats["counts"].select(
                *f.run_columns(),
                pl.lit(f.run.master_seed, dtype=pl.Int64).alias("master_seed"),
                "deals",
                "games",
                "thrown_in",
                "contracts",
                "decided_games",
                "first_dealer_wins",
            )
        )
    out = pl.concat(rows)
    return out.with_columns(
        *wilson(pl.col("thrown_in"), pl.col("deals"), "thrown_in"),
        (pl.col("deals") / pl.col("games")).alias("deals_per_game"),
        pl.lit(SCHEMA_VERSION, dtype=pl.Int16).alias("schema_version"),
    ).with_columns(*wilson(pl.col("first_dealer_wins"), pl.col("decided_games"), "first_dealer_win")).select(
        "run_id", "variant", "master_seed", "deals", "games", "thrown_in", "contracts",
        "thrown_in_rate", "thrown_in_lo", "thrown_in_hi", "deals_per_game", "schema_version",
        "decided_games", "first_dealer_wins", "first_dealer_win_rate", "first_dealer_win_lo",
        "first_dealer_win_hi",
    )  # fmt: skip


GAME_ENDS_COLUMNS = (
    "run_id", "variant", "end_reason", "games", "total", "rate", "rate_lo", "rate_hi",
    "comebacks", "comeback_rate", "comeback_lo", "comeback_hi",
)  # fmt: skip


def game_length(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and game length (deals, thrown-in deals included): how many games lasted that long."""
    out = []
    for f in frames:
        t = f.stats["game_length"].sort("deals")
        out.append(
            t.with_columns(*f.run_columns(), pl.lit(f.count("finished"), dtype=pl.Int64).alias("total"))
            .with_columns(*wilson(pl.col("games"), pl.col("total"), "share", rate_name="share"))
            .select("run_id", "variant", "deals", "games", "total", "share", "share_lo", "share_hi")
        )
    return pl.concat(out)


def game_ends(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per run and end reason: how many games ended that way, with a Wilson interval of the share."""
    out = []
    for f in frames:
        counts = f.stats["ends"]
        reasons = [*END_REASONS, *sorted(set(counts["end_reason"]) - set(END_REASONS))]
        t = (
            pl.DataFrame(
                {"end_reason": reasons, "order": list(range(len(reasons)))},
                schema={"end_reason": pl.String, "order": pl.Int16},
            )
            .join(counts, on="end_reason", how="left")
            .with_columns(
                pl.col("games").fill_null(0),
                pl.col("comebacks").fill_null(0),
                pl.lit(f.count("finished"), dtype=pl.Int64).alias("total"),
            )
            .with_columns(*wilson(pl.col("games"), pl.col("total"), "rate", rate_name="rate"))
            .with_columns(*wilson(pl.col("comebacks"), pl.col("games"), "comeback"))
        )
        out.append(t.with_columns(*f.run_columns()).sort("order").select(GAME_ENDS_COLUMNS))
    return pl.concat(out)


def _ladder_frame(frame: Frame) -> pl.DataFrame:
    codes = [c for c, _ in frame.ladder.bids]
    ladder = pl.DataFrame(
        {
            "contract": codes,
            "rank": list(range(len(codes))),
            "value": [p for _, p in frame.ladder.bids],
        },
        schema={"contract": pl.String, "rank": pl.Int16, "value": pl.Int32},
    )
    c = contract_exprs(pl.col("contract"))
    return ladder.with_columns(c["level"].alias("level"), c["trump"].alias("trump")).select(
        "contract", "rank", "level", "trump", "value"
    )


def called_counts(frame: Frame) -> pl.DataFrame:
    """Per bid code: in how many deals someone called it (a code is called at most once per deal)."""
    codes = pl.DataFrame(
        {"code": list(range(len(ALL_CODES))), "contract": list(ALL_CODES)},
        schema={"code": pl.Int16, "contract": pl.String},
    )
    counts = frame.stats["called"]
    return codes.join(counts, on="code", how="left").select("contract", pl.col("called").fill_null(0))


def contracts(frames: Sequence[Frame]) -> pl.DataFrame:
    """Every contract of each run's ladder: called, declared, made, points, overtricks, slams."""
    out = []
    for f in frames:
        d = f.hist.with_columns(
            pl.when(pl.col("made") & ~pl.col("is_mis"))
            .then(pl.col("dtricks") - pl.col("level_n"))
            .otherwise(None)
            .alias("over"),
            (~pl.col("is_mis") & (pl.col("dtricks") == f.count("tricks_max"))).alias("slam"),
        )
        stats = rate_points(d, ["contract"], "contracts", weight="_w")
        w = pl.col("_w")
        extra = d.group_by("contract").agg(
            ((pl.col("dtricks") * w).sum() / w.sum()).cast(pl.Float64).alias("tricks_mean"),
            ((pl.col("over") * w).sum() / w.filter(pl.col("over").is_not_null()).sum())
            .cast(pl.Float64)
            .alias("overtricks_mean"),
            w.filter(pl.col("over") >= 1).sum().cast(pl.Int64).alias("overtrick_n"),
            w.filter(pl.col("slam")).sum().cast(pl.Int64).alias("slam_n"),
        )
        deals = f.count("deals")
        t = (
            _ladder_frame(f)
            .join(called_counts(f), on="contract", how="left")
            .join(stats, on="contract", how="left")
            .join(extra, on="contract", how="left")
            .with_columns(
                *f.run_columns(),
                pl.lit(deals, dtype=pl.Int64).alias("deals"),
                pl.col("called").fill_null(0),
                pl.col("n").fill_null(0),
                pl.col("made").fill_null(0),
                pl.col("overtrick_n").fill_null(0),
                pl.col("slam_n").fill_null(0),
            )
            .with_columns(
                *wilson(pl.col("called"), pl.col("deals"), "called"),
                *wilson(pl.col("n"), pl.col("deals"), "declared"),
                *wilson(pl.col("overtrick_n"), pl.col("made"), "overtrick"),
                *wilson(pl.col("slam_n"), pl.col("n"), "slam"),
            )
            .with_columns(
                pl.when(pl.col("level").is_in(list(MISERE_CODES))).then(None).otherwise(pl.col(c)).alias(c)
                for c in ("overtrick_n", "overtrick_rate", "overtrick_lo", "overtrick_hi", "overtricks_mean")
            )
        )
        out.append(
            t.select(
                "run_id",
                "variant",
                "contract",
                "rank",
                "level",
                "trump",
                *CALLED_COLUMNS,
                "tricks_mean",
                "overtricks_mean",
                "overtrick_n",
                "overtrick_rate",
                "overtrick_lo",
                "overtrick_hi",
                "slam_n",
                "slam_rate",
                "slam_lo",
                "slam_hi",
            ).sort("rank")
        )
    return pl.concat(out)


def _by(frames: Sequence[Frame], key: str, table: str, order: Sequence[str] | None = None) -> pl.DataFrame:
    out = []
    for f in frames:
        d = f.hist.with_columns(*f.run_columns())
        t = rate_points(d, ["run_id", "variant", key], table, weight="_w")
        if order is not None:
            t = (
                t.with_columns(
                    pl.col(key)
                    .replace_strict({v: i for i, v in enumerate(order)}, default=99, return_dtype=pl.Int16)
                    .alias("order")
                )
                .sort("order")
                .select("run_id", "variant", key, "order", *RATE_COLUMNS, *POINTS_COLUMNS)
            )
        out.append(t)
    return pl.concat(out)


def success_by_level(frames: Sequence[Frame]) -> pl.DataFrame:
    """Success and expected points by bid level (6..10, MIS, OMIS, BMIS)."""
    return _by(frames, "level", "success_by_level", LEVEL_ORDER)


def success_by_trump(frames: Sequence[Frame]) -> pl.DataFrame:
    """Success and expected points by trump (S C D H NT, misères apart)."""
    return _by(frames, "trump", "success_by_trump", TRUMP_ORDER)


def success_by_seat(frames: Sequence[Frame]) -> pl.DataFrame:
    """Success by the declarer's seat relative to the dealer (1 = first bidder, 0 = dealer)."""
    return _by(frames, "seat_rel", "success_by_seat")


def success_by_strategy(frames: Sequence[Frame]) -> pl.DataFrame:
    """Success by the declarer's strategy id."""
    return _by(frames, "dstrategy", "success_by_strategy").rename({"dstrategy": "strategy"})


def success_by_variant(frames: Sequence[Frame]) -> pl.DataFrame:
    """Success by rule variant, pooling the runs of each variant."""
    d = pl.concat(
        [f.hist.select(pl.lit(f.run.variant).alias("variant"), "made", "dpoints", "_w") for f in frames]
    )
    runs = (
        pl.DataFrame({"variant": [f.run.variant for f in frames]})
        .group_by("variant")
        .agg(pl.len().cast(pl.Int64).alias("runs"))
    )
    t = rate_points(d, ["variant"], "success_by_variant", weight="_w")
    return (
        t.join(runs, on="variant", how="left", maintain_order="left")
        .sort("variant")
        .select("variant", "runs", *RATE_COLUMNS, *POINTS_COLUMNS)
    )


NUMERIC_FEATURES = ("trumps", "bowers", "joker", "aces", "voids", "longest", "kitty_trumps", "trumps_final")
CALL_ORDER = {"-": -2, PASS_TEXT: -1, **{c: i for i, c in enumerate(ALL_CODES)}}


CODE_OF_RANK = dict(enumerate(ALL_CODES))


def _feature_hist(d: pl.LazyFrame, name: str, value: pl.Expr, order: pl.Expr) -> pl.LazyFrame:
    """Counts per (contract, value, made, points) of one feature, as (feature, value, order) rows.
    Grouped on the contract's integer code ``crank`` (faster than strings), named afterwards."""
    col = f"f_{name}"
    h = (
        d.filter(pl.col(col).is_not_null())
        .group_by("crank", col, "made", "dpoints")
        .agg(pl.len().cast(pl.Int64).alias("_w"))
    )
    contract = pl.col("crank").replace_strict(CODE_OF_RANK, return_dtype=pl.String)
    return h.select(
        contract.alias("contract"),
        contract_exprs(contract)["trump"].alias("trump"),
        pl.lit(name).alias("feature"),
        value.alias("value"),
        order.alias("order"),
        "made",
        "dpoints",
        "_w",
    )


def _feature_long(contracts_: pl.DataFrame) -> pl.DataFrame:
    """Suit and NT contracts counted per (contract, feature, value, made, points): ``_w``."""
    d = (
        contracts_.lazy()
        .filter(~pl.col("is_mis"))
        .with_columns(pl.col("partner_call").alias("f_partner_bid"))
    )
    parts = [
        _feature_hist(d, n, pl.col(f"f_{n}").cast(pl.String), pl.col(f"f_{n}").cast(pl.Int16))
        for n in NUMERIC_FEATURES
    ]
    order = pl.col("f_partner_bid").replace_strict(CALL_ORDER, default=99, return_dtype=pl.Int16)
    parts.append(_feature_hist(d, "partner_bid", pl.col("f_partner_bid"), order))
    return pl.concat(parts).collect()  # one query: the histograms are counted in parallel


def _grouped(f: Frame) -> Frame:
    """The frame with its feature counts per contract and pooled over suit and NT contracts (``group``)."""
    long = f.stats["feature"]
    every = pl.concat(
        [
            long.with_columns(pl.col("contract").alias("group")),
            long.filter(pl.col("trump").is_in(list(SUITS))).with_columns(pl.lit("all-suit").alias("group")),
            long.filter(pl.col("trump") == NT_TEXT).with_columns(pl.lit("all-NT").alias("group")),
        ]
    )
    return replace(f, stats={**f.stats, "feature": every})


def success_by_feature(frames: Sequence[Frame]) -> pl.DataFrame:
    """Success and points by each hand feature, per contract and pooled over suit or NT contracts."""
    keys = ["group", "feature", "order", "value"]
    out = [
        t.select("run_id", "variant", *keys[:2], "value", "order", *RATE_COLUMNS, *POINTS_COLUMNS)
        for t in run_blocks([_grouped(f) for f in frames], "feature", keys, "success_by_feature")
    ]
    return versus_rest(_sort_groups(pl.concat(out)), ["run_id", "group", "feature"])


def _sort_groups(t: pl.DataFrame) -> pl.DataFrame:
    grank = {c: i for i, c in enumerate(ALL_CODES)} | {"all-suit": 100, "all-NT": 101}
    return (
        t.with_columns(pl.col("group").replace_strict(grank, default=200, return_dtype=pl.Int16).alias("_g"))
        .sort("run_id", "_g", "feature", "order", maintain_order=True)
        .drop("_g")
    )


def _trumps_joker_hist(contracts_: pl.DataFrame) -> pl.DataFrame:
    """Suit contracts counted per (contract, trumps as dealt, joker, made, points): ``_w``."""
    return (
        contracts_.filter(pl.col("tidx").is_not_null())
        .select(
            pl.col("crank").alias("_rank"),
            "contract",
            pl.col("f_trumps").cast(pl.Int8).alias("trumps"),
            pl.col("f_joker").cast(pl.Int8).alias("joker"),
            "made",
            "dpoints",
        )
        .group_by(TJ_KEYS)
        .agg(pl.len().cast(pl.Int64).alias("_w"))
    )


def success_by_trumps_joker(frames: Sequence[Frame]) -> pl.DataFrame:
    """Suit contracts by (trumps held as dealt, joker held): the headline cross-tab."""
    keys = ["_rank", "contract", "trumps", "joker"]
    out = [
        t.sort("_rank", "trumps", "joker").select(
            "run_id", "variant", *keys[1:], *RATE_COLUMNS, *POINTS_COLUMNS
        )
        for t in run_blocks(frames, "trumps_joker", keys, "success_by_trumps_joker")
    ]
    return pl.concat(out)
