"""The black-box search: candidate pairs screened by their draws alone (no exact law used).

The crash scan's pairs go first: tied data v×n + w for n = 1, 2, 4, …, :data:`CRASH_MAX_SIZE`,
bisected on n wherever the atoms the mechanism produces (exceptions, NaN) change (SmartNoise-SQL
#572 and diffprivlib #107 fail only beyond some n). Then the exhaustive family and the quantile
patterns are screened by successive halving, each candidate scored by the expected bound of its
best event (:func:`dpquant.audit.events.families.best_event`); unless one already shows a clear violation, local
search climbs from the best two (``notes/auditor.md``, "Decisions" 4–5). Screening draws only
choose what to test: the bound is computed on fresh draws (:mod:`dpquant.audit.pipeline.stage3_evaluation`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from dpquant.audit.events.families import Families, Scored, best_event
from dpquant.audit.model.neighbours import Pair, hill_climb, refine_values, tie_family
from dpquant.audit.model.outputs import Outputs
from dpquant.audit.pipeline.budget import (
    BUDGET_FINALISTS,
    CRASH_SCREENS,
    SCREEN_TOPS,
    cut_budget,
    finalist_budget,
    screen_sizes,
    search_draws,
)
from dpquant.audit.pipeline.context import (
    CLIMB,
    CRASH,
    FINALISTS,
    SCREEN,
    AuditContext,
    Candidate,
    budget_family,
    candidate_family,
    pair_jobs,
)
from dpquant.audit.statistics.bounds import SELECTION_Z, selection_score, wilson_bound

SCREEN_SAMPLES = 250
"""Draws per side for every candidate in the first screen."""
MIDSCREEN_SAMPLES = 2_000
"""Draws per side for the best :data:`MIDSCREEN_TOP` in the second screen."""
MIDSCREEN_TOP = 32
MIDSCREEN_SHARE = 4
"""A tightening audit's second screen draws at least 1/MIDSCREEN_SHARE of its third screen's
draws per side."""
RESCREEN_SAMPLES = 10_000
"""Draws per side for the best :data:`RESCREEN_TOP` in the third screen."""
RESCREEN_TOP = 8
RESCREEN_MAX = 1 << 22
"""The most draws per side of the third screen of a tightening audit (a tenth of its budget)."""
SCREEN_HELD = 1 << 23
"""Screening draws held at a time: a large screen is drawn a few candidates at a time."""
CLIMB_SAMPLES = 4_000
"""Draws per side of a local-search screen at the default budget (scaled with ``samples``)."""
CLIMB_MAX_SIZE = 12
"""The largest data set the local search visits."""
BLACKBOX_MAX_N = 2
"""The exhaustive family of the black-box search: pairs of at most this many records."""
BLACKBOX_CLIMB_STARTS = 2
"""Local searches started from the best screened candidates."""
CRASH_MAX_SIZE = 4096
"""The largest size of tied data in the crash scan."""
CRASH_DRAWS = 4
"""Draws per side per size in the crash scan."""
CRASH_TOP = 4
"""Crash-scan pairs screened again with :data:`MIDSCREEN_SAMPLES` draws per side (the best by a
first screen of :data:`SCREEN_SAMPLES`): the scan's pairs hold up to :data:`CRASH_MAX_SIZE`
records, and a slow mechanism pays for each draw on them."""


def _screen(
    ctx: AuditContext,
    candidates: list[Candidate],
    size: int = SCREEN_SAMPLES,
    stage: int = SCREEN,
    z: float = SELECTION_Z,
    keep: bool = False,
    cross_fit: bool = False,
) -> list[Scored]:
    """``size`` draws per side for every candidate, each scored by its best event (the bound
    the evaluation draws would give, :func:`dpquant.audit.events.families.best_event`), or, with
    ``cross_fit``, by its held-out score (:func:`_held_out`); with ``keep``, the best (the first
    of the highest score) keeps its draws (``drawn``) to choose its event in the final stage.

    With ``cross_fit`` only the scores rank the candidates, so a candidate's event is chosen on
    all its draws (:func:`_cross_fitted`) only where it is used: for the best so far of a screen
    that keeps its draws (its masses plan the final stage's budget, ``prior``). The others carry
    the event their first half chose."""
    keyed = [(c, ctx.next_key()) for c in candidates]
    group = max(1, SCREEN_HELD // (2 * size))
    scored: list[Scored] = []
    top = -math.inf
    for start in range(0, len(keyed), group):
        part = keyed[start : start + group]
        outs = ctx.draw([pair_jobs(c.d0, c.d1, size, (stage, key)) for c, key in part])
        for (c, _), (a, b) in zip(part, outs, strict=True):
            sc = _held_out(ctx, c, a, b, z) if cross_fit else _best_event(ctx, c, a, b, z)
            if keep and (not scored or sc.expected > top):
                if cross_fit:  # its event on all its draws, its held-out score kept
                    sc = _cross_fitted(ctx, c, a, b, z, held=sc)
                c.drawn = (a, b)
            top = max(top, sc.expected)
            scored.append(sc)
    return scored


def _best_event(ctx: AuditContext, c: Candidate, a: Outputs, b: Outputs, z: float) -> Scored:
    """The best event of candidate ``c`` on its draws ``a`` (on D) and ``b`` (on D') at Wilson
    level ``z`` (:func:`dpquant.audit.events.families.best_event`)."""
    families = Families((c.d0, c.d1), lattice=ctx.float_lattice)
    return best_event(a, b, ctx.n_eval, ctx.claim.delta, ctx.alpha_eval, families, z)


def _cross_fitted(
    ctx: AuditContext,
    c: Candidate,
    a: Outputs,
    b: Outputs,
    z: float,
    held: Scored | None = None,
) -> Scored:
    """Candidate ``c``'s best event on all its draws (Wilson level ``z``), with its held-out
    score (:func:`_held_out`) as its ``expected``.

    Args:
        ctx: The audit.
        c: The candidate.
        a: Its draws on D.
        b: Its draws on D'.
        z: The Wilson level of each choice.
        held: Its :func:`_held_out` on these draws when already computed (None: computed here).

    Returns:
        The best event on all the draws, scored without the winner's curse.
    """
    if held is None:
        held = _held_out(ctx, c, a, b, z)
    return replace(_best_event(ctx, c, a, b, z), expected=held.expected)


def _held_out(ctx: AuditContext, c: Candidate, a: Outputs, b: Outputs, z: float) -> Scored:
    """Candidate ``c`` scored without the winner's curse: the event chosen on each half of the
    draws (Wilson level ``z``) is counted on the other half and scored there at its plug-in
    masses (Wilson level 0), and the two scores are averaged (two-fold cross-fitting, as in
    Chernozhukov et al., "Double/debiased machine learning", 2018, section 3).

    Why (``notes/auditor.md``, "Tight bounds from fewer draws"): the score of the best of a few
    hundred events on the draws that chose it is biased upwards, by more for a rarer event, and
    the Wilson penalty that offsets this costs a rare event more than its bias; between the
    exponential-mechanism median's rank shifts it preferred pairs of expected bound 0.82·ε on
    events of mass 0.18 to pairs of 0.86·ε on events of mass 0.07.

    Args:
        ctx: The audit.
        c: The candidate.
        a: Its draws on D.
        b: Its draws on D'.
        z: The Wilson level of each half's choice.

    Returns:
        The event the first half chose, with the averaged held-out score as its ``expected``
        (its masses are the first half's: only the score is meant to be read).
    """
    (a1, a2), (b1, b2) = a.halves(), b.halves()
    folds = (((a1, b1), (a2, b2)), ((a2, b2), (a1, b1)))  # (choose on, count on)
    chosen = [_best_event(ctx, c, sa, sb, z) for (sa, sb), _ in folds]
    scores = [_plug_in(ctx, ch, ea, eb) for ch, (_, (ea, eb)) in zip(chosen, folds, strict=True)]
    return replace(chosen[0], expected=float(np.mean(scores)))


def _plug_in(ctx: AuditContext, chosen: Scored, a: Outputs, b: Outputs) -> float:
    """The score of ``chosen``'s event counted on draws ``a`` (on D) and ``b`` (on D') that did
    not choose it, at its plug-in masses (Wilson level 0)."""
    ka, kb = int(chosen.event.indicator(a).sum()), int(chosen.event.indicator(b).sum())
    k0, n0, k1, n1 = (ka, len(a), kb, len(b)) if chosen.forward else (kb, len(b), ka, len(a))
    held = selection_score(
        np.array([k0]),
        n0,
        np.array([k1]),
        n1,
        ctx.n_eval,
        ctx.claim.delta,
        ctx.alpha_eval,
        0.0,
        ctx.poisson_counts,
    )
    return float(held[0])


def screening_stage(ctx: AuditContext, given: list[Candidate]) -> list[Candidate]:
    """Black-box search: the crash scan's pairs go first (250 draws per side for each, 2 000 for
    the best :data:`CRASH_TOP`; they may end the search at once);
    then the exhaustive family and the quantile patterns are screened by successive halving (250
    draws per side for all, 2 000 for the best 32, 10 000 for the best 8). Unless one of them
    already shows a clear violation (its planned budget is at most half the full one), local
    search climbs from the best two, refining the grid around its optimum once."""
    if ctx.max_draws is not None:
        return _budgeted_screening(ctx, given)
    rescreened: dict[Any, tuple[Candidate, Scored]] = {}
    candidates = list(given)
    if not given:
        crashes = _crash_scan(ctx) if ctx.claim.adjacency != "local" else []
        if crashes:  # pairs where the atoms change with n: often a clear violation on their own
            for c, sc in _crash_screens(ctx, crashes, SCREEN_SAMPLES, MIDSCREEN_SAMPLES):
                rescreened[c.key] = (c, sc)
            if _clear_violation(ctx, rescreened):
                ctx.notes.append("search stopped early: the crash scan found a clear violation")
                return _finalists(rescreened)
        candidates = crashes + candidate_family(ctx, BLACKBOX_MAX_N)
    candidates = list({c.key: c for c in candidates}.values())
    ctx.progress(f"screening: {len(candidates)} candidate pairs")
    ranked = sorted(
        zip(candidates, _screen(ctx, candidates), strict=True), key=lambda t: -t[1].expected
    )
    ctx.check_output()  # every candidate drawn on: a mechanism with no output stops here
    mid = [c for c, _ in ranked[:MIDSCREEN_TOP]]
    ranked = sorted(
        zip(mid, _screen(ctx, mid, midscreen_size(ctx)), strict=True), key=lambda t: -t[1].expected
    )
    top = [c for c, _ in ranked[:RESCREEN_TOP]]
    size = rescreen_size(ctx)
    for c, sc in zip(top, _screen(ctx, top, size), strict=True):
        rescreened[c.key] = (c, _with_prior(c, sc, size))
    if given:
        return _finalists(rescreened)
    if _clear_violation(ctx, rescreened):
        ctx.notes.append("search stopped early: a clear violation was found")
    else:
        _climb(ctx, rescreened)
    return _finalists(rescreened)


def _crash_screens(
    ctx: AuditContext, crashes: list[Candidate], first: int, second: int, keep: bool = False
) -> list[tuple[Candidate, Scored]]:
    """The crash scan's pairs screened at ``first`` draws per side, the best :data:`CRASH_TOP`
    again at ``second``, each of those with its event's masses (``prior``), in screening order
    (``keep``: the best keeps its draws, :func:`_screen`)."""
    ranked = sorted(
        zip(crashes, _screen(ctx, crashes, first), strict=True), key=lambda t: -t[1].expected
    )
    top = [c for c, _ in ranked[:CRASH_TOP]]
    return [
        (c, _with_prior(c, sc, second))
        for c, sc in zip(top, _screen(ctx, top, second, keep=keep), strict=True)
    ]


def _budgeted_screening(ctx: AuditContext, given: list[Candidate]) -> list[Candidate]:
    """The search of an audit with a total budget (``max_draws``, :mod:`dpquant.audit.pipeline.budget`): the
    crash scan, whose pairs are screened first and end the search when the best shows a clear
    violation (unless the audit is to ``tighten``); then the candidates (the given pairs, or the
    crash scan's pairs and :func:`dpquant.audit.pipeline.context.budget_family`) screened by successive halving
    within the search's share of the budget (:func:`dpquant.audit.pipeline.budget.screen_sizes`), with no
    local search. Every screen scores its candidates by cross-fitting
    (:func:`_held_out`: no winner's curse, so no penalty on rare events; between the last
    two the penalty would count a rare event's noise once more and prefer a common event of
    smaller log-ratio, as :func:`dpquant.audit.pipeline.stage3_evaluation._ranks` explains, and
    without it or cross-fitting the winner's curse of the events of pairs of expected bound
    0.77·ε carried them on the exponential-mechanism median: ``notes/auditor.md``, "A
    cross-fitted last screen"); the first screen too, whose few hundred draws a side for each
    of a few hundred candidates let the in-sample best events of null-like pairs outrank the
    good ones (``notes/auditor.md``, "Where the search loses its good pairs"). A single screen
    of at most two candidates compares them without the penalty. The best of the last screen
    keeps its draws and its event's masses (``prior``): the finalist's event is chosen on them,
    so every draw the search leaves evaluates it."""
    assert ctx.max_draws is not None
    candidates = list(given)
    if not given:
        crashes = _crash_scan(ctx) if ctx.claim.adjacency != "local" else []
        if crashes and not ctx.full_budget:  # often a clear violation on their own
            screened = _crash_screens(ctx, crashes, *CRASH_SCREENS, keep=True)
            best, _ = max(screened, key=lambda t: t[1].expected)  # the first best keeps its draws
            if cut_budget(ctx.samples, best.prior, ctx.claim, ctx.alpha_eval) <= ctx.samples // 2:
                ctx.notes.append("search stopped early: the crash scan found a clear violation")
                return [best]
        candidates = crashes + budget_family(ctx)
    candidates = list({c.key: c for c in candidates}.values())
    ctx.progress(f"screening: {len(candidates)} candidate pairs within {ctx.max_draws} draws")
    left = search_draws(ctx.max_draws) - ctx.used
    ranked = candidates
    sizes = screen_sizes(left, len(candidates))
    for j, (count, size) in enumerate(sizes):
        last = j == len(sizes) - 1
        fit = len(sizes) > 1  # every screen of a halving: cross-fitted (:func:`_held_out`)
        z = 0.0 if count <= SCREEN_TOPS[-1] and not fit else SELECTION_Z
        scores = _screen(ctx, ranked[:count], size, z=z, keep=last, cross_fit=fit)
        scored = sorted(zip(ranked[:count], scores, strict=True), key=lambda t: -t[1].expected)
        ranked = [c for c, _ in scored]
        if j == 0:
            ctx.check_output()  # every candidate drawn on: a mechanism with no output stops here
    _with_prior(*scored[0], sizes[-1][1])  # its event's masses (a clear violation cuts its budget)
    return ranked[:BUDGET_FINALISTS]


def _climb(ctx: AuditContext, rescreened: dict[Any, tuple[Candidate, Scored]]) -> None:
    # the local search's screens scale with the budget: 4 000 draws per side at the default
    # 400 000, fewer for a small budget (a slow mechanism audited with few draws stays cheap)
    size = max(500, min(CLIMB_SAMPLES, ctx.samples // 100))

    def objective(p: Pair) -> float:
        return _screen(ctx, [Candidate(*p.data, pair=p)], size, CLIMB)[0].expected

    starts = sorted(rescreened.values(), key=lambda t: -t[1].expected)[:BLACKBOX_CLIMB_STARTS]
    for c, _ in starts:
        if c.pair is None:
            continue
        best, values = c.pair, ctx.values
        for _ in range(2):  # climb, refine the grid around the optimum, climb again
            if getattr(ctx.mech, "input_values", None) is None:
                values = refine_values(
                    (*values, *best.shared, best.y, *([best.x] if best.x is not None else []))
                )
            best, _, _ = hill_climb(
                best, objective, values, ctx.claim.adjacency, steps=3, max_size=CLIMB_MAX_SIZE
            )
        cand = Candidate(*best.data, pair=best)
        if cand.key not in rescreened:
            n = rescreen_size(ctx)  # not ``size``: the objective above reads that one
            sc = _screen(ctx, [cand], n)[0]
            rescreened[cand.key] = (cand, _with_prior(cand, sc, n))


def midscreen_size(ctx: AuditContext) -> int:
    """Draws per side of the second screen: :data:`MIDSCREEN_SAMPLES`, or, when the audit is to
    ``tighten`` its bound, at least a :data:`MIDSCREEN_SHARE`-th of the third screen's (a pair
    whose best event is rare is cut at the second screen otherwise: SVT6 at ε = 0.1, where the
    half-and-half pair's best events have mass below 1 %, lost to pairs with larger but weaker
    events at 2 000 draws)."""
    if ctx.tighten:
        return max(MIDSCREEN_SAMPLES, rescreen_size(ctx) // MIDSCREEN_SHARE)
    return MIDSCREEN_SAMPLES


def rescreen_size(ctx: AuditContext) -> int:
    """Draws per side of the third screen: :data:`RESCREEN_SAMPLES`, or, when the audit is to
    ``tighten`` its bound, a tenth of its budget up to :data:`RESCREEN_MAX` (a pair whose best
    event is rare, as the sparse vector technique's at small ε, is told apart from the others
    only with many draws)."""
    if ctx.tighten:
        return max(RESCREEN_SAMPLES, min(RESCREEN_MAX, ctx.samples // 10))
    return RESCREEN_SAMPLES


def _with_prior(c: Candidate, sc: Scored, n: int = RESCREEN_SAMPLES) -> Scored:
    """Record the pessimistic masses of the candidate's best event (Wilson, z = 2, at the
    screening size ``n``) for budget planning."""
    p0 = float(wilson_bound(np.asarray(sc.p0), n, 2.0, upper=False))
    p1 = float(wilson_bound(np.asarray(sc.p1), n, 2.0, upper=True))
    c.prior = (p0, p1)
    return sc


def _finalists(rescreened: dict[Any, tuple[Candidate, Scored]]) -> list[Candidate]:
    ranked = sorted(rescreened.values(), key=lambda t: -t[1].expected)
    return [c for c, _ in ranked[:FINALISTS]]


def _clear_violation(ctx: AuditContext, rescreened: dict[Any, tuple[Candidate, Scored]]) -> bool:
    """Some candidate's planned budget is at most half the full one
    (:func:`dpquant.audit.pipeline.budget.finalist_budget`)."""
    return any(
        finalist_budget(ctx.budget, c.prior, ctx.claim, ctx.alpha_eval) <= ctx.samples // 2
        for c, _ in rescreened.values()
    )


def _atoms_seen(out: Outputs) -> frozenset[str]:
    return frozenset(out.atom_counts())


def _crash_scan(ctx: AuditContext) -> list[Candidate]:
    """Pairs where the atoms (exceptions, NaN) that the mechanism produces change with the size
    of tied data: sizes 1, 2, 4, ... up to :data:`CRASH_MAX_SIZE`, then bisection on the size."""
    values = ctx.values
    sizes = [2**k for k in range(int(math.log2(CRASH_MAX_SIZE)) + 1)]
    found: list[Candidate] = []
    ends = sorted({values[0], values[len(values) // 2], values[-1]})

    def status(p: Pair) -> tuple[frozenset[str], frozenset[str]]:
        ((a, b),) = ctx.draw([pair_jobs(*p.data, CRASH_DRAWS, (CRASH, ctx.next_key()))])
        return _atoms_seen(a), _atoms_seen(b)

    for v in ends:
        for w in values:
            if w == v:
                continue
            family = tie_family(v, w, ctx.claim.adjacency)
            states = [status(family(n)) for n in sizes]
            for n, st in zip(sizes, states, strict=True):
                if st[0] != st[1]:
                    p = family(n)
                    found.append(Candidate(*p.data, pair=p))
            for k in range(len(sizes) - 1):
                if states[k][0] != states[k + 1][0]:
                    lo, hi = sizes[k], sizes[k + 1]
                    while hi - lo > 1:
                        mid = (lo + hi) // 2
                        if status(family(mid))[0] == states[k][0]:
                            lo = mid
                        else:
                            hi = mid
                    for n in (lo, hi):
                        p = family(n)
                        found.append(Candidate(*p.data, pair=p))
    if found:
        ctx.notes.append(f"crash scan: {len(found)} pairs where the atoms produced change with n")
    return found[:16]


__all__ = [
    "BLACKBOX_CLIMB_STARTS",
    "BLACKBOX_MAX_N",
    "CLIMB_MAX_SIZE",
    "CLIMB_SAMPLES",
    "CRASH_DRAWS",
    "CRASH_MAX_SIZE",
    "CRASH_TOP",
    "MIDSCREEN_SAMPLES",
    "MIDSCREEN_SHARE",
    "MIDSCREEN_TOP",
    "RESCREEN_MAX",
    "RESCREEN_SAMPLES",
    "RESCREEN_TOP",
    "SCREEN_HELD",
    "SCREEN_SAMPLES",
    "midscreen_size",
    "rescreen_size",
    "screening_stage",
]
