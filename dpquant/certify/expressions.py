"""The certificates' expression language, read with sympy and evaluated in Arb ball arithmetic.

An expression is text over the part's variables: integer literals, ``+ - * / **``, parentheses,
the constants ``pi`` and ``E``, and the functions :data:`FUNCTIONS` (sympy's names). Decimal
literals are refused: every number in a claim is an exact rational (``1/3``, not ``0.333``).
The independent checker (``proofs_checks/certificate_checker.py``) reads the same text with its
own parser; :func:`compile_expression` reads it with sympy, so the two share no code.

Evaluating a compiled expression on Arb balls (python-flint) gives a ball containing the exact
value at every point of the inputs' balls: the enclosure a branch and bound needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import sympy

from dpquant.errors import ParameterError

FUNCTIONS = (
    "exp",
    "log",
    "sqrt",
    "erf",
    "erfc",
    "loggamma",
    "gamma",
    "Abs",
    "floor",
    "ceiling",
    "Min",
    "Max",
)
"""The functions an expression may call (``Min`` and ``Max`` of two arguments)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_ALLOWED = re.compile(r"^[A-Za-z_0-9\s+\-*/(),]*$")

Arb = Any
Evaluator = Callable[[Mapping[str, Arb]], Arb]


def parse_expression(text: str, names: tuple[str, ...], *, name: str = "expression") -> sympy.Expr:
    """The sympy expression of ``text`` over the variables ``names``.

    Args:
        text: The expression (module docstring).
        names: The variables it may use.
        name: The parameter named in an error.

    Returns:
        The expression, unevaluated rationals kept exact.

    Raises:
        ValueError: Text that is not such an expression: a decimal point, an unknown name or
            function, bad syntax (named ``name``).
    """
    if not isinstance(text, str) or not text.strip() or not _ALLOWED.match(text):
        raise ParameterError(
            name, "must be an expression of integers, names, + - * / ** ( ) ,", text
        )
    known = set(names) | set(FUNCTIONS) | {"pi", "E"}
    unknown = sorted(set(_NAME.findall(text)) - known)
    if unknown:
        raise ParameterError(name, f"uses unknown names {unknown}", text)
    local = {n: sympy.Symbol(n, real=True) for n in names}
    local.update({f: getattr(sympy, f) for f in FUNCTIONS})
    local.update({"pi": sympy.pi, "E": sympy.E})
    try:
        expr = sympy.sympify(text, locals=local, rational=True)
    except (sympy.SympifyError, SyntaxError, TypeError) as exc:
        raise ParameterError(name, f"cannot be read ({exc})", text) from None
    if not isinstance(expr, sympy.Expr):
        raise ParameterError(name, "must be an expression", text)
    return expr


def compile_expression(expr: sympy.Expr) -> Evaluator:
    """A function mapping balls of the variables to a ball containing ``expr``'s value.

    Args:
        expr: A sympy expression of :func:`parse_expression`.

    Returns:
        The evaluator (python-flint ``arb`` in, ``arb`` out, at the context's precision).

    Raises:
        ValueError: A node the language does not have (named ``expr``).
    """
    from flint import arb, fmpq

    def build(e: sympy.Expr) -> Evaluator:
        if e.is_Rational:
            q = Fraction(int(e.p), int(e.q))
            return lambda v: arb(fmpq(q.numerator, q.denominator))
        if e.is_Symbol:
            key = str(e)
            return lambda v: v[key]
        if e is sympy.pi:
            return lambda v: arb.pi()
        if e is sympy.E:
            return lambda v: arb.const_e()
        args = [build(a) for a in e.args]
        if e.is_Add:
            return lambda v: _fold(args, v, lambda a, b: a + b)
        if e.is_Mul:
            return lambda v: _fold(args, v, lambda a, b: a * b)
        if e.is_Pow:
            return _power(e, args)
        if isinstance(e, sympy.exp):
            return lambda v: args[0](v).exp()
        unary = _UNARY.get(type(e).__name__)
        if unary is not None and len(args) == 1:
            return lambda v: unary(args[0](v))
        if isinstance(e, sympy.Min | sympy.Max):
            pick = "min" if isinstance(e, sympy.Min) else "max"
            return lambda v: _fold(args, v, lambda a, b: getattr(a, pick)(b))
        raise ParameterError("expr", "holds a node outside the certificates' language", str(e)[:80])

    return build(expr)


_UNARY: dict[str, Callable[[Arb], Arb]] = {
    "log": lambda a: a.log(),
    "erf": lambda a: a.erf(),
    "erfc": lambda a: a.erfc(),
    "loggamma": lambda a: a.lgamma(),
    "gamma": lambda a: a.gamma(),
    "Abs": lambda a: abs(a),
    "floor": lambda a: a.floor(),
    "ceiling": lambda a: a.ceil(),
}


def _fold(args: list[Evaluator], v: Mapping[str, Arb], op: Callable[[Arb, Arb], Arb]) -> Arb:
    out = args[0](v)
    for f in args[1:]:
        out = op(out, f(v))
    return out


def _power(e: sympy.Pow, args: list[Evaluator]) -> Evaluator:
    exponent = e.args[1]
    base = args[0]
    if exponent.is_Integer:
        k = int(exponent)
        if k >= 0:
            return lambda v: integer_power(base(v), k)
        return lambda v: 1 / integer_power(base(v), -k)
    if exponent == sympy.Rational(1, 2):
        return lambda v: base(v).sqrt()
    power = args[1]
    return lambda v: base(v) ** power(v)


def integer_power(a: Arb, k: int) -> Arb:
    """A ball containing ``x**k`` for every ``x`` in a ball, from the powers of its two ends
    (python-flint's ``a**k`` is NaN for a ball holding 0 or a negative number, and ``a*a``
    loses the sign of an even power).

    Args:
        a: A python-flint ``arb``.
        k: The power, ``k >= 0``.

    Returns:
        The enclosure (NaN when ``a`` is not finite).
    """
    from flint import arb

    if k == 0:
        return arb(1)
    if not a.is_finite():
        return arb("nan")
    lo, hi = a.lower(), a.upper()
    p_lo, p_hi = _point_power(lo, k), _point_power(hi, k)
    if k % 2 == 0 and lo <= 0 <= hi:
        return arb(0).union(p_lo).union(p_hi)
    return p_lo.union(p_hi)


def _point_power(x: Arb, k: int) -> Arb:
    """``x**k`` for an exact point ``x``."""
    power = abs(x) ** k
    return -power if (x < 0 and k % 2 == 1) else power


def ball(lo: Fraction, hi: Fraction) -> Arb:
    """An Arb ball containing the whole of ``[lo, hi]``.

    Args:
        lo: The least value.
        hi: The greatest value.

    Returns:
        A python-flint ``arb`` (a point when ``lo == hi``).
    """
    from flint import arb, fmpq

    a = arb(fmpq(lo.numerator, lo.denominator))
    return a if lo == hi else a.union(arb(fmpq(hi.numerator, hi.denominator)))


def enclose(text: str, point: Mapping[str, Fraction], *, precision: int = 128) -> Arb:
    """The ball of ``text`` at the exact point ``point`` (a test ties an implementation to the
    catalogue's expression with it).

    Args:
        text: The expression.
        point: Each variable's exact value.
        precision: Bits of the arithmetic.

    Returns:
        A python-flint ``arb`` containing the exact value.

    Raises:
        ValueError: A bad expression or a point missing a variable.
    """
    from flint import ctx

    names = tuple(point)
    evaluator = compile_expression(parse_expression(text, names))
    saved = ctx.prec
    ctx.prec = precision
    try:
        return evaluator({k: ball(Fraction(x), Fraction(x)) for k, x in point.items()})
    finally:
        ctx.prec = saved


__all__ = [
    "FUNCTIONS",
    "ball",
    "compile_expression",
    "enclose",
    "integer_power",
    "parse_expression",
]
