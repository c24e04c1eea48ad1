"""Accuracy of the private median: the terms of Theorem 3.1's rate and exact miss probabilities
(Tzamos, Vlatakis-Gkaragkounis, Zadik, "Optimal Private Median Estimation under Minimal
Distributional Assumptions", NeurIPS 2020).

* **Rate terms** (Theorem 3.1, its displayed rate reconstructed from App. B–D, ``notes/tzamos20.md``):
  T₁ = log(1/β)/(L²α²) (statistical), T₂ = log(1/β)/(εLα) (local privacy) and
  T₃ = log(R/α + 1)/(εLr) (global privacy); the upper bound of Theorem 3.6 (Theorem B.5) with
  constant 1, T₁ + C·T₂ + T₃ (:func:`rate_terms`, :func:`theorem_3_6_bound`).
* **The private miss** P(|A(X) − c| > α) of one data set, exactly from the output law
  (:func:`private_miss`, 60 digits), and independently from the pieces of the log-density Ψ_X
  (f ∝ exp((ε/2)Ψ_X), Eq. (A.6); :func:`miss_from_pieces`).
* **The non-private baseline**: the miss probability of the left empirical median x_(ℓ),
  ℓ = ⌈n/2⌉, exactly, from the binomial law of the order statistic (the law behind (B.4);
  :func:`empirical_median_miss`, Fractions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol

import mpmath

from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.exact.mp import logsumexp, to_mpf, workdps
from dpquant.reference.private_median.extended_density import Piece
from dpquant.reference.validation import check_fraction, check_int, check_probability


class MedianLaw(Protocol):
    """A continuous law D on the line with an exact CDF and its median m(D)."""

    @property
    def median(self) -> Fraction: ...

    def cdf(self, x: Any) -> Fraction: ...


def rate_terms(L: Any, r: Any, R: Any, epsilon: Any, alpha: Any, beta: Any) -> dict[str, float]:
    """T₁ = log(1/β)/(L²α²), T₂ = log(1/β)/(εLα), T₃ = log(R/α + 1)/(εLr): the three terms of
    Theorem 3.1's sample complexity (as reconstructed, ``notes/tzamos20.md``)."""
    L, r, R, e, a = (float(v) for v in (L, r, R, epsilon, alpha))
    b = check_probability(float(beta), "beta", open_left=True, open_right=True)
    if min(L, r, R, e, a) <= 0:
        raise ValueError("L, r, R, epsilon and alpha must be > 0")
    lb = math.log(1.0 / b)
    return {
        "T1": lb / (L * L * a * a),
        "T2": lb / (e * L * a),
        "T3": math.log(R / a + 1.0) / (e * L * r),
    }


def theorem_3_6_bound(terms: dict[str, float], C: Any) -> float:
    """The O(·) of Theorem 3.6 (Theorem B.5) with constant 1: T₁ + C·T₂ + T₃."""
    return terms["T1"] + float(C) * terms["T2"] + terms["T3"]


def dominant_term(terms: dict[str, float]) -> str:
    """Which of T₁, T₂, T₃ is largest."""
    return max(("T1", "T2", "T3"), key=lambda k: terms[k])


def _binomial_cdf(n: int, p: Fraction, k: int) -> Fraction:
    """P(Bin(n, p) <= k), exact: Σ_{j<=k} C(n, j)·a^j·(d − a)^{n−j}/dⁿ for p = a/d (1 − p has
    the same reduced denominator d)."""
    if k < 0:
        return Fraction(0)
    if k >= n:
        return Fraction(1)
    a, d = p.numerator, p.denominator
    total = sum(math.comb(n, j) * a**j * (d - a) ** (n - j) for j in range(k + 1))
    return Fraction(total, d**n)


def empirical_median_miss(dist: MedianLaw, n: int, alpha: Any, ell: int | None = None) -> Fraction:
    """P(|x_(ℓ) − m(D)| > α) for X ~ Dⁿ, exact (the binomial law of the order statistic, as in
    (B.4)): x_(ℓ) < m − α ⇔ #{X_i < m − α} >= ℓ and x_(ℓ) > m + α ⇔ #{X_i <= m + α} <= ℓ − 1,
    with P(X_i < m − α) = F(m − α) and P(X_i <= m + α) = F(m + α) (D has no atoms). ℓ = ⌈n/2⌉
    by default."""
    n = check_int(n, "n", minimum=1)
    alpha = check_fraction(alpha, "alpha", positive=True)
    ell = (n + 1) // 2 if ell is None else check_int(ell, "ell", minimum=1)
    p_lo = dist.cdf(dist.median - alpha)
    p_hi = dist.cdf(dist.median + alpha)
    below = 1 - _binomial_cdf(n, p_lo, ell - 1)  # Bin(n, F(m − α)) >= ℓ
    above = _binomial_cdf(n, p_hi, ell - 1)  # Bin(n, F(m + α)) <= ℓ − 1
    return below + above


def private_miss(law: PiecewiseLogLinear, center: Any, alpha: Any) -> mpmath.mpf:
    """P(|A(X) − center| > α) = 1 − law.mass(center − α, center + α) (exact, 60 digits), for the
    output law ``law`` of the mechanism on one data set."""
    c, a = Fraction(center), Fraction(alpha)
    with workdps():
        return 1 - law.mass(c - a, c + a)


def miss_from_pieces(pieces: Sequence[Piece], epsilon: Any, center: Any, alpha: Any) -> mpmath.mpf:
    """The same miss probability integrated directly from Ψ_X's pieces (f ∝ exp((ε/2)Ψ_X),
    Eq. (A.6)): the mass outside [c − α, c + α] over the total, each piece's part by the closed
    form of ∫ e^{ay + b}. An independent check of :func:`private_miss`."""
    c, a = Fraction(center), Fraction(alpha)
    half = Fraction(epsilon) / 2

    def log_part(p: Piece, lo: Fraction, hi: Fraction) -> mpmath.mpf:
        s, b = to_mpf(half * p.slope), to_mpf(half * p.intercept)
        lo_m, hi_m = to_mpf(lo), to_mpf(hi)
        if s == 0:
            return b + mpmath.log(hi_m - lo_m)
        return mpmath.log(abs(mpmath.exp(s * hi_m + b) - mpmath.exp(s * lo_m + b)) / abs(s))

    with workdps():
        total, outside = [], []
        for p in pieces:
            total.append(log_part(p, p.lo, p.hi))
            for lo, hi in ((p.lo, min(p.hi, c - a)), (max(p.lo, c + a), p.hi)):
                if lo < hi:
                    outside.append(log_part(p, lo, hi))
        return mpmath.exp(logsumexp(outside) - logsumexp(total))


__all__ = [
    "MedianLaw",
    "dominant_term",
    "empirical_median_miss",
    "miss_from_pieces",
    "private_miss",
    "rate_terms",
    "theorem_3_6_bound",
]
