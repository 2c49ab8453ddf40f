"""``fivehundred dd`` as a user runs it: ``--out -`` writes the solved lines to standard output."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from tests.pipelines.dd_golden import GOLDEN

#: 8H, the declarer holds the two top trumps left: both tricks, 6 + 2 (docs/dd.md's example).
POSITION, _ = GOLDEN[0]


def test_out_dash_writes_to_standard_output(tmp_path: Path, monkeypatch: object) -> None:
    src = tmp_path / "p.jsonl"
    src.write_text(json.dumps(POSITION) + "\n" + json.dumps(POSITION) + "\n")
    monkeypatch.chdir(tmp_path)  # type: ignore[attr-defined]
    result = CliRunner().invoke(app, ["dd", str(src), "--out", "-"])
    assert result.exit_code == 0, result.output
    assert [json.loads(x) for x in result.stdout.splitlines()] == [{**POSITION, "dd_tricks": 8}] * 2
    assert result.stderr.strip() == "2 positions solved"
    assert not (tmp_path / "-").exists()
    to_file = CliRunner().invoke(app, ["dd", str(src), "--out", "o.jsonl"])
    assert to_file.exit_code == 0 and (tmp_path / "o.jsonl").read_text() == result.stdout
