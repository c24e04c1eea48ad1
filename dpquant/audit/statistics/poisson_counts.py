"""The bound of one event from Poissonized counts: one Clopper–Pearson bound instead of two.

:func:`dpquant.audit.statistics.bounds.epsilon_lower_bound` bounds ln(p0/p1) by a rectangle: a
lower bound on p0 and an upper bound on p1, each at α/2. Both margins add up, each at the
stricter level. With a *Poisson* number of draws on each side, N0, N1 ~ Poisson(λ) drawn
independently of the mechanism (the same λ), the counts of an event S are independent Poisson
variables, k0 ~ Poisson(λ·p0) and k1 ~ Poisson(λ·p1) (thinning), so given their sum s = k0 + k1,

    k0 ~ Binomial(s, θ),   θ = p0 / (p0 + p1),

whatever λ and s (the conditional test of two Poisson rates, Przyborowski and Wilenski,
Biometrika 1940). One Clopper–Pearson lower bound θ_L of θ at level α gives
p0/p1 = θ/(1 − θ) ≥ θ_L/(1 − θ_L) with probability at least 1 − α, and under pure ε-DP
p0 ≤ e^ε·p1, so

    ε_lb = ln(θ_L / (1 − θ_L))

exceeds ε with probability at most α. At the expected counts of the exponential-mechanism
median's best events the rectangle needs 1.6 to 1.9 times the draws for the same bound
(``notes/auditor.md``, "Poissonized counts").

The audit draws a fixed number n of samples per side and counts the event among the first N of
them, N = min(Poisson(λ), n): λ is chosen so that the Poisson number exceeds n (and is capped)
with probability at most ``tail`` per side (:func:`poisson_rate`), and the bound is taken at level
α − 2·``tail``: the capped counts differ from the Poisson ones only when a cap binds, so the bound
is wrong with probability at most (α − 2·``tail``) + 2·``tail`` = α. Pure DP only: with δ > 0
the ratio p0/p1 is not what the claim bounds.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dpquant.audit.statistics.counts import check_level, cp_lower, cp_upper
from dpquant.errors import ParameterError
from dpquant.reference.validation import check_int, check_probability, check_rng

MAX_COUNT = 2**40
"""The largest count or cap taken."""


def _check_count(k: Any, name: str) -> int:
    return check_int(k, name, minimum=0, maximum=MAX_COUNT)


def poisson_rate(n: int, tail: float) -> float:
    """The largest λ (to a relative 1e-12) with Pr[Poisson(λ) > n] <= ``tail``: the rate of the
    counted draws when at most ``n`` are drawn per side.

    Args:
        n: The draws per side, an int in [1, 2^40].
        tail: The largest chance that a Poisson(λ) draw exceeds ``n``, in (0, 1).

    Returns:
        λ, in (0, n].

    Raises:
        ValueError: ``n`` or ``tail`` out of range, naming it.
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_COUNT)
    tail = check_level(tail, "tail")
    lo, hi = 0.0, float(n)
    if special.pdtrc(n, hi) <= tail:
        return hi
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        if special.pdtrc(n, mid) <= tail:
            lo = mid
        else:
            hi = mid
    return lo


def poisson_sizes(n: int, tail: float, rng: np.random.Generator) -> tuple[int, int]:
    """The draws counted on D and on D': min(Poisson(λ), n) each, λ = :func:`poisson_rate`.

    Args:
        n: The draws per side.
        tail: As for :func:`poisson_rate`.
        rng: The generator (drawn from twice).

    Returns:
        N0, N1, each in [0, n].

    Raises:
        ValueError: ``n``, ``tail`` or ``rng`` (a numpy Generator) out of range, naming it.
    """
    rng = check_rng(rng)
    lam = poisson_rate(n, tail)
    n0, n1 = (min(int(rng.poisson(lam)), n) for _ in range(2))
    return n0, n1


def _log_odds(theta: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(theta) - np.log1p(-theta)


def poisson_epsilon_lower_bound(k0: int, k1: int, alpha: float) -> float:
    """ε_lb = ln(θ_L/(1 − θ_L)), θ_L the one-sided Clopper–Pearson lower bound at level
    ``alpha`` of k0 successes in k0 + k1 (module docstring); −inf when k0 = 0.

    Args:
        k0: The event's count on D, Poisson(λ·p0).
        k1: Its count on D', Poisson(λ·p1), independent.
        alpha: The level, in (0, 1).

    Returns:
        The bound, below ln(p0/p1) with probability at least 1 − ``alpha``.

    Raises:
        ValueError: a count or ``alpha`` out of range, naming it.
    """
    k0, k1 = _check_count(k0, "k0"), _check_count(k1, "k1")
    alpha = check_level(alpha, "alpha")
    if k0 == 0:
        return -math.inf
    theta = cp_lower(np.asarray(float(k0)), np.asarray(float(k0 + k1)), alpha)
    return float(_log_odds(theta))


def poisson_ratio_interval(k0: int, k1: int, alpha: float) -> tuple[float, float]:
    """Two-sided (1 − ``alpha``) interval for ln(p0/p1) of one event from Poissonized counts:
    the conditional Clopper–Pearson bounds of θ at α/2 each, as log-odds.

    Args:
        k0: The event's count on D.
        k1: Its count on D'.
        alpha: The level, in (0, 1).

    Returns:
        (lower, upper); −inf, +inf where a count is 0.

    Raises:
        ValueError: a count or ``alpha`` out of range, naming it.
    """
    k0, k1 = _check_count(k0, "k0"), _check_count(k1, "k1")
    alpha = check_level(alpha, "alpha")
    s = np.asarray(float(k0 + k1))
    if k0 + k1 == 0:
        return -math.inf, math.inf
    lo = float(_log_odds(cp_lower(np.asarray(float(k0)), s, alpha / 2))) if k0 else -math.inf
    hi = float(_log_odds(cp_upper(np.asarray(float(k0)), s, alpha / 2))) if k1 else math.inf
    return lo, max(lo, hi)


def poisson_expected_bound(p0: float, p1: float, rate: float, alpha: float) -> float:
    """The bound :func:`poisson_epsilon_lower_bound` gives at the expected counts λ·p0, λ·p1
    (real numbers, as :func:`dpquant.audit.statistics.bounds.expected_bound` takes them): the
    planning objective.

    Args:
        p0: The event's mass on D, in [0, 1].
        p1: Its mass on D'.
        rate: λ, a real in (0, 2^40].
        alpha: The level, in (0, 1).

    Returns:
        The bound; −inf when p0 = 0 or when the expected total count λ·(p0 + p1) is below one
        (no bound at counts that small).

    Raises:
        ValueError: an argument out of range, naming it.
    """
    p0, p1 = check_probability(p0, "p0"), check_probability(p1, "p1")
    alpha = check_level(alpha, "alpha")
    if not (isinstance(rate, (int, float)) and not isinstance(rate, bool)) or not (
        0 < rate <= MAX_COUNT
    ):
        raise ParameterError("rate", f"must be a real in (0, {MAX_COUNT}]", repr(rate))
    if p0 == 0 or rate * (p0 + p1) < 1:
        return -math.inf
    k0, s = np.asarray(rate * p0), np.asarray(rate * (p0 + p1))
    return float(_log_odds(cp_lower(k0, s, alpha)))


__all__ = [
    "MAX_COUNT",
    "poisson_epsilon_lower_bound",
    "poisson_expected_bound",
    "poisson_rate",
    "poisson_ratio_interval",
    "poisson_sizes",
]
