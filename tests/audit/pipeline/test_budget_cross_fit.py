"""The budgeted search's middle screen scores each pair by cross-fitting
(``dpquant.audit.pipeline.stage2_screening._cross_fitted``; notes/auditor.md, "Tight bounds from
fewer draws"): the event chosen on one half of the draws is scored on the other half, so the
best of hundreds of events is not credited with its own luck."""

from __future__ import annotations

import numpy as np

from dpquant.audit.model.neighbours import probe_values
from dpquant.audit.pipeline.budget import DrawBudget
from dpquant.audit.pipeline.context import SCREEN, AuditContext, Candidate, pair_jobs
from dpquant.audit.pipeline.plan import AuditPlan
from dpquant.audit.pipeline.stage2_screening import _best_event, _cross_fitted
from dpquant.audit.statistics.bounds import SELECTION_Z
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile


def _drawn(data0: list[float], data1: list[float], size: int) -> tuple[AuditContext, Candidate, tuple]:
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    ctx = AuditContext(AuditPlan(em, em.claim, probe_values(em.domain), DrawBudget(250_000), 1e-6, 0))
    c = Candidate(np.array(data0), np.array(data1))
    ((a, b),) = ctx.draw([pair_jobs(c.d0, c.d1, size, (SCREEN, 0))])
    return ctx, c, (a, b)


def test_a_null_pairs_cross_fitted_score_is_below_its_in_sample_best() -> None:
    """D = D′: every event's true log-ratio is 0, yet the best of hundreds of events on 20 000
    draws a side looks like a loss; counted on the other half it does not (the in-sample best is
    a maximum over events, the held-out score one event's estimate)."""
    data = [0.1, 0.3, 0.5, 0.7, 0.9]
    ctx, c, (a, b) = _drawn(data, data, 20_000)
    in_sample = _best_event(ctx, c, a, b, 0.0)
    held_out = _cross_fitted(ctx, c, a, b, SELECTION_Z)
    assert held_out.expected < in_sample.expected
    assert held_out.expected < 0.1


def test_the_cross_fitted_score_keeps_the_event_chosen_on_all_the_draws() -> None:
    lo, hi = -1000.0, 1000.0
    ctx, c, (a, b) = _drawn([lo] + [0.5] * 5 + [hi] * 4, [0.5] * 5 + [hi] * 5, 4_000)
    held_out = _cross_fitted(ctx, c, a, b, SELECTION_Z)
    on_all = _best_event(ctx, c, a, b, SELECTION_Z)
    assert (held_out.event, held_out.forward, held_out.p0, held_out.p1) == (
        on_all.event, on_all.forward, on_all.p0, on_all.p1,
    )  # fmt: skip
    assert 0.3 < held_out.expected < 1.0  # a rank shift: its loss is real on both halves
