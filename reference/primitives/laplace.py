"""Laplace and discrete Laplace noise: exact laws, fast samplers and an exact rational sampler.

* Continuous Laplace(loc, b), density (1/2b)·exp(−|y − loc|/b): :func:`laplace_law` (exact
  :class:`~reference.distributions.PiecewiseLogLinear`) and :func:`sample_laplace` (numpy).
* Discrete Laplace (two-sided geometric) with scale t > 0,
  P(X = loc + k) = (1 − e^{−1/t})/(1 + e^{−1/t})·e^{−|k|/t} for k ∈ ℤ:
  :class:`DiscreteLaplaceLaw` (exact, mpmath), :func:`sample_discrete_laplace` (numpy, vectorised)
  and :func:`sample_discrete_laplace_exact` (rationals only, no floating point), built on
  :func:`bernoulli_exp_neg`.

The exact sampler follows Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
Privacy" (NeurIPS 2020, arXiv:2004.00010), Algorithm 1 (Bernoulli(exp(−γ))) and Algorithm 2
(discrete Laplace), written from the algorithms and their proofs, each step derived in a comment.

Decision (exact sampler): its scale must be an ``int`` or a ``Fraction``; a float raises
``ValueError``. ``Fraction(0.1)`` is 3602879701896397/36028797018963968, not 1/10, so silently
converting a float would sample a law the caller almost certainly did not mean, with huge
denominators; whoever wants that law can pass ``Fraction(x)`` explicitly.

Limits (each refused with a ``ValueError`` naming the parameter and the range; issue 18):

* :func:`sample_discrete_laplace` and :meth:`DiscreteLaplaceLaw.sample` draw exactly (up to float
  rounding, see :func:`_geometric_from_zero`) for every scale t <= 2^50
  (:data:`MAX_DISCRETE_SCALE`) and refuse larger ones: numpy's geometric saturates at the int64
  maximum, which gave zero noise at t = 1e30 and wrapped-around draws at t = 1e19. Scales whose
  1/t overflows give the point mass at loc, the law to float precision.
* :func:`sample_discrete_laplace_exact` and :func:`bernoulli_exp_neg` take any rational whose
  numerator and denominator are below 2^4096; the exact sampler's one-draw-at-a-time path (a
  numerator or denominator above 2^31) draws at most :data:`MAX_SCALAR_EXACT_DRAWS` a call.
* The finite images of :class:`DiscreteLaplaceLaw` (``truncated``, ``clamped``,
  ``probabilities_within``) have at most :data:`MAX_LAW_ATOMS` atoms; ``loc`` is an int with
  |loc| <= 2^53.
* :func:`sample_laplace` refuses (loc, scale) whose draws would overflow or fall on a float grid
  coarser than scale/2^12 (:func:`check_laplace_sampler_parameters`).
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from reference.distributions import FLOAT_SAMPLING_TOLERANCE, DiscreteLaw, PiecewiseLogLinear
from reference.exact.mp import DPS, to_mpf, workdps
from reference.sampling import FLOAT_GRID_FRACTION, coarse_float_grid
from reference.validation import (
    MAX_FLOAT,
    check_finite,
    check_fraction,
    check_int,
    check_positive,
    check_real,
    check_real_array,
    check_rng,
    check_size,
)

# numpy's bounded integer generator is exact (unbiased) for bounds below 2**63; larger bounds use
# rejection on raw random bytes.
_NUMPY_INT_BOUND = 2**62

MAX_DISCRETE_SCALE = 2**50
"""Largest scale t of the int64 discrete Laplace samplers (:func:`sample_discrete_laplace`,
:meth:`DiscreteLaplaceLaw.sample`, the node noise of
:class:`~reference.primitives.continual_counting.ContinualCounting`): every draw is below
47·t + 2^32 < 2^56 in magnitude, so even a sum of 63 of them fits int64. Larger scales are refused
with ``ValueError`` (numpy's geometric saturates at the int64 maximum near t = 2^63/40, and two
saturated draws cancel to zero noise)."""

MAX_LOC = 2**53
"""Largest |loc| of :class:`DiscreteLaplaceLaw`: the float path and the shifted int64 draws stay
exact."""

MAX_LAW_RADIUS = 50_000
"""Largest radius of :meth:`DiscreteLaplaceLaw.truncated` and ``probabilities_within`` (and half
the largest width of ``clamped``): a finite image of at most :data:`MAX_LAW_ATOMS` atoms is built
in a few seconds (about 35 µs an atom at 60 digits)."""

MAX_LAW_ATOMS = 2 * MAX_LAW_RADIUS + 1

MAX_SCALAR_EXACT_DRAWS = 100_000
"""Most draws of one :func:`sample_discrete_laplace_exact` call when the scale's numerator or
denominator exceeds 2^31 (one Python loop per draw, about 20 µs each)."""

_MAX_RATIONAL_BITS = 4096  # bit length of the exact sampler's numerator and denominator
_DIGIT = 2**16  # base of the digits of a geometric variable at large scales
_DIRECT_SCALE = 2.0**16  # numpy's geometric draws scales up to this one directly


# --------------------------------------------------------------------------------------------
# Validation helpers local to this module
# --------------------------------------------------------------------------------------------


def _check_rational(x: Any, name: str, *, positive: bool) -> Fraction:
    """An ``int`` or ``Fraction`` (not bool, not float), > 0 if ``positive`` else >= 0."""
    bound = "> 0" if positive else ">= 0"
    if isinstance(x, bool | np.bool_) or not isinstance(
        x, Fraction | numbers.Integral | np.integer
    ):
        hint = ""
        if isinstance(x, float | np.floating):
            hint = " (floats are refused: pass Fraction(numerator, denominator), or Fraction(x) "
            hint += "for the exact binary value of a float)"
        raise ValueError(f"{name} must be an int or a Fraction {bound}, got {x!r}{hint}")
    value = Fraction(int(x)) if isinstance(x, np.integer) else Fraction(x)
    if value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be an int or a Fraction {bound}, got {value}")
    return value


# --------------------------------------------------------------------------------------------
# Continuous Laplace
# --------------------------------------------------------------------------------------------


def laplace_law(loc: float, scale: float) -> PiecewiseLogLinear:
    """Exact law of Laplace(loc, scale): density (1/2b)·exp(−|y − loc|/b).

    Two log-linear pieces, (−inf, loc] with slope 1/b and intercept −log(2b) − loc/b, and
    [loc, inf) with slope −1/b and intercept −log(2b) + loc/b. The exact path uses the exact
    rational values of ``loc`` and ``scale`` (floats are exact binary rationals), so privacy
    losses come out exact to the working precision, and the mass is 1 to the working precision
    for any finite ``loc`` and ``scale`` > 0 that fit a float64 (the intercepts ∓loc/b are kept
    with enough digits to cancel against the slope times ``loc``, however large |loc/b|).

    The law's float sampler (``.sample``) refuses parameters that float64 cannot resolve
    (:meth:`~reference.distributions.PiecewiseLogLinear.float_sampling_error`): roughly
    |loc|/scale above about 2^39 (Laplace(1, 1e-16): the draws would round onto a grid coarse
    against the scale), scale below about 4e-320, or |loc| + 10·scale beyond 1.8e308.
    """
    mu = check_fraction(loc, "loc")
    b = check_fraction(scale, "scale", positive=True)
    if b * Fraction(MAX_FLOAT) < max(1, abs(mu)):  # 1/b and loc/b must fit a float64
        raise ValueError(
            f"scale must be >= max(1, |loc|)/{MAX_FLOAT:.4g} (the slope 1/scale and loc/scale "
            f"must fit a float64), got loc = {float(mu)!r}, scale = {float(b)!r}"
        )
    with workdps():
        digits = max(0, int(mpmath.mag(to_mpf(mu / b)) * 0.30103)) if mu else 0
    with mpmath.workdps(DPS + digits + 20):  # exact_intercepts keep these digits
        log_2b = mpmath.log(2 * to_mpf(b))
        shift = to_mpf(mu / b)
        exact_intercepts = [-log_2b - shift, -log_2b + shift]
    inv_b = 1 / b
    law = PiecewiseLogLinear(
        breaks=[-math.inf, float(mu), math.inf],
        slopes=[float(inv_b), -float(inv_b)],
        intercepts=[float(x) for x in exact_intercepts],
        exact_breaks=[-math.inf, mu, math.inf],
        exact_slopes=[inv_b, -inv_b],
        exact_intercepts=exact_intercepts,
    )
    with np.errstate(over="ignore"):
        spacing = float(np.spacing(abs(float(mu))))
    law._sampling_hint = (
        f" (laplace_law: loc = {float(mu)!r}, scale = {float(b)!r}; the float sampler needs "
        f"scale >= {spacing / FLOAT_SAMPLING_TOLERANCE:.4g} at this loc, and "
        f"|loc| + 10*scale <= {MAX_FLOAT:.4g})"
    )
    return law


def check_laplace_sampler_parameters(loc: Any, scale: Any) -> tuple[float, float]:
    """(loc, scale) that :func:`sample_laplace` draws correctly in float64, else ``ValueError``.

    numpy's Laplace variate is loc ± scale·E with |E| <= 36.8 (the log of a 53-bit uniform), and
    each output is a rounded float. Two limits make that the Laplace law up to rounding:

    * no overflow: |loc| + 40·scale <= the largest float;
    * a fine output grid: the float spacing at |loc| + 40·scale (at least the smallest subnormal,
      5e-324) is at most scale/2^12 (:data:`reference.sampling.FLOAT_GRID_FRACTION`), so rounding
      moves any probability P(Y <= y) by less than 2^−13 — roughly |loc| <= 2^40·scale and
      scale >= about 2e-320. Beyond it the draws fall on a grid coarse against the scale (Laplace(1,
      1e-16) in floats gives P(Y < loc) = 0.28, not 0.5).
    """
    loc = check_finite(loc, "loc")
    scale = check_positive(scale, "scale")
    reach = abs(loc) + 40.0 * scale
    if not reach <= MAX_FLOAT:
        raise ValueError(
            f"scale must keep |loc| + 40*scale <= {MAX_FLOAT:.4g} (no Laplace draw may overflow), "
            f"got loc = {loc!r}, scale = {scale!r}"
        )
    if coarse_float_grid(reach, scale):
        with np.errstate(over="ignore"):
            spacing = float(np.spacing(reach))
        raise ValueError(
            f"scale must be at least 2^12 times the float spacing near loc: scale >= "
            f"{spacing / FLOAT_GRID_FRACTION:.4g} for loc = {loc!r} (|loc|/scale <= about "
            f"2^40), got scale = {scale!r}; the float draws would fall on a grid coarse against "
            f"the scale. Shift the data so that loc is near 0, or use a larger scale"
        )
    return loc, scale


def sample_laplace(loc: float, scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent Laplace(loc, scale) draws (numpy's vectorised sampler), float64,
    finite. ``loc`` and ``scale`` must satisfy :func:`check_laplace_sampler_parameters`
    (no overflow; |loc|/scale <= about 2^40 and scale >= about 2e-320, so that rounding the draws to
    floats moves no probability by more than 2^−13)."""
    loc, scale = check_laplace_sampler_parameters(loc, scale)
    size, rng = check_size(size), check_rng(rng)
    return rng.laplace(loc, scale, size)


# --------------------------------------------------------------------------------------------
# Discrete Laplace: exact law
# --------------------------------------------------------------------------------------------


class DiscreteLaplaceLaw:
    """Exact law of the discrete Laplace (two-sided geometric) with scale t > 0 centred at ``loc``:
    P(X = loc + k) = (1 − q)/(1 + q)·q^{|k|}, q = e^{−1/t}, k ∈ ℤ.

    ``*_mp`` methods are exact to the working precision (mpmath, :data:`reference.exact.mp.DPS`
    digits, closed forms only: no truncated sums) for any rational t > 0 that fits a float64;
    ``cdf``/``logpmf`` are float and vectorised. The law has infinite support, so the divergences
    of :mod:`reference.distributions` take one of its finite images: :meth:`clamped` (exact, all
    the mass, a post-processing of X) or :meth:`truncated` (conditioned on |X − loc| <= radius),
    each of at most :data:`MAX_LAW_ATOMS` atoms.

    Limits: ``|loc| <= 2^53`` (:data:`MAX_LOC`: the float path and the int64 draws stay exact);
    :meth:`sample` needs t <= :data:`MAX_DISCRETE_SCALE` (see :func:`sample_discrete_laplace`).
    """

    def __init__(self, scale: float | Fraction, loc: int = 0):
        self.scale_exact = check_fraction(scale, "scale", positive=True)
        self.scale = float(self.scale_exact)  # 0.0 when t underflows a float: a point mass
        self.loc = check_int(loc, "loc", minimum=-MAX_LOC, maximum=MAX_LOC)
        with workdps():
            self._rate = 1 / to_mpf(self.scale_exact)  # 1/t; q = exp(−rate)
            # log((1 − q)/(1 + q)), stable for tiny rates (large t) through expm1/log1p.
            self._log_norm = mpmath.log(-mpmath.expm1(-self._rate)) - mpmath.log1p(
                mpmath.exp(-self._rate)
            )
            self._log1pq = mpmath.log1p(mpmath.exp(-self._rate))
        # float rate 1/t (inf when t is below the float range: then the law is a point mass)
        self._rate_float = float(self._rate) if self._rate < MAX_FLOAT else math.inf

    def __repr__(self) -> str:
        return f"DiscreteLaplaceLaw(scale={self.scale_exact}, loc={self.loc})"

    # -- exact path -----------------------------------------------------------------------------

    def logpmf_mp(self, k: int) -> mpmath.mpf:
        """Exact log P(X = k) = log((1 − q)/(1 + q)) − |k − loc|/t."""
        k = check_int(k, "k")
        with workdps():
            return self._log_norm - self._rate * abs(k - self.loc)

    def pmf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X = k)."""
        with workdps():
            return mpmath.exp(self.logpmf_mp(k))

    def tail_mass_mp(self, k: int) -> mpmath.mpf:
        """Exact P(|X − loc| > k) = 2 q^{k+1}/(1 + q) for k >= 0 (and 1 for k < 0)."""
        k = check_int(k, "k")
        with workdps():
            if k < 0:
                return mpmath.mpf(1)
            return 2 * mpmath.exp(-self._rate * (k + 1) - self._log1pq)

    def cdf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X <= k): q^{loc−k}/(1 + q) below loc, 1 − q^{k−loc+1}/(1 + q) from loc on."""
        k = check_int(k, "k") - self.loc
        with workdps():
            if k < 0:
                return mpmath.exp(self._rate * k - self._log1pq)
            return 1 - self.sf_mp(k + self.loc)

    def sf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X > k), computed without cancellation in the right tail."""
        k = check_int(k, "k") - self.loc
        with workdps():
            if k >= 0:
                return mpmath.exp(-self._rate * (k + 1) - self._log1pq)
            return 1 - self.cdf_mp(k + self.loc)

    def mass(self, lo: float, hi: float) -> mpmath.mpf:
        """Exact P(lo <= X <= hi) for real ends (infinite ends allowed)."""
        lo, hi = check_real(lo, "lo"), check_real(hi, "hi")
        with workdps():
            if not lo <= hi:
                return mpmath.mpf(0)
            first = None if lo == -math.inf else math.ceil(lo)
            last = None if hi == math.inf else math.floor(hi)
            if first is not None and last is not None and first > last:
                return mpmath.mpf(0)
            if first is not None and first > self.loc:  # right tail: differences of sf
                return self.sf_mp(first - 1) - (0 if last is None else self.sf_mp(last))
            below = mpmath.mpf(1) if last is None else self.cdf_mp(last)
            return below - (0 if first is None else self.cdf_mp(first - 1))

    def truncated(self, radius: int) -> DiscreteLaw:
        """The law conditioned on |X − loc| <= radius (atoms loc − radius .. loc + radius);
        ``radius`` <= :data:`MAX_LAW_RADIUS` (a law of at most :data:`MAX_LAW_ATOMS` atoms)."""
        radius = _check_radius(radius)
        atoms = range(self.loc - radius, self.loc + radius + 1)
        with workdps():
            logs = [self._log_norm - self._rate * abs(k - self.loc) for k in atoms]
        return DiscreteLaw(list(atoms), logs)

    def clamped(self, lo: int, hi: int) -> DiscreteLaw:
        """Exact law of min(max(X, lo), hi): atoms lo..hi, the tails piled on the two ends.

        A post-processing of X, so divergences between clamped laws never exceed the true ones,
        and they equal them once [lo, hi] contains the atoms where the true sup is reached.
        At most :data:`MAX_LAW_ATOMS` atoms: ``hi − lo <= 2·MAX_LAW_RADIUS``."""
        lo, hi = check_int(lo, "lo"), check_int(hi, "hi")
        if hi < lo:
            raise ValueError(f"hi must be >= lo, got lo = {lo}, hi = {hi}")
        if hi - lo > 2 * MAX_LAW_RADIUS:
            raise ValueError(
                f"hi - lo must be at most {2 * MAX_LAW_RADIUS} (a law of at most {MAX_LAW_ATOMS} "
                f"atoms, built in seconds), got lo = {lo}, hi = {hi}"
            )
        if lo == hi:
            return DiscreteLaw([lo], [0])
        with workdps():
            logs = [mpmath.log(self.cdf_mp(lo))]
            logs += [self._log_norm - self._rate * abs(k - self.loc) for k in range(lo + 1, hi)]
            logs.append(mpmath.log(self.sf_mp(hi - 1)))
        return DiscreteLaw(list(range(lo, hi + 1)), logs)

    def probabilities_within(self, radius: int) -> dict[int, float]:
        """{k: P(X = k)} for |k − loc| <= radius, as floats (for ``atom_test``; the rest of the
        mass, :meth:`tail_mass_mp`, is its category "other"). ``radius`` <= MAX_LAW_RADIUS."""
        radius = _check_radius(radius)
        with workdps():
            return {
                k: float(mpmath.exp(self._log_norm - self._rate * abs(k - self.loc)))
                for k in range(self.loc - radius, self.loc + radius + 1)
            }

    # -- float path -----------------------------------------------------------------------------

    def logpmf(self, k: Any) -> np.ndarray:
        """Float log P(X = k), vectorised; -inf at non-integers (and at ±inf)."""
        k = check_real_array(k, "k", allow_inf=True)
        d = np.abs(k - self.loc)
        log_norm = float(self._log_norm)
        with np.errstate(invalid="ignore", over="ignore"):
            value = np.where(d == 0, log_norm, log_norm - d * self._rate_float)
        return np.where(np.isfinite(k) & (k == np.floor(k)), value, -np.inf)

    def cdf(self, y: Any) -> np.ndarray:
        """Float P(X <= y) for real y, vectorised (from the closed forms of :meth:`cdf_mp`)."""
        k = np.floor(check_real_array(y, "y", allow_inf=True)) - self.loc
        log1pq, rate = float(self._log1pq), self._rate_float
        out = np.empty(k.shape)
        left = k < 0
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            out[left] = np.exp(k[left] * rate - log1pq)
            out[~left] = -np.expm1(-(k[~left] + 1) * rate - log1pq)
        return out[()] if out.ndim == 0 else out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws by :func:`sample_discrete_laplace` (int64), shifted by ``loc``; needs
        t <= :data:`MAX_DISCRETE_SCALE`."""
        _check_discrete_scale(self.scale_exact)
        size, rng = check_size(size), check_rng(rng)
        return self.loc + _discrete_laplace_draws(self.scale, size, rng)


def _check_radius(radius: Any) -> int:
    return check_int(radius, "radius", minimum=0, maximum=MAX_LAW_RADIUS)


# --------------------------------------------------------------------------------------------
# Discrete Laplace: fast sampler
# --------------------------------------------------------------------------------------------


def _check_discrete_scale(scale: Any) -> float:
    """A scale t with 0 < t <= :data:`MAX_DISCRETE_SCALE` (the int64 samplers' range)."""
    if scale > MAX_DISCRETE_SCALE:
        raise ValueError(
            f"scale must be at most 2^50 = {float(MAX_DISCRETE_SCALE):.6g} for the int64 discrete "
            f"Laplace sampler (larger draws are not representable exactly in int64), got "
            f"{float(scale):.6g}; use sample_discrete_laplace_exact for larger rational scales"
        )
    return float(scale)


def _geometric_from_zero(t: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` int64 draws of G >= 0 with P(G >= g) = q^g, q = e^{−1/t}, for 0 <= t <= 2^50
    (t = 0, a scale below the float range, is the point mass at 0).

    Base case, t <= 2^16: numpy's ``geometric(p) − 1`` with p = 1 − q = −expm1(−1/t), drawn by a
    sequential search on one uniform when p >= 1/3 (exact up to the float p) and otherwise as
    ⌈E/(−log1p(−p))⌉ = ⌈E·t⌉ from numpy's standard exponential E (checked against numpy 2.4:
    identical streams). E has resolution <= 2^−50 in its bulk (a 53-bit integer times a ziggurat
    width <= 7.7·2^−53), so the <= 2^16·2^−50 = 2^−34 of scale between neighbouring values of E·t
    puts a relative error of about 2^−34 on each atom's probability (coarser only in the far
    tail, beyond ~12t, where the resolution of E degrades).

    Larger t: the base-K digits of a geometric variable are independent (K = 2^16). With
    s = K^j and M = K^J the first power with t/M <= 2^16, G = Σ_{j<J} K^j·D_j + M·A where D_j is
    the truncated geometric on {0, ..., K − 1} with ratio q^{K^j} and A is geometric with ratio
    q^M: P(G = Σ K^j d_j + M·a) = (1 − q)·q^{Σ K^j d_j + M·a} factors as
    Π_j [(1 − q^{K^j})/(1 − q^{K^{j+1}})]·q^{K^j d_j} · (1 − q^M)·q^{M·a} (the normalisers
    telescope to 1 − q). A is the base case at scale t/M <= 2^16. Each digit is an inverse CDF
    D = ⌊−(t/s)·log1p(−U·c)⌋, c = 1 − q^{sK} = −expm1(−sK/t), on a 53-bit uniform U: t/s > 2^16
    makes the digit's law nearly uniform (ratio of its largest to smallest atom <= e), so each
    digit value receives about 2^37 uniforms (relative error ~2^−37). Every draw is below
    47·t + 2^32 < 2^56.
    """
    if not t > 0 or 1.0 / t == math.inf:  # the scale underflows: P(G = 0) = 1 to float precision
        return np.zeros(size, dtype=np.int64)
    total = np.zeros(size, dtype=np.int64)
    s = 1
    while t / s > _DIRECT_SCALE:
        c = -math.expm1(-(s * _DIGIT) / t)
        u = rng.random(size)
        digit = np.floor(-(t / s) * np.log1p(-u * c))
        total += s * np.clip(digit, 0, _DIGIT - 1).astype(np.int64)
        s *= _DIGIT
    p = -math.expm1(-s / t)
    total += s * (rng.geometric(p, size) - 1)
    if size and not 0 <= total.min() <= total.max() < 2**62:  # never: t <= 2^50 bounds the draws
        raise ValueError(f"scale {t!r}: a geometric draw left the int64 range")
    return total


def _discrete_laplace_draws(t: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """G1 − G2 for independent G1, G2 of :func:`_geometric_from_zero` (checked parameters)."""
    return _geometric_from_zero(t, size, rng) - _geometric_from_zero(t, size, rng)


def sample_discrete_laplace(scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` discrete Laplace(scale) draws as int64, vectorised: G1 − G2 with G1, G2 iid
    geometric on {0, 1, ...} with P(G = g) = (1 − q)·q^g, q = e^{−1/t}.

    For k >= 0, P(G1 − G2 = k) = Σ_g P(G2 = g)P(G1 = g + k) = (1 − q)²q^k Σ_g q^{2g}
    = (1 − q)/(1 + q)·q^k, and the law is symmetric. Each geometric is drawn exactly up to float
    rounding at every accepted scale (:func:`_geometric_from_zero`: numpy's geometric for
    t <= 2^16, independent base-2^16 digits above), so no draw saturates or wraps around.

    ``scale`` must be a finite number in (0, 2^50] (:data:`MAX_DISCRETE_SCALE`): above it a draw
    no longer fits int64 with certainty (|draw| < 47t must stay below 2^63 even after the sums of
    :mod:`reference.primitives.continual_counting`); scales so small that 1/t overflows give the
    point mass at 0, which is the law to float precision. For exact rational scales of any size
    use :func:`sample_discrete_laplace_exact`."""
    scale = _check_discrete_scale(check_positive(scale, "scale"))
    size, rng = check_size(size), check_rng(rng)
    return _discrete_laplace_draws(scale, size, rng)


# --------------------------------------------------------------------------------------------
# Discrete Laplace: exact sampler on rationals (CKS20 Algorithms 1 and 2)
# --------------------------------------------------------------------------------------------


def _uniform_below(d: int, rng: np.random.Generator) -> int:
    """A uniform integer in {0, ..., d − 1}, exactly (no floating point)."""
    if d <= _NUMPY_INT_BOUND:
        return int(rng.integers(d))
    bits = d.bit_length()
    nbytes = (bits + 7) // 8
    while True:  # rejection on `bits` uniform bits: accepts with probability > 1/2
        value = int.from_bytes(rng.bytes(nbytes), "little") >> (8 * nbytes - bits)
        if value < d:
            return value


def _bernoulli_rational(p: Fraction, rng: np.random.Generator) -> bool:
    """Bernoulli(n/d) for 0 <= n/d <= 1: P(U < n) = n/d for U uniform on {0, ..., d − 1}."""
    return _uniform_below(p.denominator, rng) < p.numerator


def _bernoulli_exp_neg_unit(gamma: Fraction, rng: np.random.Generator) -> bool:
    """Bernoulli(exp(−γ)) for 0 <= γ <= 1 (CKS20 Alg. 1, first case).

    Draw A_1 ~ Bernoulli(γ/1), A_2 ~ Bernoulli(γ/2), ... until the first A_K = 0 and return
    "K is odd". P(K > k) = P(A_1 = ... = A_k = 1) = γ^k/k!, so P(K = k) = γ^{k−1}/(k−1)! − γ^k/k!
    and P(K odd) = Σ_{k odd} (γ^{k−1}/(k−1)! − γ^k/k!) = Σ_{j>=0} (−γ)^j/j! = e^{−γ}.
    Each γ/K <= 1 is a valid probability because γ <= 1.
    """
    k = 1
    while _bernoulli_rational(gamma / k, rng):
        k += 1
    return k % 2 == 1


def bernoulli_exp_neg(gamma: Fraction | int, rng: np.random.Generator) -> bool:
    """One exact Bernoulli(exp(−γ)) draw for a rational γ >= 0 (CKS20 Alg. 1).

    For γ > 1, exp(−γ) = exp(−1)^{⌊γ⌋}·exp(−(γ − ⌊γ⌋)): the AND of ⌊γ⌋ independent
    Bernoulli(exp(−1)) draws and one Bernoulli(exp(−(γ − ⌊γ⌋))) draw, stopping at the first 0
    (the AND is already decided). Only integer arithmetic on ``rng.integers`` draws is used.
    """
    gamma = _check_rational(gamma, "gamma", positive=False)
    if max(gamma.numerator.bit_length(), gamma.denominator.bit_length()) > _MAX_RATIONAL_BITS:
        raise ValueError(
            f"gamma must have a numerator and a denominator below 2^{_MAX_RATIONAL_BITS}"
        )
    rng = check_rng(rng)
    return _bernoulli_exp_neg(gamma, rng)


def _bernoulli_exp_neg(gamma: Fraction, rng: np.random.Generator) -> bool:
    if gamma <= 1:
        return _bernoulli_exp_neg_unit(gamma, rng)
    whole = math.floor(gamma)
    for _ in range(whole):
        if not _bernoulli_exp_neg_unit(Fraction(1), rng):
            return False
    return _bernoulli_exp_neg_unit(gamma - whole, rng)


_VECTOR_BOUND = 2**31  # num, den <= 2^31 keep every product below 2^63 in the vectorised path


def _bernoulli_exp_neg_unit_vectorised(
    numerators: np.ndarray, den: int, rng: np.random.Generator
) -> np.ndarray:
    """Bernoulli(exp(−a_i/den)) for integers 0 <= a_i <= den, all at once (CKS20 Alg. 1 as in
    :func:`_bernoulli_exp_neg_unit`: A_K ~ Bernoulli(a/(den·K)) until the first 0, "K odd")."""
    k = np.ones(numerators.shape, dtype=np.int64)
    active = np.ones(numerators.shape, dtype=bool)
    while active.any():
        idx = np.flatnonzero(active)
        success = rng.integers(0, den * k[idx]) < numerators[idx]  # Bernoulli(a/(den·K)), exact
        k[idx[success]] += 1
        active[idx[~success]] = False
    return k % 2 == 1


def _discrete_laplace_vectorised(
    num: int, den: int, size: int, rng: np.random.Generator
) -> np.ndarray:
    """CKS20 Alg. 2 (the steps of :func:`_discrete_laplace_once`) on arrays: each pass runs one
    round for every pending draw and keeps the accepted ones (a round is kept with probability
    >= e^{−1}/2, so about 5.4 passes per draw on average and a handful of dozens overall)."""
    out = np.empty(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        u = rng.integers(0, num, pending.size)  # step 1
        kept = _bernoulli_exp_neg_unit_vectorised(u, num, rng)
        u, idx = u[kept], pending[kept]
        v = np.zeros(u.size, dtype=np.int64)  # step 2: successes of Bernoulli(e^{−1})
        going = np.ones(u.size, dtype=bool)
        while going.any():
            j = np.flatnonzero(going)
            success = _bernoulli_exp_neg_unit_vectorised(np.ones(j.size, dtype=np.int64), 1, rng)
            v[j[success]] += 1
            going[j[~success]] = False
        y = (u + num * v) // den  # steps 3-4
        negative = rng.integers(0, 2, y.size) == 1  # step 5
        accept = ~(negative & (y == 0))
        out[idx[accept]] = np.where(negative[accept], -y[accept], y[accept])
        done = np.zeros(size, dtype=bool)
        done[idx[accept]] = True
        pending = pending[~done[pending]]
    return out


def _discrete_laplace_once(num: int, den: int, rng: np.random.Generator) -> int:
    """One exact discrete Laplace draw with scale t = num/den (CKS20 Alg. 2, whose "t/s" is our
    num/den), by rejection. A round is kept with probability >= e^{−1}·1/2 (step 1 keeps U with
    probability >= e^{−1}; step 5 rejects with probability P(B = 1, Y = 0) <= 1/2).
    """
    while True:
        # Step 1. U uniform on {0, ..., num − 1}, kept with probability exp(−U/num): a kept U has
        # P(U = u) ∝ e^{−u/num} on {0, ..., num − 1} (acceptance >= e^{−1} per try).
        u = _uniform_below(num, rng)
        if not _bernoulli_exp_neg_unit(Fraction(u, num), rng):
            continue
        # Step 2. V = number of successes before the first failure of Bernoulli(e^{−1}):
        # P(V = v) = (1 − e^{−1})·e^{−v}, v >= 0.
        v = 0
        while _bernoulli_exp_neg_unit(Fraction(1), rng):
            v += 1
        # Step 3. X = U + num·V: (u, v) <-> x is a bijection (u = x mod num, v = x div num) and
        # P(X = x) ∝ e^{−u/num}·e^{−v} = e^{−x/num}, so X is geometric on {0, 1, ...} with ratio
        # e^{−1/num}.
        x = u + num * v
        # Step 4. Y = ⌊X/den⌋: P(Y = y) = Σ_{x = y·den}^{y·den + den − 1} P(X = x) ∝ e^{−y·den/num},
        # geometric with ratio e^{−den/num} = e^{−1/t}.
        y = x // den
        # Step 5. A fair sign B; reject (B = 1, Y = 0) so that 0 is not produced twice as often
        # as it should: then P(Z = z) ∝ e^{−|z|/t} for every z ∈ ℤ, the discrete Laplace law.
        negative = _uniform_below(2, rng) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def sample_discrete_laplace_exact(
    scale: Fraction | int, size: int, rng: np.random.Generator
) -> np.ndarray:
    """``size`` exact discrete Laplace draws with rational scale t (CKS20 Alg. 2).

    ``scale`` must be an ``int`` or a ``Fraction`` > 0 (a float raises ``ValueError``: see the
    module docstring). No floating point is used: every random decision is an integer comparison
    on ``rng.integers`` draws, so the law is exact up to the quality of the generator. When the
    numerator and denominator of t are at most 2^31 the rejection loops run on whole arrays
    (:func:`_discrete_laplace_vectorised`); otherwise one Python loop per draw, at most
    :data:`MAX_SCALAR_EXACT_DRAWS` draws a call (a tenth of that when the numerator or the
    denominator exceeds 2^64). The numerator and the denominator must be below 2^4096 (any
    scale between 2^−4096 and 2^4096, e.g. ``Fraction(10**400)``, whose draws come out as Python
    ints). Returns int64 (object dtype if a draw does not fit in int64).
    """
    t = _check_rational(scale, "scale", positive=True)
    bits = max(t.numerator.bit_length(), t.denominator.bit_length())
    if bits > _MAX_RATIONAL_BITS:
        raise ValueError(
            f"scale must have a numerator and a denominator below 2^{_MAX_RATIONAL_BITS}, got "
            f"one of {bits} bits"
        )
    size, rng = check_size(size), check_rng(rng)
    if t.numerator <= _VECTOR_BOUND and t.denominator <= _VECTOR_BOUND:
        return _discrete_laplace_vectorised(t.numerator, t.denominator, size, rng)
    cap = MAX_SCALAR_EXACT_DRAWS if bits <= 64 else MAX_SCALAR_EXACT_DRAWS // 10
    if size > cap:
        raise ValueError(
            f"size must be at most {cap} when the scale's numerator or denominator exceeds "
            f"2^31 (one exact draw at a time), got {size}: draw in several calls"
        )
    draws = [_discrete_laplace_once(t.numerator, t.denominator, rng) for _ in range(size)]
    try:
        return np.array(draws, dtype=np.int64)
    except OverflowError:
        return np.array(draws, dtype=object)


__all__ = [
    "MAX_DISCRETE_SCALE",
    "MAX_LAW_ATOMS",
    "MAX_LAW_RADIUS",
    "MAX_LOC",
    "MAX_SCALAR_EXACT_DRAWS",
    "DiscreteLaplaceLaw",
    "bernoulli_exp_neg",
    "check_laplace_sampler_parameters",
    "laplace_law",
    "sample_discrete_laplace",
    "sample_discrete_laplace_exact",
    "sample_laplace",
]
