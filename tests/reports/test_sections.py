"""The report's sections as objects: every section complete, empty ones hidden, readable run names,
thousands separators and dimmed small rows (from small hand-made statistics tables: no simulation)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from fivehundred.reports import build_report
from fivehundred.reports.build import sections
from fivehundred.reports.layout import SECTION_BUILDERS
from fivehundred.reports.section import Context, Section, lineup_label, run_names
from fivehundred.reports.tables import FEW_N, Col, html_table, num

LINEUP = "heuristic.v1,heuristic.v1(aggression=1.0),heuristic.v1,heuristic.v1(aggression=1.0)"


def _overview(rows: list[tuple[str, str, str]]) -> pl.DataFrame:
    n = len(rows)
    return pl.DataFrame(
        {
            "run_id": [r[0] for r in rows],
            "variant": [r[1] for r in rows],
            "strategies": [r[2] for r in rows],
            "master_seed": [7] * n,
            "deals": [1_234_567] * n,
            "games": [98_765] * n,
            "deals_per_game": [12.5] * n,
            "thrown_in_rate": [0.02] * n,
            "thrown_in_lo": [0.019] * n,
            "thrown_in_hi": [0.021] * n,
            "contracts": [1_209_876] * n,
        }
    )


def test_every_section_is_complete() -> None:
    tables = {"overview": _overview([("r1", "pagat-au", LINEUP)])}
    secs = sections(Context(tables, ("r1",)))
    assert len(secs) == len(SECTION_BUILDERS) and all(isinstance(s, Section) for s in secs)
    assert len({s.id for s in secs}) == len(secs)
    for s in secs:
        assert s.title and s.reading.endswith("."), s.id
        if s.id != "methods":
            assert s.methods, f"section {s.id} has no methods text"
            assert s.depends_on_bots and s.strategies == (("pagat-au", LINEUP),)
        assert s.figures or s.tables, s.id
    keys = [f.key for s in secs for f in s.figures]
    assert len(keys) == len(set(keys))


def test_a_section_without_data_is_left_out_with_its_reason(tmp_path: Path) -> None:
    tables = {"overview": _overview([("r1", "pagat-au", LINEUP)])}
    result = build_report(["runs/r1"], tmp_path / "r.html", pdf=tmp_path / "r.pdf", tables=tables)
    text = (tmp_path / "r.html").read_text()
    shown = re.findall(r'<section id="([a-z]+)"', text)
    assert shown == ["overview", "games", "methods"]  # the games figure falls back on overview's means
    assert result.sections["overview"] == "shown" and result.sections["contracts"].startswith("left out: ")
    for sid in ("contracts", "trumps", "misere", "strategies", "effects", "tables"):
        assert re.search(rf'<span data-left-out="{sid}" data-why="[^"]+">', text), sid
    assert "table '" not in text and "no data" not in text  # the reasons are in words, no table names
    hidden = text[: text.index('<section id="overview"')] + text[text.index('<section id="methods"') :]
    assert 'class="nodata"' not in hidden  # no yellow boxes: the hidden sections are not drawn at all
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


def test_numbers_have_thousands_separators_and_runs_readable_names(tmp_path: Path) -> None:
    tables = {
        "overview": _overview(
            [("abcdef0123456789", "pagat-au", LINEUP), ("0123456789abcdef", "club-004", LINEUP)]
        )
    }
    build_report(["a", "b"], tmp_path / "r.html", tables=tables)
    text = (tmp_path / "r.html").read_text()
    overview = text[text.index('<table class="stats" data-table="overview"') :]
    overview = overview[: overview.index("</table>")]
    assert ">1,234,567<" in overview and ">98,765<" in overview and ">1,209,876<" in overview
    # The run column shows variant and line-up, not the run id (which stays in data-value).
    assert ">pagat-au · heuristic.v1, heuristic.v1(aggression=1.0) ×2<" in overview
    assert 'data-value="abcdef0123456789"' in overview and ">abcdef0123456789<" not in overview
    assert "1234567" not in re.sub(r'data-[a-z-]+="[^"]*"', "", overview)


@pytest.mark.parametrize(
    ("lineup", "label"),
    [
        ("random.v1,random.v1,random.v1,random.v1", "random.v1 ×4"),
        (LINEUP, "heuristic.v1, heuristic.v1(aggression=1.0) ×2"),
        ("a,b,c", "a, b, c"),
        ("a+a", "a ×2"),
        ("r(x=1,y=2),r(x=1,y=2),r(x=1,y=2)", "r(x=1,y=2) ×3"),
        ("r(x=1,y=2)+r(x=1,y=2)", "r(x=1,y=2) ×2"),
        ("a,a,a,a | a,b,a,b", "a ×4 | a, b ×2"),
    ],
)
def test_lineup_labels(lineup: str, label: str) -> None:
    assert lineup_label(lineup) == label


def test_run_names_tell_runs_apart() -> None:
    ov = _overview(
        [("run-one-1", "pagat-au", LINEUP), ("run-two-2", "pagat-au", LINEUP), ("x", "club-004", "r,r,r,r")]
    )
    names = run_names({"overview": ov}, ["run-one-1", "run-two-2", "x", "unknown-run-id"])
    assert names == {
        "run-one-1": "pagat-au · heuristic.v1, heuristic.v1(aggression=1.0) ×2 (run-one-)",
        "run-two-2": "pagat-au · heuristic.v1, heuristic.v1(aggression=1.0) ×2 (run-two-)",
        "x": "club-004 · r ×4",
        "unknown-run-id": "unknown-",
    }
    short = run_names({"overview": ov}, ["run-one-1", "x"], short=True)
    assert short == {"run-one-1": "pagat-au", "x": "club-004"}


def test_small_rows_are_dimmed() -> None:
    df = pl.DataFrame({"k": ["rare", "common"], "n": [FEW_N - 1, FEW_N]})
    text = html_table(df, "t", [Col("k", "k"), Col("n", "n", num)])
    rows = re.findall(r"<tr[^>]*>.*?</tr>", text)
    assert rows[1].startswith('<tr class="few">') and ">rare<" in rows[1]
    assert rows[2].startswith("<tr>") and ">common<" in rows[2]


def test_points_and_games_disagreeing_are_explained_with_the_paired_comparison() -> None:
    from fivehundred.reports.section_tables import disagreement_note as _disagreement_note
    from fivehundred.reports.tables import NoData

    strategies = pl.DataFrame(
        {
            "run_id": ["r1", "r1"],
            "strategy": ["careful", "bold"],
            "points_mean": [12.0, 9.5],
            "win_rate": [0.45, 0.55],
        }
    )
    tables = {
        "overview": _overview([("r1", "pagat-au", "careful,bold,careful,bold")]),
        "strategies": strategies,
    }
    note = _disagreement_note(tables, ["r1"])
    assert (
        "careful scores most points per deal (+12.0) but bold wins most games (55.0% against 45.0%)" in note
    )
    assert "No paired comparison" in note
    dup = pl.DataFrame(
        {
            "run_id": ["r2", "r2"],
            "metric": ["points_team0", "made"],
            "paired_n": [1_500, 1_500],
            "diff_mean": [-1.5, 0.01],
            "diff_lo": [-2.5, 0.0],
            "diff_hi": [-0.5, 0.02],
        }
    )
    note = _disagreement_note({**tables, "strategy_duplicate": dup}, ["r1"])
    assert 'data-table="strategy_duplicate"' in note and "team 0 points per deal" in note
    assert "deals with a contract made" not in note  # only the points and games-won rows
    agree = strategies.with_columns(pl.Series("win_rate", [0.55, 0.45]))
    with pytest.raises(NoData):
        _disagreement_note({**tables, "strategies": agree}, ["r1"])


def test_a_run_not_finished_is_said_first(tmp_path: Path) -> None:
    """A run whose manifest says it is still running (analysed as it stands) is named first, in the
    HTML and on the PDF's first page, with how much of it is there."""
    from fivehundred.pipelines.rundir import Manifest

    tables = {"overview": _overview([("r1", "pagat-au", LINEUP)])}
    running = Manifest(kind="simulation", run_id="r1", status="interrupted", identity={"deals": 60_000})
    running.totals = {"deals": 12_345, "games": 1_700, "chunks": 3}
    build_report(["runs/r1"], tmp_path / "r.html", tables=tables, manifests=[running])
    text = (tmp_path / "r.html").read_text()
    first = text.index('<p class="partial"')
    assert first < text.index("<nav>")
    assert "Not finished: r1 holds 12,345 of 60,000 deals (still running or interrupted)" in text
    done = Manifest(kind="simulation", run_id="r1", status="complete")
    build_report(["runs/r1"], tmp_path / "s.html", tables=tables, manifests=[done])
    assert 'class="partial"' not in (tmp_path / "s.html").read_text()
