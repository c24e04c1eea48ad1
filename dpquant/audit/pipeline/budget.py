"""A total budget of draws (``max_draws``): how an audit splits it between search and evaluation.

An audit given ``max_draws`` draws at most that many samples of the mechanism in all (the hang
test of a draw that overruns the time limit aside: :mod:`dpquant.audit.pipeline.hang_check`). Half goes to the
black-box search (:data:`SEARCH_SHARE`, at most :data:`SEARCH_MAX`; each screen at most
:data:`SCREEN_MAX` draws a side, so that memory stays bounded): the crash scan (whose pairs end the search when the best
of them shows a clear violation, :data:`CRASH_SCREENS`), then three screens by successive halving
(:func:`screen_sizes`) of a small family of shapes (:func:`dpquant.audit.pipeline.context.budget_family`), and no
local search. What is left goes to one finalist in one round with all of α, as with ``tighten``:
its event is chosen on the draws of its last screen, so every draw left evaluates it
(:func:`final_samples`), unless its last screen already shows a clear violation and the audit is
not to ``tighten``: then it gets what that needs (:func:`dpquant.audit.pipeline.stage3_evaluation.cut_budget`). An audit
whose finalist comes from the exact laws draws its selection from what is left as well.

Why (``notes/auditor.md``, "A total budget of draws"): the default black-box search of the
exponential-mechanism median (ε = 1) spends 1.5–9.5 M draws on a local search that refines the
probe grid until it meets a *rank shift*; a few hundred draws a side cannot tell its best pairs
(loss 0.93, on an event of mass 7 %) from pairs of loss 0.75 among the hundreds of the full
family, and a penalised score prefers the latter's larger events. So a budgeted search screens
only the shapes where the worst pairs of a statistic of ranks lie, a quarter of which are near
the worst case, and compares its last two candidates without the penalty.
"""

from __future__ import annotations

SEARCH_SHARE = 0.5
"""The share of ``max_draws`` the black-box search may spend (the crash scan included)."""
SEARCH_MAX = 10**8
"""The most draws the search may spend, whatever the budget: beyond a few million draws a side
a screen chooses its pair no better, and a budget of 10^12 draws would otherwise screen a few
hundred candidates with millions of draws each before its first verdict; the rest of a large
budget evaluates the finalist."""
SCREEN_SHARES = (0.5, 0.3, 0.2)
"""How the search's draws are split between its three screens (all candidates, the best
``SCREEN_TOPS[0]``, the best ``SCREEN_TOPS[1]``)."""
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
audit, :data:`dpquant.audit.pipeline.context.SELECT_MAX`): a screen holds its draws, so a larger budget goes to the
evaluation, which is counted block by block in bounded memory."""
BUDGET_FINALISTS = 1
"""Finalists of a budgeted audit: one, which gets every draw the search leaves (a second would
cost selection draws and ranking draws out of its evaluation)."""


def final_samples(draws: int) -> int:
    """Draws per data set of the one finalist that ``draws`` left pay for (half a side); a
    ``ValueError`` when that is fewer than 10."""
    samples = draws // 2
    if samples < 10:
        raise ValueError(
            f"max_draws leaves {draws} draws for the final stage, fewer than the 20 it needs: "
            "raise max_draws"
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
