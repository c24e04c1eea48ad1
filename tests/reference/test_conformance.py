"""The conformance helper: sound thresholds, power against wrong samplers."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpquant.reference.conformance import (
    atom_test,
    check_sampler,
    clopper_pearson,
    clopper_pearson_lower,
    clopper_pearson_upper,
    dkw_test,
    dkw_threshold,
    ks_statistic,
)
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear, ProductLaw


def test_dkw_threshold_solves_the_massart_bound() -> None:
    t = dkw_threshold(10_000, 1e-7)
    assert 2 * math.exp(-2 * 10_000 * t * t) == pytest.approx(1e-7, rel=1e-12)


@pytest.mark.parametrize("k, n", [(0, 50), (3, 50), (50, 50), (17, 1000)])
def test_clopper_pearson_matches_scipy_exact_interval(k, n) -> None:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.99, method="exact")
    lo, hi = clopper_pearson(k, n, 0.01)
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize("n", [1, 7, 50, 1000])
@pytest.mark.parametrize("level", [1e-9, 1e-3, 0.3])
def test_one_sided_clopper_pearson_bounds_are_the_beta_quantiles(n, level) -> None:
    k = np.arange(n + 1)
    lo, hi = clopper_pearson_lower(k, n, level), clopper_pearson_upper(k, n, level)
    inner = k[(k > 0) & (k < n)]
    np.testing.assert_allclose(lo[inner], stats.beta.ppf(level, inner, n - inner + 1), rtol=1e-10)
    np.testing.assert_allclose(hi[inner], stats.beta.isf(level, inner + 1, n - inner), rtol=1e-10)
    assert lo[0] == 0.0 and hi[n] == 1.0
    assert lo[n] == pytest.approx(level ** (1 / n), rel=1e-10)
    assert hi[0] == pytest.approx(-math.expm1(math.log(level) / n), rel=1e-10)


def _binomial_cdf(n: int, k: int, x: float) -> mpmath.mpf:
    """P(Bin(n, x) <= k), exactly at 60 digits."""
    with mpmath.workdps(60):
        p = mpmath.mpf(x)
        return mpmath.fsum(mpmath.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


@pytest.mark.parametrize("n, k, level", [(2**50, 0, 1e-6), (2**52, 5, 1e-12), (2**45, 1000, 1e-7)])
def test_clopper_pearson_bounds_keep_twelve_digits_at_huge_n(n, k, level) -> None:
    """The exact bounds (roots of the binomial tails, found here in mpmath) lie within 1e-12
    relative of the returned floats, although the upper bound is ~1e-13 (computing it as 1 − x
    would keep about 3 digits)."""
    r = 1e-12
    upper = float(clopper_pearson_upper(k, n, level))  # P(Bin(n, p) <= k) = level at p = upper
    assert _binomial_cdf(n, k, upper * (1 - r)) > level > _binomial_cdf(n, k, upper * (1 + r))
    lower = float(clopper_pearson_lower(k + 1, n, level))  # P(Bin(n, p) >= k + 1) = level
    below, above = _binomial_cdf(n, k, lower * (1 - r)), _binomial_cdf(n, k, lower * (1 + r))
    assert 1 - below < level < 1 - above


@pytest.mark.parametrize("k, n", [(9, 10), (1, 10), (8, 10), (3, 2**40)])
def test_clopper_pearson_bounds_at_levels_far_below_1e_200_are_finite_and_exact(k, n) -> None:
    """scipy's inverses give NaN at such levels for some shapes: the bounds still solve their
    equations (the binomial tails, exactly in mpmath, equal the level to 1e-10)."""
    level = 1e-300
    lower = float(clopper_pearson_lower(k, n, level))
    upper = float(clopper_pearson_upper(k, n, level))
    assert 0.0 < lower < upper <= 1.0
    with mpmath.workdps(60):  # P(Bin(n, lower) >= k) = I_lower(k, n − k + 1)
        tail = mpmath.betainc(k, n - k + 1, 0, mpmath.mpf(lower), regularized=True)
        assert abs(tail / level - 1) < 1e-10
    if upper < 1.0:  # else the bound is within a float spacing of 1
        assert abs(_binomial_cdf(n, k, upper) / level - 1) < 1e-10
    lo, hi = clopper_pearson(k, n, 2 * level)
    assert (lo, hi) == (lower, upper)


def _binomial_pmf(n: int, p: mpmath.mpf) -> list[mpmath.mpf]:
    """P_p(K = k) for k = 0..n, K ~ Binomial(n, p), in the working precision: exact binomial
    coefficients and the powers of p and 1 − p built once for all k."""
    powers_p, powers_q = [mpmath.mpf(1)], [mpmath.mpf(1)]
    for _ in range(n):
        powers_p.append(powers_p[-1] * p)
        powers_q.append(powers_q[-1] * (1 - p))
    return [math.comb(n, k) * powers_p[k] * powers_q[n - k] for k in range(n + 1)]


def _miss_probability(pmf: list[mpmath.mpf], misses: list[int]) -> mpmath.mpf:
    """P_p(K in misses), from the binomial masses ``pmf`` (:func:`_binomial_pmf`)."""
    return mpmath.fsum(pmf[k] for k in misses)


@pytest.mark.parametrize("n", [1, 7, 30, 120])
@pytest.mark.parametrize("level", [0.2, 0.025, 1e-4])
def test_one_sided_bounds_miss_with_probability_at_most_level_and_nearly_attain_it(
    n: int, level: float
) -> None:
    """Exact binomial sums: for every p, P_p(lower > p) <= level and P_p(upper < p) <= level;
    just past a bound value the miss probability comes within a factor 2 of level, so the bounds
    are not loose."""
    ks = np.arange(n + 1)
    lower = clopper_pearson_lower(ks, n, level)
    upper = clopper_pearson_upper(ks, n, level)
    with mpmath.workdps(50):
        # the bounds as mpf once (exact: a float is an mpf), so each comparison below is one
        lower_mp = [mpmath.mpf(x) for x in lower.tolist()]
        upper_mp = [mpmath.mpf(x) for x in upper.tolist()]
        worst_lower = worst_upper = mpmath.mpf(0)
        for b in sorted(set(lower.tolist()) | set(upper.tolist())):
            nudge = mpmath.mpf(2) ** -30
            for p in (mpmath.mpf(b) * (1 - nudge), mpmath.mpf(b), mpmath.mpf(b) * (1 + nudge)):
                if not 0 < p < 1:
                    continue
                pmf = _binomial_pmf(n, p)
                miss_l = _miss_probability(pmf, [int(k) for k in ks if lower_mp[k] > p])
                miss_u = _miss_probability(pmf, [int(k) for k in ks if upper_mp[k] < p])
                assert miss_l <= level * (1 + 1e-9) and miss_u <= level * (1 + 1e-9)
                worst_lower, worst_upper = max(worst_lower, miss_l), max(worst_upper, miss_u)
    assert worst_lower > level / 2 and worst_upper > level / 2


def test_one_sided_bounds_take_expected_counts_and_broadcast() -> None:
    """Real counts (n·p) give the bound of that count; arrays broadcast against a scalar n."""
    k = np.array([2.5, 3.0])
    lo = clopper_pearson_lower(k, 10, 0.05)
    assert lo.shape == (2,) and lo[0] < lo[1]
    assert lo[1] == pytest.approx(stats.beta.ppf(0.05, 3, 8), rel=1e-12)
    assert clopper_pearson(3, 10, 0.1) == (
        float(clopper_pearson_lower(3, 10, 0.05)),
        float(clopper_pearson_upper(3, 10, 0.05)),
    )


@pytest.mark.parametrize(
    "k, n, level, match",
    [
        (-1, 10, 0.05, "k must be >= 0"),
        (11, 10, 0.05, "k must be <= n"),
        (math.nan, 10, 0.05, "k"),
        ("3", 10, 0.05, "k"),
        (3, 0, 0.05, "n"),
        (3, 2**60, 0.05, "n"),
        ([1, 2], [3, 4, 5], 0.05, "k and n must broadcast"),
        (3, 10, 0.0, "level"),
        (3, 10, math.nan, "level"),
    ],
)
def test_one_sided_clopper_pearson_checks_its_arguments(k, n, level, match) -> None:
    for bound in (clopper_pearson_lower, clopper_pearson_upper):
        with pytest.raises(ValueError, match=match):
            bound(k, n, level)


def test_dkw_accepts_a_correct_sampler_and_rejects_a_shifted_one(rng) -> None:
    cdf = stats.norm.cdf
    assert dkw_test(rng.normal(size=100_000), cdf).passed
    # shift 0.05: sup gap ≈ 0.02 > 2.5× the threshold 0.0078
    assert not dkw_test(rng.normal(0.05, 1.0, size=100_000), cdf).passed


def test_dkw_rejects_non_finite_samples() -> None:
    assert not dkw_test(np.array([0.1, np.nan]), stats.uniform.cdf).passed


def test_atom_test_counts_unlisted_values_as_other(rng) -> None:
    probs = {0: 0.5, 1: 0.5}
    assert atom_test(rng.integers(0, 2, 20_000), probs).passed
    polluted = np.concatenate([rng.integers(0, 2, 20_000), np.full(200, 7)])
    result = atom_test(polluted, probs)
    assert not result.passed and "<other>" in result.detail


def test_false_alarm_rate_is_below_alpha_on_repeated_correct_runs() -> None:
    """With alpha = 1e-2, 300 seeded runs of a correct sampler fail rarely: the failures are at
    most Binomial(300, 0.01) (mean 3) and P(>= 16) = 9.5e-8 < 1e-6."""
    failures = sum(
        not dkw_test(np.random.default_rng(s).random(2_000), stats.uniform.cdf, alpha=1e-2).passed
        for s in range(300)
    )
    assert failures < 16


@pytest.mark.parametrize("alpha", [0.0, 1.0, math.nan, -1.0])
def test_bad_alpha_raises(alpha) -> None:
    with pytest.raises(ValueError, match="alpha"):
        dkw_test(np.array([0.5]), stats.uniform.cdf, alpha=alpha)
    with pytest.raises(ValueError, match="alpha"):
        atom_test(np.array([0]), {0: 1.0}, alpha=alpha)


def test_empty_samples_raise() -> None:
    with pytest.raises(ValueError, match="samples"):
        dkw_test(np.array([]), stats.uniform.cdf)


# --------------------------------------------------------------------------------------------
# Issue 18: the conformance tests check their inputs
# --------------------------------------------------------------------------------------------


def test_atom_test_refuses_a_nan_probability() -> None:
    """Issue 18: atom_test(..., {0.0: nan}).passed was True."""
    samples = np.zeros(100)
    for probs, match in (
        ({0.0: math.nan}, r"probabilities\[0.0\] must lie in \[0, 1\]"),
        ({0.0: -0.1}, "must lie in"),
        ({0.0: math.inf}, "must lie in"),
        ({0.0: 1.5}, "must lie in"),
        ({0.0: "0.5"}, "must be a real number"),
        ({0.0: True}, "must be a real number"),
        ({0.0: 10**400}, "must lie in"),
        ({math.nan: 0.5}, "NaN as an atom"),
        ({0: 0.6, 1: 0.6}, "sum to at most 1"),
        ([(0.0, 1.0)], "mapping"),
    ):
        with pytest.raises(ValueError, match=match):
            atom_test(samples, probs)


@pytest.mark.parametrize(
    "k, n, alpha, name",
    [
        (-1, 10, 0.05, "k"),
        (11, 10, 0.05, "k"),
        (1.0, 10, 0.05, "k"),
        (True, 10, 0.05, "k"),
        (0, 0, 0.05, "n"),
        (0, 2**60, 0.05, "n"),
        (0, "10", 0.05, "n"),
        (1, 10, 0.0, "alpha"),
        (1, 10, math.nan, "alpha"),
        (1, 10, "0.05", "alpha"),
    ],
)
def test_clopper_pearson_checks_its_arguments(k, n, alpha, name) -> None:
    with pytest.raises(ValueError, match=name):
        clopper_pearson(k, n, alpha)


def test_check_sampler_checks_the_law_the_samples_and_alpha() -> None:
    law = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    discrete = DiscreteLaw([0, 1], [0.0, 0.0])
    product = ProductLaw([law, law])
    good = np.random.default_rng(0).random(200)
    for bad_law in (None, 0.5, "law", stats.norm, [law]):
        with pytest.raises(ValueError, match="law must be"):
            check_sampler(bad_law, good)
    for samples, match in (
        (["0.5", "0.7"], "samples"),
        ([True, False], "samples"),
        (np.array([0.5 + 1j]), "samples"),
        ([[0.1, 0.2], [0.3]], "samples"),
        (np.zeros((3, 2)), "samples must have shape"),
        ([], "samples must be non-empty"),
        (None, "samples"),
        ("0.5", "samples"),
    ):
        with pytest.raises(ValueError, match=match):
            check_sampler(law, samples)
    with pytest.raises(ValueError, match=r"shape \(n, 2\) for law"):
        check_sampler(product, good)
    with pytest.raises(ValueError, match="samples"):
        check_sampler(discrete, ["0", "1"])
    for alpha in (0.0, 1.0, math.nan, "0.1", None):
        with pytest.raises(ValueError, match="alpha"):
            check_sampler(law, good, alpha)
    # draws that are NaN or infinite do not conform: a failed result, never a pass
    assert not check_sampler(law, np.append(good, np.nan)).passed
    assert not check_sampler(law, np.append(good, np.inf)).passed
    assert not check_sampler(discrete, np.append(np.zeros(50), np.nan)).passed
    assert not check_sampler(product, np.column_stack([good, np.full(200, np.nan)])).passed
    assert check_sampler(law, good).passed


def test_dkw_and_ks_check_the_cdf_and_the_samples() -> None:
    good = np.random.default_rng(1).random(100)
    for cdf in (None, 0.5, "cdf"):
        with pytest.raises(ValueError, match="cdf must be a callable"):
            dkw_test(good, cdf)
    for cdf in (lambda y: np.full(np.shape(y), np.nan), lambda y: 2 * np.ones(np.shape(y)),
                lambda y: np.zeros(3)):
        with pytest.raises(ValueError, match="cdf must"):
            dkw_test(good, cdf)
    with pytest.raises(ValueError, match="samples must be finite"):
        ks_statistic(np.array([0.1, np.nan]), stats.uniform.cdf)
    for n, alpha, name in ((0, 0.1, "n"), (2.0, 0.1, "n"), (10**400, 0.1, "n"),
                           (10, 1.0, "alpha")):
        with pytest.raises(ValueError, match=name):
            dkw_threshold(n, alpha)
