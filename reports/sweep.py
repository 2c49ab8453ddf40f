"""The report of a rule sweep (``fivehundred sweep``): ``DIR/report.html`` and optionally a PDF.

Built only from the statistics tables the sweep wrote (``sweep_effects``, ``sweep_variants``, and
``overview`` for the counts): at the top one table and one forest plot of every variant's paired
effect on the headline metrics with its multiplicity-adjusted interval, sorted by size; then one
section per variant with the rule difference from the base in words, the bots that played, its
effects and (with ``sweep --dd-sample``) its double-dummy view from ``sweep_dd_effects``; the variants
that were skipped, with the reason.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib.ticker
import numpy as np
import polars as pl

from fivehundred.reports.build import ReportResult, check_outputs
from fivehundred.reports.figures import PALETTE, Chart, _err, _fig, _style, style_context
from fivehundred.reports.page import atomic_write, figure_html, page_start
from fivehundred.reports.pdf import freeze_layout, pdf_pages, wrap
from fivehundred.reports.section_tables import p_value
from fivehundred.reports.tables import Col, NoData, Tables, html_table, need, num, pct, signed

#: Metrics measured in points (the others are shares of deals or games, and deals per game).
_POINTS = ("points_total", "first_bidder_margin")


def _fmt(metric: str) -> Callable[[Any], str]:
    """How a difference of ``metric`` is shown: points, deals, or percentage points."""
    if metric in _POINTS:
        return lambda x: signed(x, 1)
    if metric == "deals_per_game":
        return lambda x: signed(x, 2)
    return lambda x: signed(100 * x, 1) + " pp" if isinstance(x, int | float) else "—"


def _unit(metric: str) -> str:
    if metric in _POINTS:
        return "points per deal"
    if metric == "deals_per_game":
        return "deals per game"
    return "percentage points"


def _metrics(eff: pl.DataFrame) -> list[tuple[str, str]]:
    """(metric, label) in the table's order."""
    return list(eff.select("metric", "label").unique(maintain_order=True).iter_rows())


def _by_size(eff: pl.DataFrame, metric: str) -> pl.DataFrame:
    """One metric's rows, the largest effect first (missing effects last, then by name)."""
    sub = eff.filter(pl.col("metric") == metric)
    return sub.with_columns(pl.col("diff_mean").abs().alias("_size")).sort(
        "_size", "name", descending=[True, False], nulls_last=True
    )


def summary_table(t: Tables) -> str:
    """The top table: one row per variant (largest points-per-deal effect first), one column per
    headline metric with the effect and its adjusted interval."""
    eff = need(t, "sweep_effects", ["name", "change", "metric", "label", "diff_mean", "adj_lo", "adj_hi"])
    metrics = _metrics(eff)
    order = _by_size(eff, metrics[0][0]).get_column("name").to_list()
    wide = pl.DataFrame({"name": order}).join(
        eff.select("name", "change").unique("name", keep="first"), on="name", how="left"
    )
    cols = [Col("variant", "name"), Col("the rule, changed from the base", "change")]
    for metric, label in metrics:
        part = eff.filter(pl.col("metric") == metric).select(
            "name",
            pl.col("diff_mean").alias(f"{metric}:d"),
            pl.col("adj_lo").alias(f"{metric}:lo"),
            pl.col("adj_hi").alias(f"{metric}:hi"),
        )
        wide = wide.join(part, on="name", how="left", maintain_order="left")
        cols.append(Col(label, f"{metric}:d", _fmt(metric), f"{metric}:lo", f"{metric}:hi"))
    level = eff.get_column("adj_level").drop_nulls()
    caption = (
        "Every variant against the base, paired deal by deal (variant − base); in brackets the "
        f"simultaneous {pct(level[0] if level.len() else None, 2)} interval over all {eff.height} effects "
        "of the sweep (the family of the Holm adjustment); rates in percentage points"
    )
    return html_table(wide, "sweep_effects", cols, caption=caption)


def forest_chart(t: Tables) -> Chart:
    """One panel per headline metric: every variant's effect with its adjusted interval, by size."""
    eff = need(t, "sweep_effects", ["name", "metric", "label", "diff_mean", "adj_lo", "adj_hi"])
    metrics = _metrics(eff)
    n = eff.filter(pl.col("metric") == metrics[0][0]).height
    rows = math.ceil(len(metrics) / 2)
    fig = _fig(11.5, rows * (0.17 * n + 1.0) + 0.4)
    axes = fig.subplots(rows, 2, squeeze=False).ravel()
    for ax, (metric, label) in zip(axes, metrics, strict=False):
        sub = _by_size(eff, metric)
        mid = sub.get_column("diff_mean").cast(pl.Float64).fill_null(math.nan).to_numpy()
        lo = sub.get_column("adj_lo").cast(pl.Float64).fill_null(math.nan).to_numpy()
        hi = sub.get_column("adj_hi").cast(pl.Float64).fill_null(math.nan).to_numpy()
        scale = 1.0 if metric in _POINTS or metric == "deals_per_game" else 100.0
        y = np.arange(sub.height)
        sig = sub.get_column("holm_significant").fill_null(False).to_list()
        colors = [PALETTE[1] if s else PALETTE[0] for s in sig]
        for i in range(sub.height):
            ax.errorbar(
                mid[i] * scale,
                y[i],
                xerr=_err(mid[i : i + 1] * scale, lo[i : i + 1] * scale, hi[i : i + 1] * scale),
                fmt="s",
                ms=3.5,
                capsize=2,
                color=colors[i],
            )
        ax.set_yticks(y, sub.get_column("name").to_list(), fontsize=6.5)
        ax.set_ylim(sub.height - 0.5, -0.5)
        ax.axvline(0, color="#444444", lw=0.8)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel(_unit(metric), fontsize=8)
        if scale != 1.0:
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%+.1f"))
    for ax in axes[len(metrics) :]:
        ax.set_visible(False)
    _style(fig)
    for ax in axes:
        ax.tick_params(axis="y", labelsize=6.5)
    sig = int(eff.select(pl.col("holm_significant").fill_null(False).sum()).item())
    top = _by_size(eff, metrics[0][0]).row(0, named=True)
    reading = (
        f"{sig} of {eff.height} effects are distinguishable from zero after Holm's adjustment over the "
        f"whole sweep (orange; blue: not); the largest effect on {metrics[0][1]} is {top['name']} "
        f"({_fmt(metrics[0][0])(top['diff_mean'])}, adjusted interval "
        f"[{_fmt(metrics[0][0])(top['adj_lo'])}, {_fmt(metrics[0][0])(top['adj_hi'])}])"
    )
    return Chart("sweep_forest", "Every variant's paired effect, by size", fig, reading + ".")


def _variant_section(t: Tables, row: dict[str, Any], base: dict[str, Any]) -> str:
    """One variant: the change in words, the bots that played, how it was paired, its effects."""
    name = str(row["name"])
    out = [f'<section id="variant-{html.escape(name)}" data-variant="{html.escape(name)}">']
    out.append(f"<h3>{html.escape(name)}</h3>")
    out.append(f'<p class="change"><b>Rule:</b> {html.escape(str(row["change"]))}.</p>')
    out.append(
        f'<p class="bots" data-bots="1"><b>Bots that played</b> (strategies per seat): '
        f"<code>{html.escape(str(row['strategies']))}</code>; base: "
        f"<code>{html.escape(str(base['strategies']))}</code>. The effects are those of these bots "
        "under these rules.</p>"
    )
    out.append(
        f"<p>{num(row['deals'])} deals in {num(row['games'])} games; {num(row['paired_deals'])} deals paired "
        f"with the base ({html.escape(str(row['pairing']))}).</p>"
    )
    eff = t["sweep_effects"].filter(pl.col("name") == name)
    if eff.height:
        cols = [
            Col("metric", "label"),
            Col("base (pairs)", "paired_base_mean", lambda x: num(x, 3)),
            Col("variant (pairs)", "paired_mean", lambda x: num(x, 3)),
            Col("difference (95%)", "diff_mean", lambda x: signed(x, 3), "diff_lo", "diff_hi"),
            Col("difference (adjusted)", "diff_mean", lambda x: signed(x, 3), "adj_lo", "adj_hi"),
            Col("Holm p (whole sweep)", "p_holm", p_value),
        ]
        caption = f"{name} − base, paired; rates as shares (0.01 = 1 percentage point)"
        out.append(html_table(eff, "sweep_effects", cols, caption=caption, run=row["run_id"]))
    else:
        out.append(
            '<p class="nodata">Not paired with the base (another table deals other cards from the same '
            "seed): see the table_comparison statistics.</p>"
        )
    out.append(_dd_view(t, row))
    out.append("</section>")
    return "\n".join(out)


def _dd_view(t: Tables, row: dict[str, Any]) -> str:
    """The variant's double-dummy view: its paired effects on DD makeability and misère DD viability
    (``sweep_dd_effects``), or why there is none."""
    if "sweep_dd_effects" not in t:
        return '<p class="nodata" data-dd="none">No double-dummy view (run the sweep with --dd-sample N).</p>'
    name = str(row["name"])
    eff = t["sweep_dd_effects"].filter(pl.col("name") == name)
    if eff.height == 0:
        return (
            '<p class="nodata" data-dd="none">No double-dummy view: the variant is not paired with the base, '
            "or no sampled pair played the contracts compared.</p>"
        )
    n = eff.get_column("paired_n").max()
    cols = [
        Col("double-dummy metric", "label"),
        Col("pairs", "paired_n", num),
        Col("base", "paired_base_mean", lambda x: num(x, 3)),
        Col("variant", "paired_mean", lambda x: num(x, 3)),
        Col("difference (95%)", "diff_mean", lambda x: signed(x, 3), "diff_lo", "diff_hi"),
        Col("difference (adjusted)", "diff_mean", lambda x: signed(x, 3), "adj_lo", "adj_hi"),
        Col("Holm p (DD family)", "p_holm", p_value),
    ]
    caption = (
        f"{name} − base under double-dummy play, paired over the DD sample's deals both runs played "
        f"(up to {num(n)}); rates as shares; adjusted over every DD effect of the sweep"
    )
    intro = (
        '<p class="dd-view">What the contracts bid make with all hands open and both sides perfect: a '
        "view of the rule's effect that does not depend on the bots' card play, only on what they bid.</p>"
    )
    return intro + html_table(eff, "sweep_dd_effects", cols, caption=caption, run=row["run_id"])


def _skipped_table(t: Tables) -> str:
    var = t["sweep_variants"].filter(pl.col("status") == "skipped")
    if var.height == 0:
        return "<p>No variant was skipped.</p>"
    cols = [Col("variant", "name"), Col("why it was not played", "reason")]
    return html_table(var, "sweep_variants", cols, caption="Variants skipped")


def _intro(t: Tables, var: pl.DataFrame, base: dict[str, Any]) -> str:
    played = var.filter(pl.col("status") == "played").height - 1
    skipped = var.filter(pl.col("status") == "skipped").height
    return (
        f"<p>The base rules <b>{html.escape(str(base['variant']))}</b> and {played} variants, each changing "
        f"one rule (or a variant file), played on the same deals: one master seed, so hand <i>j</i> of game "
        f"<i>g</i> holds the same cards in every run and each variant is compared with the base deal by "
        f"deal. {skipped} planned variants were skipped (listed at the end). Base: {num(base['deals'])} "
        f"deals in {num(base['games'])} games.</p>"
        f'<p class="bots" data-bots="1"><b>Bots that played</b> (strategies per seat): '
        f"<code>{html.escape(str(base['strategies']))}</code>. Other bots bid and play other hands: the "
        "effects are properties of these bots under these rules, not of the game itself.</p>" + _dd_intro(t)
    )


def _dd_intro(t: Tables) -> str:
    """One paragraph on the DD sample behind each variant's double-dummy view (none without one)."""
    if "dd_sample" not in t or t["dd_sample"].height == 0:
        return ""
    r = t["dd_sample"].row(0, named=True)
    size = "every deal" if r["sample"] is None else f"a sample of {num(r['sampled'])} deals"
    return (
        f'<p class="dd-sample"><b>Double dummy:</b> {size} of the base ({num(r["solved"])} contracts) and '
        "the same hands of every variant were solved with all hands open; each variant's section gives its "
        "paired effect on the DD makeability of the contracts bid and on misère DD viability.</p>"
    )


def build_sweep_report(tables: Tables, out_html: str | Path, pdf: str | Path | None = None) -> ReportResult:
    """Write the sweep's HTML report (and PDF) from its statistics tables; returns what was written."""
    check_outputs(out_html, pdf)
    var = need(tables, "sweep_variants", ["name", "status", "change", "strategies", "run_id"])
    base = var.filter(pl.col("kind") == "base").row(0, named=True)
    result = ReportResult(html=Path(out_html), pdf=Path(pdf) if pdf else None)
    body = [_intro(tables, var, base)]
    chart: Chart | None = None
    with style_context():
        try:
            chart = forest_chart(tables)
            body.append(figure_html(chart, chart.png()))
            result.figures["sweep_forest"] = "ok"
        except NoData as exc:
            body.append(f'<p class="nodata">no data: {html.escape(str(exc))}</p>')
            result.figures["sweep_forest"] = f"no data: {exc}"
    try:
        body.append(summary_table(tables))
        result.tables["sweep_effects"] = "ok"
    except NoData as exc:
        body.append(f'<p class="nodata">no data: {html.escape(str(exc))}</p>')
        result.tables["sweep_effects"] = f"no data: {exc}"
    body.append("<h2>Each variant</h2>")
    for row in var.filter((pl.col("status") == "played") & (pl.col("kind") != "base")).iter_rows(named=True):
        body.append(_variant_section(tables, row, base))
    body.append("<h2>Skipped</h2>")
    body.append(_skipped_table(tables))
    title = f"Five Hundred: every rule against {html.escape(str(base['variant']))}"
    page = [*page_start(title), *body, "</body></html>"]
    atomic_write(result.html, ("\n".join(page) + "\n").encode("utf-8"))
    if result.pdf is not None and chart is not None:
        _write_pdf(result.pdf, tables, var)
    if chart is not None:
        chart.figure.clear()
    return result


def _write_pdf(path: Path, tables: Tables, var: pl.DataFrame) -> None:
    """A cover page listing every variant's change in words, then the forest plot (fixed metadata)."""
    from matplotlib.figure import Figure

    with pdf_pages(path) as pdf:
        cover = Figure(figsize=(8.27, 11.69))
        lines = ["Five Hundred: rule sweep", ""]
        for r in var.iter_rows(named=True):
            what = r["change"] if r["status"] == "played" else f"skipped: {r['reason']}"
            lines += wrap(f"{r['name']}: {what or 'the base'}", 110).splitlines()
        cover.text(0.05, 0.96, "\n".join(lines[:90]), va="top", family="monospace", fontsize=6.5)
        pdf.savefig(cover)
        chart = forest_chart(tables)
        freeze_layout(chart.figure)
        pdf.savefig(chart.figure)
        chart.figure.clear()


__all__: Sequence[str] = ("build_sweep_report", "forest_chart", "summary_table")
