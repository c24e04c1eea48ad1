"""The conversions between privacy measures (issue 37; notes/measures.md, "Conversions" and
"Checked against the peers"): each against the formula of its paper written out here, against the
exact worst cases where the conversion is tight, against a brute-force minimisation where it is an
infimum, and against the peers that compute the same quantity (``dp_accounting``, OpenDP,
diffprivlib; each test skips when its peer is not installed)."""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.errors import ParameterError
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.distributions import DiscreteLaw, hockey_stick, renyi_divergence
from dpquant.reference.measures import (
    GDPClaim,
    ProfileClaim,
    RenyiClaim,
    ZCDPClaim,
    claim_delta_at,
    claim_renyi_at,
)
from dpquant.reference.measures import conversions as conv

GRID_EPSILONS = (0.0, 0.1, 0.5, 1.0, 2.0, 4.0)


def _mp(x: Any) -> mpmath.mpf:
    return mpmath.mpf(x)


def _close(a: Any, b: Any, rel: float) -> bool:
    """|a − b| <= rel·max(|a|, |b|), in mpmath."""
    a, b = _mp(a), _mp(b)
    return abs(a - b) <= _mp(rel) * max(abs(a), abs(b))


# ------------------------------------------------------------------------ Kairouz, Oh and Viswanath


def _randomised_response(epsilon0: float) -> tuple[DiscreteLaw, DiscreteLaw]:
    """The two output laws of ε₀-randomised response: (e^ε₀, 1)/(1 + e^ε₀) and its mirror."""
    e0 = _mp(epsilon0)
    return DiscreteLaw([0, 1], [e0, _mp(0)]), DiscreteLaw([0, 1], [_mp(0), e0])


def _four_outcomes(epsilon0: float, delta0: float) -> tuple[DiscreteLaw, DiscreteLaw]:
    """The worst case of (ε₀, δ₀)-DP (Kairouz, Oh and Viswanath 2015, Theorem 2.1's proof):
    P = (δ₀, (1 − δ₀)e^ε₀/(1 + e^ε₀), (1 − δ₀)/(1 + e^ε₀), 0) and Q its mirror."""
    with mpmath.workdps(60):
        e0, d0 = _mp(epsilon0), _mp(delta0)
        rest = mpmath.log1p(-d0) - mpmath.log1p(mpmath.exp(e0))
        p = [mpmath.log(d0), rest + e0, rest, -mpmath.inf]
    return DiscreteLaw([0, 1, 2, 3], p), DiscreteLaw([0, 1, 2, 3], p[::-1])


@pytest.mark.parametrize("epsilon0", [0.1, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("epsilon", [0.0, 0.05, 0.5, 0.99, 1.0, 2.0, 5.0])
def test_theorem_2_1_kov15_pure_delta_is_randomised_responses_hockey_stick(
    epsilon0: float, epsilon: float
) -> None:
    """Pure ε₀-DP's profile is tight: randomised response reaches it at every ε."""
    p, q = _randomised_response(epsilon0)
    assert _close(conv.pure_delta(epsilon0, epsilon), hockey_stick(p, q, epsilon), 1e-50)
    if epsilon >= epsilon0:
        assert conv.pure_delta(epsilon0, epsilon) == 0


@pytest.mark.parametrize(("epsilon0", "delta0"), [(0.5, 1e-6), (1.0, 0.01), (2.0, 0.3)])
@pytest.mark.parametrize("epsilon", [0.0, 0.2, 0.5, 1.0, 1.5, 2.0, 3.0])
def test_theorem_2_1_kov15_approximate_delta_is_the_four_outcome_laws_hockey_stick(
    epsilon0: float, delta0: float, epsilon: float
) -> None:
    """(ε₀, δ₀)-DP's profile is tight: δ₀ from ε₀ on, the four-outcome law's δ below it."""
    p, q = _four_outcomes(epsilon0, delta0)
    ours = conv.approximate_delta(epsilon0, delta0, epsilon)
    assert _close(ours, hockey_stick(p, q, epsilon), 1e-45)
    assert _close(ours, hockey_stick(q, p, epsilon), 1e-45)  # the relation is symmetric
    if epsilon >= epsilon0:
        assert ours == _mp(delta0)


# ------------------------------------------------------------------------ Bun and Steinke


@pytest.mark.parametrize("epsilon0", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("alpha", [1.01, 1.5, 2.0, 10.0, 1000.0])
def test_proposition_1_4_bs16_pure_dp_implies_half_epsilon_squared_zcdp_on_randomised_response(
    epsilon0: float, alpha: float
) -> None:
    """D_α of randomised response (the pure-DP worst case) is at most αε₀²/2 and at most ε₀:
    the bound :func:`claim_renyi_at` gives a pure claim."""
    p, q = _randomised_response(epsilon0)
    divergence = renyi_divergence(p, q, alpha)
    assert conv.zcdp_of_pure(epsilon0) == _mp(epsilon0) ** 2 / 2
    bound = claim_renyi_at(PrivacyClaim(epsilon0), alpha)
    assert bound is not None and divergence <= bound * (1 + _mp(10) ** -50)
    assert bound == min(_mp(epsilon0), alpha * _mp(epsilon0) ** 2 / 2)


@pytest.mark.parametrize(("sigma", "sensitivity"), [(1.0, 1.0), (2.0, 0.5), (0.7, 3.0)])
@pytest.mark.parametrize("alpha", [1.5, 2.0, 7.0])
def test_proposition_1_6_bs16_gaussian_renyi_divergence_is_alpha_mu_squared_over_2(
    sigma: float, sensitivity: float, alpha: float
) -> None:
    """D_α(N(0, σ²) ‖ N(Δ, σ²)) = αΔ²/(2σ²), integrated here with mpmath's quadrature: the ρ of
    :func:`zcdp_of_gdp` at μ = Δ/σ (:func:`gaussian_mu`) is the Gaussian's own, no looser."""
    with mpmath.workdps(30):
        s, d, a = _mp(sigma), _mp(sensitivity), _mp(alpha)

        def integrand(x: mpmath.mpf) -> mpmath.mpf:
            log_p = -(x**2) / (2 * s**2)
            log_q = -((x - d) ** 2) / (2 * s**2)
            return mpmath.exp(a * log_p + (1 - a) * log_q) / (s * mpmath.sqrt(2 * mpmath.pi))

        peak = (1 - a) * d  # the integrand is a Gaussian bump centred there
        points = [-mpmath.inf, peak - 10 * s, peak, peak + 10 * s, mpmath.inf]
        divergence = mpmath.log(mpmath.quad(integrand, points)) / (a - 1)
        mu = conv.gaussian_mu(sigma, sensitivity)
        assert _close(mu, _mp(sensitivity) / _mp(sigma), 1e-28)
        assert _close(divergence, a * conv.zcdp_of_gdp(mu), 1e-20)
        assert _close(GDPClaim(float(mu)).renyi_at(alpha), divergence, 1e-15)


# ------------------------------------------------------------------------ Canonne, Kamath and Steinke


def _cks_delta(alpha: mpmath.mpf, tau: mpmath.mpf, epsilon: mpmath.mpf) -> mpmath.mpf:
    """Canonne, Kamath and Steinke 2020, Proposition 12 as printed:
    δ = e^{(α−1)(τ−ε)}/(α−1) · (1 − 1/α)^α."""
    return mpmath.exp((alpha - 1) * (tau - epsilon)) / (alpha - 1) * (1 - 1 / alpha) ** alpha


@pytest.mark.parametrize(
    ("alpha", "tau", "epsilon"),
    [(1.5, 0.2, 0.5), (2.0, 1.0, 1.0), (32.0, 0.5, 1.0), (1.0001, 0.01, 0.1), (1e6, 1e-6, 2.0)],
)
def test_proposition_12_cks20_renyi_to_delta_is_the_printed_formula(
    alpha: float, tau: float, epsilon: float
) -> None:
    with mpmath.workdps(60):
        printed = min(_mp(1), _cks_delta(_mp(alpha), _mp(tau), _mp(epsilon)))
    assert _close(conv.renyi_to_delta(alpha, tau, epsilon), printed, 1e-40)


def test_renyi_to_delta_at_order_infinity_is_the_pure_profile() -> None:
    assert conv.renyi_to_delta(math.inf, 1.0, 0.5) == conv.pure_delta(1.0, 0.5)
    assert conv.renyi_to_delta(math.inf, 0.0, 0.5) == 0


def _brute_force_zcdp_delta(rho: float, epsilon: float, xi: float = 0.0) -> mpmath.mpf:
    """min over α of :func:`_cks_delta` at τ = ξ + ρα: a grid of 2001 values of log(α − 1) in
    [−12, 12], then 2001 values between the neighbours of the best."""
    with mpmath.workdps(60):
        r, e, x = _mp(rho), _mp(epsilon), _mp(xi)

        def delta(log_a1: float) -> mpmath.mpf:
            a = 1 + mpmath.exp(_mp(log_a1))
            return _cks_delta(a, x + r * a, e)

        coarse = np.linspace(-12.0, 12.0, 2001)
        k = int(np.argmin([float(mpmath.log(delta(t))) for t in coarse]))
        fine = np.linspace(coarse[max(k - 1, 0)], coarse[min(k + 1, 2000)], 2001)
        return min(_mp(1), min(delta(t) for t in fine))


@pytest.mark.parametrize(
    ("rho", "epsilon", "xi"),
    [(0.5, 1.0, 0.0), (0.01, 0.5, 0.0), (0.125, 2.0, 0.0), (2.0, 3.0, 0.0), (0.1, 1.0, 0.2)],
)
def test_corollary_13_cks20_zcdp_delta_is_the_infimum_over_orders_found_by_brute_force(
    rho: float, epsilon: float, xi: float
) -> None:
    """The golden-section minimum is at most the brute force's (every order's δ is a valid
    bound, and ours is the lowest) and within 1e-8 of it (the grid's resolution)."""
    ours = conv.zcdp_delta(rho, epsilon, xi)
    brute = _brute_force_zcdp_delta(rho, epsilon, xi)
    assert ours <= brute * (1 + _mp(10) ** -40)
    assert _close(ours, brute, 1e-8)


@settings(max_examples=25)  # each example runs two order minimisations
@given(
    rho=st.floats(1e-3, 10.0),
    xi=st.floats(0.0, 1.0),
    epsilon=st.floats(0.0, 5.0),
)
def test_zcdp_delta_with_xi_is_zcdp_delta_at_epsilon_minus_xi(
    rho: float, xi: float, epsilon: float
) -> None:
    """(ξ, ρ)-zCDP at ε is ρ-zCDP at ε − ξ (τ − ε = ρα − (ε − ξ) in Proposition 12)."""
    if epsilon >= xi:
        with mpmath.workdps(60):
            shifted = conv.zcdp_delta(rho, _mp(epsilon) - _mp(xi))  # ε − ξ exactly
        assert _close(conv.zcdp_delta(rho, epsilon, xi), shifted, 1e-30)


def test_renyi_curve_delta_is_the_least_over_the_orders() -> None:
    orders = [(2.0, 0.5), (8.0, 1.0), (math.inf, 3.0)]
    for epsilon in GRID_EPSILONS:
        each = [conv.renyi_to_delta(a, t, epsilon) for a, t in orders]
        assert conv.renyi_curve_delta(orders, epsilon) == min(each)
        assert RenyiClaim(orders).delta_at(epsilon) == min(each)


# ------------------------------------------------------------------------ Dong, Roth and Su


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("epsilon", GRID_EPSILONS)
def test_corollary_2_13_drs22_gdp_delta_is_the_printed_formula(mu: float, epsilon: float) -> None:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), written with scipy's normal CDF (floats)."""
    scipy_stats = pytest.importorskip("scipy.stats")
    norm = scipy_stats.norm
    printed = norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)
    assert abs(float(conv.gdp_delta(mu, epsilon)) - printed) <= 1e-14


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("epsilon", [0.0, 0.5, 2.0])
def test_proposition_2_12_drs22_gdp_delta_is_the_conjugate_of_the_tradeoff_function(
    mu: float, epsilon: float
) -> None:
    """δ(ε) = sup_x 1 − e^ε x − G_μ(x): the trade-off function G_μ of :func:`gdp_tradeoff` and
    the profile of :func:`gdp_delta` describe the same μ-GDP (maximised here over x by a bounded
    scalar search on the logit of x, in floats)."""
    optimize = pytest.importorskip("scipy.optimize")

    def minus(t: float) -> float:
        x = 1 / (1 + math.exp(-t))
        return -(1 - math.exp(epsilon) * x - float(conv.gdp_tradeoff(mu, x)))

    best = optimize.minimize_scalar(minus, bounds=(-40, 40), method="bounded",
                                    options={"xatol": 1e-12})
    assert abs(-best.fun - float(conv.gdp_delta(mu, epsilon))) <= 1e-9


@pytest.mark.parametrize("mu", [0.0, 0.5, 2.0])
@pytest.mark.parametrize("x", [0.0, 1e-9, 0.05, 0.5, 0.9, 1.0])
def test_definition_2_4_drs22_gaussian_tradeoff_is_phi_of_probit_minus_mu(mu: float, x: float) -> None:
    """G_μ(x) = Φ(Φ⁻¹(1 − x) − μ) (scipy's ppf and cdf), symmetric: G_μ(G_μ(x)) = x."""
    norm = pytest.importorskip("scipy.stats").norm
    printed = 1.0 if x == 0 else 0.0 if x == 1 else norm.cdf(norm.ppf(1 - x) - mu)
    ours = conv.gdp_tradeoff(mu, x)
    assert abs(float(ours) - printed) <= 1e-12
    assert _close(conv.gdp_tradeoff(mu, ours), x, 1e-30) or x in (0.0, 1.0)  # G_μ(0) = 1, G_μ(1) = 0
    assert abs(conv.gdp_tradeoff(0.0, x) - (1 - _mp(x))) < _mp(10) ** -50  # G_0(x) = 1 − x


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("epsilon", GRID_EPSILONS)
def test_theorem_2_10_drs22_zcdp_profile_at_mu_squared_over_2_is_at_least_the_gdp_profile(
    mu: float, epsilon: float
) -> None:
    """μ-GDP implies (μ²/2)-zCDP, and the zCDP profile is an implied bound: it may be looser
    than the Gaussian's own profile, never tighter."""
    assert conv.zcdp_of_gdp(mu) == _mp(mu) ** 2 / 2
    assert conv.zcdp_delta(conv.zcdp_of_gdp(mu), epsilon) >= conv.gdp_delta(mu, epsilon)


def test_gdp_delta_keeps_its_digits_for_a_tiny_mu() -> None:
    """δ(0) = 2Φ(μ/2) − 1 = μ/√(2π)·(1 − μ²/24 + ...): the two terms cancel at 60 digits for
    μ < 1e-60 (it returned 0)."""
    for mu in (1e-70, 1e-200):
        assert _close(conv.gdp_delta(mu, 0.0), _mp(mu) / mpmath.sqrt(2 * mpmath.pi), 1e-18)
    assert conv.gdp_delta(1e-300, 1.0) == 0  # Φ(−1e300): below 10^(−10^199), taken as 0


# ------------------------------------------------------------------------ Balle and Wang


@pytest.mark.parametrize(
    ("epsilon", "delta", "sensitivity"),
    [(1.0, 1e-5, 1.0), (0.1, 1e-6, 2.0), (3.0, 1e-3, 0.5), (0.5, 0.1, 1.0), (1e-80, 1e-75, 1.0)],
)
def test_theorem_8_bw18_analytic_gaussian_sigma_meets_delta_exactly_and_is_the_least(
    epsilon: float, delta: float, sensitivity: float
) -> None:
    """At σ the Gaussian's profile is δ (to 20 digits, never above); at σ(1 − 1e-15) it is above
    δ. (For ε = 1e-80, δ = 1e-75 a bisection on [0, 1] returned 1.5e61 instead of 4.0e74.)"""
    with mpmath.workdps(60):
        sigma = conv.analytic_gaussian_sigma(epsilon, delta, sensitivity)
        at_sigma = conv.gdp_delta(sensitivity / sigma, epsilon)
        # σ is rounded to 60 digits after the bisection: δ may exceed by that rounding
        assert at_sigma <= delta * (1 + _mp(10) ** -50) and _close(at_sigma, delta, 1e-20)
        assert conv.gdp_delta(sensitivity / (sigma * (1 - _mp(10) ** -15)), epsilon) > delta


@pytest.mark.parametrize(("epsilon", "delta"), [(0.1, 1e-5), (0.5, 1e-6), (0.9, 1e-3)])
def test_theorem_a_1_dr14_classical_gaussian_sigma_is_larger_than_the_analytic(
    epsilon: float, delta: float
) -> None:
    """The classical calibration σ = Δ√(2 ln(1.25/δ))/ε (Dwork and Roth 2014, Theorem A.1, for
    ε < 1) is (ε, δ)-DP, so it is at least the least σ; Balle and Wang's point is that it is
    larger."""
    classical = math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    analytic = conv.analytic_gaussian_sigma(epsilon, delta)
    assert conv.gdp_delta(1 / classical, epsilon) <= delta
    assert analytic < classical


# ------------------------------------------------------------------------ the peers


def test_corollary_2_13_gdp_profile_matches_dp_accounting_pld() -> None:
    """``dp_accounting``'s Gaussian PLD (add-or-remove, sensitivity 1: the pair N(0, σ²),
    N(1, σ²), μ = 1/σ) with its default pessimistic estimate is an upper bound on the exact δ,
    at most one discretisation interval of ε looser: gdp_delta(μ, ε) <= theirs <=
    gdp_delta(μ, ε − 1e-4) (up to 1e-12: its sums in floats are off by 2.2e-13 at ε = 0, where
    ε cannot be moved down). Its replace-one relation is sensitivity 2 (μ = 2/σ)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld

    relation = dp_accounting.NeighboringRelation
    interval = 1e-4
    worst = 0.0
    replace = pld.from_gaussian_mechanism(2.0, neighboring_relation=relation.REPLACE_ONE)
    for sigma in (1.0, 2.0, 5.0):
        add_remove = pld.from_gaussian_mechanism(sigma, value_discretization_interval=interval)
        for epsilon in (0.0, 0.25, 0.5, 1.0, 2.0, 3.0):
            theirs = add_remove.get_delta_for_epsilon(epsilon)
            exact = float(conv.gdp_delta(1 / sigma, epsilon))
            looser = float(conv.gdp_delta(1 / sigma, max(0.0, epsilon - interval)))
            assert exact - 1e-15 <= theirs <= looser + 1e-12, (sigma, epsilon)
            worst = max(worst, abs(theirs - exact))
    for epsilon in (0.0, 1.0, 3.0):
        twice = float(conv.gdp_delta(2 / 2.0, epsilon))
        assert abs(replace.get_delta_for_epsilon(epsilon) - twice) <= 1e-9
    assert worst <= 1e-9, worst  # measured: 8e-14 here, 2.3e-13 at σ = 0.5 (notes/measures.md)


def test_proposition_12_cks20_zcdp_delta_is_below_dp_accounting_rdp_within_a_small_gap() -> None:
    """The RDP accountant of ``dp_accounting`` converts with the same Proposition 12 but minimises
    over a fixed list of orders: its δ is never below ours, and where δ >= 1e-10 at most 2% above
    (measured: 1.03%, at σ = 0.5, ε = 0.5; notes/measures.md)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import RdpAccountant

    gaps = []
    for sigma in (0.5, 1.0, 2.0, 5.0, 10.0):
        accountant = RdpAccountant()
        accountant.compose(dp_accounting.GaussianDpEvent(sigma))
        rho = 1 / (2 * sigma**2)
        for epsilon in (0.1, 0.5, 1.0, 2.0, 5.0):
            theirs = accountant.get_delta(epsilon)
            ours = float(conv.zcdp_delta(rho, epsilon))
            assert ours <= theirs * (1 + 1e-12), (sigma, epsilon)
            if theirs >= 1e-10:
                gaps.append((theirs - ours) / theirs)
    assert len(gaps) >= 15 and max(gaps) <= 0.02, max(gaps)


def test_profile_claim_from_a_dp_accounting_accountant_is_its_table() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import RdpAccountant

    accountant = RdpAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(2.0), count=3)
    claim = ProfileClaim.from_accountant(accountant, [0.5, 1.0, 2.0], "add_remove")
    assert claim.points == tuple((e, accountant.get_delta(e)) for e in (0.5, 1.0, 2.0))
    assert claim.source == "dp_accounting"
    # three Gaussians of σ = 2 compose to ρ = 3/8: the accountant's δ is that of ρ-zCDP
    for epsilon, delta in claim.points:
        assert float(ZCDPClaim(3 / 8).delta_at(epsilon)) <= delta <= 1.02 * float(
            ZCDPClaim(3 / 8).delta_at(epsilon)
        )


def _opendp() -> Any:
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    return dp


def test_proposition_1_6_bs16_gaussian_rho_matches_opendp_gaussian_map() -> None:
    """OpenDP's Gaussian mechanism maps an ℓ2 distance Δ to ρ = (Δ/σ)²/2 (rounded up in
    floats): ours, (Δ/σ)²/2 through :func:`gaussian_mu` and :func:`zcdp_of_gdp`, is within one
    rounding below it."""
    dp = _opendp()
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    for sigma in (0.3, 1.0, 2.0, 7.0):
        meas = dp.m.make_gaussian(*space, scale=sigma)
        for sensitivity in (0.5, 1.0, 3.0):
            theirs = meas.map(sensitivity)
            ours = conv.zcdp_of_gdp(conv.gaussian_mu(sigma, sensitivity))
            assert ours <= theirs and _close(ours, theirs, 4e-16), (sigma, sensitivity)


def test_corollary_13_cks20_zcdp_delta_matches_opendp_zcdp_to_approxdp() -> None:
    """OpenDP's ``make_zCDP_to_approxDP`` gives the profile of ρ-zCDP: never below ours (it rounds
    up), and within 1e-12 relative for ρ <= 2 where its δ is a normal float (measured 7.3e-14;
    it floors δ at 5e-324, and at ρ = 5.6, ε <= 1 its δ is up to 0.35% larger)."""
    dp = _opendp()
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    for sigma in (0.5, 1.0, 2.0, 4.0, 10.0):
        meas = dp.m.make_gaussian(*space, scale=sigma)
        rho = meas.map(1.0)
        profile = dp.c.make_zCDP_to_approxDP(meas).map(1.0)
        for epsilon in (0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0):
            theirs = profile.delta(epsilon)
            ours = conv.zcdp_delta(rho, epsilon)
            assert ours <= theirs * (1 + 1e-15), (sigma, epsilon)
            if theirs > 1e-300:
                assert _close(ours, theirs, 1e-12), (sigma, epsilon)
        fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), delta=1e-6).map(1.0)
        assert fixed[1] == 1e-6 and conv.zcdp_delta(rho, fixed[0]) <= 1e-6 * (1 + 1e-12)


@pytest.mark.parametrize(
    ("epsilon", "delta", "sensitivity"),
    [(1.0, 1e-5, 1.0), (0.1, 1e-6, 2.0), (3.0, 1e-3, 0.5), (0.5, 0.1, 1.0), (10.0, 1e-10, 1.0)],
)
def test_theorem_8_bw18_analytic_gaussian_sigma_matches_diffprivlib(
    epsilon: float, delta: float, sensitivity: float
) -> None:
    """diffprivlib's ``GaussianAnalytic`` computes Balle and Wang's σ by a float search: within
    1e-4 relative of ours (measured 5e-13, and 3.6e-5 at ε = 10, δ = 1e-10, where its σ is the
    smaller and its profile there 1.0018e-10 > δ)."""
    mechanisms = pytest.importorskip("diffprivlib.mechanisms")
    theirs = mechanisms.GaussianAnalytic(
        epsilon=epsilon, delta=delta, sensitivity=sensitivity
    )._scale
    ours = conv.analytic_gaussian_sigma(epsilon, delta, sensitivity)
    assert _close(ours, theirs, 1e-4), (float(ours), theirs)
    with mpmath.workdps(60):
        assert conv.gdp_delta(sensitivity / ours, epsilon) <= delta * (1 + _mp(10) ** -50)


# ------------------------------------------------------------------------ properties

CLAIMS = st.one_of(
    st.builds(ZCDPClaim, st.floats(1e-4, 20.0), st.floats(0.0, 2.0)),
    st.builds(GDPClaim, st.floats(1e-3, 10.0)),
    st.builds(
        RenyiClaim,
        st.dictionaries(st.floats(1.01, 1e4), st.floats(0.0, 10.0), min_size=1, max_size=5),
    ),
    st.builds(
        ProfileClaim,
        st.dictionaries(st.floats(0.0, 10.0), st.floats(0.0, 1.0), min_size=1, max_size=8),
    ),
    st.builds(PrivacyClaim, st.floats(1e-3, 10.0), st.floats(0.0, 0.5, exclude_max=True)),
)


@given(claim=CLAIMS, epsilons=st.lists(st.floats(0.0, 12.0), min_size=2, max_size=4, unique=True))
def test_every_claims_profile_lies_in_0_1_and_does_not_increase_with_epsilon(
    claim: Any, epsilons: list[float]
) -> None:
    values = [claim_delta_at(claim, e) for e in sorted(epsilons)]
    assert all(0 <= v <= 1 for v in values)
    assert all(a >= b for a, b in zip(values, values[1:], strict=False)), values


@given(
    mus=st.lists(st.floats(1e-3, 20.0), min_size=2, max_size=4, unique=True),
    epsilon=st.floats(0.0, 10.0),
)
def test_the_gdp_profile_increases_with_mu(mus: list[float], epsilon: float) -> None:
    """A larger μ is a weaker guarantee: δ(ε) grows with μ (strictly, where it is not 0 or 1 in
    floats)."""
    values = [conv.gdp_delta(m, epsilon) for m in sorted(mus)]
    assert all(a <= b for a, b in zip(values, values[1:], strict=False)), values
    assert all(a < b for a, b in zip(values, values[1:], strict=False) if 1e-300 < a and b < 1)


@settings(max_examples=25)
@given(
    rhos=st.lists(st.floats(1e-3, 20.0), min_size=2, max_size=3, unique=True),
    epsilon=st.floats(0.0, 10.0),
)
def test_the_zcdp_profile_does_not_decrease_with_rho(rhos: list[float], epsilon: float) -> None:
    values = [conv.zcdp_delta(r, epsilon) for r in sorted(rhos)]
    assert all(a <= b * (1 + _mp(10) ** -40) for a, b in zip(values, values[1:], strict=False))


# ------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: conv.pure_delta(0, 1), "epsilon0"),
        (lambda: conv.pure_delta(math.inf, 1), "epsilon0"),
        (lambda: conv.pure_delta(1, -1), "epsilon"),
        (lambda: conv.pure_delta(1, math.nan), "epsilon"),
        (lambda: conv.approximate_delta(1, 1.0, 1), "delta0"),
        (lambda: conv.approximate_delta(1, -0.1, 1), "delta0"),
        (lambda: conv.approximate_delta(1, True, 1), "delta0"),
        (lambda: conv.renyi_to_delta(1.0, 1, 1), "order"),
        (lambda: conv.renyi_to_delta(-math.inf, 1, 1), "order"),
        (lambda: conv.renyi_to_delta(2, -1, 1), "tau"),
        (lambda: conv.renyi_to_delta(2, math.inf, 1), "tau"),
        (lambda: conv.renyi_to_delta(2, 1, "1"), "epsilon"),
        (lambda: conv.renyi_curve_delta([], 1), "orders"),
        (lambda: conv.zcdp_delta(0, 1), "rho"),
        (lambda: conv.zcdp_delta(math.nan, 1), "rho"),
        (lambda: conv.zcdp_delta(1, 1, -1), "xi"),
        (lambda: conv.zcdp_delta(1, math.inf), "epsilon"),
        (lambda: conv.gdp_delta(0, 1), "mu"),
        (lambda: conv.gdp_delta(-1, 1), "mu"),
        (lambda: conv.gdp_delta(1, -1e-300), "epsilon"),
        (lambda: conv.gdp_tradeoff(-1, 0.5), "mu"),
        (lambda: conv.gdp_tradeoff(1, 1.5), "type_one"),
        (lambda: conv.gdp_tradeoff(1, -0.5), "type_one"),
        (lambda: conv.zcdp_of_gdp(0), "mu"),
        (lambda: conv.zcdp_of_pure(-1), "epsilon0"),
        (lambda: conv.gaussian_mu(0), "sigma"),
        (lambda: conv.gaussian_mu(1, math.inf), "sensitivity"),
        (lambda: conv.analytic_gaussian_sigma(0, 0.5), "epsilon"),
        (lambda: conv.analytic_gaussian_sigma(1, 0), "delta"),
        (lambda: conv.analytic_gaussian_sigma(1, 1.0), "delta"),
        (lambda: conv.analytic_gaussian_sigma(1, 1e308), "delta"),
        (lambda: conv.analytic_gaussian_sigma(1, 0.5, -2), "sensitivity"),
    ],
)
def test_conversions_refuse_bad_input_naming_the_parameter(call: Any, parameter: str) -> None:
    with pytest.raises(ParameterError) as info:
        call()
    assert info.value.parameter == parameter, str(info.value)


def test_conversions_take_the_largest_finite_double_where_the_range_has_no_upper_end() -> None:
    assert conv.zcdp_delta(1e308, 0.0) == 1
    assert conv.gdp_delta(1e308, 0.0) == 1
    assert conv.pure_delta(1e308, 1.0) > 1 - _mp(10) ** -50
    assert 0 < conv.renyi_to_delta(1e308, 1.0, 2.0) < _mp(10) ** -100
    sigma = conv.analytic_gaussian_sigma(1e308, 0.5)
    assert conv.gdp_delta(1 / sigma, 1e308) <= 0.5


@pytest.mark.parametrize(
    "p", ["0.3", "0.5", "1e-5", "1e-40", "1e-300", "1e-320", "1e-1000", "0.9999999", "1.5e-7"]
)
def test_probit_is_the_normal_quantile_to_the_working_precision_deep_in_both_tails(p) -> None:
    """Newton's method on Φ against mpmath's erfinv taken at ample extra digits (the two share no
    code): agreement to 1e-55 relative at 60 digits, down to p = 1e-1000 and up to 1 − 1e-7,
    and Φ(probit(p)) = p."""
    with conv.workdps():
        prob = mpmath.mpf(p)
        upper = 1 - prob  # 1 at 60 digits below p = 1e-60: then only the lower tail
        for q in (prob, upper) if upper < 1 else (prob,):
            got = conv.probit(q)
            extra = max(0, int(-mpmath.log10(min(q, 1 - q)))) + 20
            with mpmath.workdps(mpmath.mp.dps + extra):
                want = -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * q)
                assert abs(got - want) <= mpmath.mpf("1e-55") * max(abs(want), 1)
                back = mpmath.erfc(-got / mpmath.sqrt(2)) / 2
                assert abs(back - q) <= mpmath.mpf("1e-50") * min(q, 1 - q) * max(abs(got), 1)
