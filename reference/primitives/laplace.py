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
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from reference.distributions import DiscreteLaw, PiecewiseLogLinear
from reference.exact.mp import MP_INF, to_mpf, workdps
from reference.validation import (
    check_finite,
    check_fraction,
    check_int,
    check_positive,
    check_rng,
    check_size,
)

# numpy's bounded integer generator is exact (unbiased) for bounds below 2**63; larger bounds use
# rejection on raw random bytes.
_NUMPY_INT_BOUND = 2**62


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
    losses come out exact to the working precision.
    """
    mu = check_fraction(loc, "loc")
    b = check_fraction(scale, "scale", positive=True)
    with workdps():
        log_2b = mpmath.log(2 * to_mpf(b))
        shift = to_mpf(mu / b)
        exact_intercepts = [-log_2b - shift, -log_2b + shift]
    inv_b = 1 / b
    return PiecewiseLogLinear(
        breaks=[-math.inf, float(mu), math.inf],
        slopes=[float(inv_b), -float(inv_b)],
        intercepts=[float(x) for x in exact_intercepts],
        exact_breaks=[-math.inf, mu, math.inf],
        exact_slopes=[inv_b, -inv_b],
        exact_intercepts=exact_intercepts,
    )


def sample_laplace(loc: float, scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent Laplace(loc, scale) draws (numpy's vectorised sampler), float64."""
    loc = check_finite(loc, "loc")
    scale = check_positive(scale, "scale")
    size, rng = check_size(size), check_rng(rng)
    return rng.laplace(loc, scale, size)


# --------------------------------------------------------------------------------------------
# Discrete Laplace: exact law
# --------------------------------------------------------------------------------------------


class DiscreteLaplaceLaw:
    """Exact law of the discrete Laplace (two-sided geometric) with scale t > 0 centred at ``loc``:
    P(X = loc + k) = (1 − q)/(1 + q)·q^{|k|}, q = e^{−1/t}, k ∈ ℤ.

    ``*_mp`` methods are exact to the working precision (mpmath, :data:`reference.exact.mp.DPS`
    digits, closed forms only: no truncated sums); ``cdf``/``logpmf`` are float and vectorised.
    The law has infinite support, so the divergences of :mod:`reference.distributions` take one of
    its finite images: :meth:`clamped` (exact, all the mass, a post-processing of X) or
    :meth:`truncated` (conditioned on |X − loc| <= radius).
    """

    def __init__(self, scale: float | Fraction, loc: int = 0):
        self.scale_exact = check_fraction(scale, "scale", positive=True)
        self.scale = float(self.scale_exact)
        self.loc = check_int(loc, "loc")
        with workdps():
            self._rate = 1 / to_mpf(self.scale_exact)  # 1/t; q = exp(−rate)
            # log((1 − q)/(1 + q)), stable for tiny rates (large t) through expm1/log1p.
            self._log_norm = mpmath.log(-mpmath.expm1(-self._rate)) - mpmath.log1p(
                mpmath.exp(-self._rate)
            )
            self._log1pq = mpmath.log1p(mpmath.exp(-self._rate))

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
        with workdps():
            lo_m, hi_m = to_mpf(lo), to_mpf(hi)
            if mpmath.isnan(lo_m) or mpmath.isnan(hi_m):
                raise ValueError(f"lo and hi must be real numbers, got {lo!r} and {hi!r}")
            if not lo_m <= hi_m:
                return mpmath.mpf(0)
            first = None if lo_m == -MP_INF else int(mpmath.ceil(lo_m))
            last = None if hi_m == MP_INF else int(mpmath.floor(hi_m))
            if first is not None and last is not None and first > last:
                return mpmath.mpf(0)
            if first is not None and first > self.loc:  # right tail: differences of sf
                return self.sf_mp(first - 1) - (0 if last is None else self.sf_mp(last))
            below = mpmath.mpf(1) if last is None else self.cdf_mp(last)
            return below - (0 if first is None else self.cdf_mp(first - 1))

    def truncated(self, radius: int) -> DiscreteLaw:
        """The law conditioned on |X − loc| <= radius (atoms loc − radius .. loc + radius)."""
        radius = check_int(radius, "radius", minimum=0)
        atoms = list(range(self.loc - radius, self.loc + radius + 1))
        return DiscreteLaw(atoms, [self.logpmf_mp(k) for k in atoms])

    def clamped(self, lo: int, hi: int) -> DiscreteLaw:
        """Exact law of min(max(X, lo), hi): atoms lo..hi, the tails piled on the two ends.

        A post-processing of X, so divergences between clamped laws never exceed the true ones,
        and they equal them once [lo, hi] contains the atoms where the true sup is reached."""
        lo, hi = check_int(lo, "lo"), check_int(hi, "hi")
        if hi < lo:
            raise ValueError(f"hi must be >= lo, got lo = {lo}, hi = {hi}")
        if lo == hi:
            return DiscreteLaw([lo], [0])
        with workdps():
            logs = [mpmath.log(self.cdf_mp(lo))]
            logs += [self.logpmf_mp(k) for k in range(lo + 1, hi)]
            logs.append(mpmath.log(self.sf_mp(hi - 1)))
        return DiscreteLaw(list(range(lo, hi + 1)), logs)

    def probabilities_within(self, radius: int) -> dict[int, float]:
        """{k: P(X = k)} for |k − loc| <= radius, as floats (for ``atom_test``; the rest of the
        mass, :meth:`tail_mass_mp`, is its category "other")."""
        radius = check_int(radius, "radius", minimum=0)
        return {k: float(self.pmf_mp(k)) for k in range(self.loc - radius, self.loc + radius + 1)}

    # -- float path -----------------------------------------------------------------------------

    def logpmf(self, k: Any) -> np.ndarray:
        """Float log P(X = k), vectorised; -inf at non-integers."""
        k = np.asarray(k, dtype=float)
        value = float(self._log_norm) - np.abs(k - self.loc) / self.scale
        return np.where(k == np.floor(k), value, -np.inf)

    def cdf(self, y: Any) -> np.ndarray:
        """Float P(X <= y) for real y, vectorised (from the closed forms of :meth:`cdf_mp`)."""
        with np.errstate(invalid="ignore"):
            k = np.floor(np.asarray(y, dtype=float)) - self.loc
        log1pq = float(self._log1pq)
        with np.errstate(over="ignore", invalid="ignore"):
            left = np.exp(np.minimum(k, 0.0) / self.scale - log1pq)
            right = -np.expm1(-(np.maximum(k, 0.0) + 1) / self.scale - log1pq)
        return np.where(k < 0, left, right)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws by :func:`sample_discrete_laplace` (int64), shifted by ``loc``."""
        return self.loc + sample_discrete_laplace(self.scale, size, rng)


# --------------------------------------------------------------------------------------------
# Discrete Laplace: fast sampler
# --------------------------------------------------------------------------------------------


def sample_discrete_laplace(scale: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` discrete Laplace(scale) draws as int64, vectorised: G1 − G2 with G1, G2 iid
    geometric of success probability p = 1 − e^{−1/t}.

    P(G = g) = p(1 − p)^{g−1} on g >= 1; for k >= 0, P(G1 − G2 = k) = Σ_g P(G2 = g)P(G1 = g + k)
    = p²q^k Σ_g q^{2(g−1)} = p q^k/(1 + q) = (1 − q)/(1 + q)·q^k, q = 1 − p = e^{−1/t}, and the law
    is symmetric. The float p is the only rounding: use :func:`sample_discrete_laplace_exact`
    where that matters."""
    scale = check_positive(scale, "scale")
    size, rng = check_size(size), check_rng(rng)
    p = -math.expm1(-1.0 / scale)
    return rng.geometric(p, size).astype(np.int64) - rng.geometric(p, size).astype(np.int64)


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
    (:func:`_discrete_laplace_vectorised`); otherwise one Python loop per draw. Returns int64
    (object dtype if a draw does not fit in int64).
    """
    t = _check_rational(scale, "scale", positive=True)
    size, rng = check_size(size), check_rng(rng)
    if t.numerator <= _VECTOR_BOUND and t.denominator <= _VECTOR_BOUND:
        return _discrete_laplace_vectorised(t.numerator, t.denominator, size, rng)
    draws = [_discrete_laplace_once(t.numerator, t.denominator, rng) for _ in range(size)]
    try:
        return np.array(draws, dtype=np.int64)
    except OverflowError:
        return np.array(draws, dtype=object)


__all__ = [
    "DiscreteLaplaceLaw",
    "bernoulli_exp_neg",
    "laplace_law",
    "sample_discrete_laplace",
    "sample_discrete_laplace_exact",
    "sample_laplace",
]
