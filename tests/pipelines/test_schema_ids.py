"""``check_part_files`` checks unique deal ids one file (or one group of overlapping files) at a time
and says what the whole-array check said: the lowest repeated id, how often it appears and how many
ids repeat (pipelines/schema.py, pipelines/idspans.py)."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fivehundred.pipelines import idspans
from fivehundred.pipelines.schema import DealLogError, check_part_files


class Opener:
    """In-memory part files of ``deal_id`` only; counts how often each file is opened."""

    def __init__(self, files: list[list[int]]) -> None:
        self.names = [f"deals/part-{k:05d}.parquet" for k in range(len(files))]
        self.blobs = {}
        for name, ids in zip(self.names, files, strict=True):
            buf = io.BytesIO()
            pq.write_table(pa.table({"deal_id": pa.array(ids, pa.int64())}), buf)
            self.blobs[name] = buf.getvalue()
        self.opened: dict[str, int] = dict.fromkeys(self.names, 0)

    def __call__(self, rel: str) -> pa.BufferReader:
        self.opened[rel] += 1
        return pa.BufferReader(self.blobs[rel])


def _whole_array_message(files: list[list[int]]) -> str | None:
    """What the check said when it held every id at once."""
    values, counts = np.unique(np.array([i for f in files for i in f], dtype=np.int64), return_counts=True)
    if not values.size or counts.max() <= 1:
        return None
    twice, times = values[counts > 1], counts[counts > 1]
    return (
        f"RUN: deal id {int(twice[0])} appears {int(times[0])} times "
        f"({twice.size} repeated id(s); a part file copied twice?); deal ids must be unique"
    )


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(0, 60), max_size=25), min_size=1, max_size=6))
@example([[0, 1, 2], [3, 4, 5]])  # disjoint files: fine
@example([[0, 1, 2], [0, 1, 2]])  # a part file copied twice: 0 appears twice, 3 repeated ids
@example([[0, 2, 4], [1, 3, 5]])  # interleaved files, no repeat: fine
@example([[5, 9], [7, 7, 1], []])  # a file repeating its own id, an empty file
@example([[0, 10], [5], [10, 20], [30, 30]])  # a chain of overlaps, then a file repeating an id
def test_the_same_verdict_as_holding_every_id(files: list[list[int]]) -> None:
    opener = Opener(files)
    want = _whole_array_message(files)
    if want is None:
        assert check_part_files(opener.names, opener, "RUN", ("deal_id",)) == sum(map(len, files))
    else:
        with pytest.raises(DealLogError) as err:
            check_part_files(opener.names, opener, "RUN", ("deal_id",))
        assert str(err.value) == want


def test_disjoint_files_are_read_once() -> None:
    opener = Opener([[0, 1, 2], [3, 4], [5, 6, 7]])
    check_part_files(opener.names, opener, "RUN", ("deal_id",))
    assert set(opener.opened.values()) == {1}, "no second pass when no id range overlaps"


def test_only_the_overlapping_group_is_read_again() -> None:
    opener = Opener([[0, 1, 2], [10, 12], [11, 13], [20, 21]])
    check_part_files(opener.names, opener, "RUN", ("deal_id",))
    assert list(opener.opened.values()) == [1, 2, 2, 1]


def test_groups_join_chains_of_overlaps() -> None:
    spans = [
        idspans.Span(n, lo, hi, 1) for n, lo, hi in (("a", 0, 5), ("b", 5, 9), ("c", 8, 12), ("d", 13, 14))
    ]
    assert [[s.file for s in g] for g in idspans.groups(spans)] == [["a", "b", "c"], ["d"]]
