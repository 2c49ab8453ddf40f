"""The base class of errors caused by user input (configs, names, files, flags)."""


class UserError(Exception):
    """A mistake in what the user gave us.  The CLI prints its one-line message, no traceback."""


class StrategyError(UserError, RuntimeError):
    """A strategy raised or returned an illegal action; the message names bot, seat, game, hand."""
