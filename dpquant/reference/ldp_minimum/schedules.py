"""Parameter schedules of Algorithm 2: the threshold γ of Theorem 2 and the choices of (L, h_N).

With u = ε/L, Theorem 2 sets

    γ = sqrt(4·e^u·(1 + e^u)·h_N / ((e^u − 1)²·N)),

which makes the Lemma 2 tail at distance γ exactly e^{−h_N}:
e_γ = exp(−(e^u − 1)²γ²N / (4(e^u + 1)e^u)) = e^{−h_N} (checked symbolically in
``proofs_checks/test_fukuchi19.py``). It is computed in the stable form
γ = sqrt(4·h_N·(1 + e^{−u}) / (N·expm1(−u)²)) and never clamped: γ > 1 is allowed
(``notes/fukuchi19.md``, decisions).

Schedules (Corollaries 1 and 2; the experiments' constants are those of Sec. 6.1):

* **Lower α** (Corollary 1 with a known lower bound α₀ on α; the experiments use α₀ = 1):
  L = ⌈log₂(N)/(2α₀)⌉, h_N = ln(N)/(2α₀);
* **Unknown α** (Corollary 2, the experiments' constants): L = ⌈log₂²(N)/(2·log₂ 1000)⌉,
  h_N = ln²(N)/(2·ln 1000).

``extra_log_levels=True`` adds ln L to h_N: the repair of Corollary 1 that the corrected Lemma 1
asks for (``notes/fukuchi19.md``, errata: Theorem 2 / Cor. 1; off by default, so that the
paper's experiments are reproduced).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_choice,
    check_flag,
    check_int,
    check_positive,
    check_real,
)

MAX_LEVELS = 52  # every τ and every output is a dyadic float, exact for L <= 52
SCHEDULES = ("lower_alpha", "unknown_alpha")
MAX_USERS = 10**9
"""The largest N the round rules, samplers and float laws accept (the float law's window of
12·sqrt(N) terms, and the int64 counts, stay small); the analytic bounds take any N that fits a
float."""


def check_users(n: Any, name: str = "n", *, minimum: int = 1, maximum: int = MAX_USERS) -> int:
    """N, a number of users: an integer in [``minimum``, ``maximum``]."""
    value = check_int(n, name, minimum=minimum)
    if value > maximum:
        got = str(value) if value < 10**20 else f"an integer of {len(str(value))} digits"
        raise ParameterError(name, f"must be an integer in [{minimum}, {maximum:.4g}]", got)
    return value


def check_count(n: Any, name: str = "n", *, minimum: int = 1) -> int:
    """An integer >= ``minimum`` that fits a float (the analytic bounds' N, k)."""
    return check_users(n, name, minimum=minimum, maximum=int(MAX_FLOAT))


def check_levels(levels: Any, name: str = "levels") -> int:
    """L, the number of rounds: an integer in [1, 52] (τ and the outputs stay exact floats)."""
    value = check_int(levels, name, minimum=1)
    if value > MAX_LEVELS:
        raise ParameterError(name, f"must be an integer in [1, {MAX_LEVELS}]", value)
    return value


def check_epsilon_or_inf(epsilon: Any, name: str = "epsilon") -> float:
    """ε > 0, or +inf for the noiseless test mode (p = c = 1)."""
    value = check_real(epsilon, name)
    if not value > 0:
        raise ParameterError(name, "must be a number > 0 (inf allowed)", repr(value))
    return value


def _round_budget(epsilon: Any, levels: Any, n: Any) -> tuple[float, int, int]:
    """(ε, L, N) after checking ε > 0 finite, L in [1, 52] and N >= 1 (fitting a float)."""
    epsilon = check_positive(epsilon, "epsilon")
    return epsilon, check_levels(levels), check_count(n, "n")


_MIN_NORMAL = 2.2250738585072014e-308


def theorem_2_gamma(epsilon: float, levels: int, n: int, h_n: float) -> float:
    """γ of Theorem 2 for per-round budget u = ε/L, N users and h_N (float, stable form).

    Where a float intermediate would underflow or overflow (ε/L tiny, h_N huge) the same form
    is evaluated at the working precision and rounded once; a γ that does not fit a float is
    refused naming the parameters."""
    epsilon, levels, n = _round_budget(epsilon, levels, n)
    h_n = check_positive(h_n, "h_n")
    u = epsilon / levels
    den = n * math.expm1(-u) ** 2
    num = 4.0 * h_n * (1.0 + math.exp(-u))
    if den >= _MIN_NORMAL and math.isfinite(num) and math.isfinite(num / den):
        return math.sqrt(num / den)
    with workdps():
        uu = to_mpf(epsilon) / levels
        g = mpmath.sqrt(4 * to_mpf(h_n) * (1 + mpmath.exp(-uu)) / (n * mpmath.expm1(-uu) ** 2))
        gamma = float(g) if g <= MAX_FLOAT else math.inf
    if not 0.0 < gamma < math.inf:
        raise ValueError(
            f"epsilon, levels, n and h_n give a threshold γ of Theorem 2 that does not fit a "
            f"float (ε/L = {u!r}, h_N = {h_n!r}, N = {n:.4g})"
        )
    return gamma


def theorem_2_gamma_mp(epsilon: Any, levels: int, n: int, h_n: Any) -> mpmath.mpf:
    """The same γ at the working precision (the printed form, with e^u − 1 as expm1(u))."""
    epsilon, levels, n = _round_budget(epsilon, levels, n)
    h_n = check_positive(h_n, "h_n")
    with workdps():
        u = to_mpf(epsilon) / levels
        a = mpmath.exp(u)
        return mpmath.sqrt(4 * a * (1 + a) * to_mpf(h_n) / (mpmath.expm1(u) ** 2 * n))


def e_gamma(epsilon: float, levels: int, n: int, gamma: float) -> float:
    """e_γ = exp(−(e^u − 1)²γ²N / (4(e^u + 1)e^u)), u = ε/L (the Lemma 2 tail at distance γ).

    (e^u − 1)²/(e^u(e^u + 1)) = expm1(−u)²/(1 + e^{−u}); evaluated at the working precision
    where a float intermediate would underflow or overflow (0.0 when e_γ is below the smallest
    float)."""
    epsilon, levels, n = _round_budget(epsilon, levels, n)
    gamma = check_positive(gamma, "gamma")
    u = epsilon / levels
    sq = math.expm1(-u) ** 2
    with np.errstate(over="ignore", invalid="ignore"):
        exponent = float(np.float64(sq) * np.float64(gamma) ** 2 * n)
    if sq >= _MIN_NORMAL and math.isfinite(exponent):
        return math.exp(-exponent / (4.0 * (1.0 + math.exp(-u))))
    with workdps():
        uu, g = to_mpf(epsilon) / levels, to_mpf(gamma)
        return float(mpmath.exp(-(mpmath.expm1(-uu) ** 2) * g**2 * n / (4 * (1 + mpmath.exp(-uu)))))


def log2_n(n: int) -> float:
    """log₂ N, exact for powers of two (bit length), correctly rounded otherwise."""
    n = check_count(n, "n")
    if n & (n - 1) == 0:
        return float(n.bit_length() - 1)
    return math.log2(n)


@dataclass(frozen=True)
class Schedule:
    """One configuration of Algorithm 2 for N users and budget ε."""

    name: str
    n: int
    epsilon: float
    levels: int
    h_n: float
    gamma: float


def _schedule_levels(value: float, what: str) -> int:
    """⌈value⌉ (at least 1), refused naming ``what`` when it exceeds :data:`MAX_LEVELS`."""
    if not value <= MAX_LEVELS:  # also catches inf
        raise ValueError(
            f"{what} give L = ⌈{value:.4g}⌉ rounds, more than the {MAX_LEVELS} the search supports"
        )
    return max(1, math.ceil(value))


def lower_alpha_levels(n: int, alpha0: float = 1.0) -> int:
    """L = ⌈log₂(N)/(2α₀)⌉ (at least 1, at most 52: else ValueError naming n and alpha0)."""
    alpha0 = check_positive(alpha0, "alpha0")
    return _schedule_levels(log2_n(n) / (2.0 * alpha0), "n and alpha0")


def unknown_alpha_levels(n: int, scale: int = 1000) -> int:
    """L = ⌈log₂²(N)/(2·log₂ scale)⌉ (at least 1, at most 52); the experiments use scale = 1000."""
    scale = check_count(scale, "scale", minimum=2)
    return _schedule_levels(log2_n(n) ** 2 / (2.0 * math.log2(scale)), "n and scale")


def schedule(
    name: str,
    n: int,
    epsilon: float,
    *,
    alpha0: float = 1.0,
    scale: int = 1000,
    extra_log_levels: bool = False,
) -> Schedule:
    """The Lower-α (``"lower_alpha"``, Cor. 1 with α₀) or Unknown-α (``"unknown_alpha"``, Cor. 2)
    schedule for N users and budget ε, with γ from Theorem 2.

    N = 1 gives h_N = 0, which Theorem 2's γ cannot use: N must be at least 2.
    """
    check_choice(name, "schedule name", SCHEDULES)
    n = check_users(n, "n", minimum=2)
    epsilon = check_positive(epsilon, "epsilon")
    extra_log_levels = check_flag(extra_log_levels, "extra_log_levels")
    if name == "lower_alpha":
        levels = lower_alpha_levels(n, alpha0)
        h_n = math.log(n) / (2.0 * check_positive(alpha0, "alpha0"))
        if not h_n > 0:
            raise ParameterError(
                "alpha0",
                "is too large: h_N = ln(N)/(2α₀) underflows to 0",
                repr(alpha0),
            )
    else:
        levels = unknown_alpha_levels(n, scale)
        h_n = math.log(n) ** 2 / (2.0 * math.log(check_count(scale, "scale", minimum=2)))
    if extra_log_levels:
        h_n += math.log(levels)
    gamma = theorem_2_gamma(epsilon, levels, n, h_n)
    return Schedule(name, n, epsilon, levels, h_n, gamma)


__all__ = [
    "MAX_LEVELS",
    "SCHEDULES",
    "Schedule",
    "MAX_USERS",
    "check_count",
    "check_epsilon_or_inf",
    "check_levels",
    "check_users",
    "e_gamma",
    "log2_n",
    "lower_alpha_levels",
    "schedule",
    "theorem_2_gamma",
    "theorem_2_gamma_mp",
    "unknown_alpha_levels",
]
