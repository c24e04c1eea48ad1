"""The forward pass of JointExp (Gillenwater, Joseph & Kulesza, "Differentially Private Quantiles",
ICML 2021, arXiv 2102.08244; the mechanism is :mod:`dpquant.reference.slice_quantiles.joint_exp_mechanism`).

Definitions (as in the paper and its reference code, google-research ``dp_multiq/joint_exp.py``):

* data clamped to the bounds (a, b) and sorted; breakpoints s_0 = a, s_1..s_n = data, s_{n+1} = b;
  interval i = [s_i, s_{i+1}] (i = 0..n) of length L_i >= 0 holds i data points to its left;
* quantiles 0 < q_1 < ... < q_m < 1, q_0 = 0, q_{m+1} = 1; target gaps t_j = (q_j − q_{j−1})·n
  (real, not rounded), j = 1..m+1;
* outputs a <= o_1 <= ... <= o_m <= b, o_0 = a, o_{m+1} = b; utility
  u(o) = −Σ_{j=1}^{m+1} | #{x : o_{j−1} < x <= o_j} − t_j |;
* sensitivity Δ = 2 under replace-one ("swap"); under add/remove one count moves by 1 and every
  t_j by q_j − q_{j−1}, so Δ = 2·(1 − min_j (q_j − q_{j−1})) over j = 1..m+1;
* density ∝ exp(ε·u(o)/(2Δ)) on the ordered simplex. With o_j in interval i_j
  (i_1 <= ... <= i_m, i_0 = 0, i_{m+1} = n) the count between o_{j−1} and o_j is i_j − i_{j−1},
  so an interval sequence has weight Π_{j=1}^{m+1} φ_j(i_j − i_{j−1}) · Π_blocks L_i^k / k!, with
  φ_j(d) = exp(−c·|d − t_j|), c = ε/(2Δ), and k the number of outputs sharing interval i (the
  volume of k sorted points in an interval of length L is L^k/k!); given the sequence, the outputs
  of a block are sorted iid uniforms on their interval.

Exact computation (no FFT): a forward pass in log space over interval i and quantile j.
β_j(i) (o_j starts a new block in interval i) = log L_i + LSE_{i' < i}[A_{j−1}(i') + log φ_j(i − i')],
whose kernel depends on i − i' only and is monotone on either side of its kink at t_j: the far side
(i − i' > t_j) is an exponentially decayed prefix sum and the near side a decayed sliding window
(:func:`decayed_prefix_lse`, :func:`decayed_window_lse`, both computed block-wise with cumulative
log-sum-exp, so only positive terms are ever added: no cancellation). A_j(i) adds the blocks that
continue in interval i:

* ``method="exact"``: A_j(i) = LSE_{k=1..j} β_{j−k+1}(i) + (k−1)·log L_i
  + Σ_{j'=j−k+2..j} log φ_{j'}(0) − log k!  — O(P·m²) for P intervals of positive length;
* ``method="rejection"``: the proposal charges every repeat the factor 1/2 instead of 1/k
  (A_j = β_j ⊕ log L + log φ_j(0) − log 2 + A_{j−1}, O(n·m)); a proposed sequence is accepted
  with probability Π_blocks 2^{k−1}/k! (exact: blocks of <= 2 outputs are accepted surely),
  so accepted draws follow the JointExp law exactly;
* ``method="auto"``: exact when P·m(m−1)/2 <= 2·10^7, otherwise rejection.

Sampling goes backwards (o_m first) from the stored forward arrays, vectorised over samples
(:mod:`dpquant.reference.slice_quantiles.joint_exp_sampler`). The kernel sums of the pass are computed by
:mod:`dpquant.reference.slice_quantiles.joint_exp_kernel` (the same sums in linear space per sub-block,
vectorised; tied to the functions below, the readable reference, to 1e-12 by a test).

Cost: time three kernel scans and one combination over n+1 entries per quantile, about 20–40 ns
an entry, bound by memory bandwidth (one release, forward pass and sampling: about 0.05 s at
n = 10^4, m = 20; 7–8 s at n = 586,104, m = 200 on a shared 2-core machine, against 30–40 s
with the reference sums). Memory: the exact method keeps m·(n+1) doubles twice; the rejection
method keeps every row A_j when m·(n+1) <= :data:`FULL_ROWS_CELLS`, else only A_1, A_{1+k},
A_{1+2k}, ... (k = ⌈√m⌉), and the backward pass recomputes the k − 1 rows above a kept one block
by block, up to the largest interval still reachable (:func:`recompute_rows`: the same rows bit
for bit, so the same draws), about 2·√m·(n+1) doubles in all (a process releasing at
n = 586,104, m = 200 peaks at ≈ 0.38 GB, interpreter and data included, against ≈ 1.06 GB).
Precision: inside a block of the decayed sums the local offsets c·r stay below 600 (prefix; 300
in the fast sums) or c·⌊t_j⌋ (window), so log-weights carry absolute errors of about
(|log-weight| + c·⌊t_j⌋)·1e-16. The reference code's m × (n+1) × m array and FFT products
(small values clipped to 0, hence log-weight −inf) are not used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles.inputs import check_quantiles, check_sorted_inside
from dpquant.reference.slice_quantiles.joint_exp_kernel import (
    kernel_terms,
    lse_combine,
    rejection_row,
)
from dpquant.reference.validation import (
    check_choice,
    check_domain,
    check_finite,
    check_int,
)

METHODS: tuple[str, ...] = ("auto", "exact", "rejection")
EXACT_BUDGET = 20_000_000  # P·m(m−1)/2 cells of the exact block sum before "auto" switches
MAX_CELLS = 300_000_000
"""Most m·(n + 1) entries of one forward pass (about 6 s a 10^8; 2.4 GB of float64 if every
row were kept; the Fig. 1 reproduction's largest, n = 21 × 48,842 and m = 200, has 2.1·10^8)."""
MAX_EXPONENT = 1e8
"""Largest c·(n + 1), c = ε/(2Δ): log-weights carry absolute errors of about c·n·1e-16 (module
docstring), so beyond this the law would no longer be exact to 1e-8."""
FULL_ROWS_CELLS = 20_000_000
"""Most m·(n + 1) entries for which the rejection method keeps every row A_j (160 MB); beyond,
it keeps every k-th row, k = ⌈√m⌉, and the sampler recomputes the rows in between
(:func:`checkpoint_stride`, :func:`recompute_rows`)."""
_LOCAL_RANGE = 600.0  # largest local offset c·r inside one block of the decayed sums
_LOG2 = math.log(2.0)


# --------------------------------------------------------------------------------------------
# targets and checks
# --------------------------------------------------------------------------------------------


def target_gaps(quantiles: np.ndarray, n: int) -> np.ndarray:
    """t_j = (q_j − q_{j−1})·n for j = 1..m+1 (q_0 = 0, q_{m+1} = 1), not rounded."""
    q = check_quantiles(quantiles)
    n = check_int(n, "n", minimum=0, maximum=2**53)
    return _target_gaps(q, n)


def _target_gaps(quantiles: np.ndarray, n: int) -> np.ndarray:
    return np.diff(np.concatenate([[0.0], quantiles, [1.0]])) * n


def _check_log_vector(v: Any, name: str) -> np.ndarray:
    """A 1-D float array of log-weights: reals or −inf (no NaN, no +inf)."""
    if isinstance(v, np.ndarray) and v.dtype.kind in "iuf" and v.ndim == 1:
        arr = v.astype(float)
    else:
        raise ParameterError(
            name,
            "must be a 1-D numpy array of log-weights (floats, -inf allowed)",
        )
    if np.isnan(arr).any() or (arr == np.inf).any():
        raise ParameterError(name, "must hold real numbers or -inf (no NaN, no +inf)")
    return arr


def _check_decay(c: Any, span: int = 1, name: str = "c") -> float:
    """The decay c >= 0; c·span (the largest offset formed) must stay a finite float."""
    c = check_finite(c, name)
    if c < 0:
        raise ParameterError(name, "must be a finite number >= 0", repr(c))
    if not math.isfinite(2.0 * c * max(span, 1)):
        raise ParameterError(name, f"is too large: {name}·{span} overflows a float64", repr(c))
    return c


# --------------------------------------------------------------------------------------------
# the kernel sums (log space, positive terms only)
# --------------------------------------------------------------------------------------------


def _block_size(c: float, length: int) -> int:
    if c <= 0:
        return max(1, length)
    return int(max(1, min(length, _LOCAL_RANGE // c)))


def _lse_scalar(x: float, y: float) -> float:
    top = max(x, y)
    if top == -math.inf:
        return top
    return top + math.log1p(math.exp(-abs(x - y)))


def decayed_prefix_lse(v: np.ndarray, c: float) -> np.ndarray:
    """P(p) = LSE_{i <= p} [v(i) − c·(p − i)] for every p, c >= 0.

    Blocks of K <= 600/c entries: inside a block a cumulative log-sum-exp of v(i) + c·r
    (local offsets r < K, so c·r <= 600 and no precision is lost to large offsets), then the
    carry from earlier blocks, decayed by c per step, added by a scalar recursion over blocks.
    """
    return _decayed_prefix_lse(_check_log_vector(v, "v"), _check_decay(c))


def _decayed_prefix_lse(v: np.ndarray, c: float) -> np.ndarray:
    n = v.size
    if n == 0:
        return v.copy()
    k = _block_size(c, n)
    nb = -(-n // k)
    pad = np.full(nb * k, -np.inf)
    pad[:n] = v
    blocks = pad.reshape(nb, k)
    r = np.arange(k) * c
    within = np.logaddexp.accumulate(blocks + r, axis=1) - r
    ends = within[:, -1]
    carry = np.empty(nb)
    acc = -math.inf
    step = c * k
    for b in range(nb):
        carry[b] = acc
        acc = _lse_scalar(acc - step, float(ends[b]))
    out = np.logaddexp(within, carry[:, None] - (r + c)[None, :])
    return out.ravel()[:n]


def decayed_window_lse(v: np.ndarray, c: float, width: int) -> np.ndarray:
    """H(p) = LSE_{i = p}^{p + width − 1} [v(i) − c·(i − p)] for every p (v = −inf beyond its end).

    Van Herk / Gil-Werman: blocks of length ``width``; a window is a decayed suffix of one block
    plus a decayed prefix of the next, so only sums of positive terms are formed.
    """
    v = _check_log_vector(v, "v")
    width = check_int(width, "width", minimum=1)
    return _decayed_window_lse(v, _check_decay(c, min(width, v.size) + 1), width)


def _decayed_window_lse(v: np.ndarray, c: float, width: int) -> np.ndarray:
    n = v.size
    width = max(1, min(width, n))  # a window longer than v sums the same entries
    nb = -(-n // width) + 1
    pad = np.full(nb * width, -np.inf)
    pad[:n] = v
    blocks = pad.reshape(nb, width)
    r = np.arange(width) * c
    suffix = np.logaddexp.accumulate((blocks - r)[:, ::-1], axis=1)[:, ::-1] + r
    prefix = np.logaddexp.accumulate(blocks - r, axis=1)
    suffix, prefix = suffix.ravel(), prefix.ravel()
    p = np.arange(n)
    rem = p % width
    nxt = np.minimum(p + width - 1, nb * width - 1)
    tail = np.where(rem == 0, -np.inf, prefix[nxt] - c * (width - rem))
    return np.logaddexp(suffix[:n], tail)


def kernel_convolution(a: np.ndarray, t: float, c: float) -> np.ndarray:
    """C(i) = LSE_{i' < i} [a(i') − c·|i − i' − t|] for i = 0..len(a) − 1 (C(0) = −inf).

    With d = i − i' >= 1 and D = ⌊t⌋: the near side d <= D has weight −c(t − d) (a decayed window
    over i' ∈ [i − D, i − 1]) and the far side d >= D + 1 weight −c(d − t) (a decayed prefix over
    i' <= i − D − 1). A D >= n is replaced by n: every d <= n − 1 is then on the near side
    either way."""
    a = _check_log_vector(a, "a")
    t = check_finite(t, "t")
    if t < 0:
        raise ParameterError("t", "must be a finite number >= 0", repr(t))
    return _kernel_convolution(a, t, _check_decay(c, a.size + 2 + int(min(t, a.size))))


def _kernel_convolution(a: np.ndarray, t: float, c: float) -> np.ndarray:
    n = a.size
    big_d = min(int(math.floor(t)), n) if t >= 1 else 0
    out = np.full(n, -np.inf)
    shift = big_d + 1
    if n > shift:
        far = _decayed_prefix_lse(a[: n - shift], c)
        out[shift:] = far - c * (shift - t)
    if big_d >= 1:
        padded = np.concatenate([np.full(big_d, -np.inf), a])
        near = _decayed_window_lse(padded, c, big_d)[:n] - c * (t - big_d)
        out = np.logaddexp(out, near)
    return out


# --------------------------------------------------------------------------------------------
# the forward pass
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JointExpForward:
    """Stored forward arrays (log space) of one data set.

    ``new[j−1]`` = β_j (``exact`` only), ``total[(j−1)/stride]`` = A_j for j = 1, 1 + stride,
    1 + 2·stride, ... <= m (every row when ``stride`` = 1; for ``rejection`` the proposal's A;
    the rows in between come from :func:`recompute_rows`), ``log_z`` = log of the total weight
    (of the proposal for ``rejection``)."""

    breaks: np.ndarray
    log_len: np.ndarray
    targets: np.ndarray
    scale: float
    method: str
    new: np.ndarray
    total: np.ndarray
    log_z: float
    stride: int = 1

    @property
    def n(self) -> int:
        return self.log_len.size - 1

    @property
    def m(self) -> int:
        return self.targets.size - 1

    def log_phi(self, j: int, d: np.ndarray | int) -> np.ndarray:
        """log φ_j(d) = −c·|d − t_j| (j = 1..m+1)."""
        return -self.scale * np.abs(np.asarray(d, dtype=float) - self.targets[j - 1])

    def log_phi0_sum(self, lo: int, hi: int) -> float:
        """Σ_{j'=lo}^{hi} log φ_{j'}(0) (0 for an empty range)."""
        if hi < lo:
            return 0.0
        return float(-self.scale * self.targets[lo - 1 : hi].sum())


def _choose_method(method: str, positive_intervals: int, m: int) -> str:
    """'exact' or 'rejection' (``auto``: exact when P·m(m−1)/2 <= :data:`EXACT_BUDGET`)."""
    method = check_choice(method, "method", METHODS)
    positive_intervals = check_int(positive_intervals, "positive_intervals", minimum=0)
    m = check_int(m, "m", minimum=1)
    if method != "auto":
        return method
    return "exact" if positive_intervals * m * (m - 1) // 2 <= EXACT_BUDGET else "rejection"


def forward(
    x: np.ndarray,
    quantiles: np.ndarray,
    bounds: tuple[float, float],
    scale: float,
    method: str = "auto",
    *,
    stride: int | None = None,
) -> JointExpForward:
    """The forward pass of the module docstring on sorted clamped data ``x`` (refused when
    m·(n + 1) > :data:`MAX_CELLS` or c·(n + 1) > :data:`MAX_EXPONENT`). ``stride``: keep the
    rows A_j of the rejection method for j = 1, 1 + stride, ... only (default
    :func:`checkpoint_stride`; the exact method keeps every row)."""
    bounds = check_domain(bounds, "bounds", finite=True)
    x = check_sorted_inside(x, bounds)
    q = check_quantiles(quantiles)
    scale = _check_decay(scale, name="scale")
    method = check_choice(method, "method", METHODS)
    if stride is not None:
        stride = check_int(stride, "stride", minimum=1)
    check_forward_size(q.size, x.size, scale, "scale")
    return _forward(x, q, bounds, scale, method, stride)


def checkpoint_stride(m: int, n: int) -> int:
    """Rows kept by the rejection method: every one when m·(n + 1) <= :data:`FULL_ROWS_CELLS`,
    else every k-th, k = ⌈√m⌉, so that the kept rows and one recomputed block hold about
    2·√m·(n + 1) entries."""
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=0)
    if m * (n + 1) <= FULL_ROWS_CELLS:
        return 1
    return math.isqrt(m - 1) + 1


def check_forward_size(m: int, n: int, scale: float, scale_name: str = "scale") -> None:
    """Refuse a forward pass with m·(n + 1) > :data:`MAX_CELLS` or c·(n + 1) >
    :data:`MAX_EXPONENT` (c = ``scale``, named ``scale_name`` in the error)."""
    if m * (n + 1) > MAX_CELLS:
        raise ValueError(
            f"JointExp needs m·(n + 1) <= {MAX_CELLS} (memory of the forward pass): got m = {m} "
            f"quantiles and n = {n} data points (fewer quantiles or less data)"
        )
    if scale * (n + 1) > MAX_EXPONENT:
        raise ValueError(
            f"JointExp needs {scale_name}·(n + 1) <= {MAX_EXPONENT:g} so that its log-weights stay "
            f"exact: got {scale_name} = {scale!r} on n = {n} data points (a smaller epsilon)"
        )


def _forward(
    x: np.ndarray,
    quantiles: np.ndarray,
    bounds: tuple[float, float],
    scale: float,
    method: str,
    stride: int | None = None,
) -> JointExpForward:
    a, b = bounds
    n, m = x.size, quantiles.size
    breaks = np.concatenate([[a], x, [b]])
    with np.errstate(divide="ignore"):
        log_len = np.log(np.diff(breaks))
    t = _target_gaps(quantiles, n)
    pos = np.flatnonzero(np.isfinite(log_len))
    method = _choose_method(method, pos.size, m)
    if method == "exact" and pos.size * m * (m - 1) // 2 > 10 * EXACT_BUDGET:
        raise ValueError(
            f"method='exact' needs P·m(m − 1)/2 <= {10 * EXACT_BUDGET} block-sum cells, got "
            f"P = {pos.size} intervals and m = {m} quantiles: use method 'auto' or 'rejection'"
        )
    idx = np.arange(n + 1)
    first = log_len - scale * np.abs(idx - t[0])
    if method == "exact":
        new, total = _exact_rows(first, log_len, pos, t, scale, m)
        last_row, stride = total[m - 1], 1
    else:
        stride = checkpoint_stride(m, n) if stride is None else stride
        new = first[None, :]
        total = np.empty((-(-m // stride), n + 1))
        total[0] = last_row = first
        for j in range(2, m + 1):
            last_row = rejection_row(last_row, log_len, t[j - 1], scale, n + 1)
            if (j - 1) % stride == 0:
                total[(j - 1) // stride] = last_row
    last = last_row - scale * np.abs(n - idx - t[m])
    top = last.max()
    log_z = float(top + np.log(np.exp(last - top).sum()))
    return JointExpForward(breaks, log_len, t, scale, method, new, total, log_z, stride)


def _exact_rows(
    first: np.ndarray, log_len: np.ndarray, pos: np.ndarray, t: np.ndarray, scale: float, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """β_j and A_j (j = 1..m) of the exact method: A_j(i) = LSE_k β_{j−k+1}(i) + (k−1)·log L_i
    + Σ log φ_{j'}(0) − log k! over block sizes k (module docstring)."""
    size = log_len.size
    new = np.empty((m, size))
    total = np.empty((m, size))
    new[0] = total[0] = first
    log_fact = np.cumsum(np.log(np.arange(1, m + 1)))  # log k! at index k − 1
    cum_phi0 = np.concatenate([[0.0], np.cumsum(-scale * t[:m])])  # Σ_{j'<=j} log φ_{j'}(0)
    lp = log_len[pos]
    for j in range(2, m + 1):
        parts, offsets, shifts = kernel_terms(total[j - 2], t[j - 1], scale)
        new[j - 1] = lse_combine(parts, shifts, log_len, offsets, size)
        acc = new[j - 1, pos]
        for k in range(2, j + 1):
            s = j - k + 1
            term = new[s - 1, pos] + (k - 1) * lp + (cum_phi0[j] - cum_phi0[s])
            acc = np.logaddexp(acc, term - log_fact[k - 1])
        row = np.full(size, -np.inf)
        row[pos] = acc
        total[j - 1] = row
    return new, total


def recompute_rows(fw: JointExpForward, lo: int, hi: int, limit: int) -> np.ndarray:
    """``rejection``: the first ``limit`` entries of A_j for j = lo + 1..hi, from the kept row
    A_lo (lo = 1 + k·stride); bit for bit those of the forward pass (the kernel sums of
    :mod:`~dpquant.reference.slice_quantiles.joint_exp_kernel` on truncated rows equal those on whole
    rows, and A_j(i) depends on A_{j−1}(i') for i' <= i only)."""
    if not isinstance(fw, JointExpForward) or fw.method != "rejection":
        raise ParameterError("fw", "must be a JointExpForward of method 'rejection'")
    lo = check_int(lo, "lo", minimum=1, maximum=fw.m)
    if (lo - 1) % fw.stride:
        raise ParameterError("lo", f"must be a kept row 1 + k·{fw.stride}", lo)
    hi = check_int(hi, "hi", minimum=lo, maximum=fw.m)
    n = fw.n
    limit = check_int(limit, "limit", minimum=1, maximum=n + 1)
    out = np.empty((hi - lo, limit))
    prev = fw.total[(lo - 1) // fw.stride, :limit]
    log_len = fw.log_len[:limit]
    for j in range(lo + 1, hi + 1):
        prev = out[j - lo - 1] = rejection_row(prev, log_len, fw.targets[j - 1], fw.scale, n + 1)
    return out
