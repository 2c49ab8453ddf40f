"""Tournaments: duplicate matches between strategy entries, sequential tests, ratings (docs/tournament.md)."""

from fivehundred.pipelines.tournament.config import (
    Entry,
    StopRule,
    TournamentConfig,
    TournamentConfigError,
    load_config,
)
from fivehundred.pipelines.tournament.runner import (
    InProcessExecutor,
    MatchStatus,
    TournamentResult,
    run_tournament,
)

__all__ = [
    "Entry",
    "InProcessExecutor",
    "MatchStatus",
    "StopRule",
    "TournamentConfig",
    "TournamentConfigError",
    "TournamentResult",
    "load_config",
    "run_tournament",
]
