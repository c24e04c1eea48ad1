"""The constants of tzamos20's typical set and mechanism, validated and exact (spec §1.5–§1.8)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reference.validation import check_fraction, check_int

MEDIAN_INDICES = ("ceil", "floor")


def exact_positive(x: Any, name: str) -> Fraction:
    """A rational > 0 (int, Fraction or finite float read exactly)."""
    return check_fraction(x, name, positive=True)


@dataclass(frozen=True)
class MedianParameters:
    """n (public), the admissibility constants L, r, R (Assumption 1.2 as reconstructed in
    spec §1.2: density >= L on [m(D) − r, m(D) + r], |m(D)| <= R, Lr <= 1/2) and the constant C.

    Derived: ℓ (the median index), δ = C/(Ln), K = ⌊Lrn/(2C)⌋, Ξ = [−R − r/2, R + r/2],
    B = R + 4Cr (the output range [−B, B]).
    """

    n: int
    L: Fraction
    r: Fraction
    R: Fraction
    C: Fraction
    median_index: str = "ceil"

    def __post_init__(self) -> None:
        check_int(self.n, "n", minimum=1)
        for name in ("L", "r", "R", "C"):
            object.__setattr__(self, name, exact_positive(getattr(self, name), name))
        if self.L * self.r > Fraction(1, 2):
            raise ValueError(
                f"L·r must be at most 1/2 (a density >= L on an interval of width 2r), got "
                f"L·r = {self.L * self.r}"
            )
        if self.median_index not in MEDIAN_INDICES:
            raise ValueError(
                f"median_index must be one of {MEDIAN_INDICES}, got {self.median_index!r}"
            )

    @property
    def ell(self) -> int:
        """ℓ = ⌈n/2⌉ (default) or the printed ⌊n/2⌋ (``"floor"``; at least 1)."""
        if self.median_index == "ceil":
            return (self.n + 1) // 2
        return max(1, self.n // 2)

    @property
    def delta(self) -> Fraction:
        """The grid step δ = C/(Ln)."""
        return self.C / (self.L * self.n)

    @property
    def windows(self) -> int:
        """K = ⌊Lrn/(2C)⌋: the window constraints κ = 1..K of H."""
        return math.floor(self.L * self.r * self.n / (2 * self.C))

    @property
    def xi_range(self) -> tuple[Fraction, Fraction]:
        """Ξ = [−R − r/2, R + r/2]: where the median of a typical data set may lie."""
        half = self.R + self.r / 2
        return (-half, half)

    @property
    def output_bound(self) -> Fraction:
        """B = R + 4Cr: outputs lie in I = [−B, B]."""
        return self.R + 4 * self.C * self.r


__all__ = ["MEDIAN_INDICES", "MedianParameters", "exact_positive"]
