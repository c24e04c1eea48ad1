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


class _Item:
    """What `is_quick` reads of a collected test: its node id and its marks."""

    def __init__(self, nodeid: str, marks: tuple[str, ...] = ()) -> None:
        self.nodeid = nodeid
        self.marks = marks

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def test_a_test_recorded_over_the_limit_or_marked_slow_leaves_the_quick_loop(
    quick: ModuleType,
) -> None:
    limit = quick.QUICK_TEST_SECONDS
    durations = {"t.py::slow": limit * 2, "t.py::edge": limit}
    assert not quick.is_quick(_Item("t.py::slow"), durations)
    assert quick.is_quick(_Item("t.py::edge"), durations)
    assert quick.is_quick(_Item("t.py::unrecorded"), durations)
    for mark in quick.QUICK_MARKS:
        assert not quick.is_quick(_Item("t.py::unrecorded", (mark,)), durations)


def test_recorded_durations_read_back_what_was_written_above_the_floor(
    quick: ModuleType, tmp_path: Path
) -> None:
    floor = quick.RECORD_FLOOR
    path = tmp_path / "durations.json"
    quick.write_durations(path, {"a.py::fast": floor / 2, "a.py::x": 1.25, "b.py::y": floor})
    assert quick.recorded_durations(path) == {"a.py::x": 1.25, "b.py::y": floor}
    assert quick.recorded_durations(tmp_path / "absent.json") == {}


def test_every_recorded_test_names_a_test_file_of_the_repository(quick: ModuleType) -> None:
    recorded = quick.recorded_durations()
    assert recorded, "tests/durations.json is missing or empty: run `make durations`"
    files = {nodeid.split("::")[0] for nodeid in recorded}
    assert all((ROOT / f).is_file() for f in files), sorted(f for f in files if not (ROOT / f).is_file())


def test_xdist_workers_get_whole_files_longest_first_each_in_its_own_order(
    quick: ModuleType,
) -> None:
    ids = [
        "tests/a.py::t1", "tests/a.py::t2", "tests/b.py::t1", "tests/c.py::t[1]",
        "tests/c.py::t[2]", "tests/d.py::t", "tests/b.py::t2",
    ]  # fmt: skip
    durations = {"tests/a.py::t1": 1.0, "tests/b.py::t1": 3.0, "tests/b.py::t2": 0.5,
                 "tests/c.py::t[2]": 2.0}  # fmt: skip
    order = [i.nodeid for i in quick.heaviest_files_first([_Item(n) for n in ids], durations)]
    # b (3.5 s, its tests together and in their order), c (2 s), a (1 s), d (not recorded)
    assert order == [
        "tests/b.py::t1", "tests/b.py::t2", "tests/c.py::t[1]", "tests/c.py::t[2]",
        "tests/a.py::t1", "tests/a.py::t2", "tests/d.py::t",
    ]  # fmt: skip
    assert quick.heaviest_files_first([], durations) == []
