"""Binary-tree (Fenwick) continual counting: imola25 Lemma 3.1 and Appendix A
(``notes/imola25.md``).

CC_ε releases all m prefix ranks r_1..r_m at once with additive tree noise. Node i (1 <= i <= m)
of the Fenwick tree covers the leaves (i − lowbit(i), i], lowbit(i) = i & −i; every node carries an
independent noise η_i, and coordinate i receives N_i = N_{i − lowbit(i)} + η_i (N_0 = 0), the sum
of the at most T = ⌈log₂(m + 1)⌉ = m.bit_length() nodes of the dyadic decomposition of [0, i).

* ``noise="discrete"`` (the paper's experiments): η_i ~ DLap(T/ε), P(k) = (1 − p)/(1 + p)·p^{|k|},
  p = e^{−ε/T}; r̃ = r + N, no rounding.
* ``noise="laplace"`` (Lemma 3.1's proof): η_i ~ Lap(T/ε) and r̃_i = ⌊r_i + N_i + ½⌋ (round half up,
  not numpy's half-to-even).

Exact law. η = W⁻¹N with (W⁻¹N)_i = N_i − N_{i−lowbit(i)}, a unimodular map, so the discrete noise
has the closed-form pmf P(N = v) = Π_i (1 − p)/(1 + p)·p^{|v_i − v_{i−lowbit(i)}|} and the Laplace
noise the density Π_i (ε/2T)·e^{−(ε/T)|v_i − v_{i−lowbit(i)}|}.

Privacy for contiguous shifts (imola25 Eq. 1). The shift e^{(s)} (e_i = 1[i >= s]) is W c with
c_i = 1[i − lowbit(i) < s <= i]: exactly the nodes whose leaf range contains leaf s, i.e. the
Fenwick update path s, s + lowbit(s), ... Hence the exact privacy loss of the pair (r, r + e^{(s)})
is (ε/T)·c(s), c(s) = ‖c‖₁ <= T (:func:`shift_node_count`), which is Lemma 3.1 (1).

Limits (``ValueError`` naming the parameter and the range):

* m <= :data:`MAX_COUNTERS` for the counter itself (its arrays have m entries); the pure
  functions of the tree (:func:`tree_height`, :func:`shift_nodes`, :func:`shift_privacy_loss`)
  take any m <= 2^62 in O(log m);
* the per-node scale T/ε (or ``scale``) at most 2^50
  (:data:`dpquant.reference.primitives.discrete_laplace.MAX_DISCRETE_SCALE`): every node draw is then
  below 2^56 in magnitude and a prefix sum of T <= 21 of them fits int64 (numpy's geometric
  saturates at the int64 maximum near T/ε = 2^63/40, which used to give zero noise); for Laplace
  noise the scale must also keep the float draws on a fine grid (>= about 2e-320, see
  :func:`~dpquant.reference.primitives.laplace.check_laplace_sampler_parameters`);
* ``size·m <= MAX_NOISE_CELLS`` draws per call, refused before any allocation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.discrete_laplace import (
    MAX_DISCRETE_SCALE,
    sample_discrete_laplace,
)
from dpquant.reference.primitives.laplace import check_laplace_sampler_parameters
from dpquant.reference.validation import (
    check_choice,
    check_epsilon,
    check_fraction,
    check_int,
    check_positive,
    check_real_array,
    check_rng,
    check_size,
)

NOISES = ("discrete", "laplace")

MAX_COUNTERS = 2**20
"""Largest m of :class:`ContinualCounting` and :func:`fenwick_parents` (arrays of m entries)."""

MAX_TREE_M = 2**62
"""Largest m of the O(log m) tree functions (:func:`shift_nodes` and what builds on it)."""

MAX_NOISE_CELLS = 2**23
"""Most noise values (size·m) one :meth:`ContinualCounting.sample_noise` or ``release`` call
draws (64 MB of int64 per array); ask for more in several calls."""

MAX_CELL_QUADRATURE_M = 2
"""Largest m of :meth:`ContinualCounting.noise_cell_probability_mp` (nested quadrature: seconds at
m = 2, minutes at m = 3)."""

_MAX_NOISE_VALUE = 2**56  # |integer noise values| accepted by the helpers: sums of T fit int64


def tree_height(m: int) -> int:
    """T = ⌈log₂(m + 1)⌉ = m.bit_length(): the most nodes any prefix [0, i) uses (i <= m)."""
    m = check_int(m, "m", minimum=1)
    return m.bit_length()


def lowbit(i: Any) -> Any:
    """i & −i: the size of the leaf range of Fenwick node i (works on ints and int arrays)."""
    if isinstance(i, np.ndarray):
        if i.dtype.kind not in "iu":
            raise ParameterError(
                "i",
                "must be an integer or an array of integers",
                f"dtype {i.dtype}",
            )
        return i & -i
    i = check_int(i, "i")
    return i & -i


@lru_cache(maxsize=16)
def _fenwick_parents(m: int) -> np.ndarray:
    idx = np.arange(m + 1, dtype=np.int64)
    parents = idx - (idx & -idx)
    parents[0] = 0
    parents.setflags(write=False)
    return parents


def fenwick_parents(m: int) -> np.ndarray:
    """parent[i] = i − lowbit(i) for i = 1..m (index 0 unused, set to 0): N_i = N_parent + η_i.
    ``m`` <= :data:`MAX_COUNTERS`."""
    return _fenwick_parents(check_int(m, "m", minimum=1, maximum=MAX_COUNTERS))


@lru_cache(maxsize=16)
def _popcount_levels(m: int) -> tuple[np.ndarray, ...]:
    """The nodes 1..m grouped by popcount k = 2, 3, ...: a node's parent i − lowbit(i) has one
    set bit fewer, so each group only reads nodes of earlier groups (popcount 1: parent 0)."""
    idx = np.arange(1, m + 1, dtype=np.int64)
    popcount = np.zeros(m, dtype=np.int64)
    for bit in range(m.bit_length()):
        popcount += (idx >> bit) & 1
    return tuple(idx[popcount == k] for k in range(2, m.bit_length() + 1))


def shift_nodes(m: int, s: int) -> np.ndarray:
    """The nodes i (1-based) whose leaf range (i − lowbit(i), i] contains leaf s: the support of
    c = W⁻¹e^{(s)}, e^{(s)}_i = 1[i >= s]. They are the Fenwick update path s, s + lowbit(s), ...
    (i covers s iff s <= i and i − lowbit(i) < s; the next node covering s is i + lowbit(i)), so
    this takes O(log m) for any m <= 2^62."""
    m = check_int(m, "m", minimum=1, maximum=MAX_TREE_M)
    s = check_int(s, "s", minimum=1)
    if s > m:
        raise ParameterError("s", f"must be in [1, m] = [1, {m}]", s)
    nodes = []
    i = s
    while i <= m:
        nodes.append(i)
        i += i & -i
    return np.array(nodes, dtype=np.int64)


def shift_node_count(m: int, s: int) -> int:
    """c(s) = ‖W⁻¹e^{(s)}‖₁: the number of noise nodes a contiguous shift starting at s moves."""
    return len(shift_nodes(m, s))


def shift_privacy_loss(m: int, s: int, epsilon: float | Fraction) -> Fraction:
    """Exact privacy loss (ε/T)·c(s) of CC_ε between r and r ± e^{(s)} (either noise): the noise
    laws differ by a shift of c on the nodes, and a Laplace or discrete Laplace law of scale T/ε
    moved by one has loss exactly ε/T per node (``notes/imola25.md``). ε as a Fraction (or an int)
    keeps it exact; a float is read as its exact binary value."""
    eps = check_fraction(epsilon, "epsilon", positive=True)
    return eps * shift_node_count(m, s) / tree_height(m)


def _numeric_array(x: Any, name: str, *, integers: bool = False) -> np.ndarray:
    """A numeric array (int64 kept as int64, floats finite) under the data policy of
    :func:`dpquant.reference.validation.check_data`; ``integers`` refuses floats."""
    if isinstance(x, np.ndarray):
        arr = x
        if arr.dtype.kind not in "iuf":
            raise ParameterError(name, "must be an array of real numbers", f"dtype {arr.dtype}")
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise ParameterError(name, "must hold finite numbers (no NaN or inf)")
    else:
        check_real_array(x, name)  # numbers only, no NaN or inf, nothing beyond a float64
        try:
            arr = np.asarray(x)
        except OverflowError:
            raise ParameterError(name, "must hold integers of magnitude <= 2^56") from None
        if arr.dtype.kind == "O":  # Python ints beyond int64
            raise ParameterError(name, "must hold integers of magnitude <= 2^56")
    if integers and arr.dtype.kind not in "iu":
        raise ParameterError(name, "must hold integers (an integer array)", f"dtype {arr.dtype}")
    if arr.dtype.kind in "iu":
        if arr.size and (arr.max() > _MAX_NOISE_VALUE or arr.min() < -_MAX_NOISE_VALUE):
            raise ParameterError(name, "must hold integers of magnitude <= 2^56")
        arr = arr.astype(np.int64)
    if arr.ndim == 0:
        raise ParameterError(name, "must be an array whose last axis has the m counters")
    return arr


def prefix_sums(eta: Any) -> np.ndarray:
    """N from the node noises η (shape (..., m), integers or floats): N_i = N_{i − lowbit(i)} + η_i,
    i.e. the sum of η over the dyadic decomposition of [0, i). The nodes are processed by
    popcount (a parent has one set bit fewer), T vectorised passes in all."""
    eta = _numeric_array(eta, "eta")
    m = eta.shape[-1]
    if m == 0:
        return eta.copy()
    check_int(m, "eta.shape[-1]", maximum=MAX_COUNTERS)
    n = eta.copy()
    parents = _fenwick_parents(m)
    for level in _popcount_levels(m):
        n[..., level - 1] += n[..., parents[level] - 1]
    return n


def round_half_up(x: Any) -> np.ndarray:
    """⌊x + ½⌋ as int64 (k − ½ ↦ k), computed exactly as ⌊x⌋ + [x − ⌊x⌋ >= ½]: the float sum
    x + ½ would round 0.5 − 2^−54 up to 1 (and odd integers above 2^52 up by one), whereas
    x − ⌊x⌋ is exact in floating point. |x| must be below 2^62."""
    x = check_real_array(x, "x")
    if x.size and np.abs(x).max() >= 2.0**62:
        raise ParameterError("x", "must hold values of magnitude below 2^62 (the result is int64)")
    k = np.floor(x)
    return (k + (x - k >= 0.5)).astype(np.int64)


def _check_noise(noise: Any) -> str:
    return check_choice(noise, "noise", NOISES)


@dataclass(frozen=True)
class ContinualCounting:
    """CC_ε for m counters (imola25 Lemma 3.1). ``scale`` overrides the per-node noise scale T/ε:
    a smaller value is a deliberately under-noised CC whose privacy loss exceeds ε (tests and
    audits). See the module docstring for the limits on m and on the per-node scale."""

    m: int
    epsilon: float
    noise: str = "discrete"
    scale: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "m", check_int(self.m, "m", minimum=1, maximum=MAX_COUNTERS))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        _check_noise(self.noise)
        if self.scale is not None:
            object.__setattr__(self, "scale", check_positive(self.scale, "scale"))
        t = self.node_scale
        name = "epsilon" if self.scale is None else "scale"
        if t > MAX_DISCRETE_SCALE:
            smallest = f"epsilon >= T/2^50 = {self.height / MAX_DISCRETE_SCALE:.4g} for m = {self.m}"
            raise ValueError(
                f"{name} must give a per-node noise scale at most 2^50 = "
                f"{float(MAX_DISCRETE_SCALE):.6g} ("
                + (smallest if self.scale is None else "scale <= 2^50")
                + f"), got {name} = {getattr(self, name)!r} (per-node scale {t:.4g}): larger "
                "noise is not representable exactly in int64"
            )
        if self.noise == "laplace":  # only a tiny ``scale`` override can fail this
            check_laplace_sampler_parameters(0.0, t)

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
    def _check_size(self, size: Any) -> int:
        size = check_size(size)
        if size * self.m > MAX_NOISE_CELLS:
            raise ParameterError(
                "size",
                f"must be at most {MAX_NOISE_CELLS // self.m} for m = {self.m} counters (size·m "
                f"<= {MAX_NOISE_CELLS} noise values a call)",
                f"{size}: draw in several calls",
            )
        return size

    def sample_noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws of the prefix noise N, shape (size, m): int64 (discrete), float (laplace)."""
        size, rng = self._check_size(size), check_rng(rng)
        return self._noise(size, rng)

    def _noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        if self.noise == "discrete":
            eta = sample_discrete_laplace(self.node_scale, size * self.m, rng)
            eta = eta.reshape(size, self.m)
        else:
            eta = rng.laplace(0.0, self.node_scale, (size, self.m))
        return prefix_sums(eta)

    def release(self, ranks: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases r̃ of the rank vector ``ranks`` (integers, length m,
        |r| <= 2^56), int64 (size, m)."""
        r = _numeric_array(ranks, "ranks", integers=True)
        if r.shape != (self.m,):
            raise ParameterError("ranks", f"must be an integer vector of length m = {self.m}")
        size, rng = self._check_size(size), check_rng(rng)
        noise = self._noise(size, rng)
        if self.noise == "discrete":
            return r + noise
        return r + round_half_up(noise)

    # ---------------------------------------------------------------- exact law
    def _vectors(self, v: Any, name: str, *, integers: bool = True) -> np.ndarray:
        arr = _numeric_array(v, name, integers=integers)
        if arr.shape[-1] != self.m:
            raise ParameterError(
                name,
                f"must have m = {self.m} entries on its last axis",
                f"shape {arr.shape}",
            )
        return arr

    def node_differences(self, v: Any) -> np.ndarray:
        """(W⁻¹v)_i = v_i − v_{i − lowbit(i)} for the last axis of ``v`` (the node values)."""
        v = self._vectors(v, "v", integers=False)
        padded = np.concatenate([np.zeros(v.shape[:-1] + (1,), dtype=v.dtype), v], axis=-1)
        return v - padded[..., _fenwick_parents(self.m)[1:]]

    def _exact_scale(self) -> mpmath.mpf:
        if self.scale is None:
            return to_mpf(self.height) / to_mpf(self.epsilon)
        return to_mpf(self.scale)

    def noise_logpmf_mp(self, v: Any) -> mpmath.mpf:
        """Exact log P(N = v) of the discrete CC (closed form), mpmath; ``v`` an integer vector
        of length m."""
        if self.noise != "discrete":
            raise ValueError(
                "noise_logpmf_mp needs noise='discrete'; use noise_cell_probability_mp"
            )
        v = self._vectors(v, "v")
        if v.ndim != 1:
            raise ParameterError("v", f"must be one integer vector of length m = {self.m}")
        d = [int(x) for x in self.node_differences(v)]
        with workdps():
            rate = 1 / self._exact_scale()
            log_norm = mpmath.log(-mpmath.expm1(-rate)) - mpmath.log1p(mpmath.exp(-rate))
            return self.m * log_norm - rate * sum(abs(x) for x in d)

    def release_logpmf_mp(self, ranks: Any, released: Any) -> mpmath.mpf:
        """Exact log P(CC(r) = r̃) (discrete noise)."""
        r = self._vectors(ranks, "ranks")
        out = self._vectors(released, "released")
        return self.noise_logpmf_mp(out - r)

    def noise_logpmf(self, v: Any) -> np.ndarray:
        """Float log P(N = v) (discrete), vectorised over the leading axes of ``v``."""
        if self.noise != "discrete":
            raise ValueError("noise_logpmf needs noise='discrete'")
        d = np.abs(self.node_differences(self._vectors(v, "v"))).sum(axis=-1)
        rate = 1.0 / self.node_scale
        log_norm = math.log(-math.expm1(-rate)) - math.log1p(math.exp(-rate))
        with np.errstate(over="ignore"):
            return np.where(d == 0, self.m * log_norm, self.m * log_norm - rate * d)

    def noise_cell_probability_mp(self, v: Any) -> mpmath.mpf:
        """P(⌊N + ½⌋ = v) for the Laplace CC: the density of N integrated over the cell
        v + [−½, ½)^m by nested mpmath quadrature, split at the kinks (exact to quadrature
        precision). Seconds per cell at m = 2 and minutes at m = 3, so m <= 2
        (:data:`MAX_CELL_QUADRATURE_M`); proofs_checks/test_imola25_cc.py has a faster oracle
        factorised along the tree."""
        if self.noise != "laplace":
            raise ValueError("noise_cell_probability_mp needs noise='laplace'")
        if self.m > MAX_CELL_QUADRATURE_M:
            raise ParameterError(
                "m",
                f"must be at most {MAX_CELL_QUADRATURE_M} for noise_cell_probability_mp (nested "
                "quadrature takes minutes at m = 3)",
                f"m = {self.m}",
            )
        v = self._vectors(v, "v")
        if v.ndim != 1:
            raise ParameterError("v", f"must be one integer vector of length m = {self.m}")
        v = [int(x) for x in v]
        parents = _fenwick_parents(self.m)
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


__all__ = [
    "MAX_CELL_QUADRATURE_M",
    "MAX_COUNTERS",
    "MAX_NOISE_CELLS",
    "MAX_TREE_M",
    "NOISES",
    "ContinualCounting",
    "fenwick_parents",
    "lowbit",
    "prefix_sums",
    "round_half_up",
    "shift_node_count",
    "shift_nodes",
    "shift_privacy_loss",
    "tree_height",
]
