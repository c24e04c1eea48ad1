"""Interval-arithmetic certification of the exact privacy loss."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from audit.search import exhaustive_data_pairs
from reference.distributions import privacy_loss
from reference.exact.interval import certified_privacy_loss
from reference.primitives.exponential_mechanism import ExponentialQuantile
from reference.primitives.laplace import laplace_law
from reference.primitives.truncated import truncated_laplace_law

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
