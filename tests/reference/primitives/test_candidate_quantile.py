"""The candidate-grid quantile mechanisms (OpenDP's score with permute-and-flip or the exponential
mechanism; eeprivacy's Laplace report-noisy-max): exact laws against independent computations,
samplers against the laws (per-atom Clopper–Pearson, 1e-7 each: 7 such tests, so a correct sampler
fails this module with probability < 1e-6), and the privacy claims by exact computation."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpquant.reference.conformance import check_sampler
from dpquant.reference.core import Mechanism
from dpquant.reference.distributions import privacy_loss
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.candidate_quantile import (
    CandidateQuantile,
    LaplaceNoisyMaxQuantile,
    laplace_noisy_max_log_probabilities,
    opendp_alpha,
    opendp_scores,
    permute_and_flip_log_probabilities,
)

C11 = tuple(float(v) for v in np.linspace(0.0, 1.0, 11))
GRID = (0.05, 0.25, 0.45, 0.55, 0.75, 0.95)


def test_opendp_alpha_and_scores_match_the_library_conventions() -> None:
    """α = 0.5 → 1/2, 0.25 → 1/4, 0.3 → 3000/10000 (denominator >= 10⁴ rounds); on
    [0.2, 0.5, 0.5, 0.7] with candidates (0, ½, 1) the median scores are [4, 0, 4] (points equal
    to the candidate count on neither side). OpenDP counts NaN below every candidate; our data
    policy refuses NaN and ±inf, and a finite value below every candidate gives the same scores."""
    assert opendp_alpha(0.5) == (1, 2) and opendp_alpha(0.25) == (1, 4)
    assert opendp_alpha(0.3) == (3000, 10000) and opendp_alpha(0.0) == (0, 1)
    # the numerator is ⌊α·10⁴⌋ of the floating-point product, as OpenDP's map shows
    # (tests/audit/suites/adapters/test_opendp_alpha.py): never rounded up
    assert opendp_alpha(0.57) == (5699, 10000) and opendp_alpha(1 / 18) == (555, 10000)
    assert opendp_alpha(0.99995) == (9999, 10000) and opendp_alpha(0.29) == (2900, 10000)
    assert opendp_scores([0.2, 0.5, 0.5, 0.7], (0.0, 0.5, 1.0), 0.5).tolist() == [4, 0, 4]
    for bad in ([math.nan, 0.9], [-math.inf, 0.9]):
        with pytest.raises(ValueError, match="^data"):
            opendp_scores(bad, (0.0, 0.5, 1.0), 0.5)
    below = opendp_scores([-1.0, 0.9], (0.0, 0.5, 1.0), 0.5)
    assert below.tolist() == opendp_scores([-5.0, 0.9], (0.0, 0.5, 1.0), 0.5).tolist() == [0, 0, 2]


def assert_probabilities_match(logs: list, brute: list[mpmath.mpf], digits: int) -> None:
    """exp(log-probability) equals the brute-force probability, term by term, to 10^-digits."""
    with workdps():
        for lp, pb in zip(logs, brute, strict=True):
            assert abs(mpmath.exp(lp) - pb) < mpmath.mpf(10) ** -digits


def brute_permute_and_flip(scores: list[int], b: Fraction) -> list[mpmath.mpf]:
    """Permute-and-flip by enumeration: a uniform order, accept c_j with probability p_j."""
    with workdps():
        s_min = min(scores)
        p = [mpmath.exp(-(s - s_min) / mpmath.mpf(b.numerator) * b.denominator) for s in scores]
        k = len(scores)
        out = [mpmath.mpf(0)] * k
        for order in itertools.permutations(range(k)):
            reject = mpmath.mpf(1)
            for j in order:
                out[j] += reject * p[j]
                reject *= 1 - p[j]
        return [v / math.factorial(k) for v in out]


@pytest.mark.parametrize("scores", [[4, 0, 4], [3, 1, 1, 5], [0, 0, 2, 7, 2], [6, 5, 4, 3, 2, 1]])
@pytest.mark.parametrize("b", [Fraction(1), Fraction(5, 2)])
def test_permute_and_flip_integral_equals_enumeration_over_orders(scores, b) -> None:
    logs = permute_and_flip_log_probabilities(scores, b)
    assert_probabilities_match(logs, brute_permute_and_flip(scores, b), 45)
    with workdps():
        assert abs(sum(mpmath.exp(lp) for lp in logs) - 1) < mpmath.mpf(10) ** -45


@pytest.mark.parametrize("gap", [Fraction(0), Fraction(1, 3), Fraction(2), Fraction(7)])
def test_laplace_noisy_max_two_candidates_is_the_laplace_difference_cdf(gap) -> None:
    """K = 2: P(u₁ + L₁ > u₂ + L₂) = 1 − ½e^{−d/b}(1 + d/(2b)) for d = u₁ − u₂ >= 0."""
    b = Fraction(3, 2)
    logs = laplace_noisy_max_log_probabilities([gap, Fraction(0)], b)
    with workdps():
        d, bb = mpmath.mpf(gap.numerator) / gap.denominator, mpmath.mpf(3) / 2
        closed = 1 - mpmath.exp(-d / bb) * (1 + d / (2 * bb)) / 2
        assert abs(mpmath.exp(logs[0]) - closed) < mpmath.mpf(10) ** -45
        assert abs(mpmath.exp(logs[1]) - (1 - closed)) < mpmath.mpf(10) ** -45


MECHANISMS = [
    CandidateQuantile(C11, 0.5, 1.0, "permute_and_flip"),
    CandidateQuantile(C11, 0.3, 2.0, "exponential", "replace_one"),
    CandidateQuantile(C11, 0.9, 0.5, "permute_and_flip", "replace_one"),
    LaplaceNoisyMaxQuantile(C11, 0.5, 1.0),
]


DATA = ([0.2, 0.5, 0.5, 0.7], [0.05, 0.33, 0.41, 0.9, 0.95, 1.2, -3.0])
CASES = [(m, d) for m in MECHANISMS for d in DATA[: 1 if "laplace" in m.name else 2]]


@pytest.mark.parametrize(("mech", "data"), CASES, ids=[f"{m.name}-{len(d)}" for m, d in CASES])
def test_samplers_conform_to_the_exact_laws(mech, data) -> None:
    assert isinstance(mech, Mechanism)
    draws = mech.sample(data, 100_000, np.random.default_rng(7))
    check_sampler(mech.exact(data), draws, 1e-7).assert_ok()


def small_pairs(adjacency: str, max_n: int = 3):
    """Neighbouring pairs on GRID up to size max_n under ``adjacency``."""
    for n in range(1, max_n + 1):
        for base in itertools.combinations_with_replacement(GRID, n - 1):
            if adjacency == "add_remove":
                for y in GRID:
                    yield list(base), [*base, y]
            else:
                for a, b in itertools.combinations(GRID, 2):
                    yield [*base, a], [*base, b]


@pytest.mark.parametrize(
    "mech",
    [
        CandidateQuantile(C11, 0.5, 1.0, "permute_and_flip", "add_remove"),
        CandidateQuantile(C11, 0.5, 1.0, "exponential", "add_remove"),
        CandidateQuantile(C11, 0.25, 1.0, "permute_and_flip", "replace_one"),
    ],
    ids=lambda m: m.name,
)
def test_candidate_quantile_keeps_its_claim_exactly_on_small_families(mech) -> None:
    """OpenDP's privacy map, ε = 2·d_in·max(a, d − a)/(d·scale), holds on every pair of size <= 3
    on a six-point grid (exact losses at 60 digits; permute-and-flip attains it)."""
    worst = max(
        privacy_loss(mech.exact(d0), mech.exact(d1)) for d0, d1 in small_pairs(mech.adjacency)
    )
    with workdps():
        assert 0 < worst <= mpmath.mpf(mech.epsilon) + mpmath.mpf(10) ** -40


def test_laplace_noisy_max_violates_eeprivacys_claim_and_keeps_two_epsilon() -> None:
    """Replace-one pairs of size <= 2 on the grid: the exact loss of report-noisy-max with
    Laplace(1/ε) noise reaches 1.603… > ε = 1 (eeprivacy's claim) but stays <= 2ε (the correct
    claim, the default). The smallest such pair is (0.25, 0.05) vs (0.25, 0.95)."""
    wrong = LaplaceNoisyMaxQuantile(C11, 0.5, 1.0, claim_rule="eeprivacy")
    right = LaplaceNoisyMaxQuantile(C11, 0.5, 1.0)
    assert (wrong.claim.epsilon, right.claim.epsilon) == (1.0, 2.0)
    losses = {
        (tuple(d0), tuple(d1)): privacy_loss(right.exact(d0), right.exact(d1))
        for d0, d1 in small_pairs("replace_one", max_n=2)
    }
    worst_pair, worst = max(losses.items(), key=lambda kv: kv[1])
    assert worst > wrong.claim.epsilon and worst <= right.claim.epsilon
    assert abs(worst - mpmath.mpf("1.6034724263984361")) < 1e-12
    assert sorted(map(sorted, worst_pair)) == [[0.05, 0.25], [0.25, 0.95]]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(candidates=()), "candidates"),
        (dict(candidates=(0.1, 0.1)), "distinct"),
        (dict(candidates=(0.1, math.nan)), "finite"),
        (dict(quantile=1.5), "quantile"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(selection="gumbel"), "selection"),
        (dict(adjacency="local"), "adjacency"),
    ],
)
def test_bad_input_raises_value_error(kwargs, match) -> None:
    args = {"candidates": C11, "quantile": 0.5, "epsilon": 1.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        CandidateQuantile(**args)


def test_laplace_noisy_max_bad_input() -> None:
    with pytest.raises(ValueError, match="claim_rule"):
        LaplaceNoisyMaxQuantile(C11, 0.5, 1.0, claim_rule="library")
    with pytest.raises(ValueError, match="sensitivity"):
        LaplaceNoisyMaxQuantile(C11, 0.5, 1.0, sensitivity=0)


# --------------------------------------------------------------------------------------------
# The contract (issue 18): one base, validated data and fields, exact laws at the extremes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mech", [MECHANISMS[0], MECHANISMS[3]], ids=lambda m: m.name)
@pytest.mark.parametrize(
    "bad",
    [
        [math.nan, 0.5],
        ["0.5", "0.9"],
        [True, 0.5],
        [[0.1, 0.2], [0.3, 0.4]],
        [10**400],
        np.array([0.5 + 1j]),
        [None],
        "0.5",
        [math.inf],
    ],
)
def test_candidate_mechanisms_validate_their_data(mech, bad) -> None:
    """Issue 18: CandidateQuantile and LaplaceNoisyMaxQuantile validated no data at all."""
    from dpquant.reference.core import ExactMechanismBase

    assert isinstance(mech, ExactMechanismBase)
    for call in (
        lambda: mech.sample(bad, 4, np.random.default_rng(0)),
        lambda: mech.exact(bad),
    ):
        with pytest.raises(ValueError, match=r"^data"):
            call()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(candidates=("0", "1")), "^candidates"),
        (dict(candidates=(0.0, True)), "^candidates"),
        (dict(candidates=[[0.0, 1.0]]), "^candidates"),
        (dict(candidates=(2**53, 2**53 + 1)), "^candidates must be distinct"),
        (dict(quantile="0.5"), "^quantile"),
        (dict(epsilon="1"), "^epsilon"),
        (dict(epsilon=10**400), "^epsilon"),
        (dict(selection="Exponential"), "^selection"),
        (dict(selection=" permute_and_flip"), "^selection"),
        (dict(adjacency=None), "^adjacency"),
    ],
)
def test_candidate_quantile_fields_are_checked_exactly(kwargs, match) -> None:
    args = {"candidates": C11, "quantile": 0.5, "epsilon": 1.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        CandidateQuantile(**args)


def test_laplace_noisy_max_fields_are_checked_exactly() -> None:
    for kwargs, match in [
        (dict(sensitivity=1.0), "^sensitivity"),
        (dict(sensitivity=True), "^sensitivity"),
        (dict(sensitivity=2**60), "^sensitivity"),
        (dict(claim_rule="Correct"), "^claim_rule"),
        (dict(claim_rule=1), "^claim_rule"),
    ]:
        with pytest.raises(ValueError, match=match):
            LaplaceNoisyMaxQuantile(C11, 0.5, 1.0, **kwargs)


def test_candidate_mechanisms_refuse_size_zero_and_accept_empty_data() -> None:
    """A mechanism's sample takes a positive size; empty data is a valid input (every score ties,
    the law is uniform over the candidates)."""
    rng = np.random.default_rng(0)
    for mech in (MECHANISMS[0], MECHANISMS[3]):
        with pytest.raises(ValueError, match=r"^size must be an integer in \[1, "):
            mech.sample(DATA[0], 0, rng)
        law = mech.exact([])
        with workdps():
            for lp in law.logp:
                assert abs(lp + mpmath.log(len(C11))) < mpmath.mpf(10) ** -50


def brute_laplace_noisy_max(utilities: list[Fraction], b: Fraction) -> list[mpmath.mpf]:
    """P(argmax) by direct quadrature of ∫ f(z − u_i) ∏_{j≠i} F(z − u_j) dz, split at the
    utilities (40 digits): an independent check of the closed form."""
    with mpmath.workdps(40):
        beta = mpmath.mpf(b.numerator) / b.denominator
        u = [mpmath.mpf(v.numerator) / v.denominator for v in utilities]

        def cdf(y):
            return mpmath.exp(y / beta) / 2 if y < 0 else 1 - mpmath.exp(-y / beta) / 2

        cuts = [mpmath.ninf, *sorted(set(u)), mpmath.inf]
        out = []
        for i, ui in enumerate(u):

            def f(z, i=i, ui=ui):
                value = mpmath.exp(-abs(z - ui) / beta) / (2 * beta)
                for j, uj in enumerate(u):
                    if j != i:
                        value *= cdf(z - uj)
                return value

            out.append(mpmath.quad(f, cuts))
        return out


@pytest.mark.parametrize(
    "utilities",
    [
        [Fraction(0), Fraction(-1), Fraction(-1), Fraction(-3, 2)],
        [Fraction(-2), Fraction(0), Fraction(-5), Fraction(-1, 3), Fraction(0)],
    ],
)
@pytest.mark.parametrize("b", [Fraction(1), Fraction(1, 3), Fraction(7, 2)])
def test_laplace_noisy_max_closed_form_matches_quadrature(utilities, b) -> None:
    logs = laplace_noisy_max_log_probabilities(utilities, b)
    assert_probabilities_match(logs, brute_laplace_noisy_max(utilities, b), 30)


@pytest.mark.parametrize("epsilon", [1e-300, 5e-324, 30.0, 1e6])
@pytest.mark.parametrize("which", [0, 1, 3])
def test_candidate_mechanisms_at_extreme_epsilon_draw_their_exact_law(epsilon, which) -> None:
    """ε from 5e-324 (uniform over the candidates) to 1e6 (the best candidates only): the
    samplers work on score gaps over the scale (−inf where they overflow), the laws in closed
    form; per-atom Clopper–Pearson at 1e-7."""
    base = MECHANISMS[which]
    if isinstance(base, LaplaceNoisyMaxQuantile):
        mech = LaplaceNoisyMaxQuantile(C11, 0.5, epsilon)
    else:
        mech = CandidateQuantile(C11, base.quantile, epsilon, base.selection, base.adjacency)
    law = mech.exact(DATA[1])
    with workdps():
        assert abs(mpmath.fsum(mpmath.exp(lp) for lp in law.logp) - 1) < mpmath.mpf(10) ** -40
    draws = mech.sample(DATA[1], 20_000, np.random.default_rng(17))
    check_sampler(law, draws, 1e-7).assert_ok()


def test_exact_laws_refuse_what_they_cannot_build_in_seconds() -> None:
    many = tuple(float(v) for v in range(401))
    with pytest.raises(ValueError, match=r"^candidates: the exact law .* at most 400"):
        CandidateQuantile(many, 0.5, 1.0).exact([1.0])
    assert len(CandidateQuantile(many, 0.5, 1.0, "exponential").exact([1.0])) == 401
    with pytest.raises(ValueError, match=r"^epsilon must be at most"):
        LaplaceNoisyMaxQuantile(C11, 0.5, 1e300).exact([0.2, 0.5, 0.5, 0.7])
