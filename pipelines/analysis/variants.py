"""Paired comparison of runs with the same deals (same master seed, same deck).

Each compared run is joined to the base run on (``game_id``, ``hand_no``) — the same cards and
dealer hand by hand — and per-deal (or per-game) metrics are differenced pair by pair.  The paired
interval is a seeded bootstrap of the mean difference; ``se_unpaired`` is what the same two samples
would give if they were independent, so ``variance_reduction`` shows what pairing bought.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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


def _named_teams(f: Frame) -> range:
    """Teams that get their own ``declarer_team<t>``/``team<t>_won`` metric: team 0 when there are two
    teams (team 1 is the complement), every team otherwise."""
    return range(f.teams) if f.teams > 2 else range(1)


def deal_metrics(f: Frame) -> pl.DataFrame:
    """Per-deal metrics of one run, keyed by (game_id, hand_no); per-team metrics for every team
    (``abs_margin`` is the spread between the best and the worst team's points on the deal)."""
    c = pl.col("contract")
    fb_team = pl.col("first_bidder").cast(pl.Int16) % f.teams
    d_team = pl.col("dealer").cast(pl.Int16) % f.teams

    def team_pts(team: pl.Expr) -> pl.Expr:
        return pl.coalesce([pl.when(team == t).then(pl.col(f"points_t{t}")) for t in range(f.teams)])

    pts = [pl.col(f"points_t{t}") for t in range(f.teams)]
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
        *[(pl.col("dteam") == t).fill_null(False).alias(f"declarer_team{t}") for t in _named_teams(f)],
        *[(pl.col("level") == lv).fill_null(False).alias(f"share_{lv}") for lv in LEVELS],
        *[(pl.col("trump") == t).fill_null(False).alias(f"share_{t}") for t in TRUMPS],
        pl.col("is_mis").fill_null(False).alias("misere"),
        (c == OPEN_MISERE).fill_null(False).alias("open_misere"),
        (team_pts(fb_team) - team_pts(d_team)).alias("first_bidder_margin"),
    ]
    return f.df.select(cols)


def game_metrics(f: Frame) -> pl.DataFrame:
    """Per-game metrics of one run (games that finished), keyed by game_id."""
    lf = f.df.lazy()
    first = lf.filter(pl.col("hand_no") == 0).select("game_id", (pl.col("dealer") % f.teams).alias("fd_team"))
    last = lf.filter(pl.col("game_over")).select(
        "game_id",
        (pl.col("hand_no") + 1).cast(pl.Int64).alias("deals_per_game"),
        *[(pl.col("end_reason") == r).fill_null(False).alias(f"end_{r}") for r in END_REASONS],
        *[(pl.col("winner") == t).fill_null(False).alias(f"team{t}_won") for t in _named_teams(f)],
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


def _fsum_mean_var(x: np.ndarray) -> tuple[float, float]:
    """Mean and sample variance summed exactly (``math.fsum``): no dependence on summation order."""
    n = len(x)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(x.tolist()) / n
    var = math.fsum(((x - mean) ** 2).tolist()) / (n - 1) if n > 1 else math.nan
    return mean, var


def _paired_rows(
    joined: pl.DataFrame, metrics: Sequence[str], unit: str, table: str, key: tuple, own: tuple[int, int]
) -> list[dict]:
    """One row per metric: the paired mean difference (run − base) over the ``joined`` pairs, with
    each run's own number of deals or games (``own``) beside the paired count."""
    rows = []
    for m in metrics:
        a = joined[m].cast(pl.Float64).to_numpy()
        b = joined[f"{m}_o"].cast(pl.Float64).to_numpy()
        n = len(a)
        hist = pl.DataFrame({"d": b - a}).group_by("d").len().sort("d")
        mean, lo, hi, sd = bootstrap_mean(
            hist["d"].to_numpy(), hist["len"].to_numpy().astype(np.int64), seed_of(table, *key, m)
        )
        ma, va = _fsum_mean_var(a)
        mb, vb = _fsum_mean_var(b)
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
        ka, na = (
            base.df.filter(cond & pl.col("contract").is_not_null())
            .select(pl.col("made").sum(), pl.len())
            .row(0)
        )
        kb, nb = (
            other.df.filter(cond & pl.col("contract").is_not_null())
            .select(pl.col("made").sum(), pl.len())
            .row(0)
        )
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


def compare(frames: Sequence[Frame]) -> dict[str, pl.DataFrame]:
    """``pairing``, ``variant_effects`` and ``strategy_duplicate`` for runs 2.. against run 1 on the
    same table (paired deal by deal), ``success_comparison`` (their success rates, unpaired);
    ``table_comparison`` (unpaired) for runs on other tables."""
    base = frames[0]
    bd, bg = deal_metrics(base), game_metrics(base)
    pairing, effects = [], {"variant": [], "duplicate": []}
    success: list[dict] = []
    deal_cols = [c for c in bd.columns if c not in ("game_id", "hand_no", "seed", "dealer")]
    game_cols = [c for c in bg.columns if c != "game_id"]
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
                    "base_deals": bd.height,
                    "deals": other.df.height,
                    "paired_deals": 0,
                    "base_games": bg.height,
                    "games": int(other.df.select(pl.col("game_over").sum()).item()),
                    "paired_games": 0,
                }
            )
            continue
        od, og = deal_metrics(other), game_metrics(other)
        joined = bd.join(od, on=["game_id", "hand_no"], how="inner", suffix="_o").sort("game_id", "hand_no")
        if joined.height == 0:
            raise AnalysisError(f"{where} cannot be paired: no (game_id, hand_no) in common")
        bad = joined.filter((pl.col("seed") != pl.col("seed_o")) | (pl.col("dealer") != pl.col("dealer_o")))
        if bad.height:
            g, h = bad.select("game_id", "hand_no").row(0)
            raise AnalysisError(
                f"{where} cannot be paired: game {g} hand {h} was dealt differently "
                f"({bad.height} of {joined.height} deals; different master seeds?)"
            )
        gj = bg.join(og, on="game_id", how="inner", suffix="_o").sort("game_id")
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
                "base_deals": bd.height,
                "deals": od.height,
                "paired_deals": joined.height,
                "base_games": bg.height,
                "games": og.height,
                "paired_games": gj.height,
            }
        )
        rows = _paired_rows(joined, deal_cols, "deal", "effects", key, (bd.height, od.height))
        rows += _paired_rows(gj, game_cols, "game", "effects", key, (bg.height, og.height))
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
