"""The numbers the paper's bounds take: the per-round factor a = e^u and exact reals.

Every bound of fukuchi19 is written with u = ε/L, the per-round budget of Algorithm 2, through
a = e^u (Lemma 2, Eqs. 15–16; Theorems 4 and 5, Eqs. 8 and 10). The modules of the bounds
(:mod:`.concentration`, :mod:`.search_error`, :mod:`.upper_bounds`, :mod:`.lower_bounds`,
:mod:`.fatness`, :mod:`.section_6_1`) read their arguments through the functions here: a
rational ``exp_u`` is kept exact (a ``Fraction``), anything else is computed with mpmath at
:data:`dpquant.reference.exact.mp.DPS` digits.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.round_statistic import Exact, check_exp_u
from dpquant.reference.ldp_minimum.schedules import check_levels
from dpquant.reference.validation import check_fraction, check_positive

_TINY = mpmath.mpf(5e-324)
MAX_POINTS = 10**7
"""The most values :func:`.lower_bounds.theorem_1_neighbours` and
:func:`.section_6_1.beta_fixed_data` build."""


def finite_mp(value: mpmath.mpf, what: str) -> mpmath.mpf:
    """``value`` unless it is NaN or infinite (a pole, or an overflow of mpmath), which is
    refused naming ``what`` (the parameters)."""
    if not mpmath.isfinite(value):
        raise ValueError(f"{what}: the value is not a finite number here ({value})")
    return value


def exact_real(x: Any, name: str) -> Fraction | mpmath.mpf:
    """An exact real: an mpf is kept, anything else is read exactly as a Fraction."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ParameterError(name, "must be a finite real number", x)
        return x
    return check_fraction(x, name)


def positive_mp(x: Any, name: str) -> mpmath.mpf:
    """A finite real > 0 as an mpf: mpf kept, Fractions rounded once, floats and ints exact;
    at least the smallest positive float (5e-324)."""
    value = exact_real(x, name)
    with workdps():
        value = to_mpf(value)
    if not value > 0:
        raise ParameterError(name, "must be a finite number > 0", f"{x!r:.80}")
    if value < _TINY:
        raise ParameterError(name, "must be at least 5e-324 (the smallest positive float)")
    return value


def _factor(x: Any, name: str, exp_u: Any, exp_u_kind: str, levels: int = 1) -> Exact:
    """The given ``exp_u``, or e^{x/levels} for a float ``x`` > 0: exactly one of the two."""
    if (x is None) == (exp_u is None):
        raise ValueError(f"give exactly one of {name} (a float > 0) and exp_u ({exp_u_kind})")
    if exp_u is not None:
        return check_exp_u(exp_u)
    x = check_positive(x, name)
    with workdps():
        return mpmath.exp(to_mpf(x) / levels)


def per_round_factor(u: Any = None, exp_u: Any = None) -> Exact:
    """a = e^u exactly: the given rational ``exp_u`` (> 1), or exp(u) at the working precision.

    Give exactly one of ``u`` (a float > 0) and ``exp_u`` (an int or Fraction > 1).
    """
    return _factor(u, "u", exp_u, "an int or Fraction > 1")


def rounds_factor(levels: int, epsilon: Any = None, exp_u: Any = None) -> Exact:
    """a = e^{ε/L} for the theorems stated with ε and L (Eqs. 8, 10), or the given ``exp_u``."""
    levels = check_levels(levels)
    return _factor(epsilon, "epsilon", exp_u, "an int or Fraction", levels)


__all__ = [
    "MAX_POINTS",
    "exact_real",
    "finite_mp",
    "per_round_factor",
    "positive_mp",
    "rounds_factor",
]
