"""``sweep --dd-sample``: each variant's paired double-dummy effects (``sweep_dd_effects``) over the DD
sample's common deals, checked against the sidecars and logs directly, and the report's DD view."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from fivehundred.pipelines.analysis import dd as ddmod
from fivehundred.pipelines.analysis import dd_sample
from fivehundred.pipelines.analysis.batches import deal_frame
from fivehundred.pipelines.analysis.distributions import normal_quantile
from fivehundred.pipelines.analysis.io import open_run
from fivehundred.pipelines.analysis.multiplicity import holm
from fivehundred.pipelines.sweep import SweepError, plan_sweep, run_sweep
from fivehundred.reports.sweep import build_sweep_report

SAMPLE = 40


def _plan(out: Path, **kw: object):
    args = {"switches": "bidding.misere", "deals": 120, "seed": 9, "strategies": "random", "workers": 0}
    return plan_sweep(out, **{**args, **kw})


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("sweepdd") / "s"
    plan = _plan(out, dd_sample=SAMPLE)
    return plan, run_sweep(plan)


def _direct(run_dir: str, cut: int) -> pl.DataFrame:
    """Per sampled deal: the 0/1 DD metrics from the log and the sidecar, by hand."""
    frame = deal_frame(open_run(run_dir))
    ids = dd_sample.sampled_ids(frame, cut)["deal_id"].to_list()
    log = pl.read_parquet(f"{run_dir}/deals/*.parquet").filter(pl.col("deal_id").is_in(ids))
    side = dict(pl.read_parquet(f"{run_dir}/dd/*.parquet").select("deal_id", "dd_tricks").iter_rows())
    rows = []
    for d in log.iter_rows(named=True):
        c = d["contract"]
        mis = c is not None and c.endswith("MIS")
        suit = c is not None and not mis
        need = 0 if not suit else int(c[:-2] if c.endswith("NT") else c[:-1])
        ok = c is not None and (side[d["deal_id"]] == 0 if mis else side[d["deal_id"]] >= need)
        rows.append(
            {
                "game_id": d["game_id"],
                "hand_no": d["hand_no"],
                "dd_makeable": int(suit and ok),
                "dd_defeated": int(suit and not ok),
                "dd_rate": int(ok) if suit else None,
                "dd_misere_viable": int(mis and ok),
                "dd_misere_doomed": int(mis and not ok),
                "dd_misere_rate": int(ok) if mis else None,
            }
        )
    assert set(side) <= set(ids)
    return pl.DataFrame(rows)


def test_dd_effects_are_the_paired_differences_of_the_sampled_deals(swept) -> None:
    plan, result = swept
    eff = result.tables["sweep_dd_effects"]
    cut = dd_sample.sample_cut(deal_frame(open_run(plan.base.config.out)), SAMPLE)
    base = _direct(plan.base.config.out, cut)
    assert base.height == SAMPLE
    names = set()
    for run in plan.runs[1:]:
        other = _direct(run.config.out, cut)
        j = base.join(other, on=["game_id", "hand_no"], suffix="_o")
        played = pl.read_parquet(f"{run.config.out}/deals/*.parquet", columns=["game_id", "hand_no"])
        assert j.height == base.join(played, on=["game_id", "hand_no"]).height  # every common hand
        for metric, _label in ddmod.DD_EFFECTS:
            pairs = j.filter(pl.col(metric).is_not_null() & pl.col(f"{metric}_o").is_not_null())
            row = eff.filter((pl.col("name") == run.name) & (pl.col("metric") == metric))
            if pairs.height == 0:
                assert row.height == 0
                continue
            r = row.row(0, named=True)
            names.add(run.name)
            assert r["paired_n"] == pairs.height
            assert r["paired_base_mean"] == pytest.approx(pairs[metric].mean())
            assert r["paired_mean"] == pytest.approx(pairs[f"{metric}_o"].mean())
            assert r["diff_mean"] == pytest.approx(pairs[f"{metric}_o"].mean() - pairs[metric].mean())
    assert names == {r.name for r in plan.runs[1:]}
    # one family over the whole sweep: Holm, and Bonferroni intervals at the same level
    assert eff["p_holm"].to_list() == pytest.approx(holm(eff["p_value"].to_list()), nan_ok=True)
    m = sum(1 for p in eff["p_value"] if p is not None and not math.isnan(p))
    z = normal_quantile(1 - 0.05 / (2 * m))
    for r in eff.filter(pl.col("se_paired").is_not_null()).iter_rows(named=True):
        assert r["adj_lo"] == pytest.approx(r["diff_mean"] - z * r["se_paired"])
        assert r["adj_hi"] == pytest.approx(r["diff_mean"] + z * r["se_paired"])
    assert {"dd_sample", "dd_success", "dd_variant_effects"} <= set(result.tables)
    assert (plan.out / "stats" / "sweep_dd_effects.parquet").exists()
    assert result.tables["dd_sample"]["sample"].to_list() == [SAMPLE] * len(plan.runs)
    assert result.tables["dd_sample"]["sampled"][0] == SAMPLE


@pytest.mark.slow  # a whole report of the sweep
def test_report_gives_each_variant_its_dd_view(swept, tmp_path: Path) -> None:
    plan, result = swept
    build_sweep_report(result.tables, tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    for run in plan.runs[1:]:
        section = page.split(f'data-variant="{run.name}"')[1].split("</section>")[0]
        assert 'data-table="sweep_dd_effects"' in section and 'data-bots="1"' in section
        assert "DD-makeable share of the suit and NT contracts bid" in section
    plain = {k: v for k, v in result.tables.items() if k != "sweep_dd_effects"}
    build_sweep_report(plain, tmp_path / "p.html")
    assert 'data-dd="none"' in (tmp_path / "p.html").read_text()


def test_rerun_reuses_the_dd_parts_and_gives_the_same_bytes(swept) -> None:
    plan, _ = swept
    parts = sorted(plan.out.glob("runs/*/dd/*.parquet"))
    assert len(parts) == len(plan.runs)  # 40 deals: one part per run
    before = {p: p.stat().st_mtime_ns for p in parts}
    stats = {p.name: p.read_bytes() for p in (plan.out / "stats").glob("*.parquet")}
    run_sweep(_plan(plan.out, dd_sample=SAMPLE))
    assert {p: p.stat().st_mtime_ns for p in parts} == before
    assert {p.name: p.read_bytes() for p in (plan.out / "stats").glob("*.parquet")} == stats


@pytest.mark.parametrize("bad", [0, -5, True])
def test_bad_dd_sample_is_refused_before_anything(tmp_path: Path, bad: object) -> None:
    with pytest.raises(SweepError, match="--dd-sample must be at least 1"):
        _plan(tmp_path / "s", dd_sample=bad)
    assert not (tmp_path / "s").exists()
