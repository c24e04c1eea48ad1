"""The median plus Laplace noise scaled to the *local* sensitivity (B7): the motivating example
of Nissim, Raskhodnikova and Smith, "Smooth sensitivity and sampling in private data analysis"
(STOC 2007), of why local sensitivity is not enough.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.audit.suites.catalogue.base import UNIT
from dpquant.reference.core import Adjacency, ExactMechanismBase
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear
from dpquant.reference.primitives.exponential_mechanism import check_bounds
from dpquant.reference.primitives.laplace import laplace_law
from dpquant.reference.validation import MAX_FLOAT, check_epsilon

# --------------------------------------------------------------------------------------------
# B7: Laplace noise scaled to the local sensitivity
# --------------------------------------------------------------------------------------------

# The float draws median + Laplace(s) follow the Laplace law up to rounding while the rounding
# atom at the median, of mass about ulp(median)/(2s), stays below 2**-30 (s >= |median|·2**-23),
# the noise is a normal float (s >= 2**-1000), and the sum cannot overflow (numpy's standard
# Laplace draw is below 40 in magnitude: −log of a uniform that is at least 2**-53).
_LAPLACE_RELATIVE_RESOLUTION = 2.0**-23
_LAPLACE_SMALLEST_SCALE = 2.0**-1000
_LAPLACE_LARGEST_DRAW = 64.0


@dataclass(frozen=True)
class MedianLocalSensitivityLaplace(ExactMechanismBase):
    """The median plus Laplace noise scaled to the *local* sensitivity (NRS07's motivating
    example of why local sensitivity is not enough).

    Convention: the released median is x_(m) with m = ⌈n/2⌉ (the lower median for even n); the
    local sensitivity is LS(D) = max(x_(m+1) − x_(m), x_(m) − x_(m−1)) with x_(0) := a and
    x_(n+1) := b (the ends of ``bounds``); the output is x_(m) + Laplace(LS(D)/ε), and exactly
    x_(m) when LS(D) = 0. On D = (0, 0, 0, 0, 1) the output is the atom 0 (LS = 0); on its
    neighbour D' = (0, 0, 0, 1, 1) it is Laplace(0, 1) and never exactly 0: the exact privacy
    loss is ∞ (catalogue item B7 in ``notes/auditor.md``).

    On one data set the law is either an atom or a Laplace law, given by :meth:`exact`, so the
    exact mode sees the loss ∞ directly (an atom against a density). The domain is ``bounds``;
    the outputs are unbounded (:attr:`output_range` is None). A noise scale LS(D)/ε that float
    draws cannot follow (below 2⁻²³·|median| or 2⁻¹⁰⁰⁰, or so large that a draw could overflow)
    is refused by ``sample`` and ``exact`` alike with a ``ValueError`` naming ε and the data.

    Args:
        epsilon: The ε of the claim, positive and finite.
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    epsilon: float = 1.0
    bounds: tuple[float, float] = UNIT

    adjacency = Adjacency.REPLACE_ONE

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_bounds(self.bounds))

    @property
    def output_range(self) -> None:
        """None: Laplace noise has unbounded support."""
        return None

    def median_and_local_sensitivity(self, data: Any) -> tuple[float, float]:
        """The released median and the local sensitivity.

        Args:
            data: The data set D.

        Returns:
            (x_(m), LS(D)) with m = ⌈n/2⌉ and the neighbours beyond the data clamped to the
                bounds.
        """
        return self._median_ls(self.check_input(data))

    def _median_ls(self, data: np.ndarray) -> tuple[float, float]:
        x = np.sort(data)
        ext = np.concatenate([[self.bounds[0]], x, [self.bounds[1]]])
        m = (x.size + 1) // 2  # 1-based rank of the (lower) median; ext[m] = x_(m)
        ls = max(ext[m + 1] - ext[m], ext[m] - ext[m - 1])
        return float(ext[m]), float(ls)

    def _median_scale(self, data: np.ndarray) -> tuple[float, float]:
        """(median, LS/ε), LS/ε = 0 for the atom; refused where float draws cannot follow it."""
        median, ls = self._median_ls(data)
        if ls == 0:
            return median, 0.0
        scale = ls / self.epsilon
        if not (
            scale >= max(_LAPLACE_RELATIVE_RESOLUTION * abs(median), _LAPLACE_SMALLEST_SCALE)
            and abs(median) + _LAPLACE_LARGEST_DRAW * scale <= MAX_FLOAT
        ):
            raise ValueError(
                f"epsilon = {self.epsilon!r} and this data set give the noise scale "
                f"LS(D)/epsilon = {scale!r} around the median {median!r}: float draws cannot "
                f"follow that Laplace law (the scale must be >= 2**-23·|median| and >= 2**-1000, "
                f"and |median| + 64·scale <= {MAX_FLOAT:.4g})"
            )
        return median, scale

    def _law(self, data: np.ndarray) -> DiscreteLaw | PiecewiseLogLinear:
        """The output law on ``data``: the atom x_(m) if LS(D) = 0, else Laplace(x_(m), LS/ε)."""
        median, scale = self._median_scale(data)
        if scale == 0:
            return DiscreteLaw([median], [0])
        return laplace_law(median, scale)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        median, scale = self._median_scale(data)
        if scale == 0:
            return np.full(size, median)
        return median + rng.laplace(0.0, scale, size)


__all__ = [
    "MedianLocalSensitivityLaplace",
]
