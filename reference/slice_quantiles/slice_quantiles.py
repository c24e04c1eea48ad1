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

Limits (refused with ``ValueError`` naming the parameter): at most
:data:`~reference.slice_quantiles.approximate_quantiles.MAX_QUANTILES` ranks, each at most
:data:`~reference.slice_quantiles.good_set.MAX_RANK`; a per-node CC noise scale T/ε1 (or
``cc_scale``) of at most :data:`MAX_CC_SCALE`, so the noisy ranks are exact int64 values; an
output grid of at most :data:`MAX_GRID` points; one ``sample`` call works through at most
:data:`DRAW_BUDGET` slice entries (:meth:`SliceQuantiles.draw_limit`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from reference.core import ExactMechanismBase
from reference.primitives.continual_counting import NOISES, ContinualCounting, tree_height
from reference.slice_quantiles.approximate_quantiles import MAX_QUANTILES
from reference.slice_quantiles.good_set import GOOD_RULES, MAX_RANK, in_good_set
from reference.slice_quantiles.parameters import (
    HALF_WIDTH_RULES,
    budget_split,
    central_adjacency,
    check_feasible,
    check_ranks,
    log_delta_multiplier,
    pure_log_delta,
    target_ranks,
    total_epsilon,
)
from reference.slice_quantiles.parameters import (
    half_width as choose_half_width,
)
from reference.slice_quantiles.single_quantile import TARGETS, _sample_slices_em
from reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_data,
    check_delta,
    check_domain,
    check_epsilon,
    check_finite,
    check_flag,
    check_int,
    check_positive,
    check_probability,
    check_rng,
)

VARIANTS = ("approximate", "pure")
ERROR_BOUNDS = ("exact", "chernoff", "paper", "corollary_a1")
_CHUNK_CELLS = 1 << 22  # slice entries per vectorised chunk (memory bound)

MAX_CC_SCALE = 2.0**40
"""Largest per-node CC noise scale (T/ε1, or ``cc_scale``): every node noise then stays below
2^46 and the noisy ranks r + N are exact int64 values, so the Good-set test is exact. Smaller
ε1 is refused (such a CC answers nothing: its noise exceeds any data size)."""
MAX_GRID = 2**52
"""Most points of the pure variant's output grid (a + k·step exact in float64)."""
DRAW_BUDGET = 2 * 10**8
"""Most (draws × m × (2h + 10)) slice entries of one ``sample`` call (about 10 s)."""
MEMORY_BUDGET = 10**7
"""Most draws × m of one ``sample`` call (the CC noise and the outputs: 80 MB per array)."""


# --------------------------------------------------------------------------------------------
# the release order (ClipRange)
# --------------------------------------------------------------------------------------------


def release_levels(m: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
    """The tree order as levels: per level, the 0-based indices released and the indices of
    their clipping anchors (−1 = the lower bound a, m = the upper bound b). The middle of each
    range (0-based ⌊len/2⌋) goes first, then both halves recursively (authors' recursion)."""
    return _release_levels(check_int(m, "m", minimum=1, maximum=MAX_QUANTILES))


@lru_cache(maxsize=256)
def _release_levels(m: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
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


def grid_count(bounds: tuple[float, float], step: float, name: str = "grid_step") -> int:
    """|Y|: the number of grid points a + k·step (k = 0, 1, ...) that are <= b, computed in the
    floats the sampler uses (so a + (|Y| − 1)·step <= b exactly); at most :data:`MAX_GRID`."""
    a, b = check_domain(bounds, "bounds", finite=True)
    step = check_positive(step, name)
    if step > b - a:
        raise ValueError(f"{name} must not exceed the width of bounds ({b - a!r}), got {step!r}")
    ratio = (b - a) / step
    if not ratio < MAX_GRID:
        raise ValueError(
            f"{name} must be at least (b − a)/{MAX_GRID} = {(b - a) / MAX_GRID:.4g} for bounds "
            f"({a!r}, {b!r}) (at most {MAX_GRID} grid points), got {step!r}"
        )
    k = int(math.floor(ratio))
    for _ in range(4):
        if k > 0 and a + k * step > b:
            k -= 1
    for _ in range(4):
        if a + (k + 1) * step <= b:
            k += 1
    return k + 1


# --------------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliceQuantiles(ExactMechanismBase):
    """Algorithm 1 with explicit parameters (spec §2.3).

    ranks        public target ranks r (strictly increasing ints, 1-indexed)
    half_width   h: slices of 2h + 1 order statistics
    epsilon1/2   budgets of CC and of each slice's EM; the claim's ε is Thm 4.2's total
                 (ε1 + 2ε2 under add/remove, 2ε1 + 3ε2 under replace-one)
    bounds       the data domain (a, b); data outside raise ValueError unless ``clamp``
    delta        the δ of ``claim`` (what the caller established, e.g. by the planner)
    gamma        probability of the uniform output (Lemma 4.3 mixing, pure variant)
    grid_step    pure variant: outputs are rounded to the grid a + k·step, k = 0..|Y| − 1
                 (:func:`grid_count`), and the uniform outputs are drawn from that grid
    noise        CC noise, "discrete" (default, the paper's experiments) or "laplace"
    good_rule    "corrected" (gap 2h + 1, disjoint slices) or "printed" (gap 2h, may overlap)
    clip_range   release in the tree order with ClipRange (default) or all on (a, b)
    target       EM target ⌊|S|/2⌋ ("paper") or |S|/2 ("authors")
    cc_scale     per-node CC noise scale override (default T/ε1); smaller = under-noised
    clamp        clamp data into ``bounds`` (then any finite value is valid input)
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
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        ranks = check_ranks(self.ranks, MAX_RANK)
        put("ranks", tuple(int(r) for r in ranks))
        put("half_width", check_int(self.half_width, "half_width", minimum=0, maximum=MAX_RANK))
        put("epsilon1", check_epsilon(self.epsilon1, "epsilon1"))
        put("epsilon2", check_epsilon(self.epsilon2, "epsilon2"))
        put("bounds", check_domain(self.bounds, "bounds", finite=True))
        put("adjacency", central_adjacency(self.adjacency))
        total_epsilon(self.epsilon1, self.epsilon2, self.adjacency)  # finite
        put("delta", check_delta(self.delta))
        put("gamma", check_probability(self.gamma, "gamma", open_right=True))
        put("noise", check_choice(self.noise, "noise", NOISES))
        put("good_rule", check_choice(self.good_rule, "good_rule", GOOD_RULES))
        put("clip_range", check_flag(self.clip_range, "clip_range"))
        put("target", check_choice(self.target, "target", TARGETS))
        put("clamp", check_flag(self.clamp, "clamp"))
        if self.grid_step is not None:
            put("grid_step", check_positive(self.grid_step, "grid_step"))
            grid_count(self.bounds, self.grid_step)
        if self.gamma > 0 and self.grid_step is None:
            raise ValueError("gamma > 0 (pure variant) needs grid_step: Lemma 4.3 mixes on a grid")
        height = tree_height(len(ranks))
        if self.cc_scale is not None:
            scale = check_positive(self.cc_scale, "cc_scale")
            if scale > MAX_CC_SCALE:
                raise ValueError(f"cc_scale must be at most {MAX_CC_SCALE:g}, got {scale!r}")
            put("cc_scale", scale)
        elif height / self.epsilon1 > MAX_CC_SCALE:
            raise ValueError(
                f"epsilon1 must be at least T/{MAX_CC_SCALE:g} = {height / MAX_CC_SCALE:.4g} "
                f"(T = {height} tree levels for m = {len(ranks)} ranks) so that the CC noise "
                f"is representable, got {self.epsilon1!r}"
            )
        try:
            cc = ContinualCounting(self.m, self.epsilon1, self.noise, self.cc_scale)
        except ValueError as exc:  # the CC's own limits, named as SliceQuantiles' parameters
            raise ValueError(
                f"epsilon1/cc_scale outside the continual counter's range: {exc}"
            ) from None
        put("_cc", cc)

    # ------------------------------------------------------------------ contract
    @property
    def claimed_epsilon(self) -> float:
        """Thm 4.2: ε1 + 2ε2 (add/remove) or 2ε1 + 3ε2 (replace-one)."""
        return total_epsilon(self.epsilon1, self.epsilon2, self.adjacency)

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf) if self.clamp else self.bounds

    @property
    def m(self) -> int:
        return len(self.ranks)

    @property
    def cc(self) -> ContinualCounting:
        return self._cc  # type: ignore[attr-defined]

    @property
    def grid_size(self) -> int | None:
        """|Y| grid points per coordinate (pure variant, :func:`grid_count`), else None."""
        if self.grid_step is None:
            return None
        return grid_count(self.bounds, self.grid_step)

    # ------------------------------------------------------------------ data
    def check_input(self, data: Any) -> np.ndarray:
        """The checked data: finite numbers, inside ``bounds`` unless ``clamp``."""
        x = check_data(data, "data")
        a, b = self.bounds
        if not self.clamp and (x.min() < a or x.max() > b):
            raise ValueError(
                f"data must lie within bounds [{a}, {b}] (or pass clamp=True to clamp them), "
                f"got values in [{x.min()}, {x.max()}]"
            )
        return x

    def _sorted(self, x: np.ndarray) -> np.ndarray:
        """Checked data (a fresh array) clamped into bounds when ``clamp``, sorted in place."""
        if self.clamp:
            np.clip(x, self.bounds[0], self.bounds[1], out=x)
        if not np.all(x[1:] >= x[:-1]):  # O(n) check: sorted input skips the O(n log n) sort
            x.sort()
        return x

    def prepare(self, data: Any) -> np.ndarray:
        """Validated, sorted data (clamped into bounds when ``clamp``)."""
        return self._sorted(self.check_input(data))

    def draw_limit(self, data: np.ndarray) -> int:
        """Draws per call: draws·m·(2h + 10) <= :data:`DRAW_BUDGET` slice entries (m·10 when
        the data are too few for any slice) and draws·m <= :data:`MEMORY_BUDGET`."""
        h, m = self.half_width, self.m
        per_draw = m * (2 * h + 10) if m * (2 * h + 1) <= len(data) else m * 10
        return int(max(1, min(MAX_DRAWS, DRAW_BUDGET // per_draw, MEMORY_BUDGET // m)))

    # ------------------------------------------------------------------ sampling
    def release(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        """One run of Algorithm 1: the m estimates, shape (m,)."""
        return self.sample(data, 1, rng)[0]

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent runs on checked ``data``, shape (size, m) (vectorised)."""
        x = self._sorted(data)
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
        return np.clip(out, self.bounds[0], self.bounds[1], out=out)

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
            z = _sample_slices_em(flat, lo, hi, self.epsilon2, rng, self.target)
            return z.reshape(k, self.m)
        z = np.empty((k, self.m))
        padded = np.empty((k, self.m + 2))  # column 0 = a, column m + 1 = b
        padded[:, 0], padded[:, -1] = a, b
        for idx, left, right in _release_levels(self.m):
            lo = padded[:, left + 1].reshape(-1)
            hi = padded[:, right + 1].reshape(-1)
            rows = S[:, idx, :].reshape(-1, 2 * h + 1)
            vals = _sample_slices_em(rows, lo, hi, self.epsilon2, rng, self.target)
            vals = vals.reshape(k, len(idx))
            z[:, idx] = vals
            padded[:, idx + 1] = vals
        return z

    # ------------------------------------------------------------------ exact law
    def _law(self, data: np.ndarray):
        """The exact output law for tiny instances (:func:`reference.slice_quantiles.exact_law
        .output_law`; needs clip_range=False, discrete noise, γ = 0, no grid; refused beyond
        :data:`reference.slice_quantiles.exact_law.EXACT_COST_LIMIT`)."""
        from reference.slice_quantiles.exact_law import _output_law

        return _output_law(self, self._sorted(data))


# --------------------------------------------------------------------------------------------
# planning: parameters from (ε, δ) and the feasibility check
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SliceQuantilesPlan:
    """The configured mechanism and how its parameters were chosen (a record, not a mechanism:
    sample with ``plan.mechanism``; ``claim`` is the mechanism's)."""

    mechanism: SliceQuantiles
    n: int
    w: int
    variant: str
    cc_delta: float
    cc_log_delta: float
    error_bound: str

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, SliceQuantiles):
            raise ValueError(
                f"mechanism must be a SliceQuantiles, got {type(self.mechanism).__name__}"
            )
        check_int(self.n, "n", minimum=1, maximum=MAX_RANK)
        check_int(self.w, "w", minimum=0)
        check_choice(self.variant, "variant", VARIANTS)
        check_probability(self.cc_delta, "cc_delta")
        if check_finite(self.cc_log_delta, "cc_log_delta") > 0:
            raise ValueError(f"cc_log_delta must be <= 0, got {self.cc_log_delta!r}")
        check_choice(self.error_bound, "error_bound", ERROR_BOUNDS)

    @property
    def claim(self):
        return self.mechanism.claim


def _ranks_for(quantiles: Any, ranks: Any, n: int) -> np.ndarray:
    if (quantiles is None) == (ranks is None):
        raise ValueError("give exactly one of quantiles (in (0, 1)) or ranks (public integers)")
    if quantiles is not None:
        r = target_ranks(quantiles, n)
        if r[0] < 1 or np.any(np.diff(r) <= 0):
            raise ValueError(
                f"quantiles give ranks ⌊q·n⌋ that are not distinct integers in [1, n] (n = {n}): "
                "use fewer or more widely spaced quantiles, or more data"
            )
        return r
    return check_ranks(ranks, n)


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
    from reference.slice_quantiles.cc_tails import resolve_log_delta

    epsilon1 = check_epsilon(epsilon1, "epsilon1")
    m = check_int(m, "m", minimum=1, maximum=MAX_QUANTILES)
    noise = check_choice(noise, "noise", NOISES)
    method = check_choice(method, "method (error_bound)", ERROR_BOUNDS)
    resolve_log_delta(delta, log_delta)  # exactly one, in range
    if delta is not None:
        delta = float(delta)
    if log_delta is not None:
        log_delta = float(log_delta)
    try:
        return _cc_error(epsilon1, m, noise, method, delta, log_delta)
    except ValueError as exc:  # the tails' own limits, named with this function's parameters
        raise ValueError(
            f"{exc} (cc_error: epsilon1 = {epsilon1!r}, m = {m}, delta = {delta!r}, "
            f"log_delta = {log_delta!r})"
        ) from None


@lru_cache(maxsize=1024)
def _cc_error(
    epsilon1: float, m: int, noise: str, method: str, delta: float | None, log_delta: float | None
) -> int:
    from reference.slice_quantiles.cc_tails import cc_error_bound

    return int(
        math.ceil(
            cc_error_bound(epsilon1, delta, m, noise=noise, method=method, log_delta=log_delta)
        )
    )


_PLAN_OPTIONS = frozenset(
    {
        "variant",
        "min_gap",
        "half_width",
        "beta",
        "half_width_rule",
        "epsilon_split",
        "error_bound",
        "noise",
        "gamma",
        "grid_step",
        "clip_range",
        "target",
        "clamp",
    }
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
    n = check_int(n, "n", minimum=1, maximum=MAX_RANK)
    bounds = check_domain(bounds, "bounds", finite=True)
    adjacency = central_adjacency(adjacency)
    variant = check_choice(variant, "variant", VARIANTS)
    half_width_rule = check_choice(half_width_rule, "half_width_rule", HALF_WIDTH_RULES)
    error_bound = check_choice(error_bound, "error_bound", ERROR_BOUNDS)
    noise = check_choice(noise, "noise", NOISES)
    target = check_choice(target, "target", TARGETS)
    clip_range = check_flag(clip_range, "clip_range")
    clamp = check_flag(clamp, "clamp")
    epsilon = check_epsilon(epsilon)
    beta = check_probability(beta, "beta", open_left=True, open_right=True)
    gamma = check_probability(gamma, "gamma", open_left=True, open_right=True)
    if min_gap is not None:
        min_gap = check_positive(min_gap, "min_gap")
    if grid_step is not None:
        grid_step = check_positive(grid_step, "grid_step")
    r = _ranks_for(quantiles, ranks, n)
    m = len(r)
    if epsilon_split is None:
        split = budget_split(epsilon, adjacency)
        e1, e2 = split.epsilon1, split.epsilon2
    else:
        if not isinstance(epsilon_split, list | tuple) or len(epsilon_split) != 2:
            raise ValueError(
                f"epsilon_split must be a pair (epsilon1, epsilon2), got {epsilon_split!r:.80}"
            )
        e1 = check_epsilon(epsilon_split[0], "epsilon_split[0]")
        e2 = check_epsilon(epsilon_split[1], "epsilon_split[1]")
        try:
            total = total_epsilon(e1, e2, adjacency)
        except ValueError:
            raise ValueError("epsilon_split must compose to epsilon (Thm 4.2)") from None
        if not math.isclose(total, epsilon, rel_tol=1e-12):
            raise ValueError("epsilon_split must compose to epsilon (Thm 4.2)")
    if half_width is None:
        if min_gap is None:
            raise ValueError(
                "give half_width, or min_gap (the data's minimum spacing) to derive it"
            )
        psi = (bounds[1] - bounds[0]) / check_positive(min_gap, "min_gap")
        if not math.isfinite(psi):
            raise ValueError(f"min_gap is too small: (b − a)/min_gap overflows, got {min_gap!r}")
        h = choose_half_width(m, e2, psi, beta, half_width_rule)
    else:
        h = check_int(half_width, "half_width", minimum=0, maximum=MAX_RANK)
    log_factor = log_delta_multiplier(e1, e2, adjacency)
    eps_total = total_epsilon(e1, e2, adjacency)
    if variant == "approximate":
        delta = check_delta(delta)
        if delta == 0:
            raise ValueError("delta must be in (0, 1) for variant='approximate' (use 'pure')")
        log_cc = math.log(delta) - log_factor
        cc_delta = math.exp(log_cc)
        g, step = 0.0, None
    else:
        if check_delta(delta) != 0:
            raise ValueError("delta must be 0 for variant='pure'")
        g = check_probability(gamma, "gamma", open_left=True, open_right=True)
        step = grid_step if grid_step is not None else min_gap
        if step is None:
            raise ValueError("variant='pure' needs grid_step (or min_gap) for the output grid")
        step = check_positive(step, "grid_step")
        size_y = grid_count(bounds, step)
        if size_y < 2:
            raise ValueError("grid_step must leave at least two grid points in bounds")
        log_cc = pure_log_delta(g, eps_total, size_y, m) - log_factor
        cc_delta = math.exp(log_cc)
    if tree_height(m) / e1 > MAX_CC_SCALE:
        raise ValueError(
            f"epsilon is too small: epsilon1 = {e1!r} gives a CC noise scale above "
            f"{MAX_CC_SCALE:g} (epsilon1 must be at least {tree_height(m) / MAX_CC_SCALE:.4g})"
        )
    if cc_delta > 0 and log_cc > -700:
        w = cc_error(e1, m, noise, error_bound, delta=cc_delta)
    else:
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
    unknown = sorted(set(options) - _PLAN_OPTIONS)
    if unknown:
        raise ValueError(f"unknown options {unknown}; known: {sorted(_PLAN_OPTIONS)}")
    x = check_data(data, "data")
    rng = check_rng(rng)
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
    if not isinstance(mech, SliceQuantiles):
        raise ValueError(f"mech must be a SliceQuantiles, got {type(mech).__name__}")
    names = {f.name for f in dataclasses.fields(SliceQuantiles)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise ValueError(f"unknown SliceQuantiles fields {unknown}; known: {sorted(names)}")
    return replace(mech, **changes)
