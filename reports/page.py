"""The report's HTML page: the style, the head, figures, notices, the contents and each section's
markup, and how files are written (atomically, with the permissions a plain ``open`` gives).

Nothing here computes a number: it lays out what the section builders (:mod:`reports.layout`) and
the renderer (:mod:`reports.build`) hand it.
"""

from __future__ import annotations

import base64
import html
import os
import tempfile
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fivehundred.reports.figures import Chart
    from fivehundred.reports.section import Section

CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.7em;margin-bottom:.2em} h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
nav ol{columns:2} figure{margin:1.2em 0} figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.95em;color:#333;margin-top:.3em} figcaption b{color:#000}
table.stats{border-collapse:collapse;margin:1em 0;font-size:.88em}
table.stats th,table.stats td{border-bottom:1px solid #ddd;padding:.25em .7em;text-align:right}
table.stats th{background:#f4f4f4} table.stats td:first-child,table.stats th:first-child{text-align:left}
table.stats caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
span.ci{color:#777;font-size:.9em}
p.bots{background:#eef4ff;border-left:3px solid #36c;padding:.4em .8em}
p.partial{background:#fff0f0;border-left:3px solid #c00;padding:.4em .8em}
.nodata{color:#8a5a00;background:#fff7e6;padding:.5em .8em;border-left:3px solid #e0a000}
dl.methods{display:grid;grid-template-columns:max-content auto;gap:.2em 1.2em} dl.methods dt{font-weight:600}
code{font-size:.9em}
tr.few td{color:#aaa} p.how{font-size:.9em;color:#444} p.left-out{color:#666;font-size:.95em}
p.appendix{font-size:.9em;color:#444}
p.disagree{background:#f6f6f6;border-left:3px solid #888;padding:.4em .8em}
"""


def package_version() -> str:
    """The installed version of the package (``unknown`` in a bare checkout)."""
    try:
        return version("fivehundred")
    except PackageNotFoundError:
        return "unknown"


def readable(tmp: str) -> None:
    """Give a temporary file the permissions a plain ``open`` would (mkstemp makes it private)."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)


def atomic_write(path: Path, data: bytes) -> None:
    """``data`` written to a temporary file beside ``path``, then renamed onto it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        readable(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def page_start(title: str) -> list[str]:
    """The first lines of a report page: doctype, head with ``title`` and the style, ``<h1>``."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{CSS}</style></head><body>",
        f"<h1>{title}</h1>",
    ]


def notice(text: str) -> str:
    """A short paragraph saying what a figure or table has nothing to show, and why."""
    return f'<p class="nodata">{html.escape(text)}</p>'


def figure_html(chart: Chart, png: bytes) -> str:
    """A figure with its PNG embedded, its title and its one-sentence reading."""
    b64 = base64.b64encode(png).decode("ascii")
    return (
        f'<figure id="fig-{chart.key}" data-figure="{chart.key}">'
        f'<img alt="{html.escape(chart.title)}" src="data:image/png;base64,{b64}">'
        f"<figcaption><b>{html.escape(chart.title)}.</b> {html.escape(chart.reading)}</figcaption></figure>"
    )


def banner(sec: Section) -> str:
    """The banner of a section: which bots played the runs whose figures follow."""
    if not sec.strategies:
        return ""
    items = "; ".join(
        f"{html.escape(name)}: <code>{html.escape(lineup)}</code>" for name, lineup in sec.strategies
    )
    if not sec.depends_on_bots:
        return f'<p class="bots" data-bots="0"><b>These figures do not depend on the bots</b> — {items}.</p>'
    return (
        '<p class="bots" data-bots="1"><b>These figures describe the bots that played</b> '
        f"(strategies per seat) — {items}. Other bots bid and play other hands: the numbers are "
        "properties of these bots under these rules, not of the game itself.</p>"
    )


def banner_text(sec: Section) -> str:
    """:func:`banner` as plain text (the PDF's pages)."""
    if not sec.strategies:
        return ""
    runs = "; ".join(f"{name}: {lineup}" for name, lineup in sec.strategies)
    if not sec.depends_on_bots:
        return f"These figures do not depend on the bots. Runs: {runs}."
    return f"These figures describe the bots that played (strategies per seat): {runs}."


def section_html(sec: Section, blocks: Sequence[str], appendix: Sequence[str] = ()) -> str:
    """A shown section: title, reading, banner, notes, its figures and tables, a pointer to its
    tables in the appendix, and how its numbers are made."""
    parts = [f'<section id="{sec.id}"><h2>{html.escape(sec.title)}</h2><p>{html.escape(sec.reading)}</p>']
    parts.append(banner(sec))
    parts += list(sec.notes)
    parts += list(blocks)
    if appendix:
        parts.append(
            f'<p class="appendix" data-appendix-link="{sec.id}">The long tables of this section, every '
            f'cell with its interval, are in the <a href="#appendix-{sec.id}">appendix</a>.</p>'
        )
    if sec.methods:
        parts.append(f'<p class="how" data-methods="{sec.id}"><b>How:</b> {html.escape(sec.methods)}</p>')
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def appendix_html(items: Sequence[tuple[Section, Sequence[str]]]) -> str:
    """The appendix: each section's long tables under the section's title."""
    if not items:
        return ""
    parts = ['<section id="appendix"><h2>Appendix: long tables</h2>']
    for sec, blocks in items:
        parts.append(f'<h3 id="appendix-{sec.id}">{html.escape(sec.title)}</h3>')
        parts += list(blocks)
    parts.append("</section>")
    return "\n".join(parts)


def contents_html(shown: Sequence[Section], left_out: Sequence[tuple[Section, str]], appendix: bool) -> str:
    """The contents: the shown sections (and the appendix), then the sections left out and why."""
    items = [f'<li><a href="#{s.id}">{html.escape(s.title)}</a></li>' for s in shown]
    if appendix:
        items.append('<li><a href="#appendix">Appendix: long tables</a></li>')
    out = "<nav><ol>" + "".join(items) + "</ol></nav>"
    if left_out:
        why = "; ".join(
            f'<span data-left-out="{s.id}" data-why="{html.escape(reason)}">{html.escape(s.title)} '
            f"({html.escape(reason)})</span>"
            for s, reason in left_out
        )
        out += f'<p class="left-out">Not in this report: {why}.</p>'
    return out
