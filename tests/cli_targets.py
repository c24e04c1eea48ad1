"""Targets for ``tests/test_cli.py``: ``dpquant audit tests/cli_targets.py:ATTR`` loads this file
by path, as a user would audit a script of their own."""

from __future__ import annotations

import math

import numpy as np

from reference.primitives.randomized_response import RandomizedResponse

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
