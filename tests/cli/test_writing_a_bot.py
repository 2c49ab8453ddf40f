"""docs/writing-a-bot.md as a newcomer follows it: the example bot is a real file that plays a small
duplicate match from the command line, named by its path (no package, no PYTHONPATH)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.strategies.base import StrategyConfigError, absolute_spec, check_spec, make

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "writing-a-bot.md"
EXAMPLE = REPO / "docs" / "examples" / "mybot.py"
SPEC = "docs/examples/mybot.py:MyBot"
runner = CliRunner()


def test_the_readme_links_the_guide_on_its_first_screen() -> None:
    first_screen = "\n".join((REPO / "README.md").read_text().splitlines()[:25])
    assert "docs/writing-a-bot.md" in first_screen


def test_the_guide_shows_the_example_file_as_it_is() -> None:
    """Every line of the guide's bot is a line of the file the test plays (so neither can rot alone)."""
    code = DOC.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    source = EXAMPLE.read_text().splitlines()
    missing = [line for line in code.splitlines() if line.strip() and line not in source]
    assert not missing, missing
    assert "class MyBot:" in code and code.count("    def ") >= 4


def test_the_guide_lists_every_attribute_of_the_view() -> None:
    from fivehundred.sim.engine import SeatView

    public = {n for n in dir(SeatView) if not n.startswith("_")}
    rows = set(re.findall(r"^\| `(\w+)` \|", DOC.read_text(), re.M))
    assert public <= rows, sorted(public - rows)


def test_a_duplicate_match_with_one_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # the guide's command runs from the repository's folder
    out = tmp_path / "match"
    args = ["tournament", "--entry", SPEC, "--entry", "random", "--pairs", "2", "--workers", "0"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("mybot.v1 vs random.v1 | ")
    assert "games 4 (2 pairs)" in result.stdout
    assert re.search(r"^   [12]  mybot\.v1 ", result.stdout, re.M)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["entries"][0]["strategy"] == f"{EXAMPLE}:MyBot"  # absolute: any folder


def test_a_simulation_names_the_file_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative path is read from the working folder and recorded absolute, so a resume from
    elsewhere (or a Ray worker) loads the same file."""
    monkeypatch.chdir(REPO)
    seats = ",".join([SPEC, "random", SPEC, "random"])
    out = tmp_path / "run"
    args = ["simulate", "--strategies", seats, "--games", "3", "--seed", "4", "--workers", "0"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert [s["label"] for s in manifest["strategies"]][:2] == ["mybot.v1", "random.v1"]
    assert manifest["strategies"][0]["spec"] == f"{EXAMPLE}:MyBot"
    monkeypatch.chdir(tmp_path)  # the same run, named from another folder: resumed, not refused
    args[2] = ",".join([f"{EXAMPLE}:MyBot", "random"] * 2)
    again = runner.invoke(app, [*args, "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert json.loads((out / "manifest.json").read_text())["run_id"] == manifest["run_id"]


def test_file_specs_resolve_like_module_specs(tmp_path: Path) -> None:
    bot = tmp_path / "odd name.py"
    bot.write_text(
        "class Bot:\n"
        "    PARAMS = {'k': lambda v: None if v in (1, 2) else 'must be 1 or 2'}\n"
        "    def __init__(self, k=1): self.k = k\n"
        "    def bid(self, view, legal, rng): return legal[0]\n"
        "    discard = name_joker = play = bid\n"
    )
    name, params, label = check_spec(f"{bot}:Bot(k=2)")
    assert (name, params, label) == (f"{bot}:Bot", {"k": 2}, "odd name.py:Bot(k=2)")
    assert make(f"{bot}:Bot", {"k": 2}).k == 2
    assert absolute_spec("heuristic(aggression=1.0)") == "heuristic(aggression=1.0)"
    assert absolute_spec(f"{bot.name}:Bot") == f"{Path.cwd() / bot.name}:Bot"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nowhere/bot.py:Bot", "nowhere/bot.py does not exist"),
        ("{raises}:Bot", "running {raises} failed (ZeroDivisionError: division by zero)"),
        ("{good}:Missing", "has no attribute Missing"),
        ("{good}:helper", "names a function, not a class"),
    ],
)
def test_a_bad_bot_file_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    good = tmp_path / "good.py"
    good.write_text("def helper():\n    pass\n")
    raises = tmp_path / "raises.py"
    raises.write_text("1 / 0\n")
    spec = text.format(good=good, raises=raises)
    with pytest.raises(StrategyConfigError, match=re.escape(message.format(raises=raises))):
        check_spec(spec)
    args = ["simulate", "--strategies", spec, "--games", "1", "--out", str(tmp_path / "r")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert not (tmp_path / "r").exists()
