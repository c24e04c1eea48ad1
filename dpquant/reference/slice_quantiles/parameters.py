"""Parameters of SliceQuantiles: budget splits, half-width, CC error w, feasibility (Sec. 3.2, 4, 6).

* Budget (Sec. 6 "divide it equally", as the authors' repository maps it, notes/imola25.md
  erratum 21): add/remove ε1 = ε/2, ε2 = ε/4 (ε1 + 2ε2 = ε);
  replace-one ε1 = ε/4, ε2 = ε/6 (2ε1 + 3ε2 = ε). Thm 4.2: the mechanism is (ε1 + 2ε2, δ)-DP under
  add/remove and (2ε1 + 3ε2, δ(1 + e^{ε1+2ε2}))-DP under replace-one, δ = P(‖CC(r) − r‖∞ > w).
* Half-width h of the slices (2h + 1 points, EM target h): ``rule="slice"`` (default)
  h = ⌈(2/ε2)·ln(2mψ/β)⌉, ψ = (b − a)/g, which gives each slice's EM failure probability
  <= 2ψe^{−ε2 h/2} <= β/m (Thm C.1's proof for a 2h + 1 slice); ``rule="paper"`` Sec. 6's
  ℓ = ⌈(2/ε2)·ln(2mψ/β) − 1⌉ (written for 2ℓ + 2 points; used as a half-width it is one short).
* Feasibility (Thm 4.2's precondition r ∈ Good_{m,n,h+w+1}, in its corrected form): with
  ‖r̃ − r‖∞ <= w, r ∈ Good*_{m,n−1,h+1+w} implies r̃ ∈ Good*_{m,n−1,h+1}, the set whose complement
  bounds δ for every neighbour of a data set of public size n (proofs_checks/test_imola25.py).
* Pure DP (Lemma 4.3, Cor. 4.4 corrected, notes/imola25.md erratum 7): mixing with probability γ with the
  uniform law on the output grid Y^m is (ε_A, 0)-DP when the approximate mechanism is (ε_A, δ_A)-DP
  with δ_A = γ(e^{ε_A} − 1)/|Y|^m — (e^ε − 1) in the numerator of δ, i.e. in the *denominator* of
  the paper's log(2m(e^ε − 1)/γ). Computed in log space (|Y|^m is far below float range).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency
from dpquant.reference.slice_quantiles.good_set import (
    MAX_RANK,
    check_rule,
    in_good_set,
    min_gap,
)
from dpquant.reference.slice_quantiles.inputs import (
    MAX_QUANTILES,
    check_adjacency_central,
    check_int_array,
    check_quantiles,
)
from dpquant.reference.validation import (
    check_choice,
    check_domain,
    check_epsilon,
    check_int,
    check_positive,
    check_probability,
    check_real,
)

HALF_WIDTH_RULES = ("slice", "paper")
MAX_GRID = 2**52
"""Most points of the pure variant's output grid (a + k·step exact in float64)."""

_LOG_MAX = math.log(1.7976931348623157e308)  # exp(x) overflows a float64 above this


@dataclass(frozen=True)
class BudgetSplit:
    """(ε1, ε2) for CC and the EM, and the total ε the split composes to (Thm 4.2)."""

    epsilon1: float
    epsilon2: float
    adjacency: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon1", check_epsilon(self.epsilon1, "epsilon1"))
        object.__setattr__(self, "epsilon2", check_epsilon(self.epsilon2, "epsilon2"))
        central_adjacency(self.adjacency)

    @property
    def total(self) -> float:
        return total_epsilon(self.epsilon1, self.epsilon2, self.adjacency)


def central_adjacency(adjacency: Any) -> Adjacency:
    """:func:`~dpquant.reference.slice_quantiles.inputs.check_adjacency_central` for SliceQuantiles."""
    return check_adjacency_central(adjacency, "SliceQuantiles")


def total_epsilon(epsilon1: float, epsilon2: float, adjacency: str) -> float:
    """Thm 4.2: ε1 + 2ε2 (add/remove) or 2ε1 + 3ε2 (replace-one); refused when it overflows."""
    e1, e2 = check_epsilon(epsilon1, "epsilon1"), check_epsilon(epsilon2, "epsilon2")
    if central_adjacency(adjacency) == "add_remove":
        total = e1 + 2 * e2
    else:
        total = 2 * e1 + 3 * e2
    if not math.isfinite(total):
        raise ValueError(
            "epsilon1 and epsilon2 must compose to a finite total epsilon (Thm 4.2: "
            "epsilon1 + 2·epsilon2 or 2·epsilon1 + 3·epsilon2 <= 1.8e308)"
        )
    return total


def budget_split(epsilon: float, adjacency: str) -> BudgetSplit:
    """The authors' split of ε (Sec. 6, notes/imola25.md erratum 21): half to CC, the rest to the EM."""
    eps = check_epsilon(epsilon)
    if central_adjacency(adjacency) == "add_remove":
        e1, e2 = eps / 2, eps / 4
    else:
        e1, e2 = eps / 4, eps / 6
    if e2 == 0:
        raise ParameterError(
            "epsilon",
            "is too small to split (epsilon/6 underflows to 0)",
            repr(eps),
        )
    return BudgetSplit(e1, e2, adjacency)


def log_delta_multiplier(epsilon1: float, epsilon2: float, adjacency: str) -> float:
    """log of :func:`delta_multiplier` (finite for every valid ε1, ε2)."""
    e1, e2 = check_epsilon(epsilon1, "epsilon1"), check_epsilon(epsilon2, "epsilon2")
    if central_adjacency(adjacency) == "add_remove":
        return 0.0
    x = e1 + 2 * e2
    if not math.isfinite(x):
        raise ValueError("epsilon1 + 2·epsilon2 must be a finite float (<= 1.8e308)")
    return x + math.log1p(math.exp(-x))  # log(1 + e^x) without overflow


def delta_multiplier(epsilon1: float, epsilon2: float, adjacency: str) -> float:
    """Thm 4.2's δ factor: 1 (add/remove) or 1 + e^{ε1+2ε2} (replace-one, via an intermediate
    data set). The CC must fail with probability <= δ_total / multiplier (the authors multiply
    instead, notes/imola25.md erratum 24). Refused when it overflows a float (use
    :func:`log_delta_multiplier`)."""
    log_factor = log_delta_multiplier(epsilon1, epsilon2, adjacency)
    if log_factor > _LOG_MAX:
        raise ValueError(
            "1 + e^(epsilon1 + 2·epsilon2) overflows a float64: epsilon1 + 2·epsilon2 must be "
            f"<= {_LOG_MAX:.1f} here (log_delta_multiplier has no limit)"
        )
    if log_factor == 0.0:
        return 1.0
    return 1.0 + math.exp(float(epsilon1) + 2 * float(epsilon2))


def half_width(m: int, epsilon2: float, psi: float, beta: float = 0.05, rule: str = "slice") -> int:
    """Half-width h of the slices (module docstring); ψ = (b − a)/g >= 1. Refused when h would
    exceed :data:`dpquant.reference.slice_quantiles.good_set.MAX_RANK` (a tiny ε2)."""
    m = check_int(m, "m", minimum=1, maximum=MAX_QUANTILES)
    e2 = check_epsilon(epsilon2, "epsilon2")
    psi = check_positive(psi, "psi")
    beta = check_probability(beta, "beta", open_left=True, open_right=True)
    rule = check_choice(rule, "rule", HALF_WIDTH_RULES)
    ratio = 2.0 * m * psi / beta
    log_ratio = (
        math.log(ratio)
        if math.isfinite(ratio) and ratio > 0
        else math.log(2.0) + math.log(m) + math.log(psi) - math.log(beta)
    )
    x = (2.0 / e2) * log_ratio
    if rule == "paper":
        x -= 1.0
    if not x <= MAX_RANK:  # also catches inf
        raise ValueError(
            f"the half-width (2/epsilon2)·ln(2·m·psi/beta) is more than {MAX_RANK}: epsilon2 is "
            f"too small (got {e2!r}; or pass half_width directly)"
        )
    return max(0, math.ceil(x))


def target_ranks(quantiles: Any, n: int) -> np.ndarray:
    """r_i = ⌊q_i·n⌋ for strictly increasing q_i in (0, 1) (Sec. 2: Err_X(Q, Z) uses ⌊q_i n⌋)."""
    q = check_quantiles(quantiles)
    n = check_int(n, "n", minimum=1, maximum=MAX_RANK)
    return np.clip(np.floor(q * n), 0, n).astype(np.int64)


def check_ranks(ranks: Any, n: int, name: str = "ranks") -> np.ndarray:
    """Public ranks: a non-empty 1-D sequence of at most :data:`MAX_QUANTILES` strictly
    increasing integers (ints, not floats or bools) in [1, n]."""
    n = check_int(n, "n", minimum=1, maximum=MAX_RANK)
    if isinstance(ranks, list | tuple | range | np.ndarray) and len(ranks) > MAX_QUANTILES:
        raise ParameterError(name, f"must hold at most {MAX_QUANTILES} ranks", len(ranks))
    r = check_int_array(ranks, name)
    if r.ndim != 1 or r.size == 0:
        raise ParameterError(name, "must be a non-empty 1-D sequence of integers")
    if np.any(r < 1) or np.any(r > n):
        raise ParameterError(name, f"must lie in [1, n] = [1, {n}]")
    if np.any(np.diff(r) <= 0):
        raise ParameterError(name, "must be strictly increasing (sorted, no duplicates)")
    return r


def required_spacing(h: int, w: int, rule: str = "corrected") -> int:
    """Minimum r_i − r_{i−1} for r ∈ Good_{m,·,h+1+w}: 2(h + 1 + w) + 1 (corrected rule)."""
    h = check_int(h, "h", minimum=0, maximum=MAX_RANK)
    w = check_int(w, "w", minimum=0, maximum=MAX_RANK)
    return min_gap(h + 1 + w, rule)


def check_feasible(ranks: np.ndarray, n: int, h: int, w: int, rule: str = "corrected") -> None:
    """Refuse ranks outside Good_{m,n−1,h+1+w} (module docstring) with an explanation."""
    r = check_ranks(ranks, n)
    h = check_int(h, "h", minimum=0, maximum=MAX_RANK)
    w = check_int(w, "w", minimum=0, maximum=MAX_RANK)
    rule = check_rule(rule)
    k = h + 1 + w
    if k <= MAX_RANK and in_good_set(r, n - 1, k, rule):
        return
    need = 2 * k + 1 if rule == "corrected" else 2 * k
    spacing = int(np.min(np.diff(r))) if r.size > 1 else None
    raise ValueError(
        "infeasible ranks for SliceQuantiles: need r_1 >= "
        f"{k + 1}, r_m <= {n - 1 - k} and consecutive ranks at least {need} apart "
        f"(half_width h = {h}, CC error bound w = {w} (error_bound), n = {n}); got r_1 = "
        f"{int(r[0])}, "
        f"r_m = {int(r[-1])}, minimum spacing {spacing}. Use more data, fewer or more widely "
        "spaced quantiles, a larger epsilon or a larger delta."
    )


def log_expm1(x: float) -> float:
    """log(e^x − 1) for x > 0 (inf allowed) without overflow."""
    x = check_real(x, "x")
    if not x > 0:
        raise ParameterError("x", "must be > 0 (log(e^x - 1) is real only there)", repr(x))
    return x + math.log(-math.expm1(-x)) if x > 1.0 else math.log(math.expm1(x))


def pure_log_delta(gamma: float, epsilon_a: float, grid_size: int, m: int) -> float:
    """log δ_A with δ_A = γ(e^{ε_A} − 1)/|Y|^m (Lemma 4.3 solved for δ, corrected Cor. 4.4)."""
    gamma = check_probability(gamma, "gamma", open_left=True, open_right=True)
    eps = check_epsilon(epsilon_a, "epsilon_a")
    grid_size = check_int(grid_size, "grid_size", minimum=2)
    m = check_int(m, "m", minimum=1, maximum=MAX_QUANTILES)
    value = math.log(gamma) + log_expm1(eps) - m * math.log(grid_size)
    if not math.isfinite(value):
        raise ValueError("log delta is not a finite float for these gamma, epsilon_a, grid_size, m")
    return value


def paper_pure_w(
    m: int, epsilon1: float, epsilon2: float, gamma: float, b: float, adjacency: str, base: float
) -> float:
    """Cor. 4.4's w as printed (notes/imola25.md erratum 7 has the correction): (3 log m/ε1)(m log b + log(2m(e^{ε2} − 1)/γ))
    (add/remove) or (3 log m/ε1)(m log b + log(2m(e^{ε1} − 1)/γ) + ε1 + 2ε2) (replace-one), logs in
    ``base`` (> 0, ≠ 1; the Sec. 4 worked example, w ≈ 65,000, needs base 2). Refused when the
    value is not a finite float."""
    m = check_int(m, "m", minimum=1, maximum=MAX_QUANTILES)
    e1, e2 = check_epsilon(epsilon1, "epsilon1"), check_epsilon(epsilon2, "epsilon2")
    gamma = check_probability(gamma, "gamma", open_left=True, open_right=True)
    b = check_positive(b, "b")
    base = check_positive(base, "base")
    if base == 1.0:
        raise ParameterError("base", "must be a positive number other than 1")
    log_base = 1.0 if base == math.e else math.log(base)

    def lg(log_x: float) -> float:
        return log_x / log_base

    if central_adjacency(adjacency) == "add_remove":
        inner = m * lg(math.log(b)) + lg(math.log(2 * m) + log_expm1(e2) - math.log(gamma))
    else:
        inner = (
            m * lg(math.log(b))
            + lg(math.log(2 * m) + log_expm1(e1) - math.log(gamma))
            + e1
            + 2 * e2
        )
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(np.float64(3.0) * lg(math.log(m)) / e1 * inner)
    if not math.isfinite(value):
        raise ParameterError(
            "paper_pure_w",
            "is not a finite float for these parameters (m, epsilon1, epsilon2, gamma, b, base)",
        )
    return value


def grid_count(bounds: tuple[float, float], step: float, name: str = "grid_step") -> int:
    """|Y|: the number of grid points a + k·step (k = 0, 1, ...) that are <= b, computed in the
    floats the sampler uses (so a + (|Y| − 1)·step <= b exactly); at most :data:`MAX_GRID`."""
    a, b = check_domain(bounds, "bounds", finite=True)
    step = check_positive(step, name)
    if step > b - a:
        raise ParameterError(name, f"must not exceed the width of bounds ({b - a!r})", repr(step))
    ratio = (b - a) / step
    if not ratio < MAX_GRID:
        raise ParameterError(
            name,
            f"must be at least (b − a)/{MAX_GRID} = {(b - a) / MAX_GRID:.4g} for bounds ({a!r}, "
            f"{b!r}) (at most {MAX_GRID} grid points)",
            repr(step),
        )
    k = int(math.floor(ratio))
    for _ in range(4):
        if k > 0 and a + k * step > b:
            k -= 1
    for _ in range(4):
        if a + (k + 1) * step <= b:
            k += 1
    return k + 1
