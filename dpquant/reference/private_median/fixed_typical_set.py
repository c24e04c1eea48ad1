"""The fixed typical set H_fix [OURS] and its building blocks (a documented deviation from
tzamos20, not the paper's algorithm; ``notes/tzamos20.md``, "The fixed typical set H_fix").

The paper's typical set H counts points in closed windows around m(X) (ties on both sides), and
its restricted density Â caps the tent at Lrn; both make Lemma 3.2/(B.1), Lemma 3.3 and
Prop. A.5(b) false (erratum E1 in ``notes/tzamos20.md``). The variant replaces them by

* **order-statistic constraints**: with ℓ the median index (``params.ell``) and x_(1) <= … <=
  x_(n) the sorted data, X ∈ H_fix iff m(X) = x_(ℓ) ∈ Ξ and

      x_(ℓ+j) − x_(ℓ) <= jδ  for j = 1..K₊,     x_(ℓ) − x_(ℓ−j) <= jδ  for j = 1..K₋,

  where K₊ = min(K, n − ℓ) and K₋ = min(K, ℓ − 1): a constraint whose order statistic does not
  exist (ℓ + j > n or ℓ − j < 1) is **dropped** (vacuous). Decision [OURS]: this keeps H_fix
  non-empty for every n; it only matters when C < 1 (for C >= 1, K <= ⌊n/4⌋ <= min(ℓ − 1, n − ℓ)),
  and the cap below stays safe because M <= Lrn <= n/2 (see :func:`tight_cap_level`);
* **a smaller cap** M = min{Lrn, 4K} in place of Lrn: the variant's restricted density is
  f(ω) ∝ exp(−(ε/4)·min{(Ln/3C)|m(X) − ω|, M}) on I = [−B, B]; in the units of
  :mod:`extended_density` (f ∝ exp((ε/2)Ψ)) that is the tent −s·min{|y − m|, d_M}, s = Ln/(6C),
  d_M = M/(2s) = 3CM/(Ln) (:func:`fixed_cap`).

Key facts (proved in the notes, checked in ``tests/reference/private_median/test_tzamos20_fixed_variant.py``):

* interlacing: X, Y ∈ H_fix with κ = d_H(X, Y) <= K₋ + K₊ ⇒ |m(X) − m(Y)| <= κδ (stronger than
  the 2(⌊κ/2⌋ + 1)δ of Lemma 3.2's proof, App. B.2);
* hence s·min{|Δm|, d_M} <= κ for all pairs iff M <= 2(K₋ + K₊ + 1) (given Ξ wide enough), so
  the variant's extension equals its restricted density on H_fix (Prop. A.5(b) holds) and the
  Case-(A) shortcut is ε-DP;
* TH_fix(X, ξ) = min{d_H(X, X′) : X′ ∈ H_fix, m(X′) = ξ} has a closed form
  (:func:`fixed_typical_hamming`) and is constant on the open cells of the paper's anchors
  X_i ± jδ, j = 0..K (Claim E.4's construction still works).
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left, bisect_right
from fractions import Fraction
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.private_median.extended_density import (
    Piece,
    envelope_from_levels,
    exact_epsilon,
    tent_slope,
)
from dpquant.reference.private_median.parameters import MedianParameters, check_params, in_xi_range
from dpquant.reference.private_median.typical_set import (
    anchor_points,
    check_direct,
    exact_data,
    left_median_presorted,
)
from dpquant.reference.validation import check_choice, check_fraction

MAX_FIXED_BRUTE_N = 7
MAX_BRUTE_CANDIDATES = 2 * 10**6
"""The most candidate data sets :func:`fixed_typical_hamming_brute` tries (about 10 s)."""
CAP_RULES = ("four_k", "tight")


def fixed_window_ranges(params: MedianParameters) -> tuple[int, int]:
    """(K₋, K₊) = (min(K, ℓ − 1), min(K, n − ℓ)): the j's of the order-statistic constraints
    that exist (out-of-range ones are dropped)."""
    p = check_params(params)
    return min(p.windows, p.ell - 1), min(p.windows, p.n - p.ell)


def in_fixed_typical_set(data: Any, params: MedianParameters) -> bool:
    """X ∈ H_fix [OURS]: m(X) ∈ Ξ, x_(ℓ+j) − x_(ℓ) <= jδ (j <= K₊) and
    x_(ℓ) − x_(ℓ−j) <= jδ (j <= K₋); O(n log n)."""
    p = check_params(params)
    return in_fixed_typical_set_presorted(exact_data(data, p.n), p)


def in_fixed_typical_set_presorted(x: list[Fraction], p: MedianParameters) -> bool:
    """X ∈ H_fix for data ``x`` already sorted and exact (no checks: the fast path of
    :func:`in_fixed_typical_set`)."""
    m = left_median_presorted(x, p)
    if not in_xi_range(m, p):
        return False
    k_minus, k_plus = fixed_window_ranges(p)
    i = p.ell - 1  # 0-based index of x_(ℓ)
    right = all(x[i + j] - m <= j * p.delta for j in range(1, k_plus + 1))
    left = all(m - x[i - j] <= j * p.delta for j in range(1, k_minus + 1))
    return right and left


def fixed_typical_hamming(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH_fix(X, ξ) = min{d_H(X, X′) : X′ ∈ H_fix, m(X′) = ξ} (+inf when ξ ∉ Ξ), closed form.

    With a_j = #{X_i > ξ + jδ} and b_j = #{X_i < ξ − jδ}, X′ ∈ H_fix with m(X′) = ξ iff
    #{X′_i <= ξ + jδ} >= ℓ + j (j = 0..K₊) and #{X′_i >= ξ − jδ} >= n − ℓ + 1 + j (j = 0..K₋)
    (j = 0: ξ is the ℓ-th order statistic). A changed point set to ξ counts in every one of these
    sets, so setting changed points to ξ dominates; a point above ξ only ever fails the first
    family and one below only the second, and within a side the farthest point fails the most.
    Changing the s₊ farthest points above ξ and the s₋ farthest below gives

        TH_fix = max(0, max_{j<=K₊} a_j − (n − ℓ − j)) + max(0, max_{j<=K₋} b_j − (ℓ − 1 − j)).
    """
    p = check_params(params)
    return _fixed_th(exact_data(data, p.n), check_fraction(xi, "xi"), p)


def _fixed_th(x: list[Fraction], xi: Fraction, p: MedianParameters) -> int | float:
    if not in_xi_range(xi, p):
        return math.inf
    k_minus, k_plus = fixed_window_ranges(p)
    n, ell, delta = p.n, p.ell, p.delta
    s_plus = max(
        [0] + [n - bisect_right(x, xi + j * delta) - (n - ell - j) for j in range(k_plus + 1)]
    )
    s_minus = max(
        [0] + [bisect_left(x, xi - j * delta) - (ell - 1 - j) for j in range(k_minus + 1)]
    )
    return s_plus + s_minus


def brute_force_grid(data: Any, xi: Any, params: MedianParameters) -> list[Fraction]:
    """Replacement values for :func:`fixed_typical_hamming_brute`: the data, ξ, and
    ξ ± tδ for t ∈ {1/2, 1, K, K + 1/2} (values that satisfy some but not all windows), sorted
    and distinct."""
    p = check_params(params)
    xi = check_fraction(xi, "xi")
    grid = set(exact_data(data, p.n)) | {xi}
    for t in {Fraction(1, 2), Fraction(1), Fraction(p.windows), p.windows + Fraction(1, 2)}:
        grid |= {xi - t * p.delta, xi + t * p.delta}
    return sorted(grid)


def fixed_typical_hamming_brute(
    data: Any, xi: Any, params: MedianParameters, grid: list[Fraction] | None = None
) -> int | float:
    """TH_fix(X, ξ) by exhaustive search (n <= 7): every set of changed coordinates and every
    multiset of replacement values from ``grid`` (default :func:`brute_force_grid`, which
    contains ξ and the data), checked with :func:`in_fixed_typical_set` and m(X′) = ξ. The
    oracle for the closed form and for the "set changed points to ξ" dominance."""
    p = check_params(params)
    if p.n > MAX_FIXED_BRUTE_N:
        raise ParameterError("n", f"must be at most {MAX_FIXED_BRUTE_N} for the brute-force oracle")
    x = exact_data(data, p.n)
    xi = check_fraction(xi, "xi")
    if not in_xi_range(xi, p):
        return math.inf
    if grid is None:
        values = brute_force_grid(x, xi, p)
    else:
        values = sorted(set(exact_data(grid, name="grid")))
    candidates = sum(
        math.comb(p.n, size) * math.comb(len(values) + size - 1, size) for size in range(p.n + 1)
    )
    if candidates > MAX_BRUTE_CANDIDATES:
        raise ValueError(
            f"grid: the brute force would try {candidates} candidates, above the limit "
            f"{MAX_BRUTE_CANDIDATES} (about 10 s): use a smaller grid"
        )
    for size in range(p.n + 1):
        kept_sets = {
            tuple(v for i, v in enumerate(x) if i not in out)
            for out in itertools.combinations(range(p.n), size)
        }
        for kept in kept_sets:
            for new in itertools.combinations_with_replacement(values, size):
                y = sorted(kept + new)
                if left_median_presorted(y, p) == xi and in_fixed_typical_set_presorted(y, p):
                    return size
    return math.inf  # pragma: no cover - all points set to ξ is always feasible


def fixed_cell_levels(data: Any, params: MedianParameters) -> list[tuple[Fraction, Fraction, int]]:
    """The cells of Ξ cut by the anchors X_i ± jδ, j = 0..K, and the ends of Ξ (Claim E.4's
    CONSTRUCTION-P) with TH_fix on each: (a, b, k), a = b for a point. TH_fix depends on ξ only
    through a_j(ξ), b_j(ξ), which change only at ξ = X_i ∓ jδ, so it is constant on each open
    cell (Def. E.6)."""
    p = check_params(params)
    x = exact_data(data, p.n)
    check_direct(p)
    pts = anchor_points(x, p)
    out = [(a, a, int(_fixed_th(x, a, p))) for a in pts]
    out += [(a, b, int(_fixed_th(x, (a + b) / 2, p))) for a, b in itertools.pairwise(pts)]
    return sorted(out)


def fixed_level_extremes(
    data: Any, params: MedianParameters
) -> dict[int, tuple[Fraction, Fraction]]:
    """{k: (ξ_{k,inf}, ξ_{k,sup})} for TH_fix over the non-empty levels (Def. E.7, k = 0..n)."""
    out: dict[int, tuple[Fraction, Fraction]] = {}
    for a, b, k in fixed_cell_levels(data, params):
        lo, hi = out.get(k, (a, b))
        out[k] = (min(lo, a), max(hi, b))
    return dict(sorted(out.items()))


def tight_cap_level(params: MedianParameters) -> Fraction:
    """min{Lrn, 2(K₋ + K₊ + 1)}: the largest cap M for which s·min{|Δm|, d_M} <= d_H on H_fix
    holds for every pair (the pair moving the K₋ + K₊ + 1 central points shows it is the
    largest when Ξ is wide enough). Not the default rule; offered as ``rule="tight"``."""
    p = check_params(params)
    k_minus, k_plus = fixed_window_ranges(p)
    return min(p.L * p.r * p.n, Fraction(2 * (k_minus + k_plus + 1)))


def fixed_cap_level(params: MedianParameters, rule: str = "four_k") -> Fraction:
    """The cap M of the variant's restricted density: ``"four_k"`` → min{Lrn, 4K} (the rule
    proposed with the variant, ``notes/tzamos20.md``),
    ``"tight"`` → :func:`tight_cap_level`."""
    p = check_params(params)
    if check_choice(rule, "rule", CAP_RULES) == "tight":
        return tight_cap_level(p)
    return min(p.L * p.r * p.n, Fraction(4 * p.windows))


def _cap_distance(params: MedianParameters, cap_level: Any) -> Fraction:
    """d_M = M/(2s) = 3CM/(Ln) for a cap level M >= 0."""
    m = check_fraction(cap_level, "cap_level", nonnegative=True)
    return m / (2 * tent_slope(params))


def fixed_cap(params: MedianParameters, rule: str = "four_k") -> Fraction:
    """d_M = 3CM/(Ln): the distance at which the variant's tents flatten (units of
    :mod:`extended_density`: s·d_M = M/2)."""
    return _cap_distance(params, fixed_cap_level(params, rule))


def _resolve_cap(params: MedianParameters, rule: str, cap_level: Any) -> Fraction:
    if cap_level is None:
        return fixed_cap(params, rule)
    return _cap_distance(params, cap_level)


def fixed_envelope(
    data: Any, params: MedianParameters, rule: str = "four_k", cap_level: Any = None
) -> list[Piece]:
    """Ψ^fix_X = min_k k − s·min{max(|y − ξ_{k,inf}|, |y − ξ_{k,sup}|), d_M} on [−B, B]: the
    variant's extension (Eq. (A.6) with H_fix and cap M; ``cap_level`` overrides M)."""
    p = check_params(params)
    levels = fixed_level_extremes(data, p)
    return envelope_from_levels(levels, p, cap=_resolve_cap(p, rule, cap_level))


def fixed_envelope_brute(
    data: Any, params: MedianParameters, y: Any, rule: str = "four_k", cap_level: Any = None
) -> Fraction:
    """Ψ^fix_X(y) as the minimum over every cell (a, b, k) of k − s·min{max(|y − a|, |y − b|),
    d_M} (the brute-force oracle of Eq. (A.6) over every cell, for the variant)."""
    p = check_params(params)
    y, s, cap = check_fraction(y, "y"), tent_slope(p), _resolve_cap(p, rule, cap_level)
    cells = fixed_cell_levels(data, p)
    return min(k - s * min(max(abs(y - a), abs(y - b)), cap) for a, b, k in cells)


def fixed_restricted_pieces(
    median: Any, params: MedianParameters, rule: str = "four_k", cap_level: Any = None
) -> list[Piece]:
    """The variant's restricted log-density −s·min{|y − m|, d_M} on [−B, B] (exact pieces), i.e.
    f ∝ exp(−(ε/4)·min{(Ln/3C)|m − ω|, M})."""
    p = check_params(params)
    m = check_fraction(median, "median")
    return envelope_from_levels({0: (m, m)}, p, cap=_resolve_cap(p, rule, cap_level))


def fixed_normalizer_is_constant(
    params: MedianParameters, rule: str = "four_k", cap_level: Any = None
) -> bool:
    """Lemma A.4's analogue: Ẑ_fix(m) = ∫_I exp(−(ε/4)min{(Ln/3C)|m − ω|, M}) dω is the same
    for every m ∈ Ξ iff M = 0 or [m − d_M, m + d_M] ⊆ I for all m ∈ Ξ, i.e. d_M <= (4C − 1/2)r.
    Since M <= Lrn gives d_M <= 3Cr, C >= 1/2 suffices (the condition 6r + r/2 <= 4Cr proposed
    with the variant is loose)."""
    p = check_params(params)
    cap = _resolve_cap(p, rule, cap_level)
    return cap == 0 or cap <= (4 * p.C - Fraction(1, 2)) * p.r


def fixed_lemma_a_4_normalizer(
    params: MedianParameters, epsilon: Any, rule: str = "four_k", cap_level: Any = None
) -> mpmath.mpf:
    """Closed form of Ẑ_fix when :func:`fixed_normalizer_is_constant`:
    (24C/(εLn))(1 − e^{−εM/4}) + (2B − 2d_M)e^{−εM/4}."""
    p = check_params(params)
    if not fixed_normalizer_is_constant(p, rule, cap_level):
        raise ValueError("cap_level: the closed form needs d_M <= (4C − 1/2)r (or M = 0)")
    cap = _resolve_cap(p, rule, cap_level)
    level = 2 * tent_slope(p) * cap
    with workdps():
        e = to_mpf(exact_epsilon(epsilon))
        tail = mpmath.exp(-e * to_mpf(level) / 4)
        width = to_mpf(2 * p.output_bound - 2 * cap)
        return 24 * to_mpf(p.C) / (e * to_mpf(p.L) * p.n) * (1 - tail) + width * tail


def fixed_pieces(
    data: Any, params: MedianParameters, rule: str = "four_k", cap_level: Any = None
) -> list[Piece]:
    """Ψ of the variant's PRIVATEMEDIAN (Alg. 1 with H_fix and cap M): the restricted tent at
    m(X) when X ∈ H_fix (Case (A)), the variant's extension otherwise (Case (B)). By the variant's
    Prop. A.5(b) both cases give the same law on H_fix, so this is ε-DP (Prop. A.5(a))."""
    p = check_params(params)
    x = exact_data(data, p.n)
    if in_fixed_typical_set_presorted(x, p):
        return fixed_restricted_pieces(left_median_presorted(x, p), p, rule, cap_level)
    return fixed_envelope(x, p, rule, cap_level)


__all__ = [
    "CAP_RULES",
    "MAX_BRUTE_CANDIDATES",
    "MAX_FIXED_BRUTE_N",
    "brute_force_grid",
    "fixed_cap",
    "fixed_cap_level",
    "fixed_cell_levels",
    "fixed_envelope",
    "fixed_envelope_brute",
    "fixed_level_extremes",
    "fixed_lemma_a_4_normalizer",
    "fixed_normalizer_is_constant",
    "fixed_pieces",
    "fixed_restricted_pieces",
    "fixed_typical_hamming",
    "fixed_typical_hamming_brute",
    "fixed_window_ranges",
    "in_fixed_typical_set",
    "in_fixed_typical_set_presorted",
    "tight_cap_level",
]
