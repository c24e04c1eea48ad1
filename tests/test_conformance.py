"""The conformance helper: sound thresholds, power against wrong samplers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from reference.conformance import atom_test, clopper_pearson, dkw_test, dkw_threshold


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
