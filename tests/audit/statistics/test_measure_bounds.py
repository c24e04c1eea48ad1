"""dpquant.audit.statistics.measure_bounds: black-box bounds in every privacy measure.

Soundness is checked exactly, not by simulation: for binomial counts the probability that a bound
exceeds the true value of a Bernoulli pair is a finite sum of binomial masses over all (k0, k1)
(scipy.stats.binom), as for the ε bound in test_audit_statistics.py. The true values and the
known values are computed in mpmath at 50 digits.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special, stats

from dpquant.audit.statistics import bounds
from dpquant.audit.statistics.bernoulli import ORDER_GRID, ROUNDING_MARGIN
from dpquant.audit.statistics.counts import cp_lower, cp_upper
from dpquant.audit.statistics.measure_bounds import (
    ApproximateDPMeasure,
    EventMeasure,
    GDPMeasure,
    ProfileMeasure,
    RenyiMeasure,
    ZCDPMeasure,
)
from dpquant.errors import ParameterError

DPS = 50
PROFILE = ((0.0, 0.3), (0.5, 0.12), (1.0, 0.05), (2.0, 0.01))

# ---------------------------------------------------------------------------------------------
# Exact values of a Bernoulli pair (mpmath, 50 digits)
# ---------------------------------------------------------------------------------------------


def _renyi_mp(p: float, q: float, order: float) -> mpmath.mpf:
    with mpmath.workdps(DPS):
        p, q = mpmath.mpf(p), mpmath.mpf(q)
        if order == math.inf:
            return max(mpmath.log(p / q), mpmath.log((1 - p) / (1 - q)))
        if order == 1.0:
            return p * mpmath.log(p / q) + ((1 - p) * mpmath.log((1 - p) / (1 - q)) if p < 1 else 0)
        a = mpmath.mpf(order)
        return mpmath.log(p**a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)


def _zcdp_mp(p: float, q: float, xi: float, orders: np.ndarray) -> mpmath.mpf:
    """max over ``orders`` of (D_a − ξ)/a, floored at 0."""
    with mpmath.workdps(DPS):
        best = mpmath.mpf(0)
        for a in orders:
            best = max(best, (_renyi_mp(p, q, float(a)) - xi) / mpmath.mpf(float(a)))
        return best


FINE_ORDERS = np.concatenate(([1.0], 1.0 + np.logspace(-5.0, 6.0, 1101)))


def _ndtri_mp(p: float) -> mpmath.mpf:
    """Φ^{-1}(p) by Newton on ln Φ (accurate deep in either tail, unlike erfinv(2p − 1))."""
    with mpmath.workdps(DPS):
        if p > 0.5:
            return -_ndtri_mp_lower(mpmath.mpf(1) - mpmath.mpf(p))
        return _ndtri_mp_lower(mpmath.mpf(p))


def _ndtri_mp_lower(p: mpmath.mpf) -> mpmath.mpf:
    start = float(special.ndtri(float(p)))
    return mpmath.findroot(lambda x: mpmath.log(mpmath.ncdf(x)) - mpmath.log(p), start)


def _gap_mp(p: float, q: float) -> mpmath.mpf:
    return _ndtri_mp(p) - _ndtri_mp(q)


def _excess_mp(p: float, q: float, points=PROFILE) -> mpmath.mpf:
    with mpmath.workdps(DPS):
        return max(mpmath.mpf(p) - mpmath.exp(e) * mpmath.mpf(q) - d for e, d in points)


# ---------------------------------------------------------------------------------------------
# Coverage: Pr[bound > true value] <= α, summed exactly over all counts
# ---------------------------------------------------------------------------------------------


def _true_value(measure: EventMeasure, p0: float, p1: float) -> float:
    """The measure's value for the mechanism whose outputs are Bern(p0), Bern(p1): exact, or
    (zCDP, GDP) a lower bound of it, which only makes the test stricter."""
    if isinstance(measure, RenyiMeasure):
        return float(_renyi_mp(p0, p1, measure.order))
    if isinstance(measure, ZCDPMeasure):
        found = float(measure.value_with_argument(p0, p1)[0])  # the float maximiser, rounded down
        return max(float(_zcdp_mp(p0, p1, measure.xi, ORDER_GRID)), found)
    if isinstance(measure, GDPMeasure):  # μ >= 0 and μ >= the gap: the stricter max(0, gap)
        return max(0.0, float(_gap_mp(p0, p1)))
    if isinstance(measure, ProfileMeasure):
        return float(_excess_mp(p0, p1, measure.points))
    raise AssertionError(measure)


MEASURES = [
    RenyiMeasure(2.0, 0.0),
    RenyiMeasure(1.5, 0.0),
    RenyiMeasure(math.inf, 0.0),
    ZCDPMeasure(0.0),
    ZCDPMeasure(0.0, xi=0.05),
    GDPMeasure(0.0),
    ProfileMeasure(PROFILE),
]
PAIRS = [(0.5, 0.1), (0.3, 0.25), (0.9, 0.4), (0.15, 0.01), (0.6, 0.55), (0.2, 0.4)]


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: f"{m.name}-{m.unit_label}")
@pytest.mark.parametrize("n", [20, 50, 200])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_every_measure_bound_exceeds_the_true_value_with_probability_at_most_alpha(
    measure, n, alpha
) -> None:
    k = np.arange(n + 1)
    bound = measure.lower_bound(k[:, None], n, k[None, :], n, alpha)
    worst = 0.0
    for p0, p1 in PAIRS:
        joint = np.outer(stats.binom.pmf(k, n, p0), stats.binom.pmf(k, n, p1))
        truth = _true_value(measure, p0, p1)
        worst = max(worst, float(joint[bound > truth].sum()))
    assert worst <= alpha
    assert worst > 0.01 * alpha  # not vacuous: the bound does exceed the truth sometimes


# ---------------------------------------------------------------------------------------------
# Monotonicity: v nondecreasing in P0, nonincreasing in P1
# ---------------------------------------------------------------------------------------------

ALL_MEASURES = [ApproximateDPMeasure(1.0, 0.0), ApproximateDPMeasure(0.5, 0.05), *MEASURES]
masses = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


def _at_least(high: float, low: float) -> bool:
    """high >= low up to the rounding margin's variation (a relative 1e-9: the margins of the
    two values differ by 1e-12 times the change in the logarithms they are computed from)."""
    return high == math.inf or low == -math.inf or high >= low - 1e-9 * (1.0 + abs(low))


@pytest.mark.parametrize("measure", ALL_MEASURES, ids=lambda m: f"{m.name}-{m.unit_label}")
@given(a=masses, b=masses, q=masses)
def test_every_measure_value_increases_with_p0_and_decreases_with_p1(measure, a, b, q) -> None:
    lo, hi = min(a, b), max(a, b)
    assert _at_least(float(measure.value(hi, q)), float(measure.value(lo, q)))
    assert _at_least(float(measure.value(q, lo)), float(measure.value(q, hi)))


counts = st.integers(min_value=1, max_value=300).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n - 1))
)


@pytest.mark.parametrize("measure", ALL_MEASURES, ids=lambda m: f"{m.name}-{m.unit_label}")
@given(a=counts, b=counts, alpha=st.sampled_from([1e-6, 0.05, 0.3]))
def test_every_measure_bound_increases_with_k0_and_decreases_with_k1(measure, a, b, alpha) -> None:
    (n0, k0), (n1, k1) = a, b
    here = float(measure.lower_bound(k0, n0, k1, n1, alpha))
    assert _at_least(float(measure.lower_bound(k0 + 1, n0, k1, n1, alpha)), here)
    assert _at_least(here, float(measure.lower_bound(k0, n0, k1 + 1, n1, alpha)))


# ---------------------------------------------------------------------------------------------
# Known values
# ---------------------------------------------------------------------------------------------


def _random_pairs(rng: np.random.Generator, size: int) -> list[tuple[float, float]]:
    """p > q over many scales: q down to 1e-300, p − q down to 1e-12 of 1 − q, p near 1."""
    out = []
    for _ in range(size):
        q = float(10 ** rng.uniform(-300, 0) * rng.uniform())
        p = float(q + (1 - q) * 10 ** rng.uniform(-12, 0))
        if rng.uniform() < 0.1:
            p = float(1 - 10 ** rng.uniform(-16, -1))
        if p > q:
            out.append((p, q))
    return out


def test_renyi_value_of_two_bernoullis_is_the_mpmath_divergence_rounded_down() -> None:
    rng = np.random.default_rng(20240611)
    sizeable = 0
    for p, q in _random_pairs(rng, 400):
        order = float(1 + 10 ** rng.uniform(-3, 5)) if rng.uniform() < 0.9 else math.inf
        got = float(RenyiMeasure(order, 1.0).value(p, q))
        exact = _renyi_mp(p, q, order)
        assert got <= exact  # never overstated
        slack = ROUNDING_MARGIN * 1e3 * (1 + 1 / (order - 1)) * (1 + abs(math.log(q)))
        assert exact - got <= slack  # and close: within a thousand margins
        if exact > 1e-3 and order >= 1.5:  # away from a → 1 (where ln H/(a − 1) cancels)
            sizeable += 1
            assert exact - got <= 1e-7 * exact
    assert sizeable > 100


def test_renyi_value_at_infinite_order_is_the_log_ratio_and_zero_when_p0_is_not_above_p1() -> None:
    measure = RenyiMeasure(math.inf, 1.0)
    assert float(measure.value(0.6, 0.2)) == pytest.approx(math.log(3.0), rel=1e-11)
    assert float(measure.value(0.6, 0.2)) <= _renyi_mp(0.6, 0.2, math.inf)
    assert float(measure.value(0.2, 0.6)) == 0.0
    assert float(measure.value(0.3, 0.0)) == math.inf


@pytest.mark.parametrize("xi", [0.0, 0.1, 1.0])
def test_zcdp_value_matches_a_fine_mpmath_grid_of_orders_and_is_exact_at_its_order(xi) -> None:
    measure = ZCDPMeasure(1.0, xi=xi)
    for p, q in [(0.5, 0.1), (0.3, 0.2), (0.99, 1e-6), (0.05, 1e-9), (0.7, 0.69), (1.0, 0.2)]:
        rho, order = (float(x) for x in measure.value_with_argument(p, q))
        fine = _zcdp_mp(p, q, xi, FINE_ORDERS)
        assert rho >= fine * (1 - 1e-7) - 1e-12  # the maximiser finds the supremum
        if rho > 0:  # and the value at the order it reports is not overstated
            assert rho <= (_renyi_mp(p, q, order) - xi) / mpmath.mpf(order)
        else:
            assert fine == 0 and math.isnan(order)
        grid = float(measure.value(p, q))  # the ranking's grid: below, and not far
        assert grid <= rho
        assert grid >= 0.95 * rho


def test_gdp_value_of_the_threshold_event_between_two_gaussians_is_mu() -> None:
    """N(μ, 1) against N(0, 1) and S = {X > t}: Φ^{-1}(Φ(μ − t)) − Φ^{-1}(Φ(−t)) = μ for every t;
    at the float masses the value is μ up to their rounding, and never above the exact gap."""
    for mu in (0.1, 0.5, 1.0, 3.0):
        measure = GDPMeasure(mu)
        for t in np.linspace(-3.0, 8.0, 23):
            with mpmath.workdps(DPS):
                p0 = float(mpmath.ncdf(mu - t))
                p1 = float(mpmath.ncdf(-t))
            got = float(measure.value(p0, p1))
            # the masses are rounded to floats (by at most 2^-53 of themselves), which moves
            # Φ^{-1}(p) by at most that over the density at the quantile
            rounding = 2.0**-53 * (p0 / stats.norm.pdf(mu - t) + p1 / stats.norm.pdf(t))
            margin = ROUNDING_MARGIN * (abs(mu - t) + abs(t))  # the value's own downward margin
            assert abs(got - mu) <= rounding + 1.01 * margin + 1e-15
            assert got <= _gap_mp(p0, p1)


def test_gdp_value_is_the_mpmath_quantile_gap_rounded_down_deep_in_the_tails() -> None:
    rng = np.random.default_rng(7)
    measure = GDPMeasure(1.0)
    for p, q in _random_pairs(rng, 300):
        got = float(measure.value(p, q))
        exact = _gap_mp(p, q)
        assert got <= exact
        assert exact - got <= 1e-10 * (1 + abs(_ndtri_mp(p)) + abs(_ndtri_mp(q)))


def test_profile_value_is_the_largest_excess_and_names_the_weakest_point() -> None:
    measure = ProfileMeasure(PROFILE)
    rng = np.random.default_rng(11)
    p0, p1 = rng.uniform(size=200), rng.uniform(size=200) * 0.3
    got = measure.value(p0, p1)
    for g, a, b in zip(got, p0, p1, strict=True):
        exact = _excess_mp(float(a), float(b))
        assert g <= exact and exact - g <= 1e-11
    # counts at 0.9 and 0.05: the excess of (ε, δ) is p0_L − e^ε p1_U − δ
    excess, index = measure.lower_bound_with_argument(9000, 10_000, 500, 10_000, 1e-3)
    p0_lower = float(cp_lower(np.asarray(9000.0), np.asarray(10_000.0), 5e-4))
    p1_upper = float(cp_upper(np.asarray(500.0), np.asarray(10_000.0), 5e-4))
    expected = [p0_lower - math.exp(e) * p1_upper - d for e, d in PROFILE]
    assert int(index) == int(np.argmax(expected))
    assert float(excess) == pytest.approx(max(expected), abs=1e-11)
    assert float(excess) == float(measure.lower_bound(9000, 10_000, 500, 10_000, 1e-3))
    assert measure.violated(float(excess)) and measure.claimed == 0.0
    # a measure with no argument to name gives NaN, and the same bound as lower_bound
    gdp = GDPMeasure(0.5)
    bound, argument = gdp.lower_bound_with_argument(9000, 10_000, 500, 10_000, 1e-3)
    assert math.isnan(float(argument))
    assert float(bound) == float(gdp.lower_bound(9000, 10_000, 500, 10_000, 1e-3)) > 0.5


def test_zcdp_lower_bound_with_argument_reports_the_bound_and_an_order_where_it_holds() -> None:
    measure = ZCDPMeasure(0.05)
    k0, k1 = np.array([3000, 600, 10]), np.array([1000, 400, 10])
    rho, order = measure.lower_bound_with_argument(k0, 10_000, k1, 10_000, 1e-3)
    np.testing.assert_array_equal(rho, measure.lower_bound(k0, 10_000, k1, 10_000, 1e-3))
    assert rho[0] > 0.05 and measure.violated(float(rho[0]))
    assert rho[2] == 0.0 and math.isnan(order[2])  # the same counts: no evidence
    p0_lower = cp_lower(k0.astype(float), np.asarray(10_000.0), 5e-4)
    p1_upper = cp_upper(k1.astype(float), np.asarray(10_000.0), 5e-4)
    for i in (0, 1):
        exact = _renyi_mp(float(p0_lower[i]), float(p1_upper[i]), float(order[i]))
        assert rho[i] <= exact / mpmath.mpf(float(order[i]))
    # refinement never lowers the grid's value
    assert np.all(rho >= measure.value(p0_lower, p1_upper))


@pytest.mark.parametrize(
    "measure",
    [RenyiMeasure(2.0, 0.3), ZCDPMeasure(0.1), GDPMeasure(0.5), ProfileMeasure(PROFILE)],
    ids=lambda m: m.name,
)
def test_samples_needed_is_the_smallest_n_whose_expected_bound_exceeds_the_claim(measure) -> None:
    p0, p1 = 0.5, 0.05
    n = measure.samples_needed(p0, p1, 1e-6)
    assert n is not None
    assert float(measure.expected_bound(p0, p1, n, 1e-6)) > measure.claimed
    below = int(n * (1 - 1e-3)) - 1  # the bisection stops within 0.1 %
    assert float(measure.expected_bound(p0, p1, below, 1e-6)) <= measure.claimed
    assert measure.samples_needed(p0, p1, 1e-6, limit=below) is None
    assert measure.samples_needed(p1, p0, 1e-6) is None  # the other way round: nothing to find


def test_selection_score_is_below_the_value_at_the_selection_frequencies() -> None:
    for measure in ALL_MEASURES:
        score = measure.selection_score(
            np.array([6, 300]), 1000, np.array([2, 100]), 1000, 10**4, 0.05
        )
        plug_in = measure.value(np.array([0.006, 0.3]), np.array([0.002, 0.1]))
        assert np.all(score <= plug_in)
        assert score[1] > score[0] or score[1] == score[0] == measure.value(0.0, 0.0)


def test_violated_is_strict_and_bounds_report_claims() -> None:
    measure = GDPMeasure(0.5)
    assert not measure.violated(0.5)
    assert measure.violated(math.nextafter(0.5, 1.0))
    assert not measure.violated(-math.inf)
    assert measure.violated(math.inf)
    assert RenyiMeasure(3.0, 2.0).claimed == 2.0 and ZCDPMeasure(0.25, 0.1).claimed == 0.25
    names = {m.name for m in ALL_MEASURES}
    assert names == {"epsilon", "renyi", "rho", "mu", "profile"}


# ---------------------------------------------------------------------------------------------
# ApproximateDPMeasure gives exactly bounds.py's numbers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("delta", [0.0, 1e-6, 0.05, 0.3])
@pytest.mark.parametrize("alpha", [1e-9, 0.01, 0.2, 0.9])
def test_approximate_dp_measure_equals_the_bounds_module_exactly(delta, alpha) -> None:
    rng = np.random.default_rng(int(1e6 * delta) + int(1e3 * alpha))
    measure = ApproximateDPMeasure(1.0, delta)
    n0 = rng.integers(1, 10**6, size=500)
    n1 = rng.integers(1, 10**6, size=500)
    k0 = np.floor(rng.uniform(size=500) ** 2 * (n0 + 1)).clip(0, n0)
    k1 = np.floor(rng.uniform(size=500) ** 3 * (n1 + 1)).clip(0, n1)
    np.testing.assert_array_equal(
        measure.lower_bound(k0, n0, k1, n1, alpha),
        bounds.epsilon_lower_bound(k0, n0, k1, n1, delta, alpha),
    )
    p0, p1 = rng.uniform(size=300), rng.uniform(size=300) ** 3
    for n in (1, 37, 10**4, 2**40):
        np.testing.assert_array_equal(
            measure.expected_bound(p0, p1, n, alpha), bounds.expected_bound(p0, p1, n, delta, alpha)
        )
    np.testing.assert_array_equal(
        measure.selection_score(k0, n0, k1, n1, 10**5, alpha, 1.5),
        bounds.selection_score(k0, n0, k1, n1, 10**5, delta, alpha, 1.5),
    )
    for i in range(6):
        target = ApproximateDPMeasure(0.25 * i, delta)
        a, b = float(p0[i]), float(p1[i])
        assert target.samples_needed(a, b, alpha, limit=10**9) == bounds.samples_needed(
            a, b, 0.25 * i, delta, alpha, limit=10**9
        )


# ---------------------------------------------------------------------------------------------
# Bad input: ParameterError naming the parameter
# ---------------------------------------------------------------------------------------------

GOOD = GDPMeasure(1.0)
BAD = [
    (lambda: ApproximateDPMeasure(math.nan), "epsilon"),
    (lambda: ApproximateDPMeasure(math.inf), "epsilon"),
    (lambda: ApproximateDPMeasure(-0.1), "epsilon"),
    (lambda: ApproximateDPMeasure(True), "epsilon"),
    (lambda: ApproximateDPMeasure("1"), "epsilon"),
    (lambda: ApproximateDPMeasure(1.0, 1.0), "delta"),
    (lambda: ApproximateDPMeasure(1.0, -1e-300), "delta"),
    (lambda: RenyiMeasure(1.0, 1.0), "order"),
    (lambda: RenyiMeasure(0.5, 1.0), "order"),
    (lambda: RenyiMeasure(-math.inf, 1.0), "order"),
    (lambda: RenyiMeasure(math.nan, 1.0), "order"),
    (lambda: RenyiMeasure(True, 1.0), "order"),
    (lambda: RenyiMeasure("2", 1.0), "order"),
    (lambda: RenyiMeasure(2.0, math.nan), "claimed"),
    (lambda: RenyiMeasure(2.0, -1.0), "claimed"),
    (lambda: RenyiMeasure(2.0, math.inf), "claimed"),
    (lambda: ZCDPMeasure(math.nan), "rho"),
    (lambda: ZCDPMeasure(-1.0), "rho"),
    (lambda: ZCDPMeasure(False), "rho"),
    (lambda: ZCDPMeasure(0.5, xi=math.inf), "xi"),
    (lambda: ZCDPMeasure(0.5, xi=-0.1), "xi"),
    (lambda: ZCDPMeasure(0.5, xi="0"), "xi"),
    (lambda: GDPMeasure(math.inf), "mu"),
    (lambda: GDPMeasure(-1e-300), "mu"),
    (lambda: GDPMeasure(np.bool_(True)), "mu"),
    (lambda: ProfileMeasure([]), "points"),
    (lambda: ProfileMeasure([(1.0, 0.1), (0.5, 0.2)]), "points"),
    (lambda: ProfileMeasure([(0.5, 0.1), (0.5, 0.05)]), "points"),
    (lambda: ProfileMeasure([(-1.0, 0.1)]), "points"),
    (lambda: ProfileMeasure([(0.0, 1.5)]), "points"),
    (lambda: ProfileMeasure([(0.0, -0.1)]), "points"),
    (lambda: ProfileMeasure([(math.nan, 0.1)]), "points"),
    (lambda: ProfileMeasure([(math.inf, 0.1)]), "points"),
    (lambda: ProfileMeasure([(True, 0.1)]), "points"),
    (lambda: ProfileMeasure("abc"), "points"),
    (lambda: ProfileMeasure([1.0, 0.1]), "points"),
    (lambda: ProfileMeasure([(1.0, 0.1, 0.2)]), "points"),
    (lambda: GOOD.value(math.nan, 0.1), "p0"),
    (lambda: GOOD.value(0.5, 1.5), "p1"),
    (lambda: GOOD.value(-0.1, 0.1), "p0"),
    (lambda: GOOD.value(True, 0.1), "p0"),
    (lambda: GOOD.value(0.5, "0.1"), "p1"),
    (lambda: GOOD.value(0.5, math.inf), "p1"),
    (lambda: GOOD.lower_bound(-1, 10, 1, 10, 0.05), "k0"),
    (lambda: GOOD.lower_bound(11, 10, 1, 10, 0.05), "k0"),
    (lambda: GOOD.lower_bound(math.nan, 10, 1, 10, 0.05), "k0"),
    (lambda: GOOD.lower_bound(5, 10, True, 10, 0.05), "k1"),
    (lambda: GOOD.lower_bound(5, 0, 1, 10, 0.05), "n0"),
    (lambda: GOOD.lower_bound(5, 10, 1, 2**60, 0.05), "n1"),
    (lambda: GOOD.lower_bound(5, 10, 1, math.inf, 0.05), "n1"),
    (lambda: GOOD.lower_bound(5, 10, 1, 10, 0.0), "alpha"),
    (lambda: GOOD.lower_bound(5, 10, 1, 10, 1.0), "alpha"),
    (lambda: GOOD.lower_bound(5, 10, 1, 10, math.nan), "alpha"),
    (lambda: GOOD.lower_bound(5, 10, 1, 10, True), "alpha"),
    (lambda: GOOD.lower_bound(5, 10, 1, 10, "0.05"), "alpha"),
    (lambda: GOOD.expected_bound(0.5, 0.1, 100.0, 0.05), "n"),
    (lambda: GOOD.expected_bound(0.5, 0.1, 0, 0.05), "n"),
    (lambda: GOOD.expected_bound(0.5, 0.1, True, 0.05), "n"),
    (lambda: GOOD.expected_bound(0.5, 0.1, 2**41, 0.05), "n"),
    (lambda: GOOD.expected_bound(0.5, -0.1, 100, 0.05), "p1"),
    (lambda: GOOD.samples_needed(math.nan, 0.1, 0.05), "p0"),
    (lambda: GOOD.samples_needed(0.5, 0.1, 0.05, limit=2.0), "limit"),
    (lambda: GOOD.samples_needed(0.5, 0.1, 0.05, limit=10**400), "limit"),
    (lambda: GOOD.samples_needed(0.5, 0.1, -0.05), "alpha"),
    (lambda: GOOD.selection_score([1], 10, [1], 10, 0, 0.05), "n_eval"),
    (lambda: GOOD.selection_score([1], 10, [1], 10, 100, 0.05, math.inf), "z_selection"),
    (lambda: GOOD.selection_score([1], 10, [1], 10, 100, 0.05, -1.0), "z_selection"),
    (lambda: GOOD.selection_score([1], 10, ["1"], 10, 100, 0.05), "k1"),
    (lambda: GOOD.violated(math.nan), "bound"),
    (lambda: GOOD.violated("1"), "bound"),
    (lambda: GOOD.violated(True), "bound"),
    (lambda: ZCDPMeasure(0.1).lower_bound_with_argument(5, 10, 1, 10, 2.0), "alpha"),
    (lambda: ZCDPMeasure(0.1).value_with_argument(0.5, math.nan), "p1"),
    (lambda: ProfileMeasure(PROFILE).lower_bound_with_argument(5, -10, 1, 10, 0.1), "n0"),
]


@pytest.mark.parametrize("call, name", BAD)
def test_measures_refuse_bad_input_with_a_parameter_error_naming_the_parameter(call, name) -> None:
    with pytest.raises(ParameterError) as error:
        call()
    assert error.value.parameter == name
    assert str(error.value).startswith(name)
