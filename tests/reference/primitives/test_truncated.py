"""Truncated samplers of tzamos20 App. E.3 (Alg. 8, 10, 11) against their exact laws.

Claims checked here (``notes/tzamos20.md``, erratum E11 and "Samplers of App. E.3"):

* every ``"stable"`` sampler draws from its exact law (DKW band, false alarm <= 1e-7 per test),
  including huge rates, tiny rates and intervals deep in one tail, and stays in [left, right];
* the ``"corrected"`` formulas conform where floats suffice and break on huge rates;
* the ``"paper"`` formulas (as printed) fail conformance: the errata are real;
* the exact laws have mass 1 and the closed-form CDFs; the truncated Laplace's exact privacy loss
  between two centres equals an independent mpmath computation and is <= 2|Δμ|/σ;
* bad input raises ``ValueError`` naming the parameter.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.conformance import dkw_test
from dpquant.reference.distributions import privacy_loss
from dpquant.reference.primitives.truncated import (
    VARIANTS,
    sample_truncated_exponential,
    sample_truncated_laplace,
    sample_uniform,
    truncated_exponential_from_uniforms,
    truncated_exponential_law,
    truncated_laplace_from_uniforms,
    truncated_laplace_law,
    truncated_laplace_left_probability,
    uniform_law,
)

N = 100_000
SEED = 20261121
INTERVALS = [(0.0, 1.0), (-3.0, 2.0)]

# |α| from 0 through 1e-14 (flat to double precision) to 1e9 on a unit interval.
EXP_RATES = [0.0, 1e-14, -1e-14, 1e-3, 1.0, -1.0, 5.0, -37.0, 1e3, -1e3, 1e9, -1e9]

# (mu, sigma, left, right): centre inside, on an endpoint, outside, deep in one tail, huge, tiny σ.
LAPLACE_CASES = [
    (0.0, 1.0, -1.0, 1.0),
    (0.3, 1.0, -1.0, 2.0),
    (0.5, 0.1, 0.0, 1.0),
    (2.0, 0.5, -1.0, 1.0),
    (0.0, 1e-9, -1.0, 1.0),
    (0.3, 1e-9, -1.0, 1.0),
    (1e-12, 1e-9, 0.0, 1.0),  # mu a thousandth of σ inside: the left side has mass ~5e-4
    (0.2, 1e-9, 0.2, 1.0),  # mu on the left endpoint: a single side
    (0.0, 0.01, 50.0, 51.0),  # F(left) and F(right) both round to 1
    (0.0, 0.01, -51.0, -50.0),  # F(left) and F(right) both round to 0
    (0.0, 1e6, -1.0, 3.0),  # nearly uniform
    (5.0, 1e6, -1.0, 3.0),
]


def _gen(offset: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + offset)


def _assert_in_interval(x: np.ndarray, left: float, right: float) -> None:
    assert x.shape == (N,)
    assert np.all(np.isfinite(x)), "non-finite draws"
    assert x.min() >= left and x.max() <= right, f"draws outside [{left}, {right}]"


# --------------------------------------------------------------------------------------------
# Stable samplers conform to their exact laws
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", [(0.0, 1.0), (-3.0, 2.5), (1e6, 1e6 + 1.0), (-1e300, 1e300)])
def test_uniform_sampler_conforms_to_uniform_law(a, b):
    x = sample_uniform(a, b, N, _gen())
    _assert_in_interval(x, a, b)
    dkw_test(x, uniform_law(a, b).cdf).assert_ok()


@pytest.mark.parametrize("left, right", INTERVALS)
@pytest.mark.parametrize("alpha", EXP_RATES)
def test_stable_truncated_exponential_conforms_to_exact_law(alpha, left, right):
    beta = 2.5
    x = sample_truncated_exponential(alpha, beta, left, right, N, _gen())
    _assert_in_interval(x, left, right)
    dkw_test(x, truncated_exponential_law(alpha, beta, left, right).cdf).assert_ok()


@pytest.mark.parametrize("alpha", [1e9, -1e9, 1e6, -1e6])
def test_stable_truncated_exponential_with_huge_beta_and_offset_interval(alpha):
    """e^{α·x+β} overflows (β = 1e300): the stable form never forms it."""
    left, right, beta = 1e3, 1e3 + 2.0, 1e300
    x = sample_truncated_exponential(alpha, beta, left, right, N, _gen())
    _assert_in_interval(x, left, right)
    # the law sits within a few 1/|α| of one end: P(|ω − end| > 30/|α|) < e^-30
    end = right if alpha > 0 else left
    assert np.max(np.abs(x - end)) < 30 / abs(alpha)
    dkw_test(x, truncated_exponential_law(alpha, beta, left, right).cdf).assert_ok()


@pytest.mark.parametrize(
    "mu, sigma, left, right",
    [*LAPLACE_CASES, (1e-30, 1e300, 0.0, 3e-30)],  # last: both side exponents underflow to 0
)
def test_stable_truncated_laplace_conforms_to_exact_law(mu, sigma, left, right):
    x = sample_truncated_laplace(mu, sigma, left, right, N, _gen())
    _assert_in_interval(x, left, right)
    dkw_test(x, truncated_laplace_law(mu, sigma, left, right).cdf).assert_ok()


def test_stable_truncated_laplace_picks_each_side_with_its_exact_mass():
    """P(ω < μ) = (1 − e^{−(μ−left)/σ})/(2 − e^{−(μ−left)/σ} − e^{−(right−μ)/σ}), at 6 sd."""
    mu, sigma, left, right = 0.3, 0.5, -0.2, 2.0
    p = -math.expm1(-(mu - left) / sigma) / (
        2 - math.exp(-(mu - left) / sigma) - math.exp(-(right - mu) / sigma)
    )
    x = sample_truncated_laplace(mu, sigma, left, right, N, _gen())
    frac = np.mean(x < mu)
    assert abs(frac - p) < 6 * math.sqrt(p * (1 - p) / N)


@pytest.mark.parametrize(
    "mu, rate, left, right, expected",
    [
        (1e-30, 1e-300, 0.0, 3e-30, 1 / 3),  # rate·length underflows to 0 on both sides
        (1e-20, 1e-300, 0.0, 1.0, 1e-20),  # subnormal on one side
        (0.5, 1e9, 0.0, 1.0, 0.5),
        (1e-12, 1e9, 0.0, 1.0, -math.expm1(-1e-3) / (2 - math.exp(-1e-3))),
        (40.0, 1.0, 0.0, 41.0, -math.expm1(-40) / (-math.expm1(-40) - math.expm1(-1))),
    ],
)
def test_laplace_side_probability_is_exact_even_when_exponents_underflow(
    mu, rate, left, right, expected
):
    p = truncated_laplace_left_probability(mu, 1.0 / rate, left, right)
    assert math.isclose(p, expected, rel_tol=1e-12), (p, expected)


def test_stable_samplers_map_uniform_endpoints_into_the_closed_interval():
    """u = 0 (possible with rng.random) gives left = F⁻¹(0); u just below 1 stays <= right."""
    u = np.array([0.0, 0.5, np.nextafter(1.0, 0.0)])
    for alpha in [0.0, 1e-14, -3.0, 3.0, 1e9, -1e9]:
        x = truncated_exponential_from_uniforms(u, alpha, 0.0, -1.0, 2.0)
        assert x[0] == -1.0 and np.all(np.diff(x) >= 0) and x[-1] <= 2.0, (alpha, x)
    for mu, sigma, left, right in LAPLACE_CASES:
        for side in [0.0, np.nextafter(1.0, 0.0)]:
            x = truncated_laplace_from_uniforms(np.full(3, side), u, mu, sigma, left, right)
            assert np.all(np.isfinite(x)) and x.min() >= left and x.max() <= right, (mu, sigma, x)
            assert np.all(np.diff(x) >= 0)


def test_beta_does_not_change_the_stable_exponential_sampler_or_its_law():
    x0 = sample_truncated_exponential(1.7, 0.0, -1.0, 2.0, 1000, _gen())
    x1 = sample_truncated_exponential(1.7, -123.0, -1.0, 2.0, 1000, _gen())
    np.testing.assert_array_equal(x0, x1)
    grid = np.linspace(-1.0, 2.0, 13)
    np.testing.assert_array_equal(
        truncated_exponential_law(1.7, 0.0, -1.0, 2.0).cdf(grid),
        truncated_exponential_law(1.7, -123.0, -1.0, 2.0).cdf(grid),
    )


@pytest.mark.parametrize("variant", VARIANTS)
def test_samplers_are_reproducible_and_accept_size_zero(variant):
    for draw in (
        lambda size, rng: sample_truncated_exponential(
            0.5, 1.0, 0.0, 1.0, size, rng, variant=variant
        ),
        lambda size, rng: sample_truncated_laplace(0.2, 1.0, 0.0, 1.0, size, rng, variant=variant),
        lambda size, rng: sample_uniform(0.0, 1.0, size, rng),
    ):
        np.testing.assert_array_equal(draw(50, _gen(1)), draw(50, _gen(1)))
        assert not np.array_equal(draw(50, _gen(1)), draw(50, _gen(2)))
        assert draw(0, _gen()).shape == (0,)


# --------------------------------------------------------------------------------------------
# "corrected": fine where floats suffice, broken for huge (or tiny) rates
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("left, right", INTERVALS)
@pytest.mark.parametrize("alpha", [0.0, 1e-3, 1.0, -1.0, 5.0, -37.0])
def test_corrected_truncated_exponential_conforms_on_moderate_rates(alpha, left, right):
    beta = 2.5
    x = sample_truncated_exponential(alpha, beta, left, right, N, _gen(), variant="corrected")
    dkw_test(x, truncated_exponential_law(alpha, beta, left, right).cdf).assert_ok()


@pytest.mark.parametrize(
    "mu, sigma, left, right",
    [(0.0, 1.0, -1.0, 1.0), (0.3, 1.0, -1.0, 2.0), (0.5, 0.1, 0.0, 1.0), (2.0, 0.5, -1.0, 1.0)],
)
def test_corrected_truncated_laplace_conforms_on_moderate_scales(mu, sigma, left, right):
    x = sample_truncated_laplace(mu, sigma, left, right, N, _gen(), variant="corrected")
    dkw_test(x, truncated_laplace_law(mu, sigma, left, right).cdf).assert_ok()


def test_corrected_truncated_exponential_overflows_for_huge_rate_where_stable_does_not():
    """e^{1000} overflows: the naive formula's draws are inf, refused (never returned)."""
    alpha, beta, left, right = 1e3, 0.0, 0.0, 1.0
    law = truncated_exponential_law(alpha, beta, left, right)
    with pytest.raises(ValueError, match="^variant 'corrected' overflows"):
        truncated_exponential_from_uniforms(
            _gen().random(N), alpha, beta, left, right, variant="corrected"
        )
    with pytest.raises(ValueError, match="^variant 'corrected' overflows"):
        sample_truncated_exponential(alpha, beta, left, right, N, _gen(), variant="corrected")
    stable = sample_truncated_exponential(alpha, beta, left, right, N, _gen())
    dkw_test(stable, law.cdf).assert_ok()


def test_corrected_truncated_exponential_loses_precision_for_tiny_rate():
    """α = 1e-14: e^{α·right} − e^{α·left} cancels to ~2 significant digits, the draws fall on a
    coarse lattice (finite, inside the interval, but not the law)."""
    alpha, beta, left, right = 1e-14, 0.0, 0.0, 1.0
    naive = sample_truncated_exponential(alpha, beta, left, right, N, _gen(), variant="corrected")
    assert np.all(np.isfinite(naive))
    assert len(np.unique(naive)) < 100
    assert not dkw_test(naive, truncated_exponential_law(alpha, beta, left, right).cdf).passed


def test_corrected_truncated_laplace_breaks_deep_in_one_tail_where_stable_does_not():
    """[50, 51] with σ = 0.01: F(left) = F(right) = 1.0 in floats, so F⁻¹(1) = +inf."""
    mu, sigma, left, right = 0.0, 0.01, 50.0, 51.0
    law = truncated_laplace_law(mu, sigma, left, right)
    with pytest.raises(ValueError, match="^variant 'corrected' overflows"):
        sample_truncated_laplace(mu, sigma, left, right, N, _gen(), variant="corrected")
    stable = sample_truncated_laplace(mu, sigma, left, right, N, _gen())
    dkw_test(stable, law.cdf).assert_ok()


# --------------------------------------------------------------------------------------------
# "paper": the printed formulas fail, and exactly by the errata
# --------------------------------------------------------------------------------------------


def test_paper_truncated_exponential_misplaced_beta_fails_conformance():
    alpha, beta, left, right = 2.0, 1.5, 0.0, 1.0
    law = truncated_exponential_law(alpha, beta, left, right)
    paper = sample_truncated_exponential(alpha, beta, left, right, N, _gen(), variant="paper")
    corrected = sample_truncated_exponential(
        alpha, beta, left, right, N, _gen(), variant="corrected"
    )
    assert not dkw_test(paper, law.cdf).passed
    dkw_test(corrected, law.cdf).assert_ok()
    # the printed inverse is the corrected one shifted by β(1/α − 1): the misplaced β, nothing else
    np.testing.assert_allclose(paper - corrected, beta * (1 / alpha - 1), rtol=0, atol=1e-12)


@pytest.mark.parametrize("alpha, beta", [(2.0, 0.0), (1.0, 1.5)])
def test_paper_truncated_exponential_is_right_when_beta_placement_is_harmless(alpha, beta):
    """β = 0 or α = 1 make β(1/α − 1) vanish: the printed formula then conforms."""
    law = truncated_exponential_law(alpha, beta, 0.0, 1.0)
    paper = sample_truncated_exponential(alpha, beta, 0.0, 1.0, N, _gen(), variant="paper")
    dkw_test(paper, law.cdf).assert_ok()


def test_paper_truncated_laplace_sign_error_fails_on_asymmetric_interval():
    """σ = 1 isolates the sign error: the printed inverse reflects the draw about μ."""
    mu, sigma, left, right = 0.3, 1.0, -1.0, 2.0
    law = truncated_laplace_law(mu, sigma, left, right)
    paper = sample_truncated_laplace(mu, sigma, left, right, N, _gen(), variant="paper")
    corrected = sample_truncated_laplace(mu, sigma, left, right, N, _gen(), variant="corrected")
    assert not dkw_test(paper, law.cdf).passed
    np.testing.assert_allclose(paper, 2 * mu - corrected, rtol=0, atol=1e-12)


def test_paper_truncated_laplace_spurious_inverse_sigma_fails_on_symmetric_interval():
    """A symmetric interval hides the sign error; σ = 2 exposes the printed CDF's 1/σ factor."""
    mu, sigma, left, right = 0.0, 2.0, -1.0, 1.0
    law = truncated_laplace_law(mu, sigma, left, right)
    paper = sample_truncated_laplace(mu, sigma, left, right, N, _gen(), variant="paper")
    assert not dkw_test(paper, law.cdf).passed
    assert np.mean((paper < left) | (paper > right)) > 0.1  # the wrong CDF truncates too little


def test_paper_truncated_laplace_conforms_when_both_errata_cancel():
    """σ = 1 and an interval symmetric about μ: the printed formulas are right, so the failures
    above come from the errata and not from the test."""
    mu, sigma, left, right = 0.5, 1.0, -0.5, 1.5
    paper = sample_truncated_laplace(mu, sigma, left, right, N, _gen(), variant="paper")
    dkw_test(paper, truncated_laplace_law(mu, sigma, left, right).cdf).assert_ok()


# --------------------------------------------------------------------------------------------
# Exact laws
# --------------------------------------------------------------------------------------------

LAWS = [
    ("uniform", lambda: uniform_law(-3.0, 2.5)),
    ("uniform-wide", lambda: uniform_law(-1e300, 1e300)),
    *[(f"texp-{a:g}", lambda a=a: truncated_exponential_law(a, 2.5, -3.0, 2.0)) for a in EXP_RATES],
    *[(f"tlap-{c}", lambda c=c: truncated_laplace_law(*c)) for c in LAPLACE_CASES],
]


@pytest.mark.parametrize("make", [m for _, m in LAWS], ids=[n for n, _ in LAWS])
def test_exact_laws_have_total_mass_one(make):
    law = make()
    left, right = law.support
    assert abs(law.mass(left, right) - 1) < mpmath.mpf("1e-40")
    # and the two halves add up (the pieces are integrated separately when mu is inside)
    mid = (left + right) / 2
    assert abs(law.mass(left, mid) + law.mass(mid, right) - 1) < mpmath.mpf("1e-40")


def _close(value, expected, rel: str = "1e-40") -> bool:
    return abs(value - expected) <= mpmath.mpf(rel) * abs(expected)


def test_uniform_law_cdf_matches_closed_form():
    a, b = -3.0, 2.5
    law = uniform_law(a, b)
    for x in np.linspace(a, b, 7):
        expected = (mpmath.mpf(x) - a) / (mpmath.mpf(b) - a)
        assert _close(law.cdf_mp(float(x)), expected) or expected == 0
        assert abs(float(law.cdf(x)) - float(expected)) < 1e-14


@pytest.mark.parametrize("alpha", EXP_RATES)
def test_truncated_exponential_law_cdf_matches_closed_form(alpha):
    """F(x) = (e^{αx+β} − e^{α·left+β})/(e^{α·right+β} − e^{α·left+β}) at 120 digits."""
    beta, left, right = 2.5, -3.0, 2.0
    law = truncated_exponential_law(alpha, beta, left, right)
    for x in [-3.0, -2.9, -1.0, 0.5, 1.999, 2.0]:
        with mpmath.workdps(120):
            if alpha == 0:
                expected = (mpmath.mpf(x) - left) / (mpmath.mpf(right) - left)
            else:
                e = [mpmath.exp(mpmath.mpf(alpha) * t + beta) for t in (x, left, right)]
                expected = (e[0] - e[1]) / (e[2] - e[1])
        assert _close(law.cdf_mp(x), expected) or expected == 0, (x, law.cdf_mp(x), expected)
        assert abs(float(law.cdf(x)) - float(expected)) < 1e-12


def _laplace_cdf_mp(x, mu, sigma):
    """The Laplace CDF of Alg. 11, corrected (erratum E11 of notes/tzamos20.md):
    ½ + ½ sgn(x−μ)(1 − e^{−|x−μ|/σ})."""
    z = mpmath.mpf(x) - mu
    return mpmath.mpf(1) / 2 + mpmath.sign(z) * (1 - mpmath.exp(-abs(z) / sigma)) / 2


@pytest.mark.parametrize("mu, sigma, left, right", LAPLACE_CASES)
def test_truncated_laplace_law_cdf_matches_corrected_closed_form(mu, sigma, left, right):
    """(F(x) − F(left))/(F(right) − F(left)) with the corrected F, at enough digits to resolve
    F(right) − F(left) deep in a tail."""
    law = truncated_laplace_law(mu, sigma, left, right)
    gap = max(left - mu, mu - right, 0.0) / sigma  # F(right) − F(left) >= ~e^{−gap}·(…)
    points = [left + k * (right - left) / 6 for k in range(7)]
    points += [
        p for p in (mu - 3 * sigma, mu - sigma, mu + sigma, mu + 3 * sigma) if left < p < right
    ]
    for x in points:
        with mpmath.workdps(80 + math.ceil(gap / math.log(10))):
            f = [_laplace_cdf_mp(t, mu, mpmath.mpf(sigma)) for t in (x, left, right)]
            expected = (f[0] - f[1]) / (f[2] - f[1])
        assert _close(law.cdf_mp(x), expected) or expected == 0, (x, law.cdf_mp(x), expected)
        assert abs(float(law.cdf(x)) - float(expected)) < 1e-12


def _laplace_log_normaliser_quad(mu, sigma, left, right):
    """log ∫_left^right e^{−|ω−μ|/σ} dω by mpmath quadrature, split at μ (no closed form used)."""
    pts = [mpmath.mpf(left), *([mpmath.mpf(mu)] if left < mu < right else []), mpmath.mpf(right)]
    return mpmath.log(mpmath.quad(lambda w: mpmath.exp(-abs(w - mu) / sigma), pts))


@pytest.mark.parametrize(
    "mu, mu2, sigma, left, right",
    [
        (0.0, 0.5, 1.0, -1.0, 2.0),  # both inside
        (0.2, 0.3, 0.1, 0.0, 1.0),
        (-0.5, 0.25, 0.5, 0.0, 1.0),  # one outside, one inside
        (-0.5, 1.5, 1.0, 0.0, 1.0),  # outside on opposite sides
        (-3.0, -2.0, 1.0, 0.0, 1.0),  # outside on the same side: the same law
        (0.0, 1.0, 0.25, 0.0, 1.0),  # on the two endpoints
    ],
)
def test_truncated_laplace_privacy_loss_is_exact_and_at_most_two_delta_over_sigma(
    mu, mu2, sigma, left, right
):
    """log f_μ(ω) − log f_μ'(ω) = (|ω−μ'| − |ω−μ|)/σ + log Z(μ') − log Z(μ). The first term is
    monotone in ω and bounded by |Δμ|/σ, the second by |Δμ|/σ, so the loss is the larger of
    |…| at ω = left and ω = right, and at most 2|Δμ|/σ."""
    loss = privacy_loss(
        truncated_laplace_law(mu, sigma, left, right),
        truncated_laplace_law(mu2, sigma, left, right),
    )
    with mpmath.workdps(80):
        s = mpmath.mpf(sigma)
        c = _laplace_log_normaliser_quad(mu2, s, left, right) - _laplace_log_normaliser_quad(
            mu, s, left, right
        )
        independent = max(
            abs((abs(w - mpmath.mpf(mu2)) - abs(w - mpmath.mpf(mu))) / s + c) for w in (left, right)
        )
    assert abs(loss - independent) < mpmath.mpf("1e-40")
    assert loss <= 2 * abs(mpmath.mpf(mu2) - mpmath.mpf(mu)) / s
    if mu <= left and mu2 <= left:
        assert loss < mpmath.mpf("1e-40")  # both decreasing from left: identical laws


# --------------------------------------------------------------------------------------------
# Bad input: ValueError naming the parameter
# --------------------------------------------------------------------------------------------

# valid parameters of each law; its sampler takes them and a size
UNIFORM = {"a": 0.0, "b": 1.0}
TRUNCATED_EXPONENTIAL = {"alpha": 1.0, "beta": 0.0, "left": 0.0, "right": 1.0}
TRUNCATED_LAPLACE = {"mu": 0.0, "sigma": 1.0, "left": 0.0, "right": 1.0}
CALLS = {
    "uniform_law": (uniform_law, UNIFORM),
    "sample_uniform": (sample_uniform, {**UNIFORM, "size": 3}),
    "truncated_exponential_law": (truncated_exponential_law, TRUNCATED_EXPONENTIAL),
    "sample_truncated_exponential": (
        sample_truncated_exponential,
        {**TRUNCATED_EXPONENTIAL, "size": 3},
    ),
    "truncated_laplace_law": (truncated_laplace_law, TRUNCATED_LAPLACE),
    "sample_truncated_laplace": (sample_truncated_laplace, {**TRUNCATED_LAPLACE, "size": 3}),
}
SAMPLERS = [name for name in CALLS if name.startswith("sample")]
REAL_PARAMS = [
    (name, p)
    for name, (_, kw) in CALLS.items()
    for p in kw
    if p in {"a", "b", "alpha", "beta", "mu", "sigma", "left", "right"}
]


def _call(name: str, **override):
    fn, kwargs = CALLS[name]
    kwargs = {**kwargs, **override}
    if name.startswith("sample"):
        kwargs.setdefault("rng", _gen())
    return fn(**kwargs)


def _raises_naming(param: str, name: str, **override) -> None:
    with pytest.raises(ValueError) as info:
        _call(name, **override)
    assert str(info.value).startswith(f"{param} "), str(info.value)


def test_valid_defaults_of_the_bad_input_table_are_accepted():
    for name in CALLS:
        _call(name)


@given(
    target=st.sampled_from(REAL_PARAMS),
    bad=st.sampled_from(
        [math.nan, math.inf, -math.inf, None, "1.0", True, np.bool_(False), [1.0], 1j]
    ),
)
def test_non_finite_or_non_real_parameters_raise_value_error_naming_them(target, bad):
    name, param = target
    _raises_naming(param, name, **{param: bad})


@given(
    name=st.sampled_from([n for n in CALLS if "left" in CALLS[n][1]]),
    left=st.floats(-1e6, 1e6),
    shrink=st.floats(0.0, 1e6),
)
def test_reversed_or_empty_intervals_raise_value_error_naming_left(name, left, shrink):
    _raises_naming("left", name, left=left, right=left - shrink)


@given(
    name=st.sampled_from(["uniform_law", "sample_uniform"]),
    a=st.floats(-1e6, 1e6),
    shrink=st.floats(0.0, 1e6),
)
def test_reversed_or_empty_uniform_intervals_raise_value_error_naming_a(name, a, shrink):
    _raises_naming("a", name, a=a, b=a - shrink)


@pytest.mark.parametrize("name", [n for n in CALLS if "left" in CALLS[n][1]])
def test_interval_wider_than_the_float_range_raises_value_error_naming_right(name):
    _raises_naming("right", name, left=-1e308, right=1e308)


@given(
    name=st.sampled_from(["truncated_laplace_law", "sample_truncated_laplace"]),
    sigma=st.floats(max_value=0.0),
)
def test_non_positive_sigma_raises_value_error_naming_sigma(name, sigma):
    _raises_naming("sigma", name, sigma=sigma)


@pytest.mark.parametrize("name", ["truncated_laplace_law", "sample_truncated_laplace"])
def test_sigma_whose_rate_overflows_raises_value_error_naming_sigma(name):
    _raises_naming("sigma", name, sigma=5e-324)


@given(
    name=st.sampled_from(["sample_truncated_exponential", "sample_truncated_laplace"]),
    variant=st.one_of(
        st.text().filter(lambda s: s not in VARIANTS),
        st.sampled_from([None, 0, b"stable", ("paper",)]),
    ),
)
def test_bad_variant_raises_value_error_naming_variant(name, variant):
    _raises_naming("variant", name, variant=variant)


@given(
    name=st.sampled_from(SAMPLERS),
    size=st.one_of(
        st.booleans(),
        st.integers(max_value=-1),
        st.floats(allow_nan=True),
        st.sampled_from([None, "3", np.bool_(True)]),
    ),
)
def test_bad_size_raises_value_error_naming_size(name, size):
    _raises_naming("size", name, size=size)


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize(
    "rng", [None, 0, np.random.RandomState(0)], ids=["None", "int", "RandomState"]
)
def test_non_generator_rng_raises_value_error_naming_rng(name, rng):
    _raises_naming("rng", name, rng=rng)


# --------------------------------------------------------------------------------------------
# Extremes (issue 18): outputs in [left, right] and never NaN, or a refusal naming the parameter
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda r: sample_truncated_laplace(1.0, 1e-17, 0.0, 2.0, 10, r), r"^sigma must give"),
        (
            lambda r: sample_truncated_exponential(1e9, 0.0, 1e6, 1e6 + 1, 10, r),
            r"^alpha must give",
        ),
        (lambda r: sample_uniform(1e300, 1e300 * (1 + 1e-15), 10, r), r"^b - a must span"),
        (lambda r: sample_uniform(0.0, 5e-324, 10, r), r"^b - a must span"),
        (lambda r: sample_truncated_laplace(0.0, 1e6, 1e17, 1e17 + 64, 10, r), r"^right - left"),
    ],
)
def test_samplers_refuse_laws_finer_than_the_float_grid_where_their_mass_sits(call, match):
    """A scale (σ, 1/|α| or the width) below 2^12 float spacings where the draws fall would put
    the draws on a coarse grid (Laplace σ = 1e-17 at μ = 1: spacing 2.2e-16): refused."""
    with pytest.raises(ValueError, match=match):
        call(_gen())


@pytest.mark.parametrize(
    "mu, sigma, left, right",
    [
        (0.0, 1e-300, -1.0, 1.0),  # σ tiny at μ = 0, where the float grid is fine
        (1e300, 1e-300, -1.0, 0.0),  # huge |μ/σ|: the mass sits within 1e-297 of 0
        (-1e300, 1e300, -1e300, 1e300),  # huge σ on a huge interval: nearly uniform
        (0.0, 1.0, -1e307, 1e307),
    ],
)
def test_stable_truncated_laplace_at_extremes_stays_in_the_interval_and_conforms(
    mu, sigma, left, right
):
    x = sample_truncated_laplace(mu, sigma, left, right, N, _gen())
    _assert_in_interval(x, left, right)
    try:
        law = truncated_laplace_law(mu, sigma, left, right)
    except ValueError as exc:  # the law's float anchor overflows: nothing to compare against
        assert str(exc).startswith(("left / sigma", "right / sigma", "mu / sigma")), exc
        return
    dkw_test(x, law.cdf).assert_ok()


@pytest.mark.parametrize("alpha", [1e308, -1e308, 1e-300, -5e-324, 1e300])
def test_stable_truncated_exponential_at_extreme_rates_stays_in_the_interval(alpha):
    """Rates of 1e308 put the mass within 1e-306 of one end (an end at 0, where floats that fine
    exist; at an end of magnitude 1 such a law is refused, see above); 1e-300 is uniform to double
    precision: every draw in [left, right], finite, and conforming to the exact law."""
    left, right = (-1.0, 0.0) if alpha > 0 else (0.0, 2.0)
    x = sample_truncated_exponential(alpha, 0.0, left, right, N, _gen())
    _assert_in_interval(x, left, right)
    dkw_test(x, truncated_exponential_law(alpha, 0.0, left, right).cdf).assert_ok()


def test_naive_variants_refuse_non_finite_draws_naming_every_parameter():
    with pytest.raises(ValueError, match=r"^variant 'paper' overflows at these parameters \(alpha"):
        sample_truncated_exponential(1.0, 1e308, 0.0, 1.0, 10, _gen(), variant="paper")
    with pytest.raises(ValueError, match=r"^variant 'paper' overflows at these parameters \(mu"):
        sample_truncated_laplace(0.0, 1e308, -1.0, 1.0, 10, _gen(), variant="paper")
