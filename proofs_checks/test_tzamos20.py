"""Machine checks of tzamos20's lemmas (Appendices A–D), one block per claim (labels T1–T19).

* T1  Property B.0.1: f(x) = min{a|x|, b} is subadditive and |f(x) − f(y)| <= f(x − y);
* T2  Lemma A.4: the normaliser of the restricted law is the closed form Ẑ for every m ∈ Ξ
      (C > 1/2), and is NOT where [m − 3Cr, m + 3Cr] ⊄ I (m off Ξ, or C < 1/2 at Ξ's edge);
* T10 Prop A.5(a): the extension is ε-DP for arbitrary positional pairs, d_H ∈ {1, 2, 3}
      (certified), Ψ_X is 1-Lipschitz in d_H pointwise, |log Z_X − log Z_Y| <= (ε/2)d_H;
* T11 Prop A.5(b), positive side: A(X) = Â(X) on "nice" X ∈ H (regression fixture 2 of
      ``notes/tzamos20.md``, constant data);
* T12 Lemma A.6: G_X = 0 off I, ℛ-Lipschitz, ∫G_X <= 1 on H but not off H (erratum E4:
      X = (1000)⁸ gives 5.96…, and a derandomized hypothesis search finds failures itself);
* T13 Lemma A.7 cross-check on random intervals (exact masses);
* T7  (B.4) by the exact binomial law of the order statistic;
* T5  Lemma 3.4's exact tail and its sample size against the O(·) rate;
* T17/T18/T19 Props 3.7–3.9: the C.2 construction (median formula, admissibility failure, E12),
      the binomial MGF identity, exact n_min and their ratios to the printed rates;
* Appendix D: the α_crit regime claim is reversed (``notes/tzamos20.md``), ε_crit is right.

The counterexamples of erratum E1 (Lemmas 3.2, 3.3, Prop A.5(b), paper mode) are searched for in
``test_tzamos20_counterexamples.py``. Exact means Fractions, or mpmath at 60 digits with a margin
of 1e-40; "verified" inequalities use the interval enclosures of ``dpquant.reference.exact.interval``.
Test parameters (small C, so that H's windows bind at small n): L = 1/2, r = 1, R ∈ {1, 2, 5},
C ∈ {1, 5/4, 3/2, 2}, ε ∈ {1/4, 1/2, 1}, data on k/8 grids (ties appear), n <= 10.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import assume, find, given, settings
from hypothesis import strategies as st

from dpquant.reference.distributions import certified_log_normalizer, certified_privacy_loss
from dpquant.reference.exact.interval import iv_precision, to_iv
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.private_median.extended_density import Piece, log_normalizer, tent_slope
from dpquant.reference.private_median.mechanism import PrivateMedian
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.restricted_density import (
    lemma_a_4_normalizer,
    restricted_law,
    restricted_pieces,
)
from dpquant.reference.private_median.typical_set import exact_data, in_typical_set, left_median

F = Fraction
L_HALF, R_ONE = F(1, 2), F(1)
CS = [F(1), F(5, 4), F(3, 2), F(2)]
RS = [F(1), F(2), F(5)]
EPSILONS = [F(1, 4), F(1, 2), F(1)]
MARGIN = mpmath.mpf(10) ** -40  # far above the 60-digit rounding error, far below any gap
# the regression fixtures' constants (notes/tzamos20.md): B = 9, Ξ = [−11/2, 11/2]
FIXTURE = dict(L=L_HALF, r=R_ONE, R=F(5), C=F(1))


# ------------------------------------------------------------------------------------ helpers


def psi_at(pieces: list[Piece], y: Fraction) -> Fraction:
    """Ψ(y) from merged pieces (Eq. (A.6) as f ∝ exp((ε/2)Ψ)), exact; ValueError off [−B, B]."""
    for piece in pieces:
        if piece.lo <= y <= piece.hi:
            return piece(y)
    raise ValueError(f"y must lie in [{pieces[0].lo}, {pieces[-1].hi}], got {y}")


def merged_test_points(a: list[Piece], b: list[Piece]) -> list[Fraction]:
    """The union of both breakpoint sets and the midpoints between them (Lemma A.7): two
    piecewise-linear functions differ by a piecewise-linear function whose extremes lie there."""
    pts = sorted({p.lo for p in a + b} | {p.hi for p in a + b})
    return pts + [(u + v) / 2 for u, v in itertools.pairwise(pts)]


def n_c_r_eps(cs: list[Fraction] = CS) -> tuple[st.SearchStrategy, ...]:
    """Strategies for (n, C, R, ε): n <= 10, C from ``cs``, R and ε from the test constants."""
    return st.integers(1, 10), st.sampled_from(cs), st.sampled_from(RS), st.sampled_from(EPSILONS)


def lam(params: MedianParameters, epsilon: Fraction) -> Fraction:
    """λ = εLn/(12C) = (ε/2)·s: the Laplace rate of Â (Eq. (A.2), Algorithm 2)."""
    return epsilon * params.L * params.n / (12 * params.C)


def lower(box) -> mpmath.mpf:
    """The lower end of an ``mpmath.iv`` enclosure as a full-precision mpf."""
    return mpmath.mpf(box.a)


def upper(box) -> mpmath.mpf:
    """The upper end of an ``mpmath.iv`` enclosure as a full-precision mpf."""
    return mpmath.mpf(box.b)


def mp_le(a: mpmath.mpf, b: mpmath.mpf) -> bool:
    """a <= b up to the 1e-40 margin (60-digit arithmetic)."""
    return a <= b + MARGIN


@st.composite
def positional_pairs(draw, max_n: int = 8):
    """(X, Y, d, mechanism): X arbitrary on the k/8 grid of [−6, 6] (ties frequent), Y = X with
    exactly d <= 3 coordinates changed (positional Hamming distance d, n fixed; Def. 1.1)."""
    n = draw(st.integers(1, max_n))
    x = draw(st.lists(st.integers(-48, 48).map(lambda k: F(k, 8)), min_size=n, max_size=n))
    d = draw(st.integers(1, min(3, n)))
    where = draw(st.lists(st.integers(0, n - 1), min_size=d, max_size=d, unique=True))
    y = list(x)
    for i in where:
        y[i] = x[i] + F(draw(st.integers(-48, 48).filter(lambda k: k != 0)), 8)
    mech = PrivateMedian(
        L_HALF, R_ONE, draw(st.sampled_from(RS)), draw(st.sampled_from(CS)),
        draw(st.sampled_from(EPSILONS)),
    )  # fmt: skip
    assert sum(a != b for a, b in zip(x, y, strict=True)) == d
    return x, y, d, mech


@st.composite
def typical_data(draw, max_n: int = 9):
    """(X, params, ε) with X ∈ H: points m + jδ/2 (j ∈ [−4, 4], many ties at m) plus a few far
    values, m on a grid of Ξ; rejected unless X ∈ H."""
    n = draw(st.integers(1, max_n))
    params = MedianParameters(
        n, L_HALF, R_ONE, draw(st.sampled_from(RS)), draw(st.sampled_from(CS))
    )
    lo, hi = params.xi_range
    m = lo + (hi - lo) * F(draw(st.integers(0, 16)), 16)
    half = params.delta / 2
    x = [
        m + j * half if j is not None else m + far
        for j, far in draw(
            st.lists(
                st.tuples(st.one_of(st.none(), st.integers(-4, 4)), st.sampled_from([-20, 20])),
                min_size=n,
                max_size=n,
            )
        )
    ]
    assume(in_typical_set(x, params))
    return x, params, draw(st.sampled_from(EPSILONS))


# ------------------------------------------------------------------------- T1 Property B.0.1

POSITIVE = st.fractions(min_value=F(1, 64), max_value=64, max_denominator=64)
REALS = st.fractions(min_value=-64, max_value=64, max_denominator=64)


def capped_abs(a: Fraction, b: Fraction, x: Fraction) -> Fraction:
    """f(x) = min{a|x|, b} (Property B.0.1)."""
    return min(a * abs(x), b)


@given(POSITIVE, POSITIVE, REALS, REALS)
def test_property_b_0_1_capped_absolute_value_is_subadditive(a, b, x, y) -> None:
    """Property B.0.1: f(x + y) <= f(x) + f(y) for f = min{a|·|, b} (exact Fractions); and the
    reverse triangle form |f(x) − f(y)| <= f(x − y) used in Lemma 3.3's proof."""
    f = lambda t: capped_abs(a, b, t)  # noqa: E731
    assert f(x + y) <= f(x) + f(y)
    assert abs(f(x) - f(y)) <= f(x - y)
    assert f(x) >= 0 and f(-x) == f(x)


# ------------------------------------------------------------------------------ T2 Lemma A.4


@given(*n_c_r_eps(CS + [F(1, 2), F(3, 4)]), st.integers(0, 1000))
def test_lemma_a_4_normaliser_is_the_closed_form_for_every_median_in_xi(n, C, R, eps, t) -> None:
    """Lemma A.4 (C > 1/2, and also C = 1/2): for every m ∈ Ξ the exact normaliser of the
    restricted law equals Ẑ = (24C/(εLn))(1 − e^{−εLrn/4}) + (2R + 2Cr)e^{−εLrn/4} to 40
    digits (so it does not depend on m), with the certified interval enclosing Ẑ."""
    params = MedianParameters(n, L_HALF, R_ONE, R, C)
    lo, hi = params.xi_range
    m = lo + (hi - lo) * F(t, 1000)  # the ends of Ξ included
    law = restricted_law(m, params, eps)
    with workdps():
        z_hat = lemma_a_4_normalizer(params, eps)
        assert abs(law.log_normalizer_mp - mpmath.log(z_hat)) < MARGIN
    enclosure = certified_log_normalizer(law)
    with workdps():
        assert lower(enclosure) - MARGIN <= mpmath.log(z_hat) <= upper(enclosure) + MARGIN


@given(*n_c_r_eps(), st.integers(1, 100))
def test_lemma_a_4_closed_form_is_not_the_normaliser_once_the_centre_leaves_i(
    n, C, R, eps, t
) -> None:
    """Where [m − 3Cr, m + 3Cr] ⊄ I (here m ∈ (B − 3Cr, B], outside Ξ) part of the Laplace
    centre is cut off and replaced by nothing: the exact normaliser is strictly below Ẑ."""
    params = MedianParameters(n, L_HALF, R_ONE, R, C)
    bound, cap = params.output_bound, 3 * C * R_ONE
    m = bound - cap + cap * F(t, 100)
    assert m > params.xi_range[1]
    law = restricted_law(m, params, eps)
    with workdps():
        gap = mpmath.log(lemma_a_4_normalizer(params, eps)) - law.log_normalizer_mp
        assert gap > mpmath.mpf(10) ** -30


@pytest.mark.parametrize("C", [F(1, 4), F(1, 3), F(2, 5), F(9, 20)])
@pytest.mark.parametrize("eps", EPSILONS)
def test_lemma_a_4_fails_for_c_below_one_half_at_the_edge_of_xi(C, eps) -> None:
    """C < 1/2: B = R + 4Cr < (R + r/2) + 3Cr, so at m = R + r/2 ∈ Ξ the centre leaves I and the
    closed form overestimates the normaliser (the hypothesis C > 1/2 matters; C = 1/2 is the
    boundary case, covered by the positive test above)."""
    params = MedianParameters(8, L_HALF, R_ONE, F(5), C)
    m = params.xi_range[1]
    assert m + 3 * C * R_ONE > params.output_bound
    with workdps():
        gap = (
            mpmath.log(lemma_a_4_normalizer(params, eps))
            - restricted_law(m, params, eps).log_normalizer_mp
        )
        assert gap > mpmath.mpf(10) ** -30
        # at the centre of Ξ the centre fits (3Cr < B) and the closed form is right again
        middle = restricted_law(0, params, eps).log_normalizer_mp
        assert abs(mpmath.log(lemma_a_4_normalizer(params, eps)) - middle) < MARGIN


# ---------------------------------------------------------------------------- T10 Prop A.5(a)


@given(positional_pairs())
def test_proposition_a_5a_extension_is_eps_dp_for_arbitrary_pairs(case) -> None:
    """Prop A.5(a) for ARBITRARY positional pairs (not only in H), d_H ∈ {1, 2, 3}: the certified
    sup |log f_X − log f_Y| of mode="extension" is <= ε·d_H (Lemma A.7)."""
    x, y, d, mech = case
    loss = certified_privacy_loss(mech.exact(x), mech.exact(y))
    with workdps():
        assert upper(loss) <= to_mpf(mech.epsilon) * d + MARGIN


@given(positional_pairs())
def test_proposition_a_5a_envelope_and_normaliser_move_at_most_d_h(case) -> None:
    """The proof of Prop A.5(a): |Ψ_X(y) − Ψ_Y(y)| <= d_H for every y (evaluated exactly at both
    breakpoint sets and their midpoints: both are piecewise linear, so this is every y), and
    |log Z_X − log Z_Y| <= (ε/2)·d_H (certified enclosures)."""
    x, y, d, mech = case
    px, py = mech.pieces(x), mech.pieces(y)
    assert px[0].lo == py[0].lo and px[-1].hi == py[-1].hi
    for t in merged_test_points(px, py):
        assert abs(psi_at(px, t) - psi_at(py, t)) <= d
    with iv_precision():
        diff = certified_log_normalizer(mech.exact(x)) - certified_log_normalizer(mech.exact(y))
        limit = to_iv(mech.epsilon / 2 * d)
        assert max(abs(lower(diff)), abs(upper(diff))) <= upper(limit) + MARGIN


# ---------------------------------------------------------------------------- T11 Prop A.5(b)


def test_proposition_a_5b_holds_on_the_nice_fixture_2() -> None:
    """Regression fixture 2 (X ∈ H, m = 0): Ψ_X is the single tent h₀ at m(X), so A(X) = Â(X):
    same pieces, log Z = log Ẑ to 40 digits and a certified privacy loss of 0 between them."""
    x = [F(-1, 4), F(-1, 8), 0, 0, F(1, 8), F(1, 4), F(3, 8), F(1, 2)]
    params = MedianParameters(8, **FIXTURE)
    assert in_typical_set(x, params)
    mech = PrivateMedian(epsilon=1, **FIXTURE)
    assert mech.pieces(x) == restricted_pieces(0, params)
    with workdps():
        assert (
            abs(log_normalizer(mech.pieces(x), 1) - mpmath.log(lemma_a_4_normalizer(params, 1)))
            < MARGIN
        )
        loss = certified_privacy_loss(mech.exact(x), restricted_law(0, params, 1))
        assert upper(loss) < MARGIN
        assert abs(log_normalizer(mech.pieces(x), 1) - mpmath.mpf("2.105021156746277834861473")) < mpmath.mpf(10) ** -20  # fmt: skip


@given(st.integers(1, 10), st.sampled_from(CS), st.sampled_from(RS), st.integers(0, 16))
def test_proposition_a_5b_holds_for_constant_data(n, C, R, t) -> None:
    """X = (m, …, m), m ∈ Ξ: moving the median to ξ ≠ m costs k >= n/2 >= Lrn/2 changes, so every
    other tent h_k >= k − Lrn/2 >= 0 >= h₀ and Ψ_X = h₀: A(X) = Â(X) exactly."""
    params = MedianParameters(n, L_HALF, R_ONE, R, C)
    lo, hi = params.xi_range
    m = lo + (hi - lo) * F(t, 16)
    mech = PrivateMedian(L_HALF, R_ONE, R, C, 1)
    assert in_typical_set([m] * n, params)
    assert mech.pieces([m] * n) == restricted_pieces(m, params)


# ------------------------------------------------------------------------------ T12 Lemma A.6


def lipschitz_constant(params: MedianParameters, epsilon: Fraction) -> mpmath.mpf:
    """ℛ = e^{εn/2}·εLn/(12CẐ) (Lemma A.6)."""
    with workdps():
        return (
            mpmath.exp(to_mpf(epsilon) * params.n / 2)
            * to_mpf(lam(params, epsilon))
            / (lemma_a_4_normalizer(params, epsilon))
        )


@given(positional_pairs())
def test_lemma_a_6_g_vanishes_off_i_and_is_r_lipschitz(case) -> None:
    """Lemma A.6 (any X): G_X = exp((ε/2)Ψ_X)/Ẑ lives on I = [−B, B] (the law's support is
    exactly I, zero density beyond), is continuous, and on each piece |G′| = λ·G with λ = (ε/2)s
    or 0; the largest Ψ on a sloped piece is <= n (exact), hence sup|G′| <= λe^{εn/2}/Ẑ = ℛ."""
    x, _, _, mech = case
    params, eps = mech.parameters(len(x)), mech.epsilon
    pieces = mech.pieces(x)
    bound = params.output_bound
    assert pieces[0].lo == -bound and pieces[-1].hi == bound
    law = mech.exact(x)
    assert law.logpdf_mp(bound + 1) == -mpmath.inf and law.logpdf_mp(-bound - 1) == -mpmath.inf
    for left, right in itertools.pairwise(pieces):
        assert left(left.hi) == right(right.lo)
    s = tent_slope(params)
    sloped = [max(p(p.lo), p(p.hi)) for p in pieces if p.slope != 0]
    assert all(p.slope in (0, s, -s) for p in pieces)
    if sloped:
        top = max(sloped)
        assert top <= params.n
        with workdps():
            steepest = (
                to_mpf(lam(params, eps))
                * mpmath.exp(to_mpf(eps * top / 2))
                / (lemma_a_4_normalizer(params, eps))
            )
            assert mp_le(steepest, lipschitz_constant(params, eps))


@given(typical_data())
def test_lemma_a_6_integral_of_g_is_at_most_one_on_h(case) -> None:
    """Lemma A.6's ∫G_X = Z_X/Ẑ <= 1 for X ∈ H: TH(X, m(X)) = 0 makes Ψ_X <= the tent at m(X)
    (certified: the upper end of log Z_X is <= log Ẑ)."""
    x, params, eps = case
    mech = PrivateMedian(params.L, params.r, params.R, params.C, eps)
    m = left_median(exact_data(x), params)
    for t in merged_test_points(mech.pieces(x), restricted_pieces(m, params)):
        assert psi_at(mech.pieces(x), t) <= psi_at(restricted_pieces(m, params), t)
    top = upper(certified_log_normalizer(mech.exact(x)))
    with workdps():
        assert top <= mpmath.log(lemma_a_4_normalizer(params, eps)) + MARGIN


def test_lemma_a_6_integral_of_g_exceeds_one_off_h_counterexample() -> None:
    """Erratum E4 (Lemma A.6): X = (1000)⁸, L = 1/2, r = 1, R = 5, C = 1, ε = 1: Ψ ≡ 2 on [−9, 9],
    so ∫G_X = 18e/Ẑ with Ẑ = 6 + 6/e, i.e. 3e²/(e + 1) = 5.96…; computed from the mechanism to 40
    digits and certified > 1."""
    params = MedianParameters(8, **FIXTURE)
    mech = PrivateMedian(epsilon=1, **FIXTURE)
    x = [1000] * 8
    assert not in_typical_set(x, params)
    with workdps():
        integral = mpmath.exp(log_normalizer(mech.pieces(x), 1)) / lemma_a_4_normalizer(params, 1)
        e = mpmath.e
        assert abs(integral - 3 * e**2 / (e + 1)) < MARGIN
        assert mpmath.nstr(integral, 3) == "5.96"
        assert lower(certified_log_normalizer(mech.exact(x))) > mpmath.log(
            lemma_a_4_normalizer(params, 1)
        )


def log_integral_of_g_lower(x: list[Fraction], mech: PrivateMedian) -> mpmath.mpf:
    """A certified lower bound on log ∫G_X = log Z_X − log Ẑ."""
    params = mech.parameters(len(x))
    with workdps():
        return (
            lower(certified_log_normalizer(mech.exact(x)))
            - mpmath.log(lemma_a_4_normalizer(params, mech.epsilon))
            - MARGIN
        )


@st.composite
def arbitrary_inputs(draw):
    n = draw(st.integers(1, 8))
    x = draw(st.lists(st.integers(-40, 40).map(lambda k: F(k, 2)), min_size=n, max_size=n))
    mech = PrivateMedian(
        L_HALF, R_ONE, draw(st.sampled_from(RS)), draw(st.sampled_from(CS)),
        draw(st.sampled_from(EPSILONS)),
    )  # fmt: skip
    return x, mech


def test_lemma_a_6_search_finds_inputs_off_h_with_integral_above_one_by_itself() -> None:
    """A derandomized hypothesis search over arbitrary inputs (half-integers in [−20, 20]) finds
    an X with certified ∫G_X > 1 on its own; the (shrunk) witness lies outside H, as it must by
    the positive test above."""
    x, mech = find(
        arbitrary_inputs(),
        lambda case: log_integral_of_g_lower(*case) > 0,
        settings=settings(derandomize=True, database=None, max_examples=400),
    )
    assert not in_typical_set(x, mech.parameters(len(x)))
    assert log_integral_of_g_lower(x, mech) > 0


# ------------------------------------------------------------------------------ T13 Lemma A.7


@given(positional_pairs(max_n=7), st.lists(st.integers(-1000, 1000), min_size=2, max_size=2))
def test_lemma_a_7_interval_masses_obey_the_group_privacy_bound(case, ends) -> None:
    """Lemma A.7 cross-check (Def 1.1 on intervals): P(A(X) ∈ S) <= e^{ε d_H} P(A(Y) ∈ S) and
    the reverse, S = [a, b] random rational inside [−B − 1, B + 1], exact masses (60 digits)."""
    x, y, d, mech = case
    bound = mech.parameters(len(x)).output_bound + 1
    a, b = sorted(bound * F(e, 1000) for e in ends)
    assume(a < b)
    px, py = mech.exact(x).mass(a, b), mech.exact(y).mass(a, b)
    with workdps():
        factor = mpmath.exp(to_mpf(mech.epsilon) * d)
        assert px <= factor * py * (1 + MARGIN) + MARGIN
        assert py <= factor * px * (1 + MARGIN) + MARGIN


# --------------------------------------------------------------------------------- T7 (B.4)


def binomial_cdf(n: int, p: Fraction, k: int) -> Fraction:
    """P(Bin(n, p) <= k), exact."""
    return sum((math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(0, k + 1)), F(0))


def median_deviation_probability(n: int, cdf_at_plus: Fraction, cdf_at_minus: Fraction) -> Fraction:
    """P(|m(X) − m(D)| >= t) for the left median m(X) = X_(ℓ), ℓ = ⌈n/2⌉, of n i.i.d. draws from
    a D continuous at m ± t: P(X_(ℓ) >= m + t) = P(Bin(n, F(m + t)) <= ℓ − 1) plus
    P(X_(ℓ) <= m − t) = P(Bin(n, F(m − t)) >= ℓ)."""
    ell = (n + 1) // 2
    return binomial_cdf(n, cdf_at_plus, ell - 1) + 1 - binomial_cdf(n, cdf_at_minus, ell - 1)


def mixture_cdf(w: Fraction, r: Fraction, x: Fraction) -> Fraction:
    """A heavy-tailed admissible D (Assumption 1.2 with L = w/(2r), m(D) = 0): an atom of mass
    (1 − w)/2 at −1000, U[−r, r] with weight w, and a Pareto tail of mass (1 − w)/2 on (r, ∞)
    with P(X > x | tail) = r/x (no mean). Exact CDF."""
    atom = (1 - w) / 2 if x >= -1000 else F(0)
    core = w * min(max((x + r) / (2 * r), F(0)), F(1))
    tail = (1 - w) / 2 * (1 - r / x) if x > r else F(0)
    return atom + core + tail


@pytest.mark.parametrize(
    "name, L, cdf",
    [
        ("uniform", F(1, 2), lambda t: min(max((t + 1) / 2, F(0)), F(1))),  # U[−1, 1], L = 1/(2r)
        ("mixture w=1/2", F(1, 4), lambda t: mixture_cdf(F(1, 2), R_ONE, t)),
        ("mixture w=1/5", F(1, 10), lambda t: mixture_cdf(F(1, 5), R_ONE, t)),
    ],
)
def test_b_4_median_deviation_bound_by_the_exact_order_statistic_law(name, L, cdf) -> None:
    """(B.4) ([BA19, ineq. 14]): P(|m(X) − m(D)| >= r/2) <= 2e^{−nL²r²/8}, with the left-hand
    side computed exactly (Fractions) for n = 1..60 and on a sparse grid up to 400."""
    r = R_ONE
    assert cdf(F(0)) == F(1, 2)  # m(D) = 0
    assert cdf(F(-1001)) == 0 and cdf(F(10) ** 9) > 1 - F(1, 10**8)  # a proper law
    for n in list(range(1, 61)) + [100, 200, 400]:
        prob = median_deviation_probability(n, cdf(r / 2), cdf(-r / 2))
        with workdps():
            assert to_mpf(prob) <= 2 * mpmath.exp(-n * to_mpf(L**2 * r**2) / 8) + MARGIN


# ------------------------------------------------------------------------------ T5 Lemma 3.4


@given(*n_c_r_eps(), st.integers(0, 64), st.integers(1, 64))
def test_lemma_3_4_exact_tail_of_the_restricted_law_does_not_depend_on_m(
    n, C, R, eps, t, a
) -> None:
    """For α <= 3Cr and m ∈ Ξ (any X ∈ H), P[|Â(X) − m| >= α] = 1 − (2/λ)(1 − e^{−λα})/Ẑ with
    λ = εLn/(12C): the exact mass of restricted_law(m) agrees to 40 digits."""
    params = MedianParameters(n, L_HALF, R_ONE, R, C)
    lo, hi = params.xi_range
    m = lo + (hi - lo) * F(t, 64)
    alpha = R_ONE * F(a, 64)  # α ∈ (0, r] ⊂ (0, 3Cr]
    law = restricted_law(m, params, eps)
    with workdps():
        rate = to_mpf(lam(params, eps))
        closed = 1 - (2 / rate) * (1 - mpmath.exp(-rate * to_mpf(alpha))) / lemma_a_4_normalizer(
            params, eps
        )
        assert abs((1 - law.mass(m - alpha, m + alpha)) - closed) < MARGIN


def lemma_3_4_tail(n: int, alpha, beta_unused, eps, R, C) -> mpmath.mpf:
    """The exact tail 1 − (2/λ)(1 − e^{−λα})/Ẑ at L = 1/2, r = 1, in the cancellation-free form
    [(2/λ)(e^{−λα} − e^{−3Crλ}) + (2R + 2Cr)e^{−3Crλ}]/Ẑ (λ·3Cr = εLrn/4; the same number,
    since Ẑ = (2/λ)(1 − e^{−3Crλ}) + (2R + 2Cr)e^{−3Crλ})."""
    params = MedianParameters(n, L_HALF, R_ONE, R, C)
    with workdps():
        rate = to_mpf(lam(params, eps))
        plateau = mpmath.exp(-rate * 3 * to_mpf(C))
        outside = (2 / rate) * (mpmath.exp(-rate * to_mpf(alpha)) - plateau) + (
            2 * to_mpf(R) + 2 * to_mpf(C)
        ) * plateau
        return outside / lemma_a_4_normalizer(params, eps)


def lemma_3_4_minimal_n(alpha, beta, eps, R, C) -> int:
    """The least n with tail(n) <= β (exponential then binary search; the bracketing is checked
    by the caller)."""
    beta = to_mpf(beta)
    hi = 1
    while lemma_3_4_tail(hi, alpha, beta, eps, R, C) > beta:
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if lemma_3_4_tail(mid, alpha, beta, eps, R, C) > beta:
            lo = mid
        else:
            hi = mid
    return hi


def lemma_3_4_rate(alpha, beta, eps, R, C) -> mpmath.mpf:
    """C·log(1/β)/(εLα) + log(R/α + 1)/(εLr) at L = 1/2, r = 1."""
    with workdps():
        a, b, e, RR, CC, L = (to_mpf(v) for v in (alpha, beta, eps, R, C, L_HALF))
        return CC * mpmath.log(1 / b) / (e * L * a) + mpmath.log(RR / a + 1) / (e * L)


def test_lemma_3_4_minimal_sample_size_tracks_the_stated_rate() -> None:
    """Lemma 3.4's n = O(C·log(1/β)/(εLα) + log(R/α+1)/(εLr)): the exact minimal n over a grid
    (α ∈ {1/100, 1/10, 1/2, 9/10}, β ∈ {10⁻¹, 10⁻², 10⁻⁴, 10⁻⁸}, ε ∈ {1/4, 1/2, 1},
    R ∈ {1, 5, 10³, 10⁶}, C ∈ {1, 2}) stays within [3, 13] of the rate (the brief's [1/50, 50]
    a fortiori). Why that band: tail ≈ e^{−λα} once Ẑ ≈ 2/λ gives n ≈ 12·C log(1/β)/(εLα)
    (ratio → 12), and the plateau (2R + 2Cr)e^{−εLrn/4} <= β·2/λ gives n ≈ 4·log(R)/(εLr)
    (ratio → 4). Both limits are asserted, so the ratio does not drift to 0 or ∞."""
    ratios = []
    for alpha, beta, eps, R, C in itertools.product(
        [F(1, 100), F(1, 10), F(1, 2), F(9, 10)],
        [F(1, 10), F(1, 100), F(1, 10**4), F(1, 10**8)],
        EPSILONS,
        [F(1), F(5), F(10**3), F(10**6)],
        [F(1), F(2)],
    ):
        n = lemma_3_4_minimal_n(alpha, beta, eps, R, C)
        assert lemma_3_4_tail(n, alpha, beta, eps, R, C) <= to_mpf(beta)
        assert n == 1 or lemma_3_4_tail(n - 1, alpha, beta, eps, R, C) > to_mpf(beta)
        ratios.append(n / lemma_3_4_rate(alpha, beta, eps, R, C))
    assert 3 <= min(ratios) and max(ratios) <= 13
    # local regime: β → 0 with α, R fixed -> ratio → 12
    local = [
        lemma_3_4_minimal_n(F(1, 10), F(1, 10**k), 1, F(1), F(1))
        / lemma_3_4_rate(F(1, 10), F(1, 10**k), 1, F(1), F(1))
        for k in (10, 40, 640)
    ]
    assert abs(local[-1] - 12) < 0.2 and abs(local[-1] - 12) < abs(local[0] - 12) + 0.01
    # global regime: R → ∞ with β fixed -> ratio → 4 (R up to 10^300: the constants must fit a
    # float, the data policy of MedianParameters)
    glob = [
        lemma_3_4_minimal_n(F(9, 10), F(1, 10), 1, F(10) ** k, F(1))
        / lemma_3_4_rate(F(9, 10), F(1, 10), 1, F(10) ** k, F(1))
        for k in (6, 30, 300)
    ]
    assert abs(glob[-1] - 4) < 0.2 and abs(glob[-1] - 4) < abs(glob[0] - 4) + 0.01


# ------------------------------------------------------------------------ T17 Prop 3.7 (C.2)


def c2_cdf(p: Fraction, L: Fraction, r: Fraction, x: Fraction) -> Fraction:
    """The C.2 construction: mass (1 − 2Lr)(1 − p) at −2r, (1 − 2Lr)p at 2r, U[−r, r] with
    weight 2Lr (density L there). Exact CDF."""
    atoms = (1 - 2 * L * r) * ((1 - p) * (x >= -2 * r) + p * (x >= 2 * r))
    return atoms + 2 * L * r * min(max((x + r) / (2 * r), F(0)), F(1))


@pytest.mark.parametrize("L", [F(1, 3), F(2, 5), F(1, 4)])
@pytest.mark.parametrize("p", [F(k, 8) for k in range(1, 8)])
def test_proposition_3_7_c2_median_formula_and_admissibility_failure(L, p) -> None:
    """Prop 3.7's (C.2) construction (r = 1, Lr < 1/2): its median is p(1/L − 2r) + r − 1/(2L)
    (F(m) = 1/2 exactly, inside (−r, r) when that point is; the median moves by αL/(1 − 2Lr)
    per unit of p, not 2αL/(1 − 2Lr)). Erratum E12: it is admissible only when m = 0 (p = 1/2):
    otherwise [m − r, m + r] sticks out of [−r, r], where the density is 0 < L."""
    r = R_ONE
    m = p * (1 / L - 2 * r) + r - 1 / (2 * L)
    assert -r < m < r  # for p ∈ (0, 1) the median lies in the uniform part
    assert c2_cdf(p, L, r, m) == F(1, 2)
    assert c2_cdf(p, L, r, m - F(1, 10**6)) < F(1, 2)  # m is the (unique) median
    assert m.__class__ is Fraction and (1 / L - 2 * r) * L == 1 - 2 * L * r  # dm/dp = (1 − 2Lr)/L
    sticks_out = max(m + r, r) > r or min(m - r, -r) < -r
    admissible = not sticks_out  # the density is L only on [−r, r] (atoms elsewhere)
    assert admissible == (p == F(1, 2)) == (m == 0)


# ------------------------------------------------------------------------ T18/T19 Props 3.8/3.9


@pytest.mark.parametrize("n", range(1, 9))
def test_proposition_3_8_binomial_mgf_identity(n) -> None:
    """E[e^{−ε·Bin(n, p)}] = (1 − p(1 − e^{−ε}))ⁿ, symbolically in p and ε (sympy)."""
    p, eps = sp.symbols("p epsilon", positive=True)
    mgf = sum(
        sp.binomial(n, k) * p**k * (1 - p) ** (n - k) * sp.exp(-eps * k) for k in range(n + 1)
    )
    assert sp.expand(mgf - (1 - p * (1 - sp.exp(-eps))) ** n) == 0


def test_proposition_3_8_coupling_changes_each_coordinate_with_probability_l_two_alpha_eta() -> (
    None
):
    """Prop 3.8's coupling of D₁ (U[−r, r] w.p. 2Lr, atoms at ±(R + r)) and D₂ (the uniform part
    shifted by 2α + η) changes a coordinate iff it falls in [−r, −r + 2α + η]: probability
    2Lr·(2α + η)/(2r) = L(2α + η) exactly, so d_H ~ Bin(n, L(2α + η)); the medians differ by
    2α + η > 2α."""
    for L, r, alpha, eta in [
        (F(1, 2), F(1), F(1, 10), F(1, 100)),
        (F(1, 4), F(2), F(1, 3), F(1, 7)),
    ]:
        shift = 2 * alpha + eta
        assert 2 * L * r * shift / (2 * r) == L * shift
        # medians: 0 for D₁, shift for D₂ (the atoms are symmetric, the uniform part is centred)
        assert (-r + shift + r + shift) / 2 - 0 == shift > 2 * alpha


def prop_3_8_minimal_n(L, alpha, eta, beta, eps) -> int:
    """The least n with (1 − L(2α + η)(1 − e^{−ε}))ⁿ <= β/(1 − β): below it Prop 3.8's
    contradiction argument applies."""
    with workdps():
        q = 1 - to_mpf(L * (2 * alpha + eta)) * (1 - mpmath.exp(-to_mpf(eps)))
        target = to_mpf(beta / (1 - beta))
        n = int(mpmath.ceil(mpmath.log(target) / mpmath.log(q)))
        assert q**n <= target < q ** (n - 1)
        return n


def test_proposition_3_8_minimal_n_against_the_local_rate() -> None:
    """n_min = ⌈log((1 − β)/β)/(−log(1 − L(2α + η)(1 − e^{−ε})))⌉ vs log(1/β)/(εLα): the ratio
    lies in (0, 1] over a grid, and tends to α/(2α + η) → 1/2 as ε, α, β → 0 (η = α/100)."""
    L = F(1, 2)
    for alpha, beta, eps in itertools.product(
        [F(1, 100), F(1, 10), F(1, 2)],
        [F(1, 10), F(1, 100), F(1, 10**6)],
        [F(1, 100), F(1, 10), F(1, 2), F(9, 10)],
    ):
        n = prop_3_8_minimal_n(L, alpha, alpha / 100, beta, eps)
        with workdps():
            ratio = n / (mpmath.log(1 / to_mpf(beta)) / (to_mpf(eps * L * alpha)))
        assert 0 < ratio <= 1
    n = prop_3_8_minimal_n(L, F(1, 10**4), F(1, 10**6), F(1, 10**40), F(1, 10**4))
    with workdps():
        ratio = n / (mpmath.log(to_mpf(10) ** 40) / to_mpf(F(1, 10**4) * L * F(1, 10**4)))
        assert abs(ratio - to_mpf(F(100, 201))) < mpmath.mpf("0.001")


def prop_3_9_minimal_n(L, r, R, alpha, beta, eps) -> int:
    """The least n with (1 − β)·N·(1 − 2Lr(1 − e^{−ε}))ⁿ <= 1, N = ⌊2R/(3α)⌋ intervals of width
    3α in [−R, R] (Prop 3.9's proof)."""
    N = math.floor(2 * R / (3 * alpha))
    with workdps():
        q = 1 - 2 * to_mpf(L * r) * (1 - mpmath.exp(-to_mpf(eps)))
        n = max(0, int(mpmath.ceil(mpmath.log(1 / ((1 - to_mpf(beta)) * N)) / mpmath.log(q))))
        assert (1 - to_mpf(beta)) * N * q**n <= 1 + MARGIN
        assert n == 0 or (1 - to_mpf(beta)) * N * q ** (n - 1) > 1
        return n


def test_proposition_3_9_minimal_n_against_the_global_rate_and_e13() -> None:
    """n_min of Prop 3.9 vs log(R/α + 1)/(εLr): bounded ratio in (0, 1] on a grid, → 1/2 for
    R → ∞, ε → 0 (Lr = 1/2). E13: the proof's (1 − 2Lr(1 − e^{−ε}))ⁿ = Ω(e^{−Lrεn}) hides a
    constant in the exponent: the true bound is >= e^{−2Lrεn} (verified), with equality at
    Lr = 1/2, where the ratio to e^{−Lrεn} = e^{−εn/2} tends to 0."""
    L, r = F(1, 2), F(1)
    for alpha, beta, eps, R in itertools.product(
        [F(1, 100), F(1, 10), F(1, 2)],
        [F(1, 10), F(1, 100)],
        [F(1, 10), F(1, 2), F(9, 10)],
        [F(10), F(10**6)],
    ):
        n = prop_3_9_minimal_n(L, r, R, alpha, beta, eps)
        with workdps():
            rate = mpmath.log(to_mpf(R / alpha) + 1) / to_mpf(eps * L * r)
            assert 0 < n / rate <= 1
    n = prop_3_9_minimal_n(L, r, F(10) ** 60, F(1, 2), F(1, 10), F(1, 10**3))
    with workdps():
        ratio = n / (mpmath.log(to_mpf(F(10) ** 60 * 2) + 1) / to_mpf(F(1, 10**3) * L * r))
        assert abs(ratio - mpmath.mpf(1) / 2) < mpmath.mpf("0.02")
    for Lr, eps, n in itertools.product([F(1, 8), F(1, 4), F(1, 2)], EPSILONS, [1, 10, 100]):
        with workdps():
            e = to_mpf(eps)
            lhs = (1 - 2 * to_mpf(Lr) * (1 - mpmath.exp(-e))) ** n
            assert lhs >= mpmath.exp(-2 * to_mpf(Lr) * e * n) - MARGIN
    with workdps():
        e = mpmath.mpf(1)
        assert abs((1 - (1 - mpmath.exp(-e))) ** 200 - mpmath.exp(-e * 200)) < MARGIN
        assert (1 - (1 - mpmath.exp(-e))) ** 200 / mpmath.exp(-e * 200 / 2) < mpmath.mpf(10) ** -40


# ---------------------------------------------------------------------------- Appendix D


def rate_terms(alpha, beta, eps, L, r, R) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(T₁, T₂, T₃) = (log(1/β)/(L²α²), log(1/β)/(εLα), log(R/α + 1)/(εLr)) (Thm 3.1)."""
    a, b, e, LL, rr, RR = (mpmath.mpf(v) for v in (alpha, beta, eps, L, r, R))
    return (
        mpmath.log(1 / b) / (LL**2 * a**2),
        mpmath.log(1 / b) / (e * LL * a),
        mpmath.log(RR / a + 1) / (e * LL * rr),
    )


def test_appendix_d_alpha_crit_regimes_are_reversed() -> None:
    """Appendix D (erratum in ``notes/tzamos20.md``): the appendix says α > α_crit ⇒ T₂ dominates;
    it is the other way round. r = 1, β = 0.01, R = 10⁶: α_crit = r log(1/β)/log(R/(r log(1/β)))
    ≈ 0.37; at α = 0.01 T₂ : T₃ ≈ 460 : 18, at α = 0.9 ≈ 5.1 : 13.9 (εL = 1 cancels in the ratio);
    T₂ > T₃ exactly below the root of α log(R/α + 1) = r log(1/β) and T₃ > T₂ above it."""
    with workdps():
        r, beta, R = 1, mpmath.mpf("0.01"), mpmath.mpf(10) ** 6
        alpha_crit = r * mpmath.log(1 / beta) / mpmath.log(R / (r * mpmath.log(1 / beta)))
        assert abs(alpha_crit - mpmath.mpf("0.37")) < mpmath.mpf("0.01")
        _, t2, t3 = rate_terms("0.01", beta, 1, 1, r, R)
        assert abs(t2 - 460) < 1 and abs(t3 - 18) < 0.5 and t2 > t3
        _, t2, t3 = rate_terms("0.9", beta, 1, 1, r, R)
        assert (
            abs(t2 - mpmath.mpf("5.1")) < 0.05 and abs(t3 - mpmath.mpf("13.9")) < 0.05 and t3 > t2
        )
        root = mpmath.findroot(lambda a: a * mpmath.log(R / a + 1) - r * mpmath.log(1 / beta), 0.37)
        assert abs(root / alpha_crit - 1) < mpmath.mpf("0.2")  # the printed α_crit ≈ the root
        for a in (root / 100, root / 2, root * mpmath.mpf("0.99")):
            _, t2, t3 = rate_terms(a, beta, 1, 1, r, R)
            assert t2 > t3  # small α: the LOCAL term T₂ dominates
        for a in (root * mpmath.mpf("1.01"), 2 * root, mpmath.mpf("0.99")):
            _, t2, t3 = rate_terms(a, beta, 1, 1, r, R)
            assert t3 > t2  # large α: the GLOBAL term T₃ dominates


@pytest.mark.parametrize(
    "alpha, beta, L, r, R",
    [
        ("0.01", "0.01", "0.5", 1, 10**6),
        ("0.5", "0.001", "0.25", 2, 10),
        ("0.9", "0.1", "0.5", 1, 100),
    ],
)
def test_appendix_d_epsilon_crit_is_where_the_statistical_term_takes_over(
    alpha, beta, L, r, R
) -> None:
    """ε_crit = Lα·max{1, α log(R/α + 1)/(r log(1/β))}: T₁ >= max(T₂, T₃) for ε >= ε_crit (with
    equality to one of them at ε_crit) and T₁ < max(T₂, T₃) just below (App. D: correct)."""
    with workdps():
        a, b, LL, RR = mpmath.mpf(alpha), mpmath.mpf(beta), mpmath.mpf(L), mpmath.mpf(R)
        crit = LL * a * max(1, a * mpmath.log(RR / a + 1) / (r * mpmath.log(1 / b)))
        t1, t2, t3 = rate_terms(a, b, crit, LL, r, RR)
        assert t1 >= max(t2, t3) * (1 - MARGIN) and abs(t1 - max(t2, t3)) < MARGIN * t1
        t1, t2, t3 = rate_terms(a, b, crit * mpmath.mpf("1.01"), LL, r, RR)
        assert t1 > max(t2, t3)
        t1, t2, t3 = rate_terms(a, b, crit * mpmath.mpf("0.99"), LL, r, RR)
        assert t1 < max(t2, t3)


# ------------------------------------------------------------------ T16 the sampler inverses


def truncated_exponential_cdf(x, a, b, left, right):
    """F(x) of the density ∝ e^{ax + b} on [left, right] (Alg. 10)."""
    return (sp.exp(a * x + b) - sp.exp(a * left + b)) / (
        sp.exp(a * right + b) - sp.exp(a * left + b)
    )


def test_t16_truncated_exponential_inverses_are_exact_and_the_printed_one_misplaces_beta() -> None:
    """App. E.3 / erratum E11, symbolically (sympy): F(F⁻¹(u)) = u for the corrected inverse
    (ln(e^{a·l+b} + u(e^{a·r+b} − e^{a·l+b})) − b)/a and for both stable forms
    l + log1p(u·expm1(aΔ))/a and r + ln(u + (1 − u)e^{−aΔ})/a; the printed
    (1/a)·ln(e^{a·l+b} + u(…)) − b is shifted by b(1/a − 1): off unless b = 0 or a = 1."""
    u, a, left, width = sp.symbols("u a left width", positive=True)
    b = sp.symbols("b", real=True)
    right = left + width
    lo, hi = sp.exp(a * left + b), sp.exp(a * right + b)
    inverses = {
        "corrected": (sp.log(lo + u * (hi - lo)) - b) / a,
        "stable": left + sp.log(1 + u * (sp.exp(a * width) - 1)) / a,
        "stable, upper form": right + sp.log(u + (1 - u) * sp.exp(-a * width)) / a,
    }
    for name, inv in inverses.items():
        assert sp.simplify(truncated_exponential_cdf(inv, a, b, left, right) - u) == 0, name
    printed = sp.log(lo + u * (hi - lo)) / a - b
    gap = sp.simplify(truncated_exponential_cdf(printed, a, b, left, right) - u)
    assert gap != 0 and sp.simplify(gap.subs(b, 0)) == 0 and sp.simplify(gap.subs(a, 1)) == 0
    assert sp.simplify(printed - inverses["corrected"] - b * (1 / a - 1)) == 0
    assert abs(gap.subs({u: sp.Rational(1, 2), a: 2, left: 0, width: 1, b: 1}).evalf()) > 0.1


def test_t16_truncated_laplace_inverse_is_exact_and_the_printed_one_reflects_about_mu() -> None:
    """F(x) = ½ + ½·sgn(x − μ)(1 − e^{−|x−μ|/σ}) (1/σ removed), F⁻¹(u) = μ − σ·sgn(u − ½)·
    ln(1 − 2|u − ½|): F(F⁻¹(u)) = u on both branches (u = ½ ± v/2, v ∈ (0, 1)); the printed
    inverse μ + σ·sgn(u − ½)·ln(1 − 2|u − ½|) gives F = 1 − u (the draw reflected about μ)."""
    mu = sp.symbols("mu", real=True)
    sigma, v = sp.symbols("sigma v", positive=True)

    def cdf(x, side):  # side = sgn(x − μ), known on each branch
        return sp.Rational(1, 2) + side * (1 - sp.exp(-side * (x - mu) / sigma)) / 2

    for side in (1, -1):
        u = sp.Rational(1, 2) + side * v / 2  # sgn(u − ½) = side, |u − ½| = v/2
        corrected = mu - sigma * side * sp.log(1 - v)
        printed = mu + sigma * side * sp.log(1 - v)
        assert sp.simplify(cdf(corrected, side) - u) == 0
        assert sp.simplify(cdf(printed, -side) - (1 - u)) == 0  # lands on the other side of μ
