"""Strategies for fault tests: they play exactly like ``random.v1`` (same log id, same rows).

Loaded by ``module:Class`` spec (``tests.pipelines.faulty_bots:KillOnce``) inside Ray workers, so
the tests put the repository on ``PYTHONPATH`` before Ray starts.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any, ClassVar

from fivehundred.strategies.random_bot import RandomStrategy

#: Path of the marker file: the first process to create it kills itself (once per marker).
KILL_MARKER_ENV = "FIVEHUNDRED_TEST_KILL_MARKER"
#: Directory where each worker process records the Ray node it runs on.
NODE_LOG_ENV = "FIVEHUNDRED_TEST_NODE_LOG"


#: The play (counted per process) at which :class:`KillOnce` kills its process (default 300).
KILL_AT_ENV = "FIVEHUNDRED_TEST_KILL_AT"


class KillOnce(RandomStrategy):
    """``random.v1`` whose process SIGKILLs itself at its N-th play, once per marker file."""

    name = "random.v1"
    PARAMS: ClassVar[dict] = {}
    _plays = 0

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        """Play like random; die (once, whole process) when the counter trips."""
        KillOnce._plays += 1
        marker = os.environ.get(KILL_MARKER_ENV)
        if marker and KillOnce._plays == int(os.environ.get(KILL_AT_ENV, "300")):
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                os.kill(os.getpid(), signal.SIGKILL)
        return super().play(view, legal, rng)


#: Seconds :class:`NodeRecorder` sleeps per card played (stretches a run without using CPU).
PLAY_DELAY_ENV = "FIVEHUNDRED_TEST_PLAY_DELAY"


class NodeRecorder(RandomStrategy):
    """``random.v1`` that records the Ray node id of every worker process that builds it."""

    name = "random.v1"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.delay = float(os.environ.get(PLAY_DELAY_ENV, "0"))
        folder = os.environ.get(NODE_LOG_ENV)
        import ray

        # Only inside Ray workers: asking for the context in a driver would start a local Ray.
        if folder and ray.is_initialized() and ray.get_runtime_context().worker.mode == ray.WORKER_MODE:
            node = ray.get_runtime_context().get_node_id()
            with open(os.path.join(folder, f"{os.getpid()}.node"), "w") as fh:
                fh.write(node)

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        """Play like random, slowly."""
        if self.delay:
            time.sleep(self.delay)
        return super().play(view, legal, rng)


class Raiser(RandomStrategy):
    """``random.v1`` that raises at its first play: a bug in a bot, not a crash of the machine."""

    name = "raiser.v1"
    PARAMS: ClassVar[dict] = {}

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        """Fail."""
        raise ZeroDivisionError("bot bug")


class InterruptAt(RandomStrategy):
    """``random.v1`` that sends Ctrl-C (SIGINT) to its own process at the plays listed in ``at``
    (counted over every instance in this process since the test reset ``plays``): in-process runs
    only, where the signal lands in the driver exactly as a terminal's Ctrl-C would."""

    name = "random.v1"
    PARAMS: ClassVar[dict] = {}
    at: ClassVar[list[int]] = []
    plays: ClassVar[int] = 0

    def play(self, view, legal, rng):  # type: ignore[no-untyped-def]
        """Play like random; Ctrl-C this process when the count is in ``at``."""
        InterruptAt.plays += 1
        if InterruptAt.plays in InterruptAt.at:
            os.kill(os.getpid(), signal.SIGINT)
        return super().play(view, legal, rng)
