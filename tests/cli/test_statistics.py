"""``cli.statistics``: the caller decides which statistics a report is made from (reports never analyse)."""

from __future__ import annotations

import datetime
import shutil
from pathlib import Path

import pyarrow.fs as pafs
import pytest

import fivehundred.cli.statistics as statistics
from fivehundred.cli.statistics import load_statistics, make_report, open_runs
from fivehundred.pipelines.analysis import analyze
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.rundir import open_log
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.reports import ReportError


def _run(out: str, variant: str = "pagat-au", filesystem: pafs.FileSystem | None = None) -> None:
    config = make_config(
        {"strategies": "random", "seed": 4, "games": 30, "chunk_size": 10},
        variant=variant,
        out=out,
        workers=0,
    )
    run_simulation(config, filesystem=filesystem)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("stats")
    _run(str(root / "a"))
    _run(str(root / "b"), variant="club-004")
    return root / "a", root / "b"


def test_the_runs_own_statistics_are_reused(
    runs: tuple, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``RUN_DIR/stats`` covering exactly the requested runs is read; otherwise the runs are analysed."""
    a = tmp_path / "a"
    shutil.copytree(runs[0], a)
    analyze([a])  # default out: a/stats
    before = {p.name: p.read_bytes() for p in (a / "stats").iterdir()}
    calls: list[object] = []
    real = statistics.analyze
    monkeypatch.setattr(statistics, "analyze", lambda *args, **kw: calls.append(args) or real(*args, **kw))
    tables = load_statistics(open_runs([a]))
    assert calls == [] and tables["overview"].height == 1
    both = load_statistics(open_runs([a, runs[1]]))  # a/stats lacks the second run: analysed afresh
    assert len(calls) == 1 and both["overview"].height == 2
    assert {p.name: p.read_bytes() for p in (a / "stats").iterdir()} == before  # analysed elsewhere
    given = load_statistics(open_runs([a, runs[1]]), stats_dir=a / "stats")  # a folder given: read as is
    assert len(calls) == 1 and given["overview"].height == 1


def test_the_reports_package_never_imports_the_analysis() -> None:
    import ast

    root = Path(__file__).resolve().parents[2] / "reports"
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [n for n in names if "analysis" in n or n.endswith(".simulate")], path


def test_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="does not exist"):
        make_report([tmp_path / "nope"], tmp_path / "r.html")
    with pytest.raises(ReportError, match="no run directory"):
        make_report([], tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow  # two whole reports
def test_a_report_of_runs_on_an_object_store(runs: tuple, tmp_path: Path) -> None:
    fs = pafs._MockFileSystem(datetime.datetime(2020, 1, 1))
    _run("bucket/a", filesystem=fs)
    remote = open_log("bucket/a", filesystem=fs)
    result = make_report([remote], tmp_path / "remote.html")
    local = make_report([runs[0]], tmp_path / "local.html")
    assert result.tables == local.tables and result.figures == local.figures
    text = (tmp_path / "remote.html").read_text()
    assert "<dd>bucket/a</dd>" in text and "<dd>random.v1, random.v1, random.v1, random.v1</dd>" in text
