"""Selection and evaluation (audit/evaluation.py, audit/events.py): budgets that recover from a
wrong prediction, and fitted scores that never rate themselves on their own draws (issue 20)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import audit.evaluation as evaluation
from audit import audit_mechanism, from_callable
from audit.context import ROUNDS
from audit.events import candidate_events, score_events
from audit.outputs import normalise
from reference.core import PrivacyClaim


@given(
    samples=st.integers(10, 10**6),
    cut=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
)
def test_budget_plan_ends_with_the_full_budget_and_fits_the_rounds(samples, cut) -> None:
    """Whatever the search predicted, the last round has the full budget for every finalist, and
    there are at most ROUNDS rounds (the Bonferroni split of α is over ROUNDS)."""
    budgets = [max(1, min(samples, int(f * samples))) for f in cut]
    plan = evaluation.budget_plan(samples, budgets)
    assert 1 <= len(plan) <= ROUNDS
    assert plan[-1] == [samples] * len(budgets)
    assert all(len(r) == len(budgets) for r in plan)
    if min(budgets) < samples:
        assert plan[0] == [min(budgets)] * len(budgets)


def test_budget_plan_examples() -> None:
    assert evaluation.budget_plan(400_000, [4_000, 400_000]) == [[4_000] * 2, [400_000] * 2]
    assert evaluation.budget_plan(400_000, [400_000] * 3) == [[50_000] * 3, [400_000] * 3]
    assert evaluation.budget_plan(20_000, [20_000]) == [[20_000]]


class _LaplaceSum:
    """Σ data + Laplace(1/0.75): 0.75-DP under replace-one on [0, 1], claimed 0.5 (vectorised)."""

    claim = PrivacyClaim(0.5, 0.0, "replace_one")
    domain = (0.0, 1.0)

    def sample(self, data, size, rng):
        return np.sum(data) + rng.laplace(scale=1 / 0.75, size=size)


def test_a_wrong_prediction_of_a_clear_violation_costs_draws_not_power(monkeypatch) -> None:
    """The search's prediction is forced to a clear violation (every finalist cut to 4 000
    draws): too few to show a loss of 0.75 against the claim 0.5, so the cut round fails, and the
    full budget then shows it. Before issue 20 the audit stopped after the cut round."""
    monkeypatch.setattr(evaluation, "budget", lambda ctx, c: evaluation.MIN_BUDGET)
    r = audit_mechanism(_LaplaceSum(), pairs=[([1.0], [0.0])], seed=0)
    rounds = r.blackbox["rounds"]
    assert rounds == [[evaluation.MIN_BUDGET], [400_000]]
    first = [e for e in r.blackbox["evaluated"] if e["round"] == 0]
    assert first and max(e["epsilon_lower_bound"] for e in first) <= 0.5
    assert r.violation and 0.5 < r.epsilon_lower_bound <= 0.75, r.summary()


def test_issue_20_minimal_case_is_flagged_with_the_default_budget() -> None:
    """The issue's case: Σ data + Laplace(1/0.75) beside nine standard normals, claimed 0.5
    under replace-one on (0, 1), pair ([1], [0]): a violation (true loss 0.75). It used to pass
    ("no violation", ε_lb 0.467): the histogram score, fitted and rated on the same draws,
    predicted a clear violation, and the cut budget was too small."""

    def fn(d, r):
        return np.r_[d.sum() + r.laplace(scale=1 / 0.75), r.normal(size=9)]

    mech = from_callable(fn, PrivacyClaim(0.5, 0.0, "replace_one"), domain=(0, 1))
    r = audit_mechanism(mech, pairs=[([1.0], [0.0])], seed=0)
    assert r.violation and 0.5 < r.epsilon_lower_bound <= 0.75, r.summary()


@pytest.mark.parametrize("seed", range(3))
def test_fitted_scores_do_not_rate_themselves_on_the_draws_they_were_fitted_to(seed) -> None:
    """D and D' with the same law (ten standard normal coordinates): the best event of each
    fitted score (histogram, histogram of the increments, classifier) has a selection score near
    0 (a score rated on its own fitting draws gave 0.14-0.18 here). 0.05 is about eight standard
    deviations of a held-out count above the null."""
    rng = np.random.default_rng(seed)
    a = normalise(rng.normal(size=(12_000, 10)), 12_000)
    b = normalise(rng.normal(size=(12_000, 10)), 12_000)
    events, ka, kb, na, nb = candidate_events(a, b)
    fitted_kinds = ("histogram_ratio", "increments_ratio", "classifier")
    for kind in fitted_kinds:
        hist = np.array([e.kind == kind for e in events])
        assert hist.any() and np.all(na[hist] == 6_000) and np.all(nb[hist] == 6_000)
        chosen = [e for e, h in zip(events, hist, strict=True) if h]
        best = score_events(chosen, ka[hist], kb[hist], na[hist], nb[hist], 28_000, 0.0, 1e-6 / 6)
        assert best[0].expected < 0.05, kind
    fitted = np.array([e.kind in fitted_kinds for e in events])
    assert np.all(na[~fitted] == 12_000)


def test_tighten_spends_the_full_budget_on_a_clear_violation() -> None:
    """A histogram with scale ε instead of 1/ε (2ε-DP at ε = 0.5, true 2): by default the clear
    violation cuts the budget; with ``tighten`` every finalist gets the full ``samples``, so the
    audit draws more and its bound is at least as close to the truth here."""
    from audit.classic import entry

    mech = entry("NoisyHist2").make(0.5)
    quick = audit_mechanism(mech, samples=100_000, seed=3)
    tight = audit_mechanism(mech, samples=100_000, seed=3, tighten=True)
    assert quick.violation and tight.violation
    assert tight.samples_used > 4 * quick.samples_used
    assert quick.epsilon_lower_bound < tight.epsilon_lower_bound <= 2.0
    with pytest.raises(ValueError, match="tighten"):
        audit_mechanism(mech, tighten="yes")
