"""The report: one self-contained HTML file (figures embedded as PNG), and optionally a PDF.

:func:`build_report` takes the statistics tables (and what the runs' manifests say), makes every
section of :data:`reports.layout.SECTION_BUILDERS`, renders each section's figures and tables
(:mod:`reports.page` lays out the HTML, :mod:`reports.pdf` draws the PDF) and writes the files
atomically.  A figure or table with nothing to show says why in words; a section in which nothing
has data is left out and named, with the reason, under the contents; long tables go to an appendix
at the end, their figures staying in the body.  A figure or table that *fails* (any error but "no
data") is a bug: it is raised, with the section and the figure named, and no file is written.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fivehundred.pipelines.outputs import check_output_file
from fivehundred.pipelines.rundir import Manifest, progress_text
from fivehundred.reports.figures import style_context
from fivehundred.reports.layout import SECTION_BUILDERS
from fivehundred.reports.page import (
    appendix_html,
    atomic_write,
    contents_html,
    figure_html,
    notice,
    page_start,
    section_html,
)
from fivehundred.reports.pdf import PdfSection, write_pdf
from fivehundred.reports.section import Context, FigureSlot, Section, run_names
from fivehundred.reports.section_tables import dir_name, strategies_of
from fivehundred.reports.tables import MissingTable, NoData, ReportError, Tables, run_order


@dataclass
class ReportResult:
    """What was written: paths, and per section/figure/table whether it has content or why not."""

    html: Path
    pdf: Path | None = None
    figures: dict[str, str] = field(default_factory=dict)  # key -> "ok" | "no data: ..."
    tables: dict[str, str] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)  # id -> "shown" | "left out: ..."
    optional: set[str] = field(default_factory=set)  # optional tables left out (no notice)

    def summary(self) -> str:
        """One line per file, then the sections left out and why."""
        ok = sum(1 for v in self.figures.values() if v == "ok")
        lines = [f"report: {self.html} ({ok} of {len(self.figures)} figures)"]
        if self.pdf is not None:
            lines.append(f"pdf: {self.pdf}")
        lines += [f"  {k}: {v}" for k, v in self.sections.items() if v != "shown"]
        return "\n".join(lines)


def check_outputs(out_html: str | Path, pdf: str | Path | None = None) -> None:
    """Refuse a report file that cannot be written (a folder, an unwritable place) before any work."""
    check_output_file(out_html, "-o")
    if pdf is not None:
        check_output_file(pdf, "--pdf")
        if Path(pdf).resolve() == Path(out_html).resolve():
            raise ReportError(f"--pdf {pdf}: the same file as the HTML report")


def sections(ctx: Context) -> list[Section]:
    """The report's sections for ``ctx``, in order."""
    return [build(ctx) for build in SECTION_BUILDERS]


def unfinished_notes(dirs: Sequence[str], manifests: Sequence[Manifest | None]) -> list[str]:
    """One line per run that was not finished when it was analysed (``report --partial``): the
    report's first words, and the PDF's first page."""
    return [
        f"Not finished: {dir_name(d)} holds {progress_text(m)} (still running or interrupted); "
        "every figure and table is of that part only."
        for d, m in zip(dirs, manifests, strict=True)
        if m is not None and m.native and not m.complete
    ]


@dataclass
class _Rendered:
    """A section drawn: its body and appendix HTML, the figures drawn, and why it is left out."""

    section: Section
    blocks: list[str] = field(default_factory=list)
    appendix: list[str] = field(default_factory=list)
    drawn: list[FigureSlot] = field(default_factory=list)
    shown: bool = False
    why: str = ""


def _reason(sec: Section, exc: NoData) -> str:
    """Why a figure or table has nothing to show, in words (a missing table: the section's reason)."""
    return sec.absent if isinstance(exc, MissingTable) else str(exc)


def _failed(sec: Section, what: str, exc: Exception) -> RuntimeError:
    return RuntimeError(f"report section '{sec.title}', {what}: {type(exc).__name__}: {exc}")


def _render(sec: Section, ctx: Context, result: ReportResult) -> _Rendered:
    out = _Rendered(sec, shown=sec.always_shown)
    missing: list[tuple[int, str]] = []  # (place in the blocks, reason) of parts with no data
    for slot in sec.figures:
        try:
            if not ctx.runs:
                raise MissingTable("the statistics list no run")
            chart = slot.build(ctx.tables, list(ctx.runs))
            png = chart.png()
        except NoData as exc:
            result.figures[slot.key] = f"no data: {_reason(sec, exc)}"
            missing.append((len(out.blocks), _reason(sec, exc)))
            continue
        except Exception as exc:
            raise _failed(sec, f"figure '{slot.key}'", exc) from exc
        chart.figure.clear()
        out.blocks.append(figure_html(chart, png))
        out.drawn.append(slot)
        result.figures[slot.key] = "ok"
        out.shown = True
    for tslot in sec.tables:
        try:
            if not ctx.runs and not sec.always_shown:
                raise MissingTable("the statistics list no run")
            block = tslot.build(ctx.tables, list(ctx.runs))
        except NoData as exc:
            result.tables[tslot.name] = f"no data: {_reason(sec, exc)}"
            if tslot.optional:
                result.optional.add(tslot.name)
            else:
                missing.append((len(out.blocks), _reason(sec, exc)))
            continue
        except Exception as exc:
            raise _failed(sec, f"table '{tslot.name}'", exc) from exc
        (out.appendix if tslot.appendix else out.blocks).append(block)
        result.tables[tslot.name] = "ok"
        out.shown = True
    if out.shown:
        for place, why in reversed(missing):
            out.blocks.insert(place, notice(f"Not shown here: {why}."))
    out.why = missing[0][1] if missing else sec.absent
    result.sections[sec.id] = "shown" if out.shown else f"left out: {out.why}"
    return out


def _cover(ctx: Context, rendered: Sequence[_Rendered]) -> list[str]:
    """The PDF's first page: every run (directory, rules, seed, line-up, counts) and the sections."""
    lines = ["Five Hundred: simulation report", ""]
    names = run_names(ctx.tables, ctx.runs)
    ov = ctx.tables.get("overview")
    for d, m in zip(ctx.dirs, ctx.manifests, strict=True):
        seed = m.master_seed if m is not None else None
        variant = (m.variant if m is not None else None) or "?"
        lines.append(f"Run directory: {d}")
        lines.append(f"  rules {variant}, master seed {seed if seed is not None else '?'}")
        lines.append(f"  strategies: {strategies_of(m)}")
    if ov is not None and {"run_id", "variant", "deals", "games"} <= set(ov.columns):
        for r in ov.iter_rows(named=True):
            lines.append(
                f"  {names.get(r['run_id'], r['run_id'])}: {r['deals']:,} deals, {r['games']:,} games"
            )
    lines += ["", "Sections:"]
    lines += [f"  {r.section.title}" for r in rendered if r.shown]
    if any(r.appendix for r in rendered if r.shown):
        lines.append("  Appendix: long tables")
    left = [r for r in rendered if not r.shown]
    if left:
        lines += ["", "Not in this report:"]
        lines += [f"  {r.section.title} ({r.why})" for r in left]
    return lines


def build_report(
    run_dirs: Sequence[str | Path],
    out_html: str | Path,
    pdf: str | Path | None = None,
    *,
    tables: Tables,
    manifests: Sequence[Manifest | None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReportResult:
    """Write the HTML report (and the PDF when ``pdf`` is given) from statistics ``tables``.

    ``run_dirs`` name the runs (main run first) and ``manifests`` are what their manifests say (for
    the methods section and the first page's word on unfinished runs; ``None``: not recorded).  The
    report reads nothing else: the caller finds the tables (``fivehundred report`` reads or makes
    them, see :mod:`cli.statistics`).  ``progress`` (optional) is told which section is being drawn.
    A figure or table that fails raises (nothing is written).
    """
    if not run_dirs:
        raise ReportError("no run directory given")
    dirs = [str(d) for d in run_dirs]
    infos = list(manifests) if manifests is not None else [None] * len(dirs)
    if len(infos) != len(dirs):
        raise ValueError("one manifest (or None) per run directory")
    wanted = [m.run_id if m is not None else None for m in infos]
    check_outputs(out_html, pdf)
    runs = run_order(tables, wanted)
    ctx = Context(tables, tuple(runs), tuple(dirs), tuple(infos))
    result = ReportResult(html=Path(out_html), pdf=Path(pdf) if pdf else None)
    say = progress or (lambda _text: None)
    with style_context():
        todo = sections(ctx)
        rendered = []
        for i, sec in enumerate(todo, 1):
            say(f"drawing the report: {i}/{len(todo)} {sec.title} ...")
            rendered.append(_render(sec, ctx, result))
    shown = [r for r in rendered if r.shown]
    warnings = unfinished_notes(dirs, infos)
    title = "Five Hundred: " + ", ".join(html.escape(dir_name(d)) for d in dirs)
    page = [
        *page_start(title),
        *(f'<p class="partial" data-partial="1"><b>{html.escape(w)}</b></p>' for w in warnings),
        "<p>Simulated Five Hundred: what the deals say about bidding, misère, strategies "
        "and rule variants.</p>",
        contents_html(
            [r.section for r in shown],
            [(r.section, r.why) for r in rendered if not r.shown],
            any(r.appendix for r in shown),
        ),
    ]
    page += [section_html(r.section, r.blocks, r.appendix) for r in shown]
    page.append(appendix_html([(r.section, r.appendix) for r in shown if r.appendix]))
    page.append("</body></html>")
    if result.pdf is not None:
        say("writing the PDF ...")
        parts = [PdfSection(r.section, tuple(r.drawn), tuple(r.blocks), tuple(r.appendix)) for r in shown]
        write_pdf(result.pdf, _cover(ctx, rendered), parts, ctx, first_page=warnings)
    atomic_write(result.html, ("\n".join(p for p in page if p) + "\n").encode("utf-8"))
    return result
