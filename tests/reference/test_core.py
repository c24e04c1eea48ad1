"""Core contracts and input validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference import ADJACENCIES, Mechanism, PrivacyClaim
from dpquant.reference.core import ExactMechanism
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse
from dpquant.reference.validation import (
    check_data,
    check_delta,
    check_domain,
    check_epsilon,
    check_probability,
    check_rng,
    check_size,
)

bad_positive = st.one_of(
    st.just(math.nan),
    st.just(math.inf),
    st.just(-math.inf),
    st.floats(max_value=0.0),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
)
bad_delta = st.one_of(
    st.just(math.nan),
    st.floats(min_value=1.0),
    st.floats(max_value=-1e-300),
    st.booleans(),
    st.none(),
)


def test_adjacencies_are_the_three_of_the_design() -> None:
    assert set(ADJACENCIES) == {"add_remove", "replace_one", "local"}


def test_privacy_claim_defaults_and_is_frozen() -> None:
    claim = PrivacyClaim(1.0)
    assert (claim.epsilon, claim.delta, claim.adjacency) == (1.0, 0.0, "replace_one")
    assert claim.is_pure
    with pytest.raises(AttributeError):
        claim.epsilon = 2.0  # type: ignore[misc]


@given(bad_positive)
def test_privacy_claim_rejects_bad_epsilon(eps) -> None:
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyClaim(eps)


@given(bad_delta)
def test_privacy_claim_rejects_bad_delta(delta) -> None:
    with pytest.raises(ValueError, match="delta"):
        PrivacyClaim(1.0, delta)


@pytest.mark.parametrize("adjacency", ["swap", "", None, "Add_Remove"])
def test_privacy_claim_rejects_unknown_adjacency(adjacency) -> None:
    with pytest.raises(ValueError, match="adjacency"):
        PrivacyClaim(1.0, 0.0, adjacency)


def test_reference_mechanisms_satisfy_the_protocol() -> None:
    for mech in (RandomizedResponse(1.0), ExponentialQuantile(0.5, 1.0, (0.0, 1.0))):
        assert isinstance(mech, Mechanism)
        assert isinstance(mech, ExactMechanism)
        assert isinstance(mech.claim, PrivacyClaim)


@given(
    st.one_of(
        st.just([]),
        st.just([[1.0, 2.0]]),
        st.just([1.0, math.nan]),
        st.just([math.inf]),
        st.just("abc"),
        st.just([True, False]),
        st.just([None]),
    )
)
def test_check_data_rejects_bad_arrays(data) -> None:
    with pytest.raises(ValueError, match="data"):
        check_data(data)


def test_check_data_enforces_the_domain_and_copies() -> None:
    original = np.array([0.5, 0.2])
    out = check_data(original, domain=(0.0, 1.0))
    out[0] = 9.0
    assert original[0] == 0.5
    with pytest.raises(ValueError, match=r"inside the domain \[0.0, 1.0\]"):
        check_data([0.5, 1.5], domain=(0.0, 1.0))
    assert check_data([], allow_empty=True).size == 0


@given(
    st.one_of(
        st.just((1.0, 1.0)),
        st.just((2.0, 1.0)),
        st.just((math.nan, 1.0)),
        st.just((0.0,)),
        st.just("ab"),
        st.just(None),
    )
)
def test_check_domain_rejects_bad_pairs(domain) -> None:
    with pytest.raises(ValueError, match="domain"):
        check_domain(domain)


def test_check_domain_allows_infinite_ends_unless_finite_required() -> None:
    assert check_domain((-math.inf, math.inf)) == (-math.inf, math.inf)
    with pytest.raises(ValueError, match="finite"):
        check_domain((-math.inf, 0.0), finite=True)


@given(st.one_of(st.integers(max_value=-1), st.floats(), st.booleans(), st.text(max_size=2)))
def test_check_size_rejects_non_natural_numbers(size) -> None:
    with pytest.raises(ValueError, match="size"):
        check_size(size)


def test_simple_validators_name_the_parameter_and_range() -> None:
    with pytest.raises(ValueError, match=r"epsilon must be a finite number > 0"):
        check_epsilon(0.0)
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\)"):
        check_delta(1.0)
    with pytest.raises(ValueError, match=r"q must lie in \(0, 1\]"):
        check_probability(0.0, "q", open_left=True)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        check_rng(np.random.RandomState(0))
