"""Golden playthroughs: replaying the fixed games gives the committed text byte for byte."""

from __future__ import annotations

import re

import pytest

from tests.sim.playthrough import GOLDEN_GAMES, golden_path, render_game


@pytest.mark.parametrize(("variant", "seed", "game", "limit"), GOLDEN_GAMES)
def test_golden_playthrough(variant: str, seed: int, game: int, limit: int) -> None:
    path = golden_path(variant, seed, game, limit)
    assert path.exists(), f"{path} missing: run python scripts/regen_golden.py"
    expected = path.read_bytes()
    got = render_game(variant, seed, game, limit).encode()
    assert got == expected, f"{path.name} differs: run python scripts/regen_golden.py and review the diff"


def test_golden_files_are_all_listed() -> None:
    listed = {golden_path(*g).name for g in GOLDEN_GAMES}
    on_disk = {p.name for p in golden_path(*GOLDEN_GAMES[0]).parent.glob("*.txt")}
    assert on_disk == listed


#: What each golden game was chosen for (tests/sim/playthrough.py), as a pattern its text must show.
CHOSEN_FOR = {
    ("pagat-au", 7, 2, 0): r"joker named by seat \d: [SCDH]",
    ("pagat-au", 7, 4, 0): r"\d:JK=[SCDH] (?s:.*)fell_to_-500",
    ("pagat-au", 7, 20, 0): r"contract OMIS by seat \d\n(?s:.*)declarer side took [1-9]",
    ("pagat-au", 7, 71, 0): r"reached_500",
    ("club-004", 7, 21, 0): r"auction (?:\d:\S+ )*(\d):\S+ (?:\d:P ){3}\1:\d+(?:NT|[SCDH])\n",  # the raise
    (
        "club-004",
        7,
        91,
        0,
    ): r"declarer side took 10\n.*\ngame over after 1 deals: winner team \d \(reached_500\)",
    ("nullo", 7, 2, 0): r"joker named by seat \d: [SCDH]",
    ("north-american", 7, 0, 3): r"\d:JK=[SCDH] ",
}


@pytest.mark.parametrize(("variant", "seed", "game", "limit"), GOLDEN_GAMES)
def test_each_golden_walks_the_path_it_was_chosen_for(variant: str, seed: int, game: int, limit: int) -> None:
    pattern = CHOSEN_FOR[(variant, seed, game, limit)]
    assert re.search(pattern, golden_path(variant, seed, game, limit).read_text()), pattern
