"""Whole games: deals in sequence, the dealer rotating, scores settled (RULES.md section 10).

:func:`play_game` plays one game with one strategy object per seat and returns one record (a dict
with the deal-log columns of ``docs/deal-log.md`` except the run-level ``schema_version``, ``run_id``
and ``deal_id``) per deal.  The engine knows nothing of Ray or Parquet: the pipelines add the run
columns and write the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from fivehundred.sim.cards import bits
from fivehundred.sim.engine import AUCTION, DONE, ENGINE_VERSION, JOKER, KITTY, PLAY, State
from fivehundred.sim.errors import StrategyError
from fivehundred.sim.notation import action_name, action_names, deal_place, joker_suit_text
from fivehundred.sim.rng import NoRng, Rng
from fivehundred.sim.seeding import bot_rng, deal_seed, dealer_of, first_dealer
from fivehundred.sim.view import BlankView, SeatView

if TYPE_CHECKING:
    from fivehundred.sim.rules import Rules

#: How a game ended, in the ``end_reason`` column.
REACHED_WIN: Final = "reached_500"
FELL_TO_LOSS: Final = "fell_to_-500"
DEAL_LIMIT: Final = "deal_limit"
#: Every ``end_reason``, in the order the tables show them.
END_REASONS: Final = (REACHED_WIN, FELL_TO_LOSS, DEAL_LIMIT)


_NO_RNG: Final = NoRng()


def settle(
    rules: Rules, scores: Sequence[int], state: State
) -> tuple[list[int], list[int], bool, int | None, str | None]:
    """Apply a finished deal to the game scores.

    Returns ``(delta, new_scores, game_over, winner, end_reason)``; ``delta`` is what each team
    really gained, after the defensive cap when the rules have one.
    """
    delta = list(state.score_delta or ())
    teams = rules.teams
    if state.contract is None:
        return delta, list(scores), False, None, None
    dteam = state.declarer % teams
    cap = rules.defensive_cap
    if cap is not None:
        for t in range(teams):
            if t != dteam and delta[t] > 0:
                delta[t] = min(scores[t] + delta[t], max(scores[t], cap)) - scores[t]
    new = [s + d for s, d in zip(scores, delta, strict=True)]
    if delta[dteam] > 0 and new[dteam] >= rules.win_score:
        return delta, new, True, dteam, REACHED_WIN
    if rules.lose_at_minus_500:
        losers = [t for t in range(teams) if new[t] <= rules.lose_score]
        if losers:
            others = [t for t in range(teams) if t not in losers]
            # Highest score wins.  A tie (3-player game, where team = seat) goes to the tied player
            # who spoke first in this deal's auction (nearest the dealer's left): the first dealer
            # is random and the deal rotates, so no seat is favoured (docs/tables.md).
            n, d = rules.players, state.dealer
            winner = max(others, key=lambda t: (new[t], -((t - d - 1) % n))) if others else None
            return delta, new, True, winner, FELL_TO_LOSS
    return delta, new, False, None, None


def play_deal(
    state: State,
    strategies: Sequence[Any],
    rngs: Sequence[Rng],
    game_id: int = 0,
    labels: Sequence[str] | None = None,
) -> None:
    """Play a dealt state to the end, asking each seat's strategy for its actions.

    A strategy that raises or answers an action outside the legal ones raises
    :class:`StrategyError` naming the bot, the seat, the game and the hand.
    The seat to act gets a fresh :class:`~sim.engine.SeatView` snapshot at every decision, and its
    own generator taken out of ``rngs`` for the decision (its entry is ``None`` meanwhile and is put
    back after), so nothing it is handed is held by the runner: no list of every seat's views or
    generators to find with ``gc.get_referrers``.  ``rngs`` should be a list made for this deal,
    with a generator per seat that nothing else refers to (as :func:`play_game` makes it); another
    sequence is copied into a list first.  A strategy that declares ``asked_when_forced = False``
    is not asked when only one action is legal: the runner takes it (no view, no call).
    """
    _play_deal(state, strategies, _seat_plan(strategies), rngs, game_id, labels)


def play_out(
    state: State, choose: Callable[[State], int], until: Callable[[State], bool] | None = None
) -> State:
    """Play ``state`` on, in place, until the deal is done (or ``until(state)`` holds): at each step
    ``choose(state)`` names one of ``state.legal_actions()``.  Returns ``state``.

    The one play-to-the-end loop for trusted code that sees the whole state: tests, analyses that
    set up positions, and a bot's rollouts on a world it sampled itself.  Bots in a game are played
    by :func:`play_deal`, which hands each seat only its view.
    """
    while state.phase != DONE and (until is None or not until(state)):
        state.apply(choose(state))
    return state


def decide(strategy: Any, state: State, rng: Any) -> int:
    """What ``strategy`` plays for the seat to act in ``state``: its ``bid``, ``discard``,
    ``name_joker`` or ``play`` (by the phase), asked with that seat's view, the legal actions and
    ``rng``.  With :func:`play_out`, trusted code drives bots over a state it holds itself
    (``play_out(state, lambda s: decide(bot, s, rng))``); it checks nothing (:func:`play_deal` does)."""
    method = (strategy.bid, strategy.discard, strategy.name_joker, strategy.play)[state.phase]
    return int(method(state.view(state.turn), state.legal_actions(), rng))


def first_legal(state: State) -> int:
    """The lowest legal action: a deterministic ``choose`` for :func:`play_out`."""
    return state.legal_actions()[0]


#: The builtin called as a function, not compiled inline: a missing attribute then gives the default
#: without an AttributeError being raised and caught (about 10,000 instructions a lookup).
_lookup: Final = getattr


def _seat_plan(strategies: Sequence[Any]) -> tuple[list[Any], list[Any], list[Any], list[bool]]:
    """What :func:`play_deal` needs of each seat's strategy, looked up once (per game in
    :func:`play_game`): its four decision methods, its ``play``, a blank view when it declares
    ``uses_view = False`` (random.v1: no snapshot) else None, and whether it is asked for a forced
    action (not when it declares ``asked_when_forced = False``, as heuristic.v1 does)."""
    methods = [(st.bid, st.discard, st.name_joker, st.play) for st in strategies]
    plays = [st.play for st in strategies]
    blank = [None if _lookup(st, "uses_view", True) else BlankView(s) for s, st in enumerate(strategies)]
    ask_forced = [bool(_lookup(st, "asked_when_forced", True)) for st in strategies]
    return methods, plays, blank, ask_forced


def _play_deal(
    state: State,
    strategies: Sequence[Any],
    plan: tuple[list[Any], list[Any], list[Any], list[bool]],
    rngs: Sequence[Rng],
    game_id: int,
    labels: Sequence[str] | None,
) -> None:
    """:func:`play_deal` with the seats' :func:`_seat_plan` made already."""
    methods, plays, blank, ask_forced = plan
    held: list[Any] = rngs if isinstance(rngs, list) else list(rngs)
    legal_actions, apply = state.legal_actions, state.apply
    legal_plays, play_card = state._legal_plays, state._play
    while True:
        phase = state.phase
        if phase == DONE:
            return
        seat = state.turn
        if phase == PLAY:  # the hot path: straight to the play-phase methods
            legal = legal_plays()
            ask = plays[seat]
            act = play_card
        else:
            legal = legal_actions()
            ask = methods[seat][phase]
            act = apply
        if len(legal) == 1 and not ask_forced[seat]:
            act(legal[0])
            continue
        mine = held[seat]
        held[seat] = None  # out of the runner's list while the bot holds it
        try:
            view = blank[seat] or SeatView(state, seat)
            action = ask(view, legal, mine)
        except Exception as exc:  # a bot's own failure: report it with where it happened
            held[seat] = mine
            raise _bot_failed(state, _label(strategies, labels, seat), game_id, seat, exc) from exc
        held[seat] = mine
        if action not in legal:
            raise _bot_illegal(state, _label(strategies, labels, seat), game_id, seat, action)
        act(action)


def _label(strategies: Sequence[Any], labels: Sequence[str] | None, seat: int) -> str:
    return labels[seat] if labels else getattr(strategies[seat], "name", type(strategies[seat]).__name__)


def _bot_failed(state: State, label: str, game_id: int, seat: int, exc: Exception) -> StrategyError:
    return StrategyError(
        f"strategy '{label}' (seat {seat}) raised {type(exc).__name__}: {exc} "
        f"in {deal_place(game_id, state.hand_no)}"
    )


def _bot_illegal(state: State, label: str, game_id: int, seat: int, action: Any) -> StrategyError:
    try:
        shown = action_name(state.rules, action)
    except (IndexError, TypeError):
        shown = repr(action)
    return StrategyError(
        f"strategy '{label}' (seat {seat}) returned illegal action {shown} "
        f"in {deal_place(game_id, state.hand_no)}"
    )


def deal_record(state: State, rules: Rules, game_id: int, seed: int) -> dict[str, Any]:
    """The deal-log columns that a finished deal alone determines (docs/deal-log.md), with the
    engine's facts of :func:`deal_facts`."""
    names = rules.deck.names
    acts = action_names(rules)
    contract = state.contract
    joker_suit = None
    if contract is not None and state.jokers_named and max(state.jokers_named) >= 0:
        # One entry per joker the declarer kept, in joker order, so that "JK1 unnamed, JK2 named H"
        # ("-,H") differs from "JK1 named H" ("H").
        kept = (state.dealt[state.declarer] | state.kitty_dealt) & ~state.discards
        jokers = zip(rules.deck.jokers, state.jokers_named, strict=True)
        joker_suit = joker_suit_text([s for c, s in jokers if kept >> c & 1])
    rec: dict[str, Any] = {
        "game_id": game_id,
        "hand_no": state.hand_no,
        "seed": seed,
        "variant": rules.name,
        "dealer": state.dealer,
        "hands": [[names[c] for c in bits(h)] for h in state.dealt],
        "kitty": [names[c] for c in bits(state.kitty_dealt)],
        "bids": [acts[a] for a in state.bids],
        "contract": contract.code if contract is not None else None,
        "declarer": state.declarer if contract is not None else None,
        "discards": [names[c] for c in state.discard_order] if contract is not None else None,
        "joker_suit": joker_suit,
        "plays": [acts[a] for a in state.plays],
        "trick_winners": list(state.trick_winners),
        "engine_version": ENGINE_VERSION,
    }
    put_deal_facts(rec, state, rules)  # and declarer_tricks, from the same team tricks
    return rec


def deal_facts(state: State, rules: Rules) -> dict[str, Any]:
    """The facts of the rules about a finished deal, logged so that nothing downstream re-derives a
    rule (docs/deal-log.md): who made each call and played each card, the declaring team, whether
    the contract was made, each team's tricks, who sat out, a slam, the declarer's trumps (dealt,
    bowers, in the kitty, kept) and suit lengths under the contract."""
    out: dict[str, Any] = {}
    put_deal_facts(out, state, rules)
    del out["declarer_tricks"]  # a core column, not one of the facts
    return out


def put_deal_facts(out: dict[str, Any], state: State, rules: Rules) -> None:
    """Write the columns of :func:`deal_facts`, and ``declarer_tricks``, into ``out`` (the log
    writer's per-deal fast path)."""
    comp = state.comp
    teams = comp.teams
    won = state.tricks_won
    team_tricks = [0] * teams
    for s in range(comp.n):
        team_tricks[s % teams] += won[s]
    # The finished state's own lists (nothing changes them once the deal is done): no copies.
    out["bid_seats"] = state.bid_seats
    out["play_seats"] = state.play_seats
    out["team_tricks"] = team_tricks
    contract = state.contract
    if contract is None:
        out["declarer_tricks"] = None
        out["declarer_team"] = None
        out["made"] = None
        out["sitting_out"] = []
        out["slam"] = None
        out["trumps_dealt"] = out["bowers_dealt"] = out["trumps_kitty"] = out["trumps_kept"] = None
        out["suit_lengths"] = None
        return
    d = state.declarer
    dteam = d % teams
    delta = state.score_delta
    misere = contract.misere
    trump = contract.trump
    out["declarer_team"] = dteam
    out["made"] = delta[dteam] > 0 if delta is not None else None
    if misere:
        active = state.active
        out["declarer_tricks"] = won[d]
        out["sitting_out"] = [s for s in range(comp.n) if not active[s]]
        out["slam"] = None
    else:
        out["declarer_tricks"] = team_tricks[dteam]
        out["sitting_out"] = []
        out["slam"] = team_tricks[dteam] == comp.hand_size
    # One pass over the declarer's cards (table look-ups, no popcounts): suit lengths and trumps.
    lengths = [0, 0, 0, 0]
    tables = state.tables
    if tables is not None and 0 <= trump < 4:
        eff = tables.eff_suit  # every card has a suit under a trump (the jokers are trumps)
        bowers = tables.bowers
        n_trumps = n_bowers = 0
        for c in bits(state.dealt[d]):
            s = eff[c]
            lengths[s] += 1
            if s == trump:
                n_trumps += 1
                if bowers >> c & 1:
                    n_bowers += 1
        n_kitty = 0
        for c in bits(state.kitty_dealt):
            if eff[c] == trump:
                n_kitty += 1
        n_gone = 0
        for c in state.discard_order:
            if eff[c] == trump:
                n_gone += 1
        out["trumps_dealt"] = n_trumps
        out["bowers_dealt"] = n_bowers
        out["trumps_kitty"] = n_kitty
        out["trumps_kept"] = n_trumps + n_kitty - n_gone
    else:
        printed = rules.deck.suit  # no trump: printed suits, the jokers in none
        for c in bits(state.dealt[d]):
            s = printed[c]
            if s >= 0:
                lengths[s] += 1
        out["trumps_dealt"] = out["bowers_dealt"] = out["trumps_kitty"] = out["trumps_kept"] = None
    out["suit_lengths"] = lengths


def new_deal(rules: Rules, master_seed: int, game_id: int, hand_no: int) -> tuple[State, int]:
    """The dealt state of hand ``hand_no`` of game ``game_id`` and its deal seed."""
    seed = deal_seed(master_seed, game_id, hand_no)
    state = State.deal(rules, seed, dealer_of(master_seed, game_id, hand_no, rules.players))
    state.hand_no = hand_no
    return state, seed


def play_game(
    rules: Rules,
    strategies: Sequence[Any],
    master_seed: int,
    game_id: int,
    labels: Sequence[str] | None = None,
    rng_keys: Sequence[int] | None = None,
    on_deal: Callable[[State], None] | None = None,
) -> list[dict[str, Any]]:
    """Play game ``game_id`` to its end and return one record per deal.

    ``strategies`` holds one strategy object per seat; ``labels`` the ids written to the log
    (default: each strategy's ``name``).  ``rng_keys`` (one non-negative int below 2**64 per seat,
    default none) are mixed into each seat's RNG seed: tournaments give every entry its own stream.
    The game ends at RULES.md section 10's conditions or at ``rules.deal_limit`` deals
    (``end_reason`` = ``deal_limit``, no winner).  ``on_deal`` (trusted code only: it is handed the
    whole deal) is called with each deal's state before the deal is played; benchmarks/oracle.py's
    full-information reference uses it, nothing of the pipeline does.
    """
    if len(strategies) != rules.players:
        raise ValueError(f"{rules.players} strategies needed, got {len(strategies)}")
    labels = (
        list(labels) if labels is not None else [getattr(s, "name", type(s).__name__) for s in strategies]
    )
    n = rules.players
    scores = [0] * rules.teams
    records: list[dict[str, Any]] = []
    first = first_dealer(master_seed, game_id, n)
    needs_rng = [_lookup(s, "uses_rng", True) for s in strategies]
    plan = _seat_plan(strategies)
    for hand_no in range(rules.deal_limit):
        seed = deal_seed(master_seed, game_id, hand_no)
        state = State.deal(rules, seed, (first + hand_no) % n)
        state.hand_no = hand_no
        state.scores = tuple(scores)
        # A new guard per seat (not the one shared _NO_RNG): a bot's generator is its seat's alone.
        rngs: list[Rng] = [
            bot_rng(seed, s, rng_keys[s] if rng_keys else 0) if needs_rng[s] else _NO_RNG.fork()
            for s in range(n)
        ]
        if on_deal is not None:
            on_deal(state)
        _play_deal(state, strategies, plan, rngs, game_id, labels)
        delta, scores, over, winner, reason = settle(rules, scores, state)
        if not over and hand_no == rules.deal_limit - 1:
            over, reason = True, DEAL_LIMIT
        rec = deal_record(state, rules, game_id, seed)
        rec["strategies"] = labels
        rec["score_delta"] = delta
        rec["score_after"] = list(scores)
        rec["game_over"] = over
        rec["winner"] = winner
        rec["end_reason"] = reason
        records.append(rec)
        if over:
            break
    return records


__all__ = [
    "AUCTION",
    "DEAL_LIMIT",
    "END_REASONS",
    "FELL_TO_LOSS",
    "JOKER",
    "KITTY",
    "PLAY",
    "REACHED_WIN",
    "StrategyError",
    "deal_facts",
    "deal_record",
    "decide",
    "first_legal",
    "new_deal",
    "play_deal",
    "play_game",
    "play_out",
    "settle",
]
