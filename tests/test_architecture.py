"""docs/architecture.md stays true: every module, package and file it names exists, and every name
it gives beside a module is defined there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
TOPS = "sim|strategies|pipelines|tools|reports|cli|configs|tests|docs"
#: A path of the checkout written in backquotes: ``sim/engine.py``, ``pipelines/tournament/``.
PATH = re.compile(rf"`((?:{TOPS})/[\w./*-]*)`")
#: A dotted name of the code: ``sim.game.play_game``, ``sim.engine.State.deal``.
DOTTED = re.compile(r"`((?:sim|strategies|pipelines|tools|reports|cli)(?:\.\w+)+)`")
IDENT = re.compile(r"`([A-Za-z_]\w*)`")


def named_paths(text: str) -> list[str]:
    """The checkout paths a text names in backquotes (globs kept as written)."""
    return sorted(set(PATH.findall(text)))


def defines(path: Path, name: str) -> bool:
    """Whether the module at ``path`` defines ``name`` (a function, class or module-level name)."""
    return re.search(rf"^\s*(?:def|class)\s+{name}\b|^{name}\b[^=]*=", path.read_text(), re.M) is not None


def units(text: str) -> list[str]:
    """The text's table rows, list items and paragraphs, each as one string."""
    out: list[str] = []
    for line in text.splitlines():
        starts = not line.strip() or line.startswith("|") or re.match(r"\d+\. |- ", line)
        if starts or not out:
            out.append(line)
        else:
            out[-1] += " " + line.strip()
    return out


def undefined_names(text: str) -> list[str]:
    """Names given beside a module in one table row, list item or paragraph, or as ``module.name``,
    that it does not define."""
    missing = []
    for line in units(text):
        modules = [ROOT / p for p in PATH.findall(line) if p.endswith(".py") and (ROOT / p).is_file()]
        for name in IDENT.findall(line) if modules else []:
            if not any(defines(m, name) for m in modules):
                missing.append(f"{name} ({', '.join(str(m.relative_to(ROOT)) for m in modules)})")
        for dotted in DOTTED.findall(line):
            parts = dotted.split(".")
            if ROOT.joinpath(*parts).with_suffix(".py").is_file() or ROOT.joinpath(*parts).is_dir():
                continue
            for i in range(len(parts) - 1, 0, -1):
                module = ROOT.joinpath(*parts[:i]).with_suffix(".py")
                if module.is_file():
                    if not defines(module, parts[i]):
                        missing.append(dotted)
                    break
            else:
                missing.append(dotted)
    return missing


def test_the_map_names_only_what_exists() -> None:
    text = DOC.read_text()
    names = named_paths(text)
    assert len(names) > 30  # the map names the modules it describes
    assert [n for n in names if not any(ROOT.glob(n.rstrip("/")))] == []
    assert undefined_names(text) == []


def test_the_check_sees_a_missing_module_or_name() -> None:
    text = "see `sim/engine.py` (`State`, `NoSuchThing`) and `pipelines/nowhere.py`; `sim.game.nothing`"
    assert named_paths(text) == ["pipelines/nowhere.py", "sim/engine.py"]
    assert not any(ROOT.glob("pipelines/nowhere.py"))
    assert undefined_names(text) == ["NoSuchThing (sim/engine.py)", "sim.game.nothing"]
