"""The interval grid of two sorted samples (dpquant/audit/events/grids.py, ``grid_of_sorted``)
and the selection's first best score (families.py, ``_best_first``): faster paths that must give
exactly what the general ones give, double for double (issue 39: the parallel Laplace's
selection time)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.audit.events.families import _best_first
from dpquant.audit.events.grids import grid, grid_of_sorted

VALUES = st.one_of(
    st.floats(allow_nan=False, width=64),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5]),
)


def _same_doubles(x: np.ndarray, y: np.ndarray) -> bool:
    return x.shape == y.shape and x.tobytes() == y.tobytes()


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, max_size=60), st.lists(VALUES, max_size=60))
def test_the_grid_of_two_sorted_samples_is_the_grid_of_their_pool(a, b) -> None:
    za, zb = np.sort(np.array(a, dtype=float)), np.sort(np.array(b, dtype=float))
    assert _same_doubles(grid_of_sorted(za, zb), grid(np.concatenate([za, zb])))


def test_the_grid_of_large_continuous_and_discrete_samples_is_unchanged() -> None:
    """Past EXACT_GRID_LIMIT distinct values the grid is a set of quantiles (the partition of
    sorted draws); at most that many, every value."""
    rng = np.random.default_rng(2)
    for a, b in (
        (rng.laplace(size=30_000), 1.0 + rng.laplace(size=25_000)),
        (rng.integers(-50, 50, 40_000).astype(float) + 0.5, rng.poisson(7.0, 9_000) + 0.25),
        (np.r_[rng.normal(size=5_000), np.inf, -np.inf], rng.standard_cauchy(5_000)),
    ):
        za, zb = np.sort(a), np.sort(b)
        assert _same_doubles(grid_of_sorted(za, zb), grid(np.concatenate([za, zb])))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.floats(width=64), st.sampled_from([0.0, -0.0, np.inf])), max_size=40),
    st.integers(1, 3),
)
def test_the_first_best_score_is_the_stable_sorts_first(scores, top) -> None:
    s = np.array(scores, dtype=float)
    assert _best_first(s, top).tolist() == np.argsort(-s, kind="stable")[:top].tolist()
