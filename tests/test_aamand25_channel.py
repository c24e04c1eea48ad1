"""App. E channel quantities: derived with sympy, checked against the closed forms and spec §7.2."""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.distributed_quantiles.channel import (
    bayes_weights,
    bayes_weights_mp,
    capacity,
    capacity_mp,
    closed_forms,
    derive_channel,
    mutual_information_mp,
    numeric_argmax_mp,
    optimal_query_point,
    optimal_query_point_mp,
    rr_domain_target,
)
from reference.exact.mp import workdps


def test_weight_identity_q_d_y0_plus_one_minus_q_d_y1_is_one_for_every_q_symbolically() -> None:
    """Alg. 2 keeps Σw = 1 because q·d_{y,0} + (1 − q)·d_{y,1} = 1 for both answers, any q."""
    ch = derive_channel()
    q = ch.q_symbol
    for y in (0, 1):
        assert sp.simplify(q * ch.weights[(y, 0)] + (1 - q) * ch.weights[(y, 1)] - 1) == 0


def _points(count: int, seed: int) -> list[tuple[sp.Rational, sp.Rational]]:
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        tau = sp.Rational(rnd.randint(5, 95), 100)
        alpha = sp.Rational(rnd.randint(1, 99), 100) * min(tau, 1 - tau)
        out.append((tau, alpha))
    return out


def test_derived_q_and_capacity_equal_the_closed_forms_of_spec_2_2_at_60_digits() -> None:
    ch, cf = derive_channel(), closed_forms()
    for tau, alpha in _points(25, 1):
        subs = {ch.tau: tau, ch.alpha: alpha}
        for derived, closed in ((ch.q, cf["q"]), (ch.capacity, cf["C"])):
            diff = (derived - closed).subs(subs).evalf(60)
            assert abs(diff) < sp.Float("1e-50")


def test_derived_q_is_the_numeric_argmax_at_50_digits() -> None:
    for tau, alpha in [(0.3, 0.05), (0.1, 0.05), (0.9, 0.02), (0.5, 0.2), (0.7, 0.25)]:
        with workdps():
            gap = abs(numeric_argmax_mp(tau, alpha) - optimal_query_point_mp(tau, alpha))
            assert gap < mpmath.mpf("1e-45")
            q = optimal_query_point_mp(tau, alpha)
            for dx in ("1e-3", "-1e-3"):  # a maximum, not a minimum
                assert mutual_information_mp(q + mpmath.mpf(dx), tau, alpha) < capacity_mp(
                    tau, alpha
                )


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
def test_spec_7_2_symmetric_capacity_and_q_one_half(alpha, C) -> None:
    assert capacity(0.5, alpha) == pytest.approx(C, rel=1e-9)
    with workdps():
        assert abs(optimal_query_point_mp(0.5, alpha) - mpmath.mpf(1) / 2) < mpmath.mpf("1e-50")
        one_minus_h = (
            1
            + (mpmath.mpf(1) / 2 + alpha) * mpmath.log(mpmath.mpf(1) / 2 + alpha, 2)
            + (mpmath.mpf(1) / 2 - alpha) * mpmath.log(mpmath.mpf(1) / 2 - alpha, 2)
        )
        assert abs(capacity_mp(0.5, alpha) - one_minus_h) < mpmath.mpf("1e-50")


@pytest.mark.parametrize(
    ("tau", "alpha", "q", "C"),
    [
        (0.3, 0.05, 0.4919902486, 0.008620015316),
        (0.3, 0.15, 0.4739705737, 0.08019510946),
        (0.1, 0.05, 0.4604711012, 0.021005224),
        (0.9, 0.02, 0.5149583583, 0.003228445457),
    ],
)
def test_spec_7_2_asymmetric_reference_values(tau, alpha, q, C) -> None:
    assert optimal_query_point(tau, alpha) == pytest.approx(q, abs=1e-10)
    assert capacity(tau, alpha) == pytest.approx(C, rel=1e-9)


def test_median_weights_are_one_plus_minus_two_alpha_exactly() -> None:
    ch = derive_channel()
    half = {ch.tau: sp.Rational(1, 2)}
    assert sp.simplify(ch.q.subs(half) - sp.Rational(1, 2)) == 0
    a = ch.alpha
    expected = {(1, 0): 1 + 2 * a, (0, 1): 1 + 2 * a, (0, 0): 1 - 2 * a, (1, 1): 1 - 2 * a}
    for key, value in expected.items():
        w = ch.weights[key].subs({**half, ch.q_symbol: sp.Rational(1, 2)})
        assert sp.simplify(w - value) == 0


@settings(max_examples=60, deadline=None)
@given(tau=st.floats(0.02, 0.98), frac=st.floats(0.01, 0.99))
def test_eq_10_and_eq_11_equal_capacity_at_the_optimal_q(tau, frac) -> None:
    """Eq. (10) C = (τ+α)lg d₁₀ + (1−τ−α)lg d₀₀ and Eq. (11) C = (τ−α)lg d₁₁ + (1−τ+α)lg d₀₁
    (the KKT condition), at 60 digits with margin 1e-40; and d₁₀ ≥ d₀₀, d₁₁ ≤ d₀₁."""
    alpha = frac * min(tau, 1 - tau)
    with workdps():
        t, a = mpmath.mpf(tau), mpmath.mpf(alpha)
        d = bayes_weights_mp(tau, alpha)
        C = capacity_mp(tau, alpha)
        eq10 = (t + a) * mpmath.log(d[(1, 0)], 2) + (1 - t - a) * mpmath.log(d[(0, 0)], 2)
        eq11 = (t - a) * mpmath.log(d[(1, 1)], 2) + (1 - t + a) * mpmath.log(d[(0, 1)], 2)
        assert abs(eq10 - C) < mpmath.mpf("1e-40") and abs(eq11 - C) < mpmath.mpf("1e-40")
        assert d[(1, 0)] >= d[(0, 0)] and d[(1, 1)] <= d[(0, 1)]
    w = bayes_weights(tau, alpha)
    assert w.d10 == pytest.approx(float(d[(1, 0)]), rel=1e-12)
    assert w.d01 == pytest.approx(float(d[(0, 1)]), rel=1e-12)


def test_capacity_is_alpha_squared_over_2ln2_tau_one_minus_tau_as_alpha_vanishes() -> None:
    for tau in (0.2, 0.5, 0.8):
        ratio = capacity(tau, 1e-4) / (1e-8 / (2 * mpmath.log(2) * tau * (1 - tau)))
        assert float(ratio) == pytest.approx(1.0, abs=1e-3)


def test_rr_domain_target_is_one_half_for_the_median() -> None:
    for eps in (0.1, 1.0, 5.0):
        assert rr_domain_target(0.5, eps) == pytest.approx(0.5, abs=1e-15)


@pytest.mark.parametrize(
    ("tau", "alpha"), [(0.0, 0.1), (1.0, 0.1), (0.3, 0.0), (0.3, 0.3), (0.3, -0.1), (0.5, 0.5)]
)
def test_channel_rejects_parameters_outside_its_range(tau, alpha) -> None:
    with pytest.raises(ValueError, match="tau|alpha"):
        capacity(tau, alpha)
    with pytest.raises(ValueError, match="q"):
        bayes_weights(0.5, 0.1, q=1.5)
