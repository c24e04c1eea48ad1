"""The affine map from public bounds [a, b] onto the algorithms' domain [−1, 1].

The paper's users hold values in [−1, 1] (Sec. 3) and its real data are rescaled onto it (ages
[0, 150] in Sec. 6.3, ratings [0, 5] in Sec. 6.2).

x ↦ 2(x − a)/(b − a) − 1 and back y ↦ a + (y + 1)(b − a)/2. The bounds must be public and known
before the data are seen. Values outside [a, b] raise ``ValueError`` unless ``clamp=True``, which
clips them to [a, b] first (a documented, data-independent pre-processing step). Errors are
reported on the [−1, 1] scale; multiply by :attr:`UnitMap.scale` for the data's scale.

Both directions are evaluated so that no intermediate overflows for any finite bounds whose
width b − a fits a float (``(0, 1e308)`` included): the forward map divides before it doubles,
the backward map halves the width first, and values of [−1, 1] are mapped back into [a, b]
(clipped there against rounding), so an output of an algorithm on [−1, 1] never leaves the
public bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_data, check_domain, check_flag, check_real_array


@dataclass(frozen=True)
class UnitMap:
    """x ↦ 2(x − lo)/(hi − lo) − 1 for public finite bounds lo < hi (width hi − lo finite)."""

    lo: float = -1.0
    hi: float = 1.0
    clamp: bool = False

    def __post_init__(self) -> None:
        lo, hi = check_domain((self.lo, self.hi), "bounds", finite=True)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        object.__setattr__(self, "clamp", check_flag(self.clamp, "clamp"))

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.lo, self.hi)

    @property
    def scale(self) -> float:
        """(hi − lo)/2: one unit on [−1, 1] in the data's units."""
        return (self.hi - self.lo) / 2.0

    @property
    def is_identity(self) -> bool:
        return self.lo == -1.0 and self.hi == 1.0

    def to_unit(self, data: Any, name: str = "data") -> np.ndarray:
        """Map data in [lo, hi] (clipped there first when ``clamp``) onto [−1, 1]."""
        x = check_data(data, name, domain=None if self.clamp else self.bounds)
        return self.checked_to_unit(x)

    def checked_to_unit(self, x: np.ndarray) -> np.ndarray:
        """:meth:`to_unit` on a float array already checked by :func:`check_data`."""
        if self.clamp:
            x = np.clip(x, self.lo, self.hi)
        if self.is_identity:
            return x
        # (x − lo)/(hi − lo) lies in [0, 1]: no overflow even when hi − lo > MAX_FLOAT/2
        y = 2.0 * ((x - self.lo) / (self.hi - self.lo)) - 1.0
        return np.clip(y, -1.0, 1.0)  # rounding only: x already lies in [lo, hi]

    def from_unit(self, y: Any) -> np.ndarray:
        """Map outputs on [−1, 1] back to [lo, hi] (outputs of the Laplace baseline may lie
        outside [−1, 1]; they are mapped by the same affine formula, and a value that leaves
        the float range there is refused naming ``y``)."""
        y = check_real_array(y, "y")
        if self.is_identity:
            return y
        half = (self.hi - self.lo) / 2.0
        with np.errstate(over="ignore", invalid="ignore"):
            out = self.lo + (y + 1.0) * half
        inside = np.abs(y) <= 1.0
        out = np.where(inside, np.clip(out, self.lo, self.hi), out)
        if not np.all(np.isfinite(out)):
            raise ParameterError(
                "y",
                "must map into the float range: a + (y + 1)(b − a)/2 overflows for bounds ("
                f"{self.lo!r}, {self.hi!r})",
            )
        return out


__all__ = ["UnitMap"]
