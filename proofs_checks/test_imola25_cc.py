"""Machine checks of imola25 Lemma 3.1 (continual counting) and Corollary A.1 (Chan–Shi–Song).

Lemma 3.1 (as stated): ∃ CC: ℤ^m → ℤ^m with (1) Pr[CC(r) = r̃] <= e^ε Pr[CC(r) = r̃ + e] for every
contiguous e (Eq. 1) and (2) Pr[‖r − CC(r)‖_∞ >= 3·log(m)·log(m/(2β))/ε] <= β for all β > 0.
The CC of the paper is the binary tree with Lap(T/ε) node noise and round-half-up (Appendix A);
the experiments use DLap node noise (Sec. 6: "two-sided geometric noise").

Corollary A.1 (as stated): γ_i ~ Lap(b_i) independent, Y = Σγ_i,
ν = max{sqrt(Σb_i²), b_M sqrt(ln(2/δ))} ⇒ Pr[|Y| > ν·sqrt(8 ln(2/δ))] <= δ.

Exact tails come from ``dpquant.reference.slice_quantiles.cc_tails`` (closed forms, mpmath). Monte Carlo
tests use a one-sided Clopper–Pearson bound at level 1e-9 (Bonferroni over the cells tested), so
a correct implementation of a true claim fails with probability < 1e-9.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpquant.reference.conformance import clopper_pearson
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.continual_counting import (
    ContinualCounting,
    shift_node_count,
    shift_privacy_loss,
    tree_height,
)
from dpquant.reference.slice_quantiles.cc_tails import (
    cc_max_error_tail,
    corollary_a1_cc_bound,
    corollary_a1_threshold,
    lemma_3_1_threshold,
    sample_max_error,
)
from dpquant.reference.slice_quantiles.laplace_sums import (
    discrete_laplace_sum_two_sided_tail,
    laplace_mixture_sum_survival,
    laplace_sum_survival,
)

CONFIDENCE_ALPHA = 1e-9
MARGIN = mpmath.mpf(10) ** -40  # quadrature / working-precision margin for "<= ε"


def box(m: int, radius: int) -> np.ndarray:
    axes = [np.arange(-radius, radius + 1)] * m
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, m)


def shift(m: int, s: int, d: int) -> np.ndarray:
    return d * (np.arange(1, m + 1) >= s).astype(np.int64)


# ============================================================================= Lemma 3.1 (1)
@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6, 7, 8])
def test_lemma_3_1_part_1_discrete_loss_is_at_most_epsilon_for_every_contiguous_shift(m) -> None:
    """Discrete CC, exact: log P(N = v) − log P(N = v − e) = (‖W⁻¹(v − e)‖₁ − ‖W⁻¹v‖₁)/b with
    b = T/ε, so the loss is ε·D/T for an integer D computed exactly; over a box of v and every
    contiguous e (d = ±1) max D = c(s) <= T, with equality (loss = ε) for s = 1 (c(1) = T for
    every m, in particular m = 2^T − 1). Spot-checked against the primitive's mpmath log pmf."""
    epsilon = Fraction(3, 4)  # exact in binary, so float(ε) is ε
    t = tree_height(m)
    cc = ContinualCounting(m, float(epsilon))
    radius = {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 2, 7: 2, 8: 1}[m]
    v = box(m, radius)
    l1 = np.abs(cc.node_differences(v)).sum(axis=1)
    for s in range(1, m + 1):
        for d in (1, -1):
            e = shift(m, s, d)
            dist = np.abs(cc.node_differences(v - e)).sum(axis=1) - l1
            worst = int(dist.max())
            assert worst == shift_node_count(m, s) <= t
            loss = epsilon * worst / t
            assert loss == shift_privacy_loss(m, s, epsilon) <= epsilon
            if s == 1:
                assert loss == epsilon
            arg = v[int(dist.argmax())]
            with workdps():
                exact = cc.noise_logpmf_mp(arg) - cc.noise_logpmf_mp(arg - e)
                target = mpmath.mpf(epsilon.numerator) / epsilon.denominator * worst / t
                assert abs(exact - target) < MARGIN


def laplace_cdf(x: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def laplace_cell_probability(v: tuple[int, ...], epsilon: float) -> mpmath.mpf:
    """P(⌊N + ½⌋ = v) for the Laplace CC with m = len(v) <= 3, factorised along the Fenwick
    forest (nodes 1, 2 hang from the root, node 3 from node 2): a product of Laplace interval
    masses and, for m = 3, one 1-D integral ∫_{cell 2} f(y)·P(y + η₃ ∈ cell 3) dy split at its
    kinks. An independent oracle for ContinualCounting.noise_cell_probability_mp."""
    m = len(v)
    if not 1 <= m <= 3:
        raise ValueError("m must be 1, 2 or 3")
    with workdps():
        b = mpmath.mpf(tree_height(m)) / mpmath.mpf(epsilon)
        h = mpmath.mpf(1) / 2

        def mass(lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
            return laplace_cdf(hi, b) - laplace_cdf(lo, b)

        prob = mass(v[0] - h, v[0] + h)
        if m == 2:
            prob *= mass(v[1] - h, v[1] + h)
        if m == 3:
            lo, hi = v[1] - h, v[1] + h
            kinks = {x for x in (mpmath.mpf(0), v[2] - h, v[2] + h) if lo < x < hi}
            pts = sorted({lo, hi} | kinks)

            def integrand(y: mpmath.mpf) -> mpmath.mpf:
                return mpmath.exp(-abs(y) / b) / (2 * b) * mass(v[2] - h - y, v[2] + h - y)

            prob *= mpmath.quad(integrand, pts)
        return prob


def test_laplace_cell_oracle_matches_the_primitive_for_m_1() -> None:
    cc = ContinualCounting(1, 1.3, noise="laplace")
    for v in (-3, 0, 2):
        assert abs(cc.noise_cell_probability_mp([v]) - laplace_cell_probability((v,), 1.3)) < 1e-45


@pytest.mark.slow
def test_laplace_cell_oracle_matches_the_primitive_for_m_2() -> None:
    """The primitive's nested quadrature takes seconds per cell at m = 2 (slow)."""
    cc = ContinualCounting(2, 1.0, noise="laplace")
    got = cc.noise_cell_probability_mp([1, -2])
    assert abs(got - laplace_cell_probability((1, -2), 1.0)) < 1e-40


@pytest.mark.parametrize("m, radius", [(1, 5), (2, 3), (3, 1)])
def test_lemma_3_1_part_1_laplace_rounding_cells_loss_is_at_most_epsilon(m, radius) -> None:
    """Laplace + round-half-up: cell probabilities (exact up to quadrature, margin 1e-40) satisfy
    P(v) <= e^ε P(v + e) for every contiguous e, d = ±1, v in the box; the density ratio is
    <= e^{ε c(s)/T} pointwise, so the bound holds exactly and is approached (loss → ε·c(s)/T)
    on cells far from 0 — on the box the largest loss is within 0.05 of ε for s = 1, m <= 2."""
    epsilon = 1.0
    cache: dict[tuple[int, ...], mpmath.mpf] = {}

    def prob(x: tuple[int, ...]) -> mpmath.mpf:
        if x not in cache:
            cache[x] = laplace_cell_probability(x, epsilon)
        return cache[x]

    with workdps():
        for s in range(1, m + 1):
            worst = mpmath.mpf(-1)
            for d in (1, -1):
                e = shift(m, s, d)
                for v in box(m, radius).tolist():
                    a, b = prob(tuple(v)), prob(tuple(int(x) for x in np.asarray(v) + e))
                    worst = max(worst, mpmath.log(a) - mpmath.log(b))
            assert worst <= mpmath.mpf(epsilon) * shift_node_count(m, s) / tree_height(m) + MARGIN
            if s == 1 and m <= 2:
                assert worst > epsilon - 0.05


# ============================================================================= Lemma 3.1 (2)
def exact_max_error_probability_m2(epsilon: float, w: mpmath.mpf, noise: str) -> mpmath.mpf:
    """m = 2: N_1 = η_1 and N_2 = η_2 (nodes 1 and 2 both hang from the root) are independent,
    so P(max_i |r̃_i − r_i| >= w) = 1 − (1 − q)², q = P(|r̃_1 − r_1| >= w), exactly."""
    q = cc_max_error_tail(
        1, epsilon, w, noise, scale=Fraction(2) / Fraction(epsilon), inclusive=True
    )
    return 1 - (1 - q) ** 2


def monte_carlo_lower_bound(m: int, epsilon: float, w: mpmath.mpf, size: int, seed: int, alpha):
    """One-sided Clopper–Pearson lower limit (level alpha) of P(max error >= w), Laplace CC."""
    x = sample_max_error(m, epsilon, size, np.random.default_rng(seed), "laplace")
    hits = int((x >= math.ceil(float(w))).sum())
    lo, hi = clopper_pearson(hits, size, 2 * alpha)
    return lo, hi


def test_lemma_3_1_part_2_fails_for_m_1() -> None:
    """log 1 = 0: the threshold is 0 and P(‖r − CC(r)‖_∞ >= 0) = 1 > β for every β < 1, in
    either log base and for either noise."""
    for base in (2, "e"):
        for beta in (0.01, 0.5, 0.99):
            w = lemma_3_1_threshold(1.0, beta, 1, base)
            assert w == 0
            for noise in ("discrete", "laplace"):
                assert cc_max_error_tail(1, 1.0, w, noise, inclusive=True) == 1 > beta


@pytest.mark.parametrize("beta, expected", [(0.01, 0.0172), (0.1, 0.1997)])
def test_lemma_3_1_part_2_fails_with_natural_log_for_m_2(beta, expected) -> None:
    """ε = 1, natural logs: w = 3 ln 2 ln(1/β) — exact P(max >= w) ≈ 0.0172 (β = 0.01) and
    ≈ 0.1997 (β = 0.1) (notes/imola25.md, "Other findings"), and the Monte Carlo lower confidence limit (level 1e-9)
    exceeds β: the violation is confirmed with confidence 1 − 1e-9."""
    w = lemma_3_1_threshold(1.0, beta, 2, "e")
    exact = exact_max_error_probability_m2(1.0, w, "laplace")
    assert float(exact) == pytest.approx(expected, abs=5e-4)
    assert exact > beta
    lo, hi = monte_carlo_lower_bound(2, 1.0, w, 200_000, 31, CONFIDENCE_ALPHA)
    assert lo > beta
    assert lo <= exact <= hi


def test_lemma_3_1_part_2_fails_with_natural_log_for_m_4_beta_0_3() -> None:
    """Lemma 3.1 (2) read with natural logs (notes/imola25.md, "Other findings"): m = 4, β = 0.3,
    ε = 1: P ≈ 0.33 > 0.3 (Monte Carlo, CP 1e-9)."""
    w = lemma_3_1_threshold(1.0, 0.3, 4, "e")
    lo, _ = monte_carlo_lower_bound(4, 1.0, w, 200_000, 32, CONFIDENCE_ALPHA)
    assert lo > 0.3


def test_lemma_3_1_part_2_fails_with_log2_for_m_2_at_large_epsilon() -> None:
    """Even with log₂ the claim fails through the rounding: m = 2, β = 0.01, ε = 20 gives
    w = 3·log₂(100)/20 ≈ 0.997 < 1, so the event is an integer error >= 1, i.e. |N_i| >= ½ with
    N_i ~ Lap(1/10): P = 1 − (1 − e^{−5})² ≈ 0.01343 > 0.01 (exact, and Monte Carlo)."""
    w = lemma_3_1_threshold(20.0, 0.01, 2, 2)
    assert 0.99 < w < 1
    exact = exact_max_error_probability_m2(20.0, w, "laplace")
    with workdps():
        closed = 1 - (1 - mpmath.exp(-5)) ** 2
        assert abs(exact - closed) < MARGIN
    assert exact > 0.01
    lo, _ = monte_carlo_lower_bound(2, 20.0, w, 400_000, 33, CONFIDENCE_ALPHA)
    assert lo > 0.01
    # and with large β the log₂ reading fails at moderate ε (β = 0.7, ε = 1: P ≈ 0.72)
    w7 = lemma_3_1_threshold(1.0, 0.7, 2, 2)
    assert exact_max_error_probability_m2(1.0, w7, "laplace") > 0.7


LOG2_GRID_M = [*range(2, 33), 48, 63, 64, 65, 127, 128, 255, 1000, 1023, 4096]
LOG2_GRID_EPS = (0.05, 0.5, 1.0, 2.0, 5.0)
LOG2_GRID_BETA = (1e-6, 1e-3, 0.01, 0.03, 0.1, 0.3)


@pytest.mark.parametrize("noise", ["laplace", "discrete"])
def test_lemma_3_1_part_2_with_log2_holds_by_the_exact_union_bound_on_a_grid(noise) -> None:
    """log₂ reading, the restricted range where it holds: m >= 2, ε <= 5, β <= 0.3 — the exact
    union bound Σ_i P(|r̃_i − r_i| >= w) (an upper bound on the probability) is <= β on the
    whole grid. (Outside: m = 1, large β, or ε large enough that w < 1 — see the tests above.)"""
    worst = 0.0
    for m in LOG2_GRID_M:
        for eps in LOG2_GRID_EPS:
            for beta in LOG2_GRID_BETA:
                w = lemma_3_1_threshold(eps, beta, m, 2)
                union = cc_max_error_tail(m, eps, w, noise, inclusive=True)
                assert union <= beta, (m, eps, beta, float(union))
                worst = max(worst, float(union) / beta)
    assert worst > 0.4  # the grid reaches close to the boundary (not a vacuous check)


def test_lemma_3_1_part_2_with_log2_no_violation_detected_by_monte_carlo() -> None:
    """Lemma 3.1 (2) read with log₂: no violation for m in 2..64, β in [0.003, 0.3] at ε = 1: the
    Clopper–Pearson lower limit (level 1e-9/24) of P(max >= w) stays <= β."""
    cells = [(m, beta) for m in (2, 3, 5, 8, 16, 64) for beta in (0.003, 0.01, 0.1, 0.3)]
    alpha = CONFIDENCE_ALPHA / len(cells)
    for m in (2, 3, 5, 8, 16, 64):
        x = sample_max_error(m, 1.0, 100_000, np.random.default_rng(100 + m), "laplace")
        for beta in (0.003, 0.01, 0.1, 0.3):
            w = lemma_3_1_threshold(1.0, beta, m, 2)
            hits = int((x >= math.ceil(float(w))).sum())
            lo, _ = clopper_pearson(hits, x.size, 2 * alpha)
            assert lo <= beta, (m, beta, hits)


@pytest.mark.parametrize("noise", ["laplace", "discrete"])
def test_lemma_3_1_proof_bound_from_corollary_a1_holds_exactly(noise) -> None:
    """The proof's explicit bound (T/ε)·sqrt(8 ln(2m/β))·max{√T, sqrt(ln(2m/β))} (Cor A.1 per
    coordinate at β/m, union bound) is a valid error bound: exact union tail <= β."""
    for m in (1, 2, 3, 7, 10, 100, 1000):
        for eps in (0.1, 1.0, 10.0):
            for beta in (0.3, 1e-2, 1e-8, 1e-16):
                w = corollary_a1_cc_bound(m, eps, beta)
                assert cc_max_error_tail(m, eps, w, noise) <= beta


@pytest.mark.slow
def test_reference_monte_carlo_quantiles_of_the_max_error() -> None:
    """The reference Monte Carlo (notes/imola25.md, "Reference values"; ε = 1, Laplace CC,
    2·10^5 samples): (1−β)-quantiles of the max error for m = 100 are 68 / 91 / 111 at
    β = 0.1 / 0.01 / 0.001. Checked as P(max > q + 3) <= β and P(max > q − 3) >= β at CP level
    1e-9 each."""
    x = sample_max_error(100, 1.0, 200_000, np.random.default_rng(7), "laplace")
    for beta, q in ((0.1, 68), (0.01, 91), (0.001, 111)):
        lo_hi, _ = clopper_pearson(int((x > q + 3).sum()), x.size, CONFIDENCE_ALPHA)
        _, hi_lo = clopper_pearson(int((x > q - 3).sum()), x.size, CONFIDENCE_ALPHA)
        assert lo_hi <= beta <= hi_lo


# ============================================================================= Corollary A.1
SCALE_SETS = [
    *[[1] * k for k in (1, 2, 3, 5, 8, 13, 30)],
    [1, 2],
    [1, 1, 5],
    [Fraction(1, 2), 1, 2, 4],
    [1, 1, 1, 10],
    [3, 3, 1, 1, 1, 1],
]
DELTAS = (0.9, 0.5, 0.1, 1e-2, 1e-4, 1e-8, 1e-16, 1e-50)


def test_corollary_a1_holds_exactly_on_a_grid_of_scales_and_deltas() -> None:
    """Exact P(|Y| > ν sqrt(8 ln(2/δ))) (closed-form / partial-fraction Laplace-sum tails)
    <= δ for every grid point. Slack δ/P (recorded): >= 10^{1.05} everywhere (k = 1,
    δ = 0.9), 10^{9}–10^{30} at δ = 1e-16, 10^{58}–10^{92} at δ = 1e-50: the bound is very loose
    at small δ, which is why E_CC should come from the exact tail (Sec. 6's E_CC)."""
    min_slack = mpmath.inf
    with workdps():
        for scales in SCALE_SETS:
            for delta in DELTAS:
                thr = corollary_a1_threshold(scales, delta)
                prob = 2 * laplace_mixture_sum_survival(thr, scales)
                assert 0 < prob <= delta, (scales, delta, prob)
                min_slack = min(min_slack, delta / prob)
    assert min_slack > 10


def test_corollary_a1_also_holds_for_discrete_laplace_node_noise() -> None:
    """Why Cor A.1 may be used for the discrete CC: the DLap(e^{−1/b}) MGF
    1/(1 − sinh²(λ/2)/sinh²(1/(2b))) is <= the Lap(b) MGF 1/(1 − b²λ²) on 0 < λ < 1/b, and the
    exact DLap-sum tail is <= δ at the Cor A.1 threshold on a grid."""
    with workdps():
        for b in (mpmath.mpf(1) / 3, mpmath.mpf(1), mpmath.mpf(8)):
            p = mpmath.exp(-1 / b)
            for frac in (
                mpmath.mpf("0.01"),
                mpmath.mpf("0.3"),
                mpmath.mpf("0.9"),
                mpmath.mpf("0.999"),
            ):
                lam = frac / b
                dlap = (1 - p) ** 2 / ((1 - p * mpmath.exp(lam)) * (1 - p * mpmath.exp(-lam)))
                assert dlap <= 1 / (1 - (b * lam) ** 2)
            for k in (1, 2, 4, 8):
                for delta in (0.5, 1e-3, 1e-16):
                    thr = corollary_a1_threshold([b] * k, delta)
                    t = int(mpmath.floor(thr)) + 1  # |S| > thr ⟺ |S| >= ⌊thr⌋ + 1
                    assert discrete_laplace_sum_two_sided_tail(t, k, p) <= delta


def test_corollary_a1_threshold_formula() -> None:
    """ν = max{sqrt(Σb²), b_M sqrt(ln(2/δ))}: the first branch wins for many small scales."""
    with workdps():
        thr = corollary_a1_threshold([1] * 30, 0.5)  # ln 4 < 30
        assert abs(thr - mpmath.sqrt(30) * mpmath.sqrt(8 * mpmath.log(4))) < 1e-50
        thr = corollary_a1_threshold([2], 1e-6)
        assert abs(thr - 2 * mpmath.sqrt(8) * mpmath.log(2 / mpmath.mpf(1e-6))) < 1e-50
        assert laplace_sum_survival(0, 3) == mpmath.mpf(1) / 2
