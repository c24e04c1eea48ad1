"""The naive baseline of fukuchi19 (Sec. 6.1): every user reports x_i + Laplace(0, 2/ε); the server
outputs min_i of the reports (the maximum: max_i).

Two report noises (the paper's, and a floating-point repair; ``notes/fukuchi19.md``, decisions):

* ``"continuous"`` — the paper's x + Laplace(0, 2/ε) in floats. Mathematically ε-LDP, but the float
  sum x + Y is not: its low mantissa bits depend on x (Mironov 2012). For x = 1 no output in
  (−2, −1) has an odd last bit; for x = −1 about 35 % do, so the realised loss is infinite, and the
  auditor finds it (``tests/reference/ldp_minimum/test_fukuchi19_audit.py``). Used for the error study, where only the
  law of the error matters (:func:`sample_laplace_extreme`).
* ``"grid"`` (the default of the mechanisms) — the value is rounded to the grid Λ = 2^−g
  (i = round(x/Λ) ∈ [−1/Λ, 1/Λ]), the report is Λ·clamp(i + D, −M, M) with D an exact discrete
  Laplace of scale t >= 2/(εΛ) (2/(εΛ) rounded up to a multiple of 2^−16; the CKS20 sampler on
  rationals, no floating point, vectorised) and
  M = ⌈(1 + 20·(2/ε))/Λ⌉. |i − i′| <= 2/Λ gives a likelihood ratio <= exp((2/Λ)/t) = e^ε; the
  clamp is a post-processing; Λ·K is an exact float. So the realised report is exactly ε-LDP, with
  a finite exact law (:func:`grid_report_law`). The rounding moves x by at most Λ/2.

Each user reports once with sensitivity 2 on [−1, 1], so the report is ε-LDP: the density ratio
is exp(ε|x − x′|/2) <= e^ε, tight at x = ±1 (P(x̂ <= −1) = ½ against ½e^{−ε}). The paper does
not clip; the output is unclipped by default and ``clip=True`` clips the server's estimate to
[−1, 1] (post-processing; ``notes/fukuchi19.md``, decisions).

Exact facts used by the tests and the experiments:

* the law of the minimum: P(min > y) = Π_i S(y − x_i) with S the Laplace(0, b) survival function
  (:func:`minimum_cdf`);
* unclipped, min − x_min has the same law for the data x and x + s (any shift s), so the error on
  the fixed data of the experiments does not depend on x_min; E|min − x_min| ≈
  (2/ε)(ln(N/2) + γ_Euler) for N large (a Laplace noise Y of scale b = 2/ε has
  P(Y < −y) = ½e^{−y/b}, so the minimum of N of them is −b times a Gumbel variable located at
  ln(N/2), of mean ln(N/2) + γ_Euler, in the limit).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, cast

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.ldp_minimum.search import TARGETS, check_target, sorted_unit_data
from dpquant.reference.primitives import (
    DiscreteLaplaceLaw,
    sample_discrete_laplace_exact,
    sample_laplace,
)
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_choice,
    check_epsilon,
    check_finite,
    check_flag,
    check_real_array,
    check_rng,
    check_size,
)

CHUNK_CELLS = 1 << 22
NOISES = ("grid", "continuous")
GRID = 2.0**-4  # default grid spacing on [−1, 1]
CLAMP_SCALES = 20  # grid reports are clamped to [−1 − 20b, 1 + 20b], b = 2/ε
MAX_GRID_BITS = 40  # Λ >= 2^-40
MAX_GRID_CLAMP = 2**53
"""The largest clamp M of the grid report (Λ·K is an exact float for |K| <= 2^53); a smaller
ε or a finer grid is refused."""
MAX_LAW_CLAMP = 30_000
"""The largest M for which :func:`grid_report_law` builds the exact law (2M + 1 atoms, about
6 s); the sampler has no such limit."""
MAX_SCALE = MAX_FLOAT / 64
"""The largest continuous noise scale b (so that x + 40·b, beyond any float Laplace draw,
stays finite)."""
REPORT_DRAWS = {"continuous": 2 * 10**7, "grid": 2 * 10**6, "grid_slow": 2 * 10**4}
"""Reports one call may draw (about 1.5 s; draw more in several calls): numpy Laplace; the
vectorised exact discrete Laplace (scale numerator and denominator <= 2^31); its
one-draw-at-a-time path otherwise."""


def laplace_scale(epsilon: float) -> float:
    """b = 2/ε: sensitivity 2 on [−1, 1] (at most :data:`MAX_SCALE`)."""
    b = 2.0 / check_epsilon(epsilon)
    if not b <= MAX_SCALE:
        raise ParameterError(
            "epsilon",
            f"must be at least {2 / MAX_SCALE:.3g} (the noise scale 2/ε must fit a float with "
            "room for the draws)",
            repr(epsilon),
        )
    return b


def check_noise(noise: Any) -> str:
    return check_choice(noise, "noise", NOISES)


def check_grid(grid: Any) -> float:
    """Λ = 2^−g for an integer 0 <= g <= 40 (so 1/Λ is an integer and Λ·K an exact float)."""
    try:
        value = check_finite(grid, "grid")
    except ValueError:
        value = None
    if (
        value is None
        or not 2.0**-MAX_GRID_BITS <= value <= 1
        or math.frexp(value)[0] != 0.5
    ):
        raise ParameterError(
            "grid",
            f"must be a power of two 2^-g with 0 <= g <= {MAX_GRID_BITS}",
            f"{grid!r:.80}",
        )
    return value


def _grid_vectorised(epsilon: float, grid: float) -> bool:
    t = grid_noise_scale(epsilon, grid)
    return t.numerator <= 2**31 and t.denominator <= 2**31


def report_draw_limit(epsilon: float, grid: float, noise: str) -> int:
    """The most single reports one call may draw (:data:`REPORT_DRAWS`, about 10 s)."""
    if check_noise(noise) == "continuous":
        return REPORT_DRAWS["continuous"]
    return REPORT_DRAWS["grid" if _grid_vectorised(epsilon, grid) else "grid_slow"]


def grid_noise_scale(epsilon: float, grid: float) -> Fraction:
    """t = 2/(εΛ) rounded up to a multiple of 2^−16 (ε read as its binary value).

    Rounding t up adds noise, so the loss (2/Λ)/t stays <= ε; it keeps t's numerator and
    denominator small enough for the vectorised exact sampler.
    """
    t = Fraction(2) / (Fraction(check_epsilon(epsilon)) * Fraction(check_grid(grid)))
    return Fraction(math.ceil(t * 2**16), 2**16)


def grid_clamp(epsilon: float, grid: float) -> int:
    """M = ⌈(1 + 20·(2/ε))/Λ⌉: reports are clamped to Λ·[−M, M] (M <= 2^53, else ValueError
    naming ε and the grid)."""
    value = (1.0 + CLAMP_SCALES * laplace_scale(epsilon)) / check_grid(grid)
    if not value <= MAX_GRID_CLAMP:
        raise ValueError(
            f"epsilon and grid give a clamp M = ⌈(1 + 40/ε)/Λ⌉ = {value:.4g} above 2^53 (grid "
            f"reports must be exact floats): use a larger epsilon or a coarser grid"
        )
    return math.ceil(value)


def _check_unit_value(value: Any, name: str = "value") -> float:
    x = check_finite(value, name)
    if not -1.0 <= x <= 1.0:
        raise ParameterError(name, "must lie in [-1, 1]", repr(x))
    return x


def grid_index(value: float, grid: float) -> int:
    """i = round(x/Λ) (half to even) for one value x ∈ [−1, 1]."""
    return int(np.rint(_check_unit_value(value) / check_grid(grid)))


def sample_grid_reports(
    value: float, epsilon: float, size: int, rng: np.random.Generator, grid: float = GRID
) -> np.ndarray:
    """``size`` grid reports Λ·clamp(round(x/Λ) + D, −M, M) of one value x ∈ [−1, 1] (exact
    sampler: one CKS20 discrete Laplace draw each)."""
    i, m = grid_index(value, grid), grid_clamp(epsilon, grid)
    size = check_size(size)
    limit = report_draw_limit(epsilon, grid, "grid")
    if size > limit:
        raise ParameterError(
            "size",
            f"must be at most {limit} grid reports per call for this epsilon and grid (about 10 s)",
            f"{size}: draw in several calls",
        )
    d = sample_discrete_laplace_exact(grid_noise_scale(epsilon, grid), size, rng)
    return np.clip(i + d.astype(np.int64), -m, m) * grid


def grid_report_law(value: float, epsilon: float, grid: float = GRID) -> DiscreteLaw:
    """The exact law of one grid report of x ∈ [−1, 1] (atoms Λ·k, k = −M..M; M <=
    :data:`MAX_LAW_CLAMP`, else ValueError naming ε and the grid)."""
    m = grid_clamp(epsilon, grid)
    if m > MAX_LAW_CLAMP:
        raise ValueError(
            f"epsilon and grid give {2 * m + 1} atoms (M = {m}); the exact law is built for "
            f"M <= {MAX_LAW_CLAMP}: use a larger epsilon or a coarser grid"
        )
    law = DiscreteLaplaceLaw(grid_noise_scale(epsilon, grid), grid_index(value, grid)).clamped(
        -m, m
    )
    return DiscreteLaw([cast(int, k) * grid for k in law.support], list(law.logp))


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
    clip = check_flag(clip, "clip")
    size, rng = check_size(size), check_rng(rng)
    b = laplace_scale(epsilon)
    if noise == "grid":
        grid = check_grid(grid)
        m = grid_clamp(epsilon, grid)
        t = grid_noise_scale(epsilon, grid)
    limit = max(1, report_draw_limit(epsilon, grid, noise) // x.size)
    if size > limit:
        raise ParameterError(
            "size",
            f"must be at most {limit} for N = {x.size} users ({noise} noise: size·N reports per "
            "call, about 10 s)",
            f"{size}: draw in several calls",
        )
    out = np.empty(size)
    chunk = max(1, CHUNK_CELLS // x.size)
    for start in range(0, size, chunk):
        runs = min(chunk, size - start)
        if noise == "grid":
            idx = np.rint(x / grid).astype(np.int64)
            d = sample_discrete_laplace_exact(t, runs * x.size, rng).astype(np.int64)
            reports = np.clip(idx[None, :] + d.reshape(runs, x.size), -m, m) * grid
        else:
            reports = x[None, :] + rng.laplace(0.0, b, (runs, x.size))
        out[start : start + runs] = reports.min(axis=1) if target == "min" else reports.max(axis=1)
    return np.clip(out, -1.0, 1.0) if clip else out


def minimum_cdf(y: Any, data: Any, epsilon: float) -> np.ndarray:
    """P(min_i (x_i + Lap(0, 2/ε)) <= y) = 1 − Π_i S(y − x_i), vectorised in y (unclipped)."""
    x = sorted_unit_data(data)
    b = laplace_scale(epsilon)
    y = np.atleast_1d(check_real_array(y, "y", allow_inf=True)).ravel()
    if y.size * x.size > 10**8:
        raise ValueError(f"y and data: {y.size} points × {x.size} values exceed 10^8 cells")
    with np.errstate(over="ignore", invalid="ignore"):
        d = y[:, None] - x[None, :]
        # log S(d) = log(1 − ½e^{d/b}) for d < 0, log(½) − d/b for d >= 0
        log_s = np.where(
            d < 0,
            np.log1p(-0.5 * np.exp(np.minimum(d, 0.0) / b)),
            np.log(0.5) - np.maximum(d, 0) / b,
        )
        return -np.expm1(log_s.sum(axis=1))


__all__ = [
    "CLAMP_SCALES",
    "GRID",
    "MAX_GRID_BITS",
    "MAX_GRID_CLAMP",
    "MAX_LAW_CLAMP",
    "MAX_SCALE",
    "NOISES",
    "REPORT_DRAWS",
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
    "report_draw_limit",
    "sample_laplace_extreme",
]
