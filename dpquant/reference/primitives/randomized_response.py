"""Binary randomized response (Warner 1965): keep the bit with probability e^ε/(1 + e^ε).

The exact 2×2 channel, the output law of one user, the vectorised sampler and the unbiased
debiasing estimator sit side by side. The channel's privacy loss is exactly ε (test:
``test_randomized_response_exact_loss_is_epsilon``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import check_data, check_epsilon, check_record, check_rng


def keep_probability(epsilon: float) -> float:
    """The probability that a report is the true bit.

    Args:
        epsilon: ε, positive and finite.

    Returns:
        e^ε/(1 + e^ε), computed without overflow.
    """
    epsilon = check_epsilon(epsilon)
    return float(1.0 / (1.0 + np.exp(-epsilon)))


def keep_probability_mp(epsilon: float) -> mpmath.mpf:
    """The keep probability at mpmath precision.

    Args:
        epsilon: ε, positive and finite.

    Returns:
        e^ε/(1 + e^ε).
    """
    with workdps():
        return 1 / (1 + mpmath.exp(-to_mpf(check_epsilon(epsilon))))


def rr_channel(epsilon: float) -> list[list[mpmath.mpf]]:
    """Exact channel matrix of randomized response.

    Args:
        epsilon: ε, positive and finite.

    Returns:
        ``W`` with ``W[b][o]`` = P(report o | bit b), b, o in {0, 1}.
    """
    p = keep_probability_mp(epsilon)
    return [[p, 1 - p], [1 - p, p]]


def check_bit(bit: Any, name: str = "bit") -> int:
    """Check a single bit.

    Args:
        bit: 0 or 1 (ints, floats equal to 0/1, or a 1-element array of one).
        name: The argument named in the error.

    Returns:
        The bit as an int.

    Raises:
        ValueError: Anything else.
    """
    try:
        value = check_record(bit, name)
    except ValueError:
        raise ParameterError(name, "must be a single value in {0, 1}", f"{bit!r:.80}") from None
    if value not in (0.0, 1.0):
        raise ParameterError(name, "must be a single value in {0, 1}", f"{bit!r:.80}")
    return int(value)


def rr_law(bit: Any, epsilon: float) -> DiscreteLaw:
    """Exact law of one user's report.

    Args:
        bit: The user's bit (:func:`check_bit`).
        epsilon: ε, positive and finite.

    Returns:
        A law on {0, 1}.
    """
    b = check_bit(bit)
    row = rr_channel(epsilon)[b]
    return DiscreteLaw.from_probabilities([0, 1], row)


def _bits(values: Any, name: str, *, allow_empty: bool) -> np.ndarray:
    """A 1-D array of values in {0, 1} (ints or floats; the data policy of ``check_data``:
    booleans, strings and other non-numbers are refused)."""
    arr = check_data(values, name, allow_empty=allow_empty)
    if not np.isin(arr, (0.0, 1.0)).all():
        raise ParameterError(name, "must be a 1-D array of values in {0, 1}", "other values")
    return arr


def randomize_bits(bits: Any, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Randomize each user's bit: kept with probability e^ε/(1 + e^ε), flipped otherwise
    (vectorised).

    Args:
        bits: A 1-D array of 0s and 1s (ints or floats, possibly empty).
        epsilon: ε, positive and finite.
        rng: A ``numpy.random.Generator``.

    Returns:
        The reports, int8.
    """
    arr = _bits(bits, "bits", allow_empty=True)
    keep = keep_probability(epsilon)
    rng = check_rng(rng)
    flip = rng.random(arr.shape) >= keep
    return np.where(flip, 1 - arr, arr).astype(np.int8)


DEBIAS_MIN_EPSILON = 1e-300
"""Smallest ε of :func:`debias_mean`: its estimate divides by tanh(ε/2) ≈ ε/2, which underflows to
0 below ~1e-323; from 1e-300 on every estimate is a finite float."""


def debias_mean(reports: Any, epsilon: float) -> float:
    """Unbiased estimate of the mean of the true bits from the reports.

    E[report] = (1 − p) + (2p − 1)·bit, so (mean(reports) − (1 − p))/(2p − 1) is unbiased. With
    2p − 1 = tanh(ε/2) and 1 − p = ½ − tanh(ε/2)/2 it is (mean − ½)/tanh(ε/2) + ½, computed that
    way: no cancellation in 1 − p or 2p − 1 at tiny ε.

    Args:
        reports: A non-empty 1-D array of 0s and 1s.
        epsilon: ε, at least :data:`DEBIAS_MIN_EPSILON`.

    Returns:
        The estimate (it may fall outside [0, 1]).

    Raises:
        ValueError: An argument is refused (named).
    """
    arr = _bits(reports, "reports", allow_empty=False)
    epsilon = check_epsilon(epsilon)
    if epsilon < DEBIAS_MIN_EPSILON:
        raise ParameterError(
            "epsilon",
            f"must be >= {DEBIAS_MIN_EPSILON} for debias_mean (the estimate divides by "
            "tanh(epsilon/2))",
            repr(epsilon),
        )
    return float((arr.mean() - 0.5) / math.tanh(epsilon / 2) + 0.5)


@dataclass(frozen=True)
class RandomizedResponse(ExactMechanismBase):
    """The binary randomized-response randomizer as a :class:`dpquant.reference.core.Mechanism`.

    The data is one user's bit (local DP); ``sample`` returns ``size`` reports.

    Args:
        epsilon: ε, positive and finite.
    """

    epsilon: float
    adjacency = Adjacency.LOCAL

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def domain(self) -> tuple[float, float]:
        return (0.0, 1.0)

    @property
    def output_range(self) -> tuple[float, float]:
        return (0.0, 1.0)

    @property
    def input_values(self) -> tuple[float, ...]:
        """The valid inputs (a bit): the auditor probes exactly these."""
        return (0.0, 1.0)

    def check_input(self, data: Any) -> int:
        return check_bit(data, "data")

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return randomize_bits(np.full(size, data), self.epsilon, rng)

    def _law(self, data: int) -> DiscreteLaw:
        return rr_law(data, self.epsilon)


__all__ = [
    "DEBIAS_MIN_EPSILON",
    "RandomizedResponse",
    "check_bit",
    "debias_mean",
    "keep_probability",
    "keep_probability_mp",
    "randomize_bits",
    "rr_channel",
    "rr_law",
]
