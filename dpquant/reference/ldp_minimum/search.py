"""Algorithms 1 and 2 of fukuchi19: binary search for the minimum, non-private and ε-LDP.

Three samplers of Algorithm 2, equal in law (``notes/fukuchi19.md``, decisions; tests in
``tests/reference/ldp_minimum/test_fukuchi19_search.py``):

* :func:`run_protocol` / :func:`sample_per_user` — the protocol as deployed: in every round every
  user flips her own bit with probability 1/(1 + e^u) (one uniform per user and round). This is
  the path for LDP demonstrations and audits; it can return the whole transcript.
* :func:`sample_binomial` — exact in law and O(L) per run: with k = #{x_i <= τ}, the number of
  "+1" reports is P = Bin(k, p) + Bin(N − k, 1 − p).
* :func:`sample_iid` — data i.i.d. from a CDF F, never materialised: it tracks A = #{x <= ℓ} and
  B = #{ℓ < x <= r} and splits B binomially at each τ.

The search state of a run is the node index j of its current interval; depth-t node j is
[−1 + j·2^{2−t}, −1 + (j+1)·2^{2−t}] with midpoint τ = −1 + (2j + 1)·2^{1−t}; after L rounds the
output is leaf j's midpoint −1 + (2j + 1)·2^{−L}. All these are exact floats for L <= 52.

The maximum is found by symmetry: max(x) := −Alg2(−x) (the tie convention is mirrored: x >= τ
counts), see :func:`maximum`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.ldp_minimum.round_statistic import (
    RoundRule,
    check_epsilon_matches_exp_u,
    check_round_budget,
    check_rule,
)
from dpquant.reference.ldp_minimum.schedules import check_levels
from dpquant.reference.validation import (
    check_choice,
    check_data,
    check_epsilon,
    check_int,
    check_real_array,
    check_rng,
    check_size,
)

UNIT = (-1.0, 1.0)
TARGETS = ("min", "max")
CHUNK_CELLS = 1 << 22  # per-user path: users × runs drawn at once
PER_USER_CELLS = 4 * 10**8
"""The per-user samplers' budget: runs × N × L reports drawn in one call (about 10 s); a call
beyond it is refused with ``ValueError`` before any work (draw in several calls)."""
MAX_TRANSCRIPT_CELLS = 1 << 28
"""The most reports (L × N) one :func:`run_protocol` transcript holds (256 MB of int8)."""
MAX_LEAF_LEVELS = 24
"""The most levels :func:`leaf_values` enumerates (2^24 outputs)."""


def check_unit_data(data: Any, name: str = "data") -> np.ndarray:
    """A non-empty 1-D float array inside [−1, 1] (map other bounds with :mod:`.domain_map`)."""
    return check_data(data, name, domain=UNIT)


@dataclass(frozen=True, eq=False)
class UnitData:
    """Data validated to lie in [−1, 1] and sorted once (read-only).

    Every sampler and exact law accepts it in place of an array and then skips the O(N log N)
    validation and sorting, so a run of the binomial fast path costs O(L·log N). Built
    directly, the values are checked (inside [−1, 1], sorted) in O(N).
    """

    sorted: np.ndarray

    def __post_init__(self) -> None:
        x = check_unit_data(self.sorted, "sorted")
        if x.size > 1 and not np.all(x[1:] >= x[:-1]):
            raise ParameterError("sorted", "must be sorted in increasing order (use prepare)")
        x.setflags(write=False)
        object.__setattr__(self, "sorted", x)

    @property
    def size(self) -> int:
        return int(self.sorted.size)


def prepare(data: Any) -> UnitData:
    """Validate (inside [−1, 1], finite, non-empty, 1-D) and sort once."""
    if isinstance(data, UnitData):
        return data
    return prepared(check_unit_data(data))


def prepared(x: np.ndarray) -> UnitData:
    """:class:`UnitData` of a float array already checked to lie in [−1, 1] (sorted here)."""
    s = np.sort(x)
    s.setflags(write=False)
    out = object.__new__(UnitData)
    object.__setattr__(out, "sorted", s)
    return out


def sorted_unit_data(data: Any) -> np.ndarray:
    """The sorted values of ``data`` (an array or :class:`UnitData`), validated."""
    return prepare(data).sorted


def check_target(target: Any) -> str:
    """``target`` if it is one of :data:`TARGETS` ("min", "max"), else ValueError."""
    return check_choice(target, "target", TARGETS)


def node_midpoints(depth: int, node: Any) -> np.ndarray:
    """τ = −1 + (2j + 1)·2^{1−depth} of depth-``depth`` node(s) j, unchecked (the samplers' and
    exact laws' inner loops; they pass valid nodes). :func:`midpoints` is the checked form."""
    j = np.asarray(node, dtype=np.int64)
    return -1.0 + (2 * j + 1).astype(float) * 2.0 ** (1 - depth)


def midpoints(levels: int, depth: int, node: Any) -> np.ndarray:
    """τ of depth-``depth`` node(s) j: −1 + (2j + 1)·2^{1−depth} (exact floats); depth in
    [1, L + 1] (L + 1: the leaves), 0 <= j < 2^{depth−1}."""
    levels = check_levels(levels)
    depth = check_int(depth, "depth", minimum=1, maximum=levels + 1)
    top = 2 ** (depth - 1) - 1
    if isinstance(node, np.ndarray):
        if node.dtype.kind not in "iu" or (node.size and (node.min() < 0 or node.max() > top)):
            raise ParameterError("node", "must be integers in [0, 2^(depth - 1))", f"{node!r:.80}")
        return node_midpoints(depth, node)
    try:
        if isinstance(node, list | tuple):
            nodes: int | list[int] = [check_int(v, "node", minimum=0, maximum=top) for v in node]
        else:
            nodes = check_int(node, "node", minimum=0, maximum=top)
    except ValueError:
        raise ParameterError(
            "node",
            f"must be integers in [0, 2^(depth - 1)) = [0, {top}] at depth {depth}",
            f"{node!r:.80}",
        ) from None
    return node_midpoints(depth, np.asarray(nodes, dtype=np.int64))


def leaf_values(levels: int) -> np.ndarray:
    """The 2^L possible outputs −1 + (2j + 1)·2^{−L}, j = 0..2^L − 1 (sorted, exact floats;
    L <= :data:`MAX_LEAF_LEVELS`)."""
    levels = check_levels(levels)
    if levels > MAX_LEAF_LEVELS:
        raise ParameterError(
            "levels",
            f"must be at most {MAX_LEAF_LEVELS} to list the 2^L outputs",
            levels,
        )
    return node_midpoints(levels + 1, np.arange(2**levels, dtype=np.int64))


def sorted_counts(sorted_data: np.ndarray, tau: Any) -> np.ndarray:
    """k(τ) = #{x_i <= τ} on data already validated and sorted, unchecked (the samplers' and exact
    laws' inner loops). :func:`counts_at_or_below` is the checked form."""
    return np.searchsorted(sorted_data, tau, side="right")


def counts_at_or_below(sorted_data: Any, tau: Any) -> np.ndarray:
    """k(τ) = #{x_i <= τ} for each τ (ties count: sign(0) = +1); ``sorted_data`` sorted (or
    :class:`UnitData`)."""
    if isinstance(sorted_data, UnitData):
        x = sorted_data.sorted
    else:
        x = check_data(sorted_data, "sorted_data", allow_empty=True)
        if x.size > 1 and not np.all(x[1:] >= x[:-1]):
            raise ParameterError("sorted_data", "must be sorted in increasing order")
    return sorted_counts(x, check_real_array(tau, "tau", allow_inf=True))


# --------------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------------


def algorithm_1(data: Any, levels: int) -> float:
    """Algorithm 1 (non-private): go left iff F̃(τ) > 0 (strict), i.e. some x_i <= τ.

    The invariant x_(1) ∈ [ℓ, r] gives |x̃ − x_(1)| <= 2^{−L}.
    """
    x = sorted_unit_data(data)
    levels = check_levels(levels)
    node = 0
    for depth in range(1, levels + 1):
        tau = float(node_midpoints(depth, node))
        node = 2 * node + (0 if sorted_counts(x, tau) > 0 else 1)
    return float(node_midpoints(levels + 1, node))


# --------------------------------------------------------------------------------------------
# Algorithm 2: per-user path
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transcript:
    """One run of the protocol: thresholds τ_t, every report z′_{t,i} ∈ {−1, +1}, the estimates
    Φ′_t, the decisions and the output x̃."""

    taus: np.ndarray  # (L,)
    reports: np.ndarray  # (L, N) int8
    phis: np.ndarray  # (L,)
    left: np.ndarray  # (L,) bool
    output: float


def _flip_mask(rule: RoundRule, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """True where a report is flipped: uniform >= p (never when p = 1)."""
    if rule.keep == 1.0:
        return np.zeros(shape, dtype=bool)
    return rng.random(shape) >= rule.keep


def run_protocol(data: Any, rule: RoundRule, rng: np.random.Generator) -> Transcript:
    """Algorithm 2 as deployed, for one run, with every user's reports (minimum on [−1, 1]);
    L·N <= :data:`MAX_TRANSCRIPT_CELLS` reports."""
    x = data.sorted if isinstance(data, UnitData) else check_unit_data(data)
    check_rule(rule, x.size)
    rng = check_rng(rng)
    if rule.levels * x.size > MAX_TRANSCRIPT_CELLS:
        raise ValueError(
            f"data: a transcript of L·N = {rule.levels * x.size} reports exceeds the limit "
            f"{MAX_TRANSCRIPT_CELLS} (use sample_per_user for the outputs only)"
        )
    taus, phis, left = [], [], []
    reports = np.empty((rule.levels, x.size), dtype=np.int8)
    node = 0
    for depth in range(1, rule.levels + 1):
        tau = float(node_midpoints(depth, node))
        bits = np.where(x <= tau, 1, -1).astype(np.int8)
        z = np.where(_flip_mask(rule, x.shape, rng), -bits, bits).astype(np.int8)
        plus = int(np.count_nonzero(z == 1))
        go_left = bool(rule.goes_left(plus))
        reports[depth - 1] = z
        taus.append(tau)
        phis.append(float(rule.phi(plus)))
        left.append(go_left)
        node = 2 * node + (0 if go_left else 1)
    output = float(node_midpoints(rule.levels + 1, node))
    return Transcript(np.array(taus), reports, np.array(phis), np.array(left), output)


def sample_per_user(data: Any, rule: RoundRule, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent outputs of the per-user protocol (users × runs drawn in chunks);
    size·N·L <= :data:`PER_USER_CELLS`."""
    x = sorted_unit_data(data)
    check_rule(rule, x.size)
    size, rng = check_size(size), check_rng(rng)
    _check_per_user_cells(size, x.size, rule.levels)
    out = np.empty(size)
    chunk = max(1, CHUNK_CELLS // x.size)
    for start in range(0, size, chunk):
        runs = min(chunk, size - start)
        node = np.zeros(runs, dtype=np.int64)
        for depth in range(1, rule.levels + 1):
            tau = node_midpoints(depth, node)
            bits = x[None, :] <= tau[:, None]
            reports = bits ^ _flip_mask(rule, bits.shape, rng)
            plus = np.count_nonzero(reports, axis=1)
            node = 2 * node + np.where(rule.goes_left(plus), 0, 1)
        out[start : start + runs] = node_midpoints(rule.levels + 1, node)
    return out


def per_user_draw_limit(n: int, levels: int) -> int:
    """The most runs one per-user call may draw for N = ``n`` users and L = ``levels``."""
    return max(1, PER_USER_CELLS // max(1, n * levels))


def _check_per_user_cells(size: int, n: int, levels: int) -> None:
    """ValueError naming ``size`` when size·N·L exceeds :data:`PER_USER_CELLS`."""
    limit = per_user_draw_limit(n, levels)
    if size > limit:
        raise ParameterError(
            "size",
            f"must be at most {limit} for the per-user sampler with N = {n} users and L = {levels}"
            f" (size·N·L <= {PER_USER_CELLS:.3g} per call)",
            f"{size}: draw in several calls",
        )


# --------------------------------------------------------------------------------------------
# Algorithm 2: binomial fast path (fixed data) and lazy i.i.d. sampler
# --------------------------------------------------------------------------------------------


def _plus_counts(rule: RoundRule, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """P = Bin(k, p) + Bin(N − k, 1 − p), vectorised over runs."""
    if rule.keep == 1.0:
        return k
    return rng.binomial(k, rule.keep) + rng.binomial(rule.n - k, 1.0 - rule.keep)


def _one_binomial_run(x: np.ndarray, rule: RoundRule, rng: np.random.Generator) -> float:
    """One run of the fast path with scalar draws (the same law as the vectorised loop)."""
    node, n, p, m = 0, rule.n, rule.keep, rule.threshold
    for depth in range(1, rule.levels + 1):
        tau = -1.0 + (2 * node + 1) * 2.0 ** (1 - depth)
        k = int(np.searchsorted(x, tau, side="right"))
        plus = k if p == 1.0 else int(rng.binomial(k, p)) + int(rng.binomial(n - k, 1.0 - p))
        node = 2 * node + (0 if plus >= m else 1)
    return -1.0 + (2 * node + 1) * 2.0 ** (-rule.levels)


def sample_binomial(data: Any, rule: RoundRule, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` outputs of Algorithm 2 on fixed data, exact in law, O(L·log N) per run (pass
    :class:`UnitData` to skip the validation and sorting of the data)."""
    x = sorted_unit_data(data)
    check_rule(rule, x.size)
    size, rng = check_size(size), check_rng(rng)
    if size == 1:
        return np.array([_one_binomial_run(x, rule, rng)])
    node = np.zeros(size, dtype=np.int64)
    for depth in range(1, rule.levels + 1):
        k = sorted_counts(x, node_midpoints(depth, node))
        node = 2 * node + np.where(rule.goes_left(_plus_counts(rule, k, rng)), 0, 1)
    return node_midpoints(rule.levels + 1, node)


def _cdf_values(cdf: Callable[[np.ndarray], Any], points: np.ndarray) -> np.ndarray:
    raw = cdf(points)
    try:
        values = check_real_array(raw, "cdf(points)")
    except ValueError as exc:
        raise ParameterError("cdf", f"must map points to real numbers in [0, 1]: {exc}") from None
    if values.shape != points.shape or not np.all((values >= 0) & (values <= 1)):
        raise ParameterError(
            "cdf",
            "must map an array of points to values in [0, 1] of the same shape",
        )
    return values


def sample_iid(
    cdf: Callable[[np.ndarray], Any],
    rule: RoundRule,
    size: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``size`` outputs of Algorithm 2 on N = ``rule.n`` fresh i.i.d. draws from F = ``cdf``.

    F must be a CDF on [−1, 1] (F(1) = 1), vectorised. Each run: A ~ Bin(N, F(−1)), B = N − A;
    at τ, B_ℓ ~ Bin(B, (F(τ) − F(ℓ))/(F(r) − F(ℓ))), k = A + B_ℓ; left: B ← B_ℓ; right:
    A ← A + B_ℓ, B ← B − B_ℓ. Exact in law: the split is the conditional law of the
    counts of an i.i.d. sample given the coarser counts.
    """
    if not callable(cdf):
        raise ParameterError("cdf", "must be a callable (a vectorised CDF)", type(cdf).__name__)
    rule = check_rule(rule)
    size, rng = check_size(size), check_rng(rng)
    ends = _cdf_values(cdf, np.array([-1.0, 1.0]))
    if ends[1] != 1.0:
        raise ParameterError(
            "cdf",
            "must reach 1 at x = 1 (data lie in [−1, 1])",
            f"F(1) = {ends[1]}",
        )
    n = rule.n
    a = rng.binomial(n, ends[0], size)
    b = n - a
    node = np.zeros(size, dtype=np.int64)
    for depth in range(1, rule.levels + 1):
        width = 2.0 ** (2 - depth)
        lo = -1.0 + node.astype(float) * width
        tau = lo + width / 2.0
        f_lo, f_tau, f_hi = (_cdf_values(cdf, v) for v in (lo, tau, lo + width))
        if np.any(f_tau < f_lo) or np.any(f_hi < f_tau):
            raise ParameterError("cdf", "must be non-decreasing")
        span = f_hi - f_lo
        share = np.divide(f_tau - f_lo, span, out=np.zeros_like(span), where=span > 0)
        b_left = rng.binomial(b, np.clip(share, 0.0, 1.0))
        k = a + b_left
        go_left = rule.goes_left(_plus_counts(rule, k, rng))
        a = np.where(go_left, a, a + b_left)
        b = np.where(go_left, b_left, b - b_left)
        node = 2 * node + np.where(go_left, 0, 1)
    return node_midpoints(rule.levels + 1, node)


SAMPLERS = ("binomial", "per_user")


def check_round_fields(mechanism: Any, builder: str) -> None:
    """The fields shared by the round-statistic mechanisms, checked on the frozen dataclass
    ``mechanism`` (and normalised in place): ``sampler`` among :data:`SAMPLERS`, ``exp_u``
    matching ``epsilon`` (as the constructor ``builder`` sets them), ``epsilon`` and its per-round
    budget over ``levels``."""
    check_choice(mechanism.sampler, "sampler", SAMPLERS)
    if mechanism.exp_u is not None:
        exp_u = check_epsilon_matches_exp_u(
            mechanism.epsilon, mechanism.exp_u, mechanism.levels, builder
        )
        object.__setattr__(mechanism, "exp_u", exp_u)
    object.__setattr__(mechanism, "epsilon", check_epsilon(mechanism.epsilon))
    check_round_budget(mechanism.epsilon, mechanism.levels)


def sample_minimum(
    data: Any, rule: RoundRule, size: int, rng: np.random.Generator, sampler: str = "binomial"
) -> np.ndarray:
    """Algorithm 2's output on [−1, 1] by the chosen sampler (``"binomial"`` or ``"per_user"``)."""
    if check_choice(sampler, "sampler", SAMPLERS) == "binomial":
        return sample_binomial(data, rule, size, rng)
    return sample_per_user(data, rule, size, rng)


def maximum(
    data: Any, rule: RoundRule, size: int, rng: np.random.Generator, sampler: str = "binomial"
) -> np.ndarray:
    """The maximum by symmetry: −Alg2(−x) (ties mirrored: x >= τ counts)."""
    x = sorted_unit_data(data)
    check_choice(sampler, "sampler", SAMPLERS)
    return -sample_minimum(prepare(-x[::-1]), rule, size, rng, sampler)


__all__ = [
    "MAX_LEAF_LEVELS",
    "MAX_TRANSCRIPT_CELLS",
    "PER_USER_CELLS",
    "SAMPLERS",
    "TARGETS",
    "Transcript",
    "UnitData",
    "algorithm_1",
    "check_round_fields",
    "check_target",
    "check_unit_data",
    "counts_at_or_below",
    "leaf_values",
    "maximum",
    "midpoints",
    "node_midpoints",
    "per_user_draw_limit",
    "prepare",
    "run_protocol",
    "sample_binomial",
    "sample_iid",
    "sample_minimum",
    "sample_per_user",
    "sorted_counts",
    "sorted_unit_data",
]
