"""Grids of the black-box events: the points of the interval events (empirical quantiles of the
pooled selection draws, with levels in the tails) and the lattice exponent of a double (the
float-lattice family, Mironov 2012). Pure numpy; the events themselves are in
:mod:`dpquant.audit.events.families`."""

from __future__ import annotations

import numpy as np

from dpquant.audit.events.scores import EXACT_GRID_LIMIT

GRID_POINTS = 64
"""Uniform quantile levels of the interval grid."""
TAIL_COUNT = 32
"""The rarest tail level of the grid holds about this many of the pooled draws."""


def grid(pooled: np.ndarray) -> np.ndarray:
    """The interval events' grid for the pooled draws of one projection: −inf, every distinct
    value when there are at most :data:`EXACT_GRID_LIMIT`, else :data:`GRID_POINTS` + 1 uniform
    quantiles and the tail levels (:func:`tail_levels`), then +inf."""
    pooled = pooled[np.isfinite(pooled)]
    return _points(pooled, np.unique(pooled))


def grid_of_sorted(za: np.ndarray, zb: np.ndarray) -> np.ndarray:
    """:func:`grid` of the pooled draws of two sorted samples without NaN: the same points,
    faster. The two runs are merged, so that the distinct values are read off the merge and the
    quantiles cost a partition of sorted data (several times faster than of unsorted; the
    interval events' grids were a third of the selection's time on a 20-coordinate output,
    ``notes/auditor.md``, "Issue 39: the parallel Laplace on its records"). Draws holding a zero
    take :func:`grid` itself: −0.0 and 0.0 are one value but two doubles, and which of them a
    grid point is must not depend on the order of the draws."""
    pooled = np.concatenate([za, zb])
    if np.any(pooled == 0):
        return grid(pooled)
    pooled.sort(kind="stable")  # two sorted runs: a merge
    pooled = pooled[np.isfinite(pooled)]
    first = np.ones(pooled.size, dtype=bool)
    np.not_equal(pooled[1:], pooled[:-1], out=first[1:])
    return _points(pooled, pooled[first])


def _points(pooled: np.ndarray, distinct: np.ndarray) -> np.ndarray:
    """The grid of the finite pooled draws ``pooled`` whose distinct values, sorted, are
    ``distinct`` (:func:`grid`)."""
    if pooled.size == 0:
        return np.array([-np.inf, np.inf])
    if distinct.size <= EXACT_GRID_LIMIT:
        inner = distinct
    else:
        inner = np.unique(np.quantile(pooled, quantile_levels(pooled.size), method="lower"))
    return np.concatenate([[-np.inf], inner, [np.inf]])


def quantile_levels(n: int) -> np.ndarray:
    """The quantile levels of a grid on ``n`` pooled draws: :data:`GRID_POINTS` + 1 uniform
    ones and the tail levels (:func:`tail_levels`)."""
    return np.r_[np.linspace(0, 1, GRID_POINTS + 1), tail_levels(n)]


def tail_levels(n: int) -> np.ndarray:
    """Quantile levels 2^-j and 1 − 2^-j beyond the uniform grid's first step, down to about
    :data:`TAIL_COUNT` draws: with many draws the best events of a heavy-tailed or shifted output
    lie in its tails (the privacy loss of a Laplace or a maximum is largest there)."""
    first = int(np.ceil(np.log2(GRID_POINTS))) + 1
    last = int(np.floor(np.log2(max(n, 1) / TAIL_COUNT)))
    p = 2.0 ** -np.arange(first, last + 1)
    return np.r_[p, 1 - p]


def lattice_exponent(z: np.ndarray) -> np.ndarray:
    """For each double z, the K such that 2^-K is its lowest set bit: z is a multiple of 2^-k
    exactly when k >= K. (z = m·2^e with a 53-bit significand s = |m|·2^53 = t·2^r, t odd, gives
    z = t·2^(e − 53 + r), so K = 53 − e − r.) Zero, NaN and ±inf give −inf."""
    try:
        raw = np.asarray(z)
    except ValueError:
        raise ValueError("z must be an array of real numbers, got ragged sequences") from None
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"z must hold real numbers (NaN allowed), got dtype {raw.dtype}")
    z = raw.astype(float)
    out = np.full(z.shape, -np.inf)
    ok = np.isfinite(z) & (z != 0)
    if ok.any():
        m, e = np.frexp(z[ok])
        s = (np.abs(m) * 2.0**53).astype(np.int64)  # exact: |m| in [1/2, 1)
        r = np.log2(s & -s).astype(np.int64)  # the lowest set bit of s, a power of two
        out[ok] = 53 - e - r
    return out


__all__ = [
    "GRID_POINTS",
    "TAIL_COUNT",
    "grid",
    "grid_of_sorted",
    "lattice_exponent",
    "quantile_levels",
    "tail_levels",
]
