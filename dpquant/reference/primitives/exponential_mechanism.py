"""The exponential mechanism for one quantile over Smith's intervals (Smith 2011).

The data are clamped to the declared bounds (a, b) and sorted, z_0 = a, z_1..z_n the data,
z_{n+1} = b. Interval j = [z_j, z_{j+1}] (j = 0..n) has utility u_j = −|j − t| with target rank
t = q·n, and is chosen with probability ∝ (z_{j+1} − z_j)·exp(ε·u_j/(2Δ)); the output is uniform
inside it. The utility's sensitivity Δ is max(q, 1 − q) under add/remove (t moves by q or 1 − q
while j moves by at most one) and 1 under replace-one. This is imola25's SingleQuantile
(App. C.2) and the mechanism behind diffprivlib's and OpenDP's quantiles.

The output law is piecewise constant (:class:`dpquant.reference.distributions.PiecewiseLogLinear` with zero
slopes); :meth:`ExponentialQuantile.exact` gives it with exact rational log-weights
ε·u_j/(2Δ) (``Fraction``), and the sampler draws from the same law in log space by inverse CDF,
so it never underflows (diffprivlib #107, SmartNoise #572).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import ExactMechanismBase, check_adjacency
from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.exact.mp import LazySequence
from dpquant.reference.inverse_cdf import coarse_float_grid
from dpquant.reference.validation import (
    check_data,
    check_domain,
    check_epsilon,
    check_positive,
    check_probability,
)


def utility_sensitivity(quantile: float, adjacency: str) -> float:
    """Sensitivity of the utility u_j = −|j − q·n|.

    Args:
        quantile: q, in [0, 1].
        adjacency: ``"add_remove"`` or ``"replace_one"``.

    Returns:
        max(q, 1 − q) for add/remove, 1 for replace-one.
    """
    q = check_probability(quantile, "quantile")
    adjacency = check_adjacency(adjacency)
    if adjacency == "add_remove":
        return max(q, 1.0 - q)
    if adjacency == "replace_one":
        return 1.0
    raise ParameterError(
        "adjacency",
        "must be 'add_remove' or 'replace_one' for a central quantile",
    )


def check_bounds(bounds: Any, name: str = "bounds") -> tuple[float, float]:
    """Check the bounds of an exponential mechanism.

    Args:
        bounds: Finite (a, b), a < b, whose width fits a float and spans more than 2^12 float
            spacings at their magnitude: uniform draws inside narrower bounds would round onto
            a few doubles (:func:`dpquant.reference.inverse_cdf.coarse_float_grid`), not follow
            the EM's density.
        name: The argument named in errors.

    Returns:
        (a, b) as floats.

    Raises:
        ValueError: Bounds that break one of these.
    """
    a, b = check_domain(bounds, name, finite=True)
    if coarse_float_grid(max(abs(a), abs(b)), b - a):
        raise ParameterError(
            name,
            "must be wider than 2^12 float spacings at their magnitude (uniform draws inside them "
            "must not round onto a few doubles)",
            f"({a!r}, {b!r})",
        )
    return a, b


@dataclass(frozen=True)
class SmithIntervals:
    """Clamped, sorted data cut into the intervals of positive length.

    Attributes:
        breaks: The m + 1 distinct interval ends.
        ranks: ``ranks[k]`` is the index j of the k-th interval of positive length (the number
            of clamped points <= its left end).
        n: The number of data points.
    """

    breaks: np.ndarray
    ranks: np.ndarray
    n: int


def smith_intervals(data: np.ndarray, bounds: tuple[float, float]) -> SmithIntervals:
    """Clamp to the bounds, sort, and keep the intervals [z_j, z_{j+1}] of positive length
    (O(n log n)).

    Args:
        data: A data set (empty allowed).
        bounds: Finite (a, b), a < b.

    Returns:
        The intervals.
    """
    data = check_data(data, "data", allow_empty=True)
    a, b = check_domain(bounds, "bounds", finite=True)
    return _cut(data, a, b)


def _cut(data: np.ndarray, a: float, b: float) -> SmithIntervals:
    """:func:`smith_intervals` of a checked data set and checked bounds (a, b)."""
    z = np.sort(np.clip(data, a, b))
    full = np.concatenate([[a], z, [b]])
    ranks = np.flatnonzero(np.diff(full) > 0)
    breaks = np.append(full[ranks], b)
    return SmithIntervals(breaks=breaks, ranks=ranks, n=len(z))


@lru_cache(maxsize=64)
def _scales(
    quantile: float, epsilon: float, adjacency: str, sensitivity: float | None
) -> tuple[float, Fraction, Fraction]:
    """The constants of the EM's law, computed once per mechanism: ε/(2Δ) in float, and q and
    ε/(2Δ) as exact rationals (Δ the ``sensitivity`` override, else
    :func:`utility_sensitivity`)."""
    q = Fraction(quantile)
    if sensitivity is not None:
        delta, delta_exact = sensitivity, Fraction(sensitivity)
    else:
        delta = utility_sensitivity(quantile, adjacency)
        delta_exact = max(q, 1 - q) if adjacency == "add_remove" else Fraction(1)
    return epsilon / (2.0 * delta), q, Fraction(epsilon) / (2 * delta_exact)


@dataclass(frozen=True)
class ExponentialQuantile(ExactMechanismBase):
    """ε-DP release of the q-quantile by the exponential mechanism over Smith's intervals.

    Any finite value is valid input: values outside ``bounds`` are clamped; the empty data set
    gives the uniform law on ``bounds``.

    Args:
        quantile: q, in [0, 1].
        epsilon: ε, positive and finite.
        bounds: The output interval (a, b) (:func:`check_bounds`).
        adjacency: ``"add_remove"`` or ``"replace_one"``.
        sensitivity: Overrides the utility sensitivity Δ (:func:`utility_sensitivity`): a value
            below the true one gives a deliberately mis-calibrated mechanism whose real privacy
            loss exceeds its claim (used by the tests and the auditor's known-answer
            catalogue). None: the true Δ.

    Raises:
        ValueError: A field out of range (named).
    """

    quantile: float
    epsilon: float
    bounds: tuple[float, float]
    adjacency: str = "replace_one"
    sensitivity: float | None = None

    clamps = True  # any finite value is valid input: values outside ``bounds`` are clamped
    allow_empty = True  # the empty data set gives the uniform law on ``bounds``

    def __post_init__(self) -> None:
        object.__setattr__(self, "quantile", check_probability(self.quantile, "quantile"))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_bounds(self.bounds))
        object.__setattr__(self, "adjacency", check_adjacency(self.adjacency))
        utility_sensitivity(self.quantile, self.adjacency)
        if self.sensitivity is not None:
            object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))

    @property
    def delta_u(self) -> float:
        if self.sensitivity is not None:
            return self.sensitivity
        return utility_sensitivity(self.quantile, self.adjacency)

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear:
        """The exact output density: constant exp(ε·u_j/(2Δ))/Z on interval j (exact Fractions).

        The log-weights are taken relative to the largest one (the interval whose rank is nearest
        the target t): the law is unchanged, and a huge ε·|j − t| then gives a weight of exactly
        0 (−inf) instead of −inf − (−inf) = NaN, or a 60-digit normaliser swamped by terms of
        size 1e307. ``data`` has passed :meth:`check_input` (and the fields
        ``__post_init__``), so neither is checked again."""
        cut = _cut(data, *self.bounds)
        ranks = cut.ranks
        scale, q_exact, scale_exact = _scales(
            self.quantile, self.epsilon, self.adjacency, self.sensitivity
        )
        dist = np.abs(ranks - self.quantile * cut.n)
        with np.errstate(over="ignore"):
            intercepts = -scale * (dist - dist.min())
        t_exact = q_exact * cut.n
        near = np.searchsorted(ranks, float(t_exact))  # ranks are increasing: the nearest is here
        nearest = min(abs(int(ranks[k]) - t_exact) for k in (near - 1, near) if 0 <= k < len(ranks))
        exact = LazySequence(
            len(ranks), lambda k: -scale_exact * (abs(int(ranks[k]) - t_exact) - nearest)
        )
        return PiecewiseLogLinear(
            cut.breaks, np.zeros(len(ranks)), intercepts, exact_intercepts=exact
        )

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases on ``data`` (vectorised inverse CDF in log space)."""
        try:
            return self._law(data).sample(size, rng)
        except ValueError as exc:  # a law float64 cannot resolve: say which inputs made it
            raise ValueError(
                f"epsilon = {self.epsilon!r}, bounds = {self.bounds!r} and this data give an "
                f"output law that float draws cannot follow: {exc}"
            ) from None


__all__ = [
    "ExponentialQuantile",
    "SmithIntervals",
    "check_bounds",
    "smith_intervals",
    "utility_sensitivity",
]
