"""``benchmarks/study_budget_limit.py`` (how tight any audit of the EM median can be within a
budget of draws): its limit holds on the exact laws of the budgeted family and is attained there,
its exact reach probability agrees with seeded draws, and a failed claim makes the exit status 1."""

from __future__ import annotations

import numpy as np
import pytest
from benchmark_scripts import load_script

from dpquant.audit.pipeline.stage3_evaluation import POISSON_TAIL_SHARE
from dpquant.audit.statistics.bounds import epsilon_lower_bound
from dpquant.audit.statistics.poisson_counts import poisson_epsilon_lower_bound, poisson_rate

study = load_script("study_budget_limit")


def test_no_event_of_the_em_median_exceeds_the_limit_and_the_budgeted_family_attains_it() -> None:
    """Every likelihood-ratio event of every pair of the family at ε = 0.5 respects
    Pr[M(D) ∈ A] ≤ f(Pr[M(D′) ∈ A]), and the family's best expected bound at 250 000 draws a side
    is the limit's (0.786·ε, below 0.8·ε)."""
    excess, family = study.family_check(0.5, 250_000)
    limit, mass = study.limit_expected(0.5, 250_000)
    assert excess <= study.EXCESS_TOL
    assert limit - 0.0025 <= family <= limit + 1e-9
    assert 0.78 < limit / 0.5 < 0.79 and 0.05 < mass < 0.07


def test_the_limit_is_tighter_than_pure_dp_and_loses_almost_epsilon_on_rare_events() -> None:
    m = np.array([1e-6, 0.03, 0.3])
    f = study.limit_mass(m, 1.0)
    assert np.all(f <= np.e * m) and np.all(f >= m)
    assert np.log(f[0] / m[0]) > 1.0 - 1e-5 and np.log(f[2] / m[2]) < 0.6


def test_the_exact_reach_probability_agrees_with_seeded_draws() -> None:
    """20 000 seeded pairs of counts at 3 000 draws a side: the share whose bound reaches the
    target is within 6 standard deviations of the exact probability (a false failure has
    probability below 1e-8)."""
    p0, p1, n, target = 0.3, 0.12, 3_000, 0.6
    exact = study.reach_probability(p0, p1, n, n, target)
    rng = np.random.default_rng(39)
    k0, k1 = rng.binomial(n, p0, 20_000), rng.binomial(n, p1, 20_000)
    seen = float(np.mean(epsilon_lower_bound(k0, n, k1, n, 0.0, study.ALPHA) >= target))
    assert 0.05 < exact < 0.95
    assert abs(seen - exact) <= 6 * np.sqrt(exact * (1 - exact) / 20_000)


def test_the_poisson_reach_probability_agrees_with_seeded_draws() -> None:
    """As above for the counts a budgeted audit of a pure claim makes: 20 000 seeded pairs of
    capped Poisson counts at 3 000 draws a side, bounded by the conditional Clopper–Pearson bound
    at its level; and at the same masses it reaches the target more often than fixed counts."""
    p0, p1, n, target = 0.3, 0.12, 3_000, 0.6
    exact = study.poisson_reach_probability(p0, p1, n, target)
    rate = poisson_rate(n, study.ALPHA * POISSON_TAIL_SHARE)
    level = study.ALPHA * (1 - 2 * POISSON_TAIL_SHARE)
    rng = np.random.default_rng(40)
    k0 = rng.binomial(np.minimum(rng.poisson(rate, 20_000), n), p0)
    k1 = rng.binomial(np.minimum(rng.poisson(rate, 20_000), n), p1)
    seen = np.mean(
        [
            poisson_epsilon_lower_bound(int(a), int(b), level) >= target
            for a, b in zip(k0, k1, strict=True)
        ]
    )
    assert 0.05 < exact < 0.95 and exact > study.reach_probability(p0, p1, n, n, target)
    assert abs(float(seen) - exact) <= 6 * np.sqrt(exact * (1 - exact) / 20_000)


def test_a_family_event_above_the_limit_makes_the_exit_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(study, "family_check", lambda epsilon, n: (1e-3, 1.0))
    monkeypatch.setattr(study, "best_reach", lambda epsilon, total: (0.5, 0.05, total // 2))
    assert study.main(["--epsilons", "1", "--total", "1000", "--current", "500"]) == 1
    assert capsys.readouterr().out.rstrip().endswith("FAIL")
