"""Misère viability: how often MIS/OMIS are called, played and made, and by which hand features."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from fivehundred.pipelines.analysis import features as F
from fivehundred.pipelines.analysis.bids import CALLED_COLUMNS, called_counts
from fivehundred.pipelines.analysis.blocks import POINTS_COLUMNS, RATE_COLUMNS, rate_points, run_blocks
from fivehundred.pipelines.analysis.frame import MISERE_CODES, Frame
from fivehundred.pipelines.analysis.intervals import wilson
from fivehundred.pipelines.analysis.multiplicity import versus_rest
from fivehundred.sim.notation import JOKER, RANKS, SUITS

U64 = pl.UInt64
JOKER_PLACES = ("named", "unnamed", "partner", "defender", "discarded")


def misere(frames: Sequence[Frame]) -> pl.DataFrame:
    """Per misère contract on each run's ladder: called, declared, made, expected points."""
    out = []
    for f in frames:
        ladder = pl.DataFrame(
            {
                "contract": [c for c, _ in f.ladder.bids if c in MISERE_CODES],
                "value": [p for c, p in f.ladder.bids if c in MISERE_CODES],
            },
            schema={"contract": pl.String, "value": pl.Int32},
        )
        d = f.hist.filter(pl.col("is_mis")).select("contract", "made", "dpoints", "_w")
        stats = rate_points(d, ["contract"], "misere", weight="_w")
        t = (
            ladder.join(called_counts(f), on="contract", how="left")
            .join(stats, on="contract", how="left")
            .with_columns(
                *f.run_columns(),
                pl.lit(f.count("deals"), dtype=pl.Int64).alias("deals"),
                pl.col("called").fill_null(0),
                pl.col("n").fill_null(0),
                pl.col("made").fill_null(0),
            )
            .with_columns(
                *wilson(pl.col("called"), pl.col("deals"), "called"),
                *wilson(pl.col("n"), pl.col("deals"), "declared"),
                *wilson(pl.col("made"), pl.col("n"), "success"),
            )
        )
        out.append(
            t.select(
                "run_id",
                "variant",
                "contract",
                *CALLED_COLUMNS,
            )
        )
    return pl.concat(out)


def misere_features(hand: pl.Expr, joker_place: pl.Expr, joker_suit: pl.Expr) -> list[pl.Expr]:
    """Misère features of a 10-card hand mask: ``f_high_<suit>``, ``f_voids``, ``f_low_cards``,
    ``f_joker`` (its place, given by ``joker_place``).  A joker named to a suit is that suit's
    highest card (``JK``)."""
    has_joker = (hand & pl.lit(F.JOKERS, dtype=U64)) != 0
    out = []
    for s, letter in enumerate(SUITS):
        named_here = has_joker & joker_suit.fill_null("").str.contains(letter, literal=True)
        out.append(
            pl.when(named_here)
            .then(pl.lit(JOKER))
            .otherwise(F.highest_in_suit(hand, s))
            .alias(f"f_high_{letter}")
        )
    out += [
        F.voids(hand).alias("f_voids"),
        F.popcount(hand & pl.lit(F.LOW, dtype=U64)).alias("f_low_cards"),
        joker_place.alias("f_joker"),
    ]
    return out


def high_order(col: pl.Expr) -> pl.Expr:
    """Sort key of a ``high_*`` value (void lowest, the named joker highest)."""
    keys = ["void", *RANKS, JOKER]
    return col.replace_strict({k: F.rank_order(k) for k in keys}, return_dtype=pl.Int16)


def misere_long(d: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Count the ``f_*`` misère features as (feature, value, order) rows per (keys, made, dpoints),
    with the count in ``_w`` (one small histogram per feature, then stacked)."""
    base = [*keys, "made", "dpoints"]

    def hist(col: str, name: str, value: pl.Expr, order: pl.Expr) -> pl.DataFrame:
        h = d.group_by(*base, col).agg(pl.len().cast(pl.Int64).alias("_w"))
        return h.select(
            *base, pl.lit(name).alias("feature"), value.alias("value"), order.alias("order"), "_w"
        )

    parts = [
        hist(f"f_high_{s}", f"high_{s}", pl.col(f"f_high_{s}"), high_order(pl.col(f"f_high_{s}")))
        for s in SUITS
    ]
    for name in ("voids", "low_cards"):
        col = pl.col(f"f_{name}")
        parts.append(hist(f"f_{name}", name, col.cast(pl.String), col.cast(pl.Int16)))
    places = {p: i for i, p in enumerate(JOKER_PLACES)}
    joker = pl.col("f_joker")
    parts.append(
        hist("f_joker", "joker", joker, joker.replace_strict(places, default=9, return_dtype=pl.Int16))
    )
    return pl.concat(parts)


MIS_FEATURE_KEYS = ("contract", "made", "dpoints", "feature", "value", "order")
#: The partial aggregates of this module (:mod:`~pipelines.analysis.batches`): keys, and how values merge.
AGGREGATES = {"misere_feature": (MIS_FEATURE_KEYS, {"_w": "sum"})}


def partials(d: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Misère contracts of a batch counted per (contract, made, points, feature, value): ``_w``."""
    m = d.filter(pl.col("is_mis").fill_null(False)).select(
        "contract", "made", "dpoints", "dmask", "kmask", "xmask", "joker_suit", "partner_joker"
    )
    joker = pl.lit(F.JOKERS, dtype=U64)
    final = (pl.col("dmask") | pl.col("kmask")) & ~pl.col("xmask")
    in_final = (final & joker) != 0
    place = (
        pl.when(in_final & pl.col("joker_suit").is_not_null())
        .then(pl.lit("named"))
        .when(in_final)
        .then(pl.lit("unnamed"))
        .when(((pl.col("dmask") | pl.col("kmask")) & joker) != 0)
        .then(pl.lit("discarded"))
        .when(pl.col("partner_joker"))
        .then(pl.lit("partner"))
        .otherwise(pl.lit("defender"))
    )
    m = m.with_columns(misere_features(final, place, pl.col("joker_suit")))
    return {"misere_feature": misere_long(m, ["contract"]).select(*MIS_FEATURE_KEYS, "_w")}


def misere_by_feature(frames: Sequence[Frame]) -> pl.DataFrame:
    """Misère success and points by the features of the declarer's final hand."""
    keys = ["contract", "feature", "order", "value"]
    out = [
        t.select("run_id", "variant", *keys[:2], "value", "order", *RATE_COLUMNS, *POINTS_COLUMNS)
        for t in run_blocks(frames, "misere_feature", keys, "misere_by_feature")
    ]
    table = pl.concat(out).sort("run_id", "variant", "contract", "feature", "order", maintain_order=True)
    return versus_rest(table, ["run_id", "contract", "feature"])
