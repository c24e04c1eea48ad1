"""Binary randomized response: exact channel, exact loss, sampler, debiasing."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.conformance import check_sampler
from dpquant.reference.distributions import hockey_stick, privacy_loss
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.randomized_response import (
    RandomizedResponse,
    debias_mean,
    keep_probability,
    randomize_bits,
    rr_channel,
    rr_law,
)

epsilons = st.floats(min_value=1e-3, max_value=30.0)


@given(epsilons)
def test_randomized_response_exact_loss_is_epsilon(eps) -> None:
    with workdps():
        loss = privacy_loss(rr_law(0, eps), rr_law(1, eps))
        assert abs(loss - mpmath.mpf(eps)) < mpmath.mpf("1e-45")
        # pure: nothing is left over at the claimed epsilon, something is just below it
        assert hockey_stick(rr_law(0, eps), rr_law(1, eps), eps) < mpmath.mpf("1e-45")
        assert hockey_stick(rr_law(0, eps), rr_law(1, eps), eps * 0.99) > 0


@given(epsilons)
def test_channel_rows_are_laws_and_keep_probability_is_e_eps_over_1_plus_e_eps(eps) -> None:
    w = rr_channel(eps)
    with workdps():
        for row in w:
            assert abs(sum(row) - 1) < mpmath.mpf("1e-50")
        assert abs(w[0][0] - mpmath.exp(eps) / (1 + mpmath.exp(eps))) < mpmath.mpf("1e-45")
    assert keep_probability(eps) == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))


def test_debiasing_is_exactly_unbiased() -> None:
    """E[(R − (1 − p))/(2p − 1)] = b symbolically, for the channel above."""
    p, b = sympy.symbols("p b")
    expectation = p * b + (1 - p) * (1 - b)  # P(R = 1 | bit b), b in {0, 1}
    estimate = (expectation - (1 - p)) / (2 * p - 1)
    assert sympy.simplify(estimate - b) == 0


def test_debiased_mean_is_close_to_the_truth_on_seeded_data(rng) -> None:
    bits = (rng.random(400_000) < 0.3).astype(int)
    reports = randomize_bits(bits, 1.0, rng)
    # sd of the estimate: sqrt(p(1-p)/n)/(2p-1) ≈ 0.0016; 6 sd ≈ 0.0097 (two-sided 2e-9)
    assert abs(debias_mean(reports, 1.0) - bits.mean()) < 0.0097


@pytest.mark.parametrize("bit", [0, 1])
@pytest.mark.parametrize("eps", [0.05, 1.0, 8.0])
def test_randomized_response_sampler_conforms_to_its_channel(bit, eps, rng) -> None:
    mech = RandomizedResponse(eps)
    check_sampler(mech.exact(bit), mech.sample(bit, 100_000, rng)).assert_ok()


def test_a_sampler_with_the_wrong_keep_probability_fails(rng) -> None:
    # keep with e^ε/(1+e^ε) computed at 1.2ε: deviation 0.0564 vs CI half-width ≈ 0.008 at N = 1e5
    wrong = RandomizedResponse(1.2).sample(0, 100_000, rng)
    assert not check_sampler(rr_law(0, 1.0), wrong).passed


@given(
    st.one_of(st.just(2), st.just(-1), st.just(0.5), st.just([0, 1]), st.just(True), st.just("1"))
)
def test_bad_bits_raise(bit) -> None:
    with pytest.raises(ValueError, match="bit|data"):
        RandomizedResponse(1.0).sample(bit, 3, np.random.default_rng(0))


@given(st.one_of(st.just(0.0), st.just(-1.0), st.just(math.nan), st.just(math.inf), st.booleans()))
def test_bad_epsilon_raises(eps) -> None:
    with pytest.raises(ValueError, match="epsilon"):
        RandomizedResponse(eps)


def test_bad_reports_and_sizes_raise() -> None:
    with pytest.raises(ValueError, match="reports"):
        debias_mean([], 1.0)
    with pytest.raises(ValueError, match="reports"):
        debias_mean([0, 2], 1.0)
    with pytest.raises(ValueError, match="bits"):
        randomize_bits([[0, 1]], 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="size"):
        RandomizedResponse(1.0).sample(1, -1, np.random.default_rng(0))


# --------------------------------------------------------------------------------------------
# Bad and extreme input (issue 18)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [[True, False], np.array([True, False]), ["0", "1"], [1 + 0j], [0, 2], [0.5], [[0, 1]], None],
)
def test_randomize_bits_and_debias_mean_refuse_anything_but_zeros_and_ones(bad) -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"^bits"):
        randomize_bits(bad, 1.0, rng)
    with pytest.raises(ValueError, match=r"^reports"):
        debias_mean(bad, 1.0)


def test_debias_mean_is_stable_at_tiny_epsilon_and_refuses_below_1e_300() -> None:
    """(mean − ½)/tanh(ε/2) + ½ has no cancellation: at ε = 1e-300 a mean of ¾ gives ½ + ¼/5e-301
    exactly in floats (the old (mean − (1 − p))/(2p − 1) divided 0.25 by 0, or by rounding
    noise). Below 1e-300 the estimate could overflow: refused, naming epsilon."""
    assert debias_mean([0, 1, 1, 1], 1e-300) == 0.5 + 0.25 / math.tanh(5e-301)
    assert math.isfinite(debias_mean([1, 1], 1e-300))
    assert debias_mean([0, 1], 1e-300) == 0.5
    with pytest.raises(ValueError, match=r"^epsilon must be >= 1e-300 for debias_mean"):
        debias_mean([0, 1], 5e-324)
    p = keep_probability(2.0)
    assert debias_mean([1, 0, 1, 1], 2.0) == pytest.approx((0.75 - (1 - p)) / (2 * p - 1), 1e-14)


def test_keep_probability_and_randomize_bits_at_huge_epsilon() -> None:
    assert keep_probability(1e308) == 1.0 and keep_probability(5e-324) == 0.5
    bits = np.array([0, 1, 1, 0] * 100)
    assert np.array_equal(randomize_bits(bits, 1e308, np.random.default_rng(1)), bits)
    assert randomize_bits([], 1.0, np.random.default_rng(1)).shape == (0,)
