"""The bound of one event from Poissonized counts (dpquant/audit/statistics/poisson_counts.py):
its exact coverage, its gain over the fixed counts' rectangle, the rate of the counted draws and
bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from dpquant.audit.statistics.bounds import expected_bound, samples_needed, selection_score
from dpquant.audit.statistics.poisson_counts import (
    poisson_epsilon_lower_bound,
    poisson_expected_bound,
    poisson_rate,
    poisson_ratio_interval,
    poisson_sizes,
)

CASES = [  # (ln p0/p1, λ·p1): a leak of ε = 1, 0.3 and none; from a handful of counts to many
    (1.0, 2.0),
    (1.0, 40.0),
    (1.0, 400.0),
    (0.3, 25.0),
    (0.3, 900.0),
    (0.0, 150.0),
]


def _spread(mean: float) -> np.ndarray:
    """The Poisson(mean) values outside of which the mass is below 1e-15."""
    lo = int(stats.poisson.ppf(1e-16, mean))
    hi = int(stats.poisson.isf(1e-16, mean)) + 1
    return np.arange(lo, hi + 1)


def _miss_probability(log_ratio: float, mu1: float, alpha: float) -> tuple[float, float]:
    """Pr[bound > ln(p0/p1)] exactly (sum over both counts; a 1e-15 tail on each side left out,
    returned as the second value): for each k1 the bound grows with k0 (more successes, the same
    failures), so the miss is k0 at or above a threshold, which grows with k1."""
    mu0 = mu1 * math.exp(log_ratio)
    k0s, k1s = _spread(mu0), _spread(mu1)
    miss, start = 0.0, k0s[0]
    for k1 in k1s:
        k0 = start
        while k0 <= k0s[-1] and poisson_epsilon_lower_bound(int(k0), int(k1), alpha) <= log_ratio:
            k0 += 1
        start = k0
        miss += stats.poisson.pmf(k1, mu1) * stats.poisson.sf(k0 - 1, mu0)
    return miss, 4e-15


@pytest.mark.parametrize(("log_ratio", "mu1"), CASES)
@pytest.mark.parametrize("alpha", [0.05, 1e-3])
def test_the_conditional_bound_exceeds_the_log_ratio_with_probability_at_most_alpha(
    log_ratio, mu1, alpha
) -> None:
    """Exact coverage over the joint Poisson law of the two counts (module docstring: given
    k0 + k1, k0 is binomial in θ = p0/(p0 + p1)); a Clopper–Pearson bound is conservative, so
    the miss is at most α and, once the counts are in the tens, at least a tenth of it (the
    bound is not vacuous; with a couple of counts on D' the discreteness keeps it far below)."""
    miss, left_out = _miss_probability(log_ratio, mu1, alpha)
    assert miss + left_out <= alpha
    assert miss >= alpha / 10 or mu1 < 10


@pytest.mark.parametrize(("log_ratio", "mu1"), CASES)
def test_the_interval_holds_the_log_ratio_with_probability_at_least_one_minus_alpha(
    log_ratio, mu1
) -> None:
    """Both ends of the two-sided interval at α = 0.02 miss with at most α/2 each (the lower
    end is the one-sided bound at α/2; the upper end by the mirror image: k1 and k0 swapped)."""
    alpha = 0.02
    lower_miss, left_out = _miss_probability(log_ratio, mu1, alpha / 2)
    upper_miss, _ = _miss_probability(-log_ratio, mu1 * math.exp(log_ratio), alpha / 2)
    assert lower_miss + upper_miss + 2 * left_out <= alpha
    lo, hi = poisson_ratio_interval(30, 10, alpha)
    assert lo == poisson_epsilon_lower_bound(30, 10, alpha / 2)
    assert hi == -poisson_epsilon_lower_bound(10, 30, alpha / 2)
    assert poisson_ratio_interval(0, 0, alpha) == (-math.inf, math.inf)
    assert poisson_ratio_interval(5, 0, alpha)[1] == math.inf


@pytest.mark.parametrize(("epsilon", "m"), [(1.0, 0.0285), (1.0, 0.076), (0.5, 0.059)])
def test_at_the_em_medians_best_events_the_rectangle_needs_over_1_5_times_the_draws(
    epsilon, m
) -> None:
    """The exponential-mechanism median's best events (masses e^ε·m/(e^ε·m + 1 − m) against
    m, notes/auditor.md): at 250 000 draws a side and α = 1e-6 the conditional bound at the
    expected counts is above the rectangle's, which needs 1.5 times the draws or more to match
    it."""
    p1 = m
    p0 = math.exp(epsilon) * m / (math.exp(epsilon) * m + 1 - m)
    n, alpha = 250_000, 1e-6
    poisson = poisson_expected_bound(p0, p1, float(n), alpha)
    fixed = float(expected_bound(p0, p1, n, 0.0, alpha))
    assert fixed < poisson < math.log(p0 / p1)
    needed = samples_needed(p0, p1, poisson, 0.0, alpha)
    assert needed is not None and needed >= 1.5 * n


@pytest.mark.parametrize("n", [1, 7, 1_000, 250_000, 2**40])
@pytest.mark.parametrize("tail", [1e-3, 5e-9])
def test_the_rate_is_the_largest_whose_tail_above_n_is_within_tail(n, tail) -> None:
    rate = poisson_rate(n, tail)
    assert 0 < rate <= n
    assert special.pdtrc(n, rate) <= tail
    assert special.pdtrc(n, rate * (1 + 1e-9)) > tail


def test_the_sizes_are_capped_poisson_draws_of_the_rate() -> None:
    """At most n each; the same generator state, the same sizes; over 20 000 seeded pairs at
    n = 30 their law is Poisson(λ) capped at n (χ² on cells of expected count >= 5, at 1e-7)."""
    n, tail = 30, 1e-3
    rate = poisson_rate(n, tail)
    assert poisson_sizes(n, tail, np.random.default_rng(5)) == poisson_sizes(
        n, tail, np.random.default_rng(5)
    )
    rng = np.random.default_rng(2026)
    sizes = np.array([poisson_sizes(n, tail, rng) for _ in range(20_000)]).ravel()
    assert sizes.max() <= n
    expected = stats.poisson.pmf(np.arange(n + 1), rate)
    expected[n] += stats.poisson.sf(n, rate)
    keep = expected * sizes.size >= 5
    observed = np.bincount(sizes, minlength=n + 1)
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum()) * sizes.size
    statistic = float(((obs - exp) ** 2 / exp).sum())
    assert statistic < stats.chi2.isf(1e-7, obs.size - 1)


def test_no_count_on_d_is_no_bound() -> None:
    assert poisson_epsilon_lower_bound(0, 12, 0.05) == -math.inf
    assert poisson_expected_bound(0.0, 0.3, 100.0, 0.05) == -math.inf
    assert poisson_epsilon_lower_bound(12, 0, 0.05) > 0


def test_an_expected_total_below_one_count_promises_no_bound() -> None:
    """Below one expected count in all (λ·(p0 + p1) < 1) there is no bound at the expected counts
    (a planning value, never an error: a tiny budget's event); from one count on there is one."""
    assert poisson_expected_bound(0.3, 0.1, 2.0, 0.05) == -math.inf
    assert poisson_expected_bound(0.9, 0.0, 2.0, 0.05) > -math.inf


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: poisson_epsilon_lower_bound(-1, 3, 0.05), "k0"),
        (lambda: poisson_epsilon_lower_bound(3, 2.5, 0.05), "k1"),
        (lambda: poisson_epsilon_lower_bound(True, 3, 0.05), "k0"),
        (lambda: poisson_epsilon_lower_bound(3, 3, 0.0), "alpha"),
        (lambda: poisson_epsilon_lower_bound(3, 3, float("nan")), "alpha"),
        (lambda: poisson_ratio_interval(3, 2**41, 0.05), "k1"),
        (lambda: poisson_rate(0, 0.1), "n"),
        (lambda: poisson_sizes(10, 0.1, 42), "rng"),
        (lambda: poisson_sizes(10, 0.0, np.random.default_rng(0)), "tail"),
        (lambda: poisson_rate(10, 1.0), "tail"),
        (lambda: poisson_expected_bound(1.5, 0.1, 10.0, 0.05), "p0"),
        (lambda: poisson_expected_bound(0.5, 0.1, float("inf"), 0.05), "rate"),
        (lambda: poisson_expected_bound(0.5, 0.1, True, 0.05), "rate"),
        (lambda: poisson_expected_bound(0.5, 0.1, "10", 0.05), "rate"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(call, name) -> None:
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize(("epsilon", "m"), [(1.0, 0.0285), (1.0, 0.2), (0.5, 0.059)])
def test_the_poisson_selection_score_is_the_planned_bound_up_to_the_normal_approximation(
    epsilon, m
) -> None:
    """Without the selection's penalty (z = 0, as the cross-fitted screens score on held-out
    draws) and at counts equal to their means, the score ranks an event by the conditional bound
    of its evaluation (a Wilson bound of θ in place of Clopper–Pearson's: within 0.01 here),
    above the fixed counts' score."""
    p1 = m
    p0 = math.exp(epsilon) * m / (math.exp(epsilon) * m + 1 - m)
    n_sel, n_eval, alpha = 10**9, 250_000, 1e-6
    k0, k1 = np.array([round(p0 * n_sel)]), np.array([round(p1 * n_sel)])
    poisson = selection_score(k0, n_sel, k1, n_sel, n_eval, 0.0, alpha, 0.0, poisson=True)
    fixed = selection_score(k0, n_sel, k1, n_sel, n_eval, 0.0, alpha, 0.0)
    planned = poisson_expected_bound(p0, p1, float(n_eval), alpha)
    assert abs(float(poisson[0]) - planned) < 0.01
    assert float(poisson[0]) > float(fixed[0])


def test_the_poisson_selection_score_takes_pure_claims_only() -> None:
    k = np.array([30])
    with pytest.raises(ValueError, match="delta"):
        selection_score(k, 100, k, 100, 1000, 1e-6, 0.05, 2.0, poisson=True)
    with pytest.raises(ValueError, match="poisson"):
        selection_score(k, 100, k, 100, 1000, 0.0, 0.05, 2.0, poisson="yes")
    none = selection_score(np.array([0]), 100, k, 100, 1000, 0.0, 0.05, 2.0, poisson=True)
    assert none[0] == -math.inf
