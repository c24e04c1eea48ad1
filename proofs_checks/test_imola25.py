"""Machine checks of imola25's combinatorial and mixing claims, one block per claim.

* Lemma 4.1 (the rank maps F⁺, F⁻ of App. B.1), exhaustively for m <= 4, h <= 3, n <= 20 and by
  hypothesis beyond, on concrete data; the printed Good set (gap 2h) breaks the add case.
* Lemma 4.3 (mixing an (ε, δ)-DP mechanism with the uniform law gives pure DP), exact rationals
  with ε = ln 2 (e^ε = 2).
* Theorem C.1, accuracy half (the EM on a slice of 2ℓ + 2 points misses by more than ℓ with
  probability <= β), exact with mpmath; the privacy half is checked in
  tests/reference/primitives/test_exponential_mechanism.py.
* The Good* facts Algorithm 1 relies on (Sec. 3.2; notes/imola25.md erratum 2).

Conventions: 1-indexed order statistics, rank_X(z) = #{x ∈ X : x < z} (Sec. 1, App. C.3).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any, NamedTuple

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.slice_quantiles.good_set import (
    good_set_members,
    in_good_set,
    slice_index_ranges,
    slices,
)
from dpquant.reference.slice_quantiles.rank_maps import (
    add_map,
    add_shift,
    added_point_rank,
    is_contiguous,
    naive_remove_map,
    remove_map,
    remove_shift,
    removed_point_rank,
    slice_distances,
    substitution_distance,
)

# =============================================================================== Lemma 4.1

# Exhaustive range: at least m <= 3, h <= 2, n <= 15; the largest range that keeps the
# Lemma 4.1 block near 6 s is used (m <= 4, h <= 3, n <= 20; m <= 5 with n <= 24 takes ~50 s).
M_MAX, H_MAX, N_MAX = 4, 3, 20
GRID = [
    (m, h, n) for m in range(1, M_MAX + 1) for h in range(H_MAX + 1) for n in range(1, N_MAX + 1)
]


def dsub_rows(S: np.ndarray, S_prime: np.ndarray) -> np.ndarray:
    """Vectorised d_sub over the leading axes for slices of *distinct* values (last axis = slice):
    |S| minus the number of common values. Cross-checked with substitution_distance below."""
    common = (S[..., :, None] == S_prime[..., None, :]).any(axis=-1).sum(axis=-1)
    return S.shape[-1] - common


def shift_is_contiguous_rows(e: np.ndarray, d: int) -> np.ndarray:
    """Per row: e ∈ {0, d}^m and e is 0 up to some t, then d (Eq. 1)."""
    ind = e * d
    values_ok = np.isin(ind, (0, 1)).all(axis=-1)
    return values_ok & np.all(np.diff(ind, axis=-1) >= 0, axis=-1)


@cache
def add_cases(rule: str) -> tuple:
    """Every (m, h, n, s, r̃) of the add case: X = (1..n), X' = X ∪ {s − ½} (x'_(s) = s − ½),
    r̃ ∈ Good_{m,n,h}(rule). Returns tuples (m, h, n, s, D, F⁺(D), Σ_i d_sub)."""
    out = []
    for m, h, n in GRID:
        D = good_set_members(m, n, h, rule)
        if len(D) == 0:
            continue
        X = np.arange(1, n + 1, dtype=float)
        for s in range(1, n + 2):
            X_prime = np.sort(np.append(X, s - 0.5))
            F = add_map(D, s, h)
            total = dsub_rows(slices(X, D, h), slices(X_prime, F, h)).sum(axis=-1)
            out.append((m, h, n, s, D, F, total))
    return tuple(out)


@cache
def remove_cases(rule: str) -> tuple:
    """Every (m, h, n, s, r̃) of the remove case: X = (1..n), X' = X without x_(s) = s,
    r̃ ∈ Good_{m,n−1,h+1}(rule) (the domain the proof of Thm 4.2 uses, notes/imola25.md erratum 3)."""
    out = []
    for m, h, n in GRID:
        D = good_set_members(m, n - 1, h + 1, rule)
        if len(D) == 0:
            continue
        X = np.arange(1, n + 1, dtype=float)
        for s in range(1, n + 1):
            X_prime = np.delete(X, s - 1)
            F = remove_map(D, s, h)
            total = dsub_rows(slices(X, D, h), slices(X_prime, F, h)).sum(axis=-1)
            out.append((m, h, n, s, D, F, total))
    return tuple(out)


def test_lemma_4_1_substitution_distance_counts_multiset_substitutions() -> None:
    assert substitution_distance([1, 2, 3], [1, 2, 3]) == 0
    assert substitution_distance([1, 2, 3], [3, 1, 2]) == 0  # order is irrelevant (the EM sorts)
    assert substitution_distance([1, 2, 3], [2, 3, 4]) == 1
    assert substitution_distance([1, 2, 3], [2.5, 3, 4]) == 2
    assert substitution_distance([1, 1, 2], [1, 2, 2]) == 1  # multiplicities count
    assert substitution_distance([1, 2, 3], [4, 5, 6]) == 3
    with pytest.raises(ValueError, match="equal size"):
        substitution_distance([1, 2], [1, 2, 3])


@given(
    st.lists(st.integers(0, 30), min_size=1, max_size=9, unique=True),
    st.lists(st.integers(0, 30), min_size=1, max_size=9, unique=True),
)
def test_lemma_4_1_vectorised_dsub_agrees_with_substitution_distance(a, b) -> None:
    k = min(len(a), len(b))
    S, Sp = np.array(sorted(a)[:k], float), np.array(sorted(b)[:k], float)
    assert int(dsub_rows(S, Sp)) == substitution_distance(S, Sp) == substitution_distance(Sp, S)


def check_injective(cases: Callable[[str], tuple]) -> None:
    """The map of ``cases`` (``add_cases`` or ``remove_cases``) is injective under either rule."""
    for rule in ("corrected", "printed"):
        for m, h, n, s, _, F, _ in cases(rule):
            assert len(np.unique(F, axis=0)) == len(F), (rule, m, h, n, s)


def test_lemma_4_1_add_map_is_injective_exhaustive() -> None:
    check_injective(add_cases)


def test_lemma_4_1_add_map_lands_in_good_star_of_n_plus_1_exhaustive() -> None:
    for m, h, n, s, _, F, _ in add_cases("corrected"):
        assert np.all(in_good_set(F, n + 1, h)), (m, h, n, s)


def test_lemma_4_1_add_shift_is_contiguous_plus_one_exhaustive() -> None:
    for m, h, n, s, D, F, _ in add_cases("corrected"):
        assert np.all(shift_is_contiguous_rows(F - D, +1)), (m, h, n, s)
        assert np.array_equal(F - D, add_shift(D, s, h))


def test_lemma_4_1_add_sum_of_substitution_distances_at_most_one_on_good_star() -> None:
    worst = 0
    for m, h, n, s, _, _, total in add_cases("corrected"):
        assert total.max() <= 1, (m, h, n, s)
        worst = max(worst, int(total.max()))
    assert worst == 1  # the bound is attained (a slice containing s): the check is not vacuous


def test_lemma_4_1_remove_map_is_injective_exhaustive() -> None:
    check_injective(remove_cases)


def test_lemma_4_1_remove_map_lands_in_good_star_of_n_minus_1_h_exhaustive() -> None:
    """Good*_{m,n−1,h+1} → Good*_{m,n−1,h}, n = |X| (notes/imola25.md erratum 3)."""
    for m, h, n, s, _, F, _ in remove_cases("corrected"):
        assert np.all(in_good_set(F, n - 1, h)), (m, h, n, s)


def test_lemma_4_1_remove_shift_is_contiguous_minus_one_exhaustive() -> None:
    for m, h, n, s, D, F, _ in remove_cases("corrected"):
        e = F - D
        assert np.all(shift_is_contiguous_rows(e, -1)), (m, h, n, s)
        assert np.all(e[:, 0] == 0)  # lagged: the first rank never moves
        assert np.array_equal(e, remove_shift(D, s, h))


def test_lemma_4_1_remove_sum_of_substitution_distances_at_most_two_exhaustive() -> None:
    worst = 0
    for rule in ("corrected", "printed"):  # domain gap >= 2(h+1) keeps the h-slices disjoint
        for m, h, n, s, _, _, total in remove_cases(rule):
            assert total.max() <= 2, (rule, m, h, n, s)
            worst = max(worst, int(total.max()))
    assert worst == 2  # attained: the slice containing s and the first slice above s


def test_lemma_4_1_printed_gap_2h_add_case_reaches_two_substitutions_regression() -> None:
    """Smallest counterexample with h >= 1 (found by hand, App. B.1's add case): m = 2, h = 1,
    X = (1..5), X' = X ∪ {2.5} (s = 3), r̃ = (2, 4) ∈ Good_{2,5,1} (gap 2 = 2h): the slices
    (1,2,3) and (3,4,5) share x_(3), the new point falls inside both, F⁺(r̃) = r̃ and the slices of
    X' are (1,2,2.5) and (2.5,3,4): Σ d_sub = 2, while Lemma 4.1 claims <= 1."""
    X = np.arange(1.0, 6.0)
    X_prime = np.sort(np.append(X, 2.5))
    s, h, r = 3, 1, np.array([2, 4])
    assert added_point_rank(X, 2.5) == s
    assert in_good_set(r, 5, h, rule="printed") and not in_good_set(r, 5, h)
    r_prime = add_map(r, s, h)
    assert in_good_set(r_prime, 6, h, rule="printed")
    assert r_prime.tolist() == [2, 4]  # r̃_2 − h = 3 = s: not shifted
    assert slice_distances(X, X_prime, r, r_prime, h) == [1, 1]
    # h = 0: the printed gap 2h = 0 admits equal ranks, r̃ = (1, 1), X = (1,), X' = (0.5, 1):
    assert in_good_set([1, 1], 1, 0, rule="printed")
    assert slice_distances([1.0], [0.5, 1.0], [1, 1], add_map([1, 1], 1, 0), 0) == [1, 1]


def test_lemma_4_1_printed_gap_failures_are_exactly_slices_sharing_the_new_point() -> None:
    """With gap 2h (h >= 1) Σ d_sub <= 2, and Σ d_sub = 2 exactly when two consecutive slices
    share the order statistic s (r̃_i + h = s = r̃_{i+1} − h); with h = 0 equal ranks let all m
    slices change (footnote 2's "all r̃_i equal")."""
    found_two = set()
    worst_h0 = 0
    for m, h, n, s, D, _, total in add_cases("printed"):
        if h == 0:
            worst_h0 = max(worst_h0, int(total.max()))
            continue
        shared = np.any((D[:, :-1] + h == s) & (D[:, 1:] - h == s), axis=-1)
        assert total.max() <= 2
        assert np.array_equal(total == 2, shared), (m, h, n, s)
        if shared.any():
            found_two.add((m, h))
    # every (m >= 2, h >= 1) whose smallest printed member (gaps 2h, r̃_1 = h + 1) fits in n:
    fits = {(m, h) for m, h, n in GRID if m >= 2 and h >= 1 and 2 * h * m + 1 <= n}
    assert found_two == fits
    assert worst_h0 == M_MAX


def test_lemma_4_1_naive_remove_map_collides() -> None:
    """e_i = −1[r̃_i − h > s] sends r̃_{i*} = s + h and s + h + 1 to the same s + h (App. B.1)."""
    h, n, s = 1, 7, 2
    D = good_set_members(1, n - 1, h + 1)
    assert [3] in D.tolist() and [4] in D.tolist()
    assert naive_remove_map([3], s, h).tolist() == naive_remove_map([4], s, h).tolist() == [3]
    assert remove_map([3], s, h).tolist() != remove_map([4], s, h).tolist()
    collided = set()
    for m, h, _, s, D, _, _ in remove_cases("corrected"):
        G = naive_remove_map(D, s, h)
        _, inverse, counts = np.unique(G, axis=0, return_inverse=True, return_counts=True)
        for k in np.flatnonzero(counts > 1):
            a, b = D[inverse.ravel() == k]  # at most two preimages
            diff = np.flatnonzero(a != b)
            assert len(diff) == 1 and sorted((a[diff[0]], b[diff[0]])) == [s + h, s + h + 1]
            collided.add((m, h))
    # a collision needs two domain points one apart: Good*_{m,n−1,h+1} with one unit of slack,
    # i.e. n >= (2h + 3)m + 2; every such (m, h) collides
    assert collided == {(m, h) for m, h, n in GRID if (2 * h + 3) * m + 2 <= n}


def test_lemma_4_1_remove_statement_indices_leave_the_range_of_the_smaller_dataset() -> None:
    """Read literally (domain Good_{m,n,h}, n = |X|), F⁻ keeps r̃_m = n − h, whose h-slice needs
    x'_(n) in X' of n − 1 points: the lemma needs the Thm 4.2 indices (erratum 3)."""
    n, h, s = 9, 1, 4
    X = np.arange(1.0, n + 1)
    X_prime = np.delete(X, s - 1)
    r = np.array([n - h])
    assert in_good_set(r, n, h)
    r_prime = remove_map(r, s, h)
    assert not in_good_set(r_prime, n - 1, h)
    with pytest.raises(ValueError, match="out of range"):
        slice_distances(X, X_prime, r, r_prime, h)


def decode_add(r_prime: np.ndarray, s: int, h: int) -> np.ndarray:
    """Left inverse of F⁺: its image avoids s + h + 1; values >= s + h + 2 came from v − 1."""
    return r_prime - (r_prime - h > s + 1)


def decode_remove(r_prime: np.ndarray, s: int, h: int) -> np.ndarray:
    """Left inverse of the lagged F⁻, coordinate by coordinate (r̃_{i−1} is decoded first)."""
    r = r_prime.copy()
    for i in range(1, len(r)):
        r[i] = r_prime[i] + int(r[i - 1] - h > s)
    return r


@st.composite
def good_star_instances(draw, h_extra: int = 0):
    """(m, h, r̃, n) with r̃ ∈ Good*_{m,n,h+h_extra} and slack around it."""
    m = draw(st.integers(1, 7))
    h = draw(st.integers(0, 6))
    H = h + h_extra
    first = H + 1 + draw(st.integers(0, 5))
    gaps = draw(st.lists(st.integers(0, 4), min_size=m - 1, max_size=m - 1))
    r = np.cumsum([first] + [2 * H + 1 + g for g in gaps]).astype(np.int64)
    n = int(r[-1]) + H + draw(st.integers(0, 5))
    return m, h, r, n


def random_distinct_data(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(rng.uniform(-5, 5, size=1) + np.cumsum(rng.uniform(0.1, 2.0, size=n)))


@given(good_star_instances(), st.integers(0, 2**32 - 1), st.data())
def test_lemma_4_1_add_map_properties_on_random_data(instance, seed, data) -> None:
    m, h, r, n = instance
    X = random_distinct_data(seed, n)
    s = data.draw(st.integers(1, n + 1))
    lo = X[s - 2] if s >= 2 else X[0] - 1.0
    hi = X[s - 1] if s <= n else X[-1] + 1.0
    x = (lo + hi) / 2
    X_prime = np.append(X, x)
    assert added_point_rank(X, x) == s
    r_prime = add_map(r, s, h)
    assert np.array_equal(decode_add(r_prime, s, h), r)  # injective: explicit left inverse
    assert in_good_set(r_prime, n + 1, h)
    e = r_prime - r
    assert is_contiguous(e) and set(e.tolist()) <= {0, 1}
    dists = slice_distances(X, X_prime, r, r_prime, h)
    containing = [(ri - h <= s <= ri + h) for ri in r.tolist()]
    assert dists == [int(c) for c in containing]  # only the slice containing s changes, by one
    assert sum(dists) <= 1


@given(good_star_instances(h_extra=1), st.integers(0, 2**32 - 1), st.data())
def test_lemma_4_1_remove_map_properties_on_random_data(instance, seed, data) -> None:
    m, h, r, n_minus_1 = instance  # r ∈ Good*_{m,n−1,h+1}
    n = n_minus_1 + 1
    X = random_distinct_data(seed, n)
    s = data.draw(st.integers(1, n))
    assert removed_point_rank(X, X[s - 1]) == s
    X_prime = np.delete(X, s - 1)
    r_prime = remove_map(r, s, h)
    assert np.array_equal(decode_remove(r_prime, s, h), r)  # injective: explicit left inverse
    assert in_good_set(r_prime, n - 1, h)
    e = r_prime - r
    assert is_contiguous(e) and set(e.tolist()) <= {-1, 0} and e[0] == 0
    dists = slice_distances(X, X_prime, r, r_prime, h)
    starts = (r - h).tolist()
    first_above = next((i for i, lo in enumerate(starts) if lo > s), None)
    expected = [int(lo <= s <= lo + 2 * h or i == first_above) for i, lo in enumerate(starts)]
    assert dists == expected  # App. B.1: the slice containing s and the first slice above s
    assert sum(dists) <= 2


def test_lemma_4_1_maps_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="s must be an integer >= 1"):
        add_map([3, 6], 0, 1)
    with pytest.raises(ValueError, match="h must be an integer >= 0"):
        remove_map([3, 6], 2, -1)
    with pytest.raises(ValueError, match="r_tilde must hold integers"):
        add_map([3.5], 2, 1)
    with pytest.raises(ValueError, match="last axis of length m >= 1"):
        remove_map([], 2, 1)
    with pytest.raises(ValueError, match="x must be a point of X"):
        removed_point_rank([1.0, 2.0], 3.0)
    with pytest.raises(ValueError, match="x must differ"):
        added_point_rank([1.0, 2.0], 2.0)


def test_lemma_4_1_is_contiguous_matches_equation_1() -> None:
    assert is_contiguous([0, 0, 0]) and is_contiguous([1, 1, 1]) and is_contiguous([0, -1, -1])
    assert not is_contiguous([0, 1, 0]) and not is_contiguous([1, -1, -1])
    assert not is_contiguous([0, 2, 2])


# =============================================================================== Lemma 4.3

E_EPS = Fraction(2)  # ε = ln 2, so e^ε = 2 exactly


def hockey_stick_q(P: list[Fraction], Q: list[Fraction], alpha: Fraction) -> Fraction:
    """H_α(P‖Q) = Σ_y (P(y) − αQ(y))⁺ = sup_S P(S) − αQ(S): the δ of the pair at e^ε = α."""
    return sum((max(p - alpha * q, Fraction(0)) for p, q in zip(P, Q, strict=True)), Fraction(0))


def mix(P: list[Fraction], gamma: Fraction) -> list[Fraction]:
    """(1 − γ)P + γ·Uniform(Y) (Lemma 4.3)."""
    k = len(P)
    return [(1 - gamma) * p + gamma / k for p in P]


@st.composite
def close_pmf_pairs(draw):
    """P = (1−t)R + tA, Q = (1−t)R + tB on |Y| = k <= 6, t <= 1/k, A and B may have zeros (so the
    pair is in general not pure DP); returns (P, Q) as Fractions."""
    k = draw(st.integers(2, 6))

    def pmf(min_value: int) -> list[Fraction]:
        w = draw(st.lists(st.integers(min_value, 20), min_size=k, max_size=k))
        if sum(w) == 0:
            w[0] = 1
        return [Fraction(v, sum(w)) for v in w]

    R, A, B = pmf(1), pmf(0), pmf(0)
    t = Fraction(draw(st.integers(0, 20)), 20 * k)
    P = [(1 - t) * r + t * a for r, a in zip(R, A, strict=True)]
    Q = [(1 - t) * r + t * b for r, b in zip(R, B, strict=True)]
    return P, Q


@given(close_pmf_pairs())
def test_lemma_4_3_mixture_with_uniform_is_pure_dp(pair) -> None:
    P, Q = pair
    k = len(P)
    delta = max(hockey_stick_q(P, Q, E_EPS), hockey_stick_q(Q, P, E_EPS))  # A is (ln 2, δ)-DP
    gamma = delta * k / (E_EPS - 1)
    assert gamma <= 1  # δ <= t <= 1/k by construction
    Pm, Qm = mix(P, gamma), mix(Q, gamma)
    assert sum(Pm) == sum(Qm) == 1
    for p, q in zip(Pm, Qm, strict=True):
        assert p <= E_EPS * q and q <= E_EPS * p  # pointwise = all sets for a discrete range


@given(close_pmf_pairs())
def test_lemma_4_3_singleton_delta_suffices_and_the_sharp_gamma_is_d_k_over_e_eps_minus_1_plus_d_k(
    pair,
) -> None:
    """The proof only uses singletons: with d = max_y (P(y) − e^ε Q(y))⁺ (both directions, <= δ)
    the mixture is pure DP iff γ >= γ* = d|Y|/(e^ε − 1 + d|Y|) <= the lemma's γ."""
    P, Q = pair
    k = len(P)
    d = max(max(p - E_EPS * q, q - E_EPS * p, Fraction(0)) for p, q in zip(P, Q, strict=True))
    delta = max(hockey_stick_q(P, Q, E_EPS), hockey_stick_q(Q, P, E_EPS))
    assert d <= delta
    gamma_star = d * k / (E_EPS - 1 + d * k)
    assert gamma_star <= delta * k / (E_EPS - 1)
    Pm, Qm = mix(P, gamma_star), mix(Q, gamma_star)
    ratio = max(max(p / q, q / p) for p, q in zip(Pm, Qm, strict=True))
    assert ratio <= E_EPS
    if d > 0:
        assert ratio == E_EPS  # tight at the worst atom
        smaller = gamma_star * Fraction(99, 100)
        Pm, Qm = mix(P, smaller), mix(Q, smaller)
        assert max(max(p / q, q / p) for p, q in zip(Pm, Qm, strict=True)) > E_EPS


def test_lemma_4_3_unmixed_mechanism_is_not_pure_dp_but_the_mixture_is() -> None:
    P = [Fraction(1, 10), Fraction(9, 20), Fraction(9, 20)]
    Q = [Fraction(0), Fraction(1, 2), Fraction(1, 2)]
    delta = max(hockey_stick_q(P, Q, E_EPS), hockey_stick_q(Q, P, E_EPS))
    assert delta == Fraction(1, 10)
    gamma = delta * 3 / (E_EPS - 1)
    assert all(p <= E_EPS * q for p, q in zip(mix(P, gamma), mix(Q, gamma), strict=True))
    assert P[0] > E_EPS * Q[0]


def rounded_uniform_pmf(b: int) -> list[Fraction]:
    """Law of ⌊z⌉ (round half up) for z ~ Uniform(0, b): atom k gets |[k − ½, k + ½) ∩ (0, b)|/b."""
    half = Fraction(1, 2)
    return [(min(k + half, Fraction(b)) - max(k - half, Fraction(0))) / b for k in range(b + 1)]


def test_lemma_4_3_does_not_apply_to_the_continuous_uniform_fallback_of_line_7() -> None:
    """Erratum 15 (notes/imola25.md). (a) Without rounding the fallback is continuous: it puts no
    mass on an atom y0 of A, so Pr[Ã(X) = y0] = (1 − γ)P(y0) > 0 = Pr[Ã(X') = y0] for every
    γ < 1 — no pure DP. (b) Rounding the continuous Uniform(0, b) to the grid {0..b} gives the end atoms mass
    1/(2b) < 1/(b + 1), so γ = δ|Y|/(e^ε − 1) no longer suffices; the grid-uniform fallback does."""
    b = 4
    delta = Fraction(1, 100)
    R = [Fraction(0)] + [Fraction(1, b)] * b  # uniform on {1..b}
    P = [delta] + [(1 - delta) * r for r in R[1:]]
    Q = R
    assert max(hockey_stick_q(P, Q, E_EPS), hockey_stick_q(Q, P, E_EPS)) == delta
    gamma = delta * (b + 1) / (E_EPS - 1)
    # (a) continuous fallback: the atom {0} has Q-mass 0 after mixing
    assert (1 - gamma) * P[0] > E_EPS * ((1 - gamma) * Q[0] + 0)
    # (b) rounded continuous fallback
    U = rounded_uniform_pmf(b)
    assert sum(U) == 1 and U[0] == U[-1] == Fraction(1, 2 * b)
    P_round = [(1 - gamma) * p + gamma * u for p, u in zip(P, U, strict=True)]
    Q_round = [(1 - gamma) * q + gamma * u for q, u in zip(Q, U, strict=True)]
    assert P_round[0] > E_EPS * Q_round[0]
    # the grid-uniform fallback (what the lemma assumes) is fine
    assert all(p <= E_EPS * q for p, q in zip(mix(P, gamma), mix(Q, gamma), strict=True))


# =============================================================================== Theorem C.1


def em_interval_probabilities(
    S: list[Fraction], b: Fraction, epsilon: mpmath.mpf, t: Fraction
) -> list[mpmath.mpf]:
    """Exact EM law over the intervals (s_j, s_{j+1}), s_0 = 0, s_{k+1} = b (App. C.2):
    P(J = j) ∝ (s_{j+1} − s_j)·exp(−ε|j − t|/2)."""
    breaks = [Fraction(0), *S, b]
    w = [
        to_mpf(breaks[j + 1] - breaks[j]) * mpmath.exp(-epsilon * to_mpf(abs(j - t)) / 2)
        for j in range(len(breaks) - 1)
    ]
    z = mpmath.fsum(w)
    return [v / z for v in w]


def rank_error_probability(
    X: list[Fraction],
    b: Fraction,
    S: list[Fraction],
    probs: list[mpmath.mpf],
    center: int,
    radius: int,
) -> mpmath.mpf:
    """Exact P(|center − rank_X(v)| > radius) for v ~ the EM law on S: the density is constant on
    each EM interval, rank_X is constant on each cell of the grid {0, b} ∪ X."""
    breaks = [Fraction(0), *S, b]
    grid = [Fraction(0), *X, b]
    total = mpmath.mpf(0)
    j = 0
    for k in range(len(grid) - 1):
        left, right = grid[k], grid[k + 1]
        while breaks[j + 1] <= left:
            j += 1
        rank = k  # points of X <= left, i.e. #{x < v} for v in (left, right)
        if abs(center - rank) > radius:
            total += probs[j] * to_mpf((right - left) / (breaks[j + 1] - breaks[j]))
    return total


def c1_half_width(epsilon: mpmath.mpf, psi: Fraction, beta: mpmath.mpf) -> int:
    """ℓ = ⌈(2/ε)·ln(2ψ/β) − 1⌉ (Thm C.1)."""
    return int(mpmath.ceil(2 / epsilon * mpmath.log(2 * to_mpf(psi) / beta) - 1))


def slice_half_width(epsilon: mpmath.mpf, psi: Fraction, beta: mpmath.mpf, m: int) -> int:
    """h = ⌈(2/ε)·ln(2mψ/β)⌉ (the authors' repository; notes/imola25.md erratum 10)."""
    return int(mpmath.ceil(2 / epsilon * mpmath.log(2 * m * to_mpf(psi) / beta)))


def dyadic_data(seed: int, n: int, B: int, a: int) -> tuple[list[Fraction], Fraction, np.ndarray]:
    """n distinct points p·2^−a with integer p in [1, B − 1] (exact as floats and Fractions);
    b = B·2^−a. Returns (Fractions, b, floats)."""
    rng = np.random.default_rng(seed)
    p = np.sort(rng.choice(np.arange(1, B), size=n, replace=False))
    unit = Fraction(1, 2**a)
    X = [int(v) * unit for v in p]
    return X, B * unit, p.astype(float) / 2**a


def min_gap_of(X: list[Fraction]) -> Fraction:
    return min(y - x for x, y in itertools.pairwise(X))


accuracy_params = st.tuples(
    st.floats(0.5, 4.0),  # ε
    st.floats(1e-9, 0.5),  # β
    st.integers(6, 20),  # log2 B
    st.integers(0, 8),  # a: unit 2^-a
    st.integers(0, 12),  # extra points
    st.floats(0.0, 1.0),  # position of r in its allowed range
    st.integers(0, 2**32 - 1),  # seed
)


def fit_data(
    eps: mpmath.mpf, beta: mpmath.mpf, logB: int, extra: int, width
) -> tuple[int, int, int]:
    """(B, half-width upper bound, n) with n + 1 <= B: ψ <= B since the min gap is >= one unit."""
    B = 2**logB
    while True:
        w = width(eps, Fraction(B), beta)
        n = 2 * w + 2 + extra
        if n + 1 <= B:
            return B, w, n
        B *= 2


class C1Slice(NamedTuple):
    eps: Any
    beta: Any
    X: Any
    b: Any
    X_float: Any
    psi: Any
    ell: int
    r: int
    S: Any
    probs: Any


def c1_slice(params: tuple) -> C1Slice:
    """Theorem C.1's setting from ``accuracy_params`` (call under ``workdps``): dyadic data X of
    n points in [0, b], ψ = b / (smallest gap), ℓ = ``c1_half_width``, a rank r with r − ℓ >= 1
    and r + ℓ + 1 <= n, the slice S = x_(r−ℓ) .. x_(r+ℓ+1) of 2ℓ + 2 points and the exponential
    mechanism's probabilities of its intervals (target ℓ + 1)."""
    eps_f, beta_f, logB, a, extra, u, seed = params
    eps, beta = to_mpf(eps_f), to_mpf(beta_f)
    B, _, n = fit_data(eps, beta, logB, extra, c1_half_width)
    X, b, X_float = dyadic_data(seed, n, B, a)
    psi = b / min_gap_of(X)
    ell = c1_half_width(eps, psi, beta)
    r = ell + 1 + round(u * (n - 2 * ell - 2))  # r − ℓ >= 1, r + ℓ + 1 <= n
    assert r - ell >= 1 and r + ell + 1 <= n
    S = X[r - ell - 1 : r + ell + 1]  # x_(r−ℓ) .. x_(r+ℓ+1): 2ℓ + 2 points
    probs = em_interval_probabilities(S, b, eps, Fraction(ell + 1))
    return C1Slice(eps, beta, X, b, X_float, psi, ell, r, S, probs)


@given(accuracy_params)
def test_theorem_C_1_extreme_intervals_have_probability_at_most_2psi_exp_and_beta(params) -> None:
    with workdps():
        c = c1_slice(params)
        extreme = c.probs[0] + c.probs[-1]
        # the project EM (t = q·|S| = ℓ + 1 for q = ½, weight ε/2 under replace-one) agrees
        law = ExponentialQuantile(0.5, params[0], (0.0, float(c.b)), adjacency="replace_one").exact(
            c.X_float[c.r - c.ell - 1 : c.r + c.ell + 1]
        )
        project = law.mass(0.0, float(c.S[0])) + law.mass(float(c.S[-1]), float(c.b))
        assert abs(project - extreme) <= mpmath.mpf(10) ** -40
        bound = 2 * to_mpf(c.psi) * mpmath.exp(-c.eps * (c.ell + 1) / 2)
        assert extreme <= bound
        assert bound <= c.beta * (1 + mpmath.mpf(10) ** -40)  # equality only when ℓ + 1 is exact


@given(accuracy_params)
def test_theorem_C_1_rank_error_above_ell_has_probability_exactly_the_extremes_at_most_beta(
    params,
) -> None:
    """Pr[|r − rank_X(v)| > ℓ] computed on the grid {0, b} ∪ X (all of X, not only the slice)."""
    with workdps():
        c = c1_slice(params)
        miss = rank_error_probability(c.X, c.b, c.S, c.probs, c.r, c.ell)
        assert abs(miss - (c.probs[0] + c.probs[-1])) <= mpmath.mpf(10) ** -40
        assert miss <= c.beta * (1 + mpmath.mpf(10) ** -40)
        # not vacuous: ranks vary
        assert rank_error_probability(c.X, c.b, c.S, c.probs, c.r, c.ell + 1) < miss


@given(accuracy_params, st.integers(1, 64), st.booleans())
def test_theorem_C_1_slice_of_2h_plus_1_points_misses_with_probability_at_most_beta_over_m(
    params, m, repo_target
) -> None:
    """Slice x_(r̃−h) .. x_(r̃+h), target h (paper, ⌊|S|/2⌋) or h + ½ (repo/project, q·|S|, q = ½):
    Pr[extreme interval] <= 2ψe^{−εh/2} <= β/m for h = ⌈(2/ε)ln(2mψ/β)⌉, and the rank error
    |r̃ − rank_X(v)| > h only happens in the extreme intervals (Thm C.1's proof)."""
    eps_f, beta_f, logB, a, extra, u, seed = params
    with workdps():
        eps, beta = to_mpf(eps_f), to_mpf(beta_f)

        def width(e, psi, bt):
            return slice_half_width(e, psi, bt, m)

        B, _, n = fit_data(eps, beta, logB, extra, width)
        X, b, X_float = dyadic_data(seed, n, B, a)
        psi = b / min_gap_of(X)
        h = slice_half_width(eps, psi, beta, m)
        rt = h + 1 + round(u * (n - 2 * h - 1))  # r̃ − h >= 1, r̃ + h <= n
        assert rt - h >= 1 and rt + h <= n
        S = X[rt - h - 1 : rt + h]  # 2h + 1 points
        t = Fraction(2 * h + 1, 2) if repo_target else Fraction(h)
        probs = em_interval_probabilities(S, b, eps, t)
        extreme = probs[0] + probs[-1]
        if repo_target:
            law = ExponentialQuantile(0.5, eps_f, (0.0, float(b)), adjacency="replace_one").exact(
                X_float[rt - h - 1 : rt + h]
            )
            project = law.mass(0.0, float(S[0])) + law.mass(float(S[-1]), float(b))
            assert abs(project - extreme) <= mpmath.mpf(10) ** -40
        bound = 2 * to_mpf(psi) * mpmath.exp(-eps * h / 2)
        assert extreme <= bound <= beta / m * (1 + mpmath.mpf(10) ** -40)
        miss = rank_error_probability(X, b, S, probs, rt, h)
        assert miss <= extreme * (1 + mpmath.mpf(10) ** -40)


def test_theorem_C_1_target_conventions_agree_for_2ell_plus_2_points() -> None:
    """⌊|S|/2⌋ (paper) = q·|S| with q = ½ (project EM) = ℓ + 1 for |S| = 2ℓ + 2 (erratum 10)."""
    for ell in range(0, 50):
        k = 2 * ell + 2
        assert k // 2 == Fraction(1, 2) * k == ell + 1


def test_theorem_C_1_half_width_formula_examples() -> None:
    """ℓ = ⌈(2/ε)ln(2ψ/β) − 1⌉ against a hand computation: ε = 1, ψ = 100, β = 0.05 →
    2·ln(4000) − 1 = 15.588... → 16; repo h (m = 1) = ⌈2·ln 4000⌉ = 17."""
    with workdps():
        assert c1_half_width(mpmath.mpf(1), Fraction(100), mpmath.mpf("0.05")) == 16
        assert slice_half_width(mpmath.mpf(1), Fraction(100), mpmath.mpf("0.05"), 1) == 17
        assert math.ceil(2 * math.log(4000) - 1) == 16


# =============================================================================== Good* facts


@st.composite
def increasing_rank_vectors(draw):
    """Increasing r̃ with gaps around 2h + 1 and n around r̃_m + h, so both members and
    non-members of Good* (and of the printed Good) occur."""
    m = draw(st.integers(1, 6))
    h = draw(st.integers(0, 5))
    first = draw(st.integers(max(h - 1, 0), h + 3))
    gaps = draw(st.lists(st.integers(max(2 * h - 1, 1), 2 * h + 3), min_size=m - 1, max_size=m - 1))
    r = np.cumsum([first, *gaps]).astype(np.int64)
    n = max(int(r[-1]) + h + draw(st.integers(-2, 3)), 0)
    return r, h, n


def slice_index_sets(r: np.ndarray, h: int) -> list[set[int]]:
    return [set(range(int(v) - h, int(v) + h + 1)) for v in r]


@given(increasing_rank_vectors())
def test_good_star_iff_slices_in_range_and_pairwise_disjoint(vec) -> None:
    """Good* (notes/imola25.md, Decisions): r̃ ∈ Good*_{m,n,h} ⇔ every slice ⊂ [1, n] and the
    slices are pairwise disjoint (for increasing r̃, i.e. consecutive slices in order)."""
    r, h, n = vec
    sets = slice_index_sets(r, h)
    in_range = all(min(S) >= 1 and max(S) <= n for S in sets)
    disjoint = all(not (A & B) for A, B in itertools.combinations(sets, 2))
    assert in_good_set(r, n, h) == (in_range and disjoint)
    lo, hi = slice_index_ranges(r, h)
    assert [(min(S), max(S)) for S in sets] == list(zip(lo.tolist(), hi.tolist(), strict=True))


@given(increasing_rank_vectors())
def test_printed_good_set_allows_consecutive_slices_to_share_one_element(vec) -> None:
    r, h, n = vec
    sets = slice_index_sets(r, h)
    in_range = all(min(S) >= 1 and max(S) <= n for S in sets)
    at_most_one = all(len(A & B) <= 1 for A, B in itertools.pairwise(sets))
    assert in_good_set(r, n, h, rule="printed") == (in_range and at_most_one)
    if in_good_set(r, n, h, rule="printed") and not in_good_set(r, n, h):
        assert any(len(A & B) == 1 for A, B in itertools.pairwise(sets))  # exactly one shared


@given(good_star_instances(), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_feasibility_w_error_keeps_noisy_ranks_in_good_star_h_plus_1(instance, w, seed) -> None:
    """The feasibility check (notes/imola25.md, Decisions; Alg. 1 Line 2 with Good*):
    r ∈ Good*_{m,n−1,h+1+w} and ‖r̃ − r‖∞ <= w ⇒ r̃ ∈ Good*_{m,n−1,h+1}; an error of w + 1 can
    leave it (the boundary r)."""
    m, h, _, _ = instance
    H = h + 1 + w
    rng = np.random.default_rng(seed)
    r = np.cumsum(np.concatenate([[H + 1], 2 * H + 1 + np.zeros(m - 1, dtype=np.int64)]))
    r = r + np.cumsum(rng.integers(0, 3, size=m))  # extra slack, gaps only grow
    n_minus_1 = int(r[-1]) + H + int(rng.integers(0, 3))
    assert in_good_set(r, n_minus_1, H)
    for noise in rng.integers(-w, w + 1, size=(50, m)):
        assert in_good_set(r + noise, n_minus_1, h + 1)
    corners = np.array(list(itertools.product((-w, w), repeat=m)))
    assert np.all(in_good_set(r + corners, n_minus_1, h + 1))
    tight = np.cumsum([H + 1] + [2 * H + 1] * (m - 1))  # r on the boundary of Good*_{·,·,H}
    shifted = tight.copy()
    shifted[0] -= w + 1
    assert in_good_set(tight, int(tight[-1]) + H, H)
    assert not in_good_set(shifted, int(tight[-1]) + H, h + 1)
