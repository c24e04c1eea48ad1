"""Rényi and zCDP lower bounds from a finite partition of the output space (issue 37).

A binary event sees only two numbers of each law, and for a Rényi divergence of a fixed order that
can be far from enough: for two unit Gaussians 1.25 apart, D_2 is 1.5625 while the best binary
event's D_2 is about 1.06. A partition of the outputs into cells S_1, ..., S_m sees m masses per
law, P_i = Pr[M(D) ∈ S_i] and Q_i = Pr[M(D') ∈ S_i], and the cell index is a post-processing of
the output, so by the data-processing inequality (van Erven and Harremoës, IEEE Trans. Inf. Theory
2014, Theorem 9)

    D_a(M(D) ‖ M(D')) >= D_a(P ‖ Q) = ln H_a(P, Q) / (a − 1),  H_a(P, Q) = Σ_i P_i^a Q_i^(1−a)

for every order a > 1, and D_∞(M(D) ‖ M(D')) >= max_i ln(P_i/Q_i).

**Simultaneous confidence region.** From k0_i of n0 fresh draws on D and k1_i of n1 on D' in
cell i, let L_i be the one-sided Clopper–Pearson lower bound of P_i and U_i the upper bound of Q_i,
each at level α/(2m). By the union bound over the 2m bounds, except with probability at most α,
P_i >= L_i and Q_i <= U_i for every cell at once (the region is a box; the cells' masses are
dependent, which Bonferroni does not mind).

**The bound.** Each term P_i^a Q_i^(1−a) is nondecreasing in P_i and nonincreasing in Q_i for
a > 1 (its partial derivatives are a P^(a−1) Q^(1−a) >= 0 and (1 − a) P^a Q^(−a) <= 0), so on the
region H_a(P, Q) >= H_a(L, U), and

    D_a(M(D) ‖ M(D')) >= ln H_a(L, U) / (a − 1)   (:func:`renyi_partition_bound`).

L and U need not sum to 1: dropping the simplex constraints only enlarges the region, so the
bound stays sound (it is weaker by what the constraints would have added). For the same reason
cells may be left out (each term of H is >= 0), provided which ones is decided before the
evaluation draws: their draws are then simply not counted. The bound is floored
at 0 (a divergence is >= 0). For (ξ, ρ)-zCDP, D_a <= ξ + ρa for every a > 1 (Bun and Steinke,
TCC 2016, Definition 1.1), so every order gives ρ >= (D_a(L, U) − ξ)/a and the region does not
depend on a: :func:`zcdp_partition_bound` takes the best order of a fixed grid
(:data:`.bernoulli.ORDER_GRID`), a choice that can cost power, never soundness. The cells must be
chosen without the evaluation draws (:mod:`dpquant.audit.tools.partition_stage` chooses them on
separate selection draws).

**Rounding never overstates**: ln H is a log-sum-exp of the terms a ln L_i + (1 − a) ln U_i,
divided by a − 1 term by term (no order overflows); the value is lowered by
:data:`.bernoulli.ROUNDING_MARGIN` (1e-12) times m times the largest magnitude it was computed
from, far above the float error of a sum of m terms. The tests check it against mpmath at 50
digits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpquant.audit.statistics.bernoulli import ORDER_GRID, ROUNDING_MARGIN
from dpquant.audit.statistics.counts import check_level, check_nonnegative, cp_lower, cp_upper
from dpquant.errors import ParameterError
from dpquant.reference.validation import check_int, check_real

MAX_CELLS = 4096
"""The most cells a partition may have (its confidence level is split m ways)."""
ZCDP_ORDERS = ORDER_GRID[1:]
"""The orders a > 1 at which :func:`zcdp_partition_bound` reads ρ (the Bernoulli grid's)."""


def _cell_counts(counts: Any, n: Any, name: str, n_name: str) -> tuple[np.ndarray, int]:
    """Checked cell counts (non-negative integers summing to at most ``n``) and ``n``."""
    n = check_int(n, n_name, minimum=1, maximum=2**40)
    arr = np.asarray(counts)
    if arr.ndim != 1 or arr.size < 1 or arr.size > MAX_CELLS or arr.dtype == bool:
        raise ParameterError(
            name, f"must be a 1-D sequence of 1 to {MAX_CELLS} cell counts", f"shape {arr.shape}"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(name, "must hold integers", repr(arr.dtype))
    if arr.min() < 0 or int(arr.sum()) > n:
        raise ParameterError(
            name, f"must be counts >= 0 that sum to at most {n_name} = {n}", repr(arr.tolist())
        )
    return arr.astype(float), n


def cell_box(
    counts0: Any, n0: Any, counts1: Any, n1: Any, alpha: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The corner (L, U) of the simultaneous confidence box of the cells' masses (module
    docstring): L_i the Clopper–Pearson lower bound of P_i, U_i the upper bound of Q_i, each at
    level α/(2m).

    Args:
        counts0: The draws on D in each cell, non-negative integers summing to at most ``n0``
            (cells may be left out: fewer cells only lower H, module docstring).
        n0: The draws on D, in [1, 2^40].
        counts1: The draws on D' in each cell (as many cells), summing to at most ``n1``.
        n1: The draws on D', in [1, 2^40].
        alpha: The level of the whole box, in (0, 1).

    Returns:
        (L, U), float arrays of m entries each.

    Raises:
        ParameterError: A count, ``n0``, ``n1`` or ``alpha`` is out of range or of the wrong type.
    """
    c0, n0 = _cell_counts(counts0, n0, "counts0", "n0")
    c1, n1 = _cell_counts(counts1, n1, "counts1", "n1")
    if c0.size != c1.size:
        raise ParameterError(
            "counts1", f"must have as many cells as counts0 ({c0.size})", str(c1.size)
        )
    level = check_level(alpha, "alpha") / (2 * c0.size)
    lower = cp_lower(c0, np.full(c0.size, float(n0)), level)
    upper = cp_upper(c1, np.full(c1.size, float(n1)), level)
    return np.asarray(lower, float), np.asarray(upper, float)


def _check_masses(lower: Any, upper: Any) -> tuple[np.ndarray, np.ndarray]:
    lo, up = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    if lo.ndim != 1 or lo.shape != up.shape or lo.size < 1:
        raise ParameterError("upper", "must be a 1-D array shaped as lower", f"{up.shape}")
    for arr, name in ((lo, "lower"), (up, "upper")):
        if not np.all((arr >= 0) & (arr <= 1)):  # NaN fails too
            raise ParameterError(name, "must hold masses in [0, 1]", repr(arr.tolist()))
    return lo, up


def _renyi_at(lo: np.ndarray, up: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """ln H_a(lo, up)/(a − 1) for each finite order a > 1 (rows), rounded down; −inf where every
    lo_i is 0, +inf where some lo_i > 0 = up_i."""
    a = orders[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_lo, log_up = np.log(lo)[None, :], np.log(up)[None, :]
        # (a ln L + (1 − a) ln U)/(a − 1) = a/(a − 1) ln L − ln U: no order overflows
        terms = np.where(lo > 0, a / (a - 1.0) * log_lo - log_up, -np.inf)
        infinite = np.any((lo > 0) & (up == 0))
        top = np.max(terms, axis=1)
        finite_top = np.where(np.isfinite(top), top, 0.0)
        spread = np.exp((a - 1.0) * (terms - finite_top[:, None]))
        value = finite_top + np.log(np.sum(spread, axis=1)) / (a[:, 0] - 1.0)
        magnitude = lo.size * np.max(np.where(np.isfinite(terms), np.abs(terms), 0.0), axis=1)
        low = value - ROUNDING_MARGIN * (magnitude + np.abs(value) + 1.0)
    low = np.where(np.isneginf(top), -np.inf, low)
    return np.where(infinite, np.inf, low)


def renyi_partition_bound(lower: Any, upper: Any, order: Any) -> float:
    """The lower bound ln H_a(L, U)/(a − 1) on D_a(M(D) ‖ M(D')) (module docstring), floored at
    0; at a = ∞, max_i ln(L_i/U_i).

    Args:
        lower: L, the cells' lower bounds on D, masses in [0, 1].
        upper: U, the cells' upper bounds on D', masses in [0, 1] (as many).
        order: The order a, a real > 1 or +inf.

    Returns:
        The bound, >= 0 (+inf where some L_i > 0 = U_i).

    Raises:
        ParameterError: A mass or the order is out of range or not a number.
    """
    lo, up = _check_masses(lower, upper)
    a = check_real(order, "order")
    if not a > 1:
        raise ParameterError("order", "must be a real number > 1 or inf", repr(a))
    if math.isinf(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(lo > 0, np.log(lo) - np.log(up), -np.inf)
            best = float(np.max(ratios))
        low = best - ROUNDING_MARGIN * (abs(best) + 1.0) if math.isfinite(best) else best
    else:
        low = float(_renyi_at(lo, up, np.array([a]))[0])
    return max(low, 0.0)


def zcdp_partition_bound(lower: Any, upper: Any, xi: Any = 0.0) -> tuple[float, float]:
    """The lower bound on ρ of (ξ, ρ)-zCDP: the largest (D_a(L, U) − ξ)/a over
    :data:`ZCDP_ORDERS`, floored at 0, and the order attaining it (module docstring).

    Args:
        lower: L, the cells' lower bounds on D, masses in [0, 1].
        upper: U, the cells' upper bounds on D', masses in [0, 1] (as many).
        xi: The claimed ξ, a finite real >= 0.

    Returns:
        (ρ bound, order); the order is NaN when the bound is 0.

    Raises:
        ParameterError: A mass or ξ is out of range or not a number.
    """
    lo, up = _check_masses(lower, upper)
    xi = check_nonnegative(xi, "xi")
    divergence = _renyi_at(lo, up, ZCDP_ORDERS)
    with np.errstate(invalid="ignore"):
        rho = (divergence - xi) / ZCDP_ORDERS
        margin = ROUNDING_MARGIN * (np.abs(divergence) + xi) / ZCDP_ORDERS
        rho = np.where(np.isfinite(divergence), rho - margin, rho)
    best = int(np.argmax(rho))
    if not rho[best] > 0:
        return 0.0, math.nan
    return float(rho[best]), float(ZCDP_ORDERS[best])


__all__ = [
    "MAX_CELLS",
    "ZCDP_ORDERS",
    "cell_box",
    "renyi_partition_bound",
    "zcdp_partition_bound",
]
