"""tzamos20 typical set H and TYPICALHAMMING (display (3.3), Lemma E.2, Claims E.3–E.4): the exact
(s_L, s_R) program, the paper's greedy (Algorithm 3) and a brute-force oracle agree; TH's
invariants hold (0 <= TH <= n, 1-Lipschitz in d_H, TH(X, m(X)) = 0 iff X ∈ H, constant on cells)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.typical_set import (
    anchor_points,
    distance_to_typical_set,
    exact_data,
    in_typical_set,
    left_median,
    typical_hamming,
    typical_hamming_brute,
    typical_hamming_greedy,
    window_counts,
    window_counts_presorted,
)

GRID = st.integers(-12, 12).map(lambda k: F(k, 4))  # k/4: ties appear often
CS = st.sampled_from([F(1), F(5, 4), F(3, 2), F(2)])


def _params(n: int, C: F, R: F = F(2)) -> MedianParameters:
    return MedianParameters(n, F(1, 2), F(1), R, C)


@st.composite
def instances(draw, max_n: int = 7, cs=CS):
    n = draw(st.integers(1, max_n))
    x = draw(st.lists(GRID, min_size=n, max_size=n))
    xi = draw(st.one_of(GRID, st.sampled_from(x)))
    return x, xi, _params(n, draw(cs), draw(st.sampled_from([F(1), F(2)])))


@settings(max_examples=150, deadline=None)
@given(instances(cs=st.sampled_from([F(1, 2), F(3, 4), F(1), F(5, 4), F(3, 2), F(2)])))
def test_lemma_4_1_exact_formula_equals_the_brute_force_oracle(case) -> None:
    x, xi, params = case
    assert typical_hamming(x, xi, params) == typical_hamming_brute(x, xi, params)


@settings(max_examples=150, deadline=None)
@given(instances(max_n=10))
def test_claim_e_3_greedy_equals_the_exact_formula_for_c_at_least_one(case) -> None:
    x, xi, params = case
    assert typical_hamming_greedy(x, xi, params) == typical_hamming(x, xi, params)


def test_greedy_gets_stuck_for_c_below_one_where_the_optimum_is_two() -> None:
    """Erratum E9: X = (3/4, 5/4), ξ = 1/2, L = 1/2, r = 1, C = 1/2: the optimum is 2, and it needs
    a point above ξ to fix a Left deficit, which the greedy (argmin first) never does."""
    params = MedianParameters(2, F(1, 2), F(1), F(2), F(1, 2))
    x, xi = [F(3, 4), F(5, 4)], F(1, 2)
    assert typical_hamming(x, xi, params) == 2 == typical_hamming_brute(x, xi, params)
    with pytest.raises(ValueError, match="greedy TYPICALHAMMING is stuck"):
        typical_hamming_greedy(x, xi, params)


@settings(max_examples=150, deadline=None)
@given(instances(max_n=9))
def test_th_at_the_median_is_zero_exactly_on_h(case) -> None:
    x, _, params = case
    m = left_median(exact_data(x), params)
    assert (typical_hamming(x, m, params) == 0) == in_typical_set(x, params)
    assert (distance_to_typical_set(x, params) == 0) == in_typical_set(x, params)


@settings(max_examples=150, deadline=None)
@given(instances(max_n=9), st.data())
def test_th_is_one_lipschitz_in_hamming_distance_and_bounded_by_n(case, data) -> None:
    x, xi, params = case
    i = data.draw(st.integers(0, len(x) - 1))
    y = list(x)
    y[i] = data.draw(GRID)
    a, b = typical_hamming(x, xi, params), typical_hamming(y, xi, params)
    if math.isinf(a):
        assert math.isinf(b)
        return
    assert 0 <= a <= params.n and abs(a - b) <= 1
    assert abs(distance_to_typical_set(x, params) - distance_to_typical_set(y, params)) <= 1


@settings(max_examples=100, deadline=None)
@given(instances(max_n=8), st.randoms(use_true_random=False))
def test_th_and_membership_are_permutation_invariant(case, rnd) -> None:
    x, xi, params = case
    y = list(x)
    rnd.shuffle(y)
    assert typical_hamming(y, xi, params) == typical_hamming(x, xi, params)
    assert in_typical_set(y, params) == in_typical_set(x, params)


@settings(max_examples=40, deadline=None)
@given(instances(max_n=4))
def test_setting_changed_points_to_xi_dominates_any_other_replacement(case) -> None:
    """Claim E.3's dominance (T14): for n <= 4, changing coordinates to values from a grid (that
    includes the windows' ends) never reaches H with median ξ in fewer changes than TH."""
    x, xi, params = case
    th = typical_hamming(x, xi, params)
    d = params.delta
    values = sorted({xi + k * d for k in range(-3, 4)} | set(x) | {xi + F(7), xi - F(7)})
    for size in range(int(min(th, params.n + 1))):
        for changed in itertools.combinations(range(params.n), size):
            for repl in itertools.product(values, repeat=size):
                y = list(x)
                for i, v in zip(changed, repl, strict=True):
                    y[i] = v
                ys = sorted(y)
                if left_median(ys, params) == xi:
                    assert not in_typical_set(ys, params)


def test_membership_counts_ties_on_both_sides_and_uses_closed_windows() -> None:
    """n = 8, L = 1/2, r = 1, C = 1: δ = 1/4, K = 2. Three points at the median satisfy κ = 1 and
    κ = 2 on both sides only because ties count twice; a point at m + 2δ counts (closed)."""
    params = MedianParameters(8, F(1, 2), F(1), F(2), F(1))
    assert params.delta == F(1, 4) and params.windows == 2 and params.ell == 4
    assert in_typical_set([-5, -5, -5, 0, 0, 0, 5, 5], params)
    # the Right windows hold, but Left κ = 2 needs 3 points in [m − 2δ, m]: only the two zeros
    assert not in_typical_set([-5, -5, -5, 0, 0, F(1, 100), 5, 5], params)
    assert not in_typical_set([-5, -5, -5, 0, 0, F(1, 2), 5, 5], params)
    assert in_typical_set([-5, -5, F(-1, 2), 0, 0, F(1, 2), 5, 5], params)  # closed windows


def test_median_outside_xi_is_impossible() -> None:
    params = _params(3, F(1))
    lo, hi = params.xi_range
    assert (lo, hi) == (F(-5, 2), F(5, 2))
    assert typical_hamming([0, 0, 0], F(3), params) == math.inf
    assert typical_hamming_greedy([0, 0, 0], F(3), params) == math.inf
    assert not in_typical_set([3, 3, 3], params)


def test_floor_median_index_is_the_printed_definition() -> None:
    ceil = MedianParameters(5, F(1, 2), F(1), F(2), F(1))
    floor = MedianParameters(5, F(1, 2), F(1), F(2), F(1), median_index="floor")
    x = exact_data([1, 2, 3, 4, 5])
    assert left_median(x, ceil) == 3 and left_median(x, floor) == 2
    assert MedianParameters(1, F(1, 2), F(1), F(2), F(1), median_index="floor").ell == 1


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: MedianParameters(0, 1, 1, 1, 1), "n must be an integer >= 1"),
        (lambda: MedianParameters(3, 0, 1, 1, 1), "L must be > 0"),
        (lambda: MedianParameters(3, F(1, 2), -1, 1, 1), "r must be > 0"),
        (lambda: MedianParameters(3, F(1, 2), 1, 0, 1), "R must be > 0"),
        (lambda: MedianParameters(3, F(1, 2), 1, 1, 0), "C must be > 0"),
        (lambda: MedianParameters(3, 1, 1, 1, 1), r"L·r must be at most 1/2"),
        (lambda: MedianParameters(3, math.nan, 1, 1, 1), "L must be a rational number"),
        (lambda: MedianParameters(3, F(1, 2), 1, 1, 1, median_index="mid"), "median_index"),
        (lambda: in_typical_set([], _params(1, F(1))), "data must be non-empty"),
        (lambda: in_typical_set([0, math.nan, 1], _params(3, F(1))), "finite numbers only"),
        (lambda: in_typical_set([0, 1], _params(3, F(1))), "data must have n = 3 values"),
        (lambda: typical_hamming_brute([0] * 13, 0, _params(13, F(1))), "at most 12"),
    ],
)
def test_bad_input_raises_a_clear_value_error(build, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        build()


def test_exact_data_reads_floats_exactly() -> None:
    assert exact_data([0.1, 1]) == [F(0.1), F(1)]


@settings(max_examples=150, deadline=None)
@given(instances(max_n=8), st.data())
def test_claim_e_4_th_is_constant_on_the_open_cells_between_anchors(case, data) -> None:
    """Claim E.4: with anchors X_i ± κδ (κ = 0..K) and the ends of Ξ, TH(X, ·) is constant on each
    open cell (P_{j−1}, P_j); |P| <= n(2K + 1) + 2."""
    x, _, params = case
    pts = anchor_points(x, params)
    assert len(pts) <= params.n * (2 * params.windows + 1) + 2
    j = data.draw(st.integers(1, len(pts) - 1))
    a, b = pts[j - 1], pts[j]
    t1, t2 = (data.draw(st.integers(1, 99)) for _ in range(2))
    xi1, xi2 = a + (b - a) * F(t1, 100), a + (b - a) * F(t2, 100)
    assert typical_hamming(x, xi1, params) == typical_hamming(x, xi2, params)


def test_membership_on_integers_equals_the_windows_counted_on_fractions() -> None:
    """``in_typical_set`` counts the windows on the integers D·x_i (issue 39); the definition
    counted on Fractions (:func:`window_counts`, closed windows, ties on both sides) agrees on
    seeded data sets with points exactly at m ± κδ, ties, Ξ's ends, far points and a value off
    every dyadic grid, n = 1..12, C from 1/2 to 2."""
    rng = np.random.default_rng(39)
    members = 0
    for _ in range(600):
        n = int(rng.integers(1, 13))
        c = [F(1, 2), F(3, 4), F(1), F(5, 4), F(2)][int(rng.integers(5))]
        params = MedianParameters(n, F(1, 2), F(1), F(5), c, ("ceil", "floor")[int(rng.integers(2))])
        pool = [int(k) * params.delta / 2 for k in range(-8, 9)]
        pool += [F(-11, 2), F(11, 2), F(6), F(-1000), F(1, 3), F(1, 16)]
        x = sorted(pool[int(i)] for i in rng.integers(len(pool), size=n))
        m, K = x[params.ell - 1], params.windows
        expect = F(-11, 2) <= m <= F(11, 2) and K + 1 <= n
        expect = expect and all(
            min(window_counts(x, m, kappa, params.delta)) >= kappa + 1 for kappa in range(1, K + 1)
        )
        assert in_typical_set(x, params) == expect, (x, params)
        members += expect
    assert 30 < members < 570  # both answers are exercised


def test_presorted_window_counts_equal_the_checked_ones() -> None:
    """``window_counts_presorted`` (no checks, for data already sorted and exact) counts the same
    closed windows as :func:`window_counts` on seeded data with ties, points exactly at ξ ± κδ
    and κ = 0, and the counts are the definition's, counted directly."""
    rng = np.random.default_rng(2026)
    delta = F(1, 4)
    for _ in range(200):
        x = sorted(F(int(k), 8) for k in rng.integers(-16, 17, size=int(rng.integers(1, 12))))
        xi = F(int(rng.integers(-8, 9)), 4)
        for kappa in range(4):
            fast = window_counts_presorted(x, xi, kappa, delta)
            assert fast == window_counts(x, xi, kappa, delta)
            assert fast == (
                sum(xi <= v <= xi + kappa * delta for v in x),
                sum(xi - kappa * delta <= v <= xi for v in x),
            )
