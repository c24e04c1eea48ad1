"""Selection and evaluation: the black-box bound on ε from fresh draws.

Each finalist gets *selection* draws (:data:`dpquant.audit.pipeline.budget.SELECTION_FRACTION` of its budget, at
most :data:`dpquant.audit.pipeline.budget.SELECT_MAX`), on which the best event and direction are chosen
(:func:`dpquant.audit.events.families.best_event`, or the likelihood-ratio set planned from the exact laws); the
best :data:`dpquant.audit.pipeline.plan.CARRIED` (one when tightening, ranked by its event counted on fresh
*ranking* draws) get fresh *evaluation* draws, and
ε_lb = ln((p0_L − δ)/p1_U) with one-sided Clopper–Pearson bounds at α/(2·CARRIED·ROUNDS) each
(:func:`dpquant.audit.statistics.bounds.epsilon_lower_bound`); for a pure claim, an event that
promises more so (:func:`counts_poisson`: all but those of large mass) is counted among Poisson
numbers of the draws instead and bounded given its total count
(:attr:`dpquant.audit.pipeline.context.AuditContext.poisson_counts`). First on an eighth of the planned budget, then,
unless that already shows a violation, on all of it. The evaluation draws are counted block by
block (:data:`EVAL_BLOCK`), so an audit's memory does not grow with its budget (DP-Sniper's
2·10^8 final draws per input fit). Everything before the evaluation draws, however adaptive,
only chooses what to test, so the bound holds with confidence 1 − α (the selection/evaluation
split of DP-Sniper, Bichsel et al., S&P 2021, with Clopper–Pearson bounds as in StatDP, Ding et
al., CCS 2018; ``notes/auditor.md``, "What a report means" and "Decisions" 8–9, 14).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpquant.audit.events.families import Event, Families, Scored, best_event
from dpquant.audit.events.refine import refine_interval, selection_z
from dpquant.audit.model.outputs import Outputs
from dpquant.audit.pipeline.budget import (
    SELECTION_FRACTION,
    finalist_budget,
    round_plan,
    selection_size,
)
from dpquant.audit.pipeline.context import (
    EVAL,
    RANK,
    SELECT,
    AuditContext,
    Candidate,
    JobPair,
    pair_jobs,
)
from dpquant.audit.pipeline.draws import chunk_rng
from dpquant.audit.report.findings import (
    BlackboxFindings,
    ConformanceCheck,
    DataPair,
    EvaluatedCandidate,
    Witness,
    as_data,
)
from dpquant.audit.report.inconclusive import CannotConclude, Inconclusive
from dpquant.audit.statistics.bounds import (
    epsilon_lower_bound,
    event_ratio_interval,
    expected_bound,
)
from dpquant.audit.statistics.poisson_counts import (
    poisson_epsilon_lower_bound,
    poisson_expected_bound,
    poisson_rate,
    poisson_ratio_interval,
    poisson_sizes,
)
from dpquant.audit.statistics.power import PairPower
from dpquant.reference.conformance import check_sampler
from dpquant.reference.distributions import DiscreteLaw, GridLaw, PiecewiseLogLinear, ProductLaw

EVAL_BLOCK = 1 << 20
"""Evaluation draws per side held at a time: a longer evaluation is drawn and counted block by
block (:meth:`dpquant.audit.pipeline.context.AuditContext.draw_blocks`; the same draws as in one piece), and its
first block is kept as the witness's draws (:func:`witness_conformance`)."""
RANK_SHARE = 2
"""A tightening audit ranks its finalists on fresh draws, 1/RANK_SHARE of each one's selection
draws per side (:func:`_ranks`)."""

WitnessDraws = tuple[Candidate, Outputs, Outputs]
"""The pair that gave the bound, with its evaluation draws on D and on D'."""


def _llr(p: Any, q: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
        return lambda y: _diff(p.logpdf(y[:, 0]), q.logpdf(y[:, 0]))
    if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw) and p.numeric and q.numeric:
        return lambda y: _diff(p.logpmf(y[:, 0]), q.logpmf(y[:, 0]))
    if isinstance(p, GridLaw) and isinstance(q, GridLaw) and len(p) == len(q):
        return lambda y: _diff(p.logpdf(y), q.logpdf(y))
    if isinstance(p, ProductLaw) and isinstance(q, ProductLaw) and len(p) == len(q):
        parts = [_llr(a, b) for a, b in zip(p.components, q.components, strict=True)]
        known = [f for f in parts if f is not None]
        if len(known) == len(parts):
            return lambda y: _sum_of_coordinates(known, y)
    return None


def _sum_of_coordinates(
    parts: list[Callable[[np.ndarray], np.ndarray]], y: np.ndarray
) -> np.ndarray:
    """Σ_i parts[i](y[:, [i]]): the log-likelihood ratio of independent coordinates."""
    total = np.zeros(len(y))
    for i, f in enumerate(parts):
        total = total + f(y[:, [i]])
    return total


def _law_width(law: Any) -> int:
    return len(law) if isinstance(law, ProductLaw | GridLaw) else 1


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = a - b
    return np.where(np.isneginf(a) & np.isneginf(b), 0.0, out)


def blackbox_stage(
    ctx: AuditContext, finalists: list[Candidate], use_exact: bool
) -> tuple[BlackboxFindings, Witness | None, float, WitnessDraws | None]:
    """Selection and evaluation in up to :data:`dpquant.audit.pipeline.plan.ROUNDS` rounds of growing budget
    (:func:`dpquant.audit.pipeline.budget.round_plan`), each with fresh draws and α/ROUNDS: a clear leak is established
    cheaply in the first round, a subtle one (or a correct mechanism) gets the full budget. The
    reported bound is the largest of all rounds' bounds (union bound over rounds).

    Args:
        ctx: The audit.
        finalists: The pairs to select events for and evaluate.
        use_exact: Whether the exact laws may plan the events (likelihood-ratio sets).

    Returns:
        The stage's findings; the witness (the evaluated candidate of the largest bound), or None
        when no candidate was evaluated; that bound (``-inf`` without one); and the witness's
        pair with its first block of evaluation draws on D and on D'.

    Raises:
        dpquant.audit.report.inconclusive.CannotConclude: no finalist, or a mechanism that
            produced no output.
    """
    if not finalists:
        raise CannotConclude(
            Inconclusive("nothing_evaluated", "the search left no candidate pair to evaluate")
        )
    budgets = [finalist_budget(ctx.budget, c.prior, ctx.claim, ctx.alpha_eval) for c in finalists]
    plan = [budgets] if ctx.tighten else round_plan(ctx.samples, budgets)
    evaluated: list[EvaluatedCandidate] = []
    best: Best = (-math.inf, None, None)
    for r, round_budgets in enumerate(plan):
        entries, round_best = _final_round(ctx, finalists, round_budgets, use_exact, r)
        evaluated += entries
        if round_best[0] > best[0]:
            best = round_best
        if best[0] > ctx.claim.epsilon:
            break
    bound, entry, draws = best
    findings = BlackboxFindings(
        finalists=tuple(DataPair.of(c.d0, c.d1) for c in finalists),
        budgets_per_side=tuple(budgets),
        rounds=tuple(tuple(b) for b in plan[: r + 1]),
        selection_fraction=SELECTION_FRACTION,
        carried=ctx.carried,
        alpha_per_candidate=ctx.alpha_eval,
        evaluated=tuple(evaluated),
        epsilon_lower_bound=max(0.0, bound),
        violation=bool(bound > ctx.claim.epsilon),
    )
    return findings, None if entry is None else Witness.from_evaluated(entry), bound, draws


def _planned_event(
    ctx: AuditContext,
    pw: PairPower,
    llr: Callable[[np.ndarray], np.ndarray],
    n_eval: int,
    width: int = 0,
) -> Scored:
    """The likelihood-ratio set planned from the exact laws (no draws were used to choose it),
    with the bound its exact masses promise at ``n_eval`` draws. The 1e-9 slack keeps the whole
    tie group at the threshold despite float rounding of the log-densities."""
    if pw.forward:
        event = Event("likelihood_ratio", lo=pw.threshold - 1e-9, llr=llr, width=width)
    else:
        event = Event("likelihood_ratio_reverse", lo=-pw.threshold - 1e-9, llr=llr, width=width)
    value = float(expected_bound(pw.p0, pw.p1, n_eval, ctx.claim.delta, ctx.alpha_eval))
    return Scored(event, pw.forward, value, pw.p0, pw.p1)


Chosen = tuple[Candidate, Scored, int]
"""A finalist, the event chosen for it on its selection draws, and its evaluation draws."""
Best = tuple[float, EvaluatedCandidate | None, WitnessDraws | None]
"""The largest bound so far, its evaluated candidate and its evaluation draws."""


def _final_round(
    ctx: AuditContext, finalists: list[Candidate], budgets: list[int], use_exact: bool, r: int
) -> tuple[list[EvaluatedCandidate], Best]:
    """One round: selection draws for every finalist, then evaluation of the best
    :attr:`dpquant.audit.pipeline.context.AuditContext.carried` (:func:`_ranks`)."""
    chosen = _select(ctx, finalists, budgets, use_exact, r)
    ctx.check_output()  # a mechanism with no output stops before its evaluation draws
    ranks = _ranks(ctx, chosen, budgets, r)
    carried = sorted(range(len(chosen)), key=lambda i: -ranks[i])[: ctx.carried]
    return _evaluate(ctx, chosen, carried, r)


def _ranks(ctx: AuditContext, chosen: list[Chosen], budgets: list[int], r: int) -> list[float]:
    """How each finalist ranks for evaluation: its event's selection score; or, when the audit is
    to ``tighten`` its bound (one candidate carried), the bound its event promises at its
    evaluation draws with masses counted on fresh *ranking* draws (1/:data:`RANK_SHARE` of its
    selection draws per side), without the selection's Wilson penalty, counted as its evaluation
    would count it (the larger of the fixed and the Poisson counts' promises, :func:`_promises`).

    The penalty keeps a finalist's choice among thousands of events off slivers resting on a few
    draws; between a handful of finalists it would count a rare event's selection noise once more
    and prefer a common event of smaller log-ratio (SVT1 at ε = 0.1, 4.2 M draws a side: the odd
    answer last promises 0.090 and the x shape 0.084, but at level 2 they score 0.064 and 0.071).
    Without the penalty, masses counted on the draws that chose the event carry its winner's
    curse: the rarest finalist's event, the best of thousands of joint answer patterns, looks
    best (SVT34Parallel at ε = 0.1, 10 M draws: a rare pattern of promise 0.185 was carried over
    the all-down pair's 0.231). Fresh draws count each chosen event without that bias. Ranking
    only chooses what to evaluate, so the bound's confidence is unchanged."""
    if not ctx.tighten or len(chosen) <= ctx.carried:
        return [s.expected for _, s, _ in chosen]
    sizes = [max(1, selection_size(b) // RANK_SHARE) for b in budgets]
    pairs = [
        pair_jobs(c.d0, c.d1, n, (RANK, r, i))
        for i, ((c, _, _), n) in enumerate(zip(chosen, sizes, strict=True))
    ]
    counted = _count_hits(ctx, pairs, [s.event for _, s, _ in chosen])
    ranks = []
    for (_, s, n_eval), n, ((h0, h1), _) in zip(chosen, sizes, counted, strict=True):
        k0, k1 = (h0, h1) if s.forward else (h1, h0)
        ranks.append(max(_promises(ctx, k0 / n, k1 / n, n_eval)))
    return ranks


PairCount = tuple[tuple[int, int], tuple[Outputs, Outputs]]
"""The draws of a pair's two jobs in its event (on D, on D'), and the first block of each
side's draws."""


def _count_hits(
    ctx: AuditContext,
    pairs: list[JobPair],
    events: list[Event],
    limits: list[tuple[int, int]] | None = None,
) -> list[PairCount]:
    """How many draws of each pair's jobs (on D, on D') fall in its event (``events``, one per
    pair), counted block by block (:data:`EVAL_BLOCK`) among the first ``limits`` draws of each
    side (all by default), and the first block of each side."""
    hits = [[0, 0] for _ in pairs]
    seen = [[0, 0] for _ in pairs]
    ends = limits or [(p[0][1], p[1][1]) for p in pairs]
    kept: list[list[Outputs | None]] = [[None, None] for _ in pairs]
    for block in ctx.draw_blocks(pairs, EVAL_BLOCK):
        for counts, done, end, first, event, outs in zip(
            hits, seen, ends, kept, events, block, strict=True
        ):
            for side, out in enumerate(outs):
                inside = event.indicator(out)[: max(0, end[side] - done[side])] if len(out) else []
                counts[side] += int(np.count_nonzero(inside))
                done[side] += len(out)
                if first[side] is None:
                    first[side] = out
    return [
        ((h0, h1), (a or Outputs.empty(), b or Outputs.empty()))
        for (h0, h1), (a, b) in zip(hits, kept, strict=True)
    ]


def _select(
    ctx: AuditContext, finalists: list[Candidate], budgets: list[int], use_exact: bool, r: int
) -> list[Chosen]:
    """Each finalist's event and direction, chosen on fresh selection draws (or the event
    planned from the exact laws, when that promises at least as much)."""
    chosen: list[Chosen] = []
    for i, (c, n) in enumerate(zip(finalists, budgets, strict=True)):
        if c.drawn is not None:  # the search's last screen: its draws choose the event
            a, b = c.drawn
            n_sel, n_eval = len(a), n
        else:
            n_sel = selection_size(n)
            ((a, b),) = ctx.draw([pair_jobs(c.d0, c.d1, n_sel, (SELECT, r, i))])
            n_eval = n - n_sel
        llr = None
        width = a.width
        if use_exact:
            p, q = ctx.law(c.d0), ctx.law(c.d1)
            if p is not None and q is not None and _law_width(p) == _law_width(q) == width:
                llr = _llr(p, q)  # on outputs of the laws' width only (a broken sampler may differ)
        s = best_event(
            a,
            b,
            n_eval,
            ctx.claim.delta,
            ctx.alpha_eval,
            Families((c.d0, c.d1), llr, ctx.float_lattice),
            selection_z(n_sel),
        )
        s = refine_interval(s, a, b, n_eval, ctx.claim.delta, ctx.alpha_eval)
        if llr is not None and c.planned is not None and math.isfinite(c.planned.threshold):
            planned = _planned_event(ctx, c.planned, llr, n_eval, width)
            if planned.expected >= s.expected:
                s = planned
        chosen.append((c, s, n_eval))
    return chosen


POISSON_TAIL_SHARE = 0.005
"""The share of the evaluation's α that each side's Poisson count may lose to its cap (the
draws made): λ is set so that the count exceeds them with at most this chance, and the bound is
taken at the rest of α (:mod:`dpquant.audit.statistics.poisson_counts`)."""
POISSON_KEY = 2
"""The last element of the key that seeds a finalist's Poisson counts (its draws' keys end with
the side, 0 or 1, and the chunk)."""


def counts_poisson(ctx: AuditContext, s: Scored, n: int) -> bool:
    """Whether a finalist's event ``s`` is counted among Poisson numbers of its ``n`` evaluation
    draws a side rather than among all of them: for a pure-DP claim
    (:attr:`dpquant.audit.pipeline.context.AuditContext.poisson_counts`), when the conditional
    bound promises more at the event's selection masses than the fixed counts' Clopper–Pearson
    rectangle does (:func:`dpquant.audit.statistics.poisson_counts.poisson_expected_bound`
    against :func:`dpquant.audit.statistics.bounds.expected_bound`). It does for all but events
    of large mass: the rectangle's binomial counts vary less than Poisson ones when p0 is near 1
    (at 280 000 draws a side and the default α, masses 0.09 and 0.035 promise 0.884 against
    0.862, masses 0.9 and 0.33 promise 0.984 against 0.986; ``notes/auditor.md``, "Poissonized
    counts"). Chosen before any evaluation draw, so either bound keeps its level.

    Args:
        ctx: The audit.
        s: The event, with its selection masses (``p0`` on the side it is likelier on).
        n: Its evaluation draws per side (each side's count may lose
            :data:`POISSON_TAIL_SHARE` of the evaluation's α to its cap).

    Returns:
        True to count Poisson numbers of draws.
    """
    fixed, poisson = _promises(ctx, s.p0, s.p1, n)
    return poisson > fixed


def _promises(ctx: AuditContext, p0: float, p1: float, n: int) -> tuple[float, float]:
    """The bounds ``n`` evaluation draws a side promise for an event of masses ``p0``, ``p1``:
    counted in fixed numbers, and in Poisson numbers (−inf unless the claim is pure); the larger
    is what :func:`counts_poisson` will count it for."""
    fixed = float(expected_bound(p0, p1, n, ctx.claim.delta, ctx.alpha_eval))
    if not ctx.poisson_counts or p0 <= 0:
        return fixed, -math.inf
    tail, level = _poisson_levels(ctx)
    return fixed, poisson_expected_bound(p0, p1, poisson_rate(n, tail), level)


def _poisson_levels(ctx: AuditContext) -> tuple[float, float]:
    """The chance each side's Poisson count may lose to its cap (:data:`POISSON_TAIL_SHARE` of
    the evaluation's α), and the level its conditional bound is then taken at (α − 2·tail: a
    capped count, module docstring of :mod:`dpquant.audit.statistics.poisson_counts`)."""
    tail = ctx.alpha_eval * POISSON_TAIL_SHARE
    return tail, ctx.alpha_eval - 2 * tail


def _evaluate(
    ctx: AuditContext, chosen: list[Chosen], carried: list[int], r: int
) -> tuple[list[EvaluatedCandidate], Best]:
    """The bound of each carried candidate's event on fresh evaluation draws, counted block by
    block (:data:`EVAL_BLOCK`); the first block of each side is kept for the witness."""
    taken = [chosen[i] for i in carried]
    pairs = [
        pair_jobs(c.d0, c.d1, n, (EVAL, r, i)) for i, (c, _, n) in zip(carried, taken, strict=True)
    ]
    tail, level = _poisson_levels(ctx)
    poissons = [counts_poisson(ctx, s, n) for _, s, n in taken]
    limits = [
        poisson_sizes(n, tail, chunk_rng(ctx.seed, (EVAL, r, i, POISSON_KEY)))
        if poisson
        else (n, n)
        for i, (_, _, n), poisson in zip(carried, taken, poissons, strict=True)
    ]
    counted = _count_hits(ctx, pairs, [s.event for _, s, _ in taken], limits)
    results = []
    best: Best = (-math.inf, None, None)
    for (c, s, _), poisson, (m0, m1), ((h0, h1), (a, b)) in zip(
        taken, poissons, limits, counted, strict=True
    ):
        (k0, n0), (k1, n1) = ((h0, m0), (h1, m1)) if s.forward else ((h1, m1), (h0, m0))
        if poisson:
            bound = poisson_epsilon_lower_bound(k0, k1, level)
            lo, hi = poisson_ratio_interval(k0, k1, level)
        else:
            bound = float(epsilon_lower_bound(k0, n0, k1, n1, ctx.claim.delta, ctx.alpha_eval))
            lo, hi = event_ratio_interval(k0, n0, k1, n1, ctx.alpha_eval)
        pair = DataPair.of(c.d0, c.d1) if s.forward else DataPair.of(c.d1, c.d0)
        entry = EvaluatedCandidate(
            round=r,
            pair=pair,
            event=s.event,
            k0=k0,
            n0=n0,
            k1=k1,
            n1=n1,
            epsilon_lower_bound=bound,
            event_log_ratio_ci=(lo, hi),
            selection_expected_bound=s.expected,
            counting="poisson" if poisson else "fixed",
        )
        results.append(entry)
        if bound > best[0]:
            best = (bound, entry, (c, a, b))
    return results, best


def witness_conformance(
    ctx: AuditContext, c: Candidate, a: Outputs, b: Outputs
) -> list[ConformanceCheck]:
    """Does the sampler draw from its own exact law on both data sets of the witness ``c``
    (evaluation draws ``a`` on D, ``b`` on D'; each test at level α)? So that the exact stage
    audits the code, not only the formula.

    Args:
        ctx: The audit.
        c: The witness's pair.
        a: Its evaluation draws on D (their first block).
        b: Its evaluation draws on D'.

    Returns:
        One check per data set with an exact law: D's, then D''s.
    """
    results = []
    for data, out in ((c.d0, a), (c.d1, b)):
        law = ctx.law(data)
        if law is None:
            continue
        width = _law_width(law)
        if not out.numeric.all() or out.width != width:
            results.append(
                ConformanceCheck(
                    data=as_data(data),
                    test="atoms",
                    passed=False,
                    statistic=math.inf,
                    threshold=0.0,
                    detail=f"non-numeric outputs {out.atom_counts()}",
                )
            )
            continue
        r = check_sampler(law, out.values if width > 1 else out.values[:, 0], alpha=ctx.alpha)
        results.append(
            ConformanceCheck(
                data=as_data(data),
                test=r.test,
                passed=r.passed,
                statistic=r.statistic,
                threshold=r.threshold,
                alpha=r.alpha,
                samples=r.samples,
            )
        )
    return results


__all__ = [
    "EVAL_BLOCK",
    "RANK_SHARE",
    "WitnessDraws",
    "blackbox_stage",
    "counts_poisson",
    "witness_conformance",
]
