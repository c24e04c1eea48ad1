"""Every rule of an audit's draw budget, in one module: how many draws each stage gets.

**The budget of a default audit** (``samples`` draws per data set for each finalist,
:func:`plan_budget`): each finalist's draws split into selection (:func:`selection_size`,
:data:`SELECTION_FRACTION`, at most :data:`SELECT_MAX`) and evaluation
(:func:`evaluation_size`); a finalist whose search already shows a clear violation gets only what
that needs (:func:`finalist_budget`, :func:`cut_budget`), in rounds of growing budget
(:func:`round_plan`).

**A total budget of draws** (``max_draws``): how an audit splits it between search and evaluation.

An audit given ``max_draws`` draws at most that many samples of the mechanism in all (the hang
test of a draw that overruns the time limit aside: :mod:`dpquant.audit.pipeline.hang_check`). Half goes to the
black-box search (:data:`SEARCH_SHARE`, at most :data:`SEARCH_MAX`; each screen at most
:data:`SCREEN_MAX` draws a side, so that memory stays bounded): the crash scan (whose pairs end the search when the best
of them shows a clear violation, :data:`CRASH_SCREENS`), then three screens by successive halving
(:func:`screen_sizes`) of a small family of shapes (:func:`dpquant.audit.pipeline.context.budget_family`), and no
local search. What is left goes to one finalist in one round with all of α, as with ``tighten``:
its event is chosen on the draws of its last screen, so every draw left evaluates it
(:func:`final_samples`), unless its last screen already shows a clear violation and the audit is
not to ``tighten``: then it gets what that needs (:func:`cut_budget`). An audit
whose finalist comes from the exact laws draws its selection from what is left as well.

Why (``notes/auditor.md``, "A total budget of draws"): the default black-box search of the
exponential-mechanism median (ε = 1) spends 1.5–9.5 M draws on a local search that refines the
probe grid until it meets a *rank shift*; a few hundred draws a side cannot tell its best pairs
(loss 0.93, on an event of mass 7 %) from pairs of loss 0.75 among the hundreds of the full
family, and a penalised score prefers the latter's larger events. So a budgeted search screens
only the shapes where the worst pairs of a statistic of ranks lie, a quarter of which are near
the worst case, and scores the candidates of each screen by cross-fitting (the event chosen on
one half of the draws counted on the other, with no penalty:
:func:`dpquant.audit.pipeline.stage2_screening._held_out`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dpquant.audit.statistics.bounds import samples_needed
from dpquant.errors import ParameterError
from dpquant.reference.core import PrivacyClaim

SELECTION_FRACTION = 0.3
"""The share of a finalist's draws used to choose its event (the rest evaluate it)."""
SELECT_MAX = 1 << 22
"""The most selection draws per side a finalist is given: a larger budget goes to evaluation
(beyond a few million draws a better choice of event gains less than a tighter count does)."""
MIN_BUDGET = 4_000
"""The fewest draws per side a finalist is given."""
BUDGET_SAFETY = 4
"""A clear violation gets this many times the draws its event needs to exceed the claim."""

SEARCH_SHARE = 0.5
"""The share of ``max_draws`` the black-box search may spend (the crash scan included)."""
SEARCH_MAX = 10**8
"""The most draws the search may spend, whatever the budget: beyond a few million draws a side
a screen chooses its pair no better, and a budget of 10^12 draws would otherwise screen a few
hundred candidates with millions of draws each before its first verdict; the rest of a large
budget evaluates the finalist."""
SCREEN_SHARES = (0.5, 0.3, 0.2)
"""How the search's draws are split between its three screens (all candidates, the best
``SCREEN_TOPS[0]``, the best ``SCREEN_TOPS[1]``; each cross-fitted)."""
SCREEN_TOPS = (8, 2)
"""Candidates kept after the first and after the second screen."""
MIN_SCREEN = 16
"""The fewest draws per side of a screen."""
CRASH_SCREENS = (50, 500)
"""Draws per side of the two screens of the crash scan's pairs (all of them, then the best
:data:`dpquant.audit.pipeline.stage2_screening.CRASH_TOP`), which end the search when the best shows a clear violation:
a pair whose atoms differ (a raise on one side only) shows it in a few hundred draws, and on the
thousands of records of such a pair each draw of a slow library costs milliseconds."""
SCREEN_MAX = 1 << 22
"""The most draws per side of one candidate in one screen (as the selection draws of the default
audit, :data:`SELECT_MAX`): a screen holds its draws, so a larger budget goes to the
evaluation, which is counted block by block in bounded memory."""
BUDGET_FINALISTS = 1
"""Finalists of a budgeted audit: one, which gets every draw the search leaves (a second would
cost selection draws and ranking draws out of its evaluation)."""


@dataclass(frozen=True)
class DrawBudget:
    """The draws of one audit, as planned before its first draw (:func:`plan_budget`).

    Attributes:
        samples: Draws per data set of each finalist (selection and evaluation); with
            ``max_draws``, what the search is planned to leave, replaced once when the search
            has ended (:func:`fit_final`).
        max_draws: The total budget of draws, or None.
        full: Spend every draw of ``samples`` even after a clear violation (the audit's
            ``tighten``).
    """

    samples: int
    max_draws: int | None = None
    full: bool = False

    @property
    def one_round(self) -> bool:
        """Whether the audit evaluates in a single round with one finalist (a tightening or a
        budgeted audit)."""
        return self.full or self.max_draws is not None

    @property
    def selection(self) -> int:
        """Selection draws per side of a finalist given :attr:`samples`."""
        return selection_size(self.samples)

    @property
    def evaluation(self) -> int:
        """Evaluation draws per side of a finalist (:func:`evaluation_size`)."""
        return evaluation_size(self.samples, self.max_draws is not None)


def plan_budget(samples: int | None, max_draws: int | None, full: bool, default: int) -> DrawBudget:
    """The budget of an audit from its checked arguments: ``samples`` (``default`` when None),
    or, with a total budget ``max_draws``, the draws per data set that the search's share
    (:func:`search_draws`) leaves to the final stage (:func:`final_samples`) until the search
    has ended.

    Args:
        samples: Draws per data set of each finalist, or None.
        max_draws: The total budget, or None (not both with ``samples``: checked by the caller).
        full: The audit's ``tighten``.
        default: The draws per data set of a default audit.

    Returns:
        The plan.
    """
    if max_draws is not None:
        return DrawBudget(final_samples(max_draws - search_draws(max_draws)), max_draws, full)
    return DrawBudget(default if samples is None else samples, None, full)


def fit_final(
    budget: DrawBudget,
    used: int,
    prior: tuple[float, float] | None,
    claim: PrivacyClaim,
    alpha_eval: float,
) -> DrawBudget:
    """A budgeted audit's final stage: the draws per data set that what is left of
    ``max_draws`` after the search's ``used`` draws pays for (:func:`final_samples`), or, when
    the finalist's last screen already shows a clear violation (its event's masses ``prior``)
    and the audit is not to spend it all, what that violation needs (:func:`cut_budget`).

    Args:
        budget: The audit's budget (with ``max_draws``).
        used: Draws made by the search.
        prior: The finalist's event masses on D and D' from its screens, or None (no finalist).
        claim: The claim audited.
        alpha_eval: The level of the finalist's bound.

    Returns:
        The budget with its final :attr:`DrawBudget.samples`.

    Raises:
        ValueError: ``max_draws`` leaves fewer than 20 draws for the final stage.
    """
    if budget.max_draws is None:
        raise ParameterError("budget", "must have max_draws to be fitted after the search")
    fitted = replace(budget, samples=final_samples(budget.max_draws - used))
    if not budget.full and prior is not None:
        fitted = replace(fitted, samples=cut_budget(fitted.samples, prior, claim, alpha_eval))
    return fitted


def selection_size(budget: int) -> int:
    """Selection draws per side out of a finalist's ``budget``: :data:`SELECTION_FRACTION` of it,
    at most :data:`SELECT_MAX`."""
    return min(SELECT_MAX, max(1, int(round(budget * SELECTION_FRACTION))))


def evaluation_size(samples: int, budgeted: bool) -> int:
    """Evaluation draws per side of a finalist: what its selection leaves, or, with a total
    budget, all its draws (its event is chosen on its last screen's)."""
    if budgeted:
        return samples
    return max(1, samples - selection_size(samples))


def round_plan(samples: int, budgets: list[int]) -> list[list[int]]:
    """The rounds' draws per side for each finalist (at most
    :data:`dpquant.audit.pipeline.plan.ROUNDS`).

    When the search predicts a clear violation (some planned budget below ``samples``), every
    finalist gets that smallest budget in a first round, and, if that round shows no violation,
    the full ``samples`` in a second: a prediction that was wrong (screening misled by an event
    that fits its own draws) costs draws, never power. Otherwise an eighth of ``samples`` first
    (when that is at least :data:`MIN_BUDGET`), then all of it."""
    full = [samples] * len(budgets)
    if min(budgets) < samples:  # a clear violation: the others need not be tighter than it
        return [[min(budgets)] * len(budgets), full]
    if samples >= 8 * MIN_BUDGET:
        return [[max(MIN_BUDGET, samples // 8)] * len(budgets), full]
    return [full]


def finalist_budget(
    budget: DrawBudget, prior: tuple[float, float] | None, claim: PrivacyClaim, alpha_eval: float
) -> int:
    """Draws per side for a finalist: the full ``samples``, or, when the search already shows a
    clear violation, :data:`BUDGET_SAFETY` times the draws its event needs to exceed the claim
    (at least :data:`MIN_BUDGET`; :func:`cut_budget`). Chosen before any selection or evaluation
    draw is made. A single-round audit (tightening or budgeted) always gets the full
    ``samples``: the tightest bound rather than the quickest verdict."""
    if budget.one_round:
        return budget.samples
    return cut_budget(budget.samples, prior, claim, alpha_eval)


def cut_budget(
    samples: int, prior: tuple[float, float] | None, claim: PrivacyClaim, alpha_eval: float
) -> int:
    """:data:`BUDGET_SAFETY` times the draws per side the event found by the search (its masses
    ``prior``) needs to exceed the claim, at least :data:`MIN_BUDGET` and at most ``samples``;
    the full ``samples`` when there is no such event or not even ``samples`` would do."""
    if prior is None:
        return samples
    needed = samples_needed(*prior, claim.epsilon, claim.delta, alpha_eval, limit=samples)
    if needed is None:
        return samples
    return int(min(samples, max(MIN_BUDGET, BUDGET_SAFETY * needed)))


def final_samples(draws: int) -> int:
    """Draws per data set of the one finalist that ``draws`` left pay for (half a side); a
    ``ValueError`` when that is fewer than 10."""
    samples = draws // 2
    if samples < 10:
        raise ParameterError(
            "max_draws", f"leaves {draws} draws for the final stage, fewer than the 20 it needs: raise max_draws"
        )
    return samples


def search_draws(max_draws: int) -> int:
    """Draws the black-box search of a ``max_draws`` audit may spend: :data:`SEARCH_SHARE` of
    it, at most :data:`SEARCH_MAX`."""
    return min(SEARCH_MAX, int(max_draws * SEARCH_SHARE))


def screen_sizes(left: int, count: int) -> list[tuple[int, int]]:
    """The screens of a budgeted search over ``count`` candidates with ``left`` draws: (how many
    candidates, draws per side) for each, keeping the best :data:`SCREEN_TOPS` after the first
    and the second; a screen that would keep as many as the one before is merged into it (its
    share of the draws with it). Each screen draws at least :data:`MIN_SCREEN` and at most
    :data:`SCREEN_MAX` a side."""
    if count < 1:
        return []
    tops = [count, *(min(count, t) for t in SCREEN_TOPS)]
    merged: list[tuple[int, float]] = []
    for n, share in zip(tops, SCREEN_SHARES, strict=True):
        if merged and merged[-1][0] == n:
            merged[-1] = (n, merged[-1][1] + share)
        else:
            merged.append((n, share))
    return [
        (n, min(SCREEN_MAX, max(MIN_SCREEN, int(share * max(0, left)) // (2 * n))))
        for n, share in merged
    ]


__all__ = [
    "BUDGET_FINALISTS",
    "BUDGET_SAFETY",
    "MIN_BUDGET",
    "SELECTION_FRACTION",
    "SELECT_MAX",
    "DrawBudget",
    "cut_budget",
    "evaluation_size",
    "finalist_budget",
    "fit_final",
    "plan_budget",
    "round_plan",
    "selection_size",
    "CRASH_SCREENS",
    "MIN_SCREEN",
    "SCREEN_MAX",
    "SCREEN_SHARES",
    "SCREEN_TOPS",
    "SEARCH_MAX",
    "SEARCH_SHARE",
    "final_samples",
    "screen_sizes",
    "search_draws",
]
