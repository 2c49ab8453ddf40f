"""``cli/app.py``: an option with an optional value (``--dd``, ``--dd par``, ``--dd RUN``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from fivehundred.cli.app import _UsageError, optional_values

FLAGS = {"--dd": ("contract", ("contract", "par"))}


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.command(cls=optional_values(FLAGS))
    def cmd(runs: list[str], dd: str | None = typer.Option(None, "--dd")) -> None:
        typer.echo(f"{dd} {runs}")

    return app


@pytest.mark.parametrize(
    ("args", "printed"),
    [
        (["R", "--dd"], "contract ['R']"),
        (["R", "--dd", "par"], "par ['R']"),
        (["R", "--dd", "contract"], "contract ['R']"),
        (["--dd", "{tmp}", "R"], "contract ['{tmp}', 'R']"),  # an existing path after a bare --dd is a run
        (["R", "--dd", "--", "par"], "contract ['R', 'par']"),
        (["R"], "None ['R']"),
    ],
)
def test_bare_valued_or_followed_by_a_run(args: list[str], printed: str, tmp_path: Path) -> None:
    fill = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(_app(), fill)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == printed.replace("{tmp}", str(tmp_path))


def test_a_word_that_is_neither_a_value_nor_a_path_is_refused(tmp_path: Path) -> None:
    command = typer.main.get_command(_app())
    for word in ("parr", str(tmp_path / "nope")):
        with pytest.raises(_UsageError, match=f"--dd '{re.escape(word)}': expected contract or par"):
            command.main(["R", "--dd", word], standalone_mode=False)
