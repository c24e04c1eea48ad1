"""Continuous Laplace noise Laplace(loc, b), density (1/2b)·exp(−|y − loc|/b): its exact law
:func:`laplace_law` (a :class:`~dpquant.reference.distributions.PiecewiseLogLinear`) and the numpy sampler
:func:`sample_laplace`, with the parameters float64 resolves
(:func:`check_laplace_sampler_parameters`).

The discrete Laplace lives in :mod:`dpquant.reference.primitives.discrete_laplace` (exact law and int64
sampler) and :mod:`dpquant.reference.primitives.exact_discrete_laplace` (the exact sampler on rationals).

Limits (refused with a ``ValueError`` naming the parameter and the range; issue 18):
:func:`sample_laplace` refuses (loc, scale) whose draws would overflow or fall on a float grid
coarser than scale/2^12 (:func:`check_laplace_sampler_parameters`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions import FLOAT_SAMPLING_TOLERANCE, PiecewiseLogLinear
from dpquant.reference.exact.mp import DPS, to_mpf, workdps
from dpquant.reference.inverse_cdf import FLOAT_GRID_FRACTION, coarse_float_grid
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_finite,
    check_fraction,
    check_positive,
    check_rng,
    check_size,
)


def laplace_law(loc: float, scale: float) -> PiecewiseLogLinear:
    """Exact law of Laplace(loc, scale): density (1/2b)·exp(−|y − loc|/b).

    Two log-linear pieces, (−inf, loc] with slope 1/b and intercept −log(2b) − loc/b, and
    [loc, inf) with slope −1/b and intercept −log(2b) + loc/b. The exact path uses the exact
    rational values of ``loc`` and ``scale`` (floats are exact binary rationals), so privacy
    losses come out exact to the working precision, and the mass is 1 to the working precision
    for any finite ``loc`` and ``scale`` > 0 that fit a float64 (the intercepts ∓loc/b are kept
    with enough digits to cancel against the slope times ``loc``, however large |loc/b|).

    The law's float sampler (``.sample``) refuses parameters that float64 cannot resolve
    (:meth:`~dpquant.reference.distributions.PiecewiseLogLinear.float_sampling_error`): roughly
    |loc|/scale above about 2^39 (Laplace(1, 1e-16): the draws would round onto a grid coarse
    against the scale), scale below about 4e-320, or |loc| + 10·scale beyond 1.8e308.

    Args:
        loc: The centre, finite.
        scale: The scale b, > 0.

    Returns:
        The law.

    Raises:
        ValueError: ``loc`` or ``scale`` out of range (named).
    """
    mu = check_fraction(loc, "loc")
    b = check_fraction(scale, "scale", positive=True)
    if b * Fraction(MAX_FLOAT) < max(Fraction(1), abs(mu)):  # 1/b and loc/b must fit a float64
        raise ParameterError(
            "scale",
            f"must be >= max(1, |loc|)/{MAX_FLOAT:.4g} (the slope 1/scale and loc/scale must fit "
            "a float64)",
            f"loc = {float(mu)!r}, scale = {float(b)!r}",
        )
    with workdps():
        digits = max(0, int(mpmath.mag(to_mpf(mu / b)) * 0.30103)) if mu else 0
    with mpmath.workdps(DPS + digits + 20):  # exact_intercepts keep these digits
        log_2b = mpmath.log(2 * to_mpf(b))
        shift = to_mpf(mu / b)
        exact_intercepts = [-log_2b - shift, -log_2b + shift]
    inv_b = 1 / b
    with np.errstate(over="ignore"):
        spacing = float(np.spacing(abs(float(mu))))
    hint = (
        f" (laplace_law: loc = {float(mu)!r}, scale = {float(b)!r}; the float sampler needs "
        f"scale >= {spacing / FLOAT_SAMPLING_TOLERANCE:.4g} at this loc, and "
        f"|loc| + 10*scale <= {MAX_FLOAT:.4g})"
    )
    return PiecewiseLogLinear(
        breaks=[-math.inf, float(mu), math.inf],
        slopes=[float(inv_b), -float(inv_b)],
        intercepts=[float(x) for x in exact_intercepts],
        exact_breaks=[-math.inf, mu, math.inf],
        exact_slopes=[inv_b, -inv_b],
        exact_intercepts=exact_intercepts,
        sampling_hint=hint,
    )


def check_laplace_sampler_parameters(loc: Any, scale: Any) -> tuple[float, float]:
    """Check that :func:`sample_laplace` draws Laplace(loc, scale) correctly in float64.

    numpy's Laplace variate is loc ± scale·E with |E| <= 36.8 (the log of a 53-bit uniform), and
    each output is a rounded float. Two limits make that the Laplace law up to rounding:

    * no overflow: |loc| + 40·scale <= the largest float;
    * a fine output grid: the float spacing at |loc| + 40·scale (at least the smallest subnormal,
      5e-324) is at most scale/2^12 (:data:`dpquant.reference.inverse_cdf.FLOAT_GRID_FRACTION`), so rounding
      moves any probability P(Y <= y) by less than 2^−13 — roughly |loc| <= 2^40·scale and
      scale >= about 2e-320. Beyond it the draws fall on a grid coarse against the scale (Laplace(1,
      1e-16) in floats gives P(Y < loc) = 0.28, not 0.5).

    Args:
        loc: The centre.
        scale: The scale.

    Returns:
        (loc, scale) as floats.

    Raises:
        ValueError: Parameters beyond those limits (named).
    """
    loc = check_finite(loc, "loc")
    scale = check_positive(scale, "scale")
    reach = abs(loc) + 40.0 * scale
    if not reach <= MAX_FLOAT:
        raise ParameterError(
            "scale",
            f"must keep |loc| + 40*scale <= {MAX_FLOAT:.4g} (no Laplace draw may overflow)",
            f"loc = {loc!r}, scale = {scale!r}",
        )
    if coarse_float_grid(reach, scale):
        with np.errstate(over="ignore"):
            spacing = float(np.spacing(reach))
        raise ParameterError(
            "scale",
            "must be at least 2^12 times the float spacing near loc: scale >= "
            f"{spacing / FLOAT_GRID_FRACTION:.4g} for loc = {loc!r} (|loc|/scale <= about 2^40)",
            f"scale = {scale!r}; the float draws would fall on a grid coarse against the scale. "
            "Shift the data so that loc is near 0, or use a larger scale",
        )
    return loc, scale


def sample_laplace(loc: float, scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """Independent Laplace(loc, scale) draws (numpy's vectorised sampler).

    Args:
        loc: The centre.
        scale: The scale; with ``loc`` it must satisfy
            :func:`check_laplace_sampler_parameters` (no overflow; |loc|/scale <= about 2^40
            and scale >= about 2e-320, so that rounding the draws to floats moves no
            probability by more than 2^−13).
        size: The draws.
        rng: A ``numpy.random.Generator``.

    Returns:
        ``size`` finite float64 draws.

    Raises:
        ValueError: An argument is refused (named).
    """
    loc, scale = check_laplace_sampler_parameters(loc, scale)
    size, rng = check_size(size), check_rng(rng)
    return rng.laplace(loc, scale, size)


__all__ = ["check_laplace_sampler_parameters", "laplace_law", "sample_laplace"]
