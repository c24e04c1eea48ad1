"""dpquant.audit.statistics.power (float screen of exact laws), dpquant.audit.statistics.exact_loss.analyse_pair and dpquant.audit.conformance (dpquant/audit/tools/sampler_conformance.py)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.audit.model.neighbours import exhaustive_pairs
from dpquant.audit.statistics.bounds import expected_bound
from dpquant.audit.statistics.exact_loss import RENYI_ORDERS, analyse_pair, delta_at
from dpquant.audit.statistics.power import cell_masses, pair_power
from dpquant.audit.tools.sampler_conformance import conformance
from dpquant.reference import PrivacyClaim
from dpquant.reference.distributions import DiscreteLaw, privacy_loss
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.laplace import laplace_law
from dpquant.reference.primitives.randomized_response import (
    RandomizedResponse,
    keep_probability,
    rr_law,
)

N_EVAL, ALPHA = 100_000, 1e-6

# ---------------------------------------------------------------------------------------------
# pair_power
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_pair_power_on_randomized_response_has_loss_epsilon_and_the_keep_flip_event(
    epsilon,
) -> None:
    keep = keep_probability(epsilon)
    power = pair_power(rr_law(0, epsilon), rr_law(1, epsilon), N_EVAL, 0.0, ALPHA)
    assert power.loss == pytest.approx(epsilon, abs=1e-12)
    assert power.p0 == pytest.approx(keep, abs=1e-15)
    assert power.p1 == pytest.approx(1.0 - keep, abs=1e-15)
    assert power.forward
    assert power.expected == pytest.approx(
        float(expected_bound(keep, 1 - keep, N_EVAL, 0.0, ALPHA)), abs=1e-12
    )
    assert 0 < power.expected < epsilon


def test_pair_power_samples_needed_grows_as_the_claim_approaches_the_true_loss() -> None:
    power = pair_power(rr_law(0, 1.0), rr_law(1, 1.0), N_EVAL, 0.0, ALPHA)
    needed = [power.samples_needed(c, 0.0, ALPHA) for c in (0.5, 0.8, 0.95)]
    assert all(n is not None for n in needed)
    assert needed[0] < needed[1] < needed[2]
    assert power.samples_needed(1.0, 0.0, ALPHA) is None  # nothing beats the true loss


def test_pair_power_on_disjoint_supports_gives_infinite_loss() -> None:
    p = DiscreteLaw.from_probabilities([0, 1], [0.5, 0.5])
    q = DiscreteLaw.from_probabilities([2, 3], [0.9, 0.1])
    power = pair_power(p, q, N_EVAL, 0.0, ALPHA)
    assert power.loss == math.inf
    assert power.p0 == pytest.approx(1.0) and power.p1 == 0.0
    assert power.expected == pytest.approx(float(expected_bound(1.0, 0.0, N_EVAL, 0.0, ALPHA)))
    # an atomic law against a density: mutually singular
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0)).exact([0.5])
    assert cell_masses(p, em) is None
    assert pair_power(p, em, N_EVAL, 0.0, ALPHA).loss == math.inf


def test_pair_power_on_partly_overlapping_supports_is_infinite_but_finds_a_detectable_event() -> (
    None
):
    p = DiscreteLaw.from_probabilities([0, 1], [0.99, 0.01])
    q = DiscreteLaw.from_probabilities([0], [1.0])
    power = pair_power(p, q, N_EVAL, 0.0, ALPHA)
    assert power.loss == math.inf
    # the best event is the atom 1 (mass 0.01 against 0), seen in the direction p → q
    assert power.p0 == pytest.approx(0.01) and power.p1 == 0.0 and power.forward


EM_GRID = (-1.0, 0.0, 0.1, 0.25, 0.5, 0.8, 1.0, 2.0)
EM_PAIRS = {
    adj: [p.data for p in exhaustive_pairs(EM_GRID, 3, adj)]
    for adj in ("replace_one", "add_remove")
}


@given(
    st.sampled_from(["replace_one", "add_remove"]).flatmap(
        lambda adj: st.tuples(st.just(adj), st.sampled_from(EM_PAIRS[adj]))
    ),
    st.sampled_from([(0.5, 1.0), (0.25, 0.5), (0.9, 4.0)]),
)
def test_pair_power_loss_matches_the_exact_loss_of_the_exponential_mechanism(arg, q_eps) -> None:
    """EM densities are constant on Smith's intervals, so cell-mass ratios are density ratios."""
    adjacency, (d0, d1) = arg
    em = ExponentialQuantile(q_eps[0], q_eps[1], (0.0, 1.0), adjacency=adjacency)
    p, q = em.exact(d0), em.exact(d1)
    power = pair_power(p, q, N_EVAL, 0.0, ALPHA)
    with workdps():
        exact = float(privacy_loss(p, q))
    assert power.loss == pytest.approx(exact, abs=1e-9)
    assert power.expected < exact + 1e-12  # the expected bound never beats the truth
    if exact > 1e-6:  # the chosen event is more likely on its numerator side
        assert 0.0 <= power.p1 < power.p0 <= 1.0


def test_pair_power_loss_is_at_most_the_exact_loss_for_log_linear_densities() -> None:
    """Cell masses average the density ratio, so the float screen never overstates the loss;
    for two Laplace laws the tails already carry the full ratio e^{|shift|/scale}."""
    p, q = laplace_law(0.0, 1.0), laplace_law(1.5, 1.0)
    power = pair_power(p, q, N_EVAL, 0.0, ALPHA)
    with workdps():
        exact = float(privacy_loss(p, q))
    assert exact == pytest.approx(1.5, abs=1e-12)
    assert power.loss == pytest.approx(exact, abs=1e-9)
    assert power.expected < exact


# ---------------------------------------------------------------------------------------------
# analyse_pair
# ---------------------------------------------------------------------------------------------


def _mp_cell_masses(p, q):
    """Exact masses on the merged cells, computed with the laws' own mpmath ``mass``."""
    if isinstance(p, DiscreteLaw):
        atoms = sorted(set(p.support) | set(q.support))
        return [p.pmf_mp(a) for a in atoms], [q.pmf_mp(a) for a in atoms]
    breaks = sorted(set(p.breaks.tolist()) | set(q.breaks.tolist()))
    cells = list(zip(breaks, breaks[1:], strict=False))
    return [p.mass(a, b) for a, b in cells], [q.mass(a, b) for a, b in cells]


EM = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
ANALYSIS_CASES = [
    ("rr", rr_law(0, 1.0), rr_law(1, 1.0), PrivacyClaim(1.0, 0.0, "local")),
    ("em", EM.exact([0.1, 0.5, 0.9]), EM.exact([0.1, 0.5, 0.2]), EM.claim),
    ("em-ties", EM.exact([0.5, 0.5, 0.5, 1.0]), EM.exact([0.5, 0.5, 1.0, 1.0]), EM.claim),
    (
        "em-miscalibrated",
        ExponentialQuantile(0.5, 1.0, (0.0, 1.0), sensitivity=0.4).exact([0.0, 0.3, 0.6]),
        ExponentialQuantile(0.5, 1.0, (0.0, 1.0), sensitivity=0.4).exact([0.0, 0.3, 1.0]),
        EM.claim,
    ),
]


@pytest.fixture(scope="module", params=ANALYSIS_CASES, ids=lambda c: c[0])
def analysed(request):
    _, p, q, claim = request.param
    data = (np.array([0.0]), np.array([1.0]))
    return p, q, claim, analyse_pair(p, q, data, claim)


def test_analyse_pair_epsilon_is_the_exact_privacy_loss(analysed) -> None:
    p, q, _, result = analysed
    with workdps():
        assert result.epsilon == privacy_loss(p, q)
        assert result.epsilon == privacy_loss(q, p)
    assert 0 < result.epsilon < math.inf


def test_analyse_pair_delta_curve_is_non_increasing_and_reaches_zero_at_the_exact_epsilon(
    analysed,
) -> None:
    p, q, claim, result = analysed
    eps = float(result.epsilon)
    grid = [e for e, _ in result.delta_curve]
    deltas = [d for _, d in result.delta_curve]
    assert grid[0] == 0.0 and grid[-1] == pytest.approx(max(2 * claim.epsilon, eps))
    assert all(b <= a + 1e-15 for a, b in zip(deltas, deltas[1:], strict=False))
    for e, d in result.delta_curve:
        if e >= eps:
            assert d <= 1e-15
        else:
            assert d > 0
    with workdps():
        assert abs(delta_at(p, q, result.epsilon)) < mpmath.mpf("1e-40")
        assert delta_at(p, q, result.epsilon * (1 - mpmath.mpf("1e-6"))) > 0


def test_analyse_pair_delta_at_zero_is_the_total_variation_distance(analysed) -> None:
    p, q, _, result = analysed
    with workdps():
        P, Q = _mp_cell_masses(p, q)
        assert abs(mpmath.fsum(P) - 1) < mpmath.mpf("1e-40")
        tv = mpmath.fsum(abs(a - b) for a, b in zip(P, Q, strict=True)) / 2
        assert abs(delta_at(p, q, 0.0) - tv) < mpmath.mpf("1e-40")
    assert result.delta_curve[0][1] == pytest.approx(float(tv), rel=1e-12, abs=1e-300)


def test_analyse_pair_delta_at_the_claim_matches_the_curve_and_flags_violations(analysed) -> None:
    p, q, claim, result = analysed
    with workdps():
        assert result.delta_at_claim == delta_at(p, q, claim.epsilon)
    if result.epsilon > claim.epsilon:
        assert result.delta_at_claim > 0
    else:
        assert result.delta_at_claim < mpmath.mpf("1e-40")


def test_analyse_pair_renyi_divergences_grow_with_the_order_up_to_the_exact_epsilon(
    analysed,
) -> None:
    _, _, _, result = analysed
    orders = [a for a, _ in result.renyi]
    values = [d for _, d in result.renyi]
    eps = float(result.epsilon)
    assert orders == [*RENYI_ORDERS, math.inf]
    assert all(b >= a - 1e-15 for a, b in zip(values, values[1:], strict=False))
    assert all(0 < v <= eps + 1e-15 for v in values)
    assert values[-1] == eps
    d = result.to_dict()
    assert d["epsilon_exact"] == eps and len(d["delta_curve"]) == len(result.delta_curve)


def test_analyse_pair_on_disjoint_supports_has_infinite_epsilon_and_delta_one() -> None:
    p = DiscreteLaw.from_probabilities([0], [1.0])
    q = DiscreteLaw.from_probabilities([1], [1.0])
    result = analyse_pair(p, q, (np.array([0.0]), np.array([1.0])), PrivacyClaim(1.0))
    assert mpmath.isinf(result.epsilon)
    assert all(d == pytest.approx(1.0) for _, d in result.delta_curve)
    assert result.delta_curve[-1][0] == pytest.approx(2.0)
    assert result.delta_at_claim == 1


def test_analyse_pair_without_curve_gives_only_epsilon_and_delta() -> None:
    result = analyse_pair(
        rr_law(0, 0.5),
        rr_law(1, 0.5),
        (np.array([0.0]), np.array([1.0])),
        PrivacyClaim(1.0),
        curve=False,
    )
    assert float(result.epsilon) == pytest.approx(0.5, abs=1e-14)
    assert result.delta_curve == () and result.renyi == ()
    assert result.delta_at_claim < mpmath.mpf("1e-40")


# ---------------------------------------------------------------------------------------------
# sampler conformance
# ---------------------------------------------------------------------------------------------


class _WrongSampler:
    """Claims the exact law of ``law_mech`` but samples from ``sampler_mech``."""

    def __init__(self, law_mech, sampler_mech):
        self.law_mech, self.sampler_mech = law_mech, sampler_mech
        self.claim, self.domain = law_mech.claim, law_mech.domain

    def exact(self, data):
        return self.law_mech.exact(data)

    def sample(self, data, size, rng):
        return self.sampler_mech.sample(data, size, rng)


CONFORMANCE_ALPHA = 1e-7


@pytest.mark.parametrize(
    "mech, data",
    [
        (ExponentialQuantile(0.5, 1.0, (0.0, 1.0)), np.array([0.1, 0.4, 0.45, 0.9])),
        (ExponentialQuantile(0.9, 2.0, (-1.0, 3.0), adjacency="add_remove"), np.arange(8.0)),
        (RandomizedResponse(1.0), 1),
        (RandomizedResponse(0.2), 0),
    ],
    ids=["em", "em-add-remove", "rr", "rr-small-eps"],
)
def test_conformance_passes_for_correct_samplers_at_100k_draws(mech, data) -> None:
    report = conformance(mech, data, samples=100_000, seed=3, alpha=CONFORMANCE_ALPHA)
    assert report.passed, report
    assert report.p_value > report.alpha
    assert report.statistic <= report.threshold or report.test != "dkw"
    assert report.samples == 100_000 and report.seed == 3
    report.assert_ok()
    assert report.to_dict()["passed"] is True


@pytest.mark.parametrize(
    "mech, data, test",
    [
        (
            _WrongSampler(
                ExponentialQuantile(0.5, 1.0, (0.0, 1.0)), ExponentialQuantile(0.5, 2.0, (0.0, 1.0))
            ),
            np.array([0.1, 0.4, 0.45, 0.9]),
            "dkw",
        ),
        (_WrongSampler(RandomizedResponse(1.0), RandomizedResponse(2.0)), 1, "clopper-pearson"),
        (_WrongSampler(RandomizedResponse(1.0), RandomizedResponse(1.1)), 0, "clopper-pearson"),
    ],
    ids=["em-eps1-sampled-at-eps2", "rr-eps1-sampled-at-eps2", "rr-eps1-sampled-at-eps1.1"],
)
def test_conformance_fails_for_a_sampler_drawing_from_the_wrong_law(mech, data, test) -> None:
    report = conformance(mech, data, samples=100_000, seed=3, alpha=CONFORMANCE_ALPHA)
    assert not report.passed
    assert report.test == test
    assert report.p_value <= report.alpha
    with pytest.raises(AssertionError):
        report.assert_ok()


def test_conformance_fails_when_the_sampler_produces_outputs_outside_the_law() -> None:
    class NanSometimes(_WrongSampler):
        def sample(self, data, size, rng):
            out = self.law_mech.sample(data, size, rng).astype(float)
            out[::1000] = np.nan
            return out

    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    report = conformance(NanSometimes(em, em), [0.5], samples=10_000, seed=0)
    assert not report.passed and report.test == "atoms" and report.p_value == 0.0
    assert "nan" in report.detail


def test_conformance_is_deterministic_for_a_seed() -> None:
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    a = conformance(em, [0.2, 0.7], samples=20_000, seed=9)
    b = conformance(em, [0.2, 0.7], samples=20_000, seed=9)
    c = conformance(em, [0.2, 0.7], samples=20_000, seed=10)
    assert a == b and a.statistic != c.statistic


def test_conformance_rejects_mechanisms_without_an_exact_law_and_bad_arguments() -> None:
    class NoExact:
        claim = PrivacyClaim(1.0)
        domain = (0.0, 1.0)

        def sample(self, data, size, rng):
            return rng.random(size)

    with pytest.raises(ValueError):
        conformance(NoExact(), [0.5])
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    for kwargs in ({"samples": 0}, {"seed": -1}, {"alpha": 0.0}, {"alpha": 1.0}):
        with pytest.raises(ValueError):
            conformance(em, [0.5], **kwargs)
