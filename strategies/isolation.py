"""Isolation mode: each seat's strategy in its own process, handed its view as plain data.

:class:`IsolatedStrategy` stands in for a strategy in the game runner: it starts
``python -m fivehundred.strategies.isolation`` once (per chunk or per worker, reused for every
decision), sends it the strategy spec and the rules (it answers whether its bot wants forced
actions: ``asked_when_forced``; when not, the runner takes them without asking, as in-process), then
one line per decision -- the method, the seat's view as plain data (:func:`sim.engine.view_fields`:
ints and lists of ints), the legal actions and the state of the seat's RNG -- and reads back one line:
the action and the RNG's new state.  So the bot draws the very numbers it would draw in-process and
the logs are byte-identical, isolated or not (tests/strategies/test_isolation.py).

The child gets no seed (only its own generator's state), no other seat's data, and an environment
without Ray's or any other token.  Its standard output is its own (bot prints go to its stderr); the
protocol runs on a private copy of the pipe.  A child that crashes, hangs past the per-decision time
limit (:data:`DEFAULT_TIMEOUT`), or answers something that is not an action makes the strategy fail with
one line naming it; the runner adds the seat, the game and the hand.

This is process isolation, not a sandbox: the child runs as the same user, so it can read files and
use the network; it cannot read the engine's memory where the OS forbids reading another process's
memory (Linux: Yama ``ptrace_scope`` 1 or more, the usual default).  docs/strategies.md has the whole
story.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from fivehundred.sim.rng import Rng
from fivehundred.sim.rules import Rules
from fivehundred.sim.view import PlainView, SeatView, view_fields

#: Seconds a strategy may take to answer one decision when isolated (``isolate_timeout`` overrides).
DEFAULT_TIMEOUT = 30.0
#: Seconds allowed for the child to start and build its strategy.
START_TIMEOUT = 60.0
_METHODS = ("bid", "discard", "name_joker", "play")
#: Environment variables a child keeps (everything else -- Ray's token among them -- is dropped).
#: One compact JSON encoder for every decision's line (``json.dumps`` with separators builds one a call).
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode
_KEEP_ENV = ("PATH", "PYTHONPATH", "PYTHONHASHSEED", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV")


class IsolatedBotError(RuntimeError):
    """An isolated strategy crashed, hung or answered nonsense (the runner adds where it happened)."""


def is_shipped(spec: str) -> bool:
    """Whether a strategy spec names a bot shipped with this project (``random``, ``heuristic``...).

    ``module:Class`` specs and strategies registered by other packages' entry points are not.
    """
    from fivehundred.strategies.base import parse_spec, resolve

    name, _ = parse_spec(spec)
    if ":" in name:
        return False
    _, cls = resolve(name)
    return str(getattr(cls, "__module__", "")).startswith("fivehundred.strategies.")


def close_all(bots: Sequence[Any]) -> None:
    """Stop the processes of the isolated strategies among ``bots`` (others are left alone)."""
    for bot in bots:
        if isinstance(bot, IsolatedStrategy):
            bot.close()


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _KEEP_ENV or k.startswith("FIVEHUNDRED_")}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # The package must import in the child as it does here (an editable checkout on sys.path).
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), *sys.path, root) if p)
    return env


class IsolatedStrategy:
    """Stands in for a strategy that runs in a child process; same four methods, same answers."""

    def __init__(self, spec: str, params: dict[str, Any], rules: Rules, label: str, timeout: float) -> None:
        self.label = label
        self.name = label
        self.timeout = timeout
        self.uses_rng = True
        self._buf = b""
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "fivehundred.strategies.isolation"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=_child_env(),
            close_fds=True,
        )
        hello = base64.b64encode(pickle.dumps((spec, params, rules))).decode()
        self._send(hello)
        answer = self._receive(START_TIMEOUT, "to start")
        if answer.get("ok") is not True:
            self.close()
            raise IsolatedBotError(
                f"strategy '{label}' (isolated) could not start: {answer.get('error', '?')}"
            )
        # The child's bot declares whether it wants forced actions (strategies.md): when it does not,
        # the runner takes them here, without a round trip, as it would in the same process.
        self.asked_when_forced = answer.get("asked_when_forced") is not False

    # -- the strategy's four methods
    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """Asked of the child; see the module docstring."""
        return self._ask(0, view, legal, rng)

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """Asked of the child."""
        return self._ask(1, view, legal, rng)

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """Asked of the child."""
        return self._ask(2, view, legal, rng)

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        """Asked of the child."""
        return self._ask(3, view, legal, rng)

    def _ask(self, method: int, view: SeatView, legal: Sequence[int], rng: Rng) -> int:
        state = [rng._s0, rng._s1, rng._s2, rng._s3] if not _no_rng(rng) else None
        self._send(_ENCODE([method, view_fields(view), list(legal), state]))
        answer = self._receive(self.timeout, f"to answer (limit {self.timeout:g} s per decision)")
        if "error" in answer:
            raise IsolatedBotError(str(answer["error"]))
        action, new = answer.get("action"), answer.get("rng")
        if not isinstance(action, int) or isinstance(action, bool):
            raise IsolatedBotError(f"answered {str(action)[:60]!r}, not an action")
        if state is not None:
            if not (isinstance(new, list) and len(new) == 4 and all(isinstance(x, int) for x in new)):
                raise IsolatedBotError("answered without its random generator's state")
            rng._s0, rng._s1, rng._s2, rng._s3 = (x & 0xFFFFFFFF for x in new)
        return action

    # -- the pipe
    def _send(self, line: str) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(line.encode() + b"\n")
            stdin.flush()
        except (BrokenPipeError, OSError):
            raise IsolatedBotError(self._died()) from None

    def _receive(self, timeout: float, what: str) -> dict[str, Any]:
        stdout = self._proc.stdout
        assert stdout is not None
        fd = stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.close()
                raise IsolatedBotError(f"strategy '{self.label}' (isolated) took too long {what}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise IsolatedBotError(self._died())
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            self.close()
            raise IsolatedBotError(
                f"strategy '{self.label}' (isolated) answered {line[:60]!r}, not the protocol"
            )
        return answer

    def _died(self) -> str:
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", "replace").strip().splitlines()
        last = f": {lines[-1][:200]}" if lines else ""
        return f"strategy '{self.label}' (isolated) exited (status {code}){last}"

    def close(self) -> None:
        """End the child process (EOF first, then a kill after a second)."""
        proc = self._proc
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=1)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        self._log.close()

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


def _no_rng(rng: Rng) -> bool:
    from fivehundred.sim.rng import NoRng

    return isinstance(rng, NoRng)


# ---------------------------------------------------------------------------- the child


def _serve() -> None:
    """The child's loop: build the strategy, then answer one line per decision until EOF."""
    from fivehundred.sim.rng import NoRng, Rng
    from fivehundred.strategies.base import make

    # A terminal's Ctrl-C reaches the whole process group: the parent decides (it halts the run and
    # keeps the games finished); this process ends when the parent closes its stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the bot's prints go to stderr, never into the protocol
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    hello = stdin.readline()
    try:
        spec, params, rules = pickle.loads(base64.b64decode(hello))
        bot = make(spec, params)
    except Exception as exc:  # reported to the parent in one line
        proto.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}) + "\n")
        proto.flush()
        return
    forced = bool(getattr(bot, "asked_when_forced", True))
    proto.write(json.dumps({"ok": True, "asked_when_forced": forced}) + "\n")
    proto.flush()
    methods = [getattr(bot, m) for m in _METHODS]
    no_rng, base = NoRng(), Rng(0)
    for line in stdin:
        method, fields, legal, state = json.loads(line)
        if state is None:
            rng: Rng = no_rng
        else:
            rng = base.fork()
            rng._s0, rng._s1, rng._s2, rng._s3 = state
        try:
            action = methods[method](PlainView(rules, fields), tuple(legal), rng)
        except Exception as exc:
            proto.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}) + "\n")
            proto.flush()
            continue
        out: dict[str, Any] = {"action": action if isinstance(action, int) else repr(action)}
        if state is not None:
            out["rng"] = [rng._s0, rng._s1, rng._s2, rng._s3]
        proto.write(json.dumps(out) + "\n")
        proto.flush()


if __name__ == "__main__":
    _serve()
