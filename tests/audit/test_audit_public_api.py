"""The auditor's public API, as a user's type checker sees it (issue 36).

``dpquant.audit`` loads its names on first use (PEP 562) so that the pytest plugin stays light; a
module ``__getattr__`` alone would make every name ``Any`` to a type checker although the
package ships ``py.typed``. The names are imported under ``TYPE_CHECKING`` too; these tests hold
the two lists together, and run ``mypy --strict`` on the modules that define the public names and
on a user's file that calls them.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dpquant.audit as audit

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "dpquant" / "audit" / "__init__.py"


def _type_checking_imports() -> dict[str, str]:
    """Each name imported under ``if TYPE_CHECKING:`` in the package's ``__init__``, and its
    module."""
    tree = ast.parse(INIT.read_text("utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module is not None
                found.update({alias.name: imp.module for alias in imp.names})
    return found


def test_every_public_name_is_typed_for_checkers_and_loaded_from_the_same_module() -> None:
    assert _type_checking_imports() == audit._EXPORTS
    assert sorted(audit.__all__) == sorted(audit._EXPORTS)
    for name, module in audit._EXPORTS.items():
        value = getattr(audit, name)
        assert getattr(sys.modules[module], name) is value


USER_FILE = '''
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dpquant.audit import (
    DEFAULT_SAMPLES, AuditOptions, AuditReport, BitVectors, Box, CallableMechanism,
    ConformanceReport, CustomRelation, FiniteSet, Inconclusive, MalformedOutput, QueryAnswers,
    Records, audit_mechanism, conformance, from_callable,
)
from dpquant.reference import PrivacyClaim


def noisy_count(data: np.ndarray, rng: np.random.Generator) -> float:
    return float(len(data) + rng.laplace(scale=1.0))


def audit_it() -> bool:
    mech: CallableMechanism = from_callable(noisy_count, PrivacyClaim(1.0, 0.0, "add_remove"), (0.0, 1.0))
    report: AuditReport = audit_mechanism(
        mech, samples=DEFAULT_SAMPLES, options=AuditOptions(timeout=1.0, tighten=True)
    )
    why: Inconclusive | None = report.inconclusive
    records = Records(Box(2, 0.0, 1.0), "add_remove")
    spaces = (BitVectors(3), FiniteSet(["a", "b"]), records, QueryAnswers(3))
    checked: type[ConformanceReport] = ConformanceReport
    errors: tuple[type[Exception], ...] = (MalformedOutput,)
    relation: type[CustomRelation] = CustomRelation
    use = (conformance, ThreadPoolExecutor, spaces, checked, errors, relation, why)
    return report.passed and bool(use)
'''


@pytest.mark.slow
def test_mypy_strict_accepts_the_public_api_and_a_users_calls(tmp_path: Path) -> None:
    """``mypy --strict`` on ``dpquant/audit/__init__.py`` and the modules that define its names
    (errors reported there only), then on a user's file: a call with a wrong type is an error
    there, so the names are not ``Any``."""
    user = tmp_path / "user_audit.py"
    user.write_text(USER_FILE, encoding="utf-8")
    modules = sorted({str(ROOT / (m.replace(".", "/") + ".py")) for m in audit._EXPORTS.values()})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MYPY_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent"]
    done = subprocess.run(
        [*command, str(INIT), *modules, str(user)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    wrong = tmp_path / "wrong_call.py"
    wrong.write_text(
        "from dpquant.audit import audit_mechanism\naudit_mechanism(1, samples='many')\n",
        encoding="utf-8",
    )
    done = subprocess.run([*command, str(wrong)], capture_output=True, text=True, env=env)
    assert done.returncode == 1 and 'incompatible type "str"' in done.stdout, done.stdout
