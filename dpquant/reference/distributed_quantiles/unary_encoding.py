"""Unary-encoding frequency oracles: the local randomizer of the Hierarchical Mechanism (App. D).

A user holding item v in a domain of size d writes the one-hot vector e_v and perturbs every bit
independently: the 1-bit is reported as 1 with probability p, each 0-bit with probability q. Two
variants (Wang et al. 2017):

* **OUE** (optimized unary encoding; the authors' code for App. I, pure-LDP
  ``UEClient(use_oue=True)``): p = 1/2, q = 1/(e^ε + 1);
* **SUE** (symmetric unary encoding, App. D's "randomized response on each bit"): per-bit RR at ε/2,
  p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p. App. D does not say ε/2; at full ε per bit the vector
  would only be 2ε-LDP (``notes/aamand25.md`` erratum 8).

Two items u ≠ v change exactly the bits u and v, so the privacy loss is
ln(p(1 − q)/(q(1 − p))), which is exactly ε for both variants.

The server's unbiased frequency estimate from the aggregated counts is (count_v − n·q)/((p − q)·n)
(Wang et al. 2017). Exact laws and samplers sit side by side: the count of coordinate v over a
population with c_v holders of v is Binomial(c_v, p) + Binomial(n − c_v, q), independently over v
(every bit of every user is perturbed independently), which :func:`ue_counts` samples directly
without drawing the n × d bit matrix of :func:`ue_reports`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from scipy import special

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.users import MAX_B, UserValueRandomizer, check_integers
from dpquant.reference.distributions import DiscreteLaw, ProductLaw
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_epsilon,
    check_flag,
    check_int,
    check_probability,
    check_rng,
    check_size,
)

VARIANTS = ("oue", "sue")

MAX_ITEMS = 10**6
"""The largest item domain d of :class:`UnaryEncoding` and :func:`ue_reports` (a report is d
bits)."""

CELL_BUDGET = 10**7
"""The most report bits one :func:`ue_reports` call (or ``UnaryEncoding.sample``) draws."""

MAX_COUNT_LAW_USERS = 500
"""The largest n of :func:`ue_count_law` (an O(n²) convolution at 60 digits)."""

MAX_BINOMIAL_TRIALS = MAX_DRAWS
"""The largest number of trials of :func:`iid_binomial` (it tabulates the pmf on 0..trials)."""


def check_variant(variant: Any, name: str = "variant") -> str:
    """The frequency-oracle variant: exactly "oue" (the authors' code) or "sue" (App. D, ε/2 per
    bit)."""
    return check_choice(variant, name, VARIANTS)


def ue_probabilities(epsilon: float, variant: str = "oue") -> tuple[float, float]:
    """(p, q) = P(report 1 | true bit 1), P(report 1 | true bit 0) (Wang et al. 2017).

    OUE: p = 1/2, q = 1/(e^ε + 1). SUE: p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p (App. D's RR on
    each bit, at ε/2 per bit).
    """
    epsilon, variant = check_epsilon(epsilon), check_variant(variant)
    if variant == "oue":
        return 0.5, _expit(-epsilon)
    return _expit(epsilon / 2.0), _expit(-epsilon / 2.0)


def _expit(x: float) -> float:
    """1/(1 + e^{−x}) without overflow for any finite x."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _signal(epsilon: float, variant: str) -> float:
    """p − q without cancellation: tanh(ε/2)/2 (OUE) or tanh(ε/4) (SUE); refuses the ε at which
    it is too small for the estimate (count − n·q)/((p − q)·n) to be finite."""
    gap = math.tanh(epsilon / 2.0) / 2.0 if variant == "oue" else math.tanh(epsilon / 4.0)
    if not gap > 1e-300:
        raise ParameterError(
            "epsilon",
            f"must be >= 1e-299 for the unary-encoding estimate (p - q = {gap:.3g} makes it "
            "overflow)",
            repr(epsilon),
        )
    return gap


def ue_probabilities_mp(epsilon: float, variant: str = "oue") -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, q) of :func:`ue_probabilities` at the working precision (>= 60 digits)."""
    epsilon, variant = check_epsilon(epsilon), check_variant(variant)
    with workdps():
        eps = to_mpf(epsilon)
        if variant == "oue":
            return mpmath.mpf(1) / 2, 1 / (mpmath.exp(eps) + 1)
        return 1 / (1 + mpmath.exp(-eps / 2)), 1 / (1 + mpmath.exp(eps / 2))


def _check_items(items: Any, d: int, name: str = "items") -> np.ndarray:
    """A 1-D sequence of integer items in {1, ..., d} (may be empty), as int64."""
    return check_integers(items, name, minimum=1, maximum=d, allow_empty=True)


def _check_counts(counts: Any, name: str = "item_counts") -> np.ndarray:
    """A non-empty 1-D sequence of non-negative integer counts summing to at most 2^62, as
    int64 (the data policy of :func:`check_integers`)."""
    arr = check_integers(counts, name, minimum=0, maximum=MAX_B)
    if float(arr.sum(dtype=np.float64)) > MAX_B:
        raise ParameterError(name, f"must sum to at most {MAX_B}")
    return arr


def ue_reports(
    items: Any, d: int, epsilon: float, rng: np.random.Generator, variant: str = "oue"
) -> np.ndarray:
    """Per-user perturbed one-hot vectors, shape (n, d) int8 (unary encoding, Wang et al. 2017).

    Bit v of the user holding item u is 1 w.p. p if v = u and q otherwise, all independent. Meant
    for small d (it draws n·d uniforms); :func:`ue_counts` gives the column sums directly.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_ITEMS)
    x = _check_items(items, d)
    p, q = ue_probabilities(epsilon, variant)
    rng = check_rng(rng)
    if x.size * d > CELL_BUDGET:
        raise ValueError(
            f"items: {x.size} users of d = {d} bits exceed the {CELL_BUDGET} report bits one call "
            "draws; use ue_counts for the aggregated counts, or fewer users per call"
        )
    prob = np.full((x.size, d), q)
    prob[np.arange(x.size), x - 1] = p
    return (rng.random((x.size, d)) < prob).astype(np.int8)


def ue_counts(
    item_counts: Any, epsilon: float, rng: np.random.Generator, variant: str = "oue"
) -> np.ndarray:
    """Aggregated report counts of a population with ``item_counts[v]`` holders of item v + 1.

    Exactly in law the column sums of :func:`ue_reports`: coordinate v is
    Binomial(c_v, p) + Binomial(n − c_v, q), independently over v (n = Σ c_v). Vectorised: two
    binomial draws per coordinate, never a loop over users.
    """
    c = _check_counts(item_counts)
    if c.size > MAX_DRAWS:
        raise ParameterError("item_counts", f"must hold at most {MAX_DRAWS} items", c.size)
    p, q = ue_probabilities(epsilon, variant)
    rng = check_rng(rng)
    n = int(c.sum())
    out = np.zeros(c.size, dtype=np.int64)
    held = np.flatnonzero(c)
    out[held] = rng.binomial(c[held], p)  # the holders' 1-bits (sparse when n << d)
    empty = c == 0
    n_empty = int(empty.sum())
    if n_empty > 4 * (n + 1):  # many i.i.d. Binomial(n, q) coordinates: draw them in bulk
        out[empty] = iid_binomial(n, q, n_empty, rng)
        out[held] += rng.binomial(n - c[held], q)
    else:
        out += rng.binomial(n - c, q)
    return out


def iid_binomial(trials: int, prob: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` i.i.d. Binomial(trials, prob) draws in O(trials + size) time.

    The value counts of i.i.d. draws are Multinomial(size, pmf), and given the counts every
    arrangement is equally likely: so a multinomial draw, a repeat and a shuffle give the exact
    joint law (up to the double rounding of the pmf, as for numpy's own samplers).
    """
    trials = check_int(trials, "trials", minimum=0, maximum=MAX_BINOMIAL_TRIALS)
    prob = check_probability(prob, "prob")
    size = check_size(size)
    rng = check_rng(rng)
    k = np.arange(trials + 1)
    log_pmf = (
        special.gammaln(trials + 1)
        - special.gammaln(k + 1)
        - special.gammaln(trials - k + 1)
        + special.xlogy(k, prob)
        + special.xlog1py(trials - k, -prob)
    )
    pmf = np.exp(log_pmf - log_pmf.max())
    counts = rng.multinomial(size, pmf / pmf.sum())
    values = np.repeat(np.arange(trials + 1, dtype=np.int64), counts)
    rng.shuffle(values)
    return values


def ue_estimate(report_counts: Any, n: int, epsilon: float, variant: str = "oue") -> np.ndarray:
    """Unbiased frequency estimates (count_v − n·q)/((p − q)·n) from n users' reports (App. D).

    E[count_v] = c_v·p + (n − c_v)·q, so the estimate has expectation c_v/n exactly.
    """
    counts = _check_counts(report_counts, "report_counts")
    n = check_int(n, "n", minimum=1, maximum=MAX_B)
    if counts.max() > n:
        raise ParameterError("report_counts", f"must lie in [0, n = {n}]", int(counts.max()))
    p, q = ue_probabilities(epsilon, variant)
    gap = _signal(float(epsilon), variant)
    return (counts - n * q) / (gap * n)


def _binomial_pmf_mp(trials: int, prob: mpmath.mpf) -> list[mpmath.mpf]:
    """Exact Binomial(trials, prob) pmf at the working precision."""
    return [
        mpmath.binomial(trials, i) * prob**i * (1 - prob) ** (trials - i) for i in range(trials + 1)
    ]


def ue_count_law(item_count: int, n: int, epsilon: float, variant: str = "oue") -> DiscreteLaw:
    """Exact law of one coordinate's report count: Binomial(c, p) ∗ Binomial(n − c, q).

    ``item_count`` = c holders of the coordinate's item among ``n`` users (0 <= c <= n); the
    convolution is computed at 60 digits (O(c·(n − c)); meant for n up to a few hundred).
    """
    n = check_int(n, "n", minimum=0, maximum=MAX_COUNT_LAW_USERS)
    c = check_int(item_count, "item_count", minimum=0)
    if c > n:
        raise ParameterError("item_count", f"must lie in [0, n = {n}]", c)
    p, q = ue_probabilities_mp(epsilon, variant)
    with workdps():
        ones, zeros = _binomial_pmf_mp(c, p), _binomial_pmf_mp(n - c, q)
        pmf = [mpmath.mpf(0)] * (n + 1)
        for i, a in enumerate(ones):
            for j, b in enumerate(zeros):
                pmf[i + j] += a * b
        return DiscreteLaw.from_probabilities(list(range(n + 1)), pmf)


def ue_bit_law(is_item: bool, epsilon: float, variant: str = "oue") -> DiscreteLaw:
    """Exact law of one reported bit: Bernoulli(p) on the user's item, else Bernoulli(q)."""
    is_item = check_flag(is_item, "is_item")
    p, q = ue_probabilities_mp(epsilon, variant)
    one = p if is_item else q
    with workdps():
        return DiscreteLaw.from_probabilities([0, 1], [1 - one, one])


@dataclass(frozen=True)
class UnaryEncoding(UserValueRandomizer):
    """One user's unary-encoding report as a local-DP :class:`dpquant.reference.core.Mechanism`.

    ``data`` is the user's item in {1, ..., d} (d <= :data:`MAX_ITEMS`); ``sample`` returns
    (size, d) int8 bit vectors (at most :data:`CELL_BUDGET` bits per call) and ``exact(item)`` is
    the product of the d independent Bernoulli bits. The claim is ε-LDP: the exact loss between
    any two distinct items is ln(p(1 − q)/(q(1 − p))) = ε.
    """

    d: int
    epsilon: float
    variant: str = "oue"

    value_name = "one item"

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", check_int(self.d, "d", minimum=2, maximum=MAX_ITEMS))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "variant", check_variant(self.variant))

    @property
    def value_count(self) -> int:
        """d, the number of items (the auditor probes every one)."""
        return self.d

    def draw_limit(self, data: int) -> int:
        return max(1, CELL_BUDGET // self.d)

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return ue_reports(
            np.full(size, data, dtype=np.int64), self.d, self.epsilon, rng, self.variant
        )

    def _law(self, data: int) -> ProductLaw:
        own = ue_bit_law(True, self.epsilon, self.variant)
        other = ue_bit_law(False, self.epsilon, self.variant)
        return ProductLaw(tuple(own if v == data else other for v in range(1, self.d + 1)))


__all__ = [
    "VARIANTS",
    "UnaryEncoding",
    "check_variant",
    "iid_binomial",
    "ue_bit_law",
    "ue_count_law",
    "ue_counts",
    "ue_estimate",
    "ue_probabilities",
    "ue_probabilities_mp",
    "ue_reports",
]
