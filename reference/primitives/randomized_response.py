"""Binary randomized response (Warner 1965): keep the bit with probability e^ε/(1 + e^ε).

The exact 2×2 channel, the output law of one user, the vectorised sampler and the unbiased
debiasing estimator sit side by side. The channel's privacy loss is exactly ε (test:
``test_randomized_response_exact_loss_is_epsilon``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from reference.core import ExactMechanismBase
from reference.distributions import DiscreteLaw
from reference.exact.mp import to_mpf, workdps
from reference.validation import check_epsilon, check_record, check_rng


def keep_probability(epsilon: float) -> float:
    """P(report = true bit) = e^ε/(1 + e^ε), computed without overflow."""
    epsilon = check_epsilon(epsilon)
    return float(1.0 / (1.0 + np.exp(-epsilon)))


def keep_probability_mp(epsilon: float) -> mpmath.mpf:
    """The keep probability at mpmath precision."""
    with workdps():
        return 1 / (1 + mpmath.exp(-to_mpf(check_epsilon(epsilon))))


def rr_channel(epsilon: float) -> list[list[mpmath.mpf]]:
    """Exact channel matrix W[b][o] = P(report o | bit b), b, o in {0, 1}."""
    p = keep_probability_mp(epsilon)
    return [[p, 1 - p], [1 - p, p]]


def check_bit(bit: Any, name: str = "bit") -> int:
    """A single bit 0 or 1 (ints, floats equal to 0/1, or a 1-element array of one)."""
    try:
        value = check_record(bit, name)
    except ValueError:
        raise ValueError(f"{name} must be a single value in {{0, 1}}, got {bit!r:.80}") from None
    if value not in (0.0, 1.0):
        raise ValueError(f"{name} must be a single value in {{0, 1}}, got {bit!r:.80}")
    return int(value)


def rr_law(bit: Any, epsilon: float) -> DiscreteLaw:
    """Exact law of one user's report."""
    b = check_bit(bit)
    row = rr_channel(epsilon)[b]
    return DiscreteLaw.from_probabilities([0, 1], row)


def randomize_bits(bits: Any, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Each user's bit kept with probability e^ε/(1 + e^ε), flipped otherwise (vectorised)."""
    arr = np.asarray(bits)
    if arr.ndim != 1 or arr.dtype == bool or not np.isin(arr, (0, 1)).all():
        raise ValueError("bits must be a 1-D array of values in {0, 1}")
    rng = check_rng(rng)
    flip = rng.random(arr.shape) >= keep_probability(epsilon)
    return np.where(flip, 1 - arr, arr).astype(np.int8)


def debias_mean(reports: Any, epsilon: float) -> float:
    """Unbiased estimate of the mean of the true bits from the reports.

    E[report] = (1 − p) + (2p − 1)·bit, so (mean(reports) − (1 − p))/(2p − 1) is unbiased.
    """
    arr = np.asarray(reports)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype == bool or not np.isin(arr, (0, 1)).all():
        raise ValueError("reports must be a non-empty 1-D array of values in {0, 1}")
    p = keep_probability(epsilon)
    return float((arr.mean() - (1.0 - p)) / (2.0 * p - 1.0))


@dataclass(frozen=True)
class RandomizedResponse(ExactMechanismBase):
    """The binary randomized-response randomizer as a :class:`reference.core.Mechanism`.

    The data is one user's bit (local DP); ``sample`` returns ``size`` reports.
    """

    epsilon: float
    adjacency = "local"

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
