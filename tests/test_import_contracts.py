"""The import contracts of docs/DESIGN.md ("Layers") hold, and fail on an upward import.

``make test`` runs ``lint-imports`` on the contracts of ``pyproject.toml``. What import-linter
cannot express is checked here on grimp's import graph: no module imports the package root
``dpquant`` (the top of the layers: it re-exports the auditor and the papers' mechanisms, so a
module below it that imported it would import upwards). And each contract is shown to fail: a
copy of the package with one upward import added fails ``lint-imports`` or the root check.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


ROOT_IMPORTERS = """
import grimp
graph = grimp.build_graph("dpquant", include_external_packages=False,
                          exclude_type_checking_imports=True)
for m in sorted(graph.modules):
    if m != "dpquant" and "dpquant" in graph.find_modules_directly_imported_by(m):
        print(m)
"""


def root_importers(package_dir: Path) -> list[str]:
    """The modules of the package in ``package_dir`` (a folder holding ``dpquant/``) that
    import the package root itself (``import dpquant``, ``from dpquant import X`` for a name of
    its ``__init__``; ``from dpquant import audit`` imports the subpackage, not the root). In a
    fresh interpreter, whose ``dpquant`` is the one in ``package_dir``."""
    done = subprocess.run(
        [sys.executable, "-c", ROOT_IMPORTERS],
        env={"PYTHONPATH": str(package_dir), "PATH": str(Path(sys.executable).parent)},
        cwd=package_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def test_no_module_imports_the_package_root() -> None:
    assert root_importers(ROOT) == []


def test_the_contracts_hold_on_the_repository() -> None:
    if not LINT_IMPORTS.exists():
        pytest.skip("lint-imports is not installed (the dev extra)")
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the package and its contracts, in a folder of its own."""
    shutil.copytree(
        ROOT / "dpquant", tmp_path / "dpquant", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(copy: Path, module: str, line: str) -> None:
    path = copy / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = copy / module.replace(".", "/") / "__init__.py"
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("from __future__ import annotations\n")
    path.write_text(head + sep + line + "\n" + rest, encoding="utf-8")


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("dpquant.audit.report.render", "import dpquant"),
        ("dpquant.reference.datasets", "import dpquant"),
        ("dpquant.options", "from dpquant import __version__"),
        ("dpquant.cli.app", "import dpquant as _root"),
    ],
)
def test_an_import_of_the_package_root_fails(copy: Path, module: str, line: str) -> None:
    assert root_importers(copy) == []
    _add_import(copy, module, line)
    assert root_importers(copy) == [module]


@pytest.mark.parametrize(
    ("module", "line"),
    [
        (
            "dpquant.cli.app",
            "import dpquant.reference.slice_quantiles.good_set",
        ),  # a private module
        ("dpquant.audit.report.render", "import dpquant.options"),  # the auditor above the options
        ("dpquant.audit.report.render", "import dpquant.studies.harness"),  # the auditor above a study
        (
            "dpquant.reference.datasets",
            "import dpquant.audit.model.limits",
        ),  # the library above the auditor
        ("dpquant.options", "import dpquant.studies.harness"),
        ("dpquant.studies.harness", "import dpquant.audit.model.limits"),  # studies and auditor apart
        ("dpquant.errors", "import dpquant.reference.validation"),  # the errors at the bottom
    ],
)
def test_an_upward_or_private_import_fails_the_contracts(
    copy: Path, module: str, line: str
) -> None:
    if not LINT_IMPORTS.exists():
        pytest.skip("lint-imports is not installed (the dev extra)")
    _add_import(copy, module, line)
    env = {"PATH": str(LINT_IMPORTS.parent), "PYTHONPATH": str(copy), "HOME": str(copy)}
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=copy,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode != 0 and "BROKEN" in done.stdout, done.stdout[-3000:]
    assert module in done.stdout
