"""Lemma B.1 (aamand25): the padding reduction from any quantile τ to the median, exactly."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.distributed_quantiles.padding import (
    effective_tau,
    exact_cdf,
    is_exact_approximate_quantile,
    pad_users,
    padded_quantile_guarantee,
    padding_counts,
    quantile_via_median,
)

HALF = Fraction(1, 2)


@st.composite
def datasets(draw, max_n: int = 12, max_b: int = 10):
    """(users, B) with n users in [B]."""
    B = draw(st.integers(2, max_b))
    n = draw(st.integers(2, max_n))
    users = draw(st.lists(st.integers(1, B), min_size=n, max_size=n))
    return np.array(users, dtype=np.int64), B


@st.composite
def integral_taus(draw, n: int):
    """τ = k/n with 1 <= k <= n − 1, so that τn is an integer."""
    return Fraction(draw(st.integers(1, n - 1)), n)


fractions_01 = st.builds(
    lambda num, den: Fraction(num, den), st.integers(1, 999), st.just(1000)
).filter(lambda f: 0 < f < 1)
alphas = st.builds(lambda num: Fraction(num, 1000), st.integers(1, 499))  # (0, 1/2)


def exact_median(users: np.ndarray, B: int, epsilon: float, rng: np.random.Generator) -> int:
    """A trivial exact "median protocol": the largest coin m <= B with F(m) <= 1/2 (else 1).

    F(m) <= 1/2 < F(m + 1) makes m an α-approximate median for every α > 0.
    """
    ok = [m for m in range(1, B + 1) if exact_cdf(users, m) <= HALF]
    return max(ok) if ok else 1


# ------------------------------------------------------------------------- padding counts


@given(st.integers(2, 500), st.data())
def test_padding_counts_are_one_minus_tau_n_ones_and_tau_n_bs_when_tau_n_is_integral(n, data):
    k = data.draw(st.integers(1, n - 1))
    assert padding_counts(n, Fraction(k, n)) == (n - k, k)
    # the float k/n is not exactly k/n, but rounds to the same counts
    assert padding_counts(n, k / n) == (n - k, k)
    assert effective_tau(n, Fraction(k, n)) == Fraction(k, n)


@given(st.integers(1, 500), fractions_01)
def test_rounded_padding_counts_sum_to_n_and_round_tau_n_to_the_nearest_integer(n, tau):
    ones, bs = padding_counts(n, tau)
    assert ones >= 0 and bs >= 0 and ones + bs == n
    assert abs(bs - tau * n) <= HALF
    if abs(bs - tau * n) == HALF:  # ties go up
        assert bs > tau * n
    assert abs(effective_tau(n, tau) - tau) <= Fraction(1, 2 * n)


# ------------------------------------------------------------------------- the CDF identity


@given(datasets(), st.data())
def test_lemma_b1_padded_cdf_is_half_one_minus_tau_plus_half_the_cdf_exactly(data_b, data):
    users, B = data_b
    tau = data.draw(integral_taus(users.size))
    padded = pad_users(users, B, tau)
    assert padded.size == 2 * users.size
    for y in range(1, B):
        assert exact_cdf(padded, y) == (1 - tau) / 2 + exact_cdf(users, y) / 2
    # the identity stops at y = B, where both CDFs are 1 (it would claim 1 − τ/2)
    assert exact_cdf(padded, B) == 1 != (1 - tau) / 2 + exact_cdf(users, B) / 2


@given(datasets(), fractions_01)
def test_padded_cdf_identity_holds_with_the_effective_tau_after_rounding(data_b, tau):
    users, B = data_b
    padded = pad_users(users, B, tau)
    t_eff = effective_tau(users.size, tau)
    assert padded.size == 2 * users.size
    for y in range(1, B):
        assert exact_cdf(padded, y) == (1 - t_eff) / 2 + exact_cdf(users, y) / 2


# ------------------------------------------------------------------------- the implication


@given(datasets(), st.data(), alphas)
def test_lemma_b1_alpha_median_of_padded_data_is_2alpha_quantile(data_b, data, alpha):
    users, B = data_b
    tau = data.draw(integral_taus(users.size))
    padded = pad_users(users, B, tau)
    medians = [m for m in range(1, B + 1) if is_exact_approximate_quantile(padded, m, HALF, alpha)]
    for m in medians:
        assert is_exact_approximate_quantile(users, m, tau, 2 * alpha)
    # α < 1/2: the top coin B is never an α-approximate median of the padded data
    assert B not in medians


@given(datasets(), fractions_01, alphas)
def test_rounded_padding_gives_the_stated_error_bound(data_b, tau, alpha):
    users, B = data_b
    padded = pad_users(users, B, tau)
    guarantee = padded_quantile_guarantee(users.size, tau, alpha)
    assert guarantee <= 2 * alpha + Fraction(1, 2 * users.size)
    for m in range(1, B + 1):
        if is_exact_approximate_quantile(padded, m, HALF, alpha):
            assert is_exact_approximate_quantile(users, m, tau, guarantee)


def test_the_rounding_slack_is_needed_when_tau_n_is_not_an_integer() -> None:
    # n = 1, τ = 7/10: bs = 1, ones = 0, D_P = {1, 2}; coin 1 is an exact median of D_P but
    # F_D(1) = 1 >= τ + 2α for α = 1/10: only the slack |τ' − τ| = 3/10 covers it.
    users, B, tau, alpha = np.array([1]), 2, Fraction(7, 10), Fraction(1, 10)
    padded = pad_users(users, B, tau)
    assert list(padded) == [1, 2]
    assert is_exact_approximate_quantile(padded, 1, HALF, alpha)
    assert not is_exact_approximate_quantile(users, 1, tau, 2 * alpha)
    assert is_exact_approximate_quantile(users, 1, tau, padded_quantile_guarantee(1, tau, alpha))


# ------------------------------------------------------------------------- the protocol wrapper


@given(datasets(max_n=30, max_b=40), st.data())
def test_quantile_via_an_exact_median_is_an_exact_tau_quantile(data_b, data):
    users, B = data_b
    tau = data.draw(integral_taus(users.size))
    m = quantile_via_median(exact_median, users, B, tau, 1.0, np.random.default_rng(0))
    below = [v for v in range(1, B) if exact_cdf(users, v) <= tau]
    if below:
        # F_P(v) <= 1/2 ⇔ F_D(v) <= τ on [1, B − 1]: the padded median is the τ-quantile
        assert m == max(below)
        assert exact_cdf(users, m) <= tau < exact_cdf(users, m + 1)
    for alpha in (Fraction(1, 100), Fraction(1, 10)):
        if is_exact_approximate_quantile(pad_users(users, B, tau), m, HALF, alpha):
            assert is_exact_approximate_quantile(users, m, tau, 2 * alpha)


def test_quantile_via_median_runs_the_protocol_on_the_padded_users_and_passes_arguments() -> None:
    users = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])
    rng = np.random.default_rng(7)
    seen = {}

    def spy(padded, B, epsilon, rng_, **kwargs):
        seen.update(padded=padded, B=B, epsilon=epsilon, rng=rng_, kwargs=kwargs)
        return 4

    out = quantile_via_median(spy, users, 9, 0.3, 0.5, rng, alpha=0.1)
    assert out == 4 and isinstance(out, int)
    assert seen["B"] == 9 and seen["epsilon"] == 0.5 and seen["rng"] is rng
    assert seen["kwargs"] == {"alpha": 0.1}
    padded = seen["padded"]
    assert padded.size == 20
    assert np.count_nonzero(padded == 1) == 2 + 7  # two real 1s and (1 − τ)n = 7 virtual ones
    assert np.count_nonzero(padded == 9) == 1 + 3  # one real 9 and τn = 3 virtual B's
    assert sorted(padded[:10]) == sorted(users)  # the real users are all there, unchanged


def test_quantile_via_median_with_seeded_noisy_median_stays_within_2alpha() -> None:
    # a randomized "protocol": a uniformly random coin among the exact 0.05-approximate medians
    def noisy(padded, B, epsilon, rng_):
        ok = [m for m in range(1, B + 1) if is_exact_approximate_quantile(padded, m, HALF, alpha)]
        return int(rng_.choice(ok))

    alpha = Fraction(1, 20)  # exact: float τ, α would put CDF values on rounding boundaries
    rng = np.random.default_rng(11)
    users = rng.integers(1, 101, size=200)
    for tau in (Fraction(1, 10), Fraction(1, 4), HALF, Fraction(9, 10)):
        for _ in range(20):
            m = quantile_via_median(noisy, users, 100, tau, 1.0, rng)
            assert is_exact_approximate_quantile(users, m, tau, 2 * alpha)


# ------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("tau", [0, 1, 0.0, 1.0, -0.1, 1.5, math.nan, math.inf, True, "0.5", None])
def test_padding_rejects_tau_outside_the_open_unit_interval(tau) -> None:
    with pytest.raises(ValueError, match="tau"):
        padding_counts(10, tau)
    with pytest.raises(ValueError, match="tau"):
        pad_users([1, 2], 3, tau)


@pytest.mark.parametrize("n", [0, -1, 2.0, True, "3"])
def test_padding_counts_rejects_bad_n(n) -> None:
    with pytest.raises(ValueError, match="n"):
        padding_counts(n, 0.5)


@pytest.mark.parametrize("alpha", [0, 0.5, 0.7, -0.1, math.nan])
def test_padded_quantile_guarantee_rejects_alpha_outside_zero_half(alpha) -> None:
    with pytest.raises(ValueError, match="alpha"):
        padded_quantile_guarantee(10, 0.3, alpha)


def test_pad_users_rejects_users_outside_the_domain_and_bad_B() -> None:
    with pytest.raises(ValueError, match="users"):
        pad_users([0, 1], 3, 0.5)
    with pytest.raises(ValueError, match="users"):
        pad_users([1, 4], 3, 0.5)
    with pytest.raises(ValueError, match="users"):
        pad_users([], 3, 0.5)
    with pytest.raises(ValueError, match="B"):
        pad_users([1], 1, 0.5)


def test_quantile_via_median_rejects_bad_arguments_and_bad_protocol_outputs() -> None:
    rng = np.random.default_rng(0)
    users = [1, 2, 3]
    with pytest.raises(ValueError, match="median_protocol"):
        quantile_via_median("median", users, 3, 0.5, 1.0, rng)
    with pytest.raises(ValueError, match="epsilon"):
        quantile_via_median(exact_median, users, 3, 0.5, 0.0, rng)
    with pytest.raises(ValueError, match="rng"):
        quantile_via_median(exact_median, users, 3, 0.5, 1.0, 42)
    with pytest.raises(ValueError, match="tau"):
        quantile_via_median(exact_median, users, 3, 1.0, 1.0, rng)
    with pytest.raises(ValueError, match="coin"):
        quantile_via_median(lambda *a, **k: 4, users, 3, 0.5, 1.0, rng)
    with pytest.raises(ValueError, match="coin"):
        quantile_via_median(lambda *a, **k: 2.0, users, 3, 0.5, 1.0, rng)
    with pytest.raises(ValueError, match="coin"):
        quantile_via_median(lambda *a, **k: True, users, 3, 0.5, 1.0, rng)
