"""The package root ``dpquant`` (issue 35): one namespace, the common case in a small explicit
``__all__``, loaded on first use and typed for checkers."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import dpquant

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "scipy", "mpmath", "sympy", "matplotlib")


def test_every_name_of_all_is_the_object_its_module_defines() -> None:
    exported = [n for n in dpquant.__all__ if n != "__version__"]
    assert exported and len(exported) <= 12, "the root's __all__ is the common case only"
    for name in exported:
        module = importlib.import_module(dpquant._EXPORTS[name])
        assert getattr(dpquant, name) is getattr(module, name), name
    assert set(exported) == set(dpquant._EXPORTS)
    assert set(dpquant.__all__) <= set(dir(dpquant))


def test_the_common_case_works_from_the_root_alone() -> None:
    claim = dpquant.PrivacyClaim(1.0, adjacency="local")

    def leaky(data, rng):
        return float(data[0]) + 0.01 * rng.random()

    mech = dpquant.from_callable(leaky, claim, (0.0, 1.0))
    report = dpquant.audit_mechanism(mech, samples=2000, seed=0)
    assert isinstance(report, dpquant.AuditReport) and report.violation


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        dpquant.no_such_name  # noqa: B018


def test_the_subpackages_are_the_two_halves() -> None:
    from dpquant import audit, reference

    assert audit.__name__ == "dpquant.audit" and reference.__name__ == "dpquant.reference"
    assert dpquant.PrivacyClaim is reference.PrivacyClaim
    assert dpquant.audit_mechanism is audit.audit_mechanism


def test_loading_the_root_and_the_plugin_imports_nothing_heavy() -> None:
    """The plugin loads in every test run of an environment where dpquant is installed."""
    code = (
        "import sys, dpquant, dpquant.audit.pytest_plugin\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "", f"imported at load: {done.stdout.strip()}"


def test_type_checkers_see_each_export_where_it_is_defined() -> None:
    """The ``TYPE_CHECKING`` imports of ``dpquant/__init__.py`` name each export from the module
    that defines it, so that a user's type checker sees ``dpquant.audit_mechanism`` as the
    function, not ``Any``."""
    tree = ast.parse((ROOT / "dpquant" / "__init__.py").read_text(encoding="utf-8"))
    guarded = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    imported = {
        alias.name: node.module
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported == dpquant._EXPORTS
