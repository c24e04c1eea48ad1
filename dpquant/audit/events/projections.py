"""Projections of numeric outputs: the real numbers that interval events are placed on.

The output itself, or for vector outputs each coordinate, each pairwise difference, and the
whole vector's sum, maximum and minimum (StatDP's post-processings of a vector output: Ding et
al., CCS 2018, Sec. 4; DP-Sniper's StatDP baseline adds them); a position of structured draws;
and, when the neighbouring data sets are known, the *signed midpoint count* of the coordinates
on D's side of the midpoint between D's and D''s values (:func:`midpoint_count`); or, for any
vector output, the same count about the midpoints of the per-coordinate medians of draws on D and
on D' (:func:`fitted_midpoint_count`, fitted on selection draws).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import chdtri

from dpquant.audit.model.outputs import Outputs

Projection = tuple
"""() scalar, ("coord", i), ("diff", i, j), ("sum",), ("max",), ("min",), ("pos", i), or
("midcount", midpoints, signs) and ("midfit", midpoints, signs) (the midpoints from the data, or
fitted on draws)."""
MIDCOUNTS = ("midcount", "midfit")
"""The signed midpoint counts: midpoints from the data (:func:`midpoint_count`) or fitted on
selection draws (:func:`fitted_midpoint_count`)."""
FIT_LEVEL = 1e-9
"""The level of the test that the per-coordinate medians of the draws on D and on D' differ at
all (:func:`fitted_midpoint_count`): on identical laws the fitted count is made with about this
probability."""
FIT_COORD_Z = 1.0
"""The z-score of its medians' difference from which a coordinate is counted, once the test at
:data:`FIT_LEVEL` has passed (a coordinate of equal medians only adds noise to the count)."""
FIT_MIN_DRAWS = 100
"""The fewest numeric draws a side the medians are fitted on."""
WHOLE: dict[str, Callable[..., np.ndarray]] = {"sum": np.sum, "max": np.max, "min": np.min}
"""Projections of the whole output vector."""
MAX_DIFF_WIDTH = 32
"""The widest output whose pairwise differences are projections: their number grows as the
square of the width (496 at 32; a 300-coordinate output gave 44 850, and an audit that did not
finish in twenty minutes), so a wider output is projected on its coordinates and its whole only
(the classic benchmark's vectors have at most 20 coordinates)."""


def project(out: Outputs, projection: Projection) -> np.ndarray:
    """Numeric values of one projection (NaN on atom draws)."""
    if projection and projection[0] == "pos":  # a position of structured draws
        return out.number_column(projection[1])
    v = out.values
    if not projection:
        return v[:, 0]
    if projection[0] == "coord":
        return v[:, projection[1]]
    if projection[0] in WHOLE:
        with np.errstate(over="ignore", invalid="ignore"):
            return WHOLE[projection[0]](v, axis=1)
    if projection[0] in MIDCOUNTS:
        mid, sign = np.asarray(projection[1]), np.asarray(projection[2])
        on_side = ((sign > 0) & (v > mid)) | ((sign < 0) & (v < mid))  # no subtraction to overflow
        count = np.sum(on_side, axis=1).astype(float)
        return np.where(np.isnan(v).any(axis=1), np.nan, count)
    return v[:, projection[1]] - v[:, projection[2]]


def projections(width: int) -> list[Projection]:
    """The projections of every numeric output of ``width`` coordinates (pairwise differences
    up to :data:`MAX_DIFF_WIDTH` coordinates)."""
    if width == 1:
        return [()]
    coords = [("coord", i) for i in range(width)]
    pairs = width <= MAX_DIFF_WIDTH
    diffs = [("diff", i, j) for i in range(width) for j in range(i + 1, width)] if pairs else []
    whole = [] if width == 2 else [(name,) for name in WHOLE]  # for 2: the diff and the ends
    return coords + diffs + whole


def midpoint_count(data: Any, width: int) -> Projection | None:
    """The signed midpoint count of outputs of ``width`` coordinates for the neighbours
    ``data`` = (D, D'), when each is a 1-D numeric array of one value (a value every coordinate
    estimates, as in parallel composition) or of ``width`` values (a vector of query answers):
    the number of coordinates i with D_i ≠ D'_i whose output lies on D_i's side of (D_i + D'_i)/2,
    when at least two coordinates differ (one is an interval of a coordinate).

    For additive noise of a symmetric, unimodal law on every coordinate, each coordinate's
    log-likelihood ratio between D and D' is a monotone function of y_i centred at the midpoint;
    for Laplace noise of scale b and |D_i − D'_i| = Δ it is ±Δ/b outside [D_i, D'_i], so the
    count of coordinates on D's side is, up to the few draws in between, the likelihood ratio
    itself. The sum of the coordinates, its linear proxy, weighs a far-out coordinate as much as
    many: on twenty Laplace(200) copies of one count at ε = 0.1 (ℓ1 budget 20 · 0.005), the count
    event promises 0.042 at 21.8 M evaluation draws where the sum's best promises 0.032
    (``notes/auditor.md``, "Ranking on fresh draws")."""
    if width < 2 or data is None:
        return None
    try:
        d0, d1 = (np.asarray(d, dtype=float) for d in data)
    except (TypeError, ValueError):
        return None
    if d0.ndim != 1 or d0.shape != d1.shape or d0.size not in (1, width):
        return None
    if not (np.all(np.isfinite(d0)) and np.all(np.isfinite(d1))):
        return None
    d0, d1 = np.broadcast_to(d0, width), np.broadcast_to(d1, width)
    differ = d0 != d1
    if np.count_nonzero(differ) < 2:
        return None
    mid = np.where(differ, d0 / 2 + d1 / 2, 0.0)  # (d0 + d1) / 2 overflows near 1.8e308
    sign = (d0 > d1).astype(float) - (d0 < d1)  # 0 where they agree: those never count
    return ("midcount", tuple(float(m) for m in mid), tuple(float(s) for s in sign))


def fitted_midpoint_count(a: Outputs, b: Outputs) -> Projection | None:
    """The signed midpoint count about fitted centres: for numeric draws ``a`` (on D) and ``b``
    (on D') of two or more coordinates, each coordinate's median m_i on D and m'_i on D', and
    the number of coordinates whose output lies on m_i's side of (m_i + m'_i)/2. It is
    :func:`midpoint_count` without the data: for additive noise of a symmetric, unimodal law the
    medians estimate the centres, so on records (whose answers the auditor does not see) the
    count is again, up to the draws between the centres, the likelihood ratio of Laplace copies
    (the classic benchmark's parallel Laplace, ``notes/auditor.md``, "Issue 39: the parallel
    Laplace on its records").

    The count is made only when the medians differ as a whole: Σ_i z_i² above the 1 −
    :data:`FIT_LEVEL` quantile of χ² on the coordinates' number of degrees of freedom, z_i the
    difference of the medians over its standard error (the distribution-free estimate from the
    sample quantiles near 1/2, :func:`_median_and_error`); it then counts the coordinates
    with |z_i| >= :data:`FIT_COORD_Z`, when there are two or more (one is an interval of a
    coordinate). The caller fits it on selection draws and counts its events on others.

    Args:
        a: Draws on D (their numeric draws are used).
        b: Draws on D'.

    Returns:
        The projection ``("midfit", midpoints, signs)``, or None (outputs of different or one
        coordinate, fewer than :data:`FIT_MIN_DRAWS` numeric draws a side, or medians that do
        not differ clearly).
    """
    if a.width != b.width or a.width < 2:
        return None
    va, vb = a.values[a.numeric], b.values[b.numeric]
    if min(len(va), len(vb)) < FIT_MIN_DRAWS:
        return None
    ma, sa = _median_and_error(va)
    mb, sb = _median_and_error(vb)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = np.where(ma == mb, 0.0, (ma - mb) / np.hypot(sa, sb))
    z = np.nan_to_num(z, nan=0.0, posinf=1e6, neginf=-1e6)
    # χ²'s upper quantile (from scipy.special: scipy.stats would cost 0.7 s to import)
    if np.sum(np.minimum(z * z, 1e12)) <= chdtri(a.width, FIT_LEVEL):
        return None
    counted = np.abs(z) >= FIT_COORD_Z
    if np.count_nonzero(counted) < 2:
        return None
    mid = np.where(counted, ma / 2 + mb / 2, 0.0)
    sign = np.where(counted, np.sign(z), 0.0)
    return ("midfit", tuple(float(m) for m in mid), tuple(float(s) for s in sign))


def _median_and_error(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column's median and the distribution-free estimate of its standard error: a quarter
    of the spread between the sample quantiles at 1/2 ± 1/√n (for a density f at the median that
    spread is about 2/(f√n), and the median's standard error 1/(2f√n))."""
    step = min(0.25, 1.0 / np.sqrt(len(v)))
    lo, med, hi = np.quantile(v, [0.5 - step, 0.5, 0.5 + step], axis=0)
    with np.errstate(invalid="ignore", over="ignore"):
        return med, (hi - lo) / 4


def projection_name(p: Projection) -> str:
    """How an event's description names the projection."""
    if not p:
        return "y"
    if p[0] == "coord":
        return f"y[{p[1]}]"
    if p[0] == "pos":
        return f"output[{p[1]}]"
    if p[0] in WHOLE:
        return f"{p[0]}(y)"
    if p[0] == "midcount":
        return "#{i: y[i] on D's side of the midpoint of D[i] and D'[i]}"
    if p[0] == "midfit":
        return "#{i: y[i] on D's side of the midpoint of the selection draws' medians}"
    return f"y[{p[1]}] - y[{p[2]}]"


__all__ = [
    "FIT_COORD_Z",
    "FIT_LEVEL",
    "FIT_MIN_DRAWS",
    "MAX_DIFF_WIDTH",
    "MIDCOUNTS",
    "WHOLE",
    "Projection",
    "fitted_midpoint_count",
    "midpoint_count",
    "project",
    "projection_name",
    "projections",
]
