"""``sweep``: the plan (validation, skipped combinations), the runs (resume, pairing, determinism), the
tables (one effects row per switch value and metric, Holm over the sweep) and the report's words."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from fivehundred.pipelines.analysis.multiplicity import holm
from fivehundred.pipelines.sweep import HEADLINE, SweepError, plan_sweep, run_sweep, value_text
from fivehundred.reports.sweep import build_sweep_report
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import SWITCHES, describe_change, load_rules, rule_differences, switch_values

SMALL = dict(switches="bidding.misere,scoring.win_score", variants="club-004", deals=250, seed=5)


def _plan(out: Path, **kw: object):
    args = {**SMALL, "strategies": "random", "workers": 0, **kw}
    return plan_sweep(out, **args)


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("sweep") / "s"
    plan = _plan(out)
    return plan, run_sweep(plan)


# ------------------------------------------------------------------------------------------ plan


def test_plan_every_switch_value_once_base_first(tmp_path: Path) -> None:
    plan = plan_sweep(tmp_path / "s", switches="all", deals=10, strategies="random", workers=0)
    base = load_rules("pagat-au").as_dict()
    assert plan.base.name == "base" and plan.base.kind == "base"
    expected = [
        f"{k}={value_text(v)}"
        for k in SWITCHES
        for v in switch_values(k)
        if not (v == base[k] and type(v) is type(base[k]))
    ]
    names = [r.name for r in plan.runs[1:]] + [s.name for s in plan.skipped]
    assert sorted(names) == sorted(expected)
    assert len(set(names)) == len(names)
    for r in plan.runs[1:]:
        assert r.config.seed == plan.base.config.seed  # common random numbers
        assert r.config.out == str(tmp_path / "s" / "runs" / r.name)
        key, value = r.switch, r.config.rules.as_dict()[r.switch]
        assert r.change == describe_change(key, base[key], value)
        assert r.config.rules.name == f"pagat-au+{r.name}"
    assert not (tmp_path / "s").exists()  # planning writes nothing


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"switches": "bidding.nosuch"}, "unknown switch 'bidding.nosuch'"),
        ({"switches": "table.players,table.players"}, "given twice"),
        ({"base": "nosuch"}, "unknown variant 'nosuch'"),
        ({"variants": "nosuch"}, "--variants: unknown variant"),
        ({"variants": "club-004,club-004"}, "given twice"),
        ({"strategies": "nosuch"}, "unknown strategy"),
        ({"deals": 0}, "deals"),
        ({"seed": -1}, "seed"),
    ],
)
def test_plan_refuses_bad_input_in_one_line(tmp_path: Path, kw: dict, words: str) -> None:
    with pytest.raises(UserError) as exc:
        _plan(tmp_path / "s", **kw)
    assert words in str(exc.value) and "\n" not in str(exc.value)
    assert not (tmp_path / "s").exists()


def test_impossible_and_same_rules_combinations_are_skipped(tmp_path: Path) -> None:
    plan = plan_sweep(tmp_path / "a", base="two-jokers", switches="table.players", strategies="random")
    assert [r.name for r in plan.runs] == ["base"]
    assert [s.name for s in plan.skipped] == ["table.players=3", "table.players=6"]
    assert all(s.reason.startswith("impossible:") and "two jokers" in s.reason for s in plan.skipped)

    off = tmp_path / "off.toml"
    off.write_text('base = "pagat-au"\n[bidding]\nmisere = "off"\n')
    plan = plan_sweep(tmp_path / "b", base=str(off), switches="bidding.open_misere,bidding.blind_misere")
    assert [r.name for r in plan.runs] == ["base"]
    reasons = {s.name: s.reason for s in plan.skipped}
    assert reasons["bidding.open_misere=false"] == "plays the same rules as base"  # already off
    assert reasons["bidding.blind_misere=true"].startswith("impossible:")
    assert "impossible with bidding.misere = 'off'" in reasons["bidding.blind_misere=true"]


def test_mixed_line_up_skips_other_table_sizes(tmp_path: Path) -> None:
    plan = plan_sweep(
        tmp_path / "s", switches="table.players", strategies="random,heuristic,random,heuristic"
    )
    assert [s.name for s in plan.skipped] == ["table.players=3", "table.players=6"]
    assert "line-up of 4 seats" in plan.skipped[0].reason
    one = plan_sweep(tmp_path / "t", switches="table.players", strategies="random")
    assert [len(r.config.seats) for r in one.runs] == [4, 3, 6]


def test_bad_switches_value_is_a_sweep_error(tmp_path: Path) -> None:
    with pytest.raises(SweepError):
        _plan(tmp_path / "s", switches=["table.players", "x"])


# ------------------------------------------------------------------------------------------ runs


def test_effects_one_row_per_switch_value_and_metric(swept) -> None:
    plan, result = swept
    eff = result.tables["sweep_effects"]
    played = [r.name for r in plan.runs[1:]]
    assert played == [
        "bidding.misere=anytime",
        "bidding.misere=off",
        "scoring.win_score=300",
        "variant=club-004",
    ]
    for metric, label in HEADLINE:
        sub = eff.filter(pl.col("metric") == metric)
        assert sub.get_column("name").to_list() == played, metric
        assert set(sub.get_column("label")) == {label}
    assert eff.height == len(played) * len(HEADLINE)
    # Holm over the whole sweep (one family), and the simultaneous interval holds the estimate
    assert eff.get_column("p_holm").to_list() == pytest.approx(holm(eff.get_column("p_value").to_list()))
    ok = eff.filter(pl.col("se_paired").is_not_null())
    assert (ok["adj_lo"] <= ok["diff_mean"]).all() and (ok["diff_mean"] <= ok["adj_hi"]).all()
    wide = ok.filter(pl.col("se_paired") > 0)
    assert ((wide["adj_hi"] - wide["adj_lo"]) > (wide["diff_hi"] - wide["diff_lo"])).all()
    assert set(eff.get_column("lineup")) == {"random.v1,random.v1,random.v1,random.v1"}


def test_words_come_from_describe_change(swept) -> None:
    _, result = swept
    var = result.tables["sweep_variants"]
    rules = load_rules("pagat-au").as_dict()
    words = dict(var.select("name", "change").iter_rows())
    assert words["bidding.misere=anytime"] == describe_change("bidding.misere", "after_seven", "anytime")
    assert words["scoring.win_score=300"] == describe_change(
        "scoring.win_score", rules["scoring.win_score"], 300
    )
    club = [d[3] for d in rule_differences(load_rules("club-004"), load_rules("pagat-au"))]
    assert words["variant=club-004"] == "; ".join(club) and club
    eff = result.tables["sweep_effects"]
    assert dict(eff.select("name", "change").unique().iter_rows()) == {
        k: v for k, v in words.items() if k != "base"
    }


def test_paired_effects_pair_the_same_deals(swept) -> None:
    """Every variant's (game_id, hand_no) that the base also played holds the same cards and dealer."""
    plan, result = swept

    def keys(run) -> pl.DataFrame:
        cols = ["game_id", "hand_no", "seed", "dealer", "hands"]
        return pl.read_parquet(f"{run.config.out}/deals/*.parquet", columns=cols)

    base = keys(plan.base)
    var = result.tables["sweep_variants"]
    for run in plan.runs[1:]:
        other = keys(run)
        joined = base.join(other, on=["game_id", "hand_no"], suffix="_o")
        assert joined.height > 0.5 * base.height
        assert (joined["seed"] == joined["seed_o"]).all()
        assert (joined["dealer"] == joined["dealer_o"]).all()
        assert joined["hands"].to_list() == joined["hands_o"].to_list()
        paired = var.filter(pl.col("name") == run.name)["paired_deals"][0]
        assert paired == joined.height
        n = result.tables["sweep_effects"].filter(
            (pl.col("name") == run.name) & (pl.col("metric") == "points_total")
        )["paired_n"][0]
        assert n == joined.height


def test_resume_reuses_finished_runs(swept) -> None:
    plan, _ = swept
    parts = sorted(Path(plan.out).glob("runs/*/deals/*.parquet"))
    before = {p: p.stat().st_mtime_ns for p in parts}
    stats = {p.name: p.read_bytes() for p in (plan.out / "stats").glob("*.parquet")}
    again = run_sweep(_plan(plan.out))
    assert [s.session_deals for s in again.summaries] == [0] * len(plan.runs)
    assert again.reused == len(plan.runs)
    assert {p: p.stat().st_mtime_ns for p in parts} == before
    assert {p.name: p.read_bytes() for p in (plan.out / "stats").glob("*.parquet")} == stats


@pytest.mark.slow  # a second whole sweep
def test_same_sweep_elsewhere_gives_identical_stats(swept, tmp_path: Path) -> None:
    plan, result = swept
    other = run_sweep(_plan(tmp_path / "again"))
    for p in sorted((plan.out / "stats").glob("*.parquet")):
        assert (tmp_path / "again" / "stats" / p.name).read_bytes() == p.read_bytes(), p.name
    assert other.tables["sweep_effects"].equals(result.tables["sweep_effects"])


@pytest.mark.slow
def test_ray_workers_give_the_same_stats(swept, tmp_path: Path) -> None:
    plan, _ = swept
    run_sweep(_plan(tmp_path / "ray", workers=2))
    files = sorted((plan.out / "stats").glob("*.*"))
    assert len(files) > 40
    for p in files:
        assert (tmp_path / "ray" / "stats" / p.name).read_bytes() == p.read_bytes(), p.name


@pytest.mark.slow  # a whole report of the sweep
def test_report_states_words_bots_and_effects(swept, tmp_path: Path) -> None:
    plan, result = swept
    res = build_sweep_report(result.tables, tmp_path / "r.html", tmp_path / "r.pdf")
    assert res.figures == {"sweep_forest": "ok"}
    page = (tmp_path / "r.html").read_text()
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")
    for row in result.tables["sweep_variants"].filter(pl.col("kind") != "base").iter_rows(named=True):
        assert f'data-variant="{row["name"]}"' in page
        assert row["change"].replace("'", "&#x27;") in page
    assert page.count('data-bots="1"') == len(plan.runs)  # the intro and every variant's section
    assert "random.v1,random.v1,random.v1,random.v1" in page
    assert 'id="fig-sweep_forest"' in page
    # the top table is sorted by the size of the points-per-deal effect
    eff = result.tables["sweep_effects"].filter(pl.col("metric") == "points_total")
    order = (
        eff.with_columns(pl.col("diff_mean").abs().alias("s")).sort("s", descending=True)["name"].to_list()
    )
    top = page.split('data-table="sweep_effects"')[1].split("</table>")[0]
    assert [top.index(f'data-value="{n}"') for n in order] == sorted(
        top.index(f'data-value="{n}"') for n in order
    )


def test_one_switch_runs_use_their_own_ladder(swept) -> None:
    """A sweep run has no variant file: the analysis takes its ladder from the manifest's rules."""
    _, result = swept
    var = dict(result.tables["sweep_variants"].select("name", "run_id").iter_rows())
    contracts = result.tables["contracts"]

    def codes(name: str) -> set[str]:
        return set(contracts.filter(pl.col("run_id") == var[name])["contract"])

    assert {"MIS", "OMIS"} <= codes("base")
    assert not {"MIS", "OMIS"} & codes("bidding.misere=off")


def test_a_folder_with_other_runs_is_refused_before_playing(swept) -> None:
    plan, _ = swept
    parts = sorted(Path(plan.out).glob("runs/*/deals/*.parquet"))
    before = {p: p.stat().st_mtime_ns for p in parts}
    with pytest.raises(SweepError, match="holds a run with another config"):
        _plan(plan.out, deals=300)
    with pytest.raises(SweepError, match="holds a run with another config"):
        _plan(plan.out, seed=6)
    assert {p: p.stat().st_mtime_ns for p in parts} == before
