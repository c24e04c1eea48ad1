"""Bad and extreme input on tzamos20's package (issue 18): ``PrivateMedian(epsilon='1')`` was
accepted, exact laws on large n ran for minutes, and the exact helpers parsed strings. Each test
names what it checks; every refusal is a ``ValueError`` naming the parameter."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest

from dpquant.reference.core import ExactMechanismBase
from dpquant.reference.private_median.extended_density import Piece, exact_epsilon, law_from_pieces
from dpquant.reference.private_median.fixed_typical_set import fixed_typical_hamming_brute
from dpquant.reference.private_median.mechanism import PrivateMedian
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.typical_set import (
    exact_data,
    typical_hamming,
    typical_hamming_greedy,
)

HALF = Fraction(1, 2)
FIX = {"L": HALF, "r": 1, "R": 5, "C": 1}
RNG = np.random.default_rng(18)


@pytest.mark.parametrize(
    "epsilon", ["1", "1.0", b"1", True, np.bool_(True), None, 1 + 0j, [1], Fraction(10**400),
                10**400, Fraction(1, 10**400), math.inf, math.nan, -1, 0]
)
def test_private_median_refuses_an_epsilon_that_is_not_a_positive_real(epsilon) -> None:
    with pytest.raises(ValueError, match="epsilon"):
        PrivateMedian(epsilon=epsilon, **FIX)
    with pytest.raises(ValueError, match="epsilon"):
        exact_epsilon(epsilon)


def test_private_median_takes_ints_floats_and_fractions_exactly() -> None:
    assert PrivateMedian(epsilon=Fraction(1, 3), **FIX).epsilon == Fraction(1, 3)
    assert PrivateMedian(epsilon=0.1, **FIX).epsilon == Fraction(0.1)
    mech = PrivateMedian(epsilon=np.int64(2), **FIX)
    assert isinstance(mech, ExactMechanismBase)
    assert mech.claim.epsilon == 2.0 and mech.claim.adjacency == "replace_one"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("mode", "Extension"),
        ("mode", None),
        ("median_index", 1),
        ("cap_rule", " four_k"),
        ("construction", ["fast"]),
        ("output", True),
    ],
)
def test_choices_are_exact_strings(option, value) -> None:
    with pytest.raises(ValueError, match=option):
        PrivateMedian(epsilon=1, **FIX, **{option: value})


@pytest.mark.parametrize("name", ["L", "r", "R", "C"])
def test_constants_outside_the_representable_range_are_refused_naming_them(name) -> None:
    for value in (2.0**-70, 2.0**70, "1", True):
        args = {**FIX, name: value}
        if name == "L" and value == 2.0**70:
            args["r"] = 2.0**-72  # keep L·r <= 1/2 so that L itself is the refused one
        with pytest.raises(ValueError, match=name):
            PrivateMedian(epsilon=1, **args)


def test_exact_on_large_n_with_the_direct_construction_is_refused_before_any_work() -> None:
    mech = PrivateMedian(epsilon=1, construction="direct", **FIX)
    x = RNG.uniform(-1, 1, 2000)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="too large to compute"):
        mech.exact(x)
    with pytest.raises(ValueError, match="too large to compute"):
        mech.sample(x, 4, RNG)
    assert time.perf_counter() - start < 5.0


def test_exact_beyond_the_fast_constructions_budget_is_refused_before_any_work() -> None:
    mech = PrivateMedian(epsilon=1, **FIX)
    x = RNG.uniform(-1, 1, 30_000)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="too large to compute"):
        mech.exact(x)
    assert time.perf_counter() - start < 5.0


def test_fixed_variant_with_tiny_c_is_refused_not_run_for_minutes() -> None:
    """K = ⌊Lrn/(2C)⌋ ≈ 2^60·n: the window tables would not fit in memory."""
    mech = PrivateMedian(HALF, 1, 5, 2.0**-60, 1, mode="fixed")
    start = time.perf_counter()
    with pytest.raises(ValueError, match="C"):
        mech.exact([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    assert time.perf_counter() - start < 5.0


def test_brute_force_oracles_refuse_what_they_cannot_finish() -> None:
    params = MedianParameters(6, HALF, 1, 5, 1)
    with pytest.raises(ValueError, match="grid"):
        fixed_typical_hamming_brute([0] * 6, 0, params, grid=list(range(200)))
    with pytest.raises(ValueError, match="n must be at most"):
        typical_hamming_greedy([0.0] * 2001, 0, MedianParameters(2001, HALF, 1, 5, 1))


def test_exact_data_follows_the_data_policy_and_keeps_rationals_exact() -> None:
    assert exact_data([Fraction(1, 3), 2, 0.5]) == [Fraction(1, 3), Fraction(1, 2), Fraction(2)]
    assert exact_data(np.array([2**60 + 1], dtype=np.int64)) == [Fraction(2**60 + 1)]
    for bad in (["0.5"], [[0.1, 0.2], [0.3, 0.4]], [10**400], [Fraction(10**400)], [True, 0.5],
                [None], "0.5", [], [math.nan]):
        with pytest.raises(ValueError, match="data"):
            exact_data(bad)


def test_xi_is_a_real_number_never_a_parsed_string() -> None:
    params = MedianParameters(4, HALF, 1, 5, 1)
    for bad in ("0.1", True, math.nan, math.inf, None):
        with pytest.raises(ValueError, match="xi"):
            typical_hamming([0, 0, 0, 0], bad, params)


def test_pieces_whose_breakpoints_collapse_in_floats_are_refused_naming_them() -> None:
    tiny = Fraction(1, 10**400)
    pieces = [Piece(Fraction(0), tiny, Fraction(0), Fraction(0)),
              Piece(tiny, Fraction(1), Fraction(0), Fraction(0))]
    with pytest.raises(ValueError, match="pieces"):
        law_from_pieces(pieces, 1)


@pytest.mark.parametrize("mode", ["extension", "paper", "fixed"])
def test_draws_lie_in_the_declared_output_range_at_extreme_accepted_constants(mode) -> None:
    mech = PrivateMedian(2.0**-60, 2.0**-4, 2.0**60, 2.0**10, 2.0**60, mode=mode)
    x = [-1.0, 0.0, 0.5, 3.0]
    out = mech.sample(x, 1000, RNG)
    lo, hi = mech.output_range
    assert np.isfinite(out).all() and lo <= out.min() and out.max() <= hi
