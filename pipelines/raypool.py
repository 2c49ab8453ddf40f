"""Ray for playing chunks: an embedded local instance (loopback only) or an existing cluster.

:class:`RayPool` starts or joins Ray, runs the chunk tasks (:func:`~pipelines.chunks.play_chunk`,
:func:`~pipelines.chunks.play_chunk_counted`, :func:`~pipelines.chunks.encode_part`) and fetches
their results: Ray tasks are retried ``max_retries`` times when a worker process or a node dies, a
result lost with its node is reported as :class:`ResultLost` (the scheduler plays it again), and a
strategy's own error (:class:`~sim.errors.UserError`) is not retried and is re-raised as itself in
the driver.  A cluster that cannot be joined is one line (:func:`cluster_error`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from fivehundred.pipelines.chunks import GameChunk, encode_part, play_chunk, play_chunk_counted
from fivehundred.pipelines.live import LiveCounter
from fivehundred.sim.errors import UserError

#: Ray's switch for multi-machine clusters (off: the node's IP is 127.0.0.1); set for the embedded instance.
_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"

#: Ray's wait for a joined cluster's GCS to answer (seconds; Ray's own default is about 20, one try a
#: second).  The head already answered the port probe, so a failure here is nearly always a refused
#: token, which no retry mends: report it after this many tries.  A value the user sets wins.
_JOIN_WAIT_ENV = "RAY_gcs_server_port_wait_time_s"
JOIN_WAIT_SECONDS = 5

#: Object store of the embedded Ray instance (bytes): results stream through it, so it stays modest.
EMBEDDED_OBJECT_STORE = 256 * 1024**2


class ChunkFailed(UserError, RuntimeError):
    """A chunk could not be played after all retries (workers or nodes kept dying)."""


class ResultLost(RuntimeError):
    """A finished chunk's result was lost with its node; the chunk is played again."""


class ClusterError(UserError, RuntimeError):
    """Ray could not be started or the cluster at ``--address`` could not be joined."""


class RayPool:
    """Ray for playing chunks: an embedded local instance (default) or an existing cluster.

    ``workers`` bounds parallelism (embedded: the instance's CPUs, default all cores; cluster: the
    number of chunks in flight, default twice the cluster's CPUs).  ``task`` is the function run on
    each chunk (default :func:`play_chunk`; a module-level function, one CPU per call).  Use it as a
    context manager; it shuts down only a Ray instance it started itself.
    """

    def __init__(
        self,
        workers: int | None = None,
        address: str | None = None,
        max_retries: int = 3,
        object_store_memory: int = EMBEDDED_OBJECT_STORE,
        task: Callable[[Any], Any] = play_chunk,
    ) -> None:
        self.task = task
        self.workers = workers
        self.address = address
        self.max_retries = max_retries
        self.object_store_memory = object_store_memory
        self.window = 2
        #: CPUs the chunks run on (the instance's, or ``workers`` on a cluster); set on entry.
        self.cpus = 1
        self._started = False
        self._env_restore: dict[str, str | None] = {}
        self._sigterm: Any = None
        self._remote: Any = None
        self._counted: Any = None
        self._encode: Any = None
        self._live: Any = None
        #: Called by the scheduler after every wait for results (at least every 0.25 s).
        self.on_wait: Callable[[], None] | None = None

    def live_counter(self) -> None:
        """Count finished games as the workers finish them (:meth:`live_totals`), for progress."""
        import ray

        if self._live is None:
            self._live = ray.remote(num_cpus=0)(LiveCounter).remote()

    def halt(self) -> None:
        """Ask the chunks playing to stop after their current game and return what they finished
        (they read the live counter's flag every :data:`~pipelines.chunks.LIVE_INTERVAL` s); a no-op
        without one."""
        import ray

        if self._live is not None:
            with contextlib.suppress(ray.exceptions.RayError):
                ray.get(self._live.halt.remote(), timeout=2.0)

    def live_totals(self) -> tuple[int, int] | None:
        """(games, deals) the workers have finished so far (chunks played again count twice), or
        ``None`` without a live counter or when it does not answer at once."""
        import ray

        if self._live is None:
            return None
        try:
            return tuple(ray.get(self._live.read.remote(), timeout=1.0))  # type: ignore[return-value]
        except (ray.exceptions.RayError, TimeoutError):  # progress is never worth failing a run for
            return None

    def __enter__(self) -> RayPool:
        import ray

        # ray.init installs its own SIGTERM handler (exit status 15 and a dump, or a node shutdown);
        # the caller's handler (the CLI stops like Ctrl-C: manifest flushed, Ray shut down) is put back.
        if threading.current_thread() is threading.main_thread():
            self._sigterm = signal.getsignal(signal.SIGTERM)
        try:
            self._init(ray)
        finally:
            self._keep_sigterm()
        if self.address and self.workers:
            self.window = self.cpus = self.workers
        else:
            self.cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
            self.window = max(2, 2 * self.cpus)
        self._remote = self._task_remote(self.task)
        return self

    def _keep_sigterm(self) -> None:
        """Put back the SIGTERM handler that was there before Ray started (a Python one only)."""
        if callable(self._sigterm) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._sigterm)

    def _init(self, ray: Any) -> None:
        quiet = {"configure_logging": True, "logging_level": logging.ERROR, "log_to_driver": False}
        if ray.is_initialized():
            # The caller's own Ray session (e.g. a job that started one): it must be the one asked for.
            current = ray.get_runtime_context().gcs_address
            if self.address and self.address.rsplit(":", 1)[-1] != str(current).rsplit(":", 1)[-1]:
                raise ClusterError(
                    f"address '{self.address}': this process is already connected to Ray at {current}"
                )
        elif self.address:
            _probe(self.address)
            with _CapturedStderr() as log, _join_wait():  # Ray's C++ client logs each failed try there
                try:
                    ray.init(address=self.address, **quiet)
                except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
                    raise cluster_error(self.address, exc, log.read()) from None
            self._started = True
        else:
            # Only this embedded instance runs without token auth, so every socket of it listens on
            # loopback alone: Ray binds its servers to 127.0.0.1 only when that is the node's IP, and on
            # Linux it turns 127.0.0.1 into the machine's address unless "clusters" are off (its
            # Windows/macOS mode: one machine, loopback) -- in this process (the constant, read at
            # import) and in the processes it starts (the variable).  tests/pipelines/test_ray_security.py
            # checks the listening sockets of every process of the instance.
            keys = ("RAY_AUTH_MODE", "RAY_USAGE_STATS_ENABLED", _LOOPBACK_ENV)
            self._env_restore = {k: os.environ.get(k) for k in keys}
            os.environ["RAY_AUTH_MODE"] = "disabled"
            os.environ[_LOOPBACK_ENV] = "0"
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            constants = ray._private.ray_constants
            clusters = constants.ENABLE_RAY_CLUSTER
            constants.ENABLE_RAY_CLUSTER = False
            try:
                ray.init(
                    address="local",
                    _node_ip_address="127.0.0.1",
                    num_cpus=self.workers or _cores(),
                    include_dashboard=False,
                    object_store_memory=self.object_store_memory,
                    **quiet,
                )
            except Exception as exc:
                self._restore_env()
                raise ClusterError(f"cannot start embedded Ray ({exc})") from None
            finally:
                constants.ENABLE_RAY_CLUSTER = clusters
            self._started = True

    def _task_remote(self, fn: Callable[..., Any], **options: Any) -> Any:
        import ray

        return ray.remote(fn).options(
            num_cpus=1,
            max_retries=self.max_retries,
            retry_exceptions=False,
            name=f"fivehundred.{getattr(fn, '__name__', 'task')}",
            **options,
        )

    def submit_counted(self, chunk: GameChunk) -> tuple[Any, Any]:
        """Start :func:`play_chunk_counted` on a chunk; returns (counts ref, table ref)."""
        if self._counted is None:
            self._counted = self._task_remote(play_chunk_counted, num_returns=2)
        if self._live is not None:
            chunk = replace(chunk, counter=self._live)
        counts, table = self._counted.remote(chunk)
        return counts, table

    def submit_encode(self, tables: Sequence[Any], run_id: str, first_deal_id: int, keep: int) -> Any:
        """Start :func:`encode_part` on a chunk's tables in the object store; returns the bytes' ref."""
        if self._encode is None:
            self._encode = self._task_remote(encode_part)
        return self._encode.remote(run_id, first_deal_id, keep, *tables)

    def _restore_env(self) -> None:
        for key, value in self._env_restore.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._env_restore = {}

    def __exit__(self, *exc: object) -> None:
        import ray

        if self._live is not None:  # the progress actor's process ends with the pool, not later
            with contextlib.suppress(Exception):
                ray.kill(self._live, no_restart=True)
            self._live = None
        if self._started:
            ray.shutdown()
            self._started = False
        self._restore_env()
        if self._sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._sigterm)  # not Ray's handler, now that Ray is gone
            self._sigterm = None

    def submit(self, chunk: GameChunk) -> Any:
        """Start a chunk; returns its object ref."""
        return self._remote.remote(chunk)

    def get(self, ref: Any, chunk: Any) -> Any:
        """The result of a finished chunk; user errors come back as themselves.

        Raises :class:`ResultLost` when the result was lost with its node (the caller resubmits),
        :class:`ChunkFailed` when the task itself failed after its retries.
        """
        import ray

        key = getattr(chunk, "key", "?")
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, UserError):
                raise cause from None
            raise ChunkFailed(f"chunk {key} failed: {_one_line(exc)}") from exc
        except (ray.exceptions.ObjectLostError, ray.exceptions.NodeDiedError) as exc:
            raise ResultLost(f"chunk {key}: {_one_line(exc)}") from exc
        except ray.exceptions.RayError as exc:
            tries = self.max_retries
            raise ChunkFailed(f"chunk {key} failed after {tries} retries: {_one_line(exc)}") from exc

    def wait(self, refs: list[Any], timeout: float) -> list[Any]:
        """The refs among ``refs`` that have finished (at least one unless ``timeout`` passes)."""
        import ray

        ready, _ = ray.wait(refs, num_returns=1, timeout=timeout, fetch_local=False)
        return ready


@contextlib.contextmanager
def _join_wait() -> Any:
    """Ray's wait for a joined cluster's GCS set to :data:`JOIN_WAIT_SECONDS` (unless the user set
    it) while ``ray.init`` joins, then put back."""
    if _JOIN_WAIT_ENV in os.environ:
        yield
        return
    os.environ[_JOIN_WAIT_ENV] = str(JOIN_WAIT_SECONDS)
    try:
        yield
    finally:
        os.environ.pop(_JOIN_WAIT_ENV, None)


def _probe(address: str) -> None:
    """Fail fast, in one line, when nothing listens at a cluster address (Ray would retry for minutes)."""
    target = address.split("://", 1)[-1]
    if target in ("auto", "local") or ":" not in target:
        return
    host, _, port_text = target.rpartition(":")
    try:
        port = int(port_text)
    except ValueError:
        raise ClusterError(f"address '{address}': expected HOST:PORT of the Ray head") from None
    try:
        with socket.create_connection((host, port), timeout=5):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterError(f"address '{address}': cannot reach a Ray head there ({reason})") from None


_AUTH_FAILED = ("InvalidAuthToken", "UNAUTHENTICATED", "Unauthenticated")


def _token_configured() -> bool:
    """Whether this process would present a token (``RAY_AUTH_TOKEN``, its path, ``~/.ray/auth_token``)."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.expanduser("~/.ray/auth_token")
    return os.path.isfile(path)


def cluster_error(address: str, exc: BaseException, log: str = "") -> ClusterError:
    """One line for a failed join of the cluster at ``address``, saying when the token is at fault.

    ``log`` is what Ray wrote on stderr meanwhile (its C++ client reports refused tokens only there).
    """
    text = f"{exc}\n{log}"
    if any(mark in text for mark in _AUTH_FAILED) or "no token" in text.lower():
        if not _token_configured() or "no token" in text.lower():
            return ClusterError(
                f"address '{address}': the cluster requires token authentication and no authentication "
                "token is set (export RAY_AUTH_MODE=token and the cluster's RAY_AUTH_TOKEN; docs/simulate.md)"
            )
        return ClusterError(
            f"address '{address}': the cluster refused the authentication token "
            "(RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH is not the cluster's token)"
        )
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ClusterError(f"address '{address}': cannot join the Ray cluster ({first})")


class _CapturedStderr:
    """File descriptor 2 redirected to a temporary file; replayed on success, kept for the error."""

    def __enter__(self) -> _CapturedStderr:
        import tempfile

        self.file = tempfile.TemporaryFile(mode="w+b")
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def read(self) -> str:
        self.file.flush()
        self.file.seek(0)
        return self.file.read().decode("utf-8", "replace")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        if kind is None:  # joined: Ray's warnings are shown as usual
            sys.stderr.write(self.read())
        self.file.close()


def _cores() -> int:
    """CPUs this process may use (the affinity mask, not the machine's count, where known)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"
