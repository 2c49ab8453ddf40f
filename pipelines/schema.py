"""The deal log's Arrow schema (``docs/deal-log.md``, schema version 2) and the records -> Arrow converter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.idspans import Span, group_ids, groups
from fivehundred.sim.errors import UserError

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


class DealLogError(UserError, ValueError):
    """A part file that is not a readable deal log, or a log whose deal ids repeat."""


def _kind(t: pa.DataType) -> str:
    """What a column holds, whatever the writer's widths and offsets: ``integer``, ``list<string>``..."""
    if pa.types.is_dictionary(t):
        return _kind(t.value_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return f"list<{_kind(t.value_type)}>"
    for kind, test in (
        ("integer", pa.types.is_integer),
        ("float", pa.types.is_floating),
        ("boolean", pa.types.is_boolean),
        ("string", lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)),
    ):
        if test(t):
            return kind
    return str(t)


def _unreadable(name: str, empty: bool, exc: BaseException) -> DealLogError:
    why = "zero bytes" if empty else " ".join(str(exc).split())
    return DealLogError(f"{name}: not a readable Parquet part file ({why})")


def check_part_files(
    files: Sequence[str],
    open_file: Callable[[str], Any],
    where: str,
    columns: Sequence[str] = CORE_COLUMNS,
    unique_ids: bool = True,
    spans_out: list[Span] | None = None,
) -> int:
    """Check a run's part files before anything reads them; returns the number of rows.

    ``files`` are the part files relative to the run ``where`` (as the user sees it), opened with
    ``open_file`` (:meth:`pipelines.rundir.RunLog.open`: local or object store).  Each file must be
    Parquet with an intact footer (not zero bytes, not truncated) and hold ``columns`` with the kinds
    of :data:`DEAL_LOG_SCHEMA` (integers of any width, strings large or not, lists of those: as other
    writers may store them); every file must have the first one's columns.  With ``unique_ids`` no
    ``deal_id`` may be null or appear twice (a part file copied beside itself would otherwise count
    every deal twice), checked holding one file's ids at a time, or one group of files whose id
    ranges overlap (:mod:`pipelines.idspans`); ``spans_out`` (a list, when given) then receives each
    non-empty file's deal-id span, in file order, so that the caller needs not read the ids again.
    A problem raises :class:`DealLogError` naming the file.
    """
    first: pa.Schema | None = None
    rows = 0
    spans: list[Span] = []
    repeats: set[str] = set()  # files that repeat an id of their own
    for rel in files:
        name = f"{where}/{rel}"
        empty = False
        try:
            with open_file(rel) as fh:
                empty = fh.size() == 0
                pf = pq.ParquetFile(fh)
                schema = pf.schema_arrow
                for column in columns:
                    if column not in schema.names:
                        raise DealLogError(
                            f"{name}: not a fivehundred deal log (no column '{column}'; see DEAL_LOG.md)"
                        )
                    if column not in DEAL_LOG_SCHEMA.names:
                        continue
                    want, got = _kind(DEAL_LOG_SCHEMA.field(column).type), _kind(schema.field(column).type)
                    if got != want:
                        raise DealLogError(
                            f"{name}: column '{column}' holds {got}; a deal log has {want} there"
                        )
                if first is None:
                    first = schema
                elif schema.names != first.names:
                    raise DealLogError(
                        f"{name}: its columns differ from those of {where}/{files[0]} (two logs?)"
                    )
                rows += pf.metadata.num_rows
                if unique_ids and "deal_id" in schema.names:
                    col = pf.read(columns=["deal_id"]).column(0)
                    if col.null_count:
                        raise DealLogError(f"{name}: {col.null_count} row(s) have no deal_id")
                    ids = col.to_numpy()
                    if ids.size:
                        spans.append(Span(rel, int(ids.min()), int(ids.max()), int(ids.size)))
                        increasing = bool((ids[1:] > ids[:-1]).all())  # as simulate writes: no repeat
                        if not increasing and np.unique(ids).size != ids.size:
                            repeats.add(rel)
        except (pa.ArrowException, OSError) as exc:
            raise _unreadable(name, empty, exc) from None
    _check_unique(spans, repeats, open_file, where)
    if spans_out is not None:
        spans_out.extend(spans)
    return rows


def _check_unique(
    spans: Sequence[Span], repeats: set[str], open_file: Callable[[str], Any], where: str
) -> None:
    """Raise :class:`DealLogError` naming the lowest repeated deal id, how often it appears and how
    many ids repeat, reading again only the groups of files whose id ranges overlap (or a file that
    repeats its own ids)."""
    first: tuple[int, int] | None = None
    repeated = 0
    for group in groups(spans):
        if len(group) == 1 and group[0].file not in repeats:
            continue
        values, counts = np.unique(group_ids(open_file, group), return_counts=True)
        twice = counts > 1
        if twice.any():
            repeated += int(twice.sum())
            if first is None:  # the groups come in increasing id order
                first = (int(values[twice][0]), int(counts[twice][0]))
    if first is not None:
        raise DealLogError(
            f"{where}: deal id {first[0]} appears {first[1]} times "
            f"({repeated} repeated id(s); a part file copied twice?); deal ids must be unique"
        )
