"""ρ-zCDP ↔ (ε, δ)-DP conversions used by imola25's AQ baseline (spec §2.6, §4, §6.6).

Two conversions of a ρ-zCDP guarantee into (ε, δ)-DP are offered, both valid for every ρ > 0 and
δ ∈ (0, 1):

* ``"cks"`` — the form the authors use (repo notebooks, ``ρ = 0.007055178`` in spec §4), from
  Canonne–Kamath–Steinke 2020 (the discrete-Gaussian paper): a ρ-zCDP mechanism is (ε, δ)-DP with
  δ = e^{−(ε−ρ)²/(4ρ)}·sqrt(πρ), i.e. ε = ρ + 2·sqrt(ρ·ln(sqrt(πρ)/δ)). When sqrt(πρ) <= δ
  (ρ <= δ²/π) the logarithm is <= 0 and ε = ρ already satisfies the bound, so the logarithm is
  clipped at 0 (the printed formula would take the square root of a negative number there).
* ``"bs16"`` — Bun & Steinke 2016, Prop. 1.3: ε = ρ + 2·sqrt(ρ·ln(1/δ)).

Both maps ρ ↦ ε(ρ) are continuous and strictly increasing, so :func:`rho_from_epsilon` (the largest
ρ with ε(ρ) <= ε, "the largest zCDP budget for which AQ satisfies (ε, δ)-DP", spec §2.6) is found by
bisection in mpmath at the project's working precision and rounded *down* to a double, checked in
mpmath to satisfy ε(ρ) <= ε. Also :func:`em_zcdp_rho`: the exponential mechanism with weight
ε/(2Δ) is ε-bounded-range and hence ε²/8-zCDP (Cesar & Rogers 2021; spec §2.6), the fact behind the
authors' per-call budget sqrt(8ρ/comp).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import mpmath

from reference.exact.mp import to_mpf, workdps
from reference.validation import check_epsilon, check_finite, check_positive

FORMS: tuple[str, ...] = ("cks", "bs16")
_BISECTION_STEPS = 400  # interval width ε·2^-400: far below a double's resolution


def check_form(form: Any) -> str:
    """The conversion name: one of :data:`FORMS`."""
    if not isinstance(form, str) or form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    return form


def check_zcdp_delta(delta: Any, name: str = "delta") -> float:
    """δ of a zCDP → (ε, δ) conversion: a number in (0, 1) (δ = 0 has no finite ε)."""
    value = check_finite(delta, name)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1) for a zCDP conversion, got {value!r}")
    return value


def epsilon_from_rho_mp(rho: Any, delta: Any, form: str = "cks") -> mpmath.mpf:
    """ε(ρ, δ) in mpmath (spec §6.6): ρ + 2·sqrt(ρ·max(0, ln(sqrt(πρ)/δ))) ("cks") or
    ρ + 2·sqrt(ρ·ln(1/δ)) ("bs16")."""
    form = check_form(form)
    with workdps():
        r, d = to_mpf(rho), to_mpf(delta)
        if form == "cks":
            log_term = mpmath.log(mpmath.sqrt(mpmath.pi * r) / d)
            log_term = max(log_term, mpmath.mpf(0))
        else:
            log_term = mpmath.log(1 / d)
        return r + 2 * mpmath.sqrt(r * log_term)


def epsilon_from_rho(rho: Any, delta: Any, form: str = "cks") -> float:
    """The ε of the (ε, δ)-DP guarantee implied by ρ-zCDP (spec §4 / §6.6), as a float."""
    rho = check_positive(rho, "rho")
    delta = check_zcdp_delta(delta)
    return float(epsilon_from_rho_mp(rho, delta, form))


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
    """The largest double ρ with ε(ρ, δ) <= ε (checked in mpmath), spec §4: ε = 1, δ = 1e-16 gives
    ρ ≈ 0.0070552 ("cks") and ≈ 0.0066953 ("bs16")."""
    return _rho_from_epsilon(check_epsilon(epsilon), check_zcdp_delta(delta), check_form(form))


@functools.lru_cache(maxsize=256)
def _rho_from_epsilon(epsilon: float, delta: float, form: str) -> float:
    root = _rho_root_mp(epsilon, delta, form)
    rho = float(root)

    def ok(r: float) -> bool:
        return r > 0 and epsilon_from_rho_mp(r, delta, form) <= to_mpf(epsilon)

    while not ok(rho):
        rho = math.nextafter(rho, 0.0)
    while ok(math.nextafter(rho, math.inf)):
        rho = math.nextafter(rho, math.inf)
    return rho


def em_zcdp_rho(epsilon: Any) -> float:
    """ρ = ε²/8: the exponential mechanism with weight ε/(2Δ) is ε²/8-zCDP (spec §2.6)."""
    epsilon = check_epsilon(epsilon)
    return epsilon * epsilon / 8.0
