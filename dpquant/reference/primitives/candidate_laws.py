"""Exact laws of choosing one candidate from scores (issue 8): the log-probabilities of
permute-and-flip, of the exponential mechanism and of report-noisy-max with Laplace noise, at 60
digits from closed forms (:mod:`dpquant.reference.primitives.candidate_quantile` states them and
uses them).

Both integrals are integrals of polynomials (in t, or in e^{−z/b} on each piece between
consecutive utilities), expanded and integrated term by term at a working precision raised by
the digits their alternating coefficients can cancel; scores and scales are exact rationals.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import DPS, to_mpf, workdps
from dpquant.reference.validation import check_real_array

MAX_EXACT_CANDIDATES = 400
"""Most candidates of an exact law (permute-and-flip and the Laplace noisy max expand a polynomial
of that degree at about 60 + 0.48·degree digits)."""

MAX_LAPLACE_NOISY_MAX_WORK = 5 * 10**5
"""Bound on (distinct utilities)² × candidates for :func:`laplace_noisy_max_log_probabilities`
(that many high-precision operations: a few seconds)."""

MAX_LAPLACE_NOISY_MAX_SPREAD = 10**9
"""Largest (max − min utility)/scale of an exact Laplace noisy-max law: the closed form takes
exponentials of arguments up to that spread times the number of candidates, at a precision that
grows with its digits."""



def _exact(value: Any, name: str = "scores") -> Fraction:
    """A score as an exact Fraction (numpy integers and finite floats included)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return Fraction(int(value))
    return Fraction(float(check_real_array(value, name)))


def _exact_values(values: Any, name: str) -> list[Fraction]:
    """A non-empty sequence of exact real scores (ints and Fractions kept exact, floats read as
    their binary value), each of magnitude below 2^1000."""
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise ParameterError(
            name,
            "must be a non-empty sequence of real numbers",
            f"{values!r:.80}",
        )
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if not items:
        raise ParameterError(name, "must be a non-empty sequence of real numbers")
    out = []
    for v in items:
        if isinstance(v, bool | np.bool_) or not isinstance(
            v, Fraction | int | float | np.integer | np.floating
        ):
            raise ParameterError(name, "must hold real numbers", f"{v!r:.80}")
        f = _exact(v, name)
        if abs(f) > 2**1000:
            raise ParameterError(name, "must hold numbers of magnitude below 2^1000")
        out.append(f)
    return out


def _exact_scale(b: Any, name: str) -> Fraction:
    """A positive scale as an exact Fraction (float, int or Fraction)."""
    if isinstance(b, bool | np.bool_) or not isinstance(
        b, Fraction | int | float | np.integer | np.floating
    ):
        raise ParameterError(name, "must be a positive real number", f"{b!r:.80}")
    value = _exact(b, name)
    if not Fraction(1, 2**4000) <= value <= 2**4000:
        raise ParameterError(name, "must be a positive number in [2^-4000, 2^4000]", f"{b!r:.80}")
    return value


def _group(scores: list[Fraction]) -> tuple[list[Fraction], list[int], np.ndarray]:
    """Distinct score values (ascending), their multiplicities, and each candidate's group."""
    distinct = sorted(set(scores))
    index = {v: i for i, v in enumerate(distinct)}
    groups = np.array([index[k] for k in scores])
    counts = np.bincount(groups, minlength=len(distinct)).tolist()
    return distinct, counts, groups


def _guard_digits(degree: int, base: float) -> int:
    """Extra digits covering a cancellation of at most ``base``^degree, plus a margin."""
    return math.ceil(degree * math.log10(base)) + 20


def _times_linear_power(poly: list[Any], b: Any, m: int) -> list[Any]:
    """poly(y)·(1 − b·y)^m (coefficients, lowest degree first)."""
    for _ in range(m):
        poly = [poly[0]] + [poly[k] - b * poly[k - 1] for k in range(1, len(poly))] + [
            -b * poly[-1]
        ]
    return poly


def _over_linear(poly: list[Any], b: Any) -> list[Any]:
    """poly(y)/(1 − b·y) for a poly divisible by it: q_0 = p_0, q_k = p_k + b·q_{k−1}."""
    out = [poly[0]]
    for k in range(1, len(poly) - 1):
        out.append(poly[k] + b * out[-1])
    return out


def permute_and_flip_log_probabilities(scores: Any, b: Any) -> list[mpmath.mpf]:
    """log P(c_i) of permute-and-flip on the scores (lower is better) at scale b:
    P(c_i) = p_i ∫₀¹ ∏_{j≠i}(1 − p_j t) dt, p_j = exp(−(s_j − s_min)/b) ∈ (0, 1] (60 digits).

    ∏_j (1 − p_j t) is a polynomial of degree K (the number of candidates), expanded once; each
    group's integrand is it divided by its own factor (1 − p_i t), and ∫₀¹ t^k dt = 1/(k + 1).
    The coefficients' absolute values sum to at most ∏(1 + p_j) <= 2^K while the integral is at
    least ∫₀¹ (1 − t)^{K−1} dt = 1/K, so K·log10(2) extra digits absorb the cancellation.

    Args:
        scores: The candidates' scores.
        b: The scale.

    Returns:
        log P(c_i) for each candidate.
    """
    values = _exact_values(scores, "scores")
    scale = _exact_scale(b, "b")
    if len(values) > MAX_EXACT_CANDIDATES:
        raise ParameterError(
            "scores",
            f"must have at most {MAX_EXACT_CANDIDATES} entries for an exact permute-and-flip law",
            len(values),
        )
    distinct, counts, groups = _group(values)
    k_total = len(values)
    with mpmath.workdps(DPS + _guard_digits(k_total, 2.0) + len(str(k_total))):
        # p_j below 10^-(working digits + 10) is 0 to working precision in (1 − p_j t): dropping
        # it avoids exponentials of huge arguments (log p_j is kept exactly, below).
        cutoff = (mpmath.mp.dps + 10) * mpmath.log(10)
        gaps = [to_mpf((s - distinct[0]) / scale) for s in distinct]
        p = [mpmath.exp(-x) if x < cutoff else mpmath.mpf(0) for x in gaps]
        poly = [mpmath.mpf(1)]
        for ph, m in zip(p, counts, strict=True):
            poly = _times_linear_power(poly, ph, m)
        logs = []
        for x, pg in zip(gaps, p, strict=True):
            q = _over_linear(poly, pg)
            integral = mpmath.fsum(c / (k + 1) for k, c in enumerate(q))
            logs.append(-x + mpmath.log(integral))  # log p_g = −x exactly
    with workdps():
        return [+logs[g] for g in groups]


def exponential_log_probabilities(scores: Any, b: Any) -> list[mpmath.mpf]:
    """The exponential mechanism's log-probabilities on the scores, log P(c_i) ∝ −s_i/b.

    Args:
        scores: The candidates' scores (lower is better).
        b: The scale.

    Returns:
        −(s_i − s_min)/b for each candidate (unnormalised, 0 at the best candidates, so that
            the normaliser of :class:`DiscreteLaw` never adds log(K) to a huge value).
    """
    values = _exact_values(scores, "scores")
    scale = _exact_scale(b, "b")
    best = min(values)
    with workdps():
        return [-to_mpf((s - best) / scale) for s in values]


def laplace_noisy_max_log_probabilities(utilities: Any, scale: Any) -> list[mpmath.mpf]:
    """log P(argmax_i (u_i + Lap(scale)) = i) = log ∫ f(z − u_i) ∏_{j≠i} F(z − u_j) dz, in closed
    form (60 digits).

    In units x = z/scale with a_1 < ... < a_G the distinct utilities over the scale (multiplicities
    m_h, K candidates), cut the line at the a_h. On the piece [a_j, a_{j+1}] put v = e^{x − a_j}
    (v = e^{x − a_1} on (−∞, a_1]): F(x − a_h) = 1 − β_h/v for h <= j and α_h·v for h > j, with
    β_h = e^{a_h − a_j}/2 <= 1/2 and α_h = e^{a_j − a_h}/2, and f(x − a_g) = β_g/v (g <= j) or
    α_g·v (g > j). So the integrand times dx = dv/v is a monomial C_j·v^{R_j} (C_j = Π_{h>j}
    α_h^{m_h}, R_j = Σ_{h>j} m_h) times the polynomial Q_j(1/v) = Π_{h<=j}(1 − β_h/v)^{m_h}, divided
    by the candidate's own factor when g <= j (then times β_g/v), and the same for every g > j.
    Each term integrates in closed form: ∫ v^{n−1} dv = expm1(nΔ)/n over [1, e^Δ] (Δ when n = 0).
    Since β_h/v <= 1/2, |terms| sum to at most (3/2)^D against a value of at least (1/2)^D
    (D = degree of Q_j), so D·log10(3) extra digits absorb the cancellation.

    Args:
        utilities: The candidates' utilities u_i (higher is better).
        scale: The Laplace noise's scale.

    Returns:
        log P(argmax = i) for each candidate.
    """
    values = _exact_values(utilities, "utilities")
    beta = _exact_scale(scale, "scale")
    distinct, counts, groups = _group(values)
    if (distinct[-1] - distinct[0]) / beta > MAX_LAPLACE_NOISY_MAX_SPREAD:
        raise ValueError(
            f"(max − min of utilities)/scale must be at most {MAX_LAPLACE_NOISY_MAX_SPREAD:g} for "
            f"an exact Laplace noisy-max law (beyond, the losing candidates' probabilities are "
            f"below e^-1e9): scale >= "
            f"{float((distinct[-1] - distinct[0]) / MAX_LAPLACE_NOISY_MAX_SPREAD):.4g}, got "
            f"{scale!r:.80}"
        )
    k_total, n_groups = len(values), len(distinct)
    if k_total > MAX_EXACT_CANDIDATES or n_groups**2 * k_total > MAX_LAPLACE_NOISY_MAX_WORK:
        raise ParameterError(
            "utilities",
            f"must have at most {MAX_EXACT_CANDIDATES} entries and (distinct values)² × entries "
            f"<= {MAX_LAPLACE_NOISY_MAX_WORK} for an exact Laplace noisy-max law",
            f"{k_total} entries with {n_groups} distinct values",
        )
    # exp(x) of an x rounded at d digits is off by a factor e^{|x|·10^−d}: carry the digits of the
    # largest exponent, |a_G − a_1|, on top of the cancellation guard.
    spread = (distinct[-1] - distinct[0]) / beta
    digits = math.log10(spread.numerator) - math.log10(spread.denominator) if spread else 0.0
    extra = math.ceil(max(digits, 0.0)) + 6
    with mpmath.workdps(DPS + _guard_digits(k_total, 3.0) + extra):
        def diff(h: int, j: int) -> mpmath.mpf:
            """a_h − a_j = (u_h − u_j)/scale, from exact rationals."""
            return to_mpf((distinct[h] - distinct[j]) / beta)

        def power_integrals(j: int, lo: int, hi: int) -> dict[int, mpmath.mpf]:
            """{n: ∫ v^{n−1} dv over piece j} for lo <= n <= hi (v from 1 to e^{Δ_j}; from 0 to
            1 on the first piece, where n >= 1; from 1 to ∞ on the last, where n <= −1)."""
            if j == 0:
                return {n: mpmath.mpf(1) / n for n in range(lo, hi + 1)}
            if j == n_groups:
                return {n: mpmath.mpf(1) / -n for n in range(lo, hi + 1)}
            gap = diff(j, j - 1)
            return {
                n: gap if n == 0 else mpmath.expm1(n * gap) / n for n in range(lo, hi + 1)
            }

        common = [mpmath.mpf(0)] * (n_groups + 1)  # the g > j integral of piece j
        own = [mpmath.mpf(0)] * n_groups  # Σ_{j >= g} of the g <= j integrals
        poly = [mpmath.mpf(1)]  # Q_j, normalised at a_j (β_j = 1/2)
        for j in range(n_groups + 1):  # piece j: [a_j, a_{j+1}] with a_0 = −∞, a_{G+1} = +∞
            ref = 0 if j == 0 else j - 1  # index of the normalising utility a_j (0-based)
            if j >= 2:  # renormalise Q_{j−1} from a_{j−1} to a_j: y -> y·e^{−Δ}
                shrink = mpmath.exp(-diff(j - 1, j - 2))
                poly = [c * shrink**k for k, c in enumerate(poly)]
            if j >= 1:
                poly = _times_linear_power(poly, mpmath.mpf(1) / 2, counts[j - 1])
            r_above = sum(counts[j:])
            c_j = mpmath.exp(-mpmath.fsum(counts[h] * diff(h, ref) for h in range(j, n_groups)))
            c_j /= mpmath.mpf(2) ** r_above
            degree = len(poly) - 1
            if j < n_groups:  # candidates above the piece
                ints = power_integrals(j, r_above - degree, r_above)
                common[j] = c_j * mpmath.fsum(c * ints[r_above - k] for k, c in enumerate(poly))
            if j > 0:  # candidates at or below the piece's lower end
                ints = power_integrals(j, r_above - degree, r_above - 1)
                weights = [ints[r_above - 1 - k] for k in range(degree)]
                for g in range(j):
                    b_g = mpmath.exp(diff(g, ref)) / 2
                    q = _over_linear(poly, b_g)
                    own[g] += b_g * c_j * mpmath.fdot(q, weights)
        logs = []
        running = mpmath.mpf(0)
        for g in range(n_groups):
            running += common[g]  # pieces j = 0..g lie below a_{g+1}
            logs.append(mpmath.log(running + own[g]))
    with workdps():
        return [+logs[g] for g in groups]


__all__ = [
    "MAX_EXACT_CANDIDATES",
    "MAX_LAPLACE_NOISY_MAX_SPREAD",
    "MAX_LAPLACE_NOISY_MAX_WORK",
    "exponential_log_probabilities",
    "laplace_noisy_max_log_probabilities",
    "permute_and_flip_log_probabilities",
]
