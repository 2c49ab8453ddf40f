"""A person in one seat against the bots: the game loop behind ``fivehundred play``.

:func:`play_session` plays whole games with the engine's API (``State.legal_actions``, ``apply``,
``view``; :func:`sim.game.new_deal` and :func:`sim.game.settle`), asking each seat's strategy for its
actions with the same seeded RNGs as :func:`sim.game.play_game`.  The person's seat is a
:class:`HumanSeat`: a strategy adapter whose every decision calls ``ask(view, legal)`` with that
seat's :class:`~sim.engine.SeatView`.  What happens at the table is reported to ``observe`` as
:class:`PlayEvent` objects that carry only what the person's seat may know (others' discards and
joker namings are withheld; the view is always the person's own), so a display built on them cannot
show a hidden card.  Rendering is the CLI's business (``cli/display.py``).

The deal log is a normal one: when a game ends its rows are made by :func:`sim.game.play_game`
itself, replaying every seat's decisions (so the columns are exactly those simulate writes), turned
into a table by :func:`pipelines.schema.records_to_table` and written as one part file per game with
:class:`pipelines.rundir.RunDir`, the :class:`~pipelines.rundir.Manifest` (kind ``play``) rewritten
after each game.  ``fivehundred replay``,
``verify`` and ``analyze`` read it like any run.

The session ends when the games are played or when ``ask`` raises :class:`StopPlay` (end of
input): the unfinished game is dropped and the log keeps every finished game (a game cut in the
middle would not verify: its last deal has no ``game_over``).  Any other exception (a bad input
line, Ctrl-C) also leaves the finished games and a manifest marked ``stopped``, then propagates.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from fivehundred.pipelines.runconfig import (
    MAX_SEED,
    RunConfigError,
    SeatSpec,
    identity_hash,
    jsonable,
    rows_identity,
)
from fivehundred.pipelines.rundir import Manifest, RunDir, encode_parquet, package_versions
from fivehundred.pipelines.schema import records_to_table
from fivehundred.sim.engine import AUCTION, JOKER, KITTY, PLAY, State
from fivehundred.sim.errors import StrategyError, UserError
from fivehundred.sim.game import DEAL_LIMIT, new_deal, play_game, settle
from fivehundred.sim.notation import deal_place, game_number
from fivehundred.sim.rng import NoRng, Rng
from fivehundred.sim.rules import Rules, load_rules
from fivehundred.sim.seeding import bot_rng
from fivehundred.sim.view import SeatView

#: The strategy id of the person's seat in the deal log and the manifest.
HUMAN_LABEL: Final = "human.v1"
#: The manifest's ``kind`` of a play session's run directory (simulate's is ``simulation``).
PLAY_KIND: Final = "play"
#: The bots' strategy when none is given.
DEFAULT_BOT: Final = "heuristic"

Ask = Callable[[SeatView, tuple[int, ...]], int]


class PlayError(UserError, ValueError):
    """A bad argument of a play session (seat, strategies, games, run directory)."""


class StopPlay(Exception):
    """Raised by an ``ask`` callback to end the session now (e.g. at the end of its input)."""


class HumanSeat:
    """A strategy adapter for a person: every decision is ``ask(view, legal)``.

    ``ask`` gets the seat's own view and the legal actions and returns one of them (or raises
    :class:`StopPlay`).  It needs no RNG (``uses_rng = False``).
    """

    name = HUMAN_LABEL
    uses_rng = False

    def __init__(self, ask: Ask) -> None:
        self.ask = ask

    def _decide(self, view: SeatView, legal: Sequence[int]) -> int:
        legal = tuple(legal)
        action = self.ask(view, legal)
        if action not in legal:
            raise ValueError(f"ask() returned {action!r}, not one of the legal actions")
        return action

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """An auction call chosen by the person."""
        return self._decide(view, legal)

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """One card to throw out of the hand and kitty."""
        return self._decide(view, legal)

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The suit named for the joker (or none)."""
        return self._decide(view, legal)

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """A card (or a joker lead naming a suit)."""
        return self._decide(view, legal)


class _Replayed:
    """Plays back one seat's recorded decisions, in order (to let ``play_game`` make the records)."""

    uses_rng = False

    def __init__(self, actions: Sequence[int], label: str) -> None:
        self.name = label
        self.actions = list(actions)
        self.used = 0

    def _next(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        action = self.actions[self.used]
        self.used += 1
        return action

    bid = discard = name_joker = play = _next


# ------------------------------------------------------------------------------------------ events


@dataclass(frozen=True)
class PlayEvent:
    """Something that happened at the table, as the person's seat may know it.

    ``kind`` is one of:

    - ``deal``: a deal was dealt (``view`` shows the person's hand, the dealer, the scores);
    - ``action``: ``seat`` made ``action`` in ``phase`` (``action`` is ``None`` when it is hidden
      from the person: another seat's discard or joker naming);
    - ``play_starts``: the auction, kitty and joker naming are over (contract, namings public);
    - ``trick``: trick ``number`` is complete: ``cards`` are its (seat, action) in play order,
      ``seat`` its winner;
    - ``deal_done``: the deal is scored: ``result`` holds its deal-log columns (``contract``,
      ``declarer``, ``declarer_tricks``, ``score_delta``, ``score_after``, ``game_over``,
      ``winner``, ``end_reason``, ``game_id``, ``hand_no``, ``dealer``);
    - ``game_done``: the game is over (``result`` as for its last deal).

    ``view`` is live (it follows the deal as it goes on): read it when the event arrives.
    """

    kind: str
    view: SeatView
    game_id: int
    seat: int = -1
    action: int | None = None
    phase: int = -1
    number: int = 0
    cards: tuple[tuple[int, int], ...] = ()
    result: dict[str, Any] = field(default_factory=dict)


Observe = Callable[[PlayEvent], None]


# ------------------------------------------------------------------------------------------ config


def other_seats(rules: Rules, seat: int) -> tuple[int, ...]:
    """The seats ``--strategies`` names, in its order: partners, then opponents, each clockwise
    from the person's left (4 players: partner, left, right; 3 players: left, right)."""
    n, teams = rules.players, rules.teams
    clockwise = [(seat + k) % n for k in range(1, n)]
    partners = [s for s in clockwise if s % teams == seat % teams]
    return tuple(partners + [s for s in clockwise if s % teams != seat % teams])


@dataclass(frozen=True)
class PlayConfig:
    """A validated play session.  Build it with :func:`make_play_config`."""

    rules: Rules
    variant: str
    seat: int
    bots: tuple[SeatSpec, ...]  # one per other seat, in :func:`other_seats` order
    seed: int
    games: int
    out: str

    def seat_specs(self) -> list[SeatSpec | None]:
        """One entry per seat in seat order: the bot's spec, ``None`` for the person."""
        specs: list[SeatSpec | None] = [None] * self.rules.players
        for s, spec in zip(other_seats(self.rules, self.seat), self.bots, strict=True):
            specs[s] = spec
        return specs

    @property
    def labels(self) -> list[str]:
        """The strategy id of each seat as the log writes it."""
        return [spec.label if spec is not None else HUMAN_LABEL for spec in self.seat_specs()]

    def identity(self) -> dict[str, Any]:
        """What defines the session's games (with the person's choices): its run id is a hash of it."""
        specs = [
            [s.spec, jsonable(dict(s.params))] if s is not None else ["human", {}] for s in self.seat_specs()
        ]
        return {
            "kind": "play",
            **rows_identity(self.rules, list(self.labels), specs, self.seed, self.games),
            "human_seat": self.seat,
        }

    @property
    def run_id(self) -> str:
        """A deterministic id of the session's config (as simulate's run ids are)."""
        return identity_hash(self.identity())


def make_play_config(
    variant: str = "pagat-au",
    seat: int = 0,
    strategies: str | Sequence[str] | None = None,
    seed: int = 0,
    games: int = 1,
    out: str | None = None,
) -> PlayConfig:
    """Validate a session: ``strategies`` is one bot for every other seat, or one per other seat in
    :func:`other_seats` order (a comma-separated string or a list); default :data:`DEFAULT_BOT`.
    ``out`` defaults to ``runs/play-SEED``."""
    rules = load_rules(variant)
    n = rules.players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise PlayError(f"seat {seat!r}: {rules.name} has seats 0..{n - 1}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise PlayError(f"seed {seed!r}: must be between 0 and {MAX_SEED}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise PlayError(f"games {games!r}: must be at least 1")
    if out is None:
        out = f"runs/play-{seed}"
    if not str(out).strip():
        raise PlayError("out: give a run directory")
    if strategies is None:
        items = [DEFAULT_BOT]
    elif isinstance(strategies, str):
        from fivehundred.strategies.base import split_specs

        items = split_specs(strategies)
    else:
        items = list(strategies)
    if len(items) == 1:
        items = items * (n - 1)
    if len(items) != n - 1:
        order = "partner,left,right" if n == 4 else f"{n - 1} bots: partners, then opponents, from your left"
        raise PlayError(f"strategies: {len(items)} given; give 1 (every bot) or {n - 1} ({order})")
    try:
        bots = tuple(SeatSpec.parse(v, "strategies") for v in items)
    except RunConfigError as exc:
        raise PlayError(str(exc)) from None
    return PlayConfig(rules, variant, seat, bots, seed, games, str(out))


# ------------------------------------------------------------------------------------------ the log


@dataclass
class PlayResult:
    """What a session left: its run directory and id, finished games and deals, and why it ended."""

    run_dir: str
    run_id: str
    seed: int
    games: int = 0
    deals: int = 0
    #: ``complete`` (every game played) or ``stopped`` (input ended or the session was interrupted).
    status: str = "complete"
    #: The game and hand the session stopped in (its unfinished game is not in the log).
    stopped_at: tuple[int, int] | None = None
    #: Each finished game's last-deal result (deal-log columns).
    results: list[dict[str, Any]] = field(default_factory=list)


class _Log:
    """The session's run directory: one part file per finished game, the manifest after each."""

    def __init__(self, config: PlayConfig, overwrite: bool) -> None:
        self.config = config
        self.store = RunDir(config.out)
        self.made_folder = self.store.local and not self.store.exists()
        self.store.lock()
        try:
            existing = self.store.read_manifest()
            if existing is not None or self.store.has_foreign_parts():
                if not overwrite:
                    raise PlayError(
                        f"{self.store.display} already holds a run; use --overwrite or another --out"
                    )
                self.store.clear()
        except BaseException:
            self.store.unlock()
            raise
        self.manifest = self._new_manifest()
        self.store.write_manifest(self.manifest)

    def _new_manifest(self) -> Manifest:
        c = self.config
        seats = []
        for s, spec in enumerate(c.seat_specs()):
            if spec is None:
                who = {
                    "spec": "human",
                    "params": {},
                    "label": HUMAN_LABEL,
                    "name": HUMAN_LABEL,
                    "version": "v1",
                    "class": f"{HumanSeat.__module__}:{HumanSeat.__qualname__}",
                }
            else:
                who = spec.describe()
            seats.append({"seat": s, **who})
        return Manifest(
            kind=PLAY_KIND,
            run_id=c.run_id,
            status="playing",
            identity=c.identity(),
            config={
                "variant": c.variant,
                "seat": c.seat,
                "strategies": [s.label for s in c.bots],
                "seed": c.seed,
                "games": c.games,
            },
            variant=c.rules.name,
            rules=jsonable(c.rules.as_dict()),
            strategies=seats,
            master_seed=c.seed,
            versions=package_versions(),
            extra={"human_seat": c.seat},
        )

    def add_game(self, game_id: int, records: list[dict[str, Any]]) -> None:
        """Write one finished game as part file ``game_id`` and record it in the manifest."""
        m = self.manifest
        first = m.totals["deals"]
        table = records_to_table(records, self.config.run_id, first)
        rel = self.store.write_part(game_id, encode_parquet(table))
        m.chunks.append(
            {
                "index": game_id,
                "games": [game_id, game_id + 1],
                "deals": len(records),
                "first_deal_id": first,
                "file": rel,
                "status": "done",
            }
        )
        m.totals = {"deals": first + len(records), "games": game_id + 1, "chunks": len(m.chunks)}
        self.store.write_manifest(m)

    def close(self, status: str) -> None:
        """Record how the session ended and release the directory; a session that finished no game
        leaves nothing behind (no manifest, and no folder if it made it), so the same command runs
        again."""
        try:
            if self.manifest.chunks:
                self.manifest.status = status
                self.store.write_manifest(self.manifest)
            else:
                self.store.clear()
        finally:
            with contextlib.suppress(OSError):
                self.store.clean_tmp()
            self.store.unlock()
            if self.made_folder and not self.manifest.chunks:
                with contextlib.suppress(OSError):
                    os.rmdir(self.store.root)


# ------------------------------------------------------------------------------------------ the loop


#: Auction calls and plays are public; another seat's discards and joker namings are not.
_PUBLIC_PHASES: Final = frozenset({AUCTION, PLAY})


def _decide(
    strategy: Any, label: str, seat: int, state: State, view: SeatView, rng: Rng, game_id: int
) -> int:
    """One decision of a seat's strategy; a bot's failure or illegal answer is a StrategyError."""
    legal = state.legal_actions()
    method = (strategy.bid, strategy.discard, strategy.name_joker, strategy.play)[state.phase]
    if isinstance(strategy, HumanSeat):
        return method(view, legal, rng)  # StopPlay and input errors pass through untouched
    try:
        action = method(view, legal, rng)
    except Exception as exc:
        raise StrategyError(
            f"strategy '{label}' (seat {seat}) raised {type(exc).__name__}: {exc} "
            f"in {deal_place(game_id, state.hand_no)}"
        ) from exc
    if action not in legal:
        raise StrategyError(
            f"strategy '{label}' (seat {seat}) returned illegal action {action!r} "
            f"in {deal_place(game_id, state.hand_no)}"
        )
    return action


def _play_game(
    config: PlayConfig,
    seats: list[Any],
    game_id: int,
    observe: Observe,
    where: list[int],
) -> list[dict[str, Any]]:
    """Play one game interactively; return its deal-log records (made by ``play_game``)."""
    rules, me, labels = config.rules, config.seat, config.labels
    n = rules.players
    scores = [0] * rules.teams
    decisions: list[list[int]] = [[] for _ in range(n)]
    needs_rng = [getattr(s, "uses_rng", True) for s in seats]
    results: list[dict[str, Any]] = []
    for hand_no in range(rules.deal_limit):
        where[:] = [game_id, hand_no]
        state, seed = new_deal(rules, config.seed, game_id, hand_no)
        state.scores = tuple(scores)
        mine = state.view(me)
        rngs = [bot_rng(seed, s) if needs_rng[s] else NoRng() for s in range(n)]
        observe(PlayEvent("deal", mine, game_id))
        while not state.done:
            seat, phase = state.turn, state.phase
            rng = rngs[seat]
            fork = rng.fork()  # as sim.game.play_deal draws a bot's numbers
            action = _decide(seats[seat], labels[seat], seat, state, state.view(seat), fork, game_id)
            rng.follow(fork)
            tricks_before = state.tricks_played
            state.apply(action)
            decisions[seat].append(action)
            public = seat == me or phase in _PUBLIC_PHASES
            mine = state.view(me)  # a view is a snapshot: a fresh one after every action
            observe(PlayEvent("action", mine, game_id, seat, action if public else None, phase))
            if phase in (AUCTION, KITTY, JOKER) and state.phase == PLAY:
                observe(PlayEvent("play_starts", mine, game_id))
            if phase == PLAY and state.tricks_played > tricks_before:
                per = sum(state.active)
                cards = mine.plays[-per:]
                winner = mine.trick_winners[-1]
                observe(PlayEvent("trick", mine, game_id, winner, number=state.tricks_played, cards=cards))
        mine = state.view(me)
        delta, scores, over, winner, reason = settle(rules, scores, state)
        if not over and hand_no == rules.deal_limit - 1:
            over, reason = True, DEAL_LIMIT
        result = {
            "game_id": game_id,
            "hand_no": hand_no,
            "dealer": state.dealer,
            "contract": state.contract.code if state.contract is not None else None,
            "declarer": state.declarer if state.contract is not None else None,
            "declarer_tricks": state.declarer_tricks(),
            "score_delta": delta,
            "score_after": list(scores),
            "game_over": over,
            "winner": winner,
            "end_reason": reason,
        }
        results.append(result)
        observe(PlayEvent("deal_done", mine, game_id, result=result))
        if over:
            break
    replayed = [_Replayed(decisions[s], labels[s]) for s in range(n)]
    records = play_game(rules, replayed, config.seed, game_id, labels)
    # The log must say what the table saw (a difference is a bug here, not the person's doing).
    same = len(records) == len(results) and all(
        all(rec[k] == v for k, v in res.items()) for rec, res in zip(records, results, strict=False)
    )
    if not same or any(r.used != len(r.actions) for r in replayed):
        raise RuntimeError(
            f"game {game_number(game_id)}: replaying the decisions through play_game gave other deals"
        )
    observe(PlayEvent("game_done", mine, game_id, result=results[-1]))
    return records


def play_session(
    config: PlayConfig,
    ask: Ask,
    observe: Observe | None = None,
    overwrite: bool = False,
) -> PlayResult:
    """Play ``config.games`` games with a person in ``config.seat`` and write their deal log.

    ``ask(view, legal)`` chooses the person's actions; ``observe(event)`` (optional) is told of every
    :class:`PlayEvent`.  Games are numbered 0..games-1 and dealt from ``config.seed`` as simulate
    deals them; bots get simulate's per-seat RNGs, so the same seed and the same choices give the
    same log, byte for byte.  ``overwrite`` replaces a run already in ``config.out`` (refused
    otherwise).  Returns a :class:`PlayResult`; see the module docstring for how a session stops.
    """
    watch = observe or (lambda event: None)
    specs = config.seat_specs()
    seats: list[Any] = [spec.build(config.rules) if spec is not None else HumanSeat(ask) for spec in specs]
    log = _Log(config, overwrite)
    result = PlayResult(log.store.display, config.run_id, config.seed)
    where = [0, 0]
    status = "stopped"
    try:
        for game_id in range(config.games):
            records = _play_game(config, seats, game_id, watch, where)
            log.add_game(game_id, records)
            result.games += 1
            result.deals += len(records)
            last = records[-1]
            result.results.append({k: last[k] for k in ("score_after", "winner", "end_reason")})
        status = "complete"
    except StopPlay:
        result.stopped_at = (where[0], where[1])
    finally:
        result.status = status
        log.close(status)
    return result


__all__ = [
    "DEFAULT_BOT",
    "HUMAN_LABEL",
    "HumanSeat",
    "PlayConfig",
    "PlayError",
    "PlayEvent",
    "PlayResult",
    "StopPlay",
    "make_play_config",
    "other_seats",
    "play_session",
]
