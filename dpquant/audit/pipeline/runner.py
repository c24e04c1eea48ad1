"""``audit_mechanism``: search neighbours, compute exact losses, bound ε from samples.

The pipeline (the ``audit_mechanism`` contract in ``docs/DESIGN.md``; the design and its reasons
in ``notes/auditor.md``), one module per stage:

1. **Candidates.** The caller's pairs, or the auditor's own: every neighbouring pair of small data
   sets over the probe values (:mod:`dpquant.audit.model.neighbours`), quantile patterns at larger sizes, and, for
   black-box mechanisms, a *crash scan* that bisects on the size of tied data for the size where the
   mechanism starts raising (SmartNoise #572, diffprivlib #107 fail only beyond some n).
2. **Exact stage** (mechanisms with ``exact``; :mod:`dpquant.audit.pipeline.stage1_exact`): every candidate is
   screened in floats for its loss and its detection power (:mod:`dpquant.audit.statistics.power`); local search
   climbs the power; the exact loss, the hockey-stick curve and Rényi divergences are computed in
   mpmath for the worst pairs.
3. **Black-box stage.** The finalists (by exact power, or by successive-halving screening runs:
   :mod:`dpquant.audit.pipeline.stage2_screening`) get fresh *selection* draws (30 %), on which the best event and
   direction are chosen; the best ``CARRIED`` of them get fresh *evaluation* draws (70 %), and
   ε_lb = ln((p0_L − δ)/p1_U) with Clopper–Pearson bounds at α/(2·CARRIED·ROUNDS) each; first on
   an eighth of the planned budget, then, unless that already shows a violation, on all of it
   (:mod:`dpquant.audit.pipeline.stage3_evaluation`). Everything before the evaluation draws, however adaptive, only
   chooses what to test; the bound holds with confidence 1 − α.
4. **Conformance** of the sampler to the exact law on the witness (both data sets, each test at
   level α), so that the exact stage audits the code and not only the formula.

**What it refuses** (``ValueError`` naming the argument, before any draw or allocation): a claim
whose fields are not valid *now* (``mech.claim.epsilon`` NaN, ∞ or ≤ 0, ``mech.claim.delta``
outside [0, 1), whatever the object's fields were set to after construction), ``samples`` outside
[10, :data:`MAX_SAMPLES`], ``max_draws`` outside [:data:`MIN_MAX_DRAWS`, :data:`MAX_MAX_DRAWS`] or
given with ``samples``, ``alpha`` outside [:data:`MIN_ALPHA`, 1), ``seed`` outside
[0, :data:`MAX_SEED`], a ``mode`` that is not one of :data:`MODES`, an ``executor`` that is not a
``concurrent.futures.Executor``, ``workers`` that is not an integer in
[1, :data:`~dpquant.audit.model.limits.MAX_WORKERS`]
(a boolean is refused) or is given with an ``executor``, ``options`` that are not an
:class:`~dpquant.audit.pipeline.options.AuditOptions` (whose fields are checked again: a
``progress`` that is not callable, a ``name`` that is not a string, a ``timeout`` outside
[:data:`MIN_TIMEOUT`, :data:`MAX_TIMEOUT`]), a ``domain`` that is
not inside ``mech.domain``, and ``pairs`` that are not neighbouring pairs of finite data inside
the domain (:func:`dpquant.audit.model.neighbours.check_pairs`; under a relation object, pairs its
``check_pair`` refuses), a ``relation`` for a claim that names a relation between data sets of
records unless it is a relation of records of that adjacency (:mod:`dpquant.audit.model.record_spaces`), and a
claim naming ``"query_answers"`` or ``"custom"`` without one or with one of another kind
(:mod:`dpquant.audit.model.relations`). An exact law that yields NaN, or an ``exact()``
that returns something other than an exact law, is a ``ValueError`` naming the mechanism in every
mode that uses the law; an ``exact()`` that *raises* is a note, and ``auto`` falls back to
black-box. (The ranges are in :mod:`dpquant.audit.model.limits`.)

**Time limit** (``timeout`` seconds per draw, :mod:`dpquant.audit.pipeline.draws`): the first draw that
overruns stops the search and the stages; the auditor then runs a *hang test* on the pair where
it happened (:mod:`dpquant.audit.pipeline.hang_check`: up to :data:`HANG_TEST_DRAWS` fresh single draws per data
set, at most about :data:`HANG_TEST_SECONDS` seconds of waiting per side, each draw with the same
limit), and bounds ε from the event "the draw timed out" at confidence 1 − α (a mechanism that
hangs on D and answers on D' leaks). The report then has ``timed_out`` set and, unless that bound
(or the exact stage) shows a violation, the verdict "INCOMPLETE"; ``assert_private`` fails either
way.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from concurrent.futures import Executor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dpquant.audit.model import limits
from dpquant.audit.model.limits import (
    DEFAULT_SAMPLES,
    MAX_MAX_DRAWS,
    MAX_SAMPLES,
    MAX_SEED,
    MIN_ALPHA,
    MIN_MAX_DRAWS,
    MODES,
)
from dpquant.audit.model.neighbours import (
    check_neighbours,
    check_pairs,
    check_probe_domain,
    check_values,
    probe_values,
)
from dpquant.audit.model.relations import NeighbourRelation, check_relation, check_relation_pairs
from dpquant.audit.pipeline.budget import BUDGET_FINALISTS, fit_final, plan_budget
from dpquant.audit.pipeline.context import AuditContext, Candidate, HungDraw
from dpquant.audit.pipeline.hang_check import HANG_TEST_DRAWS, HANG_TEST_SECONDS, hang_test
from dpquant.audit.pipeline.options import AuditOptions, check_options
from dpquant.audit.pipeline.plan import AuditPlan, no_progress
from dpquant.audit.pipeline.stage1_exact import exact_stage
from dpquant.audit.pipeline.stage2_screening import screening_stage
from dpquant.audit.pipeline.stage3_evaluation import blackbox_stage, witness_conformance
from dpquant.audit.pipeline.workers import resolve_workers
from dpquant.audit.report.findings import (
    BlackboxFindings,
    ConformanceCheck,
    ExactFindings,
    TimeoutFinding,
    Witness,
)
from dpquant.audit.report.inconclusive import CannotConclude, Inconclusive
from dpquant.audit.report.result import AuditReport
from dpquant.audit.statistics.exact_loss import mechanism_name
from dpquant.errors import MissingAttributeError, ParameterError
from dpquant.reference.core import OBJECT_RELATIONS, check_claim, has_exact
from dpquant.reference.validation import (
    check_choice,
    check_executor,
    check_int,
    check_probability,
    read_attribute,
)


def audit_mechanism(
    mech: Any,
    *,
    pairs: Iterable[tuple[Any, Any]] | None = None,
    domain: tuple[float, float] | None = None,
    samples: int | None = None,
    alpha: float = 1e-6,
    seed: int = 0,
    mode: str = "auto",
    executor: Executor | None = None,
    workers: int | None = None,
    relation: Any = None,
    max_draws: int | None = None,
    options: AuditOptions | None = None,
) -> AuditReport:
    """Audit ``mech`` against its ``claim``; see the module docstring and ``DESIGN.md``.

    Every argument is checked before anything is drawn (module docstring, "What it refuses").
    Memory does not grow with ``samples`` (the evaluation is counted block by block,
    :mod:`dpquant.audit.pipeline.stage3_evaluation`).

    Args:
        mech: The mechanism: a ``claim``, a ``domain`` and ``sample(data, size, rng)``, and
            optionally ``exact(data)`` (:mod:`dpquant.reference.core`; a function becomes one
            with :func:`dpquant.audit.from_callable`).
        pairs: Neighbouring pairs ``(D, D')`` to audit instead of the auditor's own search:
            finite data inside the domain, neighbours under the claim's relation (under a
            relation object, pairs its ``check_pair`` accepts).
        domain: The interval ``(lo, hi)`` the search probes, inside ``mech.domain``; default:
            the mechanism's domain.
        samples: Draws per data set for each final candidate (30 % selection, 70 %
            evaluation; default :data:`DEFAULT_SAMPLES`, at most :data:`MAX_SAMPLES`); the
            search draws extra screening samples, counted in ``samples_used``.
        alpha: The confidence parameter: the bound ε_lb holds with probability 1 − α (at
            least :data:`MIN_ALPHA`, below 1).
        seed: The seed of every draw (0 to :data:`MAX_SEED`): the same seed gives the same
            report.
        mode: One of :data:`MODES`: ``"auto"`` (exact laws where possible, then black-box),
            ``"exact"`` (exact laws only) or ``"blackbox"`` (samples only).
        executor: A ``concurrent.futures.Executor`` (a thread or process pool, a
            dask.distributed client's ``get_executor()``) that draws the samples; it is probed
            with one task before any draw. None: the audit's own worker processes draw them
            (``workers``).
        workers: How many worker processes draw the samples when there is no ``executor``
            (1 to :data:`~dpquant.audit.model.limits.MAX_WORKERS`; None: the usable cores,
            :func:`dpquant.audit.pipeline.workers.default_workers`); 1 draws in this process.
            The report is the same for any number (:mod:`dpquant.audit.pipeline.workers`: a
            platform without ``fork`` draws in this process, and says so in the notes).
        relation: The neighbour relation object of a claim that names ``"query_answers"`` or
            ``"custom"`` (:mod:`dpquant.audit.model.relations`; default: the mechanism's
            ``relation``), or, for a claim naming ``"add_remove"`` or ``"replace_one"``, a
            relation of records from a record space (:class:`dpquant.audit.model.record_spaces.Records`:
            vector records, data sets of shape (n, dim)); its pairs are searched (or ``pairs``
            checked) by the relation, in the order given.
        max_draws: A total budget instead of ``samples`` (not both; :data:`MIN_MAX_DRAWS` to
            :data:`MAX_MAX_DRAWS`): the audit draws at most that many samples in all, half for
            the search (its screens sized to fit, rank shifts in place of the local search) and
            the rest for one finalist in one round with all of α; a clear violation cuts that
            to what it needs unless the audit is to ``tighten`` (:mod:`dpquant.audit.pipeline.budget`).
        options: How the audit runs (:class:`dpquant.audit.pipeline.options.AuditOptions`: a
            time limit per draw, ``tighten``, the float-lattice events, a name, a progress
            callback); None: the defaults.

    Returns:
        The report: the verdict, the witness pair, the exact loss where the laws are known,
            and the bound ε_lb at confidence 1 − α.

    Raises:
        ValueError: An argument outside its range, or pairs that are not neighbours, named in
            the message (module docstring, "What it refuses"); an exact law that yields NaN,
            or an ``exact()`` that returns something other than an exact law.
    """
    start = time.perf_counter()
    claim = check_claim(_read(mech, "claim"), "mech.claim")
    if not callable(_read(mech, "sample", None)):
        raise ValueError("mech must have a sample(data, size, rng) method")
    mode = check_choice(mode, "mode", MODES)
    if mode == "exact" and not has_exact(mech):
        raise ValueError("mode='exact' needs a mechanism with an exact(data) law")
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    if alpha < MIN_ALPHA:
        raise ParameterError("alpha", f"must lie in [{MIN_ALPHA:g}, 1)", repr(alpha))
    seed = check_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    if max_draws is not None:
        if samples is not None:
            raise ValueError(
                "give samples or max_draws, not both: with max_draws the final stage's draws "
                "per data set are what the search leaves"
            )
        max_draws = check_int(max_draws, "max_draws", minimum=MIN_MAX_DRAWS, maximum=MAX_MAX_DRAWS)
    elif samples is not None:
        samples = check_int(samples, "samples", minimum=10, maximum=MAX_SAMPLES)
    check_executor(executor)
    workers = resolve_workers(workers, executor)
    _executor_runs(executor, mech)
    opts = check_options(options)
    budget = plan_budget(samples, max_draws, opts.tighten, DEFAULT_SAMPLES)
    dom = _audit_domain(mech, domain)
    inputs = _read(mech, "input_values", None)
    if inputs is not None:
        inputs = check_values(inputs, "mech.input_values")
    values = tuple(v for v in probe_values(dom, inputs) if dom[0] <= v <= dom[1])
    chosen = _relation(mech, relation, claim.adjacency)
    if chosen is not None and inputs is not None:
        raise ValueError(
            "mech.input_values are values of scalar records; under a relation object the inputs "
            f"are the relation's ({chosen.name}): a mechanism cannot have both"
        )
    checked: list[tuple[np.ndarray, np.ndarray]] | None
    if chosen is not None:
        checked = (
            chosen.candidates(dom) if pairs is None else check_relation_pairs(chosen, pairs, dom)
        )
        if not checked:
            raise ValueError(
                f"relation {chosen.name} gives no pairs to search: give pairs (or, for a custom "
                "relation, seeds and neighbours)"
            )
    else:
        checked = None if pairs is None else check_pairs(pairs, claim.adjacency, dom, inputs)
    if checked is None and len(values) < 2 and claim.adjacency != "add_remove":
        raise ParameterError(
            "domain",
            f"must give two values to probe for a {claim.adjacency} audit (widen it, or give "
            "pairs)",
            f"{dom}, which gives one: {values}",
        )
    plan = AuditPlan(
        mech=mech,
        claim=claim,
        values=values,
        budget=budget,
        alpha=alpha,
        seed=seed,
        executor=executor,
        workers=workers,
        search=pairs is None and chosen is None,
        progress=opts.progress or no_progress,
        name=opts.name or mechanism_name(mech),
        timeout=opts.timeout,
        float_lattice=opts.float_lattice,
    )
    ctx = AuditContext(plan)
    candidates = [Candidate(d0, d1) for d0, d1 in checked] if checked else []
    if chosen is not None:
        ctx.notes.append(f"neighbour relation: {chosen.name}, {len(candidates)} pairs")
    with ctx:  # the worker processes end with the audit
        found = _run_stages(ctx, candidates, mode)
    return _report(ctx, mode, found, time.perf_counter() - start)


@dataclass
class _Findings:
    """What the stages found (the parts of the report they fill)."""

    exact: ExactFindings | None = None
    blackbox: BlackboxFindings | None = None
    conformance: list[ConformanceCheck] = field(default_factory=list)
    witness: Witness | None = None
    timed_out: TimeoutFinding | None = None
    lower: float = 0.0
    inconclusive: Inconclusive | None = None


def _run_stages(ctx: AuditContext, candidates: list[Candidate], mode: str) -> _Findings:
    """The exact stage (where the mechanism has a law and ``mode`` allows), then, unless
    ``mode`` is "exact", the search (if the exact stage gave no finalists), selection and
    evaluation, and the sampler's conformance on the witness; a draw that overruns the time
    limit ends them with the hang test."""
    found = _Findings()
    finalists: list[Candidate] = []
    use_exact = mode in ("exact", "auto") and has_exact(ctx.mech)
    if use_exact:
        source = f"{len(candidates)} given pairs" if candidates else "the auditor's own search"
        ctx.progress(f"exact stage: {source}")
        found.exact, finalists = exact_stage(ctx, candidates)
    if mode == "exact":
        if found.exact is None:
            found.inconclusive = Inconclusive(
                "no_exact_loss",
                "the exact stage computed no loss: mech.exact(data) raised on every candidate "
                "data set (see the notes)",
            )
        return found
    try:
        if not finalists:
            finalists = screening_stage(ctx, candidates)
        if ctx.max_draws is not None:
            finalists = _fit_budget(ctx, finalists)
        ctx.progress(
            f"black-box stage: {len(finalists)} finalists, {ctx.samples} draws per data set"
        )
        found.blackbox, found.witness, found.lower, eval_draws = blackbox_stage(
            ctx, finalists, use_exact
        )
        if use_exact and eval_draws is not None:
            found.conformance = witness_conformance(ctx, *eval_draws)
    except HungDraw as hung:
        found.blackbox, found.witness, found.conformance = None, None, []
        found.timed_out, found.lower, found.witness = hang_test(ctx, hung)
    except CannotConclude as stop:
        ctx.notes.append(f"audit stopped early: {stop.inconclusive.reason}")
        found.inconclusive = stop.inconclusive
    else:
        found.inconclusive = ctx.ledger.tally.inconclusive()
    return found


def _fit_budget(ctx: AuditContext, finalists: list[Candidate]) -> list[Candidate]:
    """A budgeted audit's final stage: its best finalist, with the draws per data set the budget
    gives it once the search has ended (:func:`dpquant.audit.pipeline.budget.fit_final`)."""
    finalists = finalists[:BUDGET_FINALISTS]
    prior = finalists[0].prior if finalists else None
    budget = fit_final(ctx.budget, ctx.used, prior, ctx.claim, ctx.alpha_eval)
    ctx.plan = replace(ctx.plan, budget=budget)
    left = budget.max_draws - ctx.used if budget.max_draws is not None else 0
    ctx.notes.append(
        f"budget: {ctx.used} of max_draws = {ctx.max_draws} drawn by the search, {left} left; "
        f"the finalist gets {ctx.samples} draws per data set"
    )
    return finalists


def _report(ctx: AuditContext, mode: str, found: _Findings, seconds: float) -> AuditReport:
    """The report: the verdict is a violation if either stage shows one; the witness is the
    exact stage's worst pair unless the black-box stage (or the hang test) shows a violation
    the exact stage does not."""
    exact_info, blackbox_info = found.exact, found.blackbox
    witness, lower = found.witness, found.lower
    claim = ctx.claim
    exact_eps = None
    violation = False
    exact_witness = None if exact_info is None else Witness.from_exact(exact_info.worst_pair)
    if exact_info is not None:
        exact_eps = exact_info.epsilon_exact
        violation = exact_info.violation
        if mode == "exact":
            lower = exact_eps
            witness = exact_witness
    if found.timed_out is not None:
        violation = violation or lower > claim.epsilon
        if exact_info is not None and (witness is None or not lower > claim.epsilon):
            witness = exact_witness
    if blackbox_info is not None:
        if exact_info is not None and (
            witness is None or (exact_info.violation and not blackbox_info.violation)
        ):  # the exact worst pair is the better witness (the black-box one stays in `blackbox`)
            witness = exact_witness
        violation = violation or blackbox_info.violation
    if found.inconclusive is not None and not violation:  # no black-box witness to show
        witness = exact_witness
    return AuditReport(
        mechanism=ctx.name,
        claim=claim,
        mode=mode if mode != "auto" else ("exact+blackbox" if exact_info else "blackbox"),
        epsilon_lower_bound=max(0.0, float(lower)),
        epsilon_exact=exact_eps,
        violation=bool(violation),
        witness=witness,
        alpha=ctx.alpha,
        seed=ctx.seed,
        samples_used=ctx.used,
        samples_by_stage=dict(ctx.ledger.by_stage),
        seconds=seconds,
        exact=exact_info,
        blackbox=blackbox_info,
        conformance=found.conformance,
        notes=ctx.notes,
        timed_out=found.timed_out,
        inconclusive=None if violation else found.inconclusive,
    )


EXECUTOR_PROBE_SECONDS = 120.0
"""The longest the probe of an ``executor`` may take (a new process pool starts its workers)."""


def _executor_runs(executor: Executor | None, mech: Any) -> None:
    """An ``executor`` must take work and carry ``mech`` to its workers: one probe task (the
    mechanism's name, read in a worker) before any draw, so that a shut-down executor, or a
    mechanism a process pool cannot pickle (a closure, a lambda), is refused up front rather than
    failing mid-audit.

    Raises:
        ValueError: naming ``executor``, what failed and why.
    """
    if executor is None:
        return
    try:
        future = executor.submit(mechanism_name, mech)
    except Exception as exc:  # noqa: BLE001 -- a shut-down pool: RuntimeError; others alike
        raise ValueError(
            f"executor cannot take work ({type(exc).__name__}: {exc}): was it shut down?"
        ) from None
    try:
        future.result(timeout=EXECUTOR_PROBE_SECONDS)
    except FutureTimeout:
        future.cancel()
        raise ValueError(
            f"executor did not run a probe task within {EXECUTOR_PROBE_SECONDS:g} s"
        ) from None
    except Exception as exc:  # noqa: BLE001 -- pickling errors and worker failures alike
        raise ValueError(
            f"executor cannot run the mechanism's draws ({type(exc).__name__}: {exc}); a "
            "process pool needs a mechanism that pickles (a function defined at module level, "
            "not a closure or a lambda)"
        ) from None


def _read(mech: Any, attribute: str, *default: Any) -> Any:
    """``mech.<attribute>`` (or the ``default`` given, when it has none); a missing one says
    what a mechanism must have."""
    try:
        return read_attribute(mech, attribute, "mech", *default)
    except MissingAttributeError:
        raise MissingAttributeError(
            f"mech.{attribute}",
            "is missing: mech must be a mechanism (a dpquant.reference.PrivacyClaim "
            "as claim, sample(data, size, rng), domain)",
        ) from None


def _relation(mech: Any, relation: Any, adjacency: str) -> NeighbourRelation | None:
    """The relation object (``relation``, else ``mech.relation``), checked against the claim
    (:func:`dpquant.audit.model.relations.check_relation`): required for a claim naming one of
    :data:`dpquant.reference.core.OBJECT_RELATIONS`; for a claim naming a relation between data sets of
    records, optional and only a relation of records (:class:`dpquant.audit.model.record_spaces.Records`:
    vector records), None meaning scalar records, which the auditor searches itself."""
    own = _read(mech, "relation", None)
    if adjacency not in OBJECT_RELATIONS:
        if relation is not None:
            return check_relation(relation, adjacency)
        return None if own is None else check_relation(own, adjacency, "mech.relation")
    if relation is None and own is None:
        raise ValueError(
            f"a {adjacency!r} claim needs its relation: pass relation= (dpquant.audit.model.relations."
            "QueryAnswers or CustomRelation) or give the mechanism a relation attribute"
        )
    if relation is None:
        return check_relation(own, adjacency, "mech.relation")
    return check_relation(relation, adjacency)


def _audit_domain(mech: Any, domain: Any) -> tuple[float, float]:
    """The values data are drawn from: ``domain`` (inside ``mech.domain``) or ``mech.domain``."""
    own = _read(mech, "domain", None)
    if domain is None:
        if own is None:
            raise MissingAttributeError("mech.domain", "is missing: give domain=(lo, hi)")
        return check_probe_domain(own, "mech.domain")
    dom = check_probe_domain(domain, "domain")
    if own is not None:
        lo, hi = check_probe_domain(own, "mech.domain")
        if not (lo <= dom[0] and dom[1] <= hi):
            raise ParameterError(
                "domain",
                f"must lie inside mech.domain ({lo!r}, {hi!r})",
                f"{dom}: data outside it are refused by the mechanism, which is not a leak",
            )
    return dom


__all__ = [
    *limits.__all__,  # the ranges of the arguments, re-exported
    "HANG_TEST_DRAWS",
    "HANG_TEST_SECONDS",
    "Candidate",
    "audit_mechanism",
    "check_neighbours",
]
