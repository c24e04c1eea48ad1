"""Lemma 2 of fukuchi19: the concentration of the round statistic Φ′ (Eqs. 15–16).

In round t of Algorithm 2 the server computes Φ′ = (c/(2N))Σz′_i + 1/2 (Line 6), an unbiased
estimate of F̃(τ_t) = k/N, with a = e^u, u = ε/L, p = a/(1 + a) and c = (a + 1)/(a − 1). Lemma 2
bounds the chance that Φ′ lands on the wrong side of γ:

    P{Φ′ > γ} <= exp(−(a − 1)²(F̃(τ) − γ)²N / (4(a + 1)a))   when γ > F̃(τ)   (Eq. 15),

and the same bound for P{Φ′ < γ} when γ < F̃(τ) (Eq. 16); at |F̃(τ) − γ| = γ it is
e_γ = exp(−(a − 1)²γ²N/(4(a + 1)a)), the term of Theorems 4 and 5 (Eqs. 8, 10).

* :func:`lemma_2_bound`, :func:`e_gamma_exact` and :func:`lemma_2_bound_float` (vectorised);
* :func:`phi_tail_exact`: the exact tails of Φ′ for the events ">", ">=", "<", "<=" (Algorithm 2
  compares with ">=", the lemma is stated for ">" and "<": both are checked);
* :func:`hoeffding_bound` and :func:`hoeffding_bound_float`: Hoeffding's bound
  exp(−2N(F̃ − γ)²/c²), never weaker than Lemma 2's (its exponent is 8a/(a + 1) >= 4 times
  larger; ``notes/fukuchi19.md``, errata).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.bound_inputs import exact_real, per_round_factor
from dpquant.reference.ldp_minimum.round_statistic import Exact, ceil_crossing, check_exact_work
from dpquant.reference.ldp_minimum.schedules import check_count
from dpquant.reference.validation import (
    check_choice,
    check_fraction,
    check_int,
    check_positive,
    check_real_array,
)

EVENTS = (">", ">=", "<", "<=")
"""The comparisons Φ′ (event) γ of :func:`phi_tail_exact`."""


def _check_float_arrays(**arrays: Any) -> tuple[np.ndarray, ...]:
    """Finite float arrays of the vectorised functions, broadcast together."""
    out = [check_real_array(v, name) for name, v in arrays.items()]
    try:
        np.broadcast_shapes(*(a.shape for a in out))
    except ValueError:
        raise ParameterError(', '.join(arrays), "must broadcast to one shape") from None
    return tuple(out)


def lemma_2_bound(
    n: int, f_tilde: Any, gamma: Any, *, u: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """exp(−(a − 1)²(F̃(τ) − γ)²N / (4(a + 1)a)), a = e^u (Lemma 2, Eqs. 15–16).

    Eq. 15 bounds P{Φ′ > γ} when γ > F̃(τ); Eq. 16 bounds P{Φ′ < γ} when γ < F̃(τ) (the paper writes
    Φ for Φ′ and ε for the per-round u). With F̃ = 0 it is e_γ. Returned as an mpf.
    """
    n = check_count(n, "n")
    a = per_round_factor(u, exp_u)
    f, g = exact_real(f_tilde, "f_tilde"), exact_real(gamma, "gamma")
    with workdps():
        a, d = to_mpf(a), to_mpf(f) - to_mpf(g)
        return mpmath.exp(-((a - 1) ** 2) * d**2 * n / (4 * (a + 1) * a))


def e_gamma_exact(n: int, gamma: Any, *, u: Any = None, exp_u: Any = None) -> mpmath.mpf:
    """e_γ = exp(−(a − 1)²γ²N/(4(a + 1)a)), the Lemma 2 bound at |F̃(τ) − γ| = γ (Eqs. 8, 10)."""
    return lemma_2_bound(n, 0, gamma, u=u, exp_u=exp_u)


def hoeffding_bound(
    n: int, f_tilde: Any, gamma: Any, *, u: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """exp(−2N(F̃(τ) − γ)²/c²), c = (a + 1)/(a − 1): Hoeffding for Φ′, a mean of N independent
    terms (c·z′_i + 1)/2 with range c. Its exponent is 8a/(a + 1) >= 4 times Lemma 2's
    (``notes/fukuchi19.md``, errata: Lemma 2).
    """
    n = check_count(n, "n")
    a = per_round_factor(u, exp_u)
    f, g = exact_real(f_tilde, "f_tilde"), exact_real(gamma, "gamma")
    with workdps():
        a, d = to_mpf(a), to_mpf(f) - to_mpf(g)
        return mpmath.exp(-2 * n * d**2 * ((a - 1) / (a + 1)) ** 2)


def _float_bound_inputs(n: Any, f_tilde: Any, gamma: Any, u: Any) -> tuple[np.ndarray, ...]:
    n, f, g, u = _check_float_arrays(n=n, f_tilde=f_tilde, gamma=gamma, u=u)
    if np.any(u <= 0):
        raise ParameterError("u", "must be > 0")
    if np.any(n < 1):
        raise ParameterError("n", "must be >= 1")
    return n, f, g, u


def _exp_neg(log_terms: list[np.ndarray]) -> np.ndarray:
    """exp(−Π exp(t_i)) from the logarithms t_i of the factors (no overflow, no 0·inf)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.exp(-np.exp(sum(log_terms)))


def lemma_2_bound_float(n: Any, f_tilde: Any, gamma: Any, u: Any) -> np.ndarray:
    """Vectorised float Lemma 2 bound, stable form (a − 1)²/(a(a + 1)) = expm1(−u)²/(1 + e^{−u})
    (evaluated through logarithms: no overflow or underflow in the intermediate products)."""
    n, f, g, u = _float_bound_inputs(n, f_tilde, gamma, u)
    with np.errstate(over="ignore", divide="ignore"):
        return _exp_neg(
            [
                2 * np.log(-np.expm1(-u)),
                2 * np.log(np.abs(f - g)),
                np.log(n),
                -np.log(4.0 * (1.0 + np.exp(-u))),
            ]
        )


def hoeffding_bound_float(n: Any, f_tilde: Any, gamma: Any, u: Any) -> np.ndarray:
    """Vectorised float Hoeffding bound exp(−2N(F̃ − γ)²·tanh²(u/2)) (through logarithms)."""
    n, f, g, u = _float_bound_inputs(n, f_tilde, gamma, u)
    with np.errstate(over="ignore", divide="ignore"):
        return _exp_neg(
            [np.log(2.0 * n), 2 * np.log(np.abs(f - g)), 2 * np.log(np.tanh(u / 2.0))]
        )


def _binomial_pmf(trials: int, p: Exact) -> list[Exact]:
    if isinstance(p, Fraction):
        q = 1 - p
        return [math.comb(trials, j) * p**j * q ** (trials - j) for j in range(trials + 1)]
    return [mpmath.binomial(trials, j) * p**j * (1 - p) ** (trials - j) for j in range(trials + 1)]


def _crossing_ceil(n: int, gamma: Fraction, u: float | None, a: Exact) -> tuple[int, bool]:
    """(⌈x⌉, whether x is an integer) for x = N(1 + (2γ − 1)·tanh(u/2))/2: Φ′ >= γ ⇔ P >= x,
    P the number of "+1" reports.

    Exact for rational a = e^u or γ = 1/2; otherwise tanh(u/2) is irrational for a rational
    u != 0 and the ceiling is decided at relative precision
    (:func:`.round_statistic.ceil_crossing`)."""
    if gamma == Fraction(1, 2):
        x = Fraction(n, 2)
        return math.ceil(x), x.denominator == 1
    if isinstance(a, Fraction):
        x = Fraction(n, 2) * (1 + (2 * gamma - 1) * (a - 1) / (a + 1))
        return math.ceil(x), x.denominator == 1
    assert u is not None  # a is irrational only when it was computed from u
    return ceil_crossing(Fraction(n, 2), 2 * gamma - 1, Fraction(u), "u"), False


def _count_range(event: str, ceil_x: int, integral: bool, n: int) -> tuple[int, int]:
    """The P-range [lo, hi] (inclusive) of the event Φ′ (event) γ, given P >= x ⇔ Φ′ >= γ."""
    floor_x = ceil_x if integral else ceil_x - 1
    if event == ">=":
        return max(ceil_x, 0), n
    if event == ">":
        return max(floor_x + 1, 0), n
    if event == "<":
        return 0, min(ceil_x - 1, n)
    return 0, min(floor_x, n)  # "<="


def phi_tail_exact(
    n: int, k: int, gamma: Any, event: str, *, u: Any = None, exp_u: Any = None
) -> Exact:
    """P{Φ′ (event) γ} exactly, for N users of whom k have x_i <= τ (Lemma 2's left-hand sides).

    Φ′ = (c/(2N))(2P − N) + 1/2 (Algorithm 2, Line 6, with Σz′_i = 2P − N) where the number P
    of "+1" reports is Bin(k, p) ⊛ Bin(N − k, 1 − p): randomized response (Sec. 2) keeps each
    bit with probability p = a/(1 + a). ``event`` is one of ">", ">=", "<", "<=". Fractions for
    rational e^u, else mpf (60 digits). Each tail is summed directly (no 1 − x).
    """
    n = check_count(n, "n")
    k = check_int(k, "k", minimum=0)
    if k > n:
        raise ParameterError("k", f"must lie in [0, {n}]", k)
    check_choice(event, "event", EVENTS)
    g = check_fraction(gamma, "gamma")
    a = per_round_factor(u, exp_u)
    check_exact_work(n, 1, a if isinstance(a, Fraction) else None, "n")
    with workdps():
        p = a / (1 + a)
        u_float = None if exp_u is not None else check_positive(u, "u")
        lo, hi = _count_range(event, *_crossing_ceil(n, g, u_float, a), n)
        zero = Fraction(0) if isinstance(p, Fraction) else mpmath.mpf(0)
        if lo > hi:
            return zero
        first = _binomial_pmf(k, p)
        second = _binomial_pmf(n - k, 1 - p)
        # cumulative sums of the second law: cum[j] = P(B <= j − 1)
        cum = [zero]
        for w in second:
            cum.append(cum[-1] + w)
        total = zero
        for i, w in enumerate(first):
            j_lo, j_hi = max(lo - i, 0), min(hi - i, n - k)
            if j_lo <= j_hi:
                total += w * (cum[j_hi + 1] - cum[j_lo])
        return total


__all__ = [
    "EVENTS",
    "e_gamma_exact",
    "hoeffding_bound",
    "hoeffding_bound_float",
    "lemma_2_bound",
    "lemma_2_bound_float",
    "phi_tail_exact",
]
