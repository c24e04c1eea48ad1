"""The data and the quantiles of imola25's experiments (Sec. 6 of Imola et al., "Differentially
Private Quantiles with Smaller Error").

Data: the UCI Adult ``age`` and ``hours_per_week`` columns (48,842 values each), every value
duplicated k times, sorted, and i/n added to the i-th (i = 1..n), so the values are strictly
increasing with minimum gap g = 1/n (:func:`make_distinct`). Quantiles: m distinct ones drawn per
run from the grid {i/251 : i = 1..250} (:func:`draw_quantiles`). See ``notes/imola25.md``,
"Reproduction of Figure 1".
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.datasets import load_adult
from dpquant.reference.validation import check_choice, check_data, check_int, check_rng

DATASETS = ("age", "hours_per_week")
BOUNDS = (0.0, 100.0)
GRID = 251  # quantiles are drawn from {i/251 : i = 1..250} (Sec. 6)
ADULT_SIZE = 48_842
MAX_DUPLICATION = 1000


def check_dataset(dataset: Any) -> str:
    """One of the Adult columns of :data:`DATASETS`."""
    return check_choice(dataset, "dataset", DATASETS)


def make_distinct(values: Any, duplication: int) -> np.ndarray:
    """Sec. 6: each value repeated ``duplication`` times, sorted, then i/n added to the i-th
    smallest (i = 1..n). Sorted input values v_(1) <= ... <= v_(n) give x_(i) = v_(i) + i/n,
    strictly increasing with minimum gap 1/n (attained between copies of one value) and, for
    values in [0, 100 − 1], still inside the domain [0, 100]."""
    k = check_int(duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION)
    v = check_data(values, "values")
    if v.size * k > 10**8:
        raise ValueError(f"values × duplication must be at most 10^8 points, got {v.size}·{k}")
    x = np.sort(np.repeat(v, k))
    n = x.size
    out = x + np.arange(1, n + 1, dtype=float) / n
    with np.errstate(over="ignore", invalid="ignore"):
        distinct = n < 2 or bool(np.all(np.diff(out) > 0))
    if not distinct:
        raise ParameterError(
            "values",
            "are too large for the i/n spacing (the shifted values are not distinct in float64): "
            "use values of magnitude well below 2^52/n",
        )
    return out


@lru_cache(maxsize=4)
def adult_distinct(dataset: str, duplication: int) -> np.ndarray:
    """The distinct, duplicated Adult column (read-only, cached per process)."""
    x = make_distinct(load_adult(check_dataset(dataset)), duplication)
    x.setflags(write=False)
    return x


def check_m(m: Any, name: str = "m") -> int:
    """A number of quantiles drawable from the 250-grid: an integer in [1, 250]."""
    m = check_int(m, name, minimum=1)
    if m > GRID - 1:
        raise ParameterError(name, f"must be an integer in [1, {GRID - 1}]", m)
    return m


def draw_quantiles(m: int, rng: np.random.Generator) -> np.ndarray:
    """Sec. 6: m distinct quantiles drawn uniformly without replacement from
    {i/251 : i = 1..250}, sorted."""
    m = check_m(m)
    rng = check_rng(rng)
    idx = rng.choice(GRID - 1, size=m, replace=False) + 1
    return np.sort(idx) / GRID


def grid_quantiles() -> np.ndarray:
    """All 250 grid quantiles i/251 (computed as in :func:`draw_quantiles`)."""
    return np.arange(1, GRID) / GRID


__all__ = [
    "ADULT_SIZE",
    "BOUNDS",
    "DATASETS",
    "GRID",
    "MAX_DUPLICATION",
    "adult_distinct",
    "check_dataset",
    "check_m",
    "draw_quantiles",
    "grid_quantiles",
    "make_distinct",
]
