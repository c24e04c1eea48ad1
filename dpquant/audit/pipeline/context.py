"""The state of one audit, shared by its stages (:mod:`dpquant.audit.pipeline.runner`): the mechanism and its
claim, the probe values, the budget and α, the draws made so far (counted per stage, seeded per
job: :mod:`dpquant.audit.pipeline.draws`), the exact laws met (cached), the notes; and the candidate pairs.

α is shared by Bonferroni: the black-box bound of each of the :data:`CARRIED` candidates
evaluated in each of the :data:`ROUNDS` rounds holds at level α/(CARRIED·ROUNDS), so the reported
bound (their maximum) holds with confidence 1 − α. An audit that is to ``tighten`` its bound
plans one round and carries one candidate (:data:`CARRIED_TIGHTEN`), which gets all of α
(``notes/auditor.md``, "What a report means").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpquant.audit.model.calls import shown_data
from dpquant.audit.model.neighbours import Pair, exhaustive_pairs, pattern_pairs, rank_shift_pairs
from dpquant.audit.model.outputs import Outputs
from dpquant.audit.pipeline.draws import (
    DrawJob,
    DrawTimedOut,
    chunk_size,
    draw,
    width_changed,
)
from dpquant.audit.report.inconclusive import CannotConclude, OutputTally
from dpquant.audit.statistics.exact_loss import check_exact_law
from dpquant.audit.statistics.power import PairPower
from dpquant.reference.core import PrivacyClaim

SELECTION_FRACTION = 0.3
"""The share of a finalist's draws used to choose its event (the rest evaluate it)."""
SELECT_MAX = 1 << 22
"""The most selection draws per side a finalist is given: a larger budget goes to evaluation
(beyond a few million draws a better choice of event gains less than a tighter count does)."""
CARRIED = 2
"""Candidates carried from selection into evaluation, per round."""
CARRIED_TIGHTEN = 1
"""Candidates carried into evaluation by an audit that is to ``tighten`` its bound (in its one
round): all of α and all evaluation draws on the selection's best, as DP-Sniper's final test
(Bichsel et al., S&P 2021, Alg. 1) has."""
ROUNDS = 2
"""Rounds of selection and evaluation (:func:`dpquant.audit.pipeline.stage3_evaluation.budget_plan`: an eighth of the
budget, then all of it; or, when the search predicts a clear violation, the cut budget, then all
of it)."""
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
class AuditContext:
    """One audit's settings and running state (see the module docstring)."""

    mech: Any
    claim: PrivacyClaim
    values: tuple[float, ...]
    samples: int
    alpha: float
    seed: int
    executor: Executor | None
    search: bool
    progress: Callable[[str], None]
    name: str = ""
    timeout: float | None = None
    float_lattice: bool = False
    tighten: bool = False
    max_draws: int | None = None  # a total budget of draws (:mod:`dpquant.audit.pipeline.budget`)
    full_budget: bool = False  # with max_draws: spend it all even after a clear violation
    used: int = 0
    used_by_stage: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    laws: dict[tuple[float, ...], Any] = field(default_factory=dict)
    counter: int = 0
    tally: OutputTally = field(default_factory=OutputTally)
    """Every draw of the stages, by what it was (:mod:`dpquant.audit.report.inconclusive`)."""
    widths: dict[Any, int] = field(default_factory=dict)
    """The width of the numeric draws on each data set drawn on (:meth:`_same_width`)."""

    @property
    def n_select(self) -> int:
        return selection_size(self.samples)

    @property
    def n_eval(self) -> int:
        """Evaluation draws per side of a finalist: what its selection leaves, or, with a total
        budget, all its draws (its event is chosen on its last screen's, :mod:`dpquant.audit.pipeline.budget`)."""
        if self.max_draws is not None:
            return self.samples
        return max(1, self.samples - self.n_select)

    @property
    def carried(self) -> int:
        """Candidates evaluated per round: :data:`CARRIED`, or :data:`CARRIED_TIGHTEN`."""
        return CARRIED_TIGHTEN if self.tighten else CARRIED

    @property
    def alpha_eval(self) -> float:
        """α per evaluated candidate: Bonferroni over the carried candidates and ROUNDS rounds
        (one round when the audit is to ``tighten`` its bound: its plan has a single round,
        fixed before any draw, :func:`dpquant.audit.pipeline.stage3_evaluation.blackbox_stage`)."""
        return self.alpha / (self.carried * (1 if self.tighten else ROUNDS))

    def count(self, stage: str, n: int) -> None:
        """Record ``n`` draws made by ``stage``."""
        self.used += n
        self.used_by_stage[stage] = self.used_by_stage.get(stage, 0) + n

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
            outs = draw(self.mech, parts, self.seed, self.executor, timeout=self.timeout)
        except DrawTimedOut as exc:
            partners = [(on[0], other[0]) for a, b in pairs for on, other in ((a, b), (b, a))]
            raise HungDraw(STAGE_NAMES[stage], *partners[exc.job]) from None
        for part, out in zip(parts, outs, strict=True):
            self.tally.add(out, stage == EVAL)
            self._same_width(part.data, out)
        return outs

    def _same_width(self, data: np.ndarray, out: Outputs) -> None:
        """The numeric draws of a mechanism on one data set keep their width from one call to
        the next (:mod:`dpquant.audit.pipeline.draws`, the sampling contract), unless it is called once per draw
        (its ``vectorized`` attribute is False)."""
        if not out.numeric.any() or getattr(self.mech, "vectorized", True) is False:
            return
        key = _frozen(data)
        width = self.widths.setdefault(key, out.width)
        if width != out.width:
            raise width_changed(self.name, data, {width, out.width})

    def check_output(self) -> None:
        """At a stage boundary: stop the audit (:class:`dpquant.audit.report.inconclusive.CannotConclude`) when
        every draw so far was the same non-output (:meth:`dpquant.audit.report.inconclusive.OutputTally.stop`)."""
        stop = self.tally.stop()
        if stop is not None:
            raise CannotConclude(stop)

    def next_key(self) -> int:
        self.counter += 1
        return self.counter

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


def selection_size(budget: int) -> int:
    """Selection draws per side out of a finalist's ``budget``: :data:`SELECTION_FRACTION` of it,
    at most :data:`SELECT_MAX`."""
    return min(SELECT_MAX, max(1, int(round(budget * SELECTION_FRACTION))))


def candidate_family(ctx: AuditContext, max_n: int) -> list[Candidate]:
    """The auditor's own candidates: every neighbouring pair of data sets of at most ``max_n``
    records over the probe values, and the quantile patterns (:mod:`dpquant.audit.model.neighbours`)."""
    adjacency = ctx.claim.adjacency
    found = list(exhaustive_pairs(ctx.values, max_n, adjacency))
    found += pattern_pairs(ctx.values, adjacency)
    return [Candidate(*p.data, pair=p) for p in dict.fromkeys(found)]


__all__ = [
    "CARRIED",
    "CARRIED_TIGHTEN",
    "FINALISTS",
    "ROUNDS",
    "SELECTION_FRACTION",
    "SELECT_MAX",
    "STAGE_NAMES",
    "AuditContext",
    "Candidate",
    "HungDraw",
    "Job",
    "JobPair",
    "OutputPair",
    "budget_family",
    "candidate_family",
    "pair_jobs",
    "selection_size",
]
