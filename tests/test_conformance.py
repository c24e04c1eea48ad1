"""The conformance helper: sound thresholds, power against wrong samplers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from reference.conformance import (
    atom_test,
    check_sampler,
    clopper_pearson,
    dkw_test,
    dkw_threshold,
    ks_statistic,
)
from reference.distributions import DiscreteLaw, PiecewiseLogLinear, ProductLaw


def test_dkw_threshold_solves_the_massart_bound() -> None:
    t = dkw_threshold(10_000, 1e-7)
    assert 2 * math.exp(-2 * 10_000 * t * t) == pytest.approx(1e-7, rel=1e-12)


@pytest.mark.parametrize("k, n", [(0, 50), (3, 50), (50, 50), (17, 1000)])
def test_clopper_pearson_matches_scipy_exact_interval(k, n) -> None:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.99, method="exact")
    lo, hi = clopper_pearson(k, n, 0.01)
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


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
