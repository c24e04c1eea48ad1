"""Exact laws and bounds behind the concentration lemmas of aamand25.

The checks in ``proofs_checks/test_aamand25.py`` compare each printed bound with an exact
computation:

* Lemma 4.1 / Lemma 3.1 (sampling without replacement): the number ``Y_i`` of zeros among the
  items not yet drawn is hypergeometric; the running deviation ``X_i = Y_i/(N − i) − Y_0/N`` is a
  martingale whose exact maximal tail is a dynamic programme over ``(i, Y_i)`` with ``Fraction``
  probabilities (:func:`max_deviation_tail`), cross-checked by enumerating the ``C(N, k)`` zero
  patterns (:func:`max_deviation_tail_by_enumeration`);
* Theorem A.2 (Azuma): the ±1 random walk, exact by dynamic programming and by the reflection
  principle;
* Theorem A.3 (Bernstein) as printed (no factor 2) and in its standard two-sided form, against
  exact Binomial and Rademacher tails;
* Lemmas G.1 / G.2 and Theorem G.3: the sample-size brackets as printed and as the proofs derive
  them (``notes/aamand25.md`` erratum 3), and the exact tail of the debiased RR estimate.

Theorem F.1's hard family and Fano step are in :mod:`.lower_bound`.

Probabilities are ``Fraction`` where the law is rational; bounds involving ``exp``/``log`` are
``mpmath`` values at the project precision (:func:`dpquant.reference.exact.mp.workdps`).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import (
    check_epsilon,
    check_flag,
    check_fraction,
    check_int,
    check_probability,
)

MAX_URN = 400
"""The largest urn (``total`` items) of the exact dynamic programmes over (i, Y_i): O(total²)
``Fraction`` steps."""

MAX_ENUMERATED = 10**6
"""The most zero patterns C(total, zeros) :func:`max_deviation_tail_by_enumeration` walks."""

MAX_WALK = 400
"""The longest ±1 walk of :func:`random_walk_max_tail` (an O(n²) exact programme)."""

MAX_SUM_TERMS = 5000
"""The largest n of the exact sums over 0..n (:func:`random_walk_one_sided_max_tail`,
:func:`rademacher_mean_deviation_tail`); :func:`binomial_mean_deviation_tail` allows
:data:`MAX_BINOMIAL_TERMS` (its terms are rational powers)."""

MAX_BINOMIAL_TERMS = 1000

MAX_TAIL_USERS = 10**5
"""The largest n of :func:`lemma_g1_exact_tail` (one mpmath term per count)."""

MAX_CONVOLVED = 20_000
"""The largest n of :func:`lemma_g2_exact_tail` (an O(n²) float convolution)."""

# --------------------------------------------------------------------------------------------
# Sampling without replacement: Lemma 4.1 and Lemma 3.1
# --------------------------------------------------------------------------------------------


def _check_urn(total: Any, zeros: Any, cap: int = MAX_URN) -> tuple[int, int]:
    total = check_int(total, "total", minimum=1, maximum=cap)
    zeros = check_int(zeros, "zeros", minimum=0)
    if zeros > total:
        raise ParameterError("zeros", f"must lie in [0, {total}]", zeros)
    return total, zeros


def _check_steps(steps: Any, total: int, name: str = "steps") -> int:
    steps = check_int(steps, name, minimum=0)
    if steps > total - 1:
        raise ParameterError(name, f"must lie in [0, {total - 1}] (X_i needs total − i > 0)", steps)
    return steps


def remaining_zeros_law(total: int, zeros: int, t: int) -> dict[int, Fraction]:
    """Exact law of ``Y_t``, the zeros among the ``total − t`` items left after ``t`` draws.

    Lemma 3.1 / 4.1 (as in the proof of Lemma 4.1): with the items in uniformly random order the
    remaining items are a uniform ``(total − t)``-subset, so
    ``Y_t ~ Hypergeometric(total, zeros, total − t)``:
    ``Pr[Y_t = y] = C(zeros, y)·C(total − zeros, total − t − y)/C(total, total − t)``.
    """
    total, zeros = _check_urn(total, zeros)
    t = check_int(t, "t", minimum=0)
    if t > total:
        raise ParameterError("t", f"must lie in [0, {total}]", t)
    left = total - t
    denom = math.comb(total, left)
    law = {}
    for y in range(max(0, left - (total - zeros)), min(zeros, left) + 1):
        law[y] = Fraction(math.comb(zeros, y) * math.comb(total - zeros, left - y), denom)
    return law


def deviation_probability(total: int, zeros: int, t: int, alpha: Any) -> Fraction:
    """``Pr[|Y_t/(total − t) − zeros/total| ≥ α]`` exactly, for one fixed ``t`` (Lemma 3.1).

    With ``total = n`` users and ``zeros`` users above the threshold j, this is
    ``Pr[|p_j^t − p_j^0| ≥ α]`` (p counts ones, ``p = 1 − Y/(n − t)``: same deviation).
    """
    total, zeros = _check_urn(total, zeros)
    t = _check_steps(t, total, "t")
    a = check_fraction(alpha, "alpha", nonnegative=True)
    base = Fraction(zeros, total)
    law = remaining_zeros_law(total, zeros, t)
    return sum((p for y, p in law.items() if abs(Fraction(y, total - t) - base) >= a), Fraction(0))


def max_deviation_tail(total: int, zeros: int, steps: int, threshold: Any) -> Fraction:
    """``Pr[max_{1≤i≤steps} |X_i| ≥ threshold]`` exactly, ``X_i = Y_i/(total − i) − zeros/total``.

    Dynamic programme over ``(i, Y_i)`` (proof of Lemma 4.1: the (i+1)-th draw is a zero with
    probability ``Y_i/(total − i)``); paths are absorbed the first time ``|X_i| ≥ threshold``.
    """
    total, zeros = _check_urn(total, zeros)
    steps = _check_steps(steps, total)
    thr = check_fraction(threshold, "threshold", nonnegative=True)
    base = Fraction(zeros, total)
    alive: dict[int, Fraction] = {zeros: Fraction(1)}
    hit = Fraction(0)
    for i in range(steps):
        rem = total - i
        nxt: dict[int, Fraction] = {}
        for y, p in alive.items():
            for y_new, count in ((y - 1, y), (y, rem - y)):
                if count == 0:
                    continue
                q = p * Fraction(count, rem)
                if abs(Fraction(y_new, rem - 1) - base) >= thr:
                    hit += q
                else:
                    nxt[y_new] = nxt.get(y_new, Fraction(0)) + q
        alive = nxt
    return hit


def max_deviation_tail_by_enumeration(
    total: int, zeros: int, steps: int, threshold: Any
) -> Fraction:
    """The same tail by enumerating all ``C(total, zeros)`` equally likely zero positions.

    Slow (exponential); for cross-checking :func:`max_deviation_tail` on tiny inputs.
    """
    total, zeros = _check_urn(total, zeros)
    steps = _check_steps(steps, total)
    thr = check_fraction(threshold, "threshold", nonnegative=True)
    if math.comb(total, zeros) > MAX_ENUMERATED:
        raise ValueError(
            f"total and zeros give C(total, zeros) = {math.comb(total, zeros)} zero patterns; "
            f"the enumeration walks at most {MAX_ENUMERATED}"
        )
    base = Fraction(zeros, total)
    hits = count = 0
    for positions in itertools.combinations(range(1, total + 1), zeros):
        count += 1
        y = zeros
        pos = set(positions)
        for i in range(1, steps + 1):
            y -= i in pos
            if abs(Fraction(y, total - i) - base) >= thr:
                hits += 1
                break
    return Fraction(hits, count)


def lemma_4_1_x(n: int, k: int, i: int, y: int) -> Fraction:
    """Lemma 4.1: ``X_i = Y_i/(2n − i) − Y_0/(2n)`` with ``Y_0 = k`` zeros among ``2n`` bits."""
    n = check_int(n, "n", minimum=1, maximum=2**62)
    _, k = _check_urn(2 * n, k, cap=2**63)
    i = _check_steps(i, 2 * n, "i")
    y = check_int(y, "y", minimum=0)
    if y > min(k, 2 * n - i):
        raise ParameterError("y", f"must lie in [0, {min(k, 2 * n - i)}]", y)
    return Fraction(y, 2 * n - i) - Fraction(k, 2 * n)


def lemma_4_1_next_values(n: int, k: int, i: int, y: int) -> list[tuple[Fraction, Fraction]]:
    """The possible ``(probability, X_{i+1})`` given ``Y_i = y`` (proof of Lemma 4.1).

    The next draw is a zero with probability ``y/(2n − i)`` (then ``Y_{i+1} = y − 1``), else
    ``Y_{i+1} = y``. Needs ``i ≤ 2n − 2`` so that ``X_{i+1}`` is defined.
    """
    lemma_4_1_x(n, k, i, y)
    n, k, i, y = int(n), int(k), int(i), int(y)  # checked: Python ints from here on
    if i > 2 * n - 2:
        raise ParameterError("i", f"must lie in [0, {2 * n - 2}] for X_(i+1) to exist", i)
    rem = 2 * n - i
    out = []
    for y_new, count in ((y - 1, y), (y, rem - y)):
        if count:
            out.append((Fraction(count, rem), Fraction(y_new, rem - 1) - Fraction(k, 2 * n)))
    return out


def lemma_4_1_exact_tail(n: int, k: int, t: Any) -> Fraction:
    """Lemma 4.1: ``Pr[max_{1≤i≤n} |X_i| ≥ t]`` exactly for ``k`` zeros among ``2n`` bits."""
    n = check_int(n, "n", minimum=1, maximum=MAX_URN // 2)
    return max_deviation_tail(2 * n, k, n, t)


def lemma_4_1_bound(n: int, t: Any) -> mpmath.mpf:
    """Lemma 4.1's bound ``2·exp(−t²n/2)`` (Azuma on ``n·X_i``, increments ≤ 1)."""
    n = check_int(n, "n", minimum=1)
    with workdps():
        tt = to_mpf(check_fraction(t, "t", nonnegative=True))
        return 2 * mpmath.exp(-(tt**2) * n / 2)


def lemma_3_1_exact_tail(n: int, ones: int, alpha: Any) -> Fraction:
    """Lemma 3.1 for one threshold j: ``Pr[max_{0≤t≤n/2} |p_j^t − p_j^0| ≥ α]`` exactly.

    ``n`` users of which ``ones`` satisfy ``x ≤ j``; the zeros are the other ``n − ones``.
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_URN)
    ones = check_int(ones, "ones", minimum=0)
    if ones > n:
        raise ParameterError("ones", f"must lie in [0, {n}]", ones)
    return max_deviation_tail(n, n - ones, n // 2, alpha)


def lemma_3_1_bound_printed(n: int, alpha: Any) -> mpmath.mpf:
    """The per-j bound printed in the proof of Lemma 3.1: ``2·exp(−α²n/2)``."""
    return lemma_4_1_bound(check_int(n, "n", minimum=1), alpha)


def lemma_3_1_bound_proof(n: int, alpha: Any) -> mpmath.mpf:
    """What the proof of Lemma 3.1 actually gives for ``n`` users: ``2·exp(−α²n/4)``.

    ``notes/aamand25.md`` erratum 4: Lemma 4.1 is applied to ``2n' = n`` bits and controls
    ``max_{i ≤ n'}``, so its bound is ``2·exp(−α²n'/2) = 2·exp(−α²n/4)``.
    """
    n = check_int(n, "n", minimum=1)
    with workdps():
        a = to_mpf(check_fraction(alpha, "alpha", nonnegative=True))
        return 2 * mpmath.exp(-(a**2) * n / 4)


# --------------------------------------------------------------------------------------------
# Azuma (Theorem A.2) on the ±1 random walk
# --------------------------------------------------------------------------------------------


def azuma_bound(n: int, t: Any) -> mpmath.mpf:
    """Theorem A.2: ``Pr[max_{1≤i≤n} |X_i| ≥ t] ≤ 2·exp(−t²/(2n))`` for increments ≤ 1."""
    n = check_int(n, "n", minimum=1)
    with workdps():
        tt = to_mpf(check_fraction(t, "t", nonnegative=True))
        return 2 * mpmath.exp(-(tt**2) / (2 * n))


def random_walk_max_tail(n: int, t: Any) -> Fraction:
    """``Pr[max_{1≤i≤n} |S_i| ≥ t]`` for the simple ±1 random walk, exact (DP with absorption)."""
    n = check_int(n, "n", minimum=1, maximum=MAX_WALK)
    thr = check_fraction(t, "t", nonnegative=True)
    if thr == 0:
        return Fraction(1)
    alive = {0: Fraction(1)}
    hit = Fraction(0)
    half = Fraction(1, 2)
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for s, p in alive.items():
            for s_new in (s - 1, s + 1):
                if abs(s_new) >= thr:
                    hit += p * half
                else:
                    nxt[s_new] = nxt.get(s_new, Fraction(0)) + p * half
        alive = nxt
    return hit


def random_walk_one_sided_max_tail(n: int, a: int) -> Fraction:
    """``Pr[max_{1≤i≤n} S_i ≥ a]`` by the reflection principle: ``P(S_n ≥ a) + P(S_n > a)``.

    For an integer level ``a ≥ 1`` (reflect the path after its first visit to ``a``).
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_SUM_TERMS)
    a = check_int(a, "a", minimum=1)
    total = 2**n

    def at_least(level: int) -> int:
        # S_n = 2K − n with K ~ Binomial(n, 1/2)
        return sum(math.comb(n, k) for k in range(n + 1) if 2 * k - n >= level)

    return Fraction(at_least(a) + at_least(a + 1), total)


# --------------------------------------------------------------------------------------------
# Bernstein (Theorem A.3)
# --------------------------------------------------------------------------------------------


def _bernstein_exponent(n: int, alpha: Any, sigma2: Any) -> mpmath.mpf:
    n = check_int(n, "n", minimum=1)
    a = to_mpf(check_fraction(alpha, "alpha", positive=True))
    s2 = to_mpf(check_fraction(sigma2, "sigma2", nonnegative=True))
    return -n * a**2 / (2 * s2 + 2 * a / 3)


def bernstein_as_stated(n: int, alpha: Any, sigma2: Any) -> mpmath.mpf:
    """Theorem A.3 as printed: ``exp(−nα²/(2σ² + 2α/3))`` for the two-sided event (no factor 2)."""
    with workdps():
        return mpmath.exp(_bernstein_exponent(n, alpha, sigma2))


def bernstein_two_sided(n: int, alpha: Any, sigma2: Any) -> mpmath.mpf:
    """The standard two-sided Bernstein bound ``2·exp(−nα²/(2σ² + 2α/3))`` for ``|X_i − EX_i| ≤ 1``.

    The form Thm A.3 should state (``notes/aamand25.md`` erratum 3; Wainwright 2019, Prop. 2.10
    with b = 1, applied to both tails).
    """
    with workdps():
        return 2 * mpmath.exp(_bernstein_exponent(n, alpha, sigma2))


def binomial_mean_deviation_tail(n: int, p: Any, alpha: Any, *, strict: bool = True) -> Fraction:
    """``Pr[|S/n − p| > α]`` (``≥`` when ``strict=False``) for ``S ~ Binomial(n, p)``, exact.

    ``p`` rational (floats are converted exactly).
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_BINOMIAL_TERMS)
    strict = check_flag(strict, "strict")
    pp = check_fraction(p, "p", nonnegative=True)
    if pp > 1:
        raise ParameterError("p", "must lie in [0, 1]", repr(p))
    a = check_fraction(alpha, "alpha", nonnegative=True)
    out = Fraction(0)
    for s in range(n + 1):
        dev = abs(Fraction(s, n) - pp)
        if dev > a or (not strict and dev == a):
            out += math.comb(n, s) * pp**s * (1 - pp) ** (n - s)
    return out


def rademacher_mean_deviation_tail(n: int, alpha: Any, *, strict: bool = True) -> Fraction:
    """``Pr[|S/n| > α]`` (``≥`` when ``strict=False``) for a sum of ``n`` independent ±1 signs."""
    n = check_int(n, "n", minimum=1, maximum=MAX_SUM_TERMS)
    strict = check_flag(strict, "strict")
    a = check_fraction(alpha, "alpha", nonnegative=True)
    hits = 0
    for k in range(n + 1):
        dev = Fraction(abs(2 * k - n), n)
        if dev > a or (not strict and dev == a):
            hits += math.comb(n, k)
    return Fraction(hits, 2**n)


# --------------------------------------------------------------------------------------------
# Lemmas G.1 / G.2 and Theorem G.3
# --------------------------------------------------------------------------------------------


def _g_params(alpha: Any, epsilon: Any) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(α, e^ε, e^ε − 1), the last by expm1 (no cancellation at tiny ε)."""
    a = to_mpf(check_probability(alpha, "alpha", open_left=True))
    e = to_mpf(check_epsilon(epsilon))
    return a, mpmath.exp(e), mpmath.expm1(e)


def lemma_g2_bracket(alpha: Any, epsilon: Any) -> mpmath.mpf:
    """Lemma G.2 (proof = statement): ``2e^ε/(α²(e^ε − 1)²) + 2(e^ε + 1)/(3α(e^ε − 1))``."""
    with workdps():
        a, E, Em1 = _g_params(alpha, epsilon)
        return 2 * E / (a**2 * Em1**2) + 2 * (E + 1) / (3 * a * Em1)


def lemma_g1_bracket(p: Any, alpha: Any, epsilon: Any) -> mpmath.mpf:
    """Lemma G.1 as its proof derives it: ``2p(1 − p)/α² + [Lemma G.2 bracket]`` (erratum 3)."""
    with workdps():
        pp = to_mpf(check_probability(p, "p"))
        a = to_mpf(check_probability(alpha, "alpha", open_left=True))
        return 2 * pp * (1 - pp) / a**2 + lemma_g2_bracket(alpha, epsilon)


def lemma_g1_bracket_as_printed(p: Any, alpha: Any, epsilon: Any) -> mpmath.mpf:
    """Lemma G.1's statement as printed: ``2p(1−p)/α² + e^ε/(α²(e^ε−1)²) + 2(e^ε+1)/(4α(e^ε−1))``.

    Two misprints against the proof (``notes/aamand25.md`` erratum 3): the factor 2 of the middle
    term is missing and the last denominator has 4α for 3α (and the statement reads "n ≤" for
    "n ≥").
    """
    with workdps():
        pp = to_mpf(check_probability(p, "p"))
        a, E, Em1 = _g_params(alpha, epsilon)
        return 2 * pp * (1 - pp) / a**2 + E / (a**2 * Em1**2) + 2 * (E + 1) / (4 * a * Em1)


def bernstein_bracket(sigma2: Any, t: Any) -> mpmath.mpf:
    """``2σ²/t² + 2/(3t)``: the n solving ``exp(−nt²/(2σ² + 2t/3)) = β`` is this times ln(1/β)."""
    with workdps():
        s2 = _exact_real(sigma2, "sigma2")
        tt = _exact_real(t, "t")
        if s2 < 0:
            raise ParameterError("sigma2", "must be >= 0", repr(sigma2))
        if not tt > 0:
            raise ParameterError("t", "must be > 0", repr(t))
        return 2 * s2 / tt**2 + 2 / (3 * tt)


def _exact_real(x: Any, name: str) -> mpmath.mpf:
    """A finite mpf as it is, any other value through :func:`check_fraction` (exactly)."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ParameterError(name, "must be a finite real number", x)
        return x
    return to_mpf(check_fraction(x, name))


def _check_beta(beta: Any) -> mpmath.mpf:
    return to_mpf(check_probability(beta, "beta", open_left=True, open_right=True))


def lemma_g1_sample_size(p: Any, alpha: Any, epsilon: Any, beta: Any) -> mpmath.mpf:
    """Lemma G.1 (proof form): ``n ≥ bracket·ln(1/β)`` suffices for ``Pr[|p̂ − p| > α] < β``."""
    with workdps():
        return lemma_g1_bracket(p, alpha, epsilon) * mpmath.log(1 / _check_beta(beta))


def lemma_g2_sample_size(alpha: Any, epsilon: Any, beta: Any) -> mpmath.mpf:
    """Lemma G.2's sample size ``bracket·ln(1/β)``, claimed sufficient for ``Pr[|P̂ − P| > α] ≤ β``.

    The claim fails for small n and large β (n = 2, ε = 1, α = 0.49, β = 0.9: tail 1; refuted in
    ``notes/claims.toml``); at small β the exact tails stay below β.
    """
    with workdps():
        return lemma_g2_bracket(alpha, epsilon) * mpmath.log(1 / _check_beta(beta))


def theorem_g3_sample_size(alpha: Any, epsilon: Any, beta: Any, B: int) -> mpmath.mpf:
    """Theorem G.3: ``[G.2 bracket]·r·ln(r/β)`` with ``r = lg B`` rounds (n ≥, not ≤; erratum 3).

    Each of the ``r`` rounds gets ``n/r`` users and failure budget ``β/r`` (Lemma G.2), then a union
    bound. "log B" is read as ``lg B`` (the number of rounds, ``notes/aamand25.md`` "Log bases");
    the failure log is natural (Bernstein).
    """
    B = check_int(B, "B", minimum=2)
    with workdps():
        r = mpmath.log(B, 2)
        return lemma_g2_bracket(alpha, epsilon) * r * mpmath.log(r / _check_beta(beta))


def rr_report_probability(p: Any, epsilon: Any) -> mpmath.mpf:
    """``Pr[RR_ε(x) = 1] = tanh(ε/2)·p + 1/(e^ε + 1)`` for ``x ~ Bernoulli(p)`` (proof of G.1)."""
    with workdps():
        pp = to_mpf(check_probability(p, "p"))
        e = to_mpf(check_epsilon(epsilon))
        return mpmath.tanh(e / 2) * pp + 1 / (mpmath.exp(e) + 1)


def lemma_g1_exact_tail(n: int, p: Any, alpha: Any, epsilon: Any) -> mpmath.mpf:
    """``Pr[|p̂ − p| > α]`` exactly (mpmath) for ``n`` i.i.d. Bernoulli(p) users through ε-RR.

    ``p̂ − p = (Ȳ − E Ȳ)/tanh(ε/2)`` with ``nȲ ~ Binomial(n, q)``, ``q = rr_report_probability``.
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_TAIL_USERS)
    with workdps():
        a, _, _ = _g_params(alpha, epsilon)
        q = rr_report_probability(p, epsilon)
        t = a * mpmath.tanh(to_mpf(check_epsilon(epsilon)) / 2)
        lo = int(mpmath.ceil(n * (q - t)))
        hi = int(mpmath.floor(n * (q + t)))
        inside = mpmath.mpf(0)
        for s in range(max(lo, 0), min(hi, n) + 1):
            if abs(mpmath.mpf(s) / n - q) <= t:
                inside += mpmath.binomial(n, s) * q**s * (1 - q) ** (n - s)
        return 1 - inside


def lemma_g2_exact_tail(n: int, ones: int, alpha: float, epsilon: float) -> float:
    """``Pr[|P̂ − P| > α]`` for fixed bits (``ones`` of ``n`` are 1) through ε-RR (Lemma G.2).

    The report sum is ``Binomial(ones, keep) + Binomial(n − ones, 1 − keep)``; its law is the
    convolution of the two pmfs, computed in float64 (absolute error ~1e-15, far below the margins
    the tests use).
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_CONVOLVED)
    ones = check_int(ones, "ones", minimum=0)
    if ones > n:
        raise ParameterError("ones", f"must lie in [0, {n}]", ones)
    a = check_probability(alpha, "alpha", open_left=True)
    eps = check_epsilon(epsilon)
    keep = 1.0 / (1.0 + math.exp(-eps))
    pmf = np.convolve(
        stats.binom.pmf(np.arange(ones + 1), ones, keep),
        stats.binom.pmf(np.arange(n - ones + 1), n - ones, 1.0 - keep),
    )
    mean = ones * keep + (n - ones) * (1.0 - keep)
    t = a * math.tanh(eps / 2)
    s = np.arange(n + 1)
    return float(pmf[np.abs(s - mean) > n * t].sum())
