"""RAPPOR and one-time RAPPOR (Erlingsson, Pihur, Korolova, "RAPPOR: randomized aggregatable
privacy-preserving ordinal response", CCS 2014, Sec. 3), as DP-Sniper audits them (Bichsel et al.,
IEEE S&P 2021): one report of one integer value v ∈ [−10, 10].

1. **Bloom filter** B(v): ``bits`` = 20 bits, the bits h_i(v) mod 20 set for ``hashes`` = 4 hash
   functions. DP-Sniper hashes with MurmurHash3 (seed i); this module uses its own deterministic
   hash instead, BLAKE2b of the decimal text of v with a personalisation string per hash
   (:func:`bloom_bits`), so which bits collide differs from DP-Sniper's.
2. **Permanent randomized response** (PRR): each bit becomes 1 with probability f/2, 0 with
   probability f/2, and keeps B_i with probability 1 − f. One-time RAPPOR stops here.
3. **Instantaneous randomized response** (IRR, RAPPOR only): report 1 with probability q = 0.55 if
   the PRR bit is 1, with probability p = 0.45 if it is 0.

The PRR is drawn afresh for every report, so each draw is one independent report (as DP-Sniper
samples it). Output: ``size`` reports as a float array of 0.0/1.0 of shape (size, bits).

**Privacy.** RAPPOR's guarantee for the PRR is ε∞ = 2h·ln((1 − f/2)/(f/2)) (Erlingsson et al.,
Sec. 4): two values' filters differ in at most 2h bits, each changing the report's probability by
at most (1 − f/2)/(f/2). The IRR is post-processing, so RAPPOR is ε∞-DP too. Here the claim is
the parameter: :func:`flip_probability` picks f so that ε∞ equals the claimed ε, which makes both
mechanisms correct. Neighbours are values at distance at most 1 (DP-Sniper's pairs (1, 0) and
(1, 2); :class:`dpquant.audit.model.relations.QueryAnswers` with k = 1). The exact guarantee is smaller when the
filters of neighbouring values share bits: the report's bits are independent, so the largest
log-ratio of two values' report probabilities is the sum, over the bits in which their filters
differ, of that bit's largest log-ratio (:meth:`Rappor.pair_epsilon`).

DP-Sniper runs RAPPOR with f = 0.75 and one-time RAPPOR with f = 0.95 (ε∞ = 4.087 and 0.8007 with
h = 4); it states no ε for them.

The helpers check their arguments like the mechanism does (issue 34): a value that is not an
integer (``nan``, ``1.5``, ``"1"``) is refused, never rounded or hashed as text, and ``f``,
``hashes`` and ``bits`` are checked before any arithmetic (h = 0 divided by zero).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from dpquant.audit.suites.classic.inputs import MAX_WIDTH, check_draws, check_integer_input
from dpquant.reference.validation import check_epsilon, check_flag, check_int, check_probability

BITS = 20
HASHES = 4
VALUES = (-10, 10)
"""The range of the reported value (DP-Sniper's input domain)."""
IRR_P = 0.45
IRR_Q = 0.55
DPSNIPER_F = {"Rappor": 0.75, "OneTimeRappor": 0.95}
MAX_EPSILON = 1_000.0
"""Largest claim: f = 2/(1 + e^{ε/2h}) must stay a usable positive double."""
MAX_HASHES = 64
MAX_BITS = MAX_WIDTH
MAX_VALUE = 2**63 - 1
"""Largest magnitude of a value hashed into a Bloom filter."""


def _check_filter(hashes: Any, bits: Any) -> tuple[int, int]:
    return (
        check_int(hashes, "hashes", minimum=1, maximum=MAX_HASHES),
        check_int(bits, "bits", minimum=1, maximum=MAX_BITS),
    )


@lru_cache(maxsize=4096)
def _bloom_bits(value: int, hashes: int, bits: int) -> tuple[int, ...]:
    out = set()
    for i in range(hashes):
        digest = hashlib.blake2b(
            str(value).encode(), digest_size=8, person=f"rappor-hash-{i}".encode()
        ).digest()
        out.add(int.from_bytes(digest, "little") % bits)
    return tuple(sorted(out))


def bloom_bits(value: Any, hashes: Any = HASHES, bits: Any = BITS) -> tuple[int, ...]:
    """The bits set in the Bloom filter of the integer ``value``: BLAKE2b (8-byte digest) of its
    decimal text, personalised by the hash's number, modulo ``bits``; sorted, collisions merged."""
    value = check_int(value, "value", minimum=-MAX_VALUE, maximum=MAX_VALUE)
    return _bloom_bits(value, *_check_filter(hashes, bits))


def bloom_filter(value: Any, hashes: Any = HASHES, bits: Any = BITS) -> np.ndarray:
    """The Bloom filter of ``value`` as a 0.0/1.0 vector of length ``bits``."""
    set_bits = bloom_bits(value, hashes, bits)
    out = np.zeros(check_int(bits, "bits", minimum=1, maximum=MAX_BITS))
    out[list(set_bits)] = 1.0
    return out


def rappor_epsilon(f: Any, hashes: Any = HASHES) -> float:
    """RAPPOR's ε∞ = 2h·ln((1 − f/2)/(f/2)) for 0 < f <= 1 (f = 1: every bit a fair coin, and
    :func:`flip_probability` of an ε below 1e-16 rounds to it); below f ≈ 1e-308, where the
    quotient overflows, as 2h·(ln(1 − f/2) − ln f + ln 2)."""
    f = check_probability(f, "f", open_left=True)
    hashes = check_int(hashes, "hashes", minimum=1, maximum=MAX_HASHES)
    half = f / 2
    ratio = (1 - half) / half if half > 0 else math.inf
    if math.isinf(ratio):
        return 2 * hashes * (math.log1p(-half) - math.log(f) + math.log(2.0))
    return 2 * hashes * math.log(ratio)


def flip_probability(epsilon: Any, hashes: Any = HASHES) -> float:
    """The f with ε∞ = ``epsilon``: f = 2/(1 + e^{ε/2h})."""
    hashes = check_int(hashes, "hashes", minimum=1, maximum=MAX_HASHES)
    eps = check_epsilon(epsilon)
    if eps > MAX_EPSILON:
        raise ValueError(f"epsilon must be at most {MAX_EPSILON:g} for RAPPOR, got {eps!r}")
    return 2.0 / (1.0 + math.exp(eps / (2 * hashes)))


@dataclass(frozen=True)
class Rappor:
    """One RAPPOR report (``instantaneous=True``: PRR then IRR) or one-time RAPPOR (PRR only) of
    an integer in [−10, 10], with f chosen so that ε∞ = ``epsilon`` (module docstring)."""

    epsilon: float
    instantaneous: bool = True
    p: float = IRR_P
    q: float = IRR_Q
    hashes: int = HASHES
    bits: int = BITS

    def __post_init__(self) -> None:
        hashes, bits = _check_filter(self.hashes, self.bits)
        object.__setattr__(self, "hashes", hashes)
        object.__setattr__(self, "bits", bits)
        flip_probability(self.epsilon, self.hashes)
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "instantaneous", check_flag(self.instantaneous, "instantaneous"))
        for name in ("p", "q"):
            value = check_probability(getattr(self, name), name, open_left=True, open_right=True)
            object.__setattr__(self, name, value)

    @property
    def f(self) -> float:
        """The PRR's flip probability, 2/(1 + e^{ε/2h})."""
        return flip_probability(self.epsilon, self.hashes)

    def one_probabilities(self) -> tuple[float, float]:
        """P(reported bit = 1) when the filter's bit is 1 and when it is 0."""
        half = self.f / 2
        if not self.instantaneous:
            return 1 - half, half
        return (1 - half) * self.q + half * self.p, half * self.q + (1 - half) * self.p

    def pair_epsilon(self, v: int, w: int) -> float:
        """The largest log-ratio P(report | v)/P(report | w) over reports (module docstring)."""
        if self.instantaneous:
            a, b = self.one_probabilities()
            up = max(math.log(a / b), math.log((1 - a) / (1 - b)))  # a bit set for v only
            down = max(math.log(b / a), math.log((1 - b) / (1 - a)))  # a bit set for w only
        else:  # ln((1 - f/2)/(f/2)) = ε/2h by the choice of f, either way round
            up = down = self.epsilon / (2 * self.hashes)
        bv = set(bloom_bits(v, self.hashes, self.bits))
        bw = set(bloom_bits(w, self.hashes, self.bits))
        return len(bv - bw) * up + len(bw - bv) * down

    def true_epsilon(self) -> float:
        """The exact guarantee under neighbours |v − w| <= 1 in [−10, 10]: the largest
        :meth:`pair_epsilon` over ordered neighbouring pairs (at most ε∞ = the claim)."""
        lo, hi = VALUES
        return max(
            max(self.pair_epsilon(v, v + 1), self.pair_epsilon(v + 1, v)) for v in range(lo, hi)
        )

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        value = check_integer_input(q, *VALUES)
        size, rng = check_draws(size, rng, self.bits)
        bloom = bloom_filter(value, self.hashes, self.bits)
        u = rng.random((size, self.bits))
        half = self.f / 2
        prr = np.where(u < half, 1.0, np.where(u < 2 * half, 0.0, bloom))
        if not self.instantaneous:
            return prr
        chance = np.where(prr == 1.0, self.q, self.p)
        return (rng.random((size, self.bits)) < chance).astype(float)


__all__ = [
    "BITS",
    "DPSNIPER_F",
    "HASHES",
    "IRR_P",
    "IRR_Q",
    "MAX_BITS",
    "MAX_EPSILON",
    "MAX_HASHES",
    "MAX_VALUE",
    "VALUES",
    "Rappor",
    "bloom_bits",
    "bloom_filter",
    "flip_probability",
    "rappor_epsilon",
]
