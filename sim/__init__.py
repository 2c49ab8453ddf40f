"""The Five Hundred engine: cards, rules, the deal state, and whole games.

It knows nothing of Ray, Parquet or plots.
"""

from sim.engine import (
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
    SeatView,
    State,
    action_name,
    parse_action,
    step,
)
from sim.game import StrategyError, play_deal, play_game, settle
from sim.rules import Bid, Rules, RulesError, available_variants, load_rules

__all__ = [
    "AUCTION", "BID", "DONE", "ENGINE_VERSION", "JOKER", "JOKER_LEAD", "KITTY", "NAME_NONE",
    "NAME_SUIT", "PASS", "PLAY", "Bid", "IllegalAction", "Rules", "RulesError", "SeatView", "State",
    "StrategyError", "action_name", "available_variants", "load_rules", "parse_action", "play_deal",
    "play_game", "settle", "step",
]  # fmt: skip
