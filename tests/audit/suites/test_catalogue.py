"""The known-bad catalogue: every entry's exact answer re-derived, its sampler tied to its exact law,
and every entry shown to violate its claim (the controls shown not to)."""

from __future__ import annotations

import itertools
import math
import pickle
from collections import Counter
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
import sympy

from dpquant.audit.suites.catalogue import (
    CATALOGUE,
    CONTROLS,
    CatalogueEntry,
    EMDataBounds,
    EMNoClamp,
    EMNoHalf,
    EMNoWidth,
    EMOutputsDataValue,
    EMUnderflow,
    MedianLocalSensitivityLaplace,
    MultiQuantileFullBudget,
    RRWrongFlip,
    catalogue_entry,
    multi_quantile_exact_epsilon,
)
from dpquant.reference.conformance import check_sampler
from dpquant.reference.core import Mechanism, has_exact
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear, privacy_loss
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse

SEED = 20260707
N_SAMPLES = 100_000
TIGHT = mpmath.mpf("1e-40")
PRECISION = mpmath.mpf("1e-50")  # far above the 60-digit rounding, far below any real gap
ALL = CATALOGUE + CONTROLS
EXACT_ENTRIES = [e for e in CATALOGUE if has_exact(e.mechanism)]
CORRECT_EM = ExponentialQuantile(0.5, 1.0, (0.0, 1.0), adjacency="replace_one")


def ids(entries):
    return [e.name for e in entries]


def frac(x: float) -> Fraction:
    return Fraction(float(x))


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------


def test_catalogue_lists_the_ten_known_bad_mechanisms_under_unique_names() -> None:
    names = [e.name for e in ALL]
    assert len(set(names)) == len(names)
    assert {e.name for e in CATALOGUE} == {
        "em_no_half",
        "em_no_width",
        "em_no_clamp",
        "em_data_bounds",
        "em_outputs_data_value",
        "median_local_sensitivity_laplace",
        "em_underflow",
        "rr_wrong_flip",
        "multi_quantile_full_budget",
        "tzamos20_paper_algorithm_1",
    }
    for entry in ALL:
        assert catalogue_entry(entry.name) is entry
        assert isinstance(entry, CatalogueEntry)
        assert entry.description and "\n" not in entry.description and entry.source


def test_unknown_catalogue_name_raises_and_lists_the_names() -> None:
    with pytest.raises(ValueError, match="em_no_half.*rr_wrong_flip"):
        catalogue_entry("em_no_such_thing")


@pytest.mark.parametrize("entry", ALL, ids=ids(ALL))
def test_mechanism_satisfies_the_protocol_and_pickles(entry) -> None:
    mech = entry.mechanism
    assert isinstance(mech, Mechanism)
    clone = pickle.loads(pickle.dumps(mech))
    assert clone == mech
    d0 = entry.witness[0] if entry.name != "em_underflow" else entry.witness[1]
    a = mech.sample(np.array(d0), 50, np.random.default_rng(SEED))
    b = clone.sample(np.array(d0), 50, np.random.default_rng(SEED))
    assert np.array_equal(a, b)
    assert a.shape[0] == 50


@pytest.mark.parametrize("entry", ALL, ids=ids(ALL))
def test_witness_is_a_neighbouring_pair_under_the_claimed_adjacency(entry) -> None:
    d0, d1 = entry.witness
    lo, hi = entry.mechanism.domain
    assert all(lo <= x <= hi for x in d0 + d1)
    adjacency = entry.mechanism.claim.adjacency
    if adjacency == "replace_one":
        assert len(d0) == len(d1)
        removed, added = Counter(d0) - Counter(d1), Counter(d1) - Counter(d0)
        assert sum(removed.values()) == 1 and sum(added.values()) == 1
    else:
        assert adjacency == "local"
        assert len(d0) == len(d1) == 1 and d0 != d1


@pytest.mark.parametrize("entry", CATALOGUE, ids=ids(CATALOGUE))
def test_every_catalogue_entry_violates_its_claim(entry) -> None:
    assert entry.epsilon_exact is not None
    assert entry.epsilon_exact > entry.mechanism.claim.epsilon


@pytest.mark.parametrize("entry", CONTROLS, ids=ids(CONTROLS))
def test_control_entries_keep_their_claim_on_the_witness(entry) -> None:
    mech = entry.mechanism
    loss = privacy_loss(mech.exact(entry.witness[0]), mech.exact(entry.witness[1]))
    assert abs(loss - to_mpf(entry.epsilon_exact)) < 1e-15
    assert loss <= mech.claim.epsilon + PRECISION  # RR: exactly ε, up to the working precision


# --------------------------------------------------------------------------------------------
# Samplers conform to the exact laws, and the check has power
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", EXACT_ENTRIES, ids=ids(EXACT_ENTRIES))
def test_sampler_conforms_to_the_exact_law_on_both_witness_data_sets(entry) -> None:
    mech = entry.mechanism
    rng = np.random.default_rng(SEED)
    for data in entry.witness:
        draws = mech.sample(np.array(data), N_SAMPLES, rng)
        assert draws.shape[0] == N_SAMPLES
        check_sampler(mech.exact(data), draws).assert_ok()


# name -> (the correct mechanism, which witness data set)
CORRECT_COUNTERPART = {
    "em_no_half": (CORRECT_EM, 0),
    "em_no_width": (CORRECT_EM, 0),
    "em_no_clamp": (CORRECT_EM, 1),
    "em_data_bounds": (CORRECT_EM, 0),
    "em_outputs_data_value": (CORRECT_EM, 0),
    "rr_wrong_flip": (RandomizedResponse(1.0), 0),
}


@pytest.mark.parametrize("name", sorted(CORRECT_COUNTERPART))
def test_correct_mechanism_fails_conformance_to_the_buggy_law_and_vice_versa(name) -> None:
    entry = catalogue_entry(name)
    correct, which = CORRECT_COUNTERPART[name]
    data = np.array(entry.witness[which])
    rng = np.random.default_rng(SEED)
    good_draws = correct.sample(data, N_SAMPLES, rng)
    assert not check_sampler(entry.mechanism.exact(data), good_draws).passed
    bad_draws = entry.mechanism.sample(data, N_SAMPLES, rng)
    assert not check_sampler(correct.exact(data), bad_draws).passed


def test_multi_quantile_columns_conform_to_the_full_budget_exponential_mechanisms() -> None:
    entry = catalogue_entry("multi_quantile_full_budget")
    mech = entry.mechanism
    draws = mech.sample(np.array(entry.witness[0]), N_SAMPLES, np.random.default_rng(SEED))
    assert draws.shape == (N_SAMPLES, 3)
    for column, em in zip(draws.T, mech.components, strict=True):
        assert em.epsilon == mech.epsilon  # the budget is not split
        check_sampler(em.exact(entry.witness[0]), column).assert_ok()
    assert mech.sample([0.5], 1, np.random.default_rng(0)).shape == (1, 3)
    with pytest.raises(ValueError, match="size"):  # a mechanism draws at least once per call
        mech.sample([0.5], 0, np.random.default_rng(0))


# --------------------------------------------------------------------------------------------
# The exact answers, re-derived
# --------------------------------------------------------------------------------------------


def test_em_no_half_exact_epsilon_is_1_47_on_three_point_witness() -> None:
    """Densities e^{-1/2}/Z, e^{-3/2}/Z against e^{-3/2}/Z', e^{-1/2}/Z' on [0, .25], [.25, 1]:
    ε = 1 + ln(Z'/Z) = 1 + ln((3e + 1)/(e + 3))."""
    entry = catalogue_entry("em_no_half")
    mech = entry.mechanism
    loss = privacy_loss(mech.exact(entry.witness[0]), mech.exact(entry.witness[1]))
    with workdps():
        closed_form = 1 + mpmath.log((3 * mpmath.e + 1) / (mpmath.e + 3))
        assert abs(loss - closed_form) < TIGHT
    assert round(float(loss), 3) == 1.471  # notes/auditor.md, B1: 1.47
    assert float(loss) == entry.epsilon_exact
    correct = privacy_loss(CORRECT_EM.exact(entry.witness[0]), CORRECT_EM.exact(entry.witness[1]))
    assert abs(correct - to_mpf(catalogue_entry("control_em_median").epsilon_exact)) < 1e-15


def test_em_no_width_exact_epsilon_is_ln_4_on_the_witness() -> None:
    """The normalisers agree; the narrow interval [.5, .6] against [.5, .9] gives the ratio
    (.9 − .5)/(.6 − .5) = 4 (exactly, in the binary values of the floats)."""
    entry = catalogue_entry("em_no_width")
    mech = entry.mechanism
    loss = privacy_loss(mech.exact(entry.witness[0]), mech.exact(entry.witness[1]))
    with workdps():
        ratio = (frac(0.9) - frac(0.5)) / (frac(0.6) - frac(0.5))
        assert abs(loss - mpmath.log(to_mpf(ratio))) < TIGHT
        assert abs(loss - mpmath.log(4)) < 1e-15
    assert float(loss) == entry.epsilon_exact
    assert round(float(loss), 3) == 1.386  # notes/auditor.md, B3


@pytest.mark.parametrize("gap, recorded", [(1e-2, 3.689), (1e-4, 8.294), (1e-8, 17.504)])
def test_em_no_width_loss_is_ln_point4_over_gap_and_unbounded(gap, recorded) -> None:
    mech = EMNoWidth()
    d0, d1 = (0.2, 0.5, 0.5 + gap), (0.2, 0.5, 0.9)
    loss = privacy_loss(mech.exact(d0), mech.exact(d1))
    with workdps():
        ratio = (frac(0.9) - frac(0.5)) / (frac(0.5 + gap) - frac(0.5))
        assert abs(loss - mpmath.log(to_mpf(ratio))) < TIGHT
    assert round(float(loss), 3) == recorded  # notes/auditor.md, B3: 3.69, 8.29, 17.5
    # the correct EM stays near 0.30 on the same pairs (notes/auditor.md, B3: 0.30–0.36)
    assert 0.30 < privacy_loss(CORRECT_EM.exact(d0), CORRECT_EM.exact(d1)) < 0.36


def infinite_on_the_witness(name: str) -> tuple[CatalogueEntry, Any, Any]:
    """Catalogue entry ``name`` and its exact laws on its witness pair, checked to be an infinite
    privacy loss (as recorded in the entry)."""
    entry = catalogue_entry(name)
    p, q = entry.mechanism.exact(entry.witness[0]), entry.mechanism.exact(entry.witness[1])
    assert privacy_loss(p, q) == mpmath.inf and entry.epsilon_exact == math.inf
    return entry, p, q


def test_em_no_clamp_exact_epsilon_is_infinite_on_the_outlier_witness() -> None:
    entry, p, q = infinite_on_the_witness("em_no_clamp")
    assert p.mass(1.0, 1000.0) == 0 and q.mass(1.0, 1000.0) > mpmath.mpf("0.001")
    draws = entry.mechanism.sample(np.array(entry.witness[1]), 10_000, np.random.default_rng(SEED))
    assert (draws > 1).mean() > 0.1  # the sampler really leaves the bounds


def test_em_no_clamp_is_the_correct_em_on_data_inside_the_bounds() -> None:
    for data in [(0.5, 0.5), (0.0, 0.25, 0.25, 1.0), (0.1, 0.7, 0.9)]:
        assert privacy_loss(EMNoClamp().exact(data), CORRECT_EM.exact(data)) == 0


def test_em_data_bounds_exact_epsilon_is_infinite_because_the_range_moves() -> None:
    _, p, q = infinite_on_the_witness("em_data_bounds")
    assert p.mass(0.5, 0.9) == 0 and q.mass(0.5, 0.9) > mpmath.mpf("0.1")
    assert p.mass(0.0, 0.2) == 0 and p.mass(0.2, 0.5) > 1 - TIGHT


def test_em_data_bounds_outputs_the_value_when_all_data_coincide() -> None:
    mech = EMDataBounds()
    law = mech.exact([0.3, 0.3])
    assert isinstance(law, DiscreteLaw) and law.support == (0.3,)
    assert np.all(mech.sample([0.3, 0.3], 20, np.random.default_rng(0)) == 0.3)
    assert privacy_loss(law, mech.exact([0.3, 0.4])) == mpmath.inf


def test_em_outputs_data_value_exact_epsilon_is_infinite_on_single_values() -> None:
    _, p, q = infinite_on_the_witness("em_outputs_data_value")
    assert p.pmf_mp(0.25) == 1 and q.pmf_mp(0.25) == 0


def test_em_outputs_data_value_law_merges_ties_by_rank_weights() -> None:
    """D = (.1, .4, .4, .9), q = ½, t = 2: ranks 1..4 weigh e^{-1/2}, 1, e^{-1/2}, e^{-1}."""
    law = EMOutputsDataValue().exact([0.4, 0.9, 0.1, 0.4])
    with workdps():
        h = mpmath.exp(mpmath.mpf(-1) / 2)
        z = 1 + 2 * h + h * h
        assert abs(law.pmf_mp(0.1) - h / z) < TIGHT
        assert abs(law.pmf_mp(0.4) - (1 + h) / z) < TIGHT
        assert abs(law.pmf_mp(0.9) - h * h / z) < TIGHT


def test_median_local_sensitivity_laplace_has_an_atom_under_one_witness_only() -> None:
    entry = catalogue_entry("median_local_sensitivity_laplace")
    mech = entry.mechanism
    d0, d1 = entry.witness
    assert mech.median_and_local_sensitivity(d0) == (0.0, 0.0)
    assert mech.median_and_local_sensitivity(d1) == (0.0, 1.0)
    rng = np.random.default_rng(SEED)
    assert np.all(mech.sample(d0, 10_000, rng) == 0.0)  # an atom at the median
    assert not np.any(mech.sample(d1, 10_000, rng) == 0.0)  # a density: P(output = 0) = 0
    p, q = mech.exact(d0), mech.exact(d1)
    assert isinstance(p, DiscreteLaw) and isinstance(q, PiecewiseLogLinear)
    assert p.pmf_mp(0.0) == 1 and q.mass(0, 0) == 0
    assert privacy_loss(p, q) == mpmath.inf and entry.epsilon_exact == math.inf


@pytest.mark.parametrize(
    "data, median, ls",
    [
        ((0.3,), 0.3, 0.7),  # n = 1: both neighbours are the bounds
        ((0.2, 0.6), 0.2, 0.4),  # even n: the lower median x_(n/2)
        ((0.1, 0.2, 0.6, 0.7), 0.2, 0.4),
        ((1.0, 1.0, 1.0), 1.0, 0.0),  # x_(n+1) := b = 1
    ],
)
def test_median_local_sensitivity_convention(data, median, ls) -> None:
    got = MedianLocalSensitivityLaplace().median_and_local_sensitivity(data)
    assert got == pytest.approx((median, ls), abs=1e-15)


def test_rr_wrong_flip_exact_epsilon_is_ln_2e_minus_1() -> None:
    entry = catalogue_entry("rr_wrong_flip")
    mech = entry.mechanism
    loss = privacy_loss(mech.exact(0), mech.exact(1))
    symbolic = sympy.N(sympy.log(2 * sympy.E - 1), 50)
    with workdps():
        assert abs(loss - mpmath.mpf(str(symbolic))) < TIGHT
    assert str(symbolic).startswith("1.48988012564474")
    assert float(loss) == entry.epsilon_exact
    # the derivation: keep/flip = (1 − e^{−ε}/2)/(e^{−ε}/2) = 2e^ε − 1, for any ε
    eps = sympy.symbols("epsilon", positive=True)
    keep = 1 - sympy.exp(-eps) / 2
    assert sympy.simplify(keep / (1 - keep) - (2 * sympy.exp(eps) - 1)) == 0


def test_multi_quantile_full_budget_exact_epsilon_is_2_158_on_the_four_point_witness() -> None:
    entry = catalogue_entry("multi_quantile_full_budget")
    loss = multi_quantile_exact_epsilon(entry.mechanism, *entry.witness)
    assert loss >= 2.0
    assert abs(loss - to_mpf(entry.epsilon_exact)) < 1e-15
    assert round(float(loss), 3) == 2.158  # notes/auditor.md, B8: 2.158 on a 4-point grid
    assert loss <= 3 * entry.mechanism.epsilon  # composition


def brute_force_joint_loss(mech, d0, d1) -> mpmath.mpf:
    """Independent oracle: the joint log-ratio at the centre of every product cell."""
    per_coordinate = []
    for em in mech.components:
        p, q = em.exact(d0), em.exact(d1)
        points = sorted(set(p.breaks) | set(q.breaks))
        centres = [(a + b) / 2 for a, b in itertools.pairwise(points)]
        per_coordinate.append([p.logpdf_mp(y) - q.logpdf_mp(y) for y in centres])
    with workdps():
        return max(abs(mpmath.fsum(combo)) for combo in itertools.product(*per_coordinate))


@pytest.mark.parametrize(
    "d0, d1",
    [
        ((0.0, 0.25, 0.25, 0.25), (0.25, 0.25, 0.25, 1.0)),
        ((0.0, 0.5, 0.5, 0.5), (0.5, 0.5, 0.5, 1.0)),
        ((0.25, 0.75), (0.25, 1.0)),
    ],
)
def test_multi_quantile_exact_epsilon_matches_the_product_cell_oracle(d0, d1) -> None:
    mech = catalogue_entry("multi_quantile_full_budget").mechanism
    product = privacy_loss(mech.exact(d0), mech.exact(d1))  # ProductLaw path
    assert abs(product - multi_quantile_exact_epsilon(mech, d0, d1)) < PRECISION
    mech = MultiQuantileFullBudget()
    assert abs(
        multi_quantile_exact_epsilon(mech, d0, d1) - brute_force_joint_loss(mech, d0, d1)
    ) < (TIGHT)


def test_multi_quantile_loss_is_not_the_sum_of_two_sided_coordinate_losses() -> None:
    """On (0, .5, .5, .5) vs (.5, .5, .5, 1) the coordinates' worst directions differ: the joint
    loss is 1.5 while the sum of the per-coordinate privacy losses is 1.95."""
    mech = MultiQuantileFullBudget()
    d0, d1 = (0.0, 0.5, 0.5, 0.5), (0.5, 0.5, 0.5, 1.0)
    joint = multi_quantile_exact_epsilon(mech, d0, d1)
    naive = mpmath.fsum(privacy_loss(em.exact(d0), em.exact(d1)) for em in mech.components)
    assert abs(joint - mpmath.mpf("1.5")) < TIGHT
    assert naive > joint + mpmath.mpf("0.45")


@pytest.mark.audit
def test_multi_quantile_witness_is_the_worst_pair_of_size_at_most_4_on_the_quarter_grid() -> None:
    mech = MultiQuantileFullBudget()
    grid = (0.0, 0.25, 0.5, 0.75, 1.0)
    best, best_pair = mpmath.mpf(0), None
    for n in range(1, 5):
        for d0 in itertools.combinations_with_replacement(grid, n):
            for i, v in itertools.product(range(n), grid):
                d1 = tuple(sorted(d0[:i] + (v,) + d0[i + 1 :]))
                if d1 <= d0:  # each unordered pair once (the loss is symmetric)
                    continue
                loss = multi_quantile_exact_epsilon(mech, d0, d1)
                if loss > best:
                    best, best_pair = loss, (d0, d1)
    entry = catalogue_entry("multi_quantile_full_budget")
    assert best_pair == entry.witness
    assert abs(best - to_mpf(entry.epsilon_exact)) < 1e-15


# --------------------------------------------------------------------------------------------
# em_underflow: a data-dependent exception
# --------------------------------------------------------------------------------------------


def _raises(mech: EMUnderflow, data) -> bool:
    try:
        mech.sample(data, 1, np.random.default_rng(0))
    except ValueError as exc:
        assert str(exc) == "no candidate"
        return True
    return False


def test_em_underflow_boundary_n_is_the_first_raising_size_and_its_neighbour_does_not_raise() -> (
    None
):
    mech = EMUnderflow()
    n = next(n for n in itertools.count(1) if _raises(mech, [0.0] * n + [1.0]))
    assert n == len(catalogue_entry("em_underflow").witness[0]) - 1
    assert not _raises(mech, [0.0] * (n - 1) + [1.0, 1.0])
    # the single weight exp(−ε(n − 1)/4) underflows just there: e^-745.25 = 0 < e^-745 (subnormal)
    assert np.exp(-(n - 1) / 4) == 0 and np.exp(-(n - 2) / 4) > 0


def test_em_underflow_raises_deterministically_on_the_witness_whatever_the_generator() -> None:
    entry = catalogue_entry("em_underflow")
    mech = entry.mechanism
    d0, d1 = (np.array(d) for d in entry.witness)
    for seed in range(20):
        with pytest.raises(ValueError, match="^no candidate$"):
            mech.sample(d0, 100, np.random.default_rng(seed))
        draws = mech.sample(d1, 100, np.random.default_rng(seed))
        assert np.all((draws >= 0) & (draws <= 1))
    assert entry.epsilon_exact == math.inf  # the error atom has probability 1 under d0, 0 under d1


def test_em_underflow_never_raises_on_small_data_and_samples_the_correct_em() -> None:
    mech = EMUnderflow()
    data_rng = np.random.default_rng(SEED)
    for n in range(0, 200, 7):
        data = data_rng.choice([0.0, 0.25, 0.5, 1.0, 2.0, -1.0], size=n)
        assert not _raises(mech, data)
    data = [0.0] * 1000 + [1.0]
    draws = mech.sample(data, N_SAMPLES, np.random.default_rng(SEED))
    check_sampler(CORRECT_EM.exact(data), draws).assert_ok()


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: EMNoHalf(quantile=1.5), "quantile"),
        (lambda: EMNoWidth(epsilon=0.0), "epsilon"),
        (lambda: EMNoClamp(bounds=(1.0, 0.0)), "bounds"),
        (lambda: EMDataBounds(bounds=(0.0, math.inf)), "bounds"),
        (lambda: EMOutputsDataValue(epsilon=math.nan), "epsilon"),
        (lambda: MedianLocalSensitivityLaplace(epsilon=-1.0), "epsilon"),
        (lambda: MedianLocalSensitivityLaplace(bounds=(0.0,)), "bounds"),
        (lambda: EMUnderflow(quantile=math.nan), "quantile"),
        (lambda: RRWrongFlip(epsilon=math.inf), "epsilon"),
        (lambda: MultiQuantileFullBudget(quantiles=()), "quantiles"),
        (lambda: MultiQuantileFullBudget(quantiles=(0.5, 2.0)), "quantiles"),
        (lambda: MultiQuantileFullBudget(quantiles=5), "quantiles"),
        (lambda: MultiQuantileFullBudget(epsilon=True), "epsilon"),
    ],
)
def test_bad_constructor_arguments_raise(build, match) -> None:
    with pytest.raises(ValueError, match=match):
        build()


BAD_DATA = [[math.nan], [0.1, math.inf], [[0.1]], "x"]


@pytest.mark.parametrize("entry", CATALOGUE, ids=ids(CATALOGUE))
def test_bad_data_size_and_rng_raise(entry) -> None:
    mech = entry.mechanism
    good = entry.witness[1]
    rng = np.random.default_rng(0)
    for data in BAD_DATA:
        with pytest.raises(ValueError, match="data"):
            mech.sample(data, 3, rng)
    with pytest.raises(ValueError, match="size"):
        mech.sample(good, -1, rng)
    with pytest.raises(ValueError, match="rng"):
        mech.sample(good, 3, 42)


@pytest.mark.parametrize(
    "mech, data",
    [
        (EMDataBounds(), [0.5, 2.0]),
        (EMDataBounds(), []),
        (EMOutputsDataValue(), [-0.1]),
        (EMOutputsDataValue(), []),
        (MedianLocalSensitivityLaplace(), [1.5]),
        (MedianLocalSensitivityLaplace(), []),
        (RRWrongFlip(), [0.5]),
        (RRWrongFlip(), [0.0, 1.0]),
    ],
)
def test_out_of_domain_or_empty_data_raise(mech, data) -> None:
    with pytest.raises(ValueError, match="data"):
        mech.sample(data, 3, np.random.default_rng(0))
    if has_exact(mech):
        with pytest.raises(ValueError, match="data"):
            mech.exact(data)


def test_tzamos20_paper_algorithm_1_exact_epsilon_is_nine_eighths_on_the_witness() -> None:
    """Both witness data sets lie in tzamos20's typical set H (n = 9, C = 1, K = 2: five ties at
    the median fill both windows), so the printed Algorithm 1 samples the restricted laws at the
    medians −5 and −1/2; their exact loss is (ε/4)·min{(Ln/3C)·9/2, Lrn} = 9/8 > ε = 1."""
    from dpquant.reference.private_median.typical_set import in_typical_set

    entry = catalogue_entry("tzamos20_paper_algorithm_1")
    mech = entry.mechanism
    d0, d1 = (list(d) for d in entry.witness)
    params = mech.parameters(9)
    assert in_typical_set(d0, params) and in_typical_set(d1, params)
    assert mech.restricted(d0) and mech.restricted(d1)
    loss = privacy_loss(mech.exact(d0), mech.exact(d1))
    assert abs(loss - mpmath.mpf(9) / 8) < TIGHT
    assert entry.epsilon_exact == 9 / 8


# --------------------------------------------------------------------------------------------
# One contract (issue 18): the bad mechanisms break privacy, not input checking
# --------------------------------------------------------------------------------------------

CATALOGUE_CLASSES = [
    EMNoHalf,
    EMNoWidth,
    EMNoClamp,
    EMDataBounds,
    EMOutputsDataValue,
    EMUnderflow,
    MedianLocalSensitivityLaplace,
    RRWrongFlip,
    MultiQuantileFullBudget,
]


@pytest.mark.parametrize("cls", CATALOGUE_CLASSES, ids=lambda c: c.__name__)
def test_every_catalogue_class_derives_from_the_mechanism_base(cls) -> None:
    from dpquant.reference.core import ExactMechanismBase, MechanismBase

    mech = cls()
    assert isinstance(mech, MechanismBase)
    assert isinstance(mech, ExactMechanismBase) == (cls is not EMUnderflow)
    # no class re-implements the public checked entry points
    assert "sample" not in vars(cls) and "exact" not in vars(cls)


@pytest.mark.parametrize("cls", CATALOGUE_CLASSES, ids=lambda c: c.__name__)
def test_catalogue_class_refuses_size_zero_bad_flags_and_strings_naming_the_parameter(cls) -> None:
    mech, rng = cls(), np.random.default_rng(0)
    good = 1 if cls is RRWrongFlip else [0.25, 0.75]
    for size in (0, True, 2.0, 10**12):
        with pytest.raises(ValueError, match="size"):
            mech.sample(good, size, rng)
    with pytest.raises(ValueError, match="epsilon"):
        cls(epsilon="1")
    for data in (["0.5"], [True, 0.5], [10**400], np.array([0.5 + 1j])):
        with pytest.raises(ValueError, match="data"):
            mech.sample(data, 2, rng)


def test_em_underflow_base_checks_do_not_change_which_data_raise() -> None:
    """Size and rng are refused before the data are looked at, and the data-dependent
    "no candidate" is still raised on exactly the witness (and not its neighbour)."""
    entry = catalogue_entry("em_underflow")
    mech = entry.mechanism
    d0, d1 = entry.witness
    with pytest.raises(ValueError, match="^size"):
        mech.sample(d0, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="^rng"):
        mech.sample(d0, 1, 0)
    with pytest.raises(ValueError, match="^no candidate$"):
        mech.probabilities(d0)
    z, p = mech.probabilities(d1)
    assert abs(p.sum() - 1) < 1e-12 and len(z) == len(d1) + 2


def test_em_no_clamp_and_median_laplace_declare_no_output_range() -> None:
    assert EMNoClamp().output_range is None  # the outlier stretches the range (the bug)
    assert MedianLocalSensitivityLaplace().output_range is None  # Laplace noise is unbounded
    assert EMDataBounds().output_range == (0.0, 1.0)
    draws = EMNoClamp().sample([0.5, 1000.0], 2000, np.random.default_rng(SEED))
    assert draws.max() > 1.0  # the base lets the buggy outputs through: they are the leak


@pytest.mark.parametrize("cls", [EMNoWidth, EMNoClamp, EMOutputsDataValue])
def test_huge_epsilon_gives_a_normalised_law_and_finite_draws_at_the_nearest_rank(cls) -> None:
    """ε = 1e308: ε·|j − t|/2 overflows for every j but the nearest. The log-weights are shifted
    by the nearest distance, so no −inf − (−inf) = NaN, and the exact law has mass 1 (it was 2.0
    for EMOutputsDataValue: log-weights −2.5e307 swamped the log 2 of the tie at 60 digits)."""
    mech = cls(epsilon=1e308)
    data = [0.2, 0.5, 0.7]  # t = 1.5: ranks 1 and 2 tie
    law = mech.exact(data)
    with workdps():
        total = law.mass(-math.inf, math.inf)
        assert abs(total - 1) < TIGHT
    draws = mech.sample(data, 1000, np.random.default_rng(SEED))
    assert np.isfinite(draws).all()
    check_sampler(law, draws).assert_ok()


@pytest.mark.parametrize("cls", [EMNoWidth, EMNoClamp])
def test_huge_epsilon_with_every_interval_far_from_the_target_is_not_nan(cls) -> None:
    """Ten ties at .5, ε = 1e308: both intervals [0, .5] and [.5, 1] lie 5 ranks from t = 5, so
    every unshifted log-weight was −inf; the exact law was refused ("intercepts") and the sampler
    always chose the last interval. Now each half has mass ½, as the law says."""
    mech, data = cls(epsilon=1e308), [0.5] * 10
    law = mech.exact(data)
    assert abs(law.mass(0.0, 0.5) - mpmath.mpf(1) / 2) < TIGHT
    draws = mech.sample(data, 2000, np.random.default_rng(SEED))
    check_sampler(law, draws).assert_ok()
    assert 0.4 < (draws < 0.5).mean() < 0.6


def test_an_interval_narrower_than_the_float_spacing_is_refused_not_sampled_wrong() -> None:
    """A density on an interval one float spacing wide: a "uniform" point rounds to its ends
    (EMNoWidth on (5e-324, 0, 1e-300) drew 0 with probability 1/4 where the law has no atom: a
    DKW gap of 0.25). The catalogue refuses such laws, as the laws' own samplers do, naming the
    parameters and the data; the exact law is still given."""
    mech, data = EMNoWidth(), [5e-324, 0.0, 1e-300]  # density weight/width on [0, 5e-324]
    with pytest.raises(ValueError, match="bounds.*data.*float64"):
        mech.sample(data, 10, np.random.default_rng(0))
    with workdps():
        assert abs(mech.exact(data).mass(-math.inf, math.inf) - 1) < TIGHT


@pytest.mark.parametrize("cls", [EMNoClamp, EMNoHalf, MultiQuantileFullBudget])
def test_bounds_narrower_than_the_float_spacing_are_refused_at_construction(cls) -> None:
    """Bounds one float spacing wide, (0, 5e-324): every EM-like entry refuses them when built,
    as ``ExponentialQuantile`` does (``check_bounds``), naming ``bounds``."""
    with pytest.raises(ValueError, match="bounds must be wider than 2\\^12 float spacings"):
        cls(bounds=(0.0, 5e-324))


def test_data_bounds_narrower_than_the_float_spacing_are_refused_naming_the_data() -> None:
    """EMDataBounds takes its bounds from the data: [min D, max D] = [0, 5e-324] is refused by
    ``sample`` and ``exact`` alike, naming the data."""
    mech = EMDataBounds()
    for call in (
        lambda: mech.sample([0.0, 5e-324], 10, np.random.default_rng(0)),
        lambda: mech.exact([0.0, 5e-324]),
    ):
        with pytest.raises(ValueError, match="data give the bounds"):
            call()


def test_median_local_sensitivity_laplace_refuses_a_noise_scale_lost_in_rounding() -> None:
    """ε = 1e300 on (0.1, 0.4, 0.9): LS/ε = 5e-301 is far below ulp(0.4), so 0.4 + noise would be
    the atom 0.4 while the law is a density; sample and exact refuse, naming ε and the data."""
    mech = MedianLocalSensitivityLaplace(epsilon=1e300)
    for call in (
        lambda: mech.sample([0.1, 0.4, 0.9], 10, np.random.default_rng(0)),
        lambda: mech.exact([0.1, 0.4, 0.9]),
    ):
        with pytest.raises(ValueError, match="epsilon.*data"):
            call()
    tiny = MedianLocalSensitivityLaplace(epsilon=5e-324, bounds=(0.0, 1e308))  # LS/ε overflows
    with pytest.raises(ValueError, match="epsilon"):
        tiny.sample([0.5], 10, np.random.default_rng(0))
    # the atom case needs no noise at all
    assert np.all(mech.sample([0.4, 0.4, 0.4], 5, np.random.default_rng(0)) == 0.4)


def test_em_outputs_data_value_exact_refuses_more_points_than_its_limit() -> None:
    mech = EMOutputsDataValue()
    n = mech.max_exact_points + 1
    with pytest.raises(ValueError, match="data.*at most"):
        mech.exact(np.full(n, 0.5))
    assert mech.sample(np.full(n, 0.5), 3, np.random.default_rng(0)).tolist() == [0.5] * 3


def test_multi_quantile_quantiles_and_draws_are_bounded() -> None:
    from dpquant.audit.suites.catalogue import MAX_QUANTILES

    for bad in ((0.5,) * (MAX_QUANTILES + 1), "0.5", {0.5}, np.zeros((2, 2)), (True,), None):
        with pytest.raises(ValueError, match="quantiles"):
            MultiQuantileFullBudget(quantiles=bad)
    assert MultiQuantileFullBudget(quantiles=np.array([0.5, 0.25])).quantiles == (0.5, 0.25)
    mech = MultiQuantileFullBudget(quantiles=(0.5,) * 10)
    with pytest.raises(ValueError, match="size must be at most"):  # k·size numbers per call
        mech.sample([0.5], mech.max_draws // 10 + 1, np.random.default_rng(0))


def test_multi_quantile_exact_epsilon_names_bad_arguments() -> None:
    mech = MultiQuantileFullBudget()
    with pytest.raises(ValueError, match="mech"):
        multi_quantile_exact_epsilon(EMNoHalf(), [0.5], [0.25])
    with pytest.raises(ValueError, match="d0"):
        multi_quantile_exact_epsilon(mech, ["0.5"], [0.25])
    with pytest.raises(ValueError, match="d1"):
        multi_quantile_exact_epsilon(mech, [0.5], [math.nan])


def test_catalogue_entry_refuses_a_name_that_is_not_a_string_naming_it() -> None:
    for bad in (5, None, ["em_no_half"], b"em_no_half"):
        with pytest.raises(ValueError, match="^name must be.*em_no_half"):
            catalogue_entry(bad)


def test_wrong_keep_probability_refuses_bad_epsilon() -> None:
    from dpquant.audit.suites.catalogue import wrong_keep_probability_mp

    for bad in (math.nan, math.inf, 0, -1.0, "1", True, 10**400):
        with pytest.raises(ValueError, match="epsilon"):
            wrong_keep_probability_mp(bad)
    assert wrong_keep_probability_mp(1e308) == 1
