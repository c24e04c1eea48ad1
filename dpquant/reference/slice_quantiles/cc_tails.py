"""Tail bounds E_CC(ε, δ, m) of the binary-tree CC's maximum error (imola25 Lemma 3.1 (2),
Corollary A.1, and the E_CC of Sec. 6's implementation details).

Coordinate i of the Fenwick CC (:mod:`dpquant.reference.primitives.continual_counting`) carries the noise
N_i = Σ of popcount(i) iid node noises of scale b = T/ε (T = m.bit_length()): the nodes of the
dyadic decomposition of [0, i) (App. A). The discrete CC releases r̃_i = r_i + N_i with N_i a sum
of iid DLap(p), p = e^{−1/b}; the Laplace CC releases r̃_i = r_i + ⌊N_i + ½⌋ with N_i a sum of
iid Lap(b). The exact law of one coordinate's error is in :mod:`~dpquant.reference.slice_quantiles
.laplace_sums` (mpmath, so tails far below the float range, e.g. 10^{−2000}, are exact).

* :func:`cc_max_error_tail`: the union bound Σ_i P(|r̃_i − r_i| > t), grouped by popcount class.
* :func:`cc_error_bound`: the smallest integer w' with that union bound <= δ (``method="exact"``),
  or the authors' Chernoff form, Corollary A.1, Theorem 4.2's w or Lemma 3.1's threshold.
* :func:`sample_max_error`: Monte Carlo draws of the maximum error, through the CC itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.continual_counting import (
    NOISES,
    ContinualCounting,
    round_half_up,
    tree_height,
)
from dpquant.reference.slice_quantiles.inputs import positive_mpf, real_mpf
from dpquant.reference.slice_quantiles.laplace_sums import (
    MAX_T,
    coordinate_error_tail,
    discrete_laplace_ratio,
)
from dpquant.reference.validation import (
    check_choice,
    check_epsilon,
    check_flag,
    check_int,
    check_rng,
    check_size,
)

METHODS = ("exact", "chernoff", "corollary_a1", "paper", "lemma_3_1")
LOG_BASES = (2, "e")
MAX_M = 2**62
"""Largest number of counters m the tail bounds accept."""
EXACT_BOUND_BUDGET = 500_000
"""Most mpmath terms :func:`cc_error_bound` (``method="exact"``) may evaluate (about 10 s):
(binary-search steps) × (terms of one union bound); larger requests are refused up front."""
MAX_SAMPLE_CELLS = 3 * 10**7
"""Most size·m noise values one :func:`sample_max_error` call draws."""


# ----------------------------------------------------------------------------- validation helpers
def _check_noise(noise: Any) -> str:
    return check_choice(noise, "noise", NOISES)


def _check_m(m: Any) -> int:
    return check_int(m, "m", minimum=1, maximum=MAX_M)


def _check_log_base(log_base: Any) -> Any:
    ok = (isinstance(log_base, str) and log_base == "e") or (
        isinstance(log_base, int | np.integer)
        and not isinstance(log_base, bool | np.bool_)
        and log_base == 2
    )
    if not ok:
        raise ParameterError("log_base", f"must be one of {LOG_BASES}", f"{log_base!r:.80}")
    return "e" if isinstance(log_base, str) else 2


def _mp_log(x: mpmath.mpf, log_base: Any) -> mpmath.mpf:
    """log₂ x or ln x (the paper's log base is ambiguous: notes/imola25.md erratum 1)."""
    return mpmath.log(x, 2) if log_base == 2 else mpmath.log(x)


def resolve_log_delta(delta: Any, log_delta: Any = None, name: str = "delta") -> mpmath.mpf:
    """log δ as an mpf from exactly one of ``delta`` (float, int, Fraction or mpf in (0, 1)) and
    ``log_delta`` (a finite real < 0; use it for δ below the float range, e.g. the pure-DP
    δ = γ(e^ε − 1)/|Y| of Lemma 4.3)."""
    if (delta is None) == (log_delta is None):
        raise ValueError(f"give exactly one of {name} (in (0, 1)) or log_{name} (< 0)")
    with workdps():
        if log_delta is not None:
            if isinstance(log_delta, bool) or not isinstance(
                log_delta, int | float | Fraction | mpmath.mpf | np.floating | np.integer
            ):
                raise ParameterError(f"log_{name}", "must be a finite real < 0", repr(log_delta))
            value = to_mpf(_plain(log_delta))
            if not mpmath.isfinite(value) or value >= 0:
                raise ParameterError(f"log_{name}", "must be a finite real < 0", repr(log_delta))
            return value
        if isinstance(delta, bool) or not isinstance(
            delta, int | float | Fraction | mpmath.mpf | np.floating | np.integer
        ):
            raise ParameterError(name, "must be a number in (0, 1)", repr(delta))
        value = to_mpf(_plain(delta))
        if not (mpmath.isfinite(value) and 0 < value < 1):
            raise ParameterError(name, "must lie in (0, 1)", repr(delta))
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


def node_scale(m: int, epsilon: float, scale: Any = None) -> mpmath.mpf:
    """Per-node noise scale b = T/ε (App. A; notes/imola25.md erratum 17), or the override ``scale`` (> 0)."""
    m = _check_m(m)
    epsilon = check_epsilon(epsilon)
    with workdps():
        if scale is not None:
            return positive_mpf(scale, "scale")
        return mpmath.mpf(tree_height(m)) / to_mpf(epsilon)


# ----------------------------------------------------------------------------- popcount classes
def popcount_classes(m: int) -> dict[int, int]:
    """{k: #{1 <= i <= m : popcount(i) = k}}: coordinate i of the Fenwick CC sums popcount(i)
    node noises (App. A), so the union bound groups the m coordinates into <= T classes.
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


# ----------------------------------------------------------------------------- CC union bound
def cc_max_error_tail(
    m: int,
    epsilon: float,
    t: Any,
    noise: str = "discrete",
    scale: Any = None,
    *,
    inclusive: bool = False,
) -> mpmath.mpf:
    """Union bound Σ_{i=1}^m P(|r̃_i − r_i| > t) >= P(max_i |r̃_i − r_i| > t) (Sec. 6's E_CC), exact
    per coordinate. ``inclusive=True`` bounds P(max >= t) instead (Lemma 3.1 (2) uses >=).
    The errors are integers, so a real t is reduced to the integer threshold it implies."""
    noise = _check_noise(noise)
    inclusive = check_flag(inclusive, "inclusive")
    b = node_scale(m, epsilon, scale)
    with workdps():
        tt = real_mpf(t, "t")
        if abs(tt) > MAX_M:
            raise ParameterError("t", f"must be a finite real of magnitude <= {MAX_M}", repr(t))
        # integer error X: X > t ⟺ X > ⌊t⌋;  X >= t ⟺ X > ⌈t⌉ − 1
        ti = int(mpmath.ceil(tt)) - 1 if inclusive else int(mpmath.floor(tt))
        if ti < 0:
            return mpmath.mpf(1)  # every error exceeds a negative threshold
        if noise == "discrete":
            discrete_laplace_ratio(b)  # refuses a node scale beyond the working precision
        return mpmath.fsum(
            count * coordinate_error_tail(k, ti, noise, b) for k, count in _popcount_classes(m)
        )


def _exact_bound(m: int, log_delta: mpmath.mpf, noise: str, b: mpmath.mpf) -> int:
    """Smallest integer w >= 0 with Σ_i P(|r̃_i − r_i| > w) <= δ: exponential then binary search
    on the monotone union bound (decreasing in w)."""
    if noise == "discrete":
        discrete_laplace_ratio(b)  # refuses a node scale beyond the working precision
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
        total = mpmath.fsum(c * coordinate_error_tail(k, w, noise, b) for k, c in classes)
        return total > 0 and mpmath.log(total) <= log_delta

    def too_wide(w: int) -> ValueError:
        return ValueError(
            f"the exact CC error bound for m = {m}, epsilon, scale (node scale "
            f"{mpmath.nstr(b, 5)}) and delta (log delta = {mpmath.nstr(log_delta, 5)}) exceeds "
            f"w = {w} > 2^62, the largest error the exact tails take: use method='chernoff'"
        )

    if ok(0):
        return 0
    lo = 0  # invariant: not ok(lo)
    hi = max(1, int(mpmath.ceil(start)))
    if hi > MAX_T:
        raise too_wide(hi)
    while not ok(hi):
        lo, hi = hi, 2 * hi
        if hi > MAX_T:
            raise too_wide(hi)
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
    DLap(p): M = (1−p)²/((1−pe^λ)(1−pe^{−λ})) (the authors' form); Lap(b): M = 1/(1 − b²λ²)."""
    if noise == "discrete":
        p = discrete_laplace_ratio(b)
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
    """K = min_{0<λ<1/b} (k·log M(λ) + log(2m/δ))/λ (the authors' Chernoff form of E_CC):
    P(|S_k| >= K) <= 2e^{−λK}M(λ)^k per coordinate, union over m coordinates.

    ``k`` defaults to :func:`max_popcount` (the most nodes any prefix of the Fenwick tree uses,
    T − 1 unless m = 2^T − 1) — this is the k that reproduces our reference
    values (notes/imola25.md, "Reference values": 393.9 / 810.5 / 967.7 / 1972.2); k = T gives 411.5 / 835.8 / 995.3 / 2028.0. The authors'
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
        raise ParameterError("scales", "must be a non-empty sequence of numbers > 0")
    if len(scales) == 0 or len(scales) > 10**5:
        raise ParameterError("scales", "must hold between 1 and 100000 numbers > 0")
    with workdps():
        bs = [positive_mpf(b, f"scales[{i}]") for i, b in enumerate(scales)]
        log2d = mpmath.log(2) - resolve_log_delta(delta)
        nu = max(mpmath.sqrt(mpmath.fsum(b * b for b in bs)), max(bs) * mpmath.sqrt(log2d))
        return nu * mpmath.sqrt(8 * log2d)


def corollary_a1_cc_bound(
    m: int, epsilon: float, delta: Any = None, *, log_delta: Any = None, scale: Any = None
) -> mpmath.mpf:
    """Lemma 3.1's proof: each coordinate sums <= T nodes of scale b = T/ε; Corollary A.1 at
    failure δ/m gives |N_i| <= b·sqrt(8L)·max{sqrt(T), sqrt(L)}, L = ln(2m/δ), for all i w.p.
    >= 1 − δ (notes/imola25.md, "Reference values": 901.4 / 1668.6 / 1938.4 / 3876.8). k = T as in the paper.

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
    we default to log₂ (notes/imola25.md erratum 1; 1145.5 / 2423.5 / 2834.1 / 5668.2 in
    notes/imola25.md, "Reference values"), natural log
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
    """E_CC(ε, δ, m) as an integer w' with P(max_i |r̃_i − r_i| > w') <= δ (Sec. 6's E_CC).

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
