"""Score trajectories, comebacks, and the unpaired comparison of runs on different tables."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.analysis.intervals import newcombe_diff, wilson_interval
from tests.pipelines.analysis.helpers import deal_hands, play_run, record, row, write_run

KITTY = ["4H", "5H", "6H"]


def _game(game_id: int, afters: list[list[int]], winner: int | None, reason: str) -> list[dict]:
    """A game of thrown-in deals whose logged scores after each deal are ``afters``."""
    hands = deal_hands({}, KITTY)
    last = len(afters) - 1
    return [
        record(game_id, i, i % 4, hands, KITTY, ["P"] * 4, score_after=a, game_over=i == last,
               winner=winner if i == last else None, end_reason=reason if i == last else None)
        for i, a in enumerate(afters)
    ]  # fmt: skip


@pytest.fixture(scope="module")
def hand_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    """Game 0: team 0 wins at 500 after trailing 80 to 200 (a comeback of 120 points).
    Game 1: team 0 falls to -510, team 1 wins.  Game 2: the deal limit, team 1 ahead 60 to 30."""
    recs = _game(0, [[100, -50], [80, 200], [500, 220]], 0, "reached_500")
    recs += _game(1, [[-300, 20], [-510, 40]], 1, "fell_to_-500")
    recs += _game(2, [[50, 0], [30, 60]], None, "deal_limit")
    run = write_run(tmp_path_factory.mktemp("traj") / "run", recs)
    return analyze([run], run / "stats")


def test_score_trajectories_by_hand(hand_tables: dict[str, pl.DataFrame]) -> None:
    t = hand_tables["score_trajectories"]
    assert t["end_reason"].unique(maintain_order=True).to_list() == [
        "all",
        "reached_500",
        "fell_to_-500",
        "deal_limit",
    ]
    d1 = row(t, end_reason="all", deal=1)  # winner side: 100 (g0), 20 (g1, team 1), 0 (g2's leader team 1)
    assert d1["games"] == 3
    assert (d1["winner_mean"], d1["runner_up_mean"], d1["lead_mean"]) == (40.0, -100.0, 140.0)
    assert (d1["winner_median"], d1["runner_up_median"]) == (20.0, -50.0)
    assert (d1["behind"], d1["behind_rate"]) == (1, pytest.approx(1 / 3))  # game 2's leader trailed 0-50
    assert (d1["behind_lo"], d1["behind_hi"]) == pytest.approx(wilson_interval(1, 3))
    assert d1["winner_lo"] <= d1["winner_mean"] <= d1["winner_hi"]
    d2 = row(t, end_reason="all", deal=2)  # winner 80, 40, 60; runner-up 200, -510, 30
    assert (d2["games"], d2["winner_mean"], d2["runner_up_mean"]) == (3, 60.0, pytest.approx(-280 / 3))
    assert d2["behind"] == 1 and (d2["winner_q10"], d2["winner_q90"]) == (40.0, 80.0)
    d3 = row(t, end_reason="all", deal=3)
    assert (d3["games"], d3["winner_mean"], d3["runner_up_mean"], d3["behind"]) == (1, 500.0, 220.0, 0)
    assert (d3["winner_lo"], d3["winner_hi"]) == (None, None)  # one game: no interval
    r2 = row(t, end_reason="reached_500", deal=2)
    assert (r2["games"], r2["lead_mean"], r2["behind_rate"]) == (1, -120.0, 1.0)
    assert row(t, end_reason="fell_to_-500", deal=2)["winner_mean"] == 40.0
    assert row(t, end_reason="deal_limit", deal=2)["lead_mean"] == 30.0
    assert t.filter(pl.col("end_reason") == "all")["deal"].to_list() == [1, 2, 3]


def test_comebacks_in_game_ends(hand_tables: dict[str, pl.DataFrame]) -> None:
    e = hand_tables["game_ends"]
    assert dict(zip(e["end_reason"], e["comebacks"], strict=True)) == {
        "reached_500": 1,  # trailed by 120 after deal 2
        "fell_to_-500": 0,
        "deal_limit": 0,  # trailed by 50 only
    }
    assert row(e, end_reason="reached_500")["comeback_rate"] == 1.0


def test_three_player_trajectories_match_python(tmp_path: Path) -> None:
    """Each player is a team: the runner-up is the better of the two others after every deal."""
    recs = play_run(tmp_path / "three", "three-player", 7, 12, spec="random")
    t = analyze([tmp_path / "three"], tmp_path / "stats")["score_trajectories"]
    final = {r["game_id"]: r for r in recs if r["game_over"]}
    by_deal: dict[int, list[tuple[int, int]]] = {}
    for r in recs:
        f = final[r["game_id"]]
        side = (
            f["winner"] if f["winner"] is not None else max(range(3), key=lambda s: (f["score_after"][s], -s))
        )
        w = r["score_after"][side]
        ru = max(r["score_after"][s] for s in range(3) if s != side)
        by_deal.setdefault(r["hand_no"] + 1, []).append((w, ru))
    allr = t.filter(pl.col("end_reason") == "all")
    assert allr["deal"].to_list() == sorted(by_deal)
    for deal, pairs in by_deal.items():
        got = row(allr, deal=deal)
        assert got["games"] == len(pairs)
        assert got["winner_mean"] == pytest.approx(sum(w for w, _ in pairs) / len(pairs))
        assert got["runner_up_mean"] == pytest.approx(sum(r for _, r in pairs) / len(pairs))
        assert got["behind"] == sum(1 for w, r in pairs if w < r)


def _made(r: dict) -> bool:
    if r["contract"] in ("MIS", "OMIS"):
        return r["declarer_tricks"] == 0
    return r["declarer_tricks"] >= int(r["contract"].rstrip("SCDHNT"))


def _level(code: str) -> str:
    return "misere" if code in ("MIS", "OMIS") else code.rstrip("SCDHNT")


@pytest.fixture(scope="module")
def tables_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[dict]]]:
    base = tmp_path_factory.mktemp("tables")
    out = {}
    for v, spec in (("pagat-au", "heuristic"), ("three-player", "heuristic"), ("two-jokers", "random")):
        out[v] = (base / v, play_run(base / v, v, 11, 15, spec=spec))
    out["three-dup"] = (
        base / "three-dup",
        play_run(base / "three-dup", "three-player", 11, 15, spec="random"),
    )
    return out


def test_unpaired_comparison_matches_python(tables_runs: dict, tmp_path: Path) -> None:
    (pa, ra), (pb, rb) = tables_runs["pagat-au"], tables_runs["three-player"]
    (pc, _) = tables_runs["two-jokers"]
    t = analyze([pa, pb, pc], tmp_path / "stats")
    assert t["variant_effects"].height == 0 and t["strategy_duplicate"].height == 0
    pairing = t["pairing"]
    assert pairing["kind"].to_list() == ["unpaired", "unpaired"]
    assert pairing["paired_deals"].to_list() == [0, 0]
    tc = t["table_comparison"]
    three = tc.filter(pl.col("variant") == "three-player")
    assert set(three["method"]) == {"unpaired"}
    assert set(three["note"]) == {
        "unpaired: 4 vs 3 players, so the runs deal different cards and are compared as independent samples"
    }
    assert set(three["base_table"]) == {"4 players, 2 teams, 43 cards"}
    assert set(three["table"]) == {"3 players, 3 teams, 33 cards"}
    jok = tc.filter(pl.col("variant") == "two-jokers")
    assert set(jok["note"]) == {
        "unpaired: different decks (43 vs 46 cards), so the runs deal different cards and are compared as "
        "independent samples"
    }

    def counts(recs: list[dict]) -> tuple[Counter, Counter, int]:
        played = [r for r in recs if r["contract"] is not None]
        return (
            Counter(_level(r["contract"]) for r in played),
            Counter(_level(r["contract"]) for r in played if _made(r)),
            len(played),
        )

    (na, ka, ta), (nb, kb, tb) = counts(ra), counts(rb)
    for lv in ("6", "7", "misere"):
        m = row(three, metric=f"contracts_{lv}")
        assert (m["base_k"], m["base_n"], m["k"], m["n"]) == (na[lv], ta, nb[lv], tb)
        s = row(three, metric=f"success_{lv}")
        assert (s["base_k"], s["base_n"], s["k"], s["n"]) == (ka[lv], na[lv], kb[lv], nb[lv])
        if na[lv] and nb[lv]:
            assert (s["diff_mean"], s["diff_lo"], s["diff_hi"]) == pytest.approx(
                newcombe_diff(ka[lv], na[lv], kb[lv], nb[lv])
            )
            assert (s["lo"], s["hi"]) == pytest.approx(wilson_interval(kb[lv], nb[lv]))
    dpg = row(three, metric="deals_per_game")
    assert (dpg["base_mean"], dpg["mean"]) == (len(ra) / 15, len(rb) / 15)
    assert dpg["diff_mean"] == pytest.approx(len(rb) / 15 - len(ra) / 15)
    assert dpg["diff_lo"] <= dpg["diff_mean"] <= dpg["diff_hi"] and dpg["stat"] == "mean"
    ends = Counter(r["end_reason"] for r in rb if r["game_over"])
    assert row(three, metric="end_reached_500")["k"] == ends["reached_500"]
    thrown = row(three, metric="thrown_in")
    assert (thrown["k"], thrown["n"]) == (len(rb) - tb, len(rb))


def test_three_team_paired_duplicate(tables_runs: dict, tmp_path: Path) -> None:
    """Two 3-player runs on the same deals pair deal by deal, with metrics for every team."""
    (pa, ra), (pb, rb) = tables_runs["three-player"], tables_runs["three-dup"]
    t = analyze([pa, pb], tmp_path / "stats")
    assert t["table_comparison"].height == 0 and t["pairing"]["kind"].to_list() == ["duplicate"]
    dup = t["strategy_duplicate"]
    metrics = set(dup["metric"])
    assert {"points_team0", "points_team1", "points_team2", "declarer_team2", "team2_won"} <= metrics
    paired = {(r["game_id"], r["hand_no"]): r for r in ra}
    pairs = [(paired[(r["game_id"], r["hand_no"])], r) for r in rb if (r["game_id"], r["hand_no"]) in paired]
    p2 = row(dup, metric="points_team2")
    assert p2["paired_n"] == len(pairs)
    assert p2["diff_mean"] == pytest.approx(
        sum(b["score_delta"][2] - a["score_delta"][2] for a, b in pairs) / len(pairs)
    )
    spread = row(dup, metric="abs_margin")
    assert spread["paired_base_mean"] == pytest.approx(
        sum(max(a["score_delta"]) - min(a["score_delta"]) for a, _ in pairs) / len(pairs)
    )
