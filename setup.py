"""Build script: compiles the engine's hot modules with mypyc and the double-dummy solver's C kernel
(pyproject.toml has the rest).

The compiled modules are the same Python source, so they give the same results as the pure ones,
only faster; the C kernel ``sim/_ddc.c`` is the project's double-dummy solver.  Both are built, or
the install fails with one line saying what failed and what to do.  Set ``FIVEHUNDRED_PURE=1`` to
install without compiling anything (pure Python; the double-dummy solver is then unavailable and
says so).  ``sim/_core.json`` records which sources were compiled (and their hashes), so
``import fivehundred.sim`` can tell a stale compiled module from a fresh one.

The checkout keeps its top-level folders (``sim/``, ``strategies/``, ...); they install as the
packages of one namespace, ``fivehundred.sim``, ``fivehundred.strategies``, ... (pyproject.toml maps
them).  mypyc names a module by its path, so the compiled sources are staged under
``build/mypyc-src/fivehundred/`` first.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


#: The modules compiled with mypyc (source paths in this checkout; installed as ``fivehundred.<path>``).
#: This list belongs to the build: the engine reads what was compiled from the record below.
CORE = (
    "sim/rng.py",
    "sim/notation.py",
    "sim/cards.py",
    "sim/seeding.py",
    "sim/engine.py",
    "sim/phases.py",
    "sim/contract.py",
    "sim/view.py",
    "sim/game.py",
    "strategies/random_bot.py",
    "strategies/tables.py",
    "strategies/estimates.py",
    "strategies/sampling.py",
    "strategies/heuristic.py",
    "strategies/heuristic2.py",
    "strategies/heuristic3.py",
    "strategies/heuristic4.py",
    "strategies/heuristic5.py",
)
#: The packages whose sources mypy reads while compiling (copied into the staging tree).
STAGED = ("sim", "strategies")
RECORD = "sim/_core.json"
GROUP = "_fivehundred_core"  # the shared library: ``_fivehundred_core__mypyc`` (a private top-level name)
STAGE = ROOT / "build" / "mypyc-src"
#: Plain C extensions built beside the mypyc core (source -> import name; the same table as
#: ``sim/_loader.py``'s ``C_EXTENSIONS``, which reads the record): the double-dummy solver.
C_SOURCES = {"sim/_ddc.c": "fivehundred.sim._ddc"}


def _say(message: str) -> None:
    print(f"fivehundred build: {message}", file=sys.stderr)


class BuildError(RuntimeError):
    """A part of the compiled core failed to build: the install stops with this one line."""


def _fail(what: str, exc: BaseException) -> BuildError:
    detail = " ".join(str(exc).split())[:300]
    message = (
        f"error: compiling {what} failed ({detail}). Install a C compiler and the Python headers, "
        "or set FIVEHUNDRED_PURE=1 to install pure Python without the double-dummy solver."
    )
    _say(message)
    return BuildError(message)


def _pure(message: str) -> None:
    """Install pure Python: say why, and remove compiled modules an earlier editable install left in
    this checkout (they would shadow the sources; ``sim/_loader.py`` would only warn about them)."""
    _say(f"{message}: installing pure Python")
    stale = [ROOT / RECORD, *ROOT.glob("fivehundred_core__mypyc*"), *ROOT.glob(GROUP + "__mypyc*")]
    for path in CORE:
        module = ROOT / path
        stale += [*module.parent.glob(module.stem + ".*.so"), *module.parent.glob(module.stem + ".*.pyd")]
    for old in stale:
        old.unlink(missing_ok=True)


def _stage() -> list[str]:
    """Copy the sources under ``build/mypyc-src/fivehundred/`` so that mypyc names the modules as they
    are installed (``fivehundred.sim.engine``) while the checkout keeps its top-level folders."""
    import shutil

    shutil.rmtree(STAGE, ignore_errors=True)
    (STAGE / "fivehundred").mkdir(parents=True)
    (STAGE / "fivehundred" / "__init__.py").write_text("")
    for package in STAGED:
        shutil.copytree(
            ROOT / package,
            STAGE / "fivehundred" / package,
            ignore=shutil.ignore_patterns("*.so", "*.json", "__pycache__"),
        )
    return [str((STAGE / "fivehundred" / path).relative_to(ROOT)) for path in CORE]


def _drop_c_builds() -> None:
    """Remove C extensions an earlier editable install left in this checkout."""
    for source in C_SOURCES:
        path = ROOT / source
        for old in (*path.parent.glob(path.stem + ".*.so"), *path.parent.glob(path.stem + ".*.pyd")):
            old.unlink(missing_ok=True)


def _c_flags() -> list[str]:
    """-O2 (the kernel ran 2-9% faster than with -O3, docs/experiments/dd.md), and the popcnt
    instruction on x86-64 (the kernel checks the processor has it at import)."""
    flags = ["-O2"]
    if platform.machine().lower() in ("x86_64", "amd64") and os.name != "nt":
        flags.append("-mpopcnt")
    return flags


def _c_extensions() -> list:
    return [Extension(name, [source], extra_compile_args=_c_flags()) for source, name in C_SOURCES.items()]


def _extensions() -> list:
    if os.environ.get("FIVEHUNDRED_PURE", "") not in ("", "0"):
        _pure("FIVEHUNDRED_PURE is set")
        _drop_c_builds()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        raise _fail("the engine core with mypyc (mypyc is not importable)", exc) from None
    try:
        return mypycify(_stage(), opt_level="3", debug_level="0", group_name=GROUP) + _c_extensions()
    except (Exception, SystemExit) as exc:  # a mypy error in the core
        raise _fail("the engine core with mypyc", exc) from None


def _digest(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def _drop_stale_modules() -> None:
    """Remove compiled modules an earlier editable install left beside sources no longer compiled."""
    core = {ROOT / path for path in CORE} | {ROOT / source for source in C_SOURCES}
    for package in STAGED:
        for built in (*(ROOT / package).glob("*.so"), *(ROOT / package).glob("*.pyd")):
            stem = built.name.split(".")[0]
            if not any(p.parent == built.parent and p.stem == stem for p in core):
                built.unlink(missing_ok=True)


class CoreBuildExt(build_ext):
    """Build the compiled core and the C kernel, or fail with one line; record what was built."""

    def run(self) -> None:
        if self.inplace:
            _drop_stale_modules()
        if not self.extensions:
            return
        everything = list(self.extensions)
        compiler = self.compiler  # run() replaces the option (a name) by the compiler it made
        names = set(C_SOURCES.values())
        record: dict[str, dict[str, str]] = {}
        parts = [("the engine core with mypyc", [e for e in everything if e.name not in names], None)]
        parts += [
            (source, [e for e in everything if e.name == name], source) for source, name in C_SOURCES.items()
        ]
        for what, extensions, source in parts:
            if not extensions:
                continue
            self.extensions = extensions
            self.compiler = compiler
            try:
                super().run()
            except Exception as exc:  # no compiler, missing headers, a compile error
                raise _fail(what, exc) from None
            if source is None:
                record["compiled"] = {path: _digest(path) for path in CORE}
            else:
                record.setdefault("c_extensions", {})[source] = _digest(source)
        self.extensions = everything
        target = (ROOT if self.inplace else Path(self.build_lib) / "fivehundred") / RECORD
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        if self.extensions and not self.inplace:
            outputs.append(str(Path(self.build_lib) / "fivehundred" / RECORD))
        return outputs


if __name__ == "__main__":  # pip and setuptools run this file as __main__; tests read its functions
    setup(ext_modules=_extensions(), cmdclass={"build_ext": CoreBuildExt})
