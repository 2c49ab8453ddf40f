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
