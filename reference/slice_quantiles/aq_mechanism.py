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
sorted data): several samples use log-space weights; a single release uses linear-space weights
L_j·e^{−scale·|j − t|} with the decay factors formed as products of two exponentials (falling
back to log space on underflow), which keeps one release at n = 586,104, m = 200 (the size of
the authors' Figure 1 data) near 50 ms. Both are tied to
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
) -> np.ndarray:
    """One EM draw per sample s on the subset x[start_s:stop_s] with range (lo_s, hi_s).

    Interval j = 0..k (k = stop − start) runs from s_j to s_{j+1} with s_0 = lo, s_{k+1} = hi and
    s_1..s_k the subset; P(j) ∝ (s_{j+1} − s_j)·exp(−ε·|j − q·k|/(2·sens)) (App. C.2 on a subset); the
    output is uniform in the chosen interval. ``gaps`` = diff(x). Several samples: log-space
    weights scaled by their row maximum, inverse CDF (:func:`_em_batch`). One sample (a single
    release, the hot path): :func:`_em_single`. A sample whose intervals all have length zero
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
    return _subset_em_sample(x, gaps, Subsets(start, stop, lo, hi), q, scale, rng)


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
) -> np.ndarray:
    """:func:`subset_em_sample` on checked arguments, ``scale`` = ε/(2·sens)."""
    start, stop, lo, hi = subsets
    size = start.size
    k = stop - start
    if size == 1:
        v = _em_single(x, gaps, int(start[0]), int(k[0]), float(lo[0]), float(hi[0]), q, scale, rng)
        return np.array([v])
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
    x: np.ndarray, plan: Plan, eps_prime: float, root: Subsets, rng: np.random.Generator
) -> np.ndarray:
    """:func:`sample_aq` on checked arguments, one sample per row of ``root`` (the mechanism
    and :func:`approximate_quantiles` have checked them already: no second O(n) pass per
    release)."""
    size, m = root.start.size, len(plan.order)
    out = np.empty((size, m))
    gaps = np.diff(x)
    a, b = float(root.lo[0]), float(root.hi[0])
    state = {id(plan.root): root}
    for node in plan.order:
        subsets = state.pop(id(node))
        start, stop, lo, hi = subsets
        scale = eps_prime / (2.0 * em_sensitivity(node.q))
        v = _subset_em_sample(x, gaps, subsets, node.q, scale, rng)
        out[:, node.index] = v
        if node.left is not None:
            le = np.clip(np.searchsorted(x, v, side="right"), start, stop)
            state[id(node.left)] = Subsets(start, le, lo, v)
        if node.right is not None:
            lt = np.clip(np.searchsorted(x, v, side="left"), start, stop)
            state[id(node.right)] = Subsets(lt, stop, v, hi)
    return np.clip(out, a, b, out=out)


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
) -> np.ndarray:
    """One AQ release (module docstring): m estimates, sorted, in quantile order.

    mode 'pure': (ε, 0)-DP. mode 'zcdp': ρ-zCDP with ρ = ``rho`` or ρ = rho_from_epsilon(ε, δ)
    (then (ε, δ)-DP by the "cks" conversion)."""
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
    return _release(x, plan, eps_prime, _root(x.size, bounds, 1), rng)[0]


@dataclass(frozen=True)
class ApproximateQuantilesMechanism(MechanismBase):
    """AQ as a :class:`reference.core.Mechanism`: claim (ε, 0) (pure) or (ε, δ) (zcdp, ρ =
    rho_from_epsilon(ε, δ)); ``domain`` (−inf, inf) since inputs are clamped to ``bounds``.

    ``composition`` overrides comp (a value below the true one is a deliberately broken variant).
    One call draws at most :data:`DRAW_BUDGET`/(m·(n + 1)) releases (at least one).
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

    clamps = True  # any finite value is valid input: values outside ``bounds`` are clamped
    allow_empty = True  # the empty data set: every EM call is uniform on its range

    def __post_init__(self) -> None:
        check_release_fields(self)
        check_choice(self.mode, "mode", MODES)
        check_choice(self.layers, "layers", LAYER_RULES)
        check_flag(self.kss_original_constant, "kss_original_constant")
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
        return _release(x, plan, self._eps_prime, _root(x.size, self.bounds, size), rng)
