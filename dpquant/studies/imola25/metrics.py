"""The metric of imola25's experiments and its confidence intervals (Sec. 2 and Sec. 6).

rank_X(z) = #{x < z} (``searchsorted(x, z, "left")``); per run the max (Err_X(Q, Z), Sec. 2) and
the mean (the authors' second metric) of |rank_X(z_i) − ⌊q_i·n⌋| over the m quantiles; per cell
the mean over runs of each, with a 95% percentile bootstrap CI (2000 resamples, seeded).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles import check_int_array
from dpquant.reference.validation import check_data, check_int, check_probability, check_rng

BOOTSTRAP_RESAMPLES = 2000
CI_LEVEL = 0.95
MAX_BOOTSTRAP_CELLS = 10**8  # resamples × values of one bootstrap


def rank_errors(x_sorted: np.ndarray, z: Any, ranks: Any) -> tuple[float, float]:
    """(max, mean) of |rank_X(z_i) − r_i| with rank_X(z) = #{x < z} (Sec. 2: Err_X(Q, Z) is the
    max; the mean is the authors' second metric)."""
    x_sorted = check_data(x_sorted, "x_sorted", allow_empty=True)
    if np.any(x_sorted[1:] < x_sorted[:-1]):
        raise ParameterError("x_sorted", "must be sorted in non-decreasing order")
    z = check_data(z, "z")
    r = check_int_array(ranks, "ranks")
    if z.shape != r.shape or z.ndim != 1 or z.size == 0:
        raise ValueError(f"z and ranks must be 1-D of the same length, got {z.shape}, {r.shape}")
    err = np.abs(np.searchsorted(x_sorted, z, side="left") - r)
    return float(err.max()), float(err.mean())


def bootstrap_mean_ci(
    values: Any,
    rng: np.random.Generator,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = CI_LEVEL,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean (the paper's 95% bootstrap CIs, Figure 1)."""
    v = check_data(values, "values")
    rng = check_rng(rng)
    resamples = check_int(resamples, "resamples", minimum=1)
    if resamples * v.size > MAX_BOOTSTRAP_CELLS:
        raise ValueError(
            f"resamples × len(values) must be at most {MAX_BOOTSTRAP_CELLS}, got "
            f"{resamples}·{v.size}"
        )
    level = check_probability(level, "level", open_left=True, open_right=True)
    with np.errstate(over="ignore", invalid="ignore"):
        means = v[rng.integers(0, v.size, size=(resamples, v.size))].mean(axis=1)
    if not np.isfinite(means).all():
        raise ParameterError("values", "are too large: their mean overflows a float64")
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


__all__ = ["BOOTSTRAP_RESAMPLES", "CI_LEVEL", "bootstrap_mean_ci", "rank_errors"]
