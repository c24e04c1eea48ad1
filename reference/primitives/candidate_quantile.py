"""One quantile chosen from a finite grid of candidates (issue 8): exact laws and samplers.

The reference for libraries that release a candidate rather than a point of a continuous range.

* :class:`CandidateQuantile`: OpenDP 0.16's ``make_private_quantile`` score,
  s(c) = |(d − a)·#{x < c} − a·#{x > c}| with α = a/d (points equal to c count on neither side;
  NaN counts below every candidate), selected with internal scale b = d·scale by

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

Exact laws are :class:`~reference.distributions.DiscreteLaw` objects over the candidate values,
with log-probabilities at 60 digits (mpmath quadrature of the one-dimensional integrals above,
over groups of equal scores); samplers are vectorised numpy (Gumbel, exponential or Laplace
noise and an argmax per draw), tested against the laws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from reference.core import PrivacyClaim, check_adjacency
from reference.distributions import DiscreteLaw
from reference.exact.mp import to_mpf, workdps
from reference.validation import (
    check_epsilon,
    check_int,
    check_probability,
    check_rng,
    check_size,
)

SELECTIONS = ("permute_and_flip", "exponential")
CLAIMS = ("correct", "eeprivacy")
OPENDP_ALPHA_DENOMINATOR = 10_000  # unsized data: OpenDP's bound on α's denominator
MAX_DRAW_CELLS = 1 << 22  # draws × candidates per chunk of the vectorised samplers


def check_candidates(candidates: Any) -> tuple[float, ...]:
    """Distinct, finite candidates, sorted (OpenDP sorts them; duplicates and NaN are errors)."""
    values = np.asarray(candidates, dtype=float).ravel()
    if values.size == 0:
        raise ValueError("candidates must be non-empty")
    if not np.all(np.isfinite(values)):
        raise ValueError("candidates must be finite numbers")
    if len(np.unique(values)) != values.size:
        raise ValueError("candidates must be distinct")
    return tuple(float(v) for v in np.sort(values))


def opendp_alpha(alpha: float) -> tuple[int, int]:
    """(a, d) with α = a/d as OpenDP 0.16 stores it for unsized data: the exact rational of the
    double α when its denominator is below 10 000, else (round(α·10 000), 10 000)."""
    alpha = check_probability(alpha, "alpha")
    exact = Fraction(alpha)
    if exact.denominator < OPENDP_ALPHA_DENOMINATOR:
        return exact.numerator, exact.denominator
    return round(alpha * OPENDP_ALPHA_DENOMINATOR), OPENDP_ALPHA_DENOMINATOR


def _data(data: Any) -> np.ndarray:
    return np.asarray(data, dtype=float).ravel()  # ±inf: below or above every candidate


def below_equal_above(data: Any, candidates: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    """(#{x < c}, #{x = c}, #{x > c}) per candidate; NaN counts below every candidate (OpenDP)."""
    x = _data(data)
    nan = int(np.isnan(x).sum())
    xs = np.sort(x[~np.isnan(x)])
    c = np.asarray(candidates)
    lt = np.searchsorted(xs, c, side="left") + nan
    le = np.searchsorted(xs, c, side="right") + nan
    return lt.astype(np.int64), (le - lt).astype(np.int64), (len(x) - le).astype(np.int64)


def opendp_scores(data: Any, candidates: tuple[float, ...], alpha: float) -> np.ndarray:
    """OpenDP's integer scores s(c) = |(d − a)·#{x < c} − a·#{x > c}| (lower is better)."""
    a, d = opendp_alpha(alpha)
    lt, _, gt = below_equal_above(data, candidates)
    return np.abs((d - a) * lt - a * gt)


def _exact(value: Any) -> Fraction:
    """A score as an exact Fraction (numpy integers and floats included)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int | np.integer):
        return Fraction(int(value))
    return Fraction(float(value))


def _group(scores: Any) -> tuple[list[Any], list[int], np.ndarray]:
    """Distinct score values, their multiplicities, and each candidate's group index."""
    keys = [_exact(s) for s in scores]
    distinct = sorted(set(keys))
    index = {v: i for i, v in enumerate(distinct)}
    groups = np.array([index[k] for k in keys])
    counts = np.bincount(groups, minlength=len(distinct)).tolist()
    return distinct, counts, groups


def permute_and_flip_log_probabilities(scores: Any, b: Any) -> list[mpmath.mpf]:
    """log P(c_i) of permute-and-flip on the scores (lower is better) at scale b:
    P(c_i) = p_i ∫₀¹ ∏_{j≠i}(1 − p_j t) dt, p_j = exp(−(s_j − s_min)/b), one quadrature per group
    of equal scores (60 digits)."""
    distinct, counts, groups = _group(scores)
    with workdps():
        bb = to_mpf(b)
        p = [mpmath.exp(-(to_mpf(s) - to_mpf(distinct[0])) / bb) for s in distinct]
        logs = []
        for g, pg in enumerate(p):

            def integrand(t, g=g):
                value = mpmath.mpf(1)
                for h, (ph, m) in enumerate(zip(p, counts, strict=True)):
                    value *= (1 - ph * t) ** (m - 1 if h == g else m)
                return value

            logs.append(mpmath.log(pg) + mpmath.log(mpmath.quad(integrand, [0, 1])))
        return [logs[g] for g in groups]


def exponential_log_probabilities(scores: Any, b: Any) -> list[mpmath.mpf]:
    """log P(c_i) ∝ −s_i/b (unnormalised; :class:`DiscreteLaw` normalises)."""
    with workdps():
        bb = to_mpf(b)
        return [-to_mpf(_exact(s)) / bb for s in scores]


def laplace_noisy_max_log_probabilities(utilities: Any, scale: Any) -> list[mpmath.mpf]:
    """log P(argmax_i (u_i + Lap(scale)) = i) = log ∫ f(z − u_i) ∏_{j≠i} F(z − u_j) dz, one
    quadrature per group of equal utilities, split at the utilities (60 digits)."""
    distinct, counts, groups = _group(utilities)
    with workdps():
        beta = to_mpf(scale)
        u = [to_mpf(v) for v in distinct]

        def cdf(y):
            return mpmath.exp(y / beta) / 2 if y < 0 else 1 - mpmath.exp(-y / beta) / 2

        cuts = [mpmath.ninf, *u, mpmath.inf]
        logs = []
        for g, ug in enumerate(u):

            def integrand(z, g=g, ug=ug):
                value = mpmath.exp(-abs(z - ug) / beta) / (2 * beta)
                for h, (uh, m) in enumerate(zip(u, counts, strict=True)):
                    value *= cdf(z - uh) ** (m - 1 if h == g else m)
                return value

            logs.append(mpmath.log(mpmath.quad(integrand, cuts)))
        return [logs[g] for g in groups]


def check_quantile_fields(mech: Any) -> None:
    """Validate (and normalise) the fields both candidate mechanisms share."""
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


@dataclass(frozen=True)
class CandidateQuantile:
    """The α-quantile chosen from ``candidates`` with OpenDP 0.16's score, ε-DP under
    ``adjacency`` (add/remove: OpenDP's d_in = 1; replace-one: d_in = 2) by ``selection``."""

    candidates: tuple[float, ...]
    quantile: float
    epsilon: float
    selection: str = "permute_and_flip"
    adjacency: str = "add_remove"

    def __post_init__(self) -> None:
        check_quantile_fields(self)
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {self.selection!r}")

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, self.adjacency)

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf)

    @property
    def name(self) -> str:
        return (
            f"candidate_quantile[{self.selection},q={self.quantile:g},eps={self.epsilon:g},"
            f"{len(self.candidates)} candidates,{self.adjacency}]"
        )

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
        return opendp_scores(data, self.candidates, self.quantile)

    def exact(self, data: Any) -> DiscreteLaw:
        """The exact output law over the candidates (60 digits)."""
        scores = self.scores(data)
        if self.selection == "exponential":
            logs = exponential_log_probabilities(scores, self.noise_scale)
        else:
            logs = permute_and_flip_log_probabilities(scores, self.noise_scale)
        return DiscreteLaw(list(self.candidates), logs)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Gumbel-max (exponential) or exponential-noise max (permute-and-flip) of −s/b."""
        size, rng = check_size(size), check_rng(rng)
        values = -self.scores(data).astype(float) / float(self.noise_scale)
        values -= values.max()
        if self.selection == "exponential":
            noise = lambda g, shape: g.gumbel(size=shape)  # noqa: E731
        else:
            noise = lambda g, shape: g.exponential(size=shape)  # noqa: E731
        return _argmax_draws(values, noise, size, rng, self.candidates)


@dataclass(frozen=True)
class LaplaceNoisyMaxQuantile:
    """eeprivacy's PrivateQuantile: argmax over ``candidates`` of −|#{x < c} − N·q| plus
    Laplace(sensitivity/ε) noise. ``claim="correct"`` (default): 2ε, the guarantee of
    report-noisy-max with Laplace noise for a utility that is not monotone; ``"eeprivacy"``: the
    library's ε (false: :mod:`tests.test_candidate_quantile` computes a larger exact loss)."""

    candidates: tuple[float, ...]
    quantile: float
    epsilon: float
    sensitivity: int = 1
    adjacency: str = "replace_one"
    claim_rule: str = "correct"

    def __post_init__(self) -> None:
        check_quantile_fields(self)
        object.__setattr__(
            self, "sensitivity", check_int(self.sensitivity, "sensitivity", minimum=1)
        )
        if self.claim_rule not in CLAIMS:
            raise ValueError(f"claim_rule must be one of {CLAIMS}, got {self.claim_rule!r}")

    @property
    def claim(self) -> PrivacyClaim:
        factor = 2 if self.claim_rule == "correct" else 1
        return PrivacyClaim(factor * self.epsilon, 0.0, self.adjacency)

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf)

    @property
    def name(self) -> str:
        return (
            f"laplace_noisy_max_quantile[q={self.quantile:g},eps={self.epsilon:g},"
            f"{len(self.candidates)} candidates,claim={self.claim_rule}]"
        )

    def utilities(self, data: Any) -> list[Fraction]:
        """u(c) = −|#{x < c} − N·q| exactly (q read as its binary value)."""
        x = _data(data)
        lt, _, _ = below_equal_above(x[~np.isnan(x)], self.candidates)
        target = len(x) * Fraction(self.quantile)
        return [-abs(int(k) - target) for k in lt]

    def exact(self, data: Any) -> DiscreteLaw:
        scale = Fraction(self.sensitivity) / Fraction(self.epsilon)
        logs = laplace_noisy_max_log_probabilities(self.utilities(data), scale)
        return DiscreteLaw(list(self.candidates), logs)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size, rng = check_size(size), check_rng(rng)
        values = np.array([float(u) for u in self.utilities(data)])
        scale = self.sensitivity / self.epsilon
        noise = lambda g, shape: g.laplace(scale=scale, size=shape)  # noqa: E731
        return _argmax_draws(values, noise, size, rng, self.candidates)


__all__ = [
    "CLAIMS",
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
