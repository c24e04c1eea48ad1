"""The divergences of two Bernoulli laws, computed so that rounding never overstates them.

An event S turns the outputs of M(D) and M(D') into Bernoulli laws Bern(P0) and Bern(P1); every
privacy measure of :mod:`.measure_bounds` is bounded below through a divergence of that pair. The
functions here take arrays (numpy broadcasting) of masses p > q and return a value **at most** the
exact divergence of the float inputs: each subtracts a downward margin of
:data:`ROUNDING_MARGIN` (1e-12, about 4500 units in the last place) times the sum of the
magnitudes of the logarithms it combines. A float computation of a few dozen correctly rounded
operations errs by a small multiple of 2^-53 times those magnitudes, so the margin covers it with
room to spare; ``tests/audit/statistics/test_measure_bounds.py`` checks the values against mpmath
at 50 digits. Where p <= q every function returns 0 (a divergence is >= 0), which keeps each
value nondecreasing in p and nonincreasing in q everywhere (:mod:`.measure_bounds`, "Monotonicity").

* :func:`renyi_divergence`: D_a(Bern(p) ‖ Bern(q)) for an order a in (1, ∞] (van Erven and
  Harremoës, "Rényi Divergence and Kullback-Leibler Divergence", IEEE Trans. Inf. Theory 2014);
* :func:`kl_divergence`: the limit a → 1, the Kullback–Leibler divergence;
* :func:`zcdp_rho`: sup over a > 1 of (D_a − ξ)/a, the ρ a (ξ, ρ)-zCDP mechanism must have
  (Bun and Steinke, "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds", TCC 2016, Definition 1.1), on a fixed grid of orders (fast, for ranking) or refined;
* :func:`gaussian_gap`: Φ^{-1}(p) − Φ^{-1}(q), the μ a μ-GDP mechanism must have (Dong, Roth and
  Su, "Gaussian Differential Privacy", JRSS B 2022).

This module takes checked arrays (the checks are :mod:`.measure_bounds`'s): masses in [0, 1],
orders > 1.
"""

from __future__ import annotations

import numpy as np
from scipy import special

ROUNDING_MARGIN = 1e-12
"""The relative downward margin of every value here: the value less 1e-12 times the magnitudes it
was computed from (far above the few ulps a float evaluation errs by)."""

ORDER_GRID = np.concatenate(([1.0], 1.0 + np.logspace(-4.0, 6.0, 81)))
"""The orders a of :func:`zcdp_rho`'s grid: 1 (the Kullback–Leibler limit a → 1) and 81
log-spaced values of a − 1 from 1e-4 to 1e6 (eight per decade)."""

_GOLDEN_STEPS = 48
"""Golden-section steps of the refinement: the bracket of two grid cells (ln 10 / 4 wide in
ln(a − 1)) shrinks by 0.618^48 ≈ 1e-10."""
_INV_PHI = (np.sqrt(5.0) - 1.0) / 2.0


def _logs(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, ...]:
    """ln p, ln q, ln(1 − p), ln(1 − q) (log1p: exact digits near 0), without warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(p), np.log(q), np.log1p(-p), np.log1p(-q)


def renyi_divergence(p: np.ndarray, q: np.ndarray, order: np.ndarray | float) -> np.ndarray:
    """D_a(Bern(p) ‖ Bern(q)) for p > q, rounded down (module docstring); 0 where p <= q.

    D_a = ln(p^a q^(1−a) + (1−p)^a (1−q)^(1−a)) / (a − 1) for finite a > 1, and
    D_∞ = max(ln(p/q), ln((1−p)/(1−q))) = ln(p/q) when p > q. With b = 1/(a − 1) the terms
    u1 = ln q + a ln(p/q) and u2 = ln(1 − q) + a ln((1−p)/(1−q)) of the log-sum-exp are divided by
    a − 1 before they are added (u1 b = ln(p/q) + b ln p), so no order overflows: D_a =
    max(u1, u2) b + b ln(1 + e^(−|u1 − u2|)). +inf where q = 0 < p.

    Args:
        p: Masses in [0, 1] (the event's mass under M(D)).
        q: Masses in [0, 1], broadcast with ``p`` (the mass under M(D')).
        order: Orders in (1, ∞], broadcast with ``p`` and ``q``.

    Returns:
        The divergences, an array of the broadcast shape, each >= 0 and at most the exact value.
    """
    p, q, a = np.broadcast_arrays(
        np.asarray(p, float), np.asarray(q, float), np.asarray(order, float)
    )
    lp, lq, l1p, l1q = _logs(p, q)
    infinite = np.isinf(a)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        b = np.where(infinite, 0.0, 1.0 / (a - 1.0))
        r, s = lp - lq, l1p - l1q
        e1 = r + b * lp
        e2 = np.where(p < 1.0, s + b * l1p, -np.inf)
        gap = (lq - l1q) + a * (r - s)  # u1 − u2 (inf when a(r − s) overflows: no tail)
        weight = np.exp(-np.abs(gap))  # the tail's sensitivity to an error in the gap, over b
        tail = b * np.log1p(weight)
        finite_value = np.maximum(e1, e2) + np.where(np.isnan(tail), 0.0, tail)
        value = np.where(infinite, r, finite_value)
        # forward error: the logs, the ln p/(a − 1) terms, the gap (a b = 1 + b) through the tail
        l1p, s = np.where(p < 1.0, np.abs(l1p), 0.0), np.where(p < 1.0, np.abs(s), 0.0)
        logs = np.abs(lp) + np.abs(lq) + l1p + np.abs(l1q)
        magnitude = (
            logs
            + b * (np.abs(lp) + l1p)
            + np.where(weight > 0, (1.0 + b) * weight * (logs + np.abs(r) + s), 0.0)
            + np.abs(value)
            + 1.0
        )
        low = value - ROUNDING_MARGIN * magnitude
    low = np.where(q == 0.0, np.inf, low)
    return np.where((p > q) & (low > 0.0), low, 0.0)


def kl_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """KL(Bern(p) ‖ Bern(q)) = p ln(p/q) + (1 − p) ln((1−p)/(1−q)) for p > q, rounded down; 0
    where p <= q; +inf where q = 0 < p. The limit a → 1 of :func:`renyi_divergence`.

    Args:
        p: Masses in [0, 1].
        q: Masses in [0, 1], broadcast with ``p``.

    Returns:
        The divergences, an array of the broadcast shape, each >= 0 and at most the exact value.
    """
    p, q = np.broadcast_arrays(np.asarray(p, float), np.asarray(q, float))
    lp, lq, l1p, l1q = _logs(p, q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first = p * (lp - lq)
        second = np.where(p < 1.0, (1.0 - p) * (l1p - l1q), 0.0)
        magnitude = p * (np.abs(lp) + np.abs(lq)) + np.where(
            p < 1.0, (1.0 - p) * (np.abs(l1p) + np.abs(l1q)), 0.0
        )
        low = first + second - ROUNDING_MARGIN * (magnitude + 1e-300)
    low = np.where(q == 0.0, np.inf, low)
    return np.where((p > q) & (low > 0.0), low, 0.0)


def _rho_at(p: np.ndarray, q: np.ndarray, order: np.ndarray, xi: float) -> np.ndarray:
    """(D_a − ξ)/a at each order, rounded down; the KL divergence at order 1."""
    kl = order == 1.0
    divergence = np.where(kl, kl_divergence(p, q), renyi_divergence(p, q, np.where(kl, 2.0, order)))
    value = (divergence - xi) / order
    with np.errstate(invalid="ignore"):
        low = value - ROUNDING_MARGIN * (divergence + xi) / order
    return np.where(np.isinf(divergence), value, low)


def zcdp_rho(
    p: np.ndarray, q: np.ndarray, xi: float, refine: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The largest (D_a(Bern(p) ‖ Bern(q)) − ξ)/a over the orders tried, floored at 0, and its order.

    Every order gives a lower bound of the zCDP ρ (Bun and Steinke 2016, Definition 1.1:
    D_a <= ξ + ρa for all a > 1), and so does the limit a → 1 (D_a decreases to the KL divergence),
    reported as order 1. The orders tried are :data:`ORDER_GRID`; with ``refine`` a golden-section
    search on ln(a − 1) then explores the two grid cells around each maximum, and the larger of the
    two values is kept, so refinement never lowers the value. Each value is computed at its order
    with the downward margin, so the maximum over any set of orders is sound.

    Args:
        p: Masses in [0, 1].
        q: Masses in [0, 1], broadcast with ``p``.
        xi: The ξ of the (ξ, ρ)-zCDP definition, >= 0.
        refine: Whether to refine the grid's maximum.

    Returns:
        (ρ, order): arrays of the broadcast shape; the order is NaN where ρ is 0 from the floor
        (no order gives a positive value) and +inf where ρ is +inf (q = 0 < p).
    """
    p, q = np.broadcast_arrays(np.asarray(p, float), np.asarray(q, float))
    values = _rho_at(p[..., None], q[..., None], ORDER_GRID, xi)
    best = np.argmax(values, axis=-1)
    rho = np.take_along_axis(values, best[..., None], axis=-1)[..., 0]
    order = ORDER_GRID[best]
    if refine and p.size:
        logs = np.log(ORDER_GRID[1:] - 1.0)  # ln(a − 1) of the grid, less the KL order
        inner = np.clip(best - 1, 0, logs.size - 1)
        lo = logs[np.clip(inner - 1, 0, None)]
        hi = logs[np.clip(inner + 1, None, logs.size - 1)]
        x1, x2 = hi - _INV_PHI * (hi - lo), lo + _INV_PHI * (hi - lo)
        f1, f2 = _rho_at(p, q, 1.0 + np.exp(x1), xi), _rho_at(p, q, 1.0 + np.exp(x2), xi)
        for _ in range(_GOLDEN_STEPS):
            left = f1 >= f2  # keep [lo, x2]; else [x1, hi]
            hi, lo = np.where(left, x2, hi), np.where(left, lo, x1)
            x1, x2 = (
                np.where(left, hi - _INV_PHI * (hi - lo), x2),
                np.where(left, x1, lo + _INV_PHI * (hi - lo)),
            )
            fresh = _rho_at(p, q, 1.0 + np.exp(np.where(left, x1, x2)), xi)
            f1, f2 = np.where(left, fresh, f2), np.where(left, f1, fresh)
        found_order = 1.0 + np.exp(np.where(f1 >= f2, x1, x2))
        found = _rho_at(p, q, found_order, xi)  # recomputed at the order it reports
        better = found > rho
        rho = np.where(better, found, rho)
        order = np.where(better, found_order, order)
    infinite = np.isinf(rho)
    order = np.where(infinite, np.inf, np.where(rho > 0.0, order, np.nan))
    return np.where(rho > 0.0, rho, 0.0), order


def gaussian_gap(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Φ^{-1}(p) − Φ^{-1}(q) for p > q, rounded down; 0 where p <= q; +inf where p = 1 or q = 0.

    ``scipy.special.ndtri`` is accurate to a few units in the last place of its result (Cephes:
    relative error below 4e-16), so the difference less :data:`ROUNDING_MARGIN` times the
    magnitudes of the two quantiles is at most the exact difference, even when they nearly cancel.

    Args:
        p: Masses in [0, 1].
        q: Masses in [0, 1], broadcast with ``p``.

    Returns:
        The gaps, an array of the broadcast shape, each >= 0 and at most the exact value.
    """
    p, q = np.broadcast_arrays(np.asarray(p, float), np.asarray(q, float))
    zp, zq = special.ndtri(p), special.ndtri(q)
    with np.errstate(invalid="ignore"):
        low = zp - zq - ROUNDING_MARGIN * (np.abs(zp) + np.abs(zq))
    low = np.where((p == 1.0) | (q == 0.0), np.inf, low)
    return np.where((p > q) & (low > 0.0), low, 0.0)


__all__ = [
    "ORDER_GRID",
    "ROUNDING_MARGIN",
    "gaussian_gap",
    "kl_divergence",
    "renyi_divergence",
    "zcdp_rho",
]
