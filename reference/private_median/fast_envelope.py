"""A fast exact construction of Ψ_X (issue 7 item 6; the paper's construction is O(n⁴)).

Three steps, each exact (tested equal to the direct construction of :mod:`extended_density`,
``tests/test_tzamos20_fast_envelope.py``):

1. **TH in closed form.** In spec §2.3's program, the κ-Right condition
   e₀ + s_L + min(B₀, s_R + r_κ) >= κ + 1 splits into s_L >= κ + 1 − e₀ − B₀ and
   s_L + s_R >= κ + 1 − e₀ − r_κ (likewise κ-Left), so with t = s_L + s_R

       TH(X, ξ) = max(a_L + a_R, max_κ (κ + 1 − e₀ − r_κ), max_κ (κ + 1 − e₀ − l_κ), 0),
       a_L = max(0, A₀ − (ℓ − 1), K + 1 − e₀ − B₀),  a_R = max(0, B₀ − (n − ℓ), K + 1 − e₀ − A₀),

   feasible whenever K + 1 <= n (a_L <= A₀, a_R <= B₀ and the window bounds are <= A₀ + B₀);
   H is empty, TH = +inf, when K + 1 > n. :func:`typical_hamming_closed_form` is this formula.
2. **All cells at once, in integers.** Write v/δ = p(v) + f(v) (p integer, 0 <= f < 1) and
   rank the fractional parts f exactly: the key p·M + rank(f) (M distinct fractional parts)
   orders values exactly, and v + jδ has key key(v) + j·M. Every anchor is X_a + qδ, |q| <= K
   (or an end of Ξ), so the counts N(P + jδ) = #{X_i <= P + jδ} along the row j = −2K..2K of each
   distinct X_a are one ``searchsorted`` on int64 keys, and the window maxima
   max_κ (κ − N(P + κδ)) and max_κ (κ + N(P − κδ)) are sliding-window maxima along the rows
   (van Herk / Gil–Werman, O(1) per entry). On an open cell (P_t, P_{t+1}) every count equals the
   count at P_t with "<=" (no data point lies strictly between two anchors shifted by κδ), so the
   point P_t and the cell to its right share a row. Cost O(n·K) integer operations.
3. **The envelope by a sweep.** With the nested extremes lo_k = min_{j<=k} ξ_{j,inf},
   hi_k = max_{j<=k} ξ_{j,sup} (replacing a level's interval by a larger one only lowers a tent,
   and the level j it came from is lower still, so min_k h_k is unchanged), the tents of the
   levels k <= k*(y) = the last k with hi_k − 3Cr < y < lo_k + 3Cr are unflattened and all
   higher ones flat, so

       Ψ(y) = min(k⁺(y) − s·3Cr, P₁(k*) − s·y, P₂(k*) + s·y),
       P₁(k) = min_{j<=k} (j + s·lo_j),  P₂(k) = min_{j<=k} (j − s·hi_j),

   k⁺ the first level after k*; k* changes only at the 2(n + 1) points hi_k − 3Cr, lo_k + 3Cr,
   and between two of them Ψ is the minimum of a constant and two lines of slopes ∓s: O(n log n).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from reference.private_median.extended_density import Piece, tent_slope
from reference.private_median.parameters import MedianParameters
from reference.private_median.typical_set import exact_data

_KEY_LIMIT = 2**62


def typical_hamming_closed_form(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH(X, ξ) by the closed form above (step 1; +inf when ξ ∉ Ξ or K + 1 > n)."""
    from bisect import bisect_left, bisect_right

    x = exact_data(data, params.n)
    xi = Fraction(xi)
    lo, hi = params.xi_range
    n, ell, K, delta = params.n, params.ell, params.windows, params.delta
    if not lo <= xi <= hi or K + 1 > n:
        return math.inf
    below, upto = bisect_left(x, xi), bisect_right(x, xi)
    equal, above = upto - below, n - upto
    a_l = max(0, below - (ell - 1), (K + 1 - equal - above) if K else 0)
    a_r = max(0, above - (n - ell), (K + 1 - equal - below) if K else 0)
    best = max(0, a_l + a_r)
    for kappa in range(1, K + 1):
        r_k = bisect_right(x, xi + kappa * delta) - upto
        l_k = below - bisect_left(x, xi - kappa * delta)
        best = max(best, kappa + 1 - equal - r_k, kappa + 1 - equal - l_k)
    return best


def _sliding_max(rows: np.ndarray, width: int) -> np.ndarray:
    """out[:, i] = rows[:, i:i + width].max(axis=1) for i = 0..len − width (van Herk / Gil–Werman:
    block prefix and suffix maxima)."""
    count, length = rows.shape
    blocks = -(-length // width)
    pad = np.full((count, blocks * width), np.iinfo(np.int64).min, dtype=np.int64)
    pad[:, :length] = rows
    shaped = pad.reshape(count, blocks, width)
    prefix = np.maximum.accumulate(shaped, axis=2).reshape(count, -1)
    suffix = np.maximum.accumulate(shaped[:, :, ::-1], axis=2)[:, :, ::-1].reshape(count, -1)
    starts = np.arange(length - width + 1)
    return np.maximum(suffix[:, starts], prefix[:, starts + width - 1])


def _keys(values: list[Fraction], params: MedianParameters) -> tuple[np.ndarray, int]:
    """Exact order-preserving int64 keys p·M + rank(f) of ``values`` (v/δ = p + f), with p
    clipped to a band around Ξ wide enough for every window (clipped values keep their side)."""
    delta, K = params.delta, params.windows
    lo, hi = params.xi_range
    p_lo, p_hi = math.floor(lo / delta) - 3 * K - 4, math.floor(hi / delta) + 3 * K + 4
    ints, fracs = [], []
    for v in values:
        q = v / delta
        p = math.floor(q)
        if p < p_lo:
            ints.append(p_lo - 1)
            fracs.append(Fraction(0))
        elif p > p_hi:
            ints.append(p_hi + 1)
            fracs.append(Fraction(0))
        else:
            ints.append(p)
            fracs.append(q - p)
    distinct = sorted(set(fracs))
    rank = {f: i for i, f in enumerate(distinct)}
    m = len(distinct)
    if (max(abs(p_lo), abs(p_hi)) + 2 * K + 4) * m >= _KEY_LIMIT:
        raise ValueError("the data's range in units of δ is too large for the int64 sweep")
    keys = np.array([p * m + rank[f] for p, f in zip(ints, fracs, strict=True)], dtype=np.int64)
    return keys, m


def fast_cell_levels(
    data: Any, params: MedianParameters
) -> tuple[list[Fraction], np.ndarray, np.ndarray]:
    """(anchors P_0 < … < P_T, TH at each anchor, TH on each open cell (P_t, P_{t+1})) — step 2.
    TH values are int64 (−1 marks +inf: H is empty when K + 1 > n)."""
    x = exact_data(data, params.n)
    n, ell, K, delta = params.n, params.ell, params.windows, params.delta
    lo, hi = params.xi_range
    distinct = sorted(set(x))
    keys, m = _keys([*x, lo, hi, *distinct], params)
    data_keys, key_lo, key_hi, row_keys = keys[:n], keys[n], keys[n + 1], keys[n + 2 :]
    row_values = [*distinct, lo, hi]
    row_keys = np.concatenate([row_keys, [key_lo, key_hi]])
    qs = np.arange(-K, K + 1)
    js = np.arange(-2 * K, 2 * K + 1)
    grid = row_keys[:, None] + js[None, :] * m  # keys of X_a + jδ
    n_le = np.searchsorted(data_keys, grid, side="right").astype(np.int64)
    n_lt = np.searchsorted(data_keys, grid, side="left").astype(np.int64)
    centre = slice(K, 3 * K + 1)  # columns j = q for q = −K..K
    if K:
        # max_{κ=1..K} (κ − N(P + κδ)) = −q + max_{j=q+1..q+K} (j − N_j)
        w_r = _sliding_max(js - n_le, K)[:, K + 1 : 3 * K + 2] - qs
        # max_{κ=1..K} (κ + N(P − κδ)) = q + max_{j=q−K..q−1} (N_j − j)
        w_lo = _sliding_max(n_le - js, K)[:, : 2 * K + 1] + qs
        w_lp = _sliding_max(n_lt - js, K)[:, : 2 * K + 1] + qs
    n_at, n_below = n_le[:, centre], n_lt[:, centre]
    equal = n_at - n_below

    def level(below, equal_, above, t_r, t_l):
        a_l = np.maximum(0, below - (ell - 1))
        a_r = np.maximum(0, above - (n - ell))
        if K:
            a_l = np.maximum(a_l, K + 1 - equal_ - above)
            a_r = np.maximum(a_r, K + 1 - equal_ - below)
            return np.maximum.reduce([a_l + a_r, t_r, t_l, np.zeros_like(a_l)])
        return np.maximum(a_l + a_r, 0)

    if K:
        th_point = level(
            n_below,
            equal,
            n - n_at,
            1 - equal + n_at + w_r,
            1 - equal - n_below + w_lp,
        )
        th_open = level(n_at, 0, n - n_at, 1 + n_at + w_r, 1 - n_at + w_lo)
    else:
        th_point = level(n_below, equal, n - n_at, None, None)
        th_open = level(n_at, 0, n - n_at, None, None)
    anchor_keys = row_keys[:, None] + qs[None, :] * m
    valid = (anchor_keys >= key_lo) & (anchor_keys <= key_hi)
    n_rows = len(row_values)
    valid[n_rows - 2 :, :] = False
    valid[n_rows - 2 :, K] = True  # the ends of Ξ contribute themselves only
    flat_keys = anchor_keys[valid]
    order_keys, first = np.unique(flat_keys, return_index=True)
    rows_idx, q_idx = np.nonzero(valid)
    rows_idx, q_idx = rows_idx[first], q_idx[first]
    anchors = [row_values[a] + int(qs[q]) * delta for a, q in zip(rows_idx, q_idx, strict=True)]
    point = th_point[rows_idx, q_idx]
    opened = th_open[rows_idx, q_idx][:-1]
    if K + 1 > n:
        point, opened = np.full_like(point, -1), np.full_like(opened, -1)
    assert len(order_keys) == len(anchors)
    return anchors, point, opened


def fast_level_extremes(
    data: Any, params: MedianParameters
) -> dict[int, tuple[Fraction, Fraction]]:
    """{k: (ξ_{k,inf}, ξ_{k,sup})}, equal to :func:`extended_density.level_extremes`."""
    anchors, point, opened = fast_cell_levels(data, params)
    out: dict[int, list[int]] = {}
    t = len(anchors)
    for k in np.unique(np.concatenate([point, opened])):
        if k < 0:
            continue
        at_points = np.flatnonzero(point == k)
        at_cells = np.flatnonzero(opened == k)
        left = min([*at_points[:1], *at_cells[:1]])
        right = max([*at_points[-1:], *(at_cells[-1:] + 1)])
        out[int(k)] = [int(left), int(min(right, t - 1))]
    return {k: (anchors[a], anchors[b]) for k, (a, b) in sorted(out.items())}


def nested_extremes(
    levels: dict[int, tuple[Fraction, Fraction]],
) -> list[tuple[int, Fraction, Fraction]]:
    """(k, lo_k, hi_k) with lo_k = min_{j<=k} ξ_{j,inf}, hi_k = max_{j<=k} ξ_{j,sup}, keeping
    only the levels where the interval grows (the others' tents are dominated)."""
    out: list[tuple[int, Fraction, Fraction]] = []
    for k in sorted(levels):
        a, b = levels[k]
        if out:
            a, b = min(a, out[-1][1]), max(b, out[-1][2])
            if (a, b) == out[-1][1:]:
                continue
        out.append((k, a, b))
    return out


def _first(values: list[Fraction], test) -> int:
    """The first index where the monotone predicate ``test`` holds (len(values) if none)."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if test(values[mid]):
            hi = mid
        else:
            lo = mid + 1
    return lo


def sweep_envelope(
    levels: dict[int, tuple[Fraction, Fraction]],
    params: MedianParameters,
    cap: Fraction | None = None,
) -> list[Piece]:
    """min_k h_k on [−B, B] by the O(n log n) sweep of step 3 (merged exact pieces; equal to
    :func:`extended_density.envelope_from_levels`)."""
    s, bound = tent_slope(params), params.output_bound
    cap = 3 * params.C * params.r if cap is None else Fraction(cap)
    nested = nested_extremes(levels)
    if not nested:
        raise ValueError("levels must be non-empty")
    p1, p2 = [], []
    for k, a, b in nested:
        p1.append(min(k + s * a, p1[-1]) if p1 else k + s * a)
        p2.append(min(k - s * b, p2[-1]) if p2 else k - s * b)
    los, his = [a for _, a, _ in nested], [b for _, _, b in nested]
    events = {-bound, bound}
    for _, a, b in nested:
        for c in (b - cap, a + cap):
            if -bound < c < bound:
                events.add(c)
    cuts = sorted(events)
    pieces: list[Piece] = []

    def emit(lo: Fraction, hi: Fraction, slope: Fraction, intercept: Fraction) -> None:
        if pieces and (pieces[-1].slope, pieces[-1].intercept) == (slope, intercept):
            pieces[-1] = Piece(pieces[-1].lo, hi, slope, intercept)
        else:
            pieces.append(Piece(lo, hi, slope, intercept))

    for a, b in zip(cuts, cuts[1:], strict=False):
        mid = (a + b) / 2
        # the unflattened levels form a prefix: hi_k − cap < mid fails from the first k with
        # hi_k >= mid + cap on (hi non-decreasing), mid < lo_k + cap from lo_k <= mid − cap on
        star = min(
            _first(his, lambda v, t=mid + cap: v >= t), _first(los, lambda v, t=mid - cap: v <= t)
        )
        star -= 1
        forms: list[tuple[Fraction, Fraction]] = []
        if star + 1 < len(nested):
            forms.append((Fraction(0), nested[star + 1][0] - s * cap))
        if star >= 0:
            forms += [(-s, p1[star]), (s, p2[star])]
        sub = {a, b}
        for i in range(len(forms)):
            for j in range(i + 1, len(forms)):
                (m1, c1), (m2, c2) = forms[i], forms[j]
                if m1 != m2:
                    y = (c2 - c1) / (m1 - m2)
                    if a < y < b:
                        sub.add(y)
        edges = sorted(sub)
        for lo, hi in zip(edges, edges[1:], strict=False):
            ym = (lo + hi) / 2
            slope, intercept = min(forms, key=lambda f: f[0] * ym + f[1])
            emit(lo, hi, slope, intercept)
    return pieces


def fast_envelope(data: Any, params: MedianParameters) -> list[Piece]:
    """Ψ_X exactly, by steps 2 and 3 (O(n·K) integer work plus an O(n log n) sweep)."""
    return sweep_envelope(fast_level_extremes(data, params), params)


__all__ = [
    "fast_cell_levels",
    "fast_envelope",
    "fast_level_extremes",
    "nested_extremes",
    "sweep_envelope",
    "typical_hamming_closed_form",
]
