"""The Typer application object shared by the command modules, and how every failure is reported.

Every way a command can fail ends in one line on stderr, never a traceback (:meth:`_Group.main`):

- a :class:`~sim.errors.UserError` (bad config, unknown name, missing file) and every Click/Typer
  usage error (unknown option, a value that is not a number, a missing argument) print
  ``error: ...`` and exit with status 2;
- an operating-system error (no space left, no permission) prints ``error: PATH: reason``, exit 2;
- Ctrl-C prints ``interrupted``, exit 130;
- anything else is a bug: ``error: internal error: ...`` with exit status 1 (set
  ``FIVEHUNDRED_TRACEBACK=1`` to see the traceback).

The same happens under :class:`typer.testing.CliRunner` as in the installed command, because the
handling lives in the command group itself rather than in :func:`cli.main.main`.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from fivehundred.sim.errors import UserError

# The Click that Typer runs on: Click itself, or (Typer >= 0.22) Typer's own copy of it.
_click = sys.modules[typer.BadParameter.__module__]
_ClickException: type[Exception] = _click.ClickException
_UsageError: type[Exception] = _click.UsageError
_NoArgsIsHelp: type[Exception] | None = getattr(_click, "NoArgsIsHelpError", None)
_ABORTS: tuple[type[BaseException], ...] = (
    typer.Abort,
    getattr(_click, "Abort", typer.Abort),
    KeyboardInterrupt,
)

#: Exit status of a user mistake (as Click gives its usage errors).
EXIT_USAGE = 2
#: Exit status of an internal error (a bug).
EXIT_BUG = 1
EXIT_INTERRUPTED = 130


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines too) made one space."""
    return " ".join(str(text).split())


#: Typer's range messages in the project's one wording (``must be at least 1``).
_RANGE_WORDS = (
    (re.compile(r"Input should be greater than or equal to (\S+)"), r"must be at least \1"),
    (re.compile(r"Input should be less than or equal to (\S+)"), r"must be at most \1"),
    (re.compile(r"Input should be greater than (\S+)"), r"must be more than \1"),
    (re.compile(r"Input should be less than (\S+)"), r"must be less than \1"),
)


def _usage_message(exc: Exception) -> str:
    message = one_line(exc.format_message())  # type: ignore[attr-defined]
    for pattern, words in _RANGE_WORDS:
        message = pattern.sub(words, message)
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, _UsageError) and ctx is not None:
        message = message.rstrip(".")
        message = f"{ctx.command_path}: {message[:1].lower()}{message[1:]} (see {ctx.command_path} --help)"
    return message


def _fail(message: str, status: int) -> NoReturn:
    typer.echo(f"error: {one_line(message)}", err=True)
    sys.exit(status)


#: How ``--help`` names the value an option takes (Typer's own labels: ``<int>``, ``<list[Path]>``).
_VALUE_NAMES = {"int": "N", "float": "NUMBER", "str": "TEXT", "Path": "PATH", "path": "PATH", "file": "FILE"}


def value_name(param: Any) -> str | None:
    """The value of ``param`` in words for ``--help``: ``N``, ``PATH``, ``TEXT``; nothing for a flag.

    A repeatable option reads ``PATH (repeatable)``; a choice lists its values (``a|b``).
    """
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    if getattr(param, "metavar", None):
        many = getattr(param, "multiple", False) and "repeatable" not in str(param.metavar)
        return str(param.metavar) + (" (repeatable)" if many else "")
    desc = getattr(param, "type_descriptor", None)
    if desc is None:
        return None
    if desc.is_choice:
        return "|".join(str(c) for c in desc.choices or ())
    if desc.is_path:
        label = "PATH"
    else:
        annotation = desc.annotation
        args = getattr(annotation, "__args__", None)
        inner = args[0] if desc.is_list and args else annotation
        label = _VALUE_NAMES.get(getattr(inner, "__name__", str(inner)), "VALUE")
    if desc.is_list or getattr(param, "multiple", False):
        label += " (repeatable)"
    return label


def _argument_usage(param: Any) -> str:
    """An argument on the usage line: ``RUN_DIR`` when required, ``[RUN_DIR]`` when not."""
    name = str(param.metavar or param.name).upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


# Typer labels values by their Python annotation; the help reads them in words instead.
TyperOption.display_type_rich = lambda self, ctx: value_name(self)  # type: ignore[method-assign]
TyperArgument.display_type_rich = lambda self, ctx: value_name(self)  # type: ignore[method-assign]
TyperArgument._usage_display_name = _argument_usage  # type: ignore[method-assign]


def _given(param: Any, opts: dict[str, Any]) -> bool:
    """Whether the command line (or the environment, or a default) supplies ``param``."""
    if opts.get(param.name) not in (None, (), []):
        return True
    return param.default is not None or bool(param.envvar and os.environ.get(str(param.envvar)))


class _Command(TyperCommand):
    """A command that reports every missing required argument and option in one error."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse ``args``; a missing required parameter is reported with all the others missing."""
        try:
            return super().parse_args(ctx, list(args))
        except _click.UsageError as exc:
            if exc.ctx is None:  # click's parser raises some (an option without its value) bare
                exc.ctx = ctx
            if not isinstance(exc, _click.MissingParameter):
                raise
            opts, _rest, _order = self.make_parser(ctx).parse_args(args=list(args))
            missing = [p for p in self.get_params(ctx) if p.required and not _given(p, opts)]
            if not missing:
                raise
            names = ", ".join(
                p.opts[0] if isinstance(p, TyperOption) else str(p.metavar or p.name).upper() for p in missing
            )
            raise _click.UsageError(f"missing {names}", ctx=ctx) from None


def optional_values(flags: Mapping[str, tuple[str, Sequence[str]]]) -> type[TyperCommand]:
    """A command class (``app.command(..., cls=...)``) whose options in ``flags`` (``{"--dd":
    ("contract", ("contract", "par"))}``) may be given bare (``--dd``: the first value) or followed
    by one of their values (``--dd par``); a next word that is an option or an existing path is left
    alone (``--dd RUN``), any other is refused as a wrong value (``--dd parr``)."""

    class _OptionalValues(_Command):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            out: list[str] = []
            i = 0
            while i < len(args):
                a = args[i]
                if a in flags:
                    default, choices = flags[a]
                    nxt = args[i + 1] if i + 1 < len(args) else None
                    if nxt in choices:
                        a, i = f"{a}={nxt}", i + 1
                    elif nxt is None or nxt.startswith("-") or "://" in nxt or os.path.exists(nxt):
                        a = f"{a}={default}"
                    else:
                        raise _click.UsageError(
                            f"{a} {nxt!r}: expected {' or '.join(choices)} "
                            f"(nor is there a run directory {nxt!r})",
                            ctx=ctx,
                        )
                elif a == "--":
                    out += args[i:]
                    break
                out.append(a)
                i += 1
            return super().parse_args(ctx, out)

    return _OptionalValues


class _Group(TyperGroup):
    """The top-level group: Typer's, with every failure turned into one ``error:`` line."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line; with ``standalone_mode`` (the default) exit with its status."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _ClickException as exc:
            if _NoArgsIsHelp is not None and isinstance(exc, _NoArgsIsHelp):  # bare `fivehundred`
                typer.echo(exc.ctx.get_help())  # type: ignore[attr-defined]
                sys.exit(0)
            _fail(_usage_message(exc), EXIT_USAGE)
        except _ABORTS:
            typer.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except UserError as exc:
            _fail(str(exc), EXIT_USAGE)
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # the reader went away (`| head`): nothing more to say
                sys.exit(1)
            where = f"{exc.filename}: " if exc.filename else ""
            _fail(f"{where}{exc.strerror or exc}", EXIT_USAGE)
        except Exception as exc:
            if os.environ.get("FIVEHUNDRED_TRACEBACK"):
                traceback.print_exc()
            _fail(
                f"internal error: {type(exc).__name__}: {exc} (a bug: FIVEHUNDRED_TRACEBACK=1 shows where)",
                EXIT_BUG,
            )
        sys.exit(status if isinstance(status, int) else 0)


app = typer.Typer(
    name="fivehundred",
    help="Five Hundred (500) simulation, statistics and reports.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=_Group,
)
_command = app.command


def _command_with_all_missing(*args: Any, **kwargs: Any) -> Any:
    """``app.command`` whose commands report all missing parameters at once (:class:`_Command`)."""
    kwargs.setdefault("cls", _Command)
    return _command(*args, **kwargs)


app.command = _command_with_all_missing  # type: ignore[method-assign]


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM does what Ctrl-C does now: Python's default raises KeyboardInterrupt; a run that
    halts gracefully on the first Ctrl-C (``run_simulation``) does the same on SIGTERM."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not _terminate:
        handler(signal.SIGINT, frame)
    else:
        raise KeyboardInterrupt


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (a scheduler, ``kill``) stops like Ctrl-C meanwhile: committed work recorded, Ray shut down.

    :class:`~pipelines.raypool.RayPool` puts this handler back after ``ray.init`` (which installs its own).
    """
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
