"""Targets for ``tests/cli/test_cli.py``: ``dpquant audit tests/cli/cli_targets.py:ATTR`` loads this file
by path, as a user would audit a script of their own."""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse

KEEP = math.exp(1.0) / (1.0 + math.exp(1.0))


def rr_fn(data: np.ndarray, rng: np.random.Generator) -> int:
    """Correct randomized response at ε = 1 on one user's value in [0, 1] (rounded to a bit)."""
    bit = int(data[0] >= 0.5)
    return bit if rng.random() < KEEP else 1 - bit


def leaky_fn(data: np.ndarray, rng: np.random.Generator) -> float:
    """Claims to be private but releases its input."""
    return float(data[0])


rr_mechanism = RandomizedResponse(1.0)  # a mechanism: its own claim is ε = 1, local

not_a_mechanism = 42

em_median = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))  # a mechanism with an exact law


def slow_fn(data: np.ndarray, rng: np.random.Generator) -> float:
    """Hangs: each draw sleeps 3 s, far longer than the time limit the tests set."""
    time.sleep(3.0)
    return 0.0


def exiting_fn(data: np.ndarray, rng: np.random.Generator) -> float:
    """Calls sys.exit(0) while the audit draws from it."""
    sys.exit(0)


class ClaimRaises:
    """Looks like a mechanism, but reading its claim raises."""

    domain = (0.0, 1.0)

    def sample(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.zeros(size)

    @property
    def claim(self) -> PrivacyClaim:
        raise RuntimeError("no claim today")


claim_raises = ClaimRaises()

nan_claim = RandomizedResponse(1.0)
object.__setattr__(nan_claim, "epsilon", math.nan)  # a claim of ε = NaN, set after construction


def rr_vectorized(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Randomized response on a bit, ε = 1, ``size`` draws at once (local, input set {0, 1})."""
    keep = rng.random(size) < np.e / (1 + np.e)
    return np.where(keep, data[0], 1 - data[0])


em_q25_eps05_0_100 = ExponentialQuantile(0.25, 0.5, (0.0, 100.0))
"""Smith's EM at q = ¼, ε = ½, bounds (0, 100): diffprivlib's law at those parameters."""


def gaussian_count_vectorized(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """A count of bits plus N(0, 1), ``size`` draws at once: 0.5-zCDP and 1-GDP under add/remove."""
    return float(np.sum(data)) + rng.standard_normal(size)


def gaussian_count_too_little_noise(
    data: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    """The same count with 0.8 of the noise (ρ = 1/(2·0.64) ≈ 0.78): breaks 0.5-zCDP."""
    return float(np.sum(data)) + 0.8 * rng.standard_normal(size)
