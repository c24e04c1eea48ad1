"""Truncated samplers of tzamos20 App. E.3, each beside its exact law.

* UNIFORM[a, b] (Alg. 8): :func:`uniform_law`, :func:`sample_uniform`.
* TRUNCATEDEXPONENTIAL[α, β, [left, right]] (Alg. 10), density ∝ e^{αω+β} on [left, right]:
  :func:`truncated_exponential_law`, :func:`sample_truncated_exponential`.
* TRUNCATEDLAPLACE[μ, σ, [left, right]] (Alg. 11), density ∝ e^{−|ω−μ|/σ} on [left, right]:
  :func:`truncated_laplace_law`, :func:`sample_truncated_laplace`.

The paper prints three errors in these samplers (``notes/tzamos20.md``, erratum E11 and "Samplers
of App. E.3"):
the TRUNCATEDEXPONENTIAL inverse "(1/α)ln(e^{α·left+β} + u(e^{α·right+β} − e^{α·left+β})) − β"
misplaces β; the Laplace CDF "½ + ½ sgn(x−μ)(1 − (1/σ)e^{−|x−μ|/σ})" has a spurious 1/σ; the Laplace
inverse "μ + σ sgn(u−½) ln(1−2|u−½|)" has a sign error. Every sampler therefore has three variants:

``"stable"`` (default)
    Correct and numerically stable for any finite parameters: the inverse CDF in its stable form
    (:func:`dpquant.reference.inverse_cdf.truncated_exponential_inverse`, which never forms e^{α·x+β}),
    and for the Laplace a split at μ with the side chosen by its exact mass (computed in log space).
    Huge rates (|α| = 1e9 on a unit interval, σ = 1e-9) and intervals deep in one tail (where
    F(left) and F(right) both round to 1) are sampled exactly up to float rounding. The output
    always lies in [left, right].
``"corrected"``
    The textbook corrected formulas (erratum E11) evaluated naively in floats. Correct in exact
    arithmetic; in floats it overflows (NaN or ±inf outputs) for huge rates and loses precision
    for tiny ones.
``"paper"``
    The formulas exactly as printed, errors included; kept to show that the errata are real.

Decisions
---------
* Uniforms come from ``rng.random``, which draws from [0, 1): u = 0 is possible (probability
  2^-53) and maps to F⁻¹(0) = left in the stable variants; u = 1 never occurs. The stable variants
  clip to the closed interval [left, right] against last-ulp rounding, so an endpoint may be
  returned (a measure-zero event in exact arithmetic, harmless to the law).
* The naive variants (``"corrected"``, ``"paper"``) are never clipped or cleaned (float warnings
  silenced), since showing exactly what the formula does is their purpose; where it breaks down
  they raise instead of returning non-finite draws (below). Callers who need correct draws use
  ``"stable"``.
* α = 0: Alg. 10 samples UNIFORM[left, right]; every variant does so (the stable inverse does it
  through its flat branch, |α·(right − left)| < 1e-12, which is uniform to double precision).
* β is validated (a finite float) but does not change the law; the stable variant ignores it.
* The stable Laplace draws two uniforms a sample when μ ∈ (left, right) (one picks the side, one
  places the point inside it) and one otherwise; μ on an endpoint means a single side.
* Parameters are converted to float (the sampler works in floats); the exact laws are the exact laws
  of those floats: a law's exact path uses the float breakpoints exactly and, for the Laplace, the
  exact rationals 1/σ and μ*/σ, μ* the point of [left, right] nearest μ, where the unnormalised
  density is 1 (so its log-normaliser is always a finite float; issue 34).
* Limit of any float sampler: when the law's scale (1/|α|, σ, or the width when that is smaller)
  is comparable to the float spacing where the draws fall (e.g. α = 1e9 on [1e6, 1e6 + 1],
  spacing 1.2e-10 against a scale of 1e-9), the draws are rounded to a visibly coarse grid (a DKW
  gap of about |α|·spacing/2 ≈ 0.06 there). Every sampler (each variant) therefore refuses, with
  ``ValueError``, parameters under which the spacing within 40 scales of where the mass sits
  exceeds 2^−12 of the scale (:data:`dpquant.reference.inverse_cdf.FLOAT_GRID_FRACTION`): rounding then moves
  no probability by more than 2^−13, and the stable sampler is exact up to that rounding. The
  exact laws have no such limit.
* The naive variants never return non-finite draws: where their formula overflows (NaN or ±inf),
  they raise ``ValueError`` naming ``variant`` (the demonstration that the formula breaks) instead
  of returning them; ``"corrected"`` also refuses draws outside [left, right]. ``"paper"`` draws
  outside [left, right] are returned: they are its documented erratum (the printed Laplace CDF
  truncates too little).
* Validation: every parameter must be a finite real (not bool); left < right with right − left
  finite (a wider interval has no float width); σ > 0 with 1/σ finite (σ >= ~5.6e-309). The laws
  also need the log-density's anchor value |rate·endpoint| to be a finite float.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.inverse_cdf import (
    FLOAT_GRID_FRACTION,
    coarse_float_grid,
    truncated_exponential_inverse,
)
from dpquant.reference.validation import (
    check_finite,
    check_positive,
    check_real_array,
    check_rng,
    check_size,
)

VARIANTS: tuple[str, ...] = ("stable", "corrected", "paper")
"""Names accepted by the ``variant`` argument of the samplers (``"stable"`` is the default)."""

# Below this, -expm1(-x) underflows or loses digits: use log(x) = log(s) + log(d) instead.
_TINY_EXPONENT = 1e-300


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _check_interval(
    left: Any, right: Any, names: tuple[str, str] = ("left", "right")
) -> tuple[float, float]:
    """A finite interval [left, right] with left < right and a finite float width."""
    lo_name, hi_name = names
    lo, hi = check_finite(left, lo_name), check_finite(right, hi_name)
    if not lo < hi:
        raise ParameterError(
            lo_name,
            f"must be < {hi_name} (a non-empty interval [{lo_name}, {hi_name}])",
            f"{lo_name}={lo!r}, {hi_name}={hi!r}",
        )
    if not math.isfinite(hi - lo):
        raise ValueError(
            f"{hi_name} - {lo_name} must be a finite float (at most {np.finfo(float).max!r}), got "
            f"{lo_name}={lo!r}, {hi_name}={hi!r}"
        )
    return lo, hi


def _check_sigma(sigma: Any) -> float:
    """σ > 0, finite, with a finite rate 1/σ."""
    value = check_positive(sigma, "sigma")
    if not math.isfinite(1.0 / value):
        raise ParameterError(
            "sigma",
            "must be a finite number > 0 with 1/sigma finite (sigma >= 5.6e-309)",
            repr(value),
        )
    return value


def _check_variant(variant: Any) -> str:
    if not isinstance(variant, str) or variant not in VARIANTS:
        allowed = ", ".join(repr(v) for v in VARIANTS)
        raise ParameterError("variant", f"must be one of {allowed}", repr(variant))
    return variant


def _check_grid(
    left: float,
    right: float,
    centre: float,
    scale: float,
    scale_name: str | None,
    names: tuple[str, str] = ("left", "right"),
) -> None:
    """Refuse a law whose draws would fall on a float grid coarse against its scale: the spacing
    at the largest magnitude within 40 scales of ``centre`` (the point in [left, right] where the
    mass sits) must be at most :data:`~dpquant.reference.inverse_cdf.FLOAT_GRID_FRACTION` times
    min(scale, right − left). ``scale_name`` names the scale parameter (None: the width)."""
    lo_name, hi_name = names
    width = right - left
    effective = min(scale, width)
    reach = min(max(abs(left), abs(right)), abs(centre) + 40.0 * effective)
    if not coarse_float_grid(reach, effective):
        return
    with np.errstate(over="ignore"):
        needed = float(np.spacing(reach)) / FLOAT_GRID_FRACTION
    if scale_name is not None and scale < width:
        head = (
            f"{scale_name} must give a scale of at least 2^12 float spacings where the draws fall"
        )
    else:
        head = (
            f"{hi_name} - {lo_name} must span at least 2^12 float spacings "
            f"({hi_name} - {lo_name} >= {needed:.4g})"
        )
    raise ValueError(
        f"{head}: the law's scale {effective:.4g} is below {needed:.4g} on [{lo_name}, {hi_name}] = "
        f"[{left!r}, {right!r}], so float draws would fall on a grid coarse against it"
    )


def _check_uniforms(u: Any, name: str = "u") -> np.ndarray:
    """Uniforms: real numbers in [0, 1] (an array of any shape)."""
    arr = check_real_array(u, name)
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        raise ParameterError(
            name,
            "must hold uniforms in [0, 1]",
            f"values in [{arr.min()}, {arr.max()}]",
        )
    return arr


def _check_naive(out: np.ndarray, variant: str, params: dict[str, float]) -> np.ndarray:
    """The draws of a naive variant, unless its formula broke down (see the module docstring)."""
    shown = ", ".join(f"{k} = {v!r}" for k, v in params.items())
    if not np.isfinite(out).all():
        raise ParameterError(
            "variant",
            f"{variant!r} overflows at these parameters ({shown}): its naive formula gives "
            "NaN or inf draws; use variant='stable'",
        )
    left, right = params["left"], params["right"]
    if variant == "corrected" and out.size and (out.min() < left or out.max() > right):
        raise ParameterError(
            "variant",
            f"{variant!r} loses precision at these parameters ({shown}): a draw left "
            "[left, right]; use variant='stable'",
        )
    return out


def _check_anchor(rate: float, anchor: float, what: str) -> float:
    """rate·anchor as a float, which the law's float path needs finite."""
    value = rate * anchor
    if not math.isfinite(value):
        raise ParameterError(
            what,
            "must be a finite float for the exact law",
            f"{rate!r} * {anchor!r} = {value!r}",
        )
    return value


# --------------------------------------------------------------------------------------------
# UNIFORM[a, b] (Alg. 8)
# --------------------------------------------------------------------------------------------


def uniform_law(a: Any, b: Any) -> PiecewiseLogLinear:
    """Exact law of UNIFORM[a, b] (tzamos20 App. E.3, Alg. 8): density 1/(b − a) on [a, b]."""
    a, b = _check_interval(a, b, ("a", "b"))
    return PiecewiseLogLinear([a, b], [0.0], [0.0])


def _uniform_from_uniforms(u: np.ndarray, a: float, b: float) -> np.ndarray:
    """a + (b − a)·u, clipped to [a, b] against rounding (Alg. 8)."""
    return np.clip(a + (b - a) * np.asarray(u, dtype=float), a, b)


def sample_uniform(a: Any, b: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of UNIFORM[a, b] (tzamos20 App. E.3, Alg. 8): u ~ U[0, 1), a + (b − a)·u.

    Exact law: :func:`uniform_law`. The output lies in [a, b] (rounding may return b itself).
    An interval of fewer than 2^12 float spacings is refused (module docstring).
    """
    a, b = _check_interval(a, b, ("a", "b"))
    _check_grid(a, b, a, math.inf, None, ("a", "b"))
    size, rng = check_size(size), check_rng(rng)
    return _uniform_from_uniforms(rng.random(size), a, b)


# --------------------------------------------------------------------------------------------
# TRUNCATEDEXPONENTIAL[α, β, [left, right]] (Alg. 10)
# --------------------------------------------------------------------------------------------


def truncated_exponential_law(alpha: Any, beta: Any, left: Any, right: Any) -> PiecewiseLogLinear:
    """Exact law of TRUNCATEDEXPONENTIAL[α, β, [left, right]] (tzamos20 App. E.3, Alg. 10).

    Density ∝ e^{αω+β} on [left, right]; β only scales the unnormalised density and does not change
    the law. CDF: F(x) = (e^{αx} − e^{α·left})/(e^{α·right} − e^{α·left}) (uniform when α = 0).
    The log-density is stored as α·(ω − anchor) with anchor the endpoint where it is largest, so
    that the float path never forms e^{α·x+β}.
    """
    alpha = check_finite(alpha, "alpha")
    check_finite(beta, "beta")
    left, right = _check_interval(left, right)
    anchor = right if alpha > 0 else left
    intercept = -_check_anchor(alpha, anchor, "alpha * left (or alpha * right)")
    return PiecewiseLogLinear([left, right], [alpha], [intercept])


def _truncated_exponential_from_uniforms(
    u: np.ndarray, alpha: float, beta: float, left: float, right: float, variant: str
) -> np.ndarray:
    """Alg. 10 applied to the uniforms ``u`` (validated parameters)."""
    u = np.asarray(u, dtype=float)
    if variant == "stable":
        # the stable form, independent of β; flat (uniform) for α = 0 or |α·width| < 1e-12.
        return truncated_exponential_inverse(u, alpha, left, right)
    if alpha == 0.0:
        return _uniform_from_uniforms(u, left, right)
    with np.errstate(all="ignore"):
        e_left = np.exp(alpha * left + beta)
        e_right = np.exp(alpha * right + beta)
        log_inner = np.log(e_left + u * (e_right - e_left))
        if variant == "corrected":
            return (log_inner - beta) / alpha  # corrected (E11): F⁻¹(u) = (ln(…) − β)/α
        return log_inner / alpha - beta  # as printed: (1/α)ln(…) − β, β misplaced


def sample_truncated_exponential(
    alpha: Any,
    beta: Any,
    left: Any,
    right: Any,
    size: int,
    rng: np.random.Generator,
    *,
    variant: str = "stable",
) -> np.ndarray:
    """``size`` draws of TRUNCATEDEXPONENTIAL[α, β, [left, right]] (tzamos20 App. E.3, Alg. 10).

    Density ∝ e^{αω+β} on [left, right]; exact law :func:`truncated_exponential_law`. One uniform a
    draw, inverse CDF. α = 0 samples UNIFORM[left, right] (Alg. 10).

    variant
        ``"stable"`` (default): left + log1p(u·expm1(αΔ))/α for α < 0 and
        right + log(u + (1 − u)e^{−αΔ})/α for α > 0 (Δ = right − left), never
        overflowing, output in [left, right]. ``"corrected"``: the corrected inverse of erratum E11,
        (ln(e^{α·left+β} + u(e^{α·right+β} − e^{α·left+β})) − β)/α, evaluated naively (``ValueError`` once
        e^{α·x+β} overflows or underflows; poor for tiny α). ``"paper"``: the printed
        (1/α)ln(e^{α·left+β} + u(…)) − β, which misplaces β: it equals the corrected draw plus
        β(1/α − 1), wrong whenever β ≠ 0 and α ≠ 1. Naive outputs are returned unclipped, but
        non-finite ones raise ``ValueError`` naming ``variant``.
    """
    alpha, beta, left, right = _check_exponential(alpha, beta, left, right)
    size, rng = check_size(size), check_rng(rng)
    variant = _check_variant(variant)
    return _exponential_draws(rng.random(size), alpha, beta, left, right, variant)


def truncated_exponential_from_uniforms(
    u: Any, alpha: Any, beta: Any, left: Any, right: Any, *, variant: str = "stable"
) -> np.ndarray:
    """The draws :func:`sample_truncated_exponential` makes from the uniforms ``u`` (reals in
    [0, 1], any shape): Alg. 10's inverse CDF in the chosen ``variant``, with the sampler's checks
    and refusals (a naive variant whose formula overflows raises ``ValueError`` naming
    ``variant``)."""
    alpha, beta, left, right = _check_exponential(alpha, beta, left, right)
    u = _check_uniforms(u)
    return _exponential_draws(u, alpha, beta, left, right, _check_variant(variant))


def _check_exponential(
    alpha: Any, beta: Any, left: Any, right: Any
) -> tuple[float, float, float, float]:
    alpha = check_finite(alpha, "alpha")
    beta = check_finite(beta, "beta")
    left, right = _check_interval(left, right)
    rate_scale = math.inf if alpha == 0 else 1.0 / abs(alpha)
    _check_grid(left, right, right if alpha > 0 else left, rate_scale, "alpha")
    return alpha, beta, left, right


def _exponential_draws(
    u: np.ndarray, alpha: float, beta: float, left: float, right: float, variant: str
) -> np.ndarray:
    out = _truncated_exponential_from_uniforms(u, alpha, beta, left, right, variant)
    if variant == "stable":
        return out
    params = {"alpha": alpha, "beta": beta, "left": left, "right": right}
    return _check_naive(out, variant, params)


# --------------------------------------------------------------------------------------------
# TRUNCATEDLAPLACE[μ, σ, [left, right]] (Alg. 11)
# --------------------------------------------------------------------------------------------


def truncated_laplace_law(mu: Any, sigma: Any, left: Any, right: Any) -> PiecewiseLogLinear:
    """Exact law of TRUNCATEDLAPLACE[μ, σ, [left, right]] (tzamos20 App. E.3, Alg. 11).

    Density ∝ e^{−|ω−μ|/σ} on [left, right]: one piece when μ is outside (left, right), two pieces
    split at μ otherwise. The unnormalised density is e^{−|ω−μ*|/σ}, μ* = min(max(μ, left), right)
    the point of [left, right] nearest μ, so it peaks at 1 and its log-normaliser
    log ∫ e^{−|ω−μ*|/σ} dω lies between log(0.63·min(σ, right − left)) and log(right − left): a
    finite float for every accepted input (with the factor e^{−|μ−μ*|/σ} of e^{−|ω−μ|/σ} it fell
    below −1.8e308 for μ = 1e308, σ = 1e-300: issue 34, notes/foundation.md). The exact path uses
    the exact rationals ±1/σ and ∓μ*/σ, the float path the same values rounded.
    """
    mu = check_finite(mu, "mu")
    sigma = _check_sigma(sigma)
    left, right = _check_interval(left, right)
    peak = min(max(mu, left), right)  # μ*: log f(ω) = −|ω − μ*|/σ, 0 at its peak
    name = "mu / sigma" if peak == mu else ("left / sigma" if peak == left else "right / sigma")
    anchor = _check_anchor(1.0 / sigma, peak, name)
    rate, exact_rate = 1.0 / sigma, 1 / Fraction(sigma)
    exact_shift = Fraction(peak) / Fraction(sigma)  # μ*/σ: log f(ω) = ∓ω/σ ± μ*/σ
    rising = (rate, -anchor, exact_rate, -exact_shift)  # log f = (ω − μ*)/σ, ω <= μ*
    falling = (-rate, anchor, -exact_rate, exact_shift)  # log f = −(ω − μ*)/σ, ω >= μ*
    pieces = [p for p, keep in ((rising, left < peak), (falling, peak < right)) if keep]
    return PiecewiseLogLinear(
        [left, *([peak] if left < peak < right else []), right],
        [p[0] for p in pieces],
        [p[1] for p in pieces],
        exact_slopes=[p[2] for p in pieces],
        exact_intercepts=[p[3] for p in pieces],
    )


def _log_side_mass(rate: float, length: float) -> float:
    """log(rate · ∫_0^length e^{−rate·t} dt) = log(1 − e^{−rate·length}), stable when tiny."""
    x = rate * length
    if x < _TINY_EXPONENT:
        return math.log(rate) + math.log(length)
    return math.log(-math.expm1(-x))


def truncated_laplace_left_probability(mu: Any, sigma: Any, left: Any, right: Any) -> float:
    """P(ω < μ) under TRUNCATEDLAPLACE[μ, σ, [left, right]]: the probability with which the
    stable sampler picks the side [left, μ], from the two sides' masses in log space (exact to
    float rounding even where e^{−length/σ} underflows); 0 when μ <= left, 1 when μ >= right."""
    mu = check_finite(mu, "mu")
    sigma = _check_sigma(sigma)
    left, right = _check_interval(left, right)
    if mu <= left:
        return 0.0
    if mu >= right:
        return 1.0
    return _laplace_left_probability(mu, 1.0 / sigma, left, right)


def _laplace_left_probability(mu: float, rate: float, left: float, right: float) -> float:
    """P(ω < μ) under the truncated Laplace with μ ∈ (left, right), from the log side masses."""
    t = _log_side_mass(rate, mu - left) - _log_side_mass(rate, right - mu)
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def _laplace_stable_from_uniforms(
    u_side: np.ndarray | None, u: np.ndarray, mu: float, sigma: float, left: float, right: float
) -> np.ndarray:
    """Stable Alg. 11: the side by its exact mass (``u_side``), then the stable exponential
    inverse on that side (``u``)."""
    rate = 1.0 / sigma
    u = np.asarray(u, dtype=float)
    if mu <= left:
        return truncated_exponential_inverse(u, -rate, left, right)
    if mu >= right:
        return truncated_exponential_inverse(u, rate, left, right)
    p_left = _laplace_left_probability(mu, rate, left, right)
    go_left = np.asarray(u_side, dtype=float) < p_left
    slope = np.where(go_left, rate, -rate)
    lo = np.where(go_left, left, mu)
    hi = np.where(go_left, mu, right)
    return truncated_exponential_inverse(u, slope, lo, hi)


def _laplace_cdf_naive(
    x: np.ndarray | np.float64, mu: float, sigma: float, *, paper: bool
) -> np.ndarray:
    """F(x) = ½ + ½ sgn(x−μ)(1 − e^{−|x−μ|/σ}); the printed version has (1/σ)e^{…} (E11)."""
    tail = np.exp(-np.abs(x - mu) / sigma)
    if paper:
        tail = tail / sigma
    return 0.5 + 0.5 * np.sign(x - mu) * (1.0 - tail)


def _laplace_ppf_naive(v: np.ndarray, mu: float, sigma: float, *, paper: bool) -> np.ndarray:
    """F⁻¹(v) = μ − σ sgn(v−½) ln(1 − 2|v−½|); the printed version has + (sign error, E11)."""
    term = sigma * np.sign(v - 0.5) * np.log(1.0 - 2.0 * np.abs(v - 0.5))
    return mu + term if paper else mu - term


def _laplace_naive_from_uniforms(
    u: np.ndarray, mu: float, sigma: float, left: float, right: float, *, paper: bool
) -> np.ndarray:
    """F⁻¹_trunc(u) = F⁻¹(F(left) + u(F(right) − F(left))), in floats, unclipped."""
    u = np.asarray(u, dtype=float)
    with np.errstate(all="ignore"):
        f_left = _laplace_cdf_naive(np.float64(left), mu, sigma, paper=paper)
        f_right = _laplace_cdf_naive(np.float64(right), mu, sigma, paper=paper)
        return _laplace_ppf_naive(f_left + u * (f_right - f_left), mu, sigma, paper=paper)


def sample_truncated_laplace(
    mu: Any,
    sigma: Any,
    left: Any,
    right: Any,
    size: int,
    rng: np.random.Generator,
    *,
    variant: str = "stable",
) -> np.ndarray:
    """``size`` draws of TRUNCATEDLAPLACE[μ, σ, [left, right]] (tzamos20 App. E.3, Alg. 11).

    Density ∝ e^{−|ω−μ|/σ} on [left, right]; exact law :func:`truncated_laplace_law`.

    variant
        ``"stable"`` (default): when μ ∈ (left, right), pick the side [left, μ] with probability
        m_L/(m_L + m_R), m = 1 − e^{−length/σ} computed in log space (one uniform), then sample
        e^{±ω/σ} on that side with the stable truncated-exponential inverse (a second uniform);
        otherwise the single monotone side directly. Exact up to float rounding for any σ (e.g.
        1e-9) and for intervals deep in one tail (e.g. [50, 51] with σ = 0.01, where F(left) and
        F(right) both round to 1); output in [left, right].
        ``"corrected"``: F⁻¹(F(left) + u(F(right) − F(left))) with the corrected E11 formulas
        F(x) = ½ + ½ sgn(x−μ)(1 − e^{−|x−μ|/σ}), F⁻¹(u) = μ − σ sgn(u−½) ln(1 − 2|u−½|), naive in
        floats: ``ValueError`` (NaN/±inf draws) or a lattice of values once F(left) and F(right)
        round together.
        ``"paper"``: the same with the printed CDF (spurious 1/σ) and the printed inverse
        μ + σ sgn(u−½) ln(1 − 2|u−½|) (sign error: the draw is reflected about μ, which only
        cancels on an interval symmetric about μ). Naive outputs are returned unclipped (the printed
        CDF truncates too little), but non-finite ones raise ``ValueError`` naming ``variant``.
    """
    mu, sigma, left, right = _check_laplace(mu, sigma, left, right)
    size, rng = check_size(size), check_rng(rng)
    variant = _check_variant(variant)
    if variant == "stable":
        u_side = rng.random(size) if left < mu < right else None
        return _laplace_stable_from_uniforms(u_side, rng.random(size), mu, sigma, left, right)
    return _laplace_naive_draws(rng.random(size), mu, sigma, left, right, variant)


def truncated_laplace_from_uniforms(
    u_side: Any, u: Any, mu: Any, sigma: Any, left: Any, right: Any, *, variant: str = "stable"
) -> np.ndarray:
    """The draws :func:`sample_truncated_laplace` makes from uniforms (reals in [0, 1], arrays of
    one shape): ``u_side`` picks the side of μ (the stable variant, when μ ∈ (left, right)) and
    ``u`` places the draw; the naive variants use ``u`` only. The sampler's checks and refusals
    apply."""
    mu, sigma, left, right = _check_laplace(mu, sigma, left, right)
    side, u = _check_uniforms(u_side, "u_side"), _check_uniforms(u)
    if side.shape != u.shape:
        raise ValueError(f"u_side and u must have the same shape, got {side.shape} and {u.shape}")
    variant = _check_variant(variant)
    if variant == "stable":
        return _laplace_stable_from_uniforms(side, u, mu, sigma, left, right)
    return _laplace_naive_draws(u, mu, sigma, left, right, variant)


def _check_laplace(mu: Any, sigma: Any, left: Any, right: Any) -> tuple[float, float, float, float]:
    mu = check_finite(mu, "mu")
    sigma = _check_sigma(sigma)
    left, right = _check_interval(left, right)
    _check_grid(left, right, min(max(mu, left), right), sigma, "sigma")
    return mu, sigma, left, right


def _laplace_naive_draws(
    u: np.ndarray, mu: float, sigma: float, left: float, right: float, variant: str
) -> np.ndarray:
    out = _laplace_naive_from_uniforms(u, mu, sigma, left, right, paper=variant == "paper")
    return _check_naive(out, variant, {"mu": mu, "sigma": sigma, "left": left, "right": right})


__all__ = [
    "VARIANTS",
    "sample_truncated_exponential",
    "sample_truncated_laplace",
    "sample_uniform",
    "truncated_exponential_from_uniforms",
    "truncated_exponential_law",
    "truncated_laplace_from_uniforms",
    "truncated_laplace_law",
    "truncated_laplace_left_probability",
    "uniform_law",
]
