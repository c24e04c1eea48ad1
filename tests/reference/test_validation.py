"""dpquant.reference.validation: check_int and check_real take a plain int (and check_real a plain
float) by its type alone (a fast path, issue 39) and otherwise exactly what they took before:
every integer but booleans, any bound that is an integer or None; every real number but
booleans and NaN."""

from __future__ import annotations

import enum
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_int, check_real


class _Level(enum.IntEnum):
    HIGH = 7


class _Count(int):
    """A subclass of int: an integer, through the general path."""


@pytest.mark.parametrize(
    "x, value",
    [(0, 0), (-3, -3), (10**30, 10**30), (np.int64(5), 5), (np.uint8(255), 255),
     (_Level.HIGH, 7), (_Count(4), 4)],
)  # fmt: skip
def test_check_int_takes_every_integer_and_gives_a_plain_int(x, value) -> None:
    got = check_int(x, "k", minimum=-(10**40), maximum=10**40)
    assert got == value and type(got) is int


@pytest.mark.parametrize(
    "x", [True, False, np.bool_(True), 1.0, 2.5, Fraction(3, 1), "3", None, [1], complex(1, 0)]
)
def test_check_int_refuses_booleans_and_every_non_integer_naming_the_parameter(x) -> None:
    with pytest.raises(ParameterError, match="must be an integer") as info:
        check_int(x, "k")
    assert info.value.parameter == "k"


def test_check_int_bounds_are_integers_or_none_and_are_enforced() -> None:
    assert check_int(3, "k", minimum=np.int64(3), maximum=_Count(3)) == 3
    with pytest.raises(ParameterError, match="k must be an integer >= 4"):
        check_int(3, "k", minimum=4)
    with pytest.raises(ParameterError, match="k must be an integer 0 <= k <= 2"):
        check_int(3, "k", minimum=0, maximum=2)
    for bad in (True, 1.5, "1"):
        with pytest.raises(ParameterError, match="minimum must be an integer or None"):
            check_int(3, "k", minimum=bad)
        with pytest.raises(ParameterError, match="maximum must be an integer or None"):
            check_int(3, "k", maximum=bad)


@pytest.mark.parametrize(
    "x, value",
    [(0.5, 0.5), (-0.0, 0.0), (math.inf, math.inf), (3, 3.0), (10**30, 1e30),
     (np.float32(0.25), 0.25), (np.int64(-2), -2.0), (Fraction(1, 4), 0.25), (_Count(4), 4.0)],
)  # fmt: skip
def test_check_real_takes_every_real_number_and_gives_a_float(x, value) -> None:
    got = check_real(x, "t")
    assert got == value and type(got) is float


@pytest.mark.parametrize(
    "x", [True, np.bool_(False), math.nan, Decimal("0.5"), complex(0.5, 0), "0.5", None, [0.5]]
)
def test_check_real_refuses_booleans_nan_and_every_non_real_naming_the_parameter(x) -> None:
    with pytest.raises(ParameterError, match="must be a real number") as info:
        check_real(x, "t")
    assert info.value.parameter == "t"
