"""Pluggable strategies (bots): the Protocol, the registry and the built-in bots."""

from fivehundred.strategies.base import (
    Strategy,
    StrategyConfigError,
    available,
    label,
    make,
    register,
    resolve,
)

__all__ = ["Strategy", "StrategyConfigError", "available", "label", "make", "register", "resolve"]
