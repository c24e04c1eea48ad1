"""Laplace and discrete Laplace: exact laws, samplers (fast and exact rational) and their checks.

Every statistical test is seeded and uses :mod:`dpquant.reference.conformance` at its default alpha (1e-7);
each power test first proves, from the exact laws, that the expected deviation of the wrong sampler
is more than 3x the test's threshold, so its failure is overwhelming rather than lucky.
"""

from __future__ import annotations

import math
import random
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.conformance import (
    DEFAULT_ALPHA,
    atom_test,
    clopper_pearson,
    dkw_test,
    dkw_threshold,
)
from dpquant.reference.distributions import DiscreteLaw, hockey_stick, privacy_loss
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.discrete_laplace import (
    DiscreteLaplaceLaw,
    sample_discrete_laplace,
)
from dpquant.reference.primitives.exact_discrete_laplace import (
    bernoulli_exp_neg,
    sample_discrete_laplace_exact,
)
from dpquant.reference.primitives.laplace import laplace_law, sample_laplace

EXACT_TOL = mpmath.mpf("1e-40")
BIG_SCALE = Fraction(3 * 10**20 + 1, 2 * 10**20)  # numerator > 2**62: the big-integer path


def _mp(x: float | int | Fraction) -> mpmath.mpf:
    return to_mpf(x)


def _radius_for(scale: float, mass: float = 1e-4) -> int:
    """Smallest radius whose tail mass 2q^{r+1}/(1+q) is below ``mass`` (q = e^{-1/t})."""
    return max(1, math.ceil(-scale * math.log(mass / 2)))


def _cp_half_width(p: float, n: int, level: float) -> float:
    """Half-width of the Clopper–Pearson interval at the expected count n·p."""
    lo, hi = clopper_pearson(round(n * p), n, level)
    return (hi - lo) / 2


# --------------------------------------------------------------------------------------------
# Continuous Laplace: law, sampler, privacy
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("loc", "scale"), [(0.0, 1.0), (-3.5, 0.2), (10.0, 7.0)])
def test_laplace_law_cdf_matches_closed_form(loc: float, scale: float) -> None:
    law = laplace_law(loc, scale)
    y = loc + scale * np.linspace(-30, 30, 2001)
    expected = 0.5 + 0.5 * np.sign(y - loc) * (1 - np.exp(-np.abs(y - loc) / scale))
    np.testing.assert_allclose(law.cdf(y), expected, rtol=0, atol=1e-14)
    with workdps():
        assert abs(law.log_normalizer_mp) < EXACT_TOL  # the intercepts are already normalised
        half = law.mass(-math.inf, loc)
        assert abs(half - mpmath.mpf(1) / 2) < EXACT_TOL


@pytest.mark.parametrize(("loc", "scale"), [(0.0, 1.0), (-3.5, 0.2), (10.0, 7.0)])
def test_fast_laplace_sampler_conforms_to_exact_law_dkw(
    rng: np.random.Generator, loc: float, scale: float
) -> None:
    samples = sample_laplace(loc, scale, 200_000, rng)
    assert samples.shape == (200_000,) and samples.dtype == np.float64
    dkw_test(samples, laplace_law(loc, scale).cdf).assert_ok()


def test_laplace_sampler_with_scale_10_percent_too_large_fails_dkw(
    rng: np.random.Generator,
) -> None:
    n, scale = 400_000, 1.0
    true_law, wrong_law = laplace_law(0.0, scale), laplace_law(0.0, 1.1 * scale)
    grid = np.linspace(-20, 20, 400_001)
    expected_gap = float(np.max(np.abs(wrong_law.cdf(grid) - true_law.cdf(grid))))
    threshold = dkw_threshold(n, DEFAULT_ALPHA)
    assert expected_gap > 3 * threshold  # power: ~0.0175 against 3 x 0.0046
    result = dkw_test(sample_laplace(0.0, 1.1 * scale, n, rng), true_law.cdf)
    assert not result.passed
    assert result.statistic > 2 * threshold


@pytest.mark.parametrize(
    ("sensitivity", "scale"),
    [(1.0, 1.0), (1.3, 0.7), (Fraction(1), Fraction(3, 2)), (2, 0.1), (0.25, 1e3)],
)
def test_laplace_privacy_loss_is_sensitivity_over_scale(sensitivity, scale) -> None:
    loss = privacy_loss(laplace_law(0, scale), laplace_law(sensitivity, scale))
    with workdps():
        assert abs(loss - _mp(sensitivity) / _mp(scale)) < EXACT_TOL


def test_laplace_hockey_stick_closed_form_derived_with_sympy() -> None:
    """δ(ε) = ∫ (p − e^ε q)_+ for p = Lap(0, b), q = Lap(s, b), 0 <= ε < s/b.

    The loss log p/q is s/b on y <= 0, (s − 2y)/b on [0, s] and −s/b beyond, so p > e^ε q exactly
    on y < c = (s − εb)/2 ∈ (0, s]; integrating gives δ(ε) = 1 − e^{(ε − s/b)/2}."""
    y = sp.Symbol("y", real=True)
    b, s, eps = sp.symbols("b s epsilon", positive=True)
    p_left, p_right = sp.exp(y / b) / (2 * b), sp.exp(-y / b) / (2 * b)
    q_left = sp.exp((y - s) / b) / (2 * b)
    loss_mid = sp.simplify(sp.log(p_right / q_left))
    assert sp.simplify(loss_mid - (s - 2 * y) / b) == 0
    c = sp.solve(sp.Eq(loss_mid, eps), y)[0]
    assert sp.simplify(c - (s - eps * b) / 2) == 0
    delta = sp.integrate(p_left - sp.exp(eps) * q_left, (y, -sp.oo, 0)) + sp.integrate(
        p_right - sp.exp(eps) * q_left, (y, 0, c)
    )
    assert sp.simplify(delta - (1 - sp.exp((eps - s / b) / 2))) == 0


@pytest.mark.parametrize(("sensitivity", "scale"), [(1.0, 1.0), (1.3, 0.7), (1, Fraction(3, 2))])
def test_laplace_hockey_stick_is_one_minus_exp_half_eps_minus_loss(sensitivity, scale) -> None:
    p, q = laplace_law(0, scale), laplace_law(sensitivity, scale)
    with workdps():
        loss = _mp(sensitivity) / _mp(scale)
        for frac in ["0", "0.01", "0.3", "0.5", "0.9", "0.999"]:
            eps = loss * mpmath.mpf(frac)
            expected = 1 - mpmath.exp((eps - loss) / 2)
            assert abs(hockey_stick(p, q, eps) - expected) < EXACT_TOL
            assert abs(hockey_stick(q, p, eps) - expected) < EXACT_TOL  # symmetric pair
        for above in [loss, loss * 1.5]:
            assert hockey_stick(p, q, above) < EXACT_TOL


# --------------------------------------------------------------------------------------------
# Discrete Laplace: exact law
# --------------------------------------------------------------------------------------------

LAW_CASES = [
    (Fraction(3, 2), 0),
    (2, 0),
    (0.37, -3),
    (1000, 5),
    (Fraction(1, 7), 0),
    (BIG_SCALE, 1),
]


@pytest.mark.parametrize(("scale", "loc"), LAW_CASES)
def test_discrete_laplace_pmf_within_radius_plus_tail_mass_is_one(scale, loc: int) -> None:
    law = DiscreteLaplaceLaw(scale, loc=loc)
    with workdps():
        for radius in [0, 3, 40]:
            inside = mpmath.fsum(law.pmf_mp(k) for k in range(loc - radius, loc + radius + 1))
            assert abs(inside + law.tail_mass_mp(radius) - 1) < EXACT_TOL
        assert law.tail_mass_mp(-1) == 1


@pytest.mark.parametrize(("scale", "loc"), LAW_CASES)
def test_discrete_laplace_pmf_matches_closed_form(scale, loc: int) -> None:
    law = DiscreteLaplaceLaw(scale, loc=loc)
    with workdps():
        q = mpmath.exp(-1 / _mp(scale))
        for k in range(loc - 5, loc + 6):
            expected = (1 - q) / (1 + q) * q ** abs(k - loc)
            assert abs(law.pmf_mp(k) / expected - 1) < EXACT_TOL
    ks = np.arange(loc - 5, loc + 6)
    expected_float = np.array([float(law.logpmf_mp(int(k))) for k in ks])
    np.testing.assert_allclose(law.logpmf(ks), expected_float, rtol=1e-12)
    assert np.isneginf(law.logpmf(loc + 0.5))


@pytest.mark.parametrize(("scale", "loc"), LAW_CASES)
def test_discrete_laplace_cdf_sf_and_mass_agree_with_pmf(scale, loc: int) -> None:
    law = DiscreteLaplaceLaw(scale, loc=loc)
    ks = list(range(loc - 8, loc + 9))
    with workdps():
        for k in ks:
            assert abs(law.cdf_mp(k) - law.cdf_mp(k - 1) - law.pmf_mp(k)) < EXACT_TOL
            assert abs(law.cdf_mp(k) + law.sf_mp(k) - 1) < EXACT_TOL
            assert abs(law.mass(k, k) - law.pmf_mp(k)) < EXACT_TOL
        direct = mpmath.fsum(law.pmf_mp(k) for k in range(loc - 2, loc + 4))
        assert abs(law.mass(loc - 2.5, loc + 3.5) - direct) < EXACT_TOL
        assert abs(law.mass(-math.inf, math.inf) - 1) < EXACT_TOL
        assert abs(law.mass(loc + 1, math.inf) - law.tail_mass_mp(0) / 2) < EXACT_TOL
        assert law.mass(loc + 0.2, loc + 0.8) == 0
    y = np.array(ks, dtype=float) + 0.5
    expected = np.array([float(law.cdf_mp(k)) for k in ks])
    np.testing.assert_allclose(law.cdf(y), expected, rtol=1e-12)
    np.testing.assert_allclose(law.cdf(np.array(ks, dtype=float)), expected, rtol=1e-12)


def test_discrete_laplace_truncated_and_clamped_laws_keep_the_right_mass() -> None:
    law = DiscreteLaplaceLaw(Fraction(3, 2), loc=2)
    truncated, clamped = law.truncated(4), law.clamped(-1, 5)
    assert truncated.support == tuple(range(-2, 7))
    assert clamped.support == tuple(range(-1, 6))
    with workdps():
        kept = 1 - law.tail_mass_mp(4)
        for k in range(-2, 7):
            assert abs(truncated.pmf_mp(k) - law.pmf_mp(k) / kept) < EXACT_TOL
        assert abs(clamped.pmf_mp(-1) - law.cdf_mp(-1)) < EXACT_TOL
        assert abs(clamped.pmf_mp(5) - law.sf_mp(4)) < EXACT_TOL
        for k in range(0, 5):
            assert abs(clamped.pmf_mp(k) - law.pmf_mp(k)) < EXACT_TOL
    within = law.probabilities_within(3)
    assert sorted(within) == list(range(-1, 6))
    assert abs(sum(within.values()) + float(law.tail_mass_mp(3)) - 1) < 1e-14


@pytest.mark.parametrize("scale", [Fraction(3, 2), 2, 0.37, 5, BIG_SCALE])
def test_discrete_laplace_privacy_loss_between_centres_0_and_1_is_exactly_1_over_t(scale) -> None:
    """sup_k |log P(X = k) − log P(X + 1 = k)| = 1/t, reached at every k <= 0 and k >= 1.

    Truncating both laws at the same radius would be wrong: their supports differ at the ends
    (an infinite loss). Clamping to [lo, hi] is a post-processing that keeps all the mass, so its
    loss is <= 1/t, and = 1/t once lo <= 0 < 1 <= hi."""
    p, q = DiscreteLaplaceLaw(scale), DiscreteLaplaceLaw(scale, loc=1)
    with workdps():
        inv_t = 1 / _mp(scale)
        ratios = [abs(p.logpmf_mp(k) - q.logpmf_mp(k)) for k in range(-40, 41)]
        assert abs(max(ratios) - inv_t) < EXACT_TOL
        assert all(r <= inv_t + EXACT_TOL for r in ratios)
        assert abs(ratios[40] - inv_t) < EXACT_TOL  # k = 0
        for lo, hi in [(-20, 20), (0, 1), (-3, 7)]:
            loss = privacy_loss(p.clamped(lo, hi), q.clamped(lo, hi))
            assert abs(loss - inv_t) < EXACT_TOL
        assert privacy_loss(p.truncated(10), q.truncated(10)) == mpmath.inf


# --------------------------------------------------------------------------------------------
# Discrete Laplace: samplers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.5, 2.0, 7.3])
def test_fast_discrete_laplace_sampler_conforms_to_exact_law_atoms(
    rng: np.random.Generator, scale: float
) -> None:
    law = DiscreteLaplaceLaw(scale)
    samples = sample_discrete_laplace(scale, 200_000, rng)
    assert samples.shape == (200_000,) and samples.dtype == np.int64
    atom_test(samples, law.probabilities_within(_radius_for(scale))).assert_ok()


def test_discrete_laplace_law_sample_is_shifted_by_loc(rng: np.random.Generator) -> None:
    law = DiscreteLaplaceLaw(1.5, loc=-4)
    atom_test(law.sample(100_000, rng), law.probabilities_within(_radius_for(1.5))).assert_ok()


def test_discrete_laplace_sampler_with_geometric_parameter_off_fails_atom_test(
    rng: np.random.Generator,
) -> None:
    n, scale = 200_000, 2.0
    law, wrong = DiscreteLaplaceLaw(scale), DiscreteLaplaceLaw(1.1 * scale)
    probs = law.probabilities_within(_radius_for(scale))
    level = DEFAULT_ALPHA / (len(probs) + 1)
    gaps = {k: abs(float(wrong.pmf_mp(k)) - p) for k, p in probs.items()}
    worst = max(gaps, key=gaps.get)
    assert gaps[worst] > 3 * _cp_half_width(probs[worst], n, level)  # power, at the atom 0
    assert not atom_test(sample_discrete_laplace(1.1 * scale, n, rng), probs).passed


@pytest.mark.parametrize(
    ("scale", "n"),
    [
        (Fraction(3, 2), 20_000),
        (2, 20_000),
        (BIG_SCALE, 5_000),
        (Fraction(2**32 + 1, 2**31), 20_000),  # numerator > 2^31: the scalar path
    ],
)
def test_exact_discrete_laplace_sampler_conforms_to_exact_law_atoms(
    rng: np.random.Generator, scale, n: int
) -> None:
    law = DiscreteLaplaceLaw(scale)
    samples = sample_discrete_laplace_exact(scale, n, rng)
    assert samples.shape == (n,) and samples.dtype == np.int64
    atom_test(samples, law.probabilities_within(_radius_for(float(scale)))).assert_ok()


def _exact_sampler_without_zero_rejection(t: Fraction, size: int, rng: np.random.Generator):
    """CKS20 Alg. 2 with step 5's rejection of (B = 1, Y = 0) left out: 0 comes out twice as
    often as it should (the classic bug of symmetrising a geometric variable). Built from the
    public exact Bernoulli(exp(−γ)) and uniform integers (t's numerator is small)."""
    out = []
    for _ in range(size):
        while True:
            u = int(rng.integers(t.numerator))
            if bernoulli_exp_neg(Fraction(u, t.numerator), rng):
                break
        v = 0
        while bernoulli_exp_neg(Fraction(1), rng):
            v += 1
        y = (u + t.numerator * v) // t.denominator
        out.append(-y if int(rng.integers(2)) else y)
    return np.array(out)


def test_exact_sampler_without_zero_rejection_fails_atom_test(rng: np.random.Generator) -> None:
    n, t = 20_000, Fraction(3, 2)
    probs = DiscreteLaplaceLaw(t).probabilities_within(_radius_for(1.5))
    q = math.exp(-1 / 1.5)
    wrong_p0 = 1 - q  # P(Y = 0) of the geometric Y, not (1 - q)/(1 + q)
    level = DEFAULT_ALPHA / (len(probs) + 1)
    assert abs(wrong_p0 - probs[0]) > 3 * _cp_half_width(probs[0], n, level)
    assert not atom_test(_exact_sampler_without_zero_rejection(t, n, rng), probs).passed


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_neg_matches_exp_minus_gamma(rng: np.random.Generator, gamma) -> None:
    n = 20_000
    draws = np.array([bernoulli_exp_neg(gamma, rng) for _ in range(n)])
    p = math.exp(-gamma)
    atom_test(draws, {True: p, False: 1 - p}).assert_ok()


def test_bernoulli_exp_neg_with_huge_denominator_matches_exp_minus_gamma(
    rng: np.random.Generator,
) -> None:
    gamma = Fraction(10**30 + 1, 3 * 10**30 + 7)  # denominators beyond numpy's int64 bound
    draws = np.array([bernoulli_exp_neg(gamma, rng) for _ in range(10_000)])
    p = math.exp(-float(gamma))
    atom_test(draws, {True: p, False: 1 - p}).assert_ok()


def test_samplers_return_empty_arrays_for_size_zero(rng: np.random.Generator) -> None:
    assert sample_laplace(0.0, 1.0, 0, rng).shape == (0,)
    assert sample_discrete_laplace(1.0, 0, rng).shape == (0,)
    assert sample_discrete_laplace_exact(Fraction(1, 2), 0, rng).shape == (0,)


def test_exact_sampler_is_reproducible_from_the_seed() -> None:
    a = sample_discrete_laplace_exact(Fraction(7, 3), 500, np.random.default_rng(5))
    b = sample_discrete_laplace_exact(Fraction(7, 3), 500, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------------------------
# Bad input: ValueError naming the parameter
# --------------------------------------------------------------------------------------------

_GEN = np.random.default_rng(0)

bad_scales = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 0, 0.0, -0.0, True, False, None, "1"]),
    st.floats(max_value=0.0),
    st.integers(max_value=0),
    st.fractions(max_value=0),
)
bad_sizes = st.one_of(
    st.integers(max_value=-1), st.floats(allow_nan=True), st.booleans(), st.just("3")
)
bad_rngs = st.one_of(
    st.none(),
    st.integers(),
    st.just(np.random.RandomState(0)),
    st.just(random.Random(0)),
    st.just(np.random.default_rng),
)
bad_locs = st.sampled_from([math.nan, math.inf, -math.inf, True, None, "0"])


def _raises_naming(name: str, fn, *args, **kwargs) -> None:
    with pytest.raises(ValueError, match=name):
        fn(*args, **kwargs)


@given(scale=bad_scales)
def test_bad_scale_raises_value_error_naming_scale(scale) -> None:
    _raises_naming("scale", laplace_law, 0.0, scale)
    _raises_naming("scale", sample_laplace, 0.0, scale, 1, _GEN)
    _raises_naming("scale", DiscreteLaplaceLaw, scale)
    _raises_naming("scale", sample_discrete_laplace, scale, 1, _GEN)
    _raises_naming("scale", sample_discrete_laplace_exact, scale, 1, _GEN)


@given(scale=st.floats(min_value=1e-3, max_value=1e3))
def test_exact_sampler_refuses_float_scale_and_says_to_pass_a_fraction(scale: float) -> None:
    with pytest.raises(ValueError, match="scale.*Fraction"):
        sample_discrete_laplace_exact(scale, 1, _GEN)


@given(size=bad_sizes)
def test_bad_size_raises_value_error_naming_size(size) -> None:
    _raises_naming("size", sample_laplace, 0.0, 1.0, size, _GEN)
    _raises_naming("size", sample_discrete_laplace, 1.0, size, _GEN)
    _raises_naming("size", sample_discrete_laplace_exact, 1, size, _GEN)
    _raises_naming("size", DiscreteLaplaceLaw(1.0).sample, size, _GEN)


@given(bad=bad_rngs)
def test_non_generator_rng_raises_value_error_naming_rng(bad) -> None:
    _raises_naming("rng", sample_laplace, 0.0, 1.0, 1, bad)
    _raises_naming("rng", sample_discrete_laplace, 1.0, 1, bad)
    _raises_naming("rng", sample_discrete_laplace_exact, 1, 1, bad)
    _raises_naming("rng", bernoulli_exp_neg, Fraction(1, 2), bad)


@given(loc=bad_locs)
def test_bad_loc_raises_value_error_naming_loc(loc) -> None:
    _raises_naming("loc", laplace_law, loc, 1.0)
    _raises_naming("loc", sample_laplace, loc, 1.0, 1, _GEN)


@given(loc=st.one_of(bad_locs, st.floats(), st.fractions(min_value=0.25, max_value=0.75)))
def test_discrete_laplace_non_integer_loc_raises_value_error_naming_loc(loc) -> None:
    _raises_naming("loc", DiscreteLaplaceLaw, 1.0, loc=loc)


@given(
    gamma=st.one_of(
        st.integers(max_value=-1),
        st.fractions(max_value=Fraction(-1, 10**6)),
        st.floats(allow_nan=True),
        st.booleans(),
        st.none(),
    )
)
def test_bad_gamma_raises_value_error_naming_gamma(gamma) -> None:
    _raises_naming("gamma", bernoulli_exp_neg, gamma, _GEN)


@given(radius=st.one_of(st.integers(max_value=-1), st.floats(), st.booleans()))
def test_bad_radius_raises_value_error_naming_radius(radius) -> None:
    law = DiscreteLaplaceLaw(2)
    _raises_naming("radius", law.truncated, radius)
    _raises_naming("radius", law.probabilities_within, radius)


def test_clamped_with_hi_below_lo_raises_value_error_naming_hi() -> None:
    _raises_naming("hi", DiscreteLaplaceLaw(2).clamped, 3, 2)
    _raises_naming("lo", DiscreteLaplaceLaw(2).clamped, 0.5, 2)


def test_discrete_law_type_of_clamped_and_truncated() -> None:
    law = DiscreteLaplaceLaw(Fraction(3, 2))
    assert isinstance(law.clamped(-2, 2), DiscreteLaw)
    assert isinstance(law.truncated(2), DiscreteLaw)


# --------------------------------------------------------------------------------------------
# Extreme scales (issue 18): exact draws or a refusal naming the representable range
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1e30, 1e19, 2.0**50 * (1 + 2**-40), 1e17])
def test_discrete_laplace_above_2_to_50_is_refused_instead_of_zero_or_wrapped_noise(scale) -> None:
    """Issue 18: numpy's geometric saturated at the int64 maximum, so at scale 1e30 both draws
    were 2^63 − 1 and the noise was exactly 0; at 1e19 the draws wrapped around. Both scales, and
    every scale above 2^50, are now refused with the range; so is the law's sampler."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"^scale must be at most 2\^50 = 1\.1259e\+15"):
        sample_discrete_laplace(scale, 1000, rng)
    with pytest.raises(ValueError, match=r"^scale must be at most 2\^50"):
        DiscreteLaplaceLaw(scale).sample(1000, rng)
    law = DiscreteLaplaceLaw(scale)  # the exact law itself is fine at any scale
    with workdps():
        assert abs(law.mass(-math.inf, math.inf) - 1) < EXACT_TOL
        assert law.pmf_mp(0) < mpmath.mpf(1) / scale


@pytest.mark.parametrize("scale", [2.0**50, 1e15, 3.3e9])
def test_discrete_laplace_at_the_largest_scales_follows_its_exact_law(scale) -> None:
    """Statistical check tied to the exact law at t up to 2^50, where the sampler splits each
    geometric into independent base-2^16 digits: (1) DKW band of the draws against the exact CDF
    (atoms of mass ~1/(2t) make the law continuous at this n); (2) the 16 residues mod 16, whose
    exact probabilities are 1/16 up to (1 − q^16)/(1 − q) − 1 <= 16/t < 1e-8 (a draw rounded to a
    coarse float grid, or saturated, would fail it). Each at level 1e-7: false alarm < 2e-7."""
    rng = np.random.default_rng(20260418)
    law = DiscreteLaplaceLaw(scale)
    x = sample_discrete_laplace(scale, 200_000, rng)
    assert x.dtype == np.int64 and np.abs(x).max() < 2**58
    dkw_test(x, law.cdf).assert_ok()
    atom_test(x % 16, {r: 1 / 16 for r in range(16)}).assert_ok()
    assert (x == 0).mean() < 1e-3


def test_discrete_laplace_sampler_is_numpys_stream_below_2_to_16() -> None:
    """Up to t = 2^16 the geometric is numpy's own (the digits only start above), so seeded
    results of earlier versions are unchanged."""
    a = sample_discrete_laplace(7.3, 1000, np.random.default_rng(3))
    r = np.random.default_rng(3)
    p = -math.expm1(-1 / 7.3)
    assert np.array_equal(a, r.geometric(p, 1000) - r.geometric(p, 1000))


@pytest.mark.parametrize("scale", [1e-300, 5e-324, Fraction(1, 10**400)])
def test_discrete_laplace_at_tiny_scales_is_the_point_mass_at_loc(scale) -> None:
    """t so small that 1/t overflows: P(X = loc) = (1 − q)/(1 + q) = 1 to float precision."""
    law = DiscreteLaplaceLaw(scale, loc=-4)
    assert (law.sample(1000, np.random.default_rng(1)) == -4).all()
    assert law.cdf([-5.0, -4.0, 3.0]).tolist() == [0.0, 1.0, 1.0]
    logp = law.logpmf([-4, -3, -4.5])
    assert logp[0] == 0.0 and logp[1] <= -1e299 and logp[2] == -math.inf
    if not isinstance(scale, Fraction):
        assert (sample_discrete_laplace(scale, 100, np.random.default_rng(1)) == 0).all()


def test_truncated_and_clamped_beyond_the_atom_limit_are_refused_at_once() -> None:
    """Issue 18: DiscreteLaplaceLaw(1.).truncated(10**7) ran for minutes (2·10^7 + 1 atoms at 60
    digits). Radii above 50 000 (laws of more than 100 001 atoms) are refused immediately."""
    law = DiscreteLaplaceLaw(1.0)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"^radius must be an integer 0 <= radius <= 50000"):
        law.truncated(10**7)
    with pytest.raises(ValueError, match=r"^radius must be an integer 0 <= radius <= 50000"):
        law.probabilities_within(10**7)
    with pytest.raises(ValueError, match=r"^hi - lo must be at most 100000"):
        law.clamped(-(10**7), 10**7)
    assert time.perf_counter() - start < 1.0
    assert len(law.truncated(3)) == 7 and len(law.clamped(-3, 3)) == 7


def test_discrete_laplace_loc_beyond_2_to_53_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^loc must be an integer"):
        DiscreteLaplaceLaw(1.0, loc=2**53 + 1)
    draws = DiscreteLaplaceLaw(2.0**50, loc=2**53).sample(100, np.random.default_rng(0))
    assert draws.dtype == np.int64 and np.abs(draws - 2**53).max() < 2**57


def test_exact_sampler_at_huge_and_tiny_rational_scales() -> None:
    """CKS20 Alg. 2 works on exact integers at any scale: t = 10^400 gives draws of magnitude
    ~10^400 as Python ints (P(|X| < 10^390) < 10^-9 per draw), t = 10^-400 the point mass at 0.
    Numerators or denominators of 4096 bits or more, and large sizes on the scalar path, are
    refused."""
    rng = np.random.default_rng(5)
    big = sample_discrete_laplace_exact(Fraction(10**400), 20, rng)
    assert big.dtype == object and all(abs(v) > 10**390 for v in big)
    assert (sample_discrete_laplace_exact(Fraction(1, 10**400), 50, rng) == 0).all()
    with pytest.raises(ValueError, match=r"^scale must have a numerator and a denominator below"):
        sample_discrete_laplace_exact(Fraction(2**4097), 1, rng)
    with pytest.raises(ValueError, match=r"^size must be at most 10000 when the scale"):
        sample_discrete_laplace_exact(Fraction(10**400), 10_001, rng)
    assert bernoulli_exp_neg(Fraction(10**400), rng) is False  # P(True) = e^(-10^400)
    with pytest.raises(ValueError, match=r"^gamma must have a numerator"):
        bernoulli_exp_neg(Fraction(1, 2**5000), rng)


@pytest.mark.parametrize(
    ("loc", "scale", "match"),
    [
        (1.0, 1e-16, r"^scale must be at least 2\^12 times the float spacing near loc"),
        (1e13, 1.0, r"^scale must be at least 2\^12 times the float spacing near loc"),
        (0.0, 5e-324, r"^scale must be at least 2\^12 times the float spacing near loc"),
        (0.0, 1e308, r"^scale must keep \|loc\| \+ 40\*scale <= "),
        (1e308, 1e307, r"^scale must keep \|loc\| \+ 40\*scale <= "),
    ],
)
def test_sample_laplace_refuses_coarse_or_overflowing_parameters(loc, scale, match) -> None:
    """Laplace(1, 1e-16) in floats drew P(Y < loc) = 0.28 (issue 18); 1e308 overflowed to inf."""
    with pytest.raises(ValueError, match=match):
        sample_laplace(loc, scale, 10, np.random.default_rng(0))


@pytest.mark.parametrize(("loc", "scale"), [(0.0, 1e-300), (1e11, 1.0), (-5.0, 1e306)])
def test_sample_laplace_at_accepted_extremes_conforms_to_the_exact_law(loc, scale) -> None:
    """At the edges of the accepted range the float draws still follow Laplace(loc, scale): DKW
    at level 1e-7 against the closed-form CDF of the standardised draws."""
    x = sample_laplace(loc, scale, 100_000, np.random.default_rng(11))
    assert np.isfinite(x).all()
    z = (x - loc) / scale

    def cdf(y):
        return np.where(y < 0, 0.5 * np.exp(np.minimum(y, 0)), 1 - 0.5 * np.exp(-np.maximum(y, 0)))

    dkw_test(z, cdf).assert_ok()
