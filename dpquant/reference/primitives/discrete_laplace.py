"""Discrete Laplace (two-sided geometric) noise with scale t > 0,
P(X = loc + k) = (1 − e^{−1/t})/(1 + e^{−1/t})·e^{−|k|/t} for k ∈ ℤ: its exact law
:class:`DiscreteLaplaceLaw` (mpmath, closed forms) and the vectorised int64 sampler
:func:`sample_discrete_laplace` (the node noise of imola25's continual counting, Lemma 3.1). The
exact sampler on rationals is :mod:`dpquant.reference.primitives.exact_discrete_laplace`.

Limits (each refused with a ``ValueError`` naming the parameter and the range; issue 18):

* :func:`sample_discrete_laplace` and :meth:`DiscreteLaplaceLaw.sample` draw exactly (up to float
  rounding, see :func:`_geometric_from_zero`) for every scale t <= 2^50
  (:data:`MAX_DISCRETE_SCALE`) and refuse larger ones: numpy's geometric saturates at the int64
  maximum, which gave zero noise at t = 1e30 and wrapped-around draws at t = 1e19. Scales whose
  1/t overflows give the point mass at loc, the law to float precision.
* The finite images of :class:`DiscreteLaplaceLaw` (``truncated``, ``clamped``,
  ``probabilities_within``) have at most :data:`MAX_LAW_ATOMS` atoms; ``loc`` is an int with
  |loc| <= 2^53.
* Every scale a float holds (5e-324 .. 1.8e308) has an exact law: the finite images take
  log-weights relative to the atom at loc and ``mass`` sums positive geometric runs, so neither
  a normaliser of −2·e^{−1e300} (minutes of exact rationals) nor the cancellation of two masses
  near 1/2 (a mass of 3.5e-308 returned as 0) occurs (issue 34, notes/foundation.md).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_fraction,
    check_int,
    check_positive,
    check_real,
    check_real_array,
    check_rng,
    check_size,
)

MAX_DISCRETE_SCALE = 2**50
"""Largest scale t of the int64 discrete Laplace samplers (:func:`sample_discrete_laplace`,
:meth:`DiscreteLaplaceLaw.sample`, the node noise of
:class:`~dpquant.reference.primitives.continual_counting.ContinualCounting`): every draw is below
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

_DIGIT = 2**16  # base of the digits of a geometric variable at large scales
_DIRECT_SCALE = 2.0**16  # numpy's geometric draws scales up to this one directly


# --------------------------------------------------------------------------------------------
# The exact law
# --------------------------------------------------------------------------------------------


class DiscreteLaplaceLaw:
    """Exact law of the discrete Laplace (two-sided geometric) with scale t > 0 centred at ``loc``:
    P(X = loc + k) = (1 − q)/(1 + q)·q^{|k|}, q = e^{−1/t}, k ∈ ℤ.

    ``*_mp`` methods are exact to the working precision (mpmath, :data:`dpquant.reference.exact.mp.DPS`
    digits, closed forms only: no truncated sums) for any rational t > 0 that fits a float64;
    ``cdf``/``logpmf`` are float and vectorised. The law has infinite support, so the divergences
    of :mod:`dpquant.reference.distributions` take one of its finite images: :meth:`clamped` (exact, all
    the mass, a post-processing of X) or :meth:`truncated` (conditioned on |X − loc| <= radius),
    each of at most :data:`MAX_LAW_ATOMS` atoms.

    Args:
        scale: t, a rational > 0 that fits a float64 (a float or a ``Fraction``); :meth:`sample`
            needs t <= :data:`MAX_DISCRETE_SCALE` (see :func:`sample_discrete_laplace`).
        loc: The centre, an int with ``|loc| <= 2^53`` (:data:`MAX_LOC`: the float path and the
            int64 draws stay exact).

    Raises:
        ValueError: ``scale`` or ``loc`` out of range (named).
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
            self._log1mq = mpmath.log(-mpmath.expm1(-self._rate))  # log(1 − q)
        # float rate 1/t (inf when t is below the float range: then the law is a point mass)
        self._rate_float = float(self._rate) if self._rate < MAX_FLOAT else math.inf

    def __repr__(self) -> str:
        return f"DiscreteLaplaceLaw(scale={self.scale_exact}, loc={self.loc})"

    # -- exact path -----------------------------------------------------------------------------

    def logpmf_mp(self, k: int) -> mpmath.mpf:
        """Exact log P(X = k) = log((1 − q)/(1 + q)) − |k − loc|/t.

        Args:
            k: An integer.

        Returns:
            The log-probability.
        """
        k = check_int(k, "k")
        with workdps():
            return self._log_norm - self._rate * abs(k - self.loc)

    def pmf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X = k).

        Args:
            k: An integer.

        Returns:
            The probability.
        """
        with workdps():
            return mpmath.exp(self.logpmf_mp(k))

    def tail_mass_mp(self, k: int) -> mpmath.mpf:
        """Exact P(|X − loc| > k).

        Args:
            k: An integer.

        Returns:
            2 q^{k+1}/(1 + q) for k >= 0, and 1 for k < 0.
        """
        k = check_int(k, "k")
        with workdps():
            if k < 0:
                return mpmath.mpf(1)
            return 2 * mpmath.exp(-self._rate * (k + 1) - self._log1pq)

    def cdf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X <= k).

        Args:
            k: An integer.

        Returns:
            q^{loc−k}/(1 + q) below loc, 1 − q^{k−loc+1}/(1 + q) from loc on.
        """
        k = check_int(k, "k") - self.loc
        with workdps():
            if k < 0:
                return mpmath.exp(self._rate * k - self._log1pq)
            return 1 - self.sf_mp(k + self.loc)

    def sf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X > k), computed without cancellation in the right tail.

        Args:
            k: An integer.

        Returns:
            The probability.
        """
        k = check_int(k, "k") - self.loc
        with workdps():
            if k >= 0:
                return mpmath.exp(-self._rate * (k + 1) - self._log1pq)
            return 1 - self.cdf_mp(k + self.loc)

    def mass(self, lo: float, hi: float) -> mpmath.mpf:
        """Exact P(lo <= X <= hi).

        Args:
            lo: The lower end, real (infinite allowed).
            hi: The upper end, likewise.

        Returns:
            The probability.
        """
        lo, hi = check_real(lo, "lo"), check_real(hi, "hi")
        if not lo <= hi or hi == -math.inf or lo == math.inf:
            return mpmath.mpf(0)
        first = None if lo == -math.inf else math.ceil(lo) - self.loc
        last = None if hi == math.inf else math.floor(hi) - self.loc
        with workdps():
            # the atoms at or above loc, then those below (mirrored): a sum of two positive runs
            above = self._run_mass(max(first or 0, 0), last)
            below = self._run_mass(max(-last, 1) if last is not None else 1, _neg(first))
            return above + below

    def _run_mass(self, start: int, stop: int | None) -> mpmath.mpf:
        """P(start <= X − loc <= stop) for 0 <= start (``stop`` None: +inf), a geometric run
        with no cancellation at any scale: q^start·(1 − q^n)/(1 + q), n = stop − start + 1
        (issue 34: differences of two cdf values near 1/2 lost all of a mass of 1e-308)."""
        if stop is not None and stop < start:
            return mpmath.mpf(0)
        tail = 1 if stop is None else -mpmath.expm1(-self._rate * (stop - start + 1))
        return mpmath.exp(-self._rate * start - self._log1pq) * tail

    def truncated(self, radius: int) -> DiscreteLaw:
        """The law conditioned on |X − loc| <= radius.

        Args:
            radius: At most :data:`MAX_LAW_RADIUS` (a law of at most :data:`MAX_LAW_ATOMS`
                atoms).

        Returns:
            A law on the atoms loc − radius .. loc + radius.
        """
        radius = _check_radius(radius)
        atoms = range(self.loc - radius, self.loc + radius + 1)
        with workdps():  # log-weights relative to the atom at loc (the law normalises them)
            logs = [-self._rate * abs(k - self.loc) for k in atoms]
        return DiscreteLaw(list(atoms), logs)

    def clamped(self, lo: int, hi: int) -> DiscreteLaw:
        """Exact law of min(max(X, lo), hi): atoms lo..hi, the tails piled on the two ends.

        A post-processing of X, so divergences between clamped laws never exceed the true ones,
        and they equal them once [lo, hi] contains the atoms where the true sup is reached.

        Args:
            lo: The lowest atom, an integer.
            hi: The highest, with ``hi − lo <= 2·MAX_LAW_RADIUS`` (at most
                :data:`MAX_LAW_ATOMS` atoms).

        Returns:
            The law.
        """
        lo, hi = check_int(lo, "lo"), check_int(hi, "hi")
        if hi < lo:
            raise ParameterError("hi", "must be >= lo", f"lo = {lo}, hi = {hi}")
        if hi - lo > 2 * MAX_LAW_RADIUS:
            raise ValueError(
                f"hi - lo must be at most {2 * MAX_LAW_RADIUS} (a law of at most {MAX_LAW_ATOMS} "
                f"atoms, built in seconds), got lo = {lo}, hi = {hi}"
            )
        if lo == hi:
            return DiscreteLaw([lo], [0])
        with workdps():  # log-weights relative to the atom at loc (the law normalises them)
            logs = [self._log_pile(self.loc - lo)]
            logs += [-self._rate * abs(k - self.loc) for k in range(lo + 1, hi)]
            logs.append(self._log_pile(hi - self.loc))
        return DiscreteLaw(list(range(lo, hi + 1)), logs)

    def _log_pile(self, d: int) -> mpmath.mpf:
        """log(P(X − loc <= −d)/P(X = loc)) (= log(P(X − loc >= d)/P(X = loc)) by symmetry), the
        end atoms of :meth:`clamped`: Σ_{j>=d} q^j = q^d/(1 − q) gives −d/t − log(1 − q) for
        d >= 1; P(X − loc <= e) = (1 + q − q^{e+1})/(1 + q) gives log(1 + q·(1 − q^e)) −
        log(1 − q) for e = −d >= 0.

        No normaliser and no log1p of q: at t = 1e-300 the normaliser's log is −2·e^{−1e300}, an
        mpf whose exact rational has the denominator 2^(1.4·10^300), which the exact log-weights
        of :class:`DiscreteLaw` spent minutes on (issue 34); log(1 + q) rounds to 0 instead,
        exact at the working precision (an error of e^{−1e300} in a log-probability)."""
        if d >= 1:
            return -self._rate * d - self._log1mq
        q = mpmath.exp(-self._rate)
        return mpmath.log(1 + q * -mpmath.expm1(self._rate * d)) - self._log1mq

    def probabilities_within(self, radius: int) -> dict[int, float]:
        """The probabilities near the centre, for ``atom_test`` (the rest of the mass,
        :meth:`tail_mass_mp`, is its category "other").

        Args:
            radius: At most :data:`MAX_LAW_RADIUS`.

        Returns:
            {k: P(X = k)} for |k − loc| <= radius, as floats.
        """
        radius = _check_radius(radius)
        with workdps():
            return {
                k: float(mpmath.exp(self._log_norm - self._rate * abs(k - self.loc)))
                for k in range(self.loc - radius, self.loc + radius + 1)
            }

    # -- float path -----------------------------------------------------------------------------

    def logpmf(self, k: Any) -> np.ndarray:
        """Float log P(X = k), vectorised.

        Args:
            k: Real numbers of any shape.

        Returns:
            The log-probabilities; -inf at non-integers (and at ±inf).
        """
        k = check_real_array(k, "k", allow_inf=True)
        d = np.abs(k - self.loc)
        log_norm = float(self._log_norm)
        with np.errstate(invalid="ignore", over="ignore"):
            value = np.where(d == 0, log_norm, log_norm - d * self._rate_float)
        return np.where(np.isfinite(k) & (k == np.floor(k)), value, -np.inf)

    def cdf(self, y: Any) -> np.ndarray:
        """Float P(X <= y), vectorised (from the closed forms of :meth:`cdf_mp`).

        Args:
            y: Real numbers of any shape.

        Returns:
            The probabilities.
        """
        k = np.floor(check_real_array(y, "y", allow_inf=True)) - self.loc
        log1pq, rate = float(self._log1pq), self._rate_float
        out = np.empty(k.shape)
        left = k < 0
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            out[left] = np.exp(k[left] * rate - log1pq)
            out[~left] = -np.expm1(-(k[~left] + 1) * rate - log1pq)
        return out[()] if out.ndim == 0 else out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent draws by :func:`sample_discrete_laplace`, shifted by ``loc``.

        Args:
            size: The draws.
            rng: A ``numpy.random.Generator``.

        Returns:
            ``size`` int64 draws.

        Raises:
            ValueError: t above :data:`MAX_DISCRETE_SCALE`, or ``size`` refused.
        """
        _check_discrete_scale(self.scale_exact)
        size, rng = check_size(size), check_rng(rng)
        return self.loc + _discrete_laplace_draws(self.scale, size, rng)


def _neg(k: int | None) -> int | None:
    """−k, None (an infinite end) staying None."""
    return None if k is None else -k


def _check_radius(radius: Any) -> int:
    return check_int(radius, "radius", minimum=0, maximum=MAX_LAW_RADIUS)


# --------------------------------------------------------------------------------------------
# The int64 sampler
# --------------------------------------------------------------------------------------------


def _check_discrete_scale(scale: Any) -> float:
    """A scale t with 0 < t <= :data:`MAX_DISCRETE_SCALE` (the int64 samplers' range)."""
    if scale > MAX_DISCRETE_SCALE:
        raise ParameterError(
            "scale",
            f"must be at most 2^50 = {float(MAX_DISCRETE_SCALE):.6g} for the int64 discrete "
            "Laplace sampler (larger draws are not representable exactly in int64)",
            f"{float(scale):.6g}; use sample_discrete_laplace_exact for larger rational scales",
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

    For exact rational scales of any size use :func:`sample_discrete_laplace_exact`.

    Args:
        scale: t, a finite number in (0, 2^50] (:data:`MAX_DISCRETE_SCALE`): above it a draw no
            longer fits int64 with certainty (|draw| < 47t must stay below 2^63 even after the
            sums of :mod:`dpquant.reference.primitives.continual_counting`); scales so small that
            1/t overflows give the point mass at 0, which is the law to float precision.
        size: The draws.
        rng: A ``numpy.random.Generator``.

    Returns:
        ``size`` int64 draws.

    Raises:
        ValueError: An argument is refused (named).
    """
    scale = _check_discrete_scale(check_positive(scale, "scale"))
    size, rng = check_size(size), check_rng(rng)
    return _discrete_laplace_draws(scale, size, rng)


__all__ = [
    "MAX_DISCRETE_SCALE",
    "MAX_LAW_ATOMS",
    "MAX_LAW_RADIUS",
    "MAX_LOC",
    "DiscreteLaplaceLaw",
    "sample_discrete_laplace",
]
