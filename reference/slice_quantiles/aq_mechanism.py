"""Kaplan–Schnapp–Stemmer ApproximateQuantiles (AQ; the paper's [14]), imola25's baseline in Sec. 6
and Figure 1, as in the authors' fork of github.com/ShacharSchnapp/DP_AQ (notes/imola25.md,
erratum 27).

AQ releases the middle quantile q* = Q[⌊|Q|/2⌋] of the current sub-problem with the exponential
mechanism (EM) on the current data subset X_s and range (lo, hi), splits the data at the released
value v (X_l = X_s[X_s <= v], X_u = X_s[X_s >= v]) and the remaining quantiles (rescaled to
q/q* and (q − q*)/(1 − q*)), and recurses on (X_l, (lo, v)) and (X_u, (v, hi)). The outputs are
monotone by construction and are returned in quantile order (= sorted). The recursion and the
per-call budget ε' are in :mod:`~reference.slice_quantiles.aq_recursion`.

Every EM call (the EM of App. C.2 on a subset, as in the fork): utility u_j = −|j − q·|X_s|| on
Smith's intervals j = 0..|X_s| of the subset clamped into (lo, hi), weight exp(ε'·u_j/(2·sens))
times the interval length, sens = max(q, 1 − q) — the add/remove sensitivity, used under both
adjacencies (replace-one is paid for by doubling the composition).

Input values outside ``bounds`` are clamped to them (as the authors' ``single_quantile`` does), so
every finite input is valid: the mechanism's ``domain`` is (−inf, inf). The optional N(0, 1e-5)
jitter of the authors' code (``random_gauss``) is disabled in their experiments and omitted here.

Caveat (zCDP under replace-one, tested): comp = 2·layers charges each level 2·ε'²/8, but a
substitution inside one subset (always the case at the root) shifts the EM's utility by one on both
sides of the target, and the root EM alone then has D_α/α ≈ 4·ε'²/8. The faithful accounting is
therefore only a 2ρ-zCDP guarantee (comp = 4·layers would restore ρ); pure mode is unaffected
(the substitution costs the same EM at most 2ε'). See notes/imola25.md, "Other findings".

Sampling is vectorised over samples (each sample's subset is a contiguous index range of the
sorted data): several samples use log-space weights; a single release draws each EM by
rejection from blocks of about 1/scale intervals (``em_method="blocks"``, default: a block's
total length is a difference of two data points, so a call costs O(k·scale + 1) instead of
O(k)), or with linear-space weights L_j·e^{−scale·|j − t|} of every interval
(``em_method="linear"``, the draws before issue 21; decay factors as products of two
exponentials); both fall back to log space on underflow. All are tied to
:class:`reference.primitives.exponential_mechanism.ExponentialQuantile` by conformance tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from reference.core import MechanismBase
from reference.slice_quantiles.aq_recursion import (
    LAYER_RULES,
    MODES,
    Node,
    Plan,
    aq_plan,
    em_sensitivity,
    layers_count,
    per_em_epsilon,
    resolve_rho,
)
from reference.slice_quantiles.inputs import (
    check_adjacency_central,
    check_int_array,
    check_release_fields,
    check_sorted_inside,
    clamp_sort,
    clamp_sorted,
)
from reference.slice_quantiles.zcdp import check_zcdp_delta
from reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_data,
    check_domain,
    check_epsilon,
    check_flag,
    check_positive,
    check_probability,
    check_rng,
    check_size,
)

DRAW_BUDGET = 2 * 10**8
"""Most (draws × quantiles × data points) one ``sample`` call of AQ works through (about 10 s);
more draws are refused up front (:meth:`ApproximateQuantilesMechanism.draw_limit`)."""
_CHUNK_CELLS = 1 << 22  # samples × intervals per vectorised EM block
_PICK_BLOCK = 1024
_SAFE_TOTAL = 1e-200  # below this total weight the linear-space EM defers to log space
BLOCK_TILT = 0.5
"""A block of the rejection EM spans at most BLOCK_TILT/scale intervals, so that a try in the
window accepts with probability at least e^{−BLOCK_TILT} ≈ 0.61."""
MAX_ROUNDS = 50
"""Rejection rounds of the rejection EM before a row still rejected is drawn in log space (its
blocks' bounds may overstate weights that underflow: ties at the target and a huge ε)."""
WINDOW = 40.0
"""The rejection EM's window: the intervals within WINDOW/scale of the target are cut into blocks,
those beyond (weight at most e^{−WINDOW} per unit of length) form one block on each side."""
EM_METHODS = ("blocks", "linear")
"""How a single AQ release draws each EM: by rejection from blocks of intervals (default,
O(k·ε' + 1) per call, the calls of one depth drawn together, :func:`_em_blocks`) or with the
weights of every interval (O(k),
:func:`_em_single`; the draws of releases before issue 21). The same law; several samples at
once always use the log-space batch."""


# --------------------------------------------------------------------------------------------
# the EM on subsets (vectorised over samples)
# --------------------------------------------------------------------------------------------


def subset_em_sample(
    x: np.ndarray,
    gaps: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    q: float,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    method: str = "blocks",
) -> np.ndarray:
    """One EM draw per sample s on the subset x[start_s:stop_s] with range (lo_s, hi_s).

    Interval j = 0..k (k = stop − start) runs from s_j to s_{j+1} with s_0 = lo, s_{k+1} = hi and
    s_1..s_k the subset; P(j) ∝ (s_{j+1} − s_j)·exp(−ε·|j − q·k|/(2·sens)) (App. C.2 on a subset); the
    output is uniform in the chosen interval. ``gaps`` = diff(x). Several samples: log-space
    weights scaled by their row maximum, inverse CDF (:func:`_em_batch`). One sample (a single
    release, the hot path): :func:`_em_blocks` (``method="blocks"``) or
    :func:`_em_single` (``"linear"``). A sample whose intervals all have length zero
    (lo = hi) returns lo. ``x`` sorted; lo_s <= x[start_s:stop_s] <= hi_s.
    """
    x = check_data(x, "x", allow_empty=True)
    if np.any(x[1:] < x[:-1]):
        raise ValueError("x must be sorted in non-decreasing order")
    gaps = check_data(gaps, "gaps", allow_empty=True)
    if gaps.shape != (max(x.size - 1, 0),) or not np.array_equal(gaps, np.diff(x)):
        raise ValueError("gaps must be numpy.diff(x)")
    start = _index_vector(start, "start", x.size)
    stop = _index_vector(stop, "stop", x.size)
    if stop.shape != start.shape or np.any(stop < start):
        raise ValueError("start and stop must have equal length with start <= stop")
    lo = check_data(lo, "lo", allow_empty=True)
    hi = check_data(hi, "hi", allow_empty=True)
    if lo.shape != start.shape or hi.shape != start.shape or np.any(hi < lo):
        raise ValueError("lo and hi must have the length of start, with lo <= hi")
    inside = stop > start
    if np.any(x[start[inside]] < lo[inside]) or np.any(x[stop[inside] - 1] > hi[inside]):
        raise ValueError("every subset x[start:stop] must lie inside its range [lo, hi]")
    q = check_probability(q, "q")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    rng = check_rng(rng)
    scale = epsilon / (2.0 * sensitivity)
    if not math.isfinite(scale):
        raise ValueError("epsilon/(2·sensitivity) must be a finite float")
    if start.size * (int((stop - start).max(initial=0)) + 1) > DRAW_BUDGET:
        raise ValueError(f"start and stop give more than {DRAW_BUDGET} EM intervals in all")
    method = check_choice(method, "method", EM_METHODS)
    return _subset_em_sample(x, gaps, Subsets(start, stop, lo, hi), q, scale, rng, method)


def _index_vector(values: Any, name: str, n: int) -> np.ndarray:
    if isinstance(values, list | tuple | np.ndarray) and len(values) > MAX_DRAWS:
        raise ValueError(f"{name} must hold at most {MAX_DRAWS} entries")
    v = check_int_array(values, name)
    if v.ndim != 1 or np.any(v < 0) or np.any(v > n):
        raise ValueError(f"{name} must be a 1-D array of indices in [0, len(x)] = [0, {n}]")
    return v


class Subsets(NamedTuple):
    """Each sample's current sub-problem in AQ's recursion: the subset x[start_s:stop_s] of the
    sorted data (a contiguous index range) and its range (lo_s, hi_s)."""

    start: np.ndarray
    stop: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    def rows(self, sl: slice) -> Subsets:
        """The sub-problems of the samples in ``sl``."""
        return Subsets(self.start[sl], self.stop[sl], self.lo[sl], self.hi[sl])


def _subset_em_sample(
    x: np.ndarray,
    gaps: np.ndarray,
    subsets: Subsets,
    q: float,
    scale: float,
    rng: np.random.Generator,
    method: str = "blocks",
) -> np.ndarray:
    """:func:`subset_em_sample` on checked arguments, ``scale`` = ε/(2·sens)."""
    start, stop, lo, hi = subsets
    size = start.size
    k = stop - start
    if size == 1:
        if method == "blocks":
            return _em_blocks(x, start, k, lo, hi, np.array([q]), np.array([scale]), rng)
        one = (int(start[0]), int(k[0]), float(lo[0]), float(hi[0]), q, scale, rng)
        return np.array([_em_single(x, gaps, *one)])
    out = np.empty(size)
    if size == 0:
        return out
    width = int(k.max()) + 1
    chunk = max(1, _CHUNK_CELLS // width)
    for c0 in range(0, size, chunk):
        sl = slice(c0, min(size, c0 + chunk))
        out[sl] = _em_batch(x, subsets.rows(sl), q, scale, width, rng)
    return out


def _em_batch(
    x: np.ndarray, subsets: Subsets, q: float, scale: float, width: int, rng: np.random.Generator
) -> np.ndarray:
    """Vectorised EM over rows with different subsets (padded to ``width`` intervals), in log
    space (weights scaled by their row maximum): immune to underflow. A row whose intervals
    all have length zero (lo = hi) returns lo."""
    start, stop, lo, hi = subsets
    k = stop - start
    s, n = start.size, x.size
    j = np.arange(width + 1)[None, :]  # breakpoint index: s_0 = lo, s_1..s_k data, then hi
    inside = (j >= 1) & (j <= k[:, None])
    data_bp = x[np.clip(start[:, None] + j - 1, 0, n - 1)] if n else np.zeros((s, width + 1))
    bp = np.where(inside, data_bp, np.where(j == 0, lo[:, None], hi[:, None]))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        logw = np.log(np.diff(bp, axis=1))
        logw -= scale * _relative_distance(logw, np.abs(j[:, :-1] - q * k[:, None]))
    top = logw.max(axis=1)
    dead = ~np.isfinite(top)
    top[dead] = 0.0
    cum = np.cumsum(np.exp(logw - top[:, None]), axis=1)
    u = rng.random(s) * cum[:, -1]
    choice = np.minimum((cum <= u[:, None]).sum(axis=1), k)
    rows = np.arange(s)
    left, right = bp[rows, choice], bp[rows, choice + 1]
    v = left + (right - left) * rng.random(s)
    return np.where(dead, lo, v)


def _relative_distance(log_len: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """|j − t| minus its minimum over the intervals of positive length (per row): the EM's law is
    unchanged, and its best interval keeps a finite log-weight at any ε (ε·|j − t| may overflow)."""
    pos = np.isfinite(log_len)
    dmin = np.where(pos, dist, np.inf).min(axis=-1, keepdims=True)
    dmin[~np.isfinite(dmin)] = 0.0
    return np.maximum(dist - dmin, 0.0)


def _decay_powers(scale: float, count: int, offset: float = 0.0) -> np.ndarray:
    """exp(−scale·(d + offset)) for d = 0..count−1 as products of two correctly rounded
    exponentials (e^{−scale·B·a}·e^{−scale·(b + offset)}, d = B·a + b): about two roundings
    each, O(sqrt(count)) calls of exp."""
    block = max(1, math.isqrt(max(count - 1, 0)) + 1)
    small = np.exp(-scale * (np.arange(block) + offset))
    big = np.exp(-scale * block * np.arange(-(-count // block)))
    return np.multiply.outer(big, small).ravel()[:count]


def _em_single(
    x: np.ndarray,
    gaps: np.ndarray,
    start: int,
    k: int,
    lo: float,
    hi: float,
    q: float,
    scale: float,
    rng: np.random.Generator,
) -> float:
    """One EM draw in linear space: weight_j = L_j·e^{−scale·|j − t|}, t = q·k, with the decay
    factors from :func:`_decay_powers` (no exp per interval). Falls back to log space
    (:func:`_em_batch` on one row) when the total weight is not safely above the underflow range."""
    lengths = np.empty(k + 1)
    if k == 0:
        lengths[0] = hi - lo
    else:
        lengths[0] = x[start] - lo
        lengths[1:k] = gaps[start : start + k - 1]
        lengths[k] = hi - x[start + k - 1]
    t = q * k
    j0 = min(int(math.floor(t)), k)
    frac = t - j0
    w = lengths
    with np.errstate(over="ignore", invalid="ignore"):  # a huge scale: NaN/0 totals go to log space
        w[: j0 + 1] *= _decay_powers(scale, j0 + 1, frac)[::-1]  # |j − t| = (j0 − j) + frac
        if k > j0:
            w[j0 + 1 :] *= _decay_powers(
                scale, k - j0, 1.0 - frac
            )  # |j − t| = (j − j0 − 1) + 1 − frac
    choice = _pick(w, rng.random())
    if choice < 0:  # the same draw in log space (one row of the batch EM)
        one = Subsets(np.array([start]), np.array([start + k]), np.array([lo]), np.array([hi]))
        return float(_em_batch(x, one, q, scale, k + 1, rng)[0])
    left = lo if choice == 0 else float(x[start + choice - 1])
    right = hi if choice == k else float(x[start + choice])
    return left + (right - left) * rng.random()


def _breakpoint(
    x: np.ndarray, start: np.ndarray, k: np.ndarray, i: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    """s_i of each row: s_0 = lo, s_i = x[start + i − 1] for 1 <= i <= k, s_{k+1} = hi."""
    inner = x[start + np.clip(i, 1, np.maximum(k, 1)) - 1] if x.size else np.zeros(i.shape)
    return np.where(i <= 0, lo, np.where(i >= k + 1, hi, inner))


def _row_blocks(
    k: np.ndarray, t: np.ndarray, scale: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row's proposal blocks: intervals 0..k cut into the window |j − t| <= WINDOW/scale,
    in blocks of max(1, ⌊BLOCK_TILT/scale⌋) intervals, and at most one block on each side
    outside it. Returns (first block of each row, blocks per row, owner row, a, e, outer) with
    block b holding the intervals a[b]..e[b], ``outer[b]`` when it lies outside the window."""
    reach = np.minimum(np.ceil(WINDOW / scale), 2.0**62).astype(np.int64)
    wa = np.maximum(0, np.floor(t).astype(np.int64) - reach)
    wb = np.minimum(k, np.ceil(t).astype(np.int64) + reach)
    width = np.minimum(
        wb - wa + 1,
        np.maximum(1, np.floor(np.minimum(BLOCK_TILT / scale, 2.0**62)).astype(np.int64)),
    )
    inner = -(-(wb - wa + 1) // width)
    left, right = (wa > 0).astype(np.int64), (wb < k).astype(np.int64)
    count = left + inner + right
    first = np.concatenate([[0], np.cumsum(count)[:-1]])
    owner = np.repeat(np.arange(k.size), count)
    pos = np.arange(int(count.sum())) - first[owner]  # the block's place in its row
    i = pos - left[owner]  # index among the row's inner blocks (−1: the left outer block)
    a = np.where(i < 0, 0, wa[owner] + i * width[owner])
    e = np.where(i < 0, wa[owner] - 1, np.minimum(a + width[owner], wb[owner] + 1) - 1)
    outer_right = i >= inner[owner]
    a = np.where(outer_right, wb[owner] + 1, a)
    e = np.where(outer_right, k[owner], e)
    return first, count, owner, a, e, (i < 0) | outer_right


def _em_blocks(
    x: np.ndarray,
    start: np.ndarray,
    k: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    q: np.ndarray,
    scale: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """One EM draw per row (each row its own subset x[start:start + k], range, q and scale), all
    rows at once, by rejection from blocks of intervals (:func:`_row_blocks`).

    A block b of intervals a..e is proposed with probability ∝ U_b = (s_{e+1} − s_a)·e^{−scale·d_b},
    d_b the least |j − t| in it (t = q·k): U_b is at least the block's EM weight
    Σ_{j=a..e} L_j·e^{−scale·|j − t|}, so a point drawn uniformly in [0, U_b) that falls under the
    block's running EM weights picks interval j with exactly the EM's law, and one that does not
    is drawn again (a try in the window succeeds with probability at least e^{−BLOCK_TILT};
    after :data:`MAX_ROUNDS` rejections the row is drawn in log space, also exactly). A
    block's length is a difference of two breakpoints, so a proposal costs
    O(WINDOW/BLOCK_TILT) blocks per row whatever k is; a block outside the window (weight below
    e^{−WINDOW} per unit length) is rarely proposed, and then its intervals are weighed one by one.
    Rows whose proposal total is not safely above underflow go to log space (:func:`_em_batch`);
    the output is uniform in the chosen interval."""
    out = np.empty(k.size)
    t = q * k
    first, count, owner, a, e, outer = _row_blocks(k, t, scale)
    left = _breakpoint(x, start[owner], k[owner], a, lo[owner], hi[owner])
    right = _breakpoint(x, start[owner], k[owner], e + 1, lo[owner], hi[owner])
    to = t[owner]
    d = np.where((a <= to) & (to <= e), 0.0, np.minimum(np.abs(a - to), np.abs(e - to)))
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        # inflated past the rounding of a sum of (e − a + 1) lengths: U_b stays an upper bound
        U = (right - left) * np.exp(-scale[owner] * d) * (1.0 + 2.0**-40 + (e - a + 1) * 2.0**-50)
        total = np.add.reduceat(U, first)
        # each row's proposals scaled to total 1 before the running sum over all rows, so a
        # row's share is not lost to the rounding of the rows before it
        cum = np.cumsum(U / np.where(total > 0, total, 1.0)[owner])
    before = np.concatenate([[0.0], cum])[first]
    fine = np.isfinite(total) & (total > _SAFE_TOTAL)
    active = np.flatnonzero(fine)
    rounds = 0
    while active.size and rounds < MAX_ROUNDS:
        rounds += 1
        last = first[active] + count[active] - 1
        u0 = rng.random(active.size) * (cum[last] - before[active])
        b = np.clip(np.searchsorted(cum, before[active] + u0, side="right"), first[active], last)
        u = rng.random(active.size) * U[b]
        point = np.full(active.size, np.nan)
        wide = outer[b]
        for i in np.flatnonzero(wide):  # an outer block: its intervals one by one (rare)
            point[i] = _in_block(
                x, active[i], a[b[i]], e[b[i]], u[i], start, k, lo, hi, t, scale, rng
            )
        body = np.flatnonzero(~wide)
        if body.size:
            rows, bb = active[body], b[body]
            span = int((e[bb] - a[bb]).max()) + 1
            j = a[bb][:, None] + np.arange(span)[None, :]
            kb, sb = k[rows][:, None], start[rows][:, None]
            s_j = _breakpoint(x, sb, kb, j, lo[rows][:, None], hi[rows][:, None])
            s_next = _breakpoint(x, sb, kb, j + 1, lo[rows][:, None], hi[rows][:, None])
            with np.errstate(under="ignore"):
                decay = np.exp(-scale[rows][:, None] * np.abs(j - t[rows][:, None]))
                w = np.where(j <= e[bb][:, None], (s_next - s_j) * decay, 0.0)
            run = np.cumsum(w, axis=1)
            ub = u[body]
            pick = np.minimum((run <= ub[:, None]).sum(axis=1), span - 1)
            ra = np.arange(body.size)
            left_pick, right_pick = s_j[ra, pick], s_next[ra, pick]
            inside = left_pick + (right_pick - left_pick) * rng.random(body.size)
            point[body] = np.where(ub < run[:, -1], inside, np.nan)
        accept = ~np.isnan(point)
        out[active[accept]] = point[accept]
        active = active[~accept]
    # log space, row by row, for the rows whose proposal total underflows and for those still
    # rejected after MAX_ROUNDS tries (an exact draw after any number of rejections: the law
    # stays the EM's)
    for r in np.concatenate([np.flatnonzero(~fine), active]).astype(np.int64):
        one = Subsets(start[r : r + 1], start[r : r + 1] + k[r], lo[r : r + 1], hi[r : r + 1])
        out[r] = _em_batch(x, one, float(q[r]), float(scale[r]), int(k[r]) + 1, rng)[0]
    return out


def _in_block(
    x: np.ndarray,
    r: int,
    a: int,
    e: int,
    u: float,
    start: np.ndarray,
    k: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    t: np.ndarray,
    scale: np.ndarray,
    rng: np.random.Generator,
) -> float:
    """The accept step of :func:`_em_blocks` for one row's block a..e weighed interval by
    interval: the point of the chosen interval, or NaN when ``u`` is above the block's weight."""
    j = np.arange(a, e + 1)
    kr, sr = k[r : r + 1], start[r : r + 1]
    s_j = _breakpoint(x, sr, kr, j, lo[r : r + 1], hi[r : r + 1])
    s_next = _breakpoint(x, sr, kr, j + 1, lo[r : r + 1], hi[r : r + 1])
    with np.errstate(under="ignore"):
        run = np.cumsum((s_next - s_j) * np.exp(-scale[r] * np.abs(j - t[r])))
    if not u < run[-1]:
        return math.nan
    i = int(np.searchsorted(run, u, side="right"))
    return float(s_j[i] + (s_next[i] - s_j[i]) * rng.random())


def _pick(w: np.ndarray, u: float) -> int:
    """Index J with P(J = j) = w_j/Σw for u ~ U[0, 1) (inverse CDF in two stages: block sums,
    then the cumulative sum inside the chosen block); −1 when Σw is not safely positive."""
    n = w.size
    if n <= 4 * _PICK_BLOCK:
        cum = np.cumsum(w)
        total = float(cum[-1])
        if not (math.isfinite(total) and total > _SAFE_TOTAL):
            return -1
        return min(int(np.searchsorted(cum, u * total, side="right")), n - 1)
    nb = n // _PICK_BLOCK
    sums = np.empty(nb + 1)
    sums[:nb] = w[: nb * _PICK_BLOCK].reshape(nb, _PICK_BLOCK).sum(axis=1)
    sums[nb] = w[nb * _PICK_BLOCK :].sum()
    cum = np.cumsum(sums)
    total = float(cum[-1])
    if not (math.isfinite(total) and total > _SAFE_TOTAL):
        return -1
    target = u * total
    b = min(int(np.searchsorted(cum, target, side="right")), nb)
    base = b * _PICK_BLOCK
    inner = np.cumsum(w[base : base + _PICK_BLOCK])
    rest = target - (float(cum[b - 1]) if b else 0.0)
    j = min(int(np.searchsorted(inner, rest, side="right")), inner.size - 1)
    if w[base + j] <= 0:  # rounding pushed past the block's last positive weight
        j = int(np.flatnonzero(w[base : base + j + 1] > 0)[-1])
    return base + j


# --------------------------------------------------------------------------------------------
# AQ
# --------------------------------------------------------------------------------------------


def sample_aq(
    x: np.ndarray,
    plan: Plan,
    bounds: tuple[float, float],
    eps_prime: float,
    size: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``size`` independent AQ releases on sorted clamped data ``x``: (size, m).

    Each sample's subset at a node is a contiguous range x[start:stop] (splitting by value keeps
    sorted order); X_l = X_s[X_s <= v] and X_u = X_s[X_s >= v] as in the fork (module docstring)."""
    if not isinstance(plan, Plan):
        raise ValueError(f"plan must be an aq_plan(quantiles), got {type(plan).__name__}")
    bounds = check_domain(bounds, "bounds", finite=True)
    x = check_sorted_inside(x, bounds)
    eps_prime = check_epsilon(eps_prime, "eps_prime")
    size, rng = check_size(size, minimum=1), check_rng(rng)
    limit = _aq_draw_limit(len(plan.order), x.size)
    if size > limit:
        raise ValueError(f"size must be at most {limit} for AQ on this data, got {size}")
    return _release(x, plan, eps_prime, _root(x.size, bounds, size), rng)


def _root(n: int, bounds: tuple[float, float], size: int) -> Subsets:
    """The root sub-problem of ``size`` samples: all n points, range ``bounds``."""
    a, b = bounds
    return Subsets(
        np.zeros(size, dtype=np.int64),
        np.full(size, n, dtype=np.int64),
        np.full(size, float(a)),
        np.full(size, float(b)),
    )


def _release(
    x: np.ndarray,
    plan: Plan,
    eps_prime: float,
    root: Subsets,
    rng: np.random.Generator,
    method: str = "blocks",
) -> np.ndarray:
    """:func:`sample_aq` on checked arguments, one sample per row of ``root`` (the mechanism
    and :func:`approximate_quantiles` have checked them already: no second O(n) pass per
    release); ``method`` as :data:`EM_METHODS` (single releases)."""
    size, m = root.start.size, len(plan.order)
    out = np.empty((size, m))
    a, b = float(root.lo[0]), float(root.hi[0])
    if method == "blocks" and size == 1:
        return np.clip(_release_by_levels(x, plan, eps_prime, root, rng), a, b).reshape(1, m)
    gaps = np.diff(x)
    state = {id(plan.root): root}
    for node in plan.order:
        subsets = state.pop(id(node))
        start, stop, lo, hi = subsets
        scale = eps_prime / (2.0 * em_sensitivity(node.q))
        v = _subset_em_sample(x, gaps, subsets, node.q, scale, rng, method)
        out[:, node.index] = v
        if node.left is not None:
            le = np.clip(np.searchsorted(x, v, side="right"), start, stop)
            state[id(node.left)] = Subsets(start, le, lo, v)
        if node.right is not None:
            lt = np.clip(np.searchsorted(x, v, side="left"), start, stop)
            state[id(node.right)] = Subsets(lt, stop, v, hi)
    return np.clip(out, a, b, out=out)


def _release_by_levels(
    x: np.ndarray, plan: Plan, eps_prime: float, root: Subsets, rng: np.random.Generator
) -> np.ndarray:
    """One release with the EM calls of each depth of the recursion drawn together
    (:func:`_em_blocks`): a call depends only on its ancestors' values, which the depths above
    have drawn, so the law is the recursion's; m values in quantile order."""
    out = np.empty(len(plan.order))
    level = [
        (plan.root, int(root.start[0]), int(root.stop[0]), float(root.lo[0]), float(root.hi[0]))
    ]
    while level:
        start = np.array([item[1] for item in level], dtype=np.int64)
        stop = np.array([item[2] for item in level], dtype=np.int64)
        lo = np.array([item[3] for item in level])
        hi = np.array([item[4] for item in level])
        q = np.array([item[0].q for item in level])
        scale = eps_prime / (2.0 * np.maximum(q, 1.0 - q))  # em_sensitivity, row by row
        v = _em_blocks(x, start, stop - start, lo, hi, q, scale, rng)
        le = np.clip(np.searchsorted(x, v, side="right"), start, stop)
        lt = np.clip(np.searchsorted(x, v, side="left"), start, stop)
        below: list[tuple[Node, int, int, float, float]] = []
        for r, (node, s0, s1, l0, h0) in enumerate(level):
            out[node.index] = v[r]
            if node.left is not None:
                below.append((node.left, s0, int(le[r]), l0, float(v[r])))
            if node.right is not None:
                below.append((node.right, int(lt[r]), s1, float(v[r]), h0))
        level = below
    return out


def _aq_draw_limit(m: int, n: int) -> int:
    """Draws per call: (draws·m·(n + 1)) <= :data:`DRAW_BUDGET` (at least 1)."""
    return int(min(MAX_DRAWS, max(1, DRAW_BUDGET // (m * (n + 1)))))


def approximate_quantiles(
    data: Any,
    quantiles: Any,
    bounds: tuple[float, float],
    epsilon: float,
    rng: np.random.Generator,
    *,
    adjacency: str = "replace_one",
    mode: str = "pure",
    delta: float | None = None,
    rho: float | None = None,
    layers: str = "authors",
    kss_original_constant: bool = False,
    em_method: str = "blocks",
) -> np.ndarray:
    """One AQ release (module docstring): m estimates, sorted, in quantile order.

    mode 'pure': (ε, 0)-DP. mode 'zcdp': ρ-zCDP with ρ = ``rho`` or ρ = rho_from_epsilon(ε, δ)
    (then (ε, δ)-DP by the "cks" conversion). ``em_method`` as :data:`EM_METHODS` (the same
    law; "linear" reproduces the draws of releases before issue 21)."""
    em_method = check_choice(em_method, "em_method", EM_METHODS)
    bounds = check_domain(bounds, "bounds", finite=True)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    adjacency = check_adjacency_central(adjacency)
    layers = check_choice(layers, "layers", LAYER_RULES)
    kss_original_constant = check_flag(kss_original_constant, "kss_original_constant")
    plan = aq_plan(quantiles)
    r = resolve_rho(epsilon, mode, delta, rho)
    eps_prime = per_em_epsilon(
        len(plan.order),
        adjacency,
        mode,
        epsilon=epsilon,
        rho=r,
        layers=layers,
        kss_original_constant=kss_original_constant,
    )
    x = clamp_sorted(data, bounds)
    return _release(x, plan, eps_prime, _root(x.size, bounds, 1), rng, em_method)[0]


@dataclass(frozen=True)
class ApproximateQuantilesMechanism(MechanismBase):
    """AQ as a :class:`reference.core.Mechanism`: claim (ε, 0) (pure) or (ε, δ) (zcdp, ρ =
    rho_from_epsilon(ε, δ)); ``domain`` (−inf, inf) since inputs are clamped to ``bounds``.

    ``composition`` overrides comp (a value below the true one is a deliberately broken variant);
    ``em_method`` as :data:`EM_METHODS` (one draw per call). One call draws at most :data:`DRAW_BUDGET`/(m·(n + 1)) releases (at least one).
    """

    quantiles: tuple[float, ...]
    epsilon: float
    bounds: tuple[float, float]
    adjacency: str = "replace_one"
    mode: str = "pure"
    delta: float | None = None
    layers: str = "authors"
    kss_original_constant: bool = False
    composition: float | None = None
    em_method: str = "blocks"

    clamps = True  # any finite value is valid input: values outside ``bounds`` are clamped
    allow_empty = True  # the empty data set: every EM call is uniform on its range

    def __post_init__(self) -> None:
        check_release_fields(self)
        check_choice(self.mode, "mode", MODES)
        check_choice(self.layers, "layers", LAYER_RULES)
        check_flag(self.kss_original_constant, "kss_original_constant")
        check_choice(self.em_method, "em_method", EM_METHODS)
        if self.composition is not None:
            object.__setattr__(self, "composition", check_positive(self.composition, "composition"))
        if self.mode == "zcdp":
            if self.delta is None:
                raise ValueError("mode 'zcdp' needs delta in (0, 1)")
            object.__setattr__(self, "delta", check_zcdp_delta(self.delta))
        layers_count(len(self.quantiles), self.layers)
        _ = self._eps_prime  # computed (and cached) here: a bad budget fails at construction

    @cached_property
    def _eps_prime(self) -> float:
        """ε' of every EM call (cached: ρ from (ε, δ) is a bisection in mpmath)."""
        return self._per_call()

    def _per_call(self) -> float:
        return per_em_epsilon(
            len(self.quantiles),
            self.adjacency,
            self.mode,
            epsilon=self.epsilon,
            rho=self.rho,
            layers=self.layers,
            kss_original_constant=self.kss_original_constant,
            composition=self.composition,
        )

    @property
    def rho(self) -> float | None:
        return resolve_rho(self.epsilon, self.mode, self.delta, None)

    @property
    def epsilon_per_call(self) -> float:
        return self._per_call()

    @property
    def claimed_delta(self) -> float:
        return 0.0 if self.delta is None else float(self.delta)  # delta is None in pure mode

    def draw_limit(self, data: np.ndarray) -> int:
        return _aq_draw_limit(len(self.quantiles), data.size)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases, shape (size, m), vectorised over the samples."""
        x = clamp_sort(data, self.bounds)
        plan = aq_plan(self.quantiles)
        root = _root(x.size, self.bounds, size)
        return _release(x, plan, self._eps_prime, root, rng, self.em_method)
