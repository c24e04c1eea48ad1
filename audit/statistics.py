"""The statistics behind a black-box privacy bound (spec auditor.md §6.4, §6.5).

For an event S and neighbours (D, D'), with k0 of n0 draws on D and k1 of n1 draws on D' in S,

    ε_lb = ln((p0_L − δ) / p1_U),

where p0_L is the one-sided Clopper–Pearson lower bound of Pr[M(D) ∈ S] and p1_U the one-sided
upper bound of Pr[M(D') ∈ S], each at level α/2. If M is (ε, δ)-DP then
Pr[M(D) ∈ S] ≤ e^ε Pr[M(D') ∈ S] + δ, so ε_lb ≤ ε except with probability at most α. The event must
be chosen without looking at the evaluation draws (the caller splits the samples); several
candidates evaluated on the same footing share α by Bonferroni.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from reference.validation import check_probability


def cp_lower(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound: P(p < bound) <= level (0 when k = 0)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        out = special.betaincinv(np.maximum(k, 1.0), n - k + 1.0, level)
    return np.where(k <= 0, 0.0, out)


def cp_upper(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound: P(p > bound) <= level (1 when k = n)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        out = 1.0 - special.betaincinv(np.maximum(n - k, 1.0), k + 1.0, level)
    return np.where(k >= n, 1.0, out)


def epsilon_lower_bound(
    k0: np.ndarray | int,
    n0: np.ndarray | int,
    k1: np.ndarray | int,
    n1: np.ndarray | int,
    delta: float,
    alpha: float,
) -> np.ndarray:
    """ln((p0_L − δ)/p1_U) with both Clopper–Pearson bounds at level α/2 (−inf when p0_L <= δ)."""
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    p0 = cp_lower(k0, n0, alpha / 2.0)
    p1 = cp_upper(k1, n1, alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(p0 - delta) - np.log(p1)
    return np.where(p0 > delta, out, -np.inf)


def event_ratio_interval(k0: int, n0: int, k1: int, n1: int, alpha: float) -> tuple[float, float]:
    """Two-sided (1 − α) interval for ln(p0/p1) of one fixed event (Bonferroni over the four
    one-sided bounds). It describes the event, not the mechanism's ε."""
    lo = float(epsilon_lower_bound(k0, n0, k1, n1, 0.0, alpha / 2.0))
    p0u = float(cp_upper(k0, n0, alpha / 4.0))
    p1l = float(cp_lower(k1, n1, alpha / 4.0))
    hi = math.inf if p1l <= 0 else math.log(p0u / p1l)
    return lo, hi


def expected_bound(
    p0: np.ndarray | float,
    p1: np.ndarray | float,
    n: int,
    delta: float,
    alpha: float,
) -> np.ndarray:
    """The bound that ``n`` fresh draws per side would give if the counts came out at their means
    (the planning objective: expected detection power, not the raw ratio)."""
    p0, p1 = np.asarray(p0, dtype=float), np.asarray(p1, dtype=float)
    return epsilon_lower_bound(p0 * n, n, p1 * n, n, delta, alpha)


def samples_needed(
    p0: float, p1: float, epsilon: float, delta: float, alpha: float, limit: int = 10**12
) -> int | None:
    """Smallest n (per side) whose expected bound exceeds ``epsilon`` for an event of masses
    p0, p1; None if not even ``limit`` draws suffice."""
    if float(expected_bound(p0, p1, limit, delta, alpha)) <= epsilon:
        return None
    lo, hi = 0, 1  # after doubling: n = lo is not enough (n = 0 never is), n = hi is
    while float(expected_bound(p0, p1, hi, delta, alpha)) <= epsilon:
        lo, hi = hi, hi * 2
    while hi - lo > max(1, lo // 1000):
        mid = (lo + hi) // 2
        if float(expected_bound(p0, p1, mid, delta, alpha)) > epsilon:
            hi = mid
        else:
            lo = mid
    return hi


def wilson_bound(p: np.ndarray, n: np.ndarray | float, z: float, upper: bool) -> np.ndarray:
    """Wilson score bound for a proportion estimated as ``p`` from ``n`` draws."""
    n = np.asarray(n, dtype=float)
    centre = p + z * z / (2 * n)
    spread = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    out = (centre + spread if upper else centre - spread) / (1 + z * z / n)
    return np.clip(out, 0.0, 1.0)


def selection_score(
    k0: np.ndarray,
    n0: int,
    k1: np.ndarray,
    n1: int,
    n_eval: int,
    delta: float,
    alpha: float,
    z_selection: float = 2.0,
) -> np.ndarray:
    """A fast, pessimistic ranking objective for events seen on the selection draws: the masses are
    taken at their Wilson bounds (z = ``z_selection``, which penalises events resting on a handful
    of draws), then the bound ``n_eval`` evaluation draws would give is approximated with Wilson
    bounds at the evaluation's normal quantile. Used to choose events, never to report a bound."""
    p0 = wilson_bound(np.asarray(k0, dtype=float) / n0, n0, z_selection, upper=False)
    p1 = wilson_bound(np.asarray(k1, dtype=float) / n1, n1, z_selection, upper=True)
    z = float(special.ndtri(1.0 - alpha / 2.0))
    lo = wilson_bound(p0, n_eval, z, upper=False) - delta
    hi = wilson_bound(p1, n_eval, z, upper=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(lo) - np.log(hi)
    return np.where(lo > 0, out, -np.inf)
