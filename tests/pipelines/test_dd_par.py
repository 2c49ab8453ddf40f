"""``analyze --dd par``: each seat's DD tricks in every denomination, the par contract
(pipelines/analysis/ddpar.py) and the tables of how far the bots' bidding lands from par."""

from __future__ import annotations

import functools
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fivehundred.pipelines.analysis import analyze, dd_sample, ddpar
from fivehundred.pipelines.analysis.batches import deal_frame
from fivehundred.pipelines.analysis.io import AnalysisError, open_run
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.sim import load_rules
from fivehundred.sim.notation import bid_denomination
from tests.pipelines.dd_helpers import count_solves

RULES = load_rules("pagat-au")
DENS = [d for d, _ in ddpar.denominations(RULES)]


def _table(**given: list[int]) -> dict[str, list[int]]:
    """Every seat 0 tricks (misère: 1, not viable) but the denominations given."""
    t = {d: [1 if d == "MIS" else 0] * 4 for d in DENS}
    t.update(given)
    return t


def _score(rules, b, tricks: int) -> int:
    """The declaring side's points minus the defenders' as the engine scores a deal (written out here
    from the game's rule: declarer_points, 10 a trick to the defenders but against a misère)."""
    defence = 0 if b.misere else 10 * (rules.hand_size - tricks)
    return rules.declarer_points(b, tricks) - defence


def _brute_value(rules, dealer: int, tricks: dict[str, list[int]]) -> int:
    """Side 0's net (its DD points minus the other's, the defenders' trick points included) of the
    explicit auction game: sides speak in turn from the first bidder's, each passes or bids any
    higher bid of the ladder, two passes in a row end it, the holder's best seat declares.  Minimax
    over every line."""
    bids = ddpar.par_bids(rules)

    def best(side: int, i: int) -> int:
        b = bids[i]
        return max(
            _score(rules, b, tricks[bid_denomination(b.code)][s])
            for s in range(rules.players)
            if rules.team_of(s) == side
        )

    @functools.cache
    def value(last: int, holder: int, mover: int, passed: bool) -> int:
        if passed:
            end = 0 if last < 0 else (best(holder, last) if holder == 0 else -best(holder, last))
            outcomes = [end]
        else:
            outcomes = [value(last, holder, 1 - mover, True)]
        outcomes += [value(j, mover, 1 - mover, False) for j in range(last + 1, len(bids))]
        return max(outcomes) if mover == 0 else min(outcomes)

    return value(-1, -1, rules.team_of((dealer + 1) % rules.players), False)


def _net0(par: ddpar.Par) -> int:
    return 0 if par.team is None else (par.net if par.team == 0 else -par.net)


def test_nothing_makes_everyone_passes() -> None:
    assert ddpar.par_of(RULES, 0, _table()) == ddpar.Par(None, None, None, 0, 0)


def test_one_side_makes_hearts_par_is_its_highest_making_bid() -> None:
    par = ddpar.par_of(RULES, 3, _table(H=[8, 0, 6, 0]))
    assert par == ddpar.Par("8H", 0, 0, RULES.bid("8H").points, RULES.bid("8H").points - 20)


def test_the_higher_making_contract_outbids() -> None:
    # side 0 makes 8H, side 1 makes 9S (ranks above 8H): side 1 buys it, side 0 cannot outbid profitably
    par = ddpar.par_of(RULES, 0, _table(H=[8, 0, 8, 0], S=[0, 9, 0, 9]))
    assert par == ddpar.Par("9S", 1, 1, RULES.bid("9S").points, RULES.bid("9S").points - 10)
    # the seat that speaks first of two equal declarers declares (dealer 0: seat 1 before seat 3)
    assert ddpar.par_of(RULES, 2, _table(S=[0, 9, 0, 9])).declarer == 3


def test_a_viable_misere_is_bid_as_open_misere() -> None:
    par = ddpar.par_of(RULES, 0, _table(MIS=[1, 0, 1, 1]))
    points = RULES.bid("OMIS").points
    assert par == ddpar.Par("OMIS", 1, 1, points, points)  # the defenders score nothing against it


def test_the_defenders_tricks_count_in_par() -> None:
    """Side 0 makes exactly 6 spades (40 points) and the defenders take 4 tricks (40 points): a net of
    0, no better than passing, so par is to pass; counting the declarer's points alone it would be
    6S (par.v1)."""
    par = ddpar.par_of(RULES, 3, _table(S=[6, 0, 0, 0]))
    assert par == ddpar.Par(None, None, None, 0, 0)
    # a trick more: 7S made nets 140 - 30
    par = ddpar.par_of(RULES, 3, _table(S=[7, 0, 0, 0]))
    assert (par.contract, par.net) == ("7S", RULES.bid("7S").points - 30)


def test_three_sides_have_no_par() -> None:
    three = load_rules("three-player")
    assert ddpar.par_of(three, 0, {d: [5, 5, 5] for d, _ in ddpar.denominations(three)}) is None


def test_blind_bids_are_not_in_the_par_ladder() -> None:
    blind = load_rules("pagat-au", overrides={"bidding.blind_misere": True})
    assert any(b.blind for b in blind.ladder)
    assert not any(b.blind for b in ddpar.par_bids(blind))
    assert [d for d, _ in ddpar.denominations(blind)] == ["S", "C", "D", "H", "NT", "MIS"]


tricks_tables = st.fixed_dictionaries(
    {d: st.lists(st.integers(0, 1 if d == "MIS" else 10), min_size=4, max_size=4) for d in DENS}
)
OVERTRICKS = load_rules("pagat-au", overrides={"scoring.overtrick_points": 10})


@settings(max_examples=150, deadline=None)
@given(tricks_tables, st.integers(0, 3), st.sampled_from([RULES, OVERTRICKS]))
@example(_table(H=[8, 0, 8, 0], S=[0, 9, 0, 9]), 0, RULES)  # the outbid above: 9S by side 1
@example(_table(NT=[10, 0, 0, 0], H=[0, 10, 0, 0]), 1, OVERTRICKS)  # 10NT ranks over 10H
def test_par_value_is_the_minimax_of_the_explicit_auction(tricks, dealer: int, rules) -> None:
    par = ddpar.par_of(rules, dealer, tricks)
    assert par is not None
    assert _net0(par) == _brute_value(rules, dealer, tricks)
    if par.contract is not None:  # the par declarer makes what it is credited with
        b = rules.bid(par.contract)
        t = tricks[bid_denomination(b.code)][par.declarer]
        assert rules.declarer_points(b, t) == par.points
        assert _score(rules, b, t) == par.net
        assert rules.team_of(par.declarer) == par.team


@settings(max_examples=100, deadline=None)
@given(tricks_tables, st.integers(0, 3), st.integers(0, 3), st.sampled_from(["S", "C", "D", "H", "NT"]))
@example(_table(H=[7, 0, 0, 0]), 0, 0, "H")
def test_a_trick_more_never_hurts_its_side(tricks, dealer: int, seat: int, den: str) -> None:
    if tricks[den][seat] == 10:
        return
    more = {d: list(v) for d, v in tricks.items()}
    more[den][seat] += 1
    before, after = (_net0(ddpar.par_of(RULES, dealer, t)) for t in (tricks, more))
    assert (after >= before) if seat % 2 == 0 else (after <= before)


# ------------------------------------------------------------------------------ the sidecar and tables

SAMPLE = 12


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("parrun") / "r"
    strategies = "heuristic,heuristic(aggression=1.0),heuristic,heuristic(aggression=1.0)"
    run_simulation(make_config(None, strategies=strategies, seed=8, deals=30, workers=0, out=str(out)))
    return out


def _copy(run: Path, dest: Path) -> Path:
    import shutil

    shutil.copytree(run, dest, ignore=shutil.ignore_patterns("dd", "dd_par", "stats"))
    return dest


@pytest.fixture(scope="module")
def analysed(run: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    return analyze([run], tmp_path_factory.mktemp("stats"), dd="par", dd_sample=SAMPLE)


def test_par_sidecar_agrees_with_the_contract_as_played(run: Path, analysed) -> None:
    """The declarers are heuristic.v1 (aggression changes only its bids): their discard and naming
    are the exchange rule's, so each played contract's DD tricks are its declarer's in the par sidecar."""
    par = pl.read_parquet(f"{run}/dd_par/*.parquet")
    assert par.height == SAMPLE and set(par["dd_version"]) == {ddpar.PAR_VERSION}
    assert len(list((run / "dd_par").glob("part-*.parquet"))) == 1
    played = pl.read_parquet(f"{run}/dd/*.parquet").join(par, on="deal_id")
    assert played.height >= 6
    for r in played.iter_rows(named=True):
        assert r[f"dd_{bid_denomination(r['contract'])}"][r["declarer"]] == r["dd_tricks"]
    for r in par.iter_rows(named=True):
        tricks = {d: r[f"dd_{d}"] for d in DENS}
        assert ddpar.par_of(RULES, r["dealer"], tricks) == ddpar.Par(
            r["par_contract"], r["par_declarer"], r["par_team"], r["par_points"], r["par_net"]
        )
        for d in DENS:
            assert len(r[f"dd_{d}"]) == 4 and all(0 <= t <= (1 if d == "MIS" else 10) for t in r[f"dd_{d}"])


def test_par_tables_count_every_sampled_deal_once(run: Path, analysed) -> None:
    row = analysed["dd_par"].row(0, named=True)
    assert row["n"] == SAMPLE
    assert row["at_par"] + row["above_par"] + row["below_par"] + row["par_other_side"] == SAMPLE
    par = pl.read_parquet(f"{run}/dd_par/*.parquet")
    log = pl.read_parquet(f"{run}/deals/*.parquet").join(par, on="deal_id")
    at = sum(
        r["contract"] == r["par_contract"] and (r["declarer"] % 2) == r["par_team"] for r in log.to_dicts()
    )
    assert row["at_par"] == at
    assert row["par_points_mean"] == pytest.approx(par["par_points"].mean())
    assert row["par_net_mean"] == pytest.approx(par["par_net"].mean())
    by = analysed["dd_par_by_strategy"]
    assert sorted(by["strategy"]) == ["heuristic.v1", "heuristic.v1(aggression=1.0)"]
    assert by["n"].to_list() == [SAMPLE, SAMPLE]
    # two sides, zero-sum: one side's points against par are the other's negated
    assert by["points_vs_par_mean"][0] == pytest.approx(-by["points_vs_par_mean"][1])
    assert by["overbid"].sum() == row["above_par"] and by["underbid"].sum() == row["below_par"]
    assert by.columns[:3] == ["run_id", "variant", "strategies"]


def test_a_second_analysis_reuses_the_par_parts(run: Path, analysed, tmp_path: Path, monkeypatch) -> None:
    before = {p.name: p.read_bytes() for p in (run / "dd_par").glob("*.parquet")}
    solved = count_solves(monkeypatch, ddpar, "solve_par_chunk")
    again = analyze([run], tmp_path / "s", dd="par", dd_sample=SAMPLE)
    assert solved == []
    assert {p.name: p.read_bytes() for p in (run / "dd_par").glob("*.parquet")} == before
    assert again["dd_par_by_strategy"].equals(analysed["dd_par_by_strategy"])


def test_unknown_dd_kind_is_refused(run: Path, tmp_path: Path) -> None:
    with pytest.raises(AnalysisError, match="unknown --dd analysis 'para' \\(known: contract, par\\)"):
        analyze([run], tmp_path / "s", dd="para")
    assert not (tmp_path / "s").exists()


def test_landing_marks_over_and_under_bids(run: Path) -> None:
    frame = deal_frame(open_run(run))
    rows = dd_sample.dd_rows(frame).sort("deal_id")
    par = pl.DataFrame(
        {
            "deal_id": rows["deal_id"][:1],
            **{f"dd_{d}": [[0, 0, 0, 0]] for d in DENS},
            "par_contract": ["10NT"],
            "par_declarer": [1],
            "par_team": [1],
            "par_points": [520],
            "par_net": [520],
        }
    )
    land = ddpar.landing(frame, RULES, par)
    contract, declarer = rows.select("contract", "declarer").row(0)
    assert land.height == 2
    side1 = land.filter(pl.col("side") == 1).row(0, named=True)
    assert side1["par_net"] == 520 and side1["underbid"]  # nothing but 10NT itself is at or above it
    side0 = land.filter(pl.col("side") == 0).row(0, named=True)
    assert side0["par_net"] == -520 and not side0["overbid"] and not side0["underbid"]
    if contract is not None:  # with 0 tricks a contract fails and the defenders take every trick
        b = RULES.bid(contract)
        lost = RULES.declarer_points(b, 0) - (0 if b.misere else 100)
        mine = land.filter(pl.col("side") == declarer % 2).row(0, named=True)
        assert mine["net"] == lost


@pytest.mark.slow  # a whole report
def test_report_dd_section_shows_the_par_tables(run: Path, analysed, tmp_path: Path) -> None:
    from fivehundred.reports.build import build_report

    result = build_report([run], tmp_path / "r.html", tables=analysed)
    assert result.tables["dd_success"] == "ok"
    page = (tmp_path / "r.html").read_text()
    section = page.split('<section id="dd">')[1].split("<section id=")[0]
    assert 'data-table="dd_par_by_strategy"' in section and 'class="dd-par"' in section
    deals = pl.read_parquet(f"{run}/deals/*.parquet").height
    assert f"of {SAMPLE} deals" in section and f"a sample of {SAMPLE} of the {deals} deals" in section


def test_the_command_takes_dd_alone_or_dd_par(run: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import fivehundred.cli.main  # noqa: F401  (registers every command)
    from fivehundred.cli.app import app

    runner = CliRunner()
    args = ["analyze", str(_copy(run, tmp_path / "r")), "--dd-sample", "4", "--workers", "0", "--out"]
    plain = runner.invoke(app, [*args, str(tmp_path / "a"), "--dd"])
    assert plain.exit_code == 0, plain.output
    assert "dd_success" in plain.output and "dd_par" not in plain.output
    par = runner.invoke(app, [*args, str(tmp_path / "b"), "--dd", "par"])
    assert par.exit_code == 0, par.output
    assert "dd_par_by_strategy" in par.output
    assert pl.read_parquet(tmp_path / "b" / "dd_par.parquet")["n"].to_list() == [4]


@pytest.mark.slow
def test_ray_workers_write_the_same_par_bytes(run: Path, tmp_path: Path) -> None:
    a, b = _copy(run, tmp_path / "a"), _copy(run, tmp_path / "b")
    analyze([a], tmp_path / "sa", dd="par", dd_sample=SAMPLE, workers=0)
    analyze([b], tmp_path / "sb", dd="par", dd_sample=SAMPLE, workers=2)
    for folder in ("dd", "dd_par"):
        mine = {p.name: p.read_bytes() for p in (a / folder).glob("*.parquet")}
        assert mine and mine == {p.name: p.read_bytes() for p in (b / folder).glob("*.parquet")}
