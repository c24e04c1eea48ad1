"""The vectorised int64 sampler of the discrete Gaussian N_ℤ(loc, σ²):
:func:`sample_discrete_gaussian`, Canonne, Kamath and Steinke, "The Discrete Gaussian for
Differential Privacy" (NeurIPS 2020, arXiv:2004.00010; CKS20), Algorithm 3, by rejection from
the vectorised discrete Laplace sampler
(:func:`~dpquant.reference.primitives.discrete_laplace.sample_discrete_laplace`). Its exact law
is :class:`~dpquant.reference.primitives.discrete_gaussian.DiscreteGaussianLaw`; the exact
sampler on rationals is :mod:`dpquant.reference.primitives.exact_discrete_gaussian`.

Limits (refused with a ``ValueError`` naming the parameter and the range): σ in [2^−500, 2^47]
(:data:`MIN_SIGMA`, :data:`MAX_SAMPLER_SIGMA`): above 2^47 a discrete Laplace proposal
(|Y| < 47t + 2^32 with t = ⌊σ⌋ + 1) may exceed 2^53 and no longer convert to a float exactly;
below 2^−500, σ² is no longer a normal float. |loc| <= 2^53.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.primitives.discrete_laplace import MAX_LOC, sample_discrete_laplace
from dpquant.reference.validation import check_int, check_positive, check_rng, check_size

MIN_SIGMA = Fraction(1, 2**500)
"""Smallest σ of the discrete Gaussian law and samplers (about 3.1e-151): σ² and 1/σ² are
normal floats."""

MAX_SAMPLER_SIGMA = 2**47
"""Largest σ of :func:`sample_discrete_gaussian` (about 1.4e14): every proposal fits a float
exactly, and t = ⌊σ⌋ + 1 is within the discrete Laplace sampler's 2^50."""

GAMMA_CUTOFF = 1000.0
"""The vectorised sampler rejects a proposal whose acceptance probability e^{−γ} is below
e^{−1000} outright (a change of less than e^{−1000} in any probability)."""

_EXP_MINUS_ONE = math.exp(-1.0)


def _check_sampler_sigma(sigma: float) -> float:
    if not float(MIN_SIGMA) <= sigma <= MAX_SAMPLER_SIGMA:
        raise ParameterError(
            "sigma",
            "must lie in [2^-500, 2^47] for the int64 discrete Gaussian sampler (proposals "
            "beyond 2^53 no longer convert to floats exactly)",
            f"{sigma:.6g}"
            + ("; use sample_discrete_gaussian_exact" if sigma > MAX_SAMPLER_SIGMA else ""),
        )
    return sigma


def _bernoulli_exp_neg_float(gamma: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(e^{−γ}) for each γ >= 0, as CKS20 Alg. 1 splits it for γ > 1:
    e^{−γ} = e^{−(γ − ⌊γ⌋)}·(e^{−1})^{⌊γ⌋}, the AND of one uniform comparison U < e^{−(γ−⌊γ⌋)}
    and ⌊γ⌋ comparisons U < e^{−1}, stopping at the first failure (about 1.6 uniforms a draw).
    Each comparison with a 53-bit uniform has a relative error below 2^−51 (its probability is
    at least e^{−1}), so the product's is below (⌊γ⌋ + 1)·2^−51, with no floor on how small
    e^{−γ} may be; γ >= :data:`GAMMA_CUTOFF` is rejected outright."""
    whole = np.floor(gamma)
    keep = (gamma < GAMMA_CUTOFF) & (rng.random(gamma.size) < np.exp(-(gamma - whole)))
    left = np.where(keep, whole, 0.0)
    idx = np.flatnonzero(left > 0)
    while idx.size:
        passed = rng.random(idx.size) < _EXP_MINUS_ONE
        keep[idx[~passed]] = False
        left[idx] -= 1
        idx = idx[passed & (left[idx] > 0)]
    return keep


def _gaussian_draws(s2: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """CKS20 Alg. 3 on arrays, for a float σ² with 2^−1000 <= σ² <= 2^94: Y ~ DLap(t),
    t = ⌊σ⌋ + 1, kept with probability exp(−(|Y| − σ²/t)²/(2σ²)).

    A kept Y = y has probability ∝ e^{−|y|/t}·e^{−(|y| − σ²/t)²/(2σ²)} = e^{−y²/(2σ²)}·e^{−σ²/(2t²)}
    (expand the square): the discrete Gaussian, for any t > 0. Summing it over y, a pass keeps a
    fraction (1 − q)/(1 + q)·e^{−σ²/(2t²)}·θ(0), q = e^{−1/t}, of the pending draws: 0.46 as
    σ → 0, 0.76 as σ → ∞, never below 0.45 with t = ⌊σ⌋ + 1."""
    sigma = math.sqrt(s2)
    t = math.floor(sigma) + 1.0
    shift = s2 / t
    out = np.empty(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        y = sample_discrete_laplace(t, pending.size, rng)
        z = (np.abs(y).astype(np.float64) - shift) / sigma  # |y| < 2^53: exact as a float
        keep = _bernoulli_exp_neg_float(0.5 * z * z, rng)
        out[pending[keep]] = y[keep]
        pending = pending[~keep]
    return out


def sample_discrete_gaussian(
    sigma: float, size: int, rng: np.random.Generator, loc: int = 0
) -> np.ndarray:
    """``size`` draws of N_ℤ(loc, σ²) as int64, vectorised: CKS20 Algorithm 3 by rejection,
    each pass drawing discrete Laplace proposals Y with scale t = ⌊σ⌋ + 1 for every pending draw
    (:func:`~dpquant.reference.primitives.discrete_laplace.sample_discrete_laplace`) and keeping
    each with probability exp(−(|Y| − σ²/t)²/(2σ²)).

    Float precision (as :func:`~dpquant.reference.primitives.discrete_laplace.sample_discrete_laplace`
    documents its own): the law drawn is N_ℤ(loc, σ̃²) with σ̃² = fl(σ·σ), within 2^−53 of σ²
    relatively. The proposals have the discrete Laplace sampler's relative error of about 2^−34
    on each atom (coarser beyond ~12t, where the Gaussian's mass is below 10^−31). The
    acceptance e^{−γ}, γ = ((|Y| − σ²/t)/σ)²/2 computed in float (absolute error about
    √(2γ)·2^−52), is drawn as e^{−(γ−⌊γ⌋)}·(e^{−1})^{⌊γ⌋} with one 53-bit uniform a factor
    (relative error below (⌊γ⌋ + 1)·2^−51, below 2^−40 for every γ < 1000), so small acceptance
    probabilities are not floored at 2^−53; γ >= 1000 (|Y| beyond ~45σ, mass below e^{−1000}) is
    rejected. So each atom's probability is that of the law up to a relative error of about 2^−34.

    For exact rational σ² of any size use
    :func:`~dpquant.reference.primitives.exact_discrete_gaussian.sample_discrete_gaussian_exact`.

    Args:
        sigma: σ, a finite number in [2^−500, 2^47] (:data:`MIN_SIGMA`,
            :data:`MAX_SAMPLER_SIGMA`): above 2^47 a proposal may exceed 2^53 and no longer
            convert to a float exactly; below 2^−500, σ² underflows the normal floats.
        size: The draws.
        rng: A ``numpy.random.Generator``.
        loc: The centre, an int with ``|loc| <= 2^53``.

    Returns:
        ``size`` int64 draws.

    Raises:
        ValueError: An argument is refused (named).
    """
    s = _check_sampler_sigma(check_positive(sigma, "sigma"))
    loc = check_int(loc, "loc", minimum=-MAX_LOC, maximum=MAX_LOC)
    size, rng = check_size(size), check_rng(rng)
    return loc + _gaussian_draws(s * s, size, rng)


__all__ = ["GAMMA_CUTOFF", "MAX_SAMPLER_SIGMA", "MIN_SIGMA", "sample_discrete_gaussian"]
