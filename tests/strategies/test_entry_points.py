"""A third-party package registers a bot through the ``fivehundred.strategies`` entry point."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import fivehundred.strategies.base as base
from fivehundred.sim import load_rules, play_game

BOT_SOURCE = '''
"""A tiny third-party bot: always the first legal action."""


class FirstLegal:
    PARAMS = {"unused": lambda v: None if isinstance(v, int) else "must be an int"}

    def __init__(self, unused=0):
        self.unused = unused

    def bid(self, view, legal, rng):
        return legal[0]

    discard = name_joker = play = bid
'''


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A distribution ``fh-example`` on ``sys.path`` with one entry point, and a fresh registry."""
    (tmp_path / "fh_example_bot.py").write_text(BOT_SOURCE)
    dist = tmp_path / "fh_example-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fh-example\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        textwrap.dedent(
            """
            [fivehundred.strategies]
            firstlegal.v1 = fh_example_bot:FirstLegal
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(base, "_entry_points_loaded", False)
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    yield
    sys.modules.pop("fh_example_bot", None)


def test_entry_point_bot_is_found_and_plays(third_party: None) -> None:
    assert "firstlegal.v1" in base.available()
    bot = base.make("firstlegal(unused=3)")
    assert bot.unused == 3 and bot.name == "firstlegal.v1"
    assert base.label("firstlegal") == "firstlegal.v1"
    rules = load_rules("pagat-au")
    records = play_game(rules, [bot, base.make("heuristic")] * 2, 1, 0)
    assert records[0]["strategies"] == ["firstlegal.v1", "heuristic.v1"] * 2
    with pytest.raises(base.StrategyConfigError) as exc:
        base.make("firstlegal(unused='x')")
    assert "must be an int" in str(exc.value)


def test_without_the_distribution_the_name_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "_entry_points_loaded", False)
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    base._REGISTRY.pop("firstlegal.v1", None)
    with pytest.raises(base.StrategyConfigError):
        base.make("firstlegal")
