"""The role every exact law plays: :class:`ExactDistribution`."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import mpmath
import numpy as np


@runtime_checkable
class ExactDistribution(Protocol):
    """What every exact law offers: seeded vectorised draws and its exact total mass."""

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray: ...

    def total_mass(self) -> mpmath.mpf: ...


__all__ = ["ExactDistribution"]
