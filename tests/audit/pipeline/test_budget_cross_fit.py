"""The budgeted search's screens score each pair by cross-fitting
(``dpquant.audit.pipeline.stage2_screening._cross_fitted``; notes/auditor.md, "Tight bounds from
fewer draws"): the event chosen on one half of the draws is scored on the other half, so the
best of hundreds of events is not credited with its own luck."""

from __future__ import annotations

import numpy as np

from dpquant.audit.model.neighbours import probe_values
from dpquant.audit.pipeline.budget import DrawBudget
from dpquant.audit.pipeline.context import SCREEN, AuditContext, Candidate, pair_jobs
from dpquant.audit.pipeline.plan import AuditPlan
from dpquant.audit.pipeline.stage2_screening import _best_event, _cross_fitted, _screen
from dpquant.audit.statistics.bounds import SELECTION_Z
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile


def _drawn(
    data0: list[float], data1: list[float], size: int
) -> tuple[AuditContext, Candidate, tuple]:
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    ctx = AuditContext(
        AuditPlan(em, em.claim, probe_values(em.domain), DrawBudget(250_000), 1e-6, 0)
    )
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


def test_the_kept_candidate_of_a_cross_fitted_screen_has_its_event_on_all_its_draws() -> None:
    """A cross-fitted screen ranks by the held-out scores alone; the best, which keeps its draws
    for the final stage, carries the event chosen on all of them (its masses plan the budget),
    exactly as :func:`_cross_fitted` scores it, and the others their held-out scores."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    ctx = AuditContext(
        AuditPlan(em, em.claim, probe_values(em.domain), DrawBudget(250_000), 1e-6, 0)
    )
    lo, hi = -1000.0, 1000.0
    shift = Candidate(np.array([lo] + [0.5] * 5 + [hi] * 4), np.array([0.5] * 5 + [hi] * 5))
    null = Candidate(np.array([0.2, 0.4, 0.6]), np.array([0.2, 0.4, 0.6]))
    scores = _screen(ctx, [shift, null], 3_000, keep=True, cross_fit=True)
    assert shift.drawn is not None and null.drawn is None  # the null pair never led
    assert scores[0] == _cross_fitted(ctx, shift, *shift.drawn, SELECTION_Z)
    assert scores[1].expected < 0.1 < scores[0].expected


def test_every_screen_of_a_budgeted_halving_is_cross_fitted(monkeypatch) -> None:
    """The budgeted search scores all its screens by cross-fitting, the first (every candidate,
    a few hundred draws a side) included: 260 of seeds 0–259 reach 0.8·ε on the EM median
    (notes/auditor.md, "Where the search loses its good pairs"). A single screen of at most two
    given pairs compares them in-sample, without the penalty."""
    from dpquant.audit import audit_mechanism
    from dpquant.audit.pipeline import stage2_screening

    seen: list[tuple[int, bool, float]] = []
    screen = stage2_screening._screen

    def recording(ctx, candidates, size, *args, **kwargs):
        seen.append((len(candidates), kwargs.get("cross_fit", False), kwargs.get("z")))
        return screen(ctx, candidates, size, *args, **kwargs)

    monkeypatch.setattr(stage2_screening, "_screen", recording)
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    audit_mechanism(em, mode="blackbox", seed=0, max_draws=200_000)
    assert [n for n, _, _ in seen] == [211, 8, 2]
    assert all(fit and z == SELECTION_Z for _, fit, z in seen)
    seen.clear()
    pairs = [([0.2, 0.4, 0.6], [0.2, 0.4, 0.9]), ([0.1, 0.5], [0.1, 0.9])]
    audit_mechanism(em, mode="blackbox", seed=0, max_draws=200_000, pairs=pairs)
    assert seen == [(2, False, 0.0)]
