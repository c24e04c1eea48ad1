"""Several quantiles released together, each with the full budget (B8): sequential composition
(Dwork and Roth 2014, Theorem 3.16) bounds the joint loss by k·ε, not ε. The exact joint loss of
independent coordinates is max(Σ_i sup L_i, Σ_i sup(−L_i)), each direction summed separately
(``notes/auditor.md``, "Catalogue").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpquant.audit.suites.catalogue.base import UNIT, float_draws
from dpquant.reference.core import Adjacency, ExactMechanismBase
from dpquant.reference.distributions import ProductLaw, max_log_ratio
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile, check_bounds
from dpquant.reference.validation import check_data, check_epsilon, check_probability

MAX_QUANTILES = 1000
"""The most quantiles one :class:`MultiQuantileFullBudget` releases (its draws and its exact law
grow with their number)."""

# --------------------------------------------------------------------------------------------
# B8: several quantiles, each with the full budget
# --------------------------------------------------------------------------------------------


def _check_quantiles(quantiles: Any) -> tuple[float, ...]:
    """A non-empty list, tuple, range or 1-D array of at most :data:`MAX_QUANTILES`
    probabilities, as a tuple of floats."""
    what = f"quantiles must be a non-empty sequence of at most {MAX_QUANTILES} numbers in [0, 1]"
    if isinstance(quantiles, np.ndarray):
        if quantiles.ndim != 1:
            raise ValueError(f"{what}, got an array of shape {quantiles.shape}")
        quantiles = quantiles.tolist()
    if not isinstance(quantiles, list | tuple | range):
        raise ValueError(f"{what}, got {type(quantiles).__name__} {quantiles!r:.80}")
    if not 1 <= len(quantiles) <= MAX_QUANTILES:
        raise ValueError(f"{what}, got {len(quantiles)} values")
    return tuple(check_probability(q, f"quantiles[{i}]") for i, q in enumerate(quantiles))


@dataclass(frozen=True)
class MultiQuantileFullBudget(ExactMechanismBase):
    """Several quantiles released together, each by an independent correct EM with the *full* ε
    (the budget is not split), while the claim is ε in total.

    Output: a vector of shape (size, k), one column per quantile (data clamped to ``bounds``, so
    any finite value is valid input). By composition the true loss is at most k·ε; on
    D = (0, .25, .25, .25), D' = (.25, .25, .25, 1) (replace-one, ε = 1, q = .25, .5, .75 on
    [0, 1]) it is exactly 2.15789… (the largest over all neighbouring pairs of size <= 4 on the
    grid {0, .25, .5, .75, 1}; :func:`multi_quantile_exact_epsilon`; catalogue item B8 in ``notes/auditor.md``).
    One call draws at most ``max_draws // k`` vectors (k·size numbers).

    Args:
        epsilon: The ε of each quantile's EM, and of the claim, positive and finite.
        quantiles: The quantiles, 1 to :data:`MAX_QUANTILES` values in [0, 1].
        bounds: The bounds [a, b], finite, a < b
            (:func:`dpquant.reference.primitives.exponential_mechanism.check_bounds`).

    Raises:
        ValueError: An argument out of range (named).
    """

    epsilon: float = 1.0
    quantiles: tuple[float, ...] = (0.25, 0.5, 0.75)
    bounds: tuple[float, float] = UNIT

    adjacency = Adjacency.REPLACE_ONE
    clamps = True
    allow_empty = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_bounds(self.bounds))
        object.__setattr__(self, "quantiles", _check_quantiles(self.quantiles))

    def draw_limit(self, data: Any) -> int:
        """The most draws one call may ask for: each draw is a vector of k numbers.

        Args:
            data: The data set (the limit does not depend on it).

        Returns:
            ``max_draws // k``.
        """
        return max(1, self.max_draws // len(self.quantiles))

    @property
    def components(self) -> tuple[ExponentialQuantile, ...]:
        """The per-quantile mechanisms, each with the full ε."""
        return tuple(
            ExponentialQuantile(q, self.epsilon, self.bounds, adjacency="replace_one")
            for q in self.quantiles
        )

    def _law(self, data: np.ndarray) -> ProductLaw:
        """The joint law: the product of the components' exact laws (independent coordinates)."""
        return ProductLaw([em._law(data) for em in self.components])

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return float_draws(
            self, lambda: np.column_stack([em._draw(data, size, rng) for em in self.components])
        )


def multi_quantile_exact_epsilon(mech: MultiQuantileFullBudget, d0: Any, d1: Any) -> mpmath.mpf:
    """Exact privacy loss of the joint release on (d0, d1), computed coordinate by coordinate
    (an independent cross-check of ``privacy_loss(mech.exact(d0), mech.exact(d1))``).

    The coordinates are independent, so the log-likelihood ratio of the vector is the sum of the
    coordinates' ratios L_i(y_i), each a function of its own coordinate; the essential sup of such
    a sum over the product law is the sum of the essential sups. Both directions are summed
    separately: ε = max(Σ_i sup L_i, Σ_i sup(−L_i)). This can be smaller than Σ_i privacy_loss_i
    (the sum of the two-sided per-coordinate losses), which is only an upper bound when the
    coordinates' worst directions differ.

    Args:
        mech: The mechanism.
        d0: A data set under the data policy of
            :func:`dpquant.reference.validation.check_data` (possibly empty).
        d1: Its neighbour, likewise.

    Returns:
        The exact ε of the joint release on the pair.
    """
    if not isinstance(mech, MultiQuantileFullBudget):
        raise ValueError(f"mech must be a MultiQuantileFullBudget, got {type(mech).__name__}")
    x0 = check_data(d0, "d0", domain=mech.domain, allow_empty=mech.allow_empty)
    x1 = check_data(d1, "d1", domain=mech.domain, allow_empty=mech.allow_empty)
    laws0 = [em._law(x0) for em in mech.components]
    laws1 = [em._law(x1) for em in mech.components]
    with workdps():
        up = mpmath.fsum(max_log_ratio(p, q) for p, q in zip(laws0, laws1, strict=True))
        down = mpmath.fsum(max_log_ratio(q, p) for p, q in zip(laws0, laws1, strict=True))
        return max(up, down)


__all__ = [
    "MAX_QUANTILES",
    "MultiQuantileFullBudget",
    "multi_quantile_exact_epsilon",
]
