"""Rewrite the golden playthroughs of tests/sim/golden/ and tests/strategies/golden/ (review the diff).

Usage: python scripts/regen_golden.py [--check]

Each file is one whole game for a fixed (variant, master seed, game): random bots in tests/sim/golden/
(with a deal limit for games that random bots never finish), the heuristic bot in
tests/strategies/golden/,
rendered by ``tests.sim.playthrough.render_game``.  ``--check`` rewrites nothing and exits with
status 1 if any file differs from what the engine now produces.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.sim.playthrough import (  # noqa: E402
    BOT_GOLDEN_DIR,
    BOT_GOLDEN_GAMES,
    GOLDEN_DIR,
    GOLDEN_GAMES,
    bot_golden_path,
    golden_path,
    render_game,
)


def _goldens() -> list[tuple[Path, str]]:
    """Every golden file and the text the engine and bots now produce for it."""
    out = [(golden_path(v, s, g, limit), render_game(v, s, g, limit)) for v, s, g, limit in GOLDEN_GAMES]
    out += [
        (bot_golden_path(v, s, g, bot), render_game(v, s, g, strategy=bot))
        for v, s, g, bot in BOT_GOLDEN_GAMES
    ]
    return out


def main(argv: list[str]) -> int:
    """Write (or with ``--check`` compare) every golden file; return the exit status."""
    check = "--check" in argv
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    BOT_GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    stale = 0
    for path, text in _goldens():
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
