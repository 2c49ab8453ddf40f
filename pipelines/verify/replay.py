"""One deal as a player reads it (``fivehundred replay``): the row re-run through the engine for the
seats of each call and card, printed as plain text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.schema import DealLogError, check_part_files
from fivehundred.pipelines.verify.checks import REPLAY_COLUMNS
from fivehundred.pipelines.verify.codec import Mismatch, dealt_state, rerun
from fivehundred.pipelines.verify.run import RunError, RunLog, open_run, reading, rules_of_run
from fivehundred.sim.engine import JOKER, PLAY, State
from fivehundred.sim.notation import (
    NAME_NONE,
    NAME_SUIT,
    SUITS,
    deal_place,
    game_number,
    is_joker,
    is_misere,
    split_card,
)
from fivehundred.sim.rules import Rules

#: Columns a replayed deal needs filled in (contract, declarer, discards... are null on a thrown-in deal).
_NEVER_NULL = ("game_id", "hand_no", "seed", "dealer", "hands", "kitty", "bids", "plays", "trick_winners")


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
            f"Deal id {self.deal_id}: {deal_place(self.game_id, self.hand_no)} ({self.variant}), "
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
                if out_seats and is_misere(self.contract):
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
    jokers = [c for c in cards if is_joker(c)]
    printed = [split_card(c) for c in cards if not is_joker(c)]
    for s, letter in enumerate(SUITS):
        ranks = [r for r, suit in printed if suit == s]
        parts.append(f"{letter}: {' '.join(_RANK_SHOW.get(r, r) for r in reversed(ranks)) or '-'}")
    return "  ".join(parts + jokers)


def replay_deal(run_dir: str | Path | RunLog, deal_id: int, partial: bool = False) -> DealReplay:
    """Read deal ``deal_id`` of a run and re-run it through the engine for the seats and tricks
    (a run that is not finished is refused unless ``partial``)."""
    run = open_run(run_dir, partial)
    try:  # a zero-byte or truncated part would be skipped by the scan, and its ids missed
        check_part_files(run.files, run.open, run.path, REPLAY_COLUMNS, unique_ids=False)
    except DealLogError as exc:
        raise RunError(str(exc)) from None
    with reading(run):
        df = run.scan().filter(pl.col("deal_id") == deal_id).collect()
        ids = run.scan().select(
            pl.len(), pl.col("deal_id").min().alias("lo"), pl.col("deal_id").max().alias("hi")
        )
        span = ids.collect().row(0) if df.height == 0 else (0, 0, 0)
    if df.height == 0:
        n, lo, hi = span
        raise RunError(f"{run.path}: no deal with id {deal_id} (the log has {n} deals, ids {lo}..{hi})")
    if df.height > 1:
        raise RunError(f"{run.path}: deal id {deal_id} appears {df.height} times in the log")
    row = df.row(0, named=True)
    empty = [c for c in _NEVER_NULL if row.get(c) is None] or (["hands"] if None in row["hands"] else [])
    if empty:
        raise RunError(
            f"{run.path}: deal {deal_id} has null {', '.join(empty)} in the log: it cannot be replayed"
        )
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
    except Mismatch as exc:
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


# ------------------------------------------------------------------------------------------ games


@dataclass(frozen=True)
class ReplayedDeal:
    """One deal of a game, re-run through the engine: the states a display reads views from.

    ``dealt`` is the deal before the auction (the scores before it set), ``start`` the state when the
    play starts (``None`` for a thrown-in deal), ``after_tricks[k]`` the state once trick ``k + 1``
    is complete, ``final`` the scored deal; ``result`` holds its deal-log columns (``contract``,
    ``declarer``, ``declarer_tricks``, ``score_delta``, ``score_after``, ``game_over``, ``winner``,
    ``end_reason``, ``deal_id``, ``hand_no``, ``dealer``, ``strategies``).
    """

    dealt: State
    start: State | None
    after_tricks: tuple[State, ...]
    final: State
    result: dict[str, Any]


@dataclass(frozen=True)
class GameReplay:
    """A whole game of a run, deal by deal (:func:`replay_game`); ``viewer`` is the seat the game
    is shown from (a play session's person, else seat 0)."""

    run: str
    game_id: int
    rules: Rules
    viewer: int
    deals: tuple[ReplayedDeal, ...]


def _stepped(rules: Rules, row: dict[str, Any], final: State, before: tuple[int, ...]) -> ReplayedDeal:
    """The deal's states, stepping the engine through the actions the re-run ``final`` state took."""
    st = dealt_state(rules, row)
    st.scores = before
    dealt = st.clone()
    for a in final.bids:
        st.apply(a)
    for c in final.discard_order:
        st.apply(c)
    while st.phase == JOKER:
        suit = final.jokers_named[st.naming_index]
        st.apply(NAME_NONE if suit < 0 else NAME_SUIT + suit)
    start = st.clone() if st.phase == PLAY else None
    after: list[State] = []
    for a in final.plays:
        done = st.tricks_played
        st.apply(a)
        if st.tricks_played > done:
            after.append(st.clone())
    keys = ("contract", "declarer", "declarer_tricks", "score_delta", "score_after", "game_over", "winner")
    result = {k: row[k] for k in keys}
    result.update(
        end_reason=row.get("end_reason"),
        deal_id=row["deal_id"],
        hand_no=row["hand_no"],
        dealer=row["dealer"],
        strategies=list(row.get("strategies") or ()),
    )
    return ReplayedDeal(dealt, start, tuple(after), st, result)


def replay_game(run_dir: str | Path | RunLog, game_id: int, partial: bool = False) -> GameReplay:
    """Every deal of the log's game ``game_id`` (game ``game_id + 1`` as a person counts,
    :func:`~sim.notation.game_number`) of a run, in order, re-run through the engine (each deal must
    replay as logged: :class:`RunError` otherwise, or for a game the log does not hold; a run that is
    not finished is refused unless ``partial``)."""
    run = open_run(run_dir, partial)
    try:
        check_part_files(run.files, run.open, run.path, REPLAY_COLUMNS, unique_ids=False)
    except DealLogError as exc:
        raise RunError(str(exc)) from None
    with reading(run):
        df = run.scan().filter(pl.col("game_id") == game_id).sort("hand_no").collect()
        span = (0, 0, 0)
        if df.height == 0:
            g = pl.col("game_id")
            ids = run.scan().select(g.n_unique().alias("n"), g.min().alias("lo"), g.max().alias("hi"))
            span = ids.collect().row(0)
    if df.height == 0:
        n, lo, hi = span
        held = f"games {game_number(lo)}..{game_number(hi)}" if n > 1 else f"game {game_number(lo)}"
        held = "no game" if n == 0 else held
        raise RunError(f"{run.path}: no game {game_number(game_id)} (the log has {held})")
    rows = df.rows(named=True)
    hands_no = [r["hand_no"] for r in rows]
    if hands_no != list(range(len(rows))):
        raise RunError(
            f"{run.path}: game {game_number(game_id)} has hand_no {hands_no}, not 0..{len(rows) - 1} in order"
        )
    rules = rules_of_run(run, rows[0].get("variant"))
    human = run.manifest.extra.get("human_seat") if run.manifest.extra else None
    viewer = human if isinstance(human, int) and 0 <= human < rules.players else 0
    deals = []
    before: tuple[int, ...] = (0,) * rules.teams
    for row in rows:
        empty = [c for c in _NEVER_NULL if row.get(c) is None]
        if empty:
            raise RunError(
                f"{run.path}: deal {row['deal_id']} has null {', '.join(empty)} in the log: cannot replay it"
            )
        try:
            final = rerun(rules, row).state
            deals.append(_stepped(rules, row, final, before))
        except Mismatch as exc:
            raise RunError(
                f"{run.path}: deal {row['deal_id']} does not replay as logged: {exc.message}"
            ) from None
        before = tuple(row["score_after"] or before)
    return GameReplay(str(run.path), game_id, rules, viewer, tuple(deals))
