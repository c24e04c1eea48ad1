"""The restricted algorithm Â of tzamos20 on the typical set (Eq. (3.4)/(A.2), Lemma A.4,
Algorithm 2 / Lemma E.1).

f_{Â(X)}(ω) = exp(−(ε/4)·min{(Ln/(3C))·|m(X) − ω|, Lrn})/Ẑ on I = [−B, B], B = R + 4Cr: the
"flattened Laplace" — Laplace with scale σ = 12C/(εLn) for |ω − m| <= 3Cr, constant e^{−εLrn/4}
beyond. In the units of :mod:`extended_density` (f ∝ exp((ε/2)Ψ)) its log-density is the single
tent Ψ(y) = −s·min{|y − m|, 3Cr}, s = Ln/(6C): the envelope of one level k = 0 at ξ = m.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import CombinationError, ParameterError
from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.truncated import sample_truncated_laplace, sample_uniform
from dpquant.reference.private_median.extended_density import (
    Piece,
    envelope_from_levels,
    exact_epsilon,
    law_from_pieces,
)
from dpquant.reference.private_median.parameters import MedianParameters, check_params
from dpquant.reference.validation import MAX_FLOAT, check_fraction, check_rng, check_size


def restricted_pieces(median: Any, params: MedianParameters) -> list[Piece]:
    """Ψ(y) = −s·min{|y − m|, 3Cr} on [−B, B] as exact pieces (m anywhere on ℝ)."""
    m = check_fraction(median, "median")
    return envelope_from_levels({0: (m, m)}, check_params(params))


def restricted_law(median: Any, params: MedianParameters, epsilon: Any) -> PiecewiseLogLinear:
    """The exact law of Â(X) for m(X) = ``median`` (Eq. (A.2))."""
    return law_from_pieces(restricted_pieces(median, params), epsilon)


def lemma_a_4_normalizer(params: MedianParameters, epsilon: Any) -> mpmath.mpf:
    """Lemma A.4's closed form (its printed statement has a stray dω, removed here):
    Ẑ = (24C/(εLn))(1 − e^{−εLrn/4}) + (2R + 2Cr)e^{−εLrn/4}; valid when C > 1/2 and m ∈ Ξ."""
    params = check_params(params)
    with workdps():
        e = to_mpf(exact_epsilon(epsilon))
        L, r, R, C = (to_mpf(v) for v in (params.L, params.r, params.R, params.C))
        n = params.n
        tail = mpmath.exp(-e * L * r * n / 4)
        return 24 * C / (e * L * n) * (1 - tail) + (2 * R + 2 * C * r) * tail


def restricted_intervals(
    median: Any, params: MedianParameters, cap: Fraction | None = None
) -> list[tuple[str, Fraction, Fraction]]:
    """Algorithm 2's partition of I: I_left = [−B, m − 3Cr), I_center = [m − 3Cr, m + 3Cr] ∩ I,
    I_right = (m + 3Cr, B] (read from Algorithm 2's figure, Fig. 3); empty parts are left out,
    as its comment allows. ``cap`` replaces 3Cr (the
    fixed variant's d_M)."""
    params = check_params(params)
    m, bound = check_fraction(median, "median"), params.output_bound
    cap = 3 * params.C * params.r if cap is None else check_fraction(cap, "cap", nonnegative=True)
    lo, hi = max(-bound, m - cap), min(bound, m + cap)
    out = []
    if -bound < min(lo, bound):
        out.append(("left", -bound, min(lo, bound)))
    if lo < hi:
        out.append(("center", lo, hi))
    if max(hi, -bound) < bound:
        out.append(("right", max(hi, -bound), bound))
    return out


def _log_part_mass(kind: str, a: Fraction, b: Fraction, m: Fraction, rate, plateau) -> mpmath.mpf:
    """log ∫_a^b of the unnormalised density e^{−λ·min(|ω − m|, 3Cr)} (λ = 1/σ) over one part."""
    if kind != "center":
        return plateau + mpmath.log(to_mpf(b - a))
    total = []
    for lo, hi in ((a, min(b, m)), (max(a, m), b)):
        if lo < hi:  # ∫ e^{−λ|ω − m|} over [lo, hi] on one side of m
            near, far = (hi, lo) if hi <= m else (lo, hi)
            d_near, d_far = abs(to_mpf(near - m)), abs(to_mpf(far - m))
            total.append(
                -rate * d_near
                + mpmath.log(-mpmath.expm1(-rate * (d_far - d_near)))
                - mpmath.log(rate)
            )
    return mpmath.log(sum(mpmath.exp(t) for t in total))


def sample_restricted(
    median: Any,
    params: MedianParameters,
    epsilon: Any,
    size: int,
    rng: np.random.Generator,
    *,
    variant: str = "stable",
    cap: Fraction | None = None,
) -> np.ndarray:
    """``size`` draws of Â(X) by Algorithm 2 (Lemma E.1): a 3-ary coin with the exact masses of
    I_left, I_center, I_right, then UNIFORM on a side part or TRUNCATEDLAPLACE(m, σ = 12C/(Lnε))
    on the centre (``variant`` selects the truncated-Laplace inverse of
    :func:`~dpquant.reference.primitives.truncated.sample_truncated_laplace`; ``"stable"`` by default).
    ``cap`` replaces the flattening distance 3Cr (the fixed variant's d_M)."""
    size, rng = check_size(size), check_rng(rng)
    params = check_params(params)
    m = check_fraction(median, "median")
    eps = exact_epsilon(epsilon)
    sigma = 12 * params.C / (params.L * params.n * eps)
    cap = 3 * params.C * params.r if cap is None else check_fraction(cap, "cap", nonnegative=True)
    if not (
        Fraction(2) ** -1000 <= sigma <= MAX_FLOAT / 4 and params.output_bound <= MAX_FLOAT / 4
    ):
        raise CombinationError(
            ("epsilon", "params"),
            "the Laplace scale σ = 12C/(εLn) or the bound B = R + 4Cr is "
            "outside the range the float sampler represents (σ in [2^-1000, 4.5e307], "
            "B <= 4.5e307)",
        )
    parts = restricted_intervals(m, params, cap)
    with workdps():
        rate = 1 / to_mpf(sigma)
        plateau = -rate * to_mpf(cap)  # λ·3Cr = εLrn/4 for the paper's cap
        logs = [_log_part_mass(k, a, b, m, rate, plateau) for k, a, b in parts]
        top = max(logs)
        weights = np.array([float(mpmath.exp(v - top)) for v in logs])
    coin = rng.choice(len(parts), size=size, p=weights / weights.sum())  # the 3-ary coin
    out = np.empty(size)
    for i, (kind, a, b) in enumerate(parts):
        hit = coin == i
        count = int(hit.sum())
        if not count:
            continue
        try:
            if kind == "center":
                out[hit] = sample_truncated_laplace(
                    float(m), float(sigma), float(a), float(b), count, rng, variant=variant
                )
            else:
                out[hit] = sample_uniform(float(a), float(b), count, rng)
        except ValueError as exc:
            if isinstance(exc, ParameterError) and exc.parameter == "variant":
                raise
            raise CombinationError(("epsilon", "params", "median"), str(exc)) from None
    return out


__all__ = [
    "lemma_a_4_normalizer",
    "restricted_intervals",
    "restricted_law",
    "restricted_pieces",
    "sample_restricted",
]
