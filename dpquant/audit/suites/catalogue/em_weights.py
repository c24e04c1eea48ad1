"""Exponential mechanisms whose weights are wrong: the ½ missing from the exponent (B1), the
interval chosen without its width (B3), and linear-space float weights that underflow, so that the
mechanism raises on some data sets and not on their neighbours (SmartNoise-SQL #572, diffprivlib
#107). The correct mechanism is Smith's (2011): interval j of the clamped, sorted data has weight
width_j·exp(ε·u_j/2) with u_j = −|j − q·n|
(:class:`dpquant.reference.primitives.exponential_mechanism.ExponentialQuantile`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.audit.suites.catalogue import base
from dpquant.reference.core import ExactMechanismBase
from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.exact.mp import LazySequence, to_mpf, workdps
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile, smith_intervals

# --------------------------------------------------------------------------------------------
# B1: the factor 1/2 missing from the exponent
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoHalf(base.OneQuantileBug, ExactMechanismBase):
    """Smith's exponential mechanism with weights w_j·exp(ε·u_j): the ½ of exp(ε·u_j/(2Δ)) is
    missing (Δ = 1 under replace-one), so the mechanism is only 2ε-DP while it claims ε.

    It is :class:`ExponentialQuantile` with the utility sensitivity set to ½. Exact privacy loss on
    D = (0, .25, .25), D' = (.25, .25, 1) at ε = 1, q = ½ on [0, 1]:
    1 + ln((3e + 1)/(e + 3)) = 1.4706149197… (catalogue item B1 in ``notes/auditor.md``); it tends to 2ε as n grows.

    Args:
        quantile: The quantile q, in [0, 1].
        epsilon: The ε of the claim, positive and finite.
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    @property
    def em(self) -> ExponentialQuantile:
        """The mis-calibrated exponential mechanism (utility sensitivity ½ instead of 1)."""
        return ExponentialQuantile(
            self.quantile, self.epsilon, self.bounds, adjacency="replace_one", sensitivity=0.5
        )

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear:
        return self.em._law(data)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return base.float_draws(self, lambda: self.em._draw(data, size, rng))


# --------------------------------------------------------------------------------------------
# B3: the interval chosen without its width
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoWidth(base.OneQuantileBug, ExactMechanismBase):
    """The exponential mechanism that forgets the interval width: interval j is chosen with
    probability ∝ exp(ε·u_j/2), u_j = −|j − q·n|, then the output is uniform inside it.

    Only intervals of positive length are candidates (data clamped to ``bounds`` and sorted,
    Smith's intervals [z_j, z_{j+1}] with z_0 = a, z_{n+1} = b). The density on interval j is
    weight_j/width_j, so a narrow interval gets a huge density and the privacy loss is unbounded:
    on D = (.2, .5, .6), D' = (.2, .5, .9) (ε = 1, q = ½, [0, 1]) it is
    ln((.9 − .5)/(.6 − .5)) = ln 4 = 1.386… and on D = (.2, .5, .5 + g) it is ln(0.4/g) for small g
    (3.689 at g = 10⁻², 8.294 at 10⁻⁴, 17.50 at 10⁻⁸; catalogue item B3 in ``notes/auditor.md``).

    Args:
        quantile: The quantile q, in [0, 1].
        epsilon: The ε of the claim, positive and finite.
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear:
        """Piecewise-constant density exp(ε·u_j/2)/(Z·width_j) on interval j, exact in mpmath."""
        cut = smith_intervals(data, self.bounds)
        breaks, ranks = cut.breaks, cut.ranks
        widths = np.diff(breaks)
        log_weights = base.em_log_weights(self.epsilon, ranks, self.quantile * cut.n)
        intercepts = log_weights - np.log(widths)
        half, t = base.half_scale(self.epsilon), Fraction(self.quantile) * cut.n
        nearest = base.nearest_distance(ranks, t)

        def exact_intercept(k: int) -> mpmath.mpf:
            width = Fraction(float(breaks[k + 1])) - Fraction(float(breaks[k]))
            with workdps():
                return to_mpf(-half * (abs(int(ranks[k]) - t) - nearest)) - mpmath.log(
                    to_mpf(width)
                )

        return PiecewiseLogLinear(
            breaks,
            np.zeros(len(ranks)),
            intercepts,
            exact_intercepts=LazySequence(len(ranks), exact_intercept),
        )

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """Pick an interval ∝ exp(ε·u_j/2) (no width), then a uniform point inside it (refused
        where float64 cannot resolve the law: :func:`dpquant.audit.suites.catalogue.base.check_resolution`)."""
        base.check_resolution(self, self._law(data))
        cut = smith_intervals(data, self.bounds)
        log_w = base.em_log_weights(self.epsilon, cut.ranks, self.quantile * cut.n)
        return base.uniform_in(cut.breaks, base.pick(log_w, size, rng), size, rng)


# --------------------------------------------------------------------------------------------
# Linear-space weights that underflow (SmartNoise #572, diffprivlib #107)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMUnderflow(base.OneQuantileBug):
    """A naive exponential mechanism: float64 weights width_j·exp(ε·u_j/2), with no shift by the
    largest exponent, normalised by their sum; ``ValueError("no candidate")`` when every weight
    underflows to 0.

    Otherwise it is the correct EM (data clamped to ``bounds``, an interval drawn by the float
    probabilities, a uniform point inside). Whether it raises depends only on the data (and the
    parameters), never on the generator: ``size``, ``rng`` and the data are checked first, like
    every mechanism's, and the exception is the mechanism's output on that data set (an atom for
    the auditor). On D = [0]·n + [1] the only interval of positive length is [0, 1], n − ½ ranks
    from the target (n + 1)/2, so its weight is exp(−ε(n − 1)/4); on the neighbour
    D' = [0]·(n − 1) + [1, 1] it is one rank closer. At ε = 1 the smallest n where D raises and D'
    does not is n = 2982 (the witness): the error is an output atom possible under D only, so the
    exact privacy loss is ∞ (SmartNoise-SQL #572, diffprivlib #107).

    Args:
        quantile: The quantile q, in [0, 1].
        epsilon: The ε of the claim, positive and finite.
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    def probabilities(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        """The intervals and their probabilities, computed the naive way.

        Args:
            data: The data set.

        Returns:
            The pair (z, p): the interval ends z_0..z_{n+1} and the float probabilities of the
                n + 1 intervals.

        Raises:
            ValueError: ``"no candidate"``: every weight underflows to 0.
        """
        return self._probabilities(self.check_input(data))

    def _probabilities(self, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.bounds
        z = np.concatenate([[a], np.sort(np.clip(data, a, b)), [b]])
        j = np.arange(data.size + 1)
        with np.errstate(under="ignore", over="ignore"):
            weights = np.diff(z) * np.exp(self.epsilon * -np.abs(j - self.quantile * data.size) / 2)
        total = weights.sum()
        if not total > 0:
            raise ValueError("no candidate")
        return z, weights / total

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        z, p = self._probabilities(data)
        cum = np.cumsum(p)
        # side="right" never lands on a zero-weight interval (its cumulative sum repeats).
        idx = np.minimum(np.searchsorted(cum, rng.random(size) * cum[-1], side="right"), p.size - 1)
        return base.uniform_in(z, idx, size, rng)


__all__ = [
    "EMNoHalf",
    "EMNoWidth",
    "EMUnderflow",
]
