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

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase, check_adjacency
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.primitives.candidate_laws import (
    MAX_EXACT_CANDIDATES,
    MAX_LAPLACE_NOISY_MAX_SPREAD,
    MAX_LAPLACE_NOISY_MAX_WORK,
    exponential_log_probabilities,
    laplace_noisy_max_log_probabilities,
    permute_and_flip_log_probabilities,
)
from dpquant.reference.validation import (
    check_choice,
    check_data,
    check_epsilon,
    check_int,
    check_probability,
)

SELECTIONS = ("permute_and_flip", "exponential")
CLAIMS = ("correct", "eeprivacy")
OPENDP_ALPHA_DENOMINATOR = 10_000  # unsized data: OpenDP's bound on α's denominator
MAX_DRAW_CELLS = 1 << 22  # draws × candidates per chunk of the vectorised samplers

MAX_SAMPLE_CELLS = 10**8
"""Most draws × candidates of one ``sample`` call (about a second of numpy work)."""

MAX_EXACT_CANDIDATES_EXPONENTIAL = 100_000
"""Most candidates of the exponential rule's exact law (one term per candidate)."""

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
        raise ParameterError("candidates", "must be distinct (as float64 values)")
    return tuple(float(v) for v in np.sort(values))


def opendp_alpha(alpha: float) -> tuple[int, int]:
    """The quantile as OpenDP 0.16 stores it for unsized data.

    Args:
        alpha: The quantile α, in [0, 1].

    Returns:
        (a, d) with α = a/d: the exact rational of the double α when its denominator is below
            10 000, else (⌊α·10 000⌋, 10 000), the product taken in floating point (α = 0.57
            is 5 699/10 000, as OpenDP's privacy map shows; rounding gave 5 700, notes/peers.md).
    """
    alpha = check_probability(alpha, "alpha")
    exact = Fraction(alpha)
    if exact.denominator < OPENDP_ALPHA_DENOMINATOR:
        return exact.numerator, exact.denominator
    return math.floor(alpha * OPENDP_ALPHA_DENOMINATOR), OPENDP_ALPHA_DENOMINATOR


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


def _check_quantile_fields(mech: Any) -> None:
    """Validate (and normalise: ``adjacency`` becomes an :class:`Adjacency`) the fields both
    candidate mechanisms share.

    Args:
        mech: A :class:`CandidateQuantile` or :class:`LaplaceNoisyMaxQuantile` being built.

    Raises:
        ValueError: ``candidates``, ``quantile``, ``epsilon`` or ``adjacency`` refused
            (``"local"`` is not a quantile's relation).
    """
    object.__setattr__(mech, "candidates", check_candidates(mech.candidates))
    object.__setattr__(mech, "quantile", check_probability(mech.quantile, "quantile"))
    object.__setattr__(mech, "epsilon", check_epsilon(mech.epsilon))
    adjacency = check_adjacency(mech.adjacency)
    if adjacency == Adjacency.LOCAL:
        raise ParameterError("adjacency", "must be 'add_remove' or 'replace_one' for a quantile")
    object.__setattr__(mech, "adjacency", adjacency)


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
        _check_quantile_fields(self)
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
        _check_quantile_fields(self)
        object.__setattr__(
            self,
            "sensitivity",
            check_int(self.sensitivity, "sensitivity", minimum=1, maximum=MAX_SENSITIVITY),
        )
        check_choice(self.claim_rule, "claim_rule", CLAIMS)
        if not math.isfinite(self.claimed_epsilon):
            raise ParameterError(
                "epsilon",
                f"must be at most {sys.float_info.max / 2:.4g} with claim_rule='correct' (the "
                "claim is 2·epsilon)",
                repr(self.epsilon),
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
            raise ParameterError(
                "epsilon",
                f"must be at most {float(top):.4g} for the exact law on this data ((max − min "
                f"utility)·epsilon/sensitivity <= {MAX_LAPLACE_NOISY_MAX_SPREAD:g})",
                repr(self.epsilon),
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
    "exponential_log_probabilities",
    "laplace_noisy_max_log_probabilities",
    "opendp_alpha",
    "opendp_scores",
    "permute_and_flip_log_probabilities",
]
