"""truncated_laplace_law(mu, sigma, left, right) at extreme parameters (issue 34;
notes/foundation.md, "Issue 34"): its unnormalised density peaks at 1, so its log-normaliser is a
finite float equal to the exact one, and no property of the law or its sampler is NaN or a
silent infinity."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpquant.reference.primitives.truncated import (
    sample_truncated_laplace,
    truncated_laplace_from_uniforms,
    truncated_laplace_law,
    truncated_laplace_left_probability,
)

MAX = 1.7976931348623157e308

# (mu, sigma, left, right): the case of issue 34 first, then centres far outside the interval,
# rates at the float limit, sub-ulp and huge widths
EXTREME = [
    (1e308, 1e-300, -1.0, 1.0),
    (-1e308, 1e-300, -1.0, 1.0),
    (1e308, 1.0, -1.7e308, -1e308),
    (-1e308, 1.0, 1e308, 1.7e308),
    (2.0, 5.6e-309, 0.5, 0.75),
    (1e16, 5.6e-309, 0.0, 1e-300),
    (1.7e308, 1e-16, 1.0, 1.0 + 2**-52),
    (0.0, 1e-300, -MAX, 0.0),
    (0.5, 5.6e-309, -1.0, 1.0),
    (5e-324, MAX, -8e307, 8e307),
    (0.0, 1.0, -1.0, 1.0),
]


def _log_normaliser_closed_form(mu: float, sigma: float, left: float, right: float) -> mpmath.mpf:
    """log ∫_left^right e^{−dist(ω, μ*)/σ} dω, μ* the point of [left, right] nearest μ: each side
    of μ* of length L contributes σ(1 − e^{−L/σ}) (exact rationals, 60 digits)."""
    centre = min(max(Fraction(mu), Fraction(left)), Fraction(right))
    s = Fraction(sigma)
    sides = [centre - Fraction(left), Fraction(right) - centre]
    with mpmath.workdps(60):
        masses = [-mpmath.expm1(-_mp(length / s)) for length in sides if length > 0]
        return mpmath.log(_mp(s)) + mpmath.log(mpmath.fsum(masses))


def _mp(x: Fraction) -> mpmath.mpf:
    """A rational rounded once to the working precision."""
    return mpmath.fdiv(x.numerator, x.denominator)


@pytest.mark.parametrize(("mu", "sigma", "left", "right"), EXTREME)
def test_truncated_laplace_log_normaliser_is_finite_and_exact(mu, sigma, left, right) -> None:
    """Issue 34: truncated_laplace_law(1e308, 1e-300, -1, 1).log_normalizer was -inf (the exact
    intercept −μ/σ = −1e608 put the unnormalised density's log far below the float range). The
    float and exact log-normalisers now equal the closed form for the density peaking at 1, and
    the log-density at its peak is −log Z."""
    law = truncated_laplace_law(mu, sigma, left, right)
    want = _log_normaliser_closed_form(mu, sigma, left, right)
    with mpmath.workdps(60):
        assert abs(law.log_normalizer_mp - want) <= mpmath.mpf(10) ** -40 * max(1, abs(want))
        assert abs(law.total_mass() - 1) < mpmath.mpf(10) ** -40
    assert math.isfinite(law.log_normalizer)
    assert law.log_normalizer == pytest.approx(float(want), rel=1e-12, abs=1e-12)
    peak = min(max(mu, left), right)
    assert float(law.logpdf(peak)) == pytest.approx(-float(want), rel=1e-12, abs=1e-12)


def _sample(params: tuple[float, ...], rng: np.random.Generator) -> np.ndarray:
    return sample_truncated_laplace(*params, 20, rng)


def _from_uniforms(params: tuple[float, ...], rng: np.random.Generator) -> np.ndarray:
    return truncated_laplace_from_uniforms([0.0, 0.7], [0.0, 0.99], *params)


MUS = [0.0, 1.0, -1e308, 1.7e308, 5e-324, 1e16]
SIGMAS = [1.0, 1e-300, 5.6e-309, MAX, 5e-324]
INTERVALS = [(-1.0, 1.0), (0.0, 5e-324), (-1e308, 1e308), (1e308, 1.7e308), (0.5, 0.75)]


def test_every_property_of_the_law_and_sampler_at_extremes_is_a_number_or_refused() -> None:
    """Every (μ, σ, interval) of a grid of extremes: the law is refused with a ValueError naming a
    parameter, or its log-normalisers are finite, its mass 1, its cdf a monotone map into [0, 1]
    agreeing with the exact cdf to 1e-9, its log-density never NaN or +inf, and the sampler and its
    inverse-CDF form (refused, or) inside [left, right]."""
    names = ("mu", "sigma", "left", "right")
    rng = np.random.default_rng(34)
    for mu, sigma, (left, right) in itertools.product(MUS, SIGMAS, INTERVALS):
        try:
            law = truncated_laplace_law(mu, sigma, left, right)
        except ValueError as exc:
            assert any(n in str(exc) for n in names), exc
            continue
        assert math.isfinite(law.log_normalizer) and mpmath.isfinite(law.log_normalizer_mp)
        assert abs(law.total_mass() - 1) < mpmath.mpf(10) ** -40
        mid = left / 2 + right / 2
        pts = np.array([-math.inf, left, mid, min(max(mu, left), right), right, math.inf])
        logp = law.logpdf(pts)
        assert not (np.isnan(logp).any() or np.isposinf(logp).any()), (mu, sigma, left, right)
        cdf = law.cdf(np.sort(pts))
        # monotone up to the float path's 1e-12 (a piece's mass against the cumulative sums)
        assert np.all((cdf >= 0) & (cdf <= 1)) and np.all(np.diff(cdf) >= -1e-12)
        assert abs(float(law.cdf(mid)) - float(law.cdf_mp(mid))) < 1e-9
        assert 0 <= truncated_laplace_left_probability(mu, sigma, left, right) <= 1
        for draw in (_sample, _from_uniforms):
            try:
                x = draw((mu, sigma, left, right), rng)
            except ValueError as exc:
                assert any(n in str(exc) for n in names), exc
                continue
            assert np.all(np.isfinite(x) & (x >= left) & (x <= right)), (mu, sigma, left, right)
