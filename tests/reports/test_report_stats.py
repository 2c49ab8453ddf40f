"""The report says which bots made every section, counts effects after Holm's adjustment, keeps the
unpaired success rates apart from the paired effects, and flags partners it cannot tell apart."""

from __future__ import annotations

import re

import polars as pl
import pytest

from fivehundred.cli.statistics import make_report
from fivehundred.pipelines.analysis import analyze
from fivehundred.reports.figures import effects_chart
from fivehundred.reports.layout import SECTION_BUILDERS
from tests.pipelines.analysis.helpers import play_run, write_run

#: Every test reads one whole report of two runs.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, pl.DataFrame], list[str]]:
    root = tmp_path_factory.mktemp("rs")
    recs = play_run(root / "a", "pagat-au", 6, 20)
    # The same deals relabelled so that a and b always sit as partners (seats 0 and 2).
    write_run(root / "a", [{**r, "strategies": ["a", "c", "b", "d"]} for r in recs], "base")
    play_run(root / "b", "north-american", 6, 20, run_id="other")
    tables = analyze([root / "a", root / "b"], root / "stats")
    make_report([root / "a", root / "b"], root / "report.html", stats_dir=root / "stats")
    return (root / "report.html").read_text(), tables, ["base", "other"]


def test_every_section_names_its_bots(built: tuple) -> None:
    html, tables, _ = built
    banners = re.findall(r'<p class="bots" data-bots="1">(.*?)</p>', html)
    shown = [s for s in re.findall(r'<section id="([a-z]+)"', html) if s != "appendix"]
    # no run on another table, no --dd analysis
    assert "tables" not in shown and "dd" not in shown and len(shown) == len(SECTION_BUILDERS) - 2
    assert len(banners) == len(shown) - 1  # every shown section but the methods
    for lineup in tables["overview"]["strategies"].to_list():
        assert all(lineup in b for b in banners)
    assert "a,c,b,d" in banners[0] and "These figures describe the bots" in banners[0]


def test_headline_counts_use_holm(built: tuple) -> None:
    html, tables, runs = built
    eff = tables["variant_effects"]
    sig = int(eff["holm_significant"].sum())
    raw = eff.filter((pl.col("diff_lo") > 0) | (pl.col("diff_hi") < 0)).height
    assert f"<b>{sig} of {eff.height}</b> paired differences are distinguishable from zero after Holm" in html
    reading = effects_chart(tables, runs).reading
    assert reading.startswith(f"{sig} of {eff.height} paired differences are distinguishable from zero")
    assert f"({raw} of the unadjusted 95% intervals exclude zero)" in reading
    # A table where Holm and the raw intervals disagree: the headline follows Holm.
    fake = eff.with_columns(pl.lit(False).alias("holm_significant"))
    assert effects_chart({**tables, "variant_effects": fake}, runs).reading.startswith(f"0 of {eff.height}")


def test_success_rates_apart_and_partners_flagged(built: tuple) -> None:
    html, _tables, _ = built
    assert 'data-table="success_comparison"' in html and "NOT paired" in html
    assert html.index('data-table="variant_effects"') < html.index('data-table="success_comparison"')
    notes = re.findall(r'<p class="nodata" data-note="strategies">(.*?)</p>', html)
    assert any(n.startswith("a in run") and "always the partner of b" in n for n in notes)
    assert 'data-col="paired_n"' in html and 'data-col="p_holm"' in html
