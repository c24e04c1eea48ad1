"""The paper packages' public surfaces (issue 36, ``notes/architecture.md``, "Issue 36: narrow
paper APIs"): each exports a screenful of what a user calls, every exported name resolves to an
object of its own package, the docs, the studies and the command line use only exported names,
and no known-bad mechanism of the auditor's catalogue is reachable from the library's exports."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import dpquant
from dpquant.audit.suites import catalogue
from dpquant.reference.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("distributed_quantiles", "slice_quantiles", "ldp_minimum", "private_median")
SHARED = ("primitives", "distributions", "exact")
MAX_NAMES = 25
"""A screenful: the most names a paper package may export."""


def _package(name: str) -> ModuleType:
    return importlib.import_module(f"dpquant.reference.{name}")


def _exports(module: ModuleType) -> dict[str, Any]:
    return {name: getattr(module, name) for name in getattr(module, "__all__", ())}


def _library_exports() -> dict[int, str]:
    """id(object) -> where it is exported, over every public surface of the library."""
    surfaces = [_package(p) for p in PAPERS + SHARED]
    surfaces += [importlib.import_module("dpquant.reference"), dpquant]
    out: dict[int, str] = {}
    for module in surfaces:
        for name, obj in _exports(module).items():
            out[id(obj)] = f"{module.__name__}.{name}"
    return out


@pytest.mark.parametrize("paper", PAPERS)
def test_each_paper_package_exports_a_screenful_of_distinct_names(paper) -> None:
    names = _package(paper).__all__
    assert len(names) <= MAX_NAMES, f"{paper} exports {len(names)} names"
    assert len(set(names)) == len(names)
    assert not [n for n in names if n.startswith("_")]


@pytest.mark.parametrize("paper", PAPERS)
def test_every_exported_name_resolves_to_an_object_of_its_package(paper) -> None:
    package = _package(paper)
    for name, obj in _exports(package).items():
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__module__.startswith(f"{package.__name__}."), (name, obj.__module__)
            assert obj.__name__ == name, (name, obj.__name__)
        else:  # a constant: defined by a module of the package under the same name
            owners = [
                m
                for m in pkgutil.iter_modules(package.__path__)
                if getattr(importlib.import_module(f"{package.__name__}.{m.name}"), name, None)
                is obj
            ]
            assert owners, name


def _members_shown(page: Path, package: str) -> list[str]:
    """The ``members:`` of the page's ``::: package`` block (mkdocstrings)."""
    text = page.read_text(encoding="utf-8")
    match = re.search(rf"^::: {re.escape(package)}\n(.*?)(?:\n\n|\Z)", text, re.S | re.M)
    if match is None:
        return []
    members = match.group(1).split("members:", 1)
    return re.findall(r"^\s+- (\w+)$", members[1], re.M) if len(members) == 2 else []


@pytest.mark.parametrize(
    "paper, page",
    list(zip(PAPERS, ("aamand25", "imola25", "fukuchi19", "tzamos20"), strict=True)),
)
def test_the_names_a_paper_page_documents_are_exported(paper, page) -> None:
    package = f"dpquant.reference.{paper}"
    shown = _members_shown(ROOT / "docs" / "papers" / f"{page}.md", package)
    assert shown, f"no ::: {package} block with members on {page}.md"
    assert set(shown) <= set(_package(paper).__all__)


def _imported_from_papers(directory: Path) -> list[tuple[str, str, str]]:
    """(file, package, name) of every ``from dpquant.reference.<paper> import name`` below it."""
    found = []
    for path in sorted(directory.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                paper = node.module.removeprefix("dpquant.reference.")
                if paper in PAPERS:
                    found += [(path.name, paper, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("layer", ["studies", "cli"])
def test_the_studies_and_the_command_line_import_only_exported_names(layer) -> None:
    imports = _imported_from_papers(ROOT / "dpquant" / layer)
    if layer == "studies":
        assert imports  # the scan sees the studies' imports
    for where, paper, name in imports:
        assert name in _package(paper).__all__, (where, paper, name)


def _catalogue_objects() -> dict[str, Any]:
    """Every function and class defined by a module of the catalogue, and the mechanisms (and
    the protocols they run) of its entries."""
    out: dict[str, Any] = {}
    for info in pkgutil.iter_modules(catalogue.__path__):
        module = importlib.import_module(f"{catalogue.__name__}.{info.name}")
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
                out[f"{module.__name__}.{name}"] = obj
    for entry in catalogue.CATALOGUE:
        out[f"entry {entry.name}: protocol"] = getattr(entry.mechanism, "protocol", None)
    return out


def test_the_known_bad_protocols_live_in_the_catalogue() -> None:
    """The user answering twice moved out of the library: its catalogue module defines it."""
    objects = _catalogue_objects()
    for name in ("RepeatedThresholdQuery", "two_answers_nbs", "broken_nbs_mechanism"):
        assert f"{catalogue.__name__}.repeated_answers.{name}" in objects
    mech = objects[f"{catalogue.__name__}.repeated_answers.broken_nbs_mechanism"](4, 1.0, 2)
    assert mech.protocol is objects[f"{catalogue.__name__}.repeated_answers.two_answers_nbs"]
    for paper in PAPERS:
        for name in ("two_answers_nbs", "broken_nbs_mechanism"):
            assert not hasattr(_package(paper), name), (paper, name)


def test_no_known_bad_mechanism_is_reachable_from_the_library_exports() -> None:
    exported = _library_exports()
    objects = _catalogue_objects()
    assert len(objects) >= 10
    leaked = {name: exported[id(obj)] for name, obj in objects.items() if id(obj) in exported}
    assert not leaked


def test_an_exported_class_in_the_catalogue_is_a_correct_mechanism_in_a_bad_configuration() -> None:
    """A catalogue entry may configure an exported class (tzamos20's printed Algorithm 1 is
    ``PrivateMedian(mode="paper")``, the paper's algorithm kept as a named option): that class
    is then also in the registry, whose configurations the auditor finds private."""
    exported = _library_exports()
    registered = {type(entry.build()) for entry in REGISTRY}
    options = [e for e in catalogue.CATALOGUE if id(type(e.mechanism)) in exported]
    assert [e.name for e in options] == ["tzamos20_paper_algorithm_1"]
    for entry in options:
        assert type(entry.mechanism) in registered, entry.name


def test_no_library_function_is_marked_broken_on_purpose() -> None:
    """The catalogue's marker ("BROKEN on purpose") opens no docstring of the library."""
    marked = []
    for path in sorted((ROOT / "dpquant" / "reference").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                doc = ast.get_docstring(node) or ""
                if doc.startswith("BROKEN"):
                    marked.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert not marked
    catalogue_docs = (ROOT / "dpquant" / "audit" / "suites" / "catalogue" / "repeated_answers.py").read_text()
    assert "BROKEN on purpose" in catalogue_docs
