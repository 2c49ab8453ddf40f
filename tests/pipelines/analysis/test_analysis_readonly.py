"""A run folder that cannot be written (read-only: the sandbox runs as root, so the write is made to
fail) still gets its what-if and DD tables: the replays and solves are kept in memory, nothing is
cached, and the analysis says so once per sidecar (``notice``; on stderr from the command line)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from fivehundred.pipelines import rundir
from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from tests.cli.helpers import in_process

KW = {"what_if": "misere", "sample": 6, "dd": "contract", "dd_sample": 5}
SIDECARS = ("whatif_misere", "dd")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("readonly") / "run"
    cfg = make_config(
        None, variant="pagat-au", strategies="heuristic", seed=5, games=2, workers=0, out=str(out)
    )
    run_simulation(cfg)
    return out


def _read_only(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every write into a sidecar folder fails as on a read-only folder; returns the refused paths."""
    refused: list[str] = []
    real = rundir.RunDir.write

    def write(self: rundir.RunDir, rel: str, data: bytes) -> None:
        if rel.split("/")[0] in SIDECARS:
            refused.append(rel)
            raise rundir.StorageError(f"{self.display}/{rel}: cannot write (Permission denied)")
        real(self, rel, data)

    monkeypatch.setattr(rundir.RunDir, "write", write)
    return refused


def _fresh(run: Path, to: Path) -> Path:
    shutil.copytree(run, to, ignore=shutil.ignore_patterns(*SIDECARS, "stats"))
    return to


def test_a_read_only_run_still_gets_its_tables(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    want = analyze([_fresh(run, tmp_path / "rw")], tmp_path / "s1", **KW)
    ro = _fresh(run, tmp_path / "ro")
    refused = _read_only(monkeypatch)
    notes: list[str] = []
    got = analyze([ro], tmp_path / "s2", notice=notes.append, **KW)
    assert sorted(got) == sorted(want)
    for name in want:
        assert_frame_equal(got[name], want[name], check_exact=True)
    assert {r.split("/")[0] for r in refused} == set(SIDECARS)
    assert len(refused) == 2, "after the first refused part nothing more is tried"
    assert len(notes) == 2 and all("\n" not in n for n in notes)
    for folder, note in zip(SIDECARS, notes, strict=True):
        assert f"{ro}/{folder}/part-00000.parquet: cannot write (Permission denied)" in note
        assert "kept in memory" in note
        assert not list((ro / folder).glob("*.parquet")), "nothing cached"


def test_the_command_line_says_it_once_and_succeeds(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ro = _fresh(run, tmp_path / "ro")
    _read_only(monkeypatch)
    args = ["analyze", str(ro), "--what-if", "misere", "--sample", "6", "--out", str(tmp_path / "out")]
    status, out, err = in_process(args)
    assert status == 0, err
    lines = [line for line in err.splitlines() if "cannot write" in line]
    assert lines == [f"{ro}/whatif_misere/part-00000.parquet: cannot write (Permission denied): nothing "
                     "cached there, the results are kept in memory for this analysis only"]  # fmt: skip
    assert "misere_whatif" in out and pl.read_parquet(tmp_path / "out" / "misere_whatif.parquet").height
