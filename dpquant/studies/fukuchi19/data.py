"""The synthetic data of fukuchi19's experiments (Sec. 6.1 of Fukuchi et al., "Locally
Differentially Private Minimum Finding"; decisions in ``notes/fukuchi19.md``, "Reproduction of the
synthetic study").

F is the CDF of x_min + Δ·X with X ~ Beta(α, β); the grid is Δ ∈ {0.3, 0.6, 0.9} ×
α ∈ {0.5, 0.9, 1, 2, 4} × β ∈ {1, 2}; x_min runs over {k·0.2·(2 − Δ) − 1 : k = 0..5}.

* **Fixed data** (our reading of Sec. 6.1): x_(i) = x_min + Δ·BetaPPF((i − 1)/(N − 1); α, β),
  i = 1..N, clipped to [−1, 1] against float rounding (N >= 2; BetaPPF(0) = 0, so x_(1) = x_min).
* **i.i.d. data**: x_i ~ F independently, never materialised for Algorithm 2 (the lazy sampler
  needs the CDF only, :func:`beta_cdf`); drawn in full for the Laplace baseline
  (:func:`iid_data`).

Only the PPF grid depends on (N, α, β); the shift and the scale are applied per (Δ, x_min), so
:func:`beta_quantile_grid` is computed once per (N, α, β).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import special

from dpquant.errors import ParameterError
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_finite,
    check_int,
    check_positive,
    check_real_array,
    check_rng,
)

DELTAS: tuple[float, ...] = (0.3, 0.6, 0.9)
ALPHAS: tuple[float, ...] = (0.5, 0.9, 1.0, 2.0, 4.0)
BETAS: tuple[float, ...] = (1.0, 2.0)
X_MIN_STEPS = 6  # k = 0..5


@dataclass(frozen=True)
class Setting:
    """One Beta family of Sec. 6.1: X ~ Beta(α, β) scaled to width Δ."""

    alpha: float
    beta: float
    delta: float

    def __post_init__(self) -> None:
        check_setting(self.alpha, self.beta, self.delta)

    @property
    def name(self) -> str:
        """``"a1_b1_d0.3"`` for α = 1, β = 1, Δ = 0.3."""
        return f"a{self.alpha:g}_b{self.beta:g}_d{self.delta:g}"

    @property
    def is_main(self) -> bool:
        """The setting of the main text (Fig. 1 and 2): α = β = 1 (uniform), Δ = 0.3."""
        return self == MAIN_SETTING


def check_setting(alpha: Any, beta: Any, delta: Any) -> tuple[float, float, float]:
    """α > 0, β > 0 and a width Δ in (0, 2] (the support [x_min, x_min + Δ] must fit in [−1, 1])."""
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    delta = check_positive(delta, "delta")
    if delta > 2.0:
        raise ParameterError("delta", "must lie in (0, 2]", repr(delta))
    return alpha, beta, delta


MAIN_SETTING = Setting(1.0, 1.0, 0.3)


def _check_setting_object(setting: Any) -> Setting:
    if not isinstance(setting, Setting):
        raise ParameterError("setting", "must be a Setting", type(setting).__name__)
    return setting


def all_settings() -> tuple[Setting, ...]:
    """The 30 settings of Sec. 6.1, grouped by (α, β) (they share the PPF grid), Δ innermost."""
    return tuple(Setting(a, b, d) for a in ALPHAS for b in BETAS for d in DELTAS)


def x_min_grid(delta: float) -> tuple[float, ...]:
    """{k·0.2·(2 − Δ) − 1 : k = 0..5} (Sec. 6.1), each value correctly rounded from the exact
    rational (Δ read as its shortest decimal, e.g. 0.3 = 3/10): Δ = 0.3 gives −1, −0.66, −0.32,
    0.02, 0.36, 0.7, so x_min + Δ <= 1."""
    _, _, delta = check_setting(1.0, 1.0, delta)
    d = Fraction(repr(delta))
    return tuple(float(k * Fraction(1, 5) * (2 - d) - 1) for k in range(X_MIN_STEPS))


def beta_quantile_grid(n: int, alpha: float, beta: float) -> np.ndarray:
    """BetaPPF((i − 1)/(N − 1); α, β), i = 1..N (the fixed data; N >= 2), increasing, with
    the end points exactly 0 and 1."""
    n = check_int(n, "n", minimum=2, maximum=MAX_DRAWS)
    alpha, beta, _ = check_setting(alpha, beta, 1.0)
    q = np.arange(n, dtype=float) / (n - 1)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # scipy's "root finding gave up"
            g = special.betaincinv(alpha, beta, q)
    except (OverflowError, FloatingPointError, ArithmeticError, RuntimeWarning):
        g = np.full(n, math.nan)
    if not np.all(np.isfinite(g[1:-1])):
        raise ValueError(
            f"alpha and beta: scipy's Beta quantile function is not finite at ({alpha!r}, {beta!r})"
        )
    g[0], g[-1] = 0.0, 1.0
    return np.maximum.accumulate(np.clip(g, 0.0, 1.0))


def fixed_data(grid: np.ndarray, delta: float, x_min: float) -> np.ndarray:
    """x_(i) = x_min + Δ·grid_i, clipped to [−1, 1] (against float rounding)."""
    delta = check_positive(delta, "delta")
    x_min = check_finite(x_min, "x_min")
    if not -1.0 <= x_min <= 1.0:
        raise ParameterError("x_min", "must lie in [-1, 1]", repr(x_min))
    grid = check_real_array(grid, "grid")
    with np.errstate(over="ignore", invalid="ignore"):
        out = x_min + delta * grid
    if not np.all(np.isfinite(out)):
        raise ValueError("grid and delta: x_min + Δ·grid must be finite")
    return np.clip(out, -1.0, 1.0)


def beta_cdf(setting: Setting, x_min: float) -> Callable[[np.ndarray], np.ndarray]:
    """F(y) = I_{(y − x_min)/Δ}(α, β), vectorised, with F(y) = 1 for y >= 1 (the data clipped to
    [−1, 1]; this only matters when x_min + Δ exceeds 1 by a rounding error)."""
    setting = _check_setting_object(setting)
    x_min = check_finite(x_min, "x_min")
    if not -1.0 <= x_min <= 1.0:
        raise ParameterError("x_min", "must lie in [-1, 1]", repr(x_min))
    a, b, d = setting.alpha, setting.beta, setting.delta

    def cdf(y: np.ndarray) -> np.ndarray:
        y = check_real_array(y, "y", allow_inf=True)
        z = np.clip((y - x_min) / d, 0.0, 1.0)
        return np.where(y >= 1.0, 1.0, special.betainc(a, b, z))

    return cdf


def iid_data(
    setting: Setting, x_min: float, shape: tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """i.i.d. draws x_min + Δ·Beta(α, β) of the given shape (at most MAX_DRAWS values), clipped
    to [−1, 1]."""
    setting = _check_setting_object(setting)
    rng = check_rng(rng)
    dims = (
        (shape,) if isinstance(shape, int | np.integer) and not isinstance(shape, bool) else shape
    )
    if not isinstance(dims, tuple | list):
        raise ParameterError("shape", "must be an int or a tuple of ints", f"{shape!r:.80}")
    dims = tuple(check_int(v, "shape", minimum=0, maximum=MAX_DRAWS) for v in dims)
    if math.prod(dims) > MAX_DRAWS:
        raise ParameterError("shape", f"must hold at most {MAX_DRAWS} values", dims)
    shape = dims
    x = rng.beta(setting.alpha, setting.beta, shape)
    return fixed_data(x, setting.delta, x_min)


__all__ = [
    "ALPHAS",
    "BETAS",
    "DELTAS",
    "MAIN_SETTING",
    "X_MIN_STEPS",
    "Setting",
    "all_settings",
    "beta_cdf",
    "beta_quantile_grid",
    "check_setting",
    "fixed_data",
    "iid_data",
    "x_min_grid",
]
