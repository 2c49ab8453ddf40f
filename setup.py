"""Build script: compiles the engine's hot modules with mypyc when it can (pyproject.toml has the rest).

The compiled modules are the same Python source, so they give the same results as the pure ones,
only faster.  Set ``FIVEHUNDRED_PURE=1`` to install pure Python; when no C compiler works the build
falls back to pure Python by itself.  ``sim/_core.json`` records which sources were compiled (and
their hashes), so ``import sim`` can tell a stale compiled module from a fresh one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _core_sources() -> tuple[str, ...]:
    """The modules compiled with mypyc, from ``sim/_loader.py`` (the one list; it imports only the
    standard library, so it loads here without the package's dependencies)."""
    spec = importlib.util.spec_from_file_location("_fivehundred_loader", ROOT / "sim" / "_loader.py")
    assert spec is not None and spec.loader is not None
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    return tuple(loader.CORE.values())


CORE = _core_sources()
RECORD = "sim/_core.json"


def _say(message: str) -> None:
    print(f"fivehundred build: {message}", file=sys.stderr)


def _pure(message: str) -> None:
    """Install pure Python: say why, and remove compiled modules an earlier editable install left in
    this checkout (they would shadow the sources; ``sim/_loader.py`` would only warn about them)."""
    _say(f"{message}: installing pure Python")
    stale = [ROOT / RECORD, *ROOT.glob("fivehundred_core__mypyc*")]
    for path in CORE:
        module = ROOT / path
        stale += [*module.parent.glob(module.stem + ".*.so"), *module.parent.glob(module.stem + ".*.pyd")]
    for old in stale:
        old.unlink(missing_ok=True)


def _extensions() -> list:
    if os.environ.get("FIVEHUNDRED_PURE", "") not in ("", "0"):
        _pure("FIVEHUNDRED_PURE is set")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _pure("mypyc is not available")
        return []
    try:
        return mypycify(list(CORE), opt_level="3", debug_level="0", group_name="fivehundred_core")
    except (Exception, SystemExit) as exc:  # a mypy error in the core is a bug; never block an install
        _pure(f"mypyc failed ({exc})")
        return []


class OptionalBuildExt(build_ext):
    """Build the compiled core, or nothing at all (never half of it), and record what was built."""

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # no compiler, missing headers: fall back to pure Python
            for out in self.get_outputs():
                Path(out).unlink(missing_ok=True)
            _pure(f"compiling the core failed ({exc})")
            return
        hashes = {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in CORE}
        target = (ROOT if self.inplace else Path(self.build_lib)) / RECORD
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"compiled": hashes}, indent=1, sort_keys=True) + "\n")

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        if self.extensions and not self.inplace:
            outputs.append(str(Path(self.build_lib) / RECORD))
        return outputs


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
