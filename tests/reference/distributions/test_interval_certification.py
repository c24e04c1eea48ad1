"""Interval-arithmetic certification of the exact privacy loss."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from dpquant.audit.model.neighbours import exhaustive_data_pairs
from dpquant.reference.distributions import (
    DiscreteLaw,
    certified_log_normalizer,
    certified_max_log_ratio,
    certified_privacy_loss,
    privacy_loss,
)
from dpquant.reference.exact.interval import iv_precision, to_iv
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.laplace import laplace_law
from dpquant.reference.primitives.truncated import truncated_laplace_law

GRID = (-1.0, 0.0, 0.25, 0.5, 1.0, 2.0)


@pytest.mark.parametrize(
    "p, q",
    [
        (
            ExponentialQuantile(0.5, 1.0, (0, 5)).exact([1, 2, 3, 4]),
            ExponentialQuantile(0.5, 1.0, (0, 5)).exact([1, 2, 3, 4.5]),
        ),
        (truncated_laplace_law(0.3, 0.5, -1.0, 2.0), truncated_laplace_law(0.5, 0.5, -1.0, 2.0)),
        (laplace_law(0.0, 1.0), laplace_law(Fraction(1, 3), 1.0)),
    ],
)
def test_certified_interval_is_tight_and_contains_the_mpmath_loss(p, q) -> None:
    box = certified_privacy_loss(p, q)
    exact = privacy_loss(p, q)
    assert box.a <= exact + mpmath.mpf("1e-55") and exact - mpmath.mpf("1e-55") <= box.b
    assert box.b - box.a < mpmath.mpf("1e-50")


@pytest.mark.audit
@pytest.mark.parametrize("adjacency", ["replace_one", "add_remove"])
def test_em_privacy_is_verified_with_interval_arithmetic_on_the_family(adjacency) -> None:
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0), adjacency=adjacency)
    worst = max(
        certified_privacy_loss(em.exact(d0), em.exact(d1)).b
        for d0, d1 in exhaustive_data_pairs(GRID, 4, adjacency)
    )
    assert worst <= 1.0


def test_miscalibrated_em_violation_is_certified() -> None:
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0), sensitivity=0.5)
    box = certified_privacy_loss(em.exact([0, 0.25, 0.25]), em.exact([0.25, 0.25, 1]))
    assert box.a > 1.47


def test_certification_sees_infinite_loss_when_supports_differ() -> None:
    a = truncated_laplace_law(0.0, 1.0, 0.0, 1.0)
    b = truncated_laplace_law(0.0, 1.0, 0.0, 2.0)
    assert certified_privacy_loss(a, b).b == mpmath.inf


def test_certification_is_tight_when_slope_times_break_cancels() -> None:
    """Anchored pieces (issue 18): Laplace laws at loc = 1e10 have intercepts ∓1e10 that cancel
    against slope × loc; the enclosure still has width < 1e-50 and contains the exact loss 1."""
    p, q = laplace_law(1e10, 1.0), laplace_law(1e10 + 1, 1.0)
    box = certified_privacy_loss(p, q)
    assert box.a <= 1 + mpmath.mpf("1e-55") and 1 - mpmath.mpf("1e-55") <= box.b
    assert box.b - box.a < mpmath.mpf("1e-50")
    assert abs(privacy_loss(p, q) - 1) < mpmath.mpf("1e-40")


def test_certification_refuses_laws_it_cannot_certify() -> None:
    law = laplace_law(0.0, 1.0)
    for bad in (None, 1.0, "law", DiscreteLaw([0], [0.0])):
        with pytest.raises(ValueError, match="p must be a PiecewiseLogLinear"):
            certified_privacy_loss(bad, law)
        with pytest.raises(ValueError, match="q must be a PiecewiseLogLinear"):
            certified_max_log_ratio(law, bad)
        with pytest.raises(ValueError, match="law must be a PiecewiseLogLinear"):
            certified_log_normalizer(bad)
    for x in (math.nan, "1", None, True):
        with pytest.raises(ValueError, match="x must be a real number"):
            to_iv(x)
    for dps in (0, 2.5, 10**6, "60"):
        with pytest.raises(ValueError, match="dps"):
            with iv_precision(dps):
                pass
