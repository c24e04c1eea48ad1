"""Unary-encoding frequency oracles: the local randomizer of the Hierarchical Mechanism (App. D).

A user holding item v in a domain of size d writes the one-hot vector e_v and perturbs every bit
independently: the 1-bit is reported as 1 with probability p, each 0-bit with probability q. Two
variants (Wang et al. 2017):

* **OUE** (optimized unary encoding; the authors' code, pure-LDP ``UEClient(use_oue=True)``, spec
  §3.8): p = 1/2, q = 1/(e^ε + 1);
* **SUE** (symmetric unary encoding, App. D's "randomized response on each bit"): per-bit RR at ε/2,
  p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p. App. D does not say ε/2; at full ε per bit the vector
  would only be 2ε-LDP (spec §6.13).

Two items u ≠ v change exactly the bits u and v, so the privacy loss is
ln(p(1 − q)/(q(1 − p))), which is exactly ε for both variants (spec §3.10).

The server's unbiased frequency estimate from the aggregated counts is
(count_v − n·q)/((p − q)·n) (spec §3.8). Exact laws and samplers sit side by side: the count of
coordinate v over a population with c_v holders of v is Binomial(c_v, p) + Binomial(n − c_v, q),
independently over v (every bit of every user is perturbed independently), which
:func:`ue_counts` samples directly without drawing the n × d bit matrix of :func:`ue_reports`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from scipy import special

from reference.core import PrivacyClaim
from reference.distributed_quantiles.users import check_user_value
from reference.distributions import DiscreteLaw, ProductLaw
from reference.exact.mp import to_mpf, workdps
from reference.validation import check_epsilon, check_int, check_rng, check_size

VARIANTS = ("oue", "sue")


def check_variant(variant: Any, name: str = "variant") -> str:
    """The frequency-oracle variant: "oue" (the authors' code) or "sue" (App. D, ε/2 per bit)."""
    if not isinstance(variant, str) or variant.lower() not in VARIANTS:
        raise ValueError(f"{name} must be one of {VARIANTS}, got {variant!r}")
    return variant.lower()


def ue_probabilities(epsilon: float, variant: str = "oue") -> tuple[float, float]:
    """(p, q) = P(report 1 | true bit 1), P(report 1 | true bit 0) (Wang et al. 2017; spec §3.8).

    OUE: p = 1/2, q = 1/(e^ε + 1). SUE: p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p (spec §6.13).
    """
    epsilon, variant = check_epsilon(epsilon), check_variant(variant)
    if variant == "oue":
        return 0.5, float(1.0 / (1.0 + np.exp(epsilon)))
    p = float(1.0 / (1.0 + np.exp(-epsilon / 2.0)))
    return p, float(1.0 / (1.0 + np.exp(epsilon / 2.0)))


def ue_probabilities_mp(epsilon: float, variant: str = "oue") -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p, q) of :func:`ue_probabilities` at the working precision (>= 60 digits)."""
    epsilon, variant = check_epsilon(epsilon), check_variant(variant)
    with workdps():
        eps = to_mpf(epsilon)
        if variant == "oue":
            return mpmath.mpf(1) / 2, 1 / (mpmath.exp(eps) + 1)
        return 1 / (1 + mpmath.exp(-eps / 2)), 1 / (1 + mpmath.exp(eps / 2))


def _check_items(items: Any, d: int, name: str = "items") -> np.ndarray:
    """A 1-D array of integer items in {1, ..., d} (may be empty)."""
    raw = np.asarray(items)
    if (
        raw.dtype == bool
        or raw.ndim != 1
        or (raw.size and not np.issubdtype(raw.dtype, np.integer))
    ):
        raise ValueError(f"{name} must be a 1-D array of integers in [1, {d}]")
    arr = raw.astype(np.int64)
    if arr.size and (arr.min() < 1 or arr.max() > d):
        raise ValueError(
            f"{name} must lie in [1, {d}], got values in [{int(arr.min())}, {int(arr.max())}]"
        )
    return arr


def _check_counts(counts: Any, name: str = "item_counts") -> np.ndarray:
    """A non-empty 1-D array of non-negative integer counts, returned as int64."""
    raw = np.asarray(counts)
    if raw.dtype == bool or raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of non-negative integers")
    if not np.issubdtype(raw.dtype, np.integer):
        raise ValueError(f"{name} must be a non-empty 1-D array of non-negative integers")
    arr = raw.astype(np.int64)
    if arr.min() < 0:
        raise ValueError(f"{name} must be non-negative, got a minimum of {int(arr.min())}")
    return arr


def ue_reports(
    items: Any, d: int, epsilon: float, rng: np.random.Generator, variant: str = "oue"
) -> np.ndarray:
    """Per-user perturbed one-hot vectors, shape (n, d) int8 (unary encoding, Wang et al. 2017).

    Bit v of the user holding item u is 1 w.p. p if v = u and q otherwise, all independent. Meant
    for small d (it draws n·d uniforms); :func:`ue_counts` gives the column sums directly.
    """
    d = check_int(d, "d", minimum=1)
    x = _check_items(items, d)
    p, q = ue_probabilities(epsilon, variant)
    rng = check_rng(rng)
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
    trials, size = check_int(trials, "trials", minimum=0), check_size(size)
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
    """Unbiased frequency estimates (count_v − n·q)/((p − q)·n) from n users' reports (spec §3.8).

    E[count_v] = c_v·p + (n − c_v)·q, so the estimate has expectation c_v/n exactly.
    """
    counts = _check_counts(report_counts, "report_counts")
    n = check_int(n, "n", minimum=1)
    if counts.max() > n:
        raise ValueError(f"report_counts must lie in [0, n = {n}], got {int(counts.max())}")
    p, q = ue_probabilities(epsilon, variant)
    return (counts - n * q) / ((p - q) * n)


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
    n = check_int(n, "n", minimum=0)
    c = check_int(item_count, "item_count", minimum=0)
    if c > n:
        raise ValueError(f"item_count must lie in [0, n = {n}], got {c}")
    p, q = ue_probabilities_mp(epsilon, variant)
    with workdps():
        ones, zeros = _binomial_pmf_mp(c, p), _binomial_pmf_mp(n - c, q)
        pmf = [mpmath.mpf(0)] * (n + 1)
        for i, a in enumerate(ones):
            for j, b in enumerate(zeros):
                pmf[i + j] += a * b
        return DiscreteLaw.from_probabilities(list(range(n + 1)), pmf)


def ue_bit_law(is_item: bool, epsilon: float, variant: str = "oue") -> DiscreteLaw:
    """Exact law on {0, 1} of one reported bit: Bernoulli(p) on the user's item, else Bernoulli(q)."""
    p, q = ue_probabilities_mp(epsilon, variant)
    one = p if is_item else q
    with workdps():
        return DiscreteLaw.from_probabilities([0, 1], [1 - one, one])


@dataclass(frozen=True)
class UnaryEncoding:
    """One user's unary-encoding report as a local-DP :class:`reference.core.Mechanism`.

    ``data`` is the user's item in {1, ..., d}; ``sample`` returns (size, d) int8 bit vectors and
    ``exact(item)`` is the product of the d independent Bernoulli bits. The claim is ε-LDP: the
    exact loss between any two distinct items is ln(p(1 − q)/(q(1 − p))) = ε.
    """

    d: int
    epsilon: float
    variant: str = "oue"

    def __post_init__(self) -> None:
        check_int(self.d, "d", minimum=2)
        check_epsilon(self.epsilon)
        object.__setattr__(self, "variant", check_variant(self.variant))

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "local")

    @property
    def domain(self) -> tuple[float, float]:
        return (1.0, float(self.d))

    @property
    def input_values(self) -> tuple[float, ...]:
        """Every item (the auditor probes exactly these)."""
        return tuple(float(v) for v in range(1, self.d + 1))

    def _item(self, data: Any) -> int:
        return check_user_value(data, self.d, "one item")

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        item = self._item(data)
        size = check_size(size)
        return ue_reports(np.full(size, item), self.d, self.epsilon, rng, self.variant)

    def exact(self, data: Any) -> ProductLaw:
        item = self._item(data)
        return ProductLaw(
            tuple(ue_bit_law(v == item, self.epsilon, self.variant) for v in range(1, self.d + 1))
        )


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
