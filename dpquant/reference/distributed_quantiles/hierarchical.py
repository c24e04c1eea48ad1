"""The Hierarchical Mechanism (Cormode et al. 2019; aamand25 App. D and Sec. 5 experiments).

A non-adaptive ε-LDP protocol for the whole CDF, the non-adaptive baseline of Fig. 1a / Fig. 5.

* **Tree.** A b-ary tree over [B] (branching b, 4 in the experiments, 2 in App. D). With
  k = ⌈log_b B⌉ the domain is padded up to D = b^k (values B + 1..D hold no user; when B = b^k
  nothing changes). Level ℓ = 1..k has the b^ℓ b-adic blocks of size b^{k−ℓ}; level k holds the
  singletons. The root (level 0) is excluded, as in the authors' code: k levels for B = b^k
  (App. I; ``notes/aamand25.md``, "HM").
* **Users.** Each user picks a level uniformly at random from {1, ..., k}, independently, and
  reports the node holding their value through a unary-encoding frequency oracle over the b^ℓ
  nodes of that level (OUE by default, as the authors' code; SUE with ε/2 per bit for App. D;
  :mod:`dpquant.reference.distributed_quantiles.unary_encoding`). The level is data-independent and one
  report is ε-LDP, so the protocol is ε-LDP (App. D).
* **Server.** Per-level frequency estimates (count − n_ℓ·q)/((p − q)·n_ℓ), no consistency
  post-processing (the authors' code, as App. I runs it). A level that no user picked is estimated
  as all zeros (our choice; the paper is silent; this has probability at most k·(1 − 1/k)^n). The
  CDF at x is the prefix [1, x] decomposed into whole tree nodes: at most b − 1 siblings per level
  (all b children of the root when x = D). The released coin is argmin_x |F̂(x) − τ| over x ∈ [B],
  the smallest such x on ties (``numpy.argmin``), as "released the coin with closest value to 1/2"
  (App. I).

Sampling is vectorised: one ``rng.integers`` call for the levels, one ``bincount`` for the true
node counts and :func:`ue_counts` per level (two binomial draws per node), so B = 4^9 costs a few
tens of milliseconds. With ``sampler="counts"`` the levels are not drawn user by user: the users
holding each distinct value split over the k levels as one multinomial (the i.i.d. uniform
choices aggregated), so a run costs O(distinct values · k + nodes) whatever n is; the node counts
have the same joint law.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.population import SAMPLERS, Population
from dpquant.reference.distributed_quantiles.threshold_query import CELL_BUDGET
from dpquant.reference.distributed_quantiles.unary_encoding import (
    check_variant,
    ue_counts,
    ue_estimate,
    ue_probabilities_mp,
    ue_reports,
)
from dpquant.reference.distributed_quantiles.users import (
    MAX_B,
    UserValueRandomizer,
    check_domain_size,
    check_integers,
    check_users,
)
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import workdps
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_choice,
    check_data,
    check_epsilon,
    check_int,
    check_probability,
    check_rng,
)

# The exact law of one report enumerates the 2^{b^ℓ} bit vectors of every level: cap the leaves.
MAX_RANDOMIZER_LEAVES = 16

MAX_BRANCHING = 1024
"""The largest branching factor b (a prefix has up to b − 1 nodes per level)."""

MAX_TREE_LEAVES = 2**22
"""The largest padded leaf level b^k that the protocol functions allocate (B <= 4^11 = 2^22 for
b = 4: a few arrays of b^k numbers, some tens of MB)."""


def check_branching(branching: Any) -> int:
    """The tree's branching factor: an integer in [2, :data:`MAX_BRANCHING`]."""
    return check_int(branching, "branching", minimum=2, maximum=MAX_BRANCHING)


def tree_depth(B: int, branching: int = 4) -> int:
    """k = ⌈log_b B⌉ >= 1: the number of levels (root excluded) of the padded tree over [b^k]."""
    B, b = check_domain_size(B), check_branching(branching)
    k, size = 1, b
    while size < B:
        k, size = k + 1, size * b
    return k


def _allocated_depth(B: int, b: int) -> int:
    """:func:`tree_depth`, refusing a padded leaf level b^k above :data:`MAX_TREE_LEAVES` (the
    functions that hold one number per tree node)."""
    k = tree_depth(B, b)
    if b**k > MAX_TREE_LEAVES:
        raise ValueError(
            f"B and branching must be small enough for the tree to fit in memory: the padded "
            f"leaf level b^k = {b}^{k} must be <= {MAX_TREE_LEAVES}, got B = {B}"
        )
    return k


def node_index(values: Any, level: int, k: int, branching: int) -> np.ndarray:
    """0-based index of the level-ℓ node (b-adic block of size b^{k−ℓ}) holding each value."""
    b = check_branching(branching)
    k = check_int(k, "k", minimum=1, maximum=62)
    level = check_int(level, "level", minimum=1, maximum=k)
    scalar = not isinstance(values, list | tuple | range | np.ndarray)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim <= 1:
        scalar = values.ndim == 0
        x = values.reshape(-1).astype(np.int64, copy=False)
        if x.size and (values.min() < 1 or values.max() > MAX_B):
            raise ParameterError("values", f"must lie in [1, {MAX_B}]")
    else:
        x = check_integers([values] if scalar else values, "values", minimum=1, maximum=MAX_B)
    block = b ** (k - level)
    out = np.zeros_like(x) if block > MAX_B else (x - 1) // block  # huge blocks: all in the first
    return out.reshape(()) if scalar else out


def true_level_counts(users: Any, B: int, branching: int = 4) -> list[np.ndarray]:
    """Exact node counts of all users at every level ℓ = 1..k (entry ℓ − 1 has length b^ℓ)."""
    b = check_branching(branching)
    x = check_users(users, B)
    k = _allocated_depth(B, b)
    return [np.bincount(node_index(x, lv, k, b), minlength=b**lv) for lv in range(1, k + 1)]


def prefix_nodes(x: int, B: int, branching: int = 4) -> list[tuple[int, int]]:
    """The decomposition of the prefix [1, x] into tree nodes, as (level, 0-based node) pairs.

    At level ℓ the nodes are the siblings left of the level-ℓ ancestor of the first value after
    the prefix: at most b − 1 per level, except all b children of the root when x = b^k (App. D:
    "any range can be partitioned into at most 2 log B subtrees, two for each level" for b = 2).
    """
    B, b = check_domain_size(B), check_branching(branching)
    x = check_int(x, "x", minimum=1)
    if x > B:
        raise ParameterError("x", f"must lie in [1, {B}]", x)
    k = tree_depth(B, b)
    out: list[tuple[int, int]] = []
    for level in range(1, k + 1):
        hi = x // b ** (k - level)  # complete level-ℓ nodes inside the 0-based prefix [0, x)
        lo = 0 if level == 1 else (hi // b) * b
        out.extend((level, j) for j in range(lo, hi))
    return out


def prefix_cdf(level_values: list[Any], B: int, branching: int = 4) -> np.ndarray:
    """Σ of the node values over :func:`prefix_nodes` (x), for every x = 1..B (App. D).

    ``level_values[ℓ − 1]`` holds one value per level-ℓ node (length b^ℓ). With the true node
    counts (integers) this is exactly n·F(x); with frequency estimates it is the HM's F̂(x).
    Built top-down: the partial sums of the siblings left of each node, repeated b times per level.
    """
    B, b = check_domain_size(B), check_branching(branching)
    k = _allocated_depth(B, b)
    if not isinstance(level_values, list | tuple):
        raise ParameterError(
            "level_values",
            f"must be a list of k = {k} arrays",
            type(level_values).__name__,
        )
    if len(level_values) != k:
        raise ParameterError(
            "level_values",
            f"must hold k = {k} arrays (levels 1..k)",
            len(level_values),
        )
    acc = np.zeros(1)
    for level, values in enumerate(level_values, start=1):
        v = _level_array(values, f"level_values[{level - 1}]")
        if v.shape != (b**level,):
            raise ParameterError(
                f"level_values[{level - 1}]",
                f"must have shape ({b ** level},)",
                v.shape,
            )
        groups = v.reshape(-1, b)
        left = np.zeros_like(groups)  # the sum of the siblings left of each node
        left[:, 1:] = np.cumsum(groups[:, :-1], axis=1)
        acc = np.repeat(acc, b) + left.ravel() if level > 1 else left.ravel()
        if level == 1:
            total = groups.sum()
    full = np.concatenate([acc, [total]])  # index j = 0-based prefix length, j = D: everything
    return full[1 : B + 1]


def _level_array(values: Any, name: str) -> np.ndarray:
    """One level's node values: integer arrays and exact rationals (ints and ``Fraction``s, an
    object array) stay exact; anything else goes through :func:`check_data` (floats)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values  # exact node counts stay integers (n·F(x) exactly)
    if isinstance(values, np.ndarray | list | tuple):
        flat = values.ravel().tolist() if isinstance(values, np.ndarray) else list(values)
        if (
            flat
            and all(isinstance(v, Fraction | int) and not isinstance(v, bool) for v in flat)
            and any(isinstance(v, Fraction) for v in flat)
        ):
            if any(abs(v) > MAX_FLOAT for v in flat):
                raise ParameterError(name, "must hold values that fit a float64")
            return np.array(flat, dtype=object)
    return check_data(values, name)


def _check_oracle(oracle: Any) -> str:
    return check_variant(oracle, "oracle")


def _level_node_counts(
    users: Any, B: int, k: int, b: int, rng: np.random.Generator, levels: Any, sampler: str
) -> list[np.ndarray]:
    """The node counts of the users who picked each level ℓ = 1..k (entry ℓ − 1: b^ℓ counts)."""
    if sampler == "counts":
        if levels is not None:
            raise ValueError("levels fixes each user's level: it needs sampler='per_user'")
        values, mult = Population.of(users, B).distinct
        split = rng.multinomial(mult, np.full(k, 1.0 / k))  # (distinct values, k)
        return [
            np.bincount(node_index(values, lv, k, b), weights=split[:, lv - 1], minlength=b**lv)
            .round()
            .astype(np.int64)
            for lv in range(1, k + 1)
        ]
    x = np.array(users.values) if isinstance(users, Population) else check_users(users, B)
    if levels is None:
        levels = rng.integers(1, k + 1, size=x.size)  # uniform and independent per user
    else:
        levels = _check_levels(levels, x.size, k)
    return [
        np.bincount(node_index(x[levels == lv], lv, k, b), minlength=b**lv)
        for lv in range(1, k + 1)
    ]


def _check_levels(levels: Any, n: int, k: int) -> np.ndarray:
    out = check_integers(levels, "levels", minimum=1, maximum=k)
    if out.shape != (n,):
        raise ParameterError("levels", f"must hold one level per user (n = {n})", out.size)
    return out


def level_estimates(
    users: Any,
    B: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    branching: int = 4,
    oracle: str = "oue",
    levels: Any = None,
    sampler: str = "per_user",
) -> tuple[list[np.ndarray], np.ndarray]:
    """One run of the users' side and the per-level frequency oracles (App. D; App. I).

    Returns (estimates, level_sizes): ``estimates[ℓ − 1]`` are the b^ℓ node-frequency estimates
    of level ℓ (zeros if no user picked ℓ) and ``level_sizes[ℓ − 1]`` = n_ℓ. ``levels`` (one per
    user, in 1..k) fixes the users' level choices, for tests; by default each user draws a level
    uniformly and independently. ``users`` may be a :class:`.population.Population`;
    ``sampler="counts"`` draws the level choices as one multinomial per distinct value (the same
    law, O(distinct values · k) instead of O(n · k)).
    """
    b = check_branching(branching)
    B = check_domain_size(B)
    epsilon, oracle, rng = check_epsilon(epsilon), _check_oracle(oracle), check_rng(rng)
    sampler = check_choice(sampler, "sampler", SAMPLERS)
    if isinstance(users, Population) and users.B != B:
        raise ParameterError("users", f"is a Population over [1, {users.B}], not [1, {B}]")
    k = _allocated_depth(B, b)
    counts = _level_node_counts(users, B, k, b, rng, levels, sampler)
    estimates, level_sizes = [], np.zeros(k, dtype=np.int64)
    for level in range(1, k + 1):
        true = counts[level - 1]  # the level-ℓ node counts of the users who picked level ℓ
        n_level = int(true.sum())
        level_sizes[level - 1] = n_level
        if n_level == 0:
            estimates.append(np.zeros(b**level))
            continue
        reports = ue_counts(true, epsilon, rng, oracle)
        estimates.append(ue_estimate(reports, n_level, epsilon, oracle))
    return estimates, level_sizes


def hierarchical_cdf(
    users: Any,
    B: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    branching: int = 4,
    oracle: str = "oue",
    sampler: str = "per_user",
) -> np.ndarray:
    """The HM's CDF estimate F̂(x) for x = 1..B (prefix decomposition of the level estimates;
    ``sampler`` as in :func:`level_estimates`)."""
    estimates, _ = level_estimates(
        users, B, epsilon, rng, branching=branching, oracle=oracle, sampler=sampler
    )
    return prefix_cdf(estimates, B, branching)


def hierarchical_quantile(
    users: Any,
    B: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    tau: float = 0.5,
    branching: int = 4,
    oracle: str = "oue",
    sampler: str = "per_user",
) -> int:
    """The Hierarchical Mechanism's τ-quantile: argmin_{x ∈ [B]} |F̂(x) − τ| (App. D, App. I).

    Ties go to the smallest x. ε-LDP for every user (one unary-encoding report at one random level).
    ``sampler`` as in :func:`level_estimates` (``"counts"``: the same law, O(distinct values)).
    """
    tau = check_probability(tau, "tau", open_left=True, open_right=True)
    cdf = hierarchical_cdf(
        users, B, epsilon, rng, branching=branching, oracle=oracle, sampler=sampler
    )
    return closest_coin(cdf, tau)


def closest_coin(cdf: Any, tau: float) -> int:
    """The coin x in [B] whose CDF value is closest to τ (``cdf[x − 1]`` = F̂(x)); ties go to the
    smallest x (App. I: "released the coin with closest value to 1/2")."""
    values = check_data(cdf, "cdf")
    tau = check_probability(tau, "tau")
    with np.errstate(over="ignore"):  # |F̂ − τ| of a huge F̂ is a huge (or infinite) distance
        return int(np.argmin(np.abs(values - tau))) + 1


def hierarchical_median(
    users: Any,
    B: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    branching: int = 4,
    oracle: str = "oue",
    sampler: str = "per_user",
) -> int:
    """:func:`hierarchical_quantile` at τ = 1/2 (the experiments of Sec. 5)."""
    return hierarchical_quantile(
        users, B, epsilon, rng, tau=0.5, branching=branching, oracle=oracle, sampler=sampler
    )


@dataclass(frozen=True)
class HierarchicalRandomizer(UserValueRandomizer):
    """One user's HM report as a local-DP :class:`dpquant.reference.core.Mechanism`, for small B.

    The report (level ℓ, bit vector z of the b^ℓ level-ℓ nodes) is flattened into the integer
    code offset_ℓ + Σ_j z_j·2^j, with offset_ℓ = Σ_{ℓ' < ℓ} 2^{b^ℓ'}. ``exact(x)`` is the mixture
    over the uniform level of the unary-encoding laws: a :class:`DiscreteLaw` over codes. Needs
    b^k <= 16 leaves (the law has Σ_ℓ 2^{b^ℓ} atoms).
    """

    B: int
    epsilon: float
    branching: int = 4
    oracle: str = "oue"
    k: int = field(init=False, repr=False)

    max_draws: ClassVar[int] = CELL_BUDGET // MAX_RANDOMIZER_LEAVES

    def __post_init__(self) -> None:
        object.__setattr__(self, "B", check_domain_size(self.B))
        object.__setattr__(self, "branching", check_branching(self.branching))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "oracle", _check_oracle(self.oracle))
        k = tree_depth(self.B, self.branching)
        if self.branching**k > MAX_RANDOMIZER_LEAVES:
            raise ValueError(
                f"B and branching must be small: the padded leaf level b^k = "
                f"{self.branching}^{k} = {self.branching**k} must be <= {MAX_RANDOMIZER_LEAVES} "
                "for the exact report law"
            )
        object.__setattr__(self, "k", k)

    @property
    def output_range(self) -> tuple[float, float]:
        return (0.0, float(self.offsets[-1] - 1))

    @property
    def offsets(self) -> tuple[int, ...]:
        """Code offset of each level ℓ = 1..k, and the total number of codes last."""
        out = [0]
        for level in range(1, self.k + 1):
            out.append(out[-1] + 2 ** (self.branching**level))
        return tuple(out)

    def decode(self, code: int) -> tuple[int, np.ndarray]:
        """(level, bit vector) of a report code."""
        offsets = self.offsets
        code = check_int(code, "code", minimum=0)
        if code >= offsets[-1]:
            raise ParameterError("code", f"must lie in [0, {offsets[-1] - 1}]", code)
        level = int(np.searchsorted(offsets, code, side="right"))
        width = self.branching**level
        local = code - offsets[level - 1]
        return level, ((local >> np.arange(width)) & 1).astype(np.int8)

    def _draw(self, x: int, size: int, rng: np.random.Generator) -> np.ndarray:
        levels = rng.integers(1, self.k + 1, size=size)
        codes = np.zeros(size, dtype=np.int64)
        offsets = self.offsets
        for level in range(1, self.k + 1):  # a loop over the k levels, not over users
            rows = np.flatnonzero(levels == level)
            width = self.branching**level
            node = int(node_index(x, level, self.k, self.branching)) + 1
            bits = ue_reports(np.full(rows.size, node), width, self.epsilon, rng, self.oracle)
            codes[rows] = offsets[level - 1] + bits.astype(np.int64) @ (1 << np.arange(width))
        return codes

    def _law(self, x: int) -> DiscreteLaw:
        p, q = ue_probabilities_mp(self.epsilon, self.oracle)
        offsets = self.offsets
        support: list[int] = []
        logs: list[mpmath.mpf] = []
        with workdps():
            log_k = mpmath.log(self.k)
            for level in range(1, self.k + 1):
                width = self.branching**level
                node = int(node_index(x, level, self.k, self.branching))
                # log P(z) depends only on z_node and on the number of other 1-bits
                table = {
                    (own, others): (mpmath.log(p) if own else mpmath.log(1 - p))
                    + others * mpmath.log(q)
                    + (width - 1 - others) * mpmath.log(1 - q)
                    - log_k
                    for own in (0, 1)
                    for others in range(width)
                }
                local = np.arange(2**width, dtype=np.int64)
                own = (local >> node) & 1
                ones = np.zeros(local.size, dtype=np.int64)
                for j in range(width):
                    ones += (local >> j) & 1
                for code, o, total in zip(local.tolist(), own.tolist(), ones.tolist(), strict=True):
                    support.append(offsets[level - 1] + code)
                    logs.append(table[(o, total - o)])
        return DiscreteLaw(support, logs)


__all__ = [
    "MAX_RANDOMIZER_LEAVES",
    "HierarchicalRandomizer",
    "check_branching",
    "closest_coin",
    "hierarchical_cdf",
    "hierarchical_median",
    "hierarchical_quantile",
    "level_estimates",
    "node_index",
    "prefix_cdf",
    "prefix_nodes",
    "tree_depth",
    "true_level_counts",
]
