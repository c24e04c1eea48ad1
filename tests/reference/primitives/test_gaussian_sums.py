"""The rigorous Gaussian sums behind the discrete Gaussian (CKS20, Definition 1): θ(m), the tails
S(d) and the variance, each against brute-force summation at 90 digits or against identities
that tie the two summation paths (direct / Poisson, direct / Euler–Maclaurin) together, and each
within the relative error bound it returns."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from dpquant.reference.primitives.gaussian_sums import (
    MAX_DIRECT_TERMS,
    SUM_RELATIVE_ERROR,
    gaussian_log_theta,
    gaussian_tail,
    gaussian_variance,
)

BRUTE_DPS = 90
ROUNDING = mpmath.mpf(10) ** -55  # the comparisons' slack for rounding at 60 digits


def _g(x, s2):
    return mpmath.exp(-(mpmath.mpf(x) ** 2) / (2 * s2))


def _brute(fn, lo: int, hi: int):
    return mpmath.fsum(fn(k) for k in range(lo, hi + 1))


def _window(s2) -> int:
    """A half-width beyond which e^{-k²/(2σ²)} < 10^-100 relative to the centre."""
    return int(22 * mpmath.sqrt(s2)) + 5


SIGMA2S = [
    Fraction(1, 400),
    Fraction(1, 10),
    Fraction(7, 10),
    Fraction(1),
    Fraction(9, 4),
    Fraction(50),
    Fraction(1000),
]


@pytest.mark.parametrize("s2", SIGMA2S, ids=str)
@pytest.mark.parametrize(
    "m", [Fraction(0), Fraction(3, 10), Fraction(1, 2), Fraction(-27, 4)], ids=str
)
def test_theta_matches_brute_force_summation_within_its_bound(s2, m) -> None:
    """θ(m) = Σ_k e^{-(k-m)²/(2σ²)}: direct below σ² = 1, Poisson above; both against a brute
    sum at 90 digits over a window whose left-out mass is below 10^-100."""
    log_theta, bound = gaussian_log_theta(m, s2)
    assert 0 <= bound <= SUM_RELATIVE_ERROR
    with mpmath.workdps(BRUTE_DPS):
        s2m, mm = mpmath.mpf(s2.numerator) / s2.denominator, mpmath.mpf(m.numerator) / m.denominator
        w = _window(s2m) + 10
        brute = _brute(lambda k: mpmath.exp(-((k - mm) ** 2) / (2 * s2m)), -w - 10, w + 10)
        assert abs(mpmath.exp(log_theta) / brute - 1) <= bound + ROUNDING


@pytest.mark.parametrize("s2", [Fraction(1, 10), Fraction(9, 4), Fraction(50)], ids=str)
def test_theta_is_largest_at_integers(s2) -> None:
    """θ(m) <= θ(0), with equality exactly at integers (the step of CKS20 Proposition 5); the
    gap, about e^{-2π²σ²}, is resolved at 80 digits only for σ² below ~9."""
    top, _ = gaussian_log_theta(0, s2)
    assert gaussian_log_theta(5, s2)[0] == top
    for m in (Fraction(1, 7), Fraction(1, 2), Fraction(5, 3)):
        value = gaussian_log_theta(m, s2)[0]
        assert value < top if s2 < 9 else value <= top


@pytest.mark.parametrize("s2", SIGMA2S, ids=str)
@pytest.mark.parametrize("d", [-7, 0, 1, 2, 5, 40])
def test_tail_matches_brute_force_summation_within_its_bound(s2, d) -> None:
    value, bound = gaussian_tail(d, s2)
    assert 0 <= bound <= 3 * SUM_RELATIVE_ERROR
    with mpmath.workdps(BRUTE_DPS):
        s2m = mpmath.mpf(s2.numerator) / s2.denominator
        w = _window(s2m)
        brute = _brute(lambda k: _g(k, s2m), max(d, -w), max(d, 0) + w)
        assert abs(value / brute - 1) <= bound + ROUNDING


@pytest.mark.parametrize("s2", [Fraction(300**2), Fraction(10**12), Fraction(2**200)], ids=str)
def test_euler_maclaurin_tails_agree_with_the_poisson_normaliser(s2) -> None:
    """At large σ the tails near the centre need more than MAX_DIRECT_TERMS terms and are
    summed by Euler–Maclaurin; θ(0) = 1 + 2·S(1) (symmetry) ties them to the Poisson form."""
    with mpmath.workdps(60):
        s2m = mpmath.mpf(s2.numerator) / s2.denominator
        assert mpmath.sqrt(2 * s2m * 170) > MAX_DIRECT_TERMS  # the Euler–Maclaurin path
        theta = mpmath.exp(gaussian_log_theta(0, s2)[0])
        s1, bound = gaussian_tail(1, s2)
        assert bound <= SUM_RELATIVE_ERROR
        assert abs((1 + 2 * s1) / theta - 1) <= 3 * SUM_RELATIVE_ERROR + ROUNDING


@pytest.mark.parametrize("s2", [Fraction(300**2), Fraction(10**12)], ids=str)
def test_tails_of_both_paths_differ_by_one_term(s2) -> None:
    """S(d) − S(d + 1) = e^{-d²/(2σ²)} across the switch from Euler–Maclaurin (small d) to the
    direct sum (d beyond ~0.04σ²), and at σ-scale distances."""
    with mpmath.workdps(BRUTE_DPS):  # e^{-x} for x ~ 10^9 needs the digits of x too
        s2m = mpmath.mpf(s2.numerator) / s2.denominator
        sigma = mpmath.sqrt(s2m)
        switch = int(170 * s2m / MAX_DIRECT_TERMS)  # near the switch
        for d in (1, int(sigma), int(3 * sigma), switch - 1, switch, switch + 1):
            a, ea = gaussian_tail(d, s2)
            b, eb = gaussian_tail(d + 1, s2)
            term = _g(d, s2m)
            assert abs((a - b) - term) <= ea * a + eb * b + ROUNDING * a


@pytest.mark.parametrize("s2", SIGMA2S + [Fraction(10**8)], ids=str)
def test_variance_matches_brute_force_summation_and_is_below_sigma2(s2) -> None:
    """Var = Σ k²e^{-k²/(2σ²)}/θ(0) (direct below σ² = 1, Poisson above) against a brute sum,
    and below σ² (CKS20's variance bound; the gap, about 8π²σ⁴e^{-2π²σ²}, is resolved at 60
    digits only for σ² below ~6: at most σ² above)."""
    value, bound = gaussian_variance(s2)
    assert 0 <= bound <= SUM_RELATIVE_ERROR
    with mpmath.workdps(BRUTE_DPS):
        s2m = mpmath.mpf(s2.numerator) / s2.denominator
        if s2 <= 1000:
            w = _window(s2m) + 10
            brute = _brute(lambda k: k * k * _g(k, s2m), -w, w) / _brute(
                lambda k: _g(k, s2m), -w, w
            )
            assert abs(value / brute - 1) <= bound + ROUNDING
        assert 0 < value < s2m if s2 < 6 else 0 < value <= s2m


def test_sums_refuse_bad_parameters_naming_them() -> None:
    for bad in (0, -1, float("nan"), float("inf"), "1", True):
        with pytest.raises(ValueError, match="sigma2"):
            gaussian_tail(1, bad)
        with pytest.raises(ValueError, match="sigma2"):
            gaussian_variance(bad)
    for bad in (1.5, "2", True, None):
        with pytest.raises(ValueError, match="d"):
            gaussian_tail(bad, 1)
    for bad in (float("nan"), float("inf"), "0"):
        with pytest.raises(ValueError, match="m"):
            gaussian_log_theta(bad, 1)
