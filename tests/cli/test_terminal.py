"""What a person sees at the terminal (issue 19): help in words, discoverable rules and bots, progress
that never changes a file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fivehundred.cli.main import app
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.sim.rules import available_variants, describe_rules, load_rules, rule_differences
from fivehundred.strategies import available
from fivehundred.strategies.base import describe_params, resolve

REPO = Path(__file__).resolve().parents[2]
COMMANDS = sorted(app.registered_commands, key=lambda c: c.name or "")


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
def test_help_reads_in_words(command: str) -> None:
    status, out, _ = invoke(command, "--help")
    assert status == 0, out
    for python_type in ("<bool>", "<int>", "<str>", "<path>", "<list[", "<float>"):
        assert python_type not in out, (command, python_type)
    usage = next(line for line in out.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}" not in usage, usage  # `{run_dir}`: required arguments read RUN_DIR
    assert re.search(r"--help\s+Show this message", out)  # a flag has no value to name


def test_help_names_values_and_marks_required_arguments() -> None:
    _, out, _ = invoke("analyze", "--help")
    assert "Usage: fivehundred analyze [OPTIONS] RUN_DIR" in out
    assert "[required]" in out
    assert "RUN_DIR (repeatable)" in out  # --compare (a path or a URI)
    assert re.search(r"--sample\s+N\s", out)
    _, sim, _ = invoke("simulate", "--help")
    assert re.search(r"--overwrite\s+Replace", sim)  # no <bool>


def test_every_missing_argument_is_reported_at_once() -> None:
    status, out, err = invoke("dd")
    assert status == 2 and out == ""
    assert err.strip() == "error: fivehundred dd: missing POSITIONS, --out (see fivehundred dd --help)"
    status, _, err = invoke("dd", "somewhere.jsonl")
    assert status == 2 and "missing --out" in err and "POSITIONS" not in err.split("(see")[0]


@pytest.mark.parametrize("command", ["analyze", "simulate", "tournament"])
def test_an_option_without_its_value_names_the_command(command: str) -> None:
    """click's parser raises this one without its command: it reads like every other usage error."""
    option = {"analyze": "--compare", "simulate": "--out", "tournament": "--entry"}[command]
    status, out, err = invoke(command, option)
    assert status == 2 and out == ""
    assert err.strip() == (
        f"error: fivehundred {command}: option '{option}' requires an argument "
        f"(see fivehundred {command} --help)"
    )


def test_variants_show_prints_the_rules_in_words_and_the_differences() -> None:
    status, out, _ = invoke("variants", "show", "club-004")
    assert status == 0
    rules, base = load_rules("club-004"), load_rules("pagat-au")
    for _key, _value, words in describe_rules(rules):
        assert f"  - {words}" in out
    differences = rule_differences(rules, base)
    assert differences and "Differences from pagat-au:" in out
    for key, _old, _new, words in differences:
        assert f"  - {words} [{key}]" in out
    status, out, _ = invoke("variants", "show", "pagat-au")
    assert status == 0 and "pagat-au is the base rule set." in out


def test_variants_name_without_show_is_one_error_line_with_the_fix() -> None:
    status, out, err = invoke("variants", "two-jokers")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: ") and "fivehundred variants show two-jokers" in err


def test_variant_descriptions_do_not_cite_the_source_documents() -> None:
    for name in available_variants():
        path = REPO / "configs" / "variants" / f"{name}.toml"
        desc = tomllib.loads(path.read_text()).get("description", "")
        assert desc, name
        assert not re.search(r"\.md\b|\.pdf\b|docs/|\bseed 0\d\d\b|\bR\d+\b", desc), (name, desc)


def test_strategies_describe_lists_every_declared_parameter() -> None:
    status, out, _ = invoke("strategies", "--describe")
    assert status == 0
    for name in available():
        assert re.search(rf"^{re.escape(name)}  +\S", out, re.M)  # the name, then what it is
        _, cls = resolve(name)
        params = describe_params(name)
        assert [p.name for p in params] == list(getattr(cls, "PARAMS", {}))
        for p in params:
            assert f"  {p.name} = {p.default_text}  ({p.allowed}): {p.meaning}" in out
            assert p.meaning != "(not described)", (name, p.name)
    assert "  aggression = 0.0  (a number from -3.0 to 3.0): tricks added to every estimate" in out
    assert "  misere = true  (true or false): " in out
    assert "  nt_stoppers = 3  (a whole number between 1 and 5): " in out


def test_describe_params_defaults_are_the_constructors() -> None:
    for name in available():
        _, cls = resolve(name)
        bot = cls()
        for p in describe_params(name):
            assert getattr(bot, p.name, p.default) == p.default, (name, p.name)


def test_live_progress_comes_per_game_and_never_changes_the_files(tmp_path: Path) -> None:
    seen = []
    cfg = make_config(
        strategies="random", seed=3, games=300, chunk_size=300, workers=0, out=str(tmp_path / "a")
    )
    run_simulation(cfg, progress=seen.append)
    # Before the one chunk was committed, the deals of finished games were already reported.
    mid = [p for p in seen if p.deals == 0 and p.played_deals > 0]
    assert mid, [(p.deals, p.played_deals) for p in seen]
    assert all(p.deals_done <= p.played_deals for p in mid)
    assert seen[-1].deals_done == seen[-1].deals and seen[-1].games_done == 300
    quiet = make_config(
        strategies="random", seed=3, games=300, chunk_size=300, workers=0, out=str(tmp_path / "b")
    )
    run_simulation(quiet)
    files_a = sorted((tmp_path / "a" / "deals").glob("*.parquet"))
    files_b = sorted((tmp_path / "b" / "deals").glob("*.parquet"))
    assert [f.read_bytes() for f in files_a] == [f.read_bytes() for f in files_b]


def test_readme_says_how_to_run_the_command_and_links_stay_inside() -> None:
    readme = (REPO / "README.md").read_text()
    assert ".venv/bin/fivehundred" in readme and "source .venv/bin/activate" in readme
    assert "at least" in readme and "--deals 60000" in readme
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)]+)\)", doc.read_text()):
            assert not re.match(r"[a-z]+://", target), (doc.name, target)
