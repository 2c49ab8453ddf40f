"""A full-information reference: a bot that sees every hand and the kitty, in a duplicate match.

How far does a player with FULL information get in the ladder's duplicate match (the tournament
module's :func:`~pipelines.tournament.duplicate.play_duplicate`: deal pairs, the interval clustered
by board, ``--breakdown``)?  A ceiling for an honest bot, which sees only its seat's view.  The
oracle is a benchmark object only: it is not registered as a strategy, and no spec of the registry
builds it; the match builds it through a :class:`~pipelines.tournament.schedule.Seating`.

How it learns the deal: :func:`play_game_seen` is :func:`sim.game.play_game` with its ``on_deal``
hook, handing each new deal's live :class:`~sim.engine.State` to every bot with a ``see`` method
before the deal is played.  The other bots get exactly what ``play_game`` gives
them (``--sanity`` checks that the records are the same and that a bot against itself through
this loop gives 0 in every deal pair).

What the :class:`Oracle` does with the true deal (DD = :mod:`sim.dd` on the true hands, valued in
points by :func:`strategies.expert.side_points`: the declaring side's points minus the defenders'):

- play: every card decision is :func:`~sim.dd.move_values` of the true position; the card of best
  points for its side, ``heuristic.v2``'s card on ties;
- discard: ``heuristic.v2``'s; joker naming: the naming of best DD points from the opening lead
  (``heuristic.v2``'s on ties);
- bidding: every legal bid is valued as if it were the contract: the oracle takes the TRUE kitty,
  discards as ``heuristic.v2``, names as above, DD from the opening lead.  Passing is worth the held
  contract's value (an opponent's: minus its value to them; the side's own: its value), or 0 when
  nobody has bid yet (the hand taken as thrown in).  The best-valued call is made (ties: pass, then
  the cheapest bid).  ``--a oracle-play`` bids as ``heuristic.v2`` instead: full information in the
  play, naming and discard only.

Approximations (it is a reference, not a product): one DD solve per denomination and declarer, at
the cheapest legal level, serves every level of it (``heuristic.v2``'s discard depends on the trump,
not on the level); the game score is ignored (a contract that would win the game is worth its points
only); the auction is not looked ahead (no thought of overcalls, of the partner's later calls, or of
what the opponents would bid after a pass); DD assumes perfect defence by the other side.

    python benchmarks/oracle.py --pairs 2000 --seed 2026 --workers 2 --breakdown
    python benchmarks/oracle.py --a oracle-play --pairs 500 --seed 2026 --workers 2   # v2's bidding
    python benchmarks/oracle.py --sanity --pairs 200 --seed 2026   # heuristic.v1 through the loop: 0
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from fivehundred.pipelines.tournament import InProcessExecutor, RayExecutor, TournamentConfig
from fivehundred.pipelines.tournament.config import Entry
from fivehundred.pipelines.tournament.duplicate import (
    DuplicateResult,
    breakdown_lines,
    match_config,
    match_line,
    play_duplicate,
)
from fivehundred.pipelines.tournament.executors import Executor
from fivehundred.pipelines.tournament.schedule import Seating, build_entry
from fivehundred.sim import load_rules, play_game
from fivehundred.sim.dd import Position, dd_tricks, move_values
from fivehundred.sim.engine import BID, JOKER, KITTY, PASS, PLAY, State
from fivehundred.sim.errors import UserError
from fivehundred.sim.rng import NoRng, Rng
from fivehundred.sim.rules import Bid, Rules
from fivehundred.sim.view import SeatView
from fivehundred.strategies.base import check_spec, make
from fivehundred.strategies.expert import side_points
from fivehundred.strategies.heuristic2 import Heuristic2Strategy

#: The spec of the :class:`Oracle` (this script's only: not the registry's).
ORACLE = "oracle"
#: The oracle that bids as ``heuristic.v2`` (full information in the discard, naming and play only).
ORACLE_PLAY = "oracle-play"


class Oracle:
    """A player that reads the true :class:`State` of the deal (handed to :meth:`see`) and plays,
    names and bids by DD on it; see the module docstring."""

    uses_rng = False
    asked_when_forced = False

    def __init__(self, dd_bidding: bool = True) -> None:
        """A fresh oracle: no deal seen yet; ``dd_bidding`` False bids as ``heuristic.v2``."""
        self.dd_bidding = dd_bidding
        self.name = ORACLE if dd_bidding else ORACLE_PLAY
        self.base = Heuristic2Strategy()  # its own discard and the tie-breaks of the real decisions
        self.model = Heuristic2Strategy()  # the discard of a contract valued in the bidding
        self.state: State | None = None
        #: DD tricks of the deal by (denomination or misère code, declarer).
        self.solved: dict[tuple[Any, int], int] = {}

    def see(self, state: State) -> None:
        """The live state of the deal about to be played (read at every decision, never changed)."""
        self.state = state
        self.solved = {}

    def _true(self, view: SeatView) -> State:
        st = self.state
        if st is None or st.turn != view.seat or st.hands[view.seat] != view.hand:
            raise RuntimeError("the oracle was not shown the state of the deal it is asked about")
        return st

    # ---------------------------------------------------------------- valuation

    def tricks(self, code: str, declarer: int) -> int:
        """The declaring side's DD tricks (misère: 0 made, 1 failed) of the true deal when
        ``declarer`` plays ``code``: it takes the true kitty, discards as ``heuristic.v2``, names
        the joker by :meth:`best_naming`, and the deal is solved from the opening lead.  Cached per
        denomination (misère: per code) and declarer."""
        true = self.state
        assert true is not None
        rules = true.rules
        bid = rules.bid(code)
        key = (code if bid.misere else bid.trump, declarer)
        hit = self.solved.get(key)
        if hit is not None:
            return hit
        st = State(rules, list(true.dealt), true.kitty_dealt, true.dealer)
        st.scores = true.scores
        st.hand_no = true.hand_no
        st.force_contract(code, declarer)
        quiet = NoRng()  # heuristic.v2 draws nothing
        while st.phase == KITTY:
            st.apply(self.model.discard(st.view(declarer), st.legal_actions(), quiet))
        while st.phase == JOKER:
            st.apply(self.best_naming(st, self.model))
        assert st.phase == PLAY
        hit = self.solved[key] = dd_tricks(Position.from_state(st))
        return hit

    def best_naming(self, st: State, bot: Any) -> int:
        """The joker naming of best DD points for the declarer of ``st`` (at a naming decision),
        ``bot``'s naming on ties; a later joker of the same hand is named as ``bot`` names it."""
        rules = st.rules
        contract = st.contract
        assert contract is not None
        legal = st.legal_actions()
        quiet = NoRng()
        default = int(bot.name_joker(st.view(st.declarer), legal, quiet))
        if len(legal) == 1:
            return default
        values: dict[int, float] = {}
        for a in legal:
            nxt = st.clone()
            nxt.apply(a)
            while nxt.phase == JOKER:
                nxt.apply(bot.name_joker(nxt.view(nxt.declarer), nxt.legal_actions(), quiet))
            values[a] = side_points(rules, contract, dd_tricks(Position.from_state(nxt)))
        best = default
        for a in legal:
            if values[a] > values[best] + 1e-9:
                best = a
        return best

    def contract_value(self, bid: Bid, declarer: int, seat: int) -> float:
        """``bid``'s DD points by ``declarer`` on the true deal, for ``seat``'s side."""
        rules = self.state.rules if self.state is not None else None
        assert rules is not None
        v = side_points(rules, bid, self.tricks(bid.code, declarer))
        return v if declarer % rules.teams == seat % rules.teams else -v

    # ---------------------------------------------------------------- decisions

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The call of best DD value on the true deal (module docstring); pass, then the cheapest
        bid, on ties."""
        self._true(view)
        if not self.dd_bidding:
            return int(self.base.bid(view, legal, rng))
        rules: Rules = view.rules
        seat = view.seat
        held = view.high_bid
        pass_v = 0.0 if held is None else self.contract_value(held, view.high_bidder, seat)
        best, best_v = (PASS, pass_v) if PASS in legal else (legal[0], -1e18)
        for a in legal:
            if a == PASS:
                continue
            v = self.contract_value(rules.ladder[a - BID], seat, seat)
            if v > best_v + 1e-9:
                best, best_v = a, v
        return best

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """``heuristic.v2``'s discard."""
        return int(self.base.discard(view, legal, rng))

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The naming of best DD points on the true deal (:meth:`best_naming`)."""
        return self.best_naming(self._true(view), self.base)

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """The card of best DD points for the oracle's side on the true deal; ``heuristic.v2``'s
        card on ties."""
        st = self._true(view)
        rules = st.rules
        contract = st.contract
        assert contract is not None
        default = int(self.base.play(view, legal, rng))
        values = move_values(Position.from_state(st))
        sign = 1.0 if view.seat % rules.teams == st.declarer % rules.teams else -1.0
        best, best_v = default, sign * side_points(rules, contract, values[default])
        for a in legal:
            v = sign * side_points(rules, contract, values[a])
            if v > best_v + 1e-9:
                best, best_v = a, v
        return best


ORACLES = (ORACLE, ORACLE_PLAY)


def build(config: TournamentConfig, entry: Entry, rules: Rules) -> Any:
    """:class:`Oracle` for ``oracle`` (``oracle-play``: bidding as heuristic.v2), else the registry's
    bot of the entry."""
    if entry.strategy in ORACLES:
        return Oracle(dd_bidding=entry.strategy == ORACLE)
    return build_entry(config, entry, rules)


def play_game_seen(
    rules: Rules, strategies: Sequence[Any], *args: Any, **kwargs: Any
) -> list[dict[str, Any]]:
    """:func:`sim.game.play_game` (the same arguments), with every strategy that has a ``see``
    method shown each new deal's state before it is played (``play_game``'s ``on_deal``)."""
    seers = [s.see for s in {id(s): s for s in strategies if hasattr(s, "see")}.values()]

    def show(state: State) -> None:
        for see in seers:
            see(state)

    return play_game(rules, strategies, *args, **kwargs, on_deal=show)


#: The match's seating: the oracle buildable, every game played through :func:`play_game_seen`.
SEEN = Seating(build=build, play=play_game_seen)


def oracle_match(
    variant: str, spec_a: str, spec_b: str, pairs: int, seed: int, executor: Executor
) -> DuplicateResult:
    """A duplicate match of ``spec_a`` against ``spec_b`` (either may be an oracle) through :data:`SEEN`."""
    labels = tuple(s if s in ORACLES else check_spec(s)[2] for s in (spec_a, spec_b))
    config = match_config(variant, spec_a, spec_b, seed, pairs, labels=(labels[0], labels[1]))
    return play_duplicate(config, pairs, executor, SEEN)


def same_records(variant: str, spec: str, master_seed: int, games: int) -> int:
    """Check that :func:`play_game_seen` gives exactly :func:`sim.game.play_game`'s records with
    ``spec`` in every seat for games ``0 .. games - 1``; returns the number of deals compared."""
    rules = load_rules(variant)
    deals = 0
    for g in range(games):
        mine = play_game_seen(rules, [make(spec) for _ in range(rules.players)], master_seed, g)
        theirs = play_game(rules, [make(spec) for _ in range(rules.players)], master_seed, g)
        if mine != theirs:
            raise AssertionError(f"game {g}: the seen loop's records differ from play_game's")
        deals += len(mine)
    return deals


def main(argv: list[str] | None = None) -> int:
    """Play the oracle's duplicate match (or the sanity check) and print it."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--pairs", type=int, default=1000, help="deal pairs (default 1000)")
    ap.add_argument("--b", default="heuristic.v1", help="the other team's bot (default heuristic.v1)")
    ap.add_argument(
        "--a",
        default=ORACLE,
        choices=ORACLES,
        help="the oracle: DD bidding (default) or oracle-play (heuristic.v2's bidding)",
    )
    ap.add_argument("--workers", type=int, default=1, help="processes (2+: Ray)")
    ap.add_argument("--breakdown", action="store_true", help="points per deal by kind of contract")
    ap.add_argument(
        "--sanity",
        action="store_true",
        help="instead: --b through this loop against itself (0 in every deal pair), and its records "
        "against play_game's",
    )
    args = ap.parse_args(argv)
    try:
        rules = load_rules(args.variant)
        check_spec(args.b)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if rules.teams != 2:
        print(
            f"error: --variant {args.variant}: the oracle plays partnership tables (two teams)",
            file=sys.stderr,
        )
        return 2
    executor = RayExecutor(args.workers) if args.workers > 1 else InProcessExecutor()
    print(f"variant {args.variant}, master seed {args.seed}, workers {args.workers}")
    if args.sanity:
        deals = same_records(args.variant, args.b, args.seed, 20)
        print(f"records of play_game_seen == play_game's: {deals} deals of 20 games ({args.b})")
        r = oracle_match(args.variant, args.b, args.b, args.pairs, args.seed, executor)
        nonzero = sum(1 for board in r.boards for v in board.values if v)
        print(match_line(r), f"| deal pairs not 0: {nonzero}", flush=True)
        return 0 if nonzero == 0 else 1
    r = oracle_match(args.variant, args.a, args.b, args.pairs, args.seed, executor)
    print(match_line(r), f"| {r.seconds:.1f} s", flush=True)
    if args.breakdown:
        print("\n".join(breakdown_lines(r)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
