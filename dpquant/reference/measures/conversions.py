"""Conversions between privacy measures, in mpmath at the working precision.

Every function here returns a bound that a guarantee *implies* (never a guess): the privacy
profile δ(ε) of each kind of claim, the Rényi bound a claim implies at an order, and the
calibrations of the Gaussian mechanism. Where the implied value is an infimum over a free
parameter (the Rényi order of the zCDP and RDP conversions), any value of the parameter gives a
valid bound, so a numerical minimiser returns a bound that is implied, at worst a little looser
than the infimum (``notes/measures.md``, "Conversions").

* Pure ε₀-DP: δ(ε) = max(0, (e^{ε₀} − e^{ε})/(1 + e^{ε₀})), tight (randomised response is the
  worst case: Kairouz, Oh and Viswanath, "The Composition Theorem for Differential Privacy",
  ICML 2015, Theorem 2.1); ε₀-DP implies ε₀²/2-zCDP (Bun and Steinke, "Concentrated Differential
  Privacy", TCC 2016, Proposition 1.4) and (α, ε₀)-RDP (Mironov, "Rényi Differential Privacy",
  CSF 2017, Proposition 3's setting: D_α ≤ D_∞).
* Approximate (ε₀, δ₀): δ(ε) = δ₀ for ε ≥ ε₀ and δ₀ + (1 − δ₀)(e^{ε₀} − e^{ε})/(1 + e^{ε₀}) below
  (the same theorem's four-outcome worst case).
* (ξ, ρ)-zCDP: D_α ≤ ξ + ρα (Bun and Steinke, Definition 1.1), and any Rényi bound τ at order
  α > 1 gives (ε, δ)-DP with δ = e^{(α−1)(τ−ε)}/α · (1 − 1/α)^{α−1} (Canonne, Kamath and
  Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Proposition 12;
  the conversion dp_accounting's RDP accountant uses), minimised over α.
* μ-GDP: δ(ε) = Φ(−ε/μ + μ/2) − e^{ε} Φ(−ε/μ − μ/2), and μ-GDP holds if and only if this holds
  for every ε ≥ 0 (Dong, Roth and Su, "Gaussian Differential Privacy", JRSS B 2022, Corollary
  2.13); μ-GDP implies μ²/2-zCDP (Blackwell's theorem, their Theorem 2.10: the pair is a
  post-processing of N(0, 1), N(μ, 1), whose Rényi divergence is αμ²/2).
* The Gaussian mechanism of ℓ2 sensitivity Δ and scale σ is exactly (Δ/σ)-GDP (Dong, Roth and
  Su, Theorem 2.7), hence (Δ²/2σ²)-zCDP (Bun and Steinke, Proposition 1.6), and the analytic
  Gaussian (Balle and Wang, "Improving the Gaussian Mechanism", ICML 2018, Theorem 8) is the
  smallest σ whose GDP profile meets δ at ε.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import MP_INF, to_mpf, workdps

GOLDEN_STEPS = 200
"""Golden-section steps of the order minimisations (a bracket shrinks by 0.618 a step: 200 steps
locate the minimiser in log(α − 1) to far below the working precision's need)."""

_LOG_ORDER_RANGE = (-40.0, 40.0)  # log(α − 1) searched: α from 1 + e^-40 to 1 + e^40


def _real(
    x: Any,
    name: str,
    *,
    minimum: float | None = None,
    open_min: bool = False,
    allow_inf: bool = False,
) -> mpmath.mpf:
    """``x`` as an mpf, refused unless real, not NaN, finite (unless ``allow_inf``), above
    ``minimum``."""
    value = to_mpf(x, name)
    if mpmath.isnan(value) or (mpmath.isinf(value) and not (allow_inf and value > 0)):
        allowed = "must be a real number" + (" (+inf allowed)" if allow_inf else ", finite")
        raise ParameterError(name, allowed, repr(x))
    if minimum is not None and (value < minimum or (open_min and value == minimum)):
        op = ">" if open_min else ">="
        raise ParameterError(name, f"must be {op} {minimum:g}", repr(x))
    return value


def pure_delta(epsilon0: Any, epsilon: Any) -> mpmath.mpf:
    """δ(ε) implied by pure ε₀-DP (Kairouz, Oh and Viswanath 2015, Theorem 2.1: tight).

    Args:
        epsilon0: The claimed ε₀, finite, > 0.
        epsilon: The ε at which δ is wanted, finite, >= 0.

    Returns:
        max(0, (e^{ε₀} − e^{ε})/(1 + e^{ε₀})).

    Raises:
        ValueError: A parameter out of range (named).
    """
    return approximate_delta(epsilon0, 0.0, epsilon)


def approximate_delta(epsilon0: Any, delta0: Any, epsilon: Any) -> mpmath.mpf:
    """δ(ε) implied by (ε₀, δ₀)-DP (Kairouz, Oh and Viswanath 2015, Theorem 2.1: tight).

    Args:
        epsilon0: The claimed ε₀, finite, > 0.
        delta0: The claimed δ₀ in [0, 1).
        epsilon: The ε at which δ is wanted, finite, >= 0.

    Returns:
        δ₀ for ε >= ε₀, else δ₀ + (1 − δ₀)(e^{ε₀} − e^{ε})/(1 + e^{ε₀}).

    Raises:
        ValueError: A parameter out of range (named).
    """
    with workdps():
        e0 = _real(epsilon0, "epsilon0", minimum=0.0, open_min=True)
        d0 = _real(delta0, "delta0", minimum=0.0)
        if d0 >= 1:
            raise ParameterError("delta0", "must lie in [0, 1)", repr(delta0))
        e = _real(epsilon, "epsilon", minimum=0.0)
        if e >= e0:
            return +d0
        return d0 + (1 - d0) * (mpmath.exp(e0) - mpmath.exp(e)) / (1 + mpmath.exp(e0))


def renyi_to_delta(order: Any, tau: Any, epsilon: Any) -> mpmath.mpf:
    """δ(ε) implied by a Rényi bound D_α <= τ at one order (Canonne, Kamath and Steinke 2020,
    Proposition 12).

    Args:
        order: α, a real > 1 (+inf: τ is a pure-DP ε₀, and the tight pure conversion applies).
        tau: τ, finite, >= 0.
        epsilon: The ε at which δ is wanted, finite, >= 0.

    Returns:
        min(1, e^{(α−1)(τ−ε)}/α · (1 − 1/α)^{α−1}).

    Raises:
        ValueError: A parameter out of range (named).
    """
    with workdps():
        a = _real(order, "order", minimum=1.0, open_min=True, allow_inf=True)
        t = _real(tau, "tau", minimum=0.0)
        e = _real(epsilon, "epsilon", minimum=0.0)
        if mpmath.isinf(a):
            return mpmath.mpf(0) if t == 0 else pure_delta(t, e)
        log_delta = (a - 1) * (t - e) - mpmath.log(a) + (a - 1) * mpmath.log1p(-1 / a)
        return min(mpmath.mpf(1), mpmath.exp(log_delta))


def _minimise_over_orders(log_delta: Any) -> mpmath.mpf:
    """min over α > 1 of exp(log_delta(α)), by golden section on log(α − 1) (the function is
    unimodal there for the conversions of this module); every α evaluated is a valid bound, so
    the smallest value seen is returned."""
    lo, hi = (mpmath.mpf(v) for v in _LOG_ORDER_RANGE)
    ratio = (mpmath.sqrt(5) - 1) / 2
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = log_delta(1 + mpmath.exp(x1)), log_delta(1 + mpmath.exp(x2))
    best = min(f1, f2)
    for _ in range(GOLDEN_STEPS):
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = log_delta(1 + mpmath.exp(x1))
            best = min(best, f1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = log_delta(1 + mpmath.exp(x2))
            best = min(best, f2)
    return min(mpmath.mpf(1), mpmath.exp(best))


def zcdp_delta(rho: Any, epsilon: Any, xi: Any = 0.0) -> mpmath.mpf:
    """δ(ε) implied by (ξ, ρ)-zCDP: the conversion of :func:`renyi_to_delta` at τ = ξ + ρα,
    minimised over α > 1 (Canonne, Kamath and Steinke 2020, Proposition 12 and Corollary 13).

    Args:
        rho: ρ, finite, > 0.
        epsilon: The ε at which δ is wanted, finite, >= 0.
        xi: ξ, finite, >= 0.

    Returns:
        The δ at the best order found (an implied δ, at most 1).

    Raises:
        ValueError: A parameter out of range (named).
    """
    with workdps():
        r = _real(rho, "rho", minimum=0.0, open_min=True)
        x = _real(xi, "xi", minimum=0.0)
        e = _real(epsilon, "epsilon", minimum=0.0)

        def log_delta(a: mpmath.mpf) -> mpmath.mpf:
            return (a - 1) * (x + r * a - e) - mpmath.log(a) + (a - 1) * mpmath.log1p(-1 / a)

        return _minimise_over_orders(log_delta)


def renyi_curve_delta(orders: Sequence[tuple[Any, Any]], epsilon: Any) -> mpmath.mpf:
    """δ(ε) implied by Rényi bounds at several orders: the least of :func:`renyi_to_delta` over
    them (each order's bound holds, so the least is implied).

    Args:
        orders: Pairs (α, τ), each as in :func:`renyi_to_delta`; at least one.
        epsilon: The ε at which δ is wanted, finite, >= 0.

    Returns:
        The least δ.

    Raises:
        ValueError: No order, or a value out of range (named).
    """
    if not orders:
        raise ParameterError("orders", "must hold at least one (order, epsilon) pair", "[]")
    with workdps():
        return min(renyi_to_delta(a, t, epsilon) for a, t in orders)


_PHI_FLOOR = mpmath.mpf("-1e100")
"""Below this argument Φ is taken as 0: Φ(−10¹⁰⁰) < 10^(−10¹⁹⁹), and mpmath's normal CDF raises
``OverflowError`` for arguments near −10³⁰⁰ (its exponent no longer fits a float)."""


_GDP_PRECISION_DOUBLINGS = 6
"""How often :func:`gdp_delta` doubles the working precision when its two terms cancel (60 digits
become at most 3840)."""


def _phi(x: mpmath.mpf) -> mpmath.mpf:
    """Φ(x); 0 below :data:`_PHI_FLOOR` (an error below 10^(−10¹⁹⁹))."""
    return mpmath.mpf(0) if x < _PHI_FLOOR else mpmath.ncdf(x)


def gdp_delta(mu: Any, epsilon: Any) -> mpmath.mpf:
    """δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^{ε} Φ(−ε/μ − μ/2) (Dong, Roth and Su 2022, Corollary
    2.13; the Gaussian mechanism's exact profile, Balle and Wang 2018, Theorem 8).

    Args:
        mu: μ, finite, > 0.
        epsilon: The ε at which δ is wanted, finite, >= 0.

    Returns:
        δ(ε) in [0, 1).

    Raises:
        ValueError: A parameter out of range (named).
    """
    with workdps():
        m = _real(mu, "mu", minimum=0.0, open_min=True)
        e = _real(epsilon, "epsilon", minimum=0.0)
        dps = mpmath.mp.dps
        # The two terms nearly cancel for a tiny μ (both near 1/2: about log10(1/μ) digits are
        # lost, all 60 for μ < 1e-60, where δ came out 0 instead of about μ/√(2π)) or a large
        # ε/μ²: the precision is doubled until 20 digits of δ survive (δ > 0 for every μ > 0).
        for _ in range(_GDP_PRECISION_DOUBLINGS + 1):
            with mpmath.workdps(dps):
                high = _phi(-e / m + m / 2)
                if high == 0:  # below the floor of _phi: δ < 10^(−10¹⁹⁹)
                    return mpmath.mpf(0)
                value = high - mpmath.exp(e) * _phi(-e / m - m / 2)
            if value > high * mpmath.mpf(10) ** (20 - dps):
                break
            dps *= 2
        return +max(mpmath.mpf(0), value)


def gdp_tradeoff(mu: Any, type_one: Any) -> mpmath.mpf:
    """The Gaussian trade-off function G_μ(x) = Φ(Φ^{-1}(1 − x) − μ) (Dong, Roth and Su 2022,
    Definition 2.4 and equation (6)).

    Args:
        mu: μ, finite, >= 0.
        type_one: x, a type I error in [0, 1].

    Returns:
        The least type II error a μ-GDP pair allows at type I error x.

    Raises:
        ValueError: A parameter out of range (named).
    """
    with workdps():
        m = _real(mu, "mu", minimum=0.0)
        x = _real(type_one, "type_one", minimum=0.0)
        if x > 1:
            raise ParameterError("type_one", "must lie in [0, 1]", repr(type_one))
        if x == 0:
            return mpmath.mpf(1)
        if x == 1:
            return mpmath.mpf(0)
        return _phi(-probit(x) - m)


def probit(p: mpmath.mpf) -> mpmath.mpf:
    """Φ^{-1}(p) at the working precision, for p as small as mpmath's numbers go: the lower tail
    by Newton's method on Φ (computed as erfc/2, with no cancellation), p > 1/2 by symmetry from
    1 − p taken exactly.

    Args:
        p: A probability (mpmath number); 0 and 1 give −inf and +inf.

    Returns:
        The standard normal quantile.
    """
    if p <= 0:
        return -MP_INF
    if p >= 1:
        return MP_INF
    digits = mpmath.mp.dps
    upper = p > 0.5
    if upper:  # 1 − p at enough digits to be exact (p's own bits), then the lower tail
        with mpmath.workdps(digits + max(0, int(-mpmath.log10(1 - p))) + 10):
            tail = 1 - p
    else:
        tail = p
    with mpmath.workdps(digits + 10):  # Φ of the lower tail has no cancellation: guard digits
        x = _lower_quantile(tail)
        value = -x if upper else x
    return +value


def _lower_quantile(t: mpmath.mpf) -> mpmath.mpf:
    """Φ^{-1}(t) for t in (0, 1/2], by Newton's method on Φ(x) − t from the float quantile (or,
    below the floats, the tail's asymptote); Φ is convex on x <= 0, so the iterates converge
    monotonically after the first step. Stops when a step is below 10^-dps of |x| + 1
    (quadratic convergence: three or four steps from 15 correct digits to 60). About 70 times
    faster than mpmath's ``erfinv``, whose root finding starts from scratch."""
    from scipy import special  # here, not at the top: the claims stay light to import

    guess = float(t)
    if guess >= 1e-300:
        x = mpmath.mpf(float(special.ndtri(guess)))
    else:  # Φ(x) ~ φ(x)/|x|: x ≈ −sqrt(2 ln(1/t) − ln(2 ln(1/t)) − ln 2π)
        big = -2 * mpmath.log(t)
        x = -mpmath.sqrt(big - mpmath.log(big) - mpmath.log(2 * mpmath.pi))
    root2 = mpmath.sqrt(2)
    tolerance = mpmath.mpf(10) ** (-mpmath.mp.dps)
    for _ in range(100):
        cdf = mpmath.erfc(-x / root2) / 2
        step = (cdf - t) / mpmath.npdf(x)
        x -= step
        if abs(step) <= tolerance * (abs(x) + 1):
            break
    return x


def zcdp_of_gdp(mu: Any) -> mpmath.mpf:
    """ρ = μ²/2: μ-GDP implies (μ²/2)-zCDP (Dong, Roth and Su 2022, Theorem 2.10 with the
    Gaussian's Rényi divergence αμ²/2).

    Args:
        mu: μ, finite, > 0.

    Returns:
        μ²/2.

    Raises:
        ValueError: μ out of range.
    """
    with workdps():
        m = _real(mu, "mu", minimum=0.0, open_min=True)
        return m * m / 2


def zcdp_of_pure(epsilon0: Any) -> mpmath.mpf:
    """ρ = ε₀²/2: ε₀-DP implies (ε₀²/2)-zCDP (Bun and Steinke 2016, Proposition 1.4).

    Args:
        epsilon0: ε₀, finite, > 0.

    Returns:
        ε₀²/2.

    Raises:
        ValueError: ε₀ out of range.
    """
    with workdps():
        e = _real(epsilon0, "epsilon0", minimum=0.0, open_min=True)
        return e * e / 2


def gaussian_mu(sigma: Any, sensitivity: Any = 1.0) -> mpmath.mpf:
    """μ = Δ/σ: the Gaussian mechanism N(f(D), σ²) of ℓ2 sensitivity Δ is exactly μ-GDP (Dong,
    Roth and Su 2022, Theorem 2.7).

    Args:
        sigma: σ, finite, > 0.
        sensitivity: Δ, finite, > 0.

    Returns:
        Δ/σ.

    Raises:
        ValueError: A parameter out of range (named).
    """
    with workdps():
        s = _real(sigma, "sigma", minimum=0.0, open_min=True)
        d = _real(sensitivity, "sensitivity", minimum=0.0, open_min=True)
        return d / s


def analytic_gaussian_sigma(epsilon: Any, delta: Any, sensitivity: Any = 1.0) -> mpmath.mpf:
    """The least σ for which the Gaussian mechanism of sensitivity Δ is (ε, δ)-DP (Balle and
    Wang 2018, Theorem 8): σ = Δ/μ* with μ* the largest μ where :func:`gdp_delta` (μ, ε) <= δ
    (δ(ε) increases with μ), found by bisection to the working precision.

    Args:
        epsilon: ε, finite, > 0.
        delta: δ in (0, 1).
        sensitivity: Δ, finite, > 0.

    Returns:
        σ (rounded up at the last bisection step: the σ returned meets the claim).

    Raises:
        ValueError: A parameter out of range (named).
    """
    with workdps():
        e = _real(epsilon, "epsilon", minimum=0.0, open_min=True)
        d = _real(delta, "delta", minimum=0.0, open_min=True)
        if d >= 1:
            raise ParameterError("delta", "must lie in (0, 1)", repr(delta))
        sens = _real(sensitivity, "sensitivity", minimum=0.0, open_min=True)
        # a bracket [lo, hi = 2·lo] with δ(lo) <= δ < δ(hi), found by doubling or halving from
        # 1, so that the bisection's 220 steps leave a relative error of 2^-220 whatever μ* is
        # (an absolute bracket [0, 1] left μ* = 0 for δ = ε = 1e-300, σ far too large)
        lo = hi = mpmath.mpf(1)
        if gdp_delta(hi, e) <= d:
            while gdp_delta(hi, e) <= d:
                lo, hi = hi, hi * 2
        else:
            while gdp_delta(lo, e) > d:
                lo, hi = lo / 2, lo
        for _ in range(220):
            mid = (lo + hi) / 2
            if gdp_delta(mid, e) <= d:
                lo = mid
            else:
                hi = mid
        return sens / lo


__all__ = [
    "analytic_gaussian_sigma",
    "approximate_delta",
    "gaussian_mu",
    "gdp_delta",
    "gdp_tradeoff",
    "probit",
    "pure_delta",
    "renyi_curve_delta",
    "renyi_to_delta",
    "zcdp_delta",
    "zcdp_of_gdp",
    "zcdp_of_pure",
]
