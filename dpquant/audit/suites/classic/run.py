"""Auditing the classic benchmark: one entry of :data:`dpquant.audit.suites.classic.suite.SUITE` at one claimed ε.

:func:`run_entry` builds the entry's mechanism and audits it with the auditor's own search (the
query-answer relation's input patterns, :class:`dpquant.audit.model.relations.QueryAnswers`, which are StatDP's,
Ding et al., CCS 2018, Sec. 5; no pairs given), and returns a :class:`SuiteRun`: the verdict, the
ε lower bound, draws, seconds and the event, beside the mechanism's status at that ε.
``benchmarks/bench_auditor_suite.py`` prints these for every entry next to the published
results (:mod:`dpquant.audit.suites.classic.published`).

**Status** at a claimed ε (:func:`status`): ``"correct"`` when the mechanism is ε-DP (its true ε
is known and at most ε), ``"incorrect"`` when it is not (a known true ε above ε, or, where the
true ε is not known, the benchmark's own verdict: StatDP's "INCORRECT" markers and Lyu, Su and Li's
analysis of SVT3, SVT4 and SVT6, VLDB 2017), ``"unknown"`` otherwise.

Every argument of :func:`run_entry` is checked before anything is built or drawn (issue 34): the
entry (a :class:`ClassicEntry`, or its name or alias; an unknown name is a ``ValueError`` naming
``entry`` with the closest names), ε (where the mechanism draws its law and its true ε is a
double, :mod:`dpquant.audit.suites.classic.suite`), and the audit's ``samples``, ``seed``, ``alpha`` and
``tighten`` (the auditor's ranges, :mod:`dpquant.audit.model.limits`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from dpquant.audit.model.limits import MAX_SAMPLES, MAX_SEED, MIN_ALPHA
from dpquant.audit.pipeline.options import AuditOptions
from dpquant.audit.pipeline.runner import audit_mechanism
from dpquant.audit.suites.classic.suite import ClassicEntry, lookup
from dpquant.reference.validation import check_epsilon, check_flag, check_int, check_probability

SUITE_SAMPLES = 300_000
"""Draws per side of the audit's evaluation rounds: with the search's screening, under 2·10⁶
draws in total (the issue's budget)."""
DRAW_LIMIT = 2_000_000
"""The issue's budget: an incorrect mechanism is to be flagged within this many draws."""
STATUSES = ("correct", "incorrect", "unknown")


def status(entry: ClassicEntry, epsilon: Any) -> str:
    """The entry's status at claimed ``epsilon`` (module docstring)."""
    verdict = entry.correct_at(epsilon)
    if verdict is not None:
        return "correct" if verdict else "incorrect"
    return "unknown" if entry.correct else "incorrect"


@dataclass(frozen=True)
class SuiteRun:
    """One audit of the benchmark: ``name`` at claimed ``epsilon``, its ``status`` and
    ``true_epsilon`` (None when not known), the report's ``violation``, ``epsilon_lb``, draws
    (``samples_used``), ``seconds``, and the witness event's kind and description."""

    name: str
    epsilon: float
    status: str
    true_epsilon: float | None
    violation: bool
    epsilon_lb: float
    draws: int
    seconds: float
    event_kind: str
    event: str

    @property
    def as_expected(self) -> bool | None:
        """Flagged exactly when incorrect (None when the status is unknown)."""
        if self.status == "unknown":
            return None
        return self.violation == (self.status == "incorrect")


def _audit_options(samples: Any, seed: Any, alpha: Any, tighten: Any) -> dict[str, Any]:
    """The audit's keywords, checked against the auditor's ranges."""
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    if alpha < MIN_ALPHA:
        raise ValueError(f"alpha must lie in [{MIN_ALPHA:g}, 1), got {alpha!r}")
    return {
        "samples": check_int(samples, "samples", minimum=10, maximum=MAX_SAMPLES),
        "seed": check_int(seed, "seed", minimum=0, maximum=MAX_SEED),
        "alpha": alpha,
        "options": AuditOptions(tighten=check_flag(tighten, "tighten")),
    }


def run_entry(
    entry: ClassicEntry | str,
    epsilon: Any,
    *,
    samples: int = SUITE_SAMPLES,
    seed: int = 0,
    alpha: float = 1e-6,
    tighten: bool = False,
) -> SuiteRun:
    """Audit ``entry`` (a :class:`ClassicEntry`, or its name or alias) built for ``epsilon`` with
    the auditor's own search (module docstring); ``tighten``: the full budget for every finalist
    (:func:`dpquant.audit.audit_mechanism`)."""
    chosen = entry if isinstance(entry, ClassicEntry) else lookup(entry, "entry")
    eps = check_epsilon(epsilon)
    options = _audit_options(samples, seed, alpha, tighten)
    true_epsilon = chosen.true_epsilon(eps)
    mech = chosen.make(eps)
    start = time.perf_counter()
    report = audit_mechanism(mech, **options)
    seconds = time.perf_counter() - start
    event = None if report.witness is None else report.witness.event
    return SuiteRun(
        chosen.name,
        eps,
        status(chosen, eps),
        true_epsilon,
        report.violation,
        report.epsilon_lower_bound,
        report.samples_used,
        seconds,
        "" if event is None else event.kind,
        "" if event is None else event.describe(),
    )


__all__ = ["DRAW_LIMIT", "STATUSES", "SUITE_SAMPLES", "SuiteRun", "run_entry", "status"]
