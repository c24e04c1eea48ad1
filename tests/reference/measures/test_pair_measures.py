"""The exact measures of a pair (dpquant.reference.measures.pair_measures) against closed forms
and against each other's independent computations."""

from __future__ import annotations

import mpmath
import pytest

from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw, hockey_stick
from dpquant.reference.exact.mp import workdps
from dpquant.reference.measures.conversions import gdp_delta
from dpquant.reference.measures.pair_measures import (
    gdp_of_pair,
    profile_excess,
    renyi_of_pair,
    zcdp_of_pair,
)


def _rr(eps: float) -> tuple[DiscreteLaw, DiscreteLaw]:
    return DiscreteLaw([0, 1], [eps, 0.0]), DiscreteLaw([0, 1], [0.0, eps])


def _clamped_discrete_gaussian(sigma: float, shift: int, radius: int = 30) -> DiscreteLaw:
    xs = list(range(-radius, radius + 1))
    return DiscreteLaw(xs, [-((x - shift) ** 2) / (2 * sigma**2) for x in xs])


def _bernoulli_renyi(p: mpmath.mpf, q: mpmath.mpf, a: mpmath.mpf) -> mpmath.mpf:
    return mpmath.log(p**a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_definition_1_1_zcdp_of_randomised_response_brackets_a_fine_grid(eps: float) -> None:
    p, q = _rr(eps)
    found = zcdp_of_pair(p, q)
    with workdps():
        hi = mpmath.exp(eps) / (1 + mpmath.exp(eps))
        lo = 1 - hi
        grid = [1 + mpmath.mpf(10) ** (k / 40 - 6) for k in range(400)]
        best = max(_bernoulli_renyi(hi, lo, a) / a for a in grid)
        kl = (hi - lo) * mpmath.log(hi / lo)  # the limit α -> 1 (KL of the pair)
        best = max(best, kl)
    assert found.value <= found.upper
    assert found.value >= best * (1 - mpmath.mpf("1e-9"))
    assert found.upper >= best
    assert not found.exhausted


def test_zcdp_decides_a_claim_just_below_and_just_above() -> None:
    p, q = _rr(1.0)
    rho = zcdp_of_pair(p, q).value
    assert zcdp_of_pair(p, q, threshold=rho * (1 - mpmath.mpf("1e-6"))).exceeds(
        rho * (1 - mpmath.mpf("1e-6"))
    )
    above = zcdp_of_pair(p, q, threshold=rho * (1 + mpmath.mpf("1e-6")))
    assert above.within(rho * (1 + mpmath.mpf("1e-6")))


def test_proposition_5_clamped_discrete_gaussian_meets_its_rho_and_no_less() -> None:
    """Clamping is post-processing, so the clamped pair's ρ is at most Δ²/(2σ²) (Canonne,
    Kamath and Steinke 2020, Proposition 5); the search attains it to 40 digits and refutes
    0.99 of it."""
    sigma = 2.0
    p, q = _clamped_discrete_gaussian(sigma, 0), _clamped_discrete_gaussian(sigma, 1)
    rho = mpmath.mpf(1) / (2 * sigma**2)
    found = zcdp_of_pair(p, q, threshold=rho, max_evaluations=120)
    assert not found.exceeds(rho)
    assert found.value > rho * (1 - mpmath.mpf("1e-40"))
    assert zcdp_of_pair(p, q, threshold=rho * mpmath.mpf("0.99")).exceeds(rho * mpmath.mpf("0.99"))


def test_zcdp_of_pairs_with_different_supports_is_infinite() -> None:
    p = DiscreteLaw([0, 1], [0.0, 0.0])
    q = DiscreteLaw([0], [0.0])
    assert zcdp_of_pair(p, q).value == mpmath.inf


def test_renyi_of_pair_takes_both_directions() -> None:
    p = DiscreteLaw([0, 1], [0.0, -2.0])
    q = DiscreteLaw([0, 1], [-1.0, 0.0])
    with workdps():
        d = renyi_of_pair(p, q, 3)
        pp = mpmath.exp(0) / (1 + mpmath.exp(-2))
        qq = mpmath.exp(-1) / (1 + mpmath.exp(-1))
        expected = max(_bernoulli_renyi(pp, qq, 3), _bernoulli_renyi(qq, pp, 3))
    assert abs(d - expected) < mpmath.mpf("1e-50")


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_corollary_2_13_gdp_of_randomised_response_from_its_vertex(eps: float) -> None:
    """Randomised response's trade-off curve has one inner vertex (1/(1+e^ε), 1/(1+e^ε)), so its
    least μ is 2Φ^{-1}(e^ε/(1 + e^ε))."""
    p, q = _rr(eps)
    with workdps():
        hi = mpmath.exp(eps) / (1 + mpmath.exp(eps))
        expected = 2 * mpmath.sqrt(2) * mpmath.erfinv(2 * hi - 1)
        assert abs(gdp_of_pair(p, q).value - expected) < mpmath.mpf("1e-45")


def test_gdp_vertex_formula_agrees_with_the_hockey_stick_profile() -> None:
    """Two independent computations: the μ from the trade-off vertices, and the hockey-stick
    divergences against the GDP profile (Dong, Roth and Su 2022, Corollary 2.13): the profile
    is violated just below that μ and proven 1 % above it (the profile search's bound is
    monotone, first order in the cell width: notes/measures.md)."""
    p, q = _clamped_discrete_gaussian(1.5, 0), _clamped_discrete_gaussian(1.5, 1)
    mu = gdp_of_pair(p, q).value
    below = profile_excess(p, q, lambda e: gdp_delta(mu * (1 - mpmath.mpf("1e-6")), e), threshold=0)
    above = profile_excess(p, q, lambda e: gdp_delta(mu * (1 + mpmath.mpf("1e-2")), e), threshold=0)
    assert below.exceeds(0)
    assert above.within(0)


def test_discrete_gaussian_is_not_exactly_one_over_sigma_gdp() -> None:
    """A finding recorded in notes/measures.md: the clamped discrete Gaussian pair of σ = 2 and
    shift 1 has μ > 1/σ = 0.5 (its total variation exceeds the Gaussian's 2Φ(1/4) − 1), so the
    discrete Gaussian does not inherit the continuous one's μ-GDP; clamping only lowers μ."""
    p, q = _clamped_discrete_gaussian(2.0, 0), _clamped_discrete_gaussian(2.0, 1)
    with workdps():
        tv = max(hockey_stick(p, q, 0), hockey_stick(q, p, 0))
        assert tv > gdp_delta(0.5, 0)
    assert gdp_of_pair(p, q).value > 0.5


def test_profile_excess_at_table_points_is_the_hockey_stick_minus_the_claim() -> None:
    p, q = _rr(1.0)
    table = {0.5: 0.2, 1.0: 0.0}
    found = profile_excess(p, q, lambda e: mpmath.mpf(table[float(e)]), points=(0.5, 1.0))
    with workdps():
        at_half = max(hockey_stick(p, q, 0.5), hockey_stick(q, p, 0.5)) - mpmath.mpf(0.2)
    assert abs(found.value - max(at_half, mpmath.mpf(0))) < mpmath.mpf("1e-50")


def test_bad_input_is_refused_with_the_parameter_named() -> None:
    p, q = _rr(1.0)
    for kwargs, name in (
        ({"xi": -1.0}, "xi"),
        ({"threshold": float("nan")}, "threshold"),
        ({"max_evaluations": 1}, "max_evaluations"),
        ({"max_evaluations": True}, "max_evaluations"),
    ):
        with pytest.raises(ParameterError) as info:
            zcdp_of_pair(p, q, **kwargs)
        assert info.value.parameter == name
    with pytest.raises(ParameterError) as info:
        profile_excess(p, q, lambda e: mpmath.mpf(0), points=())
    assert info.value.parameter == "points"
    with pytest.raises(ParameterError):
        gdp_of_pair(None, q)


def test_a_cell_too_narrow_to_split_keeps_its_bound_in_the_interval() -> None:
    """Soundness of the branch and bound: a cell that cannot be split at the working precision
    is not dropped; its upper bound stays in the interval the search returns."""
    from dpquant.reference.measures.pair_measures import _branch_and_bound

    grid = [mpmath.mpf(0), mpmath.mpf(1)]
    found = _branch_and_bound(
        lambda x: -x,  # the best value, 0, is at the left end
        lambda a, b, fa, fb: mpmath.mpf(5),  # a loose bound the search cannot tighten
        grid,
        mpmath.mpf(-1),
        None,
        lambda a, b: a,  # never splits
        budget=50,
    )
    assert found.value == 0 and found.upper == 5


def test_gdp_of_pair_with_a_threshold_it_breaks_attains_a_value_above_the_threshold() -> None:
    """Regression: with a threshold the pair breaks, the value returned was the threshold itself,
    which the audit's strict comparison read as no violation (an exact audit of a Laplace count
    at 0.8 of its scale passed a GDP claim it breaks). The value is now a μ' the pair is shown
    not to meet, above the threshold and below the pair's least μ."""
    from dpquant.reference.primitives.laplace import laplace_law

    p, q = laplace_law(0.0, 0.8), laplace_law(1.0, 0.8)
    exact = gdp_of_pair(p, q)
    threshold = mpmath.mpf("1.0302734376")
    found = gdp_of_pair(p, q, threshold=threshold)
    assert threshold < found.value <= exact.upper
    assert found.value > exact.value - mpmath.mpf("0.01")  # located near the pair's μ
    assert gdp_of_pair(p, q, threshold=exact.upper * 2).value == 0


def test_gdp_of_pair_with_a_threshold_ends_on_laws_no_finite_mu_covers() -> None:
    """Disjoint uniform laws: δ_pair(ε) = 1 at every ε, which no μ-GDP profile reaches. The
    witness's doubling stops (it looped forever before the cap) and still reports a μ' above the
    threshold that the pair is shown not to meet."""
    from dpquant.reference.distributions import PiecewiseLogLinear

    ninf = float("-inf")
    p = PiecewiseLogLinear([0.0, 1.0, 2.0], [0.0, 0.0], [0.0, ninf])
    q = PiecewiseLogLinear([0.0, 1.0, 2.0], [0.0, 0.0], [ninf, 0.0])
    found = gdp_of_pair(p, q, threshold=1.0)
    assert found.value > 1 and found.upper == mpmath.inf
