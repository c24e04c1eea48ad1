"""One quantile chosen from a finite grid of candidates (issue 8): exact laws and samplers.

The reference for libraries that release a candidate rather than a point of a continuous range.

* :class:`CandidateQuantile`: OpenDP 0.16's ``make_private_quantile`` score,
  s(c) = |(d − a)·#{x < c} − a·#{x > c}| with α = a/d (points equal to c count on neither side),
  selected with internal scale b = d·scale by

  - ``"permute_and_flip"`` (OpenDP under ``max_divergence``; McKenna and Sheldon 2020), identical
    in law to report-noisy-max of −s/b with i.i.d. Exp(1) noise (Ding et al. 2021):
    P(c_i) = p_i ∫₀¹ ∏_{j≠i} (1 − p_j t) dt, p_j = exp(−(s_j − s_min)/b);
  - ``"exponential"`` (OpenDP under zCDP; Gumbel noise): P(c_i) ∝ exp(−s_i/b).

  Under add/remove one record changes each of #{x < c}, #{x > c} by at most one, so the score
  moves by Δ = max(a, d − a); replace-one is two such steps. Both rules are ε-DP with
  ε = 2Δ·(steps)/b (the score is not monotone, hence the 2), which is OpenDP's privacy map:
  ε = 2·d_in·max(a, d − a)/(d·scale).

* :class:`LaplaceNoisyMaxQuantile`: eeprivacy 0.0.5's ``PrivateQuantile``, report-noisy-max of
  u(c) = −|#{x < c} − N·q| with Laplace(Δ/ε) noise (Δ = the maximum contribution, 1). Its law:
  P(c_i) = ∫ f(z − u_i) ∏_{j≠i} F(z − u_j) dz with the Laplace density f and CDF F. eeprivacy
  claims ε-DP (Dwork and Roth, Claim 3.9), but that claim is for monotone queries; u is not
  monotone (moving a record changes the scores of some candidates up and of others down), and
  the general guarantee of report-noisy-max with Laplace(Δ/ε) noise is 2ε. ``claim="eeprivacy"``
  states the library's ε, ``"correct"`` (default) the 2ε bound.

Exact laws are :class:`~dpquant.reference.distributions.DiscreteLaw` objects over the candidate values,
with log-probabilities at 60 digits from closed forms (no quadrature): both integrals above are
integrals of polynomials (in t, or in e^{−z/b} on each piece between consecutive utilities),
expanded and integrated term by term at a working precision raised by the digits their
alternating coefficients can cancel. Samplers are vectorised numpy (Gumbel, exponential or
Laplace noise and an argmax per draw), tested against the laws.

Data follow the project's data policy (``dpquant.reference.validation.check_data``): finite numbers only.
OpenDP itself counts NaN below every candidate (and ±inf below or above them all); the same law
comes from any finite value below the smallest (or above the largest) candidate.

Limits (``ValueError`` naming the parameter): the exact laws need at most
:data:`MAX_EXACT_CANDIDATES` candidates (and, for the Laplace noisy max, (distinct utilities)² ×
candidates <= :data:`MAX_LAPLACE_NOISY_MAX_WORK`), so that ``exact`` finishes in seconds; one
``sample`` call draws at most :data:`MAX_SAMPLE_CELLS` draws × candidates.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.reference.core import ExactMechanismBase, check_adjacency
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import DPS, to_mpf, workdps
from dpquant.reference.validation import (
    check_choice,
    check_data,
    check_epsilon,
    check_int,
    check_probability,
    check_real_array,
)

SELECTIONS = ("permute_and_flip", "exponential")
CLAIMS = ("correct", "eeprivacy")
OPENDP_ALPHA_DENOMINATOR = 10_000  # unsized data: OpenDP's bound on α's denominator
MAX_DRAW_CELLS = 1 << 22  # draws × candidates per chunk of the vectorised samplers

MAX_SAMPLE_CELLS = 10**8
"""Most draws × candidates of one ``sample`` call (about a second of numpy work)."""

MAX_EXACT_CANDIDATES = 400
"""Most candidates of an exact law (permute-and-flip and the Laplace noisy max expand a polynomial
of that degree at about 60 + 0.48·degree digits)."""

MAX_EXACT_CANDIDATES_EXPONENTIAL = 100_000
"""Most candidates of the exponential rule's exact law (one term per candidate)."""

MAX_LAPLACE_NOISY_MAX_WORK = 5 * 10**5
"""Bound on (distinct utilities)² × candidates for :func:`laplace_noisy_max_log_probabilities`
(that many high-precision operations: a few seconds)."""

MAX_LAPLACE_NOISY_MAX_SPREAD = 10**9
"""Largest (max − min utility)/scale of an exact Laplace noisy-max law: the closed form takes
exponentials of arguments up to that spread times the number of candidates, at a precision that
grows with its digits."""

MAX_SENSITIVITY = 2**53


def check_candidates(candidates: Any) -> tuple[float, ...]:
    """Check the candidates of a candidate-set quantile (OpenDP sorts them; duplicates and NaN
    are errors).

    Args:
        candidates: A non-empty sequence of real numbers (the data policy of ``check_data``),
            distinct as floats.

    Returns:
        The candidates, finite, sorted.

    Raises:
        ValueError: Anything else.
    """
    values = check_data(candidates, "candidates")
    if len(np.unique(values)) != values.size:
        raise ValueError("candidates must be distinct (as float64 values)")
    return tuple(float(v) for v in np.sort(values))


def opendp_alpha(alpha: float) -> tuple[int, int]:
    """The quantile as OpenDP 0.16 stores it for unsized data.

    Args:
        alpha: The quantile α, in [0, 1].

    Returns:
        (a, d) with α = a/d: the exact rational of the double α when its denominator is below
            10 000, else (round(α·10 000), 10 000).
    """
    alpha = check_probability(alpha, "alpha")
    exact = Fraction(alpha)
    if exact.denominator < OPENDP_ALPHA_DENOMINATOR:
        return exact.numerator, exact.denominator
    return round(alpha * OPENDP_ALPHA_DENOMINATOR), OPENDP_ALPHA_DENOMINATOR


def _data(data: Any) -> np.ndarray:
    return check_data(data, "data", allow_empty=True)


def _counts(x: np.ndarray, candidates: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    xs = np.sort(x)
    c = np.asarray(candidates)
    lt = np.searchsorted(xs, c, side="left")
    le = np.searchsorted(xs, c, side="right")
    return lt.astype(np.int64), (le - lt).astype(np.int64), (len(x) - le).astype(np.int64)


def below_equal_above(data: Any, candidates: Any) -> tuple[np.ndarray, ...]:
    """Count the data below, at and above each candidate.

    Args:
        data: Finite data, possibly empty.
        candidates: The candidates.

    Returns:
        (#{x < c}, #{x = c}, #{x > c}), each an array with one count per candidate.
    """
    return _counts(_data(data), check_candidates(candidates))


def opendp_scores(data: Any, candidates: Any, alpha: float) -> np.ndarray:
    """OpenDP's integer scores of the candidates (lower is better).

    Args:
        data: Finite data, possibly empty.
        candidates: The candidates.
        alpha: The quantile, read as (a, d) by :func:`opendp_alpha`.

    Returns:
        s(c) = |(d − a)·#{x < c} − a·#{x > c}| for each candidate.
    """
    a, d = opendp_alpha(alpha)
    lt, _, gt = below_equal_above(data, candidates)
    return np.abs((d - a) * lt - a * gt)


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
        raise ValueError(f"{name} must be a non-empty sequence of real numbers, got {values!r:.80}")
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if not items:
        raise ValueError(f"{name} must be a non-empty sequence of real numbers")
    out = []
    for v in items:
        if isinstance(v, bool | np.bool_) or not isinstance(
            v, Fraction | int | float | np.integer | np.floating
        ):
            raise ValueError(f"{name} must hold real numbers, got {v!r:.80}")
        f = _exact(v, name)
        if abs(f) > 2**1000:
            raise ValueError(f"{name} must hold numbers of magnitude below 2^1000")
        out.append(f)
    return out


def _exact_scale(b: Any, name: str) -> Fraction:
    """A positive scale as an exact Fraction (float, int or Fraction)."""
    if isinstance(b, bool | np.bool_) or not isinstance(
        b, Fraction | int | float | np.integer | np.floating
    ):
        raise ValueError(f"{name} must be a positive real number, got {b!r:.80}")
    value = _exact(b, name)
    if not Fraction(1, 2**4000) <= value <= 2**4000:
        raise ValueError(f"{name} must be a positive number in [2^-4000, 2^4000], got {b!r:.80}")
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
        raise ValueError(
            f"scores must have at most {MAX_EXACT_CANDIDATES} entries for an exact "
            f"permute-and-flip law, got {len(values)}"
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
        raise ValueError(
            f"utilities must have at most {MAX_EXACT_CANDIDATES} entries and (distinct values)² × "
            f"entries <= {MAX_LAPLACE_NOISY_MAX_WORK} for an exact Laplace noisy-max law, got "
            f"{k_total} entries with {n_groups} distinct values"
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


def check_quantile_fields(mech: Any) -> None:
    """Validate (and normalise) the fields both candidate mechanisms share.

    Args:
        mech: A :class:`CandidateQuantile` or :class:`LaplaceNoisyMaxQuantile` being built.

    Raises:
        ValueError: ``candidates``, ``quantile``, ``epsilon`` or ``adjacency`` refused
            (``"local"`` is not a quantile's relation).
    """
    object.__setattr__(mech, "candidates", check_candidates(mech.candidates))
    object.__setattr__(mech, "quantile", check_probability(mech.quantile, "quantile"))
    object.__setattr__(mech, "epsilon", check_epsilon(mech.epsilon))
    if check_adjacency(mech.adjacency) == "local":
        raise ValueError("adjacency must be 'add_remove' or 'replace_one' for a quantile")


def _argmax_draws(
    values: np.ndarray, noise, size: int, rng: np.random.Generator, candidates
) -> np.ndarray:
    """``size`` draws of candidates[argmax(values + noise)], in chunks."""
    k = len(values)
    per = max(1, MAX_DRAW_CELLS // k)
    out = np.empty(size)
    for start in range(0, size, per):
        m = min(per, size - start)
        idx = np.argmax(values[None, :] + noise(rng, (m, k)), axis=1)
        out[start : start + m] = np.asarray(candidates)[idx]
    return out


def _scaled_gaps(gaps: list[Fraction], scale: Fraction) -> np.ndarray:
    """−gap/scale as floats (gaps >= 0; 0 for the best candidates, −inf when the ratio overflows
    a float: such a candidate is never chosen, to float precision)."""
    out = np.empty(len(gaps))
    for i, g in enumerate(gaps):
        ratio = g / scale
        out[i] = -math.inf if ratio > 1e300 else -float(ratio)
    return out


class _CandidateBase(ExactMechanismBase):
    """What both candidate mechanisms share: finite data (possibly empty), outputs among the
    candidates, draws costing the number of candidates each."""

    allow_empty = True  # no data: every score ties (a uniform candidate)
    candidates: tuple[float, ...]  # the subclasses' fields: candidates sorted, q, ε
    quantile: float
    epsilon: float

    @property
    def output_range(self) -> tuple[float, float]:
        return (self.candidates[0], self.candidates[-1])

    def _name(self, label: str, head: str, tail: str) -> str:
        """``label[head q=…,eps=…,k candidates,tail]``: the name both mechanisms report."""
        return (
            f"{label}[{head}q={self.quantile:g},eps={self.epsilon:g},"
            f"{len(self.candidates)} candidates,{tail}]"
        )

    def draw_limit(self, data: Any) -> int:
        return max(1, MAX_SAMPLE_CELLS // len(self.candidates))


@dataclass(frozen=True)
class CandidateQuantile(_CandidateBase):
    """The α-quantile chosen from a candidate set with OpenDP 0.16's score, ε-DP.

    Args:
        candidates: The candidates (:func:`check_candidates`).
        quantile: α, in [0, 1].
        epsilon: ε, positive and finite.
        selection: One of :data:`SELECTIONS`: ``"permute_and_flip"`` or ``"exponential"``.
        adjacency: ``"add_remove"`` (OpenDP's d_in = 1) or ``"replace_one"`` (d_in = 2).

    Raises:
        ValueError: A field out of range (named).
    """

    candidates: tuple[float, ...]
    quantile: float
    epsilon: float
    selection: str = "permute_and_flip"
    adjacency: str = "add_remove"

    def __post_init__(self) -> None:
        check_quantile_fields(self)
        check_choice(self.selection, "selection", SELECTIONS)

    @property
    def name(self) -> str:
        return self._name("candidate_quantile", f"{self.selection},", self.adjacency)

    @property
    def d_in(self) -> int:
        """OpenDP's symmetric distance of one neighbouring step."""
        return 1 if self.adjacency == "add_remove" else 2

    @property
    def scale(self) -> Fraction:
        """OpenDP's ``scale`` that gives ε: 2·d_in·max(a, d − a)/(d·ε) (exact for rational ε)."""
        a, d = opendp_alpha(self.quantile)
        return Fraction(2 * self.d_in * max(a, d - a), d) / Fraction(self.epsilon)

    @property
    def noise_scale(self) -> Fraction:
        """b = d·scale: the scale of the noise on the integer scores."""
        return opendp_alpha(self.quantile)[1] * self.scale

    def scores(self, data: Any) -> np.ndarray:
        """OpenDP's score of every candidate on a data set.

        Args:
            data: The data set, checked like ``sample``'s.

        Returns:
            The scores (:func:`opendp_scores`).
        """
        return self._scores(self.check_input(data))

    def _scores(self, x: np.ndarray) -> np.ndarray:
        a, d = opendp_alpha(self.quantile)
        lt, _, gt = _counts(x, self.candidates)
        return np.abs((d - a) * lt - a * gt)

    def _law(self, data: np.ndarray) -> DiscreteLaw:
        """The exact output law over the candidates (60 digits)."""
        limit = (
            MAX_EXACT_CANDIDATES_EXPONENTIAL if self.selection == "exponential"
            else MAX_EXACT_CANDIDATES
        )
        if len(self.candidates) > limit:
            raise ValueError(
                f"candidates: the exact law of {self.selection!r} needs at most {limit} "
                f"candidates, got {len(self.candidates)}"
            )
        scores = self._scores(data).tolist()
        if self.selection == "exponential":
            logs = exponential_log_probabilities(scores, self.noise_scale)
        else:
            logs = permute_and_flip_log_probabilities(scores, self.noise_scale)
        return DiscreteLaw(list(self.candidates), logs)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """Gumbel-max (exponential) or exponential-noise max (permute-and-flip) of −s/b."""
        scores = self._scores(data)
        best = int(scores.min())
        values = _scaled_gaps([Fraction(int(s) - best) for s in scores], self.noise_scale)
        if self.selection == "exponential":
            noise = lambda g, shape: g.gumbel(size=shape)  # noqa: E731
        else:
            noise = lambda g, shape: g.exponential(size=shape)  # noqa: E731
        return _argmax_draws(values, noise, size, rng, self.candidates)


@dataclass(frozen=True)
class LaplaceNoisyMaxQuantile(_CandidateBase):
    """eeprivacy's PrivateQuantile: argmax over the candidates of −|#{x < c} − N·q| plus
    Laplace(sensitivity/ε) noise.

    Args:
        candidates: The candidates (:func:`check_candidates`).
        quantile: q, in [0, 1].
        epsilon: ε, positive and finite.
        sensitivity: The utility's sensitivity, an int in [1, 2^53].
        adjacency: ``"add_remove"`` or ``"replace_one"``.
        claim_rule: The claim: ``"correct"`` (default) claims 2ε, the guarantee of
            report-noisy-max with Laplace noise for a utility that is not monotone;
            ``"eeprivacy"`` claims the library's ε (false: :mod:`tests.test_candidate_quantile`
            computes a larger exact loss).

    Raises:
        ValueError: A field out of range (named).
    """

    candidates: tuple[float, ...]
    quantile: float
    epsilon: float
    sensitivity: int = 1
    adjacency: str = "replace_one"
    claim_rule: str = "correct"

    def __post_init__(self) -> None:
        check_quantile_fields(self)
        object.__setattr__(
            self,
            "sensitivity",
            check_int(self.sensitivity, "sensitivity", minimum=1, maximum=MAX_SENSITIVITY),
        )
        check_choice(self.claim_rule, "claim_rule", CLAIMS)
        if not math.isfinite(self.claimed_epsilon):
            raise ValueError(
                f"epsilon must be at most {sys.float_info.max / 2:.4g} with claim_rule='correct' "
                f"(the claim is 2·epsilon), got {self.epsilon!r}"
            )

    @property
    def claimed_epsilon(self) -> float:
        return (2.0 if self.claim_rule == "correct" else 1.0) * self.epsilon

    @property
    def name(self) -> str:
        return self._name("laplace_noisy_max_quantile", "", f"claim={self.claim_rule}")

    @property
    def noise_scale(self) -> Fraction:
        """sensitivity/ε, exactly."""
        return Fraction(self.sensitivity) / Fraction(self.epsilon)

    def utilities(self, data: Any) -> list[Fraction]:
        """The candidates' utilities on a data set, exactly.

        Args:
            data: The data set, checked like ``sample``'s.

        Returns:
            u(c) = −|#{x < c} − N·q| for each candidate (q read as its binary value).
        """
        return self._utilities(self.check_input(data))

    def _utilities(self, x: np.ndarray) -> list[Fraction]:
        lt, _, _ = _counts(x, self.candidates)
        target = len(x) * Fraction(self.quantile)
        return [-abs(int(k) - target) for k in lt]

    def _law(self, data: np.ndarray) -> DiscreteLaw:
        u = self._utilities(data)
        spread = max(u) - min(u)
        if spread / self.noise_scale > MAX_LAPLACE_NOISY_MAX_SPREAD:
            top = MAX_LAPLACE_NOISY_MAX_SPREAD * self.sensitivity / spread
            raise ValueError(
                f"epsilon must be at most {float(top):.4g} for the exact law on this data "
                f"((max − min utility)·epsilon/sensitivity <= {MAX_LAPLACE_NOISY_MAX_SPREAD:g}), "
                f"got {self.epsilon!r}"
            )
        if len(self.candidates) > MAX_EXACT_CANDIDATES:
            raise ValueError(
                f"candidates: the exact law needs at most {MAX_EXACT_CANDIDATES} candidates, got "
                f"{len(self.candidates)}"
            )
        logs = laplace_noisy_max_log_probabilities(u, self.noise_scale)
        return DiscreteLaw(list(self.candidates), logs)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """argmax of (u − max u)/scale + standard Laplace noise (the same argmax as u + noise at
        the scale, without overflow at extreme scales)."""
        u = self._utilities(data)
        top = max(u)
        values = _scaled_gaps([top - v for v in u], self.noise_scale)
        noise = lambda g, shape: g.laplace(size=shape)  # noqa: E731
        return _argmax_draws(values, noise, size, rng, self.candidates)


__all__ = [
    "CLAIMS",
    "MAX_EXACT_CANDIDATES",
    "MAX_EXACT_CANDIDATES_EXPONENTIAL",
    "MAX_LAPLACE_NOISY_MAX_SPREAD",
    "MAX_LAPLACE_NOISY_MAX_WORK",
    "MAX_SAMPLE_CELLS",
    "SELECTIONS",
    "CandidateQuantile",
    "LaplaceNoisyMaxQuantile",
    "below_equal_above",
    "check_candidates",
    "check_quantile_fields",
    "exponential_log_probabilities",
    "laplace_noisy_max_log_probabilities",
    "opendp_alpha",
    "opendp_scores",
    "permute_and_flip_log_probabilities",
]
