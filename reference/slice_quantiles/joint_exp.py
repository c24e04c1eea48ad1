"""JointExp of Gillenwater, Joseph & Kulesza, "Differentially Private Quantiles", ICML 2021
(arXiv 2102.08244): one exponential mechanism over all m outputs at once.

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

Sampling goes backwards (o_m first) from the stored forward arrays, vectorised over samples.
Input values outside the bounds are clamped (documented), so ``domain`` is (−inf, inf).

Cost: memory m·(n+1) doubles (twice that for ``exact``); time three cumulative log-sum-exp passes
over n+1 entries per quantile (one release: about 0.1 s at n = 10^4, m = 20; 40–60 s at
n = 586,104, m = 200 on one core). Precision: inside a block of the decayed sums the local offsets
c·r stay below 600 (prefix) or c·⌊t_j⌋ (window), so log-weights carry absolute errors of about
(|log-weight| + c·⌊t_j⌋)·1e-16. The reference code's m × (n+1) × m array and FFT products (small
values clipped to 0, hence log-weight −inf) are not used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference.core import MechanismBase
from reference.slice_quantiles.approximate_quantiles import (
    _check_sorted_inside,
    _clamp_sort,
    check_adjacency_central,
    check_quantiles,
)
from reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_domain,
    check_epsilon,
    check_finite,
    check_flag,
    check_int,
    check_positive,
    check_rng,
    check_size,
)

METHODS: tuple[str, ...] = ("auto", "exact", "rejection")
EXACT_BUDGET = 20_000_000  # P·m(m−1)/2 cells of the exact block sum before "auto" switches
MAX_CELLS = 300_000_000
"""Most m·(n + 1) entries of one forward pass (2.4 GB of float64; the Fig. 1 reproduction's
largest, n = 21 × 48,842 and m = 200, has 2.1·10^8)."""
MAX_EXPONENT = 1e8
"""Largest c·(n + 1), c = ε/(2Δ): log-weights carry absolute errors of about c·n·1e-16 (module
docstring), so beyond this the law would no longer be exact to 1e-8."""
DRAW_BUDGET = 2 * 10**8
"""Most (distinct conditioning intervals × m × (n + 1)) of one sampling call (about 10 s)."""
_LOCAL_RANGE = 600.0  # largest local offset c·r inside one block of the decayed sums
_LOG2 = math.log(2.0)
_MAX_PROPOSALS_PER_DRAW = 10_000


# --------------------------------------------------------------------------------------------
# parameters
# --------------------------------------------------------------------------------------------


def joint_exp_sensitivity(quantiles: Any, adjacency: str) -> float:
    """Δ of u: 2 (replace-one) or 2·(1 − min_j (q_j − q_{j−1})), j = 1..m+1 (add/remove)."""
    q = check_quantiles(quantiles)
    adjacency = check_adjacency_central(adjacency)
    if adjacency == "replace_one":
        return 2.0
    gaps = np.diff(np.concatenate([[0.0], q, [1.0]]))
    return 2.0 * (1.0 - float(gaps.min()))


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
        raise ValueError(f"{name} must be a 1-D numpy array of log-weights (floats, -inf allowed)")
    if np.isnan(arr).any() or (arr == np.inf).any():
        raise ValueError(f"{name} must hold real numbers or -inf (no NaN, no +inf)")
    return arr


def _check_decay(c: Any, span: int = 1, name: str = "c") -> float:
    """The decay c >= 0; c·span (the largest offset formed) must stay a finite float."""
    c = check_finite(c, name)
    if c < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {c!r}")
    if not math.isfinite(2.0 * c * max(span, 1)):
        raise ValueError(f"{name} is too large: {name}·{span} overflows a float64, got {c!r}")
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
        raise ValueError(f"t must be a finite number >= 0, got {t!r}")
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
# forward pass
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JointExpForward:
    """Stored forward arrays (log space) of one data set.

    ``new[j−1]`` = β_j (``exact`` only), ``total[j−1]`` = A_j (j = 1..m; for ``rejection`` the
    proposal's A),
    ``log_phi0[j−1]`` = log φ_j(0) = −c·t_j, ``log_z`` = log of the total weight (of the proposal
    for ``rejection``)."""

    breaks: np.ndarray
    log_len: np.ndarray
    targets: np.ndarray
    scale: float
    method: str
    new: np.ndarray
    total: np.ndarray
    log_z: float

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


def choose_method(method: str, positive_intervals: int, m: int) -> str:
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
) -> JointExpForward:
    """The forward pass of the module docstring on sorted clamped data ``x`` (refused when
    m·(n + 1) > :data:`MAX_CELLS` or c·(n + 1) > :data:`MAX_EXPONENT`)."""
    bounds = check_domain(bounds, "bounds", finite=True)
    x = _check_sorted_inside(x, bounds)
    q = check_quantiles(quantiles)
    scale = _check_decay(scale, name="scale")
    method = check_choice(method, "method", METHODS)
    _check_forward_size(q.size, x.size, scale, "scale")
    return _forward(x, q, bounds, scale, method)


def _check_forward_size(m: int, n: int, scale: float, scale_name: str) -> None:
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
) -> JointExpForward:
    a, b = bounds
    n, m = x.size, quantiles.size
    breaks = np.concatenate([[a], x, [b]])
    with np.errstate(divide="ignore"):
        log_len = np.log(np.diff(breaks))
    t = _target_gaps(quantiles, n)
    pos = np.flatnonzero(np.isfinite(log_len))
    method = choose_method(method, pos.size, m)
    if method == "exact" and pos.size * m * (m - 1) // 2 > 10 * EXACT_BUDGET:
        raise ValueError(
            f"method='exact' needs P·m(m − 1)/2 <= {10 * EXACT_BUDGET} block-sum cells, got "
            f"P = {pos.size} intervals and m = {m} quantiles: use method 'auto' or 'rejection'"
        )
    idx = np.arange(n + 1)
    exact = method == "exact"
    new = np.empty((m if exact else 1, n + 1))  # β_j is only kept for the exact block sums
    total = np.empty((m, n + 1))
    new[0] = log_len - scale * np.abs(idx - t[0])
    total[0] = new[0]
    log_fact = np.cumsum(np.log(np.arange(1, m + 1)))  # log k! at index k − 1
    cum_phi0 = np.concatenate([[0.0], np.cumsum(-scale * t[:m])])  # Σ_{j'<=j} log φ_{j'}(0)
    for j in range(2, m + 1):
        new_j = log_len + _kernel_convolution(total[j - 2], t[j - 1], scale)
        if exact:
            new[j - 1] = new_j
            acc = new_j[pos]
            lp = log_len[pos]
            for k in range(2, j + 1):
                s = j - k + 1
                term = new[s - 1, pos] + (k - 1) * lp + (cum_phi0[j] - cum_phi0[s])
                acc = np.logaddexp(acc, term - log_fact[k - 1])
            row = np.full(n + 1, -np.inf)
            row[pos] = acc
            total[j - 1] = row
        else:
            rep = log_len + (-scale * t[j - 1]) - _LOG2 + total[j - 2]
            total[j - 1] = np.logaddexp(new_j, rep)
    last = total[m - 1] - scale * np.abs(n - idx - t[m])
    top = last.max()
    log_z = float(top + np.log(np.exp(last - top).sum()))
    return JointExpForward(breaks, log_len, t, scale, method, new, total, log_z)


# --------------------------------------------------------------------------------------------
# backward conditionals (shared by the sampler and the exact path probabilities)
# --------------------------------------------------------------------------------------------


def _check_fw(fw: Any) -> JointExpForward:
    if not isinstance(fw, JointExpForward):
        raise ValueError(f"fw must be a JointExpForward (forward(...)), got {type(fw).__name__}")
    return fw


def _check_j(fw: JointExpForward, j: Any) -> int:
    return check_int(j, "j", minimum=1, maximum=fw.m)


def _check_intervals(fw: JointExpForward, i: Any, name: str) -> np.ndarray:
    from reference.slice_quantiles.good_set import check_int_array

    arr = check_int_array(i, name)
    if arr.size and (arr.min() < 0 or arr.max() > fw.n):
        raise ValueError(f"{name} must hold interval indices in [0, n] = [0, {fw.n}]")
    return arr


def interval_logweights(fw: JointExpForward, j: int, i_up: int, first: bool) -> np.ndarray:
    """Unnormalised log P(o_j in interval i | o_{j+1} starts a block in interval i_up):
    A_j(i) + log φ_{j+1}(i_up − i) over i <= i_up (``first``: j = m, i_up = n, where
    o_{m+1} = b is no output) or i < i_up (otherwise)."""
    fw = _check_fw(fw)
    j = _check_j(fw, j)
    i_up = check_int(i_up, "i_up", minimum=0, maximum=fw.n)
    first = check_flag(first, "first")
    return _interval_logweights(fw, j, i_up, first)


def _interval_logweights(fw: JointExpForward, j: int, i_up: int, first: bool) -> np.ndarray:
    lim = i_up + 1 if first else i_up
    w = np.full(fw.n + 1, -np.inf)
    i = np.arange(lim)
    w[:lim] = fw.total[j - 1, :lim] + fw.log_phi(j + 1, i_up - i)
    return w


def block_logweights(fw: JointExpForward, j: int, i: int) -> np.ndarray:
    """``exact``: unnormalised log P(block size k | o_j ends a block in interval i), k = 1..j:
    β_{j−k+1}(i) + (k−1)·log L_i + Σ_{j'=j−k+2..j} log φ_{j'}(0) − log k!."""
    fw = _check_fw(fw)
    if fw.method != "exact":
        raise ValueError("fw must come from method 'exact' for block_logweights")
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
        raise ValueError("fw must come from method 'rejection' for repeat_logprob")
    return _repeat_logprob(fw, _check_j(fw, j), _check_intervals(fw, i, "i"))


def _repeat_logprob(fw: JointExpForward, j: int, i: np.ndarray) -> np.ndarray:
    i = np.asarray(i)
    if j == 1:
        return np.full(i.shape, -np.inf)
    rep = fw.log_len[i] - fw.scale * fw.targets[j - 1] - _LOG2 + fw.total[j - 2, i]
    with np.errstate(invalid="ignore"):
        out = rep - fw.total[j - 1, i]
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
        raise ValueError("path must be a non-decreasing sequence of m interval indices")
    path = tuple(int(v) for v in arr)
    logp = 0.0
    if fw.method == "exact":
        j, i_up, first = m, fw.n, True
        while j >= 1:
            i = path[j - 1]
            k = 1
            while k < j and path[j - k - 1] == i:
                k += 1
            pi = _normalise(_interval_logweights(fw, j, i_up, first))[i]
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
            pi = _normalise(_interval_logweights(fw, j, i_up, j == m))[i]
            if pi == 0:
                return -math.inf
            logp += math.log(pi)
        rep = float(_repeat_logprob(fw, j, np.array([i]))[0])
        forced = j > 1 and path[j - 2] == i
        logp += rep if forced else math.log1p(-math.exp(rep)) if rep < 0 else -math.inf
        i_up = i
    return logp


def acceptance_log_probability(path: Any) -> np.ndarray:
    """log Π_blocks 2^{k−1}/k! for rows of interval sequences (the rejection step)."""
    from reference.slice_quantiles.good_set import check_int_array

    p = np.atleast_2d(check_int_array(path, "path"))
    if p.ndim != 2:
        raise ValueError("path must be one interval sequence or a 2-D array of them")
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


def _draw_intervals(
    fw: JointExpForward, j: int, i_up: np.ndarray, first: bool, rng: np.random.Generator
) -> np.ndarray:
    """One draw of i per sample from :func:`interval_logweights`, grouped by i_up."""
    out = np.empty(i_up.size, dtype=np.int64)
    values, inverse = np.unique(i_up, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    edges = np.searchsorted(inverse[order], np.arange(values.size + 1))
    u = rng.random(i_up.size)
    for g, up in enumerate(values):
        members = order[edges[g] : edges[g + 1]]
        cdf = np.cumsum(_normalise(_interval_logweights(fw, j, int(up), first)))
        out[members] = np.minimum(np.searchsorted(cdf, u[members] * cdf[-1], side="right"), fw.n)
    return out


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
    limit = _sampling_limit(fw.m, fw.n)
    if size > limit:
        raise ValueError(f"size must be at most {limit} for JointExp on this data, got {size}")
    return fw, size, rng


def _sampling_limit(m: int, n: int) -> int:
    """Draws per call: the grouped backward pass costs about m·(n + 1) per distinct
    conditioning interval (at most n + 1 of them), plus m per draw; and m·size <= 2·10^7."""
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
    if fw.method == "exact":
        cur = np.full(size, m)
        for j in range(m, 0, -1):
            act = np.flatnonzero(cur == j)
            if act.size == 0:
                continue
            i = _draw_intervals(fw, j, i_up[act], j == m, rng)
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
        free = np.flatnonzero(~forced)
        current[free] = _draw_intervals(fw, j, i_up[free], j == m, rng)
        paths[:, j - 1] = current
        forced = np.log(rng.random(size)) < _repeat_logprob(fw, j, current)
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
        raise ValueError(f"paths must be rows of m = {fw.m} non-decreasing interval indices")
    if paths.shape[0] > MAX_DRAWS:
        raise ValueError(f"paths must have at most {MAX_DRAWS} rows")
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


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def joint_exp(
    data: Any,
    quantiles: Any,
    bounds: tuple[float, float],
    epsilon: float,
    rng: np.random.Generator,
    *,
    adjacency: str = "replace_one",
    method: str = "auto",
) -> np.ndarray:
    """One ε-DP JointExp release: m sorted estimates (module docstring)."""
    return JointExpMechanism(quantiles, epsilon, bounds, adjacency, method=method).sample(
        data, 1, rng
    )[0]


@dataclass(frozen=True)
class JointExpMechanism(MechanismBase):
    """JointExp as a :class:`reference.core.Mechanism`: claim (ε, 0); ``domain`` (−inf, inf)
    since inputs are clamped to ``bounds``. ``sensitivity`` overrides Δ (a value below the true
    one is a deliberately broken variant).

    Refused on data where the forward pass is too large (m·(n + 1) > :data:`MAX_CELLS`) or its
    log-weights would lose precision (c·(n + 1) > :data:`MAX_EXPONENT`, c = ε/(2Δ)); one call
    draws at most :func:`_sampling_limit` releases."""

    quantiles: tuple[float, ...]
    epsilon: float
    bounds: tuple[float, float]
    adjacency: str = "replace_one"
    method: str = "auto"
    sensitivity: float | None = None

    clamps = True  # any finite value is valid input: values outside ``bounds`` are clamped
    allow_empty = True  # the empty data set: uniform on the ordered simplex of (a, b)

    def __post_init__(self) -> None:
        q = check_quantiles(self.quantiles)
        object.__setattr__(self, "quantiles", tuple(q.tolist()))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_domain(self.bounds, "bounds", finite=True))
        check_adjacency_central(self.adjacency)
        check_choice(self.method, "method", METHODS)
        if self.sensitivity is not None:
            object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        if not math.isfinite(self.scale):
            raise ValueError("epsilon/(2·sensitivity) must be a finite float")

    @property
    def delta_u(self) -> float:
        if self.sensitivity is not None:
            return float(self.sensitivity)
        return joint_exp_sensitivity(self.quantiles, self.adjacency)

    @property
    def scale(self) -> float:
        """c = ε/(2Δ)."""
        return self.epsilon / (2.0 * self.delta_u)

    def forward(self, data: Any) -> JointExpForward:
        """The forward pass on ``data`` (clamped, sorted)."""
        return self._forward(self.check_input(data))

    def _forward(self, data: np.ndarray) -> JointExpForward:
        x = _clamp_sort(data, self.bounds)
        _check_forward_size(len(self.quantiles), x.size, self.scale, "epsilon/(2·sensitivity)")
        return _forward(x, np.asarray(self.quantiles), self.bounds, self.scale, self.method)

    def draw_limit(self, data: np.ndarray) -> int:
        return _sampling_limit(len(self.quantiles), data.size)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases, shape (size, m)."""
        out = _sample_joint_exp(self._forward(data), size, rng)
        return np.clip(out, self.bounds[0], self.bounds[1], out=out)
