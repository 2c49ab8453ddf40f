"""The per-deal frame of a batch of deals, and :class:`Frame`: a run's merged statistics.

:func:`collect_deals` reads only the columns the statistics need from ``deals/*.parquet`` (streaming),
derives the contract's level and trump (through :mod:`sim.notation`), the declarer's points, seat,
strategy and hand masks (:mod:`pipelines.analysis.features`), each team's points, tricks and score
after the deal (``points_t<t>``, ``tricks_t<t>``, ``after_t<t>``), and returns one compact row per
deal of the batch (:mod:`~pipelines.analysis.batches` turns each batch into partial aggregates).
Every fact of the rules (who made each call, the declaring team, whether the contract was made, each
team's tricks, the declarer's trumps) is read from the columns the engine logged (docs/deal-log.md),
never recomputed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from fivehundred.pipelines.analysis.features import hand_features, mask_of
from fivehundred.pipelines.analysis.io import AnalysisError, Run
from fivehundred.sim.errors import UserError
from fivehundred.sim.notation import (
    LEVELS,
    MISERE_CODES,
    NT_TEXT,
    PASS_TEXT,
    SUITS,
    UNIVERSAL_BIT,
    bid_level,
    bid_trump,
    is_joker,
)
from fivehundred.sim.rules import ALL_BIDS, Rules, rules_from_flat

#: Every bid code of any ladder, in rank order (BMIS ranks with OMIS); the index codes calls.
ALL_CODES: tuple[str, ...] = tuple(b.code for b in ALL_BIDS)
CODE_INDEX = {c: i for i, c in enumerate(ALL_CODES)}
PASS_CODE = -1
TRUMP_ORDER = (*SUITS, NT_TEXT, *MISERE_CODES)
LEVEL_ORDER = (*(str(n) for n in LEVELS), *MISERE_CODES)
#: The level and trump of every contract code, as the tables show them (the notation's reading).
LEVEL_OF = {c: bid_level(c) for c in ALL_CODES}
JOKER_NAMES = [n for n in UNIVERSAL_BIT if is_joker(n)]
TRUMP_OF = {c: bid_trump(c) for c in ALL_CODES}


@dataclass(frozen=True)
class Ladder:
    """A run's bid ladder: (code, points) in rank order."""

    bids: tuple[tuple[str, int], ...]


def manifest_rules(run: Run) -> Rules | None:
    """The run's rules from its manifest's full rule settings (a sweep's one-switch variants have no
    variant file), or None when the manifest has none that make a rule set."""
    flat = run.manifest.rules
    if not isinstance(flat, dict):
        return None
    try:
        return rules_from_flat({"name": run.variant, **flat}, f"{run.path}/manifest.json")
    except (UserError, KeyError, TypeError, ValueError):
        return None


def ladder_of(run: Run) -> Ladder:
    """The run's ladder from its rules (the manifest's, else the variant's by name); the full base
    ladder if neither is known."""
    from fivehundred import sim

    rules = manifest_rules(run)
    if rules is None:
        try:
            rules = sim.load_rules(run.variant)
        except (UserError, OSError):
            return Ladder(tuple((b.code, b.points) for b in ALL_BIDS if not b.blind))
    return Ladder(tuple((b.code, b.points) for b in rules.ladder))


@dataclass(frozen=True)
class Frame:
    """A run's merged statistics (:mod:`~pipelines.analysis.batches`) and the shape of its table.

    ``stats`` maps each aggregate's name to its merged table (counts and integer sums per group, see
    :data:`~pipelines.analysis.batches.AGGREGATES`): every table is built from these, so their size
    does not grow with the log.  ``paired`` holds the sums of the deal-by-deal pairing with the base run
    (the first run of the analysis) when this run was read beside it on the same table, else None.
    """

    run: Run
    players: int
    teams: int
    ladder: Ladder
    stats: Mapping[str, pl.DataFrame]
    paired: Mapping[str, pl.DataFrame] | None = None

    def run_columns(self) -> tuple[pl.Expr, pl.Expr]:
        """The literal ``run_id`` and ``variant`` columns that tag every row of this run's tables."""
        return pl.lit(self.run.run_id).alias("run_id"), pl.lit(self.run.variant).alias("variant")

    @property
    def hist(self) -> pl.DataFrame:
        """Contract deals counted per (contract, seat_rel, dstrategy, made, dpoints, dtricks): ``_w``."""
        return self.stats["hist"]

    def count(self, name: str) -> int:
        """One of the run's totals (``deals``, ``games``, ``thrown_in``, ``contracts``, ``finished``...)."""
        return int(self.stats["counts"][name][0])


def run_shape(run: Run) -> tuple[int, int]:
    """(players, teams) of the run's table, from its first deal (a one-line error if unknown)."""
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
    """Level (str), level number, trump (str) and misère flag of a contract code."""
    is_mis = contract.is_in(list(MISERE_CODES))
    level = contract.replace_strict(LEVEL_OF, default=None, return_dtype=pl.String)
    return {
        "is_mis": is_mis,
        "level": level,
        "level_n": pl.when(is_mis).then(None).otherwise(level).cast(pl.Int8),
        "trump": contract.replace_strict(TRUMP_OF, default=None, return_dtype=pl.String),
    }


def deal_exprs(run: Run, players: int, teams: int) -> list[pl.Expr]:
    """The columns of the per-deal frame, as expressions over the deal log (the module docstring)."""
    c = contract_exprs(pl.col("contract"))
    declarer = pl.col("declarer").cast(pl.Int16)
    code_map = {PASS_TEXT: PASS_CODE, **CODE_INDEX}
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
        .replace_strict({letter: s for s, letter in enumerate(SUITS)}, default=None, return_dtype=pl.Int8)
        .alias("tidx"),
        pl.col("made"),
        pl.col("score_delta").list.get(pl.col("declarer_team"), null_on_oob=True).alias("dpoints"),
        pl.col("declarer_team").cast(pl.Int8).alias("dteam"),
        ((declarer - pl.col("dealer") + players) % players).cast(pl.Int8).alias("seat_rel"),
        pl.col("strategies").list.get(declarer, null_on_oob=True).alias("dstrategy"),
        mask_of(pl.col("hands").list.get(declarer, null_on_oob=True)).alias("dmask"),
        mask_of(pl.col("kitty")).alias("kmask"),
        mask_of(pl.col("discards")).alias("xmask"),
        pl.col("bids").list.eval(pl.element().replace_strict(code_map, return_dtype=pl.Int16)).alias("calls"),
        pl.col("bid_seats"),
        pl.col("bid_seats").list.first().alias("first_bidder"),
        pl.col("trick_winners").list.len().cast(pl.Int8).alias("tricks_played"),
        *(pl.col(c) for c in ("trumps_dealt", "bowers_dealt", "trumps_kitty", "trumps_kept", "suit_lengths")),
    ]
    if "end_reason" in run.columns:
        exprs.append(pl.col("end_reason"))
    else:
        exprs.append(pl.lit(None, dtype=pl.String).alias("end_reason"))
    for t in range(teams):
        exprs.append(pl.col("score_delta").list.get(t).alias(f"points_t{t}"))
        exprs.append(pl.col("score_after").list.get(t).alias(f"after_t{t}"))
        exprs.append(pl.col("team_tricks").list.get(t).cast(pl.Int8).alias(f"tricks_t{t}"))
    # The joker's place when a teammate of the declarer holds it (misère features): any teammate's hand.
    if players > teams:
        held = [
            pl.col("hands")
            .list.get((declarer + teams * k) % players, null_on_oob=True)
            .list.eval(pl.element().is_in(JOKER_NAMES))
            .list.any()
            for k in range(1, players // teams)
        ]
        exprs.append(pl.any_horizontal(held).fill_null(False).alias("partner_joker"))
    else:
        exprs.append(pl.lit(False).alias("partner_joker"))
    return exprs


def collect_deals(run: Run, lf: pl.LazyFrame, players: int, teams: int) -> pl.DataFrame:
    """The per-deal frame of the deal-log rows of ``lf`` (a part, a batch of games, some deals)."""
    try:
        df = lf.select(deal_exprs(run, players, teams)).collect(engine="streaming")
    except pl.exceptions.InvalidOperationError as exc:
        raise AnalysisError(
            f"{run.path}/deals: a card or bid the analysis does not know ({str(exc).splitlines()[0]})"
        ) from exc
    return hand_features(df.with_columns(partner_calls(df, teams))).drop("bid_seats")


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


def partner_calls(df: pl.DataFrame, teams: int) -> pl.Series:
    """The partner's highest call per deal (``partner_call``: a bid code, ``P``, or ``-`` when no
    teammate spoke; null when all passed), from the calls and the seats the engine logged
    (``bid_seats``; team ``t`` holds the seats ``s % teams == t``, docs/deal-log.md)."""
    declarer = pl.col("declarer").cast(pl.Int16)
    seat = pl.col("bid_seats").cast(pl.Int16)
    best = (
        df.select(pl.int_range(pl.len()).alias("_r"), "declarer", "calls", "bid_seats")
        .explode("calls", "bid_seats")
        .filter((seat != declarer) & (seat % teams == declarer % teams))
        .group_by("_r")
        .agg(pl.col("calls").max().alias("_best"))
    )
    names = {PASS_CODE: PASS_TEXT, **{i: c for i, c in enumerate(ALL_CODES)}}
    return (
        df.select(pl.int_range(pl.len()).alias("_r"), "declarer")
        .join(best, on="_r", how="left")
        .sort("_r")
        .select(
            pl.when(pl.col("declarer").is_null())
            .then(None)
            .otherwise(
                pl.col("_best").replace_strict(names, default=None, return_dtype=pl.String).fill_null("-")
            )
            .alias("partner_call")
        )
        .to_series()
    )
