"""``benchmarks/study_budget_screens.py`` (where a budgeted audit of the EM median loses its best
pairs): its classes are the right ones on constructed screens, a pair's promise is the best of
its events' bounds, and on a seeded audit the recorded screens are the search's and leave its
report unchanged."""

from __future__ import annotations

import math

import numpy as np
import pytest
from benchmark_scripts import load_script

from dpquant.audit import audit_mechanism
from dpquant.audit.pipeline import stage2_screening
from dpquant.audit.pipeline.budget import screen_sizes
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

study = load_script("study_budget_screens")
Screen = study.Screen


def test_a_seed_that_falls_short_is_placed_where_its_good_pairs_were_lost() -> None:
    first = Screen((0.5, 0.85, 0.6, 0.7), best=0, size=100)
    kept_good = Screen((0.85, 0.7), best=1, size=1_000)
    kept_bad = Screen((0.6, 0.7), best=1, size=1_000)
    last_good = Screen((0.85,), best=0, size=5_000)
    assert study.classify(0.81, [first, kept_bad]) is None
    assert study.classify(0.7, [first, kept_bad]) == "screen 1"
    assert study.classify(0.7, [first, kept_good, Screen((0.7,), 0, 5_000)]) == "screen 2"
    assert study.classify(0.7, [first, kept_good]) == "last choice"
    assert study.classify(0.7, [first, kept_good, last_good]) == "evaluation"
    assert study.classify(0.7, [kept_bad]) == "no good pair screened"
    with pytest.raises(ValueError, match="screens"):
        study.classify(0.7, [])


def test_a_pairs_promise_is_the_best_bound_of_its_likelihood_ratio_events() -> None:
    """For a pair of point-mass-like laws the promise grows with the draws, stays below the
    exact loss, and a pair with no loss promises nothing above zero."""
    mech = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    d0, d1 = np.array([0.2, 0.4, 0.6]), np.array([0.2, 0.4, 0.9])
    small = study.pair_promise(mech, d0, d1, 10_000, study.ALPHA)
    large = study.pair_promise(mech, d0, d1, 1_000_000, study.ALPHA)
    assert 0 < small < large < 1.0
    same = study.pair_promise(mech, d0, d0, 1_000_000, study.ALPHA)
    assert same <= 0 or math.isinf(same)


def test_recorded_screens_are_the_searchs_and_leave_the_report_unchanged() -> None:
    mech = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    budget = 100_000
    plain = audit_mechanism(mech, seed=3, max_draws=budget, mode="blackbox", workers=1)
    screen = stage2_screening._screen
    out = study.run_seed(mech, 1.0, 3, budget, {})
    assert stage2_screening._screen is screen  # restored after the audit
    assert out.tightness == plain.epsilon_lower_bound / 1.0
    counts = [len(s.promises) for s in out.screens]
    assert counts[0] > counts[-1] >= 1
    assert counts == [n for n, _ in screen_sizes(budget // 2, counts[0])]
    assert out.lost == study.classify(out.tightness, out.screens)


@pytest.mark.parametrize(
    "argv",
    [
        ["--epsilons", "nan"],
        ["--epsilons", "inf"],
        ["--epsilons", "0"],
        ["--seeds", "0"],
        ["--first-seed", "-1"],
        ["--budget", "99999"],
        ["--budget", str(10**13)],
        ["--budget", "many"],
    ],
)
def test_the_study_refuses_bad_arguments_before_any_audit(argv, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        study.main(argv)
    assert exit_.value.code == 2
    assert "usage" in capsys.readouterr().err
