"""Shared test set-up: hypothesis profiles and seeded generators."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=60,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=200)
# `make check` (the quick loop): the same derandomized search, fewer examples
settings.register_profile(
    "check",
    derandomize=True,
    deadline=None,
    max_examples=10,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng() -> np.random.Generator:
    """A fixed-seed generator: every statistical test is reproducible."""
    return np.random.default_rng(20261121)



# -- `make check`: the quick loop (issue 39, item 4) ------------------------------------------------
# `pytest --quick` runs every test except those marked slow, audit or packaging (the full run,
# `make test`, keeps them all), then checks that every package of dpquant had tests of its own
# folder run (tests mirror the source; a package without a folder of its own counts its nearest
# ancestor's; checked when the whole suite was asked for, not a path of it), and names the tests it ran that took longer than QUICK_LIMIT seconds: candidates
# for the slow mark, so that the quick loop stays quick.

QUICK_MARKS = ("slow", "audit", "packaging")
QUICK_LIMIT = 2.0
_ROOT = Path(__file__).resolve().parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="the quick loop of `make check`: deselect tests marked " + ", ".join(QUICK_MARKS),
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--quick"):
        return
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        slow = any(item.get_closest_marker(m) is not None for m in QUICK_MARKS)
        (dropped if slow else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


class _QuickReport:
    """What `--quick` ran (per test folder) and what took long; kept on the controlling process."""

    def __init__(self) -> None:
        self.folders: set[Path] = set()
        self.long: list[tuple[float, str]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        self.folders.add((_ROOT / report.nodeid.split("::")[0]).parent)
        if report.duration > QUICK_LIMIT:
            self.long.append((report.duration, report.nodeid))


def mirror_folder(package: Path) -> Path:
    """The folder of tests mirroring ``package`` (a folder of dpquant), or its nearest ancestor's."""
    rel = package.relative_to(_ROOT / "dpquant")
    while True:
        folder = _ROOT / "tests" / rel
        if folder.is_dir() or rel == Path("."):
            return folder
        rel = rel.parent


def untouched_packages(folders: set[Path]) -> list[str]:
    """The packages of dpquant none of whose tests (in :func:`mirror_folder`) ran."""
    packages = sorted(p.parent for p in (_ROOT / "dpquant").rglob("__init__.py"))
    return [str(p.relative_to(_ROOT)) for p in packages if mirror_folder(p) not in folders]


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--quick") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_QuickReport(), "dpquant_quick_report")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    quick = session.config.pluginmanager.get_plugin("dpquant_quick_report")
    if (
        not isinstance(quick, _QuickReport)
        or exitstatus not in (0, 1)
        or session.config.option.collectonly
    ):
        return
    here = Path(session.config.invocation_params.dir)
    asked = {(here / a).resolve() for a in session.config.args}
    whole = asked == {(_ROOT / t).resolve() for t in session.config.getini("testpaths")}
    untouched = untouched_packages(quick.folders) if whole else []
    if untouched:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    session.config.stash[_SUMMARY] = (untouched, sorted(quick.long, reverse=True))


_SUMMARY = pytest.StashKey[tuple[list[str], list[tuple[float, str]]]]()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if _SUMMARY not in config.stash:
        return
    untouched, long = config.stash[_SUMMARY]
    if untouched:
        terminalreporter.write_line(
            "--quick: no test of these packages ran (each needs a quick test in its folder): "
            + ", ".join(untouched),
            red=True,
        )
    if long:
        terminalreporter.write_line(
            f"--quick: {len(long)} test(s) took over {QUICK_LIMIT:g} s (mark them slow, or make "
            "them faster, to keep `make check` quick):",
            yellow=True,
        )
        for seconds, nodeid in long:
            terminalreporter.write_line(f"  {seconds:6.1f} s  {nodeid}")
