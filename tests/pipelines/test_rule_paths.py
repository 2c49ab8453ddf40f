"""A real random run walks every rare rule path; the path detector reads the log correctly."""

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fivehundred.pipelines.rule_paths import PATHS, rule_paths
from fivehundred.pipelines.schema import records_to_table
from fivehundred.sim import load_rules, play_game
from fivehundred.sim.errors import UserError
from fivehundred.strategies import make


def _write_run(tmp_path: Path, deals: int, specs: list[str], seed: int = 7) -> Path:
    rules = load_rules("pagat-au")
    bots = [make(spec) for spec in specs]
    records: list[dict] = []
    game = 0
    while len(records) < deals:
        records += play_game(rules, bots, seed, game)
        game += 1
    (tmp_path / "deals").mkdir()
    pq.write_table(records_to_table(records, "test", 0), tmp_path / "deals" / "part-00000.parquet")
    return tmp_path


@pytest.mark.slow
def test_random_run_walks_every_rule_path(tmp_path: Path) -> None:
    # Three cautious random bidders and one uniform one (who opens with open misère now and then).
    tame = "random(pass_probability=0.5, max_raise=3)"
    run = _write_run(tmp_path, 30000, [tame, tame, tame, "random"])
    counts = dict(rule_paths(run).select("path", "deals").iter_rows())
    missing = [p for p in PATHS if p != "deal_limit" and counts[p] == 0]
    assert not missing, f"paths never walked: {missing}"
    # Consistency between paths: every early-stopped misère was lost, every made misère ran ten tricks.
    assert counts["misere_made"] + counts["misere_early_stop"] > 0


def test_uniform_random_bidding_never_throws_in_a_small_run(tmp_path: Path) -> None:
    # Uniform bidding passes with probability 1/28 at the first call: throw-ins are vanishingly rare.
    run = _write_run(tmp_path, 300, ["random"] * 4)
    counts = dict(rule_paths(run).select("path", "deals").iter_rows())
    assert counts["auction_won"] + counts["thrown_in"] >= 300
    assert counts["auction_won"] > counts["thrown_in"]


def test_missing_log_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no deal log"):
        rule_paths(tmp_path)
