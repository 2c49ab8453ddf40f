"""Paired comparison of runs with the same deals (same master seed, same deck).

Each compared run is joined to the base run on (``game_id``, ``hand_no``) — the same cards and
dealer hand by hand — and per-deal (or per-game) metrics are differenced pair by pair.  The paired
interval is a seeded bootstrap of the mean difference; ``se_unpaired`` is what the same two samples
would give if they were independent, so ``variance_reduction`` shows what pairing bought.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import polars as pl

from fivehundred.pipelines.analysis import unpaired
from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.intervals import bootstrap_mean, newcombe_diff, seed_of, wilson_interval
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.analysis.multiplicity import p_from_se, two_proportion_p, with_adjusted
from fivehundred.pipelines.analysis.tidy import lineup_text
from fivehundred.pipelines.analysis.unpaired import compare_unpaired
from fivehundred.sim.game import END_REASONS
from fivehundred.sim.notation import LEVELS as TRICK_LEVELS
from fivehundred.sim.notation import MISERE, NT_TEXT, OPEN_MISERE, SUITS

LEVELS = tuple(str(n) for n in TRICK_LEVELS)
TRUMPS = (*SUITS, NT_TEXT)
#: The columns that say which two runs (and bots) a comparison row is about.
TAG_COLUMNS = ("base_run", "run_id", "base_variant", "variant", "base_lineup", "lineup")
EFFECT_COLUMNS = (
    *TAG_COLUMNS,
    "metric", "unit", "method",
    "base_n", "run_n", "paired_n", "paired_base_mean", "paired_mean",
    "diff_mean", "diff_lo", "diff_hi", "se_paired", "se_unpaired", "variance_reduction",
    "p_value", "p_holm", "holm_significant",
)  # fmt: skip
#: ``success_comparison``: success rates of the two runs side by side (unpaired, see the note).
SUCCESS_COLUMNS = (
    *TAG_COLUMNS,
    "kind", "metric", "unit", "method", "note",
    "base_n", "base_k", "base_rate", "base_lo", "base_hi", "n", "k", "rate", "lo", "hi",
    "diff_mean", "diff_lo", "diff_hi", "p_value", "p_holm", "holm_significant",
)  # fmt: skip
SUCCESS_NOTE = (
    "unpaired and confounded: each run's rate is over the hands its bots chose to bid, and the two runs "
    "bid different hands, so the difference mixes the rule (or strategy) effect with the selection of hands"
)


def _named_teams(teams: int) -> range:
    """Teams that get their own ``declarer_team<t>``/``team<t>_won`` metric: team 0 when there are two
    teams (team 1 is the complement), every team otherwise."""
    return range(teams) if teams > 2 else range(1)


def deal_metrics(d: pl.DataFrame, teams: int) -> pl.DataFrame:
    """Per-deal metrics of a per-deal frame, keyed by (game_id, hand_no); per-team metrics for every
    team (``abs_margin`` is the spread between the best and the worst team's points on the deal)."""
    c = pl.col("contract")
    fb_team = pl.col("first_bidder").cast(pl.Int16) % teams
    d_team = pl.col("dealer").cast(pl.Int16) % teams

    def team_pts(team: pl.Expr) -> pl.Expr:
        return pl.coalesce([pl.when(team == t).then(pl.col(f"points_t{t}")) for t in range(teams)])

    pts = [pl.col(f"points_t{t}") for t in range(teams)]
    cols: list[pl.Expr] = [
        pl.col("game_id"),
        pl.col("hand_no"),
        pl.col("seed"),
        pl.col("dealer"),
        *[p.alias(f"points_team{t}") for t, p in enumerate(pts)],
        pl.sum_horizontal(pts).alias("points_total"),
        (pl.max_horizontal(pts) - pl.min_horizontal(pts)).alias("abs_margin"),
        c.is_null().alias("thrown_in"),
        pl.col("made").fill_null(False).alias("made"),
        *[(pl.col("dteam") == t).fill_null(False).alias(f"declarer_team{t}") for t in _named_teams(teams)],
        *[(pl.col("level") == lv).fill_null(False).alias(f"share_{lv}") for lv in LEVELS],
        *[(pl.col("trump") == t).fill_null(False).alias(f"share_{t}") for t in TRUMPS],
        pl.col("is_mis").fill_null(False).alias("misere"),
        (c == OPEN_MISERE).fill_null(False).alias("open_misere"),
        (team_pts(fb_team) - team_pts(d_team)).alias("first_bidder_margin"),
    ]
    return d.select(cols)


def game_metrics(d: pl.DataFrame, teams: int) -> pl.DataFrame:
    """Per-game metrics of a per-deal frame (games that finished), keyed by game_id."""
    lf = d.lazy()
    first = lf.filter(pl.col("hand_no") == 0).select("game_id", (pl.col("dealer") % teams).alias("fd_team"))
    last = lf.filter(pl.col("game_over")).select(
        "game_id",
        (pl.col("hand_no") + 1).cast(pl.Int64).alias("deals_per_game"),
        *[(pl.col("end_reason") == r).fill_null(False).alias(f"end_{r}") for r in END_REASONS],
        *[(pl.col("winner") == t).fill_null(False).alias(f"team{t}_won") for t in _named_teams(teams)],
        pl.col("winner"),
    )
    return (
        last.join(first, on="game_id", how="inner")
        .select(
            pl.exclude("winner", "fd_team"),
            (pl.col("winner") == pl.col("fd_team")).fill_null(False).alias("first_dealer_team_won"),
        )
        .collect()
    )


#: Per-run partial aggregate of this module (:mod:`~pipelines.analysis.batches`): the finished games
#: the per-game metrics cover (a game's first and last deal logged).
AGGREGATES = {"metric_games": ((), {"games": "sum"})}
_PAIR_HIST = (("metric", "a", "b"), {"_c": "sum"})
#: The pairing of a run with the base, per batch: pairs, deals dealt differently (the first of
#: them), and per metric the joint histogram of (base value ``a``, run value ``b``) over the pairs.
PAIR_AGGREGATES = {
    "pair_counts": ((), {"paired_deals": "sum", "paired_games": "sum", "bad": "sum"}),
    "pair_bad": (("game_id", "hand_no"), {"_n": "sum"}),
    "pair_deal": _PAIR_HIST,
    "pair_game": _PAIR_HIST,
}
_NOT_METRICS = ("game_id", "hand_no", "seed", "dealer")


def partials(d: pl.DataFrame, teams: int) -> dict[str, pl.DataFrame]:
    """This module's per-run partial aggregate of a batch (:data:`AGGREGATES`)."""
    return {
        "metric_games": pl.DataFrame({"games": [game_metrics(d, teams).height]}, schema={"games": pl.Int64})
    }


def _joint(joined: pl.DataFrame, metrics: Sequence[str]) -> pl.DataFrame:
    """Per metric: the pairs counted per (base value, run value)."""
    if not metrics:
        return empty_pairing()["pair_deal"]
    parts = [
        joined.lazy()
        .group_by(pl.col(m).cast(pl.Int64).alias("a"), pl.col(f"{m}_o").cast(pl.Int64).alias("b"))
        .agg(pl.len().cast(pl.Int64).alias("_c"))
        .select(pl.lit(m).alias("metric"), "a", "b", "_c")
        for m in metrics
    ]
    return pl.concat(parts).collect()


def pair_partials(
    base: tuple[pl.DataFrame, pl.DataFrame], other: tuple[pl.DataFrame, pl.DataFrame]
) -> dict[str, pl.DataFrame]:
    """The pairing sums of a batch (:data:`PAIR_AGGREGATES`): the base's and the run's per-deal and
    per-game metrics (:func:`deal_metrics`, :func:`game_metrics`) of the same game ids, joined."""
    (bd, bg), (od, og) = base, other
    joined = bd.join(od, on=["game_id", "hand_no"], how="inner", suffix="_o")
    bad = joined.filter((pl.col("seed") != pl.col("seed_o")) | (pl.col("dealer") != pl.col("dealer_o")))
    gj = bg.join(og, on="game_id", how="inner", suffix="_o")
    i64 = pl.Int64
    return {
        "pair_counts": pl.DataFrame(
            {"paired_deals": [joined.height], "paired_games": [gj.height], "bad": [bad.height]},
            schema={"paired_deals": i64, "paired_games": i64, "bad": i64},
        ),
        "pair_bad": bad.select("game_id", "hand_no", pl.lit(1, dtype=i64).alias("_n"))
        .sort("game_id", "hand_no")
        .head(1),
        "pair_deal": _joint(joined, [c for c in bd.columns if c not in _NOT_METRICS]),
        "pair_game": _joint(gj, [c for c in bg.columns if c != "game_id"]),
    }


def empty_pairing() -> dict[str, pl.DataFrame]:
    """The pairing sums of no pairs."""
    i64 = pl.Int64
    hist = pl.DataFrame(schema={"metric": pl.String, "a": i64, "b": i64, "_c": i64})
    return {
        "pair_counts": pl.DataFrame(
            {"paired_deals": [0], "paired_games": [0], "bad": [0]},
            schema={"paired_deals": i64, "paired_games": i64, "bad": i64},
        ),
        "pair_bad": pl.DataFrame(schema={"game_id": i64, "hand_no": i64, "_n": i64}),
        "pair_deal": hist,
        "pair_game": hist,
    }


def _hist_mean_var(values: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """Mean and sample variance of a sample of integers given as distinct ``values`` with ``counts``,
    exactly as ``math.fsum`` over the whole sample gives them (each term rounded, the sum exact)."""
    n = int(counts.sum())
    if n == 0:
        return math.nan, math.nan
    mean = float(sum(int(v) * int(c) for v, c in zip(values, counts, strict=True))) / n
    if n == 1:
        return mean, math.nan
    terms = ((values.astype(np.float64) - mean) ** 2).tolist()
    exact = sum((Fraction(t) * int(c) for t, c in zip(terms, counts.tolist(), strict=True)), Fraction(0))
    return mean, float(exact) / (n - 1)


def _paired_rows(
    hist: pl.DataFrame, metrics: Sequence[str], unit: str, table: str, key: tuple, own: tuple[int, int]
) -> list[dict]:
    """One row per metric: the paired mean difference (run − base) over the pairs counted in ``hist``
    (metric, base value ``a``, run value ``b``, pairs ``_c``), with each run's own number of deals or
    games (``own``) beside the paired count."""
    rows = []
    by_metric = hist.partition_by("metric", as_dict=True)
    empty = hist.clear()
    for m in metrics:
        h = by_metric.get((m,), empty)
        n = int(h["_c"].sum())
        diffs = (
            h.group_by((pl.col("b").cast(pl.Float64) - pl.col("a").cast(pl.Float64)).alias("d"))
            .agg(pl.col("_c").sum())
            .sort("d")
        )
        mean, lo, hi, sd = bootstrap_mean(
            diffs["d"].to_numpy(), diffs["_c"].to_numpy().astype(np.int64), seed_of(table, *key, m)
        )
        side = {}
        for col in ("a", "b"):
            v = h.group_by(col).agg(pl.col("_c").sum()).sort(col)
            side[col] = _hist_mean_var(v[col].to_numpy(), v["_c"].to_numpy())
        (ma, va), (mb, vb) = side["a"], side["b"]
        se_p = sd / math.sqrt(n) if n > 1 else math.nan
        se_u = math.sqrt((va + vb) / n) if n > 1 else math.nan
        red = round(1 - se_p**2 / se_u**2, 12) if n > 1 and se_u > 0 else math.nan
        rows.append(
            {
                "metric": m,
                "unit": unit,
                "method": "paired",
                "base_n": own[0],
                "run_n": own[1],
                "paired_n": n,
                "paired_base_mean": ma,
                "paired_mean": mb,
                "diff_mean": mean,
                "diff_lo": lo,
                "diff_hi": hi,
                "se_paired": se_p,
                "se_unpaired": se_u,
                "variance_reduction": red,
                "p_value": p_from_se(mean, se_p, n - 1) if n > 1 else None,
            }
        )
    return rows


def _success_rows(base: Frame, other: Frame) -> list[dict]:
    """``success_comparison`` rows: each run's success rate over its own contracts (Wilson), the
    difference (Newcombe) and a two-proportion test; see :data:`SUCCESS_NOTE`."""
    rows = []
    groups: list[tuple[str, pl.Expr]] = [("success_rate", pl.lit(True))]
    groups += [(f"success_{lv}", pl.col("level") == lv) for lv in (*LEVELS, MISERE, OPEN_MISERE)]
    for name, cond in groups:
        w = pl.col("_w")
        kn = (w.filter(pl.col("made")).sum().alias("k"), w.sum().alias("n"))
        ka, na = base.hist.filter(cond).select(kn).row(0)
        kb, nb = other.hist.filter(cond).select(kn).row(0)
        ka, kb, na, nb = int(ka or 0), int(kb or 0), int(na), int(nb)
        d, lo, hi = newcombe_diff(ka, na, kb, nb)
        blo, bhi = wilson_interval(ka, na)
        olo, ohi = wilson_interval(kb, nb)
        rows.append(
            {
                "metric": name,
                "unit": "contract",
                "method": "unpaired",
                "note": SUCCESS_NOTE,
                "base_n": na,
                "base_k": ka,
                "base_rate": ka / na if na else math.nan,
                "base_lo": blo,
                "base_hi": bhi,
                "n": nb,
                "k": kb,
                "rate": kb / nb if nb else math.nan,
                "lo": olo,
                "hi": ohi,
                "diff_mean": d,
                "diff_lo": lo,
                "diff_hi": hi,
                "p_value": two_proportion_p(ka, na, kb, nb),
            }
        )
    return rows


def unpairable(base: Frame, other: Frame) -> str | None:
    """Why two runs cannot be paired deal by deal (another number of players or teams, another deck),
    or None when they are on the same table."""
    if other.players != base.players:
        return f"{base.players} vs {other.players} players"
    if other.teams != base.teams:
        return f"{base.teams} vs {other.teams} teams"
    da, db = unpaired.deck_of(base), unpaired.deck_of(other)
    if da != db:
        return f"different decks ({len(da)} vs {len(db)} cards)"
    return None


def metric_names(teams: int) -> tuple[list[str], list[str]]:
    """The per-deal and per-game metrics of a comparison of runs with ``teams`` teams, in order."""
    empty = pl.DataFrame(
        schema=_METRIC_INPUT | {f"{k}_t{t}": pl.Int64 for t in range(teams) for k in ("points", "after")}
    )
    deal = [c for c in deal_metrics(empty, teams).columns if c not in _NOT_METRICS]
    game = [c for c in game_metrics(empty, teams).columns if c != "game_id"]
    return deal, game


_METRIC_INPUT = {
    "game_id": pl.Int64, "hand_no": pl.Int64, "seed": pl.UInt64, "dealer": pl.Int64, "contract": pl.String,
    "made": pl.Boolean, "dteam": pl.Int8, "level": pl.String, "trump": pl.String, "is_mis": pl.Boolean,
    "first_bidder": pl.Int64, "game_over": pl.Boolean, "end_reason": pl.String, "winner": pl.Int64,
}  # fmt: skip


def compare(frames: Sequence[Frame]) -> dict[str, pl.DataFrame]:
    """``pairing``, ``variant_effects`` and ``strategy_duplicate`` for runs 2.. against run 1 on the
    same table (paired deal by deal), ``success_comparison`` (their success rates, unpaired);
    ``table_comparison`` (unpaired) for runs on other tables."""
    base = frames[0]
    b_deals, b_games = base.count("deals"), int(base.stats["metric_games"]["games"][0])
    pairing, effects = [], {"variant": [], "duplicate": []}
    success: list[dict] = []
    deal_cols, game_cols = metric_names(base.teams)
    unpaired_rows: list[dict] = []
    for other in frames[1:]:
        where = f"runs {base.run.path} and {other.run.path}"
        reason = unpairable(base, other)
        if reason is not None:
            unpaired_rows += compare_unpaired(base, other, reason)
            pairing.append(
                {
                    "base_run": base.run.run_id,
                    "run_id": other.run.run_id,
                    "base_variant": base.run.variant,
                    "variant": other.run.variant,
                    "kind": "unpaired",
                    "base_deals": b_deals,
                    "deals": other.count("deals"),
                    "paired_deals": 0,
                    "base_games": b_games,
                    "games": other.count("finished"),
                    "paired_games": 0,
                }
            )
            continue
        p = other.paired
        assert p is not None, "frames read together (batches.deal_frames or with_pairing)"
        o_deals, o_games = other.count("deals"), int(other.stats["metric_games"]["games"][0])
        counts = p["pair_counts"].row(0, named=True)
        if counts["paired_deals"] == 0:
            raise AnalysisError(f"{where} cannot be paired: no (game_id, hand_no) in common")
        if counts["bad"]:
            g, h = p["pair_bad"].select("game_id", "hand_no").row(0)
            raise AnalysisError(
                f"{where} cannot be paired: game {g} hand {h} was dealt differently "
                f"({counts['bad']} of {counts['paired_deals']} deals; different master seeds?)"
            )
        kind = "variant" if other.run.variant != base.run.variant else "duplicate"
        bl, ol = lineup_text(base), lineup_text(other)
        key = (base.run.run_id, other.run.run_id, kind)
        pairing.append(
            {
                "base_run": base.run.run_id,
                "run_id": other.run.run_id,
                "base_variant": base.run.variant,
                "variant": other.run.variant,
                "kind": kind,
                "base_deals": b_deals,
                "deals": o_deals,
                "paired_deals": counts["paired_deals"],
                "base_games": b_games,
                "games": o_games,
                "paired_games": counts["paired_games"],
            }
        )
        rows = _paired_rows(p["pair_deal"], deal_cols, "deal", "effects", key, (b_deals, o_deals))
        rows += _paired_rows(p["pair_game"], game_cols, "game", "effects", key, (b_games, o_games))
        srows = _success_rows(base, other)
        tag = {
            "base_run": base.run.run_id,
            "run_id": other.run.run_id,
            "base_variant": base.run.variant,
            "variant": other.run.variant,
            "base_lineup": bl,
            "lineup": ol,
        }
        for r in rows:
            r.update(tag)
        for r in srows:
            r.update(tag, kind=kind)
        effects[kind] += rows
        success += srows

    def table(rows: list[dict], columns: Sequence[str]) -> pl.DataFrame:
        """Rows as a table (nan as null) with Holm-adjusted p-values within each compared run."""
        schema = {c: pl.Float64 for c in columns if c not in ("p_holm", "holm_significant")}
        schema.update({c: pl.String for c in columns[: columns.index("method") + 1]})
        schema.update(
            {c: pl.Int64 for c in ("base_n", "run_n", "paired_n", "n", "base_k", "k") if c in columns}
        )
        schema.update({"note": pl.String} if "note" in columns else {})
        df = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
        df = with_adjusted(
            df.fill_nan(None), "p_value", "p_holm", "holm", ["base_run", "run_id"], "holm_significant"
        )
        return df.select(columns)

    pair_schema = {
        "base_run": pl.String,
        "run_id": pl.String,
        "base_variant": pl.String,
        "variant": pl.String,
        "kind": pl.String,
        "base_deals": pl.Int64,
        "deals": pl.Int64,
        "paired_deals": pl.Int64,
        "base_games": pl.Int64,
        "games": pl.Int64,
        "paired_games": pl.Int64,
    }
    return {
        "pairing": pl.DataFrame(pairing, schema=pair_schema),
        "variant_effects": table(effects["variant"], EFFECT_COLUMNS),
        "strategy_duplicate": table(effects["duplicate"], EFFECT_COLUMNS),
        "success_comparison": table(success, SUCCESS_COLUMNS),
        "table_comparison": unpaired.table(unpaired_rows),
    }
