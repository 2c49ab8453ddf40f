"""The main job (``fivehundred run``): simulate, analyse and report in one go on embedded local Ray.

:func:`run_main_job` simulates the default run config (``configs/runs/default.toml``), and the same seed and
strategies under a second rule variant so that the report can show variant effects deal by deal; it analyses
both (with the misère what-if on a sample of deals, and the double-dummy tables of the contracts of the
config's ``dd_sample`` deals of each run) and writes ``report.html`` and ``report.pdf``.  Every step is a
library call of its own module (:func:`pipelines.simulate.run_simulation`, :func:`pipelines.analysis.analyze`,
:func:`cli.statistics.make_report`); one embedded Ray instance serves both simulations.  Running the same
command again resumes the simulations from their finished chunks.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The rule variant of the compared run (same seed, same strategies).
DEFAULT_COMPARE_VARIANT = "club-004"
#: Deals sampled for the forced-misère what-if.
DEFAULT_WHAT_IF_SAMPLE = 1000
DEFAULT_CONFIG_PATH = Path(__file__).resolve().parent.parent / "configs" / "runs" / "default.toml"


@dataclass
class JobResult:
    """Where everything went, with each step's duration in seconds."""

    out: str | Path
    runs: list[str | Path] = field(default_factory=list)
    deals: list[int] = field(default_factory=list)
    #: Per run, what this session did to it: ``played``, ``resumed`` (some chunks were there) or
    #: ``reused`` (finished before: nothing played again).
    done: list[str] = field(default_factory=list)
    stats: str | Path | None = None
    html: str | Path | None = None
    pdf: str | Path | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        """What was made and where, one item per line."""
        lines = []
        words = {"reused": "; finished before: reused, nothing played again", "resumed": "; resumed"}
        for run, n, how in zip(self.runs, self.deals, self.done or [""] * len(self.runs), strict=True):
            lines.append(f"run: {run} ({n:,} deals{words.get(how, '')})")
        lines.append(f"statistics: {self.stats}")
        lines.append(f"report: {self.html}")
        if self.pdf is not None:
            lines.append(f"pdf: {self.pdf}")
        lines.append("times: " + ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items()))
        return "\n".join(lines)


def _done(summary: Any) -> str:
    """What a simulation session did to its run: ``played``, ``resumed`` or ``reused``."""
    if summary.session_deals == 0:
        return "reused"
    return "resumed" if summary.resumed_chunks or summary.resumed_partial_games else "played"


def run_main_job(
    out: str | Path = "runs/main",
    deals: int | None = None,
    config: str | Path | None = None,
    workers: int | None = None,
    compare_variant: str | None = DEFAULT_COMPARE_VARIANT,
    what_if_sample: int = DEFAULT_WHAT_IF_SAMPLE,
    dd_sample: int | None = None,
    pdf: bool = True,
    overwrite: bool = False,
    progress: Callable[[str], None] | None = None,
    simulate_progress: Callable[[Any], None] | None = None,
) -> JobResult:
    """Simulate, analyse and report; returns where the files are (see the module docstring).

    ``deals`` overrides the config's size (the compared run gets the same number of games as the main
    run, so every game pairs); ``workers=0`` plays in-process without Ray; ``compare_variant`` ``None`` or
    ``""`` skips the compared run; ``dd_sample`` (default: the config's ``dd_sample``; 0: none) is the
    deals of each run solved double dummy (``analyze --dd-sample``).  ``progress`` is told each phase in
    words, ``simulate_progress`` gets the simulations' :class:`~pipelines.simulate.Progress`.
    """
    from fivehundred.cli.statistics import make_report
    from fivehundred.pipelines.analysis import analyze
    from fivehundred.pipelines.analysis.dd_sample import check_sample
    from fivehundred.pipelines.outputs import check_output_dir
    from fivehundred.pipelines.raypool import RayPool
    from fivehundred.pipelines.runconfig import load_config
    from fivehundred.pipelines.simulate import run_simulation
    from fivehundred.sim.errors import UserError

    say = progress or (lambda _msg: None)
    from fivehundred.cli.statistics import report_files
    from fivehundred.pipelines.rundir import is_store, join, store_name

    root: str | Path = out if is_store(out) else Path(out)
    result = JobResult(out=root)

    def sub(name: str) -> str | Path:  # a folder of the job: a Path locally, a URI on a store
        return join(root, name) if is_store(root) else Path(root) / name

    path = Path(config) if config is not None else DEFAULT_CONFIG_PATH
    main_dir = sub("main")

    def configure(**kw: Any) -> Any:
        return load_config(path, workers=workers, **kw)

    check_output_dir(root, "--out")
    cfg = configure(out=str(main_dir), deals=deals)
    check_sample(dd_sample, low=0, error=UserError)
    dd_n = cfg.dd_sample if dd_sample is None else dd_sample
    if compare_variant:  # every input is checked before the main run is simulated
        cmp_dir = sub(f"compare-{Path(compare_variant).stem}")
        try:
            configure(out=str(cmp_dir), variant=compare_variant, games=1)
        except UserError as exc:
            raise UserError(f"--compare-variant {compare_variant}: {exc}") from None
    pool = RayPool(workers=workers) if workers != 0 else contextlib.nullcontext()

    def simulate(run_cfg: Any, run_dir: str | Path, what: str, timing: str) -> Any:
        t0 = time.perf_counter()
        say(f"simulating {what} ...")
        summary = run_simulation(run_cfg, progress=simulate_progress, overwrite=overwrite)
        result.runs.append(run_dir)
        result.deals.append(summary.deals)
        result.done.append(_done(summary))
        result.seconds[timing] = time.perf_counter() - t0
        return summary

    with pool:  # one embedded Ray for both simulations (run_simulation reuses an initialised Ray)
        size = f"{cfg.deals:,} deals" if cfg.deals else f"{cfg.games:,} games"
        summary = simulate(cfg, main_dir, f"{size} of {cfg.rules.name}", "simulate (Ray start included)")
        if compare_variant:
            cfg2 = configure(out=str(cmp_dir), variant=compare_variant, games=summary.games)
            simulate(
                cfg2, cmp_dir, f"the same {summary.games:,} games under {cfg2.rules.name}", "simulate compare"
            )
        t0 = time.perf_counter()  # in the pool: the DD sample is solved on the same Ray workers
        stats = sub("stats")
        say("analysing ...")
        analyze(
            [str(r) for r in result.runs],
            stats,
            what_if="misere" if what_if_sample > 0 else None,
            sample=max(what_if_sample, 1),
            dd="contract" if dd_n > 0 else None,
            dd_sample=dd_n if dd_n > 0 else None,
            workers=workers,
            progress=progress,
            dd_progress=lambda run, done, total: say(
                f"dd: {store_name(run)}: {done:,}/{total:,} parts solved"
            ),
        )
        result.stats = stats
        result.seconds["analyze"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    say("writing the report ...")
    with report_files(root, pdf) as (html, pdf_file):
        rep = make_report(result.runs, html, pdf=pdf_file, stats_dir=stats, progress=progress)
    if is_store(root):
        result.html, result.pdf = join(root, "report.html"), join(root, "report.pdf") if pdf else None
    else:
        result.html, result.pdf = rep.html, rep.pdf
    result.seconds["report"] = time.perf_counter() - t0
    return result
