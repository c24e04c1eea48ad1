"""Where a budgeted audit of the EM median loses its best pairs (issue 39, item 3).

A budgeted audit (``max_draws``, :mod:`dpquant.audit.pipeline.budget`) screens the pairs of its
family by successive halving, keeps one finalist and evaluates the finalist's event on what the
search left. This study runs the pure black-box audit of the exponential-mechanism median
(outputs in (0, 1), replace-one) on many seeds, records every screen's candidates and which of
them it kept, and judges each candidate by its exact laws: its *promise* is the bound its best
likelihood-ratio event gives at the expected Poisson counts of the evaluation
(:func:`dpquant.audit.statistics.poisson_counts.poisson_expected_bound`, at the evaluation's
draws a side and the audit's level), the most any event of that pair can be expected to give
there. A pair is *good* when its promise reaches the target (0.8·ε). Each seed that falls short
of the target is then put in one class:

* ``screen <j>``: screen j kept no good pair, though it was given one (lost in the search);
* ``last choice``: the last screen had a good pair but chose another;
* ``evaluation``: the finalist is good, and its event or its counts fell short (the chosen event
  is not the pair's best, or the counts fluctuated below their promise);
* ``no good pair screened``: the family held no good pair.

What it found (``notes/auditor.md``, "Where the search loses its good pairs", seeds 0–129), when
the first screen ranked by in-sample scores: at ε = 1, 129 seeds reached the target and one lost
its good pairs in the second screen; at ε = 0.5, 32 reached it, the first screen (about 600 draws
a side for each of 211 pairs, 9 % of them good) kept no good pair on 52, and of the 51 seeds
whose finalist was good only 24 reached it. Since the first screen is cross-fitted: 130 and 42
seeds, and at ε = 0.5 still only 33 of the 55 seeds with a good finalist: with half the budget
on the search, no search would meet the target at ε = 0.5.

The screens are recorded by wrapping the search's screening function for the length of one audit
(:func:`recording_screens`): the study reads the search, it does not change it (the reports are
those of the same audits without it).

Run: ``.venv/bin/python benchmarks/study_budget_screens.py [--epsilons 1 0.5] [--seeds 130]
[--first-seed 0] [--budget 1000000]`` (about 6 minutes an ε on one core).
"""

from __future__ import annotations

import argparse
import contextlib
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import dpquant.audit.pipeline.stage2_screening as screening
from dpquant.audit import audit_mechanism
from dpquant.audit.model.limits import MAX_MAX_DRAWS, MIN_MAX_DRAWS
from dpquant.audit.pipeline.stage3_evaluation import POISSON_TAIL_SHARE
from dpquant.audit.statistics.poisson_counts import poisson_expected_bound, poisson_rate
from dpquant.audit.statistics.power import cell_masses
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

ALPHA = 1e-6
"""The audit's default α (a budgeted audit gives all of it to its one finalist)."""
TIGHT = 0.8
"""The tightness asked for: a pair is good when its promise reaches TIGHT·ε."""


@dataclass(frozen=True)
class Screen:
    """One screen of a budgeted search: its candidates' promises (divided by ε), in the order
    screened, the index of the best by the screen's own scores, and its draws a side."""

    promises: tuple[float, ...]
    best: int
    size: int


@dataclass(frozen=True)
class SeedOutcome:
    """One audit: its tightness (ε_lb/ε), its screens, and where it fell short (None when it
    reached the target)."""

    seed: int
    tightness: float
    screens: tuple[Screen, ...]
    lost: str | None


def pair_promise(mech: Any, d0: np.ndarray, d1: np.ndarray, n: int, alpha: float) -> float:
    """The best bound any likelihood-ratio event of (d0, d1) gives at the expected Poisson counts
    of ``n`` evaluation draws a side, at the level a budgeted audit's finalist is bounded at
    (α less twice the counts' cap share, as :func:`dpquant.audit.pipeline.stage3_evaluation.
    counts_poisson` counts them); −inf when no event has a bound."""
    masses = cell_masses(mech.exact(np.asarray(d0, float)), mech.exact(np.asarray(d1, float)))
    if masses is None:
        raise ValueError("the two exact laws are of different kinds")
    tail = alpha * POISSON_TAIL_SHARE
    rate, level = poisson_rate(n, tail), alpha - 2 * tail
    best = -math.inf
    for a, b in (masses, masses[::-1]):
        keep = (a > 0) | (b > 0)
        a, b = a[keep], b[keep]
        with np.errstate(divide="ignore"):
            order = np.argsort(np.log(b) - np.log(a), kind="stable")
        tops, bottoms = np.minimum(np.cumsum(a[order]), 1.0), np.minimum(np.cumsum(b[order]), 1.0)
        for p0, p1 in zip(tops.tolist(), bottoms.tolist(), strict=True):
            if p0 > 0:
                best = max(best, poisson_expected_bound(p0, p1, rate, level))
    return best


@contextlib.contextmanager
def recording_screens() -> Iterator[list[tuple[list[Any], list[Any], int]]]:
    """Within the block, every screen of the black-box search is recorded as (candidates, their
    scores, draws a side); the screening function is restored after."""
    original = screening._screen
    seen: list[tuple[list[Any], list[Any], int]] = []

    def record(
        ctx: Any, candidates: list[Any], size: int = screening.SCREEN_SAMPLES, *args: Any, **kw: Any
    ) -> Any:
        scores = original(ctx, candidates, size, *args, **kw)
        seen.append((list(candidates), list(scores), size))
        return scores

    screening._screen = record
    try:
        yield seen
    finally:
        screening._screen = original


def classify(tightness: float, screens: Sequence[Screen]) -> str | None:
    """Where an audit that fell short of :data:`TIGHT` lost (module docstring); None when it
    reached it.

    Args:
        tightness: ε_lb/ε.
        screens: The search's screens, in order (each keeping what the next screens).

    Returns:
        ``"screen <j>"`` (1-based), ``"last choice"``, ``"evaluation"``, ``"no good pair
        screened"``, or None.
    """
    if tightness >= TIGHT:
        return None
    if not screens:
        raise ValueError(
            "screens must hold the search's screens: an audit with none cannot be placed"
        )
    for j, (this, after) in enumerate(zip(screens, screens[1:], strict=False), start=1):
        if max(this.promises) >= TIGHT and max(after.promises) < TIGHT:
            return f"screen {j}"
    last = screens[-1]
    if max(last.promises) < TIGHT:
        return "no good pair screened"
    return "evaluation" if last.promises[last.best] >= TIGHT else "last choice"


def _successive(
    seen: list[tuple[list[Any], list[Any], int]],
) -> list[tuple[list[Any], list[Any], int]]:
    """The successive-halving screens among those recorded: the last screen and, going back,
    each screen whose candidates include all of the next one's (the crash scan's own screens,
    when there are any, come before them and screen other pairs)."""
    chain = [seen[-1]] if seen else []
    for screen in reversed(seen[:-1]):
        if not {c.key for c in chain[0][0]} <= {c.key for c in screen[0]}:
            break
        chain.insert(0, screen)
    return chain


def run_seed(
    mech: Any, epsilon: float, seed: int, budget: int, cache: dict[Any, float]
) -> SeedOutcome:
    """One budgeted audit with its screens recorded and judged (promises cached by pair)."""
    with recording_screens() as seen:
        report = audit_mechanism(mech, seed=seed, max_draws=budget, mode="blackbox", workers=1)
    n = budget // 4  # the evaluation's draws a side: half of the budget, split between D and D'
    chain = _successive(seen)
    screens = []
    for candidates, scores, size in chain:
        promises = []
        for c in candidates:
            if c.key not in cache:
                cache[c.key] = pair_promise(mech, c.d0, c.d1, n, ALPHA) / epsilon
            promises.append(cache[c.key])
        best = max(range(len(scores)), key=lambda i: scores[i].expected)  # the first best
        screens.append(Screen(tuple(promises), best, size))
    tightness = report.epsilon_lower_bound / epsilon
    return SeedOutcome(seed, tightness, tuple(screens), classify(tightness, screens))


def study(epsilon: float, seeds: range, budget: int) -> Counter[str]:
    """One ε over ``seeds``: prints a line a seed and the classes' counts."""
    mech = ExponentialQuantile(0.5, epsilon, (0.0, 1.0))
    cache: dict[Any, float] = {}
    classes: Counter[str] = Counter()
    for seed in seeds:
        out = run_seed(mech, epsilon, seed, budget, cache)
        classes[out.lost or "reached"] += 1
        shown = ", ".join(
            f"{len(s.promises)}×{s.size}: best {max(s.promises):.3f}, chosen {s.promises[s.best]:.3f}"
            for s in out.screens
        )
        print(
            f"eps={epsilon:g} seed {seed}: {out.tightness:.4f}·eps ({out.lost or 'reached'}); {shown}",
            flush=True,
        )
    print(
        f"eps={epsilon:g}, {len(seeds)} seeds: "
        + ", ".join(f"{k} {v}" for k, v in sorted(classes.items())),
        flush=True,
    )
    return classes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 0.5])
    parser.add_argument("--seeds", type=int, default=130)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    if (
        not all(math.isfinite(e) and e > 0 for e in args.epsilons)
        or args.seeds < 1
        or args.first_seed < 0
        or not MIN_MAX_DRAWS <= args.budget <= MAX_MAX_DRAWS
    ):
        parser.error(
            "epsilons must be positive and finite, --seeds at least 1, --first-seed at least 0, "
            f"--budget in [{MIN_MAX_DRAWS}, {MAX_MAX_DRAWS}] (an audit's max_draws)"
        )
    for epsilon in args.epsilons:
        study(epsilon, range(args.first_seed, args.first_seed + args.seeds), args.budget)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
