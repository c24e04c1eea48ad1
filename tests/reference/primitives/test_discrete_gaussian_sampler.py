"""The vectorised discrete Gaussian sampler (CKS20, Algorithm 3, on the vectorised discrete
Laplace sampler) tied to the exact law :class:`DiscreteGaussianLaw` by per-atom Clopper–Pearson
tests with Bonferroni (false alarm <= 1e-7 each), its power, its extreme scales and its refusals."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpquant.errors import ParameterError
from dpquant.reference.conformance import DEFAULT_ALPHA, atom_test, clopper_pearson
from dpquant.reference.primitives import DiscreteGaussianLaw, sample_discrete_gaussian
from dpquant.reference.primitives.discrete_gaussian_sampler import MAX_SAMPLER_SIGMA

N = 200_000


def _radius(sigma: float) -> int:
    return int(6 * sigma) + 2


@pytest.mark.parametrize("sigma", [0.2, 0.75, 1.0, 2.5, 7.3, 60.0])
def test_vectorised_sampler_conforms_to_the_exact_law_atoms(rng, sigma) -> None:
    law = DiscreteGaussianLaw(sigma)
    draws = sample_discrete_gaussian(sigma, N, rng)
    assert draws.shape == (N,) and draws.dtype == np.int64
    atom_test(draws, law.probabilities_within(_radius(sigma))).assert_ok()


def test_law_sample_and_loc_shift_the_draws(rng) -> None:
    law = DiscreteGaussianLaw(Fraction(3, 2), loc=-40)
    atom_test(law.sample(N, rng), law.probabilities_within(_radius(1.5))).assert_ok()
    draws = sample_discrete_gaussian(1.5, N, rng, loc=-40)
    atom_test(draws, law.probabilities_within(_radius(1.5))).assert_ok()


def test_sampler_with_sigma_10_percent_off_fails_the_atom_test(rng) -> None:
    """Power: the test that ties the sampler to its law rejects a sampler of the wrong σ."""
    probs = DiscreteGaussianLaw(2.0).probabilities_within(_radius(2.0))
    assert not atom_test(sample_discrete_gaussian(2.2, N, rng), probs).passed


@pytest.mark.parametrize("sigma", [1e6, 3e11, float(MAX_SAMPLER_SIGMA)], ids=repr)
def test_large_sigma_draws_follow_the_law_in_bands(rng, sigma) -> None:
    """Too many atoms for a per-atom test: the frequencies of |X| <= σ/2, of σ/2 < |X| <= 2σ and
    of X > 0 against the exact law (Clopper–Pearson, Bonferroni over 3, level 1e-7)."""
    law = DiscreteGaussianLaw(sigma)
    draws = sample_discrete_gaussian(sigma, N, rng)
    half, two = int(sigma / 2), int(2 * sigma)
    events = [
        (np.abs(draws) <= half, 1 - law.tail_mass_mp(half)),
        (
            (np.abs(draws) > half) & (np.abs(draws) <= two),
            law.tail_mass_mp(half) - law.tail_mass_mp(two),
        ),
        (draws > 0, law.sf_mp(0)),
    ]
    for hit, p in events:
        lo, hi = clopper_pearson(int(hit.sum()), N, DEFAULT_ALPHA / len(events))
        assert lo <= float(p) <= hi


def test_smallest_sigma_is_the_point_mass_at_loc(rng) -> None:
    """σ = 2^-500: P(X ≠ loc) = 2e^{-2^999}/θ(0), so every draw is loc."""
    assert (sample_discrete_gaussian(2.0**-500, 1000, rng, loc=7) == 7).all()
    assert (sample_discrete_gaussian(0.02, 1000, rng) == 0).all()  # P(X ≠ 0) < 1e-540


def test_sampler_is_reproducible_from_the_seed_and_allows_size_zero() -> None:
    a = sample_discrete_gaussian(3.0, 100, np.random.default_rng(5))
    b = sample_discrete_gaussian(3.0, 100, np.random.default_rng(5))
    assert (a == b).all()
    assert sample_discrete_gaussian(3.0, 0, np.random.default_rng(5)).shape == (0,)


@pytest.mark.parametrize(
    "sigma",
    [math.nan, math.inf, 0.0, -1.0, True, "1", None, 1e308, 1e-300, 2.0**47 * 1.01],
    ids=repr,
)
def test_bad_sigma_is_refused_naming_sigma(rng, sigma) -> None:
    with pytest.raises(ParameterError, match="sigma"):
        sample_discrete_gaussian(sigma, 10, rng)


def test_law_above_the_sampler_range_refuses_to_sample(rng) -> None:
    law = DiscreteGaussianLaw(1e20)  # a law, not a sampler: 1e20 > 2^47
    with pytest.raises(ParameterError, match="sigma"):
        law.sample(10, rng)


@pytest.mark.parametrize("loc", [1.5, "0", True, 2**60])
def test_bad_loc_is_refused_naming_loc(rng, loc) -> None:
    with pytest.raises(ParameterError, match="loc"):
        sample_discrete_gaussian(1.0, 10, rng, loc=loc)


@pytest.mark.parametrize("size", [-1, 2.5, True, "8", 10**12])
def test_bad_size_is_refused_naming_size(rng, size) -> None:
    with pytest.raises(ParameterError, match="size"):
        sample_discrete_gaussian(1.0, size, rng)


def test_bad_rng_is_refused_naming_rng() -> None:
    for bad in (None, 0, np.random.RandomState(0)):
        with pytest.raises(ParameterError, match="rng"):
            sample_discrete_gaussian(1.0, 10, bad)
