"""Core contracts and input validation."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference import ADJACENCIES, CLAIM_ADJACENCIES, Adjacency, Mechanism, PrivacyClaim
from dpquant.reference.core import (
    ExactMechanism,
    ExactMechanismBase,
    MechanismBase,
    PerDrawMechanism,
    check_adjacency,
    check_claim,
)
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
    assert set(CLAIM_ADJACENCIES) == set(Adjacency)
    assert all(isinstance(a, Adjacency) for a in CLAIM_ADJACENCIES)


def test_adjacency_members_compare_format_and_serialise_as_their_strings() -> None:
    member = Adjacency.ADD_REMOVE
    assert member == "add_remove" and hash(member) == hash("add_remove")
    assert (str(member), f"{member}", repr(member)) == ("add_remove", "add_remove", "'add_remove'")
    assert json.dumps({"adjacency": member}) == '{"adjacency": "add_remove"}'
    assert Adjacency("add_remove") is member


@pytest.mark.parametrize("given", ["local", Adjacency.LOCAL])
def test_privacy_claim_takes_the_string_or_the_enum_and_stores_the_enum(given) -> None:
    claim = PrivacyClaim(1.0, 0.0, given)
    assert claim.adjacency is Adjacency.LOCAL
    assert claim == PrivacyClaim(1.0, 0.0, "local") == PrivacyClaim(1.0, 0.0, Adjacency.LOCAL)


def test_the_json_and_repr_of_a_claim_are_those_of_the_string_relation() -> None:
    claim = PrivacyClaim(0.5, 1e-6, Adjacency.ADD_REMOVE)
    assert (
        json.dumps(claim.to_dict()) == '{"epsilon": 0.5, "delta": 1e-06, "adjacency": "add_remove"}'
    )
    assert repr(claim) == "PrivacyClaim(epsilon=0.5, delta=1e-06, adjacency='add_remove')"


def test_check_claim_gives_back_the_enum_when_a_string_was_forced_in() -> None:
    claim = PrivacyClaim(1.0)
    object.__setattr__(claim, "adjacency", "local")
    checked = check_claim(claim)
    assert checked.adjacency is Adjacency.LOCAL and checked is not claim
    assert check_claim(checked) is checked


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
    allowed = r"\('add_remove', 'replace_one', 'local', 'query_answers', 'custom'\)"
    with pytest.raises(
        ValueError, match=rf"^adjacency must be one of {allowed}, got {adjacency!r}"
    ):
        PrivacyClaim(1.0, 0.0, adjacency)


def test_check_adjacency_takes_the_relations_between_data_sets_only() -> None:
    assert check_adjacency("replace_one") is Adjacency.REPLACE_ONE
    with pytest.raises(
        ValueError, match=r"^adjacency must be one of \('add_remove', 'replace_one', "
    ):
        check_adjacency(Adjacency.CUSTOM)


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


# -- MechanismBase: nothing silent in the contract (issue 36) --------------------------------


def test_a_mechanism_that_states_no_adjacency_is_refused_when_defined() -> None:
    with pytest.raises(TypeError, match=r"(^|\.)Silent states no adjacency: .*no default"):

        @dataclass(frozen=True)
        class Silent(MechanismBase):
            epsilon: float = 1.0

            def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
                return rng.random(size)


def test_an_unknown_adjacency_stated_by_a_class_is_refused_when_defined() -> None:
    with pytest.raises(ValueError, match=r"(^|\.)Swap\.adjacency must be one of \('add_remove', "):

        class Swap(MechanismBase):
            adjacency = "swap"

            def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
                return rng.random(size)


@dataclass(frozen=True)
class _Uniform(MechanismBase):
    """A concrete mechanism whose relation is a dataclass field without a default."""

    adjacency: Adjacency | str
    epsilon: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "adjacency", check_adjacency(self.adjacency))

    def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.random(size)


@pytest.mark.parametrize("given", ["add_remove", Adjacency.ADD_REMOVE])
def test_a_mechanism_field_takes_the_string_or_the_enum(given) -> None:
    mech = _Uniform(given)
    assert mech.adjacency is Adjacency.ADD_REMOVE and mech.claim.adjacency is Adjacency.ADD_REMOVE
    assert repr(mech) == "_Uniform(adjacency='add_remove', epsilon=1.0)"
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0), adjacency=given)
    assert em.adjacency is Adjacency.ADD_REMOVE and "adjacency='add_remove'" in repr(em)


def test_an_abstract_base_may_leave_the_relation_to_its_subclasses() -> None:
    class Family(MechanismBase):  # no _draw: abstract, so no relation is needed yet
        epsilon = 1.0

    class Member(Family):
        adjacency = Adjacency.LOCAL

        def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
            return rng.random(size)

    with pytest.raises(TypeError, match="abstract"):
        Family()
    assert Member().claim == PrivacyClaim(1.0, 0.0, "local")
    with pytest.raises(TypeError, match=r"(^|\.)Orphan states no adjacency"):

        class Orphan(Family):
            def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
                return rng.random(size)


def test_a_mechanism_without_draw_cannot_be_instantiated() -> None:
    class NoDraw(MechanismBase):
        adjacency = Adjacency.REPLACE_ONE
        epsilon = 1.0

    class NoLaw(ExactMechanismBase):
        adjacency = Adjacency.REPLACE_ONE
        epsilon = 1.0

        def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
            return rng.random(size)

    class NoDrawOne(PerDrawMechanism):
        adjacency = Adjacency.REPLACE_ONE
        epsilon = 1.0

    for cls, missing in ((NoDraw, "_draw"), (NoLaw, "_law"), (NoDrawOne, "_draw_one")):
        with pytest.raises(TypeError, match=rf"abstract class {cls.__name__} .*{missing}\b"):
            cls()


def test_draw_one_outside_a_per_draw_mechanism_is_refused_when_defined() -> None:
    with pytest.raises(TypeError, match=r"(^|\.)Lost gives _draw_one but no _draw calls it"):

        class Lost(MechanismBase):
            adjacency = Adjacency.REPLACE_ONE

            def _draw_one(self, data: Any, rng: np.random.Generator) -> float:
                return float(rng.random())


def test_a_per_draw_mechanism_draws_one_output_per_call_in_order() -> None:
    class Coin(PerDrawMechanism):
        adjacency = Adjacency.LOCAL
        epsilon = 1.0

        def _draw_one(self, data: Any, rng: np.random.Generator) -> float:
            return float(data[0] + rng.random())

    out = Coin().sample([0.25], 5, np.random.default_rng(7))
    expected = 0.25 + np.random.default_rng(7).random(5)
    assert out.shape == (5,) and np.array_equal(out, expected)
