"""DiscreteLaplaceLaw at extreme scales (issue 34; notes/foundation.md, "Issue 34"): its finite
images and masses are exact to the working precision and immediate at scales 5e-324 .. 1e308,
never a hang in exact arithmetic nor a mass lost to cancellation."""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath
import pytest

from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.discrete_laplace import DiscreteLaplaceLaw

TOL = mpmath.mpf(10) ** -45
"""Tolerance on log-probabilities (a relative error on probabilities, far above 60 digits)."""

EXTREME_SCALES = [
    pytest.param(t, id=name)
    for t, name in [
        (1e-300, "1e-300"),
        (5e-324, "5e-324"),
        (Fraction(1, 10**400), "1e-400"),
        (2.0**-1074 * 3, "15e-324"),
        (1e-8, "1e-8"),
        (1e12, "1e12"),
        (1e308, "1e308"),
    ]
]


def _close_logs(a: mpmath.mpf, b: mpmath.mpf) -> bool:
    """Two log-probabilities agree to TOL (absolute where small, relative where large)."""
    with workdps():
        return bool(abs(a - b) <= TOL * max(1, abs(a), abs(b)))


@pytest.mark.parametrize("scale", EXTREME_SCALES)
def test_truncated_law_at_extreme_scales_is_exact_and_immediate(scale) -> None:
    """Issue 34: truncated(3) at scale 1e-300 ran for minutes. Each atom's probability is
    P(X = k)/P(|X − loc| <= 3) from the closed forms."""
    law = DiscreteLaplaceLaw(scale, loc=2)
    start = time.perf_counter()
    image = law.truncated(3)
    assert time.perf_counter() - start < 1.0
    assert image.support == tuple(range(-1, 6))
    with workdps():
        kept = mpmath.log(1 - law.tail_mass_mp(3))
        for k in range(-1, 6):
            assert _close_logs(image.logp[k + 1], law.logpmf_mp(k) - kept)


@pytest.mark.parametrize("scale", EXTREME_SCALES)
@pytest.mark.parametrize(("lo", "hi"), [(-1, 5), (2, 5), (-1, 2), (4, 6), (-3, -1), (2, 3)])
def test_clamped_law_at_extreme_scales_is_exact_and_immediate(scale, lo, hi) -> None:
    """clamped(lo, hi) piles P(X <= lo) on lo and P(X >= hi) on hi, the ends on either side of
    loc = 2 (the closed forms of cdf_mp and sf_mp); immediate at every scale."""
    law = DiscreteLaplaceLaw(scale, loc=2)
    start = time.perf_counter()
    image = law.clamped(lo, hi)
    assert time.perf_counter() - start < 1.0
    with workdps():
        expected = [mpmath.log(law.cdf_mp(lo))]
        expected += [law.logpmf_mp(k) for k in range(lo + 1, hi)]
        expected.append(mpmath.log(law.sf_mp(hi - 1)))
        for got, want in zip(image.logp, expected, strict=True):
            assert _close_logs(got, want)


@pytest.mark.parametrize("scale", EXTREME_SCALES)
@pytest.mark.parametrize(
    ("lo", "hi"), [(-1, 5), (3, 5), (-3, 1), (2, 2), (-1e308, 1e308), (3, 1e308)]
)
def test_mass_at_extreme_scales_is_the_sum_of_its_atoms(scale, lo, hi) -> None:
    """Issue 34: at t = 1e308, mass(-3, 3) was 0 (0.5 + 7·5e-309 minus 0.5 at 60 digits) instead
    of 3.5e-308. P(lo <= X <= hi) is a sum of positive geometric runs: no cancellation."""
    law = DiscreteLaplaceLaw(scale, loc=2)
    with workdps():
        got = law.mass(lo, hi)
        if hi - lo <= 10:
            want = mpmath.fsum(law.pmf_mp(k) for k in range(int(lo), int(hi) + 1))
        elif lo < 0:  # all but the two far tails (no cancellation: each tail is <= 1/2)
            want = 1 - law.cdf_mp(int(lo) - 1) - law.sf_mp(int(hi))
        else:
            want = law.sf_mp(int(lo) - 1) - law.sf_mp(int(hi))
        assert got > 0 and abs(got - want) <= TOL * want
