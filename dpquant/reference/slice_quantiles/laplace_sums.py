"""Exact laws of sums of iid (discrete) Laplace noises, and the error of one coordinate of the
binary-tree CC (the paper's App. A: coordinate i of the Fenwick CC,
:mod:`dpquant.reference.primitives.continual_counting`, sums popcount(i) node noises of scale b = T/ε).

All mpmath at :data:`dpquant.reference.exact.mp.DPS` digits, so tails far below the float range (e.g.
10^{−2000}) are represented exactly:

* :func:`discrete_laplace_sum_survival`: P(S_k >= t) for a sum of k iid DLap(p) in closed form
  (a finite double sum, derived from S = G₁ − G₂ with G₁, G₂ iid negative binomials; see the
  docstring).
* :func:`laplace_sum_density` / :func:`laplace_sum_survival`: the density of a sum of k iid
  Lap(1) in closed form (notes/imola25.md, "Reference values") and its survival function
  (integrated term by term), scaled.
* :func:`laplace_mixture_sum_survival`: unequal scales (Corollary A.1 allows b_i to differ), by an
  exact partial-fraction expansion of the characteristic function.
* :func:`coordinate_error_tail`: P(|r̃_i − r_i| > t) for a coordinate summing k nodes, discrete
  (r̃_i − r_i a sum of DLap) or Laplace with round-half-up (App. A).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.continual_counting import NOISES
from dpquant.reference.slice_quantiles.inputs import positive_mpf, probability_mpf, real_mpf
from dpquant.reference.validation import (
    check_choice,
    check_data,
    check_fraction,
    check_int,
    check_positive,
    check_real,
)

MAX_T = 2**62
"""Largest |t| of the integer tails."""
MAX_K = 256
"""Most summands k of the exact sums (the double sums cost O(k²) mpmath terms)."""
MAX_SCALES = 64
"""Most scales of :func:`laplace_mixture_partial_fractions` (exact rational algebra)."""


def _check_k(k: Any) -> int:
    return check_int(k, "k", minimum=1, maximum=MAX_K)


MAX_DISCRETE_SCALE = mpmath.mpf(10) ** 20
"""Largest node scale b of the exact discrete tails: 1 − p = 1 − e^{−1/b} keeps >= 40 of the
working precision's digits."""


def discrete_laplace_ratio(scale: Any) -> mpmath.mpf:
    """p = e^{−1/b} of DLap with scale b = ``scale`` (> 0), refused above
    :data:`MAX_DISCRETE_SCALE` (1 − p would fall below the working precision)."""
    with workdps():
        return _discrete_laplace_ratio(positive_mpf(scale, "scale"))


def _discrete_laplace_ratio(b: mpmath.mpf) -> mpmath.mpf:
    if b > MAX_DISCRETE_SCALE:
        raise ParameterError(
            "epsilon",
            "is too small (or scale too large) for the exact discrete tails: the node scale "
            "T/epsilon must be at most 1e20 (working precision)",
            mpmath.nstr(b, 5),
        )
    return mpmath.exp(-1 / b)


# ----------------------------------------------------------------------------- discrete Laplace
def discrete_laplace_sum_survival(t: int, k: int, p: Any) -> mpmath.mpf:
    """P(S_k >= t) for S_k a sum of k iid DLap(p) (P(x) = (1−p)/(1+p)·p^{|x|}), exact.

    Derivation (exact, so that E_CC of Sec. 6 can be certified). DLap(p) = G − G' with G, G' iid geometric
    (failures before a success of probability q = 1 − p), so S_k = G₁ − G₂ with G₁, G₂ iid
    negative binomial NB(k, q). For n >= 0, P(G₁ >= n) = Σ_{i<k} C(n+k−1, i) q^i p^{n+k−1−i}
    (at most k − 1 successes in the first n + k − 1 trials). Summing over G₂ = j and expanding
    C(t+k−1+j, i) = Σ_l C(t+k−1, i−l) C(j, l) (Vandermonde) with
    Σ_j C(j+k−1, k−1) C(j, l) x^j = C(k−1+l, l) x^l / (1−x)^{k+l}, x = p², gives for t >= 0

        P(S_k >= t) = q^k p^t Σ_{i=0}^{k−1} q^i p^{k−1−i} Σ_{l=0}^{i} C(t+k−1, i−l) C(k−1+l, l)
                      · x^l / (1 − x)^{k+l},

    a finite sum of positive terms (no cancellation). t < 0 uses symmetry.
    """
    return _checked_dlap_sum(_dlap_sum_survival, t, k, p)


def _checked_dlap_sum(
    law: Callable[[int, int, mpmath.mpf], mpmath.mpf], t: Any, k: Any, p: Any, name: str = "t"
) -> mpmath.mpf:
    """``law(t, k, p)`` on the checked arguments of the public DLap-sum functions: an integer
    |t| <= :data:`MAX_T` (named ``name``), k in [1, :data:`MAX_K`] and p in (0, 1) (mpf)."""
    t = check_int(t, name, minimum=-MAX_T, maximum=MAX_T)
    k = _check_k(k)
    with workdps():
        return law(t, k, probability_mpf(p))


def _dlap_sum_survival(t: int, k: int, p: mpmath.mpf) -> mpmath.mpf:
    """:func:`discrete_laplace_sum_survival` on checked arguments (any integer t)."""
    with workdps():
        if t < 0:
            return 1 - _dlap_sum_survival(1 - t, k, p)
        q = 1 - p
        x = p * p
        one_minus_x = q * (1 + p)
        c = t + k - 1
        total = mpmath.mpf(0)
        for i in range(k):
            inner = mpmath.mpf(0)
            for l in range(i + 1):
                inner += (
                    math.comb(c, i - l) * math.comb(k - 1 + l, l) * x**l / one_minus_x ** (k + l)
                )
            total += q**i * p ** (k - 1 - i) * inner
        return q**k * p**t * total


def discrete_laplace_sum_pmf(s: int, k: int, p: Any) -> mpmath.mpf:
    """P(S_k = s) = P(S_k >= |s|) − P(S_k >= |s| + 1) (symmetric law), exact."""
    return _checked_dlap_sum(_dlap_sum_pmf, s, k, p, "s")


def _dlap_sum_pmf(s: int, k: int, p: mpmath.mpf) -> mpmath.mpf:
    return _dlap_sum_survival(abs(s), k, p) - _dlap_sum_survival(abs(s) + 1, k, p)


def discrete_laplace_sum_two_sided_tail(t: int, k: int, p: Any) -> mpmath.mpf:
    """P(|S_k| >= t) = 2·P(S_k >= t) for integer t >= 1 (1 for t <= 0)."""
    return _checked_dlap_sum(_dlap_sum_two_sided_tail, t, k, p)


def _dlap_sum_two_sided_tail(t: int, k: int, p: mpmath.mpf) -> mpmath.mpf:
    with workdps():
        if t <= 0:
            return mpmath.mpf(1)
        return 2 * _dlap_sum_survival(t, k, p)


# ----------------------------------------------------------------------------- Laplace sums
@lru_cache(maxsize=64)
def _laplace_density_coefficients(k: int) -> tuple[Fraction, ...]:
    """a_j with f_k(x) = e^{−|x|} Σ_j a_j |x|^j (notes/imola25.md, "Reference values"):
    a_j = (2k−2−j)! 2^j / (2^{2k−1} (k−1)! j! (k−1−j)!)."""
    norm = 2 ** (2 * k - 1) * math.factorial(k - 1)
    return tuple(
        Fraction(
            math.factorial(2 * k - 2 - j) * 2**j,
            norm * math.factorial(j) * math.factorial(k - 1 - j),
        )
        for j in range(k)
    )


@lru_cache(maxsize=64)
def _laplace_survival_coefficients(k: int) -> tuple[Fraction, ...]:
    """c_i with P(S_k >= x) = e^{−x} Σ_i c_i x^i for x >= 0 (Lap(1) summands): integrating
    a_j y^j e^{−y} from x to ∞ gives a_j j! e^{−x} Σ_{i<=j} x^i/i!."""
    a = _laplace_density_coefficients(k)
    return tuple(
        sum((a[j] * math.factorial(j) for j in range(i, k)), Fraction(0)) / math.factorial(i)
        for i in range(k)
    )


def laplace_sum_density(x: Any, k: int, scale: Any = 1) -> mpmath.mpf:
    """Density of a sum of k iid Lap(scale) at x (the closed form of the coefficients, scaled), mpmath."""
    k = _check_k(k)
    with workdps():
        b = positive_mpf(scale, "scale")
        y = abs(real_mpf(x, "x")) / b
        poly = mpmath.fsum(to_mpf(a) * y**j for j, a in enumerate(_laplace_density_coefficients(k)))
        return mpmath.exp(-y) * poly / b


def laplace_sum_survival(x: Any, k: int, scale: Any = 1) -> mpmath.mpf:
    """P(S_k >= x) for a sum of k iid Lap(scale), exact closed form (the density integrated), any real x."""
    k = _check_k(k)
    with workdps():
        b = positive_mpf(scale, "scale")
        y = real_mpf(x, "x") / b
        if y < 0:
            return 1 - laplace_sum_survival(-y, k, 1)
        poly = mpmath.fsum(
            to_mpf(c) * y**i for i, c in enumerate(_laplace_survival_coefficients(k))
        )
        return mpmath.exp(-y) * poly


def laplace_sum_two_sided_tail(x: Any, k: int, scale: Any = 1) -> mpmath.mpf:
    """P(|S_k| >= x) = 2·P(S_k >= x) for x >= 0 (1 for x <= 0)."""
    k = _check_k(k)
    with workdps():
        x = real_mpf(x, "x")
        positive_mpf(scale, "scale")
        if x <= 0:
            return mpmath.mpf(1)
        return 2 * laplace_sum_survival(x, k, scale)


def laplace_sum_cdf_np(x: Any, k: int, scale: float = 1.0) -> np.ndarray:
    """Float, vectorised CDF of a sum of k iid Lap(scale) (same closed form; for DKW tests)."""
    k = _check_k(k)
    scale = check_positive(scale, "scale")
    if isinstance(x, np.ndarray) and x.dtype.kind in "iuf":
        values = x.astype(float)
    elif isinstance(x, list | tuple | np.ndarray):
        values = check_data(x, "x", allow_empty=True)
    else:
        values = np.asarray(check_real(x, "x"))
    if np.isnan(values).any():
        raise ParameterError("x", "must hold real numbers (no NaN)")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        y = np.abs(values) / scale
        log_y = np.log(y)
        upper = np.zeros_like(y)  # P(S >= |x|) = Σ_i c_i y^i e^{−y}, summed in log space
        for i, c in enumerate(_laplace_survival_coefficients(k)):
            log_c = math.log(c.numerator) - math.log(c.denominator)
            term = log_c - y if i == 0 else log_c + i * log_y - y
            upper = upper + np.exp(np.where(np.isfinite(term), term, -np.inf))
    upper = np.minimum(upper, 1.0)
    return np.where(values < 0, upper, 1.0 - upper)


def _series_inverse_power(d: Fraction, n: int, order: int) -> list[Fraction]:
    """Taylor coefficients of (1 + d·w)^{−n} up to w^{order−1}."""
    return [Fraction((-1) ** j * math.comb(n + j - 1, j)) * d**j for j in range(order)]


def laplace_mixture_partial_fractions(
    scales: Sequence[Any],
) -> list[tuple[Fraction, int, Fraction]]:
    """Exact partial fractions of the characteristic function of Σ_i Lap(b_i):
    Π_i 1/(1 + b_i² ω²) = Σ_{g, r} A_{g,r} (1 + b_g² ω²)^{−r}, returned as (A_{g,r}, r, b_g).

    With u = ω², a_g = b_g² and w = 1 + a_g u, the other factors are
    (1 + a_h u)^{−n_h} = ((a_g − a_h)/a_g)^{−n_h} (1 + a_h w/(a_g − a_h))^{−n_h}; A_{g,r} is the
    coefficient of w^{n_g − r} of their product. Each (1 + b²ω²)^{−r} is the characteristic
    function of a sum of r iid Lap(b), so tails are the same linear combination (Corollary A.1
    test with unequal b_i)."""
    if isinstance(scales, str | bytes) or not isinstance(scales, list | tuple | np.ndarray):
        raise ParameterError("scales", "must be a non-empty sequence of numbers > 0")
    if len(scales) > MAX_SCALES:
        raise ParameterError("scales", f"must hold at most {MAX_SCALES} values", len(scales))
    groups: dict[Fraction, int] = {}
    for i, b in enumerate(scales):
        fb = check_fraction(b, f"scales[{i}]", positive=True)
        groups[fb] = groups.get(fb, 0) + 1
    if not groups:
        raise ParameterError("scales", "must be non-empty")
    terms: list[tuple[Fraction, int, Fraction]] = []
    for bg, ng in groups.items():
        ag = bg * bg
        series = [Fraction(1)] + [Fraction(0)] * (ng - 1)
        const = Fraction(1)
        for bh, nh in groups.items():
            if bh == bg:
                continue
            ah = bh * bh
            const *= (ag / (ag - ah)) ** nh
            factor = _series_inverse_power(ah / (ag - ah), nh, ng)
            series = [
                sum((series[i] * factor[j - i] for i in range(j + 1)), Fraction(0))
                for j in range(ng)
            ]
        for r in range(1, ng + 1):
            terms.append((const * series[ng - r], r, bg))
    return terms


def laplace_mixture_sum_survival(x: Any, scales: Sequence[Any]) -> mpmath.mpf:
    """P(Σ_i γ_i >= x) for independent γ_i ~ Lap(b_i) (rational b_i, possibly unequal), exact up
    to the working precision (:func:`laplace_mixture_partial_fractions`)."""
    with workdps():
        x = real_mpf(x, "x")
        if x < 0:
            return 1 - laplace_mixture_sum_survival(-x, scales)
        return mpmath.fsum(
            to_mpf(a) * laplace_sum_survival(x, r, to_mpf(b))
            for a, r, b in laplace_mixture_partial_fractions(scales)
        )


# ----------------------------------------------------------------------------- one CC coordinate
def coordinate_error_tail(k: int, t: int, noise: str, scale: Any) -> mpmath.mpf:
    """P(|r̃_i − r_i| > t) for a CC coordinate summing k node noises of scale b = ``scale``
    (integer t >= 0): discrete, 2·P(S_k >= t + 1) for DLap(e^{−1/b}) summands; Laplace with
    round-half-up, |⌊N + ½⌋| > t ⟺ N >= t + ½ or N < −t − ½ (continuous: both halves equal)."""
    k = _check_k(k)
    t = check_int(t, "t", minimum=0, maximum=MAX_T)
    noise = check_choice(noise, "noise", NOISES)
    with workdps():
        b = positive_mpf(scale, "scale")
        p = _discrete_laplace_ratio(b) if noise == "discrete" else None
        return _coordinate_tail(k, t, noise, b, p)


def _coordinate_tail(k: int, t: int, noise: str, b: mpmath.mpf, p: mpmath.mpf | None) -> mpmath.mpf:
    """P(|r̃_i − r_i| > t) for a coordinate summing k nodes (integer t >= 0)."""
    if noise == "discrete":
        assert p is not None
        return _dlap_sum_two_sided_tail(t + 1, k, p)
    # Laplace + rounding: |⌊N + ½⌋| > t ⟺ N >= t + ½ or N < −t − ½ (continuous: both halves equal)
    return 2 * laplace_sum_survival(mpmath.mpf(t) + mpmath.mpf(1) / 2, k, b)
