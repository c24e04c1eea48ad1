"""ρ-zCDP ↔ (ε, δ)-DP conversions used by imola25's AQ baseline (Sec. 6: AQ under
ρ-zCDP with the largest ρ that gives (ε, δ)-DP).

Two conversions of a ρ-zCDP guarantee into (ε, δ)-DP are offered, both valid for every ρ > 0 and
δ ∈ (0, 1):

* ``"cks"`` — the form the authors use (their notebooks, ``ρ = 0.007055178`` at ε = 1,
  δ = 10⁻¹⁶; Figure 1's "0.007-zCDP"), from
  Canonne–Kamath–Steinke 2020 (the discrete-Gaussian paper): a ρ-zCDP mechanism is (ε, δ)-DP with
  δ = e^{−(ε−ρ)²/(4ρ)}·sqrt(πρ), i.e. ε = ρ + 2·sqrt(ρ·ln(sqrt(πρ)/δ)). When sqrt(πρ) <= δ
  (ρ <= δ²/π) the logarithm is <= 0 and ε = ρ already satisfies the bound, so the logarithm is
  clipped at 0 (the printed formula would take the square root of a negative number there).
* ``"bs16"`` — Bun & Steinke 2016, Prop. 1.3: ε = ρ + 2·sqrt(ρ·ln(1/δ)).

Both maps ρ ↦ ε(ρ) are continuous and strictly increasing, so :func:`rho_from_epsilon` (the largest
ρ with ε(ρ) <= ε, "the largest zCDP budget for which AQ satisfies (ε, δ)-DP", Sec. 6) is found by
bisection in mpmath at the project's working precision and rounded *down* to a double, checked in
mpmath to satisfy ε(ρ) <= ε. Also :func:`em_zcdp_rho`: the exponential mechanism with weight
ε/(2Δ) is ε-bounded-range and hence ε²/8-zCDP (Cesar & Rogers 2021; Sec. 6 cites [4, 7]), the fact behind the
authors' per-call budget sqrt(8ρ/comp).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import check_choice, check_epsilon, check_finite, check_positive

FORMS: tuple[str, ...] = ("cks", "bs16")
_BISECTION_STEPS = 400  # interval width ε·2^-400: far below a double's resolution
_NUDGES = 64  # most one-ulp steps when rounding the root to a double


def _check_form(form: Any) -> str:
    """The conversion name: one of :data:`FORMS`."""
    return check_choice(form, "form", FORMS)


def _positive_mp(x: Any, name: str) -> mpmath.mpf:
    """A finite number > 0 as an mpf (an ``mpf`` or a real number under the data policy)."""
    if isinstance(x, mpmath.mpf):
        if not (mpmath.isfinite(x) and x > 0):
            raise ParameterError(name, "must be a finite number > 0", x)
        return x
    value = check_positive(x, name)
    return to_mpf(x if isinstance(x, int) else value)


def check_zcdp_delta(delta: Any, name: str = "delta") -> float:
    """δ of a zCDP → (ε, δ) conversion: a number in (0, 1) (δ = 0 has no finite ε)."""
    value = check_finite(delta, name)
    if not 0.0 < value < 1.0:
        raise ParameterError(name, "must lie in (0, 1) for a zCDP conversion", repr(value))
    return value


def epsilon_from_rho_mp(rho: Any, delta: Any, form: str = "cks") -> mpmath.mpf:
    """ε(ρ, δ) in mpmath (values: notes/imola25.md, "Reference values"): ρ + 2·sqrt(ρ·max(0, ln(sqrt(πρ)/δ))) ("cks") or
    ρ + 2·sqrt(ρ·ln(1/δ)) ("bs16")."""
    form = _check_form(form)
    with workdps():
        r = _positive_mp(rho, "rho")
        d = _positive_mp(delta, "delta")
        if d >= 1:
            raise ParameterError("delta", "must lie in (0, 1) for a zCDP conversion", repr(delta))
        if form == "cks":
            log_term = mpmath.log(mpmath.sqrt(mpmath.pi * r) / d)
            log_term = max(log_term, mpmath.mpf(0))
        else:
            log_term = mpmath.log(1 / d)
        return r + 2 * mpmath.sqrt(r * log_term)


def epsilon_from_rho(rho: Any, delta: Any, form: str = "cks") -> float:
    """The ε of the (ε, δ)-DP guarantee implied by ρ-zCDP (:func:`epsilon_from_rho_mp`), as a float."""
    rho = check_positive(rho, "rho")
    delta = check_zcdp_delta(delta)
    value = float(epsilon_from_rho_mp(rho, delta, form))
    if not math.isfinite(value):
        raise ParameterError(
            "rho",
            "is too large: epsilon(rho, delta) overflows a float64",
            repr(rho),
        )
    return value


def _rho_root_mp(epsilon: float, delta: float, form: str) -> mpmath.mpf:
    """The ρ* with ε(ρ*) = ε, by bisection on (0, ε] (ε(ρ) >= ρ, so ρ* <= ε)."""
    with workdps():
        target = to_mpf(epsilon)
        lo, hi = mpmath.mpf(0), target
        for _ in range(_BISECTION_STEPS):
            mid = (lo + hi) / 2
            if epsilon_from_rho_mp(mid, delta, form) <= target:
                lo = mid
            else:
                hi = mid
        return lo


def rho_from_epsilon(epsilon: Any, delta: Any, form: str = "cks") -> float:
    """The largest double ρ with ε(ρ, δ) <= ε (checked in mpmath); ε = 1, δ = 1e-16 gives
    ρ ≈ 0.0070552 ("cks") and ≈ 0.0066953 ("bs16")."""
    return _rho_from_epsilon(check_epsilon(epsilon), check_zcdp_delta(delta), _check_form(form))


@functools.lru_cache(maxsize=256)
def _rho_from_epsilon(epsilon: float, delta: float, form: str) -> float:
    root = _rho_root_mp(epsilon, delta, form)
    rho = float(root)

    def ok(r: float) -> bool:
        return r > 0 and epsilon_from_rho_mp(r, delta, form) <= to_mpf(epsilon)

    for _ in range(_NUDGES):
        if ok(rho) or rho <= 0:
            break
        rho = math.nextafter(rho, 0.0)
    if not ok(rho):
        raise ParameterError(
            "epsilon",
            "is too small for delta: the largest rho with epsilon(rho, delta) <= epsilon is below "
            f"the smallest positive float (epsilon = {epsilon!r}, delta = {delta!r})",
        )
    for _ in range(_NUDGES):
        up = math.nextafter(rho, math.inf)
        if not (math.isfinite(up) and ok(up)):
            break
        rho = up
    return rho


def em_zcdp_rho(epsilon: Any) -> float:
    """ρ = ε²/8: the exponential mechanism with weight ε/(2Δ) is ε²/8-zCDP (Sec. 6, citing [4, 7])."""
    epsilon = check_epsilon(epsilon)
    rho = epsilon * epsilon / 8.0
    if not (math.isfinite(rho) and rho > 0):
        raise ParameterError(
            "epsilon",
            "must lie in [1e-153, 1e153] so that epsilon²/8 is a positive float",
            repr(epsilon),
        )
    return rho
