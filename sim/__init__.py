"""The Five Hundred engine: cards, rules, the deal state, and whole games.

It knows nothing of Ray, Parquet or plots.  Its inner loop (:data:`sim._loader.CORE`) is compiled
with mypyc at install time when a C compiler is there; :func:`core` tells which core runs.
"""

from fivehundred.sim._loader import choose_core, core

choose_core()

from fivehundred.sim.engine import (  # noqa: E402 (the core is chosen before its first import)
    AUCTION,
    BID,
    DONE,
    ENGINE_VERSION,
    JOKER,
    JOKER_LEAD,
    KITTY,
    NAME_NONE,
    NAME_SUIT,
    PASS,
    PLAY,
    IllegalAction,
    State,
    parse_action,
    step,
)
from fivehundred.sim.game import (  # noqa: E402
    StrategyError,
    decide,
    first_legal,
    play_deal,
    play_game,
    play_out,
    settle,
)
from fivehundred.sim.notation import action_name  # noqa: E402
from fivehundred.sim.rules import Bid, Rules, RulesError, available_variants, load_rules  # noqa: E402
from fivehundred.sim.view import SeatView  # noqa: E402

__all__ = [
    "AUCTION", "BID", "DONE", "ENGINE_VERSION", "JOKER", "JOKER_LEAD", "KITTY", "NAME_NONE",
    "NAME_SUIT", "PASS", "PLAY", "Bid", "IllegalAction", "Rules", "RulesError", "SeatView", "State",
    "StrategyError", "action_name", "available_variants", "core", "decide", "first_legal", "load_rules",
    "parse_action", "play_deal", "play_game", "play_out", "settle", "step",
]  # fmt: skip
