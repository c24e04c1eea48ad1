"""Exact laws and the divergences between them, checked against independent computations."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.conformance import check_sampler, clopper_pearson
from dpquant.reference.distributions import (
    DiscreteLaw,
    GridLaw,
    PiecewiseLogLinear,
    ProductLaw,
    hockey_stick,
    log_integral_exp_linear,
    max_log_ratio,
    privacy_loss,
    renyi_divergence,
)
from dpquant.reference.distributions.cells import merged_cells, piecewise_cdfs
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.laplace import laplace_law

TIGHT = mpmath.mpf("1e-40")

slopes = st.floats(min_value=-30, max_value=30, allow_nan=False)
intercepts = st.floats(min_value=-20, max_value=20, allow_nan=False)


@st.composite
def piecewise_laws(draw, max_pieces: int = 4):
    m = draw(st.integers(1, max_pieces))
    widths = draw(st.lists(st.floats(0.05, 2.0), min_size=m, max_size=m))
    start = draw(st.floats(-3, 3))
    breaks = np.concatenate([[start], start + np.cumsum(widths)])
    a = draw(st.lists(slopes, min_size=m, max_size=m))
    b = draw(st.lists(intercepts, min_size=m, max_size=m))
    return PiecewiseLogLinear(breaks, a, b)


def _quad_mass(law: PiecewiseLogLinear, lo: float, hi: float) -> mpmath.mpf:
    """Independent oracle: adaptive quadrature of exp(logpdf_mp) piece by piece."""
    pts = sorted({lo, hi, *[x for x in law.breaks if lo < x < hi]})
    with workdps():
        return mpmath.fsum(
            mpmath.quad(lambda y: mpmath.exp(law.logpdf_mp(y)), [pts[k], pts[k + 1]])
            for k in range(len(pts) - 1)
        )


@given(piecewise_laws())
def test_piecewise_law_is_normalised_exactly(law) -> None:
    lo, hi = law.breaks[0], law.breaks[-1]
    assert abs(law.mass(lo, hi) - 1) < TIGHT
    assert abs(law.cdf(hi) - 1.0) < 1e-12 and law.cdf(lo) == 0.0


@given(piecewise_laws(), st.floats(0, 1), st.floats(0, 1))
def test_piecewise_mass_matches_quadrature_and_float_cdf(law, s, t) -> None:
    lo_all, hi_all = law.breaks[0], law.breaks[-1]
    lo, hi = sorted((lo_all + s * (hi_all - lo_all), lo_all + t * (hi_all - lo_all)))
    exact = law.mass(lo, hi)
    if hi > lo:
        assert abs(exact - _quad_mass(law, lo, hi)) < mpmath.mpf("1e-25")
    assert abs(float(exact) - float(law.cdf(hi) - law.cdf(lo))) < 1e-9


@given(st.lists(piecewise_laws(), min_size=1, max_size=5), st.integers(0, 2**32 - 1))
def test_piecewise_cdfs_gives_each_law_s_cdf_bit_for_bit(laws, seed) -> None:
    """One vectorised evaluation for many laws: each value is the one ``law.cdf`` computes
    (points inside, at and beyond the breaks, infinities, several shapes)."""
    rng = np.random.default_rng(seed)
    points = []
    for k, law in enumerate(laws):
        lo, hi = law.breaks[0], law.breaks[-1]
        inner = rng.uniform(lo - 1, hi + 1, size=rng.integers(0, 6))
        pts = np.concatenate([inner, law.breaks, [-np.inf, np.inf]])
        points.append(pts.reshape(2, -1) if k % 2 and pts.size % 2 == 0 else pts)
    got = piecewise_cdfs(laws, points)
    for law, pts, values in zip(laws, points, got, strict=True):
        assert values.shape == np.shape(pts)
        assert values.tobytes() == law.cdf(pts).tobytes()


def test_piecewise_cdfs_refuses_what_cdf_refuses_and_mismatched_lists() -> None:
    law = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    assert piecewise_cdfs([], []) == []
    with pytest.raises(ValueError, match=r"points\[1\]"):
        piecewise_cdfs([law, law], [[0.5], [math.nan]])
    with pytest.raises(ValueError, match="one entry each"):
        piecewise_cdfs([law], [])
    with pytest.raises(ValueError, match=r"laws\[0\]"):
        piecewise_cdfs([DiscreteLaw([0], [0.0])], [[0.5]])


def test_log_integral_closed_forms() -> None:
    with workdps():
        assert abs(log_integral_exp_linear(0, 0, 0, 3) - mpmath.log(3)) < TIGHT
        assert abs(log_integral_exp_linear(-2, 1, 0, mpmath.inf) - (1 - mpmath.log(2))) < TIGHT
        assert abs(log_integral_exp_linear(2, 0, -mpmath.inf, 1) - (2 - mpmath.log(2))) < TIGHT
        # a rate of 1e6 on [0, 1]: log((e^{1e6} - 1)/1e6) without overflow
        expected = mpmath.mpf(10) ** 6 + mpmath.log(-mpmath.expm1(-(10**6))) - mpmath.log(10**6)
        assert abs(log_integral_exp_linear(10**6, 0, 0, 1) - expected) < TIGHT
        assert log_integral_exp_linear(1, 0, 0, mpmath.inf) == mpmath.inf


def test_logpdf_float_and_exact_agree_on_a_steep_piece() -> None:
    law = PiecewiseLogLinear([0.0, 1.0, 2.0], [1e4, -3.0], [0.0, 1e4 + 3.0])
    ys = np.array([0.0, 0.5, 0.9999, 1.0, 1.5, 2.0])
    for y, lf in zip(ys, law.logpdf(ys), strict=True):
        assert abs(lf - float(law.logpdf_mp(float(y)))) < 1e-9 * max(1.0, abs(lf))
    assert law.logpdf(-0.1) == -np.inf and law.logpdf(2.1) == -np.inf


@pytest.mark.parametrize(
    "breaks, a, b",
    [
        ([0.0, 1.0, 3.0], [0.0, 0.0], [0.0, 1.0]),  # piecewise constant
        ([0.0, 1.0], [-50.0], [0.0]),  # steep truncated exponential
        ([0.0, 1.0], [1e6], [0.0]),  # huge rate
        ([-np.inf, 0.0, np.inf], [1.0, -1.0], [0.0, 0.0]),  # Laplace
        ([-np.inf, -1.0, 1.0, np.inf], [2.0, 0.0, -2.0], [2.0, 0.0, 2.0]),  # flattened Laplace
        ([0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [0.0, -np.inf, 0.5]),  # a gap of zero density
    ],
)
def test_piecewise_sampler_conforms_to_its_law(breaks, a, b, rng) -> None:
    law = PiecewiseLogLinear(breaks, a, b)
    draws = law.sample(200_000, rng)
    lo, hi = law.support
    assert np.all((draws >= lo) & (draws <= hi))
    check_sampler(law, draws).assert_ok()


def test_a_wrong_sampler_fails_conformance(rng) -> None:
    law = PiecewiseLogLinear([0.0, 1.0, 3.0], [0.0, 0.0], [0.0, 0.1])
    wrong = PiecewiseLogLinear([0.0, 1.0, 3.0], [0.0, 0.0], [0.0, 0.0])  # weight e^0.1 dropped
    # CDF gap at y = 1 is 1/3 − 1/(1 + 2e^0.1) ≈ 0.0224, > 3× the DKW threshold at N = 2e5 (0.0065).
    assert not check_sampler(law, wrong.sample(200_000, rng)).passed


def test_discrete_law_normalises_merges_and_drops_zero_atoms() -> None:
    law = DiscreteLaw([2, 0, 2, 5], [0.0, 0.0, 0.0, -math.inf])
    assert law.support == (0, 2)
    assert abs(law.pmf_mp(2) - mpmath.mpf(2) / 3) < TIGHT
    assert law.logpmf_mp(5) == -mpmath.inf
    assert abs(law.mass(0, 1) - mpmath.mpf(1) / 3) < TIGHT
    np.testing.assert_allclose(law.cdf([-1, 0, 1, 2, 3]), [0, 1 / 3, 1 / 3, 1, 1])


def test_discrete_law_with_labels_samples_labels(rng) -> None:
    law = DiscreteLaw.from_probabilities(["ok", "ValueError"], [Fraction(9, 10), Fraction(1, 10)])
    draws = law.sample(50_000, rng)
    assert set(draws) <= {"ok", "ValueError"}
    check_sampler(law, draws).assert_ok()
    with pytest.raises(ValueError, match="non-numeric"):
        law.cdf(0.0)


def test_discrete_sampler_conforms_and_a_wrong_one_fails(rng) -> None:
    law = DiscreteLaw.from_probabilities(
        [0, 1, 2, 3], [Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8)]
    )
    check_sampler(law, law.sample(100_000, rng)).assert_ok()
    wrong = rng.choice(4, size=100_000, p=[0.47, 0.28, 0.125, 0.125])
    assert not check_sampler(law, wrong).passed


def test_privacy_loss_of_two_step_densities_is_the_largest_log_ratio() -> None:
    p = PiecewiseLogLinear([0.0, 1.0, 2.0], [0.0, 0.0], [0.0, 1.0])
    q = PiecewiseLogLinear([0.0, 0.5, 2.0], [0.0, 0.0], [0.3, 0.0])
    # Both normalised by hand: p = (1, e)/(1+e) on [0,1),[1,2]; q = (e^.3, 1)/(0.5 e^.3 + 1.5).
    with workdps():
        e = mpmath.e
        fp = [1 / (1 + e), e / (1 + e)]
        zq = mpmath.exp(0.3) / 2 + mpmath.mpf(3) / 2
        fq = [mpmath.exp(0.3) / zq, 1 / zq]
        cells = [(fp[0], fq[0]), (fp[0], fq[1]), (fp[1], fq[1])]
        expected = max(abs(mpmath.log(x / y)) for x, y in cells)
        assert abs(privacy_loss(p, q) - expected) < TIGHT
        delta0 = sum(max(x - y, 0) * w for (x, y), w in zip(cells, [0.5, 0.5, 1.0], strict=True))
        assert abs(hockey_stick(p, q, 0) - delta0) < TIGHT
        renyi2 = mpmath.log(
            sum(x**2 / y * w for (x, y), w in zip(cells, [0.5, 0.5, 1.0], strict=True))
        )
        assert abs(renyi_divergence(p, q, 2) - renyi2) < TIGHT
        kl = sum(
            x * mpmath.log(x / y) * w for (x, y), w in zip(cells, [0.5, 0.5, 1.0], strict=True)
        )
        assert abs(renyi_divergence(p, q, 1) - kl) < mpmath.mpf("1e-30")


@given(piecewise_laws(3), piecewise_laws(3))
def test_hockey_stick_vanishes_exactly_at_the_one_sided_loss(p, q) -> None:
    loss = max_log_ratio(p, q)
    if mpmath.isfinite(loss) and loss >= 0:
        assert abs(hockey_stick(p, q, loss)) < mpmath.mpf("1e-35")
        assert hockey_stick(p, q, loss * mpmath.mpf("0.9") - mpmath.mpf("1e-3")) > 0


@given(piecewise_laws(3), st.floats(1.1, 6.0))
def test_renyi_divergence_is_increasing_and_bounded_by_the_max_ratio(p, alpha) -> None:
    q = PiecewiseLogLinear(p.breaks, np.zeros(len(p)), np.zeros(len(p)))
    d1 = renyi_divergence(p, q, alpha)
    d2 = renyi_divergence(p, q, alpha + 1)
    assert d1 <= d2 + mpmath.mpf("1e-40")
    assert d2 <= max_log_ratio(p, q) + mpmath.mpf("1e-40")


def test_loss_is_infinite_when_supports_differ() -> None:
    p = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    q = PiecewiseLogLinear([0.0, 2.0], [0.0], [0.0])
    assert max_log_ratio(p, q) == pytest.approx(math.log(2))
    assert max_log_ratio(q, p) == mpmath.inf and privacy_loss(p, q) == mpmath.inf
    assert abs(hockey_stick(q, p, 10) - mpmath.mpf(1) / 2) < TIGHT
    a = DiscreteLaw([0, 1], [0, 0])
    b = DiscreteLaw([0, 1, 2], [0, 0, 0])
    assert privacy_loss(a, b) == mpmath.inf
    assert privacy_loss(a, p) == mpmath.inf and hockey_stick(a, p, 5) == 1


def test_laplace_laws_of_different_scales_have_infinite_loss() -> None:
    p = PiecewiseLogLinear([-np.inf, 0.0, np.inf], [1.0, -1.0], [0.0, 0.0])
    q = PiecewiseLogLinear([-np.inf, 0.0, np.inf], [2.0, -2.0], [0.0, 0.0])
    assert privacy_loss(p, q) == mpmath.inf


@pytest.mark.parametrize(
    "breaks, a, b, match",
    [
        ([0.0, 1.0], [0.0, 1.0], [0.0], "one more entry"),
        ([1.0, 0.0], [0.0], [0.0], "strictly increasing"),
        ([-np.inf, 0.0], [-1.0], [0.0], "slope > 0"),
        ([0.0, np.inf], [0.0], [0.0], "slope < 0"),
        ([0.0, 1.0], [np.nan], [0.0], "NaN"),
        ([0.0, 1.0], [0.0], [np.inf], "intercepts"),
        ([0.0, 1.0], [0.0], [-np.inf], "positive"),
    ],
)
def test_bad_piecewise_parameters_raise(breaks, a, b, match) -> None:
    with pytest.raises(ValueError, match=match):
        PiecewiseLogLinear(breaks, a, b)


def test_bad_discrete_parameters_raise() -> None:
    with pytest.raises(ValueError, match="same length"):
        DiscreteLaw([0, 1], [0.0])
    with pytest.raises(ValueError, match="at least one atom"):
        DiscreteLaw([0], [-math.inf])
    with pytest.raises(ValueError, match="probabilities must be >= 0"):
        DiscreteLaw.from_probabilities([0, 1], [1.5, -0.5])
    with pytest.raises(ValueError, match="alpha"):
        renyi_divergence(DiscreteLaw([0], [0]), DiscreteLaw([0], [0]), 0)


def test_exact_fraction_breaks_are_kept_exact() -> None:
    third = Fraction(1, 3)
    law = PiecewiseLogLinear([0, third, 1], [0, 0], [0, 0])
    other = PiecewiseLogLinear([0, Fraction(1, 3) + Fraction(1, 10**30), 1], [0, 0], [0, 1])
    # the merged grid keeps 1/3 and 1/3 + 1e-30 apart even though they are one float
    assert float(law.piece(0).right) == float(other.piece(0).right)
    assert len(merged_cells(law, other)) == 3


# --------------------------------------------------------------------------------------------
# Product laws (vector outputs with independent coordinates)
# --------------------------------------------------------------------------------------------


def _product_pairs():
    from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

    rr = [
        DiscreteLaw.from_probabilities([0, 1], [Fraction(3, 4), Fraction(1, 4)]),
        DiscreteLaw.from_probabilities([0, 1], [Fraction(1, 4), Fraction(3, 4)]),
    ]
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    d0, d1 = np.array([0.0, 0.25, 0.25]), np.array([0.25, 0.25, 1.0])
    p = ProductLaw([rr[0], em.exact(d0), rr[0]])
    q = ProductLaw([rr[1], em.exact(d1), rr[0]])
    return p, q


def _brute_cells(p, q):
    """(P, Q) of every product cell, exact: atoms times the merged pieces of the densities."""
    per = []
    for a, b in zip(p.components, q.components, strict=True):
        if isinstance(a, DiscreteLaw):
            atoms = sorted(set(a.support) | set(b.support))
            per.append([(a.pmf_mp(x), b.pmf_mp(x)) for x in atoms])
        else:
            br = sorted(set(a.breaks.tolist()) | set(b.breaks.tolist()))
            per.append(
                [(a.mass(lo, hi), b.mass(lo, hi)) for lo, hi in zip(br, br[1:], strict=False)]
            )
    out = []
    for combo in itertools.product(*per):
        P, Q = mpmath.mpf(1), mpmath.mpf(1)
        for x, y in combo:
            P, Q = P * x, Q * y
        out.append((P, Q))
    return out


def test_product_law_divergences_match_sums_over_the_product_cells() -> None:
    p, q = _product_pairs()
    cells = _brute_cells(p, q)
    with workdps():
        loss = max(abs(mpmath.log(P / Q)) for P, Q in cells if P > 0 and Q > 0)
        assert abs(privacy_loss(p, q) - loss) < mpmath.mpf("1e-40")
        for eps in (0.0, 0.5, 1.0, 2.0):
            delta = mpmath.fsum(max(P - mpmath.exp(eps) * Q, 0) for P, Q in cells)
            assert abs(hockey_stick(p, q, eps) - delta) < mpmath.mpf("1e-40")
        renyi2 = mpmath.log(mpmath.fsum(P**2 / Q for P, Q in cells if P > 0))
        assert abs(renyi_divergence(p, q, 2) - renyi2) < mpmath.mpf("1e-40")


def test_product_law_sampler_conforms_and_a_wrong_one_does_not(rng) -> None:
    p, q = _product_pairs()
    draws = p.sample(100_000, rng)
    assert draws.shape == (100_000, 3)
    assert check_sampler(p, draws).passed
    assert not check_sampler(q, draws).passed
    finite = np.isfinite(p.logpdf(draws))
    assert finite.all()


def test_product_law_rejects_bad_components_and_sloped_hockey_sticks() -> None:
    with pytest.raises(ValueError, match="components"):
        ProductLaw([])
    with pytest.raises(ValueError, match="components"):
        ProductLaw([DiscreteLaw(["a", "b"], [0.0, 0.0])])
    sloped = PiecewiseLogLinear([0.0, 1.0], [1.0], [0.0])
    flat = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    with pytest.raises(ValueError, match="piecewise-constant"):
        hockey_stick(ProductLaw([sloped]), ProductLaw([flat]), 0.5)
    with pytest.raises(ValueError, match="same number"):
        privacy_loss(ProductLaw([flat]), ProductLaw([flat, flat]))


# --------------------------------------------------------------------------------------------
# Issue 18: numerics at the extremes, total mass, bad input
# --------------------------------------------------------------------------------------------


def test_laplace_law_with_a_scale_below_the_float_spacing_refuses_to_sample() -> None:
    """Issue 18: laplace_law(1.0, 1e-16) drew with P(Y < loc) = 0.28 (its draws round onto the
    float grid near 1.0, spaced 1.1e-16 and 2.2e-16) and failed its own conformance check. Its
    float sampler now refuses, naming loc, scale and the smallest scale it can draw; the exact
    law itself stays exact."""
    law = laplace_law(1.0, 1e-16)
    assert law.float_sampling_error() > 0.1
    with pytest.raises(ValueError, match=r"float64.*scale >= .*at this loc"):
        law.sample(1000, np.random.default_rng(0))
    assert abs(law.cdf_mp(1.0) - mpmath.mpf(1) / 2) < TIGHT
    assert abs(law.total_mass() - 1) < TIGHT


def test_laplace_law_far_from_zero_has_mass_one_exactly() -> None:
    """Issue 18: laplace_law(-1e308, 2.57e106).mass(-inf, inf) was 2.0: the intercepts ∓loc/b
    (±3.9e201) cancel against slope × loc, and 60 digits kept none of the difference. The
    anchored pieces keep every digit: mass 1 and P(Y <= loc) = 1/2 to 1e-40, in mpmath and in
    floats; the float sampler refuses (every draw would round to loc)."""
    law = laplace_law(-1e308, 2.57e106)
    assert abs(law.mass(-math.inf, math.inf) - 1) < TIGHT
    assert abs(law.total_mass() - 1) < TIGHT
    assert abs(law.cdf_mp(-1e308) - mpmath.mpf(1) / 2) < TIGHT
    assert abs(law.mass(-math.inf, -1e308) - mpmath.mpf(1) / 2) < TIGHT
    assert float(law.cdf(-1e308)) == pytest.approx(0.5, abs=1e-12)
    np.testing.assert_allclose(law.piece_masses, [0.5, 0.5], rtol=1e-12)
    expected = -mpmath.log(2 * mpmath.mpf(2.57e106))
    assert abs(law.logpdf_mp(-1e308) - expected) < TIGHT
    assert float(law.logpdf(-1e308)) == pytest.approx(float(expected), rel=1e-14)
    with pytest.raises(ValueError, match="float64"):
        law.sample(10, np.random.default_rng(0))


@pytest.mark.parametrize(
    "loc, scale", [(1e10, 1.0), (-3e5, 1e-6), (1e300, 1e295), (0.0, 1e-300), (5.0, 1e305)]
)
def test_laplace_laws_at_extreme_locations_and_scales_are_exact(loc, scale) -> None:
    law = laplace_law(loc, scale)
    assert abs(law.total_mass() - 1) < TIGHT
    assert abs(law.cdf_mp(loc) - mpmath.mpf(1) / 2) < TIGHT
    end = Fraction(loc) + 3 * Fraction(scale)
    assert abs(law.mass(loc, end) - (1 - mpmath.exp(-3)) / 2) < TIGHT
    assert float(law.cdf(loc)) == pytest.approx(0.5, abs=1e-12)


def _cancelling_law() -> tuple[PiecewiseLogLinear, float]:
    """A flat piece on [0, 1] and a steep piece ending at e = 2^50 + 35 whose log-density there is
    c = a·e + b ≈ −60 exactly, while the float a·e + b is 0: a·e ≈ 1.1e18 and b cancel. The
    exact law puts mass ~6e-30 on the steep piece; a float path that forms a·e + b gives it
    ~1e-3 (200 draws in 200 000)."""
    a = 1000.0 + 1 / 3
    e = float(2**50 + 35)
    b = float(Fraction(-20) - Fraction(a) * Fraction(e))
    assert a * e + b == 0.0 and float(Fraction(a) * Fraction(e) + Fraction(b)) < -60
    return PiecewiseLogLinear([0.0, 1.0, e - 1.0, e], [0.0, 0.0, a], [0.0, -np.inf, b]), e


def test_float_path_agrees_with_the_exact_path_when_slope_times_break_cancels() -> None:
    law, e = _cancelling_law()
    tail = law.mass(e - 1.0, e)
    assert 0 < tail < mpmath.mpf("1e-25")
    assert abs(law.total_mass() - 1) < TIGHT
    for y in (0.25, 1.0, e - 0.5, e):
        assert float(law.cdf(y)) == pytest.approx(float(law.cdf_mp(y)), abs=1e-13)
    ys = np.array([0.5, e - 1.0, e - 1e-3, e])
    exact = [float(law.logpdf_mp(float(y))) for y in ys]
    np.testing.assert_allclose(law.logpdf(ys), exact, rtol=1e-12, atol=1e-12)


def test_extreme_slopes_sample_from_the_exact_law() -> None:
    """Seeded: slopes ±1e12 at loc = 1e-3 (intercepts ∓1e9 that cancel against slope × break),
    a flat piece of mass about 0.27 far away, and the cancelling law above. Each sampler passes
    DKW at α = 1e-7, and the fraction of draws on each side of the peak and in the far pieces is
    inside its exact Clopper–Pearson interval at level 1e-9 (false alarm < 1e-6 in all)."""
    a, x0 = 1e12, 1e-3
    top = Fraction(0)  # log-density 0 at the peak x0 (exactly, on the exact path)
    b_left = top - Fraction(a) * Fraction(x0)
    b_right = top + Fraction(a) * Fraction(x0)
    law = PiecewiseLogLinear(
        [-np.inf, x0, 1.0, 2.0, 3.0],
        [a, -a, 0.0, 0.0],
        [float(b_left), float(b_right), -np.inf, -27.0],
        exact_intercepts=[b_left, b_right, -math.inf, Fraction(-27)],
    )
    assert law.float_sampling_error() < 1e-5
    rng = np.random.default_rng(18)
    n = 200_000
    draws = law.sample(n, rng)
    check_sampler(law, draws).assert_ok()
    for lo, hi in ((-np.inf, x0), (x0, 1.0), (2.0, 3.0)):
        k = int(np.count_nonzero((draws >= lo) & (draws < hi)))
        ci = clopper_pearson(k, n, 1e-9)
        assert ci[0] <= float(law.mass(lo, hi)) <= ci[1], (lo, hi, k)
    cancelling, e = _cancelling_law()
    draws = cancelling.sample(n, rng)
    check_sampler(cancelling, draws).assert_ok()
    k = int(np.count_nonzero(draws > 1.0))
    lo, hi = clopper_pearson(k, n, 1e-9)
    assert lo <= float(cancelling.mass(e - 1.0, e)) <= hi and k == 0


def test_a_piece_wider_than_the_largest_double_is_sampled_and_integrated() -> None:
    """Issue 18 (ExponentialQuantile on (-1e308, 1e308) had a NaN normaliser): the width
    2e308 overflows a double; the float path measures it in half units."""
    law = PiecewiseLogLinear([-1e308, 0.0, 1e308], [0.0, 0.0], [0.0, math.log(3.0)])
    assert abs(law.total_mass() - 1) < TIGHT
    assert np.isfinite(law.log_normalizer)
    np.testing.assert_allclose(law.cdf([-1e308, -5e307, 0.0, 5e307, 1e308]),
                               [0, 0.125, 0.25, 0.625, 1], rtol=1e-12)
    draws = law.sample(100_000, np.random.default_rng(3))
    assert np.isfinite(draws).all() and draws.min() >= -1e308 and draws.max() <= 1e308
    check_sampler(law, draws).assert_ok()


def test_every_law_reports_its_total_mass_exactly() -> None:
    p, q = _product_pairs()
    grid = GridLaw([[0, Fraction(1, 3), 1], [0, 1]], [[0.0], [mpmath.mpf(2)]])
    laws = [
        DiscreteLaw([0, 1, 2], [0.0, -1.0, 5.0]),
        DiscreteLaw(["ok", None], [0.0, -40.0]),
        PiecewiseLogLinear([-np.inf, 0.0, 1.0, np.inf], [3.0, 0.0, -0.5], [1e3, 1e3, 1e3]),
        p,
        q,
        grid,
        grid.marginal(0),
    ]
    for law in laws:
        assert abs(law.total_mass() - 1) < TIGHT, law


def test_sampler_sizes_and_generators_are_checked() -> None:
    laws = [
        DiscreteLaw([0, 1], [0.0, 0.0]),
        PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0]),
        ProductLaw([DiscreteLaw([0, 1], [0.0, 0.0])]),
        GridLaw([[0, 1]], [0.0]),
    ]
    rng = np.random.default_rng(0)
    for law in laws:
        assert len(law.sample(0, rng)) == 0
        for size in (-1, 2.5, True, None, "8", 10**12):
            with pytest.raises(ValueError, match="size"):
                law.sample(size, rng)
        for bad in (None, 0, np.random.RandomState(0)):
            with pytest.raises(ValueError, match="rng"):
                law.sample(4, bad)


def test_narrow_grid_cells_refuse_float_sampling() -> None:
    law = GridLaw([[1.0, 1.0 + 2**-52, 2.0]], [40.0, 0.0])  # ~all the mass on one float spacing
    with pytest.raises(ValueError, match="float64"):
        law.sample(10, np.random.default_rng(0))


# -- bad input: every parameter checked, ValueError naming it ----------------------------------


def test_hockey_stick_refuses_a_nan_epsilon() -> None:
    """Issue 18: hockey_stick(p, q, nan) returned 0."""
    p, q = DiscreteLaw([0, 1], [0.0, 1.0]), DiscreteLaw([0, 1], [1.0, 0.0])
    for eps in (math.nan, math.inf, -math.inf, "1", None, [0.5], 10**400, True):
        with pytest.raises(ValueError, match="epsilon"):
            hockey_stick(p, q, eps)
    assert hockey_stick(p, q, Fraction(1, 2)) == hockey_stick(p, q, 0.5)
    assert abs(hockey_stick(p, q, -1e308) - 1) < TIGHT  # e^ε q vanishes


def test_privacy_loss_refuses_arguments_that_are_not_laws() -> None:
    """Issue 18: privacy_loss(None, None) returned ∞."""
    law = DiscreteLaw([0, 1], [0.0, 0.0])
    for p, q, name in ((None, None, "p"), (law, None, "q"), (1.0, law, "p"), (law, "q", "q")):
        for f in (privacy_loss, max_log_ratio):
            with pytest.raises(ValueError, match=f"{name} must be"):
                f(p, q)
        with pytest.raises(ValueError, match=f"{name} must be"):
            hockey_stick(p, q, 0.5)
        with pytest.raises(ValueError, match=f"{name} must be"):
            renyi_divergence(p, q, 2.0)
    from dpquant.reference.primitives.discrete_laplace import DiscreteLaplaceLaw

    with pytest.raises(ValueError, match="clamped"):
        privacy_loss(DiscreteLaplaceLaw(1.0), DiscreteLaplaceLaw(2.0))


def test_laws_of_different_spaces_are_not_compared() -> None:
    flat = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    grid = GridLaw([[0, 1]], [0.0])
    for p, q in ((ProductLaw([flat]), grid), (DiscreteLaw([0], [0.0]), grid),
                 (ProductLaw([flat]), flat)):
        with pytest.raises(ValueError, match="p and q must be laws on the same space"):
            privacy_loss(p, q)
    # an atomic law against a density stays mutually singular
    assert privacy_loss(DiscreteLaw([0.5], [0.0]), flat) == mpmath.inf


@pytest.mark.parametrize("alpha", [0, -1, math.nan, -math.inf, "2", None, [2.0], True])
def test_renyi_divergence_refuses_a_bad_alpha(alpha) -> None:
    law = DiscreteLaw([0, 1], [0.0, 0.0])
    with pytest.raises(ValueError, match="alpha"):
        renyi_divergence(law, law, alpha)


def test_discrete_law_refuses_a_nan_atom() -> None:
    """Issue 18: DiscreteLaw accepted a NaN atom."""
    for atom in (math.nan, np.float64("nan"), complex(math.nan, 1), (1, math.nan),
                 mpmath.mpf("nan")):
        with pytest.raises(ValueError, match=r"support\[1\]"):
            DiscreteLaw([0, atom], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"support\[0\] must be a finite number"):
        DiscreteLaw([math.inf, 0], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"support\[0\] must fit a float64"):
        DiscreteLaw([10**400], [0.0])
    with pytest.raises(ValueError, match=r"support\[0\] must be a number or a hashable label"):
        DiscreteLaw([[0]], [0.0])
    with pytest.raises(ValueError, match="booleans"):
        DiscreteLaw([True, 1], [0.0, 0.0])
    # labels, None included, are atoms of a non-numeric law
    law = DiscreteLaw([None, "ok", ("a", 1)], [0.0, 0.0, 0.0])
    assert not law.numeric and abs(law.pmf_mp(None) - mpmath.mpf(1) / 3) < TIGHT


def test_discrete_law_refuses_bad_weights_and_shapes() -> None:
    for weights, match in (
        ([0.0, math.nan], r"log_weights\[1\]"),
        ([0.0, math.inf], r"log_weights\[1\]"),
        ([0.0, "1"], r"log_weights\[1\]"),
        ([0.0, None], r"log_weights\[1\]"),
        (np.array([0.0, np.nan]), r"log_weights\[1\]"),
        ([0.0], "same length"),
    ):
        with pytest.raises(ValueError, match=match):
            DiscreteLaw([0, 1], weights)
    with pytest.raises(ValueError, match="at least one atom"):
        DiscreteLaw([], [])
    with pytest.raises(ValueError, match="support must be a sequence"):
        DiscreteLaw({0, 1}, [0.0, 0.0])
    with pytest.raises(ValueError, match="at most"):
        DiscreteLaw(range(10**7), range(10**7))


def test_from_probabilities_refuses_sums_away_from_one_and_bad_values() -> None:
    """Decision: probabilities must sum to 1 within 1e-9 (float rounding is normalised away);
    a sum further off is a caller's mistake and is refused, never silently renormalised."""
    for probs in ([0.5, math.nan], [1.5, -0.5], [0.5, math.inf], [0.3, 0.3], [0.6, 0.6],
                  [0.0, 0.0], ["0.5", "0.5"]):
        with pytest.raises(ValueError, match="probabilities"):
            DiscreteLaw.from_probabilities([0, 1], probs)
    law = DiscreteLaw.from_probabilities([0, 1, 2], [0.1, 0.2, 0.7])  # float sum 1 - 1e-16
    assert abs(law.total_mass() - 1) < TIGHT


def test_law_methods_refuse_nan_and_strings() -> None:
    d = DiscreteLaw([0, 1], [0.0, 0.0])
    p = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    for call, name in (
        (lambda: d.cdf(math.nan), "y"),
        (lambda: d.cdf("0.5"), "y"),
        (lambda: d.mass(math.nan, 1), "lo"),
        (lambda: d.mass(0, "1"), "hi"),
        (lambda: d.logpmf([0, math.nan]), "atoms"),
        (lambda: d.logpmf_mp([0]), "atom"),
        (lambda: d.probability(None), "event"),
        (lambda: p.cdf([0.5, math.nan]), "y"),
        (lambda: p.logpdf("0.5"), "y"),
        (lambda: p.pdf(None), "y"),
        (lambda: p.mass(0, math.nan), "hi"),
        (lambda: p.logpdf_mp(math.nan), "y"),
        (lambda: p.cdf_mp("0"), "y"),
        (lambda: p.piece(1), "i"),
        (lambda: p.piece(0.0), "i"),
    ):
        with pytest.raises(ValueError, match=name):
            call()
    assert d.cdf(math.inf) == 1.0 and p.cdf(-math.inf) == 0.0
    assert p.mass(-math.inf, math.inf) == 1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"breaks": [0.0, math.inf]}, "slope < 0"),
        ({"breaks": [0.0, "1"]}, r"breaks\[1\]"),
        ({"breaks": "01"}, "breaks must be a sequence"),
        ({"slopes": [math.inf]}, "slopes must be finite"),
        ({"slopes": [None]}, r"slopes\[0\]"),
        ({"intercepts": [math.nan]}, "intercepts must not contain NaN"),
        ({"intercepts": [10**400]}, r"intercepts\[0\] must fit a float64"),
        ({"exact_breaks": [0, 2]}, r"exact_breaks\[1\] must round"),
        ({"exact_breaks": [0]}, "exact_breaks must have the same length"),
        ({"exact_slopes": [math.nan]}, r"exact_slopes\[0\]"),
        ({"exact_intercepts": ["0"]}, r"exact_intercepts\[0\]"),
    ],
)
def test_piecewise_law_names_the_bad_parameter(kwargs, match) -> None:
    base = {"breaks": [0.0, 1.0], "slopes": [0.0], "intercepts": [0.0]}
    with pytest.raises(ValueError, match=match):
        PiecewiseLogLinear(**{**base, **kwargs})


def test_product_and_grid_laws_name_the_bad_parameter() -> None:
    flat = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    for components in (None, 3, "ab", [flat, None], [ProductLaw([flat])]):
        with pytest.raises(ValueError, match="components"):
            ProductLaw(components)
    for breaks, dens, match in (
        ([], [], "breaks must give at least one axis"),
        ([[0, math.nan]], [0.0], r"breaks\[0\]\[1\]"),
        ([[1, 0]], [0.0], "strictly increasing"),
        ([[0, 1]], [math.nan], "log_density"),
        ([[0, 1]], [math.inf], "log_density"),
        ([[0, 1]], [0.0, 0.0], "shape"),
        ([[0, 1]], "0", "log_density"),
        ([list(range(1000))] * 2, np.zeros((999, 999)), "MAX_GRID_CELLS"),
    ):
        with pytest.raises(ValueError, match=match):
            GridLaw(breaks, dens)
    with pytest.raises(ValueError, match="axis"):
        GridLaw([[0, 1]], [0.0]).marginal(1)


def test_log_integral_exp_linear_checks_its_arguments() -> None:
    for args, name in (((math.nan, 0, 0, 1), "a"), ((0, math.inf, 0, 1), "b"),
                       ((0, 0, "0", 1), "left"), ((0, 0, 0, math.nan), "right")):
        with pytest.raises(ValueError, match=name):
            log_integral_exp_linear(*args)
    # anchored: a huge slope times a huge end cancels exactly
    with workdps():
        value = log_integral_exp_linear(1e6, -1e6 * 1e12, 1e12 - 1, 1e12)
        expected = mpmath.log(-mpmath.expm1(-(10**6))) - mpmath.log(10**6)
        assert abs(value - expected) < TIGHT
