"""The typical set H of tzamos20 and TYPICALHAMMING (spec §1.5, §2.3, §2.8; Lemma 4.1/E.2,
Claim E.3).

H is the set of X ∈ ℝⁿ whose left median m = m(X) lies in Ξ and satisfies, for κ = 1..K,

    #{i : X_i − m ∈ [0, κδ]} >= κ + 1   (κ-Right),     #{i : m − X_i ∈ [0, κδ]} >= κ + 1   (κ-Left),

windows closed, points equal to m counted on both sides. TYPICALHAMMING(X, ξ) is
min{d_H(X, X′) : X′ ∈ H, m(X′) = ξ} (+inf when ξ ∉ Ξ).

Three ways to compute TH, tested equal (``tests/test_tzamos20_typical_set.py``):

* :func:`typical_hamming` — the exact formula of spec §2.3: changing a point to ξ dominates any
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

from reference.private_median.parameters import MedianParameters

MAX_BRUTE_N = 12


def exact_data(data: Any, n: int | None = None, name: str = "data") -> list[Fraction]:
    """The data as a sorted list of exact Fractions (floats read exactly); non-empty, finite,
    of length ``n`` when given."""
    if isinstance(data, str | bytes):
        raise ValueError(f"{name} must be a 1-D sequence of finite numbers, got a string")
    values = list(np.ravel(np.asarray(data, dtype=object))) if not isinstance(data, list) else data
    if not values:
        raise ValueError(f"{name} must be non-empty")
    out = []
    for v in values:
        if isinstance(v, bool | np.bool_):
            raise ValueError(f"{name} must contain numbers, got {v!r}")
        if isinstance(v, np.integer):
            v = int(v)
        if isinstance(v, np.floating):
            v = float(v)
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"{name} must contain finite numbers only (no NaN or inf)")
        if not isinstance(v, int | float | Fraction):
            raise ValueError(f"{name} must contain numbers, got {v!r}")
        out.append(Fraction(v))
    if n is not None and len(out) != n:
        raise ValueError(f"{name} must have n = {n} values, got {len(out)}")
    return sorted(out)


def left_median(sorted_data: list[Fraction], params: MedianParameters) -> Fraction:
    """m(X) = x_(ℓ) (Def. A.2 with ℓ = ⌈n/2⌉ by default)."""
    return sorted_data[params.ell - 1]


def _in_xi(xi: Fraction, params: MedianParameters) -> bool:
    lo, hi = params.xi_range
    return lo <= xi <= hi


def window_counts(sorted_data: list[Fraction], xi: Fraction, kappa: int, delta: Fraction):
    """(#{ξ <= X_i <= ξ + κδ}, #{ξ − κδ <= X_i <= ξ}) (closed windows, ties on both sides)."""
    right = bisect_right(sorted_data, xi + kappa * delta) - bisect_left(sorted_data, xi)
    left = bisect_right(sorted_data, xi) - bisect_left(sorted_data, xi - kappa * delta)
    return right, left


def in_typical_set(data: Any, params: MedianParameters) -> bool:
    """X ∈ H (spec §2.8): m(X) ∈ Ξ and every κ-Right and κ-Left window holds; O(n log n)."""
    x = exact_data(data, params.n)
    m = left_median(x, params)
    if not _in_xi(m, params):
        return False
    for kappa in range(1, params.windows + 1):
        right, left = window_counts(x, m, kappa, params.delta)
        if right < kappa + 1 or left < kappa + 1:
            return False
    return True


def typical_hamming(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH(X, ξ) by the exact (s_L, s_R) formula of spec §2.3 (+inf when ξ ∉ Ξ)."""
    x = exact_data(data, params.n)
    xi = Fraction(xi)
    if not _in_xi(xi, params):
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
    spec §2.3).
    """
    x = exact_data(data, params.n)
    xi = Fraction(xi)
    if not _in_xi(xi, params):
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
                right, left = window_counts(sorted(cur), xi, kappa, params.delta)
                if (right if side == "right" else left) >= kappa + 1:
                    break
                pick = max if side == "right" else min
                j = pick(range(params.n), key=lambda i: cur[i])
                if cur[j] == xi:
                    raise ValueError(
                        f"the greedy TYPICALHAMMING is stuck at κ = {kappa} ({side} window): "
                        f"its extreme point already equals ξ (C = {params.C} < 1 can do this)"
                    )
                cur[j] = xi
    return sum(1 for a, b in zip(original, cur, strict=True) if a != b)


def typical_hamming_brute(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH(X, ξ) by exhaustive search over the sets of changed coordinates (changed values set to
    ξ), checked with :func:`in_typical_set`; +inf when ξ ∉ Ξ or nothing works. n <= 12."""
    x = exact_data(data, params.n)
    if params.n > MAX_BRUTE_N:
        raise ValueError(f"n must be at most {MAX_BRUTE_N} for the brute-force oracle")
    xi = Fraction(xi)
    if not _in_xi(xi, params):
        return math.inf
    for size in range(params.n + 1):
        for changed in itertools.combinations(range(params.n), size):
            y = [xi if i in changed else v for i, v in enumerate(x)]
            y.sort()
            if left_median(y, params) == xi and in_typical_set(y, params):
                return size
    return math.inf


def anchor_points(data: Any, params: MedianParameters) -> list[Fraction]:
    """CONSTRUCTION-P (Alg. 4 / Claim E.4): the ends of Ξ and X_i ± κδ, κ = 0..K, clipped to Ξ,
    sorted and distinct. TH(X, ·) is constant on every open interval between two of them."""
    x = exact_data(data, params.n)
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
    (TH is constant on the open cells)."""
    x = exact_data(data, params.n)
    pts = anchor_points(x, params)
    candidates = pts + [(a + b) / 2 for a, b in itertools.pairwise(pts)]
    return int(min(typical_hamming(x, c, params) for c in candidates))


__all__ = [
    "MAX_BRUTE_N",
    "anchor_points",
    "distance_to_typical_set",
    "exact_data",
    "in_typical_set",
    "left_median",
    "typical_hamming",
    "typical_hamming_brute",
    "typical_hamming_greedy",
    "window_counts",
]
