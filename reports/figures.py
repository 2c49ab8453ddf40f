"""The report's figures: Matplotlib (object API, Agg, no pyplot state) from the statistics tables only.

Each builder takes the tables and the run order and returns a :class:`Chart`: the figure and a
one-sentence reading computed from the same numbers.  A builder raises :class:`~reports.tables.NoData`
when its tables hold nothing to draw; the assembler turns that (or any failure) into a section that
says so.
"""

from __future__ import annotations

import io
import math
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
import polars as pl
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from fivehundred.reports.section import lineup_label, run_names
from fivehundred.reports.tables import FEW_N, NoData, Tables, need, pct, signed
from fivehundred.sim.notation import MISERE_CODES

#: Colours of runs, and only of runs: run ``i`` of the report (main run first) has ``PALETTE[i]`` in
#: every figure (colour-blind friendly: Okabe-Ito, and Tol's wine instead of black, which stays the ink
#: of error bars and reference lines).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#882255")
#: Two series of one run (made / makeable, as bid / forced, winner / runner-up): greys, never a run's
#: colour.
SERIES = ("#3A3A3A", "#A8A8A8")
#: Rates from fewer trials than this are drawn faintly / left blank in heatmaps.
MIN_N = 5
#: The most played suit contracts drawn in the trump-holding heatmap.
TRUMP_CONTRACTS = 4
#: The share made, in a heatmap: light to dark grey-violet (no run's colour: a run is a colour).
SUCCESS_CMAP = LinearSegmentedColormap.from_list("success", ["#F7F7F7", "#B8B3C9", "#3F3A55"])

_STYLE = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.frameon": False,
}


@dataclass
class Chart:
    """A finished figure with its one-sentence reading."""

    key: str
    title: str
    figure: Figure
    reading: str

    def png(self, dpi: int = 110) -> bytes:
        """The figure as PNG bytes (no timestamp: same input, same bytes)."""
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
        return buf.getvalue()


def _fig(w: float, h: float) -> Figure:
    return Figure(figsize=(w, h), layout="constrained")


def style_context() -> object:
    """The report's Matplotlib style; build and render figures inside it."""
    return matplotlib.rc_context(_STYLE)


def _style(fig: Figure) -> None:
    for ax in fig.axes:
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=8)


def _err(mid: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.vstack([np.clip(mid - lo, 0, None), np.clip(hi - mid, 0, None)])


def _arr(df: pl.DataFrame, col: str) -> np.ndarray:
    return df.get_column(col).cast(pl.Float64).fill_null(float("nan")).to_numpy()


def _rate_ci(row: dict, prefix: str = "success") -> str:
    """``"81.6% [78.0%, 84.8%] (n=510)"`` from a row's rate block (``<prefix>_rate``/``_lo``/``_hi``)."""
    rate = row.get(f"{prefix}_rate")
    lo, hi = row.get(f"{prefix}_lo"), row.get(f"{prefix}_hi")
    text = pct(rate) + (f" [{pct(lo)}, {pct(hi)}]" if lo is not None and hi is not None else "")
    n = row.get("n")
    return text + (f" (n={n:,})" if isinstance(n, int) and prefix == "success" else "")


def run_colour(runs: Sequence[str], run: str) -> str:
    """The colour of ``run``: its place among the report's runs (the same in every figure)."""
    i = list(runs).index(run) if run in runs else len(runs)
    return PALETTE[i % len(PALETTE)]


def of_run(tables: Tables, runs: Sequence[str], title: str) -> str:
    """A figure's title naming the run it shows (the main run) when the report holds several."""
    if len(runs) < 2:
        return title
    return f"{title} — {run_names(tables, [runs[0]])[runs[0]]}"


def no_difference(ax: Any, what: str) -> None:
    """An axis whose values are all zero: say so in words, with no ticks (never a −0.0 scale)."""
    ax.set_xticks([])
    ax.text(
        0.5, 0.5, f"no difference: {what}", transform=ax.transAxes, ha="center", va="center", color="#555555"
    )


def _ci(lo: Any, hi: Any, digits: int = 1) -> str:
    """`` [lo, hi]`` of a mean's interval, signed; nothing when there is none (one observation)."""
    if lo is None or hi is None:
        return ""
    return f" [{signed(lo, digits)}, {signed(hi, digits)}]"


def _labels(tables: Tables, runs: Sequence[str]) -> dict[str, str]:
    """Short readable run names for labels inside figures (:func:`reports.section.run_names`)."""
    return run_names(tables, runs, short=True)


def _legend_below(fig: Figure, axes: Sequence[object], ncols: int = 3, **kw: object) -> None:
    """One legend for the figure, below the axes (outside them, so it never covers data); the handles
    of ``axes`` in order, each label once."""
    seen: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    if seen:
        widest = max(len(label) for label in seen)
        ncols = max(1, min(ncols, len(seen), 120 // (widest + 6)))  # long run names: fewer columns
        fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncols=ncols, **kw)


# ------------------------------------------------------------------------------------ contracts


def contracts_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """Success rate by contract with Wilson intervals, beside how often each contract is played."""
    cols = ["run_id", "contract", "rank", "n", "success_rate", "success_lo", "success_hi"]
    cols += ["declared_rate", "declared_lo", "declared_hi", "called_rate"]
    df = need(tables, "contracts", cols)
    played = (
        df.group_by("contract")
        .agg(pl.col("n").sum().alias("total"), pl.col("rank").min())
        .filter(pl.col("total") > 0)
    )
    if played.height == 0:
        raise NoData("no contract was played in these runs")
    order = played.sort("rank", "contract").get_column("contract").to_list()
    labels = _labels(tables, runs)
    fig = _fig(9.5, 0.26 * len(order) + 1.6)
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(order))
    k = len(runs)
    off = (np.arange(k) - (k - 1) / 2) * (0.7 / max(k, 1))
    for i, run in enumerate(runs):
        sub = df.filter(pl.col("run_id") == run)
        sub = pl.DataFrame({"contract": order}).join(sub, on="contract", how="left", maintain_order="left")
        n = _arr(sub, "n")
        rate, lo, hi = _arr(sub, "success_rate"), _arr(sub, "success_lo"), _arr(sub, "success_hi")
        ok = n > 0
        c = PALETTE[i % len(PALETTE)]
        ax1.errorbar(
            rate[ok],
            y[ok] + off[i],
            xerr=_err(rate[ok], lo[ok], hi[ok]),
            fmt="o",
            ms=4,
            color=c,
            ecolor=c,
            elinewidth=1.2,
            capsize=2,
            label=labels[run],
        )
        dr, dlo, dhi = _arr(sub, "declared_rate"), _arr(sub, "declared_lo"), _arr(sub, "declared_hi")
        ax2.barh(
            y + off[i],
            np.nan_to_num(dr),
            height=0.7 / max(k, 1),
            color=c,
            alpha=0.75,
            xerr=_err(np.nan_to_num(dr), np.nan_to_num(dlo), np.nan_to_num(dhi)),
            ecolor="#333333",
            error_kw={"elinewidth": 0.8, "capsize": 1.5},
            label=f"{labels[run]}: played",
        )
        cr = _arr(sub, "called_rate")
        cerr = None
        if {"called_lo", "called_hi"} <= set(sub.columns):  # Wilson interval of the share bid
            cerr = _err(
                np.nan_to_num(cr),
                np.nan_to_num(_arr(sub, "called_lo")),
                np.nan_to_num(_arr(sub, "called_hi")),
            )
        ax2.errorbar(
            cr,
            y + off[i],
            xerr=cerr,
            fmt="|",
            color="#222222",
            ms=7,
            mew=1.4,
            elinewidth=0.6,
            capsize=0,
            label="bid by anyone in the auction" if i == 0 else None,
        )
    ax1.set_yticks(y, order)
    ax1.invert_yaxis()
    ax1.set_xlim(0, 1)
    ax1.axvline(0.5, color="#888888", lw=0.8, ls="--")
    ax1.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax1.set_xlabel("contract made (95% Wilson interval)")
    ax1.set_title("Success rate by contract")
    ax2.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax2.set_xlabel("share of deals")
    ax2.set_title("Share of deals played as the contract (bar) and bid (|)")
    _legend_below(fig, [ax1, ax2])
    _style(fig)
    main = df.filter(pl.col("run_id") == runs[0])
    top = main.sort(["n", "rank"], descending=[True, False]).row(0, named=True)
    frequent = main.filter(pl.col("n") >= 30)
    best = (
        frequent.sort(["success_rate", "rank"], descending=[True, False]).row(0, named=True)
        if frequent.height
        else None
    )
    reading = (
        f"The most played contract is {top['contract']} ({_rate_ci(top, 'declared')} of deals), made "
        f"{_rate_ci(top)} of the time"
    )
    if best is not None and best["contract"] != top["contract"]:
        reading += (
            f"; of contracts played at least 30 times, {best['contract']} makes most often: {_rate_ci(best)}"
        )
    return Chart("contracts", "Contracts: success and frequency", fig, reading + ".")


# ----------------------------------------------------------------------------------- trump holding


def trumps_chart(tables: Tables, runs: Sequence[str], max_contracts: int = TRUMP_CONTRACTS) -> Chart:
    """Heatmaps of success by trumps held (joker and bowers counted) × joker, for common contracts."""
    df = need(tables, "success_by_trumps_joker", ["run_id", "contract", "trumps", "joker", "n", "made"])
    main = df.filter(pl.col("run_id") == runs[0])
    common = (
        main.group_by("contract")
        .agg(pl.col("n").sum().alias("total"))
        .filter(pl.col("total") > 0)
        .sort(["total", "contract"], descending=[True, False])
        .head(max_contracts)
    )
    if common.height == 0:
        raise NoData("no suit contract was played")
    contracts = common.get_column("contract").to_list()
    sub = main.filter(pl.col("contract").is_in(contracts) & (pl.col("n") > 0))
    tmin = int(sub.get_column("trumps").min())
    tmax = int(sub.get_column("trumps").max())
    trumps = list(range(tmin, tmax + 1))
    rows = max(2, int(sub.get_column("joker").max()) + 1)  # jokers held: 0..2 with the two-joker deck
    row_names = ["no joker", "joker", "two jokers"][:rows]
    ncols = 2 if len(contracts) > 1 else 1
    nrows = math.ceil(len(contracts) / ncols)
    fig = _fig(10, 2.5 * nrows + 0.7)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(contracts) :]:
        ax.set_visible(False)
    image = None
    for ax, contract in zip(axes, contracts, strict=False):
        grid = np.full((rows, len(trumps)), np.nan)
        counts = np.zeros((rows, len(trumps)), dtype=int)
        for t, j, n, made in (
            sub.filter(pl.col("contract") == contract).select("trumps", "joker", "n", "made").iter_rows()
        ):
            counts[int(j), int(t) - tmin] += int(n)
            grid[int(j), int(t) - tmin] = made / n if n else np.nan
        shown = np.where(counts >= MIN_N, grid, np.nan)
        image = ax.imshow(shown, cmap=SUCCESS_CMAP, vmin=0, vmax=1, aspect="auto", origin="lower")
        for (j, ti), n in np.ndenumerate(counts):
            if n >= MIN_N:
                dark = grid[j, ti] > 0.6
                ink, faint = ("white", "#EEEEEE") if dark else ("black", "#444444")
                ax.text(
                    ti,
                    j + 0.1,
                    f"{100 * grid[j, ti]:.0f}%",
                    ha="center",
                    va="center",
                    fontsize=8.5,
                    color=ink,
                )
                ax.text(ti, j - 0.22, f"n={n:,}", ha="center", va="center", fontsize=6, color=faint)
                if n < FEW_N:  # readable but wide: hatched (its interval is in the table below)
                    ax.add_patch(
                        Rectangle(
                            (ti - 0.5, j - 0.5), 1, 1, fill=False, hatch="////", edgecolor="#999999", lw=0
                        )
                    )
            elif n:
                ax.text(ti, j, f"{n}", ha="center", va="center", fontsize=6, color="#888888")
        ax.set_xticks(range(len(trumps)), [str(t) for t in trumps])
        ax.set_yticks(range(rows), row_names)
        ax.set_title(f"{contract}: {int(counts.sum()):,} played")
        ax.grid(False)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    fig.supxlabel("trumps held as dealt (the joker and both bowers count as trumps)", fontsize=9)
    cb = fig.colorbar(image, ax=list(axes), shrink=0.8, format=matplotlib.ticker.PercentFormatter(1.0))
    cb.set_label("made")
    # Reading: the most played contract with and without the joker, from success_by_feature (intervals).
    reading = f"Cells with fewer than {MIN_N} contracts are blank"
    feat = tables.get("success_by_feature")
    fcols = {"run_id", "group", "feature", "value", "n", "success_rate", "success_lo", "success_hi"}
    if feat is not None and fcols <= set(feat.columns):
        joker = {
            r["value"]: r
            for r in feat.filter(
                (pl.col("run_id") == runs[0])
                & (pl.col("group") == contracts[0])
                & (pl.col("feature") == "joker")
            ).iter_rows(named=True)
            if r["n"]
        }
        if "0" in joker and "1" in joker:
            reading = (
                f"In {contracts[0]}, declarers dealt the joker made {_rate_ci(joker['1'])} of their "
                f"contracts against {_rate_ci(joker['0'])} without it"
            )
    reading += (
        f" (n: contracts played; cells with fewer than {MIN_N} are blank, with fewer than {FEW_N} hatched; "
        "the table below gives every cell's 95% interval)"
    )
    return Chart("trumps", of_run(tables, runs, "Success by trump holding"), fig, reading + ".")


def bowers_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """Success by bowers held, joker held and trumps held, all suit contracts pooled (with intervals)."""
    cols = ["run_id", "group", "feature", "value", "order", "n", "success_rate", "success_lo", "success_hi"]
    df = need(tables, "success_by_feature", cols)
    sub = df.filter((pl.col("group") == "all-suit") & pl.col("feature").is_in(["bowers", "joker", "trumps"]))
    sub = sub.filter(pl.col("n") > 0)
    if sub.height == 0:
        raise NoData("no suit contract was played")
    feats = [f for f in ("trumps", "bowers", "joker") if sub.filter(pl.col("feature") == f).height]
    fig = _fig(3.0 * len(feats) + 0.6, 2.7)
    axes = fig.subplots(1, len(feats), sharey=True, squeeze=False)[0]
    labels = _labels(tables, runs)
    k = len(runs)
    for ax, feat in zip(axes, feats, strict=True):
        values = (
            sub.filter(pl.col("feature") == feat)
            .select("value", "order")
            .unique()
            .sort("order", "value")["value"]
            .to_list()
        )
        x = np.arange(len(values))
        for i, run in enumerate(runs):
            part = pl.DataFrame({"value": values}).join(
                sub.filter((pl.col("feature") == feat) & (pl.col("run_id") == run)), on="value", how="left"
            )
            rate, lo, hi = _arr(part, "success_rate"), _arr(part, "success_lo"), _arr(part, "success_hi")
            off = (i - (k - 1) / 2) * 0.12
            c = PALETTE[i % len(PALETTE)]
            ax.errorbar(
                x + off,
                rate,
                yerr=_err(rate, lo, hi),
                fmt="o-",
                ms=4,
                color=c,
                capsize=2,
                lw=1,
                label=labels[run],
            )
        ax.set_xticks(x, [{"0": "no", "1": "yes"}.get(v, v) if feat == "joker" else v for v in values])
        ax.set_xlabel({"trumps": "trumps held", "bowers": "bowers held", "joker": "joker held"}[feat])
        ax.set_title(f"All suit contracts, by {feat} dealt")
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    axes[0].set_ylabel("made (95% CI)")

    if k > 1:
        _legend_below(fig, [axes[0]])
    _style(fig)
    main = sub.filter((pl.col("run_id") == runs[0]) & (pl.col("feature") == "bowers")).sort("order")
    reading = "Success of all suit contracts pooled, by what the declarer was dealt"
    if main.height >= 2:
        first, last = main.row(0, named=True), main.row(main.height - 1, named=True)
        reading = (
            f"All suit contracts pooled: {_rate_ci(first)} made with {first['value']} bower(s) "
            f"against {_rate_ci(last)} with {last['value']}"
        )
    return Chart("bowers", "Suit contracts by trumps, bowers and joker", fig, reading + ".")


# ------------------------------------------------------------------------------------------ misère


def misere_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """Misère and open misère: success and expected points, as bid and (if present) forced (what-if)."""
    cols = ["run_id", "contract", "n", "success_rate", "success_lo", "success_hi"]
    pcols = ["points_mean", "points_lo", "points_hi"]
    if "misere" in tables and tables["misere"].height == 0 and "misere_whatif" not in tables:
        raise NoData("no misère bid exists in these rules, and no what-if was analysed")
    bid = need(tables, "misere", [*cols, *pcols]).filter(pl.col("run_id") == runs[0])
    whatif = tables.get("misere_whatif")
    if whatif is not None and not set(cols + pcols) <= set(whatif.columns):
        whatif = None
    if whatif is not None:
        whatif = whatif.filter(pl.col("run_id") == runs[0])
    if bid.filter(pl.col("n") > 0).height == 0 and (
        whatif is None or whatif.filter(pl.col("n") > 0).height == 0
    ):
        raise NoData("no misère was played and no what-if table was made (analyze --what-if misere)")
    feat = tables.get("misere_by_feature")
    wfeat = tables.get("misere_whatif_by_feature")
    fcols = [
        "run_id",
        "contract",
        "feature",
        "value",
        "order",
        "n",
        "success_rate",
        "success_lo",
        "success_hi",
    ]
    show_feat = [
        (name, t.filter(pl.col("run_id") == runs[0]))
        for name, t in (("as bid", feat), ("forced (what-if)", wfeat))
        if t is not None and set(fcols) <= set(t.columns)
    ]
    contracts = sorted(
        set(bid.get_column("contract").to_list())
        | set(whatif.get_column("contract").to_list() if whatif is not None else []),
        key=lambda c: MISERE_CODES.index(c) if c in MISERE_CODES else 9,
    )
    fig = _fig(10, 5.4 if show_feat else 2.8)
    grid = fig.subplots(2 if show_feat else 1, 3, squeeze=False)
    ax_rate, ax_pts = grid[0][0], grid[0][1]
    sources = [("as bid", bid, SERIES[0])]
    if whatif is not None:
        sources.append(("forced (what-if)", whatif, SERIES[1]))
    x = np.arange(len(contracts))
    for i, (name, t, c) in enumerate(sources):
        part = pl.DataFrame({"contract": contracts}).join(t, on="contract", how="left", maintain_order="left")
        n = np.nan_to_num(_arr(part, "n")).astype(int)
        off = (i - (len(sources) - 1) / 2) * 0.3
        for ax, (mean, lo, hi) in (
            (ax_rate, ("success_rate", "success_lo", "success_hi")),
            (ax_pts, ("points_mean", "points_lo", "points_hi")),
        ):
            m, low, high = (np.nan_to_num(_arr(part, col)) for col in (mean, lo, hi))
            ax.bar(x + off, m, 0.28, color=c, alpha=0.8, label=name, yerr=_err(m, low, high), capsize=2)
        top_of_rate = np.nan_to_num(_arr(part, "success_hi"))
        for xi, ni, top in zip(x + off, n, top_of_rate, strict=True):
            ax_rate.annotate(
                f"n={ni:,}",
                (xi, top),
                xytext=(0, 3),
                textcoords="offset points",
                ha="center",
                fontsize=7,
                color="#444444",
            )
    ax_rate.set_xticks(x, contracts)
    ax_rate.set_ylim(0, 1.12)
    ax_rate.set_yticks([0, 0.25, 0.5, 0.75, 1])
    ax_rate.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax_rate.set_title("Made (95% CI)")
    ax_pts.set_xticks(x, contracts)
    ax_pts.axhline(0, color="#444444", lw=0.8)
    ax_pts.set_title("Expected points for the declarer's team")
    # Third panel: how often each is bid.
    ax_freq = grid[0][2]
    if "called_rate" in bid.columns and "declared_rate" in bid.columns:
        part = pl.DataFrame({"contract": contracts}).join(
            bid, on="contract", how="left", maintain_order="left"
        )
        for dx, what, hatch, label in (  # the contracts as bid: the dark series, bid ones hatched
            (-0.15, "called", "////", "as bid: share of deals bid in the auction"),
            (0.15, "declared", None, "as bid: share of deals played"),
        ):
            m = np.nan_to_num(_arr(part, f"{what}_rate"))
            err = None
            if {f"{what}_lo", f"{what}_hi"} <= set(part.columns):  # the Wilson interval of each share
                err = _err(
                    m, np.nan_to_num(_arr(part, f"{what}_lo")), np.nan_to_num(_arr(part, f"{what}_hi"))
                )
            ax_freq.bar(
                x + dx,
                m,
                0.3,
                color="white" if hatch else SERIES[0],
                edgecolor=SERIES[0],
                hatch=hatch,
                label=label,
                yerr=err,
                capsize=2,
            )
        ax_freq.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=1))
        ax_freq.set_xticks(x, contracts)
        ax_freq.set_title("Share of deals")
        ax_freq.set_ylim(0, ax_freq.get_ylim()[1] * 1.25)
    else:
        ax_freq.set_visible(False)
    if show_feat:
        feat_contracts = [
            c
            for c in MISERE_CODES
            if any(t.filter((pl.col("contract") == c) & (pl.col("n") > 0)).height for _, t in show_feat)
        ]
        for ax, feature in zip(grid[1], ("low_cards", "voids", "joker"), strict=True):
            parts_ = [
                (
                    f"{contract} {name}",
                    i,
                    marker,
                    t.filter(
                        (pl.col("feature") == feature) & (pl.col("contract") == contract) & (pl.col("n") > 0)
                    ),
                )
                for contract, marker in zip(feat_contracts, "osD", strict=False)
                for i, (name, t) in enumerate(show_feat)
            ]
            values = (
                pl.concat([p.select("value", "order") for *_, p in parts_], how="vertical_relaxed")
                .unique()
                .sort("order", "value")
                .get_column("value")
                .to_list()
                if parts_
                else []
            )
            for j, (name, i, marker, part) in enumerate(parts_):
                if part.height == 0:
                    continue
                part = pl.DataFrame({"value": values}).join(
                    part, on="value", how="left", maintain_order="left"
                )
                xs = np.arange(len(values)) + (j - (len(parts_) - 1) / 2) * 0.12
                rate, lo, hi = _arr(part, "success_rate"), _arr(part, "success_lo"), _arr(part, "success_hi")
                ax.errorbar(
                    xs,
                    rate,
                    yerr=_err(rate, lo, hi),
                    fmt=marker,
                    ms=4,
                    capsize=2,
                    color=SERIES[i],
                    mfc=SERIES[i] if marker == "o" else "white",
                    label=name,
                )
            ax.set_xticks(np.arange(len(values)), values)
            ax.set_ylim(0, 1)
            ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
            ax.set_xlabel(
                {
                    "low_cards": "cards ranked 7 or lower",
                    "voids": "void suits",
                    "joker": "where the joker is",
                }[feature]
            )
            ax.set_title(f"{' and '.join(feat_contracts) or 'Misère'} made by {feature.replace('_', ' ')}")
            if not values:
                ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", color="#777777")
    _legend_below(fig, [ax_rate, ax_freq, *(grid[1] if show_feat else [])], ncols=4)
    _style(fig)
    parts = []
    for name, t, _ in sources:
        for row in t.filter(pl.col("n") > 0).sort("contract").iter_rows(named=True):
            parts.append(
                f"{row['contract']} {name} made {_rate_ci(row)}, "
                f"{signed(row['points_mean'], 0)} [{signed(row['points_lo'], 0)}, "
                f"{signed(row['points_hi'], 0)}] points on average"
            )
    reading = "; ".join(parts) if parts else "No misère was played"
    return Chart("misere", of_run(tables, runs, "Misère and open misère"), fig, reading + ".")


# ---------------------------------------------------------------------------------------- strategies


def _forest(
    ax: object, labels: list[str], mid: np.ndarray, lo: np.ndarray, hi: np.ndarray, colors: list[str]
) -> None:
    y = np.arange(len(labels))
    for i in range(len(labels)):
        ax.errorbar(
            mid[i],
            y[i],
            xerr=_err(mid[i : i + 1], lo[i : i + 1], hi[i : i + 1]),
            fmt="s",
            ms=5,
            color=colors[i],
            capsize=3,
            elinewidth=1.4,
        )
    ax.set_yticks(y, ["\n".join(textwrap.wrap(lab, 48)) for lab in labels])  # long line-ups: two lines
    if not ax.yaxis_inverted():
        ax.invert_yaxis()


def _zoom(
    ax: object, lo: np.ndarray, hi: np.ndarray, ref: float, bounds: tuple[float, float] | None = None
) -> None:
    """Fit the x axis to the intervals (with a margin); draw the reference line when it is in view."""
    vals = np.concatenate([lo[np.isfinite(lo)], hi[np.isfinite(hi)]])
    if vals.size == 0:
        return
    a, b = float(vals.min()), float(vals.max())
    pad = max((b - a) * 0.15, 1e-3 if bounds else 0.5)
    a, b = a - pad, b + pad
    if bounds is not None:
        a, b = max(a, bounds[0]), min(b, bounds[1])
    ax.set_xlim(a, b)
    if a <= ref <= b:
        ax.axvline(ref, color="#888888", lw=0.8, ls="--")


def strategies_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """Forest plot: points per deal and game win rate per strategy (and per team line-up)."""
    cols = ["run_id", "strategy", "points_mean", "points_lo", "points_hi", "win_rate", "win_lo", "win_hi"]
    df = need(tables, "strategies", cols)
    run_labels = _labels(tables, runs)
    rows = []
    for i, run in enumerate(runs):
        merged: set[str] = set()
        for r in df.filter(pl.col("run_id") == run).sort("strategy").iter_rows(named=True):
            if r["strategy"] in merged:
                continue
            name = r["strategy"]
            mates = r.get("inseparable_from")
            if mates:  # always partners: one team, one set of team figures (not two equal rows)
                merged.update(mates.split(", "))
                name = f"{name} & {mates} (always partners)"
            lab = name if len(runs) == 1 else f"{name} — {run_labels[run]}"
            rows.append((lab, r, PALETTE[i % len(PALETTE)]))
    pair = tables.get("strategy_pairings")
    pcols = ["run_id", "team_strategies", "opponents", "points_mean", "points_lo", "points_hi", "win_rate"]
    figures_of = ("points_mean", "points_lo", "points_hi", "win_rate", "win_lo", "win_hi")
    shown = {(r["run_id"], *(r.get(k) for k in figures_of)) for _, r, _ in rows}
    if pair is not None and {*pcols, "win_lo", "win_hi"} <= set(pair.columns):
        for i, run in enumerate(runs):
            for r in (
                pair.filter(pl.col("run_id") == run)
                .sort("team_strategies", "opponents")
                .iter_rows(named=True)
            ):
                if (run, *(r.get(k) for k in figures_of)) in shown:
                    continue  # a team of one strategy: the same figures as that strategy's row
                lab = f"team {lineup_label(r['team_strategies'])} vs {lineup_label(r['opponents'])}"
                if len(runs) > 1:
                    lab += f" — {run_labels[run]}"
                rows.append((lab, r, PALETTE[i % len(PALETTE)]))
    if not rows:
        raise NoData("no strategy rows")
    labels = [r[0] for r in rows]
    colors = [r[2] for r in rows]

    def col(name: str) -> np.ndarray:
        return np.array([float("nan") if r[1].get(name) is None else float(r[1][name]) for r in rows])

    fig = _fig(9.5, 0.34 * len(rows) + 1.5)
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    _forest(ax1, labels, col("points_mean"), col("points_lo"), col("points_hi"), colors)
    _zoom(ax1, col("points_lo"), col("points_hi"), ref=0.0)
    ax1.set_xlabel("team points per deal (95% CI, by game)")
    ax1.set_title("Points per deal")
    _forest(ax2, labels, col("win_rate"), col("win_lo"), col("win_hi"), colors)
    _zoom(ax2, col("win_lo"), col("win_hi"), ref=0.5, bounds=(0.0, 1.0))
    ax2.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax2.set_xlabel("games won (95% CI; none if forced)")
    ax2.set_title("Game win rate")
    _style(fig)
    main = [r[1] for r in rows if r[1].get("run_id") == runs[0] and "strategy" in r[1]]
    main.sort(key=lambda r: -(r["points_mean"] if r["points_mean"] is not None else -math.inf))
    parts = [
        f"{r['strategy']} {r['points_mean']:+.1f} [{signed(r['points_lo'])}, {signed(r['points_hi'])}] "
        f"points per deal and {_rate_ci(r, 'win')} of games won"
        + (" (forced by the seating)" if r.get("win_lo") is None and r.get("win_rate") is not None else "")
        for r in main[:4]
        if r["points_mean"] is not None
    ]
    reading = f"In {run_labels[runs[0]]}: " + "; ".join(parts)
    if len(main) == 1:
        reading += " (every seat plays it, so only the teams' line-ups are compared)"
    together = [r for r in main if r.get("inseparable_from")]
    if together:
        reading += (
            "; strategies that always sit as partners share every team figure and are shown once: "
            "compare them on the same deals with a duplicate run (the seats swapped)"
        )
    return Chart("strategies", "Strategies", fig, reading + ".")


# ------------------------------------------------------------------------------------ variant effects

_POINT_METRICS = ("points_total", "abs_margin", "first_bidder_margin")


_METRIC_LABELS = {
    "points_team0": "team 0 points per deal",
    "points_team1": "team 1 points per deal",
    "points_total": "points per deal, all teams",
    "abs_margin": "margin between the best and worst team",
    "first_bidder_margin": "first bidder's team − dealer's team",
    "thrown_in": "deals thrown in",
    "made": "deals with a contract made",
    "declarer_team0": "team 0 declares",
    "misere": "misère contracts",
    "open_misere": "open misère contracts",
    "end_reached_500": "games ending at 500",
    "end_fell_to_-500": "games ending at −500",
    "end_deal_limit": "games hitting the deal limit",
    "team0_won": "games won by team 0",
    "first_dealer_team_won": "games won by the first dealer's team",
    "success_rate": "contracts made (unpaired)",
    "deals_per_game": "deals per game",
}


def metric_label(metric: str) -> str:
    """A readable name for a ``variant_effects`` metric."""
    if metric in _METRIC_LABELS:
        return _METRIC_LABELS[metric]
    team = re.fullmatch(r"(points|declarer)_team(\d)|team(\d)_won", metric)
    if team:
        if team.group(1) == "points":
            return f"team {team.group(2)} points per deal"
        if team.group(1) == "declarer":
            return f"team {team.group(2)} declares"
        return f"games won by team {team.group(3)}"
    if metric.startswith("share_"):
        what = metric[6:]
        return f"contracts at the {what} level" if what.isdigit() else f"contracts in {what}"
    if metric.startswith("success_"):
        return f"{metric[8:]} contracts made (unpaired)"
    return metric


def metric_kind(metric: str) -> str:
    """``points`` (per deal), ``deals`` (per game) or ``rate`` (a share): how a metric is shown."""
    if metric in _POINT_METRICS or metric.startswith("points_team"):
        return "points"
    if metric == "deals_per_game":
        return "deals"
    return "rate"


def effects_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """Paired differences (run − base) with intervals, every compared run side by side."""
    cols = ["run_id", "base_run", "metric", "diff_mean", "diff_lo", "diff_hi", "method"]
    frames = [tables[n] for n in ("variant_effects", "strategy_duplicate") if n in tables]
    if all("holm_significant" in f.columns for f in frames if f.height):
        cols.append("holm_significant")
    frames = [f for f in frames if set(cols) <= set(f.columns) and f.height]
    if not frames:
        tc = tables.get("table_comparison")
        if tc is not None and tc.height:
            raise NoData(
                "no run on the same table to pair with; runs on other tables are compared "
                "unpaired under 'Comparing tables'"
            )
        raise NoData("no compared runs (give --compare RUN_DIR with the same seed)")
    df = pl.concat([f.select(cols) for f in frames], how="vertical_relaxed")
    compared = [r for r in runs if r in set(df.get_column("run_id").to_list())]
    compared += sorted(set(df.get_column("run_id").to_list()) - set(compared))
    labels = _labels(tables, runs + [r for r in compared if r not in runs])
    metrics = df.select("metric").unique(maintain_order=True).get_column("metric").to_list()
    groups = [(kind, [m for m in metrics if metric_kind(m) == kind]) for kind in ("points", "rate", "deals")]
    groups = [(k, ms) for k, ms in groups if ms]
    heights = [len(ms) for _, ms in groups]
    fig = _fig(9.5, 0.2 * sum(heights) + 0.5 * len(groups) + 1.2)
    axes = fig.subplots(len(groups), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    k = len(compared)
    everyone = list(runs) + [r for r in compared if r not in runs]
    for ax, (kind, ms) in zip(axes, groups, strict=True):
        y = np.arange(len(ms))
        values = df.filter(pl.col("metric").is_in(ms)).select("diff_mean", "diff_lo", "diff_hi").to_numpy()
        flat = values[np.isfinite(values.astype(float))] if values.size else values
        for i, run in enumerate(compared):
            part = pl.DataFrame({"metric": ms}).join(
                df.filter(pl.col("run_id") == run), on="metric", how="left"
            )
            mid, lo, hi = _arr(part, "diff_mean"), _arr(part, "diff_lo"), _arr(part, "diff_hi")
            off = (i - (k - 1) / 2) * (0.6 / max(k, 1))
            ax.errorbar(
                mid,
                y + off,
                xerr=_err(mid, lo, hi),
                fmt="o",
                ms=3.5,
                capsize=2,
                color=run_colour(everyone, run),
                label=labels.get(run, run),
            )
        ax.set_yticks(y, [metric_label(m) for m in ms])
        ax.invert_yaxis()
        ax.axvline(0, color="#444444", lw=0.8)
        if flat.size == 0 or not np.any(flat.astype(float)):
            no_difference(ax, "every run − base and its interval is 0")
        elif kind == "rate":
            ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=1))
        ax.set_xlabel(
            {
                "points": "difference in points per deal",
                "rate": "difference in share (percentage points)",
                "deals": "difference in deals per game",
            }[kind]
        )
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=4, title="run − base")
    base = df.get_column("base_run")[0]
    axes[0].set_title(f"Paired differences against the base run {labels.get(base, base[:8])} (95% CI)")
    _style(fig)
    raw = df.filter((pl.col("diff_lo") > 0) | (pl.col("diff_hi") < 0))
    pts = df.filter(pl.col("metric") == "points_total")
    if "holm_significant" in df.columns:
        sig = int(df.select(pl.col("holm_significant").sum()).item() or 0)
        reading = (
            f"{sig} of {df.height} paired differences are distinguishable from zero after Holm's adjustment "
            f"for the metrics of each comparison ({raw.height} of the unadjusted 95% intervals exclude zero)"
        )
    else:
        reading = f"{raw.height} of {df.height} paired differences exclude zero (no multiplicity adjustment)"
    reading += _top_clause(
        pts,
        lambda r: (
            f"{labels.get(r['run_id'], r['run_id'])} changes the points scored per deal by "
            f"{r['diff_mean']:+.1f} [{r['diff_lo']:+.1f}, {r['diff_hi']:+.1f}]"
        ),
    )
    return Chart("effects", "Variant effects", fig, reading + ".")


def _top_clause(df: pl.DataFrame, clause: Callable[[dict[str, Any]], str]) -> str:
    """``"; "`` and ``clause`` of the first row of ``df``; nothing when it has no rows (a reading's tail)."""
    return "; " + clause(df.row(0, named=True)) if df.height else ""


# ---------------------------------------------------------------------------------------- games

_END_METRICS = (
    ("end_reached_500", "reached 500"),
    ("end_fell_to_-500", "fell to −500"),
    ("end_deal_limit", "deal limit"),
)


def _ends(tables: Tables) -> dict[str, dict[str, tuple[float, float | None, float | None]]]:
    """run -> end reason -> (share, lo, hi): from ``game_ends``, else the compared runs' per-game metrics."""
    ends: dict[str, dict[str, tuple[float, float | None, float | None]]] = {}
    ge = tables.get("game_ends")
    if ge is not None and {"run_id", "end_reason", "rate", "rate_lo", "rate_hi"} <= set(ge.columns):
        for run, reason, rate, lo, hi in ge.select(
            "run_id", "end_reason", "rate", "rate_lo", "rate_hi"
        ).iter_rows():
            ends.setdefault(run, {})[reason] = (rate, lo, hi)
        return ends
    for name in ("variant_effects", "strategy_duplicate"):
        ve = tables.get(name)
        if ve is None or not {"run_id", "base_run", "metric", "paired_mean", "paired_base_mean"} <= set(
            ve.columns
        ):
            continue
        for r in ve.filter(pl.col("metric").is_in([m for m, _ in _END_METRICS])).iter_rows(named=True):
            reason = r["metric"].removeprefix("end_")
            ends.setdefault(r["run_id"], {})[reason] = (r["paired_mean"], None, None)
            ends.setdefault(r["base_run"], {})[reason] = (r["paired_base_mean"], None, None)
    return ends


def games_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """Game length (distribution, or the mean) and how games end (with Wilson intervals), per run.

    Uses the ``game_length`` and ``game_ends`` tables; without them, the mean deals per game of
    ``overview`` and, for compared runs, the ending shares of ``variant_effects``.
    """
    ov = need(tables, "overview", ["run_id", "deals_per_game", "games"])
    labels = _labels(tables, runs)
    ends = _ends(tables)
    length = tables.get("game_length")
    fig = _fig(9.5, max(2.8, 0.45 * len(runs) + 2.2))
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    y = np.arange(len(runs))
    means = dict(ov.select("run_id", "deals_per_game").iter_rows())
    if length is not None and {"run_id", "deals", "games"} <= set(length.columns) and length.height:
        for i, run in enumerate(runs):
            band = {"share_lo", "share_hi"} <= set(length.columns)
            part = length.filter(pl.col("run_id") == run).select(
                "deals", "games", *(["share_lo", "share_hi"] if band else [])
            )
            tot = part.get_column("games").sum()
            if tot:
                full = pl.DataFrame({"deals": np.arange(1, int(part["deals"].max()) + 1)})
                part = (
                    full.join(part, on="deals", how="left", maintain_order="left").fill_null(0).sort("deals")
                )
                mean = means.get(run)
                lab = f"{labels[run]} (mean {mean:.2f})" if mean is not None else labels[run]
                color = PALETTE[i % len(PALETTE)]
                x = part["deals"].to_numpy()
                ax1.plot(
                    x, part["games"].to_numpy() / tot, drawstyle="steps-mid", color=color, label=lab, lw=1.4
                )
                if band:  # the Wilson interval of each length's share (zero-count lengths included)
                    lo, hi = part["share_lo"].to_numpy(), part["share_hi"].to_numpy()
                    ax1.fill_between(x, lo, hi, step="mid", color=color, alpha=0.18, lw=0)
        ax1.set_xlabel("deals in the game (thrown-in deals included)")
        ax1.set_ylabel("share of games")
        ax1.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax1.set_xlim(left=0.5)
        ax1.set_title("Game length (bands: 95% Wilson CI)")
    else:
        part = pl.DataFrame({"run_id": runs}).join(ov, on="run_id", how="left", maintain_order="left")
        dpg = _arr(part, "deals_per_game")
        ax1.barh(
            y, np.nan_to_num(dpg), color=[PALETTE[i % len(PALETTE)] for i in range(len(runs))], alpha=0.8
        )
        for yi, v, g in zip(y, dpg, part.get_column("games").to_list(), strict=True):
            if math.isfinite(v):
                ax1.text(v, yi, f"  {v:.2f} ({g:,} games)", va="center", fontsize=8)
        ax1.set_yticks(y, [labels[r] for r in runs])
        ax1.invert_yaxis()
        ax1.set_xlabel("mean deals per game")
        ax1.set_title("Game length")
        ax1.set_xlim(0, np.nanmax(np.append(dpg, 1)) * 1.5)
    if ends:
        k = len(runs)
        ys = np.arange(len(_END_METRICS))
        for i, run in enumerate(runs):
            e = ends.get(run, {})
            vals = np.array(
                [e.get(m.removeprefix("end_"), (np.nan, None, None))[0] for m, _ in _END_METRICS], float
            )
            lo = np.array([_nan(e.get(m.removeprefix("end_"), (0, None, None))[1]) for m, _ in _END_METRICS])
            hi = np.array([_nan(e.get(m.removeprefix("end_"), (0, None, None))[2]) for m, _ in _END_METRICS])
            off = (i - (k - 1) / 2) * (0.7 / max(k, 1))
            err = (
                None
                if np.isnan(lo).all()
                else _err(np.nan_to_num(vals), np.nan_to_num(lo), np.nan_to_num(hi))
            )
            ax2.barh(
                ys + off,
                np.nan_to_num(vals),
                height=0.7 / max(k, 1),
                color=PALETTE[i % len(PALETTE)],
                alpha=0.85,
                xerr=err,
                error_kw={"elinewidth": 1, "capsize": 2},
                label=labels[run],
            )
            for yi, v, h in zip(ys + off, vals, hi, strict=True):
                if math.isfinite(v):
                    ax2.text(
                        max(v, h if math.isfinite(h) else v), yi, f"  {100 * v:.1f}%", va="center", fontsize=7
                    )
        ax2.set_yticks(ys, [name for _, name in _END_METRICS])
        ax2.invert_yaxis()
        ax2.set_xlim(0, 1.15)
        ax2.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax2.set_title("How games end (95% Wilson CI)")
    else:
        ax2.text(
            0.5,
            0.5,
            "no data: the statistics have no\ntable of how games end",
            ha="center",
            va="center",
            transform=ax2.transAxes,
            color="#777777",
        )
        ax2.set_axis_off()
    _legend_below(fig, [ax1] if ax1.get_legend_handles_labels()[0] else [ax2])
    _style(fig)
    main = ov.filter(pl.col("run_id") == runs[0]).row(0, named=True)
    reading = (
        f"A game of {labels[runs[0]]} lasts {main['deals_per_game']:.2f} deals on average "
        f"over {main['games']:,} games"
    )
    e = ends.get(runs[0])
    if e:

        def share(reason: str) -> str:
            v = e.get(reason, (None, None, None))
            ci = f" [{pct(v[1])}, {pct(v[2])}]" if v[1] is not None and v[2] is not None else ""
            return pct(v[0]) + ci

        reading += (
            f"; {share('reached_500')} end with a team reaching 500, {share('fell_to_-500')} with a team "
            f"going out backwards at −500 and {share('deal_limit')} at the deal limit"
        )
    return Chart("games", "Game length and how games end", fig, reading + ".")


def _nan(x: float | None) -> float:
    return float("nan") if x is None else float(x)


# --------------------------------------------------------------------------------- score trajectories

#: How a game ended, in words (the log's ``end_reason``).
END_WORDS = {
    "reached_500": "a team reached 500",
    "fell_to_-500": "a team fell to −500",
    "deal_limit": "the deal limit",
}


def end_text(reason: str) -> str:
    """A game's ``end_reason`` in words (``reached_500`` -> ``a team reached 500``)."""
    return END_WORDS.get(reason, reason)


_REASON_TITLES = {
    "reached_500": "games won at 500",
    "fell_to_-500": "games ended at −500",
    "deal_limit": "games stopped at the deal limit",
}


def _min_games(first: int) -> int:
    """Deals are drawn while at least this many of ``first`` games are still running."""
    return max(10, math.ceil(0.01 * first))


def trajectories_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """The eventual winner's and runner-up's score deal by deal (mean with 95% interval, middle half of
    games shaded), by how the game ended; and how often the winner is behind, every run."""
    cols = ["run_id", "end_reason", "deal", "games", "winner_mean", "winner_lo", "winner_hi"]
    cols += ["winner_q25", "winner_q75", "runner_up_mean", "runner_up_lo", "runner_up_hi"]
    cols += ["runner_up_q25", "runner_up_q75", "lead_mean", "lead_lo", "lead_hi"]
    cols += ["behind", "behind_rate", "behind_lo", "behind_hi"]
    df = need(tables, "score_trajectories", cols)
    labels = _labels(tables, runs)
    main = df.filter(pl.col("run_id") == runs[0])
    if main.height == 0:
        raise NoData(f"no finished game in run {labels[runs[0]]}")
    firsts = dict(main.filter(pl.col("deal") == 1).select("end_reason", "games").iter_rows())
    reasons = [r for r in _REASON_TITLES if firsts.get(r, 0) > 0]
    mosaic = [[f"r{i}" for i in range(len(reasons))], ["behind"] * max(1, len(reasons))]
    fig = _fig(10, 6.2)
    axes = fig.subplot_mosaic(mosaic, gridspec_kw={"height_ratios": [1.5, 1]})
    for i, reason in enumerate(reasons):
        ax = axes[f"r{i}"]
        part = main.filter(
            (pl.col("end_reason") == reason) & (pl.col("games") >= _min_games(firsts[reason]))
        ).sort("deal")
        x = _arr(part, "deal")
        for side, name, colour, style in (
            ("winner", "eventual winner", SERIES[0], "-"),
            ("runner_up", "runner-up", SERIES[1], "--"),
        ):
            ax.fill_between(
                x,
                _arr(part, f"{side}_q25"),
                _arr(part, f"{side}_q75"),
                color=colour,
                alpha=0.12,
                lw=0,
                label=f"{name}: middle half of games",
            )
            ax.fill_between(
                x, _arr(part, f"{side}_lo"), _arr(part, f"{side}_hi"), color=colour, alpha=0.45, lw=0
            )
            ax.plot(
                x, _arr(part, f"{side}_mean"), color=colour, ls=style, lw=1.6, label=f"{name}: mean (95% CI)"
            )
        for level in (500, -500):
            ax.axhline(level, color="#666666", lw=0.8, ls=":")
        ax.axhline(0, color="#999999", lw=0.6)
        ax.set_title(f"{_REASON_TITLES[reason]} ({firsts[reason]:,})")
        ax.set_xlabel("after deal")
        if i == 0:
            ax.set_ylabel("score")
        ax.set_xlim(left=1)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    if not reasons:
        raise NoData(f"no finished game in run {labels[runs[0]]}")
    ax = axes["behind"]
    for i, run in enumerate(runs):
        part = df.filter((pl.col("run_id") == run) & (pl.col("end_reason") == "all"))
        if part.height == 0:
            continue
        first = int(part.filter(pl.col("deal") == 1)["games"].sum())
        part = part.filter(pl.col("games") >= _min_games(first)).sort("deal")
        x = _arr(part, "deal")
        c = PALETTE[i % len(PALETTE)]
        ax.fill_between(x, _arr(part, "behind_lo"), _arr(part, "behind_hi"), color=c, alpha=0.2, lw=0)
        ax.plot(x, _arr(part, "behind_rate"), color=c, lw=1.4, marker="o", ms=2.5, label=labels[run])
    ax.set_ylim(0, 1)
    ax.set_xlim(left=1)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_xlabel("after deal")
    ax.set_ylabel("winner behind")
    ax.set_title("Games whose eventual winner is behind the runner-up after each deal (95% Wilson band)")
    _legend_below(fig, [axes["r0"], ax], ncols=4)
    _style(fig)
    allr = main.filter(pl.col("end_reason") == "all")
    deal = 3 if allr.filter(pl.col("deal") == 3).height else 1
    r = allr.filter(pl.col("deal") == deal).row(0, named=True)
    reading = (
        f"In {labels[runs[0]]}, after deal {deal} the eventual winner leads the runner-up by "
        f"{signed(r['lead_mean'], 0)} points on average{_ci(r['lead_lo'], r['lead_hi'], 0)} yet is "
        f"behind in {pct(r['behind_rate'])} [{pct(r['behind_lo'])}, {pct(r['behind_hi'])}] of the "
        f"{r['games']:,} game(s) still running"
    )
    ge = tables.get("game_ends")
    if ge is not None and {
        "run_id",
        "end_reason",
        "games",
        "comeback_rate",
        "comeback_lo",
        "comeback_hi",
    } <= set(ge.columns):
        # the most common way its games end, with the Wilson interval of the analysis
        reading += _top_clause(
            ge.filter(pl.col("run_id") == runs[0], pl.col("games") > 0).sort("games", descending=True),
            lambda e: (
                f"of its {e['games']:,} {_REASON_TITLES.get(e['end_reason'], end_text(e['end_reason']))}, "
                f"{pct(e['comeback_rate'])} [{pct(e['comeback_lo'])}, {pct(e['comeback_hi'])}] "
                "were won from 100 or more points behind"
            ),
        )
    return Chart("trajectories", of_run(tables, runs, "Score trajectories"), fig, reading + ".")


# --------------------------------------------------------------------------------- comparing tables

_MIX_LEVELS = (
    ("contracts_6", "6"),
    ("contracts_7", "7"),
    ("contracts_8", "8"),
    ("contracts_9", "9"),
    ("contracts_10", "10"),
    ("contracts_misere", "misère"),
)
_MIX_KINDS = (
    ("contracts_suit", "suit trumps"),
    ("contracts_NT", "no trumps"),
    ("contracts_misere", "misère"),
)
_SUCCESS = (
    ("success_all", "all"),
    ("success_6", "6"),
    ("success_7", "7"),
    ("success_8", "8"),
    ("success_9", "9"),
    ("success_10", "10"),
    ("success_suit", "suit"),
    ("success_NT", "NT"),
    ("success_misere", "misère"),
)
_GAME_SHARES = (
    ("thrown_in", "deals thrown in"),
    ("end_fell_to_-500", "games ended at −500"),
    ("comeback", "won from 100 behind"),
)


def table_metric_label(metric: str) -> str:
    """A readable name for a ``table_comparison`` metric."""
    fixed = {
        "thrown_in": "deals thrown in",
        "declarer_points": "declarer's points per contract",
        "deals_per_game": "deals per game",
        "end_reached_500": "games won at 500",
        "end_fell_to_-500": "games ended at −500",
        "end_deal_limit": "games stopped at the deal limit",
        "comeback": "games won from 100 or more behind",
        "success_all": "contracts made",
    }
    if metric in fixed:
        return fixed[metric]
    head, _, what = metric.partition("_")
    what = {"misere": "misère", "suit": "suit-trump", "NT": "no-trump"}.get(what, f"{what}-level")
    if head == "contracts":
        return f"{what} contracts (share of contracts)"
    if head == "success":
        return f"{what} contracts made"
    return metric


def table_values(tables: Tables, runs: Sequence[str]) -> tuple[list[str], dict[str, dict[str, tuple]]]:
    """Runs of ``table_comparison`` (base first) and, per run, metric -> (value, lo, hi, n)."""
    cols = [
        "base_run",
        "run_id",
        "metric",
        "base_mean",
        "base_lo",
        "base_hi",
        "base_n",
        "mean",
        "lo",
        "hi",
        "n",
    ]
    tc = need(tables, "table_comparison", cols)
    base = tc["base_run"][0]
    others = tc["run_id"].unique(maintain_order=True).to_list()
    others = [r for r in runs if r in others] + [r for r in others if r not in runs]
    vals: dict[str, dict[str, tuple]] = {base: {}}
    first = tc.filter(pl.col("run_id") == others[0])
    for m, v, lo, hi, n in first.select("metric", "base_mean", "base_lo", "base_hi", "base_n").iter_rows():
        vals[base][m] = (v, lo, hi, n)
    for run in others:
        vals[run] = {
            m: (v, lo, hi, n)
            for m, v, lo, hi, n in tc.filter(pl.col("run_id") == run)
            .select("metric", "mean", "lo", "hi", "n")
            .iter_rows()
        }
    return [base, *others], vals


def _dodged(
    ax: object,
    order: Sequence[str],
    metrics: Sequence[tuple[str, str]],
    vals: dict[str, dict[str, tuple]],
    labels: dict[str, str],
    bars: bool,
) -> None:
    y = np.arange(len(metrics))
    k = len(order)
    for i, run in enumerate(order):
        mid = np.array([_nan(vals[run].get(m, (None,) * 4)[0]) for m, _ in metrics])
        lo = np.array([_nan(vals[run].get(m, (None,) * 4)[1]) for m, _ in metrics])
        hi = np.array([_nan(vals[run].get(m, (None,) * 4)[2]) for m, _ in metrics])
        off = (i - (k - 1) / 2) * (0.75 / max(k, 1))
        c = PALETTE[i % len(PALETTE)]
        if bars:
            ax.barh(
                y + off,
                np.nan_to_num(mid),
                height=0.75 / max(k, 1),
                color=c,
                alpha=0.8,
                xerr=_err(np.nan_to_num(mid), np.nan_to_num(lo), np.nan_to_num(hi)),
                error_kw={"elinewidth": 0.9, "capsize": 1.5, "ecolor": "#333333"},
                label=labels[run],
            )
        else:
            ok = np.isfinite(mid)
            ax.errorbar(
                mid[ok],
                (y + off)[ok],
                xerr=_err(mid[ok], lo[ok], hi[ok]),
                fmt="o",
                ms=3.5,
                capsize=2,
                color=c,
                label=labels[run],
            )
    ax.set_yticks(y, [name for _, name in metrics])
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))


def tables_chart(tables: Tables, runs: Sequence[str]) -> Chart:
    """Runs on different tables side by side, unpaired: contract mix, success, game length and ends."""
    order, vals = table_values(tables, runs)
    labels = _labels(tables, list(runs) + [r for r in order if r not in runs])
    fig = _fig(10, 8.8)
    axes = fig.subplot_mosaic(
        [["level", "kind"], ["success", "success"], ["length", "ends"]],
        gridspec_kw={"height_ratios": [1.2, 1.5, 1]},
    )
    _dodged(axes["level"], order, _MIX_LEVELS, vals, labels, bars=True)
    axes["level"].set_title("Contract mix by level (share of contracts)")
    _dodged(axes["kind"], order, _MIX_KINDS, vals, labels, bars=True)
    axes["kind"].set_title("Contract mix by trump (share of contracts)")
    _dodged(axes["success"], order, _SUCCESS, vals, labels, bars=False)
    axes["success"].set_xlim(0, 1.02)
    axes["success"].set_title("Contracts made, by level and trump (95% Wilson interval)")
    _legend_below(fig, [axes["success"]], ncols=4)
    ax = axes["length"]
    y = np.arange(len(order))
    mid = np.array([_nan(vals[r].get("deals_per_game", (None,) * 4)[0]) for r in order])
    lo = np.array([_nan(vals[r].get("deals_per_game", (None,) * 4)[1]) for r in order])
    hi = np.array([_nan(vals[r].get("deals_per_game", (None,) * 4)[2]) for r in order])
    _forest(
        ax, [labels[r] for r in order], mid, lo, hi, [PALETTE[i % len(PALETTE)] for i in range(len(order))]
    )
    for yi, v in zip(y, mid, strict=True):
        if math.isfinite(v):
            ax.annotate(
                f"{v:.1f}", (v, yi), xytext=(0, 5), textcoords="offset points", ha="center", fontsize=7
            )
    ax.set_title("Deals per game (95% bootstrap interval)")
    _dodged(axes["ends"], order, _GAME_SHARES, vals, labels, bars=True)
    axes["ends"].set_title("Thrown-in deals and game ends")
    _style(fig)
    base = order[0]

    def v(run: str, m: str, i: int = 0) -> float:
        return _nan(vals[run].get(m, (None,) * 4)[i])

    def rate(run: str, m: str) -> str:  # the share with its 95% Wilson interval
        return f"{pct(v(run, m), 0)} [{pct(v(run, m, 1), 0)}, {pct(v(run, m, 2), 0)}]"

    def mean(run: str, m: str) -> str:  # the mean with its 95% bootstrap interval
        return f"{v(run, m):.1f} [{v(run, m, 1):.1f}, {v(run, m, 2):.1f}]"

    parts = [
        f"{labels[r]} plays {rate(r, 'contracts_6')} of its contracts at the 6 level "
        f"({rate(base, 'contracts_6')} in {labels[base]}), makes {rate(r, 'success_all')} "
        f"({rate(base, 'success_all')}) and lasts {mean(r, 'deals_per_game')} deals per game "
        f"({mean(base, 'deals_per_game')})"
        for r in order[1:]
    ]
    reading = "Unpaired, since each table deals its own cards: " + "; ".join(parts)
    return Chart("tables", "Comparing tables (unpaired)", fig, reading + ".")
