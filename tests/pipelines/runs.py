"""Helpers shared by the simulation tests: a run directory's part files, a reference run played once
per test session, and waiting on a live run."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation

#: A two-entry tournament of random bots, two game pairs (the lock tests: a second driver refused).
LOCK_TOURNAMENT = """name = "lock"
seed = 1
stop = { rule = "fixed", pairs = 2 }

[[entries]]
name = "a"
strategy = "random"

[[entries]]
name = "b"
strategy = "random"
"""


def parts(run_dir: Path) -> dict[str, bytes]:
    """Every part file's bytes by name."""
    return {p.name: p.read_bytes() for p in sorted((run_dir / "deals").glob("*.parquet"))}


def reference_run(tmp_path_factory: pytest.TempPathFactory, **kw: Any) -> Path:
    """An undisturbed in-process run of ``make_config(None, workers=0, **kw)``, played once per test
    session: the tests that compare an interrupted run against the same reference share it, across
    xdist workers too (one plays it under a lock, the others wait and read it).  A run left incomplete
    is resumed, which gives the same files."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's folder, shared by its workers
    root = base / "reference-runs"
    root.mkdir(exist_ok=True)
    key = hashlib.sha256(json.dumps(kw, sort_keys=True).encode()).hexdigest()[:16]
    out = root / key
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = out / "manifest.json"
        if not manifest.exists() or json.loads(manifest.read_text()).get("status") != "complete":
            run_simulation(make_config(None, out=str(out), workers=0, **kw))
    return out


def committed(manifest: Path) -> int:
    """Chunks the manifest lists (0 before it exists)."""
    return len(json.loads(manifest.read_text())["chunks"]) if manifest.exists() else 0


def wait_for_chunks(
    proc: subprocess.Popen,
    manifest: Path,
    chunks: int,
    timeout: float = 60.0,
    each: Callable[[], None] | None = None,
) -> None:
    """Wait until the running command's manifest lists ``chunks`` chunks (or it ends, or ``timeout``
    passes); ``each`` is called on every look (e.g. to note the command's processes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if each is not None:
            each()
        if committed(manifest) >= chunks:
            return
        time.sleep(0.02)


def descendants(root: int) -> set[int]:
    """``root`` and every live process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = set(), [root]
    while todo:
        pid = todo.pop()
        out.add(pid)
        todo.extend(children.get(pid, []))
    return out
