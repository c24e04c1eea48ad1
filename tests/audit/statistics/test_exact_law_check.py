"""check_exact_law's NaN test of a piecewise law's cdf: the shortcut agrees with evaluating it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpquant.audit.statistics.exact_loss import _cdf_nan_at_breaks, law_problem
from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile


def direct(law: PiecewiseLogLinear) -> bool:
    """What the check computed before the shortcut: the cdf at the breaks holds a NaN."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isnan(law.cdf(law.breaks)).any())


def seeded_laws() -> list[PiecewiseLogLinear]:
    """EM laws on seeded data sets, and laws with slopes, half-lines and dead pieces."""
    rng = np.random.default_rng(3)
    mech = ExponentialQuantile(0.9, 2.0, (0.0, 1.0))
    laws = [mech.exact(rng.uniform(-0.5, 1.5, int(rng.integers(0, 6)))) for _ in range(200)]
    laws.append(PiecewiseLogLinear([-np.inf, 0.0, 1.0, np.inf], [2.0, 0.0, -3.0], [0.0, 1.0, 0.0]))
    laws.append(PiecewiseLogLinear([0.0, 1.0, 2.0], [1e3, -1e3], [-np.inf, 5.0]))
    return laws


def test_the_shortcut_agrees_with_the_cdf_on_constructed_laws():
    """On 202 laws built by the constructor, no cdf at the breaks is NaN, as the shortcut says."""
    for law in seeded_laws():
        assert _cdf_nan_at_breaks(law) is False
        assert direct(law) is False
        assert law_problem(law) is None


@pytest.mark.parametrize(
    "field, k, value", [("log_mass", 1, np.nan), ("log_mass", 0, 800.0), ("cum", 0, np.nan)]
)
def test_a_corrupted_float_path_is_judged_by_the_cdf_itself(field, k, value):
    """A law whose float path was tampered with (a NaN or overflowing piece mass, a NaN
    cumulative mass) is not waved through: the cdf is evaluated, and the verdict is its."""
    law = PiecewiseLogLinear([0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [0.0, -1.0, -2.0])
    view = law._view  # noqa: SLF001 -- the float path under test
    bad = getattr(view, field).copy()
    bad[k] = value
    law._view = dataclasses.replace(view, **{field: bad})
    assert _cdf_nan_at_breaks(law) == direct(law)
    assert direct(law) is True
    assert law_problem(law) == "its log-normalizer or its CDF is NaN"
