"""Rewrite the golden playthroughs of tests/sim/golden/ (review the diff before committing).

Usage: python scripts/regen_golden.py [--check]

Each file is one whole game with random bots for a fixed (variant, master seed, game) triple
(and a deal limit for games that random bots never finish),
rendered by ``tests.sim.playthrough.render_game``.  ``--check`` rewrites nothing and exits with
status 1 if any file differs from what the engine now produces.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.sim.playthrough import GOLDEN_DIR, GOLDEN_GAMES, golden_path, render_game  # noqa: E402


def main(argv: list[str]) -> int:
    """Write (or with ``--check`` compare) every golden file; return the exit status."""
    check = "--check" in argv
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    stale = 0
    for variant, seed, game, limit in GOLDEN_GAMES:
        path = golden_path(variant, seed, game, limit)
        text = render_game(variant, seed, game, limit)
        old = path.read_bytes() if path.exists() else None
        if old == text.encode():
            print(f"unchanged {path.relative_to(ROOT)}")
            continue
        stale += 1
        if check:
            print(f"differs   {path.relative_to(ROOT)}")
            continue
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(text.encode())
        tmp.replace(path)
        print(f"wrote     {path.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
