"""Laws of independent coordinates: :class:`ProductLaw`, the output law of a mechanism that
releases k statistics with independent randomness (k quantiles, say)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions.discrete import DiscreteLaw
from dpquant.reference.distributions.inputs import check_rows, describe
from dpquant.reference.distributions.limits import MAX_COMPONENTS
from dpquant.reference.distributions.piecewise import PiecewiseLogLinear
from dpquant.reference.exact.mp import workdps
from dpquant.reference.validation import MAX_DRAWS, check_rng, check_size


class ProductLaw:
    """The law of a vector of independent coordinates: the output of a mechanism that releases k
    statistics with independent randomness (k quantiles, say).

    Divergences between two product laws of the same shape are exact: the log-likelihood ratio is
    a sum of per-coordinate ratios, so its essential sup is the sum of theirs and Rényi divergences
    add up; the hockey-stick divergence is summed over the product of the coordinates' cells (atoms
    or pieces), which needs piecewise-constant or discrete coordinates.

    Args:
        components: The coordinates' laws: coordinate i is drawn from ``components[i]``, a
            :class:`DiscreteLaw` with numeric atoms or a :class:`PiecewiseLogLinear`.

    Raises:
        ValueError: ``components`` is not a non-empty sequence of such laws.
    """

    def __init__(self, components: Sequence[DiscreteLaw | PiecewiseLogLinear]):
        if isinstance(components, str | bytes | dict | set | frozenset):
            raise ParameterError(
                "components",
                "must be a non-empty sequence of laws",
                describe(components),
            )
        try:
            items = iter(components)
        except TypeError:
            raise ParameterError(
                "components",
                "must be a non-empty sequence of laws",
                describe(components),
            ) from None
        comps = []
        for c in items:
            comps.append(c)
            if len(comps) > MAX_COMPONENTS:
                raise ParameterError("components", f"must hold at most {MAX_COMPONENTS} laws")
        if not comps:
            raise ParameterError("components", "must be a non-empty sequence of laws")
        for i, c in enumerate(comps):
            numeric = isinstance(c, DiscreteLaw) and c.numeric
            if not (numeric or isinstance(c, PiecewiseLogLinear)):
                raise ParameterError(
                    f"components[{i}]",
                    "must be a numeric DiscreteLaw or a PiecewiseLogLinear",
                    describe(c),
                )
        self.components = tuple(comps)

    def __len__(self) -> int:
        return len(self.components)

    def __repr__(self) -> str:
        return f"ProductLaw({', '.join(map(repr, self.components))})"

    def total_mass(self) -> mpmath.mpf:
        """Exact total mass: the product of the coordinates' total masses."""
        with workdps():
            return mpmath.fprod(c.total_mass() for c in self.components)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent draws, the coordinates drawn one after another.

        Args:
            size: The draws (0 gives an empty array; size·k above 10·MAX_DRAWS numbers is
                refused).
            rng: A ``numpy.random.Generator``.

        Returns:
            Shape (size, k).
        """
        size, rng = check_size(size), check_rng(rng)
        if size * len(self) > 10 * MAX_DRAWS:
            raise ParameterError(
                "size",
                f"must be at most {10 * MAX_DRAWS // len(self)} for a product law of {len(self)} "
                f"coordinates (size·k <= {10 * MAX_DRAWS} numbers)",
                size,
            )
        cols = [np.asarray(c.sample(size, rng), dtype=float) for c in self.components]
        return np.column_stack(cols) if size else np.empty((0, len(self)))

    def logpdf(self, y: Any) -> np.ndarray:
        """Float log-density at points.

        Args:
            y: The points, the rows of an (n, k) array.

        Returns:
            n sums of the coordinates' float log-densities (log-probabilities for atoms).
        """
        y = check_rows(y, "y", len(self))
        total = np.zeros(len(y))
        for i, c in enumerate(self.components):
            total = total + (c.logpmf(y[:, i]) if isinstance(c, DiscreteLaw) else c.logpdf(y[:, i]))
        return total


def check_same_shape(p: ProductLaw, q: ProductLaw) -> None:
    """Refuse (``ValueError`` naming p and q) two product laws whose coordinates differ in
    number or kind."""
    kinds = [type(c) for c in p.components], [type(c) for c in q.components]
    if kinds[0] != kinds[1]:
        raise ValueError("p and q: product laws must have the same number and kinds of coordinates")


__all__ = ["ProductLaw", "check_same_shape"]
