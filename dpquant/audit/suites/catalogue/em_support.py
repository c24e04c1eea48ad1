"""Exponential mechanisms whose output support depends on the data: no clamping (B4), bounds
taken from the data (B5), and the data points themselves released instead of points of the
intervals between them (Smith 2011 explains why the exponential mechanism samples the intervals).
On such mechanisms some outputs are possible on one neighbour only: the exact privacy loss is ∞.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from dpquant.audit.suites.catalogue import base
from dpquant.reference.core import ExactMechanismBase
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear
from dpquant.reference.exact.mp import LazySequence
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.validation import MAX_FLOAT

# --------------------------------------------------------------------------------------------
# B4: no clamping
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoClamp(base.OneQuantileBug, ExactMechanismBase):
    """The exponential mechanism without clamping: the interval ends are sorted({a, b} ∪ D), so a
    data point outside [a, b] stretches the output range.

    Interval j = [z_j, z_{j+1}] of the sorted list z_0 <= … <= z_{n+1} (the n data points and both
    bounds) has utility u_j = −|j − q·n| and weight width_j·exp(ε·u_j/2). On data inside the
    bounds it is the correct EM. On D = (.5, .5), D' = (.5, 1000) (replace-one, ε = 1, [0, 1]) the
    outputs in (1, 1000] are possible only under D': the exact privacy loss is ∞ (catalogue item
    B4 in ``notes/auditor.md``; the Google library's ±1000 test entries).

    Any finite value is valid input (it is not clamped: that is the bug), and the outputs lie
    anywhere between the smallest and the largest of the data and the bounds, so
    :attr:`output_range` is None (no range fixed in advance). Data whose span with the bounds
    overflows a float are refused.

    Args:
        quantile: The quantile q, in [0, 1].
        epsilon: The ε of the claim, positive and finite.
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    clamps = False

    @property
    def domain(self) -> tuple[float, float]:
        """Any finite value: values outside ``bounds`` are kept, not clamped (the bug)."""
        return (-math.inf, math.inf)

    @property
    def output_range(self) -> None:
        """None: the outputs follow the data outside ``bounds`` (the bug)."""
        return None

    def _intervals(self, data: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        full = np.sort(np.concatenate([self.bounds, data]))
        if not math.isfinite(float(full[-1]) - float(full[0])):
            raise ValueError(
                "data: the span of the data and the bounds overflows float64 "
                f"(max - min must be <= {MAX_FLOAT:.4g})"
            )
        ranks = np.flatnonzero(np.diff(full) > 0)
        return np.append(full[ranks], full[-1]), ranks, data.size

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear:
        """Constant density exp(ε·u_j/2)/Z on each interval (exact rational log-weights)."""
        breaks, ranks, n = self._intervals(data)
        half, t = base.half_scale(self.epsilon), Fraction(self.quantile) * n
        nearest = base.nearest_distance(ranks, t)
        intercepts = base.em_log_weights(self.epsilon, ranks, self.quantile * n)
        exact = LazySequence(len(ranks), lambda k: -half * (abs(int(ranks[k]) - t) - nearest))
        return PiecewiseLogLinear(breaks, np.zeros(len(ranks)), intercepts, exact_intercepts=exact)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """Pick an interval ∝ width·exp(ε·u_j/2), then a uniform point inside it (refused where
        float64 cannot resolve the law: :func:`dpquant.audit.suites.catalogue.base.check_resolution`)."""
        base.check_resolution(self, self._law(data))
        breaks, ranks, n = self._intervals(data)
        log_weights = base.em_log_weights(self.epsilon, ranks, self.quantile * n)
        log_w = np.log(np.diff(breaks)) + log_weights
        return base.uniform_in(breaks, base.pick(log_w, size, rng), size, rng)


# --------------------------------------------------------------------------------------------
# B5: bounds taken from the data
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMDataBounds(base.OneQuantileBug, ExactMechanismBase):
    """The exponential mechanism run on the bounds [min(D), max(D)] instead of declared ones.

    ``bounds`` is the declared input domain (data outside it raise ``ValueError``); the mechanism
    ignores it and runs Smith's EM on [min(D), max(D)]. When all data values coincide that interval
    is a point and the mechanism outputs the value itself (its law is then a one-atom
    :class:`DiscreteLaw`). The output range depends on the data, so on D = (.2, .5, .5),
    D' = (.2, .5, .9) (replace-one, ε = 1) the outputs in (.5, .9] are possible only under D': the
    exact privacy loss is ∞ (catalogue item B5 in ``notes/auditor.md``). Empty data raise ``ValueError``.

    Args:
        quantile: The quantile q, in [0, 1].
        epsilon: The ε of the claim, positive and finite.
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    clamps = False  # the domain is ``bounds``
    allow_empty = False

    def _em(self, data: np.ndarray) -> ExponentialQuantile | None:
        lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            return None
        try:
            return ExponentialQuantile(self.quantile, self.epsilon, (lo, hi), "replace_one")
        except ValueError as exc:  # the bounds come from the data: say so
            raise ValueError(f"data give the bounds [min, max] = [{lo!r}, {hi!r}]: {exc}") from None

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear | DiscreteLaw:
        em = self._em(data)
        if em is None:
            return DiscreteLaw([float(data[0])], [0])
        return em._law(data)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        em = self._em(data)
        if em is None:
            return np.full(size, float(data[0]))
        return base.float_draws(self, lambda: em._draw(data, size, rng))


# --------------------------------------------------------------------------------------------
# Exponential mechanism over the data points
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMOutputsDataValue(base.OneQuantileBug, ExactMechanismBase):
    """An exponential mechanism over the *data points* instead of the intervals between them:
    rank j = 1..n of the sorted data is chosen with probability ∝ exp(ε·u_j/2), u_j = −|j − q·n|,
    and the data value x_(j) itself is released.

    The output set is the data, so it differs between neighbours: on D = (.25,), D' = (.5,)
    (replace-one, ε = 1) the exact privacy loss is ∞. The domain is ``bounds``; empty data raise
    ``ValueError``, and so does :meth:`exact` on more than :attr:`max_exact_points` points.

    Args:
        quantile: The quantile q, in [0, 1].
        epsilon: The ε of the claim, positive and finite.
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    clamps = False  # the domain is ``bounds``
    allow_empty = False
    max_exact_points: ClassVar[int] = 10**5
    """The largest data set :meth:`exact` takes (one mpmath atom per point: seconds at 10⁵)."""

    def _law(self, data: np.ndarray) -> DiscreteLaw:
        """Atoms at the distinct data values, log-weight −ε|j − q·n|/2 summed over their ranks."""
        if data.size > self.max_exact_points:
            raise ValueError(
                f"data: exact() of EMOutputsDataValue builds one exact atom per data point and "
                f"takes at most {self.max_exact_points} points, got {data.size}"
            )
        x = np.sort(data)
        half, t = base.half_scale(self.epsilon), Fraction(self.quantile) * x.size
        nearest = base.nearest_distance(np.arange(1, x.size + 1), t)
        log_w = [-half * (abs(j - t) - nearest) for j in range(1, x.size + 1)]
        return DiscreteLaw([float(v) for v in x], log_w)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        x = np.sort(data)
        log_w = base.em_log_weights(self.epsilon, np.arange(1, x.size + 1), self.quantile * x.size)
        return x[base.pick(log_w, size, rng)]


__all__ = [
    "EMDataBounds",
    "EMNoClamp",
    "EMOutputsDataValue",
]
