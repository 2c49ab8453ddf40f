"""Golden playthroughs: replaying the fixed games gives the committed text byte for byte."""

from __future__ import annotations

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
