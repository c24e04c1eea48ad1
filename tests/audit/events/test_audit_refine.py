"""dpquant/audit/events/refine.py: the best interval refined on a large selection sample (its ends searched again
within one grid step, on the same draws)."""

from __future__ import annotations

import numpy as np
import pytest

from dpquant.audit.events.families import Event, Families, Scored, best_event
from dpquant.audit.events.refine import LARGE_Z, REFINE_FROM, refine_interval, selection_z
from dpquant.audit.model.outputs import normalise
from dpquant.audit.statistics.bounds import SELECTION_Z

N = REFINE_FROM
ALPHA = 1e-6 / 4


def _uniform_pair(shift: float, seed: int = 0):
    """U(0, 1) on D and U(shift, 1 + shift) on D': the best event is {y <= shift}, where D'
    never lands (an infinite log-ratio), of mass ``shift`` on D."""
    rng = np.random.default_rng(seed)
    a = normalise(rng.uniform(0.0, 1.0, N), N)
    b = normalise(rng.uniform(shift, 1.0 + shift, N), N)
    return a, b


def test_the_end_of_the_best_interval_moves_to_where_the_loss_changes() -> None:
    """Shift 0.0105: the grid's tail levels put the end at about 0.0078 (D's mass 0.78 %, none of
    D'; seen: 0.00784) or 0.013 (with D' draws); refined, the end is within a fine step below
    0.0105 (seen: 0.01033), with about a third more of D's mass and still no draw of D'."""
    a, b = _uniform_pair(0.0105)
    coarse = best_event(a, b, 10 * N, 0.0, ALPHA, Families(classifier=False), LARGE_Z)
    fine = refine_interval(coarse, a, b, 10 * N, 0.0, ALPHA)
    assert coarse.event.kind == fine.event.kind == "interval" and coarse.forward and fine.forward
    assert 0.0100 <= fine.event.hi <= 0.0105 and not 0.0100 <= coarse.event.hi <= 0.0105
    assert fine.p1 == 0.0 and fine.p0 > 1.2 * coarse.p0 > 0
    assert fine.expected > coarse.expected
    assert fine.event.projection == coarse.event.projection and fine.event.lo == coarse.event.lo


def test_the_refined_counts_are_the_events_own_counts() -> None:
    """The refinement counts each candidate by binary search on the sorted draws; the event it
    returns counts the same on the draws as its indicator does."""
    a, b = _uniform_pair(0.0105, seed=1)
    coarse = best_event(a, b, 10 * N, 0.0, ALPHA, Families(classifier=False), LARGE_Z)
    fine = refine_interval(coarse, a, b, 10 * N, 0.0, ALPHA)
    assert fine.p0 == np.count_nonzero(fine.event.indicator(a)) / N
    assert fine.p1 == np.count_nonzero(fine.event.indicator(b)) / N


@pytest.mark.parametrize("event", [
    Event("atom", atom="nan"),
    Event("interval", (), 0.0, 0.5, lattice=3),
])  # fmt: skip
def test_other_events_are_kept_as_they_are(event) -> None:
    a, b = _uniform_pair(0.0105)
    best = Scored(event, True, 0.1, 0.5, 0.4)
    assert refine_interval(best, a, b, N, 0.0, ALPHA) is best


def test_small_samples_are_not_refined() -> None:
    """Below REFINE_FROM draws a side the grid's steps are within the noise: no refinement."""
    rng = np.random.default_rng(2)
    a = normalise(rng.uniform(0.0, 1.0, 50_000), 50_000)
    b = normalise(rng.uniform(0.0105, 1.0105, 50_000), 50_000)
    coarse = best_event(a, b, 100_000, 0.0, ALPHA, Families(classifier=False))
    assert refine_interval(coarse, a, b, 100_000, 0.0, ALPHA) is coarse


def test_the_selection_level_is_stronger_on_a_large_sample() -> None:
    assert selection_z(REFINE_FROM - 1) == SELECTION_Z == 2.0
    assert selection_z(REFINE_FROM) == LARGE_Z == 4.0


def test_on_a_large_sample_the_chosen_event_of_report_noisy_max_3_has_mass() -> None:
    """ReportNoisyMax3 at ε = 0.1, ([1]×5, [0]×5), 2^20 selection draws a side: every interval
    below the answers has log-ratio exactly kε/2 = 0.25, and the choice at level LARGE_Z is one
    of them with mass (exact masses from the Laplace CDF: the max's CDF is the product), not a
    lucky sliver of the tail (at level 2 with 4.2 M draws: mass 10^-4 on one seed of three)."""
    from scipy.stats import laplace

    from dpquant.audit.pipeline.draws import DrawJob, draw
    from dpquant.audit.suites.classic import entry

    mech = entry("ReportNoisyMax3").make(0.1)
    d0, d1 = np.ones(5), np.zeros(5)
    a, b = draw(mech, [DrawJob(d0, N, (2, 0, 0, 0)), DrawJob(d1, N, (2, 0, 0, 1))], seed=2)
    n_eval = 600_000_000
    coarse = best_event(a, b, n_eval, 0.0, 0.1, Families(classifier=False), LARGE_Z)
    fine = refine_interval(coarse, a, b, n_eval, 0.0, 0.1)
    assert fine.event.kind == "interval"

    def mass(q: np.ndarray) -> float:
        cdf = [
            float(np.prod(laplace.cdf(t - q, scale=20.0))) for t in (fine.event.lo, fine.event.hi)
        ]
        return cdf[1] - cdf[0]

    p0, p1 = (mass(d0), mass(d1)) if fine.forward else (mass(d1), mass(d0))
    assert p0 > 0.005 and np.log(p0 / p1) > 0.24, (fine, p0, p1)
