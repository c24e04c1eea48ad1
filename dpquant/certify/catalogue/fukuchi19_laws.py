"""Exact laws of fukuchi19's Algorithm 2 as certificate expressions (the counterexamples to
Lemma 1 and Theorems 4–5, Appendix B.1).

Algorithm 2 (Sec. 4) searches [−1, 1] in L rounds: at depth t the current interval has width
2^{2−t} and midpoint τ; each of the N users reports sign(τ − x_i) by randomized response at
u = ε/L (kept with probability p = e^u/(1 + e^u)); with P the number of "+1" reports, the search
goes left iff Φ′ >= γ, i.e. iff P >= m* = ⌈N(1 + (2γ − 1)·tanh(u/2))/2⌉ (line 7 of Algorithm 2
rewritten with Φ′ = (c/(2N))(2P − N) + 1/2, c = coth(u/2)); the output is the midpoint of the
final interval (width 2^{1−L}). Given k = #{x_i <= τ}, P ~ Bin(k, p) + Bin(N − k, 1 − p).

The builders below write these laws out term by term from the data, so the expressions are
finite sums (the tree has 2^L leaves). They know nothing of :mod:`dpquant.reference`; the tie
tests compare them with the implementation's exact laws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from itertools import product

from dpquant.certify.expressions import enclose


def q(x: Fraction) -> str:
    """An exact rational as expression text."""
    x = Fraction(x)
    return f"({x.numerator}/{x.denominator})" if x.denominator != 1 else f"({x.numerator})"


def plus_at_least(n: int, k: int, m: int, keep: str, flip: str) -> str:
    """P(Bin(k, p) + Bin(N − k, 1 − p) >= m) as a polynomial in ``keep`` = p and ``flip`` = 1 − p
    (texts), written out term by term."""
    if m <= 0:
        return "1"
    if m > n:
        return "0"
    terms = []
    for i, j in product(range(k + 1), range(n - k + 1)):
        if i + j < m:
            continue
        coefficient = math.comb(k, i) * math.comb(n - k, j)
        # i of the k users below τ keep their +1, j of the others flip to +1
        powers = [(keep, i + (n - k - j)), (flip, (k - i) + j)]
        factors = [f"{base}**{e}" for base, e in powers if e > 0]
        terms.append("*".join([str(coefficient), *factors]))
    return "(" + " + ".join(terms) + ")"


def threshold_argument(n: int, gamma: str, tanh_half_u: str) -> str:
    """N(1 + (2γ − 1)·tanh(u/2))/2, whose ceiling is the threshold m*."""
    return f"({n}*(1 + (2*{gamma} - 1)*{tanh_half_u})/2)"


def threshold_at(argument: str, point: dict[str, Fraction]) -> int:
    """m* = ⌈argument⌉ at ``point``, from a ball that must not contain an integer."""
    value = enclose(argument, point, precision=256)
    lo, hi = math.floor(float(value.lower())), math.floor(float(value.upper()))
    if lo != hi or float(value.lower()) == lo:
        raise ValueError(f"the threshold argument {value} is too close to an integer")
    return lo + 1


def threshold_hypotheses(argument: str, m: int) -> tuple[tuple[str, str], ...]:
    """``argument`` lies in (m − 1, m], i.e. its ceiling is m (as hypotheses ``h REL 0``)."""
    return ((f"{argument} - ({m - 1})", ">"), (f"({m}) - {argument}", ">="))


def tree_nodes(levels: int) -> list[tuple[int, Fraction]]:
    """Every (depth, τ) of the search tree, depth 1..L."""
    out = []
    for depth in range(1, levels + 1):
        width = Fraction(2) ** (2 - depth)
        out += [(depth, -1 + j * width + width / 2) for j in range(2 ** (depth - 1))]
    return out


def count_at_or_below(data: list[Fraction], tau: Fraction) -> int:
    """k(τ) = #{x_i <= τ} (ties count: sign(0) = +1)."""
    return sum(1 for x in data if x <= tau)


def tree_expectation(levels: int, left: Callable[[Fraction], str], target: Fraction,
                     breakpoints: list[Fraction], depth: int = 1, lo: Fraction = Fraction(-1),
                     replace: Callable[[int, Fraction], str | None] | None = None) -> str:
    """E|x̃ − target| over the search tree below the node (depth, lo) (the root by default).

    A node is pl·E(left child) + (1 − pl)·E(right child), pl = ``left(τ)`` the probability of
    going left at its midpoint τ, and a leaf is |x̃ − target|. A node whose open interval holds
    neither a breakpoint (where ``left`` may change: the data) nor ``target`` is written in closed
    form: there every round goes right with the same probability r = 1 − pl, so with d rounds left
    and width W, E[x̃] = lo + r·W(1 − 2^{−d}) + W·2^{−d−1} (a sum of d independent half-steps
    plus the final midpoint offset), and |x̃ − target| is x̃ − target (target <= lo) or
    target − x̃ (target >= lo + W) on the whole subtree. ``replace(depth, lo)``, when it returns
    a text, is that node's expectation instead."""

    def node(depth: int, lo: Fraction) -> str:
        if replace is not None:
            text = replace(depth, lo)
            if text is not None:
                return text
        if depth > levels:
            return q(abs(lo + Fraction(1, 2**levels) - target))
        width = Fraction(2) ** (2 - depth)
        tau = lo + width / 2
        pl = left(tau)
        inside = [b for b in [*breakpoints, target] if lo < b < lo + width]
        if not inside:
            return closed_form(depth, lo, width, pl)
        return f"({pl}*{node(depth + 1, lo)} + (1 - {pl})*{node(depth + 1, tau)})"

    def closed_form(depth: int, lo: Fraction, width: Fraction, pl: str) -> str:
        rounds = levels - depth + 1
        inner = [t for d, t in tree_nodes(levels) if d >= depth and lo < t < lo + width]
        if any(left(t) != pl for t in inner):
            raise AssertionError("the decision changes inside a subtree without a breakpoint")
        start = lo + width / 2 ** (rounds + 1)
        span = q(width * (1 - Fraction(1, 2**rounds)))
        if target <= lo:
            return f"({q(start - target)} + (1 - {pl})*{span})"
        return f"({q(target - start)} - (1 - {pl})*{span})"

    return node(depth, lo)


def fixed_data_error(data: list[Fraction], levels: int, m: int, keep: str, flip: str,
                     target: Fraction) -> str:
    """E|x̃ − target| of Algorithm 2 on the fixed data ``data`` with threshold m*."""
    n = len(data)
    rows = {k: plus_at_least(n, k, m, keep, flip) for k in range(n + 1)}
    return tree_expectation(levels, lambda tau: rows[count_at_or_below(data, tau)], target,
                            list(data))


def iid_error(n: int, levels: int, m: int, keep: str, flip: str, cdf: Callable[[Fraction], str],
              support: tuple[Fraction, Fraction], target: Fraction) -> str:
    """E|x̃ − target| of Algorithm 2 on N i.i.d. values with CDF ``cdf`` (text at each τ) on
    ``support`` = [lo, hi] (no atom at lo).

    The midpoints τ inside [lo, hi) cut the support into bins; the data's counts in the bins
    have a multinomial law, and given them k(τ) is known at every τ. Outside [lo, hi), k(τ) is 0
    (τ < lo) or N (τ >= hi) whatever the data. So every τ that depends on the data lies in the
    subtree of the deepest node holding all the cuts, the probability of reaching that node does
    not depend on the data, and by the law of total expectation its expectation is the
    multinomial mixture of its fixed-count subtrees (written out at that node only)."""
    lo, hi = support
    cuts = sorted(tau for _, tau in tree_nodes(levels) if lo <= tau < hi)
    if not cuts:
        raise ValueError("support: no midpoint of the tree lies in it")
    depth, start = 1, Fraction(-1)
    while depth < levels:  # descend while one child holds every cut
        half = Fraction(2) ** (1 - depth)
        if all(start < c < start + half for c in cuts):
            depth += 1
        elif all(start + half < c < start + 2 * half for c in cuts):
            depth, start = depth + 1, start + half
        else:
            break
    # bins: (lo, cuts[0]], (cuts[0], cuts[1]], ..., (cuts[-1], hi]; F(lo) = 0, F(hi) = 1
    edges = [cdf(t) for t in cuts]
    masses = [f"({e} - {p})" for e, p in zip([*edges, "1"], ["0", *edges], strict=True)]
    rows = {k: plus_at_least(n, k, m, keep, flip) for k in range(n + 1)}

    def outside(tau: Fraction) -> str:
        if lo <= tau < hi:
            raise AssertionError("a data-dependent midpoint outside the mixed subtree")
        return rows[0 if tau < lo else n]

    terms = []
    for counts in _compositions(n, len(masses)):
        weight = math.factorial(n)
        factors = []
        for c, mass in zip(counts, masses, strict=True):
            weight //= math.factorial(c)
            if c:
                factors.append(f"{mass}**{c}")
        below = dict(zip(cuts, [sum(counts[: i + 1]) for i in range(len(cuts))], strict=True))

        def k_of(tau: Fraction, below: dict[Fraction, int] = below) -> int:
            return 0 if tau < lo else (n if tau >= hi else below[tau])

        def row(tau: Fraction, k_of: Callable[[Fraction], int] = k_of) -> str:
            return rows[k_of(tau)]

        sub = tree_expectation(levels, row, target, [lo, hi, *cuts], depth, start)
        terms.append("*".join([str(weight), *factors, sub]))
    mixture = "(" + " + ".join(terms) + ")"
    return tree_expectation(
        levels, outside, target, [lo, hi, *cuts],
        replace=lambda d, s: mixture if (d, s) == (depth, start) else None,
    )


def _compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """Every tuple of ``parts`` non-negative integers summing to n."""
    if parts == 1:
        return [(n,)]
    return [(c, *rest) for c in range(n + 1) for rest in _compositions(n - c, parts - 1)]


def path_terms(levels: int, left: Callable[[Fraction], str]) -> list[tuple[str, list[tuple[Fraction, str, str]]]]:
    """Each root-to-leaf path: its probability (text) and, per round, (τ_t, P(left | τ_t),
    the direction taken: "left" or "right")."""
    out: list[tuple[str, list[tuple[Fraction, str, str]]]] = []

    def walk(depth: int, lo: Fraction, mass: list[str], rounds: list[tuple[Fraction, str, str]]) -> None:
        if depth > levels:
            out.append(("*".join(mass) or "1", rounds))
            return
        width = Fraction(2) ** (2 - depth)
        tau = lo + width / 2
        pl = left(tau)
        walk(depth + 1, lo, [*mass, pl], [*rounds, (tau, pl, "left")])
        walk(depth + 1, tau, [*mass, f"(1 - {pl})"], [*rounds, (tau, pl, "right")])

    walk(1, Fraction(-1), [], [])
    return out


def nested_max(items: list[str]) -> str:
    """Max of one or more texts (the language's Max takes two arguments)."""
    out = items[0]
    for item in items[1:]:
        out = f"Max({out}, {item})"
    return out


__all__ = [
    "count_at_or_below",
    "fixed_data_error",
    "iid_error",
    "nested_max",
    "path_terms",
    "plus_at_least",
    "q",
    "threshold_argument",
    "threshold_at",
    "threshold_hypotheses",
    "tree_expectation",
    "tree_nodes",
]
