"""The report's PDF: a cover page, then per shown section a page per figure (title, reading, bots)
and its tables drawn as text, then the appendix's long tables; every page A4 landscape, with fixed
metadata so that the same statistics give the same bytes.

It draws what the renderer (:mod:`reports.build`) made for the HTML page: each figure is built
afresh from its slot (so the layout never depends on an earlier draw), and each table is read back
from its HTML (caption, header, rows).
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from fivehundred.reports.figures import style_context
from fivehundred.reports.page import banner_text, package_version, readable
from fivehundred.reports.section import Context, FigureSlot, Section

#: Every PDF page: A4 landscape (inches).
PAGE = (11.69, 8.27)
_HEAD = 1.25  # inches above a figure for its title, reading and banner
_ROW = 0.19  # inches per table row on a PDF page
_FOOT = 0.5  # inches below, for the banner naming the bots
#: A table split across pages leaves at least this many rows on each page (no stray row alone).
MIN_ROWS = 6


@dataclass(frozen=True)
class PdfSection:
    """What the PDF draws of a shown section: its figure slots, and its body and appendix HTML."""

    section: Section
    figures: tuple[FigureSlot, ...]
    blocks: tuple[str, ...]
    appendix: tuple[str, ...] = ()


def wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters."""
    return "\n".join(textwrap.wrap(text, width))


def _footer(page: Any, banner: str) -> None:
    """The section's bots banner at the foot of a PDF page."""
    page.text(0.02, 0.08 / PAGE[1], wrap(banner, 200), fontsize=6.5, color="#2244aa", va="bottom")


class _TableText(HTMLParser):
    """The shown text of each ``<table class="stats">`` of an HTML block: caption, header, rows."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[str], list[tuple[bool, list[str]]]]] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._few = False
        self._caption: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and "stats" in (a.get("class") or ""):
            self.tables.append(("", [], []))
        elif not self.tables:
            return
        elif tag == "caption":
            self._caption = []
        elif tag == "tr":
            self._row, self._few = [], "few" in (a.get("class") or "")
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if not self.tables:
            return
        _, header, rows = self.tables[-1]
        if tag == "caption" and self._caption is not None:
            self.tables[-1] = ("".join(self._caption), header, rows)
            self._caption = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if header:
                rows.append((self._few, self._row))
            else:
                header.extend(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._caption is not None:
            self._caption.append(data)
        elif self._cell is not None:
            self._cell.append(data)


def _pdf_tables(blocks: Sequence[str]) -> list[tuple[str, list[str], list[tuple[bool, list[str]]]]]:
    parser = _TableText()
    for b in blocks:
        parser.feed(b)
    return [t for t in parser.tables if t[1]]


def split_rows(total: int, first: int, per_page: int) -> list[int]:
    """How many rows of a ``total``-row table go on each page: ``first`` fit on the current page,
    ``per_page`` on a fresh one.  A table that fits a fresh page is not split (``0`` rows on the
    current page: it starts on the next); a split table leaves at least :data:`MIN_ROWS` rows on
    every page (the split moves rows forward rather than leave a stray few)."""
    if total <= first:
        return [total]
    if per_page < 2 * MIN_ROWS:  # a page too small to balance: plain chunks
        return (
            [first] * (first > 0)
            + [per_page] * ((total - first) // per_page)
            + ([(total - first) % per_page] if (total - first) % per_page else [])
        )
    if total <= per_page or first < MIN_ROWS:
        return [0, *split_rows(total, per_page, per_page)]
    chunks = []
    left, room = total, first
    while left > room:
        take = room if left - room >= MIN_ROWS else min(room, left - MIN_ROWS)
        chunks.append(take)
        left -= take
        room = per_page
    chunks.append(left)
    return chunks


def _table_pages(title: str, blocks: Sequence[str]) -> list[Any]:
    """The tables of ``blocks`` drawn as text on pages of :data:`PAGE` size under ``title`` (long
    tables split, :func:`split_rows`)."""
    from matplotlib.figure import Figure

    w, h = PAGE
    pages: list[Any] = []
    page: Any = None
    y = 0.0  # inches from the top of the current page
    top = 0.7  # where a fresh page's first table starts

    def new_page() -> None:
        nonlocal page, y
        page = Figure(figsize=PAGE)
        page.text(0.3 / w, 1 - 0.3 / h, title, fontsize=11, fontweight="bold", va="top")
        pages.append(page)
        y = top

    for caption, header, rows in _pdf_tables(blocks):
        widths = [
            max(len(header[i]), *(len(r[i]) for _, r in rows if i < len(r))) for i in range(len(header))
        ]
        total = sum(widths) or 1
        size = min(7.0, 7.0 * 150 / total)
        text = wrap(caption, 170)
        head = 0.3 + 0.13 * text.count("\n") + _ROW  # the caption and the header row

        def room(at: float, head: float = head) -> int:
            return max(0, int((h - _FOOT - at - head) / _ROW))

        if page is None:
            new_page()
        start = 0
        for k, count in enumerate(split_rows(len(rows), room(y), room(top))):
            if k > 0:
                new_page()
            if count == 0:
                continue
            more = wrap(caption + " (continued)", 170) if start else text
            page.text(0.3 / w, 1 - y / h, more, fontsize=7.5, fontweight="bold", va="top")
            y += 0.3 + 0.13 * more.count("\n")
            for line, (few, cells) in enumerate([(False, header), *rows[start : start + count]]):
                x = 0.3
                for i, cell in enumerate(cells):
                    colour = "#999999" if few else "#000000"
                    weight = "bold" if line == 0 else "normal"
                    page.text(
                        x / w, 1 - y / h, cell, fontsize=size, color=colour, fontweight=weight, va="top"
                    )
                    x += (widths[i] if i < len(widths) else 8) / total * (w - 0.6)
                y += _ROW
            y += 0.2
            start += count
    return pages


@contextmanager
def pdf_pages(path: Path) -> Iterator[Any]:
    """A matplotlib ``PdfPages`` written to a temporary file beside ``path`` with fixed metadata (the
    same pages give the same bytes) and the report style, renamed onto ``path`` only when complete."""
    from matplotlib.backends.backend_pdf import PdfPages

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        meta = {"Creator": "fivehundred", "Producer": "fivehundred", "CreationDate": None}
        with style_context(), PdfPages(tmp, metadata=meta) as pdf:
            yield pdf
        readable(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_pdf(
    path: Path,
    cover: Sequence[str],
    shown: Sequence[PdfSection],
    ctx: Context,
    first_page: Sequence[str] = (),
) -> None:
    """The PDF: ``cover`` lines (and ``first_page`` warnings in red) on the first page, then every
    shown section's figures and tables, then the appendix."""
    from matplotlib.figure import Figure

    h = PAGE[1]
    with pdf_pages(path) as pdf:
        page = Figure(figsize=PAGE)
        top = 0.93
        for line in first_page:
            page.text(0.05, top, wrap(line, 150), va="top", fontsize=9, color="#aa0000", fontweight="bold")
            top -= 0.035 * (1 + wrap(line, 150).count("\n")) + 0.01
        lines = [*cover, "", f"fivehundred {package_version()}; intervals are 95%."]
        page.text(0.05, top, "\n".join(lines), va="top", family="monospace", fontsize=8)
        pdf.savefig(page)
        for item in shown:
            sec = item.section
            banner = banner_text(sec)
            for slot in item.figures:
                c = slot.build(ctx.tables, list(ctx.runs))
                page = c.figure
                page.set_size_inches(*PAGE)  # every page one size: the figure fills it below the head
                page.get_layout_engine().set(rect=(0, 0, 1, 1 - _HEAD / h))
                title = c.title if c.title.startswith(sec.title) else f"{sec.title}: {c.title}"
                page.text(0.02, 1 - 0.12 / h, title, fontsize=11, fontweight="bold", va="top")
                page.text(0.02, 1 - 0.4 / h, wrap(c.reading, 170), fontsize=8, va="top")
                if banner:
                    page.text(0.02, 1 - 0.78 / h, wrap(banner, 200), fontsize=6.5, color="#2244aa", va="top")
                freeze_layout(page)
                pdf.savefig(page)
                page.clear()
            for tpage in _table_pages(f"{sec.title}: tables", item.blocks):
                if banner:
                    _footer(tpage, banner)
                pdf.savefig(tpage)
                tpage.clear()
        for item in shown:
            if item.appendix:
                for tpage in _table_pages(f"Appendix: {item.section.title}", item.appendix):
                    pdf.savefig(tpage)
                    tpage.clear()


def freeze_layout(fig: Any) -> None:
    """Run the constrained layout once, then fix every axes' position rounded to 1e-5.

    The layout solver's last bits depend on the process's hash seed; the PDF writes coordinates with
    six decimals, so without rounding the same figure could differ by one digit between runs.
    """
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    for ax in fig.axes:
        x0, y0, w, h = ax.get_position().bounds
        ax.set_position([round(v, 5) for v in (x0, y0, w, h)])
