"""PrivateMedian names a refusal from its law or its samplers by the parameters the error carries
(issue 36, "errors as types"), not by the first letters of its message: an error naming one of
the mechanism's own inputs (data, epsilon, L, r, R, C) passes unchanged, any other is named as
all of them (tzamos20 Algorithm 1's inputs)."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import numpy as np
import pytest

from dpquant.errors import CombinationError, ParameterError
from dpquant.reference.private_median import mechanism as module
from dpquant.reference.private_median.mechanism import PrivateMedian

FIX = dict(L=F(1, 2), r=F(1), R=F(5), C=F(1))
INPUTS = ("data", "epsilon", "L", "r", "R", "C")
DATA = [-4, -2, 0, 1, 3]  # spread out: not Case (A), so draws come from the extension's law


def _raising(error: ValueError) -> Any:
    def law_from_pieces(pieces: Any, epsilon: Any) -> Any:
        raise error

    return law_from_pieces


def _sample_refusal(monkeypatch: pytest.MonkeyPatch, error: ValueError) -> ValueError:
    monkeypatch.setattr(module, "law_from_pieces", _raising(error))
    mech = PrivateMedian(epsilon=1, **FIX)
    assert not mech.restricted(DATA)
    with pytest.raises(ValueError) as caught:
        mech.sample(DATA, 3, np.random.default_rng(0))
    return caught.value


@pytest.mark.parametrize(
    "error",
    [
        ValueError("Laplace scale out of the float range"),  # starts with L: not the constant L
        ParameterError("right", "must be > left", "0"),  # starts with r: not the radius r
        ParameterError("Ratio", "must be finite"),  # starts with R: not the constant R
        ValueError("CDF of the law is not monotone"),  # starts with C: not the constant C
    ],
)
def test_an_error_naming_none_of_the_inputs_is_named_as_all_of_them(
    monkeypatch: pytest.MonkeyPatch, error: ValueError
) -> None:
    raised = _sample_refusal(monkeypatch, error)
    assert isinstance(raised, CombinationError)
    assert raised.parameters == INPUTS
    assert str(raised) == f"data, epsilon, L, r, R, C: {error}"


@pytest.mark.parametrize(
    "error",
    [
        ParameterError("epsilon", "must be a finite number > 0", "0"),
        ParameterError("L", "must be > 0", "0"),
        CombinationError(("epsilon", "params"), "the Laplace scale is outside the float range"),
    ],
)
def test_an_error_naming_an_input_passes_unchanged(
    monkeypatch: pytest.MonkeyPatch, error: ValueError
) -> None:
    assert _sample_refusal(monkeypatch, error) is error


def test_refused_pieces_are_named_as_the_inputs_that_made_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pieces = CombinationError(("pieces",), "two breakpoints are closer than the float resolution")
    raised = _sample_refusal(monkeypatch, pieces)
    assert isinstance(raised, CombinationError) and raised.parameters == INPUTS
    assert str(raised) == f"data, epsilon, L, r, R, C: {pieces}"
    monkeypatch.setattr(module, "law_from_pieces", _raising(pieces))
    with pytest.raises(CombinationError) as exact:
        PrivateMedian(epsilon=1, **FIX).exact(DATA)
    assert exact.value.parameters == INPUTS
