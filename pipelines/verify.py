"""Replay and verify a deal log through the engine (``fivehundred replay`` / ``fivehundred verify``).

Both read only the deal log of ``DEAL_LOG.md`` (``RUN_DIR/deals/*.parquet``) and the run's manifest
(``RUN_DIR/manifest.json``, optional: it gives the rules and the master seed when present).

- :func:`replay_deal` returns one deal as a player reads it (:class:`DealReplay`): the hands and
  kitty, the auction with each caller's seat, the contract, the discards, each trick with its leader
  and winner, and the score.  The seats come from re-running the logged actions through the engine.
- :func:`verify_run` replays every deal: it rebuilds the dealt state from ``hands``/``kitty``/``dealer``,
  checks it against ``seed`` (and, when the manifest gives the master seed, against
  :func:`sim.game.new_deal`), applies every logged action with ``apply_checked``, recomputes tricks,
  ``score_delta``, ``score_after``, ``game_over``, ``winner`` and ``end_reason`` with
  :func:`sim.game.settle`, and checks deal ids, hand numbers and the dealer rotation across each game.
  It returns a :class:`VerifyResult` with every :class:`Finding` and the throughput.

Cross-deal checks (ids, rotation, game ends) are Polars queries on the small columns; the replay
itself is a simple per-deal loop over record batches (no multiprocessing), so memory stays bounded.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from fivehundred.pipelines.rundir import RunLog, open_log
from fivehundred.sim.cards import SUITS
from fivehundred.sim.engine import AUCTION, DONE, JOKER, NAME_NONE, NAME_SUIT, PLAY, IllegalAction, State
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import DEAL_LIMIT, settle
from fivehundred.sim.rules import Rules, RulesError, load_rules, rules_from_flat
from fivehundred.sim.seeding import deal_seed, dealer_of

#: Rows per record batch in :func:`verify_run` (bounds memory on big logs).
BATCH_ROWS = 20_000

#: Columns the replay needs (the stable core of DEAL_LOG.md).
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


class RunError(UserError, ValueError):
    """A run directory is missing, empty or unreadable, or a deal id is not in it."""


# ------------------------------------------------------------------------------------------ the run


def open_run(run_dir: str | Path | RunLog) -> RunLog:
    """Find a run's part files and manifest (:func:`pipelines.rundir.open_log`; a path, a URI or an
    opened :class:`RunLog`); a missing or empty run raises :class:`RunError`."""
    return run_dir if isinstance(run_dir, RunLog) else open_log(run_dir, error=RunError)


@contextlib.contextmanager
def _reading(run: RunLog) -> Iterator[None]:
    """Turn a Parquet reading failure into a :class:`RunError` that names the bad part file."""
    try:
        yield
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError) as exc:
        for f in run.files:
            try:
                with run.open(f) as fh:
                    pq.read_metadata(fh)
            except (pa.ArrowException, OSError) as bad:
                raise RunError(f"{run.path}/{f}: not a readable Parquet part file ({bad})") from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunError(f"{run.path}: the deal log cannot be read ({first})") from None


def rules_of_run(run: RunLog, variant: str | None) -> Rules:
    """The rules a run was played with.

    The manifest's full settings (``rules`` as flat ``section.key`` values, as written by
    :meth:`Rules.as_dict`, at the top level or one level down) win; otherwise its ``variant`` name or
    path; otherwise the log's ``variant`` column as a shipped variant name.
    """
    where = f"{run.path}/manifest.json"
    flat = run.manifest.rules
    if isinstance(flat, dict) and "table.players" in flat:
        return rules_from_flat(dict(flat), where)
    name = run.manifest.variant
    if name is not None:
        try:
            return load_rules(name)
        except RulesError:
            pass
    if variant is None:
        raise RunError(f"{run.path}: cannot tell the rule set (no manifest rules, no variant column)")
    try:
        return load_rules(variant)
    except RulesError as exc:
        raise RunError(f"{run.path}: the log's variant {variant!r} is not a known rule set ({exc})") from None


# ------------------------------------------------------------------------------------ re-running


class _Mismatch(Exception):
    """The first problem found while re-running one deal: a kind and a message."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class _Codec:
    """Log notation -> action ints for one rule set (the inverse of ``sim.action_name``)."""

    def __init__(self, rules: Rules) -> None:
        from fivehundred.sim.engine import BID, JOKER_LEAD, PASS

        deck = rules.deck
        self.cards = dict(deck.index)
        self.calls = {"P": PASS, **{b.code: BID + i for i, b in enumerate(rules.ladder)}}
        plays = dict(self.cards)
        for j, c in enumerate(deck.jokers):
            for s, letter in enumerate(SUITS):
                plays[f"{deck.names[c]}={letter}"] = JOKER_LEAD + 4 * j + s
        self.plays = plays


def _codec(rules: Rules) -> _Codec:
    """The codec of a rule set, built once and kept on the (frozen) rules object like its compiled tables."""
    return rules.derived("_verify_codec", _Codec)


def _mask(rules: Rules, names: list[str] | None, what: str) -> int:
    if names is None:
        raise _Mismatch("dealt_cards", f"{what} is null")
    index = rules.deck.index
    m = 0
    for n in names:
        c = index.get(n)
        if c is None:
            raise _Mismatch("dealt_cards", f"{what} holds {n!r}, not a card of the {rules.name} deck")
        if m >> c & 1:
            raise _Mismatch("dealt_cards", f"{what} holds {n} twice")
        m |= 1 << c
    return m


def dealt_state(rules: Rules, row: dict[str, Any]) -> State:
    """The dealt state of a logged row, from its ``hands``, ``kitty`` and ``dealer`` (checked)."""
    n = rules.players
    hands = row["hands"]
    if hands is None or len(hands) != n:
        raise _Mismatch("dealt_cards", f"hands has {0 if hands is None else len(hands)} seats, expected {n}")
    masks = []
    seen = 0
    for s, h in enumerate(hands):
        m = _mask(rules, h, f"seat {s}'s hand")
        if len(h) != rules.hand_size:
            raise _Mismatch("dealt_cards", f"seat {s} was dealt {len(h)} cards, expected {rules.hand_size}")
        if seen & m:
            dup = rules.deck.names_of(seen & m)
            raise _Mismatch("dealt_cards", f"card(s) {' '.join(dup)} dealt to two players")
        seen |= m
        masks.append(m)
    kitty = _mask(rules, row["kitty"], "the kitty")
    if len(row["kitty"]) != rules.kitty_size:
        raise _Mismatch("dealt_cards", f"kitty has {len(row['kitty'])} cards, expected {rules.kitty_size}")
    if seen & kitty:
        raise _Mismatch(
            "dealt_cards", f"kitty card(s) {' '.join(rules.deck.names_of(seen & kitty))} also dealt"
        )
    dealer = row["dealer"]
    if dealer is None or not 0 <= dealer < n:
        raise _Mismatch("dealer_rotation", f"dealer {dealer} is not a seat")
    state = State(rules, masks, kitty, dealer)
    state.hand_no = row["hand_no"] or 0
    return state


@dataclass
class _Rerun:
    """What re-running one deal's logged actions gave."""

    state: State
    auction: list[tuple[int, str]]  # (seat, call)
    joker_names: list[str]
    plays: list[tuple[int, str]]  # (seat, logged card)


def rerun(rules: Rules, row: dict[str, Any], state: State | None = None) -> _Rerun:
    """Apply a row's logged calls, discards, joker naming and plays to its dealt state.

    Raises :class:`_Mismatch` at the first illegal or missing action, or when the logged contract,
    declarer, trick winners or declarer tricks differ from the engine's.
    """
    codec = _codec(rules)
    st = state if state is not None else dealt_state(rules, row)
    auction: list[tuple[int, str]] = []
    for i, call in enumerate(row["bids"] or ()):
        if st.phase != AUCTION:
            raise _Mismatch("auction", f"call {i + 1} ({call}) after the auction had ended")
        a = codec.calls.get(call)
        seat = st.turn
        if a is None:
            raise _Mismatch("illegal_action", f"call {i + 1}: {call!r} is not a bid of {rules.name}")
        try:
            st.apply_checked(a)
        except IllegalAction:
            raise _Mismatch("illegal_action", f"call {i + 1}: seat {seat} may not call {call} here") from None
        auction.append((seat, call))
    if st.phase == AUCTION:
        raise _Mismatch("auction", f"the auction is unfinished after {len(auction)} calls")
    contract = st.contract.code if st.contract is not None else None
    declarer = st.declarer if st.contract is not None else None
    if contract != row["contract"] or declarer != row["declarer"]:
        raise _Mismatch(
            "contract",
            f"the auction gives contract {contract} by seat {declarer}, "
            f"the log says {row['contract']} by seat {row['declarer']}",
        )
    discards = row["discards"]
    if contract is None:
        if discards:
            raise _Mismatch("illegal_action", "discards logged on a thrown-in deal")
    else:
        if discards is None or len(discards) != rules.kitty_size:
            got = 0 if discards is None else len(discards)
            raise _Mismatch(
                "illegal_action", f"{got} discards logged, the declarer must discard {rules.kitty_size}"
            )
        for d in discards:
            c = codec.cards.get(d)
            try:
                if c is None:
                    raise IllegalAction
                st.apply_checked(c)
            except IllegalAction:
                raise _Mismatch("illegal_action", f"discard {d!r} is not in the declarer's hand") from None
    joker_names: list[str] = []
    named = [x for x in (row["joker_suit"] or "").split(",") if x]
    while st.phase == JOKER:
        letter = named.pop(0) if named else "-"  # trailing unnamed jokers are not written
        a = NAME_NONE if letter == "-" else (NAME_SUIT + SUITS.index(letter) if letter in SUITS else None)
        if a is None:
            raise _Mismatch("illegal_action", f"joker_suit {row['joker_suit']!r} names no suit")
        st.apply_checked(a)
        joker_names.append(letter)
    if named:
        raise _Mismatch(
            "illegal_action", f"joker_suit {row['joker_suit']!r} logged but the declarer names no joker"
        )
    plays: list[tuple[int, str]] = []
    codes = codec.plays
    legal_plays = st.legal_actions
    apply = st.apply
    for i, card in enumerate(row["plays"] or ()):
        a = codes.get(card)
        seat = st.turn
        if st.phase != PLAY or a is None or a not in legal_plays():
            if st.phase != PLAY:
                raise _Mismatch("illegal_action", f"play {i + 1} ({card}) after the deal was over")
            what = "is not a card of the deck" if a is None else f"may not be played by seat {seat}"
            raise _Mismatch("illegal_action", f"trick {st.tricks_played + 1}: {card!r} {what}")
        apply(a)
        plays.append((seat, card))
    if st.phase != DONE:
        raise _Mismatch("illegal_action", f"the play is unfinished after {len(plays)} cards")
    winners = list(row["trick_winners"] or ())
    if winners != st.trick_winners:
        k = next((i for i, (a, b) in enumerate(zip(winners, st.trick_winners, strict=False)) if a != b), None)
        where = (
            f"trick {k + 1}: logged seat {winners[k]}, engine seat {st.trick_winners[k]}"
            if k is not None
            else (f"{len(winners)} winners logged for {len(st.trick_winners)} tricks")
        )
        raise _Mismatch("tricks", f"trick winners differ ({where})")
    if row["declarer_tricks"] != st.declarer_tricks():
        raise _Mismatch(
            "tricks", f"declarer_tricks is {row['declarer_tricks']}, the tricks give {st.declarer_tricks()}"
        )
    return _Rerun(st, auction, joker_names, plays)


# ------------------------------------------------------------------------------------------ replay


@dataclass(frozen=True)
class Trick:
    """One trick: its number (from 1), the leader, (seat, card) in play order, and the winner."""

    number: int
    leader: int
    cards: tuple[tuple[int, str], ...]
    winner: int


@dataclass(frozen=True)
class DealReplay:
    """One deal as a player reads it (see :meth:`to_text`)."""

    run: str
    deal_id: int
    game_id: int
    hand_no: int
    variant: str
    dealer: int
    strategies: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    kitty: tuple[str, ...]
    auction: tuple[tuple[int, str], ...]
    contract: str | None
    declarer: int | None
    discards: tuple[str, ...]
    joker_suit: str | None
    tricks: tuple[Trick, ...]
    declarer_tricks: int | None
    score_delta: tuple[int, ...]
    score_after: tuple[int, ...]
    game_over: bool
    winner: int | None
    end_reason: str | None
    problem: str | None = None

    def to_text(self) -> str:
        """The deal as plain text, one block per section."""
        out = [
            f"Deal {self.deal_id} — game {self.game_id}, hand {self.hand_no} ({self.variant}), "
            f"dealer seat {self.dealer}"
        ]
        n = len(self.hands)
        teams = len(self.score_delta)  # one entry per team in the log
        out.append("")
        out.append("Hands as dealt:")
        for s, h in enumerate(self.hands):
            strat = self.strategies[s] if s < len(self.strategies) else "?"
            out.append(f"  seat {s} (team {s % teams}, {strat}): {_hand_text(h)}")
        out.append(f"  kitty: {' '.join(self.kitty)}")
        out.append("")
        out.append("Auction: " + ", ".join(f"{seat}:{call}" for seat, call in self.auction))
        if self.contract is None:
            out.append("All passed: the deal is thrown in, no score.")
        else:
            out.append(f"Contract: {self.contract} by seat {self.declarer}")
            out.append(f"Discards: {' '.join(self.discards)}")
            if self.joker_suit:
                out.append(f"Joker named as: {self.joker_suit}")
            if self.tricks:
                playing = {seat for t in self.tricks for seat, _ in t.cards}
                out_seats = [s for s in range(n) if s not in playing]
                if out_seats and self.contract in ("MIS", "OMIS", "BMIS"):
                    who = ", ".join(map(str, out_seats))
                    out.append(
                        f"Seat(s) {who} sit out: the misère declarer's partner(s) lay their hands down."
                    )
            out.append("")
            out.append("Tricks (leader first):")
            for t in self.tricks:
                cards = "  ".join(f"{seat}:{card}" for seat, card in t.cards)
                out.append(f"  {t.number:2d}. led by {t.leader}: {cards}  -> won by seat {t.winner}")
            out.append(f"Declaring side took {self.declarer_tricks} trick(s).")
        out.append("")
        delta = ", ".join(f"team {t} {d:+d}" for t, d in enumerate(self.score_delta))
        after = ", ".join(f"team {t} {d}" for t, d in enumerate(self.score_after))
        out.append(f"Score: {delta}; totals {after}")
        if self.game_over:
            who = f"team {self.winner} wins" if self.winner is not None else "no winner"
            out.append(f"Game over ({self.end_reason or 'ended'}): {who}.")
        if self.problem:
            out.append("")
            out.append(f"WARNING: the engine does not accept this deal as logged: {self.problem}")
        return "\n".join(out)


_RANK_SHOW = {"T": "10"}


def _hand_text(cards: tuple[str, ...]) -> str:
    """``S: A K 9  C: 7 5  D: —  H: Q J  JK`` with ranks high to low (cards are in deck order)."""
    parts = []
    for letter in SUITS:
        ranks = [c[:-1] for c in cards if c[-1] == letter and not c.startswith("JK")]
        parts.append(f"{letter}: {' '.join(_RANK_SHOW.get(r, r) for r in reversed(ranks)) or '-'}")
    jokers = [c for c in cards if c.startswith("JK")]
    return "  ".join(parts + jokers)


def replay_deal(run_dir: str | Path | RunLog, deal_id: int) -> DealReplay:
    """Read deal ``deal_id`` of a run and re-run it through the engine for the seats and tricks."""
    run = open_run(run_dir)
    with _reading(run):
        df = run.scan().filter(pl.col("deal_id") == deal_id).collect()
        n = run.scan().select(pl.len()).collect().item() if df.height == 0 else 0
    if df.height == 0:
        raise RunError(f"{run.path}: no deal with id {deal_id} (the log has {n} deals, ids 0..{n - 1})")
    row = df.row(0, named=True)
    rules = rules_of_run(run, row.get("variant"))
    problem = None
    auction = [(-1, c) for c in row["bids"] or ()]
    tricks: list[Trick] = []
    try:
        rr = rerun(rules, row)
        auction = rr.auction
        per = rr.state.n_active
        for k in range(0, len(rr.plays), per):
            chunk = tuple(rr.plays[k : k + per])
            tricks.append(Trick(k // per + 1, chunk[0][0], chunk, rr.state.trick_winners[k // per]))
    except _Mismatch as exc:
        problem = exc.message
    return DealReplay(
        run=str(run.path),
        deal_id=row["deal_id"],
        game_id=row["game_id"],
        hand_no=row["hand_no"],
        variant=row.get("variant") or rules.name,
        dealer=row["dealer"],
        strategies=tuple(row.get("strategies") or ()),
        hands=tuple(tuple(h) for h in row["hands"]),
        kitty=tuple(row["kitty"]),
        auction=tuple(auction),
        contract=row["contract"],
        declarer=row["declarer"],
        discards=tuple(row["discards"] or ()),
        joker_suit=row["joker_suit"],
        tricks=tuple(tricks),
        declarer_tricks=row["declarer_tricks"],
        score_delta=tuple(row["score_delta"] or ()),
        score_after=tuple(row["score_after"] or ()),
        game_over=bool(row["game_over"]),
        winner=row["winner"],
        end_reason=row.get("end_reason"),
        problem=problem,
    )


# ------------------------------------------------------------------------------------------ verify


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
        if self.board_seed is not None:
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


def _structure_findings(small: pl.DataFrame, players: int, run_id: str | None) -> list[Finding]:
    """Cross-deal checks as Polars queries: ids, hand numbers, dealer rotation, game ends, schema."""
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
    for col, want in (("schema_version", 1),):
        if col in small.columns:
            for d, v in small.filter(pl.col(col) != want).select("deal_id", col).iter_rows():
                out.append(Finding(d, "schema", f"{col} is {v}, expected {want}"))
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
        out.append(Finding(d, "hand_numbers", f"game {gid} starts at hand {h}, not 0"))
    for d, gid, h, p in (
        g.filter(pl.col("prev_hand").is_not_null() & (pl.col("hand_no") != pl.col("prev_hand") + 1))
        .select("deal_id", "game_id", "hand_no", "prev_hand")
        .iter_rows()
    ):
        what = "repeats" if h == p else f"follows hand {p}"
        out.append(Finding(d, "hand_numbers", f"game {gid}: hand {h} {what}"))
    rot = g.filter(
        pl.col("prev_dealer").is_not_null()
        & (pl.col("dealer").cast(pl.Int64) != (pl.col("prev_dealer") + 1) % players)
    )
    for d, gid, h, dl, p in rot.select("deal_id", "game_id", "hand_no", "dealer", "prev_dealer").iter_rows():
        out.append(
            Finding(
                d,
                "dealer_rotation",
                f"game {gid} hand {h}: dealer {dl} after dealer {p} (expected {(p + 1) % players})",
            )
        )
    early = g.filter(pl.col("game_over") & (pl.col("hand_no") != pl.col("last_hand")))
    for d, gid, h in early.select("deal_id", "game_id", "hand_no").iter_rows():
        out.append(Finding(d, "game_end", f"game {gid} is over at hand {h} but has later hands"))
    unfinished = g.filter(~pl.col("game_over") & (pl.col("hand_no") == pl.col("last_hand")))
    for d, gid, h in unfinished.select("deal_id", "game_id", "hand_no").iter_rows():
        out.append(Finding(d, "game_end", f"game {gid} stops at hand {h} without game_over"))
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


def _batches(run: RunLog, columns: list[str]) -> Iterator[pl.DataFrame]:
    for f in run.files:
        with run.open(f) as fh:
            pf = pq.ParquetFile(fh)
            cols = [c for c in columns if c in pf.schema_arrow.names]
            for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=cols):
                yield pl.from_arrow(batch)


def verify_run(run_dir: str | Path | RunLog, max_findings: int | None = None) -> VerifyResult:
    """Replay every deal of a run through the engine and collect every finding (see module doc).

    ``max_findings`` stops the replay once that many findings are collected (None: no limit).
    An unreadable part file raises :class:`RunError` naming it.
    """
    run = open_run(run_dir)
    with _reading(run):
        return _verify_run(run, max_findings)


def _verify_run(run: RunLog, max_findings: int | None) -> VerifyResult:
    t0 = time.perf_counter()
    c0 = time.process_time()
    lf = run.scan()
    names = lf.collect_schema().names()
    missing = [c for c in REPLAY_COLUMNS if c not in names]
    if missing:
        raise RunError(f"{run.path}: the deal log lacks column(s) {', '.join(missing)} (see DEAL_LOG.md)")
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
    rules = rules_of_run(run, variants[0] if variants else None)
    master = run.manifest.master_seed
    # A tournament log: hand j of a row's board is new_deal(rules, board_seed, board, j) (docs/tournament.md).
    has_board = "board" in names
    board_seed = run.manifest.board_seed if has_board else None
    if has_board:
        master = None  # deals come from (seed, board, hand), not (seed, game_id, hand)
    run_id = run.manifest.run_id
    result = VerifyResult(
        run=str(run.path),
        deals=small.height,
        games=small.get_column("game_id").n_unique(),
        master_seed=master,
        rules=rules.name,
        board_seed=board_seed,
    )
    findings = result.findings
    findings.extend(_structure_findings(small, rules.players, run_id))
    findings.extend(_manifest_findings(run, small))
    for v in variants:
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
    cols = [
        *REPLAY_COLUMNS,
        *(("end_reason",) if has_reason else ()),
        *(("board",) if board_seed is not None else ()),
    ]
    for batch in _batches(run, cols):
        if max_findings is not None and len(findings) >= max_findings:
            break
        batch = batch.join(prev, on=["game_id", "hand_no"], how="left")
        for row in batch.iter_rows(named=True):
            _verify_row(rules, master, row, zero, has_reason, findings, board_seed)
            result.replayed += 1
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
) -> None:
    """Check one row (see the module docstring); ``board_seed`` set: the row's deal comes from
    (``board_seed``, its ``board``, ``hand_no``) instead of (``master``, ``game_id``, ``hand_no``)."""
    deal_id = row["deal_id"]
    try:
        state = dealt_state(rules, row)
        game, hand = row["game_id"], row["hand_no"]
        source: tuple[int, int, str] | None = None
        if board_seed is not None:
            if row.get("board") is None:
                raise _Mismatch("seed", "the board column is empty on a tournament row")
            source = (board_seed, row["board"], f"board {row['board']}")
        elif master is not None:
            source = (master, game, f"game {game}")
        if source is not None:
            seed_of, key, what = source
            want = deal_seed(seed_of, key, hand)
            if row["seed"] != want:
                raise _Mismatch("seed", f"seed {row['seed']} is not the seed of {what} hand {hand} ({want})")
            want_dealer = dealer_of(seed_of, key, hand, rules.players)
            if row["dealer"] != want_dealer:
                kind = "board" if board_seed is not None else "master"
                raise _Mismatch(
                    "dealer_rotation", f"dealer {row['dealer']}, the {kind} seed gives dealer {want_dealer}"
                )
        fresh = State.deal(rules, row["seed"], row["dealer"])
        if fresh.dealt != state.dealt or fresh.kitty_dealt != state.kitty_dealt:
            seats = [s for s in range(rules.players) if fresh.dealt[s] != state.dealt[s]]
            what = f"seat(s) {', '.join(map(str, seats))}" if seats else "the kitty"
            raise _Mismatch("dealt_cards", f"the cards of {what} are not those the seed deals")
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
            raise _Mismatch("score", f"score_delta {row['score_delta']}, the engine scores {delta}")
        if list(row["score_after"] or ()) != after:
            raise _Mismatch(
                "score", f"score_after {row['score_after']}, expected {after} (from {list(before)})"
            )
        if bool(row["game_over"]) != over:
            raise _Mismatch("game_end", f"game_over is {row['game_over']}, the scores give {over}")
        if row["winner"] != winner:
            raise _Mismatch("game_end", f"winner is {row['winner']}, the scores give {winner}")
        if has_reason and row.get("end_reason") != reason:
            raise _Mismatch("game_end", f"end_reason is {row.get('end_reason')!r}, expected {reason!r}")
    except _Mismatch as exc:
        out.append(Finding(deal_id, exc.kind, exc.message))
    except (IllegalAction, KeyError, TypeError, ValueError, IndexError) as exc:  # malformed row
        out.append(Finding(deal_id, "malformed", f"{type(exc).__name__}: {exc}"))


__all__ = [
    "DealReplay",
    "Finding",
    "RunError",
    "RunLog",
    "Trick",
    "VerifyResult",
    "dealt_state",
    "open_run",
    "replay_deal",
    "rerun",
    "rules_of_run",
    "verify_run",
]
