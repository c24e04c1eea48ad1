"""An audit within a time budget, and still sound.

Stopping an audit when its time runs out would make the number of evaluation draws depend on how
the draws went (a sampler slower on some outputs stops the count there), and the Clopper–Pearson
bound holds for a number of draws fixed in advance. So a time budget is turned into a budget of
draws before any draw is counted (:func:`audit_within`):

1. a **pilot** audit with the smallest total budget (:data:`dpquant.audit.model.limits.MIN_MAX_DRAWS`
   draws) measures how many draws a second the whole audit of this mechanism makes — search,
   selection, evaluation and the auditor's own work included. It draws with a seed of its own
   (:func:`pilot_seed`), so that its draws, and the time they took, are independent of the main
   audit's draws: the main audit's number of draws is then independent of its outcomes, as its
   bound requires;
2. the time left, times that rate and :data:`SAFETY`, is the total budget ``max_draws`` of the
   **main** audit (none when it would not exceed the pilot's).

Each audit is run at ``alpha / 2``, so that the verdict is sound at ``alpha`` whichever of the
two reports is returned (a union bound): the pilot's when it found a violation, when it could
not look (inconclusive, a draw over the time limit), or when the budget leaves no room for a
larger audit; else the main audit's. The report returned says so in its ``notes`` (the budget,
the pilot's draws and seconds, the draws granted, the two levels). A budget is a target, not a
deadline: the rate is measured once, so an audit whose later stages are slower per draw than
its pilot's can overrun it (a mechanism whose draws hang is for ``timeout`` to judge).
"""

from __future__ import annotations

import math
import time
from typing import Any

from dpquant.audit.model.limits import (
    MAX_MAX_DRAWS,
    MAX_SEED,
    MAX_TIME_BUDGET,
    MIN_ALPHA,
    MIN_MAX_DRAWS,
    MIN_TIME_BUDGET,
)
from dpquant.audit.pipeline.runner import audit_mechanism
from dpquant.audit.report.result import AuditReport
from dpquant.reference.validation import check_int, check_positive, check_probability

SAFETY = 0.8
"""The share of the measured rate granted to the main audit (its fixed costs, and the day's
noise of a shared machine)."""
CI_TIME_BUDGET = 30.0
"""The CI profile's time budget per audit, in seconds (``pytest -m audit --audit-time-budget
30``): under it every known-bad entry of :mod:`dpquant.audit.suites.catalogue` and every incorrect
mechanism of the classic suite at ε = 0.5 is flagged, and a per-draw Python exponential-mechanism
median is audited within 30 s on 2 cores (``benchmarks/bench_ci_profile.py``; the figures in
``notes/benchmarks.md``)."""
SIZING = ("samples", "max_draws")
"""The keywords that size an audit themselves (not with a time budget)."""


def check_time_budget(seconds: Any, name: str = "time_budget") -> float:
    """Check a time budget.

    Args:
        seconds: The budget, in [:data:`MIN_TIME_BUDGET`, :data:`MAX_TIME_BUDGET`].
        name: The argument named in the error.

    Returns:
        The budget as a float.

    Raises:
        ValueError: naming ``name`` and the allowed range.
    """
    value = check_positive(seconds, name)
    if not MIN_TIME_BUDGET <= value <= MAX_TIME_BUDGET:
        raise ValueError(
            f"{name} must lie in [{MIN_TIME_BUDGET:g}, {MAX_TIME_BUDGET:g}] seconds, got {seconds!r}"
        )
    return float(value)


def granted_draws(seconds: float, pilot_seconds: float, pilot_draws: int) -> int | None:
    """The total budget of draws of the main audit.

    Args:
        seconds: The whole time budget.
        pilot_seconds: The time the pilot took.
        pilot_draws: The draws the pilot made.

    Returns:
        The time left after the pilot, at :data:`SAFETY` times the pilot's rate, within
            [:data:`MIN_MAX_DRAWS`, :data:`MAX_MAX_DRAWS`]; None when it would not exceed the
            pilot's draws (the pilot's report is then the answer).
    """
    left = seconds - pilot_seconds
    if left <= 0 or pilot_draws <= 0:
        return None
    rate = pilot_draws / max(pilot_seconds, 1e-9)
    draws = math.floor(SAFETY * left * rate)
    if draws <= max(pilot_draws, MIN_MAX_DRAWS):
        return None
    return min(draws, MAX_MAX_DRAWS)


def pilot_seed(seed: int) -> int:
    """The pilot's seed, distinct from the main audit's, so that the two draw independent
    streams.

    Args:
        seed: The audit's seed.

    Returns:
        ``seed`` with its top bit (of :data:`dpquant.audit.model.limits.MAX_SEED`'s 128) flipped.
    """
    return seed ^ (1 << 127)


def audit_within(mech: Any, seconds: float, **options: Any) -> AuditReport:
    """Audit ``mech`` within about ``seconds`` (module docstring): a pilot audit, then a main
    audit sized by its measured rate, each at ``alpha / 2``.

    Args:
        mech: a mechanism, as for :func:`dpquant.audit.audit_mechanism`.
        seconds: the time budget, in [:data:`MIN_TIME_BUDGET`, :data:`MAX_TIME_BUDGET`].
        **options: :func:`dpquant.audit.audit_mechanism`'s keywords, but ``samples`` and
            ``max_draws`` (the budget sizes the audit); ``alpha`` (default 1e-6) is the level of
            the verdict returned.

    Returns:
        The report returned (the pilot's or the main audit's), its ``notes`` saying which and why.

    Raises:
        ValueError: naming ``seconds``, or a keyword that sizes the audit itself, or as
            :func:`dpquant.audit.audit_mechanism` raises.
    """
    seconds = check_time_budget(seconds, "seconds")
    sized = sorted(k for k in SIZING if options.pop(k, None) is not None)  # None: the default
    if sized:
        raise ValueError(
            f"a time budget sizes the audit itself: drop {', '.join(sized)} (or the time budget)"
        )
    alpha = check_probability(options.pop("alpha", 1e-6), "alpha", open_left=True, open_right=True)
    if alpha < 2 * MIN_ALPHA:
        raise ValueError(
            f"alpha must lie in [{2 * MIN_ALPHA:g}, 1) with a time budget (each of its two "
            f"audits runs at alpha / 2), got {alpha!r}"
        )
    half = alpha / 2
    seed = check_int(options.pop("seed", 0), "seed", minimum=0, maximum=MAX_SEED)
    start = time.perf_counter()
    pilot = audit_mechanism(
        mech, max_draws=MIN_MAX_DRAWS, alpha=half, seed=pilot_seed(seed), **options
    )
    pilot_seconds = time.perf_counter() - start
    head = (
        f"time budget {seconds:g} s: a pilot audit of {pilot.samples_used:,} draws (seed "
        f"{pilot.seed}) took {pilot_seconds:.1f} s"
    )
    level = f"each audit at alpha/2 = {half:g}, so this verdict holds at alpha = {alpha:g}"
    stop = pilot.violation or pilot.inconclusive is not None or pilot.timed_out is not None
    draws = None if stop else granted_draws(seconds, pilot_seconds, pilot.samples_used)
    if draws is None:
        why = (
            "it found a violation"
            if pilot.violation
            else "it could not conclude"
            if stop
            else "the time left allows no larger audit"
        )
        pilot.notes.append(f"{head}; this is the pilot's report ({why}); {level}")
        return pilot
    main = audit_mechanism(mech, max_draws=draws, alpha=half, seed=seed, **options)
    main.notes.append(
        f"{head}; this audit was granted max_draws = {draws:,} (the time left at "
        f"{SAFETY:g} of the pilot's rate) and took {main.seconds:.1f} s; {level}"
    )
    return main


__all__ = [
    "CI_TIME_BUDGET",
    "SAFETY",
    "SIZING",
    "audit_within",
    "check_time_budget",
    "granted_draws",
    "pilot_seed",
]
