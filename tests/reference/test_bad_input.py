"""Every public sampler and constructor rejects bad input with a ValueError naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.audit.model.neighbours import exhaustive_data_pairs
from dpquant.audit.statistics.exact_loss import exact_sweep
from dpquant.reference.conformance import check_sampler
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear
from dpquant.reference.primitives.candidate_quantile import (
    CandidateQuantile,
    LaplaceNoisyMaxQuantile,
)
from dpquant.reference.primitives.continual_counting import ContinualCounting
from dpquant.reference.primitives.discrete_laplace import (
    DiscreteLaplaceLaw,
    sample_discrete_laplace,
)
from dpquant.reference.primitives.exact_discrete_laplace import sample_discrete_laplace_exact
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.laplace import sample_laplace
from dpquant.reference.primitives.randomized_response import RandomizedResponse, keep_probability
from dpquant.reference.primitives.truncated import (
    sample_truncated_exponential,
    sample_truncated_laplace,
    sample_uniform,
)

RNG = np.random.default_rng(0)

# (name, callable taking (size, rng)) for every public sampler of the foundation
SAMPLERS = [
    ("DiscreteLaw.sample", lambda size, rng: DiscreteLaw([0, 1], [0.0, 0.0]).sample(size, rng)),
    (
        "PiecewiseLogLinear.sample",
        lambda size, rng: PiecewiseLogLinear([0, 1], [0], [0]).sample(size, rng),
    ),
    (
        "ExponentialQuantile.sample",
        lambda size, rng: ExponentialQuantile(0.5, 1.0, (0, 1)).sample([0.5], size, rng),
    ),
    ("RandomizedResponse.sample", lambda size, rng: RandomizedResponse(1.0).sample(1, size, rng)),
    (
        "CandidateQuantile.sample",
        lambda size, rng: CandidateQuantile((0.0, 0.5, 1.0), 0.5, 1.0).sample([0.4], size, rng),
    ),
    (
        "LaplaceNoisyMaxQuantile.sample",
        lambda size, rng: LaplaceNoisyMaxQuantile((0.0, 1.0), 0.5, 1.0).sample([0.4], size, rng),
    ),
    (
        "ContinualCounting.sample_noise",
        lambda size, rng: ContinualCounting(3, 1.0).sample_noise(size, rng),
    ),
    ("sample_laplace", lambda size, rng: sample_laplace(0.0, 1.0, size, rng)),
    ("sample_discrete_laplace", lambda size, rng: sample_discrete_laplace(1.0, size, rng)),
    (
        "sample_discrete_laplace_exact",
        lambda size, rng: sample_discrete_laplace_exact(1, size, rng),
    ),
    ("DiscreteLaplaceLaw.sample", lambda size, rng: DiscreteLaplaceLaw(1.0).sample(size, rng)),
    ("sample_uniform", lambda size, rng: sample_uniform(0.0, 1.0, size, rng)),
    (
        "sample_truncated_exponential",
        lambda size, rng: sample_truncated_exponential(1.0, 0.0, 0.0, 1.0, size, rng),
    ),
    (
        "sample_truncated_laplace",
        lambda size, rng: sample_truncated_laplace(0.0, 1.0, -1.0, 1.0, size, rng),
    ),
]
bad_sizes = st.one_of(
    st.integers(max_value=-1),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
)
bad_rngs = st.one_of(
    st.integers(), st.none(), st.just(np.random.RandomState(0)), st.text(max_size=2)
)


@pytest.mark.parametrize("name, sampler", SAMPLERS, ids=[s[0] for s in SAMPLERS])
@given(size=bad_sizes)
def test_every_sampler_rejects_a_bad_size(name, sampler, size) -> None:
    with pytest.raises(ValueError, match="size"):
        sampler(size, RNG)


@pytest.mark.parametrize("name, sampler", SAMPLERS, ids=[s[0] for s in SAMPLERS])
@given(rng=bad_rngs)
def test_every_sampler_rejects_a_non_generator_rng(name, sampler, rng) -> None:
    with pytest.raises(ValueError, match="rng"):
        sampler(3, rng)


@pytest.mark.parametrize("name, sampler", SAMPLERS, ids=[s[0] for s in SAMPLERS])
def test_every_sampler_returns_size_draws(name, sampler) -> None:
    assert len(sampler(5, np.random.default_rng(1))) == 5


@pytest.mark.parametrize("name, sampler", SAMPLERS, ids=[s[0] for s in SAMPLERS])
def test_laws_and_noise_samplers_accept_zero_draws_and_mechanisms_refuse_them(name, sampler):
    """A mechanism's ``sample`` takes a positive size (MechanismBase); a law or a noise sampler
    returns an empty array for size 0, as numpy does."""
    mechanisms = (
        "ExponentialQuantile",
        "RandomizedResponse",
        "CandidateQuantile",
        "LaplaceNoisyMaxQuantile",
    )
    if name.split(".")[0] in mechanisms:
        with pytest.raises(ValueError, match=r"size must be an integer in \[1, "):
            sampler(0, np.random.default_rng(1))
    else:
        assert len(sampler(0, np.random.default_rng(1))) == 0


@given(st.one_of(st.just(math.nan), st.just(math.inf), st.floats(max_value=0.0), st.booleans()))
def test_epsilon_taking_entry_points_reject_bad_epsilon(eps) -> None:
    for build in (
        lambda: keep_probability(eps),
        lambda: RandomizedResponse(eps),
        lambda: ExponentialQuantile(0.5, eps, (0, 1)),
    ):
        with pytest.raises(ValueError, match="epsilon"):
            build()


def test_audit_helpers_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="adjacency"):
        list(exhaustive_data_pairs([0.0, 1.0], 2, "swap"))
    with pytest.raises(ValueError, match="max_n"):
        list(exhaustive_data_pairs([0.0, 1.0], 0, "replace_one"))
    with pytest.raises(ValueError, match="values"):
        list(exhaustive_data_pairs([], 2, "replace_one"))
    with pytest.raises(ValueError, match="exact"):
        exact_sweep(object(), [((0.0,), (1.0,))])
    with pytest.raises(ValueError, match="pairs"):
        exact_sweep(RandomizedResponse(1.0), [])
    with pytest.raises(ValueError, match="law"):
        check_sampler("not a law", np.zeros(3))
