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

from reference.conformance import check_sampler
from reference.distributions import (
    DiscreteLaw,
    PiecewiseLogLinear,
    ProductLaw,
    _merged_cells,
    hockey_stick,
    log_integral_exp_linear,
    max_log_ratio,
    privacy_loss,
    renyi_divergence,
)
from reference.exact.mp import workdps

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
    assert len(_merged_cells(law, other)) == 3


# --------------------------------------------------------------------------------------------
# Product laws (vector outputs with independent coordinates)
# --------------------------------------------------------------------------------------------


def _product_pairs():
    from reference.primitives.exponential_mechanism import ExponentialQuantile

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
