"""The choice of event on a large selection sample: a stronger penalty, and the best interval
refined.

With a few hundred thousand selection draws the events' selection scores are taken at Wilson
level :data:`dpquant.audit.statistics.bounds.SELECTION_Z` (= 2). With millions, the counts of thousands of
events are precise and what misleads is the winner's curse: among thousands of events with the
same true log-ratio the luckiest is chosen, and that is usually one of small mass, whose count is
the noisiest. On ReportNoisyMax3 at ε = 0.1 (4.2 M selection draws a side) level 2 chose
(−27.0, −21.9], of mass 10^-4 (exact expected bound at 600 M evaluation draws 0.235), where level
4 chose (−27.0, 0.47], of mass 0.035 (0.247); level :data:`LARGE_Z` = 4 is about the largest of
10^4 independent standard normals. :func:`selection_z` gives the level for a sample size.

The interval events' grid (:func:`dpquant.audit.events.grids.grid`) has 64 uniform quantile levels and its
tail levels: with a few hundred thousand selection draws a step of 1/64 of the mass is within the
noise of the counts, but with millions it is not, and the end of the best interval can sit a
step away from where the privacy loss changes. The maximum of report-noisy-max-with-value
(ReportNoisyMax3) has log-ratio exactly kε/2 on {max <= t} for t below every answer and less
beyond (Bichsel et al., S&P 2021, Table II): the coarse grid puts t either below, at a smaller
mass, or above, at a smaller ratio. :func:`refine_interval` searches each finite end of the best
interval again on :data:`REFINE_POINTS` quantiles of the pooled draws between its two grid
neighbours, on the same selection draws. Only the choice of the event changes: it is evaluated on
fresh draws like any other (:mod:`dpquant.audit.pipeline.stage3_evaluation`), so the refinement cannot cost soundness.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dpquant.audit.events.families import Scored, score_events
from dpquant.audit.events.grids import grid
from dpquant.audit.events.projections import project
from dpquant.audit.events.scores import LARGE_SELECTION
from dpquant.audit.model.outputs import Outputs
from dpquant.audit.statistics.bounds import SELECTION_Z

REFINE_FROM = LARGE_SELECTION
"""Selection draws per side from which the best interval is refined (fewer: the grid's steps are
within the counts' noise, and a finer search would only fit that noise)."""
REFINE_POINTS = 64
"""Quantile levels between an end's two grid neighbours."""
LARGE_Z = 4.0
"""The Wilson level of the selection scores from :data:`REFINE_FROM` draws per side."""


def selection_z(size: int) -> float:
    """The Wilson level of the selection scores for ``size`` selection draws per side."""
    return LARGE_Z if size >= REFINE_FROM else SELECTION_Z


def refine_interval(
    best: Scored, a: Outputs, b: Outputs, n_eval: int, delta: float, alpha: float
) -> Scored:
    """``best``, or an interval on the same projection with ends moved within one grid step
    that scores better (at level :data:`LARGE_Z`) on the same draws ``a`` (on D) and ``b`` (on
    D'); ``n_eval``, ``delta``, ``alpha`` as for :func:`dpquant.audit.events.families.best_event`, whose choice
    ``best`` is, at level :func:`selection_z`. Other events, lattice intervals and samples
    smaller than :data:`REFINE_FROM` per side are returned as they are."""
    e = best.event
    if e.kind != "interval" or e.lattice is not None or min(len(a), len(b)) < REFINE_FROM:
        return best
    if e.width and (a.width != e.width or b.width != e.width):
        return best
    za, zb = (
        np.sort(z[~np.isnan(z)]) for z in (project(a, e.projection), project(b, e.projection))
    )
    pooled = np.sort(np.concatenate([za, zb]))
    coarse = grid(pooled)
    lo, hi = np.meshgrid(_around(e.lo, coarse, pooled), _around(e.hi, coarse, pooled))
    keep = lo < hi
    lo, hi = lo[keep], hi[keep]
    ka = _counts(za, lo, hi)
    kb = _counts(zb, lo, hi)
    events = [replace(e, lo=float(x), hi=float(y)) for x, y in zip(lo, hi, strict=True)]
    found = score_events(events, ka, kb, len(a), len(b), n_eval, delta, alpha, z=LARGE_Z)[0]
    return found if found.expected > best.expected else best


def _counts(z: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """How many of the sorted values ``z`` lie in each (lo, hi]."""
    return np.asarray(np.searchsorted(z, hi, "right") - np.searchsorted(z, lo, "right"))


def _around(end: float, coarse: np.ndarray, pooled: np.ndarray) -> np.ndarray:
    """``end`` and :data:`REFINE_POINTS` quantiles of the pooled draws strictly between its two
    neighbours on the grid ``coarse`` (an infinite end stays as it is)."""
    if not np.isfinite(end):
        return np.array([end])
    k = int(np.searchsorted(coarse, end))
    left, right = coarse[max(k - 1, 0)], coarse[min(k + 1, len(coarse) - 1)]
    inside = pooled[np.searchsorted(pooled, left, "right") : np.searchsorted(pooled, right, "left")]
    if inside.size == 0:
        return np.array([end])
    levels = np.linspace(0.0, 1.0, REFINE_POINTS + 1)
    return np.unique(np.r_[end, np.quantile(inside, levels, method="lower")])


__all__ = ["LARGE_Z", "REFINE_FROM", "REFINE_POINTS", "refine_interval", "selection_z"]
