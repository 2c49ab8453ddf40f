"""``fivehundred sweep``: the base rules and every one-switch change of them, paired, in one report.

:func:`sweep_job` is the library function (plan, play or reuse the runs, analyse, report); the
command only parses its flags and prints what it returns.  See docs/sweep.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fivehundred.cli.app import app, sigterm_as_ctrl_c
from fivehundred.cli.options import AddressOption, WorkersOption
from fivehundred.cli.progress import StatusLine, format_duration
from fivehundred.pipelines.rundir import is_store, join, store_name

if TYPE_CHECKING:
    from fivehundred.pipelines.simulate import RunSummary
    from fivehundred.pipelines.sweep import SweepProgress, SweepResult, SweepRun
    from fivehundred.reports import ReportResult


@dataclass(frozen=True)
class SweepOutcome:
    """What :func:`sweep_job` made: the sweep's runs and tables, and the report."""

    result: SweepResult
    report: ReportResult
    #: The sweep's folder as given (an object store's report is uploaded there).
    out: str | Path = ""

    def summary(self) -> str:
        """A few lines for the terminal: runs played and reused, skipped variants, files."""
        r = self.result
        played = sum(s.session_deals for s in r.summaries)
        lines = [
            f"{len(r.summaries)} runs ({r.reused} reused), {played:,} deals played in {r.elapsed:.1f} s",
            *(f"skipped {s.name}: {s.reason}" for s in r.plan.skipped),
            f"statistics: {r.stats_dir}",
            self.report.summary() if not is_store(self.out) else f"report: {join(self.out, 'report.html')}",
        ]
        return "\n".join(lines)


def sweep_job(
    out: str | Path,
    base: str = "pagat-au",
    switches: str = "all",
    variants: str | None = None,
    deals: int = 3000,
    seed: int = 1,
    strategies: str = "heuristic",
    workers: int | None = None,
    address: str | None = None,
    pdf: bool = True,
    progress: Callable[[SweepProgress], None] | None = None,
    on_run: Callable[[SweepRun, RunSummary, SweepProgress], None] | None = None,
    dd_sample: int | None = None,
    dd_progress: Callable[[str, int, int], None] | None = None,
) -> SweepOutcome:
    """Plan the sweep (every input checked first), play or reuse its runs, write ``OUT/stats`` and
    ``OUT/report.html`` (and ``OUT/report.pdf``); ``dd_sample`` adds the DD view of each variant."""
    from fivehundred.cli.statistics import report_files
    from fivehundred.pipelines.sweep import plan_sweep, run_sweep
    from fivehundred.reports.build import check_outputs
    from fivehundred.reports.sweep import build_sweep_report

    plan = plan_sweep(
        out, base, switches, variants, deals, seed, strategies, workers, address, dd_sample=dd_sample
    )
    with report_files(plan.out, pdf) as (html, pdf_path):
        check_outputs(html, pdf_path)
        result = run_sweep(plan, progress=progress, on_run=on_run, dd_progress=dd_progress)
        report = build_sweep_report(result.tables, html, pdf_path)
    return SweepOutcome(result, report, plan.out)


class _SweepBar:
    """Progress of the whole sweep on the command's :class:`~cli.progress.StatusLine`: a line that
    stays per finished run, and the live line (run, deals, ETA) meanwhile."""

    def __init__(self, status: StatusLine | None = None) -> None:
        self.status = status or StatusLine()

    def __call__(self, p: SweepProgress) -> None:
        self.status.update(
            f"[run {p.runs_done + 1}/{p.runs}] {p.current} {p.deals:,}/{p.target_deals:,} deals  "
            f"ETA {format_duration(p.eta)}"
        )

    def dd_done(self, run: str, done: int, total: int) -> None:
        """One DD part of a run solved: the live line meanwhile, a line that stays per finished run."""
        text = f"dd: {store_name(run)}: {done:,}/{total:,} parts solved"
        if done == total:
            self.status.log(text)
        else:
            self.status.update(text)

    def run_done(self, run: SweepRun, summary: RunSummary, p: SweepProgress) -> None:
        what = "reused" if summary.session_deals == 0 else f"{summary.elapsed:.1f} s"
        eta = (
            "analysing the runs, then the report"
            if p.runs_done == p.runs
            else f"ETA {format_duration(p.eta)}"
        )
        self.status.log(
            f"[{p.runs_done}/{p.runs}] {run.name}: {summary.deals:,} deals in "
            f"{summary.games:,} games ({what}); sweep {p.deals:,}/{p.target_deals:,} deals, {eta}"
        )


@app.command("sweep")
def sweep_cmd(
    out: Annotated[str, typer.Option("--out", help="Folder of the sweep: runs/, stats/, report.html.")],
    base: Annotated[str, typer.Option("--base", help="The base rules: a variant name or .toml file.")] = (
        "pagat-au"
    ),
    switches: Annotated[
        str, typer.Option("--switches", help="'all', 'none' or switch keys a,b,... to change one at a time.")
    ] = "all",
    variants: Annotated[
        str | None, typer.Option("--variants", help="Variant names or .toml files to compare too, a,b,...")
    ] = None,
    deals: Annotated[int, typer.Option("--deals", help="Deals per run (at least; whole games).")] = 3000,
    seed: Annotated[int, typer.Option("--seed", help="Master seed of every run (0 to 2^64 - 1).")] = 1,
    strategies: Annotated[
        str, typer.Option("--strategies", help="Strategy per seat, a,b,c,d (one name = all seats).")
    ] = "heuristic",
    workers: WorkersOption = None,
    address: AddressOption = None,
    pdf: Annotated[bool, typer.Option("--pdf/--no-pdf", help="Also write OUT/report.pdf.")] = True,
    dd_sample: Annotated[
        int | None,
        typer.Option(
            "--dd-sample", help="Solve N deals of each run double dummy: each variant's DD effects."
        ),
    ] = None,
) -> None:
    """Play the base and every one-switch variant on the same deals; report the paired effects."""
    bar = _SweepBar()
    try:
        with sigterm_as_ctrl_c(), bar.status:
            outcome = sweep_job(
                out, base, switches, variants, deals, seed, strategies, workers, address, pdf,
                progress=bar, on_run=bar.run_done, dd_sample=dd_sample, dd_progress=bar.dd_done,
            )  # fmt: skip
    except KeyboardInterrupt:
        typer.echo("interrupted: run the same command again to reuse the finished runs", err=True)
        raise typer.Exit(130) from None
    typer.echo(outcome.summary())
