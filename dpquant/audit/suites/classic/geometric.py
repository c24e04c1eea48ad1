"""The truncated geometric mechanism of DP-Sniper's benchmark (Bichsel et al., IEEE S&P 2021):
Balcer and Vadhan's GeoSample ("Differential privacy on finite computers", ITCS 2018, arXiv
1709.05396, Alg. 4.8), which releases a count c ∈ {0, ..., n} with integer arithmetic only.

With k = ⌈ln(2/ε)⌉ (natural log, as DP-Sniper computes it) and d = (2^{k+1}+1)(2^k+1)^{n−1},
GeoSample draws u uniformly from {1, ..., d} and releases the smallest z with F(z) >= u, where

* F(z) = 2^{k(c−z)} (2^k+1)^{n−(c−z)} for z < c,
* F(z) = d − 2^{k(z−c+1)} (2^k+1)^{n−1−(z−c)} for c <= z < n,
* F(n) = d.

So P(z) = (F(z) − F(z−1))/d, the two-sided geometric law ∝ α^{|z−c|} with α = 2^k/(2^k+1),
its tails beyond 0 and n piled onto 0 and n. Neighbouring counts (|c − c'| <= 1) change every
probability by a factor at most 1/α = 1 + 2^{−k}, reached at every z, so the mechanism is exactly
ln(1 + 2^{−⌈ln(2/ε)⌉})-DP (Balcer and Vadhan, Thm. 4.7, as DP-Sniper's docstring cites it; the
ratio is derived here from the law above). That is more than the nominal ε for small ε (0.1178 at
ε = 0.1) and less for larger ones (0.2231 at ε = 0.5).

This sampler computes the law F exactly with Python integers and draws z by inverting the CDF
F/d rounded to doubles (each probability within 2^{−53} of the exact one) rather than drawing u
from {1, ..., d}, which for small ε does not fit a 64-bit integer.

Every ε in (0, 2] is taken: below 2/1.8e308 ≈ 1.1e-308, where 2/ε overflows (ε = 5e-324 raised
``OverflowError``), k is computed as ⌈ln 2 − ln ε⌉ (746 at 5e-324), still an exact law of
integers; above it DP-Sniper's ⌈ln(2/ε)⌉ is kept, so no k changes where it was defined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from dpquant.audit.suites.classic.inputs import check_draws, check_integer_input
from dpquant.reference.validation import check_epsilon, check_int

MAX_EPSILON = 2.0
"""Largest nominal ε: GeoSample needs k = ⌈ln(2/ε)⌉ >= 0."""
MAX_COUNT = 100
"""Largest n (the counts' upper end)."""


def geo_exponent(epsilon: Any) -> int:
    """k = ⌈ln(2/ε)⌉ for 0 < ε <= 2."""
    eps = check_epsilon(epsilon)
    if eps > MAX_EPSILON:
        raise ValueError(
            f"epsilon must lie in (0, {MAX_EPSILON:g}] for GeoSample (k = ceil(ln(2/epsilon)) "
            f">= 0), got {eps!r}"
        )
    ratio = 2.0 / eps
    if math.isinf(ratio):  # ε < 2/MAX_FLOAT: the logarithm of the quotient without it
        return math.ceil(math.log(2.0) - math.log(eps))
    return math.ceil(math.log(ratio))


def geo_true_epsilon(epsilon: Any) -> float:
    """ln(1 + 2^{−k}), k = ⌈ln(2/ε)⌉: the exact guarantee of GeoSample at nominal ``epsilon``."""
    return math.log1p(2.0 ** -geo_exponent(epsilon))


@lru_cache(maxsize=64)
def _cdf(k: int, n: int, c: int) -> tuple[int, ...]:
    """GeoSample's integer CDF F(0), ..., F(n) (F(n) = d) for the count ``c``."""
    a, b = 2**k, 2**k + 1
    d = (2 * a + 1) * b ** (n - 1)
    out = []
    for z in range(n + 1):
        if z < c:
            out.append(a ** (c - z) * b ** (n - (c - z)))
        elif z < n:
            out.append(d - a ** (z - c + 1) * b ** (n - 1 - (z - c)))
        else:
            out.append(d)
    return tuple(out)


def geo_pmf(epsilon: Any, count: Any, n: Any = 5) -> tuple[Fraction, ...]:
    """GeoSample's exact law P(z), z = 0, ..., n, on the count ``count`` ∈ {0, ..., n}."""
    k = geo_exponent(epsilon)
    n = check_int(n, "n", minimum=1, maximum=MAX_COUNT)
    c = check_int(count, "count", minimum=0, maximum=n)
    cdf = _cdf(k, n, c)
    return tuple(Fraction(hi - lo, cdf[-1]) for lo, hi in zip((0, *cdf[:-1]), cdf, strict=True))


@dataclass(frozen=True)
class TruncatedGeometric:
    """GeoSample at nominal ``epsilon`` on a count in {0, ..., ``n``} (module docstring).

    Called as ``fn(q, size, rng)`` with q one integer count (a number or a vector of one; a
    non-integer is a ``ValueError``): ``size`` draws as a float array of shape (size,)."""

    epsilon: float
    n: int = 5

    def __post_init__(self) -> None:
        geo_exponent(self.epsilon)
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "n", check_int(self.n, "n", minimum=1, maximum=MAX_COUNT))

    @property
    def exponent(self) -> int:
        """k = ⌈ln(2/ε)⌉."""
        return geo_exponent(self.epsilon)

    def cdf(self, count: int) -> np.ndarray:
        """F(z)/d for z = 0, ..., n as doubles (the last exactly 1.0)."""
        cdf = _cdf(self.exponent, self.n, count)
        return np.array([float(Fraction(f, cdf[-1])) for f in cdf])

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        count = check_integer_input(q, 0, self.n)
        size, rng = check_draws(size, rng)
        u = rng.random(size)  # in [0, 1): the smallest z with F(z)/d > u
        return np.searchsorted(self.cdf(count), u, side="right").astype(float)


__all__ = [
    "MAX_COUNT",
    "MAX_EPSILON",
    "TruncatedGeometric",
    "geo_exponent",
    "geo_pmf",
    "geo_true_epsilon",
]
