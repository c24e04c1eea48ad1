"""Projections of numeric outputs (dpquant/audit/events/projections.py): the signed midpoint count of the
coordinates on D's side, the event family that sees a leak spread over many noisy copies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.audit.events.families import Families, best_event
from dpquant.audit.events.projections import midpoint_count, project, projection_name
from dpquant.audit.model.outputs import normalise


def _outputs(values: np.ndarray):
    return normalise(np.asarray(values, dtype=float), len(values))


def test_the_midpoint_count_counts_the_coordinates_on_ds_side() -> None:
    """D = (0, 5, 2), D' = (1, 3, 2): midpoints 0.5 and 4 on the two coordinates that differ,
    D below on the first and above on the second; the third never counts."""
    proj = midpoint_count((np.array([0.0, 5.0, 2.0]), np.array([1.0, 3.0, 2.0])), 3)
    assert proj == ("midcount", (0.5, 4.0, 0.0), (-1.0, 1.0, 0.0))
    y = np.array([[0.2, 4.5, 9.0], [0.7, 4.5, -9.0], [0.7, 3.5, 2.0], [0.5, 4.0, 2.0]])
    assert project(_outputs(y), proj).tolist() == [2.0, 1.0, 0.0, 0.0]
    assert projection_name(proj).startswith("#{i:")


def test_one_record_is_every_coordinates_value_and_nan_draws_stay_nan() -> None:
    """Data of one value each (parallel copies of one answer): the midpoint is broadcast."""
    proj = midpoint_count((np.array([1.0]), np.array([0.0])), 4)
    assert proj == ("midcount", (0.5,) * 4, (1.0,) * 4)
    y = np.array([[1.0, 0.0, 0.6, 0.4], [np.nan, 1.0, 1.0, 1.0]])
    counted = project(_outputs(y), proj)
    assert counted[0] == 2.0 and np.isnan(counted[1])


def test_the_midpoint_of_huge_values_is_finite() -> None:
    """Answers near the largest double: the midpoint is halved before it is summed."""
    proj = midpoint_count((np.array([1e308, 1e308]), np.array([1.5e308, -1e308])), 2)
    assert proj == ("midcount", (1.25e308, 0.0), (-1.0, 1.0))
    y = np.array([[1.2e308, 1.0], [1.3e308, -1.0]])
    assert project(_outputs(y), proj).tolist() == [2.0, 0.0]


@pytest.mark.parametrize("data, width", [
    (None, 4),
    ((np.array([1.0]), np.array([0.0])), 1),  # a scalar output: the output itself
    ((np.array([1.0, 2.0]), np.array([1.0, 3.0])), 2),  # one coordinate differs
    ((np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])), 3),  # add/remove: shapes differ
    ((np.array([1.0, 2.0]), np.array([0.0, 3.0])), 3),  # neither one value nor the width
    ((np.ones((2, 2)), np.zeros((2, 2))), 2),  # vector records
    ((np.array([np.inf, 1.0]), np.array([0.0, 0.0])), 2),
    ((np.array(["a", "b"]), np.array(["c", "d"])), 2),
])  # fmt: skip
def test_no_midpoint_count_where_it_would_say_nothing_new_or_cannot_be_made(data, width) -> None:
    assert midpoint_count(data, width) is None


@given(
    st.integers(2, 6).flatmap(
        lambda w: st.tuples(
            st.lists(st.integers(-3, 3), min_size=w, max_size=w),
            st.lists(st.integers(-3, 3), min_size=w, max_size=w),
            st.lists(st.lists(st.floats(-5, 5), min_size=w, max_size=w), min_size=1, max_size=8),
        )
    )
)
def test_the_midpoint_count_agrees_with_a_count_written_out(case) -> None:
    d0, d1, rows = (np.array(v, dtype=float) for v in case)
    proj = midpoint_count((d0, d1), d0.size)
    differ = d0 != d1
    if np.count_nonzero(differ) < 2:
        assert proj is None
        return
    mid = (d0 + d1) / 2
    expected = [
        sum(1 for i in range(d0.size) if differ[i] and (y[i] - mid[i]) * (d0[i] - d1[i]) > 0)
        for y in rows
    ]
    assert project(_outputs(rows), proj).tolist() == expected


def test_outside_the_data_the_count_is_the_laplace_likelihood_ratio() -> None:
    """Laplace noise of scale b on each coordinate, |D_i − D'_i| = Δ: where no output lies between
    D_i and D'_i, ln f_D(y) − ln f_D'(y) = (Δ/b)(2·count − k), k the coordinates that differ."""
    rng = np.random.default_rng(0)
    d0, d1, b = np.array([1.0, 4.0, 0.0, 2.0]), np.array([0.0, 5.0, 1.0, 3.0]), 0.7
    y = np.where(rng.random((5_000, 4)) < 0.5, -1.0, 1.0) * (6 + rng.exponential(3, (5_000, 4)))
    llr = np.sum(np.abs(y - d1) - np.abs(y - d0), axis=1) / b
    count = project(_outputs(y), midpoint_count((d0, d1), 4))
    assert np.allclose(llr, (1.0 / b) * (2 * count - 4))


def test_the_selection_chooses_the_count_of_parallel_copies_over_any_sum_or_coordinate() -> None:
    """Twelve Laplace(24) copies of one count (pair [1], [0]; 1/24 per copy, 0.5 in all), as
    LaplaceParallel at a larger ε: 100 000 selection draws a side. Told the data, the selection
    chooses an interval of the midpoint count, which promises more than the best event without it
    or its fitted version (the sum, the extremes, a coordinate, a difference; the fitted count is
    tests/audit/events/test_audit_fitted_count.py's)."""
    rng = np.random.default_rng(5)
    d0, d1 = np.array([1.0]), np.array([0.0])
    n = 100_000
    a = _outputs(1.0 + rng.laplace(scale=24.0, size=(n, 12)))
    b = _outputs(rng.laplace(scale=24.0, size=(n, 12)))
    told = best_event(a, b, 2_000_000, 0.0, 1e-6, Families((d0, d1)))
    blind = best_event(a, b, 2_000_000, 0.0, 1e-6, Families(fitted_count=False))
    assert told.event.projection and told.event.projection[0] == "midcount"
    assert told.expected > blind.expected + 0.05


def test_pairwise_differences_stop_at_the_widest_output_they_are_made_for() -> None:
    """A 300-coordinate output gave 44 850 difference projections and an audit that did not end
    in twenty minutes (issue 34); past MAX_DIFF_WIDTH only coordinates and the whole remain."""
    from dpquant.audit.events.projections import MAX_DIFF_WIDTH, WHOLE, projections

    narrow = projections(MAX_DIFF_WIDTH)
    assert sum(p[0] == "diff" for p in narrow) == MAX_DIFF_WIDTH * (MAX_DIFF_WIDTH - 1) // 2
    wide = projections(300)
    assert not any(p[0] == "diff" for p in wide) and len(wide) == 300 + len(WHOLE)


def test_the_best_event_of_a_wide_output_is_found_in_seconds() -> None:
    rng = np.random.default_rng(0)
    a = normalise(rng.laplace(size=(2000, 300)), 2000)
    b = normalise(rng.laplace(size=(2000, 300)) + np.r_[1.0, np.zeros(299)], 2000)
    import time

    start = time.perf_counter()
    scored = best_event(a, b, 10_000, 0.0, 1e-6, Families())
    assert time.perf_counter() - start < 30 and scored.expected > 0
