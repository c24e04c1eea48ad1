"""What the package says about itself is in step (issue 22, item 3; notes/packaging.md): one
version (``pyproject.toml``) seen by the installed metadata, ``dpquant.__version__``, ``dpquant
--version`` and the changelog's newest entry; the data the wheel needs is declared.

Fast checks on the source tree; the wheel itself is built and installed by ``test_wheel.py``."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

import dpquant
from dpquant.cli import main

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
VERSION = PYPROJECT["project"]["version"]


def test_the_version_has_one_source_and_every_view_of_it_agrees(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert importlib.metadata.version("dpquant") == VERSION, "reinstall: pip install -e ."
    assert dpquant.__version__ == VERSION
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"dpquant {VERSION}"
    hits = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "dpquant").rglob("*.py")
        if re.search(r"__version__\s*=\s*['\"]\d+\.\d+", p.read_text(encoding="utf-8"))
    }
    assert hits == set(), f"a second version literal: {hits}"


def test_the_changelog_starts_at_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## (\d+\.\d+\.\d+\S*)", text, flags=re.MULTILINE)
    assert releases and releases[0] == VERSION, releases


def test_each_package_is_typed_and_declares_its_data() -> None:
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for pkg in ("dpquant", "dpquant.reference", "dpquant.audit"):
        assert (ROOT / pkg.replace(".", "/") / "py.typed").is_file()
        assert "py.typed" in data[pkg]
    declared = {
        p.relative_to(ROOT).as_posix()
        for pkg, patterns in data.items()
        for pattern in patterns
        for p in (ROOT / pkg.replace(".", "/")).glob(pattern)
    }
    needed = {
        "dpquant/reference/data/README.md",  # the licence note of the shipped data
        "dpquant/reference/data/adult_age.csv",
        "dpquant/reference/data/adult_hours_per_week.csv",
        "dpquant/audit/suites/adapters/seedrand.c",
        "dpquant/studies/imola25/figure_1_traced.csv",
    }
    assert needed <= declared, needed - declared
    data_files = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "dpquant").rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }
    assert data_files <= declared, f"not shipped in the wheel: {sorted(data_files - declared)}"


def test_the_ledger_is_copied_into_the_package_at_build_time_not_kept_twice() -> None:
    """setup.py copies notes/claims.toml into the wheel (test_wheel.py compares the bytes); a copy
    in the source tree would go stale, so there is none."""
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert 'Path("notes") / "claims.toml"' in setup and 'Path("dpquant") / "reference" / "claims.toml"' in setup
    assert "include notes/claims.toml" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    assert not (ROOT / "dpquant" / "reference" / "claims.toml").exists()
