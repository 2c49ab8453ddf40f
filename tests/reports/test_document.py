"""The report reads as a document: what a fresh ``fivehundred run`` writes, read as its reader sees it
(the visible text of the HTML, the figures drawn from the same statistics, the PDF's pages)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from matplotlib.colors import to_hex
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.reports import figures
from fivehundred.reports.dd import dd_chart
from fivehundred.reports.pdf import MIN_ROWS, split_rows
from fivehundred.reports.tables import read_statistics, run_order
from fivehundred.sim.notation import MISERE_CODES
from tests.reports.helpers import FreshRun

runner = CliRunner()


class _Visible(HTMLParser):
    """The text a reader sees (no tags, attributes, style or embedded images), and each section's."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.by_section: dict[str, list[str]] = {}
        self._section: str | None = None
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "title"):
            self._skip += 1
        if tag == "section":
            self._section = dict(attrs).get("id")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "title"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)
            if self._section:
                self.by_section.setdefault(self._section, []).append(data)


def visible(html: str) -> _Visible:
    parser = _Visible()
    parser.feed(html)
    return parser


def _section(html: str, sid: str) -> str:
    start = html.index(f'<section id="{sid}"')
    return html[start : html.index("</section>", start)]


#: The tests that read the main job's own run (``fresh_run``: the whole job, about 10 CPU seconds,
#: most of it drawing the report): end to end, so outside the quick tier.
FRESH_RUN = pytest.mark.slow


@pytest.fixture(scope="module")
def stats(fresh_run: FreshRun) -> dict[str, pl.DataFrame]:
    return read_statistics(fresh_run.out / "stats")


@FRESH_RUN
def test_no_internal_names_and_no_empty_sections(fresh_run: FreshRun, stats: dict) -> None:
    html = fresh_run.html
    text = " ".join(visible(html).text)
    internal = sorted(name for name in stats if "_" in name and name in text)
    assert not internal, internal  # no statistics table named in what a reader sees
    assert "no data" not in text and "failed:" not in text and "is empty" not in text
    for sid in re.findall(r'<section id="([a-z]+)"', html):
        body = _section(html, sid)
        assert "<figure" in body or "<table" in body or sid == "methods", sid
    left = re.findall(r'<span data-left-out="([a-z]+)" data-why="([^"]+)">', html)
    assert left == [("tables", "every run is on the same table")]


@FRESH_RUN
def test_every_figure_and_table_names_its_run(fresh_run: FreshRun, stats: dict) -> None:
    html = fresh_run.html
    main = "pagat-au · heuristic.v5, heuristic.v5(aggression=1.0) ×2"  # configs/runs/default.toml
    for key in ("trumps", "misere", "trajectories"):
        caption = re.search(rf'data-figure="{key}">.*?<figcaption><b>([^<]+)</b>', html, re.S)
        assert caption and caption.group(1).endswith(f"— {main}."), (key, caption and caption.group(1))
    for table in re.findall(r'<table class="stats"[^>]*>.*?</thead>', html, re.S):
        if 'data-table="rules"' in table:
            continue
        assert "data-run=" in table or "<th>run</th>" in table, table[:200]


@FRESH_RUN
def test_the_double_dummy_section_shows_every_solved_run(fresh_run: FreshRun, stats: dict) -> None:
    dd = _section(fresh_run.html, "dd")
    runs = run_order(stats)
    shown = re.findall(r'<table class="stats" data-table="dd_success" data-run="([0-9a-f]+)"', dd)
    assert shown == runs and len(runs) == 2
    assert dd.count("Double-dummy results of a sample of") == 2


def _colours(axes: list) -> set[str]:
    """The colours a reader sees in ``axes``: drawn lines and markers, filled and outlined patches."""
    seen: list = []
    for ax in axes:
        for line in ax.lines:
            if line.get_linestyle() not in ("None", "none", " ", ""):
                seen.append(line.get_color())
            if line.get_marker() not in (None, "None", "none", "", " "):
                seen += [line.get_markerfacecolor(), line.get_markeredgecolor()]
        for patch in ax.patches:
            if patch.get_fill() and patch.get_facecolor()[3] > 0:
                seen.append(patch.get_facecolor())
            if patch.get_linewidth() > 0:
                seen.append(patch.get_edgecolor())
        for coll in ax.collections:
            if len(coll.get_linewidths()) and max(coll.get_linewidths()) > 0:
                seen += list(coll.get_edgecolors())
            seen += list(coll.get_facecolors())
    out = set()
    for c in seen:
        try:
            if not isinstance(c, str) and len(c) == 4 and c[3] == 0:
                continue
            out.add(to_hex(c))
        except (ValueError, TypeError):
            pass
    return out


@FRESH_RUN
def test_colours_keep_one_meaning(stats: dict) -> None:
    """A run's colour is its own in every figure; series of one run (made / makeable, as bid /
    forced, winner / runner-up) never borrow a run's colour."""
    runs = run_order(stats)
    palette = {c.lower() for c in figures.PALETTE}
    mine = {figures.PALETTE[0].lower(), figures.PALETTE[1].lower()}
    assert not _colours(figures.misere_chart(stats, runs).figure.axes) & palette
    assert _colours(dd_chart(stats, runs).figure.axes) & palette == mine  # both runs solved, each its own
    effects = figures.effects_chart(stats, runs).figure.axes
    assert _colours(effects) & palette == {figures.PALETTE[1].lower()}  # club-004 is run 2 everywhere
    top = figures.trajectories_chart(stats, runs).figure.axes[:-1]  # the winner / runner-up panels
    assert not _colours(top) & palette


@FRESH_RUN
def test_rates_in_percent_and_no_slams_for_misere(fresh_run: FreshRun) -> None:
    html = fresh_run.html
    effects = _section(html, "effects")
    shares = re.findall(r"<caption>[^<]*: shares, in %</caption>(.*?)</table>", effects, re.S)
    assert shares
    for body in shares:
        for cell in re.findall(r'data-col="(?:paired_base_mean|paired_mean|diff_mean)"[^>]*>([^<]*)', body):
            assert cell.strip().endswith("%") or cell.strip().endswith(" pp"), cell
    contracts = re.findall(r'<table class="stats" data-table="contracts".*?</table>', html, re.S)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", "".join(contracts), re.S)
    misere = [r for r in rows if re.search(rf'data-value="({"|".join(MISERE_CODES)})"', r)]
    assert misere
    for row in misere:
        assert re.search(r'data-col="slam_rate" data-value="null"[^>]*>—<', row), row


@FRESH_RUN
def test_long_tables_go_to_the_appendix(fresh_run: FreshRun) -> None:
    html = fresh_run.html
    trumps, appendix = _section(html, "trumps"), _section(html, "appendix")
    assert 'data-figure="trumps"' in trumps and 'data-table="success_by_trumps_joker"' not in trumps
    assert 'href="#appendix-trumps"' in trumps
    assert 'data-table="success_by_trumps_joker"' in appendix and 'id="appendix-trumps"' in appendix
    longest = max(
        (
            len(re.findall(r"<tr", t))
            for t in re.findall(r"<table.*?</table>", html.split('id="appendix"')[0], re.S)
        ),
    )
    assert longest <= 40  # every table of the body is short


@FRESH_RUN
def test_the_strategies_plot_has_no_duplicated_rows(stats: dict) -> None:
    chart = figures.strategies_chart(stats, run_order(stats))
    ax1, ax2 = chart.figure.axes
    labels = [t.get_text() for t in ax1.get_yticklabels()]
    points = [float(line.get_xdata()[0]) for line in ax1.lines if line.get_marker() == "s"]
    wins = [float(line.get_xdata()[0]) for line in ax2.lines if line.get_marker() == "s"]
    assert len(labels) == len(set(labels)) == len(points) == len(wins)
    # heuristic.v2 against its bolder self, two runs: one row per strategy and run, no team repeats
    assert len(labels) == 4 and all("team" not in lab for lab in labels)


@FRESH_RUN
def test_all_zero_panels_say_no_difference(stats: dict) -> None:
    runs = run_order(stats)
    zero = stats["variant_effects"].with_columns(
        pl.lit(0.0).alias(c) for c in ("diff_mean", "diff_lo", "diff_hi")
    )
    chart = figures.effects_chart({**stats, "variant_effects": zero}, runs)
    for ax in chart.figure.axes:
        assert not ax.get_xticks().size
        assert any(t.get_text().startswith("no difference") for t in ax.texts)


@given(total=st.integers(1, 300), first=st.integers(0, 40), per_page=st.integers(12, 40))
@example(total=36, first=30, per_page=35)  # a table one row too long: 30 + 6, never 35 + 1
@example(total=1, first=0, per_page=35)
def test_no_pdf_page_holds_a_stray_row(total: int, first: int, per_page: int) -> None:
    first = min(first, per_page)
    plan = split_rows(total, first, per_page)
    assert sum(plan) == total and plan[0] <= first and all(0 < n <= per_page for n in plan[1:])
    if total <= per_page:
        assert [n for n in plan if n] == [total]  # a table that fits a page is never split
    else:
        assert all(n >= MIN_ROWS for n in plan if n)


@FRESH_RUN
def test_the_pdf_is_a_document(fresh_run: FreshRun) -> None:
    pdf = fresh_run.pdf
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") >= 10


def _one_game_run(tmp_path: Path) -> Path:
    """A run of one game of ``heuristic`` (seed 3), simulated in-process."""
    run = tmp_path / "one"
    made = runner.invoke(
        app,
        [
            "simulate",
            "--games",
            "1",
            "--seed",
            "3",
            "--strategies",
            "heuristic",
            "--out",
            str(run),
            "--workers",
            "0",
        ],
    )
    assert made.exit_code == 0, made.output
    return run


def test_a_one_game_run_draws_every_section_or_says_why(tmp_path: Path) -> None:
    run = _one_game_run(tmp_path)
    out = runner.invoke(app, ["report", str(run), "-o", str(tmp_path / "r.html")])
    assert out.exit_code == 0, out.output
    html = (tmp_path / "r.html").read_text()
    text = " ".join(visible(html).text)
    assert "no data" not in text and "table '" not in text
    shown = re.findall(r'<section id="([a-z]+)"', html)
    left = dict(re.findall(r'<span data-left-out="([a-z]+)" data-why="([^"]+)">', html))
    assert set(shown) | set(left) >= {
        "overview",
        "contracts",
        "misere",
        "strategies",
        "effects",
        "tables",
        "games",
        "dd",
        "methods",
    }
    assert all(reason.strip() for reason in left.values())


def test_a_failing_section_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise ValueError("boom")

    run = _one_game_run(tmp_path)
    monkeypatch.setattr(figures, "contracts_chart", broken)
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(run), "-o", str(out)])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: internal error: ")
    assert "report section 'Contracts', figure 'contracts': ValueError: boom" in result.stderr
    assert not out.exists()
