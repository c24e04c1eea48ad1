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
Wilson bounds. Neither reports a bound.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dpquant.errors import ParameterError
from dpquant.reference.conformance import clopper_pearson_lower, clopper_pearson_upper
from dpquant.reference.validation import (
    check_delta,
    check_finite,
    check_flag,
    check_int,
    check_probability,
    check_real_array,
)

MAX_DRAWS_PLANNED = 2**40
"""The largest number of draws (``n``, ``limit``) the functions take, about 1.1e12 (far beyond
any audit's budget: :data:`dpquant.audit.model.limits.MAX_SAMPLES` is 10^10)."""

SELECTION_Z = 2.0
"""The Wilson level at which :func:`selection_score` takes the selection counts by default."""
MAX_Z = 100.0
"""The largest normal quantile ``z`` of the Wilson bounds (z = 38 is already a level of 1e-300)."""

# -- input checks (every public function: ValueError naming the parameter) ---------------------


def _level(level: Any, name: str = "level") -> float:
    return check_probability(level, name, open_left=True, open_right=True)


def _draws(n: Any, name: str) -> np.ndarray:
    """A number (or array) of draws: finite reals >= 1."""
    arr = check_real_array(n, name)
    if arr.size and (arr.min() < 1 or arr.max() > MAX_DRAWS_PLANNED):
        raise ParameterError(
            name,
            "must lie in [1, 2^40] (a number of draws)",
            f"values in [{arr.min()!r}, {arr.max()!r}]",
        )
    return arr


def _counts(k: Any, n: Any, kname: str = "k", nname: str = "n") -> tuple[np.ndarray, np.ndarray]:
    """Counts k of n draws: finite reals (expected counts may be fractional), 0 <= k <= n, n >= 1,
    broadcastable."""
    kk = check_real_array(k, kname)
    nn = _draws(n, nname)
    if kk.size and kk.min() < 0:
        raise ParameterError(kname, "must be >= 0 (a count of draws)", repr(kk.min()))
    _broadcastable(kk, nn, kname, nname)
    kb, nb = np.broadcast_arrays(kk, nn)
    if kb.size and np.any(kb > nb):
        raise ParameterError(kname, f"must be <= {nname} (a count among {nname} draws)")
    return kk, nn


def _broadcastable(a: np.ndarray, b: np.ndarray, aname: str, bname: str) -> None:
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(
            f"{aname} and {bname} must broadcast to one shape, got {a.shape} and {b.shape}"
        ) from None


def _probabilities(p: Any, name: str) -> np.ndarray:
    arr = check_real_array(p, name)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ParameterError(name, "must lie in [0, 1]", f"values in [{arr.min()}, {arr.max()}]")
    return arr


def _scalar(x: np.ndarray, name: str) -> float:
    if x.ndim != 0:
        raise ParameterError(name, "must be a single number", f"shape {x.shape}")
    return float(x)


def _same_shape(*arrays: np.ndarray) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(f"k0, n0, k1 and n1 must broadcast to one shape, got {shapes}") from None


# -- the bound (Clopper–Pearson: dpquant.reference.conformance) -------------------------------------------


def _lower(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    """The one-sided Clopper–Pearson lower bound at ``level``; 0 (no bound: sound, powerless)
    when the level underflows to 0, as α/2 or α/4 does for α below ~1e-323."""
    if level > 0.0:
        return clopper_pearson_lower(k, n, level)
    return np.zeros(np.broadcast(k, n).shape)


def _upper(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    """The one-sided Clopper–Pearson upper bound at ``level``; 1 when the level underflows to 0
    (as :func:`_lower`)."""
    if level > 0.0:
        return clopper_pearson_upper(k, n, level)
    return np.ones(np.broadcast(k, n).shape)


def _epsilon_lower_bound(
    k0: np.ndarray, n0: np.ndarray, k1: np.ndarray, n1: np.ndarray, delta: float, alpha: float
) -> np.ndarray:
    p0 = _lower(k0, n0, alpha / 2.0)
    p1 = _upper(k1, n1, alpha / 2.0)
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
    alpha = _level(alpha, "alpha")
    delta = check_delta(delta, "delta")
    kk0, nn0 = _counts(k0, n0, "k0", "n0")
    kk1, nn1 = _counts(k1, n1, "k1", "n1")
    _same_shape(kk0, nn0, kk1, nn1)
    return _epsilon_lower_bound(kk0, nn0, kk1, nn1, delta, alpha)


def event_ratio_interval(k0: int, n0: int, k1: int, n1: int, alpha: float) -> tuple[float, float]:
    """Two-sided (1 − α) interval for ln(p0/p1) of one fixed event (Bonferroni over the four
    one-sided Clopper–Pearson bounds, each at α/4). It describes the event, not the mechanism's
    ε. Single counts 0 <= k <= n, 1 <= n <= 2^40; ``alpha`` in (0, 1)."""
    alpha = _level(alpha, "alpha")
    kk0, nn0 = _counts(k0, n0, "k0", "n0")
    kk1, nn1 = _counts(k1, n1, "k1", "n1")
    for x, name in ((kk0, "k0"), (nn0, "n0"), (kk1, "k1"), (nn1, "n1")):
        _scalar(x, name)
    lo = float(_epsilon_lower_bound(kk0, nn0, kk1, nn1, 0.0, alpha / 2.0))
    p0_upper = float(_upper(kk0, nn0, alpha / 4.0))
    p1_lower = float(_lower(kk1, nn1, alpha / 4.0))
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
    pp0, pp1 = _probabilities(p0, "p0"), _probabilities(p1, "p1")
    n = check_int(n, "n", minimum=1, maximum=MAX_DRAWS_PLANNED)
    delta = check_delta(delta, "delta")
    alpha = _level(alpha, "alpha")
    _broadcastable(pp0, pp1, "p0", "p1")
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
    alpha = _level(alpha, "alpha")
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


def _wilson_bound(p: np.ndarray, n: np.ndarray, z: float, upper: bool) -> np.ndarray:
    centre = p + z * z / (2 * n)
    spread = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    out = (centre + spread if upper else centre - spread) / (1 + z * z / n)
    return np.clip(out, 0.0, 1.0)


def wilson_bound(p: np.ndarray, n: np.ndarray | float, z: float, upper: bool) -> np.ndarray:
    """Wilson score bound for a proportion estimated as ``p`` from ``n`` draws.

    ``p`` in [0, 1] and ``n`` in [1, 2^40] (arrays broadcast), ``z`` a real in [0, 100],
    ``upper`` a bool (True: the upper bound)."""
    pp = _probabilities(p, "p")
    nn = _draws(n, "n")
    z = check_finite(z, "z")
    if not 0 <= z <= MAX_Z:
        raise ParameterError("z", f"must lie in [0, {MAX_Z:g}] (a normal quantile)", repr(z))
    _broadcastable(pp, nn, "p", "n")
    upper = check_flag(upper, "upper")
    return _wilson_bound(pp, nn, z, upper)


def _pessimistic_masses(
    k0: np.ndarray,
    n0: np.ndarray,
    k1: np.ndarray,
    n1: np.ndarray,
    n_eval: int,
    alpha: float,
    z_selection: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The masses :func:`selection_score` plugs into its bound (checked inputs): the Wilson lower
    bound of p0 and upper bound of p1 at ``z_selection``, then the Wilson bounds ``n_eval``
    evaluation draws would give at the evaluation's normal quantile (level α/2). Shared with
    :mod:`.measure_bounds`, whose measures rank events by the same pessimistic masses."""
    p0 = _wilson_bound(k0 / n0, n0, z_selection, upper=False)
    p1 = _wilson_bound(k1 / n1, n1, z_selection, upper=True)
    z = float(special.ndtri(1.0 - alpha / 2.0))
    if not math.isfinite(z):  # 1 − α/2 rounds to 1 for α below 1e-16: the same quantile
        z = math.sqrt(2.0) * float(special.erfcinv(max(alpha, 1e-300)))  # z(1e-300) ≈ 37.0
    lo = _wilson_bound(p0, np.asarray(float(n_eval)), z, upper=False)
    hi = _wilson_bound(p1, np.asarray(float(n_eval)), z, upper=True)
    return lo, hi


def selection_score(
    k0: np.ndarray,
    n0: int,
    k1: np.ndarray,
    n1: int,
    n_eval: int,
    delta: float,
    alpha: float,
    z_selection: float = SELECTION_Z,
) -> np.ndarray:
    """A fast, pessimistic ranking objective for events seen on the selection draws: the masses are
    taken at their Wilson bounds (z = ``z_selection``, which penalises events resting on a handful
    of draws), then the bound ``n_eval`` evaluation draws would give is approximated with Wilson
    bounds at the evaluation's normal quantile. Used to choose events, never to report a bound.

    Counts 0 <= k <= n with 1 <= n <= 2^40, ``n_eval`` an int in [1, 2^40], ``delta`` in
    [0, 1), ``alpha`` in (0, 1), ``z_selection`` a real in [0, 100]."""
    kk0, nn0 = _counts(k0, n0, "k0", "n0")
    kk1, nn1 = _counts(k1, n1, "k1", "n1")
    n_eval = check_int(n_eval, "n_eval", minimum=1, maximum=MAX_DRAWS_PLANNED)
    delta = check_delta(delta, "delta")
    alpha = _level(alpha, "alpha")
    z_selection = check_finite(z_selection, "z_selection")
    if not 0 <= z_selection <= MAX_Z:
        raise ParameterError("z_selection", f"must lie in [0, {MAX_Z:g}]", repr(z_selection))
    _same_shape(kk0, nn0, kk1, nn1)
    lo, hi = _pessimistic_masses(kk0, nn0, kk1, nn1, n_eval, alpha, z_selection)
    lo = lo - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(lo) - np.log(hi)
    return np.where(lo > 0, out, -np.inf)


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
