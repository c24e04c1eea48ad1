"""Selection and evaluation (dpquant/audit/pipeline/stage3_evaluation.py, dpquant/audit/events/families.py): budgets that recover from a
wrong prediction, and fitted scores that never rate themselves on their own draws (issue 20)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpquant.audit.pipeline.stage3_evaluation as evaluation
from dpquant.audit import AuditOptions, audit_mechanism, from_callable
from dpquant.audit.events.families import candidate_events, score_events
from dpquant.audit.model.outputs import Outputs, normalise
from dpquant.audit.pipeline import budget as draw_budget
from dpquant.audit.pipeline.plan import ROUNDS
from dpquant.reference.core import PrivacyClaim


@given(
    samples=st.integers(10, 10**6),
    cut=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
)
def test_round_plan_ends_with_the_full_budget_and_fits_the_rounds(samples, cut) -> None:
    """Whatever the search predicted, the last round has the full budget for every finalist, and
    there are at most ROUNDS rounds (the Bonferroni split of α is over ROUNDS)."""
    budgets = [max(1, min(samples, int(f * samples))) for f in cut]
    plan = draw_budget.round_plan(samples, budgets)
    assert 1 <= len(plan) <= ROUNDS
    assert plan[-1] == [samples] * len(budgets)
    assert all(len(r) == len(budgets) for r in plan)
    if min(budgets) < samples:
        assert plan[0] == [min(budgets)] * len(budgets)


def test_round_plan_examples() -> None:
    assert draw_budget.round_plan(400_000, [4_000, 400_000]) == [[4_000] * 2, [400_000] * 2]
    assert draw_budget.round_plan(400_000, [400_000] * 3) == [[50_000] * 3, [400_000] * 3]
    assert draw_budget.round_plan(20_000, [20_000]) == [[20_000]]


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
    monkeypatch.setattr(evaluation, "finalist_budget", lambda *_: draw_budget.MIN_BUDGET)
    r = audit_mechanism(_LaplaceSum(), pairs=[([1.0], [0.0])], seed=0)
    rounds = r.blackbox.rounds
    assert rounds == ((draw_budget.MIN_BUDGET,), (400_000,))
    first = [e for e in r.blackbox.evaluated if e.round == 0]
    assert first and max(e.epsilon_lower_bound for e in first) <= 0.5
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
    # each event's kind, read once: the events (about 350 000) are made on demand
    kinds = np.array([e.kind for e in events])
    fitted_kinds = ("histogram_ratio", "increments_ratio", "classifier")
    for kind in fitted_kinds:
        hist = kinds == kind
        assert hist.any() and np.all(na[hist] == 6_000) and np.all(nb[hist] == 6_000)
        chosen = [events[int(i)] for i in np.flatnonzero(hist)]
        best = score_events(chosen, ka[hist], kb[hist], na[hist], nb[hist], 28_000, 0.0, 1e-6 / 6)
        assert best[0].expected < 0.05, kind
    fitted = np.isin(kinds, fitted_kinds)
    assert np.all(na[~fitted] == 12_000)


def test_tighten_spends_the_full_budget_on_a_clear_violation() -> None:
    """A histogram with scale ε instead of 1/ε (2ε-DP at ε = 0.5, true 2): by default the clear
    violation cuts the budget; with ``tighten`` every finalist gets the full ``samples`` and the
    best one is evaluated, so the audit draws more and its bound is at least as close to the
    truth here."""
    from dpquant.audit.suites.classic import entry

    mech = entry("NoisyHist2").make(0.5)
    quick = audit_mechanism(mech, samples=100_000, seed=3)
    tight = audit_mechanism(mech, samples=100_000, seed=3, options=AuditOptions(tighten=True))
    assert quick.violation and tight.violation
    assert tight.samples_used > 4 * quick.samples_used
    assert tight.blackbox.carried == 1 and len(tight.blackbox.evaluated) == 1
    assert quick.epsilon_lower_bound < tight.epsilon_lower_bound <= 2.0
    with pytest.raises(ValueError, match="tighten"):
        audit_mechanism(mech, options=AuditOptions(tighten="yes"))


def _context(mech, samples: int, tighten: bool = False, timeout: float | None = None):
    from dpquant.audit.pipeline.budget import DrawBudget
    from dpquant.audit.pipeline.context import AuditContext
    from dpquant.audit.pipeline.plan import AuditPlan

    budget = DrawBudget(samples, full=tighten)
    plan = AuditPlan(
        mech, mech.claim, (0.0, 1.0), budget, 1e-6, 0, search=False, timeout=timeout
    )
    return AuditContext(plan)


# 0.001 s a draw: chunks of 4 000 draws (not 400), still well below the blocks of 40 000, each
# call on a helper thread of its own
@pytest.mark.parametrize("timeout", [None, 0.001])
def test_draw_blocks_concatenated_are_the_draws_in_one_piece(timeout) -> None:
    """AuditContext.draw_blocks: the same draws as AuditContext.draw, for the jobs of a pair of
    different lengths, structured outputs (an SVT's symbols and numbers) and the small chunks of
    a time limit; every block holds at most about the block size per job."""
    from dpquant.audit.pipeline.context import EVAL
    from dpquant.audit.pipeline.draws import chunk_size
    from dpquant.audit.suites.classic import entry

    mech = entry("SparseVectorTechnique3").make(0.5)
    d0, d1 = np.ones(10), np.r_[np.full(5, 2.0), np.zeros(5)]
    pair = ((d0, 150_000, (EVAL, 0, 0, 0)), (d1, 70_000, (EVAL, 0, 0, 1)))
    (whole,) = _context(mech, 1, timeout=timeout).draw([pair])
    ctx = _context(mech, 1, timeout=timeout)
    blocks = [block for (block,) in ctx.draw_blocks([pair], 40_000)]
    step = chunk_size(mech, d0, timeout)
    assert len(blocks) == -(-150_000 // (step * max(1, 40_000 // step)))
    assert all(len(b[0]) <= max(step, 40_000) for b in blocks)
    assert ctx.used == 220_000
    assert [len(out) for out in whole] == [150_000, 70_000]
    for j, out in enumerate(whole):
        joined = Outputs.concat([b[j] for b in blocks if len(b[j])])
        assert np.array_equal(out.values, joined.values, equal_nan=True)
        assert list(out.atoms) == list(joined.atoms)
        assert np.array_equal(out.tokens, joined.tokens)
        assert np.array_equal(out.numbers, joined.numbers, equal_nan=True)


@pytest.mark.parametrize("name, pair", [
    ("ReportNoisyMax3", ([1.0] * 5, [2.0, 0.0, 2.0, 0.0, 2.0])),
    ("SparseVectorTechnique4", ([1.0] * 10, [2.0] * 5 + [0.0] * 5)),
])  # fmt: skip
def test_an_evaluation_counted_block_by_block_counts_the_same_draws(
    monkeypatch, name, pair
) -> None:
    """With blocks of one chunk (65 536 draws per side instead of 2^20), the evaluation of
    200 000 draws per side is counted in three blocks and gives the same counts and bounds (its
    event counted among the first Poisson numbers of the 140 000 evaluation draws, which end
    within the last block); the witness keeps only the first block."""
    from dpquant.audit.pipeline.context import Candidate
    from dpquant.audit.suites.classic import entry

    mech = entry(name).make(0.5)
    finalists = [Candidate(np.array(pair[0]), np.array(pair[1]))]
    whole = evaluation.blackbox_stage(_context(mech, 200_000, True), finalists, False)
    monkeypatch.setattr(evaluation, "EVAL_BLOCK", 1)
    blocks = evaluation.blackbox_stage(_context(mech, 200_000, True), finalists, False)
    assert whole[0].evaluated == blocks[0].evaluated and whole[2] == blocks[2]
    (evaluated,) = whole[0].evaluated
    assert evaluated.counting == "poisson"
    assert 131_072 < min(evaluated.n0, evaluated.n1) and max(evaluated.n0, evaluated.n1) <= 140_000
    assert len(whole[3][1]) == 140_000 and len(blocks[3][1]) == 65_536


def test_selection_is_capped_and_a_tightening_audit_puts_all_of_alpha_on_one_candidate() -> None:
    """Selection draws are 30 % of a budget up to SELECT_MAX (the rest evaluates); a tightening
    audit plans a single round and carries one candidate, which gets all of α (α/(CARRIED·2)
    each otherwise)."""
    from dpquant.audit.pipeline.budget import SELECT_MAX, selection_size
    from dpquant.audit.pipeline.plan import CARRIED, CARRIED_TIGHTEN

    assert selection_size(1_000) == 300 and selection_size(10**9) == SELECT_MAX
    assert _context(_LaplaceSum(), 10**9).n_select == SELECT_MAX
    assert _context(_LaplaceSum(), 10**9).n_eval == 10**9 - SELECT_MAX
    assert _context(_LaplaceSum(), 1000).alpha_eval == pytest.approx(1e-6 / (CARRIED * ROUNDS))
    assert CARRIED_TIGHTEN == 1 and _context(_LaplaceSum(), 1000, True).carried == 1
    assert _context(_LaplaceSum(), 1000, True).alpha_eval == pytest.approx(1e-6)


def test_a_tightening_audit_ranks_finalists_on_fresh_draws_not_on_their_selection_masses() -> None:
    """Two finalists of Σ data + Laplace(4/3): ([1], [0]) with the event y > 1 (exact masses 1/2
    and e^-0.75/2, log-ratio 0.75), and a pair of equal data sets whose event's selection masses
    (2 % against 0.2 %) are the winner's curse of a search among many events: they promise far
    more than anything true. The default audit ranks by the selection score and carries the
    cursed finalist; a tightening audit counts each chosen event on fresh ranking draws, carries
    the leaking pair, and ranks it by the bound its true masses promise (no Wilson penalty: within
    0.02 of the exact promise, seven standard deviations of 600 000 ranking draws a side)."""
    from dpquant.audit.events.families import Event, Scored
    from dpquant.audit.pipeline.budget import selection_size
    from dpquant.audit.pipeline.context import Candidate
    from dpquant.audit.statistics.bounds import expected_bound

    budget, n_eval = 4_000_000, 4_000_000 - selection_size(4_000_000)
    leak = Candidate(np.array([1.0]), np.array([0.0]))
    same = Candidate(np.array([0.5]), np.array([0.5]))
    p0, p1 = 0.5, 0.5 * math.exp(-0.75)
    true_promise = float(expected_bound(p0, p1, n_eval, 0.0, 1e-6))
    cursed = float(expected_bound(0.02, 0.002, n_eval, 0.0, 1e-6))
    assert cursed > true_promise + 1
    chosen = [
        (leak, Scored(Event("interval", lo=1.0), True, true_promise, p0, p1), n_eval),
        (same, Scored(Event("interval", lo=3.0), True, cursed, 0.02, 0.002), n_eval),
    ]
    default = evaluation._ranks(_context(_LaplaceSum(), budget), chosen, [budget] * 2, 0)
    assert default == [true_promise, cursed]
    ctx = _context(_LaplaceSum(), budget, tighten=True)
    ranks = evaluation._ranks(ctx, chosen, [budget] * 2, 0)
    assert ranks[0] > ranks[1] and ranks[1] < 0.05
    promise = max(evaluation._promises(ctx, p0, p1, n_eval))  # as its evaluation would count
    assert promise >= true_promise and abs(ranks[0] - promise) < 0.02
    assert ctx.ledger.by_stage["ranking"] == 4 * (selection_size(budget) // evaluation.RANK_SHARE)


@pytest.mark.parametrize(
    "p0, p1, delta, poisson",
    [
        (0.09, 0.035, 0.0, True),  # the EM median's best events: 0.884 against 0.862
        (0.02, 0.0073, 0.0, True),
        (0.9, 0.33, 0.0, False),  # a large event: binomial counts vary less (0.986 against 0.984)
        (0.09, 0.035, 1e-6, False),  # an (ε, δ) claim: the conditional bound has no δ
        (0.0, 0.035, 0.0, False),  # nothing to count
    ],
)
def test_an_event_is_counted_in_poisson_numbers_when_that_promises_more(
    p0, p1, delta, poisson
) -> None:
    """counts_poisson: the conditional bound's promise at the selection masses against the fixed
    counts' rectangle, at 280 000 evaluation draws a side and the default audit's α; never for an
    (ε, δ) claim."""
    from dpquant.audit.events.families import Event, Scored
    from dpquant.audit.statistics.bounds import expected_bound
    from dpquant.audit.statistics.poisson_counts import poisson_expected_bound, poisson_rate

    mech = _LaplaceSum()
    if delta > 0:
        mech = from_callable(
            lambda d, size, rng: d[0] + rng.laplace(size=size),
            PrivacyClaim(1.0, delta, "replace_one"),
            (0.0, 1.0),
            vectorized=True,
        )
    ctx = _context(mech, 400_000)
    s = Scored(Event("interval", lo=0.5), True, 0.0, p0, p1)
    tail = ctx.alpha_eval * evaluation.POISSON_TAIL_SHARE
    assert evaluation.counts_poisson(ctx, s, 280_000) is poisson
    if delta == 0 and p0 > 0:  # the choice is the larger promise
        fixed = float(expected_bound(p0, p1, 280_000, 0.0, ctx.alpha_eval))
        rate = poisson_rate(280_000, tail)
        promised = poisson_expected_bound(p0, p1, rate, ctx.alpha_eval - 2 * tail)
        assert (promised > fixed) is poisson and abs(promised - fixed) > 1e-3
