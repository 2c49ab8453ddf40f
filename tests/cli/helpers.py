"""Running the command line in the test's own process."""

from __future__ import annotations

import contextlib
import io
import sys
import traceback

from fivehundred.cli.main import main


def in_process(args: list[str]) -> tuple[int, str, str]:
    """``fivehundred ARGS`` through the entry point, as the installed command runs it: the exit
    status, stdout and stderr (a traceback, as the real process would print it, exits 1)."""
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["fivehundred", *args]
    status: int = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code
                status = code if isinstance(code, int) else (0 if code is None else 1)
            except Exception:  # what the real process would print as a traceback, exit 1
                traceback.print_exc(file=err)
                status = 1
    finally:
        sys.argv = argv
    return status, out.getvalue(), err.getvalue()


class Terminal:
    """A command run in a pseudo-terminal, as a person runs it: what it prints, keys typed to it."""

    def __init__(self, args: list[str], cwd: str | None = None) -> None:
        import os
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the command, its stdin and stdout the terminal
            if cwd:
                os.chdir(cwd)
            os.execv(sys.executable, [sys.executable, "-m", "fivehundred.cli.main", *args])
        self.seen = ""

    def read_until(self, text: str, timeout: float = 60.0) -> str:
        """What it printed until ``text`` appears (``AssertionError`` after ``timeout`` seconds)."""
        import os
        import select
        import time

        end = time.monotonic() + timeout
        while text not in self.seen:
            left = end - time.monotonic()
            assert left > 0, f"{text!r} not printed; got: {self.seen[-500:]!r}"
            if select.select([self.fd], [], [], min(left, 0.5))[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the command ended
                    chunk = b""
                if not chunk:
                    assert text in self.seen, f"{text!r} not printed; got: {self.seen[-500:]!r}"
                self.seen += chunk.decode(errors="replace")
        return self.seen

    def type(self, keys: str) -> None:
        """Type ``keys`` (``\\x03`` is Ctrl-C, ``\\x04`` Ctrl-D)."""
        import os

        os.write(self.fd, keys.encode())

    def wait(self, timeout: float = 60.0) -> int:
        """The exit status, once it ends (what it still prints is read meanwhile)."""
        import os
        import time

        end = time.monotonic() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            assert time.monotonic() < end, f"still running; printed: {self.seen[-500:]!r}"
            try:
                self.read_until("\0", 0.3)  # drain the output while it runs
            except AssertionError:
                pass
