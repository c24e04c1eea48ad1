"""SliceQuantiles' parameters in the imola25 study and the smallest feasible duplication factor.

With a correct continual counter (binary tree, the exact tail w) the paper's n ≈ 5·10⁵ is
infeasible (``notes/imola25.md``, "Errata", item 28), so for each adjacency :func:`find_duplication`
returns the smallest k such that *every* draw of m quantiles from the 250-grid passes
SliceQuantiles' feasibility check for every m of the study. The binding draw contains two
consecutive grid points and the two extreme ones, so the check runs on all 250 grid ranks with
the h and w of each m. ``duplication=K`` forces k; a SliceQuantiles run whose draw is then
infeasible is skipped and counted in the ``note`` column, never silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles import (
    budget_split,
    cc_error,
    check_feasible,
    delta_multiplier,
    half_width,
    required_spacing,
    target_ranks,
)
from dpquant.reference.validation import check_delta, check_int
from dpquant.studies.harness import check_sequence
from dpquant.studies.imola25.config import (
    BETA,
    DELTA,
    EPSILON,
    M_VALUES,
    PANELS,
    Study,
    check_study,
)
from dpquant.studies.imola25.data import (
    ADULT_SIZE,
    BOUNDS,
    MAX_DUPLICATION,
    check_m,
    grid_quantiles,
)


@dataclass(frozen=True)
class Feasibility:
    """SliceQuantiles' feasibility on the whole 250-grid at n = duplication·48,842 (the binding
    m = the largest of the study; ``feasible`` covers every m of the study)."""

    adjacency: str
    duplication: int
    n: int
    m: int
    epsilon1: float
    epsilon2: float
    cc_delta: float
    w: int
    h: int
    spacing: int
    required_spacing: int
    first_rank: int
    last_rank: int
    feasible: bool

    def row(self, role: str) -> dict[str, Any]:
        return {**asdict(self), "role": role}


def slice_parameters(
    n: int, m: int, adjacency: str, epsilon: float = EPSILON, delta: float = DELTA
) -> tuple[int, int, float]:
    """(h, w, δ_CC) exactly as :func:`dpquant.reference.slice_quantiles.plan_slice_quantiles` chooses
    them for this study: the authors' budget split, g = 1/n so ψ = 100·n, β = 0.05, half-width
    h = ⌈(2/ε2)·ln(2mψ/β)⌉, w = the exact CC tail at δ (or δ/(1 + e^{ε1+2ε2}) under
    substitution), discrete Laplace noise (Sec. 4 and Theorem 4.2)."""
    n = check_int(n, "n", minimum=1, maximum=2**53)
    m = check_m(m)
    split = budget_split(epsilon, adjacency)
    psi = (BOUNDS[1] - BOUNDS[0]) * n
    h = half_width(m, split.epsilon2, psi, BETA)
    cc_delta = check_delta(delta) / delta_multiplier(split.epsilon1, split.epsilon2, adjacency)
    w = cc_error(split.epsilon1, m, "discrete", "exact", delta=cc_delta)
    return h, w, cc_delta


def _grid_ok(ranks: np.ndarray, n: int, h: int, w: int) -> bool:
    try:
        check_feasible(ranks, n, h, w)
    except ValueError:
        return False
    return True


def slice_feasibility(
    adjacency: str,
    duplication: int,
    ms: Sequence[int],
    epsilon: float = EPSILON,
    delta: float = DELTA,
    base_n: int = ADULT_SIZE,
) -> Feasibility:
    """Is every draw of m grid quantiles feasible for SliceQuantiles at n = duplication·base_n,
    for every m in ``ms``? (All 250 grid ranks in Good*_{m,n−1,h+1+w} ⇔ every subset is: a subset
    keeps the ends and only widens the spacings, and at m = 200 > 125 some draw contains two
    consecutive grid points.)"""
    k = check_int(duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION)
    n = k * check_int(base_n, "base_n", minimum=1, maximum=2**40)
    ranks = target_ranks(grid_quantiles(), n)
    ok = True
    ms = sorted({check_m(v, "ms") for v in check_sequence(ms, "ms")})
    if not ms:
        raise ParameterError("ms", "must not be empty")
    for m in ms:
        h, w, cc_delta = slice_parameters(n, m, adjacency, epsilon, delta)
        ok = ok and _grid_ok(ranks, n, h, w)
    split = budget_split(epsilon, adjacency)
    return Feasibility(
        adjacency,
        k,
        n,
        m,
        split.epsilon1,
        split.epsilon2,
        cc_delta,
        w,
        h,
        int(np.diff(ranks).min()),
        required_spacing(h, w),
        int(ranks[0]),
        int(ranks[-1]),
        ok,
    )


def find_duplication(
    adjacency: str,
    ms: Sequence[int] = M_VALUES,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    base_n: int = ADULT_SIZE,
    max_duplication: int = MAX_DUPLICATION,
) -> Feasibility:
    """The smallest duplication factor k with :func:`slice_feasibility` true (the rough
    estimates were ≈ ×14 add/remove and ≈ ×25 substitute; ``notes/imola25.md``). A linear scan
    from k = 1, so k − 1 is infeasible by construction."""
    top = check_int(max_duplication, "max_duplication", minimum=1, maximum=MAX_DUPLICATION)
    for k in range(1, top + 1):
        f = slice_feasibility(adjacency, k, ms, epsilon, delta, base_n)
        if f.feasible:
            return f
    raise ValueError(
        f"no duplication factor <= max_duplication = {top} is feasible for {adjacency} at "
        f"epsilon = {epsilon!r}, delta = {delta!r}, ms = {tuple(ms)!r:.60}, base_n = {base_n!r}"
    )


def choose_duplications(study: Study) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Per adjacency of the study: the duplication factor used and the feasibility rows (the
    smallest feasible k, k − 1, and a forced k if given)."""
    study = check_study(study)
    chosen: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    for adj in dict.fromkeys(PANELS[p][1] for p in study.panels):
        best = find_duplication(adj, study.ms, study.epsilon, study.delta)
        if best.duplication > 1:
            below = slice_feasibility(
                adj, best.duplication - 1, study.ms, study.epsilon, study.delta
            )
            rows.append(below.row("smallest feasible − 1"))
        rows.append(best.row("smallest feasible" + ("" if study.duplication else " (used)")))
        chosen[adj] = best.duplication
        if study.duplication is not None:
            forced = slice_feasibility(adj, study.duplication, study.ms, study.epsilon, study.delta)
            rows.append(forced.row("forced (used)"))
            chosen[adj] = study.duplication
    return chosen, rows


__all__ = [
    "Feasibility",
    "choose_duplications",
    "find_duplication",
    "slice_feasibility",
    "slice_parameters",
]
