"""The per-deal frame every table is built from: one lazy query per run over the deal log.

:func:`deal_frame` reads only the columns the statistics need from ``deals/*.parquet`` (streaming),
derives the contract's level, trump, success and points, the declarer's seat, strategy and hand masks
(:mod:`pipelines.analysis.features`), each team's points, tricks and score after the deal
(``points_t<t>``, ``tricks_t<t>``, ``after_t<t>``), and returns one compact row per deal.
:func:`call_seats` finds which seat made each auction call (vectorised over rows, one step per call
position).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from fivehundred.pipelines.analysis.features import hand_features, mask_of
from fivehundred.pipelines.analysis.io import AnalysisError, Run
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import BASE_LADDER

MISERE_CODES = ("MIS", "OMIS", "BMIS")
#: Every bid code of any ladder, in rank order (BMIS ranks with OMIS); the index codes calls.
ALL_CODES: tuple[str, ...] = tuple(
    c for code, _ in BASE_LADDER for c in (("BMIS", "OMIS") if code == "OMIS" else (code,))
)
CODE_INDEX = {c: i for i, c in enumerate(ALL_CODES)}
PASS_CODE = -1
TRUMP_ORDER = ("S", "C", "D", "H", "NT", "MIS", "OMIS", "BMIS")
LEVEL_ORDER = ("6", "7", "8", "9", "10", "MIS", "OMIS", "BMIS")


@dataclass(frozen=True)
class Ladder:
    """A run's bid ladder: (code, points) in rank order."""

    bids: tuple[tuple[str, int], ...]


def ladder_of(run: Run) -> Ladder:
    """The run's ladder from its variant's rules; the full base ladder if the variant is unknown."""
    from fivehundred import sim

    try:
        rules = sim.load_rules(run.variant)
    except (UserError, OSError):
        points = dict(BASE_LADDER)
        points["BMIS"] = 500
        return Ladder(tuple((c, points[c]) for c in ALL_CODES if c != "BMIS"))
    return Ladder(tuple((b.code, b.points) for b in rules.ladder))


@dataclass(frozen=True)
class Frame:
    """A run's per-deal frame and the shape of its table."""

    run: Run
    df: pl.DataFrame
    players: int
    teams: int
    ladder: Ladder
    #: Contract deals counted per (contract, seat_rel, dstrategy, made, dpoints, dtricks): ``_w``.
    hist: pl.DataFrame

    def run_columns(self) -> tuple[pl.Expr, pl.Expr]:
        """The literal ``run_id`` and ``variant`` columns that tag every row of this run's tables."""
        return pl.lit(self.run.run_id).alias("run_id"), pl.lit(self.run.variant).alias("variant")


def _shape(run: Run) -> tuple[int, int]:
    first = (
        run.scan.select(pl.col("hands").list.len().alias("p"), pl.col("score_delta").list.len().alias("t"))
        .head(1)
        .collect()
    )
    players, teams = int(first["p"][0]), int(first["t"][0])
    if players not in (3, 4, 6) or teams not in (2, 3) or players % teams:
        raise AnalysisError(
            f"{run.path}: {players} hands and {teams} team scores per deal is not a known table"
        )
    return players, teams


def contract_exprs(contract: pl.Expr) -> dict[str, pl.Expr]:
    """Level (str), level number, trump (str), trump suit index and misère flag of a contract code."""
    is_mis = contract.is_in(list(MISERE_CODES))
    digits = contract.str.extract(r"^(\d+)", 1)
    return {
        "is_mis": is_mis,
        "level": pl.when(is_mis).then(contract).otherwise(digits),
        "level_n": digits.cast(pl.Int8),
        "trump": pl.when(is_mis).then(contract).otherwise(contract.str.replace(r"^\d+", "")),
    }


def deal_frame(run: Run) -> Frame:
    """Collect the per-deal frame of one run (see the module docstring)."""
    players, teams = _shape(run)
    c = contract_exprs(pl.col("contract"))
    declarer = pl.col("declarer").cast(pl.Int16)
    code_map = {"P": PASS_CODE, **CODE_INDEX}
    exprs: list[pl.Expr] = [
        pl.col("run_id"),
        pl.col("variant"),
        pl.col("deal_id"),
        pl.col("game_id"),
        pl.col("hand_no"),
        pl.col("seed"),
        pl.col("dealer"),
        pl.col("contract"),
        pl.col("declarer"),
        pl.col("declarer_tricks").alias("dtricks"),
        pl.col("joker_suit"),
        pl.col("game_over"),
        pl.col("winner"),
        pl.col("strategies"),
        c["is_mis"].alias("is_mis"),
        pl.col("contract").replace_strict(CODE_INDEX, default=None, return_dtype=pl.Int16).alias("crank"),
        c["level"].alias("level"),
        c["level_n"].alias("level_n"),
        c["trump"].alias("trump"),
        c["trump"]
        .replace_strict({"S": 0, "C": 1, "D": 2, "H": 3}, default=None, return_dtype=pl.Int8)
        .alias("tidx"),
        pl.when(c["is_mis"])
        .then(pl.col("declarer_tricks") == 0)
        .otherwise(pl.col("declarer_tricks") >= c["level_n"])
        .alias("made"),
        pl.col("score_delta").list.get(declarer % teams, null_on_oob=True).alias("dpoints"),
        (declarer % teams).cast(pl.Int8).alias("dteam"),
        ((declarer - pl.col("dealer") + players) % players).cast(pl.Int8).alias("seat_rel"),
        pl.col("strategies").list.get(declarer, null_on_oob=True).alias("dstrategy"),
        mask_of(pl.col("hands").list.get(declarer, null_on_oob=True)).alias("dmask"),
        mask_of(pl.col("kitty")).alias("kmask"),
        mask_of(pl.col("discards")).alias("xmask"),
        pl.col("bids").list.eval(pl.element().replace_strict(code_map, return_dtype=pl.Int16)).alias("calls"),
        pl.col("trick_winners").list.len().cast(pl.Int8).alias("tricks_played"),
    ]
    if "end_reason" in run.columns:
        exprs.append(pl.col("end_reason"))
    else:
        exprs.append(pl.lit(None, dtype=pl.String).alias("end_reason"))
    for t in range(teams):
        exprs.append(pl.col("score_delta").list.get(t).alias(f"points_t{t}"))
        exprs.append(pl.col("score_after").list.get(t).alias(f"after_t{t}"))
        exprs.append(
            pl.col("trick_winners")
            .list.eval(pl.element() % teams == t)
            .list.sum()
            .cast(pl.Int8)
            .alias(f"tricks_t{t}")
        )
    # The joker's place when a teammate of the declarer holds it (misère features): any teammate's hand.
    if players > teams:
        held = [
            pl.col("hands")
            .list.get((declarer + teams * k) % players, null_on_oob=True)
            .list.eval(pl.element().str.starts_with("JK"))
            .list.any()
            for k in range(1, players // teams)
        ]
        exprs.append(pl.any_horizontal(held).fill_null(False).alias("partner_joker"))
    else:
        exprs.append(pl.lit(False).alias("partner_joker"))
    try:
        df = pl.concat([chunk.select(exprs).collect(engine="streaming") for chunk in chunks(run)])
    except pl.exceptions.InvalidOperationError as exc:
        raise AnalysisError(
            f"{run.path}/deals: a card or bid the analysis does not know ({str(exc).splitlines()[0]})"
        ) from exc
    df = hand_features(df.with_columns(call_seats(df, players, teams)))
    hist = (
        df.filter(pl.col("contract").is_not_null())
        .group_by(
            "contract",
            "level",
            "level_n",
            "trump",
            "is_mis",
            "seat_rel",
            "dstrategy",
            "made",
            "dpoints",
            "dtricks",
        )
        .agg(pl.len().cast(pl.Int64).alias("_w"))
    )
    return Frame(run, df, players, teams, ladder_of(run), hist)


CHUNK_ROWS = 250_000


def chunks(run: Run, rows: int = CHUNK_ROWS) -> list[pl.LazyFrame]:
    """Lazy scans of about ``rows`` deals each (whole part files, or slices of a big one), so that
    decoding the nested columns never holds more than one chunk in memory."""
    files = list(run.log.files)
    sizes = [run.log.dir.part_rows(p) or 0 for p in files]
    out: list[pl.LazyFrame] = []
    group: list[str] = []
    count = 0
    for p, n in zip(files, sizes, strict=True):
        if n > rows:
            scan = run.log.scan([p])
            out += [scan.slice(o, rows) for o in range(0, n, rows)]
            continue
        if count + n > rows and group:
            out.append(run.log.scan(group))
            group, count = [], 0
        group.append(p)
        count += n
    if group:
        out.append(run.log.scan(group))
    return out


def padded_calls(df: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The ``calls`` lists as a rows × max-length int16 array padded with -9, and the lengths."""
    arr = df["calls"].to_arrow()
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    offsets = arr.offsets.to_numpy().astype(np.int64)
    lengths = np.diff(offsets)
    width = int(lengths.max()) if len(lengths) else 0
    flat = arr.values.to_numpy(zero_copy_only=False)[offsets[0] : offsets[-1]].astype(np.int16)
    out = np.full((len(lengths), max(width, 1)), -9, dtype=np.int16)
    if width:
        rows = np.repeat(np.arange(len(lengths)), lengths)
        starts = np.cumsum(lengths) - lengths
        cols = np.arange(len(flat)) - np.repeat(starts, lengths)
        out[rows, cols] = flat
    return out, lengths


def call_seats(df: pl.DataFrame, players: int, teams: int) -> list[pl.Series]:
    """The partner's highest call per deal (``partner_call``: a bid code, ``P``, or ``-`` when no
    teammate spoke; null when all passed).

    The auction starts left of the dealer and goes clockwise, skipping players who have passed;
    a declarer's raise (a variant) is the high bidder's next turn, so the same walk finds it.
    Rows are ordered by auction length so that step ``i`` works on the prefix still bidding.
    """
    calls, lengths = padded_calls(df)
    order = np.argsort(-lengths, kind="stable")
    calls = calls[order]
    n = len(order)
    # NEXT[active seats bitmask, seat] = the next seat clockwise still in the auction.
    nxt_table = np.zeros((1 << players, players), dtype=np.int64)
    for active_bits in range(1 << players):
        for seat in range(players):
            nxt_table[active_bits, seat] = next(
                (
                    (seat + k) % players
                    for k in range(1, players + 1)
                    if active_bits >> ((seat + k) % players) & 1
                ),
                seat,
            )
    dealer = df["dealer"].to_numpy().astype(np.int64)[order]
    declarer = df["declarer"].fill_null(-1).to_numpy().astype(np.int64)[order]
    # Bitmask of the declarer's teammates (not the declarer); 0 when all passed.
    mates = np.zeros(n, dtype=np.int64)
    for seat in range(players):
        mates |= np.where(
            (declarer >= 0) & (declarer != seat) & (declarer % teams == seat % teams), 1 << seat, 0
        )
    cur = (dealer + 1) % players
    active = np.full(n, (1 << players) - 1, dtype=np.int64)
    best = np.full(n, -3, dtype=np.int64)  # -3: no teammate spoke, -1: only passes, else best code
    for i in range(calls.shape[1]):
        m = int(np.count_nonzero(lengths > i))
        c, call = cur[:m], calls[:m, i].astype(np.int64)
        mate = (mates[:m] >> c) & 1
        np.maximum(best[:m], np.where(mate == 1, call, -3), out=best[:m])
        act = active[:m]
        act &= ~((call == PASS_CODE).astype(np.int64) << c)
        cur[:m] = nxt_table[act, c]
    codes = np.empty(n, dtype=np.int16)
    codes[order] = best + 3  # 0/1: no teammate spoke, 2: passes only, 3..: a bid
    names = dict(enumerate(["-", "-", "P", *ALL_CODES]))
    series = pl.Series("partner_call", codes).replace_strict(names, return_dtype=pl.String)
    # Integer codes named by Polars: no object array (3-player logs hold only '-' and nulls).
    return [
        pl.select(pl.when(df["declarer"].is_null()).then(None).otherwise(series))
        .to_series()
        .alias("partner_call")
    ]
