"""What the fitting scripts share: write a shipped data file, or check that it is up to date."""

from __future__ import annotations

from pathlib import Path


def write_or_check(path: Path, text: str, what: str, check: bool) -> int:
    """Write ``text`` to ``path`` (exit status 0); with ``check``, write nothing and say whether the
    file already holds exactly ``text`` (0) or differs (1).  ``what`` names the file's contents."""
    if check:
        same = path.exists() and path.read_text() == text
        print(f"the shipped {what} up to date" if same else f"{path} differs from a fresh fit")
        return 0 if same else 1
    path.write_text(text)
    print(f"wrote {path}")
    return 0
