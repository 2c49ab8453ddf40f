"""The report: every section and figure present, table numbers equal to the analysis tables, no crash."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from importlib.metadata import version
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.cli.statistics import load_statistics, make_report, open_runs
from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.rundir import read_manifest
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.reports import ReportError, build_report, figures
from fivehundred.reports.layout import SECTION_BUILDERS, tables_section
from fivehundred.reports.section import Context
from fivehundred.reports.tables import MissingTable, NoData, read_statistics, run_order
from fivehundred.sim import ENGINE_VERSION
from fivehundred.sim.notation import is_misere
from tests.cli.helpers import in_process
from tests.reports.helpers import figure_keys

SEED = 5
GAMES = 20
#: The columns that identify a row of each table shown (the run is on the table for one-run tables).
KEYS = {
    "overview": ["run_id"],
    "game_ends": ["run_id", "end_reason"],
    "contracts": ["contract"],
    "success_by_level": ["level"],
    "success_by_seat": ["seat_rel"],
    "misere": ["run_id", "contract"],
    "misere_whatif": ["run_id", "contract", "strategy"],
    "misere_by_feature": ["contract", "feature", "value"],
    "misere_whatif_by_feature": ["contract", "feature", "value"],
    "strategies": ["run_id", "strategy"],
    "variant_effects": ["run_id", "metric"],
    "strategy_duplicate": ["run_id", "metric"],
    "success_comparison": ["run_id", "metric"],
    "table_comparison": ["metric"],
    "score_trajectories": ["end_reason", "deal"],
    "success_by_trumps_joker": ["contract", "joker", "trumps"],
    "dd_success": ["contract"],
    "dd_trick_gain": ["role", "strategy"],
}


FIGURES = figure_keys()
SECTION_IDS = [f.__name__.removesuffix("_section") for f in SECTION_BUILDERS]
SPECS = ["heuristic", "heuristic(aggression=1.0)", "heuristic", "heuristic(aggression=1.0)"]


def _run(path: Path, variant: str, seats: int = 4) -> Path:
    """A real run: the simulate pipeline, in-process (no Ray), with its own manifest."""
    config = make_config(
        {"strategies": SPECS[:seats], "seed": SEED, "games": GAMES, "chunk_size": 25},
        variant=variant,
        out=str(path),
        workers=0,
    )
    run_simulation(config)
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, dict[str, pl.DataFrame]]:
    """The default table, a variant of it (paired) and the 3-player table (unpaired)."""
    root = tmp_path_factory.mktemp("report")
    a = _run(root / "a", "pagat-au")
    b = _run(root / "b", "club-004")
    c = _run(root / "c", "three-player", seats=3)
    stats = root / "stats"
    # --dd on a sample: every section, at a fraction of the solves
    tables = analyze([a, b, c], stats, what_if="misere", sample=20, dd="contract", dd_sample=20)
    return a, b, stats, tables


@pytest.fixture(scope="module")
def report(runs: tuple, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, object]:
    a, b, stats, _ = runs
    out = tmp_path_factory.mktemp("out")
    dirs = [a, b, a.parent / "c"]
    result = build_report(  # the statistics tables and the manifests: all a report reads
        [str(d.resolve()) for d in dirs],
        out / "report.html",
        tables=read_statistics(stats),
        manifests=[read_manifest(d) for d in dirs],
    )
    return out / "report.html", None, result  # the PDF: tests/reports/test_document.py, and below


class _Cells(HTMLParser):
    """Collects each stats table's rows as lists of cell attribute dicts, and figures and notices."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, str | None, list[list[dict[str, str]]]]] = []
        self.figures: list[str] = []
        self.images: list[str] = []
        self.sections: list[str] = []
        self._row: list[dict[str, str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "table" and "data-table" in a:
            self.tables.append((a["data-table"], a.get("data-run"), []))
        elif tag == "tr" and self.tables:
            self._row = []
        elif tag == "td" and self._row is not None and "data-col" in a:
            self._row.append(a)
        elif tag == "figure":
            self.figures.append(a.get("data-figure", ""))
        elif tag == "img":
            self.images.append(a.get("src", ""))
        elif tag == "section":
            self.sections.append(a.get("id", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._row is not None:
            if self._row:
                self.tables[-1][2].append(self._row)
            self._row = None


def _parse(path: Path) -> _Cells:
    p = _Cells()
    p.feed(path.read_text())
    return p


def _value(text: str) -> object:
    if text == "null":
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


@pytest.mark.slow  # a second whole report (the fresh run's is read by tests/reports/test_document.py)
def test_every_section_and_figure_is_present(report: tuple) -> None:
    html_path, _, result = report
    parsed = _parse(html_path)
    assert parsed.sections == [*SECTION_IDS, "appendix"]
    assert sorted(parsed.figures) == sorted(FIGURES)
    assert result.figures == {key: "ok" for key in FIGURES}
    assert len(parsed.images) == len(FIGURES)
    for src in parsed.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    text = html_path.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "the report must not load anything"
    assert "failed" not in {k: v.split(":")[0] for k, v in result.tables.items()}.values()
    assert 'class="failed"' not in text and 'class="nodata"' not in text
    # Each figure has its one-sentence reading under it.
    assert len(re.findall(r"<figcaption><b>[^<]+</b> [^<]+\.</figcaption>", text)) == len(FIGURES)
    # The methods section names rules, strategies, seed and counts from the manifests.
    methods = text[text.index('<section id="methods"') :]
    for needle in (
        "pagat-au",
        "club-004",
        "heuristic.v1(aggression=1.0)",
        f"<dd>{SEED}</dd>",
        f"<dd>{version('fivehundred')}</dd>",  # the manifest's package version
        f"<dd>{ENGINE_VERSION}</dd>",
    ):
        assert needle in methods
    # The 3-player run is compared unpaired, and the report says so in the table and under the figure.
    tables_sec = text[text.index('<section id="tables"') : text.index('<section id="games"')]
    assert "Unpaired: 4 vs 3 players, so the runs deal different cards" in tables_sec
    assert "Unpaired, since each table deals its own cards: three-player plays" in tables_sec


def test_only_unpaired_runs_say_why_effects_are_empty(runs: tuple) -> None:
    *_, tables = runs
    order = run_order(tables)
    only = {**tables, "variant_effects": tables["variant_effects"].head(0)}
    only["strategy_duplicate"] = tables["strategy_duplicate"].head(0)
    with pytest.raises(NoData, match="no run on the same table to pair with"):
        figures.effects_chart(only, order)
    assert figures.tables_chart(only, order).key == "tables"
    single = {k: v for k, v in tables.items() if k != "table_comparison"}
    with pytest.raises(MissingTable):  # the section then says why in words: every run on one table
        figures.tables_chart(single, order)
    assert tables_section(Context(single, tuple(order))).absent == "every run is on the same table"


@pytest.mark.slow  # the report fixture: a whole report
def test_table_numbers_equal_the_analysis_tables(runs: tuple, report: tuple) -> None:
    *_, tables = runs
    parsed = _parse(report[0])
    checked = 0
    seen = set()
    for name, run, rows in parsed.tables:
        if name == "rules":
            continue
        seen.add(name)
        df = tables[name]
        for row in rows:
            keys = {c["data-col"]: c["data-value"] for c in row if c["data-col"] in KEYS[name]}
            assert set(keys) == set(KEYS[name]), name
            match = df.filter(*[pl.col(k).cast(pl.String) == v for k, v in keys.items()])
            if run is not None:  # a table of one run: the run is named on the table
                assert "run_id" not in keys
                match = match.filter(pl.col("run_id") == run)
            assert match.height == 1, (name, keys)
            want = match.row(0, named=True)
            for cell in row:
                col = cell["data-col"]
                got = cell["data-value"] if df.schema[col] == pl.String else _value(cell["data-value"])
                if col.startswith("slam_") and is_misere(str(keys.get("contract"))):
                    assert got is None  # no slams for a misère: shown blank
                    continue
                assert got == want[col], (name, keys, col)
                if "data-lo-col" in cell:
                    assert _value(cell["data-lo"]) == want[cell["data-lo-col"]]
                    assert _value(cell["data-hi"]) == want[cell["data-hi-col"]]
                checked += 1
    assert seen >= {"overview", "contracts", "success_by_level", "success_by_seat", "misere", "misere_whatif"}
    assert seen >= {
        "strategies",
        "variant_effects",
        "game_ends",
        "misere_by_feature",
        "misere_whatif_by_feature",
        "table_comparison",
        "score_trajectories",
    }
    assert checked > 200
    # Every contract played in each run is in the contracts table, no more (no 40-column dumps either).
    contracts = [rows for name, _, rows in parsed.tables if name == "contracts"]
    played = tables["contracts"].filter(pl.col("n") > 0)
    assert sum(len(r) for r in contracts) == played.height
    assert all(len(row) <= 9 for _, _, rows in parsed.tables for row in rows)


@pytest.mark.slow
def test_cli_report_gives_the_same_bytes(runs: tuple, tmp_path: Path) -> None:
    """``fivehundred report`` on the same statistics writes the same HTML and PDF, byte for byte."""
    a, b, stats, _ = runs
    outputs = []
    for name in ("first", "again"):
        html_out, pdf_out = tmp_path / f"{name}.html", tmp_path / f"{name}.pdf"
        args = ["report", str(a), "--compare", str(b), "--compare", str(a.parent / "c")]
        args += ["--stats", str(stats), "-o", str(html_out), "--pdf", str(pdf_out)]
        out = CliRunner().invoke(app, args)
        assert out.exit_code == 0, out.output
        assert f"report: {html_out} ({len(FIGURES)} of {len(FIGURES)} figures)" in out.output
        assert f"pdf: {pdf_out}" in out.output
        outputs.append((html_out.read_bytes(), pdf_out.read_bytes()))
    assert outputs[0] == outputs[1]


def test_single_run_and_missing_tables_say_why(runs: tuple, tmp_path: Path) -> None:
    a, _, _, _ = runs
    tables = load_statistics(open_runs([a]))  # the main run alone: analysed afresh into a temporary folder
    assert set(tables["overview"]["run_id"]) == {json.loads((a / "manifest.json").read_text())["run_id"]}
    assert not (a / "stats").exists()
    tables = dict(tables)
    tables["misere"] = tables["misere"].head(0)  # a run with no misère of any kind
    del tables["success_by_trumps_joker"]  # a table the statistics did not write
    result = build_report([a], tmp_path / "r.html", tables=tables)
    text = (tmp_path / "r.html").read_text()
    assert result.figures["effects"].startswith("no data")
    assert result.figures["trumps"] == "no data: no suit contract was played"  # the section's words
    assert result.figures["contracts"] == "ok" and result.figures["bowers"] == "ok"
    assert "Not shown here: no suit contract was played." in text  # a notice where the heatmap was
    assert "table '" not in text
    parsed = _parse(tmp_path / "r.html")
    # The sections with nothing to show (no compared run; no run on another table; no --dd analysis)
    # are left out, each named with its reason under the contents.
    hidden = {"effects", "tables", "dd"}
    assert [s for s in parsed.sections if s != "appendix"] == [s for s in SECTION_IDS if s not in hidden]
    assert result.sections["effects"].startswith("left out: no compared runs")
    assert '<span data-left-out="effects" data-why="no compared runs' in text


def test_empty_statistics_never_crash(runs: tuple, tmp_path: Path) -> None:
    a, _, _, tables = runs
    empty = {k: v.head(0) for k, v in tables.items()}
    result = build_report([a], tmp_path / "r.html", pdf=tmp_path / "r.pdf", tables=empty)
    assert all(v.startswith("no data") for v in result.figures.values())
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


def test_missing_run_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="does not exist"):
        make_report([tmp_path / "nope"], tmp_path / "r.html")
    status, _, err = in_process(["report", str(tmp_path / "nope"), "-o", str(tmp_path / "r.html")])
    assert status == 2
    err = err.strip()
    assert err.count("\n") == 0 and err.startswith("error: run directory") and "does not exist" in err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow  # end to end: a tournament played, then its whole report
def test_report_of_a_tournament(tmp_path: Path) -> None:
    """A tournament directory is a run too: the report adds its entries and matches tables."""
    out = tmp_path / "tour"
    runner = CliRunner()
    config = Path(__file__).resolve().parents[2] / "configs" / "tournaments" / "heuristic-vs-random.toml"
    args = ["tournament", str(config), "--pairs", "4", "--workers", "0", "--out", str(out)]  # a short one
    played = runner.invoke(app, args)
    assert played.exit_code == 0, played.output
    made = runner.invoke(app, ["report", str(out), "-o", str(tmp_path / "t.html")])
    assert made.exit_code == 0, made.output
    parsed = _parse(tmp_path / "t.html")
    names = [name for name, _, _ in parsed.tables]
    assert {"tournament_entries", "tournament_matches", "strategies", "contracts"} <= set(names)
    entries = pl.read_parquet(out / "tables" / "entries.parquet")
    rows = next(rows for name, _, rows in parsed.tables if name == "tournament_entries")
    shown = {r[1]["data-value"]: _value(r[6]["data-value"]) for r in rows}  # entry -> rating
    assert shown == dict(entries.select("entry", "rating").iter_rows())
    # heuristic wins every game: its rating is a one-sided bound, never a point and a narrow interval
    assert entries.filter(pl.col("entry") == "heuristic")["score"].item() == 1.0
    low = entries.filter(pl.col("entry") == "heuristic")["rating_low"].item()
    text = (tmp_path / "t.html").read_text()
    assert f'">&gt; {low:+.0f} (one-sided: all won)</td>' in text and "(one-sided: all lost)" in text
