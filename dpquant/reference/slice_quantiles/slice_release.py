"""SliceQuantiles planned from (ε, δ): imola25 Algorithm 1 with the parameters of Sec. 6's
implementation details, and the one-call release :func:`slice_quantiles`.

:func:`plan_slice_quantiles` chooses the budget split, the half-width, the CC error bound w from
the exact tail (:func:`cc_error`) and checks feasibility (:mod:`dpquant.reference.slice_quantiles
.parameters`); it returns a :class:`SliceQuantilesPlan` whose ``mechanism`` is the configured
:class:`~dpquant.reference.slice_quantiles.mechanism.SliceQuantiles`. Most users call
:func:`slice_quantiles`, which plans and returns the m estimates.

Public n (notes/imola25.md, "Public ranks"; erratum 12): the ranks must not depend on private
data. Under replace-one the size n = len(data) is public; under add/remove pass ``n`` (a public
size, e.g. a published count) and the guarantee covers data sets of size >= n − 1 (the
feasibility check uses Good*_{m,n−1,h+1+w}).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.continual_counting import NOISES, tree_height
from dpquant.reference.slice_quantiles.cc_tails import cc_error_bound, resolve_log_delta
from dpquant.reference.slice_quantiles.good_set import MAX_RANK
from dpquant.reference.slice_quantiles.inputs import MAX_QUANTILES
from dpquant.reference.slice_quantiles.mechanism import MAX_CC_SCALE, SliceQuantiles
from dpquant.reference.slice_quantiles.parameters import (
    HALF_WIDTH_RULES,
    budget_split,
    central_adjacency,
    check_feasible,
    check_ranks,
    grid_count,
    log_delta_multiplier,
    pure_log_delta,
    target_ranks,
    total_epsilon,
)
from dpquant.reference.slice_quantiles.parameters import (
    half_width as choose_half_width,
)
from dpquant.reference.slice_quantiles.single_quantile import TARGETS
from dpquant.reference.validation import (
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
            raise ParameterError(
                "mechanism",
                "must be a SliceQuantiles",
                type(self.mechanism).__name__,
            )
        check_int(self.n, "n", minimum=1, maximum=MAX_RANK)
        check_int(self.w, "w", minimum=0)
        check_choice(self.variant, "variant", VARIANTS)
        check_probability(self.cc_delta, "cc_delta")
        if check_finite(self.cc_log_delta, "cc_log_delta") > 0:
            raise ParameterError("cc_log_delta", "must be <= 0", repr(self.cc_log_delta))
        check_choice(self.error_bound, "error_bound", ERROR_BOUNDS)

    @property
    def claim(self) -> PrivacyClaim:
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
    """w: the CC max-error bound at failure probability δ (``dpquant.reference.slice_quantiles.cc_tails``),
    cached (experiments plan thousands of releases with the same parameters)."""
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


def _check_pure_options(variant: str, gamma: float | None, grid_step: float | None) -> None:
    """``gamma`` (Lemma 4.3's uniform mixing) and ``grid_step`` (the output grid Y of Cor. 4.4)
    belong to the pure variant: with variant "approximate" (γ = 0, real outputs) they would have
    no effect, and are refused."""
    if variant != "approximate":
        return
    meaning = {
        "gamma": "the probability of the uniform output (Lemma 4.3)",
        "grid_step": "the output grid Y (Cor. 4.4)",
    }
    for name, value in (("gamma", gamma), ("grid_step", grid_step)):
        if value is not None:
            raise ValueError(
                f"{name} = {value!r} is {meaning[name]} of variant='pure'; variant='approximate' "
                f"has γ = 0 and real-valued outputs: drop {name}, or pass variant='pure' with "
                "delta = 0"
            )


@dataclass(frozen=True)
class _HalfWidthRule:
    """How h is derived from the data's minimum spacing (Sec. 6): ``min_gap`` g gives
    ψ = (b − a)/g and h = ⌈(2/ε2)·ln(2mψ/β)⌉ (``beta``; ``rule``); None where not given."""

    min_gap: float | None
    beta: float | None
    rule: str | None

    def half_width(self, m: int, epsilon2: float, bounds: tuple[float, float]) -> int:
        """h for m quantiles at budget ε2 on ``bounds`` (refused without ``min_gap``)."""
        if self.min_gap is None:
            raise ValueError(
                "give half_width, or min_gap (the data's minimum spacing) to derive it"
            )
        psi = (bounds[1] - bounds[0]) / self.min_gap
        if not math.isfinite(psi):
            raise ParameterError(
                "min_gap",
                "is too small: (b − a)/min_gap overflows",
                repr(self.min_gap),
            )
        beta = 0.05 if self.beta is None else self.beta
        return choose_half_width(m, epsilon2, psi, beta, self.rule or "slice")

    def describe(self, bounds: tuple[float, float]) -> str:
        """Where a derived h comes from, for the planner's messages."""
        beta = 0.05 if self.beta is None else self.beta
        return (
            f"half_width derived from min_gap = {self.min_gap!r}, beta = {beta!r} and bounds = "
            f"{bounds!r} (h = ⌈(2/ε2)·ln(2mψ/β)⌉, ψ = (b − a)/min_gap; half_width_rule = "
            f"{self.rule or 'slice'!r}); pass half_width to fix h"
        )


def _resolve_half_width(
    m: int, epsilon2: float, bounds: tuple[float, float], half_width: Any, derive: _HalfWidthRule
) -> int:
    """h: ``half_width`` or the one ``derive`` gives; both only when they agree, and ``beta`` or
    ``half_width_rule`` only with min_gap (otherwise they would have no effect)."""
    if half_width is None:
        return derive.half_width(m, epsilon2, bounds)
    h = check_int(half_width, "half_width", minimum=0, maximum=MAX_RANK)
    if derive.min_gap is None:
        for name, value in (("beta", derive.beta), ("half_width_rule", derive.rule)):
            if value is not None:
                raise ValueError(
                    f"{name} = {value!r} only enters the half-width derived from min_gap "
                    f"(h = ⌈(2/ε2)·ln(2mψ/β)⌉, ψ = (b − a)/min_gap); with half_width = {h} it has "
                    f"no effect: drop {name}, or give min_gap instead of half_width"
                )
        return h
    derived = derive.half_width(m, epsilon2, bounds)
    if h != derived:
        raise ValueError(
            f"min_gap = {derive.min_gap!r} and half_width = {h} contradict each other: min_gap "
            f"derives the half-width h = {derived} (⌈(2/ε2)·ln(2mψ/β)⌉, ψ = (b − a)/min_gap). "
            "Give half_width alone to fix h (and grid_step for the pure variant's output grid), "
            "or min_gap alone to derive h"
        )
    return h


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
    beta: float | None = None,
    half_width_rule: str | None = None,
    epsilon_split: tuple[float, float] | None = None,
    error_bound: str = "exact",
    noise: str = "discrete",
    gamma: float | None = None,
    grid_step: float | None = None,
    clip_range: bool = True,
    target: str = "paper",
    clamp: bool = False,
) -> SliceQuantilesPlan:
    """Choose SliceQuantiles' parameters for a public size n and refuse infeasible ranks.

    approximate: γ = 0, δ in (0, 1); the CC must fail with probability <= δ/(1 + e^{ε1+2ε2})
    (replace-one) or δ (add/remove), w = the exact-tail bound (``error_bound``).
    pure: δ = 0, γ in (0, 1) (``gamma``, default 0.05), ``grid_step`` (default ``min_gap``); the
    CC failure probability is the corrected Cor. 4.4 value γ(e^ε − 1)/|Y|^m (divided by the
    replace-one factor; at least 1 means any CC error is allowed, w = 0).
    The half-width is ``half_width`` or ⌈(2/ε2)·ln(2mψ/β)⌉ with ψ = (b − a)/``min_gap``
    (``beta`` default 0.05, ``half_width_rule`` default "slice").

    Options that would have no effect or contradict another are refused (notes/imola25.md,
    "Issue 34"): ``gamma`` and ``grid_step`` with variant "approximate"; ``beta`` and
    ``half_width_rule`` with ``half_width`` but no ``min_gap``; ``min_gap`` with a
    ``half_width`` other than the one it derives.
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_RANK)
    bounds = check_domain(bounds, "bounds", finite=True)
    adjacency = central_adjacency(adjacency)
    variant = check_choice(variant, "variant", VARIANTS)
    error_bound = check_choice(error_bound, "error_bound", ERROR_BOUNDS)
    noise = check_choice(noise, "noise", NOISES)
    target = check_choice(target, "target", TARGETS)
    clip_range = check_flag(clip_range, "clip_range")
    clamp = check_flag(clamp, "clamp")
    epsilon = check_epsilon(epsilon)
    if beta is not None:
        beta = check_probability(beta, "beta", open_left=True, open_right=True)
    if half_width_rule is not None:
        half_width_rule = check_choice(half_width_rule, "half_width_rule", HALF_WIDTH_RULES)
    if gamma is not None:
        gamma = check_probability(gamma, "gamma", open_left=True, open_right=True)
    if min_gap is not None:
        min_gap = check_positive(min_gap, "min_gap")
    if grid_step is not None:
        grid_step = check_positive(grid_step, "grid_step")
    _check_pure_options(variant, gamma, grid_step)
    r = _ranks_for(quantiles, ranks, n)
    m = len(r)
    if epsilon_split is None:
        split = budget_split(epsilon, adjacency)
        e1, e2 = split.epsilon1, split.epsilon2
    else:
        if not isinstance(epsilon_split, list | tuple) or len(epsilon_split) != 2:
            raise ParameterError(
                "epsilon_split",
                "must be a pair (epsilon1, epsilon2)",
                f"{epsilon_split!r:.80}",
            )
        e1 = check_epsilon(epsilon_split[0], "epsilon_split[0]")
        e2 = check_epsilon(epsilon_split[1], "epsilon_split[1]")
        try:
            total = total_epsilon(e1, e2, adjacency)
        except ValueError:
            raise ParameterError("epsilon_split", "must compose to epsilon (Thm 4.2)") from None
        if not math.isclose(total, epsilon, rel_tol=1e-12):
            raise ParameterError("epsilon_split", "must compose to epsilon (Thm 4.2)")
    derive = _HalfWidthRule(min_gap, beta, half_width_rule)
    h = _resolve_half_width(m, e2, bounds, half_width, derive)
    log_factor = log_delta_multiplier(e1, e2, adjacency)
    eps_total = total_epsilon(e1, e2, adjacency)
    if variant == "approximate":
        delta = check_delta(delta)
        if delta == 0:
            raise ParameterError(
                "delta",
                "must be in (0, 1) for variant='approximate' (use 'pure')",
            )
        log_cc = math.log(delta) - log_factor
        cc_delta = math.exp(log_cc)
        g, step = 0.0, None
    else:
        if check_delta(delta) != 0:
            raise ParameterError("delta", "must be 0 for variant='pure'")
        g = 0.05 if gamma is None else gamma
        step = grid_step if grid_step is not None else min_gap
        if step is None:
            raise ValueError("variant='pure' needs grid_step (or min_gap) for the output grid")
        step = check_positive(step, "grid_step")
        size_y = grid_count(bounds, step)
        if size_y < 2:
            raise ParameterError("grid_step", "must leave at least two grid points in bounds")
        # δ_CC >= 1 (a huge ε): any CC error is allowed, δ_CC is capped at 1 and w = 0
        log_cc = min(0.0, pure_log_delta(g, eps_total, size_y, m) - log_factor)
        cc_delta = math.exp(log_cc)
    if tree_height(m) / e1 > MAX_CC_SCALE:
        raise ParameterError(
            "epsilon",
            f"is too small: epsilon1 = {e1!r} gives a CC noise scale above {MAX_CC_SCALE:g} "
            f"(epsilon1 must be at least {tree_height(m) / MAX_CC_SCALE:.4g})",
        )
    if log_cc == 0:
        w = 0
    elif cc_delta > 0 and log_cc > -700:
        w = cc_error(e1, m, noise, error_bound, delta=cc_delta)
    else:
        w = cc_error(e1, m, noise, error_bound, log_delta=log_cc)
    try:
        check_feasible(r, n, h, w)
    except ValueError as exc:  # say which options set h and w
        notes = [] if half_width is not None else [derive.describe(bounds)]
        if variant == "pure":
            notes.append(
                f"w is the CC error at the pure variant's δ_CC = γ(e^ε − 1)/|Y|^m, from gamma = "
                f"{g!r} and grid_step = {step!r} (|Y| grid points)"
            )
        raise ValueError("; ".join([str(exc), *notes])) from None
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
