"""No benchmark divides a timing by a figure measured elsewhere (issue 39, item 5).

A scan of ``benchmarks/*.py``: a division or product that takes a numeric constant (a literal,
arithmetic of literals, or a module-level name bound to one) with a summary of timings (a call to
``median``, ``mean``, ``fmean``, ``min`` or ``max``) is a ratio against a constant, unless the
constant is a power of ten or of two (a unit: ms, µs, KiB; the mean of two runs); so is a
constant passed to ``ratio``. The scan sees the fault the issue found (``6.3e-3 /
statistics.median(t)``); a constant divided by a timing not summarised in the expression itself
escapes it, and ``ratio`` refuses constants at run time (``test_interleave.py``).
"""

from __future__ import annotations

import ast
import math
import operator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUMMARIES = frozenset({"median", "mean", "fmean", "min", "max"})
_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def _value(node: ast.AST, constants: dict[str, float]) -> float | None:
    """The numeric value of a constant expression (None if it is not one)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _value(node.operand, constants)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, constants), _value(node.right, constants)
        if left is None or right is None:
            return None
        try:
            return float(_ARITHMETIC[type(node.op)](left, right))
        except (KeyError, ArithmeticError):
            return None
    return None


def _is_unit(value: float) -> bool:
    if value <= 0:
        return False
    return any(
        math.isclose(math.log(value, base), round(math.log(value, base)), abs_tol=1e-9)
        for base in (10, 2)
    )


def _summarises(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in SUMMARIES:
                return True
    return False


def _module_constants(tree: ast.Module) -> dict[str, float]:
    constants: dict[str, float] = {}
    for stmt in tree.body:
        targets = (
            stmt.targets
            if isinstance(stmt, ast.Assign)
            else [stmt.target]
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None
            else []
        )
        value = _value(stmt.value, constants) if targets and stmt.value is not None else None
        for target in targets:
            if isinstance(target, ast.Name) and value is not None:
                constants[target.id] = value
    return constants


def ratios_against_constants(source: str) -> list[str]:
    """``"line N: expression"`` for each ratio of ``source`` formed against a constant."""
    tree = ast.parse(source)
    constants = _module_constants(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Mult):
            for const, other in ((node.left, node.right), (node.right, node.left)):
                value = _value(const, constants)
                if value is not None and not _is_unit(value) and _summarises(other):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
                    break
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ratio":
            if any(_value(arg, constants) is not None for arg in node.args):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _scripts() -> list[Path]:
    return sorted((ROOT / "benchmarks").glob("*.py"))


def test_there_are_benchmarks_to_scan() -> None:
    names = {p.name for p in _scripts()}
    assert {"_interleave.py", "bench_imola25.py", "bench_peers.py"} <= names


@pytest.mark.parametrize("path", _scripts(), ids=lambda p: p.name)
def test_no_benchmark_forms_a_ratio_against_a_constant(path: Path) -> None:
    assert ratios_against_constants(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "line",
    [
        "print(f\"authors' 6.3 ms/ours {6.3e-3 / statistics.median(t['fast']):.1f}×\")",
        "x = 88e-3 / median(t)",
        "x = statistics.median(t) / 1.73",
        "x = min(t) * 158.7",
        "x = (6 + 0.3) * 1e-3 / statistics.fmean(t)",
        "x = -6.3e-3 / np.median(t)",
        "x = ratio(t, 6.3e-3)",
        "x = ratio(AUTHORS, t)",
        "x = AUTHORS / statistics.median(t)",
    ],
)
def test_the_scan_finds_a_ratio_against_a_constant(line: str) -> None:
    found = ratios_against_constants(f"AUTHORS = 6.3e-3\n{line}\n")
    assert len(found) == 1 and found[0].startswith("line 2: ")


@pytest.mark.parametrize(
    "line",
    [
        "x = statistics.median(t) / 1e-3",
        "x = statistics.median(t) * 1e3",
        "x = min(t) / unit",
        "x = (time.perf_counter() - start) / 2",
        "x = rss / 1024",
        "x = epsilon / 0.8",
        "x = ratio(t['slow'], t['fast'])",
        "x = statistics.median(slow) / statistics.median(fast)",
        "x = DRAWS / statistics.median(t)",
    ],
)
def test_the_scan_leaves_units_and_measured_ratios_alone(line: str) -> None:
    assert ratios_against_constants(f"DRAWS = 10**6\n{line}\n") == []
