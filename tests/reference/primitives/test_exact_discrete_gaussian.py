"""The exact discrete Gaussian sampler on rationals (CKS20, Algorithm 3 on their Algorithms 1
and 2) tied to the exact law by per-atom Clopper–Pearson tests with Bonferroni (false alarm
<= 1e-7 each), its power, and its refusals (floats among them)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpquant.errors import ParameterError
from dpquant.reference.conformance import DEFAULT_ALPHA, atom_test, clopper_pearson
from dpquant.reference.primitives import (
    DiscreteGaussianLaw,
    bernoulli_exp_neg,
    sample_discrete_gaussian_exact,
    sample_discrete_laplace_exact,
)
from dpquant.reference.primitives.exact_discrete_gaussian import MAX_EXACT_GAUSSIAN_DRAWS

N = 4000


@pytest.mark.parametrize(
    "sigma2", [Fraction(1, 10), 1, 2, Fraction(9, 4), Fraction(61, 2)], ids=str
)
def test_exact_sampler_conforms_to_the_exact_law_atoms(rng, sigma2) -> None:
    law = DiscreteGaussianLaw(sigma2=sigma2, loc=3)
    draws = sample_discrete_gaussian_exact(sigma2, N, rng, loc=3)
    assert draws.shape == (N,) and draws.dtype == np.int64
    atom_test(draws, law.probabilities_within(int(6 * law.sigma) + 2)).assert_ok()


def test_exact_sampler_at_a_huge_rational_variance_follows_the_law_in_bands(rng) -> None:
    """σ² = 10^30/7 (t = ⌊σ⌋ + 1 beyond 2^31: the exact Laplace sampler's scalar path): the
    frequencies of |X| <= σ and of X > 0 against the exact law."""
    sigma2 = Fraction(10**30, 7)
    law = DiscreteGaussianLaw(sigma2=sigma2)
    draws = sample_discrete_gaussian_exact(sigma2, 2000, rng)
    r = math.isqrt(10**30 // 7)
    for hit, p in (
        (np.abs(draws.astype(float)) <= r, 1 - law.tail_mass_mp(r)),
        (draws > 0, law.sf_mp(0)),
    ):
        lo, hi = clopper_pearson(int(hit.sum()), draws.size, DEFAULT_ALPHA / 2)
        assert lo <= float(p) <= hi


def _without_acceptance(sigma2: Fraction, size: int, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 3 with the square's constant σ²/t left out of the acceptance (γ = y²/(2σ²)):
    the kept draws then follow e^{-|y|/t − y²/(2σ²)}, not the discrete Gaussian."""
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    out: list[int] = []
    while len(out) < size:
        for y in sample_discrete_laplace_exact(t, size, rng).tolist():
            if bernoulli_exp_neg(Fraction(y * y) / (2 * sigma2), rng) and len(out) < size:
                out.append(y)
    return np.array(out)


def test_a_wrong_acceptance_step_fails_the_atom_test(rng) -> None:
    """Power: the atom test rejects Algorithm 3 with a wrong acceptance probability."""
    probs = DiscreteGaussianLaw(sigma2=4).probabilities_within(14)
    assert not atom_test(_without_acceptance(Fraction(4), N, rng), probs).passed


def test_exact_sampler_returns_python_ints_beyond_int64(rng) -> None:
    draws = sample_discrete_gaussian_exact(Fraction(2**300), 3, rng, loc=-5)
    assert draws.dtype == object and all(isinstance(int(x), int) for x in draws)
    assert any(abs(int(x)) > 2**63 for x in draws)  # P(|X| <= 2^63) < 1e-30 each


def test_exact_sampler_is_reproducible_from_the_seed() -> None:
    a = sample_discrete_gaussian_exact(Fraction(5, 3), 50, np.random.default_rng(9))
    b = sample_discrete_gaussian_exact(Fraction(5, 3), 50, np.random.default_rng(9))
    assert (a == b).all()
    assert sample_discrete_gaussian_exact(2, 0, np.random.default_rng(9)).shape == (0,)


@pytest.mark.parametrize("sigma2", [1.5, 2.0, np.float64(2.0)], ids=repr)
def test_float_sigma2_is_refused_and_the_error_says_to_pass_a_fraction(rng, sigma2) -> None:
    with pytest.raises(ParameterError, match="Fraction"):
        sample_discrete_gaussian_exact(sigma2, 10, rng)


@pytest.mark.parametrize(
    "sigma2",
    [0, -3, Fraction(-1, 2), True, "2", None, math.nan, Fraction(1, 2**513), 2**513],
    ids=repr,
)
def test_bad_sigma2_is_refused_naming_sigma2(rng, sigma2) -> None:
    with pytest.raises(ParameterError, match="sigma2"):
        sample_discrete_gaussian_exact(sigma2, 10, rng)


def test_bad_size_loc_and_rng_are_refused_naming_them(rng) -> None:
    for size in (-1, 2.5, True, MAX_EXACT_GAUSSIAN_DRAWS + 1):
        with pytest.raises(ParameterError, match="size"):
            sample_discrete_gaussian_exact(2, size, rng)
    for loc in (0.5, "1", True, 2**60):
        with pytest.raises(ParameterError, match="loc"):
            sample_discrete_gaussian_exact(2, 10, rng, loc=loc)
    with pytest.raises(ParameterError, match="rng"):
        sample_discrete_gaussian_exact(2, 10, None)
