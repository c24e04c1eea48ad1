"""dpquant.reference.validation: check_int takes a plain int by its type alone (a fast path, issue
39) and otherwise exactly what it took before: every integer but booleans, any bound that is an
integer or None."""

from __future__ import annotations

import enum
from fractions import Fraction

import numpy as np
import pytest

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_int


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
