"""The 3-player, 6-player and two-joker tables through the deal log, verify, the analyses and the report.

The deal log keeps its columns; only the list lengths follow the table (seats, teams, kitty).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from fivehundred.cli.statistics import make_report
from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.schema import DEAL_LOG_SCHEMA, records_to_table
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.pipelines.verify import verify_run
from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make

pytestmark = pytest.mark.slow  # starts Ray or long-running processes: `-m 'not slow'` skips it

#: name -> (seats, teams, kitty size), written out from RULES.md section 11.
TABLES = {"three-player": (3, 3, 3), "six-player": (6, 2, 3), "two-jokers": (4, 2, 6)}
#: Random bots that pass often make games of several deals.
LONG = "random(pass_probability=0.6, max_raise=2)"


@pytest.mark.parametrize("name", list(TABLES))
def test_records_convert_and_read_back_with_lists_sized_by_the_table(name: str, tmp_path: Path) -> None:
    seats, teams, kitty = TABLES[name]
    rules = load_rules(name)
    bots = [make(LONG) for _ in range(seats)]
    records = [r for g in range(6) for r in play_game(rules, bots, 3, g, [f"bot{s}" for s in range(seats)])]
    table = records_to_table(records, "run-x", 100)
    assert table.schema == DEAL_LOG_SCHEMA
    pq.write_table(table, tmp_path / "part.parquet")
    back = pl.read_parquet(tmp_path / "part.parquet")
    assert back["deal_id"].to_list() == list(range(100, 100 + len(records)))
    assert back["variant"].unique().to_list() == [name]
    for row, rec in zip(back.iter_rows(named=True), records, strict=True):
        for col in (
            "hands",
            "kitty",
            "bids",
            "plays",
            "trick_winners",
            "score_delta",
            "score_after",
            "winner",
        ):
            assert row[col] == rec[col], col
        assert row["strategies"] == [f"bot{s}" for s in range(seats)]
        assert len(row["hands"]) == seats and all(len(h) == 10 for h in row["hands"])
        assert len(row["kitty"]) == kitty
        assert len(row["score_delta"]) == teams and len(row["score_after"]) == teams
        if row["contract"] is not None:
            assert 0 <= row["declarer"] < seats and len(row["discards"]) == kitty
        if row["winner"] is not None:
            assert 0 <= row["winner"] < teams
    games = back.group_by("game_id").agg(pl.col("game_over").sum())
    assert games["game_over"].to_list() == [1] * 6


@pytest.mark.parametrize("name", list(TABLES))
def test_small_run_of_each_table_verifies_and_analyses(name: str, tmp_path: Path) -> None:
    seats = TABLES[name][0]
    cfg = make_config(
        None,
        variant=name,
        strategies=LONG,
        seed=9,
        games=40,
        chunk_size=20,
        out=str(tmp_path / name),
        workers=0,
    )
    summary = run_simulation(cfg)
    result = verify_run(tmp_path / name)
    assert not result.findings, result.findings[:3]
    tables = analyze([tmp_path / name], out_dir=tmp_path / "stats")
    overview = tables["overview"]
    assert overview["variant"].to_list() == [name]
    assert overview["deals"].to_list() == [summary.deals] == [result.deals]
    assert overview["games"].to_list() == [40] and result.games == 40
    by_seat = tables["success_by_seat"]
    assert set(by_seat["seat_rel"].to_list()) <= set(range(seats))
    assert by_seat["n"].sum() == overview["contracts"].item()
    assert (tmp_path / "stats" / "overview.parquet").exists()
    said: list[str] = []
    report = make_report(
        [tmp_path / name], tmp_path / "report.html", stats_dir=tmp_path / "stats", progress=said.append
    )
    drawn = [s for s in said if s.startswith("drawing the report: ")]
    assert len(drawn) == len(report.sections) and drawn[0].startswith("drawing the report: 1/")  # per section
    failed = {k: v for k, v in {**report.figures, **report.tables}.items() if v.startswith("failed")}
    assert not failed
    assert report.figures["contracts"] == "ok" and report.tables["overview"] == "ok"
    assert name in (tmp_path / "report.html").read_text()
