"""The claims of every kind (issue 37; notes/measures.md, "Claims"): each constructor normalises
what it takes (a mapping, unsorted pairs, a relation's name) and refuses bad input with a
ParameterError naming the parameter; the claims are frozen, :func:`check_any_claim` checks them
again at the time of use, and ``to_dict`` carries everything needed to build the claim again."""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, PrivacyClaim
from dpquant.reference.measures import (
    CLAIM_KINDS,
    GDPClaim,
    MeasureClaim,
    ProfileClaim,
    RenyiClaim,
    ZCDPClaim,
    check_any_claim,
    claim_delta_at,
    claim_measure,
    claim_renyi_at,
)
from dpquant.reference.measures.claims import MAX_PROFILE_POINTS, MAX_RENYI_ORDERS

EXAMPLES: list[MeasureClaim] = [
    ZCDPClaim(0.5),
    ZCDPClaim(0.25, xi=0.1, adjacency="add_remove"),
    RenyiClaim({8.0: 1.0, 2.0: 0.3, math.inf: 2.0}),
    GDPClaim(1.0, adjacency="local"),
    ProfileClaim([(1.0, 1e-6), (0.5, 1e-3)], source="a user's curve"),
]


def _refused(make: Any, parameter: str) -> ParameterError:
    """The ParameterError ``make()`` raises, checked to name ``parameter``."""
    with pytest.raises(ParameterError) as info:
        make()
    assert info.value.parameter == parameter, str(info.value)
    assert str(info.value).startswith(parameter)
    return info.value


# ---------------------------------------------------------------------------- normalisation


def test_zcdp_claim_stores_floats_and_the_relation_as_an_adjacency() -> None:
    claim = ZCDPClaim(np.float32(0.5), Fraction(1, 4), "add_remove")
    assert (claim.rho, claim.xi) == (0.5, 0.25)
    assert type(claim.rho) is float and type(claim.xi) is float
    assert claim.adjacency is Adjacency.ADD_REMOVE
    assert ZCDPClaim(2).xi == 0.0 and ZCDPClaim(2).adjacency is Adjacency.REPLACE_ONE


def test_renyi_claim_takes_a_mapping_or_pairs_and_stores_them_sorted_by_order() -> None:
    from_mapping = RenyiClaim({math.inf: 3.0, 2: 0.5, 16.0: 1.5})
    from_pairs = RenyiClaim([[16, 1.5], (math.inf, 3), (2.0, 0.5)])
    assert from_mapping.orders == ((2.0, 0.5), (16.0, 1.5), (math.inf, 3.0))
    assert from_pairs == from_mapping
    assert RenyiClaim(iter([(3, 1)])).orders == ((3.0, 1.0),)  # any iterable


def test_renyi_claim_takes_an_infinite_order_of_any_real_type() -> None:
    """``numpy.float32('inf')`` is +inf as much as ``math.inf`` (it was refused as not finite)."""
    assert RenyiClaim([(np.float32("inf"), 1.0)]).orders == ((math.inf, 1.0),)


def test_profile_claim_takes_a_mapping_or_pairs_and_stores_them_sorted_by_epsilon() -> None:
    claim = ProfileClaim([(2.0, 1e-9), [0.5, 0.01], (1, 1e-4)])
    assert claim.points == ((0.5, 0.01), (1.0, 1e-4), (2.0, 1e-9))
    assert ProfileClaim({2.0: 1e-9, 0.5: 0.01, 1: 1e-4}) == claim
    assert ProfileClaim([(0, 1), (3, 0)]).points == ((0.0, 1.0), (3.0, 0.0))  # both ends of [0, 1]


def test_profile_claims_equal_whatever_their_source() -> None:
    assert ProfileClaim([(1, 0.1)], source="a") == ProfileClaim([(1, 0.1)], source="b")


def test_gdp_claim_stores_mu_as_a_float() -> None:
    claim = GDPClaim(Fraction(3, 2), "local")
    assert claim.mu == 1.5 and type(claim.mu) is float and claim.adjacency is Adjacency.LOCAL


def test_the_largest_finite_double_is_a_claim_where_the_range_has_no_upper_end() -> None:
    big = 1e308
    assert ZCDPClaim(big, xi=big).rho == big
    assert RenyiClaim([(big, big)]).orders == ((big, big),)
    assert GDPClaim(big).mu == big
    assert ProfileClaim([(big, 0.5)]).points == ((big, 0.5),)
    assert GDPClaim(big).delta_at(0) == 1  # and the profile at it is still a probability
    assert ZCDPClaim(big).delta_at(1) == 1


def test_tables_of_the_largest_size_are_taken() -> None:
    orders = RenyiClaim([(1.5 + k, k / 10) for k in range(MAX_RENYI_ORDERS)])
    assert len(orders.orders) == MAX_RENYI_ORDERS
    points = ProfileClaim([(k / 100, 1 / (k + 1)) for k in range(MAX_PROFILE_POINTS)])
    assert len(points.points) == MAX_PROFILE_POINTS


def test_an_endless_table_is_refused_without_being_read_whole() -> None:
    """A generator of pairs without end is refused after one pair too many (never a hang)."""
    _refused(lambda: RenyiClaim((2.0 + k, 1.0) for k in itertools.count()), "orders")
    _refused(lambda: ProfileClaim((float(k), 0.5) for k in itertools.count()), "points")


# ---------------------------------------------------------------------------- refusals

BAD_NUMBERS: list[Any] = [math.nan, math.inf, -math.inf, True, "1", None, 1j, 10**400]


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 0, 0.0, -1.0, -1e308, 5e-324 / 2])
def test_zcdp_claim_refuses_a_rho_that_is_not_a_finite_positive_number(bad: Any) -> None:
    _refused(lambda: ZCDPClaim(bad), "rho")


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, -1e-300, -1.0])
def test_zcdp_claim_refuses_a_xi_that_is_not_a_finite_number_at_least_zero(bad: Any) -> None:
    _refused(lambda: ZCDPClaim(1.0, xi=bad), "xi")


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, 0, -1.0])
def test_gdp_claim_refuses_a_mu_that_is_not_a_finite_positive_number(bad: Any) -> None:
    _refused(lambda: GDPClaim(bad), "mu")


@pytest.mark.parametrize("bad", ["nope", "", 3, None, "ADD_REMOVE"])
def test_claims_refuse_an_unknown_relation_naming_adjacency(bad: Any) -> None:
    _refused(lambda: ZCDPClaim(1.0, adjacency=bad), "adjacency")
    _refused(lambda: RenyiClaim([(2, 1)], adjacency=bad), "adjacency")
    _refused(lambda: GDPClaim(1.0, adjacency=bad), "adjacency")
    _refused(lambda: ProfileClaim([(1, 0.1)], adjacency=bad), "adjacency")


@pytest.mark.parametrize(
    ("orders", "parameter"),
    [
        ([], "orders"),
        ({}, "orders"),
        ([(2.0 + k, 1.0) for k in range(MAX_RENYI_ORDERS + 1)], "orders"),
        ("2:1", "orders"),
        (b"\x02\x01", "orders"),
        (5, "orders"),
        (None, "orders"),
        ([(2.0, 1.0), (2, 0.5)], "orders"),  # a repeated order (2 == 2.0)
        ([(3, 1), (3.0, 1)], "orders"),
        ([(1.0, 0.1)], "orders[0][0]"),  # order 1 is no Rényi order
        ([(2, 1), (0.5, 0.1)], "orders[1][0]"),
        ([(-math.inf, 1)], "orders[0][0]"),
        ([(math.nan, 1)], "orders[0][0]"),
        ([(True, 1)], "orders[0][0]"),
        ([("2", 1)], "orders[0][0]"),
        ([(10**400, 1)], "orders[0][0]"),
        ([(2, -0.1)], "orders[0][1]"),
        ([(2, math.inf)], "orders[0][1]"),
        ([(2, math.nan)], "orders[0][1]"),
        ([(2, False)], "orders[0][1]"),
        ([(2, 1, 3)], "orders[0]"),
        (["21"], "orders[0]"),
        ([2.0], "orders[0]"),
        ([np.array([2.0, 1.0])], "orders[0]"),
    ],
)
def test_renyi_claim_refuses_bad_orders_naming_the_pair_and_its_part(
    orders: Any, parameter: str
) -> None:
    _refused(lambda: RenyiClaim(orders), parameter)


@pytest.mark.parametrize(
    ("points", "parameter"),
    [
        ([], "points"),
        ({}, "points"),
        ([(k / 10, 0.5) for k in range(MAX_PROFILE_POINTS + 1)], "points"),
        ("1,0.1", "points"),
        (3.0, "points"),
        ([(1.0, 0.1), (1, 0.2)], "points"),  # a repeated epsilon
        ([(1.0, 1.5)], "points[0][1]"),  # δ > 1
        ([(1.0, 1e308)], "points[0][1]"),
        ([(1.0, -1e-9)], "points[0][1]"),
        ([(1.0, math.nan)], "points[0][1]"),
        ([(1.0, math.inf)], "points[0][1]"),
        ([(1.0, True)], "points[0][1]"),
        ([(0.5, 0.1), (-1.0, 0.1)], "points[1][0]"),
        ([(math.inf, 0.1)], "points[0][0]"),
        ([(math.nan, 0.1)], "points[0][0]"),
        ([("1", 0.1)], "points[0][0]"),
        ([(None, 0.1)], "points[0][0]"),
        ([(1.0,)], "points[0]"),
        (["ab"], "points[0]"),
    ],
)
def test_profile_claim_refuses_bad_points_naming_the_point_and_its_part(
    points: Any, parameter: str
) -> None:
    _refused(lambda: ProfileClaim(points), parameter)


@pytest.mark.parametrize("bad", [5, None, b"file.csv", "x" * 201])
def test_profile_claim_refuses_a_source_that_is_not_a_short_string(bad: Any) -> None:
    _refused(lambda: ProfileClaim([(1, 0.1)], source=bad), "source")


def test_profile_claim_from_function_tabulates_it_at_the_epsilons_given() -> None:
    claim = ProfileClaim.from_function(lambda e: math.exp(-e), [2.0, 0.0, 1.0], "add_remove")
    assert claim.points == ((0.0, 1.0), (1.0, math.exp(-1)), (2.0, math.exp(-2)))
    assert claim.source == "function" and claim.adjacency is Adjacency.ADD_REMOVE
    _refused(lambda: ProfileClaim.from_function("exp", [1.0]), "delta_of_epsilon")
    _refused(lambda: ProfileClaim.from_function(math.exp, [1.0, -1.0]), "epsilons[1]")
    _refused(lambda: ProfileClaim.from_function(lambda e: 2.0, [1.0]), "points[0][1]")


def test_profile_claim_from_accountant_reads_its_get_delta() -> None:
    class Accountant:
        def get_delta(self, epsilon: float) -> float:
            return 0.5 / (1 + epsilon)

    claim = ProfileClaim.from_accountant(Accountant(), [0.0, 1.0])
    assert claim.points == ((0.0, 0.5), (1.0, 0.25)) and claim.source == "dp_accounting"
    _refused(lambda: ProfileClaim.from_accountant(object(), [1.0]), "accountant")


# ---------------------------------------------------------------------------- frozen, checked again


@pytest.mark.parametrize("claim", EXAMPLES, ids=lambda c: c.measure)
def test_claims_are_frozen(claim: MeasureClaim) -> None:
    name = dataclasses.fields(claim)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(claim, name, 1.0)


@pytest.mark.parametrize("claim", EXAMPLES, ids=lambda c: c.measure)
def test_check_any_claim_returns_an_unchanged_claim_equal_to_itself(claim: MeasureClaim) -> None:
    """(It raised TypeError for every claim of the new kinds: the class attribute ``measure`` was
    read as a field and passed to the constructor.)"""
    checked = check_any_claim(claim)
    assert checked == claim and type(checked) is type(claim)


@pytest.mark.parametrize(
    ("claim", "field", "value", "parameter"),
    [
        (ZCDPClaim(0.5), "rho", -1.0, "claim.rho"),
        (ZCDPClaim(0.5), "xi", math.nan, "claim.xi"),
        (RenyiClaim({2: 1.0}), "orders", ((1.0, 1.0),), "claim.orders[0][0]"),
        (RenyiClaim({2: 1.0}), "orders", ((2.0, 1.0), (2.0, 3.0)), "claim.orders"),
        (GDPClaim(1.0), "mu", 0.0, "claim.mu"),
        (GDPClaim(1.0), "adjacency", "nowhere", "claim.adjacency"),
        (ProfileClaim([(1, 0.1)]), "points", ((1.0, 2.0),), "claim.points[0][1]"),
        (ProfileClaim([(1, 0.1)]), "source", 7, "claim.source"),
    ],
)
def test_check_any_claim_refuses_a_field_changed_after_construction(
    claim: MeasureClaim, field: str, value: Any, parameter: str
) -> None:
    object.__setattr__(claim, field, value)
    _refused(lambda: check_any_claim(claim), parameter)


def test_check_any_claim_rebuilds_a_claim_whose_field_was_changed_to_a_valid_value() -> None:
    claim = RenyiClaim({2: 1.0})
    object.__setattr__(claim, "orders", {4: 2.0, 3: 1.5})
    object.__setattr__(claim, "adjacency", "add_remove")
    checked = check_any_claim(claim)
    assert checked is not claim
    assert checked.orders == ((3.0, 1.5), (4.0, 2.0)) and checked.adjacency is Adjacency.ADD_REMOVE


def test_check_any_claim_checks_a_privacy_claim_like_check_claim() -> None:
    claim = PrivacyClaim(1.0, 1e-6)
    assert check_any_claim(claim) is claim
    object.__setattr__(claim, "delta", 1.0)
    _refused(lambda: check_any_claim(claim, "target.claim"), "target.claim.delta")


@pytest.mark.parametrize("bad", [None, 1.0, "zcdp:0.5", {"rho": 0.5}, (0.5, 0.0), object()])
def test_check_any_claim_refuses_what_is_no_claim(bad: Any) -> None:
    error = _refused(lambda: check_any_claim(bad, "mech.claim"), "mech.claim")
    assert all(kind.__name__ in error.allowed for kind in CLAIM_KINDS)


# ---------------------------------------------------------------------------- to_dict


@pytest.mark.parametrize("claim", EXAMPLES, ids=lambda c: c.measure)
def test_to_dict_names_the_measure_and_builds_the_claim_again(claim: MeasureClaim) -> None:
    data = claim.to_dict()  # type: ignore[attr-defined]
    assert data["measure"] == claim.measure == claim_measure(claim)
    rebuilt = type(claim)(**{k: v for k, v in data.items() if k != "measure"})
    assert rebuilt == claim
    if isinstance(claim, ProfileClaim):
        assert rebuilt.source == claim.source


def test_claim_measure_names_pure_and_approximate_privacy_claims() -> None:
    assert claim_measure(PrivacyClaim(1.0)) == "pure"
    assert claim_measure(PrivacyClaim(1.0, 1e-5)) == "approximate"
    assert {c.measure for c in EXAMPLES} == {"zcdp", "renyi", "gdp", "profile"}


# ---------------------------------------------------------------------------- what a claim implies


def test_profile_claim_implies_the_delta_of_the_largest_point_at_most_epsilon() -> None:
    """(ε, δ)-DP implies (ε', δ)-DP for ε' >= ε; below the first point nothing is claimed."""
    claim = ProfileClaim([(0.5, 0.2), (1.0, 0.05), (2.0, 0.3)])
    assert claim.delta_at(0.25) == 1
    assert claim.delta_at(0.5) == mpmath.mpf(0.2)
    assert claim.delta_at(1.5) == mpmath.mpf(0.05)
    assert claim.delta_at(2.5) == mpmath.mpf(0.05)  # a looser later point does not undo it


def test_renyi_claim_implies_the_least_epsilon_at_the_listed_orders_at_least_alpha() -> None:
    """D_α is nondecreasing in α (van Erven and Harremoës 2014, Theorem 3)."""
    claim = RenyiClaim({2: 0.5, 4: 0.4, 8: 1.0})
    assert claim.renyi_at(1.5) == mpmath.mpf(0.4)
    assert claim.renyi_at(4) == mpmath.mpf(0.4)
    assert claim.renyi_at(5) == 1
    assert claim.renyi_at(9) is None
    assert RenyiClaim({math.inf: 2.0}).renyi_at(math.inf) == 2


def test_zcdp_and_gdp_claims_imply_linear_renyi_bounds() -> None:
    """ξ + ρα (Bun and Steinke 2016, Definition 1.1) and αμ²/2 (Dong, Roth and Su 2022)."""
    assert ZCDPClaim(0.5, xi=0.25).renyi_at(3) == mpmath.mpf("1.75")
    assert ZCDPClaim(0.5).renyi_at(math.inf) == mpmath.inf
    assert GDPClaim(2.0).renyi_at(1.5) == 3


def test_claim_renyi_at_of_a_privacy_claim_is_min_of_epsilon_and_alpha_epsilon_squared_over_2() -> None:
    assert claim_renyi_at(PrivacyClaim(2.0), 1.5) == 2  # min(2, 1.5 · 2) = 2
    with mpmath.workdps(60):
        assert abs(claim_renyi_at(PrivacyClaim(0.1), 2) - mpmath.mpf(0.1) ** 2) < mpmath.mpf(10) ** -50
    assert claim_renyi_at(PrivacyClaim(1.0, 1e-6), 2) is None
    _refused(lambda: claim_renyi_at(PrivacyClaim(1.0), 1.0), "order")


def test_claim_delta_at_of_a_privacy_claim_is_its_four_outcome_profile() -> None:
    assert claim_delta_at(PrivacyClaim(1.0, 1e-6), 2.0) == mpmath.mpf(1e-6)
    assert claim_delta_at(PrivacyClaim(1.0), 1.0) == 0
    assert claim_delta_at(ZCDPClaim(0.5), 0) == ZCDPClaim(0.5).delta_at(0)


@pytest.mark.parametrize("claim", EXAMPLES, ids=lambda c: c.measure)
@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, True, "1"])
def test_delta_at_refuses_a_bad_epsilon_naming_epsilon(claim: MeasureClaim, bad: Any) -> None:
    _refused(lambda: claim.delta_at(bad), "epsilon")
    _refused(lambda: claim_delta_at(claim, bad), "epsilon")


@pytest.mark.parametrize("claim", EXAMPLES, ids=lambda c: c.measure)
@pytest.mark.parametrize("bad", [1.0, 0.5, -math.inf, math.nan, False, "2"])
def test_renyi_at_refuses_a_bad_order_naming_order(claim: MeasureClaim, bad: Any) -> None:
    """A profile implies no Rényi bound, but its ``renyi_at`` still refuses a bad order (it
    returned None for any value)."""
    _refused(lambda: claim.renyi_at(bad), "order")
    _refused(lambda: claim_renyi_at(claim, bad), "order")
    assert ProfileClaim([(1, 0.1)]).renyi_at(2.0) is None
