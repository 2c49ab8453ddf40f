"""The compiled core (mypyc) and the pure-Python one: which runs, and that they agree."""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fivehundred import sim
from fivehundred.sim import _loader

ROOT = Path(__file__).resolve().parents[2]

_GAMES = """
import hashlib
from fivehundred import sim
from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make
out = []
for variant in ("pagat-au", "three-player", "six-player", "two-jokers", "north-american"):
    rules = load_rules(variant)
    bots = [make("random(pass_probability=0.4,max_raise=4)")] * rules.players
    for g in range({random}):
        out.append(repr(play_game(rules, bots, 11, g)))
    for g in range({heuristic}):
        out.append(repr(play_game(rules, [make("heuristic")] * rules.players, 11, g)))
print(sim.core()["core"], hashlib.sha256("".join(out).encode()).hexdigest())
"""


def _run(code: str, **env: str) -> str:
    full = {k: v for k, v in os.environ.items() if k != "FIVEHUNDRED_PURE"}
    full.update(env)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd=ROOT, check=True
    )
    return proc.stdout.strip()


def test_core_reports_what_runs() -> None:
    info = sim.core()
    assert info["core"] in ("compiled", "pure")
    engine_file = sys.modules["fivehundred.sim.engine"].__file__ or ""
    assert (info["core"] == "compiled") == (not engine_file.endswith(".py"))
    if info["core"] == "pure":
        assert info["reason"]


def test_pure_core_can_be_forced_and_says_why() -> None:
    out = _run(
        "from fivehundred import sim; import sys; "
        "print(sim.core()['reason'], sys.modules['fivehundred.sim.rng'].__file__)",
        FIVEHUNDRED_PURE="1",
    )
    assert out.startswith("FIVEHUNDRED_PURE is set") and out.endswith("rng.py")


@pytest.mark.parametrize(
    ("random", "heuristic"), [(12, 3), pytest.param(40, 8, marks=pytest.mark.slow)], ids=["few", "many"]
)
def test_compiled_and_pure_cores_play_identical_games(random: int, heuristic: int) -> None:
    """The same source, compiled or not, gives the same records (byte for byte through repr) on
    every kind of table: a few games of each in the quick tier, more in the slow one."""
    code = _GAMES.format(random=random, heuristic=heuristic)
    default = _run(code).split()
    if default[0] != "compiled":
        _missing("the core is not compiled here: there is nothing to compare the pure core with")
    pure = _run(code, FIVEHUNDRED_PURE="1").split()
    assert pure[0] == "pure"
    assert default[1] == pure[1]


def _compiler() -> bool:
    return any(shutil.which(cc) for cc in ("cc", "gcc", "clang"))


def _missing(why: str) -> None:
    """A test that needs the compiled core: it fails where a C compiler is (the install must have
    built it), and is skipped only without one or with FIVEHUNDRED_PURE set."""
    if os.environ.get("FIVEHUNDRED_PURE", "") not in ("", "0") or not _compiler():
        pytest.skip(why)
    pytest.fail(f"{why}, though a C compiler is here: reinstall (pip install -e .)")


def test_core_is_compiled_where_a_c_compiler_exists() -> None:
    """An install on a machine with a C compiler runs the compiled core: a pure or stale core there
    fails this test (reinstall), it is never skipped."""
    info = sim.core()
    if info["core"] == "compiled":
        return
    if os.environ.get("FIVEHUNDRED_PURE", "") not in ("", "0"):
        pytest.skip("FIVEHUNDRED_PURE is set")
    if not _compiler():
        pytest.skip("no C compiler here: the pure core is expected")
    pytest.fail(f"a C compiler is here but the core is pure ({info['reason']}): reinstall (pip install -e .)")


def test_dd_solver_is_built_where_a_c_compiler_exists() -> None:
    """The double-dummy solver (sim/_ddc.c, no pure twin) is built and current wherever a compiler is."""
    from fivehundred.sim import dd

    if dd.available():
        return
    if not _compiler():
        pytest.skip(f"no C compiler here: {dd.unavailable_reason()}")
    pytest.fail(f"a C compiler is here but the DD solver is not available: {dd.unavailable_reason()}")


def _setup_module() -> dict[str, object]:
    """setup.py's functions and classes (not run as __main__, it builds nothing and touches no file)."""
    namespace: dict[str, object] = {"__file__": str(ROOT / "setup.py"), "__name__": "setup_under_test"}
    exec(compile((ROOT / "setup.py").read_text(), str(ROOT / "setup.py"), "exec"), namespace)
    return namespace


def test_a_failed_build_stops_the_install_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A compile error in the C kernel (or the mypyc core) is no silent fallback: the build raises, and
    prints one line saying what failed and what to do."""
    from setuptools.command.build_ext import build_ext

    ns = _setup_module()
    core_build = ns["CoreBuildExt"]
    extension = ns["Extension"]

    def broken(self: object) -> None:
        raise RuntimeError("command 'gcc' failed: No such file or directory\n(more)")

    monkeypatch.setattr(build_ext, "run", broken)
    cmd = object.__new__(core_build)  # type: ignore[call-overload]
    cmd.extensions = [extension("fivehundred.sim._ddc", ["sim/_ddc.c"])]
    cmd.compiler = None
    cmd.inplace = False
    capsys.readouterr()
    with pytest.raises(ns["BuildError"], match=r"compiling sim/_ddc\.c failed"):  # type: ignore[arg-type]
        cmd.run()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("fivehundred build: error: compiling sim/_ddc.c failed (command 'gcc' failed")
    assert "FIVEHUNDRED_PURE=1" in err[0]


def test_a_stale_compiled_module_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sim").mkdir()
    src = tmp_path / "sim" / "engine.py"
    src.write_text("A = 1\n")
    record = {"compiled": {"sim/engine.py": hashlib.sha256(b"A = 1\n").hexdigest()}}
    (tmp_path / "sim" / "_core.json").write_text(json.dumps(record))
    monkeypatch.setattr(_loader, "_ROOT", tmp_path)
    assert _loader._stale() == ""
    src.write_text("A = 2\n")
    assert _loader._stale() == "sim/engine.py"
    (tmp_path / "sim" / "_core.json").unlink()
    assert _loader._stale() == ""  # nothing compiled: nothing can be stale


def test_the_build_record_lists_the_modules_setup_compiles() -> None:
    """What setup.py compiled (``sim/_core.json``) is its list of modules, and the loader guards each."""
    record = ROOT / "sim" / "_core.json"
    if not record.exists():
        _missing("nothing compiled in this checkout")
    tree = ast.parse((ROOT / "setup.py").read_text())
    core = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CORE"
    )
    assert sorted(json.loads(record.read_text())["compiled"]) == sorted(core)
    assert sorted(_loader.compiled_sources()) == sorted(core)
    for source in core:  # each compiled module is the one imported (not a stale or pure copy)
        module = importlib.import_module(_loader.module_name(source))
        assert (module.__file__ or "").endswith(".so") == (sim.core()["core"] == "compiled")
