"""SliceQuantiles: imola25 Algorithm 1 as a :class:`dpquant.reference.core.Mechanism`, approximate-DP and
pure-DP variants, with every parameter explicit (:mod:`dpquant.reference.slice_quantiles.slice_release`
chooses them).

1. r̃ ← CC_{ε1}(r) (binary-tree continual counting of the public target ranks r; lines 3–4);
2. with probability γ, or if r̃ ∉ Good*_{m,n,h}: output m i.i.d. uniform values (lines 5–8, the
   failure branch; on the output grid for the pure variant, notes/imola25.md erratum 15);
3. otherwise release z_j = SingleQuantile_{ε2}(S_j, ClipRange) for the slices
   S_j = (x_(r̃_j − h), ..., x_(r̃_j + h)) (lines 11–16), in the tree order of
   :mod:`~dpquant.reference.slice_quantiles.clip_range`, so the outputs are non-decreasing.
   ``clip_range=False`` releases every slice on (a, b) (then the exact law of
   :mod:`dpquant.reference.slice_quantiles.exact_law` applies).

Its ``claim`` is what the caller established (Thm 4.2's ε; the δ given).

Limits (refused with ``ValueError`` naming the parameter): at most
:data:`~dpquant.reference.slice_quantiles.inputs.MAX_QUANTILES` ranks, each at most
:data:`~dpquant.reference.slice_quantiles.good_set.MAX_RANK`; a per-node CC noise scale T/ε1 (or
``cc_scale``) of at most :data:`MAX_CC_SCALE`, so the noisy ranks are exact int64 values; an
output grid of at most :data:`~dpquant.reference.slice_quantiles.parameters.MAX_GRID` points; one
``sample`` call works through at most :data:`DRAW_BUDGET` slice entries
(:meth:`SliceQuantiles.draw_limit`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import ExactMechanismBase
from dpquant.reference.distributions import GridLaw
from dpquant.reference.primitives.continual_counting import NOISES, ContinualCounting, tree_height
from dpquant.reference.slice_quantiles.clip_range import release_levels
from dpquant.reference.slice_quantiles.exact_law import sorted_data_law
from dpquant.reference.slice_quantiles.good_set import GOOD_RULES, MAX_RANK, in_good_set
from dpquant.reference.slice_quantiles.inputs import SortedData
from dpquant.reference.slice_quantiles.parameters import (
    central_adjacency,
    check_ranks,
    grid_count,
    total_epsilon,
)
from dpquant.reference.slice_quantiles.single_quantile import METHODS, TARGETS, sample_slices_em
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_data,
    check_delta,
    check_domain,
    check_epsilon,
    check_flag,
    check_int,
    check_positive,
    check_probability,
)

_CHUNK_CELLS = 1 << 22  # slice entries per vectorised chunk (memory bound)

MAX_CC_SCALE = 2.0**40
"""Largest per-node CC noise scale (T/ε1, or ``cc_scale``): every node noise then stays below
2^46 and the noisy ranks r + N are exact int64 values, so the Good-set test is exact. Smaller
ε1 is refused (such a CC answers nothing: its noise exceeds any data size)."""
DRAW_BUDGET = 2 * 10**8
"""Most (draws × m × (2h + 10)) slice entries of one ``sample`` call (about 10 s)."""
MEMORY_BUDGET = 10**7
"""Most draws × m of one ``sample`` call (the CC noise and the outputs: 80 MB per array)."""


@dataclass(frozen=True)
class SliceQuantiles(ExactMechanismBase):
    """Algorithm 1 with explicit parameters (Sec. 3.2's parameters (w, ε1), (ℓ, ε2), γ, (a, b)).

    Attributes:
        ranks: public target ranks r (strictly increasing ints, 1-indexed).
        half_width: h: slices of 2h + 1 order statistics.
        epsilon1: the budget of CC; the claim's ε is Thm 4.2's total (ε1 + 2ε2 under
            add/remove, 2ε1 + 3ε2 under replace-one).
        epsilon2: the budget of each slice's EM.
        bounds: the data domain (a, b); data outside raise ValueError unless ``clamp``.
        adjacency: "replace_one" or "add_remove".
        delta: the δ of ``claim`` (what the caller established, e.g. by the planner).
        gamma: probability of the uniform output (Lemma 4.3 mixing, pure variant).
        grid_step: pure variant: outputs are rounded to the grid a + k·step,
            k = 0..|Y| − 1 (``grid_count``), and the uniform outputs are drawn from that grid.
        noise: CC noise, "discrete" (default, the paper's experiments) or "laplace".
        good_rule: "corrected" (gap 2h + 1, disjoint slices) or "printed" (gap 2h, may
            overlap).
        clip_range: release in the tree order with ClipRange (default) or all on (a, b).
        target: EM target ⌊|S|/2⌋ ("paper") or |S|/2 ("authors").
        cc_scale: per-node CC noise scale override (default T/ε1); smaller = under-noised.
        clamp: clamp data into ``bounds`` (then any finite value is valid input).
        em_method: how each slice's EM draws: "inverse_cdf" (default, fast) or "gumbel" (log
            space, the draws of earlier versions for a seed); the same law.
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
    em_method: str = "inverse_cdf"

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
        put("em_method", check_choice(self.em_method, "em_method", METHODS))
        if self.grid_step is not None:
            put("grid_step", check_positive(self.grid_step, "grid_step"))
            grid_count(self.bounds, self.grid_step)
        if self.gamma > 0 and self.grid_step is None:
            raise ValueError("gamma > 0 (pure variant) needs grid_step: Lemma 4.3 mixes on a grid")
        height = tree_height(len(ranks))
        if self.cc_scale is not None:
            scale = check_positive(self.cc_scale, "cc_scale")
            if scale > MAX_CC_SCALE:
                raise ParameterError("cc_scale", f"must be at most {MAX_CC_SCALE:g}", repr(scale))
            put("cc_scale", scale)
        elif height / self.epsilon1 > MAX_CC_SCALE:
            raise ParameterError(
                "epsilon1",
                f"must be at least T/{MAX_CC_SCALE:g} = {height / MAX_CC_SCALE:.4g} (T = {height} "
                f"tree levels for m = {len(ranks)} ranks) so that the CC noise is representable",
                repr(self.epsilon1),
            )
        try:
            _ = self.cc  # built (and cached) here: the CC's limits fail at construction
        except ValueError as exc:  # the CC's own limits, named as SliceQuantiles' parameters
            raise ValueError(
                f"epsilon1/cc_scale outside the continual counter's range: {exc}"
            ) from None

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

    @cached_property
    def cc(self) -> ContinualCounting:
        """The binary-tree continual counter CC_{ε1} of the m ranks (App. A)."""
        return ContinualCounting(self.m, self.epsilon1, self.noise, self.cc_scale)

    @property
    def grid_size(self) -> int | None:
        """|Y| grid points per coordinate (pure variant, :func:`grid_count`), else None."""
        if self.grid_step is None:
            return None
        return grid_count(self.bounds, self.grid_step)

    # ------------------------------------------------------------------ data
    def check_input(self, data: Any) -> Any:
        """The checked data: finite numbers, inside ``bounds`` unless ``clamp``; a
        :class:`SortedData` prepared for the same bounds and clamp passes as it is (O(1))."""
        if isinstance(data, SortedData):
            if data.bounds == self.bounds and data.clamp == self.clamp:
                return data
            data = data.values
        x = check_data(data, "data")
        a, b = self.bounds
        if not self.clamp and (x.min() < a or x.max() > b):
            raise ParameterError(
                "data",
                f"must lie within bounds [{a}, {b}] (or pass clamp=True to clamp them)",
                f"values in [{x.min()}, {x.max()}]",
            )
        return x

    def _sorted(self, x: np.ndarray) -> np.ndarray:
        """Checked data (a fresh array) clamped into bounds when ``clamp``, sorted in place."""
        if self.clamp:
            np.clip(x, self.bounds[0], self.bounds[1], out=x)
        if not np.all(x[1:] >= x[:-1]):  # O(n) check: sorted input skips the O(n log n) sort
            x.sort()
        return x

    def prepare(self, data: Any) -> SortedData:
        """The data validated, clamped into bounds when ``clamp``, and sorted, once: releases on
        the result skip those O(n) steps (the same outputs as on ``data``)."""
        checked = self.check_input(data)
        if isinstance(checked, SortedData):
            return checked
        values = self._sorted(checked)
        values.setflags(write=False)
        return SortedData(values, self.bounds, self.clamp)

    def _values(self, data: Any) -> np.ndarray:
        """Sorted values of checked data (prepared, or sorted here)."""
        return data.values if isinstance(data, SortedData) else self._sorted(data)

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
        x = self._values(data)
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
        """The outputs rounded to the nearest point of the pure variant's grid."""
        step, size = self.grid_step, self.grid_size
        if step is None or size is None:
            raise ValueError("rounding needs the pure variant's grid_step")
        a = self.bounds[0]
        k = np.floor((z - a) / step + 0.5)
        return a + step * np.clip(k, 0, size - 1)

    def _release_slices(
        self, x: np.ndarray, r_tilde: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        h = self.half_width
        S = x[(r_tilde - h - 1)[..., None] + np.arange(2 * h + 1)]  # (k, m, 2h + 1)
        k = len(r_tilde)
        a, b = self.bounds
        if not self.clip_range:
            flat = S.reshape(k * self.m, 2 * h + 1)
            z = self._slice_em(flat, np.full(len(flat), a), np.full(len(flat), b), rng)
            return z.reshape(k, self.m)
        z = np.empty((k, self.m))
        padded = np.empty((k, self.m + 2))  # column 0 = a, column m + 1 = b
        padded[:, 0], padded[:, -1] = a, b
        for idx, left, right in release_levels(self.m):
            lo = padded[:, left + 1].reshape(-1)
            hi = padded[:, right + 1].reshape(-1)
            rows = S[:, idx, :].reshape(-1, 2 * h + 1)
            vals = self._slice_em(rows, lo, hi, rng).reshape(k, len(idx))
            z[:, idx] = vals
            padded[:, idx + 1] = vals
        return z

    def _slice_em(
        self, rows: np.ndarray, lo: np.ndarray, hi: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One SingleQuantile draw per row (slices of sorted data, already in range)."""
        return sample_slices_em(
            rows, lo, hi, self.epsilon2, rng, self.target, check_values=False, method=self.em_method
        )

    # ------------------------------------------------------------------ exact law
    def _law(self, data: np.ndarray) -> GridLaw:
        """The exact output law for tiny instances (:func:`dpquant.reference.slice_quantiles.exact_law
        .output_law`; needs clip_range=False, discrete noise, γ = 0, no grid; refused beyond
        :data:`dpquant.reference.slice_quantiles.exact_law.EXACT_COST_LIMIT`)."""
        return sorted_data_law(self, self._values(data))


def with_options(mech: SliceQuantiles, **changes: Any) -> SliceQuantiles:
    """A copy of ``mech`` with some fields changed (e.g. the faithful options)."""
    if not isinstance(mech, SliceQuantiles):
        raise ParameterError("mech", "must be a SliceQuantiles", type(mech).__name__)
    names = {f.name for f in dataclasses.fields(SliceQuantiles)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise ValueError(f"unknown SliceQuantiles fields {unknown}; known: {sorted(names)}")
    return replace(mech, **changes)
