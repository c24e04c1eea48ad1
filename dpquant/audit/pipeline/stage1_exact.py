"""The exact stage: candidate pairs judged by their exact output laws (mechanisms with ``exact``).

Every candidate is screened in floats for its loss and its detection power (:mod:`dpquant.audit.statistics.power`:
the expected Clopper–Pearson bound of its best likelihood-ratio set, because a large loss on a
region of tiny mass is invisible to any sampler: ``notes/auditor.md``, "Decisions" 5); local search
climbs the power; the exact loss, the hockey-stick curve and the Rényi divergences of the worst
pairs are computed in mpmath (:mod:`dpquant.audit.statistics.exact_loss`). The finalists, with their planned
likelihood-ratio events, go on to the black-box stage (:mod:`dpquant.audit.pipeline.stage3_evaluation`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import mpmath

from dpquant.audit.model.neighbours import Pair, hill_climb_batched, refine_values
from dpquant.audit.pipeline.context import FINALISTS, AuditContext, Candidate, candidate_family
from dpquant.audit.report.findings import DataPair, ExactFindings, ExactPlanning
from dpquant.audit.statistics.batch_power import CdfTable, pair_powers
from dpquant.audit.statistics.exact_loss import analyse_pair, exact_sweep
from dpquant.audit.statistics.power import PairPower, pair_power

EXACT_MAX_N = 4
"""The exhaustive family of the exact stage: every neighbouring pair of at most this many records."""
CLIMB_STARTS = 3
"""Local searches started from the most detectable pairs, and as many from the largest losses."""
CLIMB_STEPS = 12
"""Steps of each local search."""


def _power(ctx: AuditContext, c: Candidate) -> PairPower | None:
    p, q = ctx.law(c.d0), ctx.law(c.d1)
    if p is None or q is None:
        return None
    try:
        return pair_power(p, q, ctx.n_eval, ctx.claim.delta, ctx.alpha_eval)
    except ValueError as exc:
        raise ValueError(
            f"mechanism {ctx.name!r}: the exact laws on {c.d0.tolist()} and {c.d1.tolist()} "
            f"cannot be judged: {exc}"
        ) from None


def _powers(
    ctx: AuditContext, cands: Sequence[Candidate], table: CdfTable
) -> list[PairPower | None]:
    """:func:`_power` of each candidate, screened in one batch
    (:func:`dpquant.audit.statistics.batch_power.pair_powers`: identical values). The laws are
    asked for in order; a law or a pair that cannot be judged raises what :func:`_power` raises
    on the first candidate that fails."""
    laws: list[tuple[Any, Any]] = []
    failure: ValueError | None = None
    for c in cands:
        try:
            laws.append((ctx.law(c.d0), ctx.law(c.d1)))
        except ValueError as exc:  # after the pairs before it, as one by one
            failure = exc
            break
    judged = [i for i, (p, q) in enumerate(laws) if p is not None and q is not None]
    try:
        found = pair_powers(
            [laws[i] for i in judged], ctx.n_eval, ctx.claim.delta, ctx.alpha_eval, table
        )
    except ValueError:
        return [_power(ctx, c) for c in cands]  # raises, naming the first pair that fails
    if failure is not None:
        raise failure
    out: list[PairPower | None] = [None] * len(laws)
    for i, pw in zip(judged, found, strict=True):
        out[i] = pw
    return out


_EXACT_MEMO: dict[Any, tuple[ExactFindings | None, list[Candidate], list[str]]] = {}


def exact_stage(
    ctx: AuditContext, given: list[Candidate]
) -> tuple[ExactFindings | None, list[Candidate]]:
    """The exact stage's findings (None when no candidate has exact laws) and its finalists.

    It depends on no seed: it is memoised per (mechanism, search setting), so re-auditing the
    same hashable mechanism with other seeds only redraws the samples (the findings are frozen,
    so reports share them safely).

    Args:
        ctx: The audit.
        given: The caller's pairs, or none for the auditor's own family.

    Returns:
        The findings and the finalists, each with its planned event.
    """
    try:
        key = (
            ctx.mech,
            ctx.claim,
            ctx.values,
            ctx.samples,
            ctx.alpha,
            tuple(c.key for c in given),
        )
        hash(key)
    except TypeError:
        return _uncached_exact_stage(ctx, given)
    if key not in _EXACT_MEMO:
        notes_before = len(ctx.notes)
        findings, finalists = _uncached_exact_stage(ctx, given)
        if len(_EXACT_MEMO) > 64:
            _EXACT_MEMO.clear()
        _EXACT_MEMO[key] = (findings, finalists, ctx.notes[notes_before:])
        return findings, finalists
    findings, finalists, notes = _EXACT_MEMO[key]
    ctx.notes.extend(notes)
    for c in finalists:  # the black-box stage asks for these laws again
        ctx.law(c.d0), ctx.law(c.d1)
    return findings, finalists


def _uncached_exact_stage(
    ctx: AuditContext, given: list[Candidate]
) -> tuple[ExactFindings | None, list[Candidate]]:
    candidates = given or candidate_family(ctx, EXACT_MAX_N)
    table = CdfTable()
    powers = _powers(ctx, candidates, table)
    screened = [(c, pw) for c, pw in zip(candidates, powers, strict=True) if pw is not None]
    if not screened:
        return None, []
    climbed = _climb(ctx, screened, table) if ctx.search else 0
    ctx.progress(f"exact stage: {len(screened)} pairs screened, {climbed} visited by local search")
    # exact (mpmath) losses for the worst pairs by the float screen, and for the most detectable
    by_loss = sorted(screened, key=lambda t: -t[1].loss)
    top_loss = by_loss[0][1].loss
    chosen = [t for t in by_loss if t[1].loss >= min(top_loss, ctx.claim.epsilon) - 1e-6][:20]
    chosen += sorted(screened, key=lambda t: -t[1].expected)[:FINALISTS]
    unique = list({c.key: c for c, _ in chosen}.values())
    sweep = exact_sweep(ctx.mech, [(c.d0, c.d1) for c in unique], laws=ctx.law)
    if sweep.witness is None:  # never: the sweep had at least one pair, so a worst one
        raise ValueError(f"mechanism {ctx.name!r}: the exact sweep found no worst pair")
    worst_d0, worst_d1 = sweep.witness
    try:
        analysis = analyse_pair(
            ctx.law(worst_d0), ctx.law(worst_d1), (worst_d0, worst_d1), ctx.claim
        )
    except ValueError as exc:
        raise ValueError(
            f"mechanism {ctx.name!r}: the exact laws on {worst_d0.tolist()} and "
            f"{worst_d1.tolist()} cannot be judged: {exc}"
        ) from None
    best_power = max(screened, key=lambda t: t[1].expected)[1]
    findings = ExactFindings(
        pairs_screened=len(screened),
        pairs_exact=sweep.pairs,
        max_n=EXACT_MAX_N if not given else None,
        epsilon_exact=float(sweep.max_loss),
        epsilon_exact_digits=mpmath.nstr(sweep.max_loss, 30),
        delta_at_claimed_epsilon=float(sweep.max_delta_at_claim),
        violation=sweep.violation,
        worst_pair=DataPair.of(worst_d0, worst_d1),
        worst_pair_analysis=analysis,
        planning=ExactPlanning(
            best_expected_bound=best_power.expected,
            event_masses=(best_power.p0, best_power.p1),
            samples_needed_to_exceed_claim=best_power.samples_needed(
                ctx.claim.epsilon, ctx.claim.delta, ctx.alpha_eval
            ),
        ),
    )
    return findings, _finalists(screened)


def _climb(ctx: AuditContext, screened: list[tuple[Candidate, PairPower]], table: CdfTable) -> int:
    """Local search (:func:`dpquant.audit.model.neighbours.hill_climb_batched` on the expected
    bound, each step's moves screened in one batch, each pair once) from the
    :data:`CLIMB_STARTS` most detectable pairs and the as many largest losses, refining the grid
    around the optimum once; the pairs it ends on join ``screened``. Returns the pairs visited."""
    starts = sorted(screened, key=lambda t: -t[1].expected)[:CLIMB_STARTS]
    starts += sorted(screened, key=lambda t: -t[1].loss)[:CLIMB_STARTS]
    seen = {c.key for c, _ in screened}
    known: dict[Any, PairPower | None] = {c.key: pw for c, pw in screened}

    def objectives(pairs: list[Pair]) -> list[float]:
        keyed = [(c.key, c) for c in (Candidate(*p.data, pair=p) for p in pairs)]
        fresh: dict[Any, Candidate] = {}
        for key, c in keyed:
            if key not in known:
                fresh.setdefault(key, c)
        known.update(zip(fresh, _powers(ctx, list(fresh.values()), table), strict=True))
        return [-math.inf if (pw := known[key]) is None else pw.expected for key, _ in keyed]

    discrete = getattr(ctx.mech, "input_values", None) is not None
    climbed = 0
    for c, _ in starts:
        if c.pair is None:  # a given pair: the search does not run on those
            continue
        values, best = ctx.values, c.pair
        for _ in range(2):  # climb, refine the grid around the optimum, climb again
            if not discrete:
                values = refine_values(
                    (*values, *best.shared, best.y, *([best.x] if best.x is not None else []))
                )
            best, _, k = hill_climb_batched(
                best, objectives, values, ctx.claim.adjacency, CLIMB_STEPS
            )
            climbed += k
        cand = Candidate(*best.data, pair=best)
        if cand.key not in seen and (pw := _power(ctx, cand)) is not None:
            seen.add(cand.key)
            screened.append((cand, pw))
    return climbed


def _finalists(screened: list[tuple[Candidate, PairPower]]) -> list[Candidate]:
    """The :data:`dpquant.audit.pipeline.context.FINALISTS` most detectable pairs, each with its planned event
    and the masses of that event (for the budget)."""
    finalists: list[Candidate] = []
    for c, pw in sorted(screened, key=lambda t: -t[1].expected):
        if all(f.key != c.key for f in finalists):
            c.prior = (pw.p0, pw.p1)
            c.planned = pw
            finalists.append(c)
        if len(finalists) == FINALISTS:
            break
    return finalists


__all__ = ["CLIMB_STARTS", "CLIMB_STEPS", "EXACT_MAX_N", "exact_stage"]
