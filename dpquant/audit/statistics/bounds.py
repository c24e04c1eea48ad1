"""The statistics behind a black-box privacy bound (``notes/auditor.md``, "Design": the bound).

For an event S and neighbours (D, D'), with k0 of n0 draws on D and k1 of n1 draws on D' in S,

    ε_lb = ln((p0_L − δ) / p1_U),

where p0_L is the one-sided Clopper–Pearson lower bound of Pr[M(D) ∈ S] and p1_U the one-sided
upper bound of Pr[M(D') ∈ S], each at level α/2, computed by the project's one Clopper–Pearson
(:func:`dpquant.reference.conformance.clopper_pearson_lower` and ``clopper_pearson_upper``). If M is
(ε, δ)-DP then Pr[M(D) ∈ S] ≤ e^ε Pr[M(D') ∈ S] + δ, so ε_lb ≤ ε except with probability at
most α. The event must be chosen without looking at the evaluation draws (the caller splits the
samples); several candidates evaluated on the same footing share α by Bonferroni.

Planning (:func:`expected_bound`, :func:`samples_needed`) asks what bound ``n`` draws *would*
give for an event of known masses p0, p1: the same bound at the expected counts p·n (real
numbers, which the bounds take). Selection (:func:`selection_score`) ranks events by pessimistic
Wilson bounds. Neither reports a bound. The checks, the Clopper–Pearson bounds and the Wilson
bounds are :mod:`.counts`'s, shared with :mod:`.measure_bounds` (the bound in every privacy
measure).
"""

from __future__ import annotations

import math

import numpy as np

from dpquant.audit.statistics.counts import (
    MAX_DRAWS_PLANNED,
    MAX_Z,
    SELECTION_Z,
    check_broadcastable,
    check_counts,
    check_draws,
    check_level,
    check_masses,
    check_same_shape,
    check_single,
    check_z,
    cp_lower,
    cp_upper,
    one_sided_z,
    pessimistic_masses,
    selection_masses,
    wilson,
)
from dpquant.errors import ParameterError
from dpquant.reference.validation import (
    check_delta,
    check_finite,
    check_flag,
    check_int,
    check_probability,
)

# -- the bound (Clopper–Pearson: dpquant.reference.conformance, through .counts) ---------------


def _epsilon_lower_bound(
    k0: np.ndarray, n0: np.ndarray, k1: np.ndarray, n1: np.ndarray, delta: float, alpha: float
) -> np.ndarray:
    p0 = cp_lower(k0, n0, alpha / 2.0)
    p1 = cp_upper(k1, n1, alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(p0 - delta) - np.log(p1)
    # p1 > 0 always (a Clopper–Pearson upper bound); a float 0 would claim ε = +inf: no bound
    return np.where((p0 > delta) & (p1 > 0), out, -np.inf)


def epsilon_lower_bound(
    k0: np.ndarray | int,
    n0: np.ndarray | int,
    k1: np.ndarray | int,
    n1: np.ndarray | int,
    delta: float,
    alpha: float,
) -> np.ndarray:
    """ln((p0_L − δ)/p1_U) with both Clopper–Pearson bounds at level α/2 (−inf when p0_L <= δ).

    Counts 0 <= k <= n with 1 <= n <= 2^40 (arrays broadcast), ``delta`` in [0, 1), ``alpha`` in
    (0, 1).
    """
    alpha = check_level(alpha, "alpha")
    delta = check_delta(delta, "delta")
    kk0, nn0 = check_counts(k0, n0, "k0", "n0")
    kk1, nn1 = check_counts(k1, n1, "k1", "n1")
    check_same_shape(kk0, nn0, kk1, nn1)
    return _epsilon_lower_bound(kk0, nn0, kk1, nn1, delta, alpha)


def event_ratio_interval(k0: int, n0: int, k1: int, n1: int, alpha: float) -> tuple[float, float]:
    """Two-sided (1 − α) interval for ln(p0/p1) of one fixed event (Bonferroni over the four
    one-sided Clopper–Pearson bounds, each at α/4). It describes the event, not the mechanism's
    ε. Single counts 0 <= k <= n, 1 <= n <= 2^40; ``alpha`` in (0, 1)."""
    alpha = check_level(alpha, "alpha")
    kk0, nn0 = check_counts(k0, n0, "k0", "n0")
    kk1, nn1 = check_counts(k1, n1, "k1", "n1")
    for x, name in ((kk0, "k0"), (nn0, "n0"), (kk1, "k1"), (nn1, "n1")):
        check_single(x, name)
    lo = float(_epsilon_lower_bound(kk0, nn0, kk1, nn1, 0.0, alpha / 2.0))
    p0_upper = float(cp_upper(kk0, nn0, alpha / 4.0))
    p1_lower = float(cp_lower(kk1, nn1, alpha / 4.0))
    hi = math.inf if p1_lower <= 0 or p0_upper <= 0 else math.log(p0_upper / p1_lower)
    return lo, max(lo, hi)


# -- planning: the bound at expected counts ------------------------------------------------------


def _expected_bound(
    p0: np.ndarray, p1: np.ndarray, n: int, delta: float, alpha: float
) -> np.ndarray:
    size = np.asarray(float(n))
    return _epsilon_lower_bound(p0 * n, size, p1 * n, size, delta, alpha)


def expected_bound(
    p0: np.ndarray | float,
    p1: np.ndarray | float,
    n: int,
    delta: float,
    alpha: float,
) -> np.ndarray:
    """The bound that ``n`` fresh draws per side would give if the counts came out at their means
    (the planning objective: expected detection power, not the raw ratio).

    ``p0``, ``p1`` in [0, 1] (arrays broadcast), ``n`` an int in [1, 2^40], ``delta`` in [0, 1),
    ``alpha`` in (0, 1)."""
    pp0, pp1 = check_masses(p0, "p0"), check_masses(p1, "p1")
    n = check_int(n, "n", minimum=1, maximum=MAX_DRAWS_PLANNED)
    delta = check_delta(delta, "delta")
    alpha = check_level(alpha, "alpha")
    check_broadcastable(pp0, pp1, "p0", "p1")
    return _expected_bound(pp0, pp1, n, delta, alpha)


def samples_needed(
    p0: float, p1: float, epsilon: float, delta: float, alpha: float, limit: int = 10**12
) -> int | None:
    """Smallest n (per side) whose expected bound exceeds ``epsilon`` for an event of masses
    p0, p1; None if not even ``limit`` draws suffice.

    ``p0``, ``p1`` in [0, 1], ``epsilon`` a finite real, ``delta`` in [0, 1), ``alpha`` in
    (0, 1), ``limit`` an int in [1, 2^40]."""
    p0 = check_probability(p0, "p0")
    p1 = check_probability(p1, "p1")
    epsilon = check_finite(epsilon, "epsilon")
    delta = check_delta(delta, "delta")
    alpha = check_level(alpha, "alpha")
    limit = check_int(limit, "limit", minimum=1, maximum=MAX_DRAWS_PLANNED)

    def bound(n: int) -> float:
        return float(_expected_bound(np.asarray(p0), np.asarray(p1), n, delta, alpha))

    if bound(limit) <= epsilon:
        return None
    lo, hi = 0, 1  # after doubling: n = lo is not enough (n = 0 never is), n = hi is
    while bound(hi) <= epsilon:
        lo, hi = hi, hi * 2
    while hi - lo > max(1, lo // 1000):
        mid = (lo + hi) // 2
        if bound(mid) > epsilon:
            hi = mid
        else:
            lo = mid
    return hi


# -- selection: Wilson bounds ---------------------------------------------------------------------


def wilson_bound(p: np.ndarray, n: np.ndarray | float, z: float, upper: bool) -> np.ndarray:
    """Wilson score bound for a proportion estimated as ``p`` from ``n`` draws.

    ``p`` in [0, 1] and ``n`` in [1, 2^40] (arrays broadcast), ``z`` a real in [0, 100],
    ``upper`` a bool (True: the upper bound)."""
    pp = check_masses(p, "p")
    nn = check_draws(n, "n")
    z = check_z(z, "z", " (a normal quantile)")
    check_broadcastable(pp, nn, "p", "n")
    upper = check_flag(upper, "upper")
    return wilson(pp, nn, z, upper)


def selection_score(
    k0: np.ndarray,
    n0: int,
    k1: np.ndarray,
    n1: int,
    n_eval: int,
    delta: float,
    alpha: float,
    z_selection: float = SELECTION_Z,
    poisson: bool = False,
) -> np.ndarray:
    """A fast, pessimistic ranking objective for events seen on the selection draws: the masses are
    taken at their Wilson bounds (z = ``z_selection``, which penalises events resting on a handful
    of draws), then the bound ``n_eval`` evaluation draws would give is approximated with Wilson
    bounds at the evaluation's normal quantile; with ``poisson``, the bound of Poisson numbers of
    evaluation draws (:mod:`dpquant.audit.statistics.poisson_counts`): one Wilson bound of
    θ = p0/(p0 + p1) among the n_eval·(p0 + p1) expected counts, at level α, as log-odds. Used to
    choose events, never to report a bound.

    Counts 0 <= k <= n with 1 <= n <= 2^40, ``n_eval`` an int in [1, 2^40], ``delta`` in
    [0, 1) (0 with ``poisson``), ``alpha`` in (0, 1), ``z_selection`` a real in [0, 100],
    ``poisson`` a bool."""
    kk0, nn0 = check_counts(k0, n0, "k0", "n0")
    kk1, nn1 = check_counts(k1, n1, "k1", "n1")
    n_eval = check_int(n_eval, "n_eval", minimum=1, maximum=MAX_DRAWS_PLANNED)
    delta = check_delta(delta, "delta")
    alpha = check_level(alpha, "alpha")
    z_selection = check_z(z_selection, "z_selection")
    check_same_shape(kk0, nn0, kk1, nn1)
    if check_flag(poisson, "poisson"):
        if delta != 0:
            raise ParameterError("delta", "must be 0 with poisson (a bound of p0/p1)", delta)
        return _poisson_score(*selection_masses(kk0, nn0, kk1, nn1, z_selection), n_eval, alpha)
    lo, hi = pessimistic_masses(kk0, nn0, kk1, nn1, n_eval, alpha, z_selection)
    lo = lo - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(lo) - np.log(hi)
    return np.where(lo > 0, out, -np.inf)


def _poisson_score(p0: np.ndarray, p1: np.ndarray, n_eval: int, alpha: float) -> np.ndarray:
    """:func:`selection_score` with ``poisson``, from the selection's masses ``p0``, ``p1``."""
    total = p0 + p1
    z = one_sided_z(alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(total > 0, p0 / np.where(total > 0, total, 1.0), 0.0)
        lower = wilson(theta, np.maximum(n_eval * total, 1e-300), z, upper=False)
        out = np.log(lower) - np.log1p(-lower)
    return np.where((lower > 0) & (lower < 1), out, -np.inf)


__all__ = [
    "MAX_DRAWS_PLANNED",
    "MAX_Z",
    "SELECTION_Z",
    "epsilon_lower_bound",
    "event_ratio_interval",
    "expected_bound",
    "samples_needed",
    "selection_score",
    "wilson_bound",
]
