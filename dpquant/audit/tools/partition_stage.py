"""The partition stage of :func:`~dpquant.audit.tools.measure_audit.audit_claim`: Rényi and zCDP
bounds from a finite partition of the output space (issue 37).

A binary event cannot show that a Gaussian with 0.8 of its scale breaks a Rényi claim at order
2 (:mod:`dpquant.audit.statistics.partition_bounds`). This stage takes the pair and the event that
gave the best bound in the claim's measure at the first black-box point, and

1. orders the outputs by that event's score: its projection for an interval or point event, its
   likelihood ratio (or classifier score) for a ratio event; draws whose score is not a number
   (atoms, another width) form one cell of their own;
2. on fresh *selection* draws of both data sets (:data:`SELECTION_DRAWS` each, or as many as the
   evaluation draws when those are fewer: :func:`selection_draws`), cuts the score's
   line at quantiles of the pooled draws, for several numbers of cells (:data:`CELL_COUNTS`),
   each with finer cuts towards both tails, and keeps, with the direction (D, D') or (D', D), the
   partition whose bound the evaluation would give if the counts came out pessimistically
   (:func:`dpquant.audit.statistics.counts.pessimistic_masses` per cell, at each cell's level);
3. counts the chosen partition's cells on fresh *evaluation* draws and reports the bound of
   :func:`~dpquant.audit.statistics.partition_bounds.renyi_partition_bound` (each order of a
   Rényi claim) or :func:`~dpquant.audit.statistics.partition_bounds.zcdp_partition_bound`, at
   the stage's share of α.

Everything before the evaluation draws only chooses what to count, so the bound holds at the
stage's level whatever the choice (the selection/evaluation split of the black-box points).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

import numpy as np

from dpquant.audit.events.families import RATIO_KINDS, Event
from dpquant.audit.events.projections import project
from dpquant.audit.model.limits import MAX_SAMPLES
from dpquant.audit.model.outputs import Outputs
from dpquant.audit.pipeline.draws import ChunkPool, DrawJob, draw
from dpquant.audit.report.findings import DataPair, EvaluatedCandidate
from dpquant.audit.statistics.counts import SELECTION_Z, check_level, pessimistic_masses
from dpquant.audit.statistics.partition_bounds import (
    cell_box,
    renyi_partition_bound,
    zcdp_partition_bound,
)
from dpquant.audit.tools.claim_report import ClaimBound, PartitionFinding
from dpquant.errors import ParameterError
from dpquant.reference.measures import RenyiClaim, ZCDPClaim
from dpquant.reference.validation import check_int, check_positive

SELECTION_DRAWS = 1 << 17
"""Selection draws per data set (the cuts and the direction are chosen on them), at most."""
CELL_COUNTS = (2, 4, 8, 16, 32, 64)
"""The numbers of equal-mass cells of the candidate partitions (before their tail cuts)."""
TAIL_DRAWS = 32
"""The finest tail cut keeps at least this many pooled selection draws beyond it."""
BLOCK = 1 << 20
"""Evaluation draws per data set drawn and counted at a time."""

Score = Callable[[Outputs], np.ndarray]


def event_score(event: Event) -> Score | None:
    """The real score an event thresholds, as a function of the draws (NaN where the event's
    score does not apply), or None for an event with no order (atoms, data values, widths,
    tokens).

    Args:
        event: An event of the black-box stage.

    Returns:
        The score function, or None.
    """
    if event.kind in RATIO_KINDS and event.llr is not None:
        llr, sign = event.llr, -1.0 if event.kind == "likelihood_ratio_reverse" else 1.0

        def ratio(out: Outputs) -> np.ndarray:
            z = np.where(out.numeric[:, None], out.values, 0.0)
            with np.errstate(invalid="ignore"):
                return _masked(event, out, sign * np.asarray(llr(z), dtype=float))

        return ratio
    if event.kind == "classifier" and event.llr is not None:
        classify = event.llr
        return lambda out: _masked(event, out, np.asarray(classify(out), dtype=float))
    if event.kind in ("interval", "point"):
        if event.projection and event.projection[0] == "pos":
            return lambda out: np.asarray(project(out, event.projection), dtype=float)
        return lambda out: _masked(event, out, np.asarray(project(out, event.projection), float))
    return None


def _masked(event: Event, out: Outputs, score: np.ndarray) -> np.ndarray:
    """NaN where a draw is not numeric or (for an event of a fixed width) of another width."""
    if event.width and out.width != event.width:
        return np.full(len(out), np.nan)
    return np.where(out.numeric, score, np.nan)


def _levels(cells: int, pooled: int) -> np.ndarray:
    """Quantile levels: k/cells, and 2^-j, 1 − 2^-j down to :data:`TAIL_DRAWS` draws."""
    levels = [k / cells for k in range(1, cells)]
    j = int(math.log2(cells)) + 1
    while pooled * 2.0**-j >= TAIL_DRAWS:
        levels += [2.0**-j, 1 - 2.0**-j]
        j += 1
    return np.unique(np.array(levels))


def _candidate_cuts(z0: np.ndarray, z1: np.ndarray) -> list[np.ndarray]:
    """The candidate partitions' inner cut points (sorted, distinct), from the selection scores.

    Args:
        z0: Selection scores on D (NaN allowed: their own cell).
        z1: Selection scores on D'.

    Returns:
        One array of cuts per entry of :data:`CELL_COUNTS` (duplicates removed).
    """
    pooled = np.concatenate([z0, z1])
    pooled = pooled[np.isfinite(pooled)]
    out: list[np.ndarray] = []
    if pooled.size == 0:
        return out
    for cells in CELL_COUNTS:
        cuts = np.unique(np.quantile(pooled, _levels(cells, pooled.size), method="inverted_cdf"))
        if not any(np.array_equal(cuts, c) for c in out):
            out.append(cuts)
    return out


def _cell_counts(z: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """The draws in each cell: (−inf, c_1], (c_1, c_2], ..., (c_k, +inf], then the NaN cell.

    Args:
        z: Scores.
        cuts: Sorted inner cut points.

    Returns:
        k + 2 integer counts.
    """
    index = np.searchsorted(cuts, z, side="left")
    index = np.where(np.isnan(z), cuts.size + 1, index)
    return np.bincount(index, minlength=cuts.size + 2)


def _claim_bounds(claim: Any, lower: np.ndarray, upper: np.ndarray) -> list[ClaimBound]:
    """The partition's bound in each of the claim's measures."""
    if isinstance(claim, ZCDPClaim):
        rho, order = zcdp_partition_bound(lower, upper, claim.xi)
        label = "ρ (zCDP)" if claim.xi == 0 else f"ρ (zCDP, ξ = {claim.xi:g})"
        return [ClaimBound("rho", label, claim.rho, rho, order)]
    assert isinstance(claim, RenyiClaim)
    return [
        ClaimBound(
            "renyi",
            f"ε_a (Rényi DP, a = {a:g})",
            eps,
            renyi_partition_bound(lower, upper, a),
            a,
        )
        for a, eps in claim.orders
    ]


def _objective(bounds: list[ClaimBound]) -> float:
    """The largest bound relative to its claim (the excess where the claim is 0)."""
    return max(b.bound / b.claimed if b.claimed > 0 else b.bound - b.claimed for b in bounds)


def _used(counts0: np.ndarray, counts1: np.ndarray) -> np.ndarray:
    """The cells kept: all but a NaN cell no draw fell in (dropping a cell only lowers H)."""
    keep = np.ones(counts0.size, dtype=bool)
    keep[-1] = counts0[-1] + counts1[-1] > 0
    return keep


def _pessimistic(claim: Any, c0: np.ndarray, c1: np.ndarray, n_eval: int, alpha: float) -> float:
    """The objective at the masses the evaluation would give if it came out pessimistically."""
    keep = _used(c0, c1)
    m = int(keep.sum())
    n0, n1 = float(c0.sum()), float(c1.sum())
    lo, up = pessimistic_masses(
        c0[keep].astype(float),
        np.full(m, n0),
        c1[keep].astype(float),
        np.full(m, n1),
        n_eval,
        alpha / m,
        SELECTION_Z,
    )
    return _objective(_claim_bounds(claim, np.clip(lo, 0.0, 1.0), np.clip(up, 0.0, 1.0)))


def selection_draws(n_eval: int) -> int:
    """The selection draws per data set for ``n_eval`` evaluation draws: :data:`SELECTION_DRAWS`,
    or ``n_eval`` when that is smaller. A small budget (``audit_claim(samples=2_000)``) makes a
    small stage: the selection's 2^17 draws a side would otherwise be the whole cost of such an
    audit (about 65 s of a per-draw function at 0.25 ms a draw), and a selection larger than
    the evaluation refines the cuts beyond what the evaluation can count (``notes/auditor.md``,
    "The partition stage's selection follows the budget").

    Args:
        n_eval: Evaluation draws per data set, at least 1.

    Returns:
        The selection draws per data set.
    """
    return min(SELECTION_DRAWS, check_int(n_eval, "n_eval", minimum=1))


def _draw_scores(
    mech: Any,
    data: tuple[np.ndarray, np.ndarray],
    size: int,
    seed: int,
    tag: int,
    score: Score,
    executor: Executor | None,
    timeout: float | None,
    pool: ChunkPool | None,
) -> tuple[np.ndarray, np.ndarray]:
    """``size`` draws on each data set, scored, block by block (keys (tag, side, block))."""
    parts: list[list[np.ndarray]] = [[], []]
    for b, start in enumerate(range(0, size, BLOCK)):
        n = min(BLOCK, size - start)
        jobs = [DrawJob(d, n, (tag, side, b)) for side, d in enumerate(data)]
        outs = draw(
            mech, jobs, seed, executor, timeout=timeout, stop_on_timeout=False, pool=pool
        )
        for side, out in enumerate(outs):
            parts[side].append(score(out))
    return np.concatenate(parts[0]), np.concatenate(parts[1])


def partition_stage(
    mech: Any,
    claim: RenyiClaim | ZCDPClaim,
    candidate: EvaluatedCandidate,
    *,
    n_eval: int,
    alpha: float,
    seed: int,
    executor: Executor | None = None,
    timeout: float | None = None,
    pool: ChunkPool | None = None,
) -> PartitionFinding | None:
    """Select a partition on fresh draws and bound the claim's measure on fresh evaluation draws
    (module docstring).

    Args:
        mech: The mechanism (``sample(data, size, rng)``).
        claim: A checked Rényi or zCDP claim.
        candidate: The evaluated event and pair whose score orders the outputs.
        n_eval: Evaluation draws per data set, at least 10.
        alpha: The stage's level, in (0, 1).
        seed: The seed of the stage's draws.
        executor: Draws the samples (as for ``audit_mechanism``), or None.
        timeout: Seconds per draw (a draw that overruns is the atom ``timeout``), or None.
        pool: Worker processes bound to ``mech`` that draw the samples
            (:class:`dpquant.audit.pipeline.workers.DrawPool`), or None: the ``executor``, else
            this process.

    Returns:
        The :class:`PartitionFinding`, or None when the event has no score to order outputs by,
        or no selection draw had a finite score.

    Raises:
        ParameterError: ``claim``, ``candidate``, ``n_eval``, ``alpha``, ``seed`` or
            ``timeout`` is of the wrong kind or out of range.
    """
    if not isinstance(claim, RenyiClaim | ZCDPClaim):
        raise ParameterError("claim", "must be a RenyiClaim or a ZCDPClaim", type(claim).__name__)
    if not isinstance(candidate, EvaluatedCandidate):
        raise ParameterError(
            "candidate", "must be an EvaluatedCandidate", type(candidate).__name__
        )
    n_eval = check_int(n_eval, "n_eval", minimum=10, maximum=MAX_SAMPLES)
    alpha = check_level(alpha, "alpha")
    seed = check_int(seed, "seed", minimum=0, maximum=2**32 - 1)
    if timeout is not None:
        timeout = check_positive(timeout, "timeout")
    score = event_score(candidate.event)
    if score is None:
        return None
    pair = (
        np.array(candidate.pair.data, dtype=float),
        np.array(candidate.pair.data_prime, dtype=float),
    )
    selection = selection_draws(n_eval)
    z0, z1 = _draw_scores(mech, pair, selection, seed, 0, score, executor, timeout, pool)
    best: tuple[float, np.ndarray, bool] | None = None
    for cuts in _candidate_cuts(z0, z1):
        c0, c1 = _cell_counts(z0, cuts), _cell_counts(z1, cuts)
        for reverse in (False, True):
            a, b = (c1, c0) if reverse else (c0, c1)
            value = _pessimistic(claim, a, b, n_eval, alpha)
            if best is None or value > best[0]:
                best = (value, cuts, reverse)
    if best is None:
        return None
    _, cuts, reverse = best
    # the cells kept are chosen on the selection draws, so the box's level is fixed before
    # the evaluation draws (a cell dropped only lowers H: its draws are simply not counted)
    keep = _used(_cell_counts(z0, cuts), _cell_counts(z1, cuts))
    e0, e1 = _draw_scores(mech, pair, n_eval, seed, 1, score, executor, timeout, pool)
    k0, k1 = _cell_counts(e0, cuts), _cell_counts(e1, cuts)
    if reverse:
        k0, k1, pair = k1, k0, (pair[1], pair[0])
    lower, upper = cell_box(k0[keep], n_eval, k1[keep], n_eval, alpha)
    return PartitionFinding(
        pair=DataPair.of(*pair),
        event=candidate.event.describe(),
        cuts=tuple(float(c) for c in cuts),
        counts0=tuple(int(k) for k in k0[keep]),
        counts1=tuple(int(k) for k in k1[keep]),
        n=n_eval,
        alpha=alpha,
        bounds=tuple(_claim_bounds(claim, lower, upper)),
        draws=2 * (selection + n_eval),
    )


__all__ = [
    "BLOCK",
    "CELL_COUNTS",
    "SELECTION_DRAWS",
    "selection_draws",
    "TAIL_DRAWS",
    "event_score",
    "partition_stage",
]
