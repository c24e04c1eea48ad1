"""The independent checker of dpquant's certificates (``proofs_checks/certificates/**/*.json``).

It imports no dpquant code: only the standard library, python-flint (Arb ball arithmetic, whose
every operation returns a ball that contains the exact result) and, for identity parts, sympy.
It has its own parser of the expression language (``certificate_language.py``, beside it), so a
fault in dpquant's certifier (which reads the same text with sympy) cannot hide itself here.

A certificate proves one ledger claim as a list of *parts*; each part states a goal
``expression REL 0`` (REL one of ``>=``, ``>``, ``<=``, ``<``) over a box of variables, asserted
where its hypotheses ``h REL' 0`` hold, and proves it in one of three ways:

``boxes``
    A bisection tree over the box. An inner node splits one variable at a stated point (an
    integer variable into ``[lo, at]`` and ``[at + 1, hi]``), so the leaves cover the box by
    construction. A leaf either proves the goal on its whole box (``bound``: a number on the
    right side of 0 that the Arb enclosure of the goal is certainly on the right side of) or
    shows the box lies outside the claim's domain (``outside``: hypothesis ``i`` certainly fails
    on the whole box, its enclosure certainly on the wrong side of ``bound``). A third kind of
    leaf is *monotone*. The part lists derived expressions (the goal is expression 0, entry k
    expression k + 1): ``{"of": i, "variable": x, "expression": d}``, d the partial derivative
    in x of expression i (which uses no Abs, Min, Max, floor or ceiling), or with ``"at": e``,
    expression i with x set to e; sympy checks each (the difference simplifies to 0). A
    monotone leaf proves, by its ``slope`` subtree, that a derivative d of the expression keeps
    one sign on the whole box (``up``: d >= 0, ``down``: d <= 0), and, by its ``on_face``
    subtree, its ``face`` expression (the expression at the end e of x's range where it is
    least, for ``>=`` and ``>``; greatest for ``<=`` and ``<``) on the box with x = e; by the
    mean value theorem the goal holds on the whole box. This settles goals that are tight on a
    face (0 at ε = 0, say), where no enclosure of a box touching the face can. No hypothesis may
    leave a box out inside a monotone leaf, and x is never an integer variable (the slope's
    integer splits would leave the gaps between integers unproven).
``points``
    Single points (a counterexample): at each, every hypothesis certainly holds and the goal,
    with its stated bound, certainly holds.
``identity``
    ``expression`` is identically 0: sympy simplifies it to 0, the variables declared real and,
    where the box is positive, positive.

Numbers in certificates are exact: ``"p/q"``, integers, or decimals (``"1.5e-3"``), read as
exact rationals. Expressions take integer literals only. Unknown keys are refused, so nothing can
be switched off by adding a field.

Run ``python proofs_checks/certificate_checker.py [files or folders]`` (default: every
certificate under ``proofs_checks/certificates``); it prints one line per certificate and exits 1
when any is refused.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from flint import arb, ctx, fmpq

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the language module beside this one
from certificate_language import (  # noqa: E402
    CONSTANTS,
    FUNCTIONS,
    CertificateError,
    Node,
    evaluate,
    parse,
    rational,
    to_sympy,
    uses,
)

FORMAT = "dpquant-certificate/1"
HERE = Path(__file__).resolve().parent
CERTIFICATES = HERE / "certificates"
RELATIONS = (">=", ">", "<=", "<")
MAX_DEPTH = 200
MAX_NODES = 2_000_000


# ----------------------------------------------------------------------------- parts

_PART_KEYS = {
    "name",
    "method",
    "variables",
    "hypotheses",
    "goal",
    "precision",
    "tree",
    "points",
    "note",
    "expressions",
}
_NOT_SMOOTH = {"Abs", "Min", "Max", "floor", "ceiling"}
_FACE = {
    (">=", "up"): 0,
    (">", "up"): 0,
    (">=", "down"): 1,
    (">", "down"): 1,
    ("<=", "up"): 1,
    ("<", "up"): 1,
    ("<=", "down"): 0,
    ("<", "down"): 0,
}
"""Which end of a monotone leaf's variable its face sits at (0: low, 1: high): where the
expression is least (for >=, >) or greatest (for <=, <) along the variable."""


@dataclass(frozen=True)
class Variable:
    """One variable of a part: its name, its closed range and whether it takes integers only."""

    name: str
    lo: Fraction
    hi: Fraction
    integer: bool


@dataclass(frozen=True)
class Condition:
    """``expression REL 0``."""

    tree: Node
    relation: str


def _keys(obj: Any, allowed: set[str], required: set[str], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise CertificateError(where, "must be a JSON object")
    unknown = set(obj) - allowed
    if unknown:
        raise CertificateError(where, f"unknown key(s) {sorted(unknown)}")
    missing = required - set(obj)
    if missing:
        raise CertificateError(where, f"missing key(s) {sorted(missing)}")
    return obj


def _variables(raw: Any, where: str) -> dict[str, Variable]:
    if not isinstance(raw, list) or not raw:
        raise CertificateError(where, "variables must be a non-empty list")
    out: dict[str, Variable] = {}
    for k, item in enumerate(raw):
        w = f"{where}.variables[{k}]"
        item = _keys(item, {"name", "lo", "hi", "integer"}, {"name", "lo", "hi"}, w)
        name = item["name"]
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name):
            raise CertificateError(w, f"bad variable name {name!r}")
        if name in out or name in FUNCTIONS or name in CONSTANTS:
            raise CertificateError(w, f"variable {name!r} is repeated or reserved")
        lo, hi = rational(item["lo"], w + ".lo"), rational(item["hi"], w + ".hi")
        integer = item.get("integer", False)
        if not isinstance(integer, bool):
            raise CertificateError(w, "integer must be true or false")
        if lo > hi or (integer and (lo.denominator != 1 or hi.denominator != 1)):
            raise CertificateError(w, f"bad range [{lo}, {hi}]")
        out[name] = Variable(name, lo, hi, integer)
    return out


def _condition(raw: Any, names: set[str], where: str) -> Condition:
    raw = _keys(raw, {"expression", "relation"}, {"expression", "relation"}, where)
    if raw["relation"] not in RELATIONS:
        raise CertificateError(where, f"relation must be one of {RELATIONS}")
    return Condition(parse(raw["expression"], names, where), raw["relation"])


def _ball(lo: Fraction, hi: Fraction) -> arb:
    """A ball containing the whole of ``[lo, hi]``."""
    a = arb(fmpq(lo.numerator, lo.denominator))
    return a if lo == hi else a.union(arb(fmpq(hi.numerator, hi.denominator)))


def _certainly(value: arb, relation: str, bound: Fraction) -> bool:
    """Whether every point of the ball ``value`` stands in ``relation`` to ``bound``, with the
    bound itself on the right side of 0 (so the goal ``expression REL 0`` follows)."""
    b = arb(fmpq(bound.numerator, bound.denominator))
    if relation == ">=":
        return bound >= 0 and bool(value >= b)
    if relation == ">":
        return bound > 0 and bool(value >= b)
    if relation == "<=":
        return bound <= 0 and bool(value <= b)
    return bound < 0 and bool(value <= b)


_FAILS = {">=": "<", ">": "<=", "<=": ">", "<": ">="}


@dataclass(frozen=True)
class Derived:
    """Expression ``of`` differentiated in ``variable`` (``at`` None), or with ``variable``
    set to ``at`` (the face of a monotone leaf)."""

    of: int
    variable: str
    at: Fraction | None
    tree: Node


def _expressions(raw: Any, names: set[str], goal: Condition, where: str) -> list[Derived]:
    """The part's derived expressions (the goal is expression 0, entry k is expression k + 1),
    each checked by sympy: a derivative of its parent (the parent using no Abs, Min, Max,
    floor or ceiling) or its parent at a value of one variable, the difference simplifying
    to 0."""
    import sympy

    if not isinstance(raw, list):
        raise CertificateError(where, "expressions must be a list")
    trees = [goal.tree]
    out: list[Derived] = []
    symbols = {n: sympy.Symbol(n, real=True) for n in names}
    for k, item in enumerate(raw):
        w = f"{where}.expressions[{k}]"
        item = _keys(
            item, {"of", "variable", "expression", "at"}, {"of", "variable", "expression"}, w
        )
        of, variable = item["of"], item["variable"]
        if isinstance(of, bool) or not isinstance(of, int) or not 0 <= of < len(trees):
            raise CertificateError(w, f"of must name an earlier expression, got {of!r}")
        if variable not in names:
            raise CertificateError(w, f"unknown variable {variable!r}")
        tree = parse(item["expression"], names, w)
        parent = to_sympy(trees[of], symbols, sympy)
        claimed = to_sympy(tree, symbols, sympy)
        if "at" in item:
            at = rational(item["at"], w + ".at")
            expected = parent.subs(symbols[variable], sympy.Rational(at.numerator, at.denominator))
        else:
            at = None
            if uses(trees[of], _NOT_SMOOTH):
                raise CertificateError(w, "the expression differentiated is not smooth")
            expected = sympy.diff(parent, symbols[variable])
        if sympy.simplify(expected - claimed) != 0:
            raise CertificateError(w, "sympy does not find it the derivative or face of its parent")
        trees.append(tree)
        out.append(Derived(of, variable, at, tree))
    return out


def _check_boxes(
    part: dict[str, Any],
    variables: dict[str, Variable],
    goal: Condition,
    hypotheses: list[Condition],
    where: str,
) -> int:
    """Walk the bisection tree; return its number of leaves.

    A stack entry proves expression ``index`` (0: the goal, k + 1: derivative k) in ``relation``
    on ``box``. Inside a monotone leaf (its slope and its face) no box may be left out through a
    hypothesis: the monotone argument runs along the whole box."""
    derived = _expressions(part.get("expressions", []), set(variables), goal, where)
    trees = [goal.tree, *(d.tree for d in derived)]
    box = {v.name: (v.lo, v.hi) for v in variables.values()}
    stack: list[tuple[Any, dict[str, tuple[Fraction, Fraction]], str, int, int, str, bool]] = [
        (part["tree"], box, where + ".tree", 0, 0, goal.relation, True)
    ]
    leaves = nodes = 0
    while stack:
        node, box, w, depth, index, relation, outside_allowed = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            raise CertificateError(w, "the tree is too deep or too large")
        if isinstance(node, dict) and "split" in node:
            node = _keys(node, {"split", "at", "low", "high"}, {"split", "at", "low", "high"}, w)
            name = node["split"]
            if name not in variables:
                raise CertificateError(w, f"split on unknown variable {name!r}")
            lo, hi = box[name]
            at = rational(node["at"], w + ".at")
            if variables[name].integer:
                if at.denominator != 1 or not lo <= at < hi:
                    raise CertificateError(w, f"integer split {at} outside [{lo}, {hi})")
                low, high = (lo, at), (at + 1, hi)
            else:
                if not lo < at < hi:
                    raise CertificateError(w, f"split {at} not inside ({lo}, {hi})")
                low, high = (lo, at), (at, hi)
            for key, span in (("low", low), ("high", high)):
                stack.append(
                    (
                        node[key],
                        {**box, name: span},
                        f"{w}.{key}",
                        depth + 1,
                        index,
                        relation,
                        outside_allowed,
                    )
                )
            continue
        if isinstance(node, dict) and "monotone" in node:
            keys = {"monotone", "direction", "slope", "face", "on_face"}
            node = _keys(node, keys, keys, w)
            j, f = node["monotone"], node["face"]
            for k in (j, f):
                if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(derived):
                    raise CertificateError(w, f"monotone names no derived expression: {k!r}")
            d, face = derived[j - 1], derived[f - 1]
            if d.of != index or d.at is not None or node["direction"] not in ("up", "down"):
                raise CertificateError(
                    w, "monotone: not a derivative of the expression proven here"
                )
            if variables[d.variable].integer:
                # the slope's integer splits leave the gaps (at, at + 1) unproven: no mean value
                raise CertificateError(w, f"monotone along the integer variable {d.variable!r}")
            lo, hi = box[d.variable]
            end = lo if _FACE[(relation, node["direction"])] == 0 else hi
            if face.of != index or face.variable != d.variable or face.at != end:
                raise CertificateError(
                    w, f"monotone: the face is not this expression at {d.variable} = {end}"
                )
            slope = ">=" if node["direction"] == "up" else "<="
            stack.append((node["slope"], box, w + ".slope", depth + 1, j, slope, False))
            stack.append(
                (
                    node["on_face"],
                    {**box, d.variable: (end, end)},
                    w + ".on_face",
                    depth + 1,
                    f,
                    relation,
                    False,
                )
            )
            continue
        leaves += 1
        node = _keys(node, {"bound", "outside"}, {"bound"}, w)
        bound = rational(node["bound"], w + ".bound")
        values = {name: _ball(lo, hi) for name, (lo, hi) in box.items()}
        if "outside" in node:
            k = node["outside"]
            if not outside_allowed:
                raise CertificateError(w, "no box may be left out inside a monotone leaf")
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(hypotheses):
                raise CertificateError(w, f"outside names no hypothesis: {k!r}")
            h = hypotheses[k]
            if not _certainly(evaluate(h.tree, values), _FAILS[h.relation], bound):
                raise CertificateError(w, f"hypothesis {k} is not shown to fail on {_show(box)}")
        elif not _certainly(evaluate(trees[index], values), relation, bound):
            raise CertificateError(
                w, f"expression {index} is not shown {relation} {bound} on {_show(box)}"
            )
    return leaves


def _check_points(
    part: dict[str, Any],
    variables: dict[str, Variable],
    goal: Condition,
    hypotheses: list[Condition],
    where: str,
) -> int:
    points = part["points"]
    if not isinstance(points, list) or not points:
        raise CertificateError(where, "points must be a non-empty list")
    for k, raw in enumerate(points):
        w = f"{where}.points[{k}]"
        raw = _keys(raw, {"at", "bound"}, {"at", "bound"}, w)
        at = _keys(raw["at"], set(variables), set(variables), w + ".at")
        values = {}
        for name, v in variables.items():
            x = rational(at[name], f"{w}.at.{name}")
            if not v.lo <= x <= v.hi or (v.integer and x.denominator != 1):
                raise CertificateError(w, f"{name} = {x} is outside its range")
            values[name] = _ball(x, x)
        for j, h in enumerate(hypotheses):
            if not _certainly_holds(evaluate(h.tree, values), h.relation):
                raise CertificateError(w, f"hypothesis {j} is not shown to hold at the point")
        bound = rational(raw["bound"], w + ".bound")
        if not _certainly(evaluate(goal.tree, values), goal.relation, bound):
            raise CertificateError(w, f"the goal is not shown {goal.relation} {bound} at the point")
    return len(points)


def _certainly_holds(value: arb, relation: str) -> bool:
    zero = arb(0)
    return bool(
        {">=": value >= zero, ">": value > zero, "<=": value <= zero, "<": value < zero}[relation]
    )


def _check_identity(
    part: dict[str, Any], variables: dict[str, Variable], goal: Condition, where: str
) -> int:
    import sympy

    if goal.relation != ">=":
        raise CertificateError(where, "an identity part states its goal with relation '>='")
    symbols = {
        v.name: sympy.Symbol(
            v.name,
            real=True,
            positive=True if v.lo > 0 else None,
            integer=True if v.integer else None,
        )
        for v in variables.values()
    }
    expr = to_sympy(goal.tree, symbols, sympy)
    if sympy.simplify(expr) != 0:
        raise CertificateError(where, "sympy does not simplify the expression to 0")
    return 1


def _show(box: dict[str, tuple[Fraction, Fraction]]) -> str:
    text = ", ".join(f"{n} in [{float(lo):.6g}, {float(hi):.6g}]" for n, (lo, hi) in box.items())
    return text[:300]


def check_part(part: Any, where: str) -> int:
    """Check one part; return how many leaves (boxes, points) it proved."""
    part = _keys(part, _PART_KEYS, {"name", "method", "variables", "goal"}, where)
    variables = _variables(part["variables"], where)
    names = set(variables)
    goal = _condition(part["goal"], names, where + ".goal")
    raw_h = part.get("hypotheses", [])
    if not isinstance(raw_h, list):
        raise CertificateError(where, "hypotheses must be a list")
    hypotheses = [_condition(h, names, f"{where}.hypotheses[{k}]") for k, h in enumerate(raw_h)]
    precision = part.get("precision", 128)
    if isinstance(precision, bool) or not isinstance(precision, int) or not 53 <= precision <= 4096:
        raise CertificateError(where, "precision must be an integer of bits in [53, 4096]")
    method = part["method"]
    saved = ctx.prec
    ctx.prec = precision
    try:
        if "expressions" in part and method != "boxes":
            raise CertificateError(where, "only a boxes part has derived expressions")
        if method == "boxes" and "tree" in part and "points" not in part:
            return _check_boxes(part, variables, goal, hypotheses, where)
        if method == "points" and "points" in part and "tree" not in part:
            return _check_points(part, variables, goal, hypotheses, where)
        if method == "identity" and "tree" not in part and "points" not in part and not raw_h:
            return _check_identity(part, variables, goal, where)
        raise CertificateError(where, f"method {method!r} with these keys is not a known proof")
    finally:
        ctx.prec = saved


@dataclass(frozen=True)
class Checked:
    """A certificate the checker accepted: its claim, how many parts and leaves, how long."""

    claim: str
    parts: int
    leaves: int
    seconds: float


def check_certificate(data: Any, where: str = "certificate") -> Checked:
    """Check a certificate (its parsed JSON); raise :class:`CertificateError` if refused."""
    start = time.perf_counter()
    data = _keys(
        data,
        {"format", "claim", "statement", "domain", "parts", "produced_by"},
        {"format", "claim", "domain", "parts"},
        where,
    )
    if data["format"] != FORMAT:
        raise CertificateError(where, f"format must be {FORMAT!r}")
    claim = data["claim"]
    if not isinstance(claim, str) or not re.fullmatch(r"[a-z0-9]+/[A-Za-z0-9.\-]+", claim):
        raise CertificateError(where, f"bad claim id {claim!r}")
    if not isinstance(data["domain"], str) or not data["domain"].strip():
        raise CertificateError(where, "domain must be a non-empty text")
    parts = data["parts"]
    if not isinstance(parts, list) or not parts:
        raise CertificateError(where, "parts must be a non-empty list")
    leaves = sum(check_part(p, f"{where}.parts[{k}]") for k, p in enumerate(parts))
    return Checked(claim, len(parts), leaves, time.perf_counter() - start)


def check_file(path: Path) -> Checked:
    """Check the certificate in the JSON file ``path``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CertificateError(str(path), f"not a JSON file: {exc}") from None
    return check_certificate(data, Path(path).name)


def certificate_files(roots: list[Path] | None = None) -> Iterator[Path]:
    """Every ``*.json`` under ``roots`` (default: :data:`CERTIFICATES`), sorted."""
    for root in roots or [CERTIFICATES]:
        root = Path(root)
        yield from sorted(root.rglob("*.json")) if root.is_dir() else [root]


def main(argv: list[str]) -> int:
    files = list(certificate_files([Path(a) for a in argv] or None))
    if not files:
        print("no certificate found: nothing was checked", file=sys.stderr)
        return 1
    refused = 0
    for path in files:
        try:
            c = check_file(path)
            print(f"accepted  {c.claim}: {c.parts} part(s), {c.leaves} leaves, {c.seconds:.2f} s")
        except CertificateError as exc:
            refused += 1
            print(f"REFUSED   {path}: {exc}")
    print(f"{len(files) - refused} accepted, {refused} refused")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
