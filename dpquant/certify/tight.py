"""Exact routes for the tight mechanisms of the exhaustive table (issue 38): laws whose loss is
exactly the claimed ε, where no enclosure of positive width can decide "≤ ε".

For each, the law's probabilities have a closed form; a certificate of sympy identities (under
``proofs_checks/certificates/catalogue/``, re-verified by the independent checker) proves that
every output's likelihood ratio between two inputs is e^{rε} with |r| <= 1 (e^{±ε} or 1 for
randomized response and OUE), so the loss is at most ε exactly. What ties the proof to the code
is :func:`law_matches`: the implemented law's support is the closed form's and every stored
log-probability lies within the enclosures' budget (:data:`~dpquant.certify.enclosures.
LOG_ERROR_BUDGET`) of the closed form, evaluated at 100 digits at the mechanism's own ε (the
float read exactly). :mod:`dpquant.certify.exhaustive` gives a tight mechanism the verdict
"verified (exact: identity)" only when its identities are proven, its premise holds and every
undecided pair's two laws match; without such a proof a tight mechanism stays "undecided".

* Randomized response (and aamand25's ThresholdQuery, the RR of the bit 1[x <= coin]): keep
  e^ε/(e^ε + 1), flip 1/(e^ε + 1); ratios e^ε, e^{−ε}, or 1 when both inputs give one bit.
* aamand25's HM randomizer with OUE (Wang et al. 2017): a uniform level ℓ, then each bit of the
  level's b^ℓ nodes is 1 with p = 1/2 (the user's node) or q = 1/(e^ε + 1) (the others): only
  the two inputs' nodes differ, ratios e^ε, 1, 1, e^{−ε} for their bits (1, 0), (1, 1), (0, 0),
  (0, 1), and 1 when both inputs share the level's node.
* fukuchi19's grid Laplace report: clamp(i + D, −M, M), D a discrete Laplace of scale t
  (P(D = j) ∝ α^{|j|}, α = e^{−1/t}), i = round(x/Λ): the ratio at an atom k is
  e^{(|k − i'| − |k − i|)/t} (e^{±(i' − i)/t} at the clamped ends), |exponent| <= |i − i'|/t <=
  (2/Λ)/t <= ε, the premise checked exactly on the mechanism's rational t.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath

from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

EPS = Variable("eps", 0, 10**6)
"""ε for the identities (sympy proves each for every real ε; the box is nominal)."""
KEEP = "exp(eps)/(exp(eps) + 1)"
FLIP = "1/(exp(eps) + 1)"
OUE_P = "1/2"
OUE_Q = "1/(exp(eps) + 1)"


def _identity(name: str, goal: str, variables: tuple[Variable, ...], note: str) -> Part:
    return Part(name=name, variables=variables, goal=Condition(goal, ">="), method="identity",
                note=note)


RANDOMIZED_RESPONSE = ClaimCertification(
    claim="catalogue/randomized-response-tight",
    statement=(
        "Binary randomized response (keep e^ε/(e^ε+1), flip 1/(e^ε+1)) has likelihood ratios "
        "e^ε (kept report) and e^(−ε) (flipped report) between its two inputs, and 1 between "
        "equal inputs: its loss is exactly ε. ThresholdQuery is this channel on the bit "
        "1[x <= coin]."
    ),
    domain="every ε ≥ 0 (identities for every real ε; 'the law is this channel' is the tie)",
    parts=(
        _identity("the two report probabilities sum to 1", f"{KEEP} + {FLIP} - 1", (EPS,),
                  "The channel's rows are laws."),
        _identity("kept report: ratio e^eps", f"({KEEP})/({FLIP}) - exp(eps)", (EPS,),
                  "y = x against x' = 1 − x."),
        _identity("flipped report: ratio e^(-eps)", f"({FLIP})/({KEEP}) - exp(-eps)", (EPS,),
                  "y = 1 − x against x' = 1 − x; equal inputs (equal bits) have ratio 1."),
    ),
)


def _bit(p: str, z: int) -> str:
    return f"({p})" if z else f"(1 - ({p}))"


OUE = ClaimCertification(
    claim="catalogue/oue-tight",
    statement=(
        "OUE at a uniform level: P(ℓ, z | x) = (1/k)·Π_j f_j(z_j) with f = Bernoulli(1/2) at x's "
        "level-ℓ node and Bernoulli(1/(e^ε+1)) elsewhere. Between inputs x, x' only the factors "
        "at their two nodes a ≠ b differ, and their ratio is e^ε, 1, 1 or e^(−ε) for "
        "(z_a, z_b) = (1, 0), (1, 1), (0, 0), (0, 1); when a = b the laws are equal: the loss is "
        "exactly ε."
    ),
    domain="every ε ≥ 0, every level and pair of inputs (identities; the cancellation of the "
    "other factors and of 1/k is the human step)",
    parts=tuple(
        _identity(
            f"OUE bits (z_a, z_b) = ({za}, {zb}): ratio {ratio}",
            f"({_bit(OUE_P, za)}*{_bit(OUE_Q, zb)})/({_bit(OUE_Q, za)}*{_bit(OUE_P, zb)}) - {ratio}",
            (EPS,),
            "Numerator: x's node a reports with p = 1/2, b with q; denominator: x' has them "
            "swapped.",
        )
        for za, zb, ratio in ((1, 0, "exp(eps)"), (1, 1, "1"), (0, 0, "1"), (0, 1, "exp(-eps)"))
    ),
)

_T = Variable("t", Fraction(1, 10**6), 10**6)
_K = Variable("k", -(10**6), 10**6, integer=True)
_I = Variable("i", -(10**6), 10**6, integer=True)
_D = Variable("d", 0, 10**6, integer=True)
_M = Variable("M", -(10**6), 10**6, integer=True)
_LAP = (_T, _K, _I, _D, _M)


def _atom(j: str) -> str:
    """P(clamped report = k | centre j) for an interior atom k: (1 − α)/(1 + α)·α^{|k − j|}
    with the sign of k − j fixed by the part's region (``j`` is the text of the exponent's
    |k − j|)."""
    return f"(1 - exp(-1/t))/(1 + exp(-1/t))*exp(-({j})/t)"


def _end(j: str) -> str:
    """P(clamped report = an end | centre): the tail α^{distance}/(1 + α)."""
    return f"exp(-({j})/t)/(1 + exp(-1/t))"


GRID_LAPLACE = ClaimCertification(
    claim="catalogue/grid-laplace-report-tight",
    statement=(
        "The clamped discrete Laplace report clamp(i + D, −M, M), P(D = j) = "
        "((1−α)/(1+α))·α^{|j|}, α = e^{−1/t}: between centres i and i' = i + d (d ≥ 0) the "
        "ratio at an atom k is e^{d/t} (k <= i), e^{(2i + d − 2k)/t} (i <= k <= i + d), "
        "e^{−d/t} (k ≥ i + d), and at the ends −M <= i, M ≥ i + d the same as their regions: "
        "|log-ratio| <= d/t everywhere, so the loss is at most ε when d <= 2/Λ and t ≥ 2/(εΛ), "
        "with equality at d = 2/Λ, t = 2/(εΛ)."
    ),
    domain="every t > 0, every integer k, i, d ≥ 0, M (identities; |2i + d − 2k| <= d in the "
    "middle region, d <= 2/Λ for inputs in [−1, 1], and the exact premise (2/Λ)/t <= ε are the "
    "human steps, the premise checked on the mechanism's rational t)",
    parts=(
        _identity("left of both centres: ratio e^(d/t)",
                  f"{_atom('i - k')}/({_atom('i + d - k')}) - exp(d/t)", _LAP,
                  "k <= i: |k − i| = i − k, |k − i − d| = i + d − k."),
        _identity("between the centres: ratio e^((2i + d - 2k)/t)",
                  f"{_atom('k - i')}/({_atom('i + d - k')}) - exp((2*i + d - 2*k)/t)", _LAP,
                  "i <= k <= i + d: |2i + d − 2k| <= d."),
        _identity("right of both centres: ratio e^(-d/t)",
                  f"{_atom('k - i')}/({_atom('k - i - d')}) - exp(-d/t)", _LAP,
                  "k ≥ i + d."),
        _identity("the upper end M: ratio e^(-d/t)",
                  f"{_end('M - i')}/({_end('M - i - d')}) - exp(-d/t)", _LAP,
                  "P(i + D ≥ M) = α^{M − i}/(1 + α) for M ≥ i + d."),
        _identity("the lower end -M: ratio e^(d/t)",
                  f"{_end('i + M')}/({_end('i + d + M')}) - exp(d/t)", _LAP,
                  "P(i + D <= −M) = α^{i + M}/(1 + α) for −M <= i."),
    ),
)

CERTIFICATIONS = (RANDOMIZED_RESPONSE, OUE, GRID_LAPLACE)
"""The tight mechanisms' identity certificates (``proofs_checks/certificates/catalogue/``)."""

DPS = 100
"""Digits of the closed forms' evaluation (their error is far below the budget)."""


def _rr(keep_bit: int, eps: mpmath.mpf) -> dict[Any, mpmath.mpf]:
    e = mpmath.exp(eps)
    keep, flip = mpmath.log(e / (e + 1)), mpmath.log(1 / (e + 1))
    return {0: keep if keep_bit == 0 else flip, 1: keep if keep_bit == 1 else flip}


def rr_log_law(mechanism: Any, x: float) -> dict[Any, mpmath.mpf]:
    """Randomized response's closed form at input ``x`` (a bit)."""
    return _rr(int(x), mpmath.mpf(mechanism.epsilon))


def threshold_log_law(mechanism: Any, x: float) -> dict[Any, mpmath.mpf]:
    """ThresholdQuery: randomized response of the bit 1[x <= coin]."""
    return _rr(int(x <= mechanism.coin), mpmath.mpf(mechanism.epsilon))


def oue_log_law(mechanism: Any, x: float) -> dict[Any, mpmath.mpf]:
    """The HM randomizer with OUE: the code of (level ℓ, bits z) has probability
    (1/k)·(p or 1 − p at x's node)·Π_{other nodes} (q or 1 − q), p = 1/2, q = 1/(e^ε + 1)."""
    from dpquant.reference.distributed_quantiles.hierarchical import node_index

    if mechanism.oracle != "oue":
        raise ValueError(f"the OUE closed form does not describe oracle {mechanism.oracle!r}")
    p, q = mpmath.mpf(1) / 2, 1 / (mpmath.exp(mpmath.mpf(mechanism.epsilon)) + 1)
    out = {}
    offsets = mechanism.offsets
    for level in range(1, mechanism.k + 1):
        width = mechanism.branching**level
        node = int(node_index(int(x), level, mechanism.k, mechanism.branching))
        for local in range(2**width):
            bits = [(local >> j) & 1 for j in range(width)]
            value = -mpmath.log(mechanism.k)
            for j, z in enumerate(bits):
                prob = p if j == node else q
                value += mpmath.log(prob if z else 1 - prob)
            out[offsets[level - 1] + local] = value
    return out


def laplace_report_log_law(mechanism: Any, x: float) -> dict[Any, mpmath.mpf]:
    """The grid Laplace report's closed form: atoms Λ·k, k = −M..M (module docstring)."""
    from dpquant.reference.ldp_minimum.laplace_baseline import (
        grid_clamp,
        grid_index,
        grid_noise_scale,
    )

    t = grid_noise_scale(mechanism.epsilon, mechanism.grid)
    m, i = grid_clamp(mechanism.epsilon, mechanism.grid), grid_index(x, mechanism.grid)
    inv_t = mpmath.mpf(t.denominator) / t.numerator
    alpha = mpmath.exp(-inv_t)
    centre = mpmath.log((1 - alpha) / (1 + alpha))
    end = -mpmath.log(1 + alpha)
    out = {}
    for k in range(-m, m + 1):
        if k == m:
            value = end - (m - i) * inv_t
        elif k == -m:
            value = end - (i + m) * inv_t
        else:
            value = centre - abs(k - i) * inv_t
        out[k * mechanism.grid] = value
    return out


def _laplace_premise(mechanism: Any) -> bool:
    """(2/Λ)/t <= ε exactly: the largest centre distance 2/Λ over the scale t."""
    from dpquant.reference.ldp_minimum.laplace_baseline import grid_noise_scale

    t = grid_noise_scale(mechanism.epsilon, mechanism.grid)
    return 2 / Fraction(mechanism.grid) / t <= Fraction(mechanism.epsilon)


@dataclass(frozen=True)
class TightProof:
    """The exact route of a tight mechanism.

    Attributes:
        certification: Its identities (one certificate).
        log_law: (mechanism, input) → output → the closed form's log-probability.
        premise: An exact check on the mechanism's parameters the proof needs (True: none).
    """

    certification: ClaimCertification
    log_law: Callable[[Any, float], dict[Any, mpmath.mpf]]
    premise: Callable[[Any], bool] = lambda mechanism: True


TIGHT_PROOFS: dict[str, TightProof] = {
    "randomized_response[eps=1]": TightProof(RANDOMIZED_RESPONSE, rr_log_law),
    "randomized_response[eps=0.1]": TightProof(RANDOMIZED_RESPONSE, rr_log_law),
    "aamand25_threshold_query[B=8,coin=4,eps=1]": TightProof(RANDOMIZED_RESPONSE, threshold_log_law),
    "aamand25_hm_randomizer[B=4,b=2,oue,eps=1]": TightProof(OUE, oue_log_law),
    "fukuchi19_laplace_report[eps=1,grid=1/4]": TightProof(
        GRID_LAPLACE, laplace_report_log_law, _laplace_premise
    ),
}
"""Registry entry name → its exact route."""


@cache
def identities_proven(claim: str) -> bool:
    """Whether every identity of the certification ``claim`` is proven (sympy, once)."""
    from dpquant.certify.branch_and_bound import CertificationFailed
    from dpquant.certify.certificates import certify

    spec = next(c for c in CERTIFICATIONS if c.claim == claim)
    try:
        certify(spec)
    except CertificationFailed:
        return False
    return True


def law_matches(proof: TightProof, mechanism: Any, x: float, law: Any) -> bool:
    """Whether the implemented ``law`` at input ``x`` is the closed form: the same support and
    every stored log-probability within the budget of the closed form (at :data:`DPS` digits)."""
    from dpquant.certify.enclosures import LOG_ERROR_BUDGET

    with mpmath.workdps(DPS):
        closed = proof.log_law(mechanism, x)
        if set(closed) != set(law.support) or len(closed) != len(law.support):
            return False
        return all(
            abs(mpmath.mpf(stored) - closed[y]) <= LOG_ERROR_BUDGET
            for y, stored in zip(law.support, law.logp, strict=True)
        )


__all__ = [
    "CERTIFICATIONS",
    "GRID_LAPLACE",
    "OUE",
    "RANDOMIZED_RESPONSE",
    "TIGHT_PROOFS",
    "TightProof",
    "identities_proven",
    "law_matches",
]
