"""App. E channel quantities: derived with sympy, tied to the closed forms (``notes/aamand25.md``,
"Channel closed forms"), to a numeric argmax, to independently computed reference numbers, to
Eqs. (10)–(11), and float tier to mpmath tier."""

from __future__ import annotations

import math
import random

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.reference.distributed_quantiles.channel import (
    bayes_weights,
    bayes_weights_mp,
    capacity,
    capacity_mp,
    derive_channel,
    mutual_information,
    mutual_information_mp,
    numeric_argmax_mp,
    optimal_query_point,
    optimal_query_point_mp,
    rr_domain_alpha,
    rr_domain_target,
)
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.randomized_response import keep_probability

MARGIN = mpmath.mpf("1e-40")

taus = st.floats(0.02, 0.98)
fracs = st.floats(0.001, 0.999)  # α = frac·min(τ, 1 − τ)
unit = st.floats(0.0, 1.0)


def _lg(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.log(x, 2)


def _entropy_mp(p: mpmath.mpf) -> mpmath.mpf:
    return -(p * _lg(p) + (1 - p) * _lg(1 - p))


def _kl_bits(p: mpmath.mpf, m: mpmath.mpf) -> mpmath.mpf:
    return p * _lg(p / m) + (1 - p) * _lg((1 - p) / (1 - m))


def _rational_points(count: int, seed: int) -> list[tuple[sp.Rational, sp.Rational]]:
    gen = random.Random(seed)
    out = []
    for _ in range(count):
        tau = sp.Rational(gen.randint(2, 98), 100)
        out.append((tau, sp.Rational(gen.randint(1, 99), 100) * min(tau, 1 - tau)))
    return out


# ----------------------------------------------------------------------------- the derivation


def test_derivation_proves_each_closed_form_and_says_how() -> None:
    """Every identity of derive_channel (concavity, q, C, the four d's, the predictive heads
    probability) is closed; with sympy 1.14 every one closes by simplify, no numeric fallback."""
    ch = derive_channel()
    names = dict(ch.proofs)
    for name in (
        "concavity",
        "query_point",
        "capacity",
        "bayes_weight_d00",
        "bayes_weight_d01",
        "bayes_weight_d10",
        "bayes_weight_d11",
        "predictive_heads",
    ):
        assert names[name] in ("simplify", "numeric-60")
    assert ch.proof("query_point") == "simplify" and ch.proof("capacity") == "simplify"


def test_weight_identity_q_d_y0_plus_one_minus_q_d_y1_is_one_for_every_q_symbolically() -> None:
    """Alg. 2 keeps Σw = 1 because q·d_{y,0} + (1 − q)·d_{y,1} = 1 for both flips and any q."""
    ch = derive_channel()
    for y in (0, 1):
        assert sp.simplify(ch.q * ch.weight(y, 0) + (1 - ch.q) * ch.weight(y, 1) - 1) == 0


@given(taus, fracs, unit)
def test_weight_identity_holds_at_60_digits_for_every_q(tau, frac, q) -> None:
    alpha = frac * min(tau, 1 - tau)
    with workdps():
        d = bayes_weights_mp(tau, alpha, q)
        for y in (0, 1):
            total = d.q * d.d(y, 0) + (1 - d.q) * d.d(y, 1)
            assert abs(total - 1) < mpmath.mpf("1e-55")


def test_derived_q_and_capacity_equal_the_gretta_price_closed_forms_at_60_digits() -> None:
    """sympy's root of dI/dx and I at that root equal the closed forms of q and C at 25 rational
    points (the expressions evaluated by mpmath at 90 digits)."""
    ch = derive_channel()
    solved = sp.lambdify((ch.tau, ch.alpha), ch.solved_query_point, "mpmath")
    closed_q = sp.lambdify((ch.tau, ch.alpha), ch.query_point, "mpmath")
    closed_c = sp.lambdify((ch.tau, ch.alpha), ch.capacity, "mpmath")
    info = sp.lambdify((ch.x, ch.tau, ch.alpha), ch.mutual_information, "mpmath")
    with mpmath.workdps(90):  # the forms cancel ~3·log10(1/α) <= 9 digits here
        for tau, alpha in _rational_points(25, seed=1):
            t = mpmath.mpf(tau.p) / tau.q
            a = mpmath.mpf(alpha.p) / alpha.q
            root = solved(t, a)
            assert abs(root - closed_q(t, a)) < mpmath.mpf("1e-60")
            assert abs(info(root, t, a) - closed_c(t, a)) < mpmath.mpf("1e-60")


@given(taus, fracs)
def test_mp_tier_is_the_gretta_price_closed_form_typed_out(tau, frac) -> None:
    """The lambdified derivation against Z, q, C written out here in mpmath (Gretta–Price's
    closed forms)."""
    alpha = frac * min(tau, 1 - tau)
    with mpmath.workdps(120):
        t, a = mpmath.mpf(tau), mpmath.mpf(alpha)
        z = mpmath.power(2, (_entropy_mp(t - a) - _entropy_mp(t + a)) / (2 * a))
        q = (1 - t + a - 1 / (1 + z)) / (2 * a)
        c = (
            _lg(1 + z)
            + (t - a) * _entropy_mp(t + a) / (2 * a)
            - (t + a) * _entropy_mp(t - a) / (2 * a)
        )
        assert abs(optimal_query_point_mp(tau, alpha) - q) < mpmath.mpf("1e-55")
        assert abs(capacity_mp(tau, alpha) - c) < mpmath.mpf("1e-55") * c


def test_derived_q_is_the_numeric_argmax_at_50_digits() -> None:
    for tau, alpha in [(0.3, 0.05), (0.1, 0.05), (0.9, 0.02), (0.5, 0.2), (0.7, 0.25), (0.4, 1e-4)]:
        with workdps():
            q = optimal_query_point_mp(tau, alpha)
            assert abs(numeric_argmax_mp(tau, alpha) - q) < mpmath.mpf("1e-50")
            C = capacity_mp(tau, alpha)
            assert abs(mutual_information_mp(q, tau, alpha) - C) < mpmath.mpf("1e-50") * C
            for dx in ("1e-3", "-1e-3"):  # a maximum, not a minimum
                assert mutual_information_mp(q + mpmath.mpf(dx), tau, alpha) < C


def test_mp_tier_reaches_50_digits() -> None:
    """Results at dps = 60 and dps = 100 agree to 1e-55 (relative), small α included."""
    for tau, alpha in [(0.3, 0.05), (0.02, 0.01), (0.5, 1e-6), (0.97, 3e-4)]:
        with mpmath.workdps(110):
            for f in (optimal_query_point_mp, capacity_mp, numeric_argmax_mp):
                lo, hi = f(tau, alpha, dps=60), f(tau, alpha, dps=100)
                assert abs(lo - hi) <= mpmath.mpf("1e-55") * abs(hi)


# ----------------------------------------------------------------------------- reference values


@pytest.mark.parametrize(
    ("alpha", "C"),
    [
        (0.01, 2.885582472e-4),
        (0.05, 7.225546012e-3),
        (0.1, 2.904940555e-2),
        (0.2, 0.1187091008),
        (0.25, 0.1887218755),
    ],
)
def test_symmetric_capacity_reference_values_and_q_one_half(alpha, C) -> None:
    """C_{1/2,α} = 1 − H(½ + α) to 10 digits of independently computed values, with q = ½."""
    assert capacity(0.5, alpha) == pytest.approx(C, rel=5e-10)
    assert optimal_query_point(0.5, alpha) == pytest.approx(0.5, abs=1e-15)
    with workdps():
        half = mpmath.mpf(1) / 2
        assert abs(optimal_query_point_mp(0.5, alpha) - half) < mpmath.mpf("1e-55")
        one_minus_h = 1 - _entropy_mp(half + mpmath.mpf(alpha))
        assert abs(capacity_mp(0.5, alpha) - one_minus_h) < mpmath.mpf("1e-55")
        assert abs(capacity_mp(0.5, alpha) - mpmath.mpf(C)) < 5e-10 * C


@pytest.mark.parametrize(
    ("tau", "alpha", "q", "C"),
    [
        (0.3, 0.05, 0.4919902486, 0.008620015316),
        (0.3, 0.15, 0.4739705737, 0.08019510946),
        (0.1, 0.05, 0.4604711012, 0.021005224),
        (0.9, 0.02, 0.5149583583, 0.003228445457),
    ],
)
def test_asymmetric_capacity_reference_values(tau, alpha, q, C) -> None:
    """Four asymmetric (τ, α) → (q, C), computed independently, to the digits given."""
    digits_c = len(repr(C).split("e")[0].replace(".", "").lstrip("0"))
    assert optimal_query_point(tau, alpha) == pytest.approx(q, abs=5e-11)
    assert capacity(tau, alpha) == pytest.approx(C, rel=10.0 ** (1 - digits_c))
    with workdps():
        assert abs(optimal_query_point_mp(tau, alpha) - q) < 5e-11
        assert abs(capacity_mp(tau, alpha) - C) < 10.0 ** (1 - digits_c) * C


def test_median_weights_are_one_plus_minus_two_alpha_exactly() -> None:
    """τ = ½: q = ½ and d₁₀ = d₀₁ = 1 + 2α, d₀₀ = d₁₁ = 1 − 2α, exactly (sympy)."""
    ch = derive_channel()
    half = {ch.tau: sp.Rational(1, 2)}
    assert sp.simplify(ch.query_point.subs(half) - sp.Rational(1, 2)) == 0
    for _, alpha in _rational_points(5, seed=3):  # the raw solve output, at exact rationals
        root = ch.solved_query_point.subs({**half, ch.alpha: alpha / 2 + sp.Rational(1, 100)})
        assert sp.nsimplify(sp.simplify(root)) == sp.Rational(1, 2)
    a = ch.alpha
    expected = {(1, 0): 1 + 2 * a, (0, 1): 1 + 2 * a, (0, 0): 1 - 2 * a, (1, 1): 1 - 2 * a}
    for (x, y), value in expected.items():
        w = ch.weight(x, y).subs({**half, ch.q: sp.Rational(1, 2)})
        assert sp.simplify(w - value) == 0
    d = bayes_weights(0.5, 0.1)
    assert (d.d10, d.d01, d.d00, d.d11) == pytest.approx((1.2, 1.2, 0.8, 0.8), abs=1e-15)


def test_median_capacity_is_one_minus_entropy_and_its_series() -> None:
    """C_{1/2,α} = 1 − H(½+α) = (1/(2 ln2))·Σ_k (2α)^{2k}/(k(2k−1)) ≈ 2α²/ln2 (App. E, τ = ½)."""
    ch = derive_channel()
    a = ch.alpha
    median = ch.capacity.subs(ch.tau, sp.Rational(1, 2))
    one_minus_h = 1 + (
        (sp.Rational(1, 2) + a) * sp.log(sp.Rational(1, 2) + a)
        + (sp.Rational(1, 2) - a) * sp.log(sp.Rational(1, 2) - a)
    ) / sp.log(2)
    assert sp.simplify(sp.expand_log(median - one_minus_h, force=True)) == 0
    order = 14
    series = sp.series(one_minus_h, a, 0, order).removeO()
    partial = sum((2 * a) ** (2 * k) / (k * (2 * k - 1)) for k in range(1, order // 2)) / (
        2 * sp.log(2)
    )
    assert sp.simplify(sp.expand(series - partial)) == 0
    assert sp.limit(median / a**2, a, 0) == 2 / sp.log(2)


# ----------------------------------------------------------------------------- Eqs. (10), (11)


@settings(deadline=None)
@given(tau=taus, frac=fracs)
def test_eq_10_and_eq_11_equal_capacity_at_the_optimal_q(tau, frac) -> None:
    """Eq. (10) C = (τ+α)lg d₁₀ + (1−τ−α)lg d₀₀ and Eq. (11) C = (τ−α)lg d₁₁ + (1−τ+α)lg d₀₁ at
    the optimal q (G&P Lemma 9), at 60 digits with margin 1e-40; equivalently the KKT condition
    D(τ+α ‖ m) = D(τ−α ‖ m) = C with m = τ + (2q−1)α."""
    alpha = frac * min(tau, 1 - tau)
    with workdps():
        t, a = mpmath.mpf(tau), mpmath.mpf(alpha)
        d = bayes_weights_mp(tau, alpha)
        C = capacity_mp(tau, alpha)
        eq10 = (t + a) * _lg(d.d10) + (1 - t - a) * _lg(d.d00)
        eq11 = (t - a) * _lg(d.d11) + (1 - t + a) * _lg(d.d01)
        assert abs(eq10 - C) < MARGIN and abs(eq11 - C) < MARGIN
        m = t + (2 * d.q - 1) * a
        assert abs(_kl_bits(t + a, m) - C) < MARGIN and abs(_kl_bits(t - a, m) - C) < MARGIN


@given(taus, fracs, unit)
def test_bayes_weights_order_d10_at_least_d00_and_d11_at_most_d01(tau, frac, q) -> None:
    """d₁₀ ≥ d₀₀ and d₁₁ ≤ d₀₁ (used in Lemma E.3), at the optimal q and at any q."""
    alpha = frac * min(tau, 1 - tau)
    for d in (bayes_weights(tau, alpha), bayes_weights(tau, alpha, q)):
        assert d.d10 >= d.d00 and d.d11 <= d.d01
    with workdps():
        d = bayes_weights_mp(tau, alpha)
        assert d.d10 > d.d00 and d.d11 < d.d01


def test_capacity_is_alpha_squared_over_2ln2_tau_one_minus_tau_as_alpha_vanishes() -> None:
    """C_{τ,α} = α²/(2 ln2·τ(1−τ))·(1 + O(α²)) (the paper's Θ(α²/(τ(1−τ))), Thm E.2 footnote 8);
    checked as |ratio − 1| <= (α/(τ(1−τ)))² down to α = 1e-6 at 60 digits (the observed
    coefficient of α² is 2/3 at τ = ½, 3.78 at τ = 0.2, 73 at τ = 0.05)."""
    with workdps():
        for tau in (0.05, 0.2, 0.5, 0.8):
            for alpha in (1e-2 * min(tau, 1 - tau), 1e-3, 1e-4, 1e-5, 1e-6):
                t, a = mpmath.mpf(tau), mpmath.mpf(alpha)
                ratio = capacity_mp(tau, alpha) / (a**2 / (2 * mpmath.log(2) * t * (1 - t)))
                assert abs(ratio - 1) <= (a / (t * (1 - t))) ** 2


# ----------------------------------------------------------------------------- float tier


@given(
    tau=st.floats(0.005, 0.995),
    log_frac=st.floats(-5.0, -0.0005),
    x=unit,
)
def test_float_tier_agrees_with_the_derived_mp_tier_to_1e_12(tau, log_frac, x) -> None:
    """The hand-written float forms (no cancellation) against the lambdified derivation, relative
    1e-12, for α from 1e-5·min(τ, 1−τ) to nearly min(τ, 1−τ)."""
    alpha = min(tau, 1 - tau) * 10.0**log_frac
    with workdps():
        pairs = [
            (optimal_query_point(tau, alpha), optimal_query_point_mp(tau, alpha)),
            (capacity(tau, alpha), capacity_mp(tau, alpha)),
            (mutual_information(x, tau, alpha), mutual_information_mp(x, tau, alpha)),
        ]
        d, dm = bayes_weights(tau, alpha), bayes_weights_mp(tau, alpha)
        pairs += [(getattr(d, k), getattr(dm, k)) for k in ("d00", "d01", "d10", "d11")]
        dq, dqm = bayes_weights(tau, alpha, x), bayes_weights_mp(tau, alpha, x)
        pairs += [(getattr(dq, k), getattr(dqm, k)) for k in ("d00", "d01", "d10", "d11")]
        for fast, exact in pairs:  # 1e-300: doubles are subnormal (no relative accuracy) below
            assert abs(fast - exact) <= mpmath.mpf("1e-12") * abs(exact) + mpmath.mpf("1e-300")


def test_mutual_information_vanishes_at_the_ends_and_peaks_at_q() -> None:
    for tau, alpha in [(0.3, 0.1), (0.5, 0.01), (0.95, 0.02)]:
        assert mutual_information(0.0, tau, alpha) == 0.0
        assert mutual_information(1.0, tau, alpha) == 0.0
        q, C = optimal_query_point(tau, alpha), capacity(tau, alpha)
        for x in (0.1, 0.3, 0.45, 0.55, 0.7, 0.9):
            assert mutual_information(x, tau, alpha) <= C * (1 + 1e-14)
        assert mutual_information(q, tau, alpha) == C


# ----------------------------------------------------------------------------- RR domain


def test_rr_domain_target_is_one_half_for_the_median() -> None:
    for eps in (0.1, 1.0, 5.0, 800.0):
        assert rr_domain_target(0.5, eps) == pytest.approx(0.5, abs=1e-15)


@given(st.floats(0.01, 0.99), st.floats(0.001, 0.2), st.floats(0.01, 20.0))
def test_rr_domain_target_and_gap_are_the_randomized_response_heads_probabilities(
    tau, alpha, eps
) -> None:
    """Pr[RR_ε(b) = 1] for Pr[b = 1] = τ is τ' (Lemma A.1; ``notes/aamand25.md``), and a CDF gap
    α becomes α·tanh(ε/2)."""
    keep = keep_probability(eps)

    def heads(p: float) -> float:
        return p * keep + (1 - p) * (1 - keep)

    assert rr_domain_target(tau, eps) == pytest.approx(heads(tau), abs=1e-14)
    assert rr_domain_alpha(alpha, eps) == pytest.approx(heads(tau + alpha) - heads(tau), abs=1e-14)
    assert rr_domain_alpha(alpha, eps) == pytest.approx(alpha * math.tanh(eps / 2), rel=1e-15)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("tau", "alpha", "match"),
    [
        (0.0, 0.1, "tau must lie in"),
        (1.0, 0.1, "tau must lie in"),
        (float("nan"), 0.1, "tau"),
        (0.3, 0.0, "alpha must lie in"),
        (0.3, 0.3, "alpha must lie in"),
        (0.3, -0.1, "alpha must lie in"),
        (0.5, 0.5, "alpha must lie in"),
        (0.8, 0.25, "alpha must lie in"),
        (True, 0.1, "tau"),
        ("0.3", 0.1, "tau"),
    ],
)
def test_channel_rejects_parameters_outside_its_range(tau, alpha, match) -> None:
    for f in (
        capacity,
        optimal_query_point,
        bayes_weights,
        capacity_mp,
        optimal_query_point_mp,
        bayes_weights_mp,
        numeric_argmax_mp,
    ):
        with pytest.raises(ValueError, match=match):
            f(tau, alpha)
    with pytest.raises(ValueError, match=match):
        mutual_information(0.5, tau, alpha)
    with pytest.raises(ValueError, match=match):
        mutual_information_mp(0.5, tau, alpha)


def test_channel_rejects_bad_q_x_dps_and_rr_parameters() -> None:
    for bad in (1.5, -0.1, float("inf")):
        with pytest.raises(ValueError, match="q"):
            bayes_weights(0.5, 0.1, q=bad)
        with pytest.raises(ValueError, match="q"):
            bayes_weights_mp(0.5, 0.1, q=bad)
        with pytest.raises(ValueError, match="x"):
            mutual_information(bad, 0.5, 0.1)
    with pytest.raises(ValueError, match="dps"):
        capacity_mp(0.5, 0.1, dps=30)
    with pytest.raises(ValueError, match="flip"):
        bayes_weights(0.5, 0.1).d(2, 0)
    with pytest.raises(ValueError, match="tau"):
        rr_domain_target(1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        rr_domain_target(0.5, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        rr_domain_alpha(0.0, 1.0)
