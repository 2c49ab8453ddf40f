"""verify checks the engine's facts of a schema-2 log (``bid_seats`` .. ``suit_lengths``) against the
engine; analyze refuses a schema-1 log with one line naming the version."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from fivehundred.pipelines.analysis import AnalysisError, analyze
from fivehundred.pipelines.schema import FACT_COLUMNS, records_to_table
from fivehundred.pipelines.verify import verify_run
from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("facts") / "run"
    rules = load_rules("pagat-au")
    records = [r for g in range(20) for r in play_game(rules, [make("random")] * 4, 5, g)]
    (path / "deals").mkdir(parents=True)
    pq.write_table(records_to_table(records, "t", 0), path / "deals" / "part-00000.parquet")
    (path / "manifest.json").write_text(json.dumps({"run_id": "t", "seed": 5, "variant": "pagat-au"}))
    return path


def _edit(run: Path, tmp_path: Path, column: str) -> Path:
    df = pl.read_parquet(str(run / "deals" / "*.parquet"))
    i = int(df.with_row_index("_i").filter(pl.col("contract").is_not_null())["_i"][0])
    values = df[column].to_list()
    v = values[i]
    values[i] = [*v[1:], v[0]] if isinstance(v, list) else (not v if isinstance(v, bool) else (v or 0) + 1)
    dst = tmp_path / column
    (dst / "deals").mkdir(parents=True)
    (dst / "manifest.json").write_text((run / "manifest.json").read_text())
    df.with_columns(pl.Series(column, values, dtype=df.schema[column])).write_parquet(
        dst / "deals" / "p.parquet"
    )
    return dst


def test_a_real_log_has_agreeing_facts(run: Path) -> None:
    result = verify_run(run)
    assert result.ok, [str(f) for f in result.findings]


@pytest.mark.parametrize("column", ["bid_seats", "play_seats", "made", "team_tricks", "suit_lengths"])
def test_an_edited_fact_is_caught(run: Path, tmp_path: Path, column: str) -> None:
    assert column in FACT_COLUMNS
    findings = verify_run(_edit(run, tmp_path, column)).findings
    assert [f.kind for f in findings] == ["facts"], [str(f) for f in findings]
    assert findings[0].message.startswith(f"{column} is ")


def test_analyze_refuses_a_schema_1_log(run: Path, tmp_path: Path) -> None:
    df = pl.read_parquet(str(run / "deals" / "*.parquet"))
    old = df.drop(*FACT_COLUMNS).with_columns(pl.lit(1, dtype=pl.Int16).alias("schema_version"))
    dst = tmp_path / "v1"
    (dst / "deals").mkdir(parents=True)
    old.write_parquet(dst / "deals" / "p.parquet")
    with pytest.raises(AnalysisError, match="schema_version 1, this analysis reads version 2"):
        analyze([dst], tmp_path / "stats")
    assert not (tmp_path / "stats").exists()
