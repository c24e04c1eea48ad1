"""dpquant.audit.statistics.partition_bounds: Rényi and zCDP bounds from a finite partition.

Coverage is checked exactly, not by simulation: for a partition of three cells and n draws per
side, every pair of count vectors is enumerated with its multinomial probability, and the
probability that the bound exceeds the cells' true divergence is summed. The true divergences are
computed in mpmath at 50 digits. The enumeration is benchmarks/study_partition_coverage.py's,
which runs every row at the full size.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from dpquant.audit.statistics.bernoulli import renyi_divergence
from dpquant.audit.statistics.partition_bounds import (
    cell_box,
    renyi_partition_bound,
    zcdp_partition_bound,
)
from dpquant.errors import ParameterError


def _load_study() -> ModuleType:
    """benchmarks/study_partition_coverage.py: the exact enumeration, shared with the study."""
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "study_partition_coverage.py"
    spec = importlib.util.spec_from_file_location("study_partition_coverage", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


STUDY = _load_study()
_renyi_mp = STUDY.renyi_mp  # D_a(P ‖ Q) at 50 digits


# The exact coverage at n draws per side costs ~(n²/2)² bound evaluations: n = 12 for every row
# whose bound is positive with probability above 0.1 there (0.26 to 0.83), n = 20 for order 2 at
# α = 0.1 (positive with probability 0.03 at n = 12). Every row at n = 20:
# benchmarks/study_partition_coverage.py.
@pytest.mark.parametrize(
    "alpha, order, n",
    [(0.1, 2.0, 20), (0.1, 8.0, 12), (0.1, math.inf, 12),
     (0.5, 2.0, 12), (0.5, 8.0, 12), (0.5, math.inf, 12)],
)  # fmt: skip
def test_renyi_partition_bound_exceeds_the_cells_divergence_with_probability_at_most_alpha(
    alpha, order, n
) -> None:
    """Exact coverage: Σ over all count vectors of Pr[counts] · [bound > D_a(P ‖ Q)] <= α."""
    failure, positive = STUDY.renyi_coverage(n, alpha, order)
    assert failure <= alpha
    assert positive > STUDY.MIN_POSITIVE  # the bound is not vacuous at these sizes


@pytest.mark.parametrize("xi", [0.0, 0.2])
def test_zcdp_partition_bound_exceeds_the_cells_rho_with_probability_at_most_alpha(xi) -> None:
    """Exact coverage at n = 12 draws per side (n = 20: the study above)."""
    assert STUDY.zcdp_coverage(12, 0.3, xi) <= 0.3


vectors = st.lists(st.floats(0.01, 1.0), min_size=2, max_size=8)


@settings(max_examples=60, deadline=None)
@given(
    p=vectors,
    q=vectors,
    shrink=st.floats(0.0, 1.0),
    grow=st.floats(1.0, 3.0),
    order=st.sampled_from([1.01, 1.5, 2.0, 8.0, 100.0, math.inf]),
)
def test_a_box_below_p_and_above_q_never_bounds_above_the_divergence(
    p, q, shrink, grow, order
) -> None:
    """For masses L <= P and U >= Q, the bound is at most D_a(P ‖ Q) (module docstring)."""
    m = min(len(p), len(q))
    pp = np.array(p[:m]) / sum(p[:m])
    qq = np.array(q[:m]) / sum(q[:m])
    lower, upper = pp * shrink, np.minimum(qq * grow, 1.0)
    bound = renyi_partition_bound(lower, upper, order)
    assert bound <= max(float(_renyi_mp(pp, qq, order)), 0.0)
    rho, order = zcdp_partition_bound(lower, upper, 0.0)
    if rho > 0:  # read at one order of the grid: at most that order's D_a(P ‖ Q)/a
        assert rho <= float(_renyi_mp(pp, qq, order)) / order


@pytest.mark.parametrize("order", [1.001, 1.5, 2.0, 8.0, 1e4, math.inf])
def test_at_the_true_masses_the_bound_is_the_mpmath_divergence_rounded_down(order) -> None:
    p = np.array([0.5, 0.25, 0.125, 0.0625, 0.0625])
    q = np.array([0.05, 0.15, 0.2, 0.3, 0.3])
    exact = float(_renyi_mp(p, q, order))
    got = renyi_partition_bound(p, q, order)
    assert got <= exact
    # the margin grows with the terms a/(a − 1) ln L − ln U, large for orders near 1
    scale = order / (order - 1) if math.isfinite(order) else 1.0
    assert got >= exact - 1e-10 * p.size * scale * (abs(exact) + 1)


def test_two_cells_give_the_bernoulli_divergence_and_more_cells_give_more() -> None:
    """A two-cell partition is an event and its complement: the Bernoulli divergence. Splitting
    cells can only raise the divergence (data processing, the other way)."""
    p, q = np.array([0.7, 0.3]), np.array([0.4, 0.6])
    two = renyi_partition_bound(p, q, 2.0)
    assert two == pytest.approx(float(renyi_divergence(np.array(0.7), np.array(0.4), 2.0)), 1e-9)
    finer = renyi_partition_bound([0.5, 0.2, 0.2, 0.1], [0.1, 0.3, 0.3, 0.3], 2.0)
    assert finer > two


def test_a_partition_of_two_gaussians_sees_the_order_2_divergence_binary_events_cannot() -> None:
    """N(1.25, 1) against N(0, 1): D_2 = 2 · 1.25²/2 = 1.5625. The best threshold event gives only
    about 1.06 (below a claim of 1.0 · 1.07), while 64 cells of width 0.25 give above 1.5."""
    shift = 1.25
    cuts = np.linspace(-6.0, 10.0, 65)
    edges = np.concatenate(([-np.inf], cuts, [np.inf]))
    p = np.diff(special.ndtr(edges - shift))
    q = np.diff(special.ndtr(edges))
    assert renyi_partition_bound(p, q, 2.0) > 1.5
    thresholds = np.linspace(-3.0, 8.0, 2001)
    binary = renyi_divergence(special.ndtr(shift - thresholds), special.ndtr(-thresholds), 2.0)
    assert float(np.max(binary)) < 1.07


def test_dropping_cells_only_lowers_the_bound() -> None:
    p = np.array([0.4, 0.3, 0.2, 0.1])
    q = np.array([0.1, 0.2, 0.3, 0.4])
    whole = renyi_partition_bound(p, q, 3.0)
    for i in range(4):
        keep = np.arange(4) != i
        assert renyi_partition_bound(p[keep], q[keep], 3.0) <= whole


def test_cell_box_splits_alpha_over_twice_the_cells() -> None:
    counts0, counts1 = [50, 30, 20], [10, 40, 50]
    lower, upper = cell_box(counts0, 100, counts1, 100, 0.06)
    level = 0.06 / 6
    for i in range(3):
        # the Clopper-Pearson bounds: Beta quantiles at the cell's level
        assert lower[i] == pytest.approx(stats.beta.ppf(level, counts0[i], 101 - counts0[i]))
        assert upper[i] == pytest.approx(
            stats.beta.ppf(1 - level, counts1[i] + 1, 100 - counts1[i])
        )


def test_a_cell_certain_on_d_and_impossible_on_d_prime_is_infinite() -> None:
    assert renyi_partition_bound([0.5, 0.5], [0.0, 1.0], 2.0) == math.inf
    assert zcdp_partition_bound([0.5, 0.5], [0.0, 1.0])[0] == math.inf
    assert renyi_partition_bound([0.0, 0.0], [0.5, 0.5], 2.0) == 0.0
    assert zcdp_partition_bound([0.0, 0.0], [0.5, 0.5]) == (
        0.0,
        pytest.approx(math.nan, nan_ok=True),
    )


BAD = [
    (lambda: cell_box([1, 2], 2, [1, 1], 2, 0.1), "counts0"),  # sums above n0
    (lambda: cell_box([1, 1], 2, [1, 1, 0], 2, 0.1), "counts1"),
    (lambda: cell_box([1.5, 0.5], 2, [1, 1], 2, 0.1), "counts0"),
    (lambda: cell_box([True, False], 2, [1, 1], 2, 0.1), "counts0"),
    (lambda: cell_box([-1, 3], 2, [1, 1], 2, 0.1), "counts0"),
    (lambda: cell_box([1, 1], 0, [1, 1], 2, 0.1), "n0"),
    (lambda: cell_box([1, 1], 2, [1, 1], "2", 0.1), "n1"),
    (lambda: cell_box([1, 1], 2, [1, 1], 2, 1.0), "alpha"),
    (lambda: cell_box([1, 1], 2, [1, 1], 2, math.nan), "alpha"),
    (lambda: cell_box([], 2, [], 2, 0.1), "counts0"),
    (lambda: renyi_partition_bound([0.5], [0.5], 1.0), "order"),
    (lambda: renyi_partition_bound([0.5], [0.5], math.nan), "order"),
    (lambda: renyi_partition_bound([0.5], [0.5], True), "order"),
    (lambda: renyi_partition_bound([1.5], [0.5], 2.0), "lower"),
    (lambda: renyi_partition_bound([0.5], [math.nan], 2.0), "upper"),
    (lambda: renyi_partition_bound([0.5, 0.5], [0.5], 2.0), "upper"),
    (lambda: zcdp_partition_bound([0.5], [0.5], -1.0), "xi"),
    (lambda: zcdp_partition_bound([0.5], [0.5], math.inf), "xi"),
]


@pytest.mark.parametrize("call, name", BAD)
def test_partition_bounds_refuse_bad_input_naming_the_parameter(call, name) -> None:
    with pytest.raises(ParameterError) as info:
        call()
    assert info.value.parameter == name
