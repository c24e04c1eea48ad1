"""The statistics behind a black-box privacy bound (``notes/auditor.md``, "Decisions").

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
from typing import Any

import numpy as np
from scipy import special

from reference.validation import (
    check_delta,
    check_finite,
    check_flag,
    check_int,
    check_probability,
    check_real_array,
)

MAX_DRAWS_PLANNED = 2**40
"""The largest number of draws (``n``, ``limit``) the functions take, about 1.1e12: beyond it the
float Clopper–Pearson bounds lose their digits (1 − I⁻¹ cancels) and could under-state p_U."""

MAX_Z = 100.0
"""The largest normal quantile ``z`` of the Wilson bounds (z = 38 is already a level of 1e-300)."""

# -- input checks (every public function: ValueError naming the parameter) ---------------------


def _level(level: Any, name: str = "level") -> float:
    return check_probability(level, name, open_left=True, open_right=True)


def _draws(n: Any, name: str) -> np.ndarray:
    """A number (or array) of draws: finite reals >= 1."""
    arr = check_real_array(n, name)
    if arr.size and (arr.min() < 1 or arr.max() > MAX_DRAWS_PLANNED):
        raise ValueError(
            f"{name} must lie in [1, 2^40] (a number of draws), got values in "
            f"[{arr.min()!r}, {arr.max()!r}]"
        )
    return arr


def _counts(k: Any, n: Any, kname: str = "k", nname: str = "n") -> tuple[np.ndarray, np.ndarray]:
    """Counts k of n draws: finite reals (expected counts may be fractional), 0 <= k <= n, n >= 1,
    broadcastable."""
    k = check_real_array(k, kname)
    n = _draws(n, nname)
    if k.size and k.min() < 0:
        raise ValueError(f"{kname} must be >= 0 (a count of draws), got {k.min()!r}")
    try:
        kb, nb = np.broadcast_arrays(k, n)
    except ValueError:
        raise ValueError(
            f"{kname} and {nname} must broadcast to one shape, got {k.shape} and {n.shape}"
        ) from None
    if kb.size and np.any(kb > nb):
        raise ValueError(f"{kname} must be <= {nname} (a count among {nname} draws)")
    return k, n


def _probabilities(p: Any, name: str) -> np.ndarray:
    arr = check_real_array(p, name)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"{name} must lie in [0, 1], got values in [{arr.min()}, {arr.max()}]")
    return arr


def _scalar(x: np.ndarray, name: str) -> float:
    if x.ndim != 0:
        raise ValueError(f"{name} must be a single number, got shape {x.shape}")
    return float(x)


# -- Clopper–Pearson -----------------------------------------------------------------------------


def _cp_lower(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = special.betaincinv(np.maximum(k, 1.0), n - k + 1.0, level)
    return np.where(k <= 0, 0.0, out)


def _cp_upper(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = 1.0 - special.betaincinv(np.maximum(n - k, 1.0), k + 1.0, level)
    return np.where(k >= n, 1.0, out)


def cp_lower(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound: P(p < bound) <= level (0 when k = 0).

    ``k``, ``n``: counts (arrays broadcast), 0 <= k <= n, 1 <= n <= 2^40; ``level`` in (0, 1)."""
    k, n = _counts(k, n)
    return _cp_lower(k, n, _level(level))


def cp_upper(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound: P(p > bound) <= level (1 when k = n).

    ``k``, ``n``: counts (arrays broadcast), 0 <= k <= n, 1 <= n <= 2^40; ``level`` in (0, 1)."""
    k, n = _counts(k, n)
    return _cp_upper(k, n, _level(level))


def _epsilon_lower_bound(k0, n0, k1, n1, delta: float, alpha: float) -> np.ndarray:
    p0 = _cp_lower(k0, n0, alpha / 2.0)
    p1 = _cp_upper(k1, n1, alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(p0 - delta) - np.log(p1)
    # p1 > 0 always (a Clopper–Pearson upper bound); a float 0 would claim ε = +inf: no bound
    return np.where((p0 > delta) & (p1 > 0), out, -np.inf)


def _same_shape(k0: np.ndarray, n0: np.ndarray, k1: np.ndarray, n1: np.ndarray) -> None:
    try:
        np.broadcast_shapes(k0.shape, n0.shape, k1.shape, n1.shape)
    except ValueError:
        raise ValueError(
            f"k0, n0, k1 and n1 must broadcast to one shape, got {k0.shape}, {n0.shape}, "
            f"{k1.shape} and {n1.shape}"
        ) from None


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
    k0, n0 = _counts(k0, n0, "k0", "n0")
    k1, n1 = _counts(k1, n1, "k1", "n1")
    _same_shape(k0, n0, k1, n1)
    return _epsilon_lower_bound(k0, n0, k1, n1, delta, alpha)


def event_ratio_interval(k0: int, n0: int, k1: int, n1: int, alpha: float) -> tuple[float, float]:
    """Two-sided (1 − α) interval for ln(p0/p1) of one fixed event (Bonferroni over the four
    one-sided bounds). It describes the event, not the mechanism's ε. Single counts
    0 <= k <= n, 1 <= n <= 2^40; ``alpha`` in (0, 1)."""
    alpha = _level(alpha, "alpha")
    k0, n0 = _counts(k0, n0, "k0", "n0")
    k1, n1 = _counts(k1, n1, "k1", "n1")
    for x, name in ((k0, "k0"), (n0, "n0"), (k1, "k1"), (n1, "n1")):
        _scalar(x, name)
    lo = float(_epsilon_lower_bound(k0, n0, k1, n1, 0.0, alpha / 2.0))
    p0u = float(_cp_upper(k0, n0, alpha / 4.0))
    p1l = float(_cp_lower(k1, n1, alpha / 4.0))
    hi = math.inf if p1l <= 0 or p0u <= 0 else math.log(p0u / p1l)
    return lo, max(lo, hi)


def _expected_bound(p0, p1, n: int, delta: float, alpha: float) -> np.ndarray:
    return _epsilon_lower_bound(p0 * n, n, p1 * n, n, delta, alpha)


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
    p0, p1 = _probabilities(p0, "p0"), _probabilities(p1, "p1")
    n = check_int(n, "n", minimum=1, maximum=MAX_DRAWS_PLANNED)
    delta = check_delta(delta, "delta")
    alpha = _level(alpha, "alpha")
    try:
        np.broadcast_shapes(p0.shape, p1.shape)
    except ValueError:
        raise ValueError(
            f"p0 and p1 must broadcast to one shape, got {p0.shape} and {p1.shape}"
        ) from None
    return _expected_bound(p0, p1, n, delta, alpha)


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


def _wilson_bound(p: np.ndarray, n: np.ndarray, z: float, upper: bool) -> np.ndarray:
    centre = p + z * z / (2 * n)
    spread = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    out = (centre + spread if upper else centre - spread) / (1 + z * z / n)
    return np.clip(out, 0.0, 1.0)


def wilson_bound(p: np.ndarray, n: np.ndarray | float, z: float, upper: bool) -> np.ndarray:
    """Wilson score bound for a proportion estimated as ``p`` from ``n`` draws.

    ``p`` in [0, 1] and ``n`` in [1, 2^40] (arrays broadcast), ``z`` a real in [0, 100],
    ``upper`` a bool (True: the upper bound)."""
    p = _probabilities(p, "p")
    n = _draws(n, "n")
    z = check_finite(z, "z")
    if not 0 <= z <= MAX_Z:
        raise ValueError(f"z must lie in [0, {MAX_Z:g}] (a normal quantile), got {z!r}")
    try:
        np.broadcast_shapes(p.shape, n.shape)
    except ValueError:
        raise ValueError(f"p and n must broadcast to one shape, got {p.shape} and {n.shape}") from None
    upper = check_flag(upper, "upper")
    return _wilson_bound(p, n, z, upper)


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
    bounds at the evaluation's normal quantile. Used to choose events, never to report a bound.

    Counts 0 <= k <= n with 1 <= n <= 2^40, ``n_eval`` an int in [1, 2^40], ``delta`` in
    [0, 1), ``alpha`` in (0, 1), ``z_selection`` a real in [0, 100]."""
    k0, n0 = _counts(k0, n0, "k0", "n0")
    k1, n1 = _counts(k1, n1, "k1", "n1")
    n_eval = check_int(n_eval, "n_eval", minimum=1, maximum=MAX_DRAWS_PLANNED)
    delta = check_delta(delta, "delta")
    alpha = _level(alpha, "alpha")
    z_selection = check_finite(z_selection, "z_selection")
    if not 0 <= z_selection <= MAX_Z:
        raise ValueError(f"z_selection must lie in [0, {MAX_Z:g}], got {z_selection!r}")
    _same_shape(k0, n0, k1, n1)
    p0 = _wilson_bound(k0 / n0, n0, z_selection, upper=False)
    p1 = _wilson_bound(k1 / n1, n1, z_selection, upper=True)
    z = float(special.ndtri(1.0 - alpha / 2.0))
    if not math.isfinite(z):  # 1 − α/2 rounds to 1 for α below 1e-16: the same quantile
        z = math.sqrt(2.0) * float(special.erfcinv(max(alpha, 1e-300)))  # z(1e-300) ≈ 37.0
    lo = _wilson_bound(p0, np.asarray(float(n_eval)), z, upper=False) - delta
    hi = _wilson_bound(p1, np.asarray(float(n_eval)), z, upper=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(lo) - np.log(hi)
    return np.where(lo > 0, out, -np.inf)
