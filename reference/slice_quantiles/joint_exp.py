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

from reference.core import PrivacyClaim
from reference.slice_quantiles.approximate_quantiles import (
    check_adjacency_central,
    check_quantiles,
    clamp_sorted,
)
from reference.validation import (
    check_domain,
    check_epsilon,
    check_positive,
    check_rng,
    check_size,
)

METHODS: tuple[str, ...] = ("auto", "exact", "rejection")
EXACT_BUDGET = 20_000_000  # P·m(m−1)/2 cells of the exact block sum before "auto" switches
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
    return np.diff(np.concatenate([[0.0], quantiles, [1.0]])) * n


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
    n = v.size
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
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
    i' <= i − D − 1)."""
    n = a.size
    big_d = int(math.floor(t)) if t >= 1 else 0
    out = np.full(n, -np.inf)
    shift = big_d + 1
    if n > shift:
        far = decayed_prefix_lse(a[: n - shift], c)
        out[shift:] = far - c * (shift - t)
    if big_d >= 1:
        padded = np.concatenate([np.full(big_d, -np.inf), a])
        near = decayed_window_lse(padded, c, big_d)[:n] - c * (t - big_d)
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
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
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
    """The forward pass of the module docstring on sorted clamped data ``x``."""
    a, b = bounds
    n, m = x.size, quantiles.size
    breaks = np.concatenate([[a], x, [b]])
    with np.errstate(divide="ignore"):
        log_len = np.log(np.diff(breaks))
    t = target_gaps(quantiles, n)
    pos = np.flatnonzero(np.isfinite(log_len))
    method = choose_method(method, pos.size, m)
    idx = np.arange(n + 1)
    exact = method == "exact"
    new = np.empty((m if exact else 1, n + 1))  # β_j is only kept for the exact block sums
    total = np.empty((m, n + 1))
    new[0] = log_len - scale * np.abs(idx - t[0])
    total[0] = new[0]
    log_fact = np.cumsum(np.log(np.arange(1, m + 1)))  # log k! at index k − 1
    cum_phi0 = np.concatenate([[0.0], np.cumsum(-scale * t[:m])])  # Σ_{j'<=j} log φ_{j'}(0)
    for j in range(2, m + 1):
        new_j = log_len + kernel_convolution(total[j - 2], t[j - 1], scale)
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


def interval_logweights(fw: JointExpForward, j: int, i_up: int, first: bool) -> np.ndarray:
    """Unnormalised log P(o_j in interval i | o_{j+1} starts a block in interval i_up):
    A_j(i) + log φ_{j+1}(i_up − i) over i <= i_up (``first``: j = m, i_up = n, where
    o_{m+1} = b is no output) or i < i_up (otherwise)."""
    lim = i_up + 1 if first else i_up
    w = np.full(fw.n + 1, -np.inf)
    i = np.arange(lim)
    w[:lim] = fw.total[j - 1, :lim] + fw.log_phi(j + 1, i_up - i)
    return w


def block_logweights(fw: JointExpForward, j: int, i: int) -> np.ndarray:
    """``exact``: unnormalised log P(block size k | o_j ends a block in interval i), k = 1..j:
    β_{j−k+1}(i) + (k−1)·log L_i + Σ_{j'=j−k+2..j} log φ_{j'}(0) − log k!."""
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
    m = fw.m
    if len(path) != m or any(path[p] > path[p + 1] for p in range(m - 1)):
        raise ValueError("path must be a non-decreasing sequence of m interval indices")
    logp = 0.0
    if fw.method == "exact":
        j, i_up, first = m, fw.n, True
        while j >= 1:
            i = path[j - 1]
            k = 1
            while k < j and path[j - k - 1] == i:
                k += 1
            pi = _normalise(interval_logweights(fw, j, i_up, first))[i]
            pk = _normalise(block_logweights(fw, j, i))[k - 1] if pi > 0 else 0.0
            if pk == 0:
                return -math.inf
            logp += math.log(pi) + math.log(pk)
            j, i_up, first = j - k, i, False
        return logp
    i_up, forced = fw.n, False
    for j in range(m, 0, -1):
        i = path[j - 1]
        if not forced:
            pi = _normalise(interval_logweights(fw, j, i_up, j == m))[i]
            if pi == 0:
                return -math.inf
            logp += math.log(pi)
        rep = float(repeat_logprob(fw, j, np.array([i]))[0])
        forced = j > 1 and path[j - 2] == i
        logp += rep if forced else math.log1p(-math.exp(rep)) if rep < 0 else -math.inf
        i_up = i
    return logp


def acceptance_log_probability(path: Any) -> np.ndarray:
    """log Π_blocks 2^{k−1}/k! for rows of interval sequences (the rejection step)."""
    p = np.atleast_2d(np.asarray(path))
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
    u = rng.random(i_up.size)
    for g, up in enumerate(values):
        members = np.flatnonzero(inverse == g)
        cdf = np.cumsum(_normalise(interval_logweights(fw, j, int(up), first)))
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


def sample_intervals(fw: JointExpForward, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` interval sequences (size, m) from the stored forward pass (for ``rejection``: from
    the proposal, before acceptance)."""
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
        forced = np.log(rng.random(size)) < repeat_logprob(fw, j, current)
        i_up = current.copy()
    return paths


def intervals_to_outputs(
    fw: JointExpForward, paths: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Uniform points in the chosen intervals, sorted per row (a block's points are sorted iid
    uniforms on its interval)."""
    left = fw.breaks[paths]
    right = fw.breaks[paths + 1]
    return np.sort(left + (right - left) * rng.random(paths.shape), axis=1)


def sample_joint_exp(fw: JointExpForward, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` JointExp releases (size, m) from a forward pass (rejection step included)."""
    if fw.method == "exact" or size == 0:
        return intervals_to_outputs(fw, sample_intervals(fw, size, rng), rng)
    kept: list[np.ndarray] = []
    have, proposed, rate = 0, 0, 1.0
    while have < size:
        batch = int(min(math.ceil(1.1 * (size - have) / rate), 1 << 20))
        paths = sample_intervals(fw, batch, rng)
        ok = np.log(rng.random(batch)) < acceptance_log_probability(paths)
        kept.append(paths[ok])
        have += int(ok.sum())
        proposed += batch
        rate = max(have / proposed, 1e-6)
        if proposed > _MAX_PROPOSALS_PER_DRAW * max(size, 1) and have < size:
            raise RuntimeError(
                f"JointExp rejection step accepts only {have}/{proposed} proposals; "
                "use method='exact'"
            )
    return intervals_to_outputs(fw, np.concatenate(kept)[:size], rng)


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
class JointExpMechanism:
    """JointExp as a :class:`reference.core.Mechanism`: claim (ε, 0); ``domain`` (−inf, inf)
    since inputs are clamped to ``bounds``. ``sensitivity`` overrides Δ (a value below the true
    one is a deliberately broken variant)."""

    quantiles: tuple[float, ...]
    epsilon: float
    bounds: tuple[float, float]
    adjacency: str = "replace_one"
    method: str = "auto"
    sensitivity: float | None = None

    def __post_init__(self) -> None:
        q = check_quantiles(self.quantiles)
        object.__setattr__(self, "quantiles", tuple(q.tolist()))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_domain(self.bounds, "bounds", finite=True))
        check_adjacency_central(self.adjacency)
        choose_method(self.method, 1, 1)
        if self.sensitivity is not None:
            check_positive(self.sensitivity, "sensitivity")

    @property
    def delta_u(self) -> float:
        if self.sensitivity is not None:
            return float(self.sensitivity)
        return joint_exp_sensitivity(self.quantiles, self.adjacency)

    @property
    def scale(self) -> float:
        """c = ε/(2Δ)."""
        return self.epsilon / (2.0 * self.delta_u)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, self.adjacency)

    @property
    def domain(self) -> tuple[float, float]:
        """Any finite input is valid: values outside ``bounds`` are clamped (documented)."""
        return (-np.inf, np.inf)

    def forward(self, data: Any) -> JointExpForward:
        """The forward pass on ``data`` (clamped, sorted)."""
        x = clamp_sorted(data, self.bounds)
        return forward(x, np.asarray(self.quantiles), self.bounds, self.scale, self.method)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases, shape (size, m)."""
        size, rng = check_size(size), check_rng(rng)
        return sample_joint_exp(self.forward(data), size, rng)
