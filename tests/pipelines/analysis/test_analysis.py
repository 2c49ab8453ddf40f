"""pipelines.analysis on a small hand-built deal log whose answers are worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.analysis.distributions import t_quantile
from fivehundred.pipelines.analysis.intervals import bootstrap_mean, newcombe_diff, wilson_interval
from tests.pipelines.analysis.helpers import deal_hands, record, row, write_run

#: The hand-built deals: (game, hand, dealer, fixed hands, kitty, bids, contract, declarer, discards,
#: trick winners, score_delta, score_after, the game's end).
DEALS: list[tuple] = [
    # A: 8H by seat 0 (first bidder), dealt JK JH JD AH KH = 5 trumps, kitty QH TH; made with 9 tricks.
    (0, 0, 3, {0: ["JK", "JH", "JD", "AH", "KH", "AS", "4D", "KC", "QC", "TC"]}, ["9D", "QH", "TH"],
     ["8H", "P", "P", "P"], "8H", 0, ["9D", "4D", "AS"], [0, 0, 2, 0, 0, 2, 0, 0, 0, 1], [300, 10], [300, 10],
     {}),
    # B: 8H by seat 2 after partner's 7NT; JH AH KH QH = 4 trumps, no joker; kitty JK JD; fails with 7.
    (0, 1, 0, {2: ["JH", "AH", "KH", "QH", "AS", "KS", "AC", "KC", "4D", "5D"]}, ["JK", "JD", "6D"],
     ["6S", "7H", "P", "7NT", "P", "8H", "P"], "8H", 2, ["4D", "5D", "6D"], [2, 2, 0, 2, 2, 0, 1, 2, 1, 1],
     [-300, 30], [0, 40], {"game_over": True, "end_reason": "deal_limit"}),
    # C: thrown in.
    (1, 0, 1, {}, ["4H", "5H", "6H"], ["P"] * 4, None, None, None, None, None, None, {}),
    # D: MIS by seat 0 (seat_rel 2), ten low cards, the joker from the kitty discarded; made.
    (1, 1, 2, {0: ["5S", "6S", "7S", "4D", "5D", "6D", "4H", "5H", "6H", "7C"]}, ["JK", "8C", "9C"],
     ["7S", "MIS", "P", "P", "P"], "MIS", 0, ["JK", "8C", "9C"], [3, 1] * 5, [250, 0], [250, 40],
     {"game_over": True, "winner": 0, "end_reason": "reached_500"}),
    # E: OMIS by seat 1 holding the joker unnamed; fails on the second trick.
    (2, 0, 3, {1: ["JK", "4H", "5H", "6H", "4D", "5D", "6D", "5C", "6C", "7C"]}, ["5S", "6S", "7S"],
     ["P", "OMIS", "P", "P"], "OMIS", 1, ["5S", "6S", "7S"], [0, 1], [0, -500], [0, -500],
     {"game_over": True, "winner": 0, "end_reason": "fell_to_-500"}),
    # F: 6S by seat 2 (first bidder), slam: all ten tricks, 250.
    (3, 0, 1, {}, ["4H", "5H", "6H"], ["6S", "P", "P", "P"], "6S", 2, ["4H", "5H", "6H"], [2, 0] * 5,
     [250, 0], [250, 0], {"game_over": True, "winner": 0, "end_reason": "reached_500"}),
]  # fmt: skip


def hand_built_records() -> list[dict]:
    recs = []
    for game, hand, dealer, fixed, kitty, bids, *played, end in DEALS:
        args = [a for a in played if a is not None]  # a thrown-in deal: no contract, no play
        recs.append(record(game, hand, dealer, deal_hands(fixed, kitty), kitty, bids, *args, **end))
    return recs


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    run = write_run(tmp_path_factory.mktemp("hand") / "run", hand_built_records())
    return analyze([run], run / "stats")


def test_overview(tables: dict[str, pl.DataFrame]) -> None:
    o = tables["overview"].row(0, named=True)
    assert (o["deals"], o["games"], o["thrown_in"], o["contracts"]) == (6, 4, 1, 5)
    assert o["deals_per_game"] == 1.5
    assert o["master_seed"] is None and o["run_id"] == "run-test"
    # Games 1, 2, 3 won by team 0, each first dealt by team 1 (dealers 1, 3, 1); game 0 hit the limit.
    assert (o["decided_games"], o["first_dealer_wins"], o["first_dealer_win_rate"]) == (3, 0, 0.0)


def test_games(tables: dict[str, pl.DataFrame]) -> None:
    gl = tables["game_length"]
    assert dict(zip(gl["deals"], gl["games"], strict=True)) == {1: 2, 2: 2}
    ge = tables["game_ends"]
    assert ge["end_reason"].to_list() == ["reached_500", "fell_to_-500", "deal_limit"]
    assert ge["games"].to_list() == [2, 1, 1] and ge["rate"].to_list() == [0.5, 0.25, 0.25]
    assert ge["rate_lo"][0] < 0.5 < ge["rate_hi"][0]


def test_contracts(tables: dict[str, pl.DataFrame]) -> None:
    c = tables["contracts"]
    assert c.height == 27 and c["contract"].to_list()[:3] == ["6S", "6C", "6D"]
    h8 = row(c, contract="8H")
    assert (h8["called"], h8["n"], h8["made"], h8["success_rate"]) == (2, 2, 1, 0.5)
    assert h8["points_mean"] == 0.0 and h8["value"] == 300 and h8["declared_rate"] == pytest.approx(2 / 6)
    assert h8["tricks_mean"] == 8.0 and h8["overtricks_mean"] == 1.0 and h8["overtrick_n"] == 1
    assert h8["slam_n"] == 0
    s6 = row(c, contract="6S")
    assert (s6["called"], s6["n"], s6["made"], s6["slam_n"], s6["points_mean"]) == (2, 1, 1, 1, 250.0)
    assert s6["overtricks_mean"] == 4.0
    assert row(c, contract="7NT")["called"] == 1 and row(c, contract="7NT")["n"] == 0
    assert row(c, contract="9D")["n"] == 0 and row(c, contract="9D")["success_rate"] is None
    mis = row(c, contract="MIS")
    assert (mis["n"], mis["made"], mis["points_mean"], mis["overtrick_n"]) == (1, 1, 250.0, None)
    assert c["n"].sum() == 5 and c["called"].sum() == 9


def test_by_level_trump_seat_strategy_variant(tables: dict[str, pl.DataFrame]) -> None:
    lv = tables["success_by_level"]
    assert lv["level"].to_list() == ["6", "8", "MIS", "OMIS"]
    assert (row(lv, level="8")["n"], row(lv, level="8")["made"]) == (2, 1)
    assert row(lv, level="OMIS")["points_mean"] == -500.0
    tr = tables["success_by_trump"]
    assert tr["trump"].to_list() == ["S", "H", "MIS", "OMIS"]
    seat = tables["success_by_seat"]
    assert (row(seat, seat_rel=1)["n"], row(seat, seat_rel=1)["made"]) == (2, 2)
    assert (row(seat, seat_rel=2)["n"], row(seat, seat_rel=2)["made"]) == (3, 1)
    st = tables["success_by_strategy"]
    assert (row(st, strategy="alpha.v1")["n"], row(st, strategy="alpha.v1")["made"]) == (4, 3)
    assert (row(st, strategy="beta.v1")["n"], row(st, strategy="beta.v1")["made"]) == (1, 0)
    va = tables["success_by_variant"].row(0, named=True)
    assert (va["variant"], va["runs"], va["n"], va["made"]) == ("pagat-au", 1, 5, 3)
    assert va["points_mean"] == pytest.approx((300 - 300 + 250 - 500 + 250) / 5)


def test_hand_features(tables: dict[str, pl.DataFrame]) -> None:
    f = tables["success_by_feature"]
    expect = {  # feature: (value in A, made) and (value in B, failed)
        "trumps": ("5", "4"), "bowers": ("2", "1"), "joker": ("1", "0"), "aces": ("2", "3"),
        "voids": ("0", "0"), "longest": ("5", "4"), "trumps_final": ("7", "6"), "partner_bid": ("P", "7NT"),
    }  # fmt: skip
    for feature, (a, b) in expect.items():
        if a == b:
            r = row(f, group="8H", feature=feature, value=a)
            assert (r["n"], r["made"]) == (2, 1), feature
        else:
            ra, rb = (
                row(f, group="8H", feature=feature, value=a),
                row(f, group="8H", feature=feature, value=b),
            )
            assert (ra["n"], ra["made"], ra["points_mean"]) == (1, 1, 300.0), feature
            assert (rb["n"], rb["made"], rb["points_mean"]) == (1, 0, -300.0), feature
    assert (row(f, group="8H", feature="kitty_trumps", value="2")["n"]) == 2
    # Pooled over suit contracts: 8H twice and 6S once; NT and misère deals have no trumps feature.
    pooled = f.filter((pl.col("group") == "all-suit") & (pl.col("feature") == "joker"))
    assert pooled["n"].sum() == 3
    assert f.filter(pl.col("group").is_in(["MIS", "OMIS"])).height == 0
    tj = tables["success_by_trumps_joker"]
    assert row(tj, contract="8H", trumps=5, joker=1)["made"] == 1
    assert row(tj, contract="8H", trumps=4, joker=0)["made"] == 0


def test_misere(tables: dict[str, pl.DataFrame]) -> None:
    m = tables["misere"]
    assert m["contract"].to_list() == ["MIS", "OMIS"]
    mis, omis = row(m, contract="MIS"), row(m, contract="OMIS")
    assert (mis["called"], mis["n"], mis["made"], mis["points_mean"]) == (1, 1, 1, 250.0)
    assert (omis["called"], omis["n"], omis["made"], omis["points_mean"]) == (1, 1, 0, -500.0)
    f = tables["misere_by_feature"]
    assert row(f, contract="MIS", feature="low_cards", value="10")["made"] == 1
    assert row(f, contract="MIS", feature="joker", value="discarded")["n"] == 1
    assert row(f, contract="MIS", feature="high_S", value="7")["n"] == 1
    assert row(f, contract="MIS", feature="high_D", value="6")["n"] == 1
    assert row(f, contract="MIS", feature="voids", value="0")["n"] == 1
    assert row(f, contract="OMIS", feature="joker", value="unnamed")["made"] == 0
    assert row(f, contract="OMIS", feature="high_C", value="7")["n"] == 1


def test_strategies(tables: dict[str, pl.DataFrame]) -> None:
    s = tables["strategies"]
    a, b = row(s, strategy="alpha.v1"), row(s, strategy="beta.v1")
    assert a["seat_deals"] == 12 and a["points_mean"] == pytest.approx(500 / 6)
    # Games, not seat-games: the two alpha seats share each game's result.
    assert (a["n"], a["made"], a["games"], a["wins"], a["win_rate"]) == (4, 3, 4, 3, 0.75)
    assert a["def_tricks_mean"] == 1.0
    assert b["points_mean"] == pytest.approx(-460 / 6) and (b["n"], b["made"], b["wins"]) == (1, 0, 0)
    assert b["def_tricks_mean"] == pytest.approx((1 + 3 + 10 + 0) / 4)
    p = tables["strategy_pairings"]
    assert set(p["team_strategies"]) == {"alpha.v1+alpha.v1", "beta.v1+beta.v1"}
    t0 = row(p, team_strategies="alpha.v1+alpha.v1")
    assert (t0["opponents"], t0["team_deals"], t0["games"], t0["wins"]) == ("beta.v1+beta.v1", 6, 4, 3)


def test_files_written(tables: dict[str, pl.DataFrame], tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", hand_built_records())
    out = analyze([run], tmp_path / "out")
    for name, df in out.items():
        assert pl.read_parquet(tmp_path / "out" / f"{name}.parquet").equals(df)
        assert (tmp_path / "out" / f"{name}.csv").read_text().startswith(",".join(df.columns[:2]))
    assert not list((tmp_path / "out").glob("*.tmp"))


def test_wilson_and_newcombe_known_values() -> None:
    lo, hi = wilson_interval(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    # Newcombe (1998), example (a): 56/70 vs 48/80, method 10: 0.0524 to 0.3339.
    d, lo, hi = newcombe_diff(48, 80, 56, 70)
    assert (round(d, 4), round(lo, 4), round(hi, 4)) == (0.2, 0.0524, 0.3339)


def test_bootstrap_is_seeded_and_sane() -> None:
    values, counts = np.array([-250.0, 250.0]), np.array([300, 700])
    first = bootstrap_mean(values, counts, seed=7)
    assert first == bootstrap_mean(values, counts, seed=7)
    mean, lo, hi, sd = first
    assert mean == pytest.approx(100.0)
    half = 1.96 * sd / math.sqrt(1000)
    assert lo == pytest.approx(mean - half, abs=0.15 * half) and hi == pytest.approx(
        mean + half, abs=0.15 * half
    )
    assert bootstrap_mean(np.array([3.0]), np.array([4]), seed=1)[:3] == (3.0, 3.0, 3.0)


def test_all_passed_log_and_unreplayable_deals(tmp_path: Path) -> None:
    kitty = ["4H", "5H", "6H"]
    recs = [record(0, i, i % 4, deal_hands({}, kitty), kitty, ["P"] * 4) for i in range(3)]
    recs[-1].update(game_over=True, end_reason="deal_limit")
    run = write_run(tmp_path / "run", recs)
    t = analyze([run], tmp_path / "out")
    assert t["overview"]["thrown_in"].to_list() == [3] and t["contracts"]["n"].sum() == 0
    assert t["success_by_level"].height == 0 and "success_rate" in t["success_by_level"].columns
    assert t["strategies"]["def_tricks_mean"].to_list() == [None, None]
    # Hand-built deals do not come from their seeds, so the what-if replay refuses them.
    from fivehundred.pipelines.analysis import AnalysisError

    with pytest.raises(AnalysisError, match="does not re-deal from its seed"):
        analyze([run], tmp_path / "wi", what_if="misere", sample=2, seat_strategy="random")


def test_paired_variant_effects_by_hand(tmp_path: Path) -> None:
    """Two two-deal runs with the same deals: team 0 scores 300, -300 under one rule set and 100, -100
    under the other.  Differences -200, +200: mean 0; sample variances 180000 and 20000 unpaired
    against 80000 for the differences, so pairing removes 1 - 40000/100000 = 60% of the variance."""
    kitty = ["4H", "5H", "6H"]
    hands = deal_hands({}, kitty)

    def run(variant: str, pts: tuple[int, int], made: tuple[bool, bool]) -> Path:
        recs = []
        for i, (p, ok) in enumerate(zip(pts, made, strict=True)):
            tricks = [0] * 8 + [1] * 2 if ok else [0] * 5 + [1] * 5
            recs.append(record(0, i, i, hands, kitty, ["8S", "P", "P", "P"], "8S", 2 * i,
                               kitty, tricks, [p, 20], game_over=i == 1, winner=0 if i == 1 else None,
                               end_reason="reached_500" if i == 1 else None, variant=variant))  # fmt: skip
        return write_run(tmp_path / variant, recs, variant)

    t = analyze(
        [run("pagat-au", (300, -300), (True, False)), run("nullo", (100, -100), (True, True))], tmp_path / "o"
    )
    eff = t["variant_effects"]
    p0 = row(eff, metric="points_team0")
    assert (p0["paired_n"], p0["paired_base_mean"], p0["paired_mean"], p0["diff_mean"]) == (2, 0.0, 0.0, 0.0)
    assert (p0["base_n"], p0["run_n"]) == (2, 2)
    assert p0["se_paired"] == pytest.approx(200.0) and p0["se_unpaired"] == pytest.approx(math.sqrt(100000))
    assert p0["variance_reduction"] == pytest.approx(0.6)
    # Two pairs: Student's t with 1 degree of freedom, not a bootstrap of two values.
    t1 = t_quantile(0.975, 1)
    assert (p0["diff_lo"], p0["diff_hi"]) == pytest.approx((-t1 * 200.0, t1 * 200.0))
    assert row(eff, metric="points_team1")["diff_mean"] == 0.0
    made = row(eff, metric="made")
    assert (made["paired_base_mean"], made["paired_mean"], made["diff_mean"]) == (0.5, 1.0, 0.5)
    assert "success_rate" not in set(eff["metric"])  # unpaired success rates have their own table
    sr = row(t["success_comparison"], metric="success_rate")
    assert sr["method"] == "unpaired" and sr["diff_mean"] == 0.5
    assert (sr["diff_lo"], sr["diff_hi"]) == pytest.approx(newcombe_diff(1, 2, 2, 2)[1:])
    assert (
        row(eff, metric="deals_per_game")["diff_mean"] == 0.0
        and row(eff, metric="share_8")["paired_mean"] == 1.0
    )
    assert t["pairing"].row(0, named=True)["kind"] == "variant"
