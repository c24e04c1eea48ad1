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
    """A part's goal and hypotheses compiled to ball evaluators.

    Attributes:
        goal: The goal's evaluator.
        hypotheses: Each hypothesis's evaluator.
    """

    goal: Evaluator
    hypotheses: tuple[Evaluator, ...]


def compile_part(part: Part) -> Compiled:
    """The evaluators of ``part``'s goal and hypotheses.

    Args:
        part: The part.

    Returns:
        Its goal's and hypotheses' evaluators.

    Raises:
        ValueError: An expression outside the language (named).
    """
    names = part.names

    def one(c: Condition, name: str) -> Evaluator:
        return compile_expression(parse_expression(c.expression, names, name=name))

    return Compiled(
        one(part.goal, "goal"),
        tuple(one(h, f"hypotheses[{k}]") for k, h in enumerate(part.hypotheses)),
    )


def short_bound(value: Any, relation: str) -> Fraction | None:
    """A short decimal bound of a ball for a leaf of a certificate.

    Args:
        value: A python-flint ``arb``.
        relation: One of ``>=``, ``>``, ``<=``, ``<``.

    Returns:
        A short decimal ``b`` with ``value`` certainly on ``relation``'s side of ``b`` and ``b``
        on that side of 0 (``b = 0`` for ``>=`` and ``<=`` when the ball touches 0's side only
        barely); None when there is none.
    """
    if relation in ("<=", "<"):
        flipped = short_bound(-value, {"<=": ">=", "<": ">"}[relation])
        return None if flipped is None else -flipped
    if not value.is_finite():
        return None
    low = value.lower()
    if low.is_finite() and low.is_exact() and not low.is_zero():
        # far from 1 the exact rational of the end is huge: bound it by a power of 10 first
        _, exponent = low.man_exp()
        size = int(exponent) + int(low.man_exp()[0]).bit_length()
        if size > 340:
            return Fraction(10) ** 100 if low > 0 else None
        if size < -3300:
            return Fraction(0) if relation == ">=" and low > 0 else None
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
    evaluator: Evaluator, relation: str, variables: dict[str, Variable], box: Box
) -> tuple[str, Fraction]:
    """The split whose worse child comes nearest to deciding ``evaluator REL 0`` (ties: the
    variable of largest relative width)."""
    options = _candidates(variables, box)
    if not options:
        raise ValueError("box is a point")
    best, best_key = options[0], (-math.inf, -math.inf)
    for name, at in options:
        worst = math.inf
        for child in _children(variables, box, name, at):
            values = {k: ball(a, b) for k, (a, b) in child.items()}
            worst = min(worst, _score(evaluator(values), relation))
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

    Args:
        part: The part (method ``"boxes"``).

    Returns:
        The tree (the certificate's ``tree``) and its number of leaves.

    The boxes are taken breadth first, so that a violation anywhere in the box is met before
    the budget is spent on a corner where the goal is tight; each box undecided is first
    evaluated at its centre, and a centre where the goal certainly fails stops the search as a
    counterexample. With ``part.monotone``, an undecided box is also tried as a monotone leaf
    (:class:`_Search`).

    Raises:
        CertificationFailed: A counterexample, or a box left undecided within
            ``part.max_leaves`` boxes.
    """
    from flint import ctx

    saved = ctx.prec
    ctx.prec = part.precision
    try:
        search = _Search(part)
        tree, leaves = search.main()
        return tree, leaves
    finally:
        ctx.prec = saved


def prove_boxes_with_derivatives(part: Part) -> tuple[dict[str, Any], int, list[dict[str, Any]]]:
    """:func:`prove_boxes`, and the derived expressions its monotone leaves use.

    Args:
        part: The part (method ``"boxes"``).

    Returns:
        The tree, its number of leaves, and the certificate's ``expressions``: derivatives
        ``{"of", "variable", "expression"}`` and faces with an ``"at"``.

    Raises:
        CertificationFailed: As :func:`prove_boxes`.
    """
    from flint import ctx

    saved = ctx.prec
    ctx.prec = part.precision
    try:
        search = _Search(part)
        tree, leaves = search.main()
        return tree, leaves, search.derivatives
    finally:
        ctx.prec = saved


_SUB_BUDGET = 64
"""The most leaves a monotone leaf's slope or face may take (a quarter of that one level
deeper)."""
_MAX_LEVEL = 3
"""How deeply monotone leaves may nest (a slope proven by the monotonicity of its own
derivative, ...)."""


class _Search:
    """The branch and bound of one part: the goal (expression 0) and the derivatives that
    monotone leaves use (expression k + 1: derivative k)."""

    def __init__(self, part: Part) -> None:
        import sympy

        self.part = part
        self.compiled = compile_part(part)
        self.variables = {v.name: v for v in part.variables}
        self.exprs = [parse_expression(part.goal.expression, part.names, name="goal")]
        self.evaluators = [self.compiled.goal]
        self.derivatives: list[dict[str, Any]] = []
        self._cache: dict[tuple[int, str], int | None] = {}
        self._rough = (sympy.Abs, sympy.Min, sympy.Max, sympy.floor, sympy.ceiling)

    def derivative(self, index: int, name: str) -> int | None:
        """The expression index of the derivative of expression ``index`` in ``name``, or
        None when it is not in the language (or the expression is not smooth)."""
        import sympy

        key = (index, name)
        if key not in self._cache:
            self._cache[key] = None
            expr = self.exprs[index]
            if not expr.has(*self._rough):
                d = sympy.diff(expr, sympy.Symbol(name, real=True))
                text = str(d)
                try:
                    evaluator = compile_expression(parse_expression(text, self.part.names))
                except ValueError:
                    return None
                self._cache[key] = self._add(
                    d, evaluator, {"of": index, "variable": name, "expression": text}
                )
        return self._cache[key]

    def _add(self, expr: Any, evaluator: Evaluator, entry: dict[str, Any]) -> int:
        self.exprs.append(expr)
        self.evaluators.append(evaluator)
        self.derivatives.append(entry)
        return len(self.exprs) - 1

    def face(self, index: int, name: str, at: Fraction) -> int | None:
        """The expression index of expression ``index`` with ``name`` set to ``at`` (sympy's
        own evaluation on substituting: ``a - a/(a*0 + 1)`` becomes 0), or None."""
        import sympy

        key = (index, f"{name}={at}")
        if key not in self._cache:
            value = sympy.Rational(at.numerator, at.denominator)
            e = self.exprs[index].subs(sympy.Symbol(name, real=True), value)
            text = str(e)
            try:
                evaluator = compile_expression(parse_expression(text, self.part.names))
            except ValueError:
                self._cache[key] = None
            else:
                entry = {"of": index, "variable": name, "at": _text(at), "expression": text}
                self._cache[key] = self._add(e, evaluator, entry)
        return self._cache[key]

    def main(self) -> tuple[dict[str, Any], int]:
        part, relation = self.part, self.part.goal.relation
        root: dict[str, Any] = {}
        start = {v.name: (Fraction(v.lo), Fraction(v.hi)) for v in part.variables}
        queue: deque[tuple[dict[str, Any], Box, int]] = deque([(root, start, 0)])
        leaves = 0
        while queue:
            node, box, depth = queue.popleft()
            decided = self.decide(0, relation, box, True, 0)
            if decided is not None:
                node.update(decided[0])
                leaves += decided[1]
                continue
            if _fails_at_centre(part, self.compiled, box):
                raise CertificationFailed(part.name, box, True)
            if (
                leaves + len(queue) >= part.max_leaves
                or depth >= 150
                or _is_point(self.variables, box)
            ):
                raise CertificationFailed(part.name, box, _any_fails(part, self.compiled, queue))
            name, at = _split(self.evaluators[0], relation, self.variables, box)
            low, high = _children(self.variables, box, name, at)
            node.update({"split": name, "at": _text(at), "low": {}, "high": {}})
            queue.append((node["low"], low, depth + 1))
            queue.append((node["high"], high, depth + 1))
        return root, leaves

    def decide(
        self, index: int, relation: str, box: Box, outside: bool, level: int
    ) -> tuple[dict[str, Any], int] | None:
        """A leaf deciding expression ``index`` REL 0 on ``box`` (or a monotone leaf), with its
        number of leaves; None when there is none."""
        values = {k: ball(a, b) for k, (a, b) in box.items()}
        if outside:
            for k, (h, cond) in enumerate(
                zip(self.compiled.hypotheses, self.part.hypotheses, strict=True)
            ):
                bound = short_bound(h(values), _FAILS[cond.relation])
                if bound is not None:
                    return {"outside": k, "bound": _text(bound)}, 1
        bound = short_bound(self.evaluators[index](values), relation)
        if bound is not None:
            return {"bound": _text(bound)}, 1
        if level >= _MAX_LEVEL:
            return None
        for name in self.part.monotone:
            if box[name][0] != self.variables[name].lo and box[name][1] != self.variables[name].hi:
                continue  # a monotone leaf is tried on boxes touching a face of the domain only
            found = self.monotone(index, relation, box, name, values, level)
            if found is not None:
                return found
        return None

    def monotone(
        self, index: int, relation: str, box: Box, name: str, values: dict[str, Any], level: int
    ) -> tuple[dict[str, Any], int] | None:
        """A monotone leaf along ``name``: the derivative's sign proven on the box, the goal
        on the face where the expression is least (greatest, for ``<=`` and ``<``)."""
        lo, hi = box[name]
        if lo == hi or self.variables[name].integer:
            return None  # an integer variable's splits leave the gaps between integers unproven
        j = self.derivative(index, name)
        if j is None:
            return None
        centre = {k: ball((a + b) / 2, (a + b) / 2) for k, (a, b) in box.items()}
        mid = self.evaluators[j](centre)
        if not mid.is_finite():
            return None
        direction = "up" if float(mid.mid()) >= 0 else "down"
        slope = self.sub(j, ">=" if direction == "up" else "<=", box, level + 1)
        if slope is None:
            return None
        end = lo if (relation in (">=", ">")) == (direction == "up") else hi
        f = self.face(index, name, end)
        if f is None:
            return None
        on_face = self.sub(f, relation, {**box, name: (end, end)}, level + 1)
        if on_face is None:
            return None
        node = {
            "monotone": j,
            "direction": direction,
            "face": f,
            "slope": slope[0],
            "on_face": on_face[0],
        }
        return node, slope[1] + on_face[1]

    def sub(
        self, index: int, relation: str, box: Box, level: int
    ) -> tuple[dict[str, Any], int] | None:
        """A small breadth-first branch and bound of expression ``index`` on ``box`` with no
        box left out (inside a monotone leaf), within :data:`_SUB_BUDGET` leaves; None when it
        does not close."""
        root: dict[str, Any] = {}
        queue: deque[tuple[dict[str, Any], Box]] = deque([(root, box)])
        leaves = 0
        while queue:
            node, b = queue.popleft()
            decided = self.decide(index, relation, b, False, level)
            if decided is not None:
                node.update(decided[0])
                leaves += decided[1]
                if leaves > _SUB_BUDGET:
                    return None
                continue
            if leaves + len(queue) >= _SUB_BUDGET >> (2 * (level - 1)) or _is_point(
                self.variables, b
            ):
                return None
            name, at = _split(self.evaluators[index], relation, self.variables, b)
            low, high = _children(self.variables, b, name, at)
            node.update({"split": name, "at": _text(at), "low": {}, "high": {}})
            queue.append((node["low"], low))
            queue.append((node["high"], high))
        return root, leaves


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

    Args:
        part: The part (method ``"points"``).

    Returns:
        The certificate's ``points``: each point's coordinates and bound.

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
    """A point of a ``"points"`` part as the certificate writes it.

    Args:
        part: The part.
        point: The point's coordinates.

    Returns:
        Each coordinate as exact, short text.
    """
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
    "prove_boxes_with_derivatives",
    "prove_points",
    "short_bound",
]
