"""Whole games: deals in sequence, the dealer rotating, scores settled (RULES.md section 10).

:func:`play_game` plays one game with one strategy object per seat and returns one record (a dict
with the deal-log columns of ``DEAL_LOG.md`` except the run-level ``schema_version``, ``run_id``
and ``deal_id``) per deal.  The engine knows nothing of Ray or Parquet: the pipelines add the run
columns and write the rows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sim.cards import SUITS
from sim.engine import AUCTION, ENGINE_VERSION, JOKER, KITTY, PLAY, State, action_name
from sim.errors import UserError
from sim.seeding import bot_seed, deal_seed, dealer_of

if TYPE_CHECKING:
    from sim.rules import Rules

#: How a game ended, in the ``end_reason`` column.
REACHED_WIN = "reached_500"
FELL_TO_LOSS = "fell_to_-500"
DEAL_LIMIT = "deal_limit"


class StrategyError(UserError, RuntimeError):
    """A strategy raised or returned an illegal action; the message names bot, seat, game, hand."""


def settle(
    rules: Rules, scores: Sequence[int], state: State
) -> tuple[list[int], list[int], bool, int | None, str | None]:
    """Apply a finished deal to the game scores.

    Returns ``(delta, new_scores, game_over, winner, end_reason)``; ``delta`` is what each team
    really gained, after the defensive cap when the rules have one.
    """
    delta = list(state.score_delta)
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
            # Highest score wins; a tie (3-player game) goes to the lowest team number.
            winner = max(others, key=lambda t: (new[t], -t)) if others else None
            return delta, new, True, winner, FELL_TO_LOSS
    return delta, new, False, None, None


def play_deal(
    state: State,
    strategies: Sequence[Any],
    rngs: Sequence[random.Random],
    game_id: int = 0,
    labels: Sequence[str] | None = None,
) -> None:
    """Play a dealt state to the end, asking each seat's strategy for its actions.

    A strategy that raises or answers an action outside the legal ones raises
    :class:`StrategyError` naming the bot, the seat, the game and the hand.
    """
    n = len(strategies)
    views = [state.view(s) for s in range(n)]
    methods = [(st.bid, st.discard, st.name_joker, st.play) for st in strategies]
    while state.phase != 4:
        seat = state.turn
        legal = state.legal_actions()
        try:
            action = methods[seat][state.phase](views[seat], legal, rngs[seat])
        except Exception as exc:  # a bot's own failure: report it with where it happened
            label = labels[seat] if labels else type(strategies[seat]).__name__
            raise StrategyError(
                f"strategy '{label}' (seat {seat}) raised {type(exc).__name__}: {exc} "
                f"in game {game_id}, hand {state.hand_no}"
            ) from exc
        if action not in legal:
            label = labels[seat] if labels else type(strategies[seat]).__name__
            try:
                shown = action_name(state.rules, action)
            except (IndexError, TypeError):
                shown = repr(action)
            raise StrategyError(
                f"strategy '{label}' (seat {seat}) returned illegal action {shown} "
                f"in game {game_id}, hand {state.hand_no}"
            )
        state.apply(action)


def deal_record(state: State, rules: Rules, game_id: int, seed: int) -> dict[str, Any]:
    """The deal-log columns that a finished deal alone determines."""
    names = rules.deck.names
    n = rules.players

    def cards(mask: int) -> list[str]:
        return [names[c] for c in range(len(names)) if mask >> c & 1]

    contract = state.contract
    joker_suit = None
    if contract is not None and state.jokers_named and state.jokers_named[0] >= 0:
        joker_suit = ",".join(SUITS[s] for s in state.jokers_named if s >= 0)
    return {
        "game_id": game_id,
        "hand_no": state.hand_no,
        "seed": seed,
        "variant": rules.name,
        "dealer": state.dealer,
        "hands": [cards(state.dealt[s]) for s in range(n)],
        "kitty": cards(state.kitty_dealt),
        "bids": [action_name(rules, a) for a in state.bids],
        "contract": contract.code if contract is not None else None,
        "declarer": state.declarer if contract is not None else None,
        "discards": [names[c] for c in state.discard_order] if contract is not None else None,
        "joker_suit": joker_suit,
        "plays": [action_name(rules, a) for a in state.plays],
        "trick_winners": list(state.trick_winners),
        "declarer_tricks": state.declarer_tricks(),
        "engine_version": ENGINE_VERSION,
    }


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
) -> list[dict[str, Any]]:
    """Play game ``game_id`` to its end and return one record per deal.

    ``strategies`` holds one strategy object per seat; ``labels`` the ids written to the log
    (default: each strategy's ``name``).  The game ends at RULES.md section 10's conditions or at
    ``rules.deal_limit`` deals (``end_reason`` = ``deal_limit``, no winner).
    """
    if len(strategies) != rules.players:
        raise ValueError(f"{rules.players} strategies needed, got {len(strategies)}")
    labels = (
        list(labels) if labels is not None else [getattr(s, "name", type(s).__name__) for s in strategies]
    )
    n = rules.players
    scores = [0] * rules.teams
    records: list[dict[str, Any]] = []
    for hand_no in range(rules.deal_limit):
        state, seed = new_deal(rules, master_seed, game_id, hand_no)
        state.scores = tuple(scores)
        rngs = [random.Random(bot_seed(seed, s)) for s in range(n)]
        play_deal(state, strategies, rngs, game_id, labels)
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
    "FELL_TO_LOSS",
    "JOKER",
    "KITTY",
    "PLAY",
    "REACHED_WIN",
    "StrategyError",
    "deal_record",
    "new_deal",
    "play_deal",
    "play_game",
    "settle",
]
