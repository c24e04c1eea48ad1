"""Slope tests of fukuchi19's Corollaries 1–2 (Eqs. 4–5): the N-rate of Algorithm 2's error.

Corollary 1 (Lower-α schedule, Eq. 4): Err = O((ln³N/(ε²N))^{1/(2α)}); Corollary 2 (Unknown-α
schedule, Eq. 5): Err = O((ln⁶N/(ε²N))^{1/(2α)}). The measured slope of −log₂ Err per doubling of
N (worst case over the six x_min of Sec. 6.1) must lie within ±20% of the guideline's secant slope
(1/(2α))·(1 − k·log₂(n₁/n₀)/(n₁ − n₀)), k = 3 or 6 (the tolerance of ``notes/fukuchi19.md``).

The computation (the float tree law, or the binomial sampler with empirical-Bernstein intervals
that all hold with probability >= 1 − 1e-6) is ``benchmarks/study_fukuchi19_rates.py``, whose
full grid (14 configurations, n = 14 → 20, about 40 s) is the long version of these tests. CI runs
the Lower-α smoke test (α = 1, n = 12 → 16, with the reference errors) and one configuration of
each corollary at n = 14 → 20; ``tests/studies/test_fukuchi19_reproduce.py`` checks the rate of
every configuration at 1 000 runs.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _study() -> ModuleType:
    """benchmarks/study_fukuchi19_rates.py, the computation these tests share with the study."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "study_fukuchi19_rates.py"
    spec = importlib.util.spec_from_file_location("study_fukuchi19_rates", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["study_fukuchi19_rates"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


STUDY = _study()

# ------------------------------------------------------------------------------- CI smoke test

# reference values (notes), Lower α, Beta(1, 1), Δ = 0.3, worst case over x_min (exact tree law, 4 digits)
REF_WORST_ERR = {1.0: {12: 0.1701, 16: 0.0648}, 4.0: {12: 0.0518, 16: 0.0182}}


@pytest.mark.parametrize("eps", [1.0, 4.0])
def test_corollary_1_smoke_error_decays_at_the_guideline_rate_for_alpha_1(eps) -> None:
    """Lower α, α = 1, n = 12 → 16 (exact float law): slope within ±20% of the secant 0.344, and
    the two errors match the reference table."""
    small = STUDY.error_interval_exact("lower_alpha", 12, eps, 1.0)
    large = STUDY.error_interval_exact("lower_alpha", 16, eps, 1.0)
    for (lo, hi), n_exp in ((small, 12), (large, 16)):
        assert lo - 5e-5 <= REF_WORST_ERR[eps][n_exp] <= hi + 5e-5
    lo, hi = STUDY.slope_interval(small, large, 12, 16)
    row = STUDY.SlopeRow(1, 1.0, eps, 12, 16, lo, hi, STUDY.guideline_slope(1.0, 3, 12, 16))
    assert row.passed, row


def test_a_slope_outside_the_tolerance_fails_its_row() -> None:
    """The check can fail: at n = 6 → 8 the log factor dominates and Lower α's measured slope
    (0.347) is far above the secant (0.189)."""
    row = STUDY.slope_row(1, 1.0, 4.0, 6, 8)
    assert row.slope_lo > 1.2 * row.theory and not row.passed


# --------------------------------------------------------------------------- slope tests


@pytest.mark.slow
@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 4.0)])
def test_corollary_1_error_decays_at_rate_ln3n_over_n_to_the_one_over_two_alpha(alpha, eps) -> None:
    """Lower-α schedule (α >= 1), n = 14 → 20, exact float law. The reference computation measured
    0.375–0.39 (α = 1), 0.19 (α = 2), 0.094–0.096 (α = 4); every (α, ε) of that grid is
    ``benchmarks/study_fukuchi19_rates.py``."""
    row = STUDY.slope_row(1, alpha, eps, 14, 20)
    assert row.passed, row


@pytest.mark.slow
@pytest.mark.parametrize(("alpha", "eps"), [(1.0, 4.0)])
def test_corollary_2_error_decays_at_rate_ln6n_over_n_to_the_one_over_two_alpha(alpha, eps) -> None:
    """Unknown-α schedule, n = 14 (exact float law, L = 10) → 20 (binomial sampler, L = 21).
    The reference computation measured 0.24–0.25 (α = 1), 0.12–0.125 (α = 2), 0.060–0.062
    (α = 4), 0.48–0.49 (α = 0.5); every (α, ε) of that grid is
    ``benchmarks/study_fukuchi19_rates.py``."""
    row = STUDY.slope_row(2, alpha, eps, 14, 20)
    assert row.passed, row
