"""The auditor on fukuchi19's mechanisms (Theorem 6 / Theorem 2's privacy part).

* Every mechanism passes ``audit_mechanism`` with the auditor's own neighbour search: Algorithm 2
  (both samplers, minimum and maximum; e^u = 3, L = 2, γ = ½), a schedule-built one on the public
  bounds (0, 150), the per-user transcript channel, and the Laplace baseline with its default
  float-safe grid reports (exact and black-box for the user's report, black-box for the server's
  minimum). The paper's float report x + Laplace is caught (Mironov 2012's low-bit leak). Algorithm 2 and the transcript attain the
  claim exactly (the pair (−1) vs (1)).
* The canary — Algorithm 2 that answers each round with RR at the full ε (built with L·ε, claiming
  ε) — is reported with exact loss L·ε and a black-box bound above ε.
* A stand-alone black-box auditor (Clopper–Pearson on the event {x̃ = leftmost leaf}, N = 1,
  L = 2, 10^5 trials) resolves ε = 2 ln 3 (9/16 against 1/16) and exposes the canary.
* Sampler conformance of the per-user and binomial paths to the exact law (the N = 3 reference law
  in ``notes/fukuchi19.md``).

Every "no violation" audit runs at α = 1e-9 for its black-box bound and for each conformance test
(3e-9 per audit): with the 10 audits below, a correct mechanism fails this module with
probability < 3e-8. The other statistical assertions state their own bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpquant.audit import audit_mechanism
from dpquant.reference.conformance import check_sampler, clopper_pearson
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.distributions import privacy_loss
from dpquant.reference.exact.mp import workdps
from dpquant.reference.ldp_minimum.mechanisms import LaplaceExtreme, LaplaceReport, LDPMinimum
from dpquant.reference.ldp_minimum.transcript import UserTranscript

pytestmark = pytest.mark.audit

FP_ALPHA = 1e-9
SAMPLES = 100_000  # draws per data set per final candidate (the default is 400 000)
LN3 = math.log(3.0)


def _passes(mech: Any, **options: Any):
    r = audit_mechanism(mech, seed=0, alpha=FP_ALPHA, samples=SAMPLES, **options)
    assert not r.violation, r.summary()
    assert r.epsilon_lower_bound <= r.claimed_epsilon
    return r


@pytest.mark.parametrize(
    ("sampler", "target"),
    [("binomial", "min"), ("per_user", "max"), ("per_user", "min"), ("binomial", "max")],
)
def test_algorithm_2_passes_its_audit_and_attains_epsilon(sampler, target) -> None:
    """Theorem 6 on the searched family (N <= 4 over the probe values, patterns up to N = 33):
    the exact loss never exceeds ε = 2 ln 3 and reaches it (N = 1: 9/16 vs 1/16)."""
    mech = LDPMinimum.with_exp_u(3, 2, 0.5, sampler=sampler, target=target)
    r = _passes(mech)
    assert r.sampler_conforms, r.conformance
    assert r.epsilon_exact == pytest.approx(2 * LN3, abs=1e-12)
    assert r.epsilon_exact <= r.claimed_epsilon


def test_schedule_built_algorithm_2_on_bounds_0_150_passes_its_audit() -> None:
    """Lower-α schedule for N = 2^10 at ε = 1 (L = 5, γ = 0.866; float ε, 60-digit exact law),
    on the ages domain (0, 150) of Sec. 6.3."""
    mech = LDPMinimum.for_schedule("lower_alpha", 1024, 1.0, bounds=(0.0, 150.0))
    assert (mech.levels, round(mech.gamma, 3)) == (5, 0.866)  # the reference schedule row, n = 10
    r = _passes(mech)
    assert r.sampler_conforms, r.conformance
    assert r.epsilon_exact <= r.claimed_epsilon + 1e-12
    assert r.epsilon_exact == pytest.approx(1.0, abs=1e-12)  # (0) vs (150): every round differs


@pytest.mark.parametrize("sampler", ["binomial", "per_user"])
def test_user_transcript_passes_its_audit_and_attains_epsilon(sampler) -> None:
    """The whole transcript (not only x̃) is ε-LDP for the user (local adjacency), exactly ε."""
    mech = UserTranscript.with_exp_u(3, 2, 0.5, (0.0, 0.5), sampler=sampler)
    r = _passes(mech)
    assert r.sampler_conforms, r.conformance
    assert r.epsilon_exact == pytest.approx(2 * LN3, abs=1e-12)


def test_grid_laplace_report_passes_the_full_audit_and_attains_epsilon() -> None:
    """The default (grid) report is exactly ε-LDP as sampled: i = round(x/Λ) moves by at most
    2/Λ and the discrete Laplace has scale t >= 2/(εΛ), so the exact loss is <= ε, equal at ±1
    (as for the real-valued report); the black-box stage agrees. Λ = 1/4 keeps the exact
    law small (333 atoms)."""
    r = _passes(LaplaceReport(1.0, grid=0.25))
    assert r.epsilon_exact == pytest.approx(1.0, abs=1e-12)


def test_float_laplace_report_is_caught_by_the_auditor() -> None:
    """The paper's report x + Laplace(0, 2/ε) in floats (``noise="continuous"``): rng.laplace(x, b)
    = x + b·noise, so for x = 1 the outputs in (−2, −1) never have an odd last mantissa bit,
    while for x = −1 about a third do (Mironov 2012). The auditor's likelihood-ratio event picks
    this up: a violation with a bound above the claim (confidence 1 − 1e-9)."""
    r = audit_mechanism(
        LaplaceReport(1.0, noise="continuous"), seed=0, alpha=FP_ALPHA, samples=SAMPLES
    )
    assert r.violation and r.epsilon_lower_bound > 1.0, r.summary()
    assert r.epsilon_exact == pytest.approx(1.0, abs=1e-12)  # the real-valued law is private


def test_float_laplace_report_low_bit_event_separates_the_ends() -> None:
    """The witness in plain terms: P(y ∈ (−2, −1) with an odd last mantissa bit) is 0 for x = 1
    and > 0.3·P(y ∈ (−2, −1)) for x = −1 (seeded; both counts far from the boundary)."""
    rep = LaplaceReport(1.0, noise="continuous")
    rng = np.random.default_rng(0)

    def odd_share(x: float) -> tuple[int, int]:
        y = rep.sample(x, 400_000, rng)
        inside = y[(y > -2.0) & (y < -1.0)]
        odd = (inside.view(np.int64) & 1) == 1
        return int(odd.sum()), inside.size

    odd_high, n_high = odd_share(1.0)
    odd_low, n_low = odd_share(-1.0)
    assert n_high > 10_000 and n_low > 10_000
    assert odd_high == 0
    assert odd_low > 0.3 * n_low
    grid = LaplaceReport(1.0)
    for x in (-1.0, 1.0):
        y = grid.sample(x, 10_000, rng)
        assert np.all(y == np.round(y * 16) / 16)  # every grid report is a multiple of Λ = 1/16


def test_laplace_extreme_passes_the_blackbox_audit() -> None:
    """The server's minimum of grid reports, on explicit small neighbours (the searched family
    would run the exact sampler on up to 33 users × 10^5 draws per data set)."""
    pairs = [
        (np.array([-1.0]), np.array([1.0])),
        (np.array([-1.0, 1.0]), np.array([1.0, 1.0])),
        (np.array([-1.0, 0.0, 0.5]), np.array([0.5, 0.0, 0.5])),
    ]
    r = _passes(LaplaceExtreme(1.0), mode="blackbox", pairs=pairs)
    assert r.epsilon_exact is None


# ============================================================================= the canary


@dataclass(frozen=True)
class FullBudgetPerRound:
    """The canary (notes/fukuchi19.md): Algorithm 2 run with RR at the full ε in every round (i.e. built with
    L·ε) while claiming ε. Its true loss is L·ε."""

    mechanism: LDPMinimum

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.mechanism.epsilon / self.mechanism.levels, 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        return self.mechanism.domain

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.mechanism.sample(data, size, rng)

    def exact(self, data: Any):
        return self.mechanism.exact(data)


def test_canary_with_full_budget_per_round_is_reported_with_loss_l_times_epsilon() -> None:
    canary = FullBudgetPerRound(LDPMinimum.with_exp_u(3, 2, 0.5))  # claims ε = ln 3
    assert canary.claim.epsilon == pytest.approx(LN3)
    r = audit_mechanism(canary, seed=0, samples=SAMPLES)  # default α = 1e-6 for the bound
    assert r.violation, r.summary()
    assert r.epsilon_exact == pytest.approx(2 * r.claimed_epsilon, abs=1e-12)  # L·ε
    assert r.claimed_epsilon < r.epsilon_lower_bound <= r.epsilon_exact


# ====================================================== a stand-alone Clopper–Pearson auditor

TRIALS = 100_000
CP_ALPHA = 1e-7  # two-sided Clopper–Pearson per proportion: the bound is valid w.p. >= 1 − 1e-7


def _cp_epsilon_lower_bound(k0: int, k1: int, n: int) -> float:
    """ε̂_lb = ln(p_lo(E | D)/p_hi(E | D′)), E the event {x̃ = leftmost leaf}."""
    return math.log(clopper_pearson(k0, n, CP_ALPHA)[0] / clopper_pearson(k1, n, CP_ALPHA)[1])


@pytest.mark.parametrize("sampler", ["binomial", "per_user"])
def test_clopper_pearson_auditor_resolves_2_ln_3_and_exposes_the_canary(sampler) -> None:
    """N = 1, L = 2, e^u = 3, γ = ½, D = (−1), D′ = (1), E = {x̃ = −3/4}: P(E | D) = 9/16,
    P(E | D′) = 1/16. With 10^5 trials ε̂_lb lies in [0.9·2 ln 3, 2 ln 3], hence above ln 3, the
    canary's claim.

    Sizing: if k0 is at least its exact binomial 1e-9 quantile and k1 at most its 1 − 1e-9
    quantile, then ε̂_lb >= 0.9·ε (asserted below), so the lower check fails with probability
    < 2e-9; ε̂_lb > ε has probability <= 1e-7 (Clopper–Pearson)."""
    mech = LDPMinimum.with_exp_u(3, 2, 0.5, sampler=sampler)
    eps = 2 * LN3
    p0, p1 = Fraction(9, 16), Fraction(1, 16)
    law0, law1 = mech.exact([-1.0]), mech.exact([1.0])
    assert law0.pmf_mp(-0.75) == pytest.approx(float(p0), abs=1e-30)
    assert law1.pmf_mp(-0.75) == pytest.approx(float(p1), abs=1e-30)
    lo0 = int(stats.binom.ppf(1e-9, TRIALS, float(p0)))
    hi1 = int(stats.binom.isf(1e-9, TRIALS, float(p1)))
    assert _cp_epsilon_lower_bound(lo0, hi1, TRIALS) >= 0.9 * eps  # the sizing argument
    rng = np.random.default_rng(20190526)
    k0 = int(np.count_nonzero(mech.sample([-1.0], TRIALS, rng) == -0.75))
    k1 = int(np.count_nonzero(mech.sample([1.0], TRIALS, rng) == -0.75))
    bound = _cp_epsilon_lower_bound(k0, k1, TRIALS)
    assert 0.9 * eps <= bound <= eps
    canary = FullBudgetPerRound(mech)
    assert bound > canary.claim.epsilon  # the same draws convict the canary (true ratio e^{2ε})


# ============================================================================= conformance

REF_N3 = (1155, 6237, 4851, 9261, 6237, 3267, 1485, 275)  # reference law (notes): D = (−½, 0, ½), /32768


@pytest.mark.parametrize("sampler", ["binomial", "per_user"])
def test_algorithm_2_samplers_conform_to_the_reference_exact_law(sampler) -> None:
    """N = 3, L = 3, e^u = 3, γ = ⅓, D = (−½, 0, ½): the exact law is the reference law of
    ``notes/fukuchi19.md``, and 200 000 draws
    of each sampler (minimum, and the maximum on the mirrored data) pass the Clopper–Pearson
    atom test at α = 1e-7 each."""
    rng = np.random.default_rng(7)
    mech = LDPMinimum.with_exp_u(3, 3, 1 / 3, sampler=sampler)
    data = [-0.5, 0.0, 0.5]
    law = mech.exact(data)
    values = [-1 + Fraction(2 * j + 1, 8) for j in range(8)]
    with workdps():
        for v, count in zip(values, REF_N3, strict=True):
            assert abs(law.pmf_mp(float(v)) - mpmath.mpf(count) / 32768) < 1e-40
    check_sampler(law, mech.sample(data, 200_000, rng)).assert_ok()
    top = LDPMinimum.with_exp_u(3, 3, 1 / 3, sampler=sampler, target="max")
    mirrored = [-v for v in data]
    assert np.allclose(top.exact(mirrored).probabilities, law.probabilities[::-1], atol=0)
    check_sampler(top.exact(mirrored), top.sample(mirrored, 200_000, rng)).assert_ok()


@pytest.mark.parametrize("sampler", ["binomial", "per_user"])
def test_user_transcript_samplers_conform_to_its_exact_law(sampler) -> None:
    """(2N)^L = 216 codes (N = 3, L = 3), 200 000 draws, atom test at α = 1e-7."""
    rng = np.random.default_rng(11)
    mech = UserTranscript.with_exp_u(3, 3, 1 / 3, (0.0, 0.5), sampler=sampler)
    for x in (-0.5, 0.0, 1.0):
        check_sampler(mech.exact(x), mech.sample(x, 200_000, rng)).assert_ok()


def test_user_transcript_loss_attains_epsilon_at_the_ends() -> None:
    """The transcript loss is u·#{t : τ_t ∈ [x, x′)} (transcript.py), all L rounds for x = −1, x′ = 1."""
    for mech in (
        UserTranscript.with_exp_u(3, 3, 0.5, (0.0, -0.5)),
        UserTranscript(1.0, 3, 0.4, (0.25,)),
    ):
        with workdps():
            loss = privacy_loss(mech.exact(-1.0), mech.exact(1.0))
            eps = mech.levels * mech.u
            assert abs(loss - eps) < 1e-40
            assert mech.max_loss(-1.0, 1.0) == eps == mech.loss_bound(-1.0, 1.0)
        assert float(eps) <= mech.claim.epsilon
