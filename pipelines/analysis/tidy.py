"""The last step of every analysis: which bots made each table, and the same bytes every time.

:func:`finish` runs over the built tables once:

- it adds the strategies that produced each row: ``strategies`` (the run's line-up) after ``variant``
  in per-run tables, ``base_lineup``/``lineup`` in comparisons that lack them;
- it normalises floats so that equal numbers have equal bytes: ``-0.0`` becomes ``0.0`` and ``NaN``
  becomes null (a NaN's sign and payload are noise).

Row order is each table's own business (every builder sorts by its key columns); float sums that could
depend on the order of rows are taken exactly (``math.fsum``, integer sums) where they are made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from fivehundred.pipelines.analysis.frame import Frame

#: A run with more line-ups than this (a tournament) is described by its strategies, not each line-up.
MAX_LINEUPS = 4


def lineup_text(f: Frame) -> str:
    """The run's strategies per seat joined with ``,``; a run whose line-up varies by game lists
    every line-up it used, sorted, separated by `` | ``; beyond :data:`MAX_LINEUPS` line-ups,
    ``"<k> line-ups of a, b, c"`` (the strategies, sorted)."""
    lists = f.stats["lineups"]["strategies"].to_list()
    lineups = sorted({",".join(str(s) for s in lu) for lu in lists})
    if len(lineups) <= MAX_LINEUPS:
        return " | ".join(lineups)
    names = sorted({str(s) for lu in lists for s in lu})
    return f"{len(lineups)} line-ups of {', '.join(names)}"


def _insert_after(df: pl.DataFrame, after: str, col: pl.Series) -> pl.DataFrame:
    names = [c for c in df.columns if c != col.name]
    at = names.index(after) + 1 if after in names else 0
    return df.with_columns(col).select([*names[:at], col.name, *names[at:]])


def with_strategies(
    df: pl.DataFrame, lineups: Mapping[str, str], by_variant: Mapping[str, str]
) -> pl.DataFrame:
    """``df`` with the line-up column(s) of its runs (see the module docstring); unchanged if it has
    no run column or already carries them."""
    cols = set(df.columns)
    if "base_run" in cols and "run_id" in cols:
        after = "variant"
        for run_col, name in (("base_run", "base_lineup"), ("run_id", "lineup")):
            if name not in cols:
                values = df[run_col].replace_strict(lineups, default=None, return_dtype=pl.String)
                df = _insert_after(df, after, values.alias(name))
            after = name
        return df
    if "strategies" in cols:
        return df
    if "run_id" in cols:
        values = df["run_id"].replace_strict(lineups, default=None, return_dtype=pl.String)
    elif "variant" in cols:
        values = df["variant"].replace_strict(by_variant, default=None, return_dtype=pl.String)
    else:
        return df
    return _insert_after(df, "variant", values.alias("strategies"))


def normalise_floats(df: pl.DataFrame) -> pl.DataFrame:
    """``-0.0`` as ``0.0`` and ``NaN`` as null in every float column."""
    floats = [c for c, t in df.schema.items() if t in (pl.Float32, pl.Float64)]
    if not floats:
        return df
    return df.with_columns(
        pl.when(pl.col(c).is_nan()).then(None).when(pl.col(c) == 0).then(0.0).otherwise(pl.col(c)).alias(c)
        for c in floats
    )


def finish(tables: Mapping[str, pl.DataFrame], frames: Sequence[Frame]) -> dict[str, pl.DataFrame]:
    """Every table with its line-up columns and normalised floats (the module docstring)."""
    lineups = {f.run.run_id: lineup_text(f) for f in frames}
    variants: dict[str, list[str]] = {}
    for f in frames:
        variants.setdefault(f.run.variant, []).append(lineups[f.run.run_id])
    by_variant = {v: " | ".join(sorted(set(ls))) for v, ls in variants.items()}
    return {
        name: normalise_floats(with_strategies(df, lineups, by_variant)) if df.width else df
        for name, df in tables.items()
    }
