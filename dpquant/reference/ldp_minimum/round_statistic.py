"""One round of Algorithm 2: randomized response at u = ε/L, the estimate Φ′ and the decision.

Each user reports z′_i = b_i = sign(τ − x_i) with probability p = e^u/(1 + e^u) and −b_i otherwise
(fresh randomness per user and round). With c = (e^u + 1)/(e^u − 1) = coth(u/2) the server forms

    Φ′ = (c/(2N))·Σ z′_i + 1/2,                                         (Algorithm 2, line 6)

an unbiased estimate of F̃(τ) = k/N, k = #{x_i <= τ}, with Var Φ′ = e^u/(N(e^u − 1)²) whatever k
is (unbiasedness: Sec. 4; both checked with sympy in ``proofs_checks/test_fukuchi19.py``), and
goes left iff Φ′ >= γ (line 7).

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
from typing import Any, TypeAlias

import mpmath
import numpy as np
from scipy import stats

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.schedules import check_epsilon_or_inf, check_levels, check_users
from dpquant.reference.validation import check_fraction, check_int, check_positive

Exact: TypeAlias = Fraction | mpmath.mpf
"""An exact number: a ``Fraction`` (rational e^u) or an mpmath ``mpf`` at the working precision."""

MAX_ROUND_EPSILON = 20.0
"""The largest per-round budget u = ε/L the round rules accept (ε = inf, the noiseless test
mode, aside). The samplers flip a report with the float probability 1/(1 + e^u); for u <= 20
it is >= 2·10^-9 and represented to a relative 10^-7, beyond that it would round towards no
noise at all (a sampler that no longer follows the exact law), so larger u is refused."""

MAX_EXACT_BITS = 60
"""The largest numerator and denominator (in bits) of an exact e^u: the exact laws' rationals
grow by that many bits per user and round."""

MAX_EXACT_WORK = 3 * 10**8
"""The exact laws' budget (about 10 s): with rational e^u, Σ over the distinct counts k of
N·(N·b) bit-operations (b the bits of e^u's numerator and denominator); with a float ε (mpmath
at 60 digits), 300 times the number of binomial terms N per distinct k. Larger inputs are
refused with ``ValueError`` before any work (:func:`check_exact_work`)."""

_MP_TERM_COST = 3000


def check_exp_u(exp_u: Any, name: str = "exp_u") -> Fraction:
    """e^u given exactly: an int or Fraction > 1 with u = ln(e^u) <= :data:`MAX_ROUND_EPSILON`
    and numerator and denominator of at most :data:`MAX_EXACT_BITS` bits."""
    if isinstance(exp_u, bool | np.bool_) or not isinstance(
        exp_u, Fraction | numbers.Integral | np.integer
    ):
        raise ParameterError(
            name,
            "must be an int or Fraction > 1 (the exact e^(ε/L))",
            f"{exp_u!r:.80}",
        )
    value = Fraction(int(exp_u)) if isinstance(exp_u, np.integer) else Fraction(exp_u)
    if value <= 1:
        raise ParameterError(
            name,
            "must be an int or Fraction > 1 (the exact e^(ε/L))",
            f"{value!s:.80}",
        )
    if max(value.numerator.bit_length(), value.denominator.bit_length()) > MAX_EXACT_BITS:
        raise ParameterError(
            name,
            f"must have a numerator and denominator of at most {MAX_EXACT_BITS} bits",
        )
    if value > _MAX_EXP_U:
        raise ParameterError(
            name,
            f"must be at most e^{MAX_ROUND_EPSILON:g} (a per-round budget u <= "
            f"{MAX_ROUND_EPSILON:g}, where the samplers' flip probability is representable)",
            f"{float(value):.4g}",
        )
    return value


_MAX_EXP_U = Fraction(math.exp(MAX_ROUND_EPSILON))


MIN_ROUND_EPSILON = 2.0**-1000
"""The smallest per-round budget u = ε/L: the debiasing factor c = coth(u/2) ≈ 2/u (and Φ′)
must fit a float."""


def check_round_budget(epsilon: float, levels: int, name: str = "epsilon") -> float:
    """ε with :data:`MIN_ROUND_EPSILON` <= ε/L <= :data:`MAX_ROUND_EPSILON` (or ε = inf, the
    noiseless mode)."""
    if math.isfinite(epsilon) and not MIN_ROUND_EPSILON <= epsilon / levels <= MAX_ROUND_EPSILON:
        raise ParameterError(
            name,
            f"must satisfy 2^-1000 <= {name}/levels <= {MAX_ROUND_EPSILON:g} (per-round budgets "
            "where the samplers' flip probability 1/(1 + e^u) and the estimate Φ′ are "
            "representable)",
            f"{name} = {epsilon!r} with levels = {levels}",
        )
    return epsilon


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

    def __post_init__(self) -> None:
        n = check_users(self.n, "n")
        levels = check_levels(self.levels)
        gamma = check_positive(self.gamma, "gamma")
        if self.exp_u is not None:
            exp_u = check_exp_u(self.exp_u)
            epsilon = epsilon_of_exp_u(exp_u, levels)
            if self.epsilon != epsilon:
                raise ParameterError(
                    "epsilon",
                    "must equal L·ln(exp_u) rounded up when exp_u is given; build the rule with "
                    "round_rule",
                )
        else:
            exp_u = None
            epsilon = check_round_budget(check_epsilon_or_inf(self.epsilon), levels)
        threshold = check_int(self.threshold, "threshold")
        if threshold != left_threshold(n, levels, gamma, epsilon, exp_u):
            raise ParameterError(
                "threshold",
                "must be m* of left_threshold; build the rule with round_rule",
            )
        for name, value in (("n", n), ("levels", levels), ("gamma", gamma)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "exp_u", exp_u)
        object.__setattr__(self, "threshold", threshold)

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
    levels = check_levels(levels)
    dps = check_int(dps, "dps", minimum=15, maximum=10_000)
    if exp_u is not None:
        exp_u = check_exp_u(exp_u)
        return (exp_u - 1) / (exp_u + 1)
    epsilon = check_epsilon_or_inf(epsilon)
    if math.isinf(epsilon):
        return Fraction(1)
    with mpmath.workdps(dps):
        return mpmath.tanh(mpmath.mpf(epsilon) / (2 * levels))


def ceil_crossing(half_n: Fraction, slope: Fraction, u: Any, name: str = "epsilon") -> int:
    """⌈x⌉ for x = half_n·(1 + slope·tanh(u/2)), ``u`` > 0 a float (tanh transcendental).

    Written x = A + D·t (A = half_n, D = half_n·slope, t = tanh(u/2) ∈ (0, 1)), or
    x = (A + D) − D·s with s = 1 − t = 2/(e^u + 1) when t > 1/2, so that the small term is
    computed to a *relative* precision of ``dps`` digits whatever u is. x is never an integer
    (tanh(u/2) is irrational for rational u != 0 and D != 0), so with m the integer nearest to
    an approximation of x, the sign of (A − m) + D·t (exact rational plus a relatively precise
    product) decides ⌈x⌉; the precision is raised from 60 to 1000 digits until it does."""
    a, d = Fraction(half_n), Fraction(half_n) * Fraction(slope)
    if d == 0:
        return math.ceil(a)
    for dps in (60, 200, 1000):
        with mpmath.workdps(dps):
            uu = to_mpf(u)
            t = mpmath.tanh(uu / 2)
            if t <= mpmath.mpf(1) / 2:
                base, small = a, to_mpf(d) * t
            else:
                base, small = a + d, -to_mpf(d) * (2 / (mpmath.exp(uu) + 1))
            m = int(mpmath.nint(to_mpf(base) + small))
            rest = to_mpf(base - m)
            value = rest + small
            scale = abs(rest) + abs(small)
            if abs(value) > scale * mpmath.mpf(10) ** (10 - dps):
                return m + 1 if value > 0 else m
    raise ValueError(
        f"{name}: the threshold N(1 + (2γ − 1)tanh(u/2))/2 cannot be separated from an integer "
        f"at 1000 digits"
    )


def left_threshold(
    n: int, levels: int, gamma: float, epsilon: float, exp_u: Fraction | None = None
) -> int:
    """m* = ⌈N(1 + (2γ − 1)·tanh(u/2))/2⌉ clipped to [0, N + 1]: go left iff P >= m*.

    γ is read as its exact binary value (or an exact Fraction). With rational e^u (or ε = inf)
    the value is exact. With a float ε, tanh(u/2) is transcendental, so N(2γ − 1)tanh(u/2)/2 is
    an integer or half-integer only when γ = 1/2; otherwise the ceiling is decided by
    :func:`ceil_crossing` (relative precision, whatever ε)."""
    n = check_users(n, "n")
    levels = check_levels(levels)
    g = check_fraction(gamma, "gamma", positive=True)
    if exp_u is not None:
        exp_u = check_exp_u(exp_u)
        t: Exact = (exp_u - 1) / (exp_u + 1)
    else:
        epsilon = check_epsilon_or_inf(epsilon)
        t = Fraction(1) if math.isinf(epsilon) else None
    if g == Fraction(1, 2):
        m = math.ceil(Fraction(n, 2))
    elif t is not None:
        m = math.ceil(Fraction(n, 2) * (1 + (2 * g - 1) * t))
    else:
        m = ceil_crossing(Fraction(n, 2), 2 * g - 1, Fraction(epsilon) / levels)
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
    n = check_users(n, "n")
    levels = check_levels(levels)
    gamma = check_positive(gamma, "gamma")
    if (epsilon is None) == (exp_u is None):
        raise ValueError("epsilon, exp_u: give exactly one of epsilon and exp_u")
    if exp_u is not None:
        exp_u = check_exp_u(exp_u)
        epsilon = epsilon_of_exp_u(exp_u, levels)
    else:
        epsilon = check_round_budget(check_epsilon_or_inf(epsilon), levels)
    m = left_threshold(n, levels, gamma, epsilon, exp_u)
    return RoundRule(n, levels, gamma, epsilon, exp_u, m)


def check_epsilon_matches_exp_u(epsilon: float, exp_u: Any, levels: int, builder: str) -> Fraction:
    """``exp_u`` checked, and ``epsilon`` required to be L·ln(exp_u) rounded up (as ``builder``,
    e.g. ``LDPMinimum.with_exp_u``, sets it)."""
    exp_u = check_exp_u(exp_u)
    if epsilon != epsilon_of_exp_u(exp_u, levels):
        raise ParameterError(
            "epsilon",
            f"must equal L·ln(exp_u) rounded up when exp_u is given; build it with {builder}",
        )
    return exp_u


def epsilon_of_exp_u(exp_u: Fraction, levels: int) -> float:
    """L·ln(e^u) as the smallest float >= the true value."""
    exp_u, levels = check_exp_u(exp_u), check_levels(levels)
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


def _exact_work(n: int, distinct_counts: int, exp_u: Fraction | None, terms: int = 0) -> int:
    """The cost, in the units of :data:`MAX_EXACT_WORK`, of exact laws for N = ``n`` users at
    ``distinct_counts`` counts k with ``terms`` products each (N + 1 by default, the two
    binomial laws): each product costs N·b bit-operations with rational e^u (b the bits of its
    numerator and denominator: the numbers have about N·b bits), a constant otherwise."""
    total = distinct_counts * (terms or n + 1)
    if exp_u is None:
        return total * _MP_TERM_COST
    bits = exp_u.numerator.bit_length() + exp_u.denominator.bit_length()
    return total * max(1, n * bits)


def check_exact_work(
    n: int, distinct_counts: int, exp_u: Fraction | None, what: str, terms: int = 0
) -> None:
    """ValueError naming ``what`` (the inputs) when :func:`_exact_work` exceeds
    :data:`MAX_EXACT_WORK` (the exact law would take more than about 10 s)."""
    work = _exact_work(n, distinct_counts, exp_u, terms)
    if work > MAX_EXACT_WORK:
        raise ValueError(
            f"{what}: the exact law is too large to compute here (N = {n}, {distinct_counts} "
            f"distinct counts k, cost {work:.3g} > the limit {MAX_EXACT_WORK:.3g} of about 10 s; "
            f"see round_statistic.MAX_EXACT_WORK): use fewer users or levels, or the float laws"
        )


def check_rule(rule: Any, n: int | None = None) -> RoundRule:
    """A :class:`RoundRule` (built for N = ``n`` users when given)."""
    if not isinstance(rule, RoundRule):
        raise ParameterError("rule", "must be a RoundRule (see round_rule)", type(rule).__name__)
    if n is not None and rule.n != n:
        raise ValueError(f"rule was built for N = {rule.n} users, but the data has {n} values")
    return rule


def _check_k(rule: RoundRule, k: Any) -> int:
    k = check_int(k, "k", minimum=0)
    if k > rule.n:
        raise ParameterError("k", f"must lie in [0, {rule.n}]", k)
    return k


def _two_binomial_laws(rule: RoundRule, k: int) -> tuple[list[Exact], list[Exact], Any]:
    """The exact laws of Bin(k, p) (the "+1" reports of users with x_i <= τ that are kept) and
    Bin(N − k, 1 − p) (the flipped reports of the others), and the arithmetic context to use."""
    rule = check_rule(rule)
    k = _check_k(rule, k)
    p = rule.keep_exact()
    ctx = workdps() if not isinstance(p, Fraction) else nullcontext()
    return _binomial_pmf_exact(k, p), _binomial_pmf_exact(rule.n - k, 1 - p), ctx


def plus_count_pmf_exact(rule: RoundRule, k: int) -> list[Exact]:
    """The exact law of P = Bin(k, p) + Bin(N − k, 1 − p): entry j is P(P = j), j = 0..N."""
    rule = check_rule(rule)
    k = _check_k(rule, k)
    pairs = (k + 1) * (rule.n - k + 1)  # the convolution's products
    check_exact_work(rule.n, 1, rule.exp_u, "rule, k", terms=max(pairs, rule.n + 1))
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
    """P(go left | k) = P(P >= m*) exactly (O(N) from the two binomial laws; refused beyond
    :data:`MAX_EXACT_WORK`)."""
    rule = check_rule(rule)
    check_exact_work(rule.n, 1, rule.exp_u, "rule")
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
    rule = check_rule(rule)
    k = _check_k(rule, k)
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
    "MAX_EXACT_BITS",
    "MAX_EXACT_WORK",
    "MAX_ROUND_EPSILON",
    "MIN_ROUND_EPSILON",
    "RoundRule",
    "ceil_crossing",
    "check_epsilon_matches_exp_u",
    "check_exact_work",
    "check_exp_u",
    "check_round_budget",
    "check_rule",
    "epsilon_of_exp_u",
    "left_probability",
    "left_probability_exact",
    "left_threshold",
    "plus_count_pmf_exact",
    "round_rule",
    "tanh_half_u",
]
