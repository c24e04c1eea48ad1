"""No ``dict[str, Any]`` crosses a module boundary in ``dpquant/audit/`` (issue 36, "Done when").

The rule, checked on the source with ``ast``: in every module of ``dpquant/audit/``, no *public*
function or method (its name, and the names of the classes around it, without a leading
underscore) has ``dict[str, Any]`` in the annotation of a parameter or of its return, or returns a
``Mapping[str, Any]``; and no public class declares an attribute so annotated (a dataclass field,
a protocol's member). The one exception is a method named ``to_dict``: it returns the JSON form of
a typed value. Private helpers (``_name``) may pass dicts inside their module; a public parameter
may be a read-only ``Mapping[str, Any]`` of keyword arguments (the pytest plugin's
``make_auditor``).
"""

from __future__ import annotations

import ast
from pathlib import Path

AUDIT = Path(__file__).resolve().parents[2] / "dpquant" / "audit"
UNTYPED = "dict[str, Any]"
UNTYPED_RETURN = ("dict[str, Any]", "Mapping[str, Any]")


def untyped_boundaries(text: str) -> list[str]:
    """Where the source ``text`` breaks the rule of the module docstring: one line each,
    ``name (line n): annotation``."""
    found: list[str] = []

    def visit(node: ast.AST, prefix: str, private: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.", private or child.name.startswith("_"))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                hidden = child.name.startswith("_") and not child.name.startswith("__")
                if private or hidden:
                    continue
                args = child.args
                params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                shown = [ast.unparse(a.annotation) for a in params if a and a.annotation]
                bad = [s for s in shown if UNTYPED in s]
                if child.returns is not None and child.name != "to_dict":
                    returned = ast.unparse(child.returns)
                    bad += [f"-> {returned}" for u in UNTYPED_RETURN if u in returned][:1]
                found.extend(f"{prefix}{child.name} (line {child.lineno}): {b}" for b in bad)
            elif isinstance(child, ast.AnnAssign) and prefix and not private:
                shown_field = ast.unparse(child.annotation)
                if UNTYPED in shown_field:
                    name = ast.unparse(child.target)
                    found.append(f"{prefix}{name} (line {child.lineno}): {shown_field}")

    visit(ast.parse(text), "", False)
    return found


def test_no_public_function_method_or_field_of_the_auditor_is_a_dict_of_anything() -> None:
    files = sorted(AUDIT.rglob("*.py"))
    assert len(files) > 40  # the auditor's modules are all found
    found = [
        f"{path.relative_to(AUDIT)}: {line}"
        for path in files
        for line in untyped_boundaries(path.read_text("utf-8"))
    ]
    assert found == []


def test_the_check_finds_each_kind_of_breach_and_allows_the_exceptions() -> None:
    text = """
from typing import Any
from collections.abc import Mapping

def stage(ctx: Any) -> tuple[dict[str, Any] | None, list[int]]: ...
def takes(info: dict[str, Any]) -> None: ...
def settings() -> Mapping[str, Any]: ...
def options(defaults: Mapping[str, Any]) -> None: ...
def _private(info: dict[str, Any]) -> dict[str, Any]: ...

class Report:
    witness: dict[str, Any] | None
    samples_by_stage: dict[str, int]
    def to_dict(self) -> dict[str, Any]: ...
    def describe(self) -> dict[str, Any]: ...

class _Findings:
    exact: dict[str, Any] | None
"""
    assert untyped_boundaries(text) == [
        "stage (line 5): -> tuple[dict[str, Any] | None, list[int]]",
        "takes (line 6): dict[str, Any]",
        "settings (line 7): -> Mapping[str, Any]",
        "Report.witness (line 12): dict[str, Any] | None",
        "Report.describe (line 15): -> dict[str, Any]",
    ]
