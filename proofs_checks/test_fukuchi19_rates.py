"""Slope tests of fukuchi19's Corollaries 1–2 (Eqs. 4–5): the N-rate of Algorithm 2's error.

Corollary 1 (Lower-α schedule, Eq. 4): Err = O((ln³N/(ε²N))^{1/(2α)}); Corollary 2 (Unknown-α
schedule, Eq. 5): Err = O((ln⁶N/(ε²N))^{1/(2α)}). Along N = 2^n the guideline
(ln^k N/N)^{1/(2α)} has −log₂ Err = (n − k·log₂(n ln 2))/(2α) + const, so its secant slope per
doubling over n ∈ [n₀, n₁] is

    (1/(2α))·(1 − k·log₂(n₁/n₀)/(n₁ − n₀))       (k = 3 for Cor. 1, 6 for Cor. 2).

Data (Sec. 6.1): fixed data x_(i) = x_min + 0.3·BetaPPF((i − 1)/(N − 1); α, 1), worst case over
the six x_min of the experiments; the measured slope must lie within ±20% of the secant slope (the tolerance of
``notes/fukuchi19.md``, reference values).
Errors come from the float tree law (:func:`~dpquant.reference.ldp_minimum.exact_law.leaf_probabilities`;
the pruned mass adds at most 2 per unit, so Err is bracketed) where L allows, and from the binomial
sampler with an empirical-Bernstein interval otherwise (Unknown α at N = 2^20, L = 21).

The full tests (n = 14 → 20) are ``slow``; the smoke test (Lower α, α = 1, n = 12 → 16, exact
float law) runs in CI.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpquant.reference.ldp_minimum.exact_law import leaf_probabilities
from dpquant.reference.ldp_minimum.round_statistic import round_rule
from dpquant.reference.ldp_minimum.schedules import schedule
from dpquant.reference.ldp_minimum.search import sample_binomial
from dpquant.reference.ldp_minimum.section_6_1 import beta_fixed_data

WIDTH = 0.3
X_MINS = [k * 0.2 * (2 - WIDTH) - 1 for k in range(6)]  # Sec. 6.1
TOLERANCE = 0.2
LOG_POWER = {"lower_alpha": 3, "unknown_alpha": 6}

# Monte Carlo sizing: M runs per (x_min, configuration). Maurer–Pontil's empirical Bernstein bound
# for values in [0, 2]: |mean − Err| <= sqrt(2·V·ln(2/δ)/M) + 14·ln(2/δ)/(3(M − 1)) with probability
# >= 1 − 2δ. With δ = 1e-8 per estimate and at most 48 estimates, the intervals all hold with
# probability >= 1 − 1e-6, so a correct implementation (of a true rate) fails with prob < 1e-6.
# M only sets the width of the intervals (the test's power), not that error probability. Err at
# N = 2^20 is >= 0.013 in every configuration but (α, ε) = (0.5, 4), where it is 0.00098 (exact
# tree law) and the second term alone, 89/M, needs M ≈ 6·10^5 to keep the slope interval inside
# ±20% (seeded: [0.466, 0.540] at 6·10^5; at 3·10^5 it reaches 0.587 > 0.583). Elsewhere M = 6·10^4 leaves slope intervals at most 0.051 wide (seeded runs), at least 8%
# of the secant slope inside the tolerance on both sides.
MC_RUNS = 60_000
MC_RUNS_SMALL_ERROR = {(0.5, 4.0): 600_000}
MC_DELTA = 1e-8


def guideline_slope(alpha: float, k: int, n0: int, n1: int) -> float:
    """Secant slope of −log₂((ln^k N/N)^{1/(2α)}) per doubling of N between 2^n0 and 2^n1."""
    return (1 - k * math.log2(n1 / n0) / (n1 - n0)) / (2 * alpha)


def error_interval_exact(name: str, n_exp: int, eps: float, alpha: float) -> tuple[float, float]:
    """[lower, upper] on max over x_min of Err, by the pruned float tree law."""
    n = 2**n_exp
    s = schedule(name, n, eps)
    rule = round_rule(n, s.levels, s.gamma, epsilon=eps)
    lo, hi = 0.0, 0.0
    for x_min in X_MINS:
        data = beta_fixed_data(n, alpha, 1.0, x_min, WIDTH)
        law = leaf_probabilities(data, rule)
        kept = law.mean_absolute_error(float(data[0]))
        lo, hi = max(lo, kept * (1 - 1e-9)), max(hi, kept * (1 + 1e-9) + 2 * law.pruned)
    return lo, hi


def error_interval_mc(
    name: str, n_exp: int, eps: float, alpha: float, rng: np.random.Generator
) -> tuple[float, float]:
    """[lower, upper] on max over x_min of Err, by the binomial sampler (empirical Bernstein)."""
    n = 2**n_exp
    s = schedule(name, n, eps)
    rule = round_rule(n, s.levels, s.gamma, epsilon=eps)
    log_term = math.log(2 / MC_DELTA)
    runs = MC_RUNS_SMALL_ERROR.get((alpha, eps), MC_RUNS)
    lo, hi = 0.0, 0.0
    for x_min in X_MINS:
        data = beta_fixed_data(n, alpha, 1.0, x_min, WIDTH)
        err = np.abs(sample_binomial(data, rule, runs, rng) - data[0])
        mean, var = float(err.mean()), float(err.var(ddof=1))
        half = math.sqrt(2 * var * log_term / runs) + 14 * log_term / (3 * (runs - 1))
        lo, hi = max(lo, mean - half), max(hi, mean + half)
    return lo, hi


def assert_slope_within_tolerance(
    small: tuple[float, float], large: tuple[float, float], n0: int, n1: int, theory: float
) -> tuple[float, float]:
    """The slope interval [log₂(lo₀/hi₁), log₂(hi₀/lo₁)]/(n1 − n0) lies in theory·[0.8, 1.2]."""
    assert small[0] > 0 and large[0] > 0
    slope_lo = math.log2(small[0] / large[1]) / (n1 - n0)
    slope_hi = math.log2(small[1] / large[0]) / (n1 - n0)
    assert (1 - TOLERANCE) * theory <= slope_lo, (slope_lo, slope_hi, theory)
    assert slope_hi <= (1 + TOLERANCE) * theory, (slope_lo, slope_hi, theory)
    return slope_lo, slope_hi


# ------------------------------------------------------------------------------- CI smoke test

# reference values (notes), Lower α, Beta(1, 1), Δ = 0.3, worst case over x_min (exact tree law, 4 digits)
REF_WORST_ERR = {1.0: {12: 0.1701, 16: 0.0648}, 4.0: {12: 0.0518, 16: 0.0182}}


@pytest.mark.parametrize("eps", [1.0, 4.0])
def test_corollary_1_smoke_error_decays_at_the_guideline_rate_for_alpha_1(eps) -> None:
    """Lower α, α = 1, n = 12 → 16 (exact float law): slope within ±20% of the secant 0.344, and
    the two errors match the reference table."""
    small = error_interval_exact("lower_alpha", 12, eps, 1.0)
    large = error_interval_exact("lower_alpha", 16, eps, 1.0)
    for (lo, hi), n_exp in ((small, 12), (large, 16)):
        assert lo - 5e-5 <= REF_WORST_ERR[eps][n_exp] <= hi + 5e-5
    assert_slope_within_tolerance(small, large, 12, 16, guideline_slope(1.0, 3, 12, 16))


# --------------------------------------------------------------------------- slow slope tests


@pytest.mark.slow
@pytest.mark.parametrize("eps", [1.0, 4.0])
@pytest.mark.parametrize("alpha", [1.0, 2.0, 4.0])
def test_corollary_1_error_decays_at_rate_ln3n_over_n_to_the_one_over_two_alpha(alpha, eps) -> None:
    """Lower-α schedule (α >= 1), n = 14 → 20, exact float law. The reference computation measured 0.375–0.39
    (α = 1), 0.19 (α = 2), 0.094–0.096 (α = 4)."""
    small = error_interval_exact("lower_alpha", 14, eps, alpha)
    large = error_interval_exact("lower_alpha", 20, eps, alpha)
    assert_slope_within_tolerance(small, large, 14, 20, guideline_slope(alpha, 3, 14, 20))


@pytest.mark.slow
@pytest.mark.parametrize("eps", [1.0, 4.0])
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 4.0])
def test_corollary_2_error_decays_at_rate_ln6n_over_n_to_the_one_over_two_alpha(alpha, eps) -> None:
    """Unknown-α schedule, n = 14 (exact float law, L = 10) → 20 (binomial sampler, L = 21).
    The reference computation measured 0.24–0.25 (α = 1), 0.12–0.125 (α = 2), 0.060–0.062 (α = 4), 0.48–0.49
    (α = 0.5)."""
    rng = np.random.default_rng(20_190_000 + int(alpha * 10) + int(eps))
    small = error_interval_exact("unknown_alpha", 14, eps, alpha)
    large = error_interval_mc("unknown_alpha", 20, eps, alpha, rng)
    assert_slope_within_tolerance(small, large, 14, 20, guideline_slope(alpha, 6, 14, 20))
