"""The naive baseline of fukuchi19 §6: every user reports x_i + Laplace(0, 2/ε); the server
outputs min_i of the reports (the maximum: max_i).

Each user reports once with sensitivity 2 on [−1, 1], so the report is ε-LDP: the density ratio
is exp(ε|x − x′|/2) <= e^ε, tight at x = ±1 (spec §6). The paper does not clip; the output is
unclipped by default and ``clip=True`` clips the server's estimate to [−1, 1] (post-processing,
spec §5 item 17).

Exact facts used by the tests and the experiments:

* the law of the minimum: P(min > y) = Π_i S(y − x_i) with S the Laplace(0, b) survival function
  (:func:`minimum_cdf`);
* unclipped, min − x_min has the same law for the data x and x + s (any shift s), so the error on
  the fixed data of the experiments does not depend on x_min; E|min − x_min| ≈
  (2/ε)(ln(N/2) + γ_Euler) for N large (spec §4.4).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.ldp_minimum.search import TARGETS, check_target, sorted_unit_data
from reference.primitives.laplace import sample_laplace
from reference.validation import check_epsilon, check_rng, check_size

CHUNK_CELLS = 1 << 22


def laplace_scale(epsilon: float) -> float:
    """b = 2/ε: sensitivity 2 on [−1, 1]."""
    return 2.0 / check_epsilon(epsilon)


def laplace_reports(data: Any, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Every user's report x_i + Laplace(0, 2/ε) (one run)."""
    x = sorted_unit_data(data)
    return x + sample_laplace(0.0, laplace_scale(epsilon), x.size, check_rng(rng))


def sample_laplace_extreme(
    data: Any,
    epsilon: float,
    size: int,
    rng: np.random.Generator,
    *,
    target: str = "min",
    clip: bool = False,
) -> np.ndarray:
    """``size`` runs of the baseline: min (or max) of the N noisy reports; users × runs drawn in
    chunks (exact in law: one Laplace draw per user and run)."""
    x = sorted_unit_data(data)
    target = check_target(target)
    size, rng = check_size(size), check_rng(rng)
    b = laplace_scale(epsilon)
    out = np.empty(size)
    chunk = max(1, CHUNK_CELLS // x.size)
    for start in range(0, size, chunk):
        runs = min(chunk, size - start)
        reports = x[None, :] + rng.laplace(0.0, b, (runs, x.size))
        out[start : start + runs] = reports.min(axis=1) if target == "min" else reports.max(axis=1)
    return np.clip(out, -1.0, 1.0) if clip else out


def minimum_cdf(y: Any, data: Any, epsilon: float) -> np.ndarray:
    """P(min_i (x_i + Lap(0, 2/ε)) <= y) = 1 − Π_i S(y − x_i), vectorised in y (unclipped)."""
    x = sorted_unit_data(data)
    b = laplace_scale(epsilon)
    y = np.atleast_1d(np.asarray(y, dtype=float))
    d = y[:, None] - x[None, :]
    # log S(d) = log(1 − ½e^{d/b}) for d < 0, log(½) − d/b for d >= 0
    log_s = np.where(
        d < 0, np.log1p(-0.5 * np.exp(np.minimum(d, 0.0) / b)), np.log(0.5) - np.maximum(d, 0) / b
    )
    return -np.expm1(log_s.sum(axis=1))


__all__ = [
    "TARGETS",
    "laplace_reports",
    "laplace_scale",
    "minimum_cdf",
    "sample_laplace_extreme",
]
