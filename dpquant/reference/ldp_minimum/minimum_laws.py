"""The exact error of the Laplace baseline's minimum and the error rates of Corollaries 1–2
(Fukuchi et al., "Locally Differentially Private Minimum Finding", Sec. 5 and Sec. 6.1).

**The baseline** (Sec. 6.1): every user reports x_i + Lap(0, b), b = 2/ε, and the server outputs
the minimum, unclipped. For data x_i >= x_min and y <= x_min, P(x_i + δ_i <= y) = ½e^{(y − x_i)/b};
with u = e^{(y − x_min)/b} ∈ (0, 1],

    −ln P(Y > y) = G(u) := −Σ_i ln(1 − u·w_i/2) = Σ_{k>=1} (u/2)^k·M_k/k,

w_i = e^{−(x_i − x_min)/b} ∈ (0, 1] and M_k = Σ_i w_i^k (fixed data) or N·E[w^k] (i.i.d. data:
the Beta moment generating function). :class:`LaplaceMinimumLaw` holds the series;
:func:`laplace_mae_exact` integrates E|Y − x_min| and :func:`laplace_error_quantile` inverts the
CDF of the error. Cheap at any N; checked against direct quadrature of
:func:`dpquant.reference.ldp_minimum.laplace_baseline.minimum_cdf`.

**The error rates** (Corollary 1, Eq. (4), Lower-α schedule; Corollary 2, Eq. (5), Unknown-α
schedule): the error of Algorithm 2 decays as (ln^k N/(ε²N))^{1/(2α)} with k = 3 (resp. 6), up to a
constant: :func:`guideline`. ``notes/fukuchi19.md``, "Reproduction of the synthetic study",
compares both with the simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.ldp_minimum.laplace_baseline import laplace_scale
from dpquant.reference.ldp_minimum.schedules import SCHEDULES
from dpquant.reference.validation import (
    check_finite,
    check_int,
    check_positive,
    check_probability,
    check_real_array,
)

LAPLACE_SERIES_TERMS = 64
"""Terms of the series of G (the remainder after K terms is below N·2^{−K}/(K + 1))."""
GUIDELINE_LOG_POWER = {"lower_alpha": 3, "unknown_alpha": 6}
"""The power k of ln N in the rate of Corollary 1 (Lower α) and Corollary 2 (Unknown α)."""


@dataclass(frozen=True)
class LaplaceMinimumLaw:
    """The law of Y = min_i(x_i + Lap(0, b)) below x_min, for data x_i >= x_min (module
    docstring).

    ``coefficients`` holds M_k/(k·2^k), k = 1..K, so that G(u) = Σ_k coefficients[k−1]·u^k;
    ``spread`` is max x_i − x_min (it bounds the part of E|Y − x_min| above x_min).
    """

    n: int
    scale: float  # b = 2/ε
    coefficients: np.ndarray
    spread: float

    def g(self, u: float) -> float:
        """G(u) = −ln P(Y > x_min + b·ln u), 0 <= u <= 1."""
        return float(np.polynomial.polynomial.polyval(u, np.r_[0.0, self.coefficients]))

    def below_probability(self, e: float) -> float:
        """P(Y > x_min − e) = exp(−G(e^{−e/b})) for an error e >= 0."""
        return math.exp(-self.g(math.exp(-e / self.scale)))


def _series_law(n: int, epsilon: float, moments: np.ndarray, spread: float) -> LaplaceMinimumLaw:
    k = np.arange(1, moments.size + 1, dtype=float)
    return LaplaceMinimumLaw(n, laplace_scale(epsilon), moments / (k * 2.0**k), spread)


def laplace_law_fixed(x: Any, x_min: float, epsilon: float) -> LaplaceMinimumLaw:
    """The law of the baseline's minimum on fixed data x >= x_min (M_k = Σ_i w_i^k)."""
    x_min = check_finite(x_min, "x_min")
    b = laplace_scale(epsilon)
    x = check_real_array(x, "x")
    if x.ndim != 1 or x.size == 0 or np.min(x) < x_min:
        raise ParameterError("x", "must be a non-empty 1-D array with every value >= x_min")
    w = np.exp(-(x - x_min) / b)
    moments = np.empty(LAPLACE_SERIES_TERMS)
    wk = np.ones_like(w)
    for k in range(LAPLACE_SERIES_TERMS):
        wk *= w
        moments[k] = wk.sum()
    return _series_law(x.size, epsilon, moments, float(np.max(x) - x_min))


def laplace_law_iid(
    n: int, epsilon: float, alpha: float, beta: float, width: float
) -> LaplaceMinimumLaw:
    """The same for n i.i.d. values x_min + Δ·Beta(α, β) (Δ = ``width``, the data of Sec. 6.1):
    M_k = N·E[e^{−kΔX/b}] = N·₁F₁(α; α + β; −kΔ/b) (Kummer's function)."""
    from scipy import special

    n = check_int(n, "n", minimum=1)
    alpha, beta = check_positive(alpha, "alpha"), check_positive(beta, "beta")
    width = check_positive(width, "width")
    b = laplace_scale(epsilon)
    k = np.arange(1, LAPLACE_SERIES_TERMS + 1, dtype=float)
    moments = n * special.hyp1f1(alpha, alpha + beta, -k * width / b)
    return _series_law(n, epsilon, moments, width)


def laplace_mae_exact(law: LaplaceMinimumLaw) -> tuple[float, float]:
    """E|Y − x_min| and a bound on the error of the value returned.

    E|Y − x_min| = ∫_{−∞}^{x_min} P(Y <= y) dy + ∫_{x_min}^∞ P(Y > y) dy. The first is
    b·∫_{−∞}^0 (1 − exp(−G(e^t))) dt, by adaptive quadrature on [−(ln N + 40), 0] (G(u) <= N·u, so
    the cut tail is below N·e^{t_lo} = e^{−40}). The second is at most
    p₀·(spread + b·(1 + ln(1/(2p₀)))) with p₀ = P(Y > x_min) = e^{−G(1)} (every y > x_min needs all
    x_i + δ_i > y, in particular the largest one); it is not computed but added to the bound, so
    the method needs p₀ tiny (N >= 2^10 in the study gives p₀ < 1e-200); a bound above 1e-9 raises.
    """
    from scipy import integrate

    if not isinstance(law, LaplaceMinimumLaw):
        raise ParameterError("law", "must be a LaplaceMinimumLaw", type(law).__name__)
    b = law.scale
    t_lo = -(math.log(law.n) + 40.0)
    value, err = integrate.quad(
        lambda t: -math.expm1(-law.g(math.exp(t))),
        t_lo,
        0.0,
        epsabs=1e-13,
        epsrel=1e-12,
        limit=500,
    )
    p0 = math.exp(-law.g(1.0))
    above = 0.0 if p0 == 0 else p0 * (law.spread + b * (1.0 + math.log(1.0 / (2.0 * p0))))
    bound = b * (abs(err) + law.n * math.exp(t_lo)) + above
    if not bound <= 1e-9:
        raise ValueError(
            f"the series method needs P(min > x_min) tiny; got a bound {bound:.3g} (N = {law.n})"
        )
    return b * value, bound


def laplace_error_quantile(law: LaplaceMinimumLaw, q: float) -> float:
    """The q-quantile of |Y − x_min| when Y <= x_min (up to p₀): the e solving
    exp(−G(e^{−e/b})) = q, by bracketing (P(|Y − x_min| <= e) is increasing in e)."""
    from scipy import optimize

    if not isinstance(law, LaplaceMinimumLaw):
        raise ParameterError("law", "must be a LaplaceMinimumLaw", type(law).__name__)
    q = check_probability(q, "q", open_left=True, open_right=True)
    hi = law.scale * (math.log(law.n) + 50.0)
    return float(
        optimize.brentq(lambda e: law.below_probability(e) - q, 0.0, hi, xtol=1e-13, rtol=1e-13)
    )


def guideline(n: Any, epsilon: Any, alpha: float, schedule_name: str) -> np.ndarray:
    """(ln^k N/(ε²N))^{1/(2α)}, without the constant: k = 3 for Lower α (Corollary 1, Eq. (4)),
    6 for Unknown α (Corollary 2, Eq. (5))."""
    if schedule_name not in GUIDELINE_LOG_POWER:
        raise ParameterError("schedule", f"must be one of {SCHEDULES}", repr(schedule_name))
    alpha = check_positive(alpha, "alpha")
    n = np.asarray(n, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(n < 2) or np.any(eps <= 0):
        raise ParameterError("n", "must be >= 2 and epsilon > 0")
    k = GUIDELINE_LOG_POWER[schedule_name]
    return (np.log(n) ** k / (eps**2 * n)) ** (1.0 / (2.0 * alpha))


__all__ = [
    "GUIDELINE_LOG_POWER",
    "LAPLACE_SERIES_TERMS",
    "LaplaceMinimumLaw",
    "guideline",
    "laplace_error_quantile",
    "laplace_law_fixed",
    "laplace_law_iid",
    "laplace_mae_exact",
]
