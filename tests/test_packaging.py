"""The installed layout: one namespace, ``fivehundred``, holding every package of the checkout."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("sim", "strategies", "pipelines", "tools", "reports", "cli", "configs")


def _setuptools() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)["tool"]["setuptools"]


def test_every_package_of_the_checkout_is_installed_inside_the_namespace() -> None:
    on_disk = {
        "fivehundred." + ".".join(init.parent.relative_to(ROOT).parts)
        for folder in FOLDERS
        for init in (ROOT / folder).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert set(_setuptools()["packages"]) == on_disk


def test_each_top_level_folder_maps_to_its_name_in_the_namespace() -> None:
    assert _setuptools()["package-dir"] == {f"fivehundred.{folder}": folder for folder in FOLDERS}


def test_console_script_and_entry_points_name_the_namespace() -> None:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        project = tomllib.load(fh)["project"]
    targets = [*project["scripts"].values()]
    for group in project.get("entry-points", {}).values():
        targets += group.values()
    assert targets and all(t.startswith("fivehundred.") for t in targets)
