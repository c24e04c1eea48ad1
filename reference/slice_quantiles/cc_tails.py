"""Exact tail bounds E_CC(ε, δ, m) of the binary-tree CC's maximum error (imola25 Lemma 3.1 (2),
Corollary A.1, spec §6.3).

Coordinate i of the Fenwick CC (:mod:`reference.primitives.continual_counting`) carries the noise
N_i = Σ of popcount(i) iid node noises of scale b = T/ε (T = m.bit_length()): the nodes of the
dyadic decomposition of [0, i). The discrete CC releases r̃_i = r_i + N_i with N_i a sum of iid
DLap(p), p = e^{−1/b}; the Laplace CC releases r̃_i = r_i + ⌊N_i + ½⌋ with N_i a sum of iid Lap(b).

Exact pieces (all mpmath at :data:`reference.exact.mp.DPS` digits, so tails far below the float
range, e.g. 10^{−2000}, are represented exactly):

* :func:`discrete_laplace_sum_survival`: P(S_k >= t) for a sum of k iid DLap(p) in closed form
  (a finite double sum, derived from S = G₁ − G₂ with G₁, G₂ iid negative binomials; see the
  docstring).
* :func:`laplace_sum_density` / :func:`laplace_sum_survival`: the spec §6.3 density of a sum of k
  iid Lap(1) and its survival function (integrated term by term), scaled.
* :func:`laplace_mixture_sum_survival`: unequal scales (Corollary A.1 allows b_i to differ), by an
  exact partial-fraction expansion of the characteristic function.
* :func:`cc_max_error_tail`: the union bound Σ_i P(|r̃_i − r_i| > t), grouped by popcount class.
* :func:`cc_error_bound`: the smallest integer w' with that union bound <= δ (``method="exact"``),
  or the authors' Chernoff form, Corollary A.1, Theorem 4.2's w or Lemma 3.1's threshold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from reference.exact.mp import to_mpf, workdps
from reference.primitives.continual_counting import (
    NOISES,
    ContinualCounting,
    round_half_up,
    tree_height,
)
from reference.validation import (
    check_choice,
    check_data,
    check_epsilon,
    check_finite,
    check_flag,
    check_fraction,
    check_int,
    check_positive,
    check_probability,
    check_real,
    check_rng,
    check_size,
)

METHODS = ("exact", "chernoff", "corollary_a1", "paper", "lemma_3_1")
LOG_BASES = (2, "e")
MAX_M = 2**62
"""Largest number of counters m the tail bounds accept."""
MAX_K = 256
"""Most summands k of the exact sums (the double sums cost O(k²) mpmath terms)."""
MAX_SCALES = 64
"""Most scales of :func:`laplace_mixture_partial_fractions` (exact rational algebra)."""
EXACT_BOUND_BUDGET = 500_000
"""Most mpmath terms :func:`cc_error_bound` (``method="exact"``) may evaluate (about 10 s):
(binary-search steps) × (terms of one union bound); larger requests are refused up front."""
MAX_SAMPLE_CELLS = 3 * 10**7
"""Most size·m noise values one :func:`sample_max_error` call draws."""


# ----------------------------------------------------------------------------- validation helpers
def _check_noise(noise: Any) -> str:
    return check_choice(noise, "noise", NOISES)


def _check_k(k: Any) -> int:
    return check_int(k, "k", minimum=1, maximum=MAX_K)


def _check_m(m: Any) -> int:
    return check_int(m, "m", minimum=1, maximum=MAX_M)


def _real_mpf(x: Any, name: str) -> mpmath.mpf:
    """A finite real as an exact mpf (floats, ints, Fractions, numpy scalars and mpfs)."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be a finite real number, got {x}")
        return x
    if isinstance(x, Fraction | int) and not isinstance(x, bool):
        return to_mpf(x)
    return to_mpf(check_finite(x, name))


def _probability_mpf(p: Any, name: str = "p") -> mpmath.mpf:
    """A probability in the open interval (0, 1) as an mpf."""
    if isinstance(p, mpmath.mpf):
        value = p
    elif isinstance(p, Fraction) and 0 < p < 1:
        value = to_mpf(p)
    else:
        value = to_mpf(check_probability(p, name, open_left=True, open_right=True))
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {p!r}")
    if 1 - value < mpmath.mpf(10) ** -20:
        raise ValueError(f"{name} must be at most 1 − 1e-20 (working precision), got {p!r}")
    return value


def _positive_mpf(x: Any, name: str) -> mpmath.mpf:
    """A finite real > 0 as an exact mpf (floats, ints, Fractions and mpfs accepted)."""
    if isinstance(x, mpmath.mpf):
        value = x
    else:
        check_positive(x, name)
        value = to_mpf(x if isinstance(x, Fraction | int) else float(x))
    if not (mpmath.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {x!r}")
    return value


def _check_log_base(log_base: Any) -> Any:
    ok = (isinstance(log_base, str) and log_base == "e") or (
        isinstance(log_base, int | np.integer)
        and not isinstance(log_base, bool | np.bool_)
        and log_base == 2
    )
    if not ok:
        raise ValueError(f"log_base must be one of {LOG_BASES}, got {log_base!r:.80}")
    return "e" if isinstance(log_base, str) else 2


def _mp_log(x: mpmath.mpf, log_base: Any) -> mpmath.mpf:
    """log₂ x or ln x (spec §5 item 1: the paper's log base is ambiguous)."""
    return mpmath.log(x, 2) if log_base == 2 else mpmath.log(x)


def resolve_log_delta(delta: Any, log_delta: Any = None, name: str = "delta") -> mpmath.mpf:
    """log δ as an mpf from exactly one of ``delta`` (float, int, Fraction or mpf in (0, 1)) and
    ``log_delta`` (a finite real < 0; use it for δ below the float range, e.g. the pure-DP
    δ = γ(e^ε − 1)/|Y|, spec §2.4)."""
    if (delta is None) == (log_delta is None):
        raise ValueError(f"give exactly one of {name} (in (0, 1)) or log_{name} (< 0)")
    with workdps():
        if log_delta is not None:
            if isinstance(log_delta, bool) or not isinstance(
                log_delta, int | float | Fraction | mpmath.mpf | np.floating | np.integer
            ):
                raise ValueError(f"log_{name} must be a finite real < 0, got {log_delta!r}")
            value = to_mpf(_plain(log_delta))
            if not mpmath.isfinite(value) or value >= 0:
                raise ValueError(f"log_{name} must be a finite real < 0, got {log_delta!r}")
            return value
        if isinstance(delta, bool) or not isinstance(
            delta, int | float | Fraction | mpmath.mpf | np.floating | np.integer
        ):
            raise ValueError(f"{name} must be a number in (0, 1), got {delta!r}")
        value = to_mpf(_plain(delta))
        if not (mpmath.isfinite(value) and 0 < value < 1):
            raise ValueError(f"{name} must lie in (0, 1), got {delta!r}")
        return mpmath.log(value)


def _plain(x: Any) -> Any:
    """numpy scalars as Python numbers (mpmath takes these exactly; a float that overflows
    becomes inf and is refused by the caller)."""
    if isinstance(x, np.floating):
        with np.errstate(over="ignore"):
            return float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


MAX_DISCRETE_SCALE = mpmath.mpf(10) ** 20
"""Largest node scale b of the exact discrete tails: 1 − p = 1 − e^{−1/b} keeps >= 40 of the
working precision's digits."""


def _dlap_ratio(b: mpmath.mpf) -> mpmath.mpf:
    """p = e^{−1/b} of the discrete node noise, refused when 1 − p is below the precision."""
    if b > MAX_DISCRETE_SCALE:
        raise ValueError(
            "epsilon is too small (or scale too large) for the exact discrete tails: the node "
            f"scale T/epsilon must be at most 1e20 (working precision), got {mpmath.nstr(b, 5)}"
        )
    return mpmath.exp(-1 / b)


def node_scale(m: int, epsilon: float, scale: Any = None) -> mpmath.mpf:
    """Per-node noise scale b = T/ε (spec §2.1), or the override ``scale`` (> 0)."""
    m = _check_m(m)
    epsilon = check_epsilon(epsilon)
    with workdps():
        if scale is not None:
            return _positive_mpf(scale, "scale")
        return mpmath.mpf(tree_height(m)) / to_mpf(epsilon)


# ----------------------------------------------------------------------------- popcount classes
def popcount_classes(m: int) -> dict[int, int]:
    """{k: #{1 <= i <= m : popcount(i) = k}}: coordinate i of the Fenwick CC sums popcount(i)
    node noises (spec §6.3), so the union bound groups the m coordinates into <= T classes.
    Counted digit by digit (O(T²)), not by enumerating 1..m."""
    return dict(_popcount_classes(_check_m(m)))


@lru_cache(maxsize=256)
def _popcount_classes(m: int) -> tuple[tuple[int, int], ...]:
    counts: dict[int, int] = {}
    ones_above = 0
    bits = bin(m)[2:]
    for pos, bit in enumerate(bits):
        if bit == "1":  # numbers agreeing with m above pos and having a 0 at pos
            free = len(bits) - pos - 1
            for j in range(free + 1):
                counts[ones_above + j] = counts.get(ones_above + j, 0) + math.comb(free, j)
            ones_above += 1
    counts[ones_above] = counts.get(ones_above, 0) + 1  # m itself
    counts[0] -= 1  # drop i = 0
    return tuple((k, c) for k, c in sorted(counts.items()) if c > 0)


def max_popcount(m: int) -> int:
    """max_{1 <= i <= m} popcount(i): the most nodes any prefix uses (T − 1, or T if m = 2^T − 1)."""
    return max(popcount_classes(m))


# ----------------------------------------------------------------------------- discrete Laplace
def discrete_laplace_sum_survival(t: int, k: int, p: Any) -> mpmath.mpf:
    """P(S_k >= t) for S_k a sum of k iid DLap(p) (P(x) = (1−p)/(1+p)·p^{|x|}), exact.

    Derivation (spec §6.3 asks for an exact method). DLap(p) = G − G' with G, G' iid geometric
    (failures before a success of probability q = 1 − p), so S_k = G₁ − G₂ with G₁, G₂ iid
    negative binomial NB(k, q). For n >= 0, P(G₁ >= n) = Σ_{i<k} C(n+k−1, i) q^i p^{n+k−1−i}
    (at most k − 1 successes in the first n + k − 1 trials). Summing over G₂ = j and expanding
    C(t+k−1+j, i) = Σ_l C(t+k−1, i−l) C(j, l) (Vandermonde) with
    Σ_j C(j+k−1, k−1) C(j, l) x^j = C(k−1+l, l) x^l / (1−x)^{k+l}, x = p², gives for t >= 0

        P(S_k >= t) = q^k p^t Σ_{i=0}^{k−1} q^i p^{k−1−i} Σ_{l=0}^{i} C(t+k−1, i−l) C(k−1+l, l)
                      · x^l / (1 − x)^{k+l},

    a finite sum of positive terms (no cancellation). t < 0 uses symmetry.
    """
    t = check_int(t, "t", minimum=-MAX_M, maximum=MAX_M)
    k = _check_k(k)
    with workdps():
        return _dlap_sum_survival(t, k, _probability_mpf(p))


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
    s = abs(check_int(s, "s", minimum=-MAX_M, maximum=MAX_M))
    k = _check_k(k)
    with workdps():
        p = _probability_mpf(p)
        return _dlap_sum_survival(s, k, p) - _dlap_sum_survival(s + 1, k, p)


def discrete_laplace_sum_two_sided_tail(t: int, k: int, p: Any) -> mpmath.mpf:
    """P(|S_k| >= t) = 2·P(S_k >= t) for integer t >= 1 (1 for t <= 0)."""
    t = check_int(t, "t", minimum=-MAX_M, maximum=MAX_M)
    k = _check_k(k)
    with workdps():
        return _dlap_sum_two_sided_tail(t, k, _probability_mpf(p))


def _dlap_sum_two_sided_tail(t: int, k: int, p: mpmath.mpf) -> mpmath.mpf:
    with workdps():
        if t <= 0:
            return mpmath.mpf(1)
        return 2 * _dlap_sum_survival(t, k, p)


# ----------------------------------------------------------------------------- Laplace sums
@lru_cache(maxsize=64)
def _laplace_density_coefficients(k: int) -> tuple[Fraction, ...]:
    """a_j with f_k(x) = e^{−|x|} Σ_j a_j |x|^j (spec §6.3):
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
    """Density of a sum of k iid Lap(scale) at x (spec §6.3 closed form, scaled), mpmath."""
    k = _check_k(k)
    with workdps():
        b = _positive_mpf(scale, "scale")
        y = abs(_real_mpf(x, "x")) / b
        poly = mpmath.fsum(to_mpf(a) * y**j for j, a in enumerate(_laplace_density_coefficients(k)))
        return mpmath.exp(-y) * poly / b


def laplace_sum_survival(x: Any, k: int, scale: Any = 1) -> mpmath.mpf:
    """P(S_k >= x) for a sum of k iid Lap(scale), exact closed form (spec §6.3), any real x."""
    k = _check_k(k)
    with workdps():
        b = _positive_mpf(scale, "scale")
        y = _real_mpf(x, "x") / b
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
        x = _real_mpf(x, "x")
        _positive_mpf(scale, "scale")
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
        raise ValueError("x must hold real numbers (no NaN)")
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
        raise ValueError("scales must be a non-empty sequence of numbers > 0")
    if len(scales) > MAX_SCALES:
        raise ValueError(f"scales must hold at most {MAX_SCALES} values, got {len(scales)}")
    groups: dict[Fraction, int] = {}
    for i, b in enumerate(scales):
        fb = check_fraction(b, f"scales[{i}]", positive=True)
        groups[fb] = groups.get(fb, 0) + 1
    if not groups:
        raise ValueError("scales must be non-empty")
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
            series = [sum(series[i] * factor[j - i] for i in range(j + 1)) for j in range(ng)]
        for r in range(1, ng + 1):
            terms.append((const * series[ng - r], r, bg))
    return terms


def laplace_mixture_sum_survival(x: Any, scales: Sequence[Any]) -> mpmath.mpf:
    """P(Σ_i γ_i >= x) for independent γ_i ~ Lap(b_i) (rational b_i, possibly unequal), exact up
    to the working precision (:func:`laplace_mixture_partial_fractions`)."""
    with workdps():
        x = _real_mpf(x, "x")
        if x < 0:
            return 1 - laplace_mixture_sum_survival(-x, scales)
        return mpmath.fsum(
            to_mpf(a) * laplace_sum_survival(x, r, to_mpf(b))
            for a, r, b in laplace_mixture_partial_fractions(scales)
        )


# ----------------------------------------------------------------------------- CC union bound
def _coordinate_tail(k: int, t: int, noise: str, b: mpmath.mpf, p: mpmath.mpf | None) -> mpmath.mpf:
    """P(|r̃_i − r_i| > t) for a coordinate summing k nodes (integer t >= 0)."""
    if noise == "discrete":
        return _dlap_sum_two_sided_tail(t + 1, k, p)
    # Laplace + rounding: |⌊N + ½⌋| > t ⟺ N >= t + ½ or N < −t − ½ (continuous: both halves equal)
    return 2 * laplace_sum_survival(mpmath.mpf(t) + mpmath.mpf(1) / 2, k, b)


def cc_max_error_tail(
    m: int,
    epsilon: float,
    t: Any,
    noise: str = "discrete",
    scale: Any = None,
    *,
    inclusive: bool = False,
) -> mpmath.mpf:
    """Union bound Σ_{i=1}^m P(|r̃_i − r_i| > t) >= P(max_i |r̃_i − r_i| > t) (spec §6.3), exact
    per coordinate. ``inclusive=True`` bounds P(max >= t) instead (Lemma 3.1 (2) uses >=).
    The errors are integers, so a real t is reduced to the integer threshold it implies."""
    noise = _check_noise(noise)
    inclusive = check_flag(inclusive, "inclusive")
    b = node_scale(m, epsilon, scale)
    with workdps():
        tt = _real_mpf(t, "t")
        if abs(tt) > MAX_M:
            raise ValueError(f"t must be a finite real of magnitude <= {MAX_M}, got {t!r}")
        # integer error X: X > t ⟺ X > ⌊t⌋;  X >= t ⟺ X > ⌈t⌉ − 1
        ti = int(mpmath.ceil(tt)) - 1 if inclusive else int(mpmath.floor(tt))
        if ti < 0:
            return mpmath.mpf(1)  # every error exceeds a negative threshold
        p = _dlap_ratio(b) if noise == "discrete" else None
        return mpmath.fsum(
            count * _coordinate_tail(k, ti, noise, b, p) for k, count in _popcount_classes(m)
        )


def _exact_bound(m: int, log_delta: mpmath.mpf, noise: str, b: mpmath.mpf) -> int:
    """Smallest integer w >= 0 with Σ_i P(|r̃_i − r_i| > w) <= δ: exponential then binary search
    on the monotone union bound (decreasing in w)."""
    p = _dlap_ratio(b) if noise == "discrete" else None
    classes = _popcount_classes(m)
    # start from the scale of the answer: b·(log(2m/δ)) is within a small factor of it
    start = b * (mpmath.log(2 * m) - log_delta)
    per_step = sum((k * (k + 1) // 2 if noise == "discrete" else 1) for k, _ in classes)
    steps = 2 * (int(mpmath.log(start + 2, 2)) + 2)
    if steps * per_step > EXACT_BOUND_BUDGET:
        raise ValueError(
            f"the exact CC error bound for m = {m}, epsilon (node scale {mpmath.nstr(b, 5)}) "
            f"and delta (log delta = {mpmath.nstr(log_delta, 5)}) needs about "
            f"{steps * per_step} terms, more than {EXACT_BOUND_BUDGET}: use method='chernoff' "
            "or smaller m"
        )

    def ok(w: int) -> bool:
        total = mpmath.fsum(c * _coordinate_tail(k, w, noise, b, p) for k, c in classes)
        return total > 0 and mpmath.log(total) <= log_delta

    if ok(0):
        return 0
    lo = 0  # invariant: not ok(lo)
    hi = max(1, int(mpmath.ceil(start)))
    while not ok(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


# ----------------------------------------------------------------------------- closed-form bounds
def _log_mgf(noise: str, b: mpmath.mpf, lam: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(log M(λ), d/dλ log M(λ)) of one node noise, 0 < λ < 1/b.
    DLap(p): M = (1−p)²/((1−pe^λ)(1−pe^{−λ})) (spec §6.3); Lap(b): M = 1/(1 − b²λ²)."""
    if noise == "discrete":
        p = _dlap_ratio(b)
        up, dn = p * mpmath.exp(lam), p * mpmath.exp(-lam)
        value = 2 * mpmath.log1p(-p) - mpmath.log1p(-up) - mpmath.log1p(-dn)
        return value, up / (1 - up) - dn / (1 - dn)
    bl2 = (b * lam) ** 2
    return -mpmath.log1p(-bl2), 2 * b * b * lam / (1 - bl2)


def chernoff_bound(
    m: int,
    epsilon: float,
    delta: Any = None,
    noise: str = "discrete",
    *,
    log_delta: Any = None,
    scale: Any = None,
    k: int | None = None,
    two_sided: bool = True,
) -> mpmath.mpf:
    """K = min_{0<λ<1/b} (k·log M(λ) + log(2m/δ))/λ (spec §6.3, the authors' Chernoff form):
    P(|S_k| >= K) <= 2e^{−λK}M(λ)^k per coordinate, union over m coordinates.

    ``k`` defaults to :func:`max_popcount` (the most nodes any prefix of the Fenwick tree uses,
    T − 1 unless m = 2^T − 1) — this is the k that reproduces the spec §6.3 table
    (393.9 / 810.5 / 967.7 / 1972.2); k = T gives 411.5 / 835.8 / 995.3 / 2028.0. The authors'
    ``KaryTreeNoise.high_prob_bound`` uses the one-sided log(m/δ) on a 100-point λ grid
    (``two_sided=False`` here, exact minimisation). The minimiser is the root of
    λ·g'(λ) − g(λ) (increasing since g = k log M + log(2m/δ) is convex), found by bisection."""
    noise = _check_noise(noise)
    m = _check_m(m)
    two_sided = check_flag(two_sided, "two_sided")
    b = node_scale(m, epsilon, scale)
    kk = max_popcount(m) if k is None else check_int(k, "k", minimum=1, maximum=MAX_M)
    with workdps():
        ld = resolve_log_delta(delta, log_delta)
        big_l = mpmath.log((2 if two_sided else 1) * m) - ld

        def h(lam: mpmath.mpf) -> mpmath.mpf:
            val, der = _log_mgf(noise, b, lam)
            return lam * kk * der - (kk * val + big_l)

        lo, hi = mpmath.mpf(0), 1 / b
        for _ in range(400):
            mid = (lo + hi) / 2
            if h(mid) < 0:
                lo = mid
            else:
                hi = mid
            if hi - lo < mpmath.mpf(10) ** (-50) / b:
                break
        lam = (lo + hi) / 2
        val, _ = _log_mgf(noise, b, lam)
        return (kk * val + big_l) / lam


def corollary_a1_threshold(scales: Sequence[Any], delta: Any) -> mpmath.mpf:
    """Corollary A.1 (Chan–Shi–Song Cor. 2.9): ν·sqrt(8 ln(2/δ)) with
    ν = max{sqrt(Σ b_i²), b_M sqrt(ln(2/δ))}; claimed P(|Σγ_i| > it) <= δ for γ_i ~ Lap(b_i)."""
    if isinstance(scales, str | bytes) or not isinstance(scales, list | tuple | np.ndarray):
        raise ValueError("scales must be a non-empty sequence of numbers > 0")
    if len(scales) == 0 or len(scales) > 10**5:
        raise ValueError("scales must hold between 1 and 100000 numbers > 0")
    with workdps():
        bs = [_positive_mpf(b, f"scales[{i}]") for i, b in enumerate(scales)]
        log2d = mpmath.log(2) - resolve_log_delta(delta)
        nu = max(mpmath.sqrt(mpmath.fsum(b * b for b in bs)), max(bs) * mpmath.sqrt(log2d))
        return nu * mpmath.sqrt(8 * log2d)


def corollary_a1_cc_bound(
    m: int, epsilon: float, delta: Any = None, *, log_delta: Any = None, scale: Any = None
) -> mpmath.mpf:
    """Lemma 3.1's proof: each coordinate sums <= T nodes of scale b = T/ε; Corollary A.1 at
    failure δ/m gives |N_i| <= b·sqrt(8L)·max{sqrt(T), sqrt(L)}, L = ln(2m/δ), for all i w.p.
    >= 1 − δ (spec §6.3 table: 901.4 / 1668.6 / 1938.4 / 3876.8). k = T as in the paper.

    Also valid for the discrete CC: with p = e^{−1/b} the DLap MGF is
    1/(1 − sinh²(λ/2)/sinh²(1/(2b))) <= 1/(1 − b²λ²) (the Lap(b) MGF) for |λ| < 1/b, because
    sinh(y)/y increases, and the Chan–Shi–Song proof only uses the MGF."""
    m = _check_m(m)
    b = node_scale(m, epsilon, scale)
    t_nodes = tree_height(m)
    with workdps():
        big_l = mpmath.log(2 * m) - resolve_log_delta(delta, log_delta)
        return b * mpmath.sqrt(8 * big_l) * max(mpmath.sqrt(t_nodes), mpmath.sqrt(big_l))


def theorem_4_2_w(
    epsilon: float, delta: Any, m: int, log_base: Any = 2, *, log_delta: Any = None
) -> mpmath.mpf:
    """Theorem 4.2 / Corollary 5.3: w = 3·log(m)·log(2m/δ)/ε. The paper does not fix the base;
    spec §5 item 1 recommends log₂ (spec §6.3: 1145.5 / 2423.5 / 2834.1 / 5668.2), natural log
    gives 550.4 / 1164.4 / 1361.7 / 2723.3. A formula, not a proven bound (0 for m = 1)."""
    epsilon = check_epsilon(epsilon)
    m = _check_m(m)
    base = _check_log_base(log_base)
    with workdps():
        ld = resolve_log_delta(delta, log_delta)
        log_2m_over_delta = mpmath.log(2 * m) - ld
        if base == 2:
            log_2m_over_delta /= mpmath.log(2)
        return 3 * _mp_log(mpmath.mpf(m), base) * log_2m_over_delta / to_mpf(epsilon)


def lemma_3_1_threshold(
    epsilon: float, beta: Any, m: int, log_base: Any = 2, *, log_beta: Any = None
) -> mpmath.mpf:
    """Lemma 3.1 (2) as printed: 3·log(m)·log(m/(2β))/ε (claimed P(‖r − CC(r)‖_∞ >= it) <= β).
    Note m/(2β), not the 2m/β of the proof; false for m = 1 and, with natural logs, for m = 2
    (proofs_checks/test_imola25_cc.py)."""
    epsilon = check_epsilon(epsilon)
    m = _check_m(m)
    base = _check_log_base(log_base)
    with workdps():
        lb = resolve_log_delta(beta, log_beta, name="beta")
        inner = mpmath.log(mpmath.mpf(m) / 2) - lb
        if base == 2:
            inner /= mpmath.log(2)
        return 3 * _mp_log(mpmath.mpf(m), base) * inner / to_mpf(epsilon)


def cc_error_bound(
    epsilon: float,
    delta: Any,
    m: int,
    noise: str = "discrete",
    method: str = "exact",
    *,
    log_delta: Any = None,
    scale: Any = None,
    log_base: Any = 2,
) -> int:
    """E_CC(ε, δ, m) as an integer w' with P(max_i |r̃_i − r_i| > w') <= δ (spec §2.3, §6.3).

    * ``"exact"``: the smallest integer w' >= 0 whose exact union bound
      Σ_i P(|r̃_i − r_i| > w') is <= δ (:func:`cc_max_error_tail`).
    * ``"chernoff"``: ⌈K⌉ with K from :func:`chernoff_bound` (k = max popcount, log(2m/δ)).
    * ``"corollary_a1"``: ⌈K⌉ with K from :func:`corollary_a1_cc_bound`.
    * ``"paper"``: ⌈w⌉ with Theorem 4.2's w = 3 log(m) log(2m/δ)/ε (:func:`theorem_4_2_w`,
      ``log_base`` 2 or "e"); not a proven bound.
    * ``"lemma_3_1"``: ⌈3 log(m) log(m/(2δ))/ε⌉ (Lemma 3.1 (2) with β = δ); not a proven bound.

    Rounding of the real bounds K: ⌈K⌉ is certified for both noises (|N| > K fails ⇒
    |⌊N + ½⌋| <= ⌈K⌉ and, for integer N, |N| <= ⌈K⌉); for integer noise ⌊K⌋ would also be
    certified, so ⌈K⌉ is conservative by at most 1 (the authors compare the real K directly).
    Only ``"exact"`` is the smallest certified integer for the union bound."""
    epsilon = check_epsilon(epsilon)
    m = _check_m(m)
    noise = _check_noise(noise)
    method = check_choice(method, "method", METHODS)
    log_base = _check_log_base(log_base)
    with workdps():
        ld = resolve_log_delta(delta, log_delta)
        b = node_scale(m, epsilon, scale)
        if method == "exact":
            return _exact_bound(m, ld, noise, b)
        if method == "chernoff":
            value = chernoff_bound(m, epsilon, noise=noise, log_delta=ld, scale=scale)
        elif method == "corollary_a1":
            value = corollary_a1_cc_bound(m, epsilon, log_delta=ld, scale=scale)
        elif method == "paper":
            value = theorem_4_2_w(epsilon, None, m, log_base, log_delta=ld)
        else:
            value = lemma_3_1_threshold(epsilon, None, m, log_base, log_beta=ld)
        return max(0, int(mpmath.ceil(value)))


# ----------------------------------------------------------------------------- Monte Carlo
def sample_max_error(
    m: int,
    epsilon: float,
    size: int,
    rng: np.random.Generator,
    noise: str = "discrete",
    scale: Any = None,
    *,
    chunk: int = 1 << 16,
) -> np.ndarray:
    """``size`` draws of max_i |r̃_i − r_i| of CC_ε (int64), vectorised in chunks of rows
    (memory bound), through :class:`ContinualCounting` itself."""
    size, rng = check_size(size), check_rng(rng)
    m = _check_m(m)
    chunk = check_int(chunk, "chunk", minimum=1)
    if size * m > MAX_SAMPLE_CELLS:
        raise ValueError(
            f"size·m must be at most {MAX_SAMPLE_CELLS} (noise values per call), got size = "
            f"{size}, m = {m}: draw in several calls"
        )
    chunk = min(chunk, max(1, 10**7 // m))  # at most 80 MB of noise at a time
    cc = ContinualCounting(m, epsilon, _check_noise(noise), scale)
    out = np.empty(size, dtype=np.int64)
    for start in range(0, size, chunk):
        n = min(chunk, size - start)
        draws = cc.sample_noise(n, rng)
        err = draws if noise == "discrete" else round_half_up(draws)
        out[start : start + n] = np.abs(err).max(axis=1)
    return out
