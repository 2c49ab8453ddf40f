"""``fivehundred tournament``: the command prints the live line on stderr and the tables on stdout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.strategies.isolated_bots import entries_toml

ROOT = Path(__file__).resolve().parents[3]

CONFIG = (
    'name = "cli"\nseed = 12\n'
    'stop = { rule = "sprt", elo0 = 0, elo1 = 100, max_pairs = 100 }\n'
    "run = { chunk_pairs = 2 }\n" + entries_toml(("heuristic", "heuristic"), ("random", "random"))
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fivehundred.cli.main", "tournament", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


@pytest.mark.slow  # the command twice in real processes (the resume itself: test_tournament.py)
def test_tournament_command_runs_and_resumes(tmp_path: Path) -> None:
    cfg = tmp_path / "cli.toml"
    cfg.write_text(CONFIG)
    out = tmp_path / "out"
    proc = run(str(cfg), f"--out={out}", "--workers=0")
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr  # not a terminal: plain lines, if any
    lines = proc.stdout.splitlines()
    assert sum("heuristic vs random" in line for line in lines) == 1, proc.stdout  # the result, once
    block = lines[: lines.index("")]  # the match's result, wrapped to the width (80 off a terminal)
    assert all(len(line) <= 80 for line in block) and len(block) > 1, block
    final = " | ".join(line.strip() for line in block)
    assert final.startswith("LLR ") and " H1 | heuristic vs random | " in final  # the LLR and bounds first
    assert "Elo > +" in final and "(one-sided)" in final and "inf" not in final
    assert any(line.split()[:2] == ["1", "heuristic"] for line in lines)  # the standings, short
    assert "penta_0" not in proc.stdout and "llr_upper" not in proc.stdout  # the wide table stays in the file
    assert "penta_0" in (out / "tables" / "tournament.md").read_text()
    before = {p.name: p.read_bytes() for p in (out / "deals").glob("*.parquet")}
    again = run(str(cfg), f"--out={out}", "--workers=0")  # finished: nothing is played again
    assert again.returncode == 0 and again.stdout == proc.stdout
    assert {p.name: p.read_bytes() for p in (out / "deals").glob("*.parquet")} == before


def test_live_line_on_a_terminal_is_rewritten_in_place_and_fits(tmp_path: Path) -> None:
    import shutil

    script = shutil.which("script")
    if script is None:
        import pytest

        pytest.skip("no script(1) for a pseudo-terminal")
    cfg = tmp_path / "cli.toml"
    cfg.write_text(CONFIG)
    main = f"{sys.executable} -m fivehundred.cli.main"
    cmd = f"stty cols 60; {main} tournament {cfg} --out={tmp_path / 'o'} --workers=0"
    proc = subprocess.run(
        [script, "-qc", cmd, "/dev/null"], capture_output=True, cwd=ROOT, check=False, timeout=600
    )
    out = proc.stdout.decode()  # bytes: text mode would turn the carriage returns into newlines
    assert proc.returncode == 0, out
    live = [seg for seg in out.split("\r\x1b[2K") if seg.startswith("LLR ") and "\n" not in seg]
    # The line was written in place (erased and rewritten; how often depends on the machine's speed).
    assert len(live) >= 1 and out.count("\r\x1b[2K") >= 2, out
    assert all(len(seg) <= 60 for seg in live), [len(seg) for seg in live]
    result = out.rsplit("\r\x1b[2K", 1)[1]  # after the live line's last erase: the final result, once
    assert result.count("heuristic vs random") == 1 and " H1 | heuristic vs random" in result, result
    assert all(len(line) <= 60 for line in result.splitlines() if "/" not in line), result  # paths aside
