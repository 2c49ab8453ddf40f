"""Running a tournament: chunks of game pairs played in order, stopping rules, files, final tables.

The output directory is laid out like a simulation run, so ``analyze`` and ``report`` read it::

    OUT/manifest.json            config, rules, entries, seed, counts, chunks done (the commit point)
    OUT/deals/<chunk>.parquet    the deal log (DEAL_LOG.md) plus `board`, `match_id`, `entries`
    OUT/pairs/<chunk>.parquet    one row per game pair (what resuming needs)
    OUT/tables/matches.parquet   per-match results; entries.parquet: per-entry results and ratings
    OUT/tables/tournament.md     both tables in Markdown

Results are consumed chunk by chunk in a fixed order (:func:`~pipelines.tournament.schedule.chunk_order`),
whatever executes them; a match stops at the first pair where its SPRT accepts a hypothesis, and the
later pairs of that match are dropped.  Deal ids are assigned in that order, so the same config and seed
give byte-identical files for any number of workers, and an interrupted run resumes where the manifest
says it stopped.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.schema import DEAL_LOG_SCHEMA, SCHEMA_VERSION, records_to_table
from fivehundred.pipelines.tournament.config import TournamentConfig
from fivehundred.pipelines.tournament.schedule import Chunk, PairPlayer, PairResult, chunk_order
from fivehundred.pipelines.tournament.stats import (
    bt_bootstrap,
    bt_ratings,
    penta_counts,
    penta_summary,
    ratio_ci,
)
from fivehundred.sim.engine import ENGINE_VERSION
from fivehundred.sim.errors import UserError

#: The deal log's columns plus the tournament's extra ones.
TOURNAMENT_LOG_SCHEMA = pa.schema(
    [
        *DEAL_LOG_SCHEMA,
        ("board", pa.int64()),  # the deals' source: hand j of this row is new_deal(rules, seed, board, j)
        ("match_id", pa.int32()),  # index of the match (see manifest.json "matches")
        ("entries", pa.list_(pa.string())),  # the entry name of each seat
    ]
)

PAIRS_SCHEMA = pa.schema(
    [
        ("match", pa.int32()),
        ("pair", pa.int64()),
        ("score_a_0", pa.float64()),
        ("score_a_1", pa.float64()),
        ("points_a", pa.int64()),
        ("deals_0", pa.int32()),
        ("deals_1", pa.int32()),
        ("end_0", pa.string()),
        ("end_1", pa.string()),
    ]
)


class TournamentDirError(UserError, ValueError):
    """The output directory holds something else than this tournament."""


ChunkOutput = tuple[Chunk, list[PairResult], list[dict[str, Any]]]


class Executor(Protocol):
    """Plays chunks and yields their outputs in the order the chunks were given."""

    def run(self, config: TournamentConfig, chunks: Iterator[Chunk]) -> Iterator[ChunkOutput]: ...


class InProcessExecutor:
    """Plays each chunk in this process, one after another (tests, ``--workers 0``).

    Like a Ray task, every chunk gets freshly built bots, so both executors give the same rows.
    """

    def run(self, config: TournamentConfig, chunks: Iterator[Chunk]) -> Iterator[ChunkOutput]:
        """Yield ``(chunk, pair results, deal records)`` for each chunk, lazily."""
        for chunk in chunks:
            rows, records = _play_remote(_RemoteChunk(chunk.key, config, chunk))
            yield chunk, [PairResult.from_row(r) for r in rows], records


@dataclass(frozen=True)
class _RemoteChunk:
    """What a Ray task gets: the chunk and the config (``key`` names the chunk in error messages)."""

    key: str
    config: TournamentConfig
    chunk: Chunk


def _play_remote(task: _RemoteChunk) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Ray task: play one chunk with fresh bots; pair rows and deal records."""
    results, records = PairPlayer(task.config).play_chunk(task.chunk)
    return [r.as_row() for r in results], records


class RayExecutor:
    """Plays chunks as Ray tasks through the simulate pipeline's pool and in-order runner.

    It reuses :class:`pipelines.chunks.RayPool` (embedded local Ray, or ``address`` to join a cluster;
    retries; a window of chunks in flight) and :func:`pipelines.chunks.run_chunks` (results in
    submission order, in-flight chunks cancelled when the consumer stops), with the tournament's own
    task (:func:`_play_remote`) in place of ``play_chunk``.
    """

    def __init__(self, workers: int | None = None, address: str | None = None, max_retries: int = 3) -> None:
        self.workers, self.address, self.max_retries = workers, address, max_retries
        self.window = 0

    def run(self, config: TournamentConfig, chunks: Iterator[Chunk]) -> Iterator[ChunkOutput]:
        """Yield ``(chunk, pair results, deal records)`` in the order of ``chunks``."""
        from fivehundred.pipelines.chunks import RayPool, run_chunks

        tasks = (_RemoteChunk(c.key, config, c) for c in chunks)
        pool = RayPool(self.workers, self.address, self.max_retries, task=_play_remote)
        with pool:
            self.window = pool.window
            stream = run_chunks(tasks, pool)
            try:
                for done in stream:
                    rows, records = done.table
                    yield done.chunk.chunk, [PairResult.from_row(r) for r in rows], records
            finally:
                stream.close()


# ---------------------------------------------------------------------------------------------------
# Per-match state and the live line


@dataclass
class MatchState:
    """What is known of one match so far."""

    index: int
    a: str
    b: str
    pairs: list[PairResult] = field(default_factory=list)
    decision: str | None = None  # "H0" / "H1" once the SPRT accepted one

    def add(self, res: PairResult) -> None:
        """Record one more pair."""
        self.pairs.append(res)

    def counts(self) -> list[int]:
        """Pentanomial counts of ``a``'s pair outcomes."""
        return penta_counts([p.points for p in self.pairs])


@dataclass(frozen=True)
class MatchStatus:
    """A snapshot of one match, as the live line and the matches table show it."""

    match: int
    a: str
    b: str
    pairs: int
    games: int
    deals: int
    wins: int
    draws: int
    losses: int
    penta: tuple[int, ...]
    ppd: float  # a's points minus b's, per deal
    ppd_half: float
    score: float
    score_half: float
    elo: float
    elo_low: float
    elo_high: float
    los: float
    llr: float | None
    llr_lower: float | None
    llr_upper: float | None
    elo0: float | None
    elo1: float | None
    decision: str  # H0 | H1 | inconclusive | running | fixed

    def line(self) -> str:
        """The fastchess-like live line."""
        parts = [
            f"{self.a} vs {self.b}: games {self.games} ({self.pairs} pairs), deals {self.deals}",
            f"pts/deal {_signed(self.ppd, 1)} ± {_num(self.ppd_half, 1)}",
            f"W/L/D {self.wins}/{self.losses}/{self.draws} {_num(100 * self.score, 1)}% "
            f"± {_num(100 * self.score_half, 1)}%",
            f"Elo {_signed(self.elo, 1)} ± {_num((self.elo_high - self.elo_low) / 2, 1)}"
            if math.isfinite(self.elo_high - self.elo_low)
            else f"Elo {_signed(self.elo, 1)} [{_signed(self.elo_low, 1)}, {_signed(self.elo_high, 1)}]",
            f"LOS {_num(100 * self.los, 1)}%",
            f"Ptnml(0-2) {list(self.penta)}",
        ]
        if self.llr is not None:
            parts.append(
                f"LLR {self.llr:.2f} ({self.llr_lower:.2f}, {self.llr_upper:.2f}) "
                f"[{self.elo0:g}, {self.elo1:g}]"
                + (f" {self.decision}" if self.decision in ("H0", "H1") else "")
            )
        return " | ".join(parts)


def _num(x: float, digits: int) -> str:
    if x is None or math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}f}"


def _signed(x: float, digits: int) -> str:
    if x is None or math.isnan(x):
        return "nan"
    return f"{x:+.{digits}f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def match_status(config: TournamentConfig, state: MatchState, final: bool = False) -> MatchStatus:
    """The statistics of a match from its pairs so far."""
    pairs = state.pairs
    games_scores = [s for p in pairs for s in p.score_a]
    wins = sum(1 for s in games_scores if s == 1.0)
    losses = sum(1 for s in games_scores if s == 0.0)
    counts = state.counts()
    summ = penta_summary(counts, config.confidence)
    ppd, ppd_half = ratio_ci([p.points_a for p in pairs], [sum(p.deals) for p in pairs], config.confidence)
    sprt = config.stop.sprt
    if sprt is not None:
        llr = sprt.llr(counts)
        lower, upper = sprt.bounds
        decision = state.decision or ("inconclusive" if final else "running")
        elo0, elo1 = config.stop.elo0, config.stop.elo1
    else:
        llr = lower = upper = elo0 = elo1 = None
        decision = "fixed"
    return MatchStatus(
        match=state.index,
        a=state.a,
        b=state.b,
        pairs=len(pairs),
        games=len(games_scores),
        deals=sum(sum(p.deals) for p in pairs),
        wins=wins,
        draws=len(games_scores) - wins - losses,
        losses=losses,
        penta=tuple(counts),
        ppd=ppd,
        ppd_half=ppd_half,
        score=summ.score,
        score_half=summ.score_half,
        elo=summ.elo,
        elo_low=summ.elo_low,
        elo_high=summ.elo_high,
        los=summ.los,
        llr=llr,
        llr_lower=lower,
        llr_upper=upper,
        elo0=elo0,
        elo1=elo1,
        decision=decision,
    )


# ---------------------------------------------------------------------------------------------------
# Files


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _atomic_parquet(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)


def _atomic_df(df: pl.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    df.write_parquet(tmp, compression="zstd", statistics=False)
    os.replace(tmp, path)


def _log_table(records: list[dict[str, Any]], run_id: str, first_deal_id: int) -> pa.Table:
    base = records_to_table(records, run_id, first_deal_id)
    extra = {
        "board": pa.array([r["board"] for r in records], pa.int64()),
        "match_id": pa.array([r["match_id"] for r in records], pa.int32()),
        "entries": pa.array([r["entries"] for r in records], pa.list_(pa.string())),
    }
    return pa.Table.from_arrays([*base.columns, *extra.values()], schema=TOURNAMENT_LOG_SCHEMA)


def _package_version() -> str:
    try:
        return version("fivehundred")
    except PackageNotFoundError:
        return "unknown"


def run_id_of(config: TournamentConfig) -> str:
    """The run id: the tournament's name and a hash of its whole config (seed included)."""
    return f"{config.name}-{config.digest()[:12]}"


def _manifest(config: TournamentConfig, chunks: list[str], counts: dict[str, int], complete: bool) -> dict:
    rules = config.rules()
    # The seed is stored as `board_seed`, not `master_seed`: deals come from (seed, board, hand), not
    # from (seed, game_id, hand) as in a simulation run, so tools checking the latter must not find it.
    cfg = config.as_dict()
    cfg["board_seed"] = cfg.pop("seed")
    return {
        "kind": "tournament",
        "run_id": run_id_of(config),
        "schema_version": SCHEMA_VERSION,
        "config_digest": config.digest(),
        "config": cfg,
        "variant": rules.name,
        "rules": rules.as_dict(),
        "board_seed": config.seed,
        "strategies": {
            e.name: {"strategy": e.strategy, "params": e.params, "label": e.label} for e in config.entries
        },
        "matches": [
            {"match": m, "a": config.entries[a].name, "b": config.entries[b].name}
            for m, (a, b) in enumerate(config.matches)
        ],
        "duplicate": {
            "board": "pair p of every match plays board p: hand j is sim.game.new_deal(rules, seed, p, j)",
            "game_id": "2 * (pair * n_matches + match) + side; side 0: match's a at even seats (team 0)",
        },
        "package_version": _package_version(),
        "engine_version": ENGINE_VERSION,
        "counts": counts,
        "chunks": chunks,
        "complete": complete,
    }


def _write_manifest(out: Path, manifest: dict) -> None:
    _atomic_write_bytes(
        out / "manifest.json", (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    )


# ---------------------------------------------------------------------------------------------------
# The run


@dataclass
class TournamentResult:
    """What a finished tournament returns: its tables and where they are."""

    out_dir: Path
    run_id: str
    matches: pl.DataFrame
    entries: pl.DataFrame
    statuses: list[MatchStatus]
    markdown: str


def run_tournament(
    config: TournamentConfig,
    out_dir: str | Path,
    executor: Executor | None = None,
    on_progress: Callable[[MatchStatus], None] | None = None,
) -> TournamentResult:
    """Play (or resume) a tournament into ``out_dir`` and write its tables.

    ``executor`` plays the chunks (default: in this process).  ``on_progress`` is called with the
    match's status after every chunk consumed.
    """
    out = Path(out_dir)
    executor = executor or InProcessExecutor()
    run_id = run_id_of(config)
    done_keys: list[str] = []
    counts = {"pairs": 0, "games": 0, "deals": 0}
    manifest_path = out / "manifest.json"
    if manifest_path.exists():
        try:
            old = json.loads(manifest_path.read_text())
        except json.JSONDecodeError as exc:
            raise TournamentDirError(f"{manifest_path}: unreadable manifest ({exc})") from None
        if old.get("kind") != "tournament" or old.get("config_digest") != config.digest():
            raise TournamentDirError(
                f"{out}: holds another run (its manifest's config differs from {config.source}); "
                "choose another --out"
            )
        done_keys = list(old.get("chunks", []))
        counts = dict(old.get("counts", counts))
    elif out.exists() and any(out.iterdir()):
        raise TournamentDirError(
            f"{out}: exists, is not empty and has no manifest.json; choose another --out"
        )
    (out / "deals").mkdir(parents=True, exist_ok=True)
    (out / "pairs").mkdir(parents=True, exist_ok=True)

    states = [
        MatchState(m, config.entries[a].name, config.entries[b].name)
        for m, (a, b) in enumerate(config.matches)
    ]
    sprt = config.stop.sprt
    limit = config.stop.pairs

    def consume(results: Iterable[PairResult], state: MatchState) -> int:
        """Add pairs until the SPRT decides; the number of pairs kept."""
        kept = 0
        for res in results:
            if state.decision is not None:
                break
            state.add(res)
            kept += 1
            if sprt is not None:
                state.decision = sprt.decide(sprt.llr(state.counts()))
        return kept

    done = set(done_keys)
    for key in done_keys:
        path = out / "pairs" / f"{key}.parquet"
        if not path.exists():
            raise TournamentDirError(f"{path}: missing, though the manifest lists chunk {key} as done")
        rows = pq.read_table(path).to_pylist()
        results = [PairResult.from_row(r) for r in rows]
        if results:
            consume(results, states[results[0].match])

    def pending() -> Iterator[Chunk]:
        for chunk in chunk_order(len(config.matches), limit, config.chunk_pairs):
            if chunk.key in done or states[chunk.match].decision is not None:
                continue
            yield chunk

    for chunk, results, records in executor.run(config, pending()):
        state = states[chunk.match]
        if state.decision is not None:
            continue  # played ahead by a parallel executor, after the match was decided
        kept = consume(results, state)
        kept_pairs = {r.pair for r in results[:kept]}
        recs = [r for r in records if r["board"] in kept_pairs]
        _atomic_parquet(_log_table(recs, run_id, counts["deals"]), out / "deals" / f"{chunk.key}.parquet")
        rows = [r.as_row() for r in results[:kept]]
        _atomic_parquet(
            pa.Table.from_pylist(rows, schema=PAIRS_SCHEMA), out / "pairs" / f"{chunk.key}.parquet"
        )
        counts = {
            "pairs": counts["pairs"] + kept,
            "games": counts["games"] + 2 * kept,
            "deals": counts["deals"] + len(recs),
        }
        done_keys.append(chunk.key)
        done.add(chunk.key)
        _write_manifest(out, _manifest(config, done_keys, counts, complete=False))
        if on_progress is not None:
            on_progress(match_status(config, state))

    statuses = [match_status(config, s, final=True) for s in states]
    matches_df = matches_table(config, statuses)
    entries_df = entries_table(config, states)
    md = markdown_report(config, run_id, counts, matches_df, entries_df)
    tables = out / "tables"
    tables.mkdir(exist_ok=True)
    _atomic_df(matches_df, tables / "matches.parquet")
    _atomic_df(entries_df, tables / "entries.parquet")
    _atomic_write_bytes(tables / "tournament.md", md.encode())
    _write_manifest(out, _manifest(config, done_keys, counts, complete=True))
    return TournamentResult(out, run_id, matches_df, entries_df, statuses, md)


# ---------------------------------------------------------------------------------------------------
# Final tables


def matches_table(config: TournamentConfig, statuses: list[MatchStatus]) -> pl.DataFrame:
    """One row per match, from the first entry's (``a``) point of view."""
    rows = []
    for s in statuses:
        rows.append(
            {
                "match": s.match,
                "entry_a": s.a,
                "entry_b": s.b,
                "pairs": s.pairs,
                "games": s.games,
                "deals": s.deals,
                "wins_a": s.wins,
                "draws": s.draws,
                "losses_a": s.losses,
                **{f"penta_{k}": s.penta[k] for k in range(5)},
                "score_a": s.score,
                "score_half": s.score_half,
                "elo": s.elo,
                "elo_low": s.elo_low,
                "elo_high": s.elo_high,
                "los": s.los,
                "ppd_diff": s.ppd,
                "ppd_half": s.ppd_half,
                "llr": s.llr,
                "llr_lower": s.llr_lower,
                "llr_upper": s.llr_upper,
                "decision": s.decision,
            }
        )
    schema = {
        "match": pl.Int32,
        "entry_a": pl.String,
        "entry_b": pl.String,
        "pairs": pl.Int64,
        "games": pl.Int64,
        "deals": pl.Int64,
        "wins_a": pl.Int64,
        "draws": pl.Int64,
        "losses_a": pl.Int64,
        **{f"penta_{k}": pl.Int64 for k in range(5)},
        **{
            k: pl.Float64
            for k in (
                "score_a",
                "score_half",
                "elo",
                "elo_low",
                "elo_high",
                "los",
                "ppd_diff",
                "ppd_half",
                "llr",
                "llr_lower",
                "llr_upper",
            )
        },
        "decision": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def entries_table(config: TournamentConfig, states: list[MatchState]) -> pl.DataFrame:
    """One row per entry: games, score, points per deal against its opponents, Bradley–Terry rating."""
    k = len(config.entries)
    score = np.zeros((k, k))
    games = np.zeros((k, k))
    wins = np.zeros(k, dtype=np.int64)
    losses = np.zeros(k, dtype=np.int64)
    n_games = np.zeros(k, dtype=np.int64)
    points = np.zeros(k)
    deals = np.zeros(k, dtype=np.int64)
    units: list[tuple[int, int, float, float]] = []
    for (a, b), state in zip(config.matches, states, strict=True):
        for p in state.pairs:
            sa = p.score_a[0] + p.score_a[1]
            score[a, b] += sa
            score[b, a] += 2 - sa
            games[a, b] += 2
            games[b, a] += 2
            units.append((a, b, sa, 2.0))
            for s in p.score_a:
                wins[a] += s == 1.0
                losses[a] += s == 0.0
                wins[b] += s == 0.0
                losses[b] += s == 1.0
            n_games[a] += 2
            n_games[b] += 2
            points[a] += p.points_a
            points[b] -= p.points_a
            deals[a] += sum(p.deals)
            deals[b] += sum(p.deals)
    if games.sum() > 0 and _connected(games):
        if config.interval == "bootstrap":
            ratings = bt_bootstrap(units, k, config.bootstrap, config.seed, config.confidence, config.prior)
        else:
            ratings = bt_ratings(score, games, config.confidence, config.prior)
        elo, low, high = ratings.elo, ratings.low, ratings.high
    else:
        elo = low = high = np.full(k, math.nan)
    order = sorted(range(k), key=lambda i: (-elo[i] if not math.isnan(elo[i]) else 0.0, i))
    rank = {i: r + 1 for r, i in enumerate(order)}
    rows = []
    for i, e in enumerate(config.entries):
        g = int(n_games[i])
        rows.append(
            {
                "rank": rank[i],
                "entry": e.name,
                "strategy": e.label,
                "games": g,
                "wins": int(wins[i]),
                "draws": g - int(wins[i]) - int(losses[i]),
                "losses": int(losses[i]),
                "score": float(score[i].sum() / g) if g else math.nan,
                "deals": int(deals[i]),
                "ppd_diff": float(points[i] / deals[i]) if deals[i] else math.nan,
                "rating": float(elo[i]),
                "rating_low": float(low[i]),
                "rating_high": float(high[i]),
            }
        )
    schema = {
        "rank": pl.Int32,
        "entry": pl.String,
        "strategy": pl.String,
        "games": pl.Int64,
        "wins": pl.Int64,
        "draws": pl.Int64,
        "losses": pl.Int64,
        "score": pl.Float64,
        "deals": pl.Int64,
        "ppd_diff": pl.Float64,
        "rating": pl.Float64,
        "rating_low": pl.Float64,
        "rating_high": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").sort("rank")


def _connected(games: np.ndarray) -> bool:
    k = games.shape[0]
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j in range(k):
            if games[i, j] > 0 and j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == k


def _md_table(df: pl.DataFrame, digits: int = 2) -> str:
    def cell(v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, float):
            return _num(v, digits)
        return str(v)

    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.iter_rows()]
    return "\n".join([head, sep, *body])


def markdown_report(
    config: TournamentConfig,
    run_id: str,
    counts: dict[str, int],
    matches: pl.DataFrame,
    entries: pl.DataFrame,
) -> str:
    """The tournament's results as Markdown."""
    stop = config.stop
    if stop.rule == "sprt":
        rule = (
            f"SPRT elo0 = {stop.elo0:g}, elo1 = {stop.elo1:g}, alpha = {stop.alpha:g}, beta = {stop.beta:g}, "
            f"at most {stop.pairs} pairs per match"
        )
    else:
        rule = f"{stop.pairs} game pairs per match"
    lines = [
        f"# Tournament {config.name}",
        "",
        f"- run id: `{run_id}`; variant `{config.variant}`; seed {config.seed}; format {config.format}",
        f"- stopping rule: {rule}",
        f"- played: {counts['pairs']} game pairs, {counts['games']} games, {counts['deals']} deals "
        "(every game in duplicate: the same boards twice, partnerships swapping seats)",
        f"- intervals: {100 * config.confidence:g}%; ratings: Bradley–Terry, "
        f"{'bootstrap over game pairs' if config.interval == 'bootstrap' else 'Fisher information'}, "
        f"prior {config.prior:g} drawn game(s) per pairing",
        "",
        "## Entries",
        "",
        _md_table(entries, 3),
        "",
        "## Matches",
        "",
        "Scores, Elo and points per deal (`ppd_diff`) are entry_a's; `penta_k` counts game pairs in "
        "which entry_a scored k/2 points.",
        "",
        _md_table(matches, 3),
        "",
    ]
    return "\n".join(lines)
