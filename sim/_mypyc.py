"""``mypyc_attr`` for the modules that setup.py compiles with mypyc.

Only the compiler reads the decorator's arguments; at run time it returns the class unchanged, so
``mypy_extensions`` (which comes with mypy) is not needed to run the package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_C = TypeVar("_C")

try:
    from mypy_extensions import mypyc_attr
except ImportError:

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_C], _C]:  # type: ignore[misc]
        """Stand-in for ``mypy_extensions.mypyc_attr``: returns the class unchanged."""
        return lambda cls: cls


__all__ = ["mypyc_attr"]
