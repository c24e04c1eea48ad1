"""imola25 under bad input (issue 18): every public entry point of ``dpquant.reference.slice_quantiles``
either answers correctly or refuses with a ``ValueError`` naming the parameter and its range.

Regression tests for the issue's examples in this area: ``clip_range='no'`` (a truthy string
acted as True), ``exact()`` on 200 points (ran for minutes), and a tiny ``epsilon1`` (the CC's
saturated geometric draws gave zero noise), plus the extremes of the other parameters. The
statistical tests are seeded; each fails a correct sampler with probability <= 1e-9.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from dpquant.reference.conformance import check_sampler
from dpquant.reference.core import ExactMechanismBase, MechanismBase
from dpquant.reference.slice_quantiles.aq_mechanism import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
)
from dpquant.reference.slice_quantiles.cc_tails import cc_error_bound
from dpquant.reference.slice_quantiles.exact_law import (
    EXACT_COST_LIMIT,
    MAX_GOOD,
    output_law,
    theorem_4_2_delta,
)
from dpquant.reference.slice_quantiles.good_set import good_set_members, good_set_size
from dpquant.reference.slice_quantiles.joint_exp_mechanism import JointExpMechanism, joint_exp
from dpquant.reference.slice_quantiles.laplace_sums import laplace_sum_cdf_np
from dpquant.reference.slice_quantiles.mechanism import MAX_CC_SCALE, SliceQuantiles, with_options
from dpquant.reference.slice_quantiles.parameters import delta_multiplier, half_width
from dpquant.reference.slice_quantiles.single_quantile import sample_slices_em
from dpquant.reference.slice_quantiles.slice_release import plan_slice_quantiles, slice_quantiles
from dpquant.reference.slice_quantiles.subset_em import subset_em_sample
from dpquant.reference.slice_quantiles.zcdp import em_zcdp_rho, rho_from_epsilon
from dpquant.studies import imola25 as study

ALPHA = 1e-9
X10 = np.arange(1.0, 11.0)


def _tiny(**kw) -> SliceQuantiles:
    base = dict(adjacency="add_remove", clip_range=False)
    base.update(kw)
    return SliceQuantiles((3, 8), 1, 4.0, 2.0, (0.0, 11.0), **base)


def _release_median(data, bounds, epsilon, delta, **options):
    """``slice_quantiles`` of ``data`` at the median, seeded, with the given ``options``."""
    return slice_quantiles(
        data,
        [0.5],
        bounds=bounds,
        epsilon=epsilon,
        delta=delta,
        rng=np.random.default_rng(0),
        **options,
    )


# ---------------------------------------------------------------- the base class


def test_every_mechanism_derives_from_the_base_and_slice_quantiles_claims_the_composed_epsilon():
    assert isinstance(_tiny(), ExactMechanismBase)
    assert isinstance(JointExpMechanism((0.5,), 1.0, (0.0, 1.0)), MechanismBase)
    assert isinstance(ApproximateQuantilesMechanism((0.5,), 1.0, (0.0, 1.0)), MechanismBase)
    assert _tiny().claim.epsilon == 4.0 + 2 * 2.0  # add/remove: ε1 + 2ε2
    rep = _tiny(adjacency="replace_one")
    assert rep.claim.epsilon == 2 * 4.0 + 3 * 2.0
    assert _tiny().domain == (0.0, 11.0) and _tiny(clamp=True).domain == (-math.inf, math.inf)


def test_mechanism_sample_refuses_size_zero_and_bad_rng() -> None:
    for mech in (_tiny(), JointExpMechanism((0.5,), 1.0, (0.0, 11.0))):
        with pytest.raises(ValueError, match="size"):
            mech.sample(X10, 0, np.random.default_rng(0))
        with pytest.raises(ValueError, match="rng"):
            mech.sample(X10, 2, 0)


# ---------------------------------------------------------------- the examples


@pytest.mark.parametrize("bad", ["no", "yes", 1, 0, None, 1.0])
def test_clip_range_no_is_refused_not_read_as_true(bad) -> None:
    with pytest.raises(ValueError, match="clip_range"):
        SliceQuantiles((3, 8), 1, 1.0, 1.0, (0.0, 11.0), clip_range=bad)
    with pytest.raises(ValueError, match="clip_range"):
        plan_slice_quantiles(20, (0, 21), 40.0, 1e-3, quantiles=[0.5], half_width=1, clip_range=bad)
    with pytest.raises(ValueError, match="clip_range"):
        _release_median(np.arange(1.0, 21.0), (0, 21), 40.0, 1e-3, half_width=1, clip_range=bad)


@pytest.mark.parametrize("name", ["clamp"])
def test_other_flags_are_bools_only(name) -> None:
    with pytest.raises(ValueError, match=name):
        SliceQuantiles((3, 8), 1, 1.0, 1.0, (0.0, 11.0), **{name: "no"})
    with pytest.raises(ValueError, match="kss_original_constant"):
        ApproximateQuantilesMechanism((0.5,), 1.0, (0, 1), kss_original_constant="no")
    with pytest.raises(ValueError, match="kss_original_constant"):
        approximate_quantiles(
            [0.5], [0.5], (0, 1), 1.0, np.random.default_rng(0), kss_original_constant=1
        )


def test_exact_law_on_200_points_is_refused_at_once_naming_the_limit() -> None:
    """Used to run for minutes (m = 2, 201 cells, ~19,000 Good vectors): now refused up front."""
    mech = SliceQuantiles((60, 140), 1, 4.0, 2.0, (0.0, 201.0), "add_remove", clip_range=False)
    x = np.arange(1.0, 201.0)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="EXACT_COST_LIMIT|MAX_GOOD") as info:
        mech.exact(x)
    assert time.perf_counter() - start < 1.0
    assert "data" in str(info.value)
    with pytest.raises(ValueError, match="EXACT_COST_LIMIT|MAX_GOOD"):
        output_law(mech, x)
    # ties: 200 copies of one value have 2 cells but still ~19,000 Good vectors
    with pytest.raises(ValueError, match="MAX_GOOD"):
        mech.exact(np.full(200, 5.0))


def test_exact_law_of_a_small_instance_is_still_built() -> None:
    law = _tiny().exact(X10)
    assert law is not None
    assert good_set_size(2, 10, 1) == len(good_set_members(2, 10, 1)) <= MAX_GOOD
    assert EXACT_COST_LIMIT > 0


@pytest.mark.parametrize("epsilon1", [1e-25, 1e-300, 5e-324, 1e-13])
def test_tiny_epsilon1_is_refused_naming_epsilon1(epsilon1) -> None:
    """A tiny ε1 used to reach numpy's saturated geometric draws: zero CC noise."""
    with pytest.raises(ValueError, match="epsilon1"):
        SliceQuantiles((3, 8), 1, epsilon1, 1.0, (0.0, 11.0))
    with pytest.raises(ValueError, match="epsilon"):
        plan_slice_quantiles(10**6, (0, 1), 4 * epsilon1, 1e-6, quantiles=[0.5], half_width=1)


def test_smallest_accepted_epsilon1_draws_large_cc_noise() -> None:
    """At the edge of the accepted range the CC noise is as large as its scale says: every
    coordinate moves by more than 100 (P(|N_i| <= 100) < 1e-10 per coordinate at scale 2^40)."""
    eps1 = 2 / MAX_CC_SCALE  # T = 2 for m = 2
    mech = SliceQuantiles((3, 8), 1, eps1, 1.0, (0.0, 11.0))
    noise = mech.cc.release(np.array([3, 8]), 50, np.random.default_rng(3)) - [3, 8]
    assert np.abs(noise).min() > 100
    with pytest.raises(ValueError, match="epsilon1"):
        SliceQuantiles((3, 8), 1, eps1 / 4, 1.0, (0.0, 11.0))
    # such a CC answers nothing on 10 points: every release is the uniform failure branch
    z = mech.sample(X10, 200, np.random.default_rng(4))
    assert np.all((z >= 0) & (z <= 11)) and z.std() > 2.0


# ---------------------------------------------------------------- extremes of the other parameters


def test_huge_epsilon2_with_ties_follows_the_exact_law() -> None:
    """ε2·|j − t|/2 overflows for every interval of positive length (authors' target t = 5.5,
    eleven tied points): the EM used to return the lower bound every time; the law is uniform
    on [0, 0.5] ∪ [0.5, 1] with equal weights."""
    mech = SliceQuantiles(
        (6,), 5, 50.0, 8e307, (0.0, 1.0), "add_remove", clip_range=False, target="authors"
    )
    x = np.full(11, 0.5)
    draws = mech.sample(x, 20_000, np.random.default_rng(5))
    check_sampler(mech.exact(x), draws, ALPHA).assert_ok()
    assert 0.4 < (draws > 0.5).mean() < 0.6


def test_aq_em_with_huge_epsilon_and_ties_is_not_stuck_at_the_lower_bound() -> None:
    x = np.full(6, 0.5)
    one = np.zeros(4000, dtype=np.int64), np.full(4000, 6), np.zeros(4000), np.ones(4000)
    z = subset_em_sample(x, np.diff(x), *one, 0.5, 1.7e308, 0.5, np.random.default_rng(6))
    assert 0.4 < (z > 0.5).mean() < 0.6  # equal distances on both sides: half above 0.5
    single = subset_em_sample(
        x, np.diff(x), *(v[:1] for v in one), 0.5, 1.7e308, 0.5, np.random.default_rng(7)
    )
    assert 0.0 <= single[0] <= 1.0


def test_slice_em_with_huge_epsilon_picks_the_nearest_interval_of_positive_length() -> None:
    """Five tied points: the paper's target t = 2 is nearer to [lo, 2] (distance 2) than to
    [2, hi] (distance 3); the authors' t = 2.5 is equally near to both."""
    rows = np.tile([2.0, 2.0, 2.0, 2.0, 2.0], (2000, 1))
    lo, hi = np.zeros(2000), np.full(2000, 4.0)
    z = sample_slices_em(rows, lo, hi, 1.7e308, np.random.default_rng(8))
    assert np.all((z >= 0) & (z <= 2))
    z = sample_slices_em(rows, lo, hi, 1.7e308, np.random.default_rng(8), target="authors")
    assert np.all((z >= 0) & (z <= 4)) and 0.4 < (z > 2).mean() < 0.6


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(bounds=(-1e308, 1e308)), "bounds"),
        (dict(bounds=(0.0, math.inf)), "bounds"),
        (dict(grid_step=5e-324, gamma=0.1), "grid_step"),
        (dict(grid_step=20.0), "grid_step"),
        (dict(gamma=1.0, grid_step=0.5), "gamma"),
        (dict(gamma=True, grid_step=0.5), "gamma"),
        (dict(ranks=(10**400,)), "ranks"),
        (dict(ranks=(8, 3)), "ranks"),
        (dict(ranks=(3, 3)), "ranks"),
        (dict(ranks=(3.0, 8.0)), "ranks"),
        (dict(ranks=(True, 8)), "ranks"),
        (dict(ranks="38"), "ranks"),
        (dict(ranks=()), "ranks"),
        (dict(half_width=2**60), "half_width"),
        (dict(half_width=1.0), "half_width"),
        (dict(delta=1.0), "delta"),
        (dict(delta=math.nan), "delta"),
        (dict(epsilon2=math.inf), "epsilon2"),
        (dict(epsilon1=1e308, epsilon2=1e308), "epsilon1"),
        (dict(cc_scale=2.0**60), "cc_scale"),
        (dict(noise="Discrete"), "noise"),
        (dict(good_rule=None), "good_rule"),
        (dict(target="PAPER"), "target"),
    ],
)
def test_slice_quantiles_refuses_each_bad_parameter_by_name(kw, name) -> None:
    args = dict(ranks=(3, 8), half_width=1, epsilon1=1.0, epsilon2=1.0, bounds=(0.0, 11.0))
    args.update(kw)
    with pytest.raises(ValueError, match=name):
        SliceQuantiles(**args)


def test_huge_accepted_half_width_gives_the_failure_branch() -> None:
    mech = SliceQuantiles((3, 8), 2**40, 1.0, 1.0, (0.0, 11.0))
    z = mech.sample(X10, 50, np.random.default_rng(9))
    assert z.shape == (50, 2) and np.all((z >= 0) & (z <= 11))


def test_pure_grid_outputs_never_leave_the_bounds() -> None:
    """(b − a)/step just below an integer: the old +1e-9 count added a grid point above b."""
    step = 11.0 / 2.9999999999
    mech = SliceQuantiles((3, 8), 1, 4.0, 2.0, (0.0, 11.0), gamma=0.5, grid_step=step)
    assert mech.grid_size == 3
    z = mech.sample(X10, 2000, np.random.default_rng(10))
    assert z.max() <= 11.0


def test_with_options_refuses_unknown_fields_and_bad_values() -> None:
    with pytest.raises(ValueError, match="clip_rnage"):
        with_options(_tiny(), clip_rnage=False)
    with pytest.raises(ValueError, match="clip_range"):
        with_options(_tiny(), clip_range="no")


def test_planner_refuses_bad_choices_and_unknown_options() -> None:
    common = dict(quantiles=[0.5], half_width=1)
    with pytest.raises(ValueError, match="variant"):
        plan_slice_quantiles(20, (0, 21), 40.0, 1e-3, variant="Pure", **common)
    with pytest.raises(ValueError, match="error_bound"):
        plan_slice_quantiles(20, (0, 21), 40.0, 1e-3, error_bound=None, **common)
    with pytest.raises(ValueError, match="min_gap"):
        plan_slice_quantiles(20, (0, 21), 40.0, 1e-3, min_gap="1", **common)
    with pytest.raises(ValueError, match="halfwidth"):
        _release_median(X10, (0, 11), 1, 1e-6, halfwidth=1)


def test_replace_one_planning_with_a_huge_epsilon_works_in_log_space() -> None:
    """1 + e^{ε1+2ε2} overflows a float: the planner divides δ by it in log space."""
    plan = plan_slice_quantiles(20, (0, 21), 1e4, 1e-3, quantiles=[0.5], half_width=1)
    assert plan.cc_delta == 0.0 and plan.cc_log_delta < -1000 and 0 <= plan.w <= 3
    z = plan.mechanism.sample(np.arange(1.0, 21.0), 100, np.random.default_rng(11))
    assert np.all((z >= 9) & (z <= 10))  # no CC noise, the EM's target interval [x_9, x_10]
    with pytest.raises(ValueError, match="epsilon1"):
        delta_multiplier(1e4, 1e4, "replace_one")
    with pytest.raises(ValueError, match="epsilon2"):
        half_width(2, 1e-300, 100.0)


def test_theorem_4_2_delta_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="mech"):
        theorem_4_2_delta("SliceQuantiles", 10)
    with pytest.raises(ValueError, match="n"):
        theorem_4_2_delta(_tiny(), 10.0)
    with pytest.raises(ValueError, match="MAX_GOOD"):
        theorem_4_2_delta(SliceQuantiles((60, 140), 1, 4.0, 2.0, (0, 201), "add_remove"), 200)


# ---------------------------------------------------------------- baselines and tails


def test_joint_exp_refuses_an_epsilon_its_log_weights_cannot_carry() -> None:
    x = np.linspace(0.01, 0.99, 50)
    with pytest.raises(ValueError, match="epsilon"):
        joint_exp(x, [0.5], (0.0, 1.0), 1e300, np.random.default_rng(0))
    with pytest.raises(ValueError, match="method"):
        JointExpMechanism((0.5,), 1.0, (0.0, 1.0), method="EXACT")
    assert joint_exp(x, [0.5], (0.0, 1.0), 1e5, np.random.default_rng(0)).shape == (1,)


def test_quantiles_are_numbers_only() -> None:
    for bad in (["0.5"], [True], [0.2, 0.2], [10**400], [[0.5]], "0.5"):
        with pytest.raises(ValueError, match="quantiles"):
            ApproximateQuantilesMechanism(bad, 1.0, (0.0, 1.0))
        with pytest.raises(ValueError, match="quantiles"):
            JointExpMechanism(bad, 1.0, (0.0, 1.0))


def test_exact_cc_error_bound_refuses_requests_it_cannot_finish() -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match="m = "):
        cc_error_bound(1.0, 1e-10, 2**62)
    with pytest.raises(ValueError, match="epsilon"):
        cc_error_bound(1e-30, 1e-10, 1000)  # discrete node ratio below the precision
    assert time.perf_counter() - start < 1.0
    assert cc_error_bound(1.0, 1e-10, 2**62, method="chernoff") > 0


def test_laplace_sum_cdf_holds_at_the_extremes() -> None:
    cdf = laplace_sum_cdf_np(np.array([-math.inf, -1e300, 0.0, 1e300, math.inf]), 200, 1.0)
    assert np.all(np.isfinite(cdf)) and cdf.tolist()[0] == 0.0 and cdf.tolist()[-1] == 1.0


def test_zcdp_conversions_refuse_what_floats_cannot_hold() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        rho_from_epsilon(5e-324, 5e-324)  # used to loop for ever on a rho that underflows
    with pytest.raises(ValueError, match="epsilon"):
        em_zcdp_rho(1e200)


def test_study_entry_points_check_flags_and_lists() -> None:
    with pytest.raises(ValueError, match="quick"):
        study.make_study(quick="no")
    with pytest.raises(ValueError, match="panels"):
        study.make_study(panels="ab")
    with pytest.raises(ValueError, match="plot"):
        study.run(study.make_study(), plot="no")
    with pytest.raises(ValueError, match="progress"):
        study.run(study.make_study(), progress="yes")
    with pytest.raises(ValueError, match="values"):
        study.make_distinct(["1", "2"], 2)
