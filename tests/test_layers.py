"""The import graph: layers import downward only, no module cycles, every import says ``fivehundred.*``.

Layers, lowest first: ``sim`` < ``strategies`` < ``pipelines`` < ``tools`` < ``reports`` < ``cli``
(``configs`` holds data and imports nothing of the project).  Every ``import`` statement counts, at
the top of a module or inside a function; a package's ``__init__`` is a module of its own.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Each top-level folder's layer (a module may import its own layer and the ones below).
LAYERS = {"configs": -1, "sim": 0, "strategies": 1, "pipelines": 2, "tools": 3, "reports": 4, "cli": 5}
NAMESPACE = "fivehundred"


@dataclass(frozen=True)
class Edge:
    """One import of a project module: who imports what, where."""

    source: str
    target: str
    where: str


def module_name(root: Path, path: Path) -> str:
    """``fivehundred.pipelines.analysis.io`` for ``ROOT/pipelines/analysis/io.py``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([NAMESPACE, *parts])


def scan(root: Path) -> tuple[set[str], list[Edge], list[str]]:
    """Every module under the layer folders of ``root``, its project imports, and bare imports."""
    files = sorted(p for top in LAYERS if (root / top).is_dir() for p in (root / top).rglob("*.py"))
    modules = {module_name(root, p): p for p in files}
    edges: list[Edge] = []
    bare: list[str] = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text(), str(path))
        typing_only = {  # imports under ``if TYPE_CHECKING:`` are for annotations, never run
            id(n)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for stmt in block.body
            for n in ast.walk(stmt)
        }
        rel = path.relative_to(root)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in typing_only:
                continue
            where = f"{rel}:{node.lineno}"
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    mod = f"{base}.{node.module}" if node.module else base
                else:
                    mod = node.module or ""
                # ``from pkg import mod`` imports the module pkg.mod when there is one, else names of pkg.
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names]
            for target in targets:
                top = target.split(".")[0]
                if top in LAYERS:
                    bare.append(f"{where}: imports '{target}' (should be {NAMESPACE}.{target})")
                elif top == NAMESPACE:
                    while target not in modules and "." in target:  # a name inside a module
                        target = target.rsplit(".", 1)[0]
                    if target in modules and target != name:
                        edges.append(Edge(name, target, where))
    return set(modules), edges, bare


def layer(module: str) -> int:
    """The layer of a project module."""
    return LAYERS[module.split(".")[1]]


def upward(edges: list[Edge]) -> list[str]:
    """Imports of a higher layer (or anything of the project from ``configs``)."""
    return [
        f"{e.where}: {e.source} imports {e.target} (layer {layer(e.target)} above {layer(e.source)})"
        for e in edges
        if layer(e.target) > layer(e.source) or (layer(e.source) < 0 and e.source != e.target)
    ]


def cycles(modules: set[str], edges: list[Edge]) -> list[list[str]]:
    """The import cycles: strongly connected groups of two or more modules (Tarjan), sorted."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for e in edges:
        graph[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def problems(root: Path, scanned: tuple[set[str], list[Edge], list[str]] | None = None) -> list[str]:
    """Every layering problem of the tree at ``root`` (or of its ``scan``), one line each."""
    modules, edges, bare = scanned or scan(root)
    return [*bare, *upward(edges), *(f"import cycle: {' <-> '.join(c)}" for c in cycles(modules, edges))]


def test_the_project_imports_downward_only_without_cycles() -> None:
    scanned = scan(REPO)
    modules, edges, _ = scanned
    assert len(modules) > 60 and len(edges) > 100  # the scan sees the whole tree
    assert problems(REPO, scanned) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in {"sim/__init__.py": "", "strategies/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_clean_synthetic_tree_passes(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "sim/a.py": "import os\nfrom fivehundred.sim import b\n",
            "sim/b.py": "from . import c\n",
            "sim/c.py": "",
            "strategies/bot.py": "from fivehundred.sim.a import x\n"
            "\n\ndef f():\n    import fivehundred.sim.c\n",
        },
    )
    _, edges, _ = scan(root)
    assert {(e.source, e.target) for e in edges} == {
        ("fivehundred.sim.a", "fivehundred.sim.b"),
        ("fivehundred.sim.b", "fivehundred.sim.c"),
        ("fivehundred.strategies.bot", "fivehundred.sim.a"),
        ("fivehundred.strategies.bot", "fivehundred.sim.c"),
    }
    assert problems(root) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # An upward import, even inside a function.
        (
            {
                "sim/engine.py": "def f():\n    from fivehundred.strategies.bot import Bot\n",
                "strategies/bot.py": "",
            },
            "sim/engine.py:2: fivehundred.sim.engine imports fivehundred.strategies.bot (layer 1 above 0)",
        ),
        # A cycle between two modules of one layer (one import inside a function).
        (
            {
                "strategies/base.py": "def f():\n    import fivehundred.strategies.bot\n",
                "strategies/bot.py": "from fivehundred.strategies.base import register\n",
            },
            "import cycle: fivehundred.strategies.base <-> fivehundred.strategies.bot",
        ),
        # A cycle through a relative import and a package __init__.
        (
            {
                "sim/__init__.py": "from .game import play\n",
                "sim/game.py": "from fivehundred.sim import RULES\n",
            },
            "import cycle: fivehundred.sim <-> fivehundred.sim.game",
        ),
        # Bare top-level names.
        (
            {"strategies/bot.py": "import sim\n"},
            "strategies/bot.py:1: imports 'sim' (should be fivehundred.sim)",
        ),
        (
            {"sim/x.py": "from pipelines.chunks import run\n"},
            "sim/x.py:1: imports 'pipelines.chunks' (should be fivehundred.pipelines.chunks)",
        ),
        # configs holds data: it imports nothing of the project.
        (
            {"configs/__init__.py": "from fivehundred.sim import x\n"},
            "configs/__init__.py:1: fivehundred.configs imports fivehundred.sim (layer 0 above -1)",
        ),
    ],
)
def test_a_planted_violation_is_found(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    assert problems(_tree(tmp_path, files)) == [expected]
