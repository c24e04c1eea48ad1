"""Why the authors' k-ary tree noise is not a valid CC (notes/imola25.md, erratum 23), and the Fenwick
tree for contrast. Analysis only: nothing here samples or releases the authors' noise.

Facts read from the authors' repository (NynsenFaber/DP_CC_quantiles,
``quantiles_with_continual_counting/k_ary_tree_noise.py``, class ``KaryTreeNoise``), restated in
our own words:

* height H = ⌈log_k(m)⌉ computed in floating point (``ceil(log(m, k))``; e.g. m = 125, k = 5 gives
  H = 4 because log(125, 5) = 3.0000000000000004), node noise DLap with scale (H + 1)/(2ε), i.e.
  p = e^{−2ε/(H+1)} — the "true sensitivity (H + 1)/2" of the repo's comment;
* a node noise is cached by (level, local child index j ∈ [0, k)) — the same variable is reused
  under every parent at that level;
* prefix t (1-based) gets the root, then for levels 1..H with block size k^{H−level}:
  i = rem // block, rem = rem mod block (rem starts at t − 1); every sibling j ≠ i with
  j·block < m enters with sign +1 if j < i and −1 if j > i; if rem = 0 after the division the
  node (level, i) itself is added with sign +1 and the walk stops;
* k is auto-chosen as the first minimiser over k = 2..m of the variance proxy
  (2 + Σ_levels (min(k, ⌈m/block⌉) − 1))·Var(node), with an early stop once the proxy exceeds 10×
  the best; it depends on ε (m = 20: k = 5 for ε <= 0.5, k = 20 for ε = 1);
* ``high_prob_bound(δ)`` = min over a 100-point λ grid in (10^{−6}, 0.99·(−ln p)) of
  (max_terms·log M(λ) + log(m/δ))/λ — a one-sided union bound (log(m/δ), not log(2m/δ)).

So the prefix noise is N = A·ξ for an integer matrix A (:func:`authors_kary_noise_matrix`) and iid
DLap node variables ξ. A CC must satisfy Lemma 3.1 (1) for every contiguous shift e^{(s)}
(e_i = 1[i >= s]). If e^{(s)} is not in the real column space of A, a left null vector v
(vᵀA = 0, v·e^{(s)} ≠ 0) separates the supports of r + N and r + e + N: the loss is infinite.
With integer node noise the right object is the lattice A·ℤ^V: even shifts in the real span
can leave it (for H = 1, N_t − N_{t−1} = 2ξ_{t−1} is always even), again infinite loss. Where a
shift is reachable, the loss is at most min{‖c‖₁ : A c = e, c ∈ ℤ^V}/scale, which can exceed the
budget ((H+1)/2 per unit of scale); :func:`shift_loss_over_box` computes the exact loss at
lattice points (closed-form pmf, kernel dimension <= 1).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import MP_INF, MP_NINF, to_mpf, workdps
from dpquant.reference.primitives.continual_counting import (
    prefix_sums,
    shift_privacy_loss,
    tree_height,
)
from dpquant.reference.slice_quantiles.cc_tails import resolve_log_delta
from dpquant.reference.slice_quantiles.inputs import check_int_array, positive_mpf
from dpquant.reference.slice_quantiles.integer_lattice import (
    MAX_MATRIX_SIDE,
    check_matrix,
    integer_column_echelon,
    lattice_noise_logpmf,
    left_null_vectors,
    min_l1_cost,
    span_membership,
    unique_real_cost,
)
from dpquant.reference.validation import check_epsilon, check_flag, check_fraction, check_int

Variable = tuple[int, int]  # (level, local index) for the authors' tree; (0, i) for Fenwick node i

MAX_TREE_M = 10**5
"""Largest m of the authors' tree formulas (heights, term counts, the auto-chosen k)."""
MAX_MATRIX_TERMS = 2 * 10**6
"""Most (prefix, node) terms of a noise matrix built here (m·k·H for the authors' tree)."""
MAX_REPORT_M = 256
"""Largest m of :func:`kary_shift_report` and :func:`fenwick_shift_report` (exact lattice algebra
on an m-row matrix, one solve per shift)."""
MAX_BOX_POINTS = 10**5
"""Most lattice points :func:`shift_loss_over_box` visits."""


# ----------------------------------------------------------------------------- the authors' tree
def _check_mk(m: Any, k: Any) -> tuple[int, int]:
    m = check_int(m, "m", minimum=2, maximum=MAX_TREE_M)  # the repo rejects max_time <= 1
    k = check_int(k, "k", minimum=2)
    if k > m:
        raise ParameterError("k", f"must be in [2, m] = [2, {m}]", k)
    return m, k


def authors_height(m: int, k: int) -> int:
    """H = ceil(log(m, k)) in floating point, as the repo computes it."""
    m, k = _check_mk(m, k)
    return math.ceil(math.log(m, k))


def _authors_max_terms(m: int, k: int) -> int:
    """The repo's count of noise terms per prefix: 2 + Σ_{level=1..H} (min(k, ⌈m/k^{H−level}⌉) − 1)."""
    m, k = _check_mk(m, k)
    h = authors_height(m, k)
    return 2 + sum(min(k, math.ceil(m / k ** (h - level))) - 1 for level in range(1, h + 1))


def authors_claimed_sensitivity(m: int, k: int) -> Fraction:
    """(H + 1)/2: the per-shift L1 budget the repo's scale (H + 1)/(2ε) pays for."""
    return Fraction(authors_height(m, k) + 1, 2)


def authors_auto_k(m: int, epsilon: float) -> int:
    """The repo's automatic branching factor (first minimiser of its variance proxy over
    k = 2..m with its early stop; floats as in the repo)."""
    m = check_int(m, "m", minimum=2, maximum=MAX_TREE_M)
    epsilon = check_epsilon(epsilon)
    if math.exp(-2.0 * epsilon / (math.ceil(math.log(m, 2)) + 1)) >= 1.0:
        raise ParameterError(
            "epsilon",
            "is too small for the repo's variance proxy (its node ratio e^(-2·epsilon/(H+1)) "
            "rounds to 1)",
            repr(epsilon),
        )
    best_k, best_var = 2, math.inf
    for cand in range(2, m + 1):
        h = math.ceil(math.log(m, cand))
        b = math.exp(-1.0 / (((h + 1) / 2) / epsilon))
        var_node = 2 * b / (1 - b) ** 2
        terms = 2 + sum(
            min(cand, math.ceil(m / cand ** (h - level))) - 1 for level in range(1, h + 1)
        )
        var = terms * var_node
        if var > 10 * best_var:
            break
        if var < best_var:
            best_var, best_k = var, cand
    return best_k


def authors_prefix_terms(m: int, k: int, t: int) -> list[tuple[Variable, int]]:
    """The signed node variables ((level, j), ±1) the repo sums for prefix t (1 <= t <= m)."""
    m, k = _check_mk(m, k)
    t = check_int(t, "t", minimum=1)
    if t > m:
        raise ParameterError("t", f"must be in [1, m] = [1, {m}]", t)
    h = authors_height(m, k)
    out: list[tuple[Variable, int]] = [((0, 0), 1)]
    rem = t - 1
    for level in range(1, h + 1):
        block = k ** (h - level)
        i, rem = divmod(rem, block)
        for j in range(k):
            if j != i and j * block < m:
                out.append(((level, j), 1 if j < i else -1))
        if rem == 0:
            out.append(((level, i), 1))
            break
    return out


def authors_kary_noise_matrix(m: int, k: int) -> tuple[np.ndarray, tuple[Variable, ...]]:
    """(A, variables): N_t = Σ_v A[t−1, v]·ξ_v for the repo's prefix noise (module docstring)."""
    m, k = _check_mk(m, k)
    if m * k * (authors_height(m, k) + 1) > MAX_MATRIX_TERMS:
        raise ValueError(
            f"m·k·(H + 1) must be at most {MAX_MATRIX_TERMS} to build the noise matrix, got "
            f"m = {m}, k = {k}"
        )
    rows = [authors_prefix_terms(m, k, t) for t in range(1, m + 1)]
    variables = tuple(sorted({v for row in rows for v, _ in row}))
    col = {v: j for j, v in enumerate(variables)}
    a = np.zeros((m, len(variables)), dtype=np.int64)
    for t, row in enumerate(rows):
        for v, sign in row:
            a[t, col[v]] += sign
    return a, variables


def authors_chernoff_bound(
    m: int,
    epsilon: float,
    delta: Any = None,
    k: int | None = None,
    *,
    log_delta: Any = None,
    two_sided: bool = False,
    grid: bool = True,
) -> float:
    """The repo's ``high_prob_bound``: min over λ of (max_terms·log M(λ) + log(c·m/δ))/λ with
    M(λ) = (1−p)²/((1−pe^λ)(1−pe^{−λ})), p = e^{−2ε/(H+1)}; c = 1 as in the repo (one-sided),
    c = 2 with ``two_sided`` (notes/imola25.md, "Reference values": 126.5 / 233.8 / 266.2 / 533.2).
    ``grid`` = the repo's 100-point λ grid; otherwise a fine bounded search. Floats."""
    two_sided = check_flag(two_sided, "two_sided")
    grid = check_flag(grid, "grid")
    epsilon = check_epsilon(epsilon)
    kk = authors_auto_k(m, epsilon) if k is None else k
    m, kk = _check_mk(m, kk)
    h = authors_height(m, kk)
    p = math.exp(-1.0 / (((h + 1) / 2) / epsilon))
    if not 0.0 < p < 1.0:
        raise ParameterError(
            "epsilon",
            "must keep the node ratio e^(-2·epsilon/(H+1)) strictly inside (0, 1) in floating "
            "point",
            repr(epsilon),
        )
    terms = _authors_max_terms(m, kk)
    log_term = math.log((2 if two_sided else 1) * m) - float(resolve_log_delta(delta, log_delta))
    if not math.isfinite(log_term):
        raise ValueError("delta (or log_delta) must keep log(m/delta) a finite float")

    def bound(lam: float) -> float:
        d1, d2 = 1 - p * math.exp(lam), 1 - p * math.exp(-lam)
        if d1 <= 0 or d2 <= 0:
            return math.inf
        return (terms * math.log((1 - p) ** 2 / (d1 * d2)) + log_term) / lam

    lam_max = -math.log(p)
    if grid:
        value = min(bound(float(x)) for x in np.linspace(1e-6, 0.99 * lam_max, 100))
        if not math.isfinite(value):
            raise ValueError(
                "the bound is not finite on the repo's λ grid for these epsilon, delta, m and k"
            )
        return value
    xs = np.linspace(lam_max * 1e-6, lam_max * (1 - 1e-9), 20001)
    value = min(bound(float(x)) for x in xs)
    if not math.isfinite(value):
        raise ValueError("the bound is not finite for these epsilon, delta, m and k")
    return value


# ----------------------------------------------------------------------------- the Fenwick tree
def fenwick_noise_matrix(m: int) -> tuple[np.ndarray, tuple[Variable, ...]]:
    """(W, variables): N_i = Σ_j W[i−1, j−1] η_j, W[i−1, j−1] = 1 iff node j is in the dyadic
    decomposition of [0, i) (App. A); unimodular (unit lower triangular)."""
    m = check_int(m, "m", minimum=1, maximum=MAX_MATRIX_SIDE)
    w = prefix_sums(np.eye(m, dtype=np.int64)).T  # row j of prefix_sums(I): where η_j lands
    return np.ascontiguousarray(w), tuple((0, i) for i in range(1, m + 1))


# ----------------------------------------------------------------------------- shifts
def contiguous_shift(m: int, s: int, d: int = 1) -> np.ndarray:
    """e^{(s)} with e_i = d·1[i >= s] (Eq. 1 with t = s − 1), d ∈ {−1, +1}."""
    m = check_int(m, "m", minimum=1, maximum=10**8)
    s = check_int(s, "s", minimum=1)
    d = check_int(d, "d", minimum=-1, maximum=1)
    if s > m or d == 0:
        raise ParameterError(
            "s",
            f"must be in [1, m] = [1, {m}] and d in {{-1, 1}}",
            f"s={s}, d={d}",
        )
    return d * (np.arange(1, m + 1) >= s).astype(np.int64)


# ----------------------------------------------------------------------------- reports
@dataclass(frozen=True)
class ShiftReport:
    """Contiguous-shift analysis of an additive tree noise N = A·ξ with iid DLap node noise."""

    tree: str  # "authors_kary" or "fenwick"
    m: int
    k: int | None
    height: int
    claimed_sensitivity: Fraction  # L1 shift budget paid for by the node scale
    n_variables: int
    rank: int  # rank of A = rank of the covariance A·Aᵀ
    null_vector: tuple[int, ...] | None  # v with vᵀA = 0 and v·e^{(s)} ≠ 0 (witness), if any
    witness_shift: int | None  # that s
    witness_dot: int | None  # v·e^{(s)}
    outside_span: tuple[int, ...]  # s with e^{(s)} ∉ span_ℝ(A): infinite loss
    outside_lattice: tuple[int, ...]  # s with e^{(s)} ∉ A·ℤ^V (includes outside_span)
    real_costs: dict[int, float]  # s -> min ‖c‖₁ over ℝ (s in the real span)
    integer_costs: dict[int, float]  # s -> min ‖c‖₁ over ℤ (s in the lattice)

    @property
    def full_rank(self) -> bool:
        return self.rank == self.m

    @property
    def max_integer_cost(self) -> float | None:
        return max(self.integer_costs.values()) if self.integer_costs else None

    @property
    def is_valid_cc(self) -> bool:
        """Every contiguous shift reachable with integer L1 cost <= the claimed budget: then
        Lemma 3.1 (1) holds at the claimed ε (sufficient condition)."""
        return not self.outside_lattice and all(
            c <= self.claimed_sensitivity + 1e-9 for c in self.integer_costs.values()
        )


def _shift_report(
    a: np.ndarray,
    tree: str,
    m: int,
    k: int | None,
    height: int,
    claimed: Fraction,
    *,
    costs: bool = True,
) -> ShiftReport:
    """The exact rank / span / lattice analysis of all m contiguous shifts (d = +1; d = −1 is
    the same up to sign), plus LP / MILP costs (``costs``)."""
    a = check_matrix(a)
    m = check_int(m, "m", minimum=1)
    if a.shape[0] != m:
        raise ParameterError("m", f"must be the number of rows of a ({a.shape[0]})", m)
    if not isinstance(tree, str):
        raise ParameterError("tree", "must be a name (str)", f"{tree!r:.80}")
    if k is not None:
        k = check_int(k, "k", minimum=2)
    height = check_int(height, "height", minimum=0)
    claimed = check_fraction(claimed, "claimed", nonnegative=True)
    costs = check_flag(costs, "costs")
    ech = integer_column_echelon(a)
    outside_span: list[int] = []
    outside_lattice: list[int] = []
    real_costs: dict[int, float] = {}
    integer_costs: dict[int, float] = {}
    unique = ech.rank == a.shape[1]  # trivial kernel: the solution of A c = e is unique
    for s in range(1, m + 1):
        e = contiguous_shift(m, s)
        in_span, c = span_membership(ech, e)
        if not in_span:
            outside_span.append(s)
        if c is None:
            outside_lattice.append(s)
        if costs and in_span:
            real = float(unique_real_cost(ech, e)) if unique else min_l1_cost(a, e)
            if real is not None:  # in the span: the LP is feasible
                real_costs[s] = real
        if costs and c is not None:
            whole = float(sum(abs(v) for v in c)) if unique else min_l1_cost(a, e, integer=True)
            if whole is not None:  # in the lattice: the integer program is feasible
                integer_costs[s] = whole
    null_vector = witness = dot = None
    if outside_span:
        s0 = outside_span[0]
        e0 = contiguous_shift(m, s0)
        for v in left_null_vectors(a):
            d0 = int(np.dot(v, e0))
            if d0 != 0:
                null_vector, witness, dot = tuple(v), s0, d0
                break
    return ShiftReport(
        tree,
        m,
        k,
        height,
        claimed,
        a.shape[1],
        ech.rank,
        null_vector,
        witness,
        dot,
        tuple(outside_span),
        tuple(outside_lattice),
        real_costs,
        integer_costs,
    )


def kary_shift_report(m: int, k: int, *, costs: bool = True) -> ShiftReport:
    """:class:`ShiftReport` of the authors' KaryTreeNoise (notes/imola25.md erratum 23: m = 20, k = 5:
    10 variables, rank 9; m = 200, k = 15: rank 29; k = 2, m = 4: cost 3 vs 1.5)."""
    m, k = _check_mk(m, k)
    if m > MAX_REPORT_M:
        raise ParameterError("m", f"must be at most {MAX_REPORT_M} for a shift report", m)
    a, _ = authors_kary_noise_matrix(m, k)
    return _shift_report(
        a,
        "authors_kary",
        m,
        k,
        authors_height(m, k),
        authors_claimed_sensitivity(m, k),
        costs=costs,
    )


def fenwick_shift_report(m: int, *, costs: bool = True) -> ShiftReport:
    """:class:`ShiftReport` of our Fenwick tree: full rank, unimodular, integer cost
    c(s) <= T = claimed sensitivity."""
    m = check_int(m, "m", minimum=1, maximum=MAX_REPORT_M)
    w, _ = fenwick_noise_matrix(m)
    t = tree_height(m)
    return _shift_report(w, "fenwick", m, None, t, Fraction(t), costs=costs)


def fenwick_shift_losses(m: int, epsilon: Any) -> dict[int, Fraction]:
    """Exact loss (ε/T)·c(s) of every contiguous shift (continual_counting.shift_privacy_loss)."""
    m = check_int(m, "m", minimum=1, maximum=MAX_REPORT_M)
    epsilon = check_fraction(epsilon, "epsilon", positive=True)
    return {s: shift_privacy_loss(m, s, epsilon) for s in range(1, m + 1)}


def shift_loss_over_box(
    a: np.ndarray, e: Any, node_scale: Any, radius: int
) -> tuple[mpmath.mpf, tuple[int, ...]]:
    """max over x ∈ [−radius, radius]^m of |log P(N = x) − log P(N = x + e)| for N = A·ξ
    (exact pmf, :func:`lattice_noise_logpmf`), and the maximising x: a certified lower bound on
    the shift's privacy loss (+inf when the supports separate)."""
    radius = check_int(radius, "radius", minimum=0, maximum=MAX_BOX_POINTS)
    arr = check_matrix(a)
    if (2 * radius + 1) ** arr.shape[0] > MAX_BOX_POINTS:
        raise ParameterError(
            "radius",
            f"must keep the box at most {MAX_BOX_POINTS} points: (2·radius + 1)^rows with "
            f"{arr.shape[0]} rows",
        )
    ev = check_int_array(e, "e", max_abs=2**31)
    if ev.shape != (arr.shape[0],):
        raise ParameterError("e", f"must be an integer vector of length {arr.shape[0]}")
    with workdps():
        positive_mpf(node_scale, "node_scale")
    ech = integer_column_echelon(arr)
    best, arg = mpmath.mpf(0), tuple([0] * arr.shape[0])
    cache: dict[tuple[int, ...], mpmath.mpf] = {}

    def logp(x: tuple[int, ...]) -> mpmath.mpf:
        if x not in cache:
            cache[x] = lattice_noise_logpmf(ech, x, node_scale)
        return cache[x]

    with workdps():
        for x in itertools.product(range(-radius, radius + 1), repeat=arr.shape[0]):
            lx = logp(x)
            if lx == MP_NINF:
                continue
            xe = tuple(int(v) for v in np.asarray(x) + ev)
            le = logp(xe)
            loss = MP_INF if le == MP_NINF else abs(lx - le)
            if loss > best:
                best, arg = loss, x
                if loss == MP_INF:
                    break
    return best, arg


def authors_node_scale(m: int, k: int, epsilon: float) -> mpmath.mpf:
    """(H + 1)/(2ε), the repo's per-node DLap scale."""
    epsilon = check_epsilon(epsilon)
    with workdps():
        return mpmath.mpf(authors_height(m, k) + 1) / (2 * to_mpf(epsilon))
