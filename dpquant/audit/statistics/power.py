"""Power-aware planning from exact laws (``notes/auditor.md``, "Design": power before loss).

For two exact laws the best event of a given size is a likelihood-ratio (Neyman–Pearson) set. On
the cells of the merged breakpoints (or the atoms) the masses P_i, Q_i are computed in floats; the
cells sorted by ln(P_i/Q_i) give the nested likelihood-ratio sets, and the one whose *expected*
Clopper–Pearson bound is largest measures how well ``n`` draws per side can detect the pair. Pairs
are ranked by this, not by their exact ε alone: a large loss on a region of tiny mass is invisible to
any sampler (the "curator attack").

This is a float screen used for ranking; exact losses are recomputed in mpmath by
:mod:`dpquant.audit.statistics.exact_loss`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.audit.statistics.bounds import expected_bound, samples_needed
from dpquant.reference.distributions import (
    MAX_PRODUCT_CELLS,
    DiscreteLaw,
    GridLaw,
    PiecewiseLogLinear,
    ProductLaw,
    grid_cell_masses,
)
from dpquant.reference.validation import check_delta, check_int, check_probability

MAX_EVAL = 2**40  # evaluation draws per side the bounds are computed for


@dataclass(frozen=True)
class PairPower:
    """Float screen of one pair: a loss estimate (max over cells of |ln P_i/Q_i|, exact for
    piecewise-constant laws), the best expected bound and the masses of its event."""

    loss: float
    expected: float
    p0: float
    p1: float
    forward: bool
    threshold: float = math.inf  # the event is {ln p/q >= threshold} (forward) or <= (backward)

    def samples_needed(self, epsilon: float, delta: float, alpha: float) -> int | None:
        return samples_needed(self.p0, self.p1, epsilon, delta, alpha)


def _own_cdf(law: PiecewiseLogLinear, points: np.ndarray) -> np.ndarray:
    return law.cdf(points)


def cell_masses(
    p: Any,
    q: Any,
    cdf: Callable[[PiecewiseLogLinear, np.ndarray], np.ndarray] = _own_cdf,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Float masses of the two laws on common cells (for product laws, the products of the
    coordinates' cells), or None when the law types differ.

    Args:
        p: An exact law.
        q: An exact law.
        cdf: Gives a piecewise law's cdf at points (by default the law's own ``cdf``; the
            batched screen reads values it computed once,
            :class:`dpquant.audit.statistics.batch_power.CdfTable`).

    Returns:
        The masses (P, Q) of the common cells, or None.
    """
    if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw):
        atoms = list(dict.fromkeys([*p.support, *q.support]))
        pp = dict(zip(p.support, p.probabilities, strict=True))
        qq = dict(zip(q.support, q.probabilities, strict=True))
        return np.array([pp.get(a, 0.0) for a in atoms]), np.array([qq.get(a, 0.0) for a in atoms])
    if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
        breaks = np.union1d(p.breaks, q.breaks)
        return np.diff(cdf(p, breaks)), np.diff(cdf(q, breaks))
    if isinstance(p, GridLaw) and isinstance(q, GridLaw) and len(p) == len(q):
        return grid_cell_masses(p, q)
    if isinstance(p, ProductLaw) and isinstance(q, ProductLaw) and len(p) == len(q):
        P, Q = np.ones(1), np.ones(1)
        for a, b in zip(p.components, q.components, strict=True):
            cells = cell_masses(a, b, cdf)
            if cells is None or P.size * cells[0].size > MAX_PRODUCT_CELLS:
                return None
            P, Q = np.multiply.outer(P, cells[0]).ravel(), np.multiply.outer(Q, cells[1]).ravel()
        return P, Q
    return None


def pair_power(p: Any, q: Any, n_eval: int, delta: float, alpha: float) -> PairPower:
    """Screen one pair of exact laws (mutually singular laws: loss inf, event of mass 1 vs 0).
    Cell masses that are NaN (a law that yields NaN) are a ``ValueError``, never a screen."""
    n_eval = check_int(n_eval, "n_eval", minimum=1, maximum=MAX_EVAL)
    delta = check_delta(delta, "delta")
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    masses = cell_masses(p, q)
    if masses is None:
        singular = float(expected_bound(1.0, 0.0, n_eval, delta, alpha))
        return PairPower(math.inf, singular, 1.0, 0.0, True)
    P, Q = masses
    if np.isnan(P).any() or np.isnan(Q).any():
        raise ValueError("p and q yield NaN cell masses: their laws cannot be judged")
    keep = (P > 0) | (Q > 0)
    P, Q = P[keep], Q[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        llr = np.log(P) - np.log(Q)
    loss = float(np.max(np.abs(llr))) if llr.size else 0.0
    best = PairPower(loss, -math.inf, 0.0, 0.0, True)
    for forward, order in (
        (True, np.argsort(-llr, kind="stable")),
        (False, np.argsort(llr, kind="stable")),
    ):
        a, b = (P, Q) if forward else (Q, P)
        ca, cb = np.cumsum(a[order]), np.cumsum(b[order])
        bounds = expected_bound(np.minimum(ca, 1.0), np.minimum(cb, 1.0), n_eval, delta, alpha)
        k = int(np.argmax(bounds))
        if bounds[k] > best.expected:
            t = float(llr[order[k]])  # the whole tie group at the threshold is in the event
            mask = llr >= t if forward else llr <= t
            p0, p1 = float(min(a[mask].sum(), 1.0)), float(min(b[mask].sum(), 1.0))
            value = float(expected_bound(p0, p1, n_eval, delta, alpha))
            best = PairPower(loss, value, p0, p1, forward, t)
    return best
