"""Bad and extreme input on fukuchi19's package (issue 18): the examples of the issue and the
limits they led to. Each test names what it checks; every refusal is a ``ValueError`` naming
the parameter, and every accepted extreme input gives a correct result."""

from __future__ import annotations

import math
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpquant.reference.core import ExactMechanismBase, MechanismBase
from dpquant.reference.ldp_minimum.concentration import lemma_2_bound, lemma_2_bound_float
from dpquant.reference.ldp_minimum.domain_map import UnitMap
from dpquant.reference.ldp_minimum.fatness import normal_mass
from dpquant.reference.ldp_minimum.laplace_baseline import grid_clamp, grid_report_law, minimum_cdf
from dpquant.reference.ldp_minimum.lower_bounds import lower_bound_tv, lower_bound_tv_quadrature
from dpquant.reference.ldp_minimum.mechanisms import LaplaceExtreme, LaplaceReport, LDPMinimum
from dpquant.reference.ldp_minimum.round_statistic import (
    MAX_ROUND_EPSILON,
    left_threshold,
    round_rule,
)
from dpquant.reference.ldp_minimum.schedules import schedule, theorem_2_gamma
from dpquant.reference.ldp_minimum.search import sample_per_user
from dpquant.reference.ldp_minimum.search_error import far_mistake_term
from dpquant.reference.ldp_minimum.section_6_1 import section_6_1_series_coefficient
from dpquant.reference.ldp_minimum.transcript import UserTranscript
from dpquant.reference.ldp_minimum.upper_bounds import beta_order_statistic_moment, rising_factorial

RNG = np.random.default_rng(18)


def test_every_mechanism_derives_from_the_base() -> None:
    assert isinstance(LDPMinimum(1.0, 2, 0.5), ExactMechanismBase)
    assert isinstance(LaplaceReport(1.0), ExactMechanismBase)
    assert isinstance(LaplaceExtreme(1.0), MechanismBase)
    assert isinstance(UserTranscript(1.0, 2, 0.5, (0.0,)), ExactMechanismBase)
    assert UserTranscript(1.0, 2, 0.5, (0.0,)).claim.adjacency == "local"
    assert LaplaceReport(1.0).claim.adjacency == "local"
    assert LDPMinimum(1.0, 2, 0.5).claim.adjacency == "replace_one"


# -- LDPMinimum(..., bounds=(0, 1e308)) output ∞ --------------------------------------------------


def test_ldp_minimum_on_bounds_up_to_1e308_outputs_lie_inside_the_bounds() -> None:
    mech = LDPMinimum(1.0, 3, 0.5, bounds=(0.0, 1e308))
    data = [0.9e308, 1e308, 0.5e308, 0.0]
    out = mech.sample(data, 2000, RNG)
    assert np.isfinite(out).all() and out.min() >= 0.0 and out.max() <= 1e308
    law = mech.exact(data)
    assert all(0.0 <= v <= 1e308 for v in law.support)
    assert len(law.support) == 8  # the 2^3 leaves, none lost to overflow
    assert abs(float(mpmath.fsum(mpmath.exp(lp) for lp in law.logp)) - 1) < 1e-12


def test_unit_map_of_wide_bounds_does_not_overflow() -> None:
    unit = UnitMap(0.0, 1e308)
    assert unit.to_unit([0.9e308])[0] == pytest.approx(0.8, abs=1e-15)
    assert unit.from_unit([0.75])[0] == pytest.approx(0.875e308, rel=1e-15)
    assert unit.from_unit([1.0])[0] == 1e308
    with pytest.raises(ValueError, match="y"):
        unit.from_unit([1e10])  # a baseline report far outside: leaves the float range


def test_laplace_report_whose_reports_leave_the_float_range_is_refused() -> None:
    with pytest.raises(ValueError, match="epsilon, bounds"):
        LaplaceReport(1.0, bounds=(0.0, 1e308))
    with pytest.raises(ValueError, match="epsilon and bounds"):
        LaplaceReport(1.0, bounds=(0.0, 1e308), noise="continuous")
    out = LaplaceReport(1.0, bounds=(0.0, 1e300)).sample(5e299, 100, RNG)
    assert np.isfinite(out).all()


# -- LDPMinimum.with_exp_u(3, 2, .5).exact(np.zeros(10**5)) ran for minutes ----------------------


def test_exact_law_on_1e5_users_is_refused_before_any_work() -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match="exact law is too large"):
        LDPMinimum.with_exp_u(3, 2, 0.5).exact(np.zeros(10**5))
    assert time.perf_counter() - start < 5.0


def test_exact_law_within_the_limit_still_works() -> None:
    law = LDPMinimum.with_exp_u(3, 2, 0.5).exact(np.zeros(200))
    total = mpmath.fsum(mpmath.exp(lp) for lp in law.logp)
    assert abs(total - 1) < mpmath.mpf(10) ** -40


def test_exact_transcript_law_on_many_users_is_refused_before_any_work() -> None:
    mech = UserTranscript.with_exp_u(3, 1, 0.5, np.linspace(-1, 1, 5000))
    start = time.perf_counter()
    with pytest.raises(ValueError, match="exact law"):
        mech.exact(0.3)
    assert time.perf_counter() - start < 5.0


def test_exact_grid_report_law_with_too_many_atoms_is_refused() -> None:
    assert grid_clamp(1e-3, 2.0**-4) > 30_000
    with pytest.raises(ValueError, match="epsilon and grid"):
        grid_report_law(0.0, 1e-3)


def test_per_user_sampler_refuses_a_call_beyond_its_budget() -> None:
    rule = round_rule(10**5, 20, 0.5, epsilon=1.0)
    x = np.zeros(10**5)
    with pytest.raises(ValueError, match="size must be at most"):
        sample_per_user(x, rule, 10**6, RNG)
    with pytest.raises(ValueError, match="size must be at most"):
        LDPMinimum(1.0, 20, 0.5, sampler="per_user").sample(x, 10**6, RNG)


# -- flags are bools, choices exact strings, sizes positive ints ---------------------------------


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: LDPMinimum(1.0, 2, 0.5, clamp="no"), "clamp"),
        (lambda: LDPMinimum(1.0, 2, 0.5, clamp=1), "clamp"),
        (lambda: LDPMinimum(1.0, 2, 0.5, sampler="Binomial"), "sampler"),
        (lambda: LDPMinimum(1.0, 2, 0.5, target=None), "target"),
        (lambda: LDPMinimum(1.0, 2.0, 0.5), "levels"),
        (lambda: LDPMinimum(1.0, True, 0.5), "levels"),
        (lambda: LDPMinimum("1", 2, 0.5), "epsilon"),
        (lambda: LDPMinimum(1.0, 2, 0.5, bounds=(0, 10**400)), "bounds"),
        (lambda: LaplaceExtreme(1.0, clip="yes"), "clip"),
        (lambda: LaplaceReport(1.0, noise="Grid"), "noise"),
        (lambda: LaplaceReport(1.0, grid=2.0**-50), "grid"),
        (lambda: schedule("lower_alpha", 8, 1.0, extra_log_levels="no"), "extra_log_levels"),
        (lambda: schedule("Lower_alpha", 8, 1.0), "schedule name"),
        (lambda: LDPMinimum.for_schedule("lower_alpha", 8, 1.0, schedule_options=[1]),
         "schedule_options"),
        (lambda: UserTranscript(1.0, 2, 0.5, "0.5"), "others"),
        (lambda: UserTranscript(1.0, 2, 0.5, (0.0,), sampler=0), "sampler"),
    ],
)
def test_bad_flags_choices_and_numbers_are_refused_naming_them(build, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        build()


def test_mechanism_sample_refuses_bad_sizes_before_allocating() -> None:
    mech = LDPMinimum(1.0, 2, 0.5)
    for size in (0, -1, 2.0, True, 10**12, 2**64):
        with pytest.raises(ValueError, match="size"):
            mech.sample([0.1], size, RNG)


def test_one_users_value_is_checked_under_the_data_policy() -> None:
    mech = LaplaceReport(1.0)
    for bad in ("0.5", True, [0.1, 0.2], [[0.1]], 10**400, math.nan, 2.0):
        with pytest.raises(ValueError, match="data"):
            mech.sample(bad, 4, RNG)
    assert mech.sample([0.5], 4, RNG).shape == (4,)


# -- numerics at the extremes: exact or refused -------------------------------------------------


def test_per_round_budget_beyond_the_representable_flip_probability_is_refused() -> None:
    for eps in (1e308, 2 * MAX_ROUND_EPSILON + 1):
        with pytest.raises(ValueError, match="epsilon"):
            LDPMinimum(eps, 2, 0.5)
    with pytest.raises(ValueError, match="exp_u"):
        LDPMinimum.with_exp_u(10**400, 2, 0.5)
    with pytest.raises(ValueError, match="epsilon"):
        round_rule(4, 1, 0.5, epsilon=5e-324)
    assert round_rule(4, 1, 0.5, epsilon=math.inf).keep == 1.0  # the noiseless mode stays


def test_threshold_for_a_tiny_epsilon_is_decided_exactly() -> None:
    """N(1 + (2γ − 1)tanh(u/2))/2 lies within 10^-290 of an integer: decided, not an error."""
    assert left_threshold(4, 1, 0.3, 1e-290) == 2  # x = 2 − tiny
    assert left_threshold(4, 1, 0.7, 1e-290) == 3  # x = 2 + tiny
    assert left_threshold(4, 1, 0.7, 19.0) == 3


def test_theorem_2_gamma_is_finite_or_refused_for_tiny_epsilon() -> None:
    gamma = theorem_2_gamma(1e-200, 1, 8, 1.0)
    assert math.isfinite(gamma) and gamma > 1e190
    with pytest.raises(ValueError, match="epsilon"):
        theorem_2_gamma(5e-324, 1, 8, 1.0)


def test_minimum_cdf_checks_its_points_and_stays_in_the_unit_interval() -> None:
    values = minimum_cdf([-math.inf, -1e308, 0.0, 1e308, math.inf], [-0.5, 0.5], 1.0)
    assert values.tolist()[0] == 0.0 and values.tolist()[-1] == 1.0
    assert ((values >= 0) & (values <= 1)).all()
    with pytest.raises(ValueError, match="y"):
        minimum_cdf(["0.5"], [0.1], 1.0)
    with pytest.raises(ValueError, match="y"):
        minimum_cdf(math.nan, [0.1], 1.0)


def test_rising_factorial_ratios_keep_their_precision_for_tiny_alpha() -> None:
    """E[U_(k)^{1/α}] <= 1 however large 1/α is (k + 1/α is kept exact)."""
    value = beta_order_statistic_moment(2, 8, 1e-300)
    assert 0 <= value <= 1
    with pytest.raises(ValueError, match="a"):
        rising_factorial(0.5, -0.5)  # a pole of Γ


def test_quadrature_is_refused_where_it_is_inaccurate() -> None:
    with pytest.raises(ValueError, match="alpha"):
        lower_bound_tv_quadrature(1e-3, 0.25)
    with pytest.raises(ValueError, match="alpha"):
        lower_bound_tv_quadrature(1e308, 0.25)
    quad, exact = lower_bound_tv_quadrature(0.5, 0.1), lower_bound_tv(0.5, 0.1)
    assert abs(quad - exact) < mpmath.mpf(10) ** -25


def test_bounds_functions_refuse_strings_and_nan() -> None:
    with pytest.raises(ValueError, match="e"):
        far_mistake_term("0.1", 3)
    with pytest.raises(ValueError, match="a"):
        normal_mass(math.nan, 1.0)
    with pytest.raises(ValueError, match="u"):
        lemma_2_bound_float(8, 0.5, 0.2, "1")
    with pytest.raises(ValueError, match="n"):
        section_6_1_series_coefficient(10**18)
    assert normal_mass(1e300, 1e308) >= 0  # beyond mpmath's own erfc range
    # (e^u − 1)²(F̃ − γ)²N/(4(e^u + 1)e^u) = 1e-400·1e400·8/8: no 0·inf on the way
    assert lemma_2_bound_float(8, 1e200, 0.2, 1e-200) == pytest.approx(math.exp(-1))


def test_bounds_float_forms_take_exact_fraction_inputs() -> None:
    value = lemma_2_bound(8, Fraction(1, 3), Fraction(1, 5), exp_u=Fraction(3))
    assert 0 < value < 1
