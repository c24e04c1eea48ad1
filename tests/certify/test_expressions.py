"""The expression language in ball arithmetic: every enclosure contains the exact value."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given
from hypothesis import strategies as st

from dpquant.certify.expressions import ball, compile_expression, enclose, parse_expression

EXPRESSIONS = [
    ("x**2 - 3*x*y + 1/7", lambda x, y: x**2 - 3 * x * y + mpmath.mpf(1) / 7),
    ("exp(-x)*log(1 + y)", lambda x, y: mpmath.exp(-x) * mpmath.log(1 + y)),
    ("sqrt(x + y)/(1 + x**2)", lambda x, y: mpmath.sqrt(x + y) / (1 + x**2)),
    ("erfc(x - y)/2 - erf(y)", lambda x, y: mpmath.erfc(x - y) / 2 - mpmath.erf(y)),
    ("loggamma(x + 1) - gamma(y + 1)", lambda x, y: mpmath.loggamma(x + 1) - mpmath.gamma(y + 1)),
    ("Min(x, y) + Max(x, 2*y) - Abs(x - y)", lambda x, y: min(x, y) + max(x, 2 * y) - abs(x - y)),
    ("x**(-2) + y**(1/3) + pi*E", lambda x, y: x**-2 + mpmath.cbrt(y) + mpmath.pi * mpmath.e),
    ("floor(7*x) + ceiling(y)", lambda x, y: mpmath.floor(7 * x) + mpmath.ceil(y)),
]

fractions = st.fractions(min_value=Fraction(1, 100), max_value=5, max_denominator=10**6)


@pytest.mark.parametrize("text, exact", EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
@given(x=fractions, y=fractions)
def test_the_enclosure_at_a_point_contains_the_value(text, exact, x: Fraction, y: Fraction) -> None:
    value = enclose(text, {"x": x, "y": y})
    with mpmath.workdps(60):
        truth = exact(
            mpmath.mpf(x.numerator) / x.denominator, mpmath.mpf(y.numerator) / y.denominator
        )
        lo, hi = value.lower(), value.upper()
        assert mpmath.mpf(lo.str(50, radius=False)) - mpmath.mpf("1e-45") <= truth
        assert truth <= mpmath.mpf(hi.str(50, radius=False)) + mpmath.mpf("1e-45")
    assert value.rad() < arb("1e-30") * (1 + abs(value.mid())) or "floor" in text


@given(a=fractions, b=fractions, t=st.fractions(min_value=0, max_value=1))
def test_the_enclosure_of_a_box_contains_every_point_of_it(
    a: Fraction, b: Fraction, t: Fraction
) -> None:
    lo, hi = min(a, b), max(a, b)
    x = lo + t * (hi - lo)
    f = compile_expression(parse_expression("x*exp(-x) - log(x)", ("x",)))
    box, point = f({"x": ball(lo, hi)}), f({"x": ball(x, x)})
    assert box.contains(point)


@pytest.mark.parametrize(
    "text", ["0.5*x", "x ^ 2", "os.system(1)", "y", "x +", "", "__import__('os')", "lambda: 1", 3]
)
def test_text_outside_the_language_is_refused(text) -> None:
    with pytest.raises(ValueError, match="expression"):
        parse_expression(text, ("x",))


def test_a_division_by_a_ball_holding_zero_is_no_enclosure() -> None:
    f = compile_expression(parse_expression("1/x", ("x",)))
    assert not f({"x": ball(Fraction(-1), Fraction(1))}).is_finite()
