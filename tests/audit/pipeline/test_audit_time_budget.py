"""dpquant.audit.pipeline.time_budget (issue 35): a time budget turned into a budget of draws before any
draw is counted, by a pilot audit, each of the two audits at alpha / 2."""

from __future__ import annotations

import math

import pytest

from dpquant.audit.model.limits import MAX_MAX_DRAWS, MAX_SEED, MIN_MAX_DRAWS
from dpquant.audit.model.wrap import from_callable
from dpquant.audit.pipeline.time_budget import (
    CI_TIME_BUDGET,
    SAFETY,
    audit_within,
    check_time_budget,
    granted_draws,
    pilot_seed,
)
from dpquant.audit.pytest_plugin import make_auditor
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.randomized_response import RandomizedResponse


def _leaky(data, rng):
    return float(data[0]) + 0.01 * rng.random()


LEAKY = from_callable(_leaky, PrivacyClaim(1.0, adjacency="local"), (0.0, 1.0))


def test_the_main_audit_is_granted_the_time_left_at_the_safety_share_of_the_pilots_rate() -> None:
    assert granted_draws(10.0, 1.0, 100_000) == math.floor(SAFETY * 9.0 * 100_000)
    assert granted_draws(100.0, 0.5, 100_000) == math.floor(SAFETY * 99.5 * 200_000)
    assert granted_draws(1e9, 1e-3, 100_000) == MAX_MAX_DRAWS


@pytest.mark.parametrize(
    ("seconds", "pilot_seconds", "pilot_draws"),
    [(2.0, 2.5, 100_000), (2.0, 2.0, 100_000), (2.0, 1.0, 100_000), (10.0, 1.0, 0)],
)
def test_no_main_audit_when_the_time_left_allows_none_larger_than_the_pilot(
    seconds: float, pilot_seconds: float, pilot_draws: int
) -> None:
    assert granted_draws(seconds, pilot_seconds, pilot_draws) is None


@pytest.mark.parametrize("bad", [0.5, 0.0, -3.0, 86_401.0, math.nan, math.inf, "10", True, None])
def test_a_time_budget_outside_one_second_to_one_day_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="budget"):
        check_time_budget(bad, "budget")


@pytest.mark.parametrize("seed", [0, 1, 2**127 - 1, 2**127, MAX_SEED])
def test_the_pilot_draws_with_a_seed_of_its_own(seed: int) -> None:
    """Distinct seeds: the pilot's draws (and so the time they took, which sizes the main audit)
    are independent of the main audit's draws, whose bound needs its size fixed in advance."""
    other = pilot_seed(seed)
    assert other != seed and 0 <= other <= MAX_SEED and pilot_seed(other) == seed


def test_a_correct_mechanism_gets_the_main_audit_at_half_alpha_and_says_so() -> None:
    report = audit_within(RandomizedResponse(1.0), 3.0, seed=7)
    assert not report.violation and report.alpha == pytest.approx(5e-7)
    assert f"(seed {pilot_seed(7)})" in report.notes[-1]
    note = report.notes[-1]
    assert note.startswith("time budget 3 s: a pilot audit of ")
    assert "alpha/2 = 5e-07" in note and "holds at alpha = 1e-06" in note
    if "granted max_draws" in note:
        granted = int(note.split("max_draws = ")[1].split(" ")[0].replace(",", ""))
        assert MIN_MAX_DRAWS < granted and report.samples_used <= granted
        assert report.seed == 7
    else:  # a slow machine: the pilot used the budget
        assert "the time left allows no larger audit" in note
        assert report.samples_used <= MIN_MAX_DRAWS


def test_a_leak_found_by_the_pilot_is_its_report_at_half_alpha() -> None:
    report = audit_within(LEAKY, 60.0, seed=0, alpha=1e-4)
    assert report.violation and report.alpha == pytest.approx(5e-5)
    assert report.samples_used <= MIN_MAX_DRAWS and report.seed == pilot_seed(0)
    assert "this is the pilot's report (it found a violation)" in report.notes[-1]


@pytest.mark.parametrize("sized", [{"samples": 1000}, {"max_draws": 200_000}])
def test_a_keyword_that_sizes_the_audit_is_refused_with_a_time_budget(sized: dict) -> None:
    with pytest.raises(ValueError, match="a time budget sizes the audit itself: drop"):
        audit_within(RandomizedResponse(1.0), 5.0, **sized)


def test_a_size_left_at_its_default_is_not_a_conflict() -> None:
    report = audit_within(RandomizedResponse(1.0), 1.0, samples=None, max_draws=None, mode="exact")
    assert "time budget 1 s" in report.notes[-1] and not report.violation


def test_an_alpha_whose_half_underflows_the_auditors_range_is_refused() -> None:
    with pytest.raises(ValueError, match=r"alpha must lie in \[2e-100, 1\) with a time budget"):
        audit_within(RandomizedResponse(1.0), 5.0, alpha=1e-100)


def test_the_plugins_time_budget_reaches_the_audit_and_a_tests_own_size_wins() -> None:
    dp_audit = make_auditor(
        {"samples": None, "max_draws": None, "time_budget": 2.0, "seed": 0, "timeout": None}
    )
    report = dp_audit(RandomizedResponse(1.0))
    assert report.notes[-1].startswith("time budget 2 s") and report.alpha == pytest.approx(5e-7)
    own = dp_audit(RandomizedResponse(1.0), samples=500)
    assert not any("time budget" in n for n in own.notes) and own.alpha == pytest.approx(1e-6)


# ---------------------------------------------------------------------------------------------
# the CI profile (CI_TIME_BUDGET): a seeded smoke version of benchmarks/bench_ci_profile.py, on
# the mechanisms whose leak the pilot finds (its draws are fixed, so the verdict does not depend
# on the machine's speed); the whole catalogue and suite, and the textbook median's time, are
# the benchmark's (figures in notes/benchmarks.md)

PROFILE_SMOKE_CATALOGUE = ("rr_wrong_flip", "em_underflow")
PROFILE_SMOKE_CLASSIC = ("NoisyHist2", "ReportNoisyMax4", "SparseVectorTechnique5")


@pytest.mark.audit
@pytest.mark.parametrize("name", PROFILE_SMOKE_CATALOGUE + PROFILE_SMOKE_CLASSIC)
def test_the_ci_profile_flags_known_bad_and_incorrect_mechanisms_in_its_pilot(name: str) -> None:
    from dpquant.audit.suites.catalogue import catalogue_entry
    from dpquant.audit.suites.classic import entry

    if name in PROFILE_SMOKE_CATALOGUE:
        mech = catalogue_entry(name).mechanism
    else:
        mech = entry(name).make(0.5)
    report = audit_within(mech, CI_TIME_BUDGET, seed=0)
    assert report.violation and report.alpha == 0.5e-6, report.summary()
    assert report.samples_used <= MIN_MAX_DRAWS
    assert any("this is the pilot's report (it found a violation)" in n for n in report.notes)


def test_the_ci_profile_is_the_documented_one() -> None:
    from pathlib import Path

    docs = (Path(__file__).parents[3] / "docs" / "auditor" / "index.md").read_text("utf-8")
    assert f"--audit-time-budget {CI_TIME_BUDGET:g}" in docs
