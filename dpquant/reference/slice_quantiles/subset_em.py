"""The exponential mechanism of App. C.2 on a subset of sorted data, the sampler behind every EM
call of Kaplan–Schnapp–Stemmer ApproximateQuantiles (:mod:`~dpquant.reference.slice_quantiles.aq_mechanism`).

On the subset x[start:start + k] with range (lo, hi): interval j = 0..k runs from s_j to s_{j+1}
(s_0 = lo, s_1..s_k the subset, s_{k+1} = hi), has utility −|j − q·k| and is chosen with
probability ∝ (s_{j+1} − s_j)·exp(−scale·|j − q·k|), scale = ε/(2·sens); the output is uniform in
it. Three samplers with the same law:

* :func:`_em_batch`: many samples at once, log-space weights scaled by their row maximum, inverse
  CDF (immune to underflow); the fallback of the other two;
* :func:`_em_single` (``method="linear"``): one sample, linear-space weights of every interval
  with the decay factors as products of two exponentials, O(k);
* :func:`em_by_blocks` (``method="blocks"``): many rows with their own subsets, q and scale (the
  calls of one depth of AQ), by rejection from blocks of intervals, O(1/BLOCK_TILT·WINDOW) blocks
  per row whatever k is.

All are tied to :class:`dpquant.reference.primitives.exponential_mechanism.ExponentialQuantile`'s exact
law by conformance tests.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles.inputs import check_int_array
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_data,
    check_epsilon,
    check_positive,
    check_probability,
    check_rng,
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
O(k·ε' + 1) per call, the calls of one depth drawn together, :func:`em_by_blocks`) or with the
weights of every interval (O(k),
:func:`_em_single`; the draws of releases before issue 21). The same law; several samples at
once always use the log-space batch."""


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
    release, the hot path): :func:`em_by_blocks` (``method="blocks"``) or
    :func:`_em_single` (``"linear"``). A sample whose intervals all have length zero
    (lo = hi) returns lo. ``x`` sorted; lo_s <= x[start_s:stop_s] <= hi_s.
    """
    x = check_data(x, "x", allow_empty=True)
    if np.any(x[1:] < x[:-1]):
        raise ParameterError("x", "must be sorted in non-decreasing order")
    gaps = check_data(gaps, "gaps", allow_empty=True)
    if gaps.shape != (max(x.size - 1, 0),) or not np.array_equal(gaps, np.diff(x)):
        raise ParameterError("gaps", "must be numpy.diff(x)")
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
    return subset_em_unchecked(x, gaps, Subsets(start, stop, lo, hi), q, scale, rng, method)


def _index_vector(values: Any, name: str, n: int) -> np.ndarray:
    if isinstance(values, list | tuple | np.ndarray) and len(values) > MAX_DRAWS:
        raise ParameterError(name, f"must hold at most {MAX_DRAWS} entries")
    v = check_int_array(values, name)
    if v.ndim != 1 or np.any(v < 0) or np.any(v > n):
        raise ParameterError(name, f"must be a 1-D array of indices in [0, len(x)] = [0, {n}]")
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


def subset_em_unchecked(
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
            return em_by_blocks(x, start, k, lo, hi, np.array([q]), np.array([scale]), rng)
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
    """s_i of each row: s_0 = lo, s_i = x[start + i − 1] for 1 <= i <= k, s_{k+1} = hi.

    A row with an empty subset (k = 0) has only s_0 and s_1 = hi; its start may be len(x) (AQ's
    X_u when the released value exceeds every point, notes/imola25.md "Issue 34"), so the data
    index, unused for such a row, is kept inside x rather than read past its end."""
    if not x.size:
        return np.where(i <= 0, lo, hi)
    inner = x[np.minimum(start + np.clip(i, 1, np.maximum(k, 1)) - 1, x.size - 1)]
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


def em_by_blocks(
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
    """The accept step of :func:`em_by_blocks` for one row's block a..e weighed interval by
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
