"""The layout rules of docs/DESIGN.md that import-linter cannot see (issue 19).

import-linter (``make test`` runs ``lint-imports``) checks the arrows between modules; these tests
check what lies inside them: no library module imports a private name of another, no library
file grows past 600 lines, and no docstring cites a file outside the repository.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ("dpquant",)
"""The one top-level package: everything installed lives under it (issue 35)."""
MAX_LINES = 600


def _library_files() -> list[Path]:
    return sorted(p for pkg in LIBRARY for p in (ROOT / pkg).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_imports(text: str, module: str, is_package: bool = False) -> list[str]:
    """The names ``_x`` that ``from m import _x`` statements of ``text`` (the source of
    ``module``) take from another module ``m`` of the library (relative imports resolved)."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.ImportFrom):
            continue
        target = node.module or ""
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join([*base, target] if target else base)
        if target.split(".")[0] not in LIBRARY or target == module:
            continue
        found += [
            f"{target}.{a.name} (line {node.lineno})"
            for a in node.names
            if a.name.startswith("_") and not a.name.startswith("__")
        ]
    return found


def test_the_library_has_files_to_check() -> None:
    names = {p.relative_to(ROOT).parts[0] for p in _library_files()}
    assert names == set(LIBRARY)


def test_no_library_module_imports_a_private_name_of_another() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {hit}"
        for path in _library_files()
        for hit in private_imports(
            path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py"
        )
    ]
    assert found == []


def test_the_private_import_check_sees_absolute_and_relative_imports() -> None:
    text = (
        "from dpquant.reference.validation import _describe, check_int\n"
        "from . import _x\n"
        "from .core import __all__\n"
        "from numpy import _private\n"
    )
    found = private_imports(text, "dpquant.reference.primitives.laplace")
    assert found == ["dpquant.reference.validation._describe (line 1)", "dpquant.reference.primitives._x (line 2)"]


@pytest.mark.parametrize("path", _library_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_library_file_is_at_most_600_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by concept"


_OUTSIDE = re.compile(r"spec §|spec item|\.\./shared|shared/specs|shared/seeds|/tmp/")


def test_no_docstring_cites_a_file_outside_the_repository() -> None:
    found = []
    for path in _library_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def _module_table() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## What is here")
    return readme[start : readme.index("\n## ", start + 1)]


def test_every_path_in_the_readme_module_table_exists() -> None:
    paths = re.findall(r"`((?:reference|audit|dpquant|notes)/[^`]*)`", _module_table())
    assert len(paths) > 20
    assert [p for p in paths if not (ROOT / p).exists()] == []


def test_every_library_package_is_in_the_readme_table_and_the_design() -> None:
    design = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    table = _module_table()
    packages = sorted(
        p.parent.relative_to(ROOT).as_posix()
        for pkg in LIBRARY
        for p in (ROOT / pkg).rglob("__init__.py")
        if p.parent != ROOT / pkg and "adapters" not in p.parts
    )
    assert "dpquant/reference/distributions" in packages
    missing_in_table = [p for p in packages if f"`{p}/" not in table]
    top = [p for p in packages if p.count("/") == 1]  # the design draws studies as <paper>/
    missing_in_design = [p for p in top if p.rpartition("/")[2] + "/" not in design]
    assert missing_in_table == [] and missing_in_design == []
