"""The state of one audit, shared by its stages (:mod:`dpquant.audit.pipeline.runner`): its plan
(:mod:`dpquant.audit.pipeline.plan`, fixed before the first draw), the ledger of its draws
(counted per stage, seeded per job: :mod:`dpquant.audit.pipeline.draws`), the exact laws met
(cached), the notes; and the candidate pairs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import numpy as np

from dpquant.audit.model.calls import shown_data
from dpquant.audit.model.neighbours import Pair, exhaustive_pairs, pattern_pairs, rank_shift_pairs
from dpquant.audit.model.outputs import Outputs
from dpquant.audit.pipeline.budget import DrawBudget
from dpquant.audit.pipeline.draws import (
    DrawJob,
    DrawTimedOut,
    chunk_size,
    draw,
    width_changed,
)
from dpquant.audit.pipeline.plan import AuditPlan
from dpquant.audit.pipeline.workers import DrawPool
from dpquant.audit.report.inconclusive import CannotConclude, OutputTally
from dpquant.audit.statistics.exact_loss import check_exact_law
from dpquant.audit.statistics.power import PairPower
from dpquant.reference.core import PrivacyClaim

FINALISTS = 4
"""Pairs a search stage passes on to selection and evaluation."""

SCREEN, SELECT, EVAL, CRASH, CLIMB, HANG, RANK = 1, 2, 3, 4, 5, 6, 7
"""The stages, as the first element of a draw job's key (so each stage has its own seeds)."""
STAGE_NAMES = {
    SCREEN: "screening",
    SELECT: "selection",
    EVAL: "evaluation",
    CRASH: "crash scan",
    CLIMB: "local search",
    HANG: "hang test",
    RANK: "ranking",
}

Job = tuple[np.ndarray, int, tuple[int, ...]]
"""A draw job: (data, number of draws, key)."""
JobPair = tuple[Job, Job]
"""The draw jobs of one pair: on D, then on D' (:func:`pair_jobs`)."""
OutputPair = tuple[Outputs, Outputs]
"""The draws of a :data:`JobPair`: on D, then on D'."""


def pair_jobs(d0: np.ndarray, d1: np.ndarray, size: int, key: tuple[int, ...]) -> JobPair:
    """``size`` draws on D and on D', keyed ``(*key, 0)`` and ``(*key, 1)`` (the keys seed the
    draws, :mod:`dpquant.audit.pipeline.draws`).

    Args:
        d0: D.
        d1: D'.
        size: The draws on each.
        key: The pair's key: its stage first, then what tells it from the stage's other pairs.

    Returns:
        The two jobs.
    """
    return (d0, size, (*key, 0)), (d1, size, (*key, 1))


class HungDraw(Exception):  # noqa: N818 -- control flow: a draw overran the time limit
    """A draw of ``stage`` on ``data`` overran the audit's time limit (``partner`` is the other
    data set of its pair)."""

    def __init__(self, stage: str, data: np.ndarray, partner: np.ndarray):
        super().__init__(stage)
        self.stage, self.data, self.partner = stage, data, partner


@dataclass
class Candidate:
    """A neighbouring pair under test.

    Attributes:
        d0: The data set D.
        d1: Its neighbour D'.
        pair: Its search form, when the auditor made it (None for a caller's pair).
        prior: The masses of its best event on D and D', from the search.
        planned: Its best likelihood-ratio set, from the exact laws.
        drawn: Draws on (D, D') that choose its event.
    """

    d0: np.ndarray
    d1: np.ndarray
    pair: Pair | None = None
    prior: tuple[float, float] | None = None
    planned: PairPower | None = None
    drawn: tuple[Outputs, Outputs] | None = None

    @property
    def key(self) -> tuple[Any, Any]:
        """The pair as a hashable value (data of any shape: shape and values)."""
        return _frozen(self.d0), _frozen(self.d1)


def _frozen(d: np.ndarray) -> Any:
    """A data set as a hashable value: the tuple of its values for 1-D data (as before), its
    shape and values otherwise."""
    values = tuple(np.asarray(d).ravel().tolist())
    return values if np.ndim(d) == 1 else (np.shape(d), values)


@dataclass
class DrawLedger:
    """The draws one audit has made: in all, by stage, by what they were, and the width of the
    numeric draws on each data set; and the counter that keys its draw jobs."""

    used: int = 0
    by_stage: dict[str, int] = field(default_factory=dict)
    tally: OutputTally = field(default_factory=OutputTally)
    """Every draw of the stages, by what it was (:mod:`dpquant.audit.report.inconclusive`)."""
    widths: dict[Any, int] = field(default_factory=dict)
    """The width of the numeric draws on each data set drawn on
    (:meth:`AuditContext._same_width`)."""
    counter: int = 0

    def count(self, stage: str, n: int) -> None:
        """Record ``n`` draws made by ``stage``."""
        self.used += n
        self.by_stage[stage] = self.by_stage.get(stage, 0) + n

    def next_key(self) -> int:
        """A fresh key for a stage's draw jobs."""
        self.counter += 1
        return self.counter


@dataclass
class AuditContext:
    """One audit's plan and running state (see the module docstring): the plan is replaced at
    most once, by the budget's final fit of an audit with ``max_draws``
    (:func:`dpquant.audit.pipeline.budget.fit_final`). Without an executor the draws are made
    by the audit's worker processes (:attr:`pool`, :mod:`dpquant.audit.pipeline.workers`),
    started when first needed; used as a context manager, the context shuts them down when the
    audit ends (terminates them when it ends with an exception)."""

    plan: AuditPlan
    ledger: DrawLedger = field(default_factory=DrawLedger)
    notes: list[str] = field(default_factory=list)
    laws: dict[tuple[float, ...], Any] = field(default_factory=dict)
    pool: DrawPool | None = None

    def __post_init__(self) -> None:
        if self.pool is None and self.plan.executor is None:
            self.pool = DrawPool(self.plan.mech, self.plan.workers, self.notes)

    def __enter__(self) -> AuditContext:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.pool is not None:
            self.pool.close(abort=kind is not None)

    # -- the plan, as the stages read it -----------------------------------------------------

    @property
    def mech(self) -> Any:
        return self.plan.mech

    @property
    def claim(self) -> PrivacyClaim:
        return self.plan.claim

    @property
    def values(self) -> tuple[float, ...]:
        return self.plan.values

    @property
    def alpha(self) -> float:
        return self.plan.alpha

    @property
    def seed(self) -> int:
        return self.plan.seed

    @property
    def executor(self) -> Executor | None:
        return self.plan.executor

    @property
    def search(self) -> bool:
        return self.plan.search

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def timeout(self) -> float | None:
        return self.plan.timeout

    @property
    def float_lattice(self) -> bool:
        return self.plan.float_lattice

    def progress(self, line: str) -> None:
        """Report one line of progress."""
        self.plan.progress(line)

    @property
    def budget(self) -> DrawBudget:
        return self.plan.budget

    @property
    def samples(self) -> int:
        """Draws per data set of each finalist (:attr:`dpquant.audit.pipeline.budget.DrawBudget.samples`)."""
        return self.plan.budget.samples

    @property
    def max_draws(self) -> int | None:
        return self.plan.budget.max_draws

    @property
    def full_budget(self) -> bool:
        """With ``max_draws``: spend it all even after a clear violation (``tighten``)."""
        return self.plan.budget.full

    @property
    def poisson_counts(self) -> bool:
        """Whether the evaluation may count its draws in Poisson numbers
        (:mod:`dpquant.audit.statistics.poisson_counts`): for a pure-DP claim (the conditional
        bound is of p0/p1, without δ). Each evaluated event is then counted so
        when that promises the larger bound at its selection masses
        (:func:`dpquant.audit.pipeline.stage3_evaluation.counts_poisson`): at the
        exponential-mechanism median's best events the fixed counts' rectangle needs 1.6 to 1.9
        times the draws for the conditional bound (``notes/auditor.md``, "Poissonized
        counts")."""
        return self.claim.delta == 0

    @property
    def tighten(self) -> bool:
        """A single-round audit with one finalist (tightening, or with ``max_draws``)."""
        return self.plan.budget.one_round

    @property
    def n_select(self) -> int:
        return self.plan.budget.selection

    @property
    def n_eval(self) -> int:
        """Evaluation draws per side of a finalist (:func:`dpquant.audit.pipeline.budget.evaluation_size`)."""
        return self.plan.budget.evaluation

    @property
    def carried(self) -> int:
        return self.plan.carried

    @property
    def alpha_eval(self) -> float:
        return self.plan.alpha_eval

    # -- the ledger ----------------------------------------------------------------------------

    @property
    def used(self) -> int:
        return self.ledger.used

    def count(self, stage: str, n: int) -> None:
        """Record ``n`` draws made by ``stage``."""
        self.ledger.count(stage, n)

    def next_key(self) -> int:
        return self.ledger.next_key()

    def draw(self, pairs: Sequence[JobPair]) -> list[OutputPair]:
        """Draw the pairs' jobs (all of one stage), the draws of each pair together; a draw that
        overruns the time limit raises :class:`HungDraw` with its pair."""
        jobs = [job for pair in pairs for job in pair]
        self._count(jobs)
        return _paired(self._draw([DrawJob(d, n, k) for d, n, k in jobs], pairs))

    def draw_blocks(self, pairs: Sequence[JobPair], block: int) -> Iterator[list[OutputPair]]:
        """The draws of the pairs' jobs (as in :meth:`draw`) in consecutive blocks of about
        ``block`` draws per job (whole chunks, :class:`dpquant.audit.pipeline.draws.DrawJob`): concatenated, the
        blocks are exactly what :meth:`draw` returns, but only one block is held at a time. A
        job that has run out yields no draws."""
        jobs = [job for pair in pairs for job in pair]
        self._count(jobs)
        steps = [chunk_size(self.mech, d, self.timeout) for d, _, _ in jobs]
        per = [s * max(1, block // s) for s in steps]
        blocks = max((-(-n // p) for (_, n, _), p in zip(jobs, per, strict=True)), default=0)
        for b in range(blocks):
            parts = [
                DrawJob(d, max(0, min(p, n - b * p)), k, first_chunk=b * p // s)
                for (d, n, k), p, s in zip(jobs, per, steps, strict=True)
            ]
            yield _paired(self._draw(parts, pairs))

    def _count(self, jobs: Sequence[Job]) -> None:
        if jobs:
            self.count(STAGE_NAMES[jobs[0][2][0]], sum(n for _, n, _ in jobs))

    def _draw(self, parts: list[DrawJob], pairs: Sequence[JobPair]) -> list[Outputs]:
        """The draws of ``parts`` (the pairs' jobs in order, or blocks of them)."""
        stage = pairs[0][0][2][0] if pairs else 0
        try:
            outs = draw(
                self.mech, parts, self.seed, self.executor, timeout=self.timeout, pool=self.pool
            )
        except DrawTimedOut as exc:
            if self.pool is not None:  # workers may be stuck in the mechanism: the stages end
                self.pool.close(abort=True)
            partners = [(on[0], other[0]) for a, b in pairs for on, other in ((a, b), (b, a))]
            raise HungDraw(STAGE_NAMES[stage], *partners[exc.job]) from None
        for part, out in zip(parts, outs, strict=True):
            self.ledger.tally.add(out, stage == EVAL)
            self._same_width(part.data, out)
        return outs

    def _same_width(self, data: np.ndarray, out: Outputs) -> None:
        """The numeric draws of a mechanism on one data set keep their width from one call to
        the next (:mod:`dpquant.audit.pipeline.draws`, the sampling contract), unless it is called once per draw
        (its ``vectorized`` attribute is False)."""
        if not out.numeric.any() or getattr(self.mech, "vectorized", True) is False:
            return
        key = _frozen(data)
        width = self.ledger.widths.setdefault(key, out.width)
        if width != out.width:
            raise width_changed(self.name, data, {width, out.width})

    def check_output(self) -> None:
        """At a stage boundary: stop the audit (:class:`dpquant.audit.report.inconclusive.CannotConclude`) when
        every draw so far was the same non-output (:meth:`dpquant.audit.report.inconclusive.OutputTally.stop`)."""
        stop = self.ledger.tally.stop()
        if stop is not None:
            raise CannotConclude(stop)

    def law(self, data: np.ndarray) -> Any:
        """The exact law on ``data`` (None when ``exact`` raises: a note); a law that yields NaN
        or is not an exact law is a ``ValueError`` naming the mechanism."""
        key = _frozen(np.asarray(data))
        if key not in self.laws:
            try:
                got = self.mech.exact(np.asarray(data, dtype=float))
            except Exception as exc:  # noqa: BLE001 -- no exact law here: black-box only
                self.laws[key] = None
                if len(self.notes) < 20:
                    self.notes.append(
                        f"exact() raised {type(exc).__name__} on {shown_data(data)}: {exc}"
                    )
            else:
                where = shown_data(data)
                self.laws[key] = check_exact_law(
                    got, f"mechanism {self.name!r}: exact(data) on data = {where}"
                )
        return self.laws[key]


def _paired(outs: list[Outputs]) -> list[OutputPair]:
    """The draws of the jobs of pairs, in order, as the draws of each pair."""
    return list(zip(outs[0::2], outs[1::2], strict=True))


def budget_family(ctx: AuditContext) -> list[Candidate]:
    """The candidates of a search with a total budget of draws (:mod:`dpquant.audit.pipeline.budget`): the
    pairs of single records over the probe values and the rank shifts
    (:func:`dpquant.audit.model.neighbours.rank_shift_pairs`; not for a mechanism with a finite input set,
    whose finer grid would leave it). A few hundred draws a side cannot tell a pair of loss 0.93
    from one of 0.75 among the hundreds of the full family, so a budgeted search screens these,
    the shapes that are worst for statistics of ranks, a quarter of them near the worst case of
    the exponential-mechanism median."""
    adjacency = ctx.claim.adjacency
    found = list(exhaustive_pairs(ctx.values, 1, adjacency))
    if getattr(ctx.mech, "input_values", None) is None:
        found += rank_shift_pairs(ctx.values, adjacency)
    return [Candidate(*p.data, pair=p) for p in dict.fromkeys(found)]


def candidate_family(ctx: AuditContext, max_n: int) -> list[Candidate]:
    """The auditor's own candidates: every neighbouring pair of data sets of at most ``max_n``
    records over the probe values, and the quantile patterns (:mod:`dpquant.audit.model.neighbours`)."""
    adjacency = ctx.claim.adjacency
    found = list(exhaustive_pairs(ctx.values, max_n, adjacency))
    found += pattern_pairs(ctx.values, adjacency)
    return [Candidate(*p.data, pair=p) for p in dict.fromkeys(found)]


__all__ = [
    "FINALISTS",
    "STAGE_NAMES",
    "AuditContext",
    "DrawLedger",
    "Candidate",
    "HungDraw",
    "Job",
    "JobPair",
    "OutputPair",
    "budget_family",
    "candidate_family",
    "pair_jobs",
]
