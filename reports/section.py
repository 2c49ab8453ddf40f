"""A report section as one object: :class:`Section` (title, reading, methods text, figures, tables,
the bots it describes), made by one function per section from a :class:`Context`.

Adding a section is writing one function ``(Context) -> Section`` and listing it once in
:data:`reports.layout.SECTION_BUILDERS`; the HTML and PDF renderers iterate the sections.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fivehundred.reports.tables import Tables

if TYPE_CHECKING:
    from fivehundred.pipelines.rundir import Manifest
    from fivehundred.reports.figures import Chart

#: A figure builder: the tables and the run order (main run first) -> a :class:`~reports.figures.Chart`.
FigureFn = Callable[[Tables, Sequence[str]], "Chart"]
#: A table builder: the tables and the run order -> HTML (raises ``NoData`` when it has nothing).
TableFn = Callable[[Tables, Sequence[str]], str]


@dataclass(frozen=True)
class FigureSlot:
    """One figure of a section: its key (``data-figure``) and the builder that draws it."""

    key: str
    build: FigureFn


@dataclass(frozen=True)
class TableSlot:
    """One table of a section; an ``optional`` one is left out silently when it has no data; an
    ``appendix`` one (a long table) is printed in the report's appendix, its section pointing to it."""

    name: str
    build: TableFn
    optional: bool = False
    appendix: bool = False


@dataclass(frozen=True)
class Context:
    """What every section function may read: the statistics tables, the run order, the runs' manifests."""

    tables: Tables
    runs: tuple[str, ...]
    dirs: tuple[str, ...] = ()
    manifests: tuple[Manifest | None, ...] = ()

    def lineups(self) -> tuple[tuple[str, str], ...]:
        """(run name, strategies per seat) of every run, from the ``overview`` table; the name is the
        variant where that tells the runs apart, else the readable run name."""
        ov = self.tables.get("overview")
        if ov is None or not {"run_id", "strategies"} <= set(ov.columns):
            return ()
        lines = dict(ov.select("run_id", "strategies").iter_rows())
        names = run_names(self.tables, self.runs)
        variants = dict(ov.select("run_id", "variant").iter_rows()) if "variant" in ov.columns else {}
        shown = [r for r in self.runs if r in lines]
        # The variant names the run when it tells the runs apart (the line-up follows in full).
        unique = len({variants.get(r) for r in shown}) == len(shown) and all(variants.get(r) for r in shown)
        return tuple((str(variants[r]) if unique else names[r], str(lines[r])) for r in shown)


@dataclass(frozen=True)
class Section:
    """One section of the report.

    ``reading`` is the lead paragraph, ``methods`` how its numbers are made (shown at the section's
    end and gathered in the methods section), ``strategies`` the (run name, line-up) pairs of the bots
    whose play produced it, and ``depends_on_bots`` whether its numbers would change with other bots
    (the banner says so).  A section whose figures and tables all have no data is left out, named with
    the reason (``absent``, or what its builders said) under the contents.
    """

    id: str
    title: str
    reading: str
    methods: str = ""
    figures: tuple[FigureSlot, ...] = ()
    tables: tuple[TableSlot, ...] = ()
    strategies: tuple[tuple[str, str], ...] = ()
    depends_on_bots: bool = True
    always_shown: bool = False  # shown even when empty (the methods section)
    notes: tuple[str, ...] = field(default=())  # extra HTML paragraphs after the reading
    #: Why the section has nothing to show, in words, when its figures and tables say no better
    #: (the contents lists it among the sections left out).
    absent: str = "nothing to show for these runs"


def lineup_label(text: str) -> str:
    """``"heuristic.v1,heuristic.v1,heuristic.v1,heuristic.v1"`` -> ``"heuristic.v1 ×4"``; mixed line-ups
    keep their seat order (``"a, b, a, b"`` -> ``"a, b ×2"``); several line-ups stay separated by ``|``."""
    out = []
    for lineup in str(text).split(" | "):
        parts = _seats(lineup)
        if len(parts) > 1 and len(set(parts)) == 1:
            out.append(f"{parts[0]} ×{len(parts)}")
        elif len(parts) == 4 and parts[0] == parts[2] and parts[1] == parts[3]:
            out.append(f"{parts[0]}, {parts[1]} ×2")
        else:
            out.append(", ".join(parts))
    return " | ".join(out)


def _seats(lineup: str) -> list[str]:
    """The seats of one line-up, split at ``,`` or ``+`` outside parentheses (parameters keep theirs)."""
    out, depth, cur = [], 0, []
    for ch in lineup:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch in ",+" and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return [p for p in out if p]


def run_names(tables: Tables, runs: Sequence[str], short: bool = False) -> dict[str, str]:
    """A readable name per run: ``"<variant> · <line-up>"`` from the ``overview`` table (e.g.
    ``"pagat-au · heuristic.v1 ×4"``), the run id's first 8 characters added only where two runs
    would otherwise share a name; the run id itself when the overview does not list the run.

    ``short`` (labels inside figures): the variant alone when the variants tell the runs apart."""
    ov = tables.get("overview")
    facts: dict[str, tuple[str, str]] = {}
    if ov is not None and {"run_id", "variant"} <= set(ov.columns):
        lineup = "strategies" in ov.columns
        for r in ov.iter_rows(named=True):
            facts[r["run_id"]] = (str(r["variant"]), lineup_label(r["strategies"]) if lineup else "")
    variants = [facts[r][0] for r in runs if r in facts]
    if short and len(variants) == len(runs) and len(set(variants)) == len(variants):
        return {r: facts[r][0] for r in runs}
    base = {}
    for r in runs:
        if r in facts:
            variant, lineup = facts[r]
            base[r] = f"{variant} · {lineup}" if lineup else variant
        else:
            base[r] = r[:8]
    counts = Counter(base.values())
    return {r: f"{name} ({r[:8]})" if counts[name] > 1 and r in facts else name for r, name in base.items()}
