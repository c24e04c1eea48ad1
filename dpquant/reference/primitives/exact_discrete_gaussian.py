"""The exact discrete Gaussian sampler on rationals: :func:`sample_discrete_gaussian_exact`,
Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020,
arXiv:2004.00010; CKS20), Algorithm 3, on top of their Algorithm 2 (the exact discrete Laplace
sampler :func:`~dpquant.reference.primitives.exact_discrete_laplace.sample_discrete_laplace_exact`)
and Algorithm 1 (the exact Bernoulli(exp(−γ))
:func:`~dpquant.reference.primitives.exact_discrete_laplace.bernoulli_exp_neg`); no floating
point at all. The law it draws is that of
:class:`~dpquant.reference.primitives.discrete_gaussian.DiscreteGaussianLaw` (``sigma2=σ²``).

Decision, as for the exact discrete Laplace sampler: σ² must be an ``int`` or a ``Fraction``; a
float raises ``ValueError`` (``Fraction(0.1)`` is 3602879701896397/36028797018963968, not 1/10:
converting silently would sample a law the caller almost certainly did not mean; pass
``Fraction(x)`` to mean it).

Limits (refused with a ``ValueError`` naming the parameter and the range): σ²'s numerator and
denominator below 2^512 (:data:`MAX_SIGMA2_BITS`: every γ of the acceptance step then has a
numerator and a denominator below the 2^4096 of ``bernoulli_exp_neg``), at most
:data:`MAX_EXACT_GAUSSIAN_DRAWS` draws a call (one acceptance step in Python per proposal, about
30 µs), and |loc| <= 2^53.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.primitives.discrete_laplace import MAX_LOC
from dpquant.reference.primitives.exact_discrete_laplace import (
    bernoulli_exp_neg,
    sample_discrete_laplace_exact,
)
from dpquant.reference.validation import check_int, check_rng, check_size

MAX_SIGMA2_BITS = 512
"""Most bits of σ²'s numerator and denominator (σ² between 2^−512 and 2^512)."""

MAX_EXACT_GAUSSIAN_DRAWS = 100_000
"""Most draws of one :func:`sample_discrete_gaussian_exact` call (a few seconds)."""

_PROPOSAL_BATCH = 10_000  # proposals drawn at once (the exact Laplace sampler's scalar cap)


def _check_sigma2(sigma2: Any) -> Fraction:
    """σ² as an int or ``Fraction`` > 0 (never a float, never a bool), of bounded size."""
    if isinstance(sigma2, bool | np.bool_) or not isinstance(sigma2, Fraction | int | np.integer):
        hint = ""
        if isinstance(sigma2, float | np.floating):
            hint = " (floats are refused: pass Fraction(numerator, denominator), or Fraction(x) "
            hint += "for the exact binary value of a float)"
        raise ParameterError("sigma2", "must be an int or a Fraction > 0", f"{sigma2!r}{hint}")
    value = Fraction(int(sigma2)) if isinstance(sigma2, np.integer) else Fraction(sigma2)
    if value <= 0:
        raise ParameterError("sigma2", "must be an int or a Fraction > 0", str(value))
    bits = max(value.numerator.bit_length(), value.denominator.bit_length())
    if bits > MAX_SIGMA2_BITS:
        raise ParameterError(
            "sigma2",
            f"must have a numerator and a denominator below 2^{MAX_SIGMA2_BITS}",
            f"one of {bits} bits",
        )
    return value


def _accepts(y: int, sigma2: Fraction, t: int, rng: np.random.Generator) -> bool:
    """CKS20 Alg. 3's acceptance: Bernoulli(exp(−γ)), γ = (|y| − σ²/t)²/(2σ²), exactly.

    A proposal y of DLap(t) (P ∝ e^{−|y|/t}) is kept with probability e^{−γ}; expanding the
    square, γ = y²/(2σ²) − |y|/t + σ²/(2t²), so P(keep, Y = y) ∝ e^{−y²/(2σ²)}·e^{−σ²/(2t²)}:
    the kept y follow N_ℤ(0, σ²) exactly (the last factor does not depend on y)."""
    gamma = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)
    return bernoulli_exp_neg(gamma, rng)


def sample_discrete_gaussian_exact(
    sigma2: Fraction | int, size: int, rng: np.random.Generator, loc: int = 0
) -> np.ndarray:
    """``size`` exact draws of N_ℤ(loc, σ²) for a rational σ² (CKS20 Algorithm 3).

    t = ⌊σ⌋ + 1 = isqrt(⌊σ²⌋) + 1 (exact: ⌊√x⌋ = isqrt(⌊x⌋) for x >= 0); repeat: Y ← DLap(t)
    (CKS20 Alg. 2, exact), C ← Bernoulli(exp(−(|Y| − σ²/t)²/(2σ²))) (CKS20 Alg. 1, exact); return
    Y when C = 1 (:func:`_accepts` derives the law). Every random decision is an integer
    comparison on ``rng.integers`` draws, so the law is exact up to the quality of the
    generator. About 1.3 to 2.2 proposals a draw (the acceptance rate is between 0.45 and 0.77).

    Args:
        sigma2: σ², an ``int`` or a ``Fraction`` > 0 whose numerator and denominator are below
            2^512 (:data:`MAX_SIGMA2_BITS`); a float raises ``ValueError`` (module docstring).
        size: The draws, at most :data:`MAX_EXACT_GAUSSIAN_DRAWS`.
        rng: A ``numpy.random.Generator``.
        loc: The centre, an int with ``|loc| <= 2^53``.

    Returns:
        ``size`` int64 draws (object dtype if a draw does not fit in int64, at σ beyond 2^56).

    Raises:
        ValueError: An argument is refused (named).
    """
    s2 = _check_sigma2(sigma2)
    size = check_size(size, cap=MAX_EXACT_GAUSSIAN_DRAWS)
    rng = check_rng(rng)
    loc = check_int(loc, "loc", minimum=-MAX_LOC, maximum=MAX_LOC)
    t = math.isqrt(s2.numerator // s2.denominator) + 1
    draws: list[int] = []
    while len(draws) < size:
        batch = min(_PROPOSAL_BATCH, 2 * (size - len(draws)) + 8)
        for y in sample_discrete_laplace_exact(t, batch, rng).tolist():
            if _accepts(int(y), s2, t, rng):
                draws.append(loc + int(y))
                if len(draws) == size:
                    break
    try:
        return np.array(draws, dtype=np.int64)
    except OverflowError:
        return np.array(draws, dtype=object)


__all__ = ["MAX_EXACT_GAUSSIAN_DRAWS", "MAX_SIGMA2_BITS", "sample_discrete_gaussian_exact"]
