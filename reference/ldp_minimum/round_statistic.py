"""One round of Algorithm 2: randomized response at u = ε/L, the estimate Φ′ and the decision.

Each user reports z′_i = b_i = sign(τ − x_i) with probability p = e^u/(1 + e^u) and −b_i otherwise
(fresh randomness per user and round). With c = (e^u + 1)/(e^u − 1) = coth(u/2) the server forms

    Φ′ = (c/(2N))·Σ z′_i + 1/2,                                         (Algorithm 2, line 7)

an unbiased estimate of F̃(τ) = k/N, k = #{x_i <= τ}, with Var Φ′ = e^u/(N(e^u − 1)²) whatever k
is (spec §3; sympy check in ``proofs_checks/test_fukuchi19.py``), and goes left iff Φ′ >= γ.

Write P for the number of "+1" reports, so Σ z′ = 2P − N and

    P ~ Bin(k, p) ⊛ Bin(N − k, 1 − p),
    Φ′ >= γ  ⇔  P >= N·(1 + (2γ − 1)·tanh(u/2))/2  ⇔  P >= m* := ⌈N(1 + (2γ − 1)tanh(u/2))/2⌉,

clipped to [0, N + 1] (m* = N + 1: never left). :func:`left_threshold` computes m* exactly, with
rational arithmetic when e^u is rational and at 60 (then 200) digits otherwise, from the exact
binary value of γ; every sampler and every exact law of this package uses that integer.
"""

from __future__ import annotations

import math
import numbers
from contextlib import nullcontext
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from reference.exact.mp import to_mpf, workdps
from reference.ldp_minimum.schedules import check_epsilon_or_inf, check_levels
from reference.validation import check_int, check_positive

Exact = Fraction | mpmath.mpf


def check_exp_u(exp_u: Any, name: str = "exp_u") -> Fraction:
    """e^u given exactly: an int or Fraction > 1."""
    if isinstance(exp_u, bool | np.bool_) or not isinstance(
        exp_u, Fraction | numbers.Integral | np.integer
    ):
        raise ValueError(
            f"{name} must be an int or Fraction > 1 (the exact e^(ε/L)), got {exp_u!r}"
        )
    value = Fraction(int(exp_u)) if isinstance(exp_u, np.integer) else Fraction(exp_u)
    if value <= 1:
        raise ValueError(f"{name} must be an int or Fraction > 1 (the exact e^(ε/L)), got {value}")
    return value


@dataclass(frozen=True)
class RoundRule:
    """Everything one round needs for N users: the keep probability and the threshold m*.

    Build it with :func:`round_rule`. ``epsilon`` is the total budget (``inf``: no noise);
    ``exp_u`` is e^{ε/L} when it was given exactly (then ``epsilon`` is L·ln(exp_u) rounded up).
    """

    n: int
    levels: int
    gamma: float
    epsilon: float
    exp_u: Fraction | None
    threshold: int

    @property
    def u(self) -> float:
        """Per-round budget ε/L."""
        return self.epsilon / self.levels

    @cached_property
    def keep(self) -> float:
        """p = e^u/(1 + e^u) as a float (1 when ε = inf)."""
        if self.exp_u is not None:
            return float(self.exp_u / (1 + self.exp_u))
        return 1.0 if math.isinf(self.epsilon) else 1.0 / (1.0 + math.exp(-self.u))

    @cached_property
    def debias(self) -> float:
        """c = coth(u/2) as a float (1 when ε = inf)."""
        if self.exp_u is not None:
            return float((self.exp_u + 1) / (self.exp_u - 1))
        return 1.0 if math.isinf(self.epsilon) else 1.0 / math.tanh(self.u / 2.0)

    def keep_exact(self) -> Exact:
        """p exactly: a Fraction when e^u is rational or ε = inf, else an mpf (60 digits)."""
        if self.exp_u is not None:
            return self.exp_u / (1 + self.exp_u)
        if math.isinf(self.epsilon):
            return Fraction(1)
        with workdps():
            return 1 / (1 + mpmath.exp(-to_mpf(self.epsilon) / self.levels))

    def phi(self, plus: Any) -> np.ndarray:
        """Φ′ = (c/(2N))(2P − N) + 1/2 for P "+1" reports (floats, for display only)."""
        s = 2.0 * np.asarray(plus, dtype=float) - self.n
        return self.debias * s / (2.0 * self.n) + 0.5

    def goes_left(self, plus: Any) -> np.ndarray:
        """The decision Φ′ >= γ, made exactly: P >= m*."""
        return np.asarray(plus) >= self.threshold


def tanh_half_u(levels: int, epsilon: float, exp_u: Fraction | None, dps: int) -> Exact:
    """tanh(u/2) = (e^u − 1)/(e^u + 1): exact for rational e^u, 1 for ε = inf, else ``dps`` digits."""
    if exp_u is not None:
        return (exp_u - 1) / (exp_u + 1)
    if math.isinf(epsilon):
        return Fraction(1)
    with mpmath.workdps(dps):
        return mpmath.tanh(mpmath.mpf(epsilon) / (2 * levels))


def left_threshold(
    n: int, levels: int, gamma: float, epsilon: float, exp_u: Fraction | None = None
) -> int:
    """m* = ⌈N(1 + (2γ − 1)·tanh(u/2))/2⌉ clipped to [0, N + 1]: go left iff P >= m*.

    γ is read as its exact binary value. With rational e^u (or ε = inf) the value is exact. With a
    float ε, tanh(u/2) is transcendental, so N(2γ − 1)tanh(u/2)/2 is an integer or half-integer only
    when γ = 1/2; otherwise it is computed at 60 digits, and at 200 if it lies within 10^-40 of an
    integer (this never settles a tie: there is none).
    """
    g = Fraction(gamma)
    if g == Fraction(1, 2):
        x: Exact = Fraction(n, 2)
    else:
        t = tanh_half_u(levels, epsilon, exp_u, 60)
        if isinstance(t, Fraction):
            x = Fraction(n, 2) * (1 + (2 * g - 1) * t)
        else:
            x = None
            for dps in (60, 200):
                t = tanh_half_u(levels, epsilon, exp_u, dps)
                with mpmath.workdps(dps):
                    value = to_mpf(Fraction(n, 2)) * (1 + to_mpf(2 * g - 1) * t)
                    if abs(value - mpmath.nint(value)) > mpmath.mpf(10) ** -40:
                        x = value
                        break
            if x is None:  # pragma: no cover - impossible for a transcendental tanh
                raise ArithmeticError("the threshold N(1 + (2γ − 1)tanh(u/2))/2 is an exact tie")
    m = math.ceil(x) if isinstance(x, Fraction) else int(mpmath.ceil(x))
    return min(max(m, 0), n + 1)


def round_rule(
    n: int,
    levels: int,
    gamma: float,
    *,
    epsilon: float | None = None,
    exp_u: Any = None,
) -> RoundRule:
    """The round rule for N users, L rounds and threshold γ > 0 (γ > 1 allowed, never clamped).

    Give the budget either as ``epsilon`` (a float > 0, or ``inf`` for the noiseless mode) or as
    the exact per-round factor ``exp_u`` = e^{ε/L} (an int or Fraction > 1; then ε = L·ln(exp_u),
    rounded up to a float so that the claim is never below the true ε).

    γ is used as its exact binary value: the float 0.2 is 0.2000000000000000111…, so with N = 5
    and ε = inf going left needs k >= 2 (γN > 1), not k >= 1. Pass γ = 1/N only when that float
    times N is at most 1 if you mean "at least one value below τ".
    """
    n = check_int(n, "n", minimum=1)
    levels = check_levels(levels)
    gamma = check_positive(gamma, "gamma")
    if (epsilon is None) == (exp_u is None):
        raise ValueError("give exactly one of epsilon and exp_u")
    if exp_u is not None:
        exp_u = check_exp_u(exp_u)
        epsilon = epsilon_of_exp_u(exp_u, levels)
    else:
        epsilon = check_epsilon_or_inf(epsilon)
    m = left_threshold(n, levels, gamma, epsilon, exp_u)
    return RoundRule(n, levels, gamma, epsilon, exp_u, m)


def check_epsilon_matches_exp_u(epsilon: float, exp_u: Any, levels: int, builder: str) -> Fraction:
    """``exp_u`` checked, and ``epsilon`` required to be L·ln(exp_u) rounded up (as ``builder``,
    e.g. ``LDPMinimum.with_exp_u``, sets it)."""
    exp_u = check_exp_u(exp_u)
    if epsilon != epsilon_of_exp_u(exp_u, levels):
        raise ValueError(
            f"epsilon must equal L·ln(exp_u) rounded up when exp_u is given; build it with {builder}"
        )
    return exp_u


def epsilon_of_exp_u(exp_u: Fraction, levels: int) -> float:
    """L·ln(e^u) as the smallest float >= the true value."""
    with workdps():
        true = levels * mpmath.log(to_mpf(exp_u))
        value = float(true)
        while to_mpf(value) < true:
            value = math.nextafter(value, math.inf)
    return value


# --------------------------------------------------------------------------------------------
# The exact law of the decision given k
# --------------------------------------------------------------------------------------------


def _binomial_pmf_exact(trials: int, p: Exact) -> list[Exact]:
    """P(Bin(trials, p) = j), j = 0..trials, exactly (Fractions) or at the working precision."""
    if isinstance(p, Fraction):
        q = 1 - p
        return [math.comb(trials, j) * p**j * q ** (trials - j) for j in range(trials + 1)]
    with workdps():
        return [
            mpmath.binomial(trials, j) * p**j * (1 - p) ** (trials - j) for j in range(trials + 1)
        ]


def _two_binomial_laws(rule: RoundRule, k: int) -> tuple[list[Exact], list[Exact], Any]:
    """The exact laws of Bin(k, p) (the "+1" reports of users with x_i <= τ that are kept) and
    Bin(N − k, 1 − p) (the flipped reports of the others), and the arithmetic context to use."""
    k = check_int(k, "k", minimum=0)
    if k > rule.n:
        raise ValueError(f"k must lie in [0, {rule.n}], got {k}")
    p = rule.keep_exact()
    ctx = workdps() if not isinstance(p, Fraction) else nullcontext()
    return _binomial_pmf_exact(k, p), _binomial_pmf_exact(rule.n - k, 1 - p), ctx


def plus_count_pmf_exact(rule: RoundRule, k: int) -> list[Exact]:
    """The exact law of P = Bin(k, p) + Bin(N − k, 1 − p): entry j is P(P = j), j = 0..N."""
    a, b, ctx = _two_binomial_laws(rule, k)
    out = [0 * a[0]] * (rule.n + 1)
    with ctx:
        for i, ai in enumerate(a):
            if ai == 0:
                continue
            for j, bj in enumerate(b):
                out[i + j] += ai * bj
    return out


def left_probability_exact(rule: RoundRule, k: int) -> Exact:
    """P(go left | k) = P(P >= m*) exactly (O(N) from the two binomial laws)."""
    a, b, ctx = _two_binomial_laws(rule, k)
    with ctx:
        # tail[j] = P(Bin(N − k, 1 − p) >= j), j = 0..N − k + 1
        tail = [0 * a[0]] * (len(b) + 1)
        for j in range(len(b) - 1, -1, -1):
            tail[j] = tail[j + 1] + b[j]
        total = 0 * a[0]
        m = rule.threshold
        for i, ai in enumerate(a):
            need = m - i
            if need <= 0:
                total += ai
            elif need <= len(b) - 1:
                total += ai * tail[need]
        return total


def left_probability(rule: RoundRule, k: int) -> tuple[float, float]:
    """(P(go left | k), P(go right | k)) in floats, each computed directly (no 1 − x).

    Sums P(Bin(k, p) = i)·P(Bin(N − k, 1 − p) >= m* − i) over the window |i − kp| <= 6·sqrt(k) + 2:
    by Hoeffding the first law puts less than 2e^{−72} < 1e-31 outside it, far below the float
    resolution of any probability the pruned tree keeps (>= 1e-15 of the total mass).
    """
    n, m = rule.n, rule.threshold
    if m <= 0:
        return 1.0, 0.0
    if m > n:
        return 0.0, 1.0
    p = rule.keep
    if p == 1.0:  # noiseless: P = k
        return (1.0, 0.0) if k >= m else (0.0, 1.0)
    width = 6.0 * math.sqrt(k) + 2.0
    lo = max(0, int(math.floor(k * p - width)))
    hi = min(k, int(math.ceil(k * p + width)))
    i = np.arange(lo, hi + 1)
    w = stats.binom.pmf(i, k, p)
    rest = n - k
    left = float(np.sum(w * stats.binom.sf(m - i - 1, rest, 1.0 - p)))
    right = float(np.sum(w * stats.binom.cdf(m - i - 1, rest, 1.0 - p)))
    return left, right


__all__ = [
    "RoundRule",
    "check_epsilon_matches_exp_u",
    "check_exp_u",
    "epsilon_of_exp_u",
    "left_probability",
    "left_probability_exact",
    "left_threshold",
    "plus_count_pmf_exact",
    "round_rule",
    "tanh_half_u",
]
