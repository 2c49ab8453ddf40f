"""The small things a person trips on in a first hour, driven as a user drives them: help texts,
the bot list, one wording for ranges, a failed ``play`` that leaves nothing, tournament lines that
fit the terminal, its length on the command line, a perfect score's rating."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.cli.progress import wrap_parts
from fivehundred.cli.tournament import standings
from fivehundred.strategies import available

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
#: reStructuredText (Sphinx) markup that must not reach a --help screen or --describe.
MARKUP = re.compile(r"``|:(func|class|mod|meth|attr|data):|\*\*")
#: Internal history that no user-facing text names.
HISTORY = re.compile(r"\b(issue|session)s? \d+", re.I)


def _commands() -> list[str]:
    import typer

    return sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", [[], *[[c] for c in _commands()]], ids=lambda c: " ".join(c) or "top")
def test_help_has_no_markup_and_no_history(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert not MARKUP.search(result.output), MARKUP.search(result.output)
    assert not HISTORY.search(result.output), HISTORY.search(result.output)


def test_strategies_says_what_each_bot_is_in_one_line() -> None:
    result = runner.invoke(app, ["strategies"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == available()
    assert all(len(line.split(maxsplit=1)) == 2 and len(line) <= 100 for line in lines), lines


def test_describe_names_no_internal_history() -> None:
    result = runner.invoke(app, ["strategies", "--describe"])
    assert result.exit_code == 0
    assert not HISTORY.search(result.stdout), HISTORY.search(result.stdout)
    assert not MARKUP.search(result.stdout), MARKUP.search(result.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--deals", "0"],
        ["replay", "r", "--game", "0"],
        ["tournament", "--entry", "random", "--entry", "random", "--pairs", "0"],
        ["hand", "JK JH JD AH KH QH TH 5C 5S 6D", "--deals", "0"],
        ["play", "--games", "0"],
        ["simulate", "--strategies", "random(max_raise=0)", "--games", "1", "--out", "x"],
    ],
    ids=lambda a: a[0],
)
def test_a_number_below_its_range_reads_must_be_at_least(args: list[str], tmp_path: Path) -> None:
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2, result.output
    assert "must be at least 1" in result.stderr, result.stderr
    assert "Input should be" not in result.stderr


def test_play_with_a_bad_first_line_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "game"
    bad = runner.invoke(app, ["play", "--seed", "6", "--out", str(out)], input="zz\n")
    assert bad.exit_code == 2 and "error: line 1: 'zz' is not a bid of pagat-au" in bad.stderr
    assert not out.exists()
    again = runner.invoke(app, ["play", "--seed", "6", "--out", str(out)], input="1\n" * 3000)
    assert again.exit_code == 0, again.output  # the same command runs: nothing blocks it
    assert (out / "manifest.json").exists()


def test_wrapped_parts_fit_the_width() -> None:
    parts = ["LLR 1.23 (-2.94, 2.94) [0, 20]", "a vs b", "Elo +35.2 ± 20.1", "x" * 50, "y" * 90]
    for width in (40, 60, 100):
        lines = wrap_parts(parts, width)
        assert all(len(line) <= width or line.strip() in parts for line in lines)
        assert " | ".join(line.strip() for line in lines).replace(" | ", "|") == "|".join(parts)


def test_tournament_on_the_command_line_fits_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["tournament", "--entry", "random", "--entry", "random(pass_probability=0.5)", "--pairs", "3"]
    result = runner.invoke(app, [*args, "--workers", "0", "--out", "t"], env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    assert "games 6 (3 pairs)" in result.stdout
    lines = [line for line in result.stdout.splitlines() if str(tmp_path) not in line]  # paths are paths
    assert max(len(line) for line in lines) <= 60, result.stdout
    assert "3 game pairs per match" in (tmp_path / "t" / "tables" / "tournament.md").read_text()


def test_a_config_tournament_length_from_the_command_line(tmp_path: Path) -> None:
    config = REPO / "configs" / "tournaments" / "heuristic-vs-random.toml"
    result = runner.invoke(
        app, ["tournament", str(config), "--pairs", "2", "--workers", "0", "--out", str(tmp_path / "t")]
    )
    assert result.exit_code == 0, result.output
    assert re.search(r"games [24] \(\d pairs\)", result.stdout)
    md = (tmp_path / "t" / "tables" / "tournament.md").read_text()
    assert "at most 2 game pairs" in md or "2 game pairs" in md


def test_a_perfect_score_shows_a_one_sided_rating() -> None:
    entries = pl.DataFrame(
        {
            "rank": [1, 2],
            "entry": ["strong", "weak"],
            "games": [20, 20],
            "score": [1.0, 0.0],
            "rating": [615.0, -615.0],
            "rating_low": [139.0, -891.0],
            "rating_high": [891.0, -139.0],
        }
    )
    lines = standings(entries)
    assert "> +139 (one-sided: all won)" in lines[1]
    assert "< -139 (one-sided: all lost)" in lines[2]
    assert "+615" not in "\n".join(lines)


def test_a_rerun_of_the_main_job_says_it_reused_the_finished_runs() -> None:
    from types import SimpleNamespace

    from fivehundred.cli.job import JobResult, _done

    def summary(session: int, resumed: int = 0) -> object:
        return SimpleNamespace(session_deals=session, resumed_chunks=resumed, resumed_partial_games=0)

    assert [_done(summary(0)), _done(summary(10, 2)), _done(summary(10))] == ["reused", "resumed", "played"]
    job = JobResult("out", runs=["out/main", "out/compare"], deals=[2009, 1921], done=["reused", "played"])
    lines = job.summary().splitlines()
    assert lines[0] == "run: out/main (2,009 deals; finished before: reused, nothing played again)"
    assert lines[1] == "run: out/compare (1,921 deals)"


def test_the_readme_sample_tournament_prints_what_the_readme_says(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "heuristic-vs-random.toml --workers 0" in x)
    pairs = re.search(r"SPRT: H1 after (\d+) pairs", line)
    assert pairs, line
    config = REPO / "configs" / "tournaments" / "heuristic-vs-random.toml"
    result = runner.invoke(app, ["tournament", str(config), "--workers", "0", "--out", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    assert " H1 | heuristic vs random" in result.stdout and f"({pairs.group(1)} pairs)" in result.stdout
