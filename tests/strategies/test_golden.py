"""Golden playthroughs of the bots: the fixed heuristic games give the committed text byte for byte."""

from __future__ import annotations

import pytest

from tests.sim.playthrough import BOT_GOLDEN_DIR, BOT_GOLDEN_GAMES, bot_golden_path, render_game


@pytest.mark.parametrize(("variant", "seed", "game", "strategy"), BOT_GOLDEN_GAMES)
def test_bot_golden_playthrough(variant: str, seed: int, game: int, strategy: str) -> None:
    path = bot_golden_path(variant, seed, game, strategy)
    assert path.exists(), f"{path} missing: run python scripts/regen_golden.py"
    got = render_game(variant, seed, game, strategy=strategy).encode()
    assert got == path.read_bytes(), (
        f"{path.name} differs: run python scripts/regen_golden.py, review the diff"
    )


def test_bot_golden_files_are_all_listed() -> None:
    listed = {bot_golden_path(*g).name for g in BOT_GOLDEN_GAMES}
    assert {p.name for p in BOT_GOLDEN_DIR.glob("*.txt")} == listed


@pytest.mark.parametrize(("variant", "seed", "game", "strategy", "paths"), [
    ("pagat-au", 7, 1, "heuristic.v1", ("contract OMIS", "thrown in")),
    ("pagat-au", 7, 3, "heuristic.v1", ("NT by seat",)),
    ("club-004", 7, 3, "heuristic.v1", ("contract MIS by",)),
    ("three-player", 7, 3, "heuristic.v1", ("contract OMIS",)),
    ("six-player", 7, 0, "heuristic.v1", ("contract OMIS",)),
    ("two-jokers", 7, 0, "heuristic.v1", ("NT by seat", "contract OMIS")),
])  # fmt: skip
def test_each_bot_golden_walks_the_paths_it_was_chosen_for(
    variant: str, seed: int, game: int, strategy: str, paths: tuple[str, ...]
) -> None:
    text = bot_golden_path(variant, seed, game, strategy).read_text()
    for path in paths:
        assert path in text, f"{variant} game {game} no longer shows {path!r}: choose another game"
