"""The naive baseline of fukuchi19 §6: every user reports x_i + Laplace(0, 2/ε); the server
outputs min_i of the reports (the maximum: max_i).

Two report noises (spec §2.2, and a floating-point repair):

* ``"continuous"`` — the paper's x + Laplace(0, 2/ε) in floats. Mathematically ε-LDP, but the float
  sum x + Y is not: its low mantissa bits depend on x (Mironov 2012). For x = 1 no output in
  (−2, −1) has an odd last bit; for x = −1 about 35 % do, so the realised loss is infinite, and the
  auditor finds it (``tests/test_fukuchi19_audit.py``). Used for the error study, where only the
  law of the error matters (:func:`sample_laplace_extreme`).
* ``"grid"`` (the default of the mechanisms) — the value is rounded to the grid Λ = 2^−g
  (i = round(x/Λ) ∈ [−1/Λ, 1/Λ]), the report is Λ·clamp(i + D, −M, M) with D an exact discrete
  Laplace of scale t >= 2/(εΛ) (2/(εΛ) rounded up to a multiple of 2^−16; the CKS20 sampler on
  rationals, no floating point, vectorised) and
  M = ⌈(1 + 20·(2/ε))/Λ⌉. |i − i′| <= 2/Λ gives a likelihood ratio <= exp((2/Λ)/t) = e^ε; the
  clamp is a post-processing; Λ·K is an exact float. So the realised report is exactly ε-LDP, with
  a finite exact law (:func:`grid_report_law`). The rounding moves x by at most Λ/2.

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

import math
from fractions import Fraction
from typing import Any

import numpy as np

from reference.distributions import DiscreteLaw
from reference.ldp_minimum.search import TARGETS, check_target, sorted_unit_data
from reference.primitives.laplace import (
    DiscreteLaplaceLaw,
    sample_discrete_laplace_exact,
    sample_laplace,
)
from reference.validation import check_epsilon, check_rng, check_size

CHUNK_CELLS = 1 << 22
NOISES = ("grid", "continuous")
GRID = 2.0**-4  # default grid spacing on [−1, 1]
CLAMP_SCALES = 20  # grid reports are clamped to [−1 − 20b, 1 + 20b], b = 2/ε


def laplace_scale(epsilon: float) -> float:
    """b = 2/ε: sensitivity 2 on [−1, 1]."""
    return 2.0 / check_epsilon(epsilon)


def check_noise(noise: Any) -> str:
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {noise!r}")
    return noise


def check_grid(grid: Any) -> float:
    """Λ = 2^−g for an integer g >= 0 (so 1/Λ is an integer and Λ·K an exact float)."""
    value = float(grid) if isinstance(grid, int | float) and not isinstance(grid, bool) else None
    if value is None or not 0 < value <= 1 or math.frexp(value)[0] != 0.5:
        raise ValueError(f"grid must be a power of two 2^-g with g >= 0, got {grid!r}")
    return value


def grid_noise_scale(epsilon: float, grid: float) -> Fraction:
    """t = 2/(εΛ) rounded up to a multiple of 2^−16 (ε read as its binary value).

    Rounding t up adds noise, so the loss (2/Λ)/t stays <= ε; it keeps t's numerator and
    denominator small enough for the vectorised exact sampler.
    """
    t = Fraction(2) / (Fraction(check_epsilon(epsilon)) * Fraction(check_grid(grid)))
    return Fraction(math.ceil(t * 2**16), 2**16)


def grid_clamp(epsilon: float, grid: float) -> int:
    """M = ⌈(1 + 20·(2/ε))/Λ⌉: reports are clamped to Λ·[−M, M]."""
    return math.ceil((1.0 + CLAMP_SCALES * laplace_scale(epsilon)) / check_grid(grid))


def grid_index(value: float, grid: float) -> int:
    """i = round(x/Λ) (half to even) for one value x ∈ [−1, 1]."""
    return int(np.rint(value / check_grid(grid)))


def sample_grid_reports(
    value: float, epsilon: float, size: int, rng: np.random.Generator, grid: float = GRID
) -> np.ndarray:
    """``size`` grid reports Λ·clamp(round(x/Λ) + D, −M, M) of one value x ∈ [−1, 1] (exact
    sampler: one CKS20 discrete Laplace draw each)."""
    i, m = grid_index(value, grid), grid_clamp(epsilon, grid)
    d = sample_discrete_laplace_exact(grid_noise_scale(epsilon, grid), size, rng)
    return np.clip(i + d.astype(np.int64), -m, m) * grid


def grid_report_law(value: float, epsilon: float, grid: float = GRID) -> DiscreteLaw:
    """The exact law of one grid report of x ∈ [−1, 1] (atoms Λ·k, k = −M..M)."""
    m = grid_clamp(epsilon, grid)
    law = DiscreteLaplaceLaw(grid_noise_scale(epsilon, grid), grid_index(value, grid)).clamped(
        -m, m
    )
    return DiscreteLaw([k * grid for k in law.support], list(law.logp))


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
    noise: str = "continuous",
    grid: float = GRID,
) -> np.ndarray:
    """``size`` runs of the baseline: min (or max) of the N noisy reports.

    ``noise="continuous"`` (the paper's, the error study's default): users × runs numpy Laplace
    draws in chunks, exact in law for the real-valued mechanism but not float-safe (module
    docstring). ``noise="grid"``: the exactly ε-LDP grid reports (≈ 1 µs per report).
    """
    x = sorted_unit_data(data)
    target, noise = check_target(target), check_noise(noise)
    size, rng = check_size(size), check_rng(rng)
    if noise == "grid":
        reports = np.stack([sample_grid_reports(v, epsilon, size, rng, grid) for v in x], axis=1)
        out = reports.min(axis=1) if target == "min" else reports.max(axis=1)
        return np.clip(out, -1.0, 1.0) if clip else out
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
    "CLAMP_SCALES",
    "GRID",
    "NOISES",
    "TARGETS",
    "check_grid",
    "check_noise",
    "grid_clamp",
    "grid_index",
    "grid_noise_scale",
    "grid_report_law",
    "sample_grid_reports",
    "laplace_reports",
    "laplace_scale",
    "minimum_cdf",
    "sample_laplace_extreme",
]
