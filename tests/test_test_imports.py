"""The tests stand apart: no test file imports another test module, a ``conftest`` or
``benchmarks`` (shared code lives in helper modules such as ``tests/pipelines/runs.py``, shared
fixtures in ``conftest.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def forbidden_imports(path: Path) -> list[str]:
    """The imports of ``path`` (anywhere in the file) that name a test module, a conftest or
    ``benchmarks``, as ``line: module``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        for name in names:
            parts = name.split(".")
            if parts[0] == "benchmarks" or any(p == "conftest" or p.startswith("test_") for p in parts):
                found.append(f"{node.lineno}: {name}")
                break
    return found


def test_no_test_imports_another_test_module_conftest_or_benchmarks() -> None:
    bad = {
        str(p.relative_to(TESTS)): hits
        for p in sorted(TESTS.rglob("*.py"))
        for hits in [forbidden_imports(p)]
        if hits
    }
    assert bad == {}


@pytest.mark.parametrize(
    ("source", "hit"),
    [
        (
            "from tests.pipelines.test_dd_analysis import count_solves\n",
            "1: tests.pipelines.test_dd_analysis",
        ),
        ("import tests.conftest\n", "1: tests.conftest"),
        ("def f():\n    from benchmarks.ladder import main\n", "2: benchmarks.ladder"),
        ("from tests.sim import test_core\n", "1: tests.sim.test_core"),
    ],
)
def test_the_check_finds_a_planted_import(tmp_path: Path, source: str, hit: str) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(source)
    assert forbidden_imports(path) == [hit]


def test_helper_imports_pass(tmp_path: Path) -> None:
    path = tmp_path / "test_y.py"
    path.write_text("from tests.pipelines.runs import descendants\nimport polars\nfrom . import helpers\n")
    assert forbidden_imports(path) == []
