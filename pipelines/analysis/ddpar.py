"""Double-dummy par (``analyze --dd par``), docs/dd.md.

For each sampled deal (the DD sample order of :mod:`~pipelines.analysis.dd`, with or without a
contract) and each seat, :func:`seat_tricks` solves every denomination the variant's ladder has (the
four suits, no trumps, misère) with that seat as the declarer: the kitty exchange and the joker
naming are ``heuristic.v1``'s for that contract (:func:`~pipelines.dd_deals.play_position`, the rule
``fivehundred hand`` uses), the position solved from the opening lead; the deal's positions are
solved together (:func:`sim.dd.dd_tricks_many`).  :func:`par_of` then finds the par contract: the
outcome of an auction in which both sides see every card, may bid any contract of the ladder over
the last one (passing does not stop a side from bidding again) and score under DD play as the game
scores a deal — the declaring side :meth:`Rules.declarer_points`, the defenders
:meth:`Rules.defence_points` for the tricks they take — each side judging a contract by its score
minus the other side's: the contract neither side can profitably outbid.  Tables: :func:`par_tables`
(``dd_par``, ``dd_par_by_strategy``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa

from fivehundred.pipelines.analysis.batches import Partial, Spec, merge
from fivehundred.pipelines.analysis.dd import CLUSTER_SUMS, cluster_exprs, id_slice, row_batches
from fivehundred.pipelines.analysis.dd_sample import dd_rows
from fivehundred.pipelines.analysis.dd_sidecar import SIDECAR_SCHEMA, DDChunk, SidecarKind
from fivehundred.pipelines.analysis.frame import Frame
from fivehundred.pipelines.analysis.intervals import cluster_sums, wilson_interval
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.dd_deals import deal_table
from fivehundred.pipelines.rundir import encode_parquet
from fivehundred.sim.dd import dd_tricks_many
from fivehundred.sim.notation import MISERE, NT_TEXT, SUITS, bid_denomination, parse_cards
from fivehundred.sim.rules import Bid, Rules

#: What a par row means (the exchange rule, the auction model, the scoring): a change re-solves.
#: par.v2: the defenders' points per trick count in each side's score (par.v1 left them out).
PAR_VERSION = "par.v2"
PAR_DIR = "dd_par"
#: Deals per part: each deal is (seats x denominations) solves, so fewer than the contract sidecar's.
PAR_CHUNK_DEALS = 16
#: Denominations in the sidecar's column order (``dd_S`` ... ``dd_MIS``).
DENOMINATIONS = (*SUITS, NT_TEXT, MISERE)
PAR_LOG_COLUMNS = ("deal_id", "seed", "dealer", "hands", "kitty")
PAR_SCHEMA = pa.schema(
    [SIDECAR_SCHEMA.field(c) for c in ("deal_id", "seed")]
    + [("dealer", pa.int8())]
    + [(f"dd_{d}", pa.list_(pa.int8())) for d in DENOMINATIONS]
    + [("par_contract", pa.string()), ("par_declarer", pa.int8()), ("par_team", pa.int8())]
    + [("par_points", pa.int32()), ("par_net", pa.int32()), SIDECAR_SCHEMA.field("dd_version")]
)

#: The par sidecar's columns the par tables read.
PAR_KEPT = (
    "deal_id", *(f"dd_{d}" for d in DENOMINATIONS), "par_contract", "par_team", "par_points", "par_net",
)  # fmt: skip


def par_bids(rules: Rules) -> tuple[Bid, ...]:
    """The ladder the par auction uses: every bid of the rules' ladder but the blind ones (a blind
    bid is made before its bidder sees a card, which has no meaning with every hand open)."""
    return tuple(b for b in rules.ladder if not b.blind)


def denominations(rules: Rules) -> tuple[tuple[str, str], ...]:
    """(denomination, the contract forced to solve it): the lowest bid of each denomination of
    :func:`par_bids` (a denomination's tricks do not depend on the level), in :data:`DENOMINATIONS`
    order."""
    first: dict[str, str] = {}
    for b in par_bids(rules):
        first.setdefault(bid_denomination(b.code), b.code)
    return tuple((d, first[d]) for d in DENOMINATIONS if d in first)


def _mask(rules: Rules, cards: Sequence[str]) -> int:
    m = 0
    for c in parse_cards(rules.deck, " ".join(cards)):
        m |= 1 << c
    return m


def seat_tricks(rules: Rules, row: dict[str, Any]) -> dict[str, list[int]]:
    """Per denomination of :func:`denominations`, each seat's DD tricks as declarer (its side's; in a
    misère 0 when it can avoid every trick, else 1), from the logged hands, kitty and dealer."""
    hands = [_mask(rules, h) for h in row["hands"]]
    kitty = _mask(rules, row["kitty"])
    dens = denominations(rules)
    table = deal_table(rules, hands, kitty, row["dealer"], [code for _, code in dens])
    values = dd_tricks_many([pos for per_seat in table for pos in per_seat])
    n = rules.players
    return {den: values[i * n : (i + 1) * n] for i, (den, _) in enumerate(dens)}


def side_score(rules: Rules, contract: Bid, tricks: int) -> int:
    """The declaring side's score minus the defending side's when it takes ``tricks`` (misère: the
    declarer's own, 0 or 1) of a two-sided deal: :meth:`Rules.declarer_points` against
    :meth:`Rules.defence_points` for the other tricks."""
    defence = rules.defence_points(contract, rules.hand_size - tricks)
    return rules.declarer_points(contract, tricks) - defence


@dataclass(frozen=True)
class Par:
    """A deal's par: the contract (None: every side passes), its declarer and side, the declaring
    side's DD points and its net (its points minus the defenders')."""

    contract: str | None
    declarer: int | None
    team: int | None
    points: int
    net: int


def par_of(rules: Rules, dealer: int, tricks: dict[str, list[int]]) -> Par | None:
    """The par of a deal from each seat's DD tricks (:func:`seat_tricks`); None with more than two
    sides (par is a two-sided notion).

    A side's value of declaring bid ``b`` is the best of its seats' :func:`side_score` (its points
    minus the defenders' for the tricks left to them; ties: the seat that speaks first).  The
    auction is solved backwards over :func:`par_bids`: the side holding ``b`` keeps that value
    unless the other side does better for itself by bidding a higher bid (which the first side may
    overbid in turn, and so on).  The side of the first bidder
    (left of the dealer) opens the contract that is best for it, or passes when passing is at least
    as good (then the other side opens or passes; every side passing scores 0).  A side goes on only
    when that is strictly better for it, and picks the lowest of equally good bids.  Returns the
    contract reached on that line.
    """
    if rules.teams != 2:
        return None
    bids = par_bids(rules)
    n, players = len(bids), rules.players
    order = [(dealer + 1 + k) % players for k in range(players)]  # auction order: first bidder first
    best: list[list[tuple[int, int]]] = [[], []]  # side -> per bid (net, declarer)
    for b in bids:
        den = bid_denomination(b.code)
        for side in (0, 1):
            seats = [s for s in order if rules.team_of(s) == side]
            net, _, seat = max((side_score(rules, b, tricks[den][s]), -k, s) for k, s in enumerate(seats))
            best[side].append((net, seat))
    # g[side][i]: the side's net (its points minus the other's) when it holds bid i, the other to answer
    g = [[0] * n for _ in range(2)]
    answer: list[list[int | None]] = [[None] * n for _ in range(2)]  # the other side's best overbid
    for i in reversed(range(n)):
        for side in (0, 1):
            other = 1 - side
            stop = best[side][i][0]
            j = min(range(i + 1, n), key=lambda j: (-g[other][j], j), default=None)
            if j is not None and -g[other][j] < stop:
                g[side][i], answer[side][i] = -g[other][j], j
            else:
                g[side][i] = stop
    first = rules.team_of(order[0])
    second = 1 - first

    def opening(side: int) -> int | None:
        return max(range(n), key=lambda i: (g[side][i], -i), default=None)

    o1, o2 = opening(first), opening(second)
    pass_value = -max(0, g[second][o2]) if o2 is not None else 0
    if o1 is not None and g[first][o1] > pass_value:
        side, i = first, o1
    elif o2 is not None and g[second][o2] > 0:
        side, i = second, o2
    else:
        return Par(None, None, None, 0, 0)
    while (j := answer[side][i]) is not None:
        side, i = 1 - side, j
    net, declarer = best[side][i]
    b = bids[i]
    points = rules.declarer_points(b, tricks[bid_denomination(b.code)][declarer])
    return Par(b.code, declarer, side, points, net)


def solve_par_chunk(chunk: DDChunk) -> bytes:
    """The par part file's bytes of a chunk: each deal's DD tricks per seat and denomination and its
    par (a Ray task)."""
    rules = chunk.rules
    cols: dict[str, list[Any]] = {f.name: [] for f in PAR_SCHEMA}
    for row in chunk.rows:
        try:
            tricks = seat_tricks(rules, row)
        except ValueError as exc:
            raise AnalysisError(f"deal {row['deal_id']}: no DD par from the log ({exc})") from None
        par = par_of(rules, row["dealer"], tricks)
        cols["deal_id"].append(row["deal_id"])
        cols["seed"].append(row["seed"])
        cols["dealer"].append(row["dealer"])
        for d in DENOMINATIONS:
            cols[f"dd_{d}"].append(tricks.get(d))
        cols["par_contract"].append(None if par is None else par.contract)
        cols["par_declarer"].append(None if par is None else par.declarer)
        cols["par_team"].append(None if par is None else par.team)
        cols["par_points"].append(None if par is None else par.points)
        cols["par_net"].append(None if par is None else par.net)
        cols["dd_version"].append(PAR_VERSION)
    return encode_parquet(pa.table(cols, schema=PAR_SCHEMA))


def par_kind() -> SidecarKind:
    """The par sidecar ``RUN/dd_par/`` for :func:`pipelines.analysis.dd.dd_sidecar`: one row per
    sampled deal, with or without a contract."""
    return SidecarKind(
        PAR_DIR, PAR_VERSION, PAR_SCHEMA, PAR_LOG_COLUMNS, False, solve_par_chunk, PAR_CHUNK_DEALS
    )


# ------------------------------------------------------------------------------------------ tables


def landing(frame: Frame, rules: Rules, par: pl.DataFrame, rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per sampled deal and side: where the bidding landed against par (``rows``: the sampled deals'
    :func:`~pipelines.analysis.dd.dd_rows`, read for the par's deals when not given).

    ``net`` is the side's DD points minus the other side's for the contract the bots reached (valued
    with the par sidecar's tricks of its declarer, the defenders' trick points included: the
    bidding's effect alone) and ``par_net`` the same for the par contract; ``at_par`` the deal ended
    in the par contract by the par side; ``overbid`` the side bought a contract above par (or any
    contract when par is to pass); ``underbid`` the side holds par and the deal ended below it
    (lower, or passed out); ``level_diff`` the side's contract's level minus par's when the side
    declared and both are suit or NT contracts.
    """
    rank = rules.bid_index  # ladder order (the par bids are a part of it)
    if rows is None:
        rows = dd_rows(frame, ids=par["deal_id"])
    d = rows.select("deal_id", "game_id", "contract", "declarer", "strategies").join(
        par, on="deal_id", how="inner"
    )
    rows: dict[str, list[Any]] = {
        k: []
        for k in ("deal_id", "game_id", "side", "strategy", "net", "par_net", "at_par", "overbid", "underbid",
                  "level_diff")
    }  # fmt: skip
    for r in d.iter_rows(named=True):
        if r["par_team"] is None:
            continue
        c, pc = r["contract"], r["par_contract"]
        points = 0
        if c is not None:
            points = side_score(rules, rules.bid(c), r[f"dd_{bid_denomination(c)}"][r["declarer"]])
        dteam = None if c is None else rules.team_of(r["declarer"])
        here = -1 if c is None else rank[c]
        there = -1 if pc is None else rank[pc]
        for side in (0, 1):
            seats = [s for s in range(rules.players) if rules.team_of(s) == side]
            net = 0 if dteam is None else (points if dteam == side else -points)
            par_net = 0 if pc is None else (r["par_net"] if r["par_team"] == side else -r["par_net"])
            level = None
            if dteam == side and c is not None and pc is not None:
                mine, best_bid = rules.bid(c), rules.bid(pc)
                if not mine.misere and not best_bid.misere:
                    level = mine.tricks - best_bid.tricks
            for k, v in (
                ("deal_id", r["deal_id"]),
                ("game_id", r["game_id"]),
                ("side", side),
                ("strategy", "+".join(sorted({r["strategies"][s] for s in seats}))),
                ("net", net),
                ("par_net", par_net),
                ("at_par", c == pc and dteam == r["par_team"]),
                ("overbid", dteam == side and here > there),
                ("underbid", r["par_team"] == side and here < there),
                ("level_diff", level),
            ):
                rows[k].append(v)
    schema = {"deal_id": pl.Int64, "game_id": pl.Int64, "side": pl.Int8, "strategy": pl.String,
              "net": pl.Int64, "par_net": pl.Int64, "at_par": pl.Boolean, "overbid": pl.Boolean,
              "underbid": pl.Boolean, "level_diff": pl.Int64}  # fmt: skip
    return pl.DataFrame(rows, schema=schema)


_INT, _FLOAT = pl.Int64, pl.Float64
PAR_TABLE_SCHEMA: dict[str, Any] = {
    "run_id": pl.String,
    "variant": pl.String,
    **dict.fromkeys(("n", "par_passed"), _INT),
    **dict.fromkeys(("par_points_mean", "par_net_mean"), _FLOAT),
    "at_par": _INT,
    **dict.fromkeys(("at_par_rate", "at_par_lo", "at_par_hi"), _FLOAT),
    **dict.fromkeys(("above_par", "below_par", "par_other_side"), _INT),
}
BY_STRATEGY_SCHEMA: dict[str, Any] = {
    **dict.fromkeys(("run_id", "variant", "strategy"), pl.String),
    **dict.fromkeys(("n", "games", "at_par", "overbid", "underbid"), _INT),
    **dict.fromkeys(("overbid_rate", "underbid_rate"), _FLOAT),
    "level_n": _INT,
    **dict.fromkeys(("level_diff_mean", *(f"points_vs_par_{k}" for k in ("mean", "lo", "hi", "se"))), _FLOAT),
}


def _nan_null(v: float) -> float | None:
    return None if v != v else v


#: The par tables' partial aggregates of a chunk of whole games (:func:`par_partials`).
PAR_AGGREGATES: Spec = {
    "par_counts": ((), dict.fromkeys(("n", "at_par", "above", "below", "other"), "sum")),
    "par_strategy": (
        ("strategy",),
        dict.fromkeys(("n", "at_par", "overbid", "underbid", "level_n", "level_sum", *CLUSTER_SUMS), "sum"),
    ),
}


def par_partials(frame: Frame, rules: Rules, par: pl.DataFrame, rows: pl.DataFrame) -> Partial:
    """The partial aggregates (:data:`PAR_AGGREGATES`) of a chunk of a run's sampled deals (whole
    games) and its par sidecar (sorted by ``deal_id``): the deals with a par, at par, above and below
    it, par bought by the other side; per side's strategies the counts and the cluster sums over the
    chunk's games of the points against par."""
    par = id_slice(par, rows)
    land = landing(frame, rules, par, rows)
    deals = land.filter(pl.col("side") == 0)
    par2 = par.filter(pl.col("par_team").is_not_null())
    played = rows.select("deal_id", "contract", "declarer").join(par2, on="deal_id", how="inner")
    other = played.filter(
        (pl.col("contract") == pl.col("par_contract"))
        & ((pl.col("declarer") % rules.teams) != pl.col("par_team"))
    ).height
    counts = {
        "n": deals.height,
        "at_par": int(deals["at_par"].sum()),
        "above": int(land.filter("overbid")["deal_id"].n_unique()),
        "below": int(land.filter("underbid")["deal_id"].n_unique()),
        "other": other,
    }
    i64 = pl.Int64
    land = land.with_columns((pl.col("net") - pl.col("par_net")).alias("y"))
    per_game = land.group_by("strategy", "game_id").agg(pl.col("y").sum(), pl.len().alias("m"))
    sums = per_game.group_by("strategy").agg(*cluster_exprs(pl.col("y"), pl.col("m")))
    strat = land.group_by("strategy").agg(
        pl.len().cast(i64).alias("n"),
        *(pl.col(c).sum().cast(i64) for c in ("at_par", "overbid", "underbid")),
        pl.col("level_diff").count().cast(i64).alias("level_n"),
        pl.col("level_diff").sum().cast(i64).alias("level_sum"),
    )
    return {
        "par_counts": pl.DataFrame(counts, schema=dict.fromkeys(counts, i64)),
        "par_strategy": strat.join(sums, on="strategy", how="left").select(
            "strategy", *PAR_AGGREGATES["par_strategy"][1]
        ),
    }


def par_tables(
    frames: Sequence[Frame],
    rules: Sequence[Rules],
    sidecars: Sequence[pl.DataFrame],
    rows: Sequence[pl.DataFrame] | None = None,
) -> dict[str, pl.DataFrame]:
    """``dd_par`` (per run: how often the bidding reached par, went above or below it) and
    ``dd_par_by_strategy`` (per run and side's strategies: points against par, over- and under-bids,
    the level difference), from the runs' par sidecars (sorted by ``deal_id``) and one pass over the
    sampled deals (:func:`~pipelines.analysis.dd.row_batches`: ``rows``, a sample's, or every deal
    in batches when None), merging :func:`par_partials`."""
    merged: list[Partial | None] = [None] * len(frames)
    for chunk in row_batches(frames, rows):
        for i, (f, r, par, sampled) in enumerate(zip(frames, rules, sidecars, chunk, strict=True)):
            if sampled is not None:
                merged[i] = merge(merged[i], par_partials(f, r, par, sampled), PAR_AGGREGATES)
    runs: dict[str, list[Any]] = {k: [] for k in PAR_TABLE_SCHEMA}
    strat: dict[str, list[Any]] = {k: [] for k in BY_STRATEGY_SCHEMA}
    for f, par, m in zip(frames, sidecars, merged, strict=True):
        c = None if m is None else m["par_counts"].row(0, named=True)
        if m is None or c is None or c["n"] == 0:
            continue
        n, at = int(c["n"]), int(c["at_par"])
        par2 = par.filter(pl.col("par_team").is_not_null())
        lo, hi = wilson_interval(at, n)
        for k, v in (
            ("run_id", f.run.run_id), ("variant", f.run.variant), ("n", n),
            ("par_passed", par2.filter(pl.col("par_contract").is_null()).height),
            ("par_points_mean", math.fsum(par2["par_points"].to_list()) / n),
            ("par_net_mean", math.fsum(par2["par_net"].to_list()) / n),
            ("at_par", at), ("at_par_rate", at / n), ("at_par_lo", lo), ("at_par_hi", hi),
            ("above_par", int(c["above"])), ("below_par", int(c["below"])),
            ("par_other_side", int(c["other"])),
        ):  # fmt: skip
            runs[k].append(v)
        for g in sorted(m["par_strategy"].iter_rows(named=True), key=lambda g: g["strategy"]):
            mean, lo, hi, se, games = cluster_sums(*(int(g[k]) for k in CLUSTER_SUMS))
            size, level_n = int(g["n"]), int(g["level_n"])
            for k, v in (
                ("run_id", f.run.run_id), ("variant", f.run.variant), ("strategy", g["strategy"]),
                ("n", size),
                ("games", games), ("at_par", int(g["at_par"])), ("overbid", int(g["overbid"])),
                ("underbid", int(g["underbid"])), ("overbid_rate", int(g["overbid"]) / size),
                ("underbid_rate", int(g["underbid"]) / size), ("level_n", level_n),
                ("level_diff_mean", int(g["level_sum"]) / level_n if level_n else None),
                ("points_vs_par_mean", _nan_null(mean)), ("points_vs_par_lo", _nan_null(lo)),
                ("points_vs_par_hi", _nan_null(hi)), ("points_vs_par_se", _nan_null(se)),
            ):  # fmt: skip
                strat[k].append(v)
    return {
        "dd_par": pl.DataFrame(runs, schema=PAR_TABLE_SCHEMA),
        "dd_par_by_strategy": pl.DataFrame(strat, schema=BY_STRATEGY_SCHEMA),
    }
