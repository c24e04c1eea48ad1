"""Sampling JointExp from its forward pass (:mod:`dpquant.reference.slice_quantiles.joint_exp_forward`):
backwards from o_m, vectorised over samples.

With ``method="exact"`` the backward conditionals are those of the JointExp law itself: the
interval of o_j given the block above (:func:`interval_logweights`), then the size k of its block
(:func:`block_logweights`). With ``method="rejection"`` they are those of the proposal, which
charges every repeated interval the factor 1/2 instead of 1/k (:func:`repeat_logprob`); a proposed
sequence is then accepted with probability Π_blocks 2^{k−1}/k! (:func:`acceptance_log_probability`),
so accepted draws follow the JointExp law exactly. Given the interval sequence, the outputs of a
block are sorted iid uniforms on their interval (:func:`intervals_to_outputs`). The rows A_j
are those kept by the forward pass or, when it kept only every k-th (large inputs), recomputed
block by block as the backward pass reaches them, bit for bit the same (so the same draws).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles.inputs import check_int_array
from dpquant.reference.slice_quantiles.joint_exp_forward import JointExpForward, recompute_rows
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_flag,
    check_int,
    check_rng,
    check_size,
)

DRAW_BUDGET = 2 * 10**8
"""Most (distinct conditioning intervals × m × (n + 1)) of one sampling call (about 10 s)."""
_LOG2 = math.log(2.0)
_MAX_PROPOSALS_PER_DRAW = 10_000
_UNDERFLOW = -746.0  # exp(x) is exactly 0 for x below this


# --------------------------------------------------------------------------------------------
# backward conditionals (shared by the sampler and the exact path probabilities)
# --------------------------------------------------------------------------------------------


def _check_fw(fw: Any) -> JointExpForward:
    if not isinstance(fw, JointExpForward):
        raise ParameterError("fw", "must be a JointExpForward (forward(...))", type(fw).__name__)
    return fw


def _check_j(fw: JointExpForward, j: Any) -> int:
    return check_int(j, "j", minimum=1, maximum=fw.m)


def _check_intervals(fw: JointExpForward, i: Any, name: str) -> np.ndarray:
    arr = check_int_array(i, name)
    if arr.size and (arr.min() < 0 or arr.max() > fw.n):
        raise ParameterError(name, f"must hold interval indices in [0, n] = [0, {fw.n}]")
    return arr


class _Rows:
    """The rows A_j for a backward pass (j descending, the bound i_up non-increasing): the kept
    rows of the forward pass, the others recomputed block by block from the kept row below
    them (:func:`~dpquant.reference.slice_quantiles.joint_exp_forward.recompute_rows`), their first
    ``limit`` entries; one block is held at a time."""

    def __init__(self, fw: JointExpForward) -> None:
        self.fw = fw
        self.lo = self.hi = self.limit = 0
        self.block: np.ndarray | None = None

    def __call__(self, j: int, limit: int) -> np.ndarray:
        fw = self.fw
        if (j - 1) % fw.stride == 0:
            return fw.total[(j - 1) // fw.stride]
        if self.block is None or not (self.lo < j <= self.hi and limit <= self.limit):
            self.block = None  # free the previous block first
            self.lo = j - (j - 1) % fw.stride
            self.hi = min(self.lo + fw.stride - 1, fw.m)
            self.limit = limit
            self.block = recompute_rows(fw, self.lo, self.hi, limit)
        return self.block[j - self.lo - 1]


def interval_logweights(fw: JointExpForward, j: int, i_up: int, first: bool) -> np.ndarray:
    """Unnormalised log P(o_j in interval i | o_{j+1} starts a block in interval i_up):
    A_j(i) + log φ_{j+1}(i_up − i) over i <= i_up (``first``: j = m, i_up = n, where
    o_{m+1} = b is no output) or i < i_up (otherwise)."""
    fw = _check_fw(fw)
    j = _check_j(fw, j)
    i_up = check_int(i_up, "i_up", minimum=0, maximum=fw.n)
    first = check_flag(first, "first")
    return _interval_logweights(fw, _Rows(fw), j, i_up, first)


def _interval_logweights(
    fw: JointExpForward, rows: _Rows, j: int, i_up: int, first: bool
) -> np.ndarray:
    lim = i_up + 1 if first else i_up
    w = np.full(fw.n + 1, -np.inf)
    w[:lim] = _head_logweights(fw, rows(j, fw.n + 1), j, i_up, lim)
    return w


def _head_logweights(
    fw: JointExpForward, row: np.ndarray, j: int, i_up: int, lim: int
) -> np.ndarray:
    """The interval log-weights at i < lim (the others are −inf), from the row A_j."""
    return row[:lim] + fw.log_phi(j + 1, i_up - np.arange(lim))


def block_logweights(fw: JointExpForward, j: int, i: int) -> np.ndarray:
    """``exact``: unnormalised log P(block size k | o_j ends a block in interval i), k = 1..j:
    β_{j−k+1}(i) + (k−1)·log L_i + Σ_{j'=j−k+2..j} log φ_{j'}(0) − log k!."""
    fw = _check_fw(fw)
    if fw.method != "exact":
        raise ParameterError("fw", "must come from method 'exact' for block_logweights")
    j = _check_j(fw, j)
    i = check_int(i, "i", minimum=0, maximum=fw.n)
    return _block_logweights(fw, j, i)


def _block_logweights(fw: JointExpForward, j: int, i: int) -> np.ndarray:
    out = np.full(j, fw.new[j - 1, i])
    lp = fw.log_len[i]
    for k in range(2, j + 1):
        s = j - k + 1
        out[k - 1] = (
            fw.new[s - 1, i] + (k - 1) * lp + fw.log_phi0_sum(s + 1, j) - math.lgamma(k + 1)
        )
    return out


def repeat_logprob(fw: JointExpForward, j: int, i: np.ndarray) -> np.ndarray:
    """``rejection``: log P(o_{j−1} is also in interval i | o_j in interval i) under the proposal:
    R_j(i) − A_j(i), R_j = log L + log φ_j(0) − log 2 + A_{j−1} (−inf for j = 1)."""
    fw = _check_fw(fw)
    if fw.method != "rejection":
        raise ParameterError("fw", "must come from method 'rejection' for repeat_logprob")
    j = _check_j(fw, j)
    return _repeat_logprob(fw, _Rows(fw), j, _check_intervals(fw, i, "i"), fw.n + 1)


def _repeat_logprob(
    fw: JointExpForward, rows: _Rows, j: int, i: np.ndarray, limit: int
) -> np.ndarray:
    """As :func:`repeat_logprob`, the rows read through ``rows`` (first ``limit`` entries)."""
    i = np.asarray(i)
    if j == 1:
        return np.full(i.shape, -np.inf)
    below = rows(j - 1, limit)[i]
    rep = fw.log_len[i] - fw.scale * fw.targets[j - 1] - _LOG2 + below
    with np.errstate(invalid="ignore"):
        out = rep - rows(j, limit)[i]
    return np.where(np.isfinite(rep), np.minimum(out, 0.0), -np.inf)


def _normalise(logw: np.ndarray) -> np.ndarray:
    top = np.max(logw)
    if top == -math.inf:
        return np.zeros(logw.shape)
    p = np.exp(logw - top)
    return p / p.sum()


def path_log_probability(fw: JointExpForward, path: tuple[int, ...]) -> float:
    """log P(interval sequence i_1 <= ... <= i_m) under the sampler's law (for ``rejection``:
    the proposal's law, before acceptance), from the same conditionals the sampler uses."""
    fw = _check_fw(fw)
    m = fw.m
    arr = _check_intervals(fw, path, "path")
    if arr.shape != (m,) or np.any(np.diff(arr) < 0):
        raise ParameterError("path", "must be a non-decreasing sequence of m interval indices")
    path = tuple(int(v) for v in arr)
    logp = 0.0
    rows = _Rows(fw)
    if fw.method == "exact":
        j, i_up, first = m, fw.n, True
        while j >= 1:
            i = path[j - 1]
            k = 1
            while k < j and path[j - k - 1] == i:
                k += 1
            pi = _normalise(_interval_logweights(fw, rows, j, i_up, first))[i]
            pk = _normalise(_block_logweights(fw, j, i))[k - 1] if pi > 0 else 0.0
            if pk == 0:
                return -math.inf
            logp += math.log(pi) + math.log(pk)
            j, i_up, first = j - k, i, False
        return logp
    i_up, forced = fw.n, False
    for j in range(m, 0, -1):
        i = path[j - 1]
        if not forced:
            pi = _normalise(_interval_logweights(fw, rows, j, i_up, j == m))[i]
            if pi == 0:
                return -math.inf
            logp += math.log(pi)
        rep = float(_repeat_logprob(fw, rows, j, np.array([i]), fw.n + 1)[0])
        forced = j > 1 and path[j - 2] == i
        logp += rep if forced else math.log1p(-math.exp(rep)) if rep < 0 else -math.inf
        i_up = i
    return logp


def acceptance_log_probability(path: Any) -> np.ndarray:
    """log Π_blocks 2^{k−1}/k! for rows of interval sequences (the rejection step)."""
    p = np.atleast_2d(check_int_array(path, "path"))
    if p.ndim != 2:
        raise ParameterError("path", "must be one interval sequence or a 2-D array of them")
    run = np.zeros(p.shape[0])
    out = np.zeros(p.shape[0])
    for col in range(1, p.shape[1]):
        same = p[:, col] == p[:, col - 1]
        run = np.where(same, run + 1, 0)
        out += np.where(same, _LOG2 - np.log(run + 1), 0.0)
    return out


# --------------------------------------------------------------------------------------------
# sampler
# --------------------------------------------------------------------------------------------


def _draw_intervals(  # noqa: PLR0913
    fw: JointExpForward,
    row: np.ndarray,
    j: int,
    i_up: np.ndarray,
    first: bool,
    rng: np.random.Generator,
) -> np.ndarray:
    """One draw of i per sample from :func:`interval_logweights` (its entries i < i_up, or
    <= i_up when ``first``; the others are −inf), grouped by i_up; ``row`` = A_j (at least
    its first max(i_up) + 1 entries)."""
    out = np.empty(i_up.size, dtype=np.int64)
    values, inverse = np.unique(i_up, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    edges = np.searchsorted(inverse[order], np.arange(values.size + 1))
    u = rng.random(i_up.size)
    for g, up in enumerate(values):
        members = order[edges[g] : edges[g + 1]]
        lim = int(up) + 1 if first else int(up)
        if lim == 0:  # no interval below (reached only through rounding of a repeat)
            out[members] = 0
            continue
        out[members] = _inverse_cdf(_head_logweights(fw, row, j, int(up), lim), u[members])
    return out


def _inverse_cdf(logw: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Indices drawn from the weights exp(logw) by inverse CDF at the uniforms u (the CDF in
    index order): the first index whose cumulative weight exceeds u·total. Only the entries
    whose weight does not underflow to 0 against the largest are formed, which gives the same
    cumulative sums bit for bit as the whole array (0 adds nothing)."""
    d = logw - np.max(logw)
    live = np.flatnonzero(d > _UNDERFLOW)
    if live.size == 0:
        return np.zeros(u.size, dtype=np.int64)
    p = np.zeros(d.size)
    p[live] = np.exp(d[live])
    cdf = np.cumsum(p[live] / p.sum())
    pick = np.searchsorted(cdf, u * cdf[-1], side="right")
    return live[np.minimum(pick, live.size - 1)]


def _draw_blocks(
    fw: JointExpForward, j: int, i: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """``exact``: block sizes k ∈ 1..j from :func:`block_logweights`, vectorised over samples."""
    k = np.arange(1, j + 1)
    s = j - k + 1  # block starts
    cum_phi0 = np.concatenate([[0.0], np.cumsum(-fw.scale * fw.targets[: fw.m])])
    log_fact = np.array([math.lgamma(v + 1) for v in k])
    lp = fw.log_len[i][:, None]
    with np.errstate(invalid="ignore"):
        rep_len = np.where(k[None, :] > 1, (k[None, :] - 1) * lp, 0.0)
    logw = fw.new[s - 1][:, i].T + rep_len + (cum_phi0[j] - cum_phi0[s])[None, :] - log_fact
    top = logw.max(axis=1, keepdims=True)
    cdf = np.cumsum(np.exp(logw - top), axis=1)
    u = rng.random(i.size) * cdf[:, -1]
    return np.minimum((cdf <= u[:, None]).sum(axis=1), j - 1) + 1


def _check_sampling(fw: Any, size: Any, rng: Any) -> tuple[JointExpForward, int, Any]:
    fw = _check_fw(fw)
    size, rng = check_size(size), check_rng(rng)
    limit = sampling_limit(fw.m, fw.n)
    if size > limit:
        raise ParameterError("size", f"must be at most {limit} for JointExp on this data", size)
    return fw, size, rng


def sampling_limit(m: int, n: int) -> int:
    """Draws per call: the grouped backward pass costs about m·(n + 1) per distinct
    conditioning interval (at most n + 1 of them), plus m per draw; and m·size <= 2·10^7."""
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=0)
    cells = m * (n + 1)
    by_cost = MAX_DRAWS if cells * (n + 1) <= DRAW_BUDGET else max(1, DRAW_BUDGET // cells)
    return int(max(1, min(by_cost, MAX_DRAWS, 2 * 10**7 // m)))


def sample_intervals(fw: JointExpForward, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` interval sequences (size, m) from the stored forward pass (for ``rejection``: from
    the proposal, before acceptance)."""
    fw, size, rng = _check_sampling(fw, size, rng)
    return _sample_intervals(fw, size, rng)


def _sample_intervals(fw: JointExpForward, size: int, rng: np.random.Generator) -> np.ndarray:
    m = fw.m
    paths = np.empty((size, m), dtype=np.int64)
    if size == 0:
        return paths
    i_up = np.full(size, fw.n, dtype=np.int64)
    source = _Rows(fw)
    if fw.method == "exact":
        cur = np.full(size, m)
        for j in range(m, 0, -1):
            act = np.flatnonzero(cur == j)
            if act.size == 0:
                continue
            i = _draw_intervals(fw, source(j, fw.n + 1), j, i_up[act], j == m, rng)
            k = _draw_blocks(fw, j, i, rng)
            for kk in np.unique(k):
                rows = act[k == kk]
                paths[rows, j - kk : j] = i[k == kk][:, None]
            cur[act] = j - k
            i_up[act] = i
        return paths
    forced = np.zeros(size, dtype=bool)
    current = np.empty(size, dtype=np.int64)
    for j in range(m, 0, -1):
        limit = int(i_up.max()) + 1  # rows are needed at i <= i_up only (non-increasing)
        free = np.flatnonzero(~forced)
        current[free] = _draw_intervals(fw, source(j, limit), j, i_up[free], j == m, rng)
        paths[:, j - 1] = current
        forced = np.log(rng.random(size)) < _repeat_logprob(fw, source, j, current, limit)
        i_up = current.copy()
    return paths


def intervals_to_outputs(
    fw: JointExpForward, paths: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Uniform points in the chosen intervals, sorted per row (a block's points are sorted iid
    uniforms on its interval)."""
    fw = _check_fw(fw)
    paths = _check_intervals(fw, paths, "paths")
    if paths.ndim != 2 or paths.shape[1] != fw.m or np.any(np.diff(paths, axis=1) < 0):
        raise ParameterError("paths", f"must be rows of m = {fw.m} non-decreasing interval indices")
    if paths.shape[0] > MAX_DRAWS:
        raise ParameterError("paths", f"must have at most {MAX_DRAWS} rows")
    return _intervals_to_outputs(fw, paths, check_rng(rng))


def _intervals_to_outputs(
    fw: JointExpForward, paths: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    left = fw.breaks[paths]
    right = fw.breaks[paths + 1]
    return np.sort(left + (right - left) * rng.random(paths.shape), axis=1)


def sample_joint_exp(fw: JointExpForward, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` JointExp releases (size, m) from a forward pass (rejection step included)."""
    fw, size, rng = _check_sampling(fw, size, rng)
    return _sample_joint_exp(fw, size, rng)


def _sample_joint_exp(fw: JointExpForward, size: int, rng: np.random.Generator) -> np.ndarray:
    if fw.method == "exact" or size == 0:
        return _intervals_to_outputs(fw, _sample_intervals(fw, size, rng), rng)
    kept: list[np.ndarray] = []
    have, proposed, rate = 0, 0, 1.0
    while have < size:
        batch = int(min(math.ceil(1.1 * (size - have) / rate), 1 << 20))
        paths = _sample_intervals(fw, batch, rng)
        ok = np.log(rng.random(batch)) < acceptance_log_probability(paths)
        kept.append(paths[ok])
        have += int(ok.sum())
        proposed += batch
        rate = max(have / proposed, 1e-6)
        if proposed > _MAX_PROPOSALS_PER_DRAW * max(size, 1) and have < size:
            raise ValueError(
                f"JointExp rejection step accepts only {have}/{proposed} proposals on this data: "
                "use method='exact'"
            )
    return _intervals_to_outputs(fw, np.concatenate(kept)[:size], rng)
