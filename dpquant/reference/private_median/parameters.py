"""The constants of tzamos20's typical set and mechanism, validated and exact: Assumption 1.2's
L, r, R, the constant C of H (display (3.3)) and Â (Eq. (A.2)), and what they derive."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_choice, check_fraction, check_int

MEDIAN_INDICES = ("ceil", "floor")
MAX_N = 10**7
"""The largest public n (a data set of n exact rationals)."""


def _exact_positive(x: Any, name: str) -> Fraction:
    """A rational > 0 (int, Fraction or finite float read exactly)."""
    return check_fraction(x, name, positive=True)


def _short(x: Fraction) -> str:
    """A rational for a message: its float value when it fits, else its size."""
    if abs(x) <= 1e300:
        return f"{float(x):.6g}"
    return f"a number of {len(str(x.numerator // x.denominator))} digits"


@dataclass(frozen=True)
class MedianParameters:
    """n (public), the admissibility constants L, r, R (Assumption 1.2 as reconstructed in
    ``notes/tzamos20.md``: density >= L on [m(D) − r, m(D) + r], |m(D)| <= R, Lr <= 1/2) and the
    constant C.

    Derived: ℓ (the median index), δ = C/(Ln), K = ⌊Lrn/(2C)⌋, Ξ = [−R − r/2, R + r/2],
    B = R + 4Cr (the output range [−B, B]); each computed once per instance (issue 39: the
    auditor's exact laws read them thousands of times).
    """

    n: int
    L: Fraction
    r: Fraction
    R: Fraction
    C: Fraction
    median_index: str = "ceil"

    def __post_init__(self) -> None:
        n = check_int(self.n, "n", minimum=1)
        if n > MAX_N:
            got = str(n) if n < 10**20 else f"an integer of {len(str(n))} digits"
            raise ParameterError("n", f"must be an integer in [1, {MAX_N}]", got)
        object.__setattr__(self, "n", n)
        for name in ("L", "r", "R", "C"):
            object.__setattr__(self, name, _exact_positive(getattr(self, name), name))
        if self.L * self.r > Fraction(1, 2):
            raise ValueError(
                f"L·r must be at most 1/2 (a density >= L on an interval of width 2r), got "
                f"L·r = {_short(self.L * self.r)}"
            )
        check_choice(self.median_index, "median_index", MEDIAN_INDICES)

    def __hash__(self) -> int:
        """The hash of the fields (what the dataclass would compute), computed once: the
        parameters key the memoised envelopes, laws and constants of :mod:`.mechanism`."""
        return self._fields_hash

    @cached_property
    def _fields_hash(self) -> int:
        return hash((self.n, self.L, self.r, self.R, self.C, self.median_index))

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        """Pickled as its fields only: the cached values stay behind (a str's hash differs
        between processes, so a cached hash must not travel)."""
        return (type(self), (self.n, self.L, self.r, self.R, self.C, self.median_index))

    @cached_property
    def ell(self) -> int:
        """ℓ = ⌈n/2⌉ (default) or the printed ⌊n/2⌋ (``"floor"``; at least 1)."""
        if self.median_index == "ceil":
            return (self.n + 1) // 2
        return max(1, self.n // 2)

    @cached_property
    def delta(self) -> Fraction:
        """The grid step δ = C/(Ln)."""
        return self.C / (self.L * self.n)

    @cached_property
    def windows(self) -> int:
        """K = ⌊Lrn/(2C)⌋: the window constraints κ = 1..K of H."""
        return math.floor(self.L * self.r * self.n / (2 * self.C))

    @cached_property
    def xi_range(self) -> tuple[Fraction, Fraction]:
        """Ξ = [−R − r/2, R + r/2]: where the median of a typical data set may lie."""
        half = self.R + self.r / 2
        return (-half, half)

    @cached_property
    def output_bound(self) -> Fraction:
        """B = R + 4Cr: outputs lie in I = [−B, B]."""
        return self.R + 4 * self.C * self.r


def in_xi_range(xi: Fraction, params: MedianParameters) -> bool:
    """ξ ∈ Ξ = [−R − r/2, R + r/2]: where H allows the median (and TYPICALHAMMING is finite)."""
    lo, hi = params.xi_range
    return lo <= xi <= hi


def check_params(params: Any) -> MedianParameters:
    """``params`` must be a :class:`MedianParameters` (the constants of display (3.3))."""
    if not isinstance(params, MedianParameters):
        raise ParameterError("params", "must be a MedianParameters", type(params).__name__)
    return params


def check_work(work: int, limit: int, what: str, params: MedianParameters) -> None:
    """ValueError naming ``what`` when a construction's cost ``work`` exceeds ``limit`` (about
    10 s of this package's exact arithmetic; the constants K = ⌊Lrn/(2C)⌋ and n set it)."""
    if work > limit:
        raise ValueError(
            f"{what}: this construction is too large to compute here (n = {params.n}, "
            f"K = ⌊Lrn/(2C)⌋ = {_short(Fraction(params.windows))}, cost "
            f"{_short(Fraction(work))} > the limit {limit:.3g} of about 10 s): use a smaller n "
            f"or a larger C"
        )


__all__ = [
    "MAX_N",
    "MEDIAN_INDICES",
    "MedianParameters",
    "check_params",
    "check_work",
    "in_xi_range",
]
