"""The discrete Gaussian N_ℤ(μ, σ²) of Canonne, Kamath and Steinke, "The Discrete Gaussian for
Differential Privacy" (NeurIPS 2020, arXiv:2004.00010; CKS20), Definition 1: for an integer μ,

    P(X = x) = exp(−(x − μ)²/(2σ²)) / θ(0),  θ(0) = Σ_{y∈ℤ} exp(−y²/(2σ²)),  x ∈ ℤ.

Its exact law :class:`DiscreteGaussianLaw` (mpmath; the normaliser and tails from the rigorous
sums of :mod:`dpquant.reference.primitives.gaussian_sums`), the exact Rényi divergence of two
discrete Gaussians whose centres differ by an integer, :func:`discrete_gaussian_renyi` (CKS20,
Proposition 5). The samplers: the vectorised int64
:func:`~dpquant.reference.primitives.discrete_gaussian_sampler.sample_discrete_gaussian` (CKS20,
Algorithm 3, by rejection from the vectorised discrete Laplace sampler) and the exact one on
rationals, :mod:`dpquant.reference.primitives.exact_discrete_gaussian`.

Limits (each refused with a ``ValueError`` naming the parameter and the range):

* σ lies in [2^−500, 2^500] (``MIN_SIGMA``, :data:`MAX_SIGMA`): σ² and 1/σ² are then normal
  floats, so the float paths (``logpmf``, the sampler's acceptance) neither overflow nor
  underflow; below 2^−500 the law is the point mass at μ to ~10^300000 digits, above 2^500 the
  float path loses σ² itself. ``loc`` is an int with |loc| <= 2^53.
* The vectorised sampler and :meth:`DiscreteGaussianLaw.sample` need σ <= 2^47
  (:data:`~dpquant.reference.primitives.discrete_gaussian_sampler.MAX_SAMPLER_SIGMA`).
* The finite images (``truncated``, ``clamped``, ``probabilities_within``) have at most
  :data:`~dpquant.reference.primitives.discrete_laplace.MAX_LAW_ATOMS` atoms.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.discrete_gaussian_sampler import (
    MIN_SIGMA,
    sample_discrete_gaussian,
)
from dpquant.reference.primitives.discrete_laplace import MAX_LAW_ATOMS, MAX_LAW_RADIUS, MAX_LOC
from dpquant.reference.primitives.gaussian_sums import (
    gaussian_log_theta,
    gaussian_tail,
    gaussian_variance,
)
from dpquant.reference.validation import (
    check_fraction,
    check_int,
    check_real,
    check_real_array,
)

MAX_SIGMA = Fraction(2**500)
"""Largest σ of :class:`DiscreteGaussianLaw` (about 3.3e150)."""

_ALPHA_NEAR_ONE = Fraction(1, 10**20)


def _check_sigma(sigma: Any, name: str, lo: Fraction, hi: Fraction) -> Fraction:
    """σ (or σ², with ``lo``, ``hi`` squared) as an exact rational in [lo, hi]."""
    value = check_fraction(sigma, name, positive=True)
    if not lo <= value <= hi:
        bounds = "[2^-500, 2^500]" if name == "sigma" else "[2^-1000, 2^1000]"
        raise ParameterError(
            name,
            f"must lie in {bounds} (σ² and 1/σ² normal floats)",
            f"{float(value):.6g}",
        )
    return value


# --------------------------------------------------------------------------------------------
# The exact law
# --------------------------------------------------------------------------------------------


class DiscreteGaussianLaw:
    """Exact law of the discrete Gaussian N_ℤ(loc, σ²) (CKS20, Definition 1):
    P(X = loc + k) = exp(−k²/(2σ²))/θ(0), k ∈ ℤ.

    ``*_mp`` methods are exact to the working precision (mpmath, 60 digits): the normaliser θ(0)
    and the tails S(d) = Σ_{k>=d} exp(−k²/(2σ²)) are infinite sums computed with a proved bound
    on what they leave out, a relative error of at most 10^−70
    (:mod:`dpquant.reference.primitives.gaussian_sums`; the bound of θ(0) is
    :attr:`normalizer_error`). ``logpmf`` is float and vectorised. The divergences of
    :mod:`dpquant.reference.distributions` take one of its finite images: :meth:`clamped` (all
    the mass: a post-processing of X, so divergences between clamped laws are lower bounds of the
    true ones by the data-processing inequality) or :meth:`truncated`.

    Args:
        sigma: σ, a rational in [2^−500, 2^500] that fits a float64 (a float, an int or a
            ``Fraction``); or None when ``sigma2`` is given.
        loc: The centre μ, an int with ``|loc| <= 2^53``.
        sigma2: σ² instead of σ (keyword only), a rational in [2^−1000, 2^1000]: the parameter
            of CKS20's Algorithm 3 and of
            :func:`~dpquant.reference.primitives.exact_discrete_gaussian.sample_discrete_gaussian_exact`,
            whose σ may be irrational.

    Attributes:
        sigma2: σ², exact (a ``Fraction``).
        sigma: σ as a float.
        loc: The centre.
        normalizer_error: The proved bound on the relative error of θ(0) (mpf, <= 10^−70).

    Raises:
        ValueError: ``sigma`` (or ``sigma2``) or ``loc`` out of range, or both or neither of
            ``sigma`` and ``sigma2`` given (named).
    """

    def __init__(self, sigma: Any = None, loc: int = 0, *, sigma2: Any = None):
        if (sigma is None) == (sigma2 is None):
            raise ParameterError("sigma", "or sigma2 must be given, not both nor neither")
        if sigma is not None:
            self.sigma2 = _check_sigma(sigma, "sigma", MIN_SIGMA, MAX_SIGMA) ** 2
        else:
            self.sigma2 = _check_sigma(sigma2, "sigma2", MIN_SIGMA**2, MAX_SIGMA**2)
        self.sigma = math.sqrt(float(self.sigma2))
        self.loc = check_int(loc, "loc", minimum=-MAX_LOC, maximum=MAX_LOC)
        with workdps():
            self._s2 = mpmath.mpf(self.sigma2.numerator) / self.sigma2.denominator
            self._log_z, self.normalizer_error = gaussian_log_theta(0, self.sigma2)
        self._half_rate_float = 0.5 / float(self.sigma2)

    def __repr__(self) -> str:
        return f"DiscreteGaussianLaw(sigma2={self.sigma2}, loc={self.loc})"

    # -- exact path -----------------------------------------------------------------------------

    def _log_weight(self, k: int) -> mpmath.mpf:
        """−(k − loc)²/(2σ²): the log-weight relative to the atom at loc."""
        return -(mpmath.mpf(k - self.loc) ** 2) / (2 * self._s2)

    def _log_tail_weight(self, d: int) -> mpmath.mpf:
        """log S(d), S(d) = Σ_{j>=d} e^{−j²/(2σ²)} = θ(0)·P(X − loc >= d) (any integer d)."""
        return mpmath.log(gaussian_tail(d, self.sigma2)[0])

    @property
    def log_normalizer_mp(self) -> mpmath.mpf:
        """log θ(0), θ(0) = Σ_{k∈ℤ} exp(−k²/(2σ²)) (relative error <= :attr:`normalizer_error`)."""
        return self._log_z

    def logpmf_mp(self, k: int) -> mpmath.mpf:
        """Exact log P(X = k) = −(k − loc)²/(2σ²) − log θ(0).

        Args:
            k: An integer.

        Returns:
            The log-probability.
        """
        k = check_int(k, "k")
        with workdps():
            return self._log_weight(k) - self._log_z

    def pmf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X = k).

        Args:
            k: An integer.

        Returns:
            The probability.
        """
        with workdps():
            return mpmath.exp(self.logpmf_mp(k))

    def cdf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X <= k) = S(loc − k)/θ(0) (by symmetry).

        Args:
            k: An integer.

        Returns:
            The probability.
        """
        k = check_int(k, "k")
        with workdps():
            return mpmath.exp(self._log_tail_weight(self.loc - k) - self._log_z)

    def sf_mp(self, k: int) -> mpmath.mpf:
        """Exact P(X > k) = S(k + 1 − loc)/θ(0), without cancellation in either tail.

        Args:
            k: An integer.

        Returns:
            The probability.
        """
        k = check_int(k, "k")
        with workdps():
            return mpmath.exp(self._log_tail_weight(k + 1 - self.loc) - self._log_z)

    def tail_mass_mp(self, k: int) -> mpmath.mpf:
        """Exact P(|X − loc| > k).

        Args:
            k: An integer.

        Returns:
            2·S(k + 1)/θ(0) for k >= 0, and 1 for k < 0.
        """
        k = check_int(k, "k")
        with workdps():
            if k < 0:
                return mpmath.mpf(1)
            return 2 * mpmath.exp(self._log_tail_weight(k + 1) - self._log_z)

    def variance_mp(self) -> mpmath.mpf:
        """Exact Var[X] = Σ_k k²·e^{−k²/(2σ²)}/θ(0), below σ² (CKS20 §2, the variance bound
        of their utility analysis; :func:`~dpquant.reference.primitives.gaussian_sums.gaussian_variance`).

        Returns:
            The variance (relative error <= 10^−70).
        """
        with workdps():
            return +gaussian_variance(self.sigma2)[0]

    def renyi_divergence(self, shift: int, alpha: Any) -> mpmath.mpf:
        """Exact D_α(N_ℤ(loc + shift, σ²) ‖ N_ℤ(loc, σ²)): :func:`discrete_gaussian_renyi`.

        Args:
            shift: k, the integer between the two centres.
            alpha: The order α, as for :func:`discrete_gaussian_renyi`.

        Returns:
            The divergence, an mpmath number.

        Raises:
            ValueError: ``shift`` or ``alpha`` refused (named).
        """
        return _renyi(self, shift, alpha)

    def truncated(self, radius: int) -> DiscreteLaw:
        """The law conditioned on |X − loc| <= radius.

        Args:
            radius: At most :data:`~dpquant.reference.primitives.discrete_laplace.MAX_LAW_RADIUS`.

        Returns:
            A law on the atoms loc − radius .. loc + radius.

        Raises:
            ValueError: ``radius`` refused (named).
        """
        radius = check_int(radius, "radius", minimum=0, maximum=MAX_LAW_RADIUS)
        atoms = range(self.loc - radius, self.loc + radius + 1)
        with workdps():  # log-weights relative to the atom at loc (the law normalises them)
            logs = [self._log_weight(k) for k in atoms]
        return DiscreteLaw(list(atoms), logs)

    def clamped(self, lo: int, hi: int) -> DiscreteLaw:
        """Exact law of min(max(X, lo), hi): atoms lo..hi, the tails piled on the two ends
        (P(X <= lo) on lo, P(X >= hi) on hi, from the tail sums S).

        A post-processing of X, so divergences between clamped laws never exceed the true ones
        (data-processing inequality), and equal them once [lo, hi] holds every atom where the
        true divergence is decided.

        Args:
            lo: The lowest atom, an integer.
            hi: The highest, with ``hi − lo <= 2·MAX_LAW_RADIUS`` (at most
                :data:`~dpquant.reference.primitives.discrete_laplace.MAX_LAW_ATOMS` atoms).

        Returns:
            The law.

        Raises:
            ValueError: ``lo`` or ``hi`` not an integer, ``hi < lo``, or too many atoms.
        """
        lo, hi = check_int(lo, "lo"), check_int(hi, "hi")
        if hi < lo:
            raise ParameterError("hi", "must be >= lo", f"lo = {lo}, hi = {hi}")
        if hi - lo > 2 * MAX_LAW_RADIUS:
            raise ParameterError(
                "hi",
                f"must satisfy hi - lo <= {2 * MAX_LAW_RADIUS} (a law of at most "
                f"{MAX_LAW_ATOMS} atoms, built in seconds)",
                f"lo = {lo}, hi = {hi}",
            )
        if lo == hi:
            return DiscreteLaw([lo], [0])
        with workdps():  # log-weights relative to the atom at loc (the law normalises them)
            logs = [self._log_tail_weight(self.loc - lo)]
            logs += [self._log_weight(k) for k in range(lo + 1, hi)]
            logs.append(self._log_tail_weight(hi - self.loc))
        return DiscreteLaw(list(range(lo, hi + 1)), logs)

    def probabilities_within(self, radius: int) -> dict[int, float]:
        """The probabilities near the centre, for ``atom_test`` (the rest of the mass,
        :meth:`tail_mass_mp`, is its category "other").

        Args:
            radius: At most :data:`~dpquant.reference.primitives.discrete_laplace.MAX_LAW_RADIUS`.

        Returns:
            {k: P(X = k)} for |k − loc| <= radius, as floats.

        Raises:
            ValueError: ``radius`` refused (named).
        """
        radius = check_int(radius, "radius", minimum=0, maximum=MAX_LAW_RADIUS)
        with workdps():
            return {
                k: float(mpmath.exp(self._log_weight(k) - self._log_z))
                for k in range(self.loc - radius, self.loc + radius + 1)
            }

    # -- float path -----------------------------------------------------------------------------

    def logpmf(self, k: Any) -> np.ndarray:
        """Float log P(X = k), vectorised.

        Args:
            k: Real numbers of any shape.

        Returns:
            The log-probabilities; -inf at non-integers (and at ±inf).

        Raises:
            ValueError: ``k`` not real numbers (NaN included).
        """
        k = check_real_array(k, "k", allow_inf=True)
        d = k - self.loc
        with np.errstate(invalid="ignore", over="ignore"):
            value = -float(self._log_z) - d * d * self._half_rate_float
        return np.where(np.isfinite(k) & (k == np.floor(k)), value, -np.inf)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent draws by
        :func:`~dpquant.reference.primitives.discrete_gaussian_sampler.sample_discrete_gaussian`
        (with the float σ), at loc.

        Args:
            size: The draws.
            rng: A ``numpy.random.Generator``.

        Returns:
            ``size`` int64 draws.

        Raises:
            ValueError: σ above 2^47, or ``size`` or ``rng`` refused.
        """
        return sample_discrete_gaussian(self.sigma, size, rng, self.loc)


# --------------------------------------------------------------------------------------------
# The Rényi divergence (CKS20, Proposition 5)
# --------------------------------------------------------------------------------------------


def discrete_gaussian_renyi(sigma: Any, shift: int, alpha: Any) -> mpmath.mpf:
    """Exact Rényi divergence D_α(N_ℤ(μ + k, σ²) ‖ N_ℤ(μ, σ²)) of two discrete Gaussians whose
    centres differ by the integer k (any integer μ: the value does not depend on it).

    Completing the square, α(x − k)² + (1 − α)x² = (x − αk)² + α(1 − α)k², so

        Σ_x p(x)^α q(x)^{1−α} = e^{α(α−1)k²/(2σ²)}·θ(αk)/θ(0),
        D_α = αk²/(2σ²) + (log θ(αk) − log θ(0))/(α − 1),

    θ(m) = Σ_{x∈ℤ} e^{−(x−m)²/(2σ²)} (:func:`~dpquant.reference.primitives.gaussian_sums.gaussian_log_theta`,
    αk reduced exactly modulo 1). CKS20 Proposition 5 (the discrete Gaussian mechanism is
    ½ε²-concentrated DP) rests on D_α <= αk²/(2σ²) for α > 1, an equality exactly when αk (so
    (α − 1)k) is an integer: θ(m) <= θ(0) with equality exactly at integers. For α < 1 the
    inequality reverses. α = 1 is the KL divergence k²/(2σ²) (E[X] = μ + k), and α = ∞ the
    supremum of the log-ratio, infinite for k ≠ 0.

    The absolute error is below 10^−69/|α − 1| (the two θ sums, each to relative 10^−70), so α
    within 10^−20 of 1 (other than 1 itself) is refused.

    Args:
        sigma: σ, as for :class:`DiscreteGaussianLaw`.
        shift: k, an integer.
        alpha: The order α: a rational > 0 (int, float or ``Fraction``, taken exactly) with
            α = 1 or |α − 1| >= 10^−20, or ``math.inf``.

    Returns:
        The divergence, an mpmath number (``mpmath.inf`` at α = ∞, k ≠ 0).

    Raises:
        ValueError: ``sigma``, ``shift`` or ``alpha`` refused (named).
    """
    return _renyi(DiscreteGaussianLaw(sigma), shift, alpha)


def _renyi(law: DiscreteGaussianLaw, shift: Any, alpha: Any) -> mpmath.mpf:
    k = check_int(shift, "shift", minimum=-(2**64), maximum=2**64)
    if isinstance(alpha, float | np.floating) and check_real(alpha, "alpha") == math.inf:
        return mpmath.mpf(0) if k == 0 else mpmath.inf
    a = check_fraction(alpha, "alpha", positive=True)
    if a != 1 and abs(a - 1) < _ALPHA_NEAR_ONE:
        raise ParameterError(
            "alpha",
            "must be 1 or differ from 1 by at least 1e-20 (the error of the θ sums is divided "
            "by α − 1)",
            f"{float(a)!r}",
        )
    with workdps():
        base = mpmath.mpf(k) ** 2 / (2 * law._s2)
        if k == 0 or a == 1:
            return +base
        m = a * k
        log_theta_m, _ = gaussian_log_theta(m - round(m), law.sigma2)
        alpha_mp = mpmath.mpf(a.numerator) / a.denominator
        return alpha_mp * base + (log_theta_m - law._log_z) / (alpha_mp - 1)


__all__ = [
    "MAX_SIGMA",
    "DiscreteGaussianLaw",
    "discrete_gaussian_renyi",
]
