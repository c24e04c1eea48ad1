"""The exact output law of Algorithm 2 by a computation over its search tree.

The tree computation is ours (the paper has no exact law; ``notes/fukuchi19.md``, decisions).

Depth-t node j (interval [−1 + j·2^{2−t}, −1 + (j+1)·2^{2−t}], midpoint τ) sends its mass to child
2j with P(go left | k(τ)) and to child 2j + 1 with the complement; leaf j is the output
−1 + (j + ½)·2^{1−L}. P(go left | k) depends on k only, so it is computed once per distinct k.

* :func:`leaf_probabilities_exact` — all 2^L leaves, exactly: Fractions when e^{ε/L} is rational
  (or ε = inf), mpmath at 60 digits otherwise. :func:`output_law` wraps it as a
  :class:`~dpquant.reference.distributions.DiscreteLaw` (what the auditor's exact mode uses).
* :func:`leaf_probabilities` — floats with pruning of nodes whose mass is below ``prune`` (the
  pruned mass is reported), for N up to 2^20 and more.
* :func:`iid_leaf_probabilities_exact` — the law under i.i.d. data from an exactly given CDF, by
  the same tree over the states (A, B) of the lazy sampler (tiny N).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.round_statistic import (
    Exact,
    RoundRule,
    check_exact_work,
    check_rule,
    left_probability,
    left_probability_exact,
)
from dpquant.reference.ldp_minimum.schedules import check_levels
from dpquant.reference.ldp_minimum.search import (
    leaf_values,
    node_midpoints,
    sorted_counts,
    sorted_unit_data,
)
from dpquant.reference.validation import (
    check_finite,
    check_fraction,
    check_probability,
    check_real_array,
)

MAX_EXACT_LEVELS = 16  # 2^16 leaves
MAX_FLOAT_NODES = 1 << 20
"""The most nodes the pruned float tree keeps at one depth (raise ``prune`` beyond)."""
MAX_FLOAT_COUNTS = 50_000
"""The most distinct counts k whose decision law the pruned float tree evaluates (about 10 s)."""
MAX_IID_WORK = 2 * 10**6
"""The i.i.d. exact law's budget: 2^L·N^3 state updates (about 10 s)."""


def _exact_rule(rule: RoundRule, n: int) -> None:
    check_rule(rule, n)


def distinct_counts(sorted_data: np.ndarray, levels: int) -> int:
    """The number of distinct k(τ) over every τ of the search tree (the exact law's cost)."""
    taus = np.concatenate(
        [node_midpoints(d, np.arange(2 ** (d - 1), dtype=np.int64)) for d in range(1, levels + 1)]
    )
    return int(np.unique(sorted_counts(sorted_data, taus)).size)


def check_exact_tree(x: np.ndarray, rule: RoundRule, what: str = "data, rule") -> None:
    """ValueError naming the inputs when the exact tree law on ``x`` would exceed the exact-law
    budget (:data:`.round_statistic.MAX_EXACT_WORK`) or :data:`MAX_EXACT_LEVELS`."""
    if rule.levels > MAX_EXACT_LEVELS:
        raise ParameterError(
            "levels",
            f"must be at most {MAX_EXACT_LEVELS} for the exact law (2^L leaves); use "
            "leaf_probabilities for the pruned float law",
            rule.levels,
        )
    check_exact_work(x.size, distinct_counts(x, rule.levels), rule.exp_u, what)


def leaf_probabilities_exact(data: Any, rule: RoundRule) -> list[Exact]:
    """P(x̃ = leaf j), j = 0..2^L − 1, for Algorithm 2 (minimum) on fixed data in [−1, 1].

    Exact rationals when ``rule.exp_u`` is given or ε = inf; mpmath (60 digits) otherwise.
    """
    x = sorted_unit_data(data)
    _exact_rule(rule, x.size)
    check_exact_tree(x, rule)
    cache: dict[int, Exact] = {}

    def left(k: int) -> Exact:
        if k not in cache:
            cache[k] = left_probability_exact(rule, k)
        return cache[k]

    exact = isinstance(rule.keep_exact(), Fraction)
    mass: list[Exact] = [Fraction(1) if exact else to_mpf(1)]
    with workdps():
        for depth in range(1, rule.levels + 1):
            ks = sorted_counts(x, node_midpoints(depth, np.arange(len(mass))))
            nxt: list[Exact] = []
            for m, k in zip(mass, ks.tolist(), strict=True):
                pl = left(k)
                nxt.extend((m * pl, m * (1 - pl)))
            mass = nxt
    return mass


def output_law(data: Any, rule: RoundRule) -> DiscreteLaw:
    """The exact output law of Algorithm 2 (minimum, on [−1, 1]) as a DiscreteLaw over the leaves."""
    probs = leaf_probabilities_exact(data, rule)
    return DiscreteLaw.from_probabilities(leaf_values(rule.levels).tolist(), probs)


@dataclass(frozen=True)
class SparseLeafLaw:
    """Leaf probabilities in floats, only on the leaves the pruned tree reached."""

    levels: int
    leaves: np.ndarray  # leaf indices j, increasing
    probabilities: np.ndarray
    pruned: float  # total mass dropped (an upper bound on the error of any expectation of a
    #                bounded function, times its range)

    @property
    def values(self) -> np.ndarray:
        return node_midpoints(self.levels + 1, self.leaves)

    def expectation(self, fn: Callable[[np.ndarray], np.ndarray]) -> float:
        """Σ_j P(leaf j)·fn(x̃_j) over the kept leaves (``fn`` vectorised, finite values)."""
        if not callable(fn):
            raise ParameterError("fn", "must be a callable", type(fn).__name__)
        values = check_real_array(fn(self.values), "fn(values)")
        if values.shape != self.values.shape:
            raise ParameterError(
                "fn",
                "must map the array of outputs to an array of the same shape",
            )
        return float(np.sum(self.probabilities * values))

    def mean_absolute_error(self, target: float) -> float:
        """E|x̃ − target| over the kept leaves (the pruned mass adds at most 2·pruned)."""
        target = check_finite(target, "target")
        return self.expectation(lambda v: np.abs(v - target))

    def error_quantile(self, target: float, q: float) -> float:
        """The q-quantile of |x̃ − target| (inf{e : P(|x̃ − target| <= e) >= q})."""
        target = check_finite(target, "target")
        q = check_probability(q, "q")
        err = np.abs(self.values - target)
        order = np.argsort(err, kind="stable")
        cum = np.cumsum(self.probabilities[order])
        idx = int(np.searchsorted(cum, q * cum[-1] * (1 - 1e-12), side="left"))
        return float(err[order][min(idx, err.size - 1)])


def leaf_probabilities(data: Any, rule: RoundRule, prune: float = 1e-15) -> SparseLeafLaw:
    """The output law in floats by the pruned tree: nodes with mass below ``prune`` are dropped.

    At most :data:`MAX_FLOAT_NODES` nodes per depth and :data:`MAX_FLOAT_COUNTS` distinct
    counts k (ValueError naming ``prune`` beyond: raise it)."""
    x = sorted_unit_data(data)
    _exact_rule(rule, x.size)
    prune = check_probability(prune, "prune", open_right=True)
    cache: dict[int, tuple[float, float]] = {}
    nodes = np.zeros(1, dtype=np.int64)
    mass = np.ones(1)
    pruned = 0.0
    for depth in range(1, rule.levels + 1):
        if nodes.size > MAX_FLOAT_NODES:
            raise ParameterError(
                "prune",
                "must be larger for these data and levels: the pruned tree keeps more than "
                f"{MAX_FLOAT_NODES} nodes at depth {depth} (prune = {prune!r})",
            )
        ks = sorted_counts(x, node_midpoints(depth, nodes))
        unique, inverse = np.unique(ks, return_inverse=True)
        new = [k for k in unique.tolist() if k not in cache]
        if len(cache) + len(new) > MAX_FLOAT_COUNTS:
            raise ParameterError(
                "prune",
                "must be larger for these data and levels: the pruned tree needs the decision law "
                f"at more than {MAX_FLOAT_COUNTS} distinct counts (prune = {prune!r})",
            )
        for k in new:
            cache[k] = left_probability(rule, k)
        table = np.array([cache[k] for k in unique.tolist()], dtype=float).reshape(-1, 2)
        pl, pr = table[inverse.ravel(), 0], table[inverse.ravel(), 1]
        children = np.stack([2 * nodes, 2 * nodes + 1], axis=1).ravel()
        child_mass = np.stack([mass * pl, mass * pr], axis=1).ravel()
        keep = child_mass >= prune
        pruned += float(child_mass[~keep].sum())
        nodes, mass = children[keep], child_mass[keep]
    return SparseLeafLaw(rule.levels, nodes, mass, pruned)


# --------------------------------------------------------------------------------------------
# i.i.d. data from an exactly known CDF
# --------------------------------------------------------------------------------------------


def _binomial_row(trials: int, share: Exact) -> list[Exact]:
    if isinstance(share, Fraction):
        return [
            math.comb(trials, j) * share**j * (1 - share) ** (trials - j) for j in range(trials + 1)
        ]
    return [
        mpmath.binomial(trials, j) * share**j * (1 - share) ** (trials - j)
        for j in range(trials + 1)
    ]


def iid_leaf_probabilities_exact(cdf: Callable[[Fraction], Any], rule: RoundRule) -> list[Exact]:
    """P(x̃ = leaf j) when the N = ``rule.n`` values are i.i.d. from F, exactly.

    ``cdf`` maps an exact dyadic point (a Fraction in [−1, 1]) to F there: a Fraction (keeps the
    result exact when the rule is) or anything mpmath accepts. The tree runs over the lazy
    sampler's states (A, B) = (#{x <= ℓ}, #{ℓ < x <= r}): O(2^L·N^3) operations, for tiny N.
    """
    if not callable(cdf):
        raise ParameterError("cdf", "must be a callable (an exact CDF)", type(cdf).__name__)
    rule = check_rule(rule)
    n = rule.n
    if rule.levels > 12 or n > 40 or 2**rule.levels * n**3 > MAX_IID_WORK:
        raise ValueError(
            f"rule: iid_leaf_probabilities_exact is for tiny cases (levels <= 12, n <= 40, "
            f"2^L·n^3 <= {MAX_IID_WORK}), got levels = {rule.levels}, n = {n}"
        )
    exact = isinstance(rule.keep_exact(), Fraction)

    def F(point: Fraction) -> Exact:
        value = cdf(point)
        if isinstance(value, bool | np.bool_) or not isinstance(
            value, int | float | Fraction | mpmath.mpf | np.integer | np.floating
        ):
            raise ParameterError("cdf", "must return real numbers in [0, 1]", f"{value!r:.80}")
        if exact and isinstance(value, int | Fraction | np.integer):
            value = Fraction(int(value)) if isinstance(value, np.integer) else Fraction(value)
        elif not isinstance(value, mpmath.mpf):
            with workdps():
                value = to_mpf(value, "cdf(x)")
        if not 0 <= value <= 1:
            raise ParameterError("cdf", "must return values in [0, 1]", f"{value} at {point}")
        return value

    if F(Fraction(1)) != 1:
        raise ParameterError("cdf", "must reach 1 at x = 1 (data lie in [−1, 1])")
    cache: dict[int, Exact] = {}

    def left(k: int) -> Exact:
        if k not in cache:
            cache[k] = left_probability_exact(rule, k)
        return cache[k]

    with workdps():
        f0 = F(Fraction(-1))
        start: dict[tuple[int, int], Exact] = {
            (a, n - a): w for a, w in enumerate(_binomial_row(n, f0)) if w != 0
        }
        states: list[dict[tuple[int, int], Exact]] = [start]
        for depth in range(1, rule.levels + 1):
            width = Fraction(2) ** (2 - depth)
            nxt: list[dict[tuple[int, int], Exact]] = []
            for j, node_states in enumerate(states):
                lo = -1 + j * width
                f_lo, f_tau, f_hi = F(lo), F(lo + width / 2), F(lo + width)
                span = f_hi - f_lo
                share = (f_tau - f_lo) / span if span != 0 else 0 * f_lo
                go_l: dict[tuple[int, int], Exact] = {}
                go_r: dict[tuple[int, int], Exact] = {}
                for (a, b), w in node_states.items():
                    for bl, wb in enumerate(_binomial_row(b, share)):
                        if wb == 0:
                            continue
                        pl = left(a + bl)
                        key_l, key_r = (a, bl), (a + bl, b - bl)
                        go_l[key_l] = go_l.get(key_l, 0 * w) + w * wb * pl
                        go_r[key_r] = go_r.get(key_r, 0 * w) + w * wb * (1 - pl)
                nxt.extend((go_l, go_r))
            states = nxt
        return [sum(s.values(), Fraction(0) if exact else to_mpf(0)) for s in states]


def mean_absolute_error_exact(probabilities: Sequence[Exact], levels: int, target: Any) -> Exact:
    """E|x̃ − target| = Σ_j P(leaf j)·|x̃_j − target| (exact for Fraction inputs); the 2^L
    probabilities of the leaves (L <= :data:`MAX_EXACT_LEVELS`)."""
    levels = check_levels(levels)
    if levels > MAX_EXACT_LEVELS:
        raise ParameterError("levels", f"must be at most {MAX_EXACT_LEVELS} here", levels)
    if isinstance(probabilities, str | bytes) or not hasattr(probabilities, "__len__"):
        raise ParameterError("probabilities", "must be a sequence of 2^levels probabilities")
    if len(probabilities) != 2**levels:
        raise ParameterError(
            "probabilities",
            f"must hold the 2^levels = {2 ** levels} leaf probabilities",
            len(probabilities),
        )
    for p in probabilities:
        if isinstance(p, bool | np.bool_) or not isinstance(p, Fraction | int | mpmath.mpf):
            raise ParameterError("probabilities", "must be Fractions or mpf", f"{p!r:.80}")
        if not 0 <= p <= 1:
            raise ParameterError("probabilities", "must lie in [0, 1]", p)
    if isinstance(target, mpmath.mpf):
        if not mpmath.isfinite(target):
            raise ParameterError("target", "must be a finite real number", target)
        t = target
    else:
        t = check_fraction(target, "target")
    values = [Fraction(-1) + Fraction(2 * j + 1, 2**levels) for j in range(2**levels)]
    with workdps():
        return sum((p * abs(v - t) for p, v in zip(probabilities, values, strict=True)), 0 * t)


__all__ = [
    "MAX_EXACT_LEVELS",
    "MAX_FLOAT_COUNTS",
    "MAX_FLOAT_NODES",
    "MAX_IID_WORK",
    "SparseLeafLaw",
    "check_exact_tree",
    "distinct_counts",
    "iid_leaf_probabilities_exact",
    "leaf_probabilities",
    "leaf_probabilities_exact",
    "mean_absolute_error_exact",
    "output_law",
]
