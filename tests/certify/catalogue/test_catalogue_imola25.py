"""The catalogue's imola25 expressions are the implementation's quantities (or the exact law)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.certify.catalogue.imola25 import (
    LEMMA_3_1,
    LEMMA_3_1_THRESHOLD_LN,
    LEMMA_3_1_THRESHOLD_LOG2,
    LEMMA_4_3,
    LEMMA_4_3_GAMMA,
    LEMMA_4_3_MIXED_X,
    LEMMA_4_3_MIXED_X_PRIME,
)
from dpquant.certify.expressions import enclose, parse_expression
from dpquant.reference.slice_quantiles.cc_tails import cc_max_error_tail, lemma_3_1_threshold
from dpquant.reference.slice_quantiles.parameters import pure_log_delta


def mid(ball: object) -> mpmath.mpf:
    """The ball's midpoint to 45 digits (read at 256 bits: flint rounds to its context's)."""
    from flint import ctx

    saved, ctx.prec = ctx.prec, 256
    try:
        return mpmath.mpf(ball.mid().str(45, radius=False))  # type: ignore[attr-defined]
    finally:
        ctx.prec = saved


def test_lemma_3_1_points_are_the_implementations_threshold_and_a_sure_event() -> None:
    """At m = 1 the implementation's threshold is 0 in both bases, as the catalogue's, and its
    exact tail of the CC error at threshold 0 (inclusive) is 1 for both noises."""
    for point in LEMMA_3_1.parts[0].points:
        beta, eps = Fraction(point["beta"]), Fraction(point["eps"])
        exact = {"m": Fraction(1), "beta": beta, "eps": eps}
        for text, base in ((LEMMA_3_1_THRESHOLD_LN, "e"), (LEMMA_3_1_THRESHOLD_LOG2, 2)):
            assert lemma_3_1_threshold(float(eps), float(beta), 1, base) == 0
            ball = enclose(text, exact)
            assert ball.is_exact() and ball == 0
        for noise in ("discrete", "laplace"):
            assert cc_max_error_tail(1, float(eps), 0, noise, inclusive=True) == 1


@given(
    st.integers(2, 64),
    st.floats(min_value=1e-6, max_value=0.9),
    st.floats(min_value=0.05, max_value=10.0),
)
def test_lemma_3_1_threshold_expressions_are_the_implementations(m: int, beta: float, eps: float) -> None:
    """For every m the catalogue's thresholds (ln and log₂) are the implementation's formula."""
    point = {"m": Fraction(m), "beta": Fraction(beta), "eps": Fraction(eps)}
    with mpmath.workdps(60):
        for text, base in ((LEMMA_3_1_THRESHOLD_LN, "e"), (LEMMA_3_1_THRESHOLD_LOG2, 2)):
            implemented = lemma_3_1_threshold(eps, beta, m, base)
            assert abs(mid(enclose(text, point)) - implemented) <= 1e-20 * max(1, abs(implemented))


@given(
    st.floats(min_value=0.01, max_value=0.99),
    st.floats(min_value=0.05, max_value=5.0),
    st.integers(2, 50),
    st.integers(1, 3),
)
def test_lemma_4_3_gamma_is_the_implementations(gamma: float, eps: float, grid: int, m: int) -> None:
    """The implementation's δ = γ(e^ε − 1)/|Y| (Lemma 4.3 solved for δ, |Y| = grid^m) gives back
    γ through the catalogue's γ = δ|Y|/(e^ε − 1)."""
    delta = math.exp(pure_log_delta(gamma, eps, grid, m))
    point = {"d": Fraction(delta), "K": Fraction(grid**m), "eps": Fraction(eps)}
    assert abs(float(mid(enclose(LEMMA_4_3_GAMMA, point))) - gamma) <= 1e-12


@st.composite
def pmf_pairs(draw: st.DrawFn) -> tuple[list[Fraction], list[Fraction]]:
    k = draw(st.integers(1, 6))
    weights = [draw(st.lists(st.integers(0, 20), min_size=k, max_size=k)) for _ in range(2)]
    return tuple(  # type: ignore[return-value]
        [Fraction(w, sum(ws)) for w in ws] if sum(ws) else [Fraction(1, k)] * k for ws in weights
    )


NAMES = tuple(v.name for v in LEMMA_4_3.parts[0].variables)
PARSED = {
    text: parse_expression(text, NAMES)
    for text in (LEMMA_4_3_GAMMA, LEMMA_4_3_MIXED_X, LEMMA_4_3_MIXED_X_PRIME, LEMMA_4_3.parts[0].goal.expression)
}


@settings(max_examples=40)
@given(pmf_pairs())
def test_lemma_4_3_mixture_expressions_are_the_exact_law(pair: tuple[list[Fraction], list[Fraction]]) -> None:
    """With e^ε = 2 and δ the pointwise (singleton) δ of the pair, wherever γ ≤ 1 the
    catalogue's Ã(X)(y) and Ã(X')(y) are (1 − γ)P(y) + γ/|Y| and (1 − γ)Q(y) + γ/|Y|, the slack
    s is ≥ 0 and the certified identity's gap e^ε·Ã(X')(y) − Ã(X)(y) is (1 − γ)s + γδ ≥ 0."""
    P, Q = pair
    k = len(P)
    delta = max(max(p - 2 * q, Fraction(0)) for p, q in zip(P, Q, strict=True))
    gamma = delta * k  # δ|Y|/(e^ε − 1) with e^ε = 2
    if gamma > 1:
        return
    symbols = {n: sympy.Symbol(n, real=True) for n in NAMES}
    for p, q in zip(P, Q, strict=True):
        s = 2 * q + delta - p
        assert s >= 0
        values = {symbols["eps"]: sympy.log(2), symbols["d"]: sympy.Rational(delta),
                  symbols["K"]: k, symbols["b"]: sympy.Rational(q), symbols["s"]: sympy.Rational(s)}

        def at(text: str, values: dict = values) -> sympy.Expr:
            return sympy.simplify(PARSED[text].subs(values))

        assert at(LEMMA_4_3_GAMMA) == gamma
        assert at(LEMMA_4_3_MIXED_X) == (1 - gamma) * p + gamma / k
        assert at(LEMMA_4_3_MIXED_X_PRIME) == (1 - gamma) * q + gamma / k
        assert at(LEMMA_4_3.parts[0].goal.expression) == 0
        assert 2 * ((1 - gamma) * q + gamma / k) - ((1 - gamma) * p + gamma / k) >= 0
