"""``fivehundred tournament``: the command prints the live line on stderr and the tables on stdout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

CONFIG = """
name = "cli"
seed = 12
[[entries]]
name = "heuristic"
strategy = "heuristic"
[[entries]]
name = "random"
strategy = "random"
[stop]
rule = "sprt"
elo0 = 0
elo1 = 100
max_pairs = 100
[run]
chunk_pairs = 2
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fivehundred.cli.main", "tournament", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_tournament_command_runs_and_resumes(tmp_path: Path) -> None:
    cfg = tmp_path / "cli.toml"
    cfg.write_text(CONFIG)
    out = tmp_path / "out"
    proc = run(str(cfg), f"--out={out}", "--workers=0")
    assert proc.returncode == 0, proc.stderr
    live = proc.stderr.strip().splitlines()
    assert live and all(line.startswith("heuristic vs random: games ") for line in live)
    assert "LLR" in live[-1] and live[-1].endswith("H1")
    assert "| 1 | heuristic | heuristic.v1 |" in proc.stdout
    assert (out / "tables" / "tournament.md").read_text() in proc.stdout
    before = {p.name: p.read_bytes() for p in (out / "deals").glob("*.parquet")}
    again = run(str(cfg), f"--out={out}", "--workers=0")  # finished: nothing is played again
    assert again.returncode == 0 and again.stdout == proc.stdout
    assert {p.name: p.read_bytes() for p in (out / "deals").glob("*.parquet")} == before
