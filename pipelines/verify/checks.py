"""Verifying a whole log (``fivehundred verify``): every row re-run through the engine, the cross-deal
structure (ids, hand numbers, dealer rotation, game ends) as Polars queries, and, unless
``rules_only``, the seeds and the manifest that only this project's own runs carry."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.schema import FACT_COLUMNS, SCHEMA_VERSION
from fivehundred.pipelines.verify.codec import Mismatch, dealt_state, rerun
from fivehundred.pipelines.verify.run import (
    RunError,
    RunLog,
    batches,
    open_run,
    reading,
    rules_of_run,
)
from fivehundred.sim.engine import IllegalAction, State
from fivehundred.sim.game import DEAL_LIMIT, deal_facts, settle
from fivehundred.sim.rules import Rules, RulesError, load_rules
from fivehundred.sim.seeding import deal_seed, dealer_of

#: Columns the replay needs (the core of docs/deal-log.md).
REPLAY_COLUMNS = (
    "deal_id",
    "game_id",
    "hand_no",
    "seed",
    "variant",
    "dealer",
    "hands",
    "kitty",
    "bids",
    "contract",
    "declarer",
    "discards",
    "joker_suit",
    "plays",
    "trick_winners",
    "declarer_tricks",
    "score_delta",
    "score_after",
    "game_over",
    "winner",
)


@dataclass(frozen=True)
class Finding:
    """One problem in a log: the deal it is about (None for run-wide ones), a kind and a message."""

    deal_id: int | None
    kind: str
    message: str

    def __str__(self) -> str:
        where = f"deal {self.deal_id}" if self.deal_id is not None else "run"
        return f"{where}: {self.kind}: {self.message}"


@dataclass
class VerifyResult:
    """What :func:`verify_run` found, with counts and the replay throughput."""

    run: str
    deals: int = 0
    games: int = 0
    replayed: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    master_seed: int | None = None
    rules: str = ""
    findings: list[Finding] = field(default_factory=list)
    #: A tournament log's seed: each row's deal is ``new_deal(rules, board_seed, board, hand_no)``.
    board_seed: int | None = None
    #: Only the rules were checked (``verify --rules-only``): no seed, schema-version or manifest check.
    rules_only: bool = False

    @property
    def ok(self) -> bool:
        """True when nothing was found."""
        return not self.findings

    @property
    def deals_per_second(self) -> float:
        """Replay throughput over the whole verification."""
        return self.replayed / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        """One line: counts, throughput and the verdict."""
        if self.rules_only:
            seed = "rules only: seeds and manifest not checked"
        elif self.board_seed is not None:
            seed = f"board seed {self.board_seed}"
        elif self.master_seed is not None:
            seed = f"master seed {self.master_seed}"
        else:
            seed = "no master seed in manifest"
        verdict = "OK" if self.ok else f"{len(self.findings)} finding(s)"
        return (
            f"{self.run}: {self.deals} deals in {self.games} games replayed with rules {self.rules} "
            f"({seed}) in {self.seconds:.2f} s ({self.deals_per_second:,.0f} deals/s; "
            f"{self.cpu_seconds:.2f} s of CPU): {verdict}"
        )


def _structure_findings(
    small: pl.DataFrame, players: int, run_id: str | None, schema_version: int | None
) -> list[Finding]:
    """Cross-deal checks as Polars queries: ids, hand numbers, dealer rotation, game ends, and (when
    given) the schema version and the manifest's run id."""
    out: list[Finding] = []
    n = small.height
    dup = small.filter(pl.col("deal_id").is_duplicated()).get_column("deal_id").unique().sort()
    for d in dup.to_list():
        out.append(Finding(d, "deal_ids", "deal id appears more than once"))
    bad = small.filter((pl.col("deal_id") < 0) | (pl.col("deal_id") >= n)).get_column("deal_id").to_list()
    for d in bad:
        out.append(Finding(d, "deal_ids", f"deal id out of range 0..{n - 1}"))
    present = (
        small.filter((pl.col("deal_id") >= 0) & (pl.col("deal_id") < n)).get_column("deal_id").n_unique()
    )
    if present < n:
        out.append(Finding(None, "deal_ids", f"{n - present} deal id(s) of 0..{n - 1} missing"))
    if schema_version is not None and "schema_version" in small.columns:
        wrong = small.filter(pl.col("schema_version") != schema_version).select("deal_id", "schema_version")
        for d, v in wrong.iter_rows():
            out.append(Finding(d, "schema", f"schema_version is {v}, expected {schema_version}"))
    if run_id is not None and "run_id" in small.columns:
        for d, v in small.filter(pl.col("run_id") != run_id).select("deal_id", "run_id").iter_rows():
            out.append(Finding(d, "schema", f"run_id {v!r} differs from the manifest's {run_id!r}"))
    g = small.sort("game_id", "hand_no").with_columns(
        prev_hand=pl.col("hand_no").shift(1).over("game_id"),
        prev_dealer=pl.col("dealer").cast(pl.Int64).shift(1).over("game_id"),
        last_hand=pl.col("hand_no").max().over("game_id"),
        first=pl.col("hand_no").cum_count().over("game_id") == 1,
    )
    for d, gid, h in (
        g.filter(pl.col("first") & (pl.col("hand_no") != 0))
        .select("deal_id", "game_id", "hand_no")
        .iter_rows()
    ):
        out.append(Finding(d, "hand_numbers", f"game_id {gid} starts at hand_no {h}, not 0"))
    for d, gid, h, p in (
        g.filter(pl.col("prev_hand").is_not_null() & (pl.col("hand_no") != pl.col("prev_hand") + 1))
        .select("deal_id", "game_id", "hand_no", "prev_hand")
        .iter_rows()
    ):
        what = "repeats" if h == p else f"follows hand_no {p}"
        out.append(Finding(d, "hand_numbers", f"game_id {gid}: hand_no {h} {what}"))
    rot = g.filter(
        pl.col("prev_dealer").is_not_null()
        & (pl.col("dealer").cast(pl.Int64) != (pl.col("prev_dealer") + 1) % players)
    )
    for d, gid, h, dl, p in rot.select("deal_id", "game_id", "hand_no", "dealer", "prev_dealer").iter_rows():
        out.append(
            Finding(
                d,
                "dealer_rotation",
                f"game_id {gid} hand_no {h}: dealer {dl} after dealer {p} (expected {(p + 1) % players})",
            )
        )
    early = g.filter(pl.col("game_over") & (pl.col("hand_no") != pl.col("last_hand")))
    for d, gid, h in early.select("deal_id", "game_id", "hand_no").iter_rows():
        out.append(Finding(d, "game_end", f"game_id {gid} is over at hand_no {h} but has later hands"))
    unfinished = g.filter(~pl.col("game_over") & (pl.col("hand_no") == pl.col("last_hand")))
    for d, gid, h in unfinished.select("deal_id", "game_id", "hand_no").iter_rows():
        out.append(Finding(d, "game_end", f"game_id {gid} stops at hand_no {h} without game_over"))
    return out


def _manifest_findings(run: RunLog, small: pl.DataFrame) -> list[Finding]:
    """The manifest's counts against the log: total deals and games, and each committed chunk's file."""
    out: list[Finding] = []
    totals = run.manifest.totals
    if isinstance(totals, dict):
        if isinstance(totals.get("deals"), int) and totals["deals"] != small.height:
            out.append(
                Finding(
                    None,
                    "manifest",
                    f"the manifest counts {totals['deals']} deals, the log has {small.height}",
                )
            )
        games = small.get_column("game_id").n_unique()
        if isinstance(totals.get("games"), int) and totals["games"] != games:
            out.append(
                Finding(None, "manifest", f"the manifest counts {totals['games']} games, the log has {games}")
            )
    chunks = run.manifest.chunks
    if isinstance(chunks, list):
        for c in chunks:
            f = c.get("file") if isinstance(c, dict) else None
            if isinstance(f, str) and not run.exists(f):
                out.append(Finding(None, "manifest", f"chunk file {f} listed in the manifest is missing"))
    return out


def verify_run(
    run_dir: str | Path | RunLog,
    max_findings: int | None = None,
    rules_only: bool = False,
    variant: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    partial: bool = False,
) -> VerifyResult:
    """Replay every deal of a run through the engine and collect every finding (see module doc).

    ``max_findings`` stops the replay once that many findings are collected (None: no limit).
    ``rules_only`` checks every rule (deck, deal, auction, discards, plays, tricks, scores, game
    ends, dealer rotation) but not what only this project's own runs carry: the seeds (each deal
    dealt from its ``seed``, the master or board seed), the schema version, the run id and the
    manifest's counts; it reads a log another program wrote.  ``variant`` (a name or TOML path)
    gives the rules instead of the manifest or the ``variant`` column.
    ``progress(replayed, deals)`` (optional) is called after each batch of replayed deals.
    An unreadable part file raises :class:`RunError` naming it; so does a run that is not finished,
    unless ``partial`` (then the deals that are there are checked).
    """
    run = open_run(run_dir, partial)
    rules = None
    if variant is not None:
        try:
            rules = load_rules(variant)
        except RulesError as exc:
            raise RunError(str(exc)) from None
    with reading(run):
        return _verify_run(run, max_findings, rules_only, rules, progress)


def _verify_run(
    run: RunLog,
    max_findings: int | None,
    rules_only: bool,
    rules: Rules | None,
    progress: Callable[[int, int], None] | None = None,
) -> VerifyResult:
    t0 = time.perf_counter()
    c0 = time.process_time()
    lf = run.scan()
    names = lf.collect_schema().names()
    missing = [c for c in REPLAY_COLUMNS if c not in names]
    if missing:
        raise RunError(
            f"{run.path}: the deal log lacks column(s) {', '.join(missing)} (see docs/deal-log.md)"
        )
    small_cols = [
        c
        for c in (
            "deal_id",
            "game_id",
            "hand_no",
            "dealer",
            "game_over",
            "schema_version",
            "run_id",
            "variant",
        )
        if c in names
    ]
    small = lf.select(small_cols).collect()
    variants = small.get_column("variant").unique().drop_nulls().to_list()
    named = rules is not None  # the caller named the rules: the log's own variant name is not checked
    if rules is None:
        rules = rules_of_run(run, variants[0] if variants else None)
    master = run.manifest.master_seed
    # A tournament log: hand j of a row's board is new_deal(rules, board_seed, board, j) (docs/tournament.md).
    has_board = "board" in names
    board_seed = run.manifest.board_seed if has_board else None
    if has_board:
        master = None  # deals come from (seed, board, hand), not (seed, game_id, hand)
    run_id = run.manifest.run_id
    if rules_only:
        master = board_seed = run_id = None
    result = VerifyResult(
        run=str(run.path),
        deals=small.height,
        games=small.get_column("game_id").n_unique(),
        master_seed=master,
        rules=rules.name,
        board_seed=board_seed,
        rules_only=rules_only,
    )
    findings = result.findings
    findings.extend(_structure_findings(small, rules.players, run_id, None if rules_only else SCHEMA_VERSION))
    if not rules_only:
        findings.extend(_manifest_findings(run, small))
    for v in [] if named else variants:
        if v != rules.name:
            findings.append(
                Finding(None, "schema", f"variant column says {v!r}, the run's rules are {rules.name!r}")
            )
    # Scores before each deal: the previous hand's logged score_after (its own check validates it).
    prev = (
        lf.select("game_id", (pl.col("hand_no") + 1).alias("hand_no"), pl.col("score_after").alias("_prev"))
        .unique(subset=["game_id", "hand_no"], keep="first")
        .collect()
    )
    zero = [0] * rules.teams
    has_reason = "end_reason" in names
    facts = tuple(c for c in FACT_COLUMNS if c in names)  # the engine's facts, when the log has them
    cols = [
        *REPLAY_COLUMNS,
        *(("end_reason",) if has_reason else ()),
        *(("board",) if board_seed is not None else ()),
        *facts,
    ]
    for batch in batches(run, cols):
        if max_findings is not None and len(findings) >= max_findings:
            break
        batch = batch.join(prev, on=["game_id", "hand_no"], how="left")
        for row in batch.iter_rows(named=True):
            _verify_row(rules, master, row, zero, has_reason, findings, board_seed, facts, not rules_only)
            result.replayed += 1
        if progress is not None:
            progress(result.replayed, result.deals)
    findings.sort(key=lambda f: -1 if f.deal_id is None else f.deal_id)
    result.seconds = time.perf_counter() - t0
    result.cpu_seconds = time.process_time() - c0
    return result


def _verify_row(
    rules: Rules,
    master: int | None,
    row: dict[str, Any],
    zero: list[int],
    has_reason: bool,
    out: list[Finding],
    board_seed: int | None = None,
    facts: tuple[str, ...] = (),
    check_seed: bool = True,
) -> None:
    """Check one row (see the module docstring); ``board_seed`` set: the row's deal comes from
    (``board_seed``, its ``board``, ``hand_no``) instead of (``master``, ``game_id``, ``hand_no``).
    ``facts``: the engine-fact columns to check against :func:`sim.game.deal_facts`; ``check_seed``
    False: the cards are not checked against the row's ``seed`` (another program's log)."""
    deal_id = row["deal_id"]
    try:
        state = dealt_state(rules, row)
        game, hand = row["game_id"], row["hand_no"]
        source: tuple[int, int, str] | None = None
        if board_seed is not None:
            if row.get("board") is None:
                raise Mismatch("seed", "the board column is empty on a tournament row")
            source = (board_seed, row["board"], f"board {row['board']}")
        elif master is not None:
            source = (master, game, f"game {game}")
        if source is not None:
            seed_of, key, what = source
            want = deal_seed(seed_of, key, hand)
            if row["seed"] != want:
                raise Mismatch("seed", f"seed {row['seed']} is not the seed of {what} hand {hand} ({want})")
            want_dealer = dealer_of(seed_of, key, hand, rules.players)
            if row["dealer"] != want_dealer:
                kind = "board" if board_seed is not None else "master"
                raise Mismatch(
                    "dealer_rotation", f"dealer {row['dealer']}, the {kind} seed gives dealer {want_dealer}"
                )
        fresh = State.deal(rules, row["seed"], row["dealer"]) if check_seed else state
        if fresh.dealt != state.dealt or fresh.kitty_dealt != state.kitty_dealt:
            seats = [s for s in range(rules.players) if fresh.dealt[s] != state.dealt[s]]
            what = f"seat(s) {', '.join(map(str, seats))}" if seats else "the kitty"
            raise Mismatch("dealt_cards", f"the cards of {what} are not those the seed deals")
        rr = rerun(rules, row, state)
        before = row["_prev"] if hand and row["_prev"] is not None else zero
        if hand and row["_prev"] is None:
            before = [
                a - d for a, d in zip(row["score_after"] or zero, row["score_delta"] or zero, strict=False)
            ]
        st = rr.state
        st.scores = tuple(before)
        delta, after, over, winner, reason = settle(rules, before, st)
        if not over and hand == rules.deal_limit - 1:
            over, reason = True, DEAL_LIMIT
        if list(row["score_delta"] or ()) != delta:
            raise Mismatch("score", f"score_delta {row['score_delta']}, the engine scores {delta}")
        if list(row["score_after"] or ()) != after:
            raise Mismatch(
                "score", f"score_after {row['score_after']}, expected {after} (from {list(before)})"
            )
        if bool(row["game_over"]) != over:
            raise Mismatch("game_end", f"game_over is {row['game_over']}, the scores give {over}")
        if row["winner"] != winner:
            raise Mismatch("game_end", f"winner is {row['winner']}, the scores give {winner}")
        if has_reason and row.get("end_reason") != reason:
            raise Mismatch("game_end", f"end_reason is {row.get('end_reason')!r}, expected {reason!r}")
        if facts:
            want_facts = deal_facts(st, rules)
            for c in facts:
                if row[c] != want_facts[c]:
                    raise Mismatch("facts", f"{c} is {row[c]!r}, the engine gives {want_facts[c]!r}")
    except Mismatch as exc:
        out.append(Finding(deal_id, exc.kind, exc.message))
    except (IllegalAction, KeyError, TypeError, ValueError, IndexError) as exc:  # malformed row
        out.append(Finding(deal_id, "malformed", f"{type(exc).__name__}: {exc}"))
