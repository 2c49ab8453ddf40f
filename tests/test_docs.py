"""The docs hold together: every relative link resolves, nothing links outside the repository, the
user docs carry no internal history (issue numbers, commit hashes: that record lives in
``docs/experiments/``), and every record there is linked from a user doc."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"\bhttps?://")
ISSUE = re.compile(r"\bissues?\s*#?\d+|(?<![\w&/])#\d{1,4}\b", re.IGNORECASE)
HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


def doc_files(root: Path = ROOT) -> list[Path]:
    """The README and every Markdown file under ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def user_doc(path: Path, root: Path = ROOT) -> bool:
    """A doc written for users (not the record of experiments)."""
    return "experiments" not in path.relative_to(root).parts


def problems(path: Path, root: Path = ROOT) -> list[str]:
    """What is wrong in one doc, one line each (``line: what``)."""
    out: list[str] = []
    fenced = False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if OUTSIDE.search(line):
            out.append(f"{n}: links outside the repository")
        if not fenced:
            for target in LINK.findall(line):
                file = target.split("#", 1)[0]
                if file and not (path.parent / file).exists():
                    out.append(f"{n}: broken link {target}")
        if user_doc(path, root):
            if ISSUE.search(line):
                out.append(f"{n}: names an issue")
            if HASH.search(line):
                out.append(f"{n}: names a commit")
    return out


def test_every_doc_holds_together() -> None:
    bad = {str(p.relative_to(ROOT)): found for p in doc_files() for found in [problems(p)] if found}
    assert bad == {}


def test_every_record_of_experiments_is_linked_from_a_user_doc() -> None:
    linked = {
        (p.parent / t.split("#", 1)[0]).resolve()
        for p in doc_files()
        if user_doc(p)
        for t in LINK.findall(p.read_text())
    }
    records = sorted((ROOT / "docs" / "experiments").glob("*.md"))
    assert records and [r.name for r in records if r.resolve() not in linked] == []


def test_the_readme_links_the_map_and_the_bot_guide() -> None:
    targets = LINK.findall((ROOT / "README.md").read_text())
    assert "docs/architecture.md" in targets and "docs/writing-a-bot.md" in targets


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("See [the rules](rules.md).\n", []),
        ("See [gone](nowhere.md).\n", ["1: broken link nowhere.md"]),
        ("Read https://example.org first.\n", ["1: links outside the repository"]),
        ("Fixed in issue 32.\n", ["1: names an issue"]),
        ("As #14 asked.\n", ["1: names an issue"]),
        ("Landed in 3b13746.\n", ["1: names a commit"]),
        ("```\n[x](nowhere.md)\n```\n", []),
        ("1,000,000 deals; colour #aa0000; `--dd-sample 25`.\n", []),
    ],
)
def test_the_check_sees_what_it_looks_for(tmp_path: Path, text: str, found: list[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("rules\n")
    doc = tmp_path / "docs" / "x.md"
    doc.write_text(text)
    assert problems(doc, tmp_path) == found


def test_the_engine_docs_name_every_module_of_sim_and_every_shipped_variant() -> None:
    """docs/engine.md's module table lists exactly the engine's modules; its variant list names
    every variant file shipped."""
    text = (ROOT / "docs" / "engine.md").read_text()
    table = {
        name
        for line in text.splitlines()
        if line.startswith("| `sim/")
        for name in re.findall(r"`(sim/[\w.]+)`", line.split("|")[1])
    }
    modules = {f"sim/{p.name}" for p in (ROOT / "sim").iterdir() if p.suffix in (".py", ".c")}
    assert table == modules - {"sim/__init__.py"}
    shipped = text.split("Shipped variants", 1)[1].split("##", 1)[0]
    for variant in sorted((ROOT / "configs" / "variants").glob("*.toml")):
        assert f"`{variant.stem}`" in shipped, variant.stem
