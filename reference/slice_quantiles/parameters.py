"""Parameters of SliceQuantiles: budget splits, half-width, CC error w, feasibility (spec §2.3–2.5).

* Budget (Sec. 6, authors' mapping, spec §2.3): add/remove ε1 = ε/2, ε2 = ε/4 (ε1 + 2ε2 = ε);
  replace-one ε1 = ε/4, ε2 = ε/6 (2ε1 + 3ε2 = ε). Thm 4.2: the mechanism is (ε1 + 2ε2, δ)-DP under
  add/remove and (2ε1 + 3ε2, δ(1 + e^{ε1+2ε2}))-DP under replace-one, δ = P(‖CC(r) − r‖∞ > w).
* Half-width h of the slices (2h + 1 points, EM target h): ``rule="slice"`` (default)
  h = ⌈(2/ε2)·ln(2mψ/β)⌉, ψ = (b − a)/g, which gives each slice's EM failure probability
  <= 2ψe^{−ε2 h/2} <= β/m (Thm C.1 for a 2h + 1 slice, spec §3); ``rule="paper"`` Sec. 6's
  ℓ = ⌈(2/ε2)·ln(2mψ/β) − 1⌉ (written for 2ℓ + 2 points; used as a half-width it is one short).
* Feasibility (Thm 4.2's precondition r ∈ Good_{m,n,h+w+1}, in its corrected form): with
  ‖r̃ − r‖∞ <= w, r ∈ Good*_{m,n−1,h+1+w} implies r̃ ∈ Good*_{m,n−1,h+1}, the set whose complement
  bounds δ for every neighbour of a data set of public size n (proofs_checks/test_imola25.py).
* Pure DP (Lemma 4.3, Cor. 4.4 corrected, spec §2.4, §5 item 7): mixing with probability γ with the
  uniform law on the output grid Y^m is (ε_A, 0)-DP when the approximate mechanism is (ε_A, δ_A)-DP
  with δ_A = γ(e^{ε_A} − 1)/|Y|^m — (e^ε − 1) in the numerator of δ, i.e. in the *denominator* of
  the paper's log(2m(e^ε − 1)/γ). Computed in log space (|Y|^m is far below float range).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference.core import check_adjacency
from reference.slice_quantiles.good_set import in_good_set, min_gap
from reference.validation import check_epsilon, check_int, check_positive, check_probability

HALF_WIDTH_RULES = ("slice", "paper")


@dataclass(frozen=True)
class BudgetSplit:
    """(ε1, ε2) for CC and the EM, and the total ε the split composes to (Thm 4.2)."""

    epsilon1: float
    epsilon2: float
    adjacency: str

    @property
    def total(self) -> float:
        return total_epsilon(self.epsilon1, self.epsilon2, self.adjacency)


def central_adjacency(adjacency: Any) -> str:
    adjacency = check_adjacency(adjacency)
    if adjacency not in ("add_remove", "replace_one"):
        raise ValueError("adjacency must be 'add_remove' or 'replace_one' for SliceQuantiles")
    return adjacency


def total_epsilon(epsilon1: float, epsilon2: float, adjacency: str) -> float:
    """Thm 4.2: ε1 + 2ε2 (add/remove) or 2ε1 + 3ε2 (replace-one)."""
    e1, e2 = check_epsilon(epsilon1, "epsilon1"), check_epsilon(epsilon2, "epsilon2")
    if central_adjacency(adjacency) == "add_remove":
        return e1 + 2 * e2
    return 2 * e1 + 3 * e2


def budget_split(epsilon: float, adjacency: str) -> BudgetSplit:
    """The authors' split of ε (spec §2.3): half to CC, the rest to the EM."""
    eps = check_epsilon(epsilon)
    if central_adjacency(adjacency) == "add_remove":
        return BudgetSplit(eps / 2, eps / 4, "add_remove")
    return BudgetSplit(eps / 4, eps / 6, "replace_one")


def delta_multiplier(epsilon1: float, epsilon2: float, adjacency: str) -> float:
    """Thm 4.2's δ factor: 1 (add/remove) or 1 + e^{ε1+2ε2} (replace-one, via an intermediate
    data set). The CC must fail with probability <= δ_total / multiplier (the authors multiply
    instead, spec §5 item 24)."""
    if central_adjacency(adjacency) == "add_remove":
        return 1.0
    return 1.0 + math.exp(epsilon1 + 2 * epsilon2)


def half_width(m: int, epsilon2: float, psi: float, beta: float = 0.05, rule: str = "slice") -> int:
    """Half-width h of the slices (module docstring); ψ = (b − a)/g >= 1."""
    m = check_int(m, "m", minimum=1)
    e2 = check_epsilon(epsilon2, "epsilon2")
    psi = check_positive(psi, "psi")
    beta = check_probability(beta, "beta", open_left=True, open_right=True)
    if rule not in HALF_WIDTH_RULES:
        raise ValueError(f"rule must be one of {HALF_WIDTH_RULES}, got {rule!r}")
    x = (2.0 / e2) * math.log(2.0 * m * psi / beta)
    return max(0, math.ceil(x if rule == "slice" else x - 1.0))


def target_ranks(quantiles: Any, n: int) -> np.ndarray:
    """r_i = ⌊q_i·n⌋ for strictly increasing q_i in (0, 1) (spec §1)."""
    q = np.asarray(quantiles, dtype=float)
    if q.ndim != 1 or q.size == 0:
        raise ValueError("quantiles must be a non-empty 1-D sequence")
    if not np.all(np.isfinite(q)) or np.any(q <= 0) or np.any(q >= 1):
        raise ValueError("quantiles must lie in the open interval (0, 1)")
    if np.any(np.diff(q) <= 0):
        raise ValueError("quantiles must be strictly increasing (sorted, no duplicates)")
    n = check_int(n, "n", minimum=1)
    return np.floor(q * n).astype(np.int64)


def check_ranks(ranks: Any, n: int) -> np.ndarray:
    """Public ranks: strictly increasing integers in [1, n]."""
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("ranks must be a non-empty 1-D sequence of integers")
    if not np.issubdtype(r.dtype, np.integer):
        if not np.all(np.isfinite(r)) or np.any(r != np.round(r)):
            raise ValueError("ranks must be integers")
    r = r.astype(np.int64)
    if np.any(r < 1) or np.any(r > n):
        raise ValueError(f"ranks must lie in [1, n] = [1, {n}]")
    if np.any(np.diff(r) <= 0):
        raise ValueError("ranks must be strictly increasing (sorted, no duplicates)")
    return r


def required_spacing(h: int, w: int, rule: str = "corrected") -> int:
    """Minimum r_i − r_{i−1} for r ∈ Good_{m,·,h+1+w}: 2(h + 1 + w) + 1 (corrected rule)."""
    return min_gap(h + 1 + w, rule)


def check_feasible(ranks: np.ndarray, n: int, h: int, w: int, rule: str = "corrected") -> None:
    """Refuse ranks outside Good_{m,n−1,h+1+w} (module docstring) with an explanation."""
    r = np.asarray(ranks, dtype=np.int64)
    k = h + 1 + w
    if in_good_set(r, n - 1, k, rule):
        return
    need = required_spacing(h, w, rule)
    spacing = int(np.min(np.diff(r))) if r.size > 1 else None
    raise ValueError(
        "infeasible ranks for SliceQuantiles: need r_1 >= "
        f"{k + 1}, r_m <= {n - 1 - k} and consecutive ranks at least {need} apart "
        f"(half-width h = {h}, CC error bound w = {w}, n = {n}); got r_1 = {int(r[0])}, "
        f"r_m = {int(r[-1])}, minimum spacing {spacing}. Use more data, fewer or more widely "
        "spaced quantiles, a larger epsilon or a larger delta."
    )


def pure_log_delta(gamma: float, epsilon_a: float, grid_size: int, m: int) -> float:
    """log δ_A with δ_A = γ(e^{ε_A} − 1)/|Y|^m (Lemma 4.3 solved for δ, corrected Cor. 4.4)."""
    gamma = check_probability(gamma, "gamma", open_left=True, open_right=True)
    eps = check_epsilon(epsilon_a, "epsilon_a")
    grid_size = check_int(grid_size, "grid_size", minimum=2)
    m = check_int(m, "m", minimum=1)
    return math.log(gamma) + math.log(math.expm1(eps)) - m * math.log(grid_size)


def paper_pure_w(
    m: int, epsilon1: float, epsilon2: float, gamma: float, b: float, adjacency: str, base: float
) -> float:
    """Cor. 4.4's w as printed (spec §2.4): (3 log m/ε1)(m log b + log(2m(e^{ε2} − 1)/γ))
    (add/remove) or (3 log m/ε1)(m log b + log(2m(e^{ε1} − 1)/γ) + ε1 + 2ε2) (replace-one), logs in
    ``base`` (the Sec. 4 worked example, w ≈ 65,000, needs base 2)."""
    lg = (lambda x: math.log(x, base)) if base != math.e else math.log
    if central_adjacency(adjacency) == "add_remove":
        inner = m * lg(b) + lg(2 * m * math.expm1(epsilon2) / gamma)
    else:
        inner = m * lg(b) + lg(2 * m * math.expm1(epsilon1) / gamma) + epsilon1 + 2 * epsilon2
    return 3 * lg(m) / epsilon1 * inner
