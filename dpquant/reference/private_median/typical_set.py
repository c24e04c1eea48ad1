"""The typical set H of tzamos20 and TYPICALHAMMING (display (3.3), reconstructed from Claim E.3,
Lemma B.2 and Thm E.11; Lemma 4.1/E.2, Claim E.3, Algorithms 3 and 4).

H is the set of X ∈ ℝⁿ whose left median m = m(X) lies in Ξ and satisfies, for κ = 1..K,

    #{i : X_i − m ∈ [0, κδ]} >= κ + 1   (κ-Right),     #{i : m − X_i ∈ [0, κδ]} >= κ + 1   (κ-Left),

windows closed, points equal to m counted on both sides (the reconstruction of H in
``notes/tzamos20.md``). TYPICALHAMMING(X, ξ) is min{d_H(X, X′) : X′ ∈ H, m(X′) = ξ} (+inf when
ξ ∉ Ξ; Lemma E.2).

Three ways to compute TH, tested equal (``tests/reference/private_median/test_tzamos20_typical_set.py``):

* :func:`typical_hamming` — the exact (s_L, s_R) program (ours, ``notes/tzamos20.md``, erratum
  E9; the greedy principle of Claim E.3 made exact): changing a point to ξ dominates any
  other change, and on each side the farthest points go first, so an optimal X′ changes the s_L
  farthest points below ξ and the s_R farthest above; minimise s_L + s_R subject to the median
  conditions and the 2K window conditions (each non-decreasing in s_R, so the least feasible s_R
  is a maximum of lower bounds): O(n·K) after sorting.
* :func:`typical_hamming_greedy` — the paper's Algorithm 3 (make ξ the median by replacing the
  farthest points of the heavy side, then fix the windows from κ = K down to 1 by replacing
  the current max / min with ξ). It can get stuck for C < 1 (it raises then).
* :func:`typical_hamming_brute` — exhaustive over the sets of changed coordinates (changed values
  set to ξ), with the membership test as the only criterion: the oracle for tiny n.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left, bisect_right
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.private_median.parameters import (
    MedianParameters,
    check_params,
    check_work,
    in_xi_range,
)
from dpquant.reference.validation import check_data, check_fraction, check_int

MAX_BRUTE_N = 12
MAX_GREEDY_N = 2000
MAX_ANCHORS = 2 * 10**6
"""The most anchors X_i ± κδ (n·(2K + 1)) :func:`anchor_points` builds (about 5 s)."""
MAX_DIRECT_WORK = 3 * 10**5
"""The direct constructions' budget (about 10 s): n²·(K + 1) (one TH per anchor cell)."""


def _exact(v: Any) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, int | np.integer):
        return Fraction(int(v))
    return Fraction(float(v))


def exact_data(data: Any, n: int | None = None, name: str = "data") -> list[Fraction]:
    """The data as a sorted list of exact Fractions (floats read exactly; ints and Fractions
    kept exact) under the data policy of :func:`dpquant.reference.validation.check_data` (numbers only,
    finite, fitting a float, a flat sequence); non-empty, of length ``n`` when given."""
    values = check_data(data, name)
    if isinstance(data, list | tuple | range) or (
        isinstance(data, np.ndarray) and data.dtype.kind in "iuO"
    ):
        raw = data.tolist() if isinstance(data, np.ndarray) else data
        out = [_exact(v) for v in raw]
    else:
        out = [Fraction(v) for v in values.tolist()]
    if n is not None and len(out) != n:
        raise ParameterError(name, f"must have n = {n} values", len(out))
    return sorted(out)


def _xi(xi: Any) -> Fraction:
    return check_fraction(xi, "xi")


def left_median_presorted(x: list[Fraction], params: MedianParameters) -> Fraction:
    """m(X) = x_(ℓ) for data ``x`` already sorted and exact (no checks: the fast path of
    :func:`left_median` for callers that validated the data)."""
    return x[params.ell - 1]


def left_median(sorted_data: Any, params: MedianParameters) -> Fraction:
    """m(X) = x_(ℓ) (Def. A.2 with ℓ = ⌈n/2⌉ by default)."""
    params = check_params(params)
    return left_median_presorted(exact_data(sorted_data, params.n, "sorted_data"), params)


def _check_anchors(params: MedianParameters, what: str = "data, params") -> None:
    """ValueError when the n·(2K + 1) anchors exceed :data:`MAX_ANCHORS`."""
    check_work(params.n * (2 * params.windows + 1), MAX_ANCHORS, what, params)


def check_direct(params: MedianParameters, what: str = "data, params") -> None:
    """ValueError when a direct construction (one TH per anchor cell) exceeds
    :data:`MAX_DIRECT_WORK`."""
    _check_anchors(params, what)
    check_work(params.n**2 * (params.windows + 1), MAX_DIRECT_WORK, what, params)


def window_counts(sorted_data: Any, xi: Any, kappa: int, delta: Any) -> tuple[int, int]:
    """(#{ξ <= X_i <= ξ + κδ}, #{ξ − κδ <= X_i <= ξ}) (closed windows, ties on both sides)."""
    x = exact_data(sorted_data, name="sorted_data")
    xi = _xi(xi)
    kappa = check_int(kappa, "kappa", minimum=0)
    delta = check_fraction(delta, "delta", positive=True)
    return window_counts_presorted(x, xi, kappa, delta)


def window_counts_presorted(
    sorted_data: list[Fraction], xi: Fraction, kappa: int, delta: Fraction
) -> tuple[int, int]:
    """The windows' counts for data already sorted and exact, an exact ξ and δ and an integer
    κ >= 0 (no checks: the fast path of :func:`window_counts` for callers that validated them).

    Args:
        sorted_data: The data, sorted, as exact Fractions.
        xi: The centre ξ.
        kappa: The window's size κ, in steps of δ.
        delta: The step δ > 0.

    Returns:
        (#{ξ <= X_i <= ξ + κδ}, #{ξ − κδ <= X_i <= ξ}) (closed windows, ties on both sides).
    """
    right = bisect_right(sorted_data, xi + kappa * delta) - bisect_left(sorted_data, xi)
    left = bisect_right(sorted_data, xi) - bisect_left(sorted_data, xi - kappa * delta)
    return right, left


def in_typical_set(data: Any, params: MedianParameters) -> bool:
    """X ∈ H (display (3.3)): m(X) ∈ Ξ and every κ-Right and κ-Left window holds; O(n log n)
    (sorting, then binary-searched counts, as in Thm E.11's fast path)."""
    params = check_params(params)
    return in_typical_set_presorted(exact_data(data, params.n), params)


def in_typical_set_presorted(x: list[Fraction], params: MedianParameters) -> bool:
    """X ∈ H for data ``x`` already sorted and exact (no checks: the fast path of
    :func:`in_typical_set`)."""
    m = left_median_presorted(x, params)
    if not in_xi_range(m, params) or params.windows + 1 > params.n:  # H is empty when K + 1 > n
        return False
    # the windows' counts on integers D·x_i, D·δ (D the lcm of the denominators): the same
    # comparisons as on the Fractions, without Fraction arithmetic (issue 39)
    delta = params.delta
    scale = math.lcm(delta.denominator, *{v.denominator for v in x})
    xs = [v.numerator * (scale // v.denominator) for v in x]
    step, centre = delta.numerator * (scale // delta.denominator), xs[params.ell - 1]
    below, upto = bisect_left(xs, centre), bisect_right(xs, centre)
    for kappa in range(1, params.windows + 1):
        right = bisect_right(xs, centre + kappa * step) - below
        left = upto - bisect_left(xs, centre - kappa * step)
        if right < kappa + 1 or left < kappa + 1:
            return False
    return True


def typical_hamming(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH(X, ξ) (Lemma E.2) by the exact (s_L, s_R) program of ``notes/tzamos20.md`` (+inf when
    ξ ∉ Ξ or H is empty)."""
    params = check_params(params)
    return typical_hamming_presorted(exact_data(data, params.n), _xi(xi), params)


def typical_hamming_presorted(
    x: list[Fraction], xi: Fraction, params: MedianParameters
) -> int | float:
    """TH(X, ξ) for data ``x`` already sorted and exact and an exact ξ (no checks: the fast path
    of :func:`typical_hamming`)."""
    if not in_xi_range(xi, params) or params.windows + 1 > params.n:
        return math.inf
    n, ell, K, delta = params.n, params.ell, params.windows, params.delta
    below = bisect_left(x, xi)  # A₀ = #{X_i < ξ}
    upto = bisect_right(x, xi)
    above = n - upto  # B₀ = #{X_i > ξ}
    equal = upto - below  # e₀
    kappas = np.arange(1, K + 1, dtype=np.int64)
    # l_κ = #{ξ − κδ <= X_i < ξ}, r_κ = #{ξ < X_i <= ξ + κδ}
    l_k = np.array([below - bisect_left(x, xi - k * delta) for k in range(1, K + 1)], np.int64)
    r_k = np.array([bisect_right(x, xi + k * delta) - upto for k in range(1, K + 1)], np.int64)
    best: int | float = math.inf
    for s_l in range(max(0, below - (ell - 1)), below + 1):  # A₀ − s_L <= ℓ − 1
        need_right = kappas + 1 - equal - s_l  # min(B₀, s_R + r_κ) >= need_right
        if K and need_right.max() > above:
            continue
        bounds = [above - (n - ell), 0]  # B₀ − s_R <= n − ℓ
        if K:
            bounds.append(int((need_right - r_k).max()))
            bounds.append(int((kappas + 1 - equal - np.minimum(below, s_l + l_k)).max()))
        s_r = max(bounds)
        if s_r <= above:
            best = min(best, s_l + s_r)
    return best


def typical_hamming_greedy(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH(X, ξ) by the paper's Algorithm 3 (greedy, index-tracked), +inf when ξ ∉ Ξ.

    Part 1 makes ξ the left median by setting the farthest points of the heavy side to ξ (read so
    that m(X′) = ξ afterwards: ℓ − #{X_i <= ξ} largest points when too few lie at or below ξ,
    #{X_i < ξ} − (ℓ − 1) smallest when too many lie below). Part 2 runs κ = K..1 and, while a
    κ-Right (κ-Left) window is short, sets the current maximum (minimum) to ξ. Raises
    ``ValueError`` when that point already equals ξ (the greedy is stuck: possible for C < 1,
    erratum E9 in ``notes/tzamos20.md``). n <= :data:`MAX_GREEDY_N`.
    """
    params = check_params(params)
    x = exact_data(data, params.n)
    xi = _xi(xi)
    if params.n > MAX_GREEDY_N:
        raise ParameterError("n", f"must be at most {MAX_GREEDY_N} for the greedy", params.n)
    if not in_xi_range(xi, params) or params.windows + 1 > params.n:
        return math.inf
    original = list(x)
    cur = list(x)
    ell = params.ell
    at_or_below = sum(1 for v in cur if v <= xi)
    strictly_below = sum(1 for v in cur if v < xi)
    if at_or_below < ell:
        for i in range(ell - at_or_below):
            cur[params.n - 1 - i] = xi
    elif strictly_below > ell - 1:
        for i in range(strictly_below - (ell - 1)):
            cur[i] = xi
    for kappa in range(params.windows, 0, -1):
        for side in ("right", "left"):
            while True:
                right, left = window_counts_presorted(sorted(cur), xi, kappa, params.delta)
                if (right if side == "right" else left) >= kappa + 1:
                    break
                pick = max if side == "right" else min
                j = pick(range(params.n), key=lambda i: cur[i])
                if cur[j] == xi:
                    raise ValueError(
                        f"data, xi, params: the greedy TYPICALHAMMING is stuck at κ = {kappa} "
                        f"({side} window): "
                        f"its extreme point already equals ξ (C = {params.C} < 1 can do this)"
                    )
                cur[j] = xi
    return sum(1 for a, b in zip(original, cur, strict=True) if a != b)


def typical_hamming_brute(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH(X, ξ) by exhaustive search over the sets of changed coordinates (changed values set to
    ξ), checked with :func:`in_typical_set`; +inf when ξ ∉ Ξ or nothing works. n <= 12."""
    params = check_params(params)
    if params.n > MAX_BRUTE_N:
        raise ParameterError("n", f"must be at most {MAX_BRUTE_N} for the brute-force oracle")
    x = exact_data(data, params.n)
    xi = _xi(xi)
    if not in_xi_range(xi, params):
        return math.inf
    for size in range(params.n + 1):
        for changed in itertools.combinations(range(params.n), size):
            y = [xi if i in changed else v for i, v in enumerate(x)]
            y.sort()
            if left_median_presorted(y, params) == xi and in_typical_set_presorted(y, params):
                return size
    return math.inf


def anchor_points(data: Any, params: MedianParameters) -> list[Fraction]:
    """CONSTRUCTION-P (Alg. 4 / Claim E.4): the ends of Ξ and X_i ± κδ, κ = 0..K, clipped to Ξ,
    sorted and distinct. TH(X, ·) is constant on every open interval between two of them.
    At most :data:`MAX_ANCHORS` anchors."""
    params = check_params(params)
    x = exact_data(data, params.n)
    _check_anchors(params)
    lo, hi = params.xi_range
    anchors = {lo, hi}
    for v in x:
        for kappa in range(params.windows + 1):
            for a in (v - kappa * params.delta, v + kappa * params.delta):
                if lo <= a <= hi:
                    anchors.add(a)
    return sorted(anchors)


def distance_to_typical_set(data: Any, params: MedianParameters) -> int:
    """d(X, H) = min over ξ of TH(X, ξ), taken over the anchors and the midpoints between them
    (TH is constant on the open cells). ValueError when H is empty (K + 1 > n) or beyond
    :data:`MAX_DIRECT_WORK`."""
    params = check_params(params)
    x = exact_data(data, params.n)
    if params.windows + 1 > params.n:
        raise ParameterError(
            "C",
            f"must be greater than L·r/2 for n = {params.n}: the typical set H is empty",
        )
    check_direct(params)
    pts = anchor_points(x, params)
    candidates = pts + [(a + b) / 2 for a, b in itertools.pairwise(pts)]
    return int(min(typical_hamming_presorted(x, c, params) for c in candidates))


__all__ = [
    "MAX_ANCHORS",
    "MAX_BRUTE_N",
    "MAX_DIRECT_WORK",
    "MAX_GREEDY_N",
    "check_direct",
    "anchor_points",
    "distance_to_typical_set",
    "exact_data",
    "in_typical_set",
    "in_typical_set_presorted",
    "left_median",
    "left_median_presorted",
    "typical_hamming",
    "typical_hamming_presorted",
    "typical_hamming_brute",
    "typical_hamming_greedy",
    "window_counts",
    "window_counts_presorted",
]
