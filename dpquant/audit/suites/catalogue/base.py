"""What the catalogue's mechanisms share: the one-quantile fields (q, ε, bounds) and the
arithmetic of the exponential mechanism (Smith 2011, "Privacy-preserving statistical estimation
with optimal convergence rates", STOC) that the bad variants reuse: log-weights shifted so that
the largest is 0, exact rational shifts, inverse-CDF picks and uniform points inside intervals.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.reference.core import Adjacency, MechanismBase
from dpquant.reference.distributions import FLOAT_SAMPLING_TOLERANCE, PiecewiseLogLinear
from dpquant.reference.primitives.exponential_mechanism import check_bounds
from dpquant.reference.validation import check_epsilon, check_probability

UNIT = (0.0, 1.0)


def check_em_fields(mech: Any) -> None:
    """Validate and normalise the (quantile, epsilon, bounds) fields of a frozen dataclass."""
    object.__setattr__(mech, "quantile", check_probability(mech.quantile, "quantile"))
    object.__setattr__(mech, "epsilon", check_epsilon(mech.epsilon))
    object.__setattr__(mech, "bounds", check_bounds(mech.bounds))


def em_log_weights(epsilon: float, ranks: np.ndarray, target: float) -> np.ndarray:
    """The float log-weights −ε·(|j − t| − min_k |j_k − t|)/2 of the ranks j (non-empty): shifted
    so that the largest is 0, which changes no law; −inf where the product overflows (a weight
    negligible against the largest), so a huge ε never gives −inf − (−inf) = NaN."""
    dist = np.abs(ranks - target)
    with np.errstate(over="ignore"):
        return -0.5 * epsilon * (dist - dist.min())


def nearest_distance(ranks: np.ndarray, target: Fraction) -> Fraction:
    """min_k |ranks[k] − t| exactly, for sorted distinct integer ranks (non-empty): the exact
    shift of the log-weights, so that the largest exact log-weight is 0 and a huge ε·|j − t|
    never swamps the working precision of the normaliser."""
    i = int(np.searchsorted(ranks, float(target)))
    window = ranks[max(i - 2, 0) : i + 2]
    return min(abs(int(r) - target) for r in window)


def pick(log_weights: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` indices drawn with probability ∝ exp(log_weights): inverse CDF on weights taken
    relative to the largest (log space, so nothing underflows that matters)."""
    w = np.exp(log_weights - np.max(log_weights))
    cum = np.cumsum(w)
    idx = np.searchsorted(cum, rng.random(size) * cum[-1], side="right")
    return np.minimum(idx, len(w) - 1)


def float_draws(mech: Any, draw: Callable[[], np.ndarray]) -> np.ndarray:
    """``draw()``: draws from an exact law's float sampler on checked data and parameters. Its
    one refusal (a law that float64 cannot resolve, e.g. an interval narrower than the float
    spacing, where rounding would pile the draws on its ends) is re-raised naming the
    mechanism's parameters and the data, which together define the law."""
    try:
        return draw()
    except ValueError as exc:
        fields = ", ".join(f.name for f in dataclasses.fields(mech))
        raise ValueError(
            f"{type(mech).__name__}: the parameters ({fields}) and the data give a law that "
            f"float64 cannot sample exactly: {exc}"
        ) from None


def check_resolution(mech: Any, law: PiecewiseLogLinear) -> None:
    """Refuse, like the law's own float sampler, a law whose float draws cannot follow it
    (:meth:`PiecewiseLogLinear.float_sampling_error` above :data:`FLOAT_SAMPLING_TOLERANCE`, e.g.
    an interval narrower than the float spacing, where a uniform point rounds to its ends): the
    catalogue's own samplers draw from the same law independently of its sampler."""
    error = law.float_sampling_error()
    if not error <= FLOAT_SAMPLING_TOLERANCE:
        fields = ", ".join(f.name for f in dataclasses.fields(mech))
        raise ValueError(
            f"{type(mech).__name__}: the parameters ({fields}) and the data give a law that "
            f"float64 cannot sample exactly: rounding would move its CDF by up to {error:.3g} "
            f"> FLOAT_SAMPLING_TOLERANCE = {FLOAT_SAMPLING_TOLERANCE:g}"
        )


def uniform_in(
    breaks: np.ndarray, idx: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    """A uniform point inside [breaks[idx], breaks[idx + 1]] for each index."""
    left, right = breaks[idx], breaks[idx + 1]
    return left + (right - left) * rng.random(size)


def half_scale(epsilon: float) -> Fraction:
    """ε/2 as an exact rational (the float ε is an exact binary rational)."""
    return Fraction(epsilon) / 2


@dataclass(frozen=True)
class OneQuantileBug(MechanismBase):
    """Fields and claim shared by the one-quantile entries: q, ε, bounds [a, b]; the claim is
    ε-DP under replace-one; any finite value is valid input (values outside the bounds are
    clamped -- except by :class:`EMNoClamp`, which is the bug, and by the entries whose domain is
    the bounds). The inputs are checked by :class:`dpquant.reference.core.MechanismBase` like those of
    every other mechanism: the bugs are in the privacy, not in the input checking."""

    quantile: float = 0.5
    epsilon: float = 1.0
    bounds: tuple[float, float] = UNIT

    adjacency = Adjacency.REPLACE_ONE
    clamps = True
    allow_empty = True

    def __post_init__(self) -> None:
        check_em_fields(self)


__all__ = [
    "UNIT",
    "OneQuantileBug",
    "check_em_fields",
    "check_resolution",
    "em_log_weights",
    "float_draws",
    "half_scale",
    "nearest_distance",
    "pick",
    "uniform_in",
]
