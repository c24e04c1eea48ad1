"""`make check`'s quick loop (`pytest --quick`, the root conftest.py): which folder of tests
answers for which package, and that a package none of whose tests ran is named."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick() -> ModuleType:
    """The root conftest.py, loaded under a name of its own (pytest loaded it as a plugin)."""
    spec = importlib.util.spec_from_file_location("dpquant_root_conftest", ROOT / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def packages() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "dpquant").rglob("__init__.py"))


def test_a_package_with_a_mirror_folder_answers_to_it(quick: ModuleType) -> None:
    assert quick.mirror_folder(ROOT / "dpquant/audit/pipeline") == ROOT / "tests/audit/pipeline"
    assert quick.mirror_folder(ROOT / "dpquant") == ROOT / "tests"


def test_a_package_without_one_answers_to_its_nearest_ancestors(quick: ModuleType) -> None:
    for package in packages():
        folder = quick.mirror_folder(package)
        assert folder.is_dir()
        rel = package.relative_to(ROOT / "dpquant")
        assert (ROOT / "tests" / rel).is_relative_to(folder)
        if (ROOT / "tests" / rel).is_dir():
            assert folder == ROOT / "tests" / rel


def test_every_package_is_untouched_when_nothing_ran(quick: ModuleType) -> None:
    assert len(quick.untouched_packages(set())) == len(packages())


def test_a_package_whose_folder_had_no_test_run_is_named(quick: ModuleType) -> None:
    folders = {quick.mirror_folder(p) for p in packages()}
    assert quick.untouched_packages(folders) == []
    assert quick.untouched_packages(folders - {ROOT / "tests/cli"}) == ["dpquant/cli"]


def test_every_mirror_folder_holds_a_test_file(quick: ModuleType) -> None:
    for package in packages():
        assert list(quick.mirror_folder(package).glob("test_*.py")), package
