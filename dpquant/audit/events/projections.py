"""Projections of numeric outputs: the real numbers that interval events are placed on.

The output itself, or for vector outputs each coordinate, each pairwise difference, and the
whole vector's sum, maximum and minimum (StatDP's post-processings of a vector output: Ding et
al., CCS 2018, Sec. 4; DP-Sniper's StatDP baseline adds them); a position of structured draws;
and, when the neighbouring data sets are known, the *signed midpoint count* of the coordinates
on D's side of the midpoint between D's and D''s values (:func:`midpoint_count`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpquant.audit.model.outputs import Outputs

Projection = tuple
"""() scalar, ("coord", i), ("diff", i, j), ("sum",), ("max",), ("min",), ("pos", i), or
("midcount", midpoints, signs)."""
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
        _, numbers = out.padded(projection[1] + 1)
        return numbers[:, projection[1]]
    v = out.values
    if not projection:
        return v[:, 0]
    if projection[0] == "coord":
        return v[:, projection[1]]
    if projection[0] in WHOLE:
        with np.errstate(over="ignore", invalid="ignore"):
            return WHOLE[projection[0]](v, axis=1)
    if projection[0] == "midcount":
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
    return f"y[{p[1]}] - y[{p[2]}]"


__all__ = [
    "MAX_DIFF_WIDTH",
    "WHOLE",
    "Projection",
    "midpoint_count",
    "project",
    "projection_name",
    "projections",
]
