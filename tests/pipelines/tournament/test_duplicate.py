"""Duplicate matches measured by deal pairs (pipelines.tournament.duplicate): the deal pairs are the
same hands of the same boards, the breakdowns add up to the mean, a bot against itself scores 0, the
match stops where asked whatever the chunking, a Seating replaces how bots are built and played, and
self-play counts what it plays."""

from __future__ import annotations

import pytest

from fivehundred.pipelines.analysis.intervals import inverse_variance_pool
from fivehundred.pipelines.tournament.duplicate import (
    breakdown_lines,
    contract_kind,
    duplicate_match,
    kind_breakdown,
    match_config,
    match_line,
    play_duplicate,
    pooled_line,
    self_play,
    swap_breakdown,
)
from fivehundred.pipelines.tournament.schedule import Seating
from fivehundred.sim import load_rules, play_game


@pytest.fixture(scope="module")
def v2_v1():  # type: ignore[no-untyped-def]
    return duplicate_match("pagat-au", "heuristic.v2", "heuristic.v1", 120, 500)


def test_deal_pairs_are_the_same_hands_and_add_up(v2_v1) -> None:  # type: ignore[no-untyped-def]
    r = v2_v1
    assert r.deal_pairs >= 120 and r.games == 2 * len(r.boards)
    assert [b.pair for b in r.boards] == list(range(len(r.boards)))  # boards in order, none skipped
    mean, lo, hi = r.points()
    assert lo < mean < hi
    assert mean == pytest.approx(sum(sum(b.values) for b in r.boards) / (2 * r.deal_pairs))
    # A board's values: A's margin in the game where it holds the even seats plus in the other one,
    # hand by hand while both games last (heuristic bots draw nothing: play_game replays them).
    rules = load_rules("pagat-au")
    even = play_game(rules, _bots("heuristic.v2", "heuristic.v1", rules), 500, 0)
    odd = play_game(rules, _bots("heuristic.v1", "heuristic.v2", rules), 500, 0)
    want = [
        (x["score_delta"][0] - x["score_delta"][1]) + (y["score_delta"][1] - y["score_delta"][0])
        for x, y in zip(even, odd, strict=False)
    ]
    assert r.boards[0].values == want
    wins, decided = r.wins()
    assert 0 <= wins <= decided <= r.games


def _bots(a: str, b: str, rules):  # type: ignore[no-untyped-def]
    from fivehundred.strategies.base import make

    return [make(a if s % 2 == 0 else b) for s in range(rules.players)]


def test_the_breakdowns_add_up_to_the_mean(v2_v1) -> None:  # type: ignore[no-untyped-def]
    r = v2_v1
    mean = r.points()[0]
    rows = kind_breakdown(r)
    assert sum(row.points for row in rows) == pytest.approx(mean)
    assert sum(row.seatings for row in rows) == 2 * r.deal_pairs  # two games a deal pair
    assert {"6 suit", "thrown in"} <= {row.kind for row in rows}
    swaps = swap_breakdown(r)
    assert sum(p for _, _, p in swaps) == pytest.approx(mean)
    assert sum(n for _, n, _ in swaps) == r.deal_pairs
    lines = breakdown_lines(r)
    assert lines[0].startswith("where heuristic.v2's points come from")
    assert any(line.startswith("  same hands: A 7 suit made / B 6 suit") for line in lines)
    assert match_line(r).startswith("heuristic.v2 vs heuristic.v1: ")


def test_a_bot_against_itself_scores_zero_and_mirrors() -> None:
    r = duplicate_match("pagat-au", "heuristic.v1", "heuristic.v1", 60, 5)
    assert r.points()[0] == 0 and all(v == 0 for b in r.boards for v in b.values)
    assert (r.a, r.b) == ("heuristic.v1", "heuristic.v1")
    rows = kind_breakdown(r)
    a = sorted((x.kind, x.made, x.seatings, -x.points) for x in rows if x.declarer == "A")
    b = sorted((x.kind, x.made, x.seatings, x.points) for x in rows if x.declarer == "B")
    assert a == b and a


def test_the_match_stops_at_the_board_that_reaches_the_pairs_whatever_the_chunks() -> None:
    one = duplicate_match("pagat-au", "heuristic.v2", "random", 25, 9, chunk_pairs=1)
    many = duplicate_match("pagat-au", "heuristic.v2", "random", 25, 9, chunk_pairs=7)
    assert [b.values for b in one.boards] == [b.values for b in many.boards]
    assert one.deal_pairs >= 25 and one.deal_pairs - len(one.boards[-1].values) < 25


def test_a_seating_builds_and_plays_the_bots() -> None:
    played: list[int] = []

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        played.append(args[3])
        return play_game(*args, **kwargs)

    config = match_config("pagat-au", "heuristic.v2", "heuristic.v1", 500, 40)
    mine = play_duplicate(config, 40, seating=Seating(play=counted))
    base = duplicate_match("pagat-au", "heuristic.v2", "heuristic.v1", 40, 500)
    assert [b.values for b in mine.boards] == [b.values for b in base.boards]
    assert len(played) >= mine.games > 0


def test_only_partnership_tables() -> None:
    with pytest.raises(ValueError, match="two partnerships"):
        match_config("three-player", "heuristic", "random", 1)


def test_contract_kinds() -> None:
    rules = load_rules("club-004")
    assert [contract_kind(rules, c) for c in (None, "6S", "7H", "9C", "8NT", "MIS", "OMIS", "BMIS")] == [
        "thrown in", "6 suit", "7 suit", "8+ suit", "8+NT", "misère", "open misère", "blind misère",
    ]  # fmt: skip


def test_self_play_counts_what_it_played() -> None:
    p = self_play("pagat-au", ["heuristic.v2", "heuristic.v1"], 6, 3, first_game=0)
    rules = load_rules("pagat-au")
    deals = contracts = 0
    for g in range(6):
        for r in play_game(rules, _bots("heuristic.v2", "heuristic.v1", rules), 3, g):
            deals += 1
            contracts += r["contract"] is not None
    assert (p.games, p.deals, p.contracts) == (6, deals, contracts)
    assert sum(k for k, _ in p.misere.values()) <= p.contracts and p.nt[1] <= p.nt[0]
    assert p.deals_per_second > 0


def test_matches_on_other_seeds_pool_by_their_clustered_standard_errors(v2_v1) -> None:  # type: ignore[no-untyped-def]
    other = duplicate_match("pagat-au", "heuristic.v2", "heuristic.v1", 60, 7)
    results = [v2_v1, other]
    for r in results:  # the standard error is the one behind the interval of points()
        mean, lo, hi = r.points()
        assert r.standard_error() > 0 and lo < mean - r.standard_error() < mean < hi
    m, lo, hi, _ = inverse_variance_pool([(r.points()[0], r.standard_error()) for r in results])
    line = pooled_line(results)
    assert line.startswith(
        "heuristic.v2 vs heuristic.v1: 2 sets pooled by inverse variance (master seeds 500, 7;"
    )
    assert f"{v2_v1.deal_pairs + other.deal_pairs} deal pairs" in line
    assert line.endswith(f"points/deal {m:+.1f} [95% CI {lo:+.1f}, {hi:+.1f}]")
    flipped = duplicate_match("pagat-au", "heuristic.v1", "heuristic.v2", 60, 7)
    line = pooled_line([flipped])  # the stronger side's point of view, as match_line
    assert line.startswith("heuristic.v2 vs heuristic.v1: 1 set pooled") and "points/deal +" in line
