"""Progress on stderr for every command: one status line, rewritten in place on a terminal.

Library functions take a progress *callback* (default none) and return data; the commands turn what
the callback receives into text with a :class:`StatusLine`:

- on a terminal the line is rewritten in place (``\\r`` and erase-line), cut to the terminal's width,
  at most every :attr:`StatusLine.min_interval` seconds, and erased when the command ends (so the
  result it prints stands alone);
- elsewhere (a pipe, a log file, a CI job) a plain line at most every :attr:`StatusLine.every`
  seconds (phases too), none in the first ones: a quick command prints only its result, and a
  mistake only its one ``error:`` line.

Progress goes to stderr only and never touches a file the command writes, so output bytes are the
same with or without it.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from typing import TextIO

#: Erase the terminal's current line and go back to its start.
CLEAR = "\r\x1b[2K"


def terminal_width(stream: TextIO | None = None) -> int:
    """Columns of the terminal ``stream`` (default stderr) shows; ``COLUMNS`` or 80 when unknown."""
    stream = stream or sys.stderr
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 0
    return columns or shutil.get_terminal_size().columns  # a pty of unknown size reports 0


def fit(text: str, width: int | None) -> str:
    """``text`` cut to at most ``width`` characters (the cut marked ``…``); unchanged without a width."""
    if width is None or len(text) <= width:
        return text
    if width <= 1:
        return text[: max(width, 0)]
    return text[: width - 1] + "…"


def wrap_parts(parts: list[str], width: int, sep: str = " | ", indent: str = "    ") -> list[str]:
    """``parts`` joined by ``sep`` into lines of at most ``width`` characters, broken between parts
    (a part longer than a line gets a line of its own); continuation lines start with ``indent``."""
    lines: list[str] = []
    cur = ""
    for part in parts:
        if not cur:
            cur = (indent if lines else "") + part
        elif len(cur) + len(sep) + len(part) <= width:
            cur += sep + part
        else:
            lines.append(cur)
            cur = indent + part
    if cur:
        lines.append(cur)
    return lines


def format_duration(seconds: float | None) -> str:
    """``01:05`` or ``1:02:03``; ``--:--`` when unknown."""
    if seconds is None:
        return "--:--"
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class StatusLine:
    """The one status line of a command on stderr (see the module docstring).

    ``update(text)`` shows where the work stands (throttled); ``phase(text)`` starts a new phase (a
    line that stays); ``close()`` erases the live line.  ``tty`` defaults to whether the stream is a
    terminal, ``width`` to the terminal's.  ``clock`` (default :func:`time.monotonic`) gives the
    seconds the throttling compares; only differences of its readings count, never its origin, so
    the first update on a terminal is drawn at once whatever the clock reads.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        tty: bool | None = None,
        every: float = 30.0,
        min_interval: float = 0.1,
        width: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every = every
        self.min_interval = min_interval
        self.width = width
        self.shown = False
        self.clock = clock
        self._last: float | None = None  # when the terminal line was last drawn: never yet
        self._last_plain = clock()  # off a terminal, the first plain line waits `every` from here

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def update(self, text: str, force: bool = False) -> None:
        """Show ``text`` as the current status (``force``: even if one was shown a moment ago)."""
        now = self.clock()
        if self.tty:
            if force or self._last is None or now - self._last >= self.min_interval:
                self._write(CLEAR + fit(text, (self.width or terminal_width(self.stream)) - 1))
                self.shown, self._last = True, now
        elif force or now - self._last_plain >= self.every:
            self._write(text + "\n")
            self._last_plain = now

    def phase(self, text: str) -> None:
        """Say that a new phase starts (``analysing ...``): shown at once on a terminal; elsewhere a
        plain line only if the last one is :attr:`every` seconds old (so a quick command, or one that
        stops at a mistake, prints nothing but its result or its one ``error:`` line)."""
        self.update(text, force=self.tty)

    def log(self, text: str) -> None:
        """Print ``text`` as a line that stays (a finished step), above the live line on a terminal
        (which the next :meth:`update` draws again) and as a plain line elsewhere."""
        self._write((CLEAR if self.tty and self.shown else "") + text + "\n")
        self.shown = False
        if not self.tty:
            self._last_plain = self.clock()

    def close(self) -> None:
        """Erase the live line (a terminal only)."""
        if self.tty and self.shown:
            self._write(CLEAR)
            self.shown = False

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, text: str) -> None:
        """A phase callback (``progress=status``) for the library functions that report phases."""
        self.phase(text)
