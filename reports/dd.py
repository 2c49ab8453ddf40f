"""The report's double-dummy section: what the deals make under perfect play beside what the bots made.

Reads only the ``dd_`` statistics tables (``analyze --dd``, docs/statistics.md; with ``--dd par``
also how far the bidding lands from par).  These figures do not
depend on the bots' card play: the DD result of a deal is fixed by the contract and the hands.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.ticker
import numpy as np
import polars as pl
from matplotlib.figure import Figure

from fivehundred.reports.figures import PALETTE, Chart
from fivehundred.reports.section import Context, FigureSlot, Section, TableSlot, run_names
from fivehundred.reports.tables import Col, MissingTable, NoData, Tables, html_table, need, num, pct, signed
from fivehundred.sim.notation import MISERE_CODES

_RATE = ["run_id", "n", "success_rate", "success_lo", "success_hi", "dd_rate", "dd_lo", "dd_hi"]
_NO_DD = "no double-dummy tables (run analyze --dd)"


def _rows(t: Tables, run: str) -> pl.DataFrame:
    """One run's levels 6..10 and misère contracts, in that order, with a label."""
    if "dd_by_level" not in t:
        raise MissingTable(_NO_DD)
    lv = need(t, "dd_by_level", [*_RATE, "level"]).filter(pl.col("run_id") == run)
    mis = need(t, "dd_misere", [*_RATE, "contract", "crank"]).filter(pl.col("run_id") == run)
    return pl.concat(
        [
            lv.select(pl.col("level").cast(pl.String).alias("label"), *_RATE),
            mis.sort("crank").select(pl.col("contract").alias("label"), *_RATE),
        ]
    ).filter(pl.col("n") > 0)


def solved_runs(t: Tables, runs: Sequence[str]) -> list[str]:
    """The runs of the report that have double-dummy results, in report order."""
    if "dd_success" not in t or "run_id" not in t["dd_success"].columns:
        return []
    have = set(t["dd_success"].filter(pl.col("n") > 0).get_column("run_id").to_list())
    return [r for r in runs if r in have]


def dd_chart(t: Tables, runs: Sequence[str]) -> Chart:
    """Made as played and DD-makeable (misère: DD-viable) by level, with 95% Wilson intervals, for
    every run that was solved: one colour per run, solid bars as played, hatched ones double dummy."""
    solved = solved_runs(t, runs) or [runs[0]]
    frames = {run: _rows(t, run) for run in solved}
    order = ["6", "7", "8", "9", "10"]
    labels = [lab for lab in order if any(lab in f["label"].to_list() for f in frames.values())]
    misere = {lab for f in frames.values() for lab in f["label"].to_list()} - set(order)
    labels += sorted(misere, key=lambda c: MISERE_CODES.index(c) if c in MISERE_CODES else 9)
    if not labels:
        raise NoData("no contract was played")
    names = run_names(t, solved, short=True)
    x = np.arange(len(labels))
    width = 0.8 / (2 * len(solved))
    fig = Figure(figsize=(7.5, 3.6), layout="constrained")
    ax = fig.add_subplot()
    for i, run in enumerate(solved):
        part = pl.DataFrame({"label": labels}).join(
            frames[run], on="label", how="left", maintain_order="left"
        )
        colour = PALETTE[runs.index(run) % len(PALETTE)]
        for j, (col, how) in enumerate((("success", "made as played"), ("dd", "makeable double dummy"))):
            mid = np.nan_to_num(part[f"{col}_rate"].cast(pl.Float64).to_numpy())
            lo = np.nan_to_num(part[f"{col}_lo"].cast(pl.Float64).to_numpy())
            hi = np.nan_to_num(part[f"{col}_hi"].cast(pl.Float64).to_numpy())
            err = np.vstack([np.clip(mid - lo, 0, None), np.clip(hi - mid, 0, None)])
            off = (2 * i + j - (2 * len(solved) - 1) / 2) * width
            label = f"{names[run]}: {how}" if len(solved) > 1 else how
            ax.bar(
                x + off,
                mid,
                width=width,
                yerr=err,
                capsize=2,
                color=colour if j == 0 else "white",
                edgecolor=colour,
                hatch="////" if j else None,
                label=label,
            )
    counts = [
        "/".join(str(dict(zip(f["label"], f["n"], strict=True)).get(lab, 0)) for f in frames.values())
        for lab in labels
    ]
    ax.set_xticks(x, [f"{lab}\n(n={n})" for lab, n in zip(labels, counts, strict=True)])
    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_ylabel("share of contracts")
    ax.set_xlabel("level bid (misère: made = no trick taken)")
    fig.legend(loc="outside lower center", ncols=2)
    main = frames[solved[0]]
    if main.height == 0:
        raise NoData("no contract was played")
    worst = (
        main.with_columns((pl.col("dd_rate") - pl.col("success_rate")).alias("gap"))
        .sort("gap")
        .row(-1, named=True)
    )
    who = f" in {names[solved[0]]}" if len(solved) > 1 else ""
    reading = (
        f"Level {worst['label']} shows the largest gap{who}: {pct(worst['dd_rate'])} "
        f"[{pct(worst['dd_lo'])}, {pct(worst['dd_hi'])}] of these {worst['n']} contracts are makeable "
        f"double dummy, {pct(worst['success_rate'])} [{pct(worst['success_lo'])}, "
        f"{pct(worst['success_hi'])}] were made by the bots"
    )
    if len(solved) > 1:
        reading += f" (n: contracts of {' / '.join(names[r] for r in solved)})"
    return Chart("dd", "Contracts made as played and under double-dummy play", fig, reading + ".")


def sample_text(t: Tables, run: str) -> str:
    """What the DD tables cover, from ``dd_sample``: every deal, or a sample of N (and the contracts
    solved); empty when the table is absent (statistics written before it existed)."""
    if "dd_sample" not in t:
        return ""
    row = t["dd_sample"].filter(pl.col("run_id") == run)
    if row.height == 0:
        return ""
    r = row.row(0, named=True)
    if r["sample"] is None:
        what = f"every one of the {num(r['deals'])} deals"
    else:
        what = (
            f"a sample of {num(r['sampled'])} of the {num(r['deals'])} deals (the same hands in every run "
            "of this seed: the first deals in a hash order of their seeds)"
        )
    return (
        f'<p class="dd-sample" data-solved="{r["solved"]}">Double-dummy results of {what}: '
        f"{num(r['solved'])} contracts solved.</p>"
    )


def dd_tables_html(t: Tables, runs: Sequence[str]) -> str:
    """Per solved run: what the DD tables cover, its dd_success table, the tricks gained against DD
    per strategy and (with ``--dd par``) the bidding against par."""
    if "dd_success" not in t:
        raise MissingTable(_NO_DD)
    succ_all = need(t, "dd_success", [*_RATE, "contract", "crank", "made_not_dd", "dd_not_made"])
    gain_all = need(
        t, "dd_trick_gain", ["run_id", "role", "strategy", "n", "gain_mean", "gain_lo", "gain_hi"]
    )
    solved = solved_runs(t, runs)
    if not solved:
        raise NoData("no contract of these runs was solved")
    names = run_names(t, solved)
    out = []
    for run in solved:
        head = f"Run {names[run]}: " if len(runs) > 1 else ""
        succ = succ_all.filter((pl.col("run_id") == run) & (pl.col("n") > 0)).sort("crank")
        cols = [
            Col("contract", "contract"),
            Col("played", "n", num),
            Col("made", "success_rate", pct, "success_lo", "success_hi"),
            Col("makeable (DD)", "dd_rate", pct, "dd_lo", "dd_hi"),
            Col("made, not DD-makeable", "made_not_dd", num),
            Col("DD-makeable, not made", "dd_not_made", num),
        ]
        out.append(sample_text(t, run))
        caption = f"{head}contracts as played and under double-dummy play"
        out.append(html_table(succ, "dd_success", cols, caption=caption[:1].upper() + caption[1:], run=run))
        gain = gain_all.filter(pl.col("run_id") == run).sort("role", "strategy")
        gcols = [
            Col("role", "role"),
            Col("strategy", "strategy"),
            Col("deals", "n", num),
            Col("tricks vs DD", "gain_mean", lambda v: signed(v, 2), "gain_lo", "gain_hi"),
            Col("below DD", "below_dd", num),
            Col("above DD", "above_dd", num),
        ]
        caption = f"{head}tricks gained (+) or lost against DD play"
        out.append(
            html_table(gain, "dd_trick_gain", gcols, caption=caption[:1].upper() + caption[1:], run=run)
        )
        out.append(par_html(t, run, head))
    return "\n".join(p for p in out if p)


def par_html(t: Tables, run: str, head: str = "") -> str:
    """How far the bidding lands from the DD par (``dd_par``, ``dd_par_by_strategy``; analyze --dd
    par); empty without those tables."""
    if "dd_par" not in t or "dd_par_by_strategy" not in t:
        return ""
    par = t["dd_par"].filter(pl.col("run_id") == run)
    if par.height == 0:
        return '<p class="nodata">No par: the table has more than two sides.</p>'
    r = par.row(0, named=True)
    lead = (
        f'<p class="dd-par">Par is the contract neither side can profitably outbid with every hand open '
        f"(docs/dd.md). The bots' auction ended at par on {pct(r['at_par_rate'])} "
        f"[{pct(r['at_par_lo'])}, {pct(r['at_par_hi'])}] of {num(r['n'])} deals; above par (a side bought "
        f"more than par) on {num(r['above_par'])}, below par on {num(r['below_par'])}, at par's level by the "
        f"other side on {num(r['par_other_side'])}; par scores {num(r['par_points_mean'], 1)} points per "
        f"deal for its side on average, {num(r['par_net_mean'], 1)} more than the other side (the "
        "defenders' trick points counted).</p>"
    )
    by = t["dd_par_by_strategy"].filter(pl.col("run_id") == run).sort("strategy")
    cols = [
        Col("side's strategies", "strategy"),
        Col("deals", "n", num),
        Col("at par", "at_par", num),
        Col("over-bid", "overbid_rate", pct),
        Col("under-bid", "underbid_rate", pct),
        Col("levels vs par", "level_diff_mean", lambda v: signed(v, 2)),
        Col(
            "points vs par",
            "points_vs_par_mean",
            lambda v: signed(v, 1),
            "points_vs_par_lo",
            "points_vs_par_hi",
        ),
    ]
    caption = head + (
        "how far each side's bidding lands from par: its DD points minus the other side's, against "
        "par's, with a cluster-by-game interval; over-bid: it bought a contract above par; under-bid: "
        "par was its and the auction stopped below"
    )
    caption = caption[:1].upper() + caption[1:]
    return lead + html_table(by, "dd_par_by_strategy", cols, caption=caption, run=run)


def dd_section(ctx: Context) -> Section:
    """The double-dummy section (one line in the contents when the statistics have no dd_ tables)."""
    return Section(
        "dd",
        "Double dummy",
        "What the contracts played make under double-dummy play (all hands open, both sides perfect), "
        "beside what the bots made. The double-dummy figures do not depend on the bots' card play, only on "
        "what they bid and discarded: the bot-independent view of bid success and misère viability.",
        methods=(
            "Each contract is solved exactly from its opening lead with the declarer's hand after its "
            "discards and the joker as named (analyze --dd, docs/dd.md), on every deal or a fixed sample "
            "(--dd-sample: the same hands in every run of the seed); rates carry Wilson intervals, tricks "
            "and points against DD a cluster-by-game interval. With --dd par every seat is also solved in "
            "every denomination (heuristic.v1's kitty exchange) and the bidding is compared with the par "
            "contract."
        ),
        figures=(FigureSlot("dd", dd_chart),),
        tables=(TableSlot("dd_success", dd_tables_html),),
        strategies=ctx.lineups(),
        absent="no double-dummy analysis (analyze --dd, or run --dd-sample N)",
    )
