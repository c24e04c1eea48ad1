"""Shared test set-up: hypothesis profiles and seeded generators."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# One BLAS thread per test process, set before numpy loads (the xdist workers inherit it): `make
# test` already runs one process per core, and OpenBLAS's default of one thread per core then puts
# two spinning threads on each core. The classifier's Newton steps (a Hessian over 10^5 draws) took
# 43 s with two threads against 19 s with one in test_audit_relations' sparse-vector test, and 40
# such Hessians in two processes side by side 55 s against 5 s (notes/benchmarks.md, "One BLAS
# thread per test process"). The results are the same (the golden reports pass with either).
for _blas in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_blas, "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

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
# `pytest --quick` runs the tests that are neither marked slow, audit or packaging nor recorded as
# taking over QUICK_TEST_SECONDS in tests/durations.json (the seconds of each test in a whole run on
# two cores, written by `make durations`, i.e. `pytest --record-durations`; a test not recorded
# there counts as quick). The full run, `make test`, keeps them all. `--quick` then checks that
# every package of dpquant had tests of its own folder run (tests mirror the source; a package
# without a folder of its own counts its nearest ancestor's; checked when the whole suite was asked
# for, not a path of it), and names the tests it ran that took longer than QUICK_LIMIT seconds:
# candidates for the slow mark, or for `make durations`, so that the quick loop stays quick.

QUICK_MARKS = ("slow", "audit", "packaging")
QUICK_LIMIT = 2.0
QUICK_TEST_SECONDS = 0.1
RECORD_FLOOR = 0.05
_ROOT = Path(__file__).resolve().parent
DURATIONS = _ROOT / "tests" / "durations.json"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="the quick loop of `make check`: deselect tests marked " + ", ".join(QUICK_MARKS)
        + f" or recorded over {QUICK_TEST_SECONDS:g} s in tests/durations.json",
    )
    parser.addoption(
        "--record-durations",
        metavar="PATH",
        default=None,
        help="write each test's seconds (set-up, call and tear-down) to PATH, as tests/durations.json",
    )


def recorded_durations(path: Path = DURATIONS) -> dict[str, float]:
    """The seconds of each test recorded in ``path`` (empty when there is no such file)."""
    if not path.is_file():
        return {}
    seconds = json.loads(path.read_text(encoding="utf-8"))["seconds"]
    return {str(nodeid): float(t) for nodeid, t in seconds.items()}


def is_quick(item: pytest.Item, durations: dict[str, float]) -> bool:
    """Whether ``item`` belongs to the quick loop: no slow mark, not recorded as slow."""
    if any(item.get_closest_marker(m) is not None for m in QUICK_MARKS):
        return False
    return durations.get(item.nodeid, 0.0) <= QUICK_TEST_SECONDS


def heaviest_files_first(items: list[pytest.Item], durations: dict[str, float]) -> list[pytest.Item]:
    """``items`` with whole test files in order of their recorded seconds, the longest first (a
    file's tests stay together and in their order; files of equal seconds keep theirs).

    Why: pytest-xdist's work stealing hands an idle worker the *last* tests queued on the other
    one, and a test already running cannot be shared. In path order the wheel test (42 s), the
    site's browser tests and the proofs' slowest checks came near the end, where one worker could
    be left on them while the other had nothing to do; longest first, the tests left at the end
    are the short ones."""
    seconds: dict[str, float] = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        seconds[path] = seconds.get(path, 0.0) + durations.get(item.nodeid, 0.0)
    return sorted(items, key=lambda item: -seconds[item.nodeid.split("::")[0]])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    durations = recorded_durations()
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: every worker sorts alike
        items[:] = heaviest_files_first(items, durations)
    if not config.getoption("--quick"):
        return
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (kept if is_quick(item, durations) else dropped).append(item)
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


class _DurationRecorder:
    """Sums each test's set-up, call and tear-down seconds; writes them at the end of the session."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.seconds:
            raise pytest.UsageError("--record-durations: no test ran, nothing to record")
        write_durations(self.path, self.seconds)


def write_durations(path: Path, seconds: dict[str, float]) -> None:
    """Write the tests that took at least RECORD_FLOOR seconds, slowest first, to ``path``."""
    kept = sorted(((t, n) for n, t in seconds.items() if t >= RECORD_FLOOR), reverse=True)
    document = {
        "about": "seconds per test of a whole run on two cores (make durations); read by "
        "pytest --quick (conftest.py), which leaves out the tests over "
        f"{QUICK_TEST_SECONDS:g} s; tests under {RECORD_FLOOR:g} s are not listed",
        "seconds": {nodeid: round(t, 3) for t, nodeid in kept},
    }
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    if config.getoption("--quick"):
        config.pluginmanager.register(_QuickReport(), "dpquant_quick_report")
    record = config.getoption("--record-durations")
    if record is not None:
        config.pluginmanager.register(_DurationRecorder(Path(record)), "dpquant_durations")


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
