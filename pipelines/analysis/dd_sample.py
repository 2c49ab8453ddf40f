"""The DD sample of a run (docs/dd.md): which deals ``analyze --dd`` and ``--dd par`` solve, in what order.

Every deal has a place in the **sample order**, :func:`sample_key` (a hash of the deal's seed, which the
master seed, the game and the hand fix, so hand ``j`` of game ``g`` has the same place in every run of
one master seed); a sample of ``N`` deals is the first ``N`` of that order (:func:`sample_cut`), and
every deal is the whole order.  :func:`dd_rows` reads the sampled deals' rows from the log chunk by
chunk, keeping only the sampled ones (memory grows with the sample, not the log); :func:`sample_order_ids`
gives the order of every deal from three columns without a per-deal frame of the log.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from fivehundred.pipelines.analysis.frame import Frame, deal_exprs
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.sim.seeding import derive

#: The sample order's own stream: a deal's place is ``derive(deal seed, SAMPLE_KEY)``.
SAMPLE_KEY = 0x44445341  # "DDSA"


def check_sample(value: object, low: int = 1, error: type[Exception] = AnalysisError) -> None:
    """Refuse a ``--dd-sample`` that is not an integer of at least ``low`` (None passes) with ``error``."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
        bound = f"at least {low}"
        raise error(f"--dd-sample must be {bound}, got {value!r}")


def sample_key(deal_seed: int) -> int:
    """A deal's place in the sample order: a hash of its seed (which the master seed, the game and the
    hand fix, so hand ``j`` of game ``g`` has the same place in every run of one sweep)."""
    return derive(deal_seed, SAMPLE_KEY)


def sample_order(log: pl.DataFrame, cut: int | None = None) -> pl.DataFrame:
    """The deals of ``log`` (columns ``deal_id``, ``seed``, ...) in sample order (:func:`sample_key`,
    ties by ``deal_id``) with the key, column ``sample_key``; those whose key is at most ``cut`` (all
    when ``None``)."""
    keys = pl.Series("sample_key", [sample_key(s) for s in log["seed"].to_list()], dtype=pl.UInt64)
    ordered = log.with_columns(keys).sort("sample_key", "deal_id")
    return ordered if cut is None else ordered.filter(pl.col("sample_key") <= cut)


#: The per-deal frame's columns (:func:`~pipelines.analysis.frame.deal_exprs`) the DD sidecars and
#: tables read of the sampled deals.
ROW_COLUMNS = (
    "deal_id",
    "game_id",
    "hand_no",
    "seed",
    "dealer",
    "strategies",
    "contract",
    "declarer",
    "dtricks",
    "is_mis",
    "crank",
    "level",
    "level_n",
    "made",
    "dteam",
    "dstrategy",
)


def row_exprs(frame: Frame) -> list[pl.Expr]:
    """The expressions of :data:`ROW_COLUMNS` over the run's deal log."""
    return [
        e for e in deal_exprs(frame.run, frame.players, frame.teams) if e.meta.output_name() in ROW_COLUMNS
    ]


def dd_rows(
    frame: Frame, cut: int | None = None, sample: int | None = None, ids: pl.Series | None = None
) -> pl.DataFrame:
    """The per-deal rows (:data:`ROW_COLUMNS` and ``sample_key``) of the run's sampled deals in sample
    order: with ``sample``, the first ``sample`` deals (and any deal tied with the last one's key);
    else those whose :func:`sample_key` is at most ``cut`` (every deal when ``None``); only the deals
    ``ids`` when given.  Read chunk by chunk (:func:`~pipelines.analysis.frame.chunks`): what is held
    at once is one chunk and the sampled rows (for a sample; every deal's otherwise: the analysis
    itself reads every deal's rows in batches, :func:`row_batches`)."""
    from fivehundred.pipelines.analysis import frame as framemod

    exprs = row_exprs(frame)
    kept: list[pl.DataFrame] = []
    for lf in framemod.chunks(frame.run, framemod.CHUNK_ROWS):
        if ids is not None:
            lf = lf.filter(pl.col("deal_id").is_in(ids.implode()))
        d = sample_order(lf.select(exprs).collect(engine="streaming"), cut)
        if sample is not None:  # the first `sample` so far, ties with the last included
            d = pl.concat([*kept, d]).sort("sample_key", "deal_id")
            if d.height > sample:
                d = d.filter(pl.col("sample_key") <= d["sample_key"][sample - 1])
            kept = [d]
        else:
            kept.append(d)
    assert kept, "a run has part files (open_run refuses an empty log)"
    return pl.concat(kept).sort("sample_key", "deal_id")


def sampled_ids(frame: Frame, cut: int | None = None, rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """``deal_id``, ``seed``, ``contract`` and ``sample_key`` of the run's sampled deals (those whose
    :func:`sample_key` is at most ``cut``; all deals when ``None``), in sample order, with or without
    a contract (of ``rows``, :func:`dd_rows`, when given; else read chunk by chunk, these four
    columns only: about 25 bytes a deal are held)."""
    from fivehundred.pipelines.analysis import frame as framemod

    if rows is None:
        parts = [
            sample_order(lf.select("deal_id", "seed", "contract").collect(engine="streaming"), cut)
            for lf in framemod.chunks(frame.run, framemod.CHUNK_ROWS)
        ]
        rows = pl.concat(parts).sort("sample_key", "deal_id")
    return rows.select("deal_id", "seed", "contract", "sample_key")


def sample_order_ids(frame: Frame, cut: int | None = None, contracts_only: bool = False) -> pl.DataFrame:
    """``deal_id`` and ``seed`` of the run's deals (those with a contract when ``contracts_only``)
    whose :func:`sample_key` is at most ``cut`` (all when None), in sample order (ties by
    ``deal_id``), as :func:`sampled_ids` gives them: read chunk by chunk, three columns, and sorted
    as arrays (24 bytes a deal, 32 while sorting; 16 returned)."""
    from fivehundred.pipelines.analysis import frame as framemod

    ids, seeds, keys = [], [], []
    for lf in framemod.chunks(frame.run, framemod.CHUNK_ROWS):
        d = lf.select("deal_id", "seed", "contract").collect(engine="streaming")
        if contracts_only:
            d = d.filter(pl.col("contract").is_not_null())
        k = np.fromiter((sample_key(v) for v in d["seed"].to_list()), dtype=np.uint64, count=d.height)
        keep = slice(None) if cut is None else k <= cut
        keys.append(k[keep])
        ids.append(d["deal_id"].to_numpy()[keep])
        seeds.append(d["seed"].to_numpy()[keep])
    key = np.concatenate(keys)
    del keys
    all_ids = np.concatenate(ids)
    del ids
    idx = np.lexsort((all_ids, key))
    del key
    deal_ids = all_ids[idx]
    del all_ids
    ordered_seeds = np.concatenate(seeds)[idx]
    del seeds, idx
    schema = {"deal_id": pl.Int64, "seed": pl.UInt64}
    return pl.DataFrame({"deal_id": deal_ids, "seed": ordered_seeds}, schema=schema)


def sample_cut(frame: Frame, sample: int, rows: pl.DataFrame | None = None) -> int:
    """The key of the ``sample``-th deal of ``frame`` in sample order (its last deal's when the run
    is shorter): the first run's sample size becomes the key every run samples up to (of ``rows``,
    :func:`dd_rows` with this ``sample``, when given)."""
    keys = (dd_rows(frame, sample=sample) if rows is None else rows)["sample_key"]
    return int(keys[min(sample, keys.len()) - 1]) if keys.len() else 0
