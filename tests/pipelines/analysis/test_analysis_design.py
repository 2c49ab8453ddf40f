"""Intervals that follow the design: per-strategy figures clustered by game and win rates per game;
rates forced by the seating get none; partners that cannot be told apart are flagged; paired effects
say what was paired and carry Holm p-values; feature tables carry BH q-values; every table names its bots."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest

from fivehundred import sim
from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.analysis.intervals import cluster_mean, wilson_interval
from fivehundred.pipelines.analysis.multiplicity import bh, holm
from fivehundred.sim.game import play_game
from fivehundred.strategies import make
from tests.pipelines.analysis.helpers import play_run, write_run

GAMES = 12


def _games(seed: int = 9) -> list[dict]:
    rules = sim.load_rules("pagat-au")
    bots = [make("heuristic") for _ in range(4)]
    return [r for g in range(GAMES) for r in play_game(rules, bots, seed, g)]


def _relabel(records: list[dict], lineup: list[str]) -> list[dict]:
    return [{**r, "strategies": list(lineup)} for r in records]


@pytest.fixture(scope="module")
def played() -> list[dict]:
    return _games()


def test_partners_are_flagged_and_clustered_by_game(played: list[dict], tmp_path: Path) -> None:
    """a and b always partner (seats 0 and 2), c and d too: one team figure each, flagged; the interval
    is the cluster-by-game interval of the team's points per seat-deal, worked out from the records."""
    recs = _relabel(played, ["a", "c", "b", "d"])
    t = analyze([write_run(tmp_path / "run", recs)], tmp_path / "out")["strategies"]
    a, b = (t.filter(pl.col("strategy") == s).row(0, named=True) for s in ("a", "b"))
    assert a["inseparable_from"] == "b" and b["inseparable_from"] == "a"
    assert "always the partner of b" in a["note"] and "strategy_duplicate" in a["note"]
    for col in ("points_mean", "points_lo", "points_hi", "win_rate", "def_tricks_mean"):
        assert a[col] == b[col], col
    y: dict[int, int] = defaultdict(int)
    m: dict[int, int] = defaultdict(int)
    for r in recs:  # seat 0 holds a: the team-0 score of every deal, once per seat
        y[r["game_id"]] += r["score_delta"][0]
        m[r["game_id"]] += 1
    want = cluster_mean([y[g] for g in sorted(y)], [m[g] for g in sorted(m)])
    assert (a["points_mean"], a["points_lo"], a["points_hi"]) == pytest.approx(want[:3])
    assert a["clusters"] == GAMES
    # Win rate per game (not per seat-game), Wilson because a sits on one team only.
    wins = sum(1 for r in recs if r["game_over"] and r["winner"] == 0)
    assert (a["games"], a["wins"]) == (GAMES, wins)
    assert (a["win_lo"], a["win_hi"]) == pytest.approx(wilson_interval(wins, GAMES))


def test_self_play_win_rate_is_forced_and_has_no_interval(played: list[dict], tmp_path: Path) -> None:
    recs = _relabel(played, ["h"] * 4)
    out = analyze([write_run(tmp_path / "run", recs)], tmp_path / "out")
    s = out["strategies"].row(0, named=True)
    decided = sum(1 for r in recs if r["game_over"] and r["winner"] is not None)
    assert s["games"] == GAMES and s["win_rate"] == pytest.approx(0.5 * decided / GAMES)
    assert (s["win_lo"], s["win_hi"]) == (None, None) and "forced by the seating" in s["note"]
    assert s["inseparable_from"] is None
    assert s["points_lo"] < s["points_mean"] < s["points_hi"]  # points are not forced: they get one
    p = out["strategy_pairings"].row(0, named=True)
    assert out["strategy_pairings"].height == 1 and p["games"] == GAMES
    assert (p["win_lo"], p["win_hi"]) == (None, None) and "forced" in p["note"]


def test_split_seating_credits_the_share_of_seats(played: list[dict], tmp_path: Path) -> None:
    """x on seats 0, 1, 2 (two on team 0, one on team 1): a game won by team 0 credits 2/3."""
    recs = _relabel(played, ["x", "x", "x", "y"])
    s = analyze([write_run(tmp_path / "run", recs)], tmp_path / "out")["strategies"]
    x = s.filter(pl.col("strategy") == "x").row(0, named=True)
    credit = sum(
        (2 / 3 if r["winner"] == 0 else 1 / 3 if r["winner"] == 1 else 0.0) for r in recs if r["game_over"]
    )
    assert x["games"] == GAMES and x["wins"] == pytest.approx(credit)
    assert x["note"] is None and x["win_lo"] is not None and x["win_lo"] <= x["win_rate"] <= x["win_hi"]


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    root = tmp_path_factory.mktemp("cmp")
    a = play_run(root / "a", "pagat-au", 4, 30)
    b = play_run(root / "b", "north-american", 4, 30)
    tables = analyze([root / "a", root / "b"], root / "stats", what_if="misere", sample=30)
    return {**tables, "_recs": (a, b)}


def test_paired_effects_say_what_was_paired(compared: dict) -> None:
    a, b = compared["_recs"]
    eff = compared["variant_effects"]
    ka = {(r["game_id"], r["hand_no"]): r for r in a}
    kb = {(r["game_id"], r["hand_no"]): r for r in b}
    common = sorted(set(ka) & set(kb))
    assert len(common) < min(len(a), len(b))  # games of different lengths: not every deal pairs
    p0 = eff.filter(pl.col("metric") == "points_team0").row(0, named=True)
    assert (p0["paired_n"], p0["base_n"], p0["run_n"]) == (len(common), len(a), len(b))
    # paired_base_mean is the base's mean over the pairs only, not over all its deals.
    assert p0["paired_base_mean"] == pytest.approx(sum(ka[k]["score_delta"][0] for k in common) / len(common))
    assert p0["paired_mean"] == pytest.approx(sum(kb[k]["score_delta"][0] for k in common) / len(common))
    assert "base_mean" not in eff.columns and set(eff["method"]) == {"paired"}
    assert eff["p_holm"].to_list() == pytest.approx(holm(eff["p_value"].to_list()), nan_ok=True)
    assert eff["holm_significant"].to_list() == [p is not None and p < 0.05 for p in eff["p_holm"].to_list()]


def test_success_rates_are_a_separate_labelled_table(compared: dict) -> None:
    a, _b = compared["_recs"]
    s = compared["success_comparison"]
    r = s.filter(pl.col("metric") == "success_rate").row(0, named=True)
    played_a = [x for x in a if x["contract"] is not None]
    assert r["base_n"] == len(played_a) and r["method"] == "unpaired" and "confounded" in r["note"]
    assert not set(s["metric"]) & set(compared["variant_effects"]["metric"])


def test_feature_tables_carry_bh_q_values(compared: dict) -> None:
    for name in ("success_by_feature", "misere_by_feature", "misere_whatif_by_feature"):
        t = compared[name]
        assert t.height and t["q_value"].is_not_null().any(), name
        for run in t["run_id"].unique().to_list():
            sub = t.filter(pl.col("run_id") == run)
            assert sub["q_value"].to_list() == pytest.approx(bh(sub["p_value"].to_list()), nan_ok=True)


def test_game_length_shares_have_wilson_intervals(compared: dict) -> None:
    gl = compared["game_length"]
    for r in gl.iter_rows(named=True):
        assert (r["share_lo"], r["share_hi"]) == pytest.approx(wilson_interval(r["games"], r["total"]))
    assert gl.group_by("run_id").agg(pl.col("games").sum() == pl.col("total").first())["games"].all()


def test_every_table_names_its_bots(compared: dict) -> None:
    lineup = ",".join(["heuristic.v1"] * 4)
    for name, t in compared.items():
        if name.startswith("_") or not isinstance(t, pl.DataFrame):
            continue
        cols = set(t.columns)
        assert "strategies" in cols or {"base_lineup", "lineup"} <= cols, name
        col = "strategies" if "strategies" in cols else "lineup"
        if t.height and t.schema[col] == pl.String:
            assert set(t[col].drop_nulls().to_list()) == {lineup}, name
