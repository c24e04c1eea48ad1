"""The counting queries with Gaussian, Laplace and discrete Gaussian noise
(dpquant.reference.primitives.noise_mechanisms): their claims, their samplers against their laws,
their refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from dpquant.errors import ParameterError
from dpquant.reference import PrivacyClaim
from dpquant.reference.conformance import check_sampler, dkw_test
from dpquant.reference.measures import GDPClaim, ZCDPClaim
from dpquant.reference.measures.conversions import gdp_delta
from dpquant.reference.primitives.noise_mechanisms import (
    DiscreteGaussianCount,
    GaussianCount,
    LaplaceCount,
)

LEVEL = 1e-8


def test_theorem_2_7_gaussian_count_claims_one_over_sigma_gdp_and_what_it_implies() -> None:
    mech = GaussianCount(2.0, adjacency="replace_one")
    assert mech.claim == GDPClaim(0.5, adjacency="replace_one")
    assert mech.zcdp_claim == ZCDPClaim(0.125, adjacency="replace_one")
    approx = mech.approximate_claim(1.0)
    assert approx.epsilon == 1.0 and approx.delta >= float(gdp_delta(0.5, 1.0))
    assert approx.delta <= math.nextafter(float(gdp_delta(0.5, 1.0)), 1.0)


def test_gaussian_count_draws_the_normal_law_around_the_count() -> None:
    rng = np.random.default_rng(7)
    draws = GaussianCount(1.5).sample([1.0, 1.0, 0.0], 200_000, rng)
    assert dkw_test(draws, lambda y: norm.cdf(y, loc=2.0, scale=1.5), LEVEL).passed


def test_laplace_count_sampler_matches_its_exact_law() -> None:
    mech = LaplaceCount(0.7)
    assert mech.claim == PrivacyClaim(0.7, 0.0, "add_remove")
    draws = mech.sample([1.0, 0.0, 1.0], 200_000, np.random.default_rng(8))
    assert check_sampler(mech.exact([1.0, 0.0, 1.0]), draws, LEVEL).passed


def test_theorem_4_discrete_gaussian_count_claims_its_rho_and_samples_its_law() -> None:
    mech = DiscreteGaussianCount(1.5)
    assert mech.claim == ZCDPClaim(1 / (2 * 1.5**2), adjacency="add_remove")
    law = mech.exact([1.0, 1.0])
    assert min(law.support) == -mech.radius and max(law.support) == mech.max_records + mech.radius
    draws = mech.sample([1.0, 1.0], 200_000, np.random.default_rng(9))
    assert check_sampler(law, draws, LEVEL).passed


def test_a_wrong_scale_fails_the_samplers_check() -> None:
    """The conformance test has power: a σ 10 % off is caught at the same level."""
    law = DiscreteGaussianCount(1.5).exact([1.0])
    draws = DiscreteGaussianCount(1.65).sample([1.0], 200_000, np.random.default_rng(10))
    assert not check_sampler(law, draws, LEVEL).passed


@pytest.mark.parametrize(
    ("factory", "kwargs", "name"),
    [
        (GaussianCount, {"sigma": 0.0}, "sigma"),
        (GaussianCount, {"sigma": float("nan")}, "sigma"),
        (GaussianCount, {"sigma": 1e7}, "sigma"),
        (GaussianCount, {"sigma": True}, "sigma"),
        (DiscreteGaussianCount, {"sigma": "1"}, "sigma"),
        (DiscreteGaussianCount, {"sigma": 1.0, "max_records": 0}, "max_records"),
        (LaplaceCount, {"epsilon": -1.0}, "epsilon"),
        (LaplaceCount, {"epsilon": 1.0, "adjacency": "local"}, "adjacency"),
    ],
)
def test_bad_parameters_are_refused_with_their_name(factory, kwargs, name) -> None:
    with pytest.raises(ValueError) as info:
        factory(**kwargs)
    if isinstance(info.value, ParameterError):
        assert info.value.parameter == name
    else:
        assert str(info.value).startswith(name)


@pytest.mark.parametrize("data", [[0.5], [2.0], [float("nan")], ["1"]])
def test_data_that_are_not_bits_are_refused(data) -> None:
    with pytest.raises(ValueError):
        GaussianCount(1.0).sample(data, 3, np.random.default_rng(0))


def test_any_size_is_sampled_and_the_exact_law_refuses_beyond_its_window() -> None:
    """Refusing data sets above a size would leak the size; only the exact law is bounded."""
    mech = DiscreteGaussianCount(1.0, max_records=4)
    assert mech.sample([1.0] * 100, 3, np.random.default_rng(0)).shape == (3,)
    with pytest.raises(ParameterError) as info:
        mech.exact([1.0] * 5)
    assert info.value.parameter == "data"
