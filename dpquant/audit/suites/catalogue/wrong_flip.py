"""Binary randomized response (Warner 1965) with a mis-derived keep probability."""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.randomized_response import RandomizedResponse
from dpquant.reference.validation import check_epsilon

# --------------------------------------------------------------------------------------------
# Randomized response with a wrong keep probability
# --------------------------------------------------------------------------------------------


def wrong_keep_probability_mp(epsilon: float) -> mpmath.mpf:
    """The buggy keep probability, at mpmath precision.

    Args:
        epsilon: The ε of the claim.

    Returns:
        1 − e^{−ε}/2.
    """
    with workdps():
        return 1 - mpmath.exp(-to_mpf(check_epsilon(epsilon))) / 2


@dataclass(frozen=True)
class RRWrongFlip(RandomizedResponse):
    """Binary randomized response that keeps the bit with probability 1 − e^{−ε}/2 instead of
    e^ε/(1 + e^ε); claim, domain and inputs are those of :class:`RandomizedResponse`.

    The likelihood ratio of a report is (1 − e^{−ε}/2)/(e^{−ε}/2) = 2e^ε − 1 > e^ε, so the exact
    privacy loss (local DP, data 0 vs 1) is ln(2e^ε − 1) = 1.4899… at ε = 1.

    Args:
        epsilon: The ε of the claim, positive and finite.
    """

    epsilon: float = 1.0

    def _law(self, data: int) -> DiscreteLaw:
        keep = wrong_keep_probability_mp(self.epsilon)
        with workdps():
            row = [keep, 1 - keep] if data == 0 else [1 - keep, keep]
        return DiscreteLaw.from_probabilities([0, 1], row)

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        keep = 1.0 - math.exp(-self.epsilon) / 2.0
        flip = rng.random(size) >= keep
        return np.where(flip, 1 - data, data).astype(np.int8)


__all__ = [
    "RRWrongFlip",
    "wrong_keep_probability_mp",
]
