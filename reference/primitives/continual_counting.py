"""Binary-tree (Fenwick) continual counting: imola25 Lemma 3.1 and Appendix A (spec §2.1, §6.2).

CC_ε releases all m prefix ranks r_1..r_m at once with additive tree noise. Node i (1 <= i <= m)
of the Fenwick tree covers the leaves (i − lowbit(i), i], lowbit(i) = i & −i; every node carries an
independent noise η_i, and coordinate i receives N_i = N_{i − lowbit(i)} + η_i (N_0 = 0), the sum
of the at most T = ⌈log₂(m + 1)⌉ = m.bit_length() nodes of the dyadic decomposition of [0, i).

* ``noise="discrete"`` (the paper's experiments): η_i ~ DLap(T/ε), P(k) = (1 − p)/(1 + p)·p^{|k|},
  p = e^{−ε/T}; r̃ = r + N, no rounding.
* ``noise="laplace"`` (Lemma 3.1's proof): η_i ~ Lap(T/ε) and r̃_i = ⌊r_i + N_i + ½⌋ (round half up,
  not numpy's half-to-even, spec §5.16).

Exact law. η = W⁻¹N with (W⁻¹N)_i = N_i − N_{i−lowbit(i)}, a unimodular map, so the discrete noise
has the closed-form pmf P(N = v) = Π_i (1 − p)/(1 + p)·p^{|v_i − v_{i−lowbit(i)}|} (spec §6.2) and
the Laplace noise the density Π_i (ε/2T)·e^{−(ε/T)|v_i − v_{i−lowbit(i)}|}.

Privacy for contiguous shifts (Eq. 1). The shift e^{(s)} (e_i = 1[i >= s]) is W c with
c_i = 1[i − lowbit(i) < s <= i]: exactly the nodes whose leaf range contains leaf s. Hence the
exact privacy loss of the pair (r, r + e^{(s)}) is (ε/T)·c(s), c(s) = ‖c‖₁ <= T
(:func:`shift_node_count`), which is Lemma 3.1 (1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from reference.exact.mp import to_mpf, workdps
from reference.validation import check_epsilon, check_int, check_positive, check_rng, check_size

NOISES = ("discrete", "laplace")


def tree_height(m: int) -> int:
    """T = ⌈log₂(m + 1)⌉ = m.bit_length(): the most nodes any prefix [0, i) uses (i <= m)."""
    m = check_int(m, "m", minimum=1)
    return m.bit_length()


def lowbit(i: Any) -> Any:
    """i & −i: the size of the leaf range of Fenwick node i (works on ints and int arrays)."""
    return i & -i


@lru_cache(maxsize=64)
def fenwick_parents(m: int) -> np.ndarray:
    """parent[i] = i − lowbit(i) for i = 1..m (index 0 unused, set to 0): N_i = N_parent + η_i."""
    m = check_int(m, "m", minimum=1)
    idx = np.arange(m + 1, dtype=np.int64)
    parents = idx - lowbit(idx)
    parents[0] = 0
    parents.setflags(write=False)
    return parents


def shift_nodes(m: int, s: int) -> np.ndarray:
    """The nodes i (1-based) whose leaf range (i − lowbit(i), i] contains leaf s: the support of
    c = W⁻¹e^{(s)}, e^{(s)}_i = 1[i >= s]."""
    m = check_int(m, "m", minimum=1)
    s = check_int(s, "s", minimum=1)
    if s > m:
        raise ValueError(f"s must be in [1, m] = [1, {m}], got {s}")
    idx = np.arange(1, m + 1, dtype=np.int64)
    return idx[(idx - lowbit(idx) < s) & (s <= idx)]


def shift_node_count(m: int, s: int) -> int:
    """c(s) = ‖W⁻¹e^{(s)}‖₁: the number of noise nodes a contiguous shift starting at s moves."""
    return len(shift_nodes(m, s))


def shift_privacy_loss(m: int, s: int, epsilon: float | Fraction) -> Fraction:
    """Exact privacy loss (ε/T)·c(s) of CC_ε between r and r ± e^{(s)} (either noise): the noise
    laws differ by a shift of c on the nodes, and a Laplace or discrete Laplace law of scale T/ε
    moved by one has loss exactly ε/T per node (spec §6.2). ε as a Fraction keeps it exact."""
    eps = Fraction(epsilon) if not isinstance(epsilon, Fraction) else epsilon
    if eps <= 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}")
    return eps * shift_node_count(m, s) / tree_height(m)


def prefix_sums(eta: np.ndarray) -> np.ndarray:
    """N from the node noises η (shape (..., m)): N_i = N_{i − lowbit(i)} + η_i, i.e. the sum of η
    over the dyadic decomposition of [0, i). Parents come first, so one pass over i suffices; the
    pass runs on the transposed (contiguous) rows."""
    eta = np.asarray(eta)
    m = eta.shape[-1]
    parents = fenwick_parents(m)
    rows = np.moveaxis(eta, -1, 0).copy()  # rows[i − 1] = η_i, each row contiguous
    for i in range(1, m + 1):
        p = int(parents[i])
        if p:
            rows[i - 1] += rows[p - 1]
    return np.ascontiguousarray(np.moveaxis(rows, 0, -1))


def round_half_up(x: np.ndarray) -> np.ndarray:
    """⌊x + ½⌋ as int64 (k − ½ ↦ k, spec §5.16), computed exactly as ⌊x⌋ + [x − ⌊x⌋ >= ½]: the
    float sum x + ½ would round 0.5 − 2^−54 up to 1 (and odd integers above 2^52 up by one),
    whereas x − ⌊x⌋ is exact in floating point."""
    x = np.asarray(x, dtype=float)
    k = np.floor(x)
    return (k + (x - k >= 0.5)).astype(np.int64)


def _check_noise(noise: Any) -> str:
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {noise!r}")
    return noise


@dataclass(frozen=True)
class ContinualCounting:
    """CC_ε for m counters (spec §2.1). ``scale`` overrides the per-node noise scale T/ε: a smaller
    value is a deliberately under-noised CC whose privacy loss exceeds ε (tests and audits)."""

    m: int
    epsilon: float
    noise: str = "discrete"
    scale: float | None = None

    def __post_init__(self) -> None:
        check_int(self.m, "m", minimum=1)
        check_epsilon(self.epsilon)
        _check_noise(self.noise)
        if self.scale is not None:
            check_positive(self.scale, "scale")

    @property
    def height(self) -> int:
        return tree_height(self.m)

    @property
    def node_scale(self) -> float:
        """Per-node noise scale: T/ε unless overridden."""
        return self.height / self.epsilon if self.scale is None else float(self.scale)

    @property
    def p(self) -> float:
        """Discrete Laplace ratio p = e^{−1/scale} (= e^{−ε/T})."""
        return math.exp(-1.0 / self.node_scale)

    # ---------------------------------------------------------------- sampling
    def sample_noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws of the prefix noise N, shape (size, m): int64 (discrete), float (laplace)."""
        size, rng = check_size(size), check_rng(rng)
        if self.noise == "discrete":
            q = -math.expm1(-1.0 / self.node_scale)  # geometric success probability 1 − p
            shape = (size, self.m)
            eta = rng.geometric(q, shape).astype(np.int64) - rng.geometric(q, shape).astype(
                np.int64
            )
        else:
            eta = rng.laplace(0.0, self.node_scale, (size, self.m))
        return prefix_sums(eta)

    def release(self, ranks: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases r̃ of the rank vector ``ranks`` (length m), int64 (size, m)."""
        r = np.asarray(ranks)
        if r.shape != (self.m,) or not np.issubdtype(r.dtype, np.integer):
            raise ValueError(f"ranks must be an integer vector of length m = {self.m}")
        noise = self.sample_noise(size, rng)
        if self.noise == "discrete":
            return r.astype(np.int64) + noise
        return r.astype(np.int64) + round_half_up(noise)

    # ---------------------------------------------------------------- exact law
    def node_differences(self, v: Any) -> np.ndarray:
        """(W⁻¹v)_i = v_i − v_{i − lowbit(i)} for the last axis of ``v`` (the node values)."""
        v = np.asarray(v)
        padded = np.concatenate([np.zeros(v.shape[:-1] + (1,), dtype=v.dtype), v], axis=-1)
        return v - padded[..., fenwick_parents(self.m)[1:]]

    def _exact_scale(self) -> mpmath.mpf:
        if self.scale is None:
            return to_mpf(self.height) / to_mpf(self.epsilon)
        return to_mpf(self.scale)

    def noise_logpmf_mp(self, v: Any) -> mpmath.mpf:
        """Exact log P(N = v) of the discrete CC (closed form, spec §6.2), mpmath."""
        if self.noise != "discrete":
            raise ValueError(
                "noise_logpmf_mp needs noise='discrete'; use noise_cell_probability_mp"
            )
        d = [int(x) for x in self.node_differences(np.asarray(v, dtype=np.int64))]
        with workdps():
            rate = 1 / self._exact_scale()
            log_norm = mpmath.log(-mpmath.expm1(-rate)) - mpmath.log1p(mpmath.exp(-rate))
            return self.m * log_norm - rate * sum(abs(x) for x in d)

    def release_logpmf_mp(self, ranks: Any, released: Any) -> mpmath.mpf:
        """Exact log P(CC(r) = r̃) (discrete noise)."""
        r = np.asarray(ranks, dtype=np.int64)
        return self.noise_logpmf_mp(np.asarray(released, dtype=np.int64) - r)

    def noise_logpmf(self, v: Any) -> np.ndarray:
        """Float log P(N = v) (discrete), vectorised over the leading axes of ``v``."""
        if self.noise != "discrete":
            raise ValueError("noise_logpmf needs noise='discrete'")
        d = np.abs(self.node_differences(np.asarray(v, dtype=np.int64))).sum(axis=-1)
        rate = 1.0 / self.node_scale
        log_norm = math.log(-math.expm1(-rate)) - math.log1p(math.exp(-rate))
        return self.m * log_norm - rate * d

    def noise_cell_probability_mp(self, v: Any) -> mpmath.mpf:
        """P(⌊N + ½⌋ = v) for the Laplace CC: the density of N integrated over the cell
        v + [−½, ½)^m by nested mpmath quadrature, split at the kinks (exact to quadrature
        precision). Seconds per cell at m = 2 and minutes at m = 3: meant for m <= 2
        (proofs_checks/test_imola25_cc.py has a faster oracle factorised along the tree)."""
        if self.noise != "laplace":
            raise ValueError("noise_cell_probability_mp needs noise='laplace'")
        v = [int(x) for x in np.asarray(v, dtype=np.int64)]
        parents = fenwick_parents(self.m)
        with workdps():
            rate = 1 / self._exact_scale()
            half = mpmath.mpf(1) / 2

            def integrate(i: int, fixed: list[mpmath.mpf]) -> mpmath.mpf:
                if i == self.m:
                    return mpmath.mpf(1)
                p = int(parents[i + 1])
                base = fixed[p - 1] if p > 0 else mpmath.mpf(0)
                lo, hi = v[i] - half, v[i] + half
                pts = [lo] + ([base] if lo < base < hi else []) + [hi]

                def f(y: mpmath.mpf) -> mpmath.mpf:
                    return (
                        rate / 2 * mpmath.exp(-rate * abs(y - base)) * integrate(i + 1, fixed + [y])
                    )

                return mpmath.quad(f, pts)

            return integrate(0, [])
