"""dpquant.audit.statistics.bounds: the ε lower bound (on dpquant.reference.conformance's Clopper–Pearson bounds),
planning and selection objectives.

The soundness checks are exact, not simulated: for binomial counts the probability that the bound
exceeds the true ε is a finite sum of binomial masses, computed with scipy.stats.binom. (The
Clopper–Pearson interval itself is tested with dpquant.reference.conformance, in tests/reference/test_conformance.py.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpquant.audit.statistics.bounds import (
    epsilon_lower_bound,
    event_ratio_interval,
    expected_bound,
    samples_needed,
    selection_score,
    wilson_bound,
)
from dpquant.reference.conformance import clopper_pearson

# ---------------------------------------------------------------------------------------------
# The ε lower bound
# ---------------------------------------------------------------------------------------------


def _exceedance_probability(
    bound: np.ndarray, n: int, p0: float, p1: float, epsilon: float
) -> float:
    """Exact P(ε_lb(K0, n, K1, n) > ε) for independent K0 ~ Bin(n, p0), K1 ~ Bin(n, p1), where
    ``bound[k0, k1]`` is ε_lb(k0, n, k1, n)."""
    k = np.arange(n + 1)
    joint = np.outer(stats.binom.pmf(k, n, p0), stats.binom.pmf(k, n, p1))
    return float(joint[bound > epsilon].sum())


@pytest.mark.parametrize(
    "n, epsilon, delta, alpha",
    [
        (30, 1.0, 0.0, 0.1),
        (45, 0.5, 0.0, 0.3),
        (60, 2.0, 0.0, 0.05),
        (40, 1.0, 0.05, 0.2),
        (60, 0.25, 0.1, 0.3),
    ],
)
def test_epsilon_lower_bound_exceeds_the_true_epsilon_with_probability_at_most_alpha(
    n, epsilon, delta, alpha
) -> None:
    """At the boundary p0 = e^ε p1 + δ of an (ε, δ)-DP pair the bound is sound (exact sum)."""
    k = np.arange(n + 1)
    bound = epsilon_lower_bound(k[:, None], n, k[None, :], n, delta, alpha)
    top = (1.0 - delta) / math.exp(epsilon)
    worst = 0.0
    for p1 in np.linspace(0.002, top * 0.999, 40):
        p0 = math.exp(epsilon) * p1 + delta
        worst = max(worst, _exceedance_probability(bound, n, p0, p1, epsilon))
    assert worst <= alpha
    assert worst > 0.01 * alpha  # the sum is not vacuous: the bound does reach ε sometimes


counts = st.integers(min_value=1, max_value=400).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n - 1))
)


@given(counts, counts, st.sampled_from([0.0, 1e-3, 0.05]), st.sampled_from([1e-6, 0.01, 0.3]))
def test_epsilon_lower_bound_increases_with_k0_and_decreases_with_k1(a, b, delta, alpha) -> None:
    (n0, k0), (n1, k1) = a, b
    here = float(epsilon_lower_bound(k0, n0, k1, n1, delta, alpha))
    assert float(epsilon_lower_bound(k0 + 1, n0, k1, n1, delta, alpha)) >= here
    assert float(epsilon_lower_bound(k0, n0, k1 + 1, n1, delta, alpha)) <= here
    if here > -math.inf:
        assert float(epsilon_lower_bound(k0 + 1, n0, k1, n1, delta, alpha)) > here
        assert float(epsilon_lower_bound(k0, n0, k1 + 1, n1, delta, alpha)) < here


def test_epsilon_lower_bound_is_the_log_ratio_of_the_clopper_pearson_ends() -> None:
    """ln((p0_L − δ)/p1_U) with p0_L the lower end of the (1 − α) interval of k0/n0 and p1_U the
    upper end of that of k1/n1 (each one-sided at α/2)."""
    for k0, n0, k1, n1, delta, alpha in [(80, 100, 20, 100, 0.0, 1e-3), (7, 9, 0, 12, 0.05, 0.2)]:
        p0_lower, _ = clopper_pearson(k0, n0, alpha)
        _, p1_upper = clopper_pearson(k1, n1, alpha)
        got = float(epsilon_lower_bound(k0, n0, k1, n1, delta, alpha))
        assert got == pytest.approx(math.log((p0_lower - delta) / p1_upper), rel=1e-12)


def test_epsilon_lower_bound_is_minus_infinity_when_p0_lower_bound_is_at_most_delta() -> None:
    assert epsilon_lower_bound(0, 100, 0, 100, 0.0, 1e-3) == -math.inf
    p0_lower, _ = clopper_pearson(50, 100, 1e-3)
    assert epsilon_lower_bound(50, 100, 0, 100, p0_lower + 1e-6, 1e-3) == -math.inf
    assert np.isfinite(epsilon_lower_bound(50, 100, 0, 100, p0_lower - 1e-3, 1e-3))


def test_epsilon_lower_bound_rejects_alpha_outside_zero_one() -> None:
    for alpha in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(ValueError):
            epsilon_lower_bound(5, 10, 1, 10, 0.0, alpha)


# ---------------------------------------------------------------------------------------------
# Planning: expected bound and samples needed
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p0, p1, delta", [(0.3, 0.1, 0.0), (0.05, 0.001, 0.0), (0.6, 0.2, 0.1)])
def test_expected_bound_increases_with_n_towards_the_true_log_ratio(p0, p1, delta) -> None:
    ns = [10, 30, 100, 300, 1000, 10**4, 10**5, 10**6, 10**7]
    values = [float(expected_bound(p0, p1, n, delta, 1e-6)) for n in ns]
    finite = [v for v in values if v > -math.inf]
    assert len(finite) >= 5
    assert all(b > a for a, b in zip(finite, finite[1:], strict=False))
    truth = math.log((p0 - delta) / p1)
    assert finite[-1] < truth
    assert finite[-1] > truth - 0.1


@pytest.mark.parametrize(
    "p0, p1, epsilon, delta, alpha",
    [
        (0.3, 0.1, 0.8, 0.0, 1e-6),
        (0.02, 0.001, 1.5, 0.0, 1e-6),
        (0.5, 0.05, 1.0, 0.1, 1e-3),
        (0.9, 0.35, 0.5, 0.0, 1e-9),
        (1.0, 0.0, 3.0, 0.0, 1e-6),
    ],
)
def test_samples_needed_is_the_smallest_n_whose_expected_bound_exceeds_the_target(
    p0, p1, epsilon, delta, alpha
) -> None:
    n = samples_needed(p0, p1, epsilon, delta, alpha)
    assert n is not None
    assert float(expected_bound(p0, p1, n, delta, alpha)) > epsilon
    below = int(n * (1 - 1e-3)) - 1  # the bisection stops within 0.1 %
    assert below >= 1
    assert float(expected_bound(p0, p1, below, delta, alpha)) <= epsilon


def test_samples_needed_is_one_when_a_single_draw_suffices() -> None:
    assert float(expected_bound(0.9, 0.05, 1, 0.0, 0.5)) > -5.0
    assert samples_needed(0.9, 0.05, -5.0, 0.0, 0.5) == 1


@pytest.mark.parametrize(
    "p0, p1, epsilon, delta",
    [(0.2, 0.1, 0.8, 0.0), (0.3, 0.1, 0.8, 0.1), (0.1, 0.1, 0.01, 0.0), (0.05, 0.2, 0.0, 0.0)],
)
def test_samples_needed_is_none_when_the_true_log_ratio_is_below_the_target(
    p0, p1, epsilon, delta
) -> None:
    assert math.log((p0 - delta) / p1) < epsilon
    assert samples_needed(p0, p1, epsilon, delta, 1e-6) is None


def test_samples_needed_is_none_when_the_limit_is_too_small() -> None:
    n = samples_needed(0.3, 0.1, 0.8, 0.0, 1e-6)
    assert samples_needed(0.3, 0.1, 0.8, 0.0, 1e-6, limit=n // 2) is None
    assert samples_needed(0.3, 0.1, 0.8, 0.0, 1e-6, limit=2 * n) == n


# ---------------------------------------------------------------------------------------------
# Selection score and the event interval
# ---------------------------------------------------------------------------------------------


def test_selection_score_is_minus_infinity_when_the_p0_bound_is_at_most_delta() -> None:
    k0 = np.array([0, 1, 3, 200, 200])
    k1 = np.array([0, 0, 0, 10, 10])
    deltas = [0.0, 0.05]
    for delta in deltas:
        score = selection_score(k0, 1000, k1, 1000, 10_000, delta, 1e-6)
        assert score[0] == -math.inf  # nothing seen on D
        assert np.isfinite(score[3])
    # a δ above the pessimistic p0 bound leaves nothing to detect
    assert selection_score(k0[3:4], 1000, k1[3:4], 1000, 10_000, 0.2, 1e-6)[0] == -math.inf
    # the pessimistic p0 bound of 3/1000 is below δ = 0.05
    assert selection_score(k0[2:3], 1000, k1[2:3], 1000, 10_000, 0.05, 1e-6)[0] == -math.inf


def test_selection_score_is_below_the_plug_in_log_ratio_and_prefers_more_evidence() -> None:
    few = float(selection_score(np.array([6]), 20, np.array([2]), 20, 10_000, 0.0, 1e-6)[0])
    many = float(
        selection_score(np.array([300]), 1000, np.array([100]), 1000, 10_000, 0.0, 1e-6)[0]
    )
    assert few < many < math.log(3.0)


def test_event_ratio_interval_contains_the_true_log_ratio() -> None:
    """Counts at their means for p0 = 0.3, p1 = 0.1 (true log ratio ln 3)."""
    lo, hi = event_ratio_interval(3000, 10_000, 1000, 10_000, 1e-6)
    assert lo < math.log(3.0) < hi
    assert hi - lo < 0.5
    # with no draw of D' in the event the ratio is unbounded above
    lo0, hi0 = event_ratio_interval(30, 100, 0, 100, 1e-6)
    assert hi0 == math.inf and lo0 > -math.inf


@given(counts, counts, st.sampled_from([1e-9, 1e-3, 0.2]))
def test_event_ratio_interval_lower_end_is_at_most_upper_end(a, b, alpha) -> None:
    (n0, k0), (n1, k1) = a, b
    lo, hi = event_ratio_interval(k0, n0, k1, n1, alpha)
    assert lo <= hi
    if k0 > 0 and k1 > 0:
        assert lo <= math.log((k0 / n0) / (k1 / n1)) <= hi


# ---------------------------------------------------------------------------------------------
# Issue 18: every function checks its inputs (ValueError naming the parameter)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: epsilon_lower_bound(-1, 10, 1, 10, 0.0, 0.05), "k0"),
        (lambda: epsilon_lower_bound(11, 10, 1, 10, 0.0, 0.05), "k0 must be <= n0"),
        (lambda: epsilon_lower_bound(math.nan, 10, 1, 10, 0.0, 0.05), "k0"),
        (lambda: epsilon_lower_bound("3", 10, 1, 10, 0.0, 0.05), "k0"),
        (lambda: epsilon_lower_bound(3, 0, 1, 10, 0.0, 0.05), "n0"),
        (lambda: epsilon_lower_bound(3, 10, 1, 2**60, 0.0, 0.05), "n1"),
        (
            lambda: epsilon_lower_bound([1, 2], [3, 4, 5], 1, 10, 0.0, 0.05),
            "k0 and n0 must broadcast",
        ),
        (lambda: epsilon_lower_bound(3, 10, 1, 10, 0.0, 0.0), "alpha"),
        (lambda: epsilon_lower_bound(3, 10, 1, 10, 0.0, math.nan), "alpha"),
        (lambda: epsilon_lower_bound(5, 10, 1, 10, math.nan, 0.05), "delta"),
        (lambda: epsilon_lower_bound(5, 10, 1, 10, 1.0, 0.05), "delta"),
        (lambda: epsilon_lower_bound(5, 10, 1, 10, 0.0, 1.0), "alpha"),
        (lambda: epsilon_lower_bound(5, 10, 11, 10, 0.0, 0.05), "k1"),
        (lambda: epsilon_lower_bound([5, 6], 10, [1, 2, 3], 10, 0.0, 0.05), "broadcast"),
        (lambda: event_ratio_interval(5, 10, 1, None, 0.05), "n1"),
        (lambda: event_ratio_interval([5, 6], 10, 1, 10, 0.05), "k0 must be a single number"),
        (lambda: expected_bound(1.5, 0.1, 100, 0.0, 0.05), "p0"),
        (lambda: expected_bound(0.5, math.nan, 100, 0.0, 0.05), "p1"),
        (lambda: expected_bound(0.5, 0.1, 100.0, 0.0, 0.05), "n"),
        (lambda: expected_bound(0.5, 0.1, 0, 0.0, 0.05), "n"),
        (lambda: samples_needed(0.5, 0.1, math.nan, 0.0, 0.05), "epsilon"),
        (lambda: samples_needed(0.5, 0.1, 1.0, 0.0, 0.05, limit=2.0), "limit"),
        (lambda: samples_needed(0.5, 0.1, 1.0, 0.0, 0.05, limit=10**400), "limit"),
        (lambda: wilson_bound(np.array([0.5]), 10, -1.0, True), "z"),
        (lambda: wilson_bound(np.array([0.5]), 10, 1e308, True), "z"),
        (lambda: wilson_bound(np.array([0.5]), 10, 2.0, "yes"), "upper"),
        (lambda: wilson_bound(np.array([1.5]), 10, 2.0, True), "p"),
        (lambda: selection_score([1], 10, [1], 10, 0, 0.0, 0.05), "n_eval"),
        (lambda: selection_score([1], 10, [1], 10, 100, 0.0, 0.05, math.inf), "z_selection"),
        (lambda: selection_score([1, 2], 10, [1, 2, 3], 10, 100, 0.0, 0.05), "broadcast"),
    ],
)
def test_statistics_refuse_bad_input_naming_the_parameter(call, name) -> None:
    with pytest.raises(ValueError, match=name):
        call()


def test_statistics_accept_numpy_and_fractional_counts_unchanged() -> None:
    k = np.arange(11)
    np.testing.assert_array_equal(
        epsilon_lower_bound(k, np.int64(10), 1, 10, 0.0, 0.01),
        epsilon_lower_bound(k, 10, 1, 10, 0.0, 0.01),
    )
    # expected counts (p·n) are fractional: the planning objective takes them as they are
    assert np.isfinite(expected_bound(np.array([0.3, 0.5]), 0.1, 1000, 0.0, 1e-6)).all()
    # a level so small that 1 − α/2 rounds to 1 still gives a finite selection quantile
    assert not np.isnan(selection_score([5], 10, [1], 10, 1000, 0.0, 5e-324)).any()
    # never +inf: a float p1_U of 0 would claim an infinite ε
    assert epsilon_lower_bound(10, 10, 0, 2**40, 0.0, 1e-3) < math.inf


def test_an_alpha_whose_halves_underflow_gives_no_bound_rather_than_an_error() -> None:
    """α = 5e-324: α/2 and α/4 round to 0, where Clopper–Pearson has no level; the bound is
    then the trivial one (sound: nothing is claimed)."""
    tiny = 5e-324
    assert epsilon_lower_bound(10, 10, 0, 10, 0.0, tiny) == -math.inf
    assert event_ratio_interval(10, 10, 0, 10, tiny) == (-math.inf, math.inf)
    assert expected_bound(1.0, 0.0, 1000, 0.0, tiny) == -math.inf
    assert samples_needed(1.0, 0.0, 1.0, 0.0, tiny, limit=10**6) is None
