"""Kaplan–Schnapp–Stemmer ApproximateQuantiles (AQ; the paper's [14]), imola25's baseline in Sec. 6
and Figure 1, as in the authors' fork of github.com/ShacharSchnapp/DP_AQ (notes/imola25.md,
erratum 27).

AQ releases the middle quantile q* = Q[⌊|Q|/2⌋] of the current sub-problem with the exponential
mechanism (EM) on the current data subset X_s and range (lo, hi), splits the data at the released
value v (X_l = X_s[X_s <= v], X_u = X_s[X_s >= v]) and the remaining quantiles (rescaled to
q/q* and (q − q*)/(1 − q*)), and recurses on (X_l, (lo, v)) and (X_u, (v, hi)). The outputs are
monotone by construction and are returned in quantile order (= sorted). The recursion and the
per-call budget ε' are in :mod:`~dpquant.reference.slice_quantiles.aq_recursion`.

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
:class:`dpquant.reference.primitives.exponential_mechanism.ExponentialQuantile` by conformance tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import MechanismBase
from dpquant.reference.measures import ZCDPClaim
from dpquant.reference.slice_quantiles.aq_recursion import (
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
from dpquant.reference.slice_quantiles.inputs import (
    check_adjacency_central,
    check_release_fields,
    check_sorted_inside,
    clamp_sort,
    clamp_sorted,
)
from dpquant.reference.slice_quantiles.subset_em import (
    DRAW_BUDGET,
    EM_METHODS,
    Subsets,
    em_by_blocks,
    subset_em_unchecked,
)
from dpquant.reference.slice_quantiles.zcdp import check_zcdp_delta
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_domain,
    check_epsilon,
    check_flag,
    check_positive,
    check_rng,
    check_size,
)

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
        raise ParameterError("plan", "must be an aq_plan(quantiles)", type(plan).__name__)
    bounds = check_domain(bounds, "bounds", finite=True)
    x = check_sorted_inside(x, bounds)
    eps_prime = check_epsilon(eps_prime, "eps_prime")
    size, rng = check_size(size, minimum=1), check_rng(rng)
    limit = _aq_draw_limit(len(plan.order), x.size)
    if size > limit:
        raise ParameterError("size", f"must be at most {limit} for AQ on this data", size)
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
        v = subset_em_unchecked(x, gaps, subsets, node.q, scale, rng, method)
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
    (:func:`em_by_blocks`): a call depends only on its ancestors' values, which the depths above
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
        v = em_by_blocks(x, start, stop - start, lo, hi, q, scale, rng)
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
    """AQ as a :class:`dpquant.reference.core.Mechanism`: claim (ε, 0) (pure) or (ε, δ) (zcdp, ρ =
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
    def zcdp_claim(self) -> ZCDPClaim:
        """The zCDP claim of the mechanism: ρ-zCDP in mode ``"zcdp"`` (the ρ its budget was
        split from), ε²/2-zCDP in mode ``"pure"`` (Bun and Steinke 2016, Proposition 1.4). Under
        replace-one the faithful composition meets only 2ρ (module docstring, "Caveat"): an audit
        at this claim is expected to find that."""
        rho = self.rho if self.rho is not None else self.epsilon**2 / 2.0
        return ZCDPClaim(rho, adjacency=self.adjacency)

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
