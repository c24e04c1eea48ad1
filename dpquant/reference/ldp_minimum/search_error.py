"""Lemma 1 of fukuchi19: the search error E|x̃ − F̃*(γ)| of Algorithm 2 (Eqs. 13–14).

Algorithm 2 is a noisy binary search for the γ-quantile q = F̃*(γ) = x_(⌈γN⌉) (Sec. B.1,
Eq. 12). Round t makes a *mistake* when it moves away from q: M_t = {τ_t < q, Φ′ >= γ} ∪
{τ_t > q, Φ′ < γ} (Eq. 13, read as intended). Lemma 1 states, for any δ > 0,

    E|x̃ − q| "=" δ + E[max_t P{M_t}·1{|q − τ_t| > δ}] + 2^{−L}          (Eq. 14),

which should read "<=" and is false even then: a far mistake in an early round costs up to the
domain width 2, not Σ2^{−t} (Eqs. 34–35 fail). The smallest counterexample and the test are in
``notes/fukuchi19.md`` (errata, Lemma 1).

**Corrected Lemma 1.** Call a mistake *far* when |τ_t − q| > δ, and let π_δ be the largest
conditional probability of a far mistake over the reachable τ. For 0 < γ <= 1 and every δ >= 0,

    E|x̃ − q| <= δ + 2^{−L} + 2·P(some far mistake) <= δ + 2^{−L} + 2(1 − (1 − π_δ)^L).

Proof: while no round has moved away from q, q stays in the current interval. If no round ever
does, |x̃ − q| <= 2^{−L}. Otherwise let t* be the first such round; it is not far, so
|τ_{t*} − q| <= δ, and say q < τ_{t*} (the other side is symmetric). Every later τ_t lies above
τ_{t*} >= q, where moving away from q means going right, which (no far mistake) happens only when
τ_t − q <= δ; so the final interval's left end is at most q + δ and at least q, and
|x̃ − q| <= δ + 2^{−L}. On the event of a far mistake |x̃ − q| <= 2 (both lie in [−1, 1]). The
second inequality chains the rounds' conditional probabilities.

:func:`lemma_1_report` computes both sides exactly on the tree, path by path (2^L paths,
L <= :data:`MAX_TREE_LEVELS`); :func:`lemma_1_printed_infimum` minimises the printed right-hand
side over δ > 0; :func:`far_mistake_term` is the corrected bound's last term, which Theorems 4
and 5 use (:mod:`.upper_bounds`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.bound_inputs import exact_real
from dpquant.reference.ldp_minimum.exact_law import distinct_counts
from dpquant.reference.ldp_minimum.round_statistic import (
    Exact,
    RoundRule,
    check_exact_work,
    check_rule,
    left_probability_exact,
)
from dpquant.reference.ldp_minimum.schedules import check_levels
from dpquant.reference.ldp_minimum.search import check_unit_data, sorted_counts
from dpquant.reference.validation import check_choice, check_fraction

MAX_TREE_LEVELS = 12
"""The most levels of the exact path-by-path tree of Lemma 1 (2^L paths)."""
MAX_INFIMUM_WORK = 5 * 10**6
""":func:`lemma_1_printed_infimum` evaluates the printed right-hand side at every distance of
the tree: (distances × paths × L) at most this (about 10 s)."""
READINGS = ("conditional", "marginal")
"""What P{M_t} of Eq. 14 means: the mistake probability given the history (as in the proof's
Eq. 36) or the marginal probability of a mistake at round t."""


def far_mistake_term(e: Any, levels: int) -> mpmath.mpf:
    """2(1 − (1 − e)^L): twice the chance of at least one far mistake in L rounds when each round
    errs with conditional probability at most e (corrected Lemma 1, second form; the module's
    docstring)."""
    levels = check_levels(levels)
    e = exact_real(e, "e")
    with workdps():
        e = to_mpf(e)
        if not 0 <= e <= 1:
            raise ParameterError("e", "must lie in [0, 1]", e)
        return 2 * (1 - (1 - e) ** levels)


@dataclass(frozen=True)
class Lemma1Report:
    """The two sides of Lemma 1 (Eq. 14) for fixed data, one rule and one δ, exactly.

    ``error`` = E|x̃ − q|, q = F̃*(γ); ``printed_rhs`` = δ + E[max_t P{M_t | τ_t}·1{|q − τ_t| > δ}]
    + 2^{−L} (P{M_t} read as the conditional mistake probability given the history, as in the
    proof's Eq. 36); ``far_mistake_probability`` = P(some round with |τ_t − q| > δ moves away from
    q); ``max_far_mistake`` = π_δ, the largest conditional probability of such a mistake over the
    reachable τ; ``corrected_rhs`` = δ + 2^{−L} + 2(1 − (1 − π_δ)^L); ``tight_rhs`` = δ + 2^{−L}
    + 2·far_mistake_probability (corrected Lemma 1, first form).
    """

    quantile: Fraction
    delta: Exact
    error: Exact
    printed_rhs: Exact
    far_mistake_probability: Exact
    max_far_mistake: Exact
    corrected_rhs: Exact
    tight_rhs: Exact


@dataclass(frozen=True)
class _Path:
    mass: Exact
    leaf: Fraction
    distances: tuple[Fraction, ...]  # |τ_t − q|
    mistakes: tuple[Exact, ...]  # P(M_t | τ_t): moving away from q
    erred: tuple[bool, ...]  # whether this path moved away from q at round t


def empirical_quantile(data: Any, gamma: Any) -> Fraction:
    """q = F̃*(γ) = x_(⌈γN⌉) for 0 < γ <= 1, exactly (the float datum as a Fraction)."""
    x = np.sort(check_unit_data(data))
    g = check_fraction(gamma, "gamma", positive=True)
    if g > 1:
        raise ParameterError("gamma", "must lie in (0, 1] for F̃*(γ) to be a data point", gamma)
    return Fraction(float(x[math.ceil(g * x.size) - 1]))


def _paths(data: Any, rule: RoundRule, q: Fraction) -> list[_Path]:
    """Every root-to-leaf path of Algorithm 2's tree with its exact probability."""
    x = np.sort(check_unit_data(data))
    if not isinstance(rule, RoundRule) or rule.n != x.size:
        raise ParameterError("rule", "must be a RoundRule built for N = len(data) users")
    levels = rule.levels
    if levels > MAX_TREE_LEVELS:
        raise ParameterError("levels", f"must be at most {MAX_TREE_LEVELS} here", levels)
    check_exact_work(x.size, distinct_counts(x, levels), rule.exp_u, "data, rule")
    cache: dict[int, Exact] = {}

    def left(k: int) -> Exact:
        if k not in cache:
            cache[k] = left_probability_exact(rule, k)
        return cache[k]

    one: Exact = Fraction(1) if isinstance(rule.keep_exact(), Fraction) else mpmath.mpf(1)
    paths = [_Path(one, Fraction(0), (), (), ())]  # leaf holds the current interval's lower end
    with workdps():
        for depth in range(1, levels + 1):
            half = Fraction(2) ** (1 - depth)
            nxt: list[_Path] = []
            for path in paths:
                lo = Fraction(-1) + path.leaf
                tau = lo + half
                k = int(sorted_counts(x, float(tau)))
                pl = left(k)
                pr = 1 - pl
                wrong_left = tau < q  # going left moves away from q
                wrong_right = tau > q
                mistake = pl if wrong_left else (pr if wrong_right else 0 * pl)
                for went_left, prob in ((True, pl), (False, pr)):
                    if prob == 0:
                        continue
                    erred = wrong_left if went_left else wrong_right
                    offset = path.leaf if went_left else path.leaf + half
                    nxt.append(
                        _Path(
                            path.mass * prob,
                            offset,
                            (*path.distances, abs(tau - q)),
                            (*path.mistakes, mistake),
                            (*path.erred, erred),
                        )
                    )
            paths = nxt
    leaf_half = Fraction(2) ** (-levels)
    return [
        _Path(p.mass, Fraction(-1) + p.leaf + leaf_half, p.distances, p.mistakes, p.erred)
        for p in paths
    ]


def _mistake_values(paths: list[_Path], reading: str) -> list[tuple[Exact, ...]]:
    """P{M_t} along each path: conditional on the history (P(M_t | τ_t), the proof's Eq. 36) or
    the marginal probability of a mistake at round t (the same number on every path)."""
    if reading == "conditional":
        return [p.mistakes for p in paths]
    if reading != "marginal":
        raise ParameterError("reading", f"must be one of {READINGS}", repr(reading))
    levels = len(paths[0].erred)
    marginal = tuple(
        sum((p.mass for p in paths if p.erred[t]), 0 * paths[0].mass) for t in range(levels)
    )
    return [marginal] * len(paths)


def _printed_expectation(paths: list[_Path], delta: Fraction, reading: str) -> Exact:
    """E[max_t P{M_t}·1{|q − τ_t| > δ}] over the paths (Eq. 14's middle term)."""
    total = 0 * paths[0].mass
    for p, values in zip(paths, _mistake_values(paths, reading), strict=True):
        far = [m for d, m in zip(p.distances, values, strict=True) if d > delta]
        if far:
            total += p.mass * max(far)
    return total


def _as_number(x: Fraction, exact: bool) -> Exact:
    return x if exact else to_mpf(x)


def lemma_1_report(
    data: Any, rule: RoundRule, delta: Any, reading: str = "conditional"
) -> Lemma1Report:
    """Both sides of Lemma 1 (Eq. 14) and of its corrected form, exactly (2^L paths, L <= 12).

    ``delta`` >= 0 (a Fraction, int or float; read exactly). ``reading`` picks what P{M_t} means in
    the printed right-hand side: ``"conditional"`` (default; given the history) or ``"marginal"``.
    Fractions when e^u is rational or ε = inf, mpf otherwise.
    """
    check_choice(reading, "reading", READINGS)
    rule = check_rule(rule)
    q = empirical_quantile(data, rule.gamma)
    d = check_fraction(delta, "delta", nonnegative=True)
    paths = _paths(data, rule, q)
    levels = rule.levels
    exact = isinstance(paths[0].mass, Fraction)
    zero = 0 * paths[0].mass
    with workdps():
        dd = _as_number(d, exact)
        tail = _as_number(Fraction(1, 2**levels), exact)
        error = sum((p.mass * _as_number(abs(p.leaf - q), exact) for p in paths), zero)
        printed = dd + _printed_expectation(paths, d, reading) + tail
        far_prob = sum(
            (
                p.mass
                for p in paths
                if any(e and dist > d for e, dist in zip(p.erred, p.distances, strict=True))
            ),
            zero,
        )
        far_values = [
            m for p in paths for dist, m in zip(p.distances, p.mistakes, strict=True) if dist > d
        ]
        pi = max(far_values) if far_values else zero
        corrected = dd + tail + 2 * (1 - (1 - pi) ** levels)
        tight = dd + tail + 2 * far_prob
    return Lemma1Report(q, dd, error, printed, far_prob, pi, corrected, tight)


def lemma_1_printed_infimum(
    data: Any, rule: RoundRule, reading: str = "conditional"
) -> tuple[Exact, Fraction]:
    """inf over δ > 0 of Eq. 14's right-hand side, and a δ where it is attained (or approached).

    RHS(δ) = δ + A(δ) + 2^{−L} with A non-increasing and constant between the distances
    d = |τ − q| of the tree, so the infimum is min(A(0+) + 2^{−L}, min_d (d + A(d) + 2^{−L})); the
    returned δ is 0 for the limit δ → 0+ (the right-hand side exceeds the infimum by δ there).
    """
    check_choice(reading, "reading", READINGS)
    rule = check_rule(rule)
    q = empirical_quantile(data, rule.gamma)
    paths = _paths(data, rule, q)
    exact = isinstance(paths[0].mass, Fraction)
    candidates = sorted({d for p in paths for d in p.distances if d > 0})
    work = len(candidates) * len(paths) * rule.levels
    if work > MAX_INFIMUM_WORK:
        raise ValueError(
            f"rule: the infimum over δ needs {work:.3g} steps (distances × paths × L), above "
            f"the limit {MAX_INFIMUM_WORK:.3g} (about 10 s): use fewer levels"
        )
    with workdps():
        tail = _as_number(Fraction(1, 2**rule.levels), exact)
        best = _printed_expectation(paths, Fraction(0), reading) + tail
        best_delta = Fraction(0)
        for d in candidates:
            value = _as_number(d, exact) + _printed_expectation(paths, d, reading) + tail
            if value < best:
                best, best_delta = value, d
    return best, best_delta


__all__ = [
    "MAX_INFIMUM_WORK",
    "MAX_TREE_LEVELS",
    "READINGS",
    "Lemma1Report",
    "empirical_quantile",
    "far_mistake_term",
    "lemma_1_printed_infimum",
    "lemma_1_report",
]
