"""SliceQuantiles: imola25 Algorithm 1 (spec §2.3), approximate-DP and pure-DP variants.

1. r̃ ← CC_{ε1}(r) (binary-tree continual counting of the public target ranks r);
2. with probability γ, or if r̃ ∉ Good*_{m,n,h}: output m i.i.d. uniform values (the failure
   branch; on the output grid for the pure variant, spec §5 item 15);
3. otherwise release z_j = SingleQuantile_{ε2}(S_j, ClipRange) for the slices
   S_j = (x_(r̃_j − h), ..., x_(r̃_j + h)), in the tree order (middle quantile first, then the
   middles of both halves, ...; spec §2.3, the authors' recursion), each EM range clipped to
   (z of the nearest released quantile below, z of the nearest released quantile above), so the
   outputs are non-decreasing. ``clip_range=False`` releases every slice on (a, b) (then the exact
   law of :mod:`reference.slice_quantiles.exact_law` applies).

:class:`SliceQuantiles` is Algorithm 1 with every parameter explicit (a
:class:`reference.core.Mechanism`; its ``claim`` is what the caller established). Most users call
:func:`slice_quantiles`, which chooses the parameters (:func:`plan_slice_quantiles`: the budget
split, the half-width, the CC error bound w from the exact tail, the feasibility check) and
returns the m estimates.

Public n (spec §5 item 12): the ranks must not depend on private data. Under replace-one the size
n = len(data) is public; under add/remove pass ``n`` (a public size, e.g. a published count) and
the guarantee covers data sets of size >= n − 1 (the feasibility check uses Good*_{m,n−1,h+1+w}).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from reference.core import PrivacyClaim
from reference.primitives.continual_counting import ContinualCounting
from reference.slice_quantiles.good_set import check_rule, in_good_set
from reference.slice_quantiles.parameters import (
    HALF_WIDTH_RULES,
    budget_split,
    central_adjacency,
    check_feasible,
    check_ranks,
    delta_multiplier,
    pure_log_delta,
    target_ranks,
    total_epsilon,
)
from reference.slice_quantiles.parameters import (
    half_width as choose_half_width,
)
from reference.slice_quantiles.single_quantile import sample_slices_em, slice_target
from reference.validation import (
    check_data,
    check_delta,
    check_domain,
    check_epsilon,
    check_int,
    check_positive,
    check_probability,
    check_rng,
    check_size,
)

VARIANTS = ("approximate", "pure")
ERROR_BOUNDS = ("exact", "chernoff", "paper", "corollary_a1")
_CHUNK_CELLS = 1 << 22  # slice entries per vectorised chunk (memory bound)


# --------------------------------------------------------------------------------------------
# the release order (ClipRange)
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def release_levels(m: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
    """The tree order as levels: per level, the 0-based indices released and the indices of
    their clipping anchors (−1 = the lower bound a, m = the upper bound b). The middle of each
    range (0-based ⌊len/2⌋) goes first, then both halves recursively (authors' recursion)."""
    m = check_int(m, "m", minimum=1)
    levels = []
    ranges = [(0, m)]
    while ranges:
        idx, left, right, nxt = [], [], [], []
        for lo, hi in ranges:
            mid = lo + (hi - lo) // 2
            idx.append(mid)
            left.append(lo - 1)
            right.append(hi)
            if mid > lo:
                nxt.append((lo, mid))
            if hi > mid + 1:
                nxt.append((mid + 1, hi))
        levels.append((np.array(idx), np.array(left), np.array(right)))
        ranges = nxt
    return tuple(levels)


def release_order(m: int) -> list[int]:
    """The 0-based indices in the order they are released."""
    return [int(j) for level in release_levels(m) for j in level[0]]


# --------------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliceQuantiles:
    """Algorithm 1 with explicit parameters (spec §2.3).

    ranks        public target ranks r (strictly increasing, 1-indexed)
    half_width   h: slices of 2h + 1 order statistics
    epsilon1/2   budgets of CC and of each slice's EM
    bounds       the data domain (a, b); data outside raise ValueError unless ``clamp``
    delta        the δ of ``claim`` (what the caller established, e.g. by the planner)
    gamma        probability of the uniform output (Lemma 4.3 mixing, pure variant)
    grid_step    pure variant: outputs are rounded to the grid a + k·step, k = 0..⌊(b − a)/step⌋,
                 and the uniform outputs are drawn from that grid
    noise        CC noise, "discrete" (default, the paper's experiments) or "laplace"
    good_rule    "corrected" (gap 2h + 1, disjoint slices) or "printed" (gap 2h, may overlap)
    clip_range   release in the tree order with ClipRange (default) or all on (a, b)
    target       EM target ⌊|S|/2⌋ ("paper") or |S|/2 ("authors")
    cc_scale     per-node CC noise scale override (default T/ε1); smaller = under-noised
    """

    ranks: tuple[int, ...]
    half_width: int
    epsilon1: float
    epsilon2: float
    bounds: tuple[float, float]
    adjacency: str = "replace_one"
    delta: float = 0.0
    gamma: float = 0.0
    grid_step: float | None = None
    noise: str = "discrete"
    good_rule: str = "corrected"
    clip_range: bool = True
    target: str = "paper"
    cc_scale: float | None = None
    clamp: bool = False

    def __post_init__(self) -> None:
        ranks = np.asarray(self.ranks)
        object.__setattr__(self, "ranks", tuple(int(r) for r in check_ranks(ranks, 2**62)))
        check_int(self.half_width, "half_width", minimum=0)
        check_epsilon(self.epsilon1, "epsilon1")
        check_epsilon(self.epsilon2, "epsilon2")
        object.__setattr__(self, "bounds", check_domain(self.bounds, "bounds", finite=True))
        central_adjacency(self.adjacency)
        check_delta(self.delta)
        check_probability(self.gamma, "gamma", open_right=True)
        if self.grid_step is not None:
            step = check_positive(self.grid_step, "grid_step")
            if step > self.bounds[1] - self.bounds[0]:
                raise ValueError("grid_step must not exceed the width of bounds")
        if self.gamma > 0 and self.grid_step is None:
            raise ValueError("gamma > 0 (pure variant) needs grid_step: Lemma 4.3 mixes on a grid")
        check_rule(self.good_rule)
        slice_target(1, self.target)
        _ = self.cc  # validates noise and cc_scale

    # ------------------------------------------------------------------ contract
    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(
            total_epsilon(self.epsilon1, self.epsilon2, self.adjacency), self.delta, self.adjacency
        )

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf) if self.clamp else self.bounds

    @property
    def m(self) -> int:
        return len(self.ranks)

    @property
    def cc(self) -> ContinualCounting:
        return ContinualCounting(self.m, self.epsilon1, self.noise, self.cc_scale)

    @property
    def grid_size(self) -> int | None:
        """|Y| = ⌊(b − a)/step⌋ + 1 grid points per coordinate (pure variant), else None."""
        if self.grid_step is None:
            return None
        a, b = self.bounds
        return int(math.floor((b - a) / self.grid_step + 1e-9)) + 1

    # ------------------------------------------------------------------ sampling
    def prepare(self, data: Any) -> np.ndarray:
        """Validated, sorted data (clamped into bounds when ``clamp``)."""
        x = check_data(data, "data")  # a fresh copy: sorted in place below
        a, b = self.bounds
        if self.clamp:
            np.clip(x, a, b, out=x)
        elif x.min() < a or x.max() > b:
            raise ValueError(
                f"data must lie within bounds [{a}, {b}] (or pass clamp=True to clamp them)"
            )
        if not np.all(x[1:] >= x[:-1]):  # O(n) check: sorted input skips the O(n log n) sort
            x.sort()
        return x

    def release(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        """One run of Algorithm 1: the m estimates, shape (m,)."""
        return self.sample(data, 1, rng)[0]

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent runs on ``data``, shape (size, m) (vectorised)."""
        size, rng = check_size(size), check_rng(rng)
        x = self.prepare(data)
        r_tilde = self.cc.release(np.array(self.ranks, dtype=np.int64), size, rng)
        ok = np.asarray(in_good_set(r_tilde, len(x), self.half_width, self.good_rule)).reshape(size)
        if self.gamma > 0:
            ok &= rng.random(size) >= self.gamma
        out = np.empty((size, self.m))
        fails = np.flatnonzero(~ok)
        out[fails] = self._uniform(len(fails), rng)
        good = np.flatnonzero(ok)
        rows_per_chunk = max(1, _CHUNK_CELLS // (self.m * (2 * self.half_width + 1)))
        for start in range(0, len(good), rows_per_chunk):
            sel = good[start : start + rows_per_chunk]
            z = self._release_slices(x, r_tilde[sel], rng)
            out[sel] = self._round(z) if self.grid_step is not None else z
        return out

    def _uniform(self, k: int, rng: np.random.Generator) -> np.ndarray:
        a, b = self.bounds
        if self.grid_step is None:
            return a + rng.random((k, self.m)) * (b - a)
        return a + self.grid_step * rng.integers(0, self.grid_size, (k, self.m))

    def _round(self, z: np.ndarray) -> np.ndarray:
        a = self.bounds[0]
        k = np.floor((z - a) / self.grid_step + 0.5)
        return a + self.grid_step * np.clip(k, 0, self.grid_size - 1)

    def _release_slices(
        self, x: np.ndarray, r_tilde: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        h = self.half_width
        S = x[(r_tilde - h - 1)[..., None] + np.arange(2 * h + 1)]  # (k, m, 2h + 1)
        k = len(r_tilde)
        a, b = self.bounds
        if not self.clip_range:
            flat = S.reshape(k * self.m, 2 * h + 1)
            lo, hi = np.full(len(flat), a), np.full(len(flat), b)
            z = sample_slices_em(flat, lo, hi, self.epsilon2, rng, self.target)
            return z.reshape(k, self.m)
        z = np.empty((k, self.m))
        padded = np.empty((k, self.m + 2))  # column 0 = a, column m + 1 = b
        padded[:, 0], padded[:, -1] = a, b
        for idx, left, right in release_levels(self.m):
            lo = padded[:, left + 1].reshape(-1)
            hi = padded[:, right + 1].reshape(-1)
            rows = S[:, idx, :].reshape(-1, 2 * h + 1)
            vals = sample_slices_em(rows, lo, hi, self.epsilon2, rng, self.target)
            vals = vals.reshape(k, len(idx))
            z[:, idx] = vals
            padded[:, idx + 1] = vals
        return z

    # ------------------------------------------------------------------ exact law
    def exact(self, data: Any):
        """The exact output law for tiny instances (:func:`reference.slice_quantiles.exact_law
        .output_law`; needs clip_range=False, discrete noise, γ = 0, no grid)."""
        from reference.slice_quantiles.exact_law import output_law

        return output_law(self, data)


# --------------------------------------------------------------------------------------------
# planning: parameters from (ε, δ) and the feasibility check
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliceQuantilesPlan:
    """The configured mechanism and how its parameters were chosen."""

    mechanism: SliceQuantiles
    n: int
    w: int
    variant: str
    cc_delta: float
    cc_log_delta: float
    error_bound: str

    @property
    def claim(self) -> PrivacyClaim:
        return self.mechanism.claim


def _ranks_for(quantiles: Any, ranks: Any, n: int) -> np.ndarray:
    if (quantiles is None) == (ranks is None):
        raise ValueError("give exactly one of quantiles (in (0, 1)) or ranks (public integers)")
    r = target_ranks(quantiles, n) if quantiles is not None else check_ranks(ranks, n)
    return check_ranks(r, n)


@lru_cache(maxsize=1024)
def cc_error(
    epsilon1: float,
    m: int,
    noise: str,
    method: str,
    *,
    delta: float | None = None,
    log_delta: float | None = None,
) -> int:
    """w: the CC max-error bound at failure probability δ (``reference.slice_quantiles.cc_tails``),
    cached (experiments plan thousands of releases with the same parameters)."""
    from reference.slice_quantiles.cc_tails import cc_error_bound

    if method not in ERROR_BOUNDS:
        raise ValueError(f"error_bound must be one of {ERROR_BOUNDS}, got {method!r}")
    return int(
        math.ceil(
            cc_error_bound(epsilon1, delta, m, noise=noise, method=method, log_delta=log_delta)
        )
    )


def plan_slice_quantiles(
    n: int,
    bounds: tuple[float, float],
    epsilon: float,
    delta: float,
    *,
    quantiles: Any = None,
    ranks: Any = None,
    adjacency: str = "replace_one",
    variant: str = "approximate",
    min_gap: float | None = None,
    half_width: int | None = None,
    beta: float = 0.05,
    half_width_rule: str = "slice",
    epsilon_split: tuple[float, float] | None = None,
    error_bound: str = "exact",
    noise: str = "discrete",
    gamma: float = 0.05,
    grid_step: float | None = None,
    clip_range: bool = True,
    target: str = "paper",
    clamp: bool = False,
) -> SliceQuantilesPlan:
    """Choose SliceQuantiles' parameters for a public size n and refuse infeasible ranks.

    approximate: γ = 0, δ in (0, 1); the CC must fail with probability <= δ/(1 + e^{ε1+2ε2})
    (replace-one) or δ (add/remove), w = the exact-tail bound (``error_bound``).
    pure: δ = 0, γ in (0, 1), ``grid_step`` (default ``min_gap``); the CC failure probability is
    the corrected Cor. 4.4 value γ(e^ε − 1)/|Y|^m (divided by the replace-one factor).
    The half-width is ``half_width`` or ⌈(2/ε2)·ln(2mψ/β)⌉ with ψ = (b − a)/``min_gap``.
    """
    n = check_int(n, "n", minimum=1)
    bounds = check_domain(bounds, "bounds", finite=True)
    adjacency = central_adjacency(adjacency)
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if half_width_rule not in HALF_WIDTH_RULES:
        raise ValueError(
            f"half_width_rule must be one of {HALF_WIDTH_RULES}, got {half_width_rule!r}"
        )
    r = _ranks_for(quantiles, ranks, n)
    m = len(r)
    if epsilon_split is None:
        split = budget_split(epsilon, adjacency)
        e1, e2 = split.epsilon1, split.epsilon2
    else:
        e1 = check_epsilon(epsilon_split[0], "epsilon_split[0]")
        e2 = check_epsilon(epsilon_split[1], "epsilon_split[1]")
        if not math.isclose(
            total_epsilon(e1, e2, adjacency), check_epsilon(epsilon), rel_tol=1e-12
        ):
            raise ValueError("epsilon_split must compose to epsilon (Thm 4.2)")
    if half_width is None:
        if min_gap is None:
            raise ValueError(
                "give half_width, or min_gap (the data's minimum spacing) to derive it"
            )
        psi = (bounds[1] - bounds[0]) / check_positive(min_gap, "min_gap")
        h = choose_half_width(m, e2, psi, beta, half_width_rule)
    else:
        h = check_int(half_width, "half_width", minimum=0)
    factor = delta_multiplier(e1, e2, adjacency)
    eps_total = total_epsilon(e1, e2, adjacency)
    if variant == "approximate":
        delta = check_delta(delta)
        if delta == 0:
            raise ValueError("delta must be in (0, 1) for variant='approximate' (use 'pure')")
        cc_delta = delta / factor
        log_cc = math.log(cc_delta)
        w = cc_error(e1, m, noise, error_bound, delta=cc_delta)
        g, step = 0.0, None
    else:
        if check_delta(delta) != 0:
            raise ValueError("delta must be 0 for variant='pure'")
        g = check_probability(gamma, "gamma", open_left=True, open_right=True)
        step = grid_step if grid_step is not None else min_gap
        if step is None:
            raise ValueError("variant='pure' needs grid_step (or min_gap) for the output grid")
        step = check_positive(step, "grid_step")
        size_y = int(math.floor((bounds[1] - bounds[0]) / step + 1e-9)) + 1
        log_cc = pure_log_delta(g, eps_total, size_y, m) - math.log(factor)
        cc_delta = math.exp(log_cc)
        w = cc_error(e1, m, noise, error_bound, log_delta=log_cc)
    check_feasible(r, n, h, w)
    mech = SliceQuantiles(
        tuple(int(v) for v in r),
        h,
        e1,
        e2,
        bounds,
        adjacency,
        delta=float(delta) if variant == "approximate" else 0.0,
        gamma=g,
        grid_step=step,
        noise=noise,
        clip_range=clip_range,
        target=target,
        clamp=clamp,
    )
    return SliceQuantilesPlan(mech, n, w, variant, cc_delta, log_cc, error_bound)


def slice_quantiles(
    data: Any,
    quantiles: Any = None,
    *,
    bounds: tuple[float, float],
    epsilon: float,
    delta: float,
    rng: np.random.Generator,
    ranks: Any = None,
    n: int | None = None,
    adjacency: str = "replace_one",
    **options: Any,
) -> np.ndarray:
    """The m SliceQuantiles estimates of ``quantiles`` (or of the public ``ranks``).

    ``n`` is the public data size: under replace-one it defaults to (and must equal) len(data);
    under add/remove it is required (the ranks ⌊q·n⌋ must not depend on the private size).
    ``options`` go to :func:`plan_slice_quantiles` (variant, min_gap or half_width, beta, ...).
    """
    x = check_data(data, "data")
    adjacency = central_adjacency(adjacency)
    if adjacency == "replace_one":
        if n is not None and check_int(n, "n", minimum=1) != len(x):
            raise ValueError(f"under replace_one n is len(data) = {len(x)}; got n = {n}")
        n = len(x)
    elif n is None:
        raise ValueError("under add_remove pass the public data size n (ranks must not use |X|)")
    plan = plan_slice_quantiles(
        n, bounds, epsilon, delta, quantiles=quantiles, ranks=ranks, adjacency=adjacency, **options
    )
    return plan.mechanism.release(x, rng)


def with_options(mech: SliceQuantiles, **changes: Any) -> SliceQuantiles:
    """A copy of ``mech`` with some fields changed (e.g. the faithful options)."""
    return replace(mech, **changes)
