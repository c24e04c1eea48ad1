"""The catalogue's aamand25 expressions are the implementation's quantities."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st

from dpquant.certify.catalogue.aamand25 import (
    _A3_BOUND,
    _FLIP,
    _FP,
    _G1_ESTIMATE,
    _G1_PRINTED,
    _KEEP,
    G1_LOWER,
    G1_N,
    G1_TERMS,
    G1_UPPER,
    G2_BRACKET,
    G2_KEEP,
    LEMMA_A1,
    LEMMA_B1,
    LEMMA_G1,
    LEMMA_G2,
    LEMMA_G5,
    THEOREM_A3,
    _binomial_term,
    g1_tail_lower_bound,
    g2_tail,
)
from dpquant.certify.expressions import enclose, parse_expression
from dpquant.reference.distributed_quantiles.amplification import (
    fmt_epsilon_mp,
    local_epsilon_lemma_g5,
)
from dpquant.reference.distributed_quantiles.concentration import (
    bernstein_as_stated,
    binomial_mean_deviation_tail,
    lemma_g1_bracket_as_printed,
    lemma_g1_exact_tail,
    lemma_g1_sample_size,
    lemma_g2_exact_tail,
    lemma_g2_sample_size,
    rr_report_probability,
)
from dpquant.reference.distributed_quantiles.padding import exact_cdf, pad_users
from dpquant.reference.primitives.randomized_response import keep_probability_mp, rr_channel


@given(
    st.floats(min_value=1e-3, max_value=1.0),
    st.floats(min_value=1e-12, max_value=0.9),
    st.floats(min_value=1.01, max_value=1e4),
)
def test_lemma_g5_expression_is_the_implementations_epsilon(
    eps: float, delta: float, stretch: float
) -> None:
    """At (ε, s = 1/ln(4/δ), w = 80·ln(4/δ)/(ε²n)), ε minus the goal's logarithm is the
    implementation's Thm G.4 ε at Lemma G.5's local ε."""
    a = math.log(4 / delta)
    n = math.ceil(256 * a / eps**2 * stretch) + 1
    eps_local = local_epsilon_lemma_g5(eps, n, delta)
    implemented = fmt_epsilon_mp(eps_local, n, delta)
    with mpmath.workdps(60):
        a_mp = mpmath.log(4 / mpmath.mpf(delta))
        s = Fraction(mpmath.nstr(1 / a_mp, 40))
        w = Fraction(mpmath.nstr(80 * a_mp / (mpmath.mpf(eps) ** 2 * n), 40))
    goal = enclose(LEMMA_G5.parts[0].goal.expression, {"eps": Fraction(eps), "s": s, "w": w})
    assert abs(float(goal.mid()) - (eps - float(implemented))) <= 1e-12
    assert 0 <= float(s) <= float(Fraction(LEMMA_G5.parts[0].variables[1].hi))
    assert 0 <= float(w) < 5 / 16


def mid(ball: object) -> mpmath.mpf:
    """The ball's midpoint to 45 digits (read at 256 bits: flint rounds to its context's)."""
    from flint import ctx

    saved, ctx.prec = ctx.prec, 256
    try:
        return mpmath.mpf(ball.mid().str(45, radius=False))  # type: ignore[attr-defined]
    finally:
        ctx.prec = saved


def exact(text: str, names: tuple[str, ...], point: dict[str, Fraction]) -> sympy.Expr:
    """The catalogue expression ``text`` at an exact point, by sympy (rationals stay exact)."""
    expr = parse_expression(text, names)
    return sympy.simplify(expr.subs({sympy.Symbol(k, real=True): sympy.Rational(v.numerator, v.denominator)
                                      for k, v in point.items()}))


@given(st.floats(min_value=1e-3, max_value=30.0))
def test_lemma_a1_expressions_are_the_implementations_channel(eps: float) -> None:
    """The catalogue's keep and flip probabilities are the implementation's RR channel (the
    float ε read exactly)."""
    with mpmath.workdps(60):
        channel = rr_channel(eps)
        for text, value in ((_KEEP, channel[0][0]), (_FLIP, channel[0][1])):
            ball = enclose(text, {"eps": Fraction(eps)})
            assert abs(mid(ball) - value) < mpmath.mpf(10) ** -35
        assert channel[1][1] == channel[0][0] == keep_probability_mp(eps)
    assert all(p.method == "identity" for p in LEMMA_A1.parts)


def test_theorem_a3_point_is_the_exact_law_and_the_printed_bound() -> None:
    """At n = 1, p = 1/2, α = 2/5 the exact tail is 1 and the catalogue's bound is the
    implementation's printed Bernstein bound."""
    point = THEOREM_A3.parts[0].points[0]
    p, alpha = Fraction(point["p"]), Fraction(point["alpha"])
    assert binomial_mean_deviation_tail(1, p, alpha) == 1
    ball = enclose(_A3_BOUND, {"n": Fraction(1), "p": p, "alpha": alpha})
    with mpmath.workdps(60):
        printed = bernstein_as_stated(1, alpha, p * (1 - p))
        assert abs(mid(ball) - printed) < mpmath.mpf(10) ** -30


@given(
    st.fractions(min_value=Fraction(1, 1000), max_value=Fraction(1, 2), max_denominator=1000),
    st.fractions(min_value=0, max_value=1, max_denominator=1000),
)
def test_theorem_a3_region_has_exact_tail_one(alpha: Fraction, p: Fraction) -> None:
    """On the region (α < p < 1 − α) one Bernoulli(p) variable misses its mean by > α surely."""
    if not alpha < p < 1 - alpha:
        return
    assert binomial_mean_deviation_tail(1, p, alpha) == 1
    with mpmath.workdps(60):
        ball = enclose(_A3_BOUND, {"n": Fraction(1), "p": p, "alpha": alpha})
        printed = bernstein_as_stated(1, alpha, p * (1 - p))
        assert abs(mid(ball) - printed) < mpmath.mpf(10) ** -30


@st.composite
def padded_cases(draw: st.DrawFn) -> tuple[np.ndarray, int, Fraction, int]:
    n = draw(st.integers(2, 12))
    B = draw(st.integers(2, 9))
    users = np.array(draw(st.lists(st.integers(1, B), min_size=n, max_size=n)))
    tau = Fraction(draw(st.integers(1, n - 1)), n)
    y = draw(st.integers(1, B - 1))
    return users, B, tau, y


@given(padded_cases())
def test_lemma_b1_padded_cdf_is_the_implementations(case: tuple[np.ndarray, int, Fraction, int]) -> None:
    """The catalogue's F_P at (n, c = n·F_D(y), τ) is the implementation's padded CDF at y, and
    every identity of the certificate vanishes there (exact)."""
    users, B, tau, y = case
    n = users.size
    c = exact_cdf(users, y) * n
    point = {"n": Fraction(n), "c": c, "tau": tau, "alpha": Fraction(1, 7)}
    names = tuple(v.name for v in LEMMA_B1.parts[0].variables)
    assert exact(_FP, names, point) == sympy.Rational(*_pair(exact_cdf(pad_users(users, B, tau), y)))
    for part in LEMMA_B1.parts:
        assert exact(part.goal.expression, names, point) == 0


def _pair(x: Fraction) -> tuple[int, int]:
    return x.numerator, x.denominator


def test_lemma_g1_bound_is_below_the_implementations_exact_tail() -> None:
    """The certificate's partial sum is the implementation's exact tail less its far terms; the
    printed n-bound and the report probability are the implementation's; the kept indices are
    exactly the misses by > α next to the window."""
    point = {k: Fraction(v) for k, v in LEMMA_G1.parts[0].points[0].items()}
    n, p, alpha, eps = G1_N, point["p"], point["alpha"], point["eps"]
    with mpmath.workdps(60):
        bound = enclose(g1_tail_lower_bound(), point, precision=192)
        tail = lemma_g1_exact_tail(n, p, alpha, eps)
        low = mid(bound)
        assert low < tail < low + mpmath.mpf("2e-4")
        assert low > mpmath.mpf(1) / 20 == mpmath.mpf(point["beta"].numerator) / 20
        printed = enclose(_G1_PRINTED, point)
        # the implementation reads α = 1/20 as the float 0.05: agreement to 1e-9
        assert abs(lemma_g1_bracket_as_printed(p, alpha, eps) * mpmath.log(20) - mid(printed)) < 1e-9
        assert n - 1 < lemma_g1_bracket_as_printed(p, alpha, eps) * mpmath.log(20) <= n
        q = rr_report_probability(p, eps)
        t = mpmath.mpf(alpha.numerator) / alpha.denominator * mpmath.tanh(mpmath.mpf(int(eps)) / 2)
        assert abs(mpmath.mpf(G1_UPPER) / n - q) > t >= abs(mpmath.mpf(G1_UPPER - 1) / n - q)
        assert abs(mpmath.mpf(G1_LOWER) / n - q) > t >= abs(mpmath.mpf(G1_LOWER + 1) / n - q)
        kept = sum(mpmath.binomial(n, k) * q**k * (1 - q) ** (n - k)
                   for k in [*range(G1_UPPER, G1_UPPER + G1_TERMS + 1),
                             *range(G1_LOWER - G1_TERMS, G1_LOWER + 1)])
        assert abs(kept - low) < mpmath.mpf(10) ** -30


def test_lemma_g1_corrected_form_point_is_the_implementations() -> None:
    """At the second point the implementation's proof-form sample size is below 1 (n = 1 is
    allowed), its exact tail is 1, and the certified sum of the two binomial terms is 1."""
    point = {k: Fraction(v) for k, v in LEMMA_G1.parts[1].points[0].items()}
    p, alpha, eps, beta = point["p"], point["alpha"], point["eps"], point["beta"]
    with mpmath.workdps(60):
        assert lemma_g1_sample_size(p, alpha, eps, beta) <= 1
        assert lemma_g1_exact_tail(1, p, alpha, eps) == 1
        assert abs(mid(enclose(g1_tail_lower_bound(1, 0, 0), point, precision=192)) - 1) < 1e-40


def test_lemma_g2_point_is_the_implementations() -> None:
    """At the counterexample the implementation's sample size (natural log) is ≤ 2 and its exact
    tail for both bits 1 is 1 > β; the catalogue's bracket·ln(1/β) is the implementation's and
    its sum of binomial terms is 1."""
    point = {k: Fraction(v) for k, v in LEMMA_G2.parts[0].points[0].items()}
    n, eps, alpha, beta = int(point["n"]), point["eps"], point["alpha"], point["beta"]
    assert (n, eps) == (2, 1)
    # the implementation reads α = 0.49 and β = 0.9 as floats: agreement to 1e-9
    assert lemma_g2_exact_tail(n, n, float(alpha), float(eps)) > 1 - 1e-12 > float(beta)
    with mpmath.workdps(60):
        size = lemma_g2_sample_size(float(alpha), float(eps), float(beta))
        assert size <= n and size * mpmath.log(2) ** -1 <= n
        ball = enclose(f"{G2_BRACKET}*log(1/beta)", point)
        assert abs(mid(ball) - size) < 1e-9
        assert abs(mid(enclose(g2_tail(), point, precision=192)) - 1) < mpmath.mpf(10) ** -40


@given(
    st.integers(1, 6),
    st.fractions(min_value=Fraction(1, 100), max_value=5, max_denominator=100),
    st.fractions(min_value=Fraction(1, 100), max_value=Fraction(99, 100), max_denominator=100),
)
def test_lemma_g2_terms_are_the_implementations_exact_tail(
    n: int, eps: Fraction, alpha: Fraction
) -> None:
    """For n bits all 1, the implementation's exact tail is the sum of the catalogue's binomial
    terms (keep probability e^ε/(e^ε+1)) over the report counts k whose catalogue estimate P̂
    misses P = 1 by more than α."""
    point = {"n": Fraction(n), "eps": eps, "alpha": alpha}
    with mpmath.workdps(60):
        misses = []
        for k in range(n + 1):
            estimate = mid(enclose(_G1_ESTIMATE.format(k=k), point, precision=192))
            if abs(abs(estimate - 1) - mpmath.mpf(alpha.numerator) / alpha.denominator) < 1e-9:
                return  # a tie at the event's edge: the float implementation may differ
            if abs(estimate - 1) > mpmath.mpf(alpha.numerator) / alpha.denominator:
                misses.append(k)
        total = mpmath.mpf(0)
        for k in misses:
            total += mid(enclose(_binomial_term(k, G2_KEEP), point, precision=192))
        assert abs(total - lemma_g2_exact_tail(n, n, float(alpha), float(eps))) < 1e-12
