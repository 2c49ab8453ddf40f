"""Deal ids of a run's part files, one file (or one group of overlapping files) at a time.

A log's part files usually hold disjoint ranges of deal ids (``simulate`` numbers the deals of each
chunk after the last one's).  :func:`groups` sorts the files' id ranges and joins the ones that
overlap, so that the union of every group's ids is a contiguous stretch of the sorted ids of the
run: checking that no id repeats, or finding the ids at given ranks of the sorted ids, then holds
one group's ids at a time (one file's in a log that ``simulate`` wrote), never the whole run's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow.parquet as pq


@dataclass(frozen=True)
class Span:
    """One part file's deal ids: the lowest, the highest and how many (``rows``)."""

    file: str
    lo: int
    hi: int
    rows: int


def read_ids(open_file: Callable[[str], Any], rel: str) -> np.ndarray:
    """The ``deal_id`` column of part file ``rel`` (nulls as given: the caller checks them)."""
    with open_file(rel) as fh:
        return pq.ParquetFile(fh).read(columns=["deal_id"]).column(0).to_numpy(zero_copy_only=False)


def groups(spans: Sequence[Span]) -> list[list[Span]]:
    """The spans in order of their lowest id, joined into groups whose ranges overlap (a chain of
    overlaps joins too); the groups' ranges are disjoint and increasing."""
    out: list[list[Span]] = []
    top = None
    for s in sorted(spans, key=lambda s: (s.lo, s.hi, s.file)):
        if out and top is not None and s.lo <= top:
            out[-1].append(s)
            top = max(top, s.hi)
        else:
            out.append([s])
            top = s.hi
    return out


def group_ids(open_file: Callable[[str], Any], group: Sequence[Span]) -> np.ndarray:
    """Every deal id of a group's files, sorted (repeats kept)."""
    arrays = [read_ids(open_file, s.file) for s in group]
    return np.sort(np.concatenate(arrays)) if len(arrays) > 1 else np.sort(arrays[0])


def ids_at_ranks(
    open_file: Callable[[str], Any], spans: Sequence[Span], ranks: Sequence[int]
) -> Iterator[int]:
    """The deal ids at the given ranks (0-based, increasing) of the sorted ids of the files of
    ``spans`` (ids unique), reading only the groups that hold one of the ranks."""
    want = list(ranks)
    k = 0
    start = 0
    for g in groups(spans):
        size = sum(s.rows for s in g)
        if k < len(want) and want[k] < start + size:
            ids = group_ids(open_file, g)
            while k < len(want) and want[k] < start + size:
                yield int(ids[want[k] - start])
                k += 1
        start += size
