"""The deal log's Arrow schema (``docs/deal-log.md``, schema version 2) and the records -> Arrow converter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

#: Version 2 added the facts the engine logs so that analyses never re-derive a rule (``bid_seats``
#: .. ``suit_lengths``); version 1 logs lack them and are refused by ``analyze`` (docs/deal-log.md).
SCHEMA_VERSION = 2

#: The stable core columns, then the extra columns (docs/deal-log.md has every column's meaning).
DEAL_LOG_SCHEMA = pa.schema(
    [
        ("schema_version", pa.int16()),
        ("run_id", pa.string()),
        ("deal_id", pa.int64()),
        ("game_id", pa.int64()),
        ("hand_no", pa.int32()),
        ("seed", pa.uint64()),
        ("variant", pa.string()),
        ("dealer", pa.int8()),
        ("strategies", pa.list_(pa.string())),
        ("hands", pa.list_(pa.list_(pa.string()))),
        ("kitty", pa.list_(pa.string())),
        ("bids", pa.list_(pa.string())),
        ("contract", pa.string()),
        ("declarer", pa.int8()),
        ("discards", pa.list_(pa.string())),
        ("joker_suit", pa.string()),
        ("plays", pa.list_(pa.string())),
        ("trick_winners", pa.list_(pa.int8())),
        ("declarer_tricks", pa.int8()),
        ("score_delta", pa.list_(pa.int32())),
        ("score_after", pa.list_(pa.int32())),
        ("game_over", pa.bool_()),
        ("winner", pa.int8()),
        # Extra columns.
        ("end_reason", pa.string()),  # reached_500 | fell_to_-500 | deal_limit, on the game's last deal
        ("engine_version", pa.string()),
        # Schema version 2: facts of the rules, written by the engine (sim.game.deal_record).
        ("bid_seats", pa.list_(pa.int8())),
        ("play_seats", pa.list_(pa.int8())),
        ("declarer_team", pa.int8()),
        ("made", pa.bool_()),
        ("team_tricks", pa.list_(pa.int8())),
        ("sitting_out", pa.list_(pa.int8())),
        ("slam", pa.bool_()),
        ("trumps_dealt", pa.int8()),
        ("bowers_dealt", pa.int8()),
        ("trumps_kitty", pa.int8()),
        ("trumps_kept", pa.int8()),
        ("suit_lengths", pa.list_(pa.int8())),
    ]
)
CORE_COLUMNS = tuple(DEAL_LOG_SCHEMA.names[:23])
#: The columns schema version 2 added (the engine's facts).
FACT_COLUMNS = tuple(DEAL_LOG_SCHEMA.names[DEAL_LOG_SCHEMA.names.index("bid_seats") :])


#: The run-level columns the driver adds; workers return every other column of the schema.
RUN_COLUMNS = ("schema_version", "run_id", "deal_id")


def chunk_schema(schema: pa.Schema = DEAL_LOG_SCHEMA) -> pa.Schema:
    """A log schema without the run-level columns (what a chunk of records converts to)."""
    return pa.schema([f for f in schema if f.name not in RUN_COLUMNS])


#: The columns a worker returns for a chunk of :func:`sim.game.play_game` records.
CHUNK_SCHEMA = chunk_schema(DEAL_LOG_SCHEMA)


def records_to_chunk_table(records: Sequence[dict[str, Any]], schema: pa.Schema = CHUNK_SCHEMA) -> pa.Table:
    """Records of :func:`sim.game.play_game` as a table with ``schema``, column by column."""
    columns = [pa.array([r[f.name] for r in records], f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def with_run_columns(
    table: pa.Table, run_id: str, first_deal_id: int, schema: pa.Schema = DEAL_LOG_SCHEMA
) -> pa.Table:
    """A chunk table with ``schema_version``, ``run_id`` and ``deal_id`` (from ``first_deal_id``) in front."""
    n = table.num_rows
    front = [
        pa.array([SCHEMA_VERSION] * n, pa.int16()),
        pa.DictionaryArray.from_arrays(pa.array([0] * n, pa.int32()), [run_id]).cast(pa.string()),
        pa.array(range(first_deal_id, first_deal_id + n), pa.int64()),
    ]
    table = table.combine_chunks()
    return pa.Table.from_arrays([*front, *table.columns], schema=schema)


def records_to_table(
    records: Sequence[dict[str, Any]], run_id: str, first_deal_id: int, schema: pa.Schema = DEAL_LOG_SCHEMA
) -> pa.Table:
    """Records of :func:`sim.game.play_game` as a deal-log table (``schema``: the deal log's, or one
    with extra columns after it), numbering deals from ``first_deal_id``."""
    table = records_to_chunk_table(records, chunk_schema(schema))
    return with_run_columns(table, run_id, first_deal_id, schema)
