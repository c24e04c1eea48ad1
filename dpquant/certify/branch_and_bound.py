"""Branch and bound in Arb ball arithmetic: a part's goal proven on every box of a bisection tree.

Each box is evaluated in ball arithmetic (:mod:`dpquant.certify.expressions`). A box is a leaf
when the goal's enclosure is certainly on the right side of 0 (a *proved* leaf) or a hypothesis's
enclosure is certainly on the wrong side (the box lies outside the claim's domain); otherwise the
variable of largest relative width (in its scale: linear or logarithmic) is split in two. The
tree records each split point and each leaf's bound, a short decimal between 0 and the enclosure,
which the independent checker re-verifies by evaluating the goal again with its own parser.

A box that cannot be decided within :attr:`Part.max_leaves` boxes stops the search with a
:class:`CertificationFailed` naming it; when the goal certainly fails at its centre, the error
says so (a counterexample to the stated inequality).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpquant.certify.expressions import Evaluator, ball, compile_expression, parse_expression
from dpquant.certify.specs import Condition, Part, Variable

Box = dict[str, tuple[Fraction, Fraction]]
_FAILS = {">=": "<", ">": "<=", "<=": ">", "<": ">="}


class CertificationFailed(Exception):
    """The branch and bound could not decide a box.

    Args:
        part: The part's name.
        box: The box left undecided.
        counterexample: Whether the goal certainly fails at the box's centre.
    """

    def __init__(self, part: str, box: Box, counterexample: bool) -> None:
        where = ", ".join(f"{k} in [{float(a):.6g}, {float(b):.6g}]" for k, (a, b) in box.items())
        what = "the goal fails at the centre of" if counterexample else "undecided"
        super().__init__(f"part {part!r}: {what} {where}")
        self.part = part
        self.box = box
        self.counterexample = counterexample


@dataclass(frozen=True)
class Compiled:
    """A part's goal and hypotheses compiled to ball evaluators."""

    goal: Evaluator
    hypotheses: tuple[Evaluator, ...]


def compile_part(part: Part) -> Compiled:
    """The evaluators of ``part``'s goal and hypotheses."""
    names = part.names

    def one(c: Condition, name: str) -> Evaluator:
        return compile_expression(parse_expression(c.expression, names, name=name))

    return Compiled(
        one(part.goal, "goal"),
        tuple(one(h, f"hypotheses[{k}]") for k, h in enumerate(part.hypotheses)),
    )


def short_bound(value: Any, relation: str) -> Fraction | None:
    """A short decimal bound ``b`` with the ball ``value`` certainly on ``relation``'s side of
    ``b`` and ``b`` on that side of 0 (``b = 0`` for ``>=`` and ``<=`` when the ball touches
    0's side only barely), or None when there is none."""
    if relation in ("<=", "<"):
        flipped = short_bound(-value, {"<=": ">=", "<": ">"}[relation])
        return None if flipped is None else -flipped
    if not value.is_finite():
        return None
    low = value.lower()
    exact = _exact(low)
    if exact is None or exact < 0 or (relation == ">" and exact == 0):
        return None
    if exact == 0:
        return Fraction(0)
    # three significant digits below half the lower end: room for another evaluation order
    target = exact / 2
    digits = math.floor(math.log10(target.numerator) - math.log10(target.denominator)) - 2
    step = Fraction(10) ** digits
    bound = (target // step) * step
    if bound <= 0:
        return Fraction(0) if relation == ">=" else None
    return bound


def _exact(value: Any) -> Fraction | None:
    """The exact rational of an exact Arb value (an endpoint), or None."""
    if not value.is_finite() or not value.is_exact():
        return None
    man, exp = value.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _candidates(variables: dict[str, Variable], box: Box) -> list[tuple[str, Fraction]]:
    """Each variable that can be split, with a short rational inside its range (its midpoint,
    or near its geometric mean on a logarithmic scale)."""
    out: list[tuple[str, Fraction]] = []
    for v in variables.values():
        lo, hi = box[v.name]
        if (v.integer and hi - lo < 1) or lo == hi:
            continue
        if v.integer:
            out.append((v.name, Fraction((lo + hi) // 2)))
            continue
        window = (lo + (hi - lo) / 4, hi - (hi - lo) / 4)
        if v.scale == "log" and lo > 0 and hi / lo > 4:
            ratio = float(hi / lo) ** 0.25
            window = (lo * Fraction(ratio), hi / Fraction(ratio))
        out.append((v.name, _short_inside(*window)))
    return out


def _children(variables: dict[str, Variable], box: Box, name: str, at: Fraction) -> tuple[Box, Box]:
    lo, hi = box[name]
    if variables[name].integer:
        return {**box, name: (lo, at)}, {**box, name: (at + 1, hi)}
    return {**box, name: (lo, at)}, {**box, name: (at, hi)}


def _score(value: Any, relation: str) -> float:
    """How far the ball ``value`` is from deciding ``relation`` (larger is better)."""
    if not value.is_finite():
        return -math.inf
    end = value.lower() if relation in (">=", ">") else -value.upper()
    return float(end.mid())


def _split(
    part: Part, compiled: Compiled, variables: dict[str, Variable], box: Box
) -> tuple[str, Fraction]:
    """The split whose worse child comes nearest to deciding the goal (ties: the variable of
    largest relative width)."""
    options = _candidates(variables, box)
    if not options:
        raise ValueError("box is a point")
    best, best_key = options[0], (-math.inf, -math.inf)
    for name, at in options:
        worst = math.inf
        for child in _children(variables, box, name, at):
            values = {k: ball(a, b) for k, (a, b) in child.items()}
            worst = min(worst, _score(compiled.goal(values), part.goal.relation))
        key = (worst, _relative_width(variables[name], box[name]))
        if key > best_key:
            best, best_key = (name, at), key
    return best


def _relative_width(v: Variable, span: tuple[Fraction, Fraction]) -> float:
    lo, hi = span
    if v.scale == "log" and lo > 0:
        return math.log(float(hi) / float(lo)) / max(math.log(float(v.hi) / float(v.lo)), 1e-300)
    return float(hi - lo) / max(float(Fraction(v.hi) - Fraction(v.lo)), 1e-300)


def _short_inside(lo: Fraction, hi: Fraction) -> Fraction:
    """A rational of small denominator in ``[lo, hi]`` (a window inside the box's range)."""
    for k in range(0, 400, 2):
        denominator = 1 << k
        candidate = Fraction(math.ceil(lo * denominator), denominator)
        if candidate <= hi:
            return candidate
    return (lo + hi) / 2


def prove_boxes(part: Part) -> tuple[dict[str, Any], int]:
    """The bisection tree of a ``"boxes"`` part, and its number of leaves.

    The boxes are taken breadth first, so that a violation anywhere in the box is met before
    the budget is spent on a corner where the goal is tight; each box undecided is first
    evaluated at its centre, and a centre where the goal certainly fails stops the search as a
    counterexample.

    Raises:
        CertificationFailed: A counterexample, or a box left undecided within
            ``part.max_leaves`` boxes.
    """
    from flint import ctx

    compiled = compile_part(part)
    variables = {v.name: v for v in part.variables}
    saved = ctx.prec
    ctx.prec = part.precision
    try:
        root: dict[str, Any] = {}
        start = {v.name: (Fraction(v.lo), Fraction(v.hi)) for v in part.variables}
        queue: deque[tuple[dict[str, Any], Box, int]] = deque([(root, start, 0)])
        leaves = 0
        while queue:
            node, box, depth = queue.popleft()
            leaf = _leaf(part, compiled, box)
            if leaf is not None:
                node.update(leaf)
                leaves += 1
                continue
            if _fails_at_centre(part, compiled, box):
                raise CertificationFailed(part.name, box, True)
            if leaves + len(queue) >= part.max_leaves or depth >= 150 or _is_point(variables, box):
                raise CertificationFailed(part.name, box, _any_fails(part, compiled, queue))
            name, at = _split(part, compiled, variables, box)
            low, high = _children(variables, box, name, at)
            node.update({"split": name, "at": _text(at), "low": {}, "high": {}})
            queue.append((node["low"], low, depth + 1))
            queue.append((node["high"], high, depth + 1))
        return root, leaves
    finally:
        ctx.prec = saved


def _leaf(part: Part, compiled: Compiled, box: Box) -> dict[str, Any] | None:
    """The leaf of a box the enclosures decide (outside the domain, or the goal proven)."""
    values = {k: ball(a, b) for k, (a, b) in box.items()}
    for k, (h, cond) in enumerate(zip(compiled.hypotheses, part.hypotheses, strict=True)):
        bound = short_bound(h(values), _FAILS[cond.relation])
        if bound is not None:
            return {"outside": k, "bound": _text(bound)}
    bound = short_bound(compiled.goal(values), part.goal.relation)
    return None if bound is None else {"bound": _text(bound)}


def _any_fails(
    part: Part, compiled: Compiled, queue: deque[tuple[dict[str, Any], Box, int]]
) -> bool:
    """Whether the goal certainly fails at the centre of a box still waiting."""
    return any(_fails_at_centre(part, compiled, box) for _, box, _ in queue)


def _is_point(variables: dict[str, Variable], box: Box) -> bool:
    return all(lo == hi or (variables[k].integer and hi - lo < 1) for k, (lo, hi) in box.items())


def _fails_at_centre(part: Part, compiled: Compiled, box: Box) -> bool:
    centre = {k: (a + b) / 2 for k, (a, b) in box.items()}
    centre = {
        k: (Fraction(math.floor(c)) if part.variables[i].integer else c)
        for i, (k, c) in enumerate(centre.items())
    }
    values = {k: ball(c, c) for k, c in centre.items()}
    inside = all(
        _holds(h(values), cond.relation)
        for h, cond in zip(compiled.hypotheses, part.hypotheses, strict=True)
    )
    return inside and short_bound(compiled.goal(values), _FAILS[part.goal.relation]) is not None


def prove_points(part: Part) -> list[dict[str, Any]]:
    """The checked points of a ``"points"`` part, each with its bound.

    Raises:
        CertificationFailed: A point where a hypothesis or the goal is not certainly met.
    """
    from flint import ctx

    compiled = compile_part(part)
    saved = ctx.prec
    ctx.prec = part.precision
    try:
        out = []
        for point in part.points:
            exact = {v.name: Fraction(point[v.name]) for v in part.variables}
            values = {k: ball(x, x) for k, x in exact.items()}
            box = {k: (x, x) for k, x in exact.items()}
            for h, cond in zip(compiled.hypotheses, part.hypotheses, strict=True):
                if not _holds(h(values), cond.relation):
                    raise CertificationFailed(part.name, box, False)
            bound = short_bound(compiled.goal(values), part.goal.relation)
            if bound is None:
                raise CertificationFailed(part.name, box, False)
            out.append({"at": point_text(part, point), "bound": _text(bound)})
        return out
    finally:
        ctx.prec = saved


def point_text(part: Part, point: dict[str, Any]) -> dict[str, str]:
    """A point of a ``"points"`` part as the certificate writes it (exact, short)."""
    return {v.name: _text(Fraction(point[v.name])) for v in part.variables}


def _holds(value: Any, relation: str) -> bool:
    from flint import arb

    zero = arb(0)
    return bool(
        {">=": value >= zero, ">": value > zero, "<=": value <= zero, "<": value < zero}[relation]
    )


def _text(x: Fraction) -> str:
    """An exact rational as certificate text: the shorter of ``p/q`` and an exact decimal
    ``m`` or ``me-k`` (when the denominator divides a power of 10)."""
    plain = str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    d, k = x.denominator, 0
    while d % 10 == 0 or d % 2 == 0 or d % 5 == 0:
        if d % 10 == 0:
            d //= 10
        else:
            d //= 2 if d % 2 == 0 else 5
        k += 1
    if d != 1 or x.denominator == 1:
        return plain
    k = next(j for j in range(k + 1) if (x * 10**j).denominator == 1)
    mantissa = int(x * 10**k)
    while k > 0 and mantissa % 10 == 0:
        mantissa //= 10
        k -= 1
    decimal = f"{mantissa}e-{k}"
    return decimal if len(decimal) < len(plain) else plain


__all__ = [
    "point_text",
    "CertificationFailed",
    "Compiled",
    "compile_part",
    "prove_boxes",
    "prove_points",
    "short_bound",
]
