"""The errors of :mod:`dpquant.errors` (issue 36, "errors as types"): each is a ``ValueError``, its
message reads as the library's always have, its attributes name the parameter and what it
must be, and it crosses a process boundary whole."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction

import numpy as np
import pytest

from dpquant.errors import (
    CombinationError,
    MissingAttributeError,
    ParameterError,
    recorded_name,
)
from dpquant.reference.validation import (
    check_choice,
    check_data,
    check_domain,
    check_epsilon,
    check_fraction,
    check_int,
    check_real,
    check_size,
    read_attribute,
)

ERRORS = [
    ParameterError("epsilon", "must be a finite number > 0", "0"),
    ParameterError("data", "must be non-empty"),
    CombinationError(("min_log2n", "max_log2n"), "need 1 <= min <= max <= 30", "12 and 11"),
    CombinationError(("pieces",), "two breakpoints are closer than the float resolution"),
    MissingAttributeError("mech.claim"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_every_error_is_caught_by_except_value_error(error: ParameterError) -> None:
    with pytest.raises(ValueError) as caught:
        raise error
    assert caught.value is error


def test_a_parameter_error_reads_as_the_librarys_messages() -> None:
    error = ParameterError("epsilon", "must be a finite number > 0", "0")
    assert str(error) == "epsilon must be a finite number > 0, got 0"
    assert (error.parameter, error.parameters) == ("epsilon", ("epsilon",))
    assert (error.allowed, error.got) == ("must be a finite number > 0", "0")
    assert str(ParameterError("data", "must be non-empty")) == "data must be non-empty"


def test_a_value_that_is_not_text_is_shown_as_str_writes_it() -> None:
    assert str(ParameterError("k", "must lie in [0, 3]", 7)).endswith("got 7")
    assert ParameterError("k", "must lie in [0, 3]", Fraction(1, 3)).got == "1/3"


def test_a_combination_names_every_parameter_before_its_reason() -> None:
    error = CombinationError(("min_log2n", "max_log2n"), "need 1 <= min <= max <= 30", "12 and 11")
    assert str(error) == "min_log2n, max_log2n: need 1 <= min <= max <= 30, got 12 and 11"
    assert error.parameters == ("min_log2n", "max_log2n")
    assert error.parameter == "min_log2n, max_log2n"
    with pytest.raises(TypeError):
        CombinationError((), "no name")


def test_a_missing_attribute_says_so() -> None:
    error = MissingAttributeError("mech.claim")
    assert str(error) == "mech.claim is missing"
    assert isinstance(error, ParameterError) and error.parameter == "mech.claim"


def test_renamed_writes_the_callers_names_and_keeps_the_rest() -> None:
    flags = {"min_log2n": "--min-log2n", "max_log2n": "--max-log2n", "epsilon": "--epsilon"}
    single = ParameterError("epsilon", "must be a finite number > 0", "0").renamed(flags)
    assert str(single) == "--epsilon must be a finite number > 0, got 0"
    both = ERRORS[2].renamed(flags)
    assert type(both) is CombinationError and both.parameters == ("--min-log2n", "--max-log2n")
    assert str(both) == "--min-log2n, --max-log2n: need 1 <= min <= max <= 30, got 12 and 11"
    assert ERRORS[2].parameters == ("min_log2n", "max_log2n")  # the original is unchanged
    other = ParameterError("delta", "must lie in [0, 1)", "2").renamed(flags)
    assert str(other) == "delta must lie in [0, 1), got 2"
    assert type(MissingAttributeError("mech.claim").renamed({})) is MissingAttributeError


def test_the_attributes_cannot_be_set() -> None:
    error = ParameterError("epsilon", "must be a finite number > 0", "0")
    for name in ("parameter", "parameters", "allowed", "got"):
        with pytest.raises(AttributeError):
            setattr(error, name, "x")
    assert error.parameter == "epsilon"


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_pickling_keeps_the_type_the_attributes_and_the_message(error: ParameterError) -> None:
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error)
    assert (back.parameters, back.allowed, back.got) == (
        error.parameters,
        error.allowed,
        error.got,
    )
    assert str(back) == str(error)


def _refuse_epsilon() -> None:
    check_epsilon(-1.0)


def test_an_error_raised_in_a_worker_process_arrives_typed() -> None:
    with ProcessPoolExecutor(1) as pool:
        future = pool.submit(_refuse_epsilon)
        with pytest.raises(ParameterError) as caught:
            future.result()
    assert caught.value.parameter == "epsilon"
    assert caught.value.got == "-1.0"


@pytest.mark.parametrize(
    ("call", "parameter", "message"),
    [
        (lambda: check_epsilon(0), "epsilon", "epsilon must be a finite number > 0, got 0"),
        (lambda: check_real("x", "lo"), "lo", "lo must be a real number, got 'x'"),
        (
            lambda: check_int(5, "k", minimum=0, maximum=3),
            "k",
            "k must be an integer 0 <= k <= 3, got 5",
        ),
        (
            lambda: check_size(-1),
            "size",
            "size must be an integer in [0, 10000000], got -1",
        ),
        (
            lambda: check_choice("x", "mode", ("a", "b")),
            "mode",
            "mode must be one of ('a', 'b'), got 'x'",
        ),
        (
            lambda: check_domain((1, 0), "domain"),
            "domain",
            "domain must be a pair (lo, hi) with lo < hi, got (1.0, 0.0)",
        ),
        (lambda: check_domain((0, "x")), "domain[1]", "domain[1] must be a real number, got 'x'"),
        (lambda: check_data([]), "data", "data must be non-empty"),
        (
            lambda: check_data([1.0, np.nan], "claim.data"),
            "claim.data",
            "claim.data must contain finite numbers only (no NaN or inf)",
        ),
        (lambda: check_fraction(-1, "c", positive=True), "c", "c must be > 0, got -1"),
    ],
)
def test_the_shared_checks_raise_a_parameter_error_naming_the_parameter(
    call: object, parameter: str, message: str
) -> None:
    with pytest.raises(ParameterError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.parameter == parameter
    assert str(caught.value) == message


def test_an_attribute_a_mechanism_lacks_is_a_missing_attribute_error() -> None:
    with pytest.raises(MissingAttributeError) as caught:
        read_attribute(object(), "claim", "mech")
    assert caught.value.parameter == "mech.claim"

    class Broken:
        @property
        def claim(self) -> None:
            raise RuntimeError("boom")

    with pytest.raises(ParameterError) as failed:
        read_attribute(Broken(), "claim", "mech")
    assert not isinstance(failed.value, MissingAttributeError)
    assert failed.value.parameter == "mech.claim"


def test_a_refusal_is_recorded_under_value_error_and_other_errors_under_their_class() -> None:
    assert recorded_name(ParameterError("x", "must be 1")) == "ValueError"
    assert recorded_name(MissingAttributeError("mech.claim")) == "ValueError"
    assert recorded_name(ValueError("x")) == "ValueError"
    assert recorded_name(KeyError("x")) == "KeyError"

    class Mine(ValueError):
        pass

    assert recorded_name(Mine()) == "Mine"
