"""The exact discrete Laplace sampler on rationals: :func:`sample_discrete_laplace_exact`, built on
the exact Bernoulli(exp(−γ)) draw :func:`bernoulli_exp_neg`; no floating point at all.

It follows Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy"
(NeurIPS 2020, arXiv:2004.00010), Algorithm 1 (Bernoulli(exp(−γ))) and Algorithm 2 (discrete
Laplace), written from the algorithms and their proofs, each step derived in a comment. The law it
draws is that of :class:`~dpquant.reference.primitives.discrete_laplace.DiscreteLaplaceLaw`.

Decision: the scale must be an ``int`` or a ``Fraction``; a float raises ``ValueError``.
``Fraction(0.1)`` is 3602879701896397/36028797018963968, not 1/10, so silently converting a float
would sample a law the caller almost certainly did not mean, with huge denominators; whoever wants
that law can pass ``Fraction(x)`` explicitly (``notes/foundation.md``, "Laplace and discrete
Laplace").

Limits (refused with a ``ValueError`` naming the parameter and the range; issue 18): any rational
whose numerator and denominator are below 2^4096; the one-draw-at-a-time path (a numerator or
denominator above 2^31) draws at most :data:`MAX_SCALAR_EXACT_DRAWS` a call.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_rng, check_size

# numpy's bounded integer generator is exact (unbiased) for bounds below 2**63; larger bounds use
# rejection on raw random bytes.
_NUMPY_INT_BOUND = 2**62

MAX_SCALAR_EXACT_DRAWS = 100_000
"""Most draws of one :func:`sample_discrete_laplace_exact` call when the scale's numerator or
denominator exceeds 2^31 (one Python loop per draw, about 20 µs each)."""

_MAX_RATIONAL_BITS = 4096  # bit length of the exact sampler's numerator and denominator


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
        raise ParameterError(name, f"must be an int or a Fraction {bound}", f"{x!r}{hint}")
    value = Fraction(int(x)) if isinstance(x, np.integer) else Fraction(x)
    if value < 0 or (positive and value == 0):
        raise ParameterError(name, f"must be an int or a Fraction {bound}", value)
    return value


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
        raise ParameterError(
            "gamma",
            f"must have a numerator and a denominator below 2^{_MAX_RATIONAL_BITS}",
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
        raise ParameterError(
            "scale",
            f"must have a numerator and a denominator below 2^{_MAX_RATIONAL_BITS}",
            f"one of {bits} bits",
        )
    size, rng = check_size(size), check_rng(rng)
    if t.numerator <= _VECTOR_BOUND and t.denominator <= _VECTOR_BOUND:
        return _discrete_laplace_vectorised(t.numerator, t.denominator, size, rng)
    cap = MAX_SCALAR_EXACT_DRAWS if bits <= 64 else MAX_SCALAR_EXACT_DRAWS // 10
    if size > cap:
        raise ParameterError(
            "size",
            f"must be at most {cap} when the scale's numerator or denominator exceeds 2^31 (one "
            "exact draw at a time)",
            f"{size}: draw in several calls",
        )
    draws = [_discrete_laplace_once(t.numerator, t.denominator, rng) for _ in range(size)]
    try:
        return np.array(draws, dtype=np.int64)
    except OverflowError:
        return np.array(draws, dtype=object)


__all__ = ["MAX_SCALAR_EXACT_DRAWS", "bernoulli_exp_neg", "sample_discrete_laplace_exact"]
