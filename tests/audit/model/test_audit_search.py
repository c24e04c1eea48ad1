"""dpquant.audit.model.neighbours: neighbour pairs under each adjacency, probe values, patterns, local search."""

from __future__ import annotations

import math
import zlib
from collections import Counter
from itertools import combinations, combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.audit.model.neighbours import (
    LARGE,
    Pair,
    exhaustive_pairs,
    hill_climb,
    hill_climb_batched,
    make_pair,
    neighbours_of,
    pattern_pairs,
    probe_values,
    rank_shift_pairs,
    refine_values,
    split_pairs,
    tie_family,
)
from dpquant.reference.distributions import privacy_loss
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

ADJACENCIES = ("replace_one", "add_remove", "local")


def are_neighbours(d0: np.ndarray, d1: np.ndarray, adjacency: str) -> bool:
    """Independent oracle on multisets."""
    c0, c1 = Counter(d0.tolist()), Counter(d1.tolist())
    if adjacency == "local":
        return len(d0) == 1 and len(d1) == 1 and d0[0] != d1[0]
    if adjacency == "replace_one":
        return len(d0) == len(d1) and sum((c0 - c1).values()) == 1 and sum((c1 - c0).values()) == 1
    small, big = (c0, c1) if len(d0) < len(d1) else (c1, c0)
    return abs(len(d0) - len(d1)) == 1 and not (small - big)


def unordered(pair: Pair) -> frozenset:
    d0, d1 = (tuple(d.tolist()) for d in pair.data)
    return frozenset({d0, d1})


def brute_force_pairs(grid, max_n, adjacency) -> set[frozenset]:
    """All unordered neighbouring pairs of multisets of size <= max_n, by checking every pair."""
    sizes = range(1, 2) if adjacency == "local" else range(0, max_n + 1)
    sets = [np.array(m) for k in sizes for m in combinations_with_replacement(sorted(grid), k)]
    if adjacency == "replace_one":
        sets = [s for s in sets if len(s)]
    return {
        frozenset({tuple(a.tolist()), tuple(b.tolist())})
        for a, b in combinations(sets, 2)
        if are_neighbours(a, b, adjacency)
    }


def expected_count(g: int, max_n: int, adjacency: str) -> int:
    """replace-one: a shared multiset of size 0..max_n−1 (Σ_m C(g−1+m, m) = C(g+max_n−1, max_n−1)
    of them, hockey-stick identity) times an unordered pair x < y of distinct values; add/remove:
    the same shared multisets times the added value; local: the pairs of distinct values."""
    shared = math.comb(g + max_n - 1, max_n - 1)
    if adjacency == "replace_one":
        return shared * math.comb(g, 2)
    if adjacency == "add_remove":
        return shared * g
    return math.comb(g, 2)


@pytest.mark.parametrize("adjacency", ADJACENCIES)
@pytest.mark.parametrize("g, max_n", [(1, 3), (2, 1), (2, 4), (3, 3), (4, 2), (5, 3)])
def test_exhaustive_pairs_are_exactly_the_neighbouring_pairs_each_listed_once(
    adjacency, g, max_n
) -> None:
    grid = [0.0, 1.0, -2.5, 7.0, 0.5][:g]
    pairs = list(exhaustive_pairs(grid, max_n, adjacency))
    for p in pairs:
        d0, d1 = p.data
        assert are_neighbours(d0, d1, adjacency), p
        assert max(len(d0), len(d1)) <= max_n
    keys = [unordered(p) for p in pairs]
    assert len(keys) == len(set(keys))  # no unordered pair twice
    assert len(pairs) == expected_count(g, max_n, adjacency)
    assert set(keys) == brute_force_pairs(grid, max_n, adjacency)


@pytest.mark.parametrize(
    "g, max_n, adjacency, count",
    [
        (5, 6, "replace_one", 2520),  # (1 + 5 + 15 + 35 + 70 + 126 = C(10, 5) = 252) · C(5, 2)
        (7, 4, "add_remove", 840),  # (1 + 7 + 28 + 84 = C(10, 3) = 120) · 7
        (9, 6, "local", 36),
        (3, 2, "replace_one", 12),  # (1 + 3) · 3
    ],
)
def test_exhaustive_pair_counts_follow_the_hockey_stick_formula(g, max_n, adjacency, count) -> None:
    grid = np.linspace(-1.0, 1.0, g)
    assert expected_count(g, max_n, adjacency) == count
    assert sum(1 for _ in exhaustive_pairs(grid, max_n, adjacency)) == count


def test_exhaustive_pairs_ignore_repeated_grid_values_and_reject_bad_arguments() -> None:
    a = list(exhaustive_pairs([0.0, 1.0, 1.0, 0.0], 2, "replace_one"))
    assert a == list(exhaustive_pairs([1.0, 0.0], 2, "replace_one"))
    with pytest.raises(ValueError):
        list(exhaustive_pairs([], 2, "replace_one"))
    with pytest.raises(ValueError):
        list(exhaustive_pairs([0.0, 1.0], 0, "replace_one"))
    with pytest.raises(ValueError):
        list(exhaustive_pairs([0.0, 1.0], 2, "swap"))


def test_pair_data_are_the_two_sorted_data_sets() -> None:
    p = make_pair([0.5, 0.1], 0.9, 0.0)
    d0, d1 = p.data
    np.testing.assert_array_equal(d0, [0.1, 0.5, 0.9])
    np.testing.assert_array_equal(d1, [0.0, 0.1, 0.5])
    assert p.size == 3 and p.key == ((0.0, 0.1, 0.5), (0.1, 0.5, 0.9))
    q = make_pair([0.5], None, 0.0)
    assert [d.tolist() for d in q.data] == [[0.5], [0.0, 0.5]]


# ---------------------------------------------------------------------------------------------
# probe values
# ---------------------------------------------------------------------------------------------


def test_probe_values_on_a_finite_domain_include_both_ends_and_interior_points() -> None:
    values = probe_values((-2.0, 6.0))
    assert values == tuple(sorted(values))
    assert values[0] == -2.0 and values[-1] == 6.0
    assert len(values) >= 5 and all(-2.0 <= v <= 6.0 for v in values)


def test_probe_values_on_the_real_line_reach_plus_and_minus_large() -> None:
    values = probe_values((-math.inf, math.inf))
    assert values == tuple(sorted(values)) and len(set(values)) == len(values)
    assert values[0] == -LARGE == -1000.0 and values[-1] == LARGE
    assert 0.0 in values and 1.0 in values and all(math.isfinite(v) for v in values)


@pytest.mark.parametrize("end", [-3.0, 0.0, 10.0])
def test_probe_values_on_half_lines_include_the_finite_end_and_large_on_the_open_side(end) -> None:
    right = probe_values((end, math.inf))
    assert right == tuple(sorted(right)) and right[0] == end and right[-1] == end + LARGE
    assert all(v >= end for v in right)
    left = probe_values((-math.inf, end))
    assert left == tuple(sorted(left)) and left[-1] == end and left[0] == end - LARGE
    assert all(v <= end for v in left)


def test_probe_values_use_the_input_values_when_given() -> None:
    assert probe_values((0.0, 1.0), inputs=[1, 0, 1]) == (0.0, 1.0)
    assert probe_values((-math.inf, math.inf), inputs=(3.0, -1.0)) == (-1.0, 3.0)


def test_refine_values_adds_the_midpoints() -> None:
    assert refine_values([1.0, 0.0, 0.5]) == (0.0, 0.25, 0.5, 0.75, 1.0)


# ---------------------------------------------------------------------------------------------
# patterns, moves, local search
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("adjacency", ["replace_one", "add_remove"])
@pytest.mark.parametrize(
    "values", [probe_values((0.0, 1.0)), probe_values((-math.inf, math.inf)), (0.0, 1.0)]
)
def test_pattern_pairs_are_neighbours_beyond_the_exhaustive_sizes(adjacency, values) -> None:
    pairs = pattern_pairs(values, adjacency)
    assert pairs and len(set(pairs)) == len(pairs)
    for p in pairs:
        d0, d1 = p.data
        assert are_neighbours(d0, d1, adjacency), p
        assert set(d0.tolist()) | set(d1.tolist()) <= set(values)
    assert max(p.size for p in pairs) >= 16
    # all-equal data with one record moved are among them
    mid = sorted(values)[len(values) // 2]
    assert any(set(p.shared) == {mid} for p in pairs)


@pytest.mark.parametrize("adjacency", ["replace_one", "add_remove"])
@pytest.mark.parametrize("values", [probe_values((0.0, 1.0)), probe_values((-math.inf, math.inf))])
def test_split_pairs_move_the_median_from_one_cluster_to_the_other(adjacency, values) -> None:
    """Two clusters split at the median rank: one record moved (or added) makes the ⌈n/2⌉-th or
    the ⌊n/2⌋-th order statistic jump from one cluster value to the other, for every size and
    for every pair of the outer, inner-extreme and middle values (so (−1, 2) on the real line)."""
    pairs = split_pairs(values, adjacency)
    assert pairs and set(pairs) <= set(pattern_pairs(values, adjacency))
    jumps = set()
    for p in pairs:
        d0, d1 = p.data
        assert are_neighbours(d0, d1, adjacency), p
        assert len(set(d0.tolist()) | set(d1.tolist())) == 2
        ranks = (lambda k: (k + 1) // 2, lambda k: max(k // 2, 1))  # ⌈k/2⌉, ⌊k/2⌋
        moved = [
            (d0[rank(len(d0)) - 1], d1[rank(len(d1)) - 1])
            for rank in ranks
            if d0[rank(len(d0)) - 1] != d1[rank(len(d1)) - 1]
        ]
        assert moved, p
        jumps |= {tuple(sorted(m)) for m in moved}
    grid = sorted(values)
    assert (grid[1], grid[-2]) in jumps and (grid[0], grid[-1]) in jumps


@pytest.mark.parametrize("adjacency", ["replace_one", "add_remove"])
@pytest.mark.parametrize("values", [probe_values((0.0, 1.0)), probe_values((-math.inf, math.inf))])
def test_rank_shifts_add_the_lowest_value_against_the_highest_and_move_every_rank(
    adjacency, values
) -> None:
    """Every rank shift is a neighbouring pair whose D holds the lowest value added and D′ the
    highest (add/remove: D = shared against shared + {lo} or + {hi}), so each shared record's
    rank moves by one; the shared records are one record at each interior value of the grid
    refined twice, and two clusters of 9 and of 15 records split at the median rank over every
    pair of probe values."""
    pairs = rank_shift_pairs(values, adjacency)
    grid = sorted(values)
    lo, hi = grid[0], grid[-1]
    fine = refine_values(refine_values(values))
    assert len(pairs) == len(set(pairs))
    singles, clusters = set(), set()
    for p in pairs:
        d0, d1 = p.data
        assert are_neighbours(d0, d1, adjacency), p
        assert lo <= d0.min() and d1.max() <= hi
        if adjacency == "replace_one":
            assert (p.x, p.y) == (lo, hi)
        else:
            assert p.x is None and p.y in (lo, hi)
        shared = Counter(p.shared)
        if len(p.shared) == 1:
            singles.add(p.shared[0])
        else:
            v, w = sorted(shared)
            n = len(p.shared) + 1
            assert n in (10, 16) and shared[v] in (n // 2 - 1, n // 2), p
            clusters.add((n, v, w, shared[v]))
    assert singles == set(fine[1:-1])
    pairs_of_values = len(grid) * (len(grid) - 1) // 2
    assert len(clusters) == 2 * 2 * pairs_of_values


def test_a_rank_shift_of_the_em_median_loses_more_than_any_pair_of_the_probe_grid() -> None:
    """Why the budgeted search screens rank shifts (notes/auditor.md, "A total budget of
    draws"): on the exponential-mechanism median (ε = 1, outputs in (0, 1)) the best rank
    shift loses 0.9354 exactly, the best pair of at most two records on the probe values
    0.7462."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    values = probe_values(em.domain)

    def loss(p: Pair) -> float:
        return float(privacy_loss(em.exact(p.data[0]), em.exact(p.data[1])))

    shifts = max(loss(p) for p in rank_shift_pairs(values, "replace_one") if p.size == 2)
    grid = max(loss(p) for p in exhaustive_pairs(values, 2, "replace_one"))
    assert shifts == pytest.approx(0.9354, abs=5e-5) and grid == pytest.approx(0.7462, abs=5e-5)
    assert shifts - grid > 0.18


def test_rank_shifts_are_empty_for_local_dp_and_a_single_value() -> None:
    assert rank_shift_pairs((0.0, 1.0), "local") == []
    assert rank_shift_pairs((0.5,), "replace_one") == []


@pytest.mark.parametrize(
    "values, sizes",
    [(range(10_000), (10, 16)), (range(200), (10, 16)), ((0.0, 0.5, 1.0), (100_000,) * 100)],
)
def test_rank_shifts_too_many_to_build_are_refused_before_any_is_built(values, sizes) -> None:
    """10 000 values would give 2·10^8 pairs: refused at once, naming the limits."""
    with pytest.raises(ValueError, match="rank shifts"):
        rank_shift_pairs(values, "replace_one", sizes)


def test_pattern_pairs_are_empty_for_local_dp_and_a_single_value() -> None:
    assert pattern_pairs((0.0, 1.0), "local") == []
    assert pattern_pairs((0.5,), "replace_one") == []


pairs_strategy = st.sampled_from(ADJACENCIES).flatmap(
    lambda adj: st.tuples(
        st.just(adj),
        st.sampled_from(list(exhaustive_pairs((0.0, 0.25, 0.5, 1.0), 3, adj))),
    )
)


@given(pairs_strategy)
def test_neighbours_of_returns_neighbouring_pairs_of_the_same_adjacency(arg) -> None:
    adjacency, pair = arg
    values = (0.0, 0.25, 0.5, 1.0, 2.0)
    moves = neighbours_of(pair, values, adjacency)
    assert moves and pair not in moves
    for p in moves:
        d0, d1 = p.data
        assert are_neighbours(d0, d1, adjacency), (pair, p)
        assert (p.x is None) == (adjacency == "add_remove")
        # one move: the sizes change by at most one record
        assert abs(p.size - pair.size) <= 1


def _target_objective(target_shared, x_target, y_target):
    def f(p: Pair) -> float:
        shared = sorted(p.shared)
        cost = abs(len(shared) - len(target_shared)) + sum(
            abs(a - b) for a, b in zip(shared, target_shared, strict=False)
        )
        if p.x is not None:
            cost += abs(p.x - x_target)
        return -(cost + abs(p.y - y_target))

    return f


@given(pairs_strategy)
def test_hill_climb_finds_the_maximum_of_a_separable_objective(arg) -> None:
    adjacency, start = arg
    values = (0.0, 0.25, 0.5, 1.0)
    target = () if adjacency == "local" else (0.5, 0.5)
    f = _target_objective(target, 0.0, 1.0)
    best, value, evaluated = hill_climb(start, f, values, adjacency)
    assert value == f(best) >= f(start)
    assert value == 0.0 and evaluated > 0
    assert best.y == 1.0 and best.shared == target


@given(pairs_strategy, st.integers(0, 2**32 - 1), st.integers(0, 5))
def test_hill_climb_never_returns_a_worse_objective_than_its_start(arg, salt, steps) -> None:
    adjacency, start = arg

    def f(p: Pair) -> float:  # an arbitrary bumpy objective
        return float(np.random.default_rng([salt, zlib.crc32(repr(p).encode())]).random())

    best, value, evaluated = hill_climb(start, f, (0.0, 0.5, 1.0), adjacency, steps=steps)
    assert value == f(best) >= f(start)
    d0, d1 = best.data
    assert best == start or are_neighbours(d0, d1, adjacency)
    assert evaluated >= 1


def test_hill_climb_respects_the_size_limit() -> None:
    start = make_pair([0.5], 0.0, 1.0)
    best, _, _ = hill_climb(start, lambda p: float(p.size), (0.0, 0.5, 1.0), "replace_one", 50, 5)
    assert best.size == 5


def _reference_climb(start, f, values, adjacency, steps, max_size=64):
    """Steepest ascent written out pair by pair: the first of the best moves, if it is better."""
    best, value, evaluated = start, f(start), 1
    for _ in range(steps):
        moves = [p for p in neighbours_of(best, values, adjacency) if p.size <= max_size]
        if not moves:
            break
        scores = [f(p) for p in moves]
        evaluated += len(moves)
        k = scores.index(max(scores))
        if not scores[k] > value:
            break
        best, value = moves[k], scores[k]
    return best, value, evaluated


@given(pairs_strategy, st.integers(0, 2**32 - 1), st.integers(0, 6), st.sampled_from([2, 5, 1000]))
def test_hill_climb_batched_takes_the_steps_of_the_pair_by_pair_climb(
    arg, salt, steps, levels
) -> None:
    """An objective with few levels (many ties: the first best move is taken) scored a step at a
    time gives the same climb, in one call per step."""
    adjacency, start = arg
    values = (0.0, 0.25, 0.5, 1.0)

    def f(p: Pair) -> float:
        rng = np.random.default_rng([salt, zlib.crc32(repr(p).encode())])
        return float(rng.integers(levels))

    calls: list[int] = []

    def scores(pairs: list[Pair]) -> list[float]:
        calls.append(len(pairs))
        return [f(p) for p in pairs]

    want = _reference_climb(start, f, values, adjacency, steps)
    assert hill_climb_batched(start, scores, values, adjacency, steps) == want
    assert hill_climb(start, f, values, adjacency, steps) == want
    assert calls[0] == 1 and sum(calls) == want[2] and len(calls) <= steps + 1


def test_hill_climb_batched_counts_bad_values_as_minus_infinity_and_checks_their_number() -> None:
    start = make_pair([0.5], 0.0, 1.0)
    values = (0.0, 0.5, 1.0)
    best, value, _ = hill_climb_batched(
        start, lambda ps: [math.nan if p != start else "x" for p in ps], values, "replace_one"
    )
    assert best == start and value == -math.inf
    with pytest.raises(ValueError, match="one value per pair"):
        hill_climb_batched(start, lambda ps: [1.0, 2.0], values, "replace_one")
    with pytest.raises(ValueError, match="objectives must be callable"):
        hill_climb_batched(start, None, values, "replace_one")
    with pytest.raises(ValueError, match="a sequence of values"):
        hill_climb_batched(start, lambda ps: 1.0, values, "replace_one")


def test_an_error_of_the_objective_itself_reaches_the_caller_unchanged() -> None:
    """A TypeError raised inside the user's objective is the user's, not a complaint about what
    the objective returned."""
    start = make_pair([0.5], 0.0, 1.0)

    def objective(p):
        raise TypeError("inside the objective")

    with pytest.raises(TypeError, match="inside the objective"):
        hill_climb(start, objective, (0.0, 0.5, 1.0), "replace_one")


@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_tie_family_pairs_are_neighbours_of_the_documented_sizes(n) -> None:
    v, w = 0.5, 1.0
    d0, d1 = tie_family(v, w, "replace_one")(n).data
    assert are_neighbours(d0, d1, "replace_one")
    assert Counter(d0.tolist()) == {v: n, w: 1}
    assert Counter(d1.tolist()) == ({v: n - 1, w: 2} if n > 1 else {w: 2})
    d0, d1 = tie_family(v, w, "add_remove")(n).data
    assert are_neighbours(d0, d1, "add_remove")
    assert Counter(d0.tolist()) == {v: n, w: 1}
    assert Counter(d1.tolist()) == {v: n, w: 2}


@pytest.mark.parametrize("samples, tighten, expected", [
    (400_000, False, 10_000), (400_000, True, 40_000), (20_000, True, 10_000),
    (5_000_000, True, 500_000), (100_000_000, True, 1 << 22),
])  # fmt: skip
def test_the_third_screen_grows_with_the_budget_only_when_tightening(
    samples, tighten, expected
) -> None:
    """By default the third screen draws 10 000 per side; an audit that tightens its bound
    screens with a tenth of its budget (rare best events, as SVT1's at ε = 0.1, need it), up to
    RESCREEN_MAX draws per side."""
    from dpquant.audit.pipeline.stage2_screening import RESCREEN_SAMPLES, rescreen_size

    ctx = _context(samples, tighten)
    assert rescreen_size(ctx) == expected and RESCREEN_SAMPLES == 10_000


@pytest.mark.parametrize("samples, tighten, expected", [
    (400_000, False, 2_000), (100_000_000, False, 2_000), (400_000, True, 10_000),
    (20_000, True, 2_500), (5_000, True, 2_500), (5_000_000, True, 125_000),
    (100_000_000, True, 1 << 20),
])  # fmt: skip
def test_the_second_screen_is_a_quarter_of_the_third_when_tightening(
    samples, tighten, expected
) -> None:
    """By default the second screen draws 2 000 per side; a tightening audit's second screen
    draws at least a quarter of its third (SVT6 at ε = 0.1: the pairs whose best events are rare
    were cut at 2 000 draws, and the bound fell from 0.252 to 0.135 at 5 M draws per input)."""
    from dpquant.audit.pipeline.stage2_screening import (
        MIDSCREEN_SAMPLES,
        midscreen_size,
        rescreen_size,
    )

    ctx = _context(samples, tighten)
    assert midscreen_size(ctx) == expected and MIDSCREEN_SAMPLES == 2_000
    assert midscreen_size(ctx) <= rescreen_size(ctx)


def _context(samples: int, tighten: bool):
    """The context of an audit of nothing (the screens' sizes read only its budget)."""
    from dpquant.audit.pipeline.budget import DrawBudget
    from dpquant.audit.pipeline.context import AuditContext
    from dpquant.audit.pipeline.plan import AuditPlan
    from dpquant.reference.core import PrivacyClaim

    budget = DrawBudget(samples, full=tighten)
    plan = AuditPlan(None, PrivacyClaim(1.0), (0.0, 1.0), budget, alpha=1e-6, seed=0)
    return AuditContext(plan)
