"""The deal log's Arrow schema (``DEAL_LOG.md``, schema version 1) and rows -> table conversion."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

SCHEMA_VERSION = 1

#: The stable core columns of DEAL_LOG.md, then this project's extra columns.
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
        # Extra columns (allowed beside the core by DEAL_LOG.md).
        ("end_reason", pa.string()),  # reached_500 | fell_to_-500 | deal_limit, on the game's last deal
        ("engine_version", pa.string()),
    ]
)
CORE_COLUMNS = tuple(DEAL_LOG_SCHEMA.names[:23])


def records_to_table(records: Sequence[dict[str, Any]], run_id: str, first_deal_id: int) -> pa.Table:
    """Rows from :func:`sim.game.play_game` as an Arrow table, numbering deals from ``first_deal_id``."""
    n = len(records)
    columns: dict[str, Any] = {
        "schema_version": [SCHEMA_VERSION] * n,
        "run_id": [run_id] * n,
        "deal_id": list(range(first_deal_id, first_deal_id + n)),
    }
    for name in DEAL_LOG_SCHEMA.names[3:]:
        columns[name] = [r[name] for r in records]
    return pa.Table.from_pydict(columns, schema=DEAL_LOG_SCHEMA)
