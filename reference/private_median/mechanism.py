"""PRIVATEMEDIAN (tzamos20 Algorithm 1) as a :class:`~reference.core.Mechanism`.

Modes (spec §2.1, E1):

* ``"extension"`` (default): always sample D_general, f ∝ exp((ε/2)Ψ_X) on [−B, B] (Eq. (A.6),
  Prop. A.5(a)). ε-DP for every pair of inputs, whatever H is.
* ``"paper"``: Algorithm 1 as printed — the restricted flattened Laplace Â(X) when X ∈ H
  (Case (A), Algorithm 2), D_general otherwise (Case (B), Algorithm 7). **Not ε-DP**: Lemma 3.3
  and Prop. A.5(b) are false for the paper's H (spec §6 E1), and the auditor finds a violation.

n is public (the data set's size; replace-one neighbours); L, r, R, C are the public constants of
:class:`MedianParameters`. The exact law of every output is a :class:`PiecewiseLogLinear`
(``exact``); ``sample`` draws from it by Algorithm 7 (an m-ary coin on the exact piece masses,
then the stable TRUNCATEDEXPONENTIAL inverse) or, in Case (A), by Algorithm 2.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from reference.core import PrivacyClaim
from reference.distributions import PiecewiseLogLinear
from reference.private_median.extended_density import Piece, envelope, law_from_pieces
from reference.private_median.parameters import MEDIAN_INDICES, MedianParameters
from reference.private_median.restricted_density import restricted_pieces, sample_restricted
from reference.private_median.typical_set import exact_data, in_typical_set, left_median
from reference.validation import check_rng, check_size

MODES = ("extension", "paper")


@functools.lru_cache(maxsize=4096)
def _envelope(params: MedianParameters, data: tuple[Fraction, ...]) -> tuple[Piece, ...]:
    return tuple(envelope(list(data), params))


def extension_pieces(data: Any, params: MedianParameters) -> list[Piece]:
    """Ψ_X (memoised on the sorted data: the partition does not depend on ε, spec §4.2)."""
    return list(_envelope(params, tuple(exact_data(data, params.n))))


@dataclass(frozen=True)
class PrivateMedian:
    """tzamos20's ε-DP median estimator for (L, R, r)-admissible data (Assumption 1.2 as
    reconstructed, spec §1.2). Outputs lie in [−R − 4Cr, R + 4Cr]."""

    L: Any
    r: Any
    R: Any
    C: Any
    epsilon: Any
    mode: str = "extension"
    median_index: str = "ceil"

    def __post_init__(self) -> None:
        MedianParameters(1, self.L, self.r, self.R, self.C, self.median_index)  # validates
        for name in ("L", "r", "R", "C"):
            object.__setattr__(self, name, Fraction(getattr(self, name)))
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.median_index not in MEDIAN_INDICES:  # pragma: no cover - validated above
            raise ValueError(f"median_index must be one of {MEDIAN_INDICES}")
        PrivacyClaim(float(self.epsilon))  # validates ε
        object.__setattr__(self, "epsilon", Fraction(self.epsilon))

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(float(self.epsilon), 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf)

    @property
    def name(self) -> str:
        return (
            f"tzamos20_private_median[mode={self.mode},L={self.L},r={self.r},R={self.R},"
            f"C={self.C},eps={self.epsilon}]"
        )

    def parameters(self, n: int) -> MedianParameters:
        return MedianParameters(n, self.L, self.r, self.R, self.C, self.median_index)

    def _case(self, data: Any) -> tuple[MedianParameters, list[Fraction], bool]:
        values = exact_data(data)
        params = self.parameters(len(values))
        restricted = self.mode == "paper" and in_typical_set(values, params)
        return params, values, restricted

    def pieces(self, data: Any) -> list[Piece]:
        """Ψ for this input: Ψ_X, or the single tent at m(X) in the paper's Case (A)."""
        params, values, restricted = self._case(data)
        if restricted:
            return restricted_pieces(left_median(values, params), params)
        return extension_pieces(values, params)

    def exact(self, data: Any) -> PiecewiseLogLinear:
        """The exact output law on ``data``."""
        return law_from_pieces(self.pieces(data), self.epsilon)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent outputs on ``data``: Algorithm 2 in the paper's Case (A),
        Algorithm 7 otherwise."""
        size, rng = check_size(size), check_rng(rng)
        params, values, restricted = self._case(data)
        if restricted:
            m = left_median(values, params)
            return sample_restricted(m, params, self.epsilon, size, rng)
        return law_from_pieces(extension_pieces(values, params), self.epsilon).sample(size, rng)


__all__ = ["MODES", "PrivateMedian", "extension_pieces"]
