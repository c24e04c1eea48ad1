"""The catalogue's tzamos20 expressions are the implementation's quantities (private_median)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.certify.catalogue.tzamos20 import (
    LEMMA_3_2,
    LEMMA_3_3,
    LEMMA_A_4,
    LEMMA_A_6,
    PAIR_CONSTANTS,
    PAIR_MAX_WINDOWS,
    PAIR_X,
    PAIR_Y,
    PROPOSITION_A_5B,
    Z_HAT,
    Z_PIECES,
)
from dpquant.certify.expressions import enclose
from dpquant.certify.specs import Part
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.private_median.extended_density import log_normalizer
from dpquant.reference.private_median.mechanism import PrivateMedian
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.restricted_density import (
    lemma_a_4_normalizer,
    restricted_law,
    restricted_pieces,
)
from dpquant.reference.private_median.typical_set import in_typical_set, left_median

F = Fraction
PAIR_PARTS = (*LEMMA_3_2.parts, *LEMMA_3_3.parts, *PROPOSITION_A_5B.parts)


def pair_point(C: Fraction) -> dict[str, Fraction]:
    point = {**PAIR_CONSTANTS, "C": C}
    point.update({f"x{i}": v for i, v in enumerate(PAIR_X, 1)})
    point.update({f"y{i}": v for i, v in enumerate(PAIR_Y, 1)})
    return point


def pair_params(C: Fraction) -> MedianParameters:
    c = PAIR_CONSTANTS
    return MedianParameters(int(c["n"]), c["L"], c["r"], c["R"], C)


def value(part: Part, text: str, point: dict[str, Fraction]) -> float:
    return float(enclose(text, {v.name: point[v.name] for v in part.variables}).mid())


def hypotheses_hold(part: Part, point: dict[str, Fraction]) -> bool:
    ok = {">=": lambda x: x >= 0, ">": lambda x: x > 0, "<=": lambda x: x <= 0, "<": lambda x: x < 0}
    return all(ok[h.relation](value(part, h.expression, point)) for h in part.hypotheses)


def c_in(lo: int, hi: int) -> st.SearchStrategy[Fraction]:
    """C = lo/20 .. hi/20 (exact)."""
    return st.integers(lo, hi).map(lambda k: F(k, 20))


@settings(max_examples=5)
@given(c_in(21, 37))
def test_pair_is_in_h_at_distance_one_with_the_parts_medians(C: Fraction) -> None:
    """X, Y ∈ H for the implementation, with left medians x_3, y_3, K <= 1, positional d_H = 1;
    every hypothesis of the three counterexamples holds at the point."""
    params = pair_params(C)
    assert in_typical_set(list(PAIR_X), params) and in_typical_set(list(PAIR_Y), params)
    assert left_median(list(PAIR_X), params) == PAIR_X[2]
    assert left_median(list(PAIR_Y), params) == PAIR_Y[2]
    assert params.windows <= PAIR_MAX_WINDOWS
    assert sum(a != b for a, b in zip(PAIR_X, PAIR_Y, strict=True)) == 1
    assert all(part.hypotheses == PAIR_PARTS[0].hypotheses for part in PAIR_PARTS)
    assert hypotheses_hold(PAIR_PARTS[0], pair_point(C))


@settings(max_examples=20)
@given(c_in(20, 37), st.sampled_from([F(1, 4), F(1, 2), F(9, 10)]))
def test_lemma_3_3_goal_is_the_restricted_laws_log_ratio_per_epsilon(C: Fraction, eps: Fraction) -> None:
    """(log f_Â(Y)(m(Y)) − log f_Â(X)(m(Y)))/ε − d_H/2 of the implementation's exact laws (exact
    normalisers) equals the goal, and it is positive."""
    params = pair_params(C)
    q = PAIR_Y[2]
    with workdps():
        ratio = (restricted_law(PAIR_Y[2], params, eps).logpdf_mp(q)
                 - restricted_law(PAIR_X[2], params, eps).logpdf_mp(q))
        implemented = float(ratio / to_mpf(eps) - mpmath.mpf(1) / 2)
    part = LEMMA_3_3.parts[0]
    assert abs(value(part, part.goal.expression, pair_point(C)) - implemented) < 1e-12
    assert implemented > 0


@settings(max_examples=10)
@given(c_in(20, 37))
def test_proposition_a_5b_bracket_bounds_the_implementations_envelope(C: Fraction) -> None:
    """The extension's Ψ_X at m(X) (the mechanism's exact pieces) is at most the bracket of the
    goal (the witness X′ = Y), below 0 = the restricted tent there; the two laws differ."""
    params = pair_params(C)
    c = PAIR_CONSTANTS
    mech = PrivateMedian(c["L"], c["r"], c["R"], C, 1)
    m = PAIR_X[2]
    pieces = mech.pieces(list(PAIR_X))
    psi = next(p(m) for p in pieces if p.lo <= m <= p.hi)
    part = PROPOSITION_A_5B.parts[0]
    bracket = -value(part, part.goal.expression, pair_point(C))
    assert psi <= bracket + 1e-12 and bracket < 0
    assert pieces != restricted_pieces(m, params)
    lemma_3_2 = LEMMA_3_2.parts[1]
    assert value(lemma_3_2, "Min(L*n/(3*C)*Abs(x3 - y3), L*r*n)", pair_point(C)) == min(
        float(params.L * params.n / (3 * C) * abs(PAIR_X[2] - PAIR_Y[2])),
        float(params.L * params.r * params.n))


@settings(max_examples=20)
@given(
    st.integers(1, 40), st.sampled_from([F(1, 2), F(3, 4), F(1), F(3, 2), F(5)]),
    st.sampled_from([F(1, 4), F(1, 2), F(1)]), st.sampled_from([F(1), F(5)]),
    st.integers(0, 32), st.sampled_from([F(1, 8), F(1, 2), F(1)]),
)
def test_lemma_a_4_pieces_and_closed_form_are_the_implementations_normaliser(
    n: int, C: Fraction, r: Fraction, R: Fraction, t: int, eps: Fraction
) -> None:
    """At m ∈ Ξ the catalogue's piecewise integral and Ẑ equal the exact normaliser of the
    implementation's restricted law and its lemma_a_4_normalizer."""
    L = F(1, 2)
    params = MedianParameters(n, L, r, R, C)
    lo, hi = params.xi_range
    m = lo + (hi - lo) * F(t, 32)
    point = {"eps": eps, "L": L, "n": F(n), "C": C, "r": r, "R": R, "m": m}
    part = LEMMA_A_4.parts[2]
    pieces, closed = value(part, Z_PIECES, point), value(part, Z_HAT, point)
    with workdps():
        z_law = float(mpmath.exp(restricted_law(m, params, eps).log_normalizer_mp))
        z_impl = float(lemma_a_4_normalizer(params, eps))
    assert abs(pieces - z_law) <= 1e-12 * z_law and abs(closed - z_impl) <= 1e-12 * z_impl


@settings(max_examples=10)
@given(c_in(20, 40), st.integers(1, 50))
def test_lemma_a_6_goal_bounds_the_implementations_integral_of_g(C: Fraction, k: int) -> None:
    """log ∫G_X = log Z_X − log Ẑ of the mechanism at X = (1000)⁸ is at least log(goal + 1), with
    equality where Ψ_X ≡ ℓ − Lrn/2 (C <= 11/6), e.g. 3e²/(e + 1) at ε = C = 1."""
    eps = F(k, 50)
    part = LEMMA_A_6.parts[0]
    point = {v.name: v.lo for v in part.variables} | {"eps": eps, "C": C}
    bound = value(part, part.goal.expression, point) + 1
    mech = PrivateMedian(F(1, 2), 1, 5, C, eps)
    params = mech.parameters(8)
    with workdps():
        log_integral = log_normalizer(mech.pieces([1000] * 8), eps) - mpmath.log(
            lemma_a_4_normalizer(params, eps))
        integral = float(mpmath.exp(log_integral))
    assert bound <= integral * (1 + 1e-12) and bound > 1
    if C <= F(11, 6):
        assert abs(bound - integral) <= 1e-12 * integral
    if C == 1 and eps == 1:
        assert abs(integral - float(3 * mpmath.e**2 / (mpmath.e + 1))) < 1e-12
