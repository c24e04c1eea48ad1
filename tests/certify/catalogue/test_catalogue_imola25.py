"""The catalogue's imola25 expressions are the implementation's quantities (or the exact law)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.certify.catalogue.imola25 import (
    L41_H,
    L41_N,
    L41_POINT,
    LEMMA_3_1,
    LEMMA_3_1_THRESHOLD_LN,
    LEMMA_3_1_THRESHOLD_LOG2,
    LEMMA_4_1,
    LEMMA_4_3,
    LEMMA_4_3_GAMMA,
    LEMMA_4_3_MIXED_X,
    LEMMA_4_3_MIXED_X_PRIME,
    l41_dsub,
    l41_shifted,
    l41_x_prime,
)
from dpquant.certify.expressions import ball, compile_expression, enclose, parse_expression
from dpquant.reference.slice_quantiles.cc_tails import cc_max_error_tail, lemma_3_1_threshold
from dpquant.reference.slice_quantiles.good_set import good_set_members, in_good_set
from dpquant.reference.slice_quantiles.parameters import pure_log_delta
from dpquant.reference.slice_quantiles.rank_maps import add_map, added_point_rank, slice_distances


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


def _integer(text: str, names: tuple[str, ...]):
    """The catalogue expression ``text`` as a function of integer values (compiled once; each
    value must come out an exact ball, a dyadic rational)."""
    evaluator = compile_expression(parse_expression(text, names))

    def value(**point: int) -> Fraction:
        out = evaluator({k: ball(Fraction(v), Fraction(v)) for k, v in point.items()})
        assert out.rad() == 0
        mantissa, exponent = out.mid().man_exp()
        return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)

    return value


def test_lemma_4_1_point_is_the_implementations_add_map_and_slices() -> None:
    """At the certified point the implementation's F⁺ (App. B.1) keeps r̃ = (2, 4), both vectors
    are in the printed Good sets, and its slice distances are (1, 1): Σ d_sub = 2, the goal + 1."""
    s, r1, r2 = (L41_POINT[k] for k in ("s", "r1", "r2"))
    X = np.arange(1.0, L41_N + 1)
    assert added_point_rank(X, 2.5) == s
    X_prime = np.sort(np.append(X, 2.5))
    r = np.array([r1, r2])
    image = add_map(r, s, L41_H)
    assert image.tolist() == [2, 4]
    assert in_good_set(r, L41_N, L41_H, rule="printed")
    assert in_good_set(image, L41_N + 1, L41_H, rule="printed")
    assert slice_distances(X, X_prime, r, image, L41_H) == [1, 1]
    goal = enclose(LEMMA_4_1.parts[0].goal.expression, {k: Fraction(v) for k, v in L41_POINT.items()})
    assert goal.rad() == 0 and goal.mid() == 1


def test_lemma_4_1_expressions_are_the_implementations_on_every_small_case() -> None:
    """For every n ≤ 8, every rank s of the added point and every r̃ ∈ Good_{2,n,1} (printed)
    whose image is in Good_{2,n+1,1}: the catalogue's shift is the implementation's add_map, its
    x'_(k) is X' = (1, …, n) ∪ {s − 1/2} sorted, and its Σ d_sub is the implementation's."""
    shifted = _integer(l41_shifted("r"), ("r", "s"))
    x_prime = _integer(l41_x_prime("k"), ("k", "s"))
    dsub = _integer(f"{l41_dsub('r1')} + {l41_dsub('r2')}", ("r1", "r2", "s"))
    checked = 0
    for n in range(1, 9):
        X = np.arange(1.0, n + 1)
        for s in range(1, n + 2):
            X_prime = np.sort(np.append(X, s - 0.5))
            assert [x_prime(k=k, s=s) for k in range(1, n + 2)] == [Fraction(v) for v in X_prime]
            for r in range(1, n + 1):
                assert shifted(r=r, s=s) == add_map([r], s, L41_H)[0]
            for r in good_set_members(2, n, L41_H, rule="printed"):
                image = add_map(r, s, L41_H)
                if not in_good_set(image, n + 1, L41_H, rule="printed"):
                    continue
                expected = sum(slice_distances(X, X_prime, r, image, L41_H))
                assert dsub(r1=int(r[0]), r2=int(r[1]), s=s) == expected
                checked += 1
    assert checked > 50
