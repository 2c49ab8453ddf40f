"""Tournaments: duplicate matches between strategy entries, sequential tests, ratings (docs/tournament.md)."""

from fivehundred.pipelines.tournament.config import (
    Entry,
    StopRule,
    TournamentConfig,
    TournamentConfigError,
    load_config,
)
from fivehundred.pipelines.tournament.executors import InProcessExecutor, RayExecutor
from fivehundred.pipelines.tournament.live import MatchStatus
from fivehundred.pipelines.tournament.runner import TournamentResult, run_tournament

__all__ = [
    "Entry",
    "InProcessExecutor",
    "MatchStatus",
    "RayExecutor",
    "StopRule",
    "TournamentConfig",
    "TournamentConfigError",
    "TournamentResult",
    "load_config",
    "run_tournament",
]
