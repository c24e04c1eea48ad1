"""tzamos20 erratum E1 (``notes/tzamos20.md``): the searches that FIND the counterexamples, and
the smallest ones kept.

Claims refuted here (each by an exhaustive, deterministic enumeration over a small grid, in
increasing n, then d_H — so the first hit is the smallest on that grid — followed by a regression
test that states the smallest example exactly and re-checks it independently):

* Lemma 3.2 / (B.1): X, Y ∈ H, κ = d_H(X, Y) >= 1 ⇒ |m(X) − m(Y)| <= (2⌊κ/2⌋ + 2)C/(Ln) and
  min{(Ln/3C)|m(X) − m(Y)|, Lrn} <= κ. Cause (a): ties at the median count in both windows
  (κ <= K). Cause (b): the cap Lrn is too large for K = ⌊Lrn/2C⌋ windows — a tie-free block of
  2K + 1 points moved (K = 0: no windows at all). What survives [OURS, checked exhaustively]:
  without ties and with κ <= 2K, |m(X) − m(Y)| <= κC/(Ln).
* Lemma 3.3: Â is not ε/2-DP on H (certified log-ratio of the restricted laws > (ε/2)d_H).
* Prop A.5(b): some X ∈ H has Ψ_X ≠ the single tent at m(X) (regression fixture 1 is another).
* PrivateMedian(mode="paper") is not ε-DP (certified loss > ε on neighbours); mode="extension"
  stays <= ε on the same pair.

Parameters: L = 1/2, r = 1, R = 5 (Ξ = [−11/2, 11/2]), C ∈ {1, 5/4, 3/2, 2}, ε ∈ {1/4, 1/2, 1}.
d_H is positional (Def. 1.1): the search works on sorted multisets, where the least positional
distance over orderings is n − |X ∩ Y|; the regression tests state positional tuples that attain
it. Exact: Fractions; the DP statements are certified by interval arithmetic.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import pytest

from dpquant.reference.distributions import certified_privacy_loss
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.private_median.mechanism import PrivateMedian
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.restricted_density import restricted_law, restricted_pieces
from dpquant.reference.private_median.typical_set import exact_data, in_typical_set, left_median

F = Fraction
L_HALF, R_ONE, R_FIVE = F(1, 2), F(1), F(5)
CS = (F(1), F(5, 4), F(3, 2), F(2))
EPSILONS = (F(1, 4), F(1, 2), F(1))
MARGIN = mpmath.mpf(10) ** -40

# grids: with ties (multisets) and tie-free (subsets, two clusters of step 1/4 and Ξ's ends)
GRID_TIES = tuple(F(v) for v in (-5, F(-1, 2), 0, F(1, 2), 5))
GRID_DISTINCT_SMALL = tuple(
    F(v) for v in (F(-11, 2), F(-1, 2), F(-1, 4), 0, F(9, 2), F(19, 4), 5, 6)
)
GRID_DISTINCT = tuple(
    sorted(
        [F(k, 4) for k in range(-2, 3)] + [F(5) + F(k, 4) for k in range(-2, 3)] + [F(-11, 2), F(6)]
    )
)


# ------------------------------------------------------------------------------------ search


@dataclass(frozen=True)
class Member:
    """A sorted data set in H with its left median (Def. A.2, ℓ = ⌈n/2⌉)."""

    data: tuple[Fraction, ...]
    median: Fraction


@dataclass(frozen=True)
class Violation:
    """A pair X, Y ∈ H at (multiset) Hamming distance d violating a claim, with its parameters."""

    n: int
    d: int
    C: Fraction
    x: tuple[Fraction, ...]
    y: tuple[Fraction, ...]


def params_for(n: int, C: Fraction) -> MedianParameters:
    """MedianParameters(n, L = 1/2, r = 1, R = 5, C)."""
    return MedianParameters(n, L_HALF, R_ONE, R_FIVE, C)


def typical_members(
    params: MedianParameters, grid: tuple[Fraction, ...], distinct: bool
) -> list[Member]:
    """Every sorted X ∈ H of size n on ``grid`` (multisets, or subsets when ``distinct``)."""
    pick = itertools.combinations if distinct else itertools.combinations_with_replacement
    out = []
    for x in pick(grid, params.n):
        if in_typical_set(list(x), params):
            out.append(Member(x, left_median(list(x), params)))
    return out


def multiset_distance(x: tuple[Fraction, ...], y: tuple[Fraction, ...]) -> int:
    """min over orderings of the positional Hamming distance = n − |X ∩ Y| (multisets)."""
    return len(x) - sum((Counter(x) & Counter(y)).values())


def aligned(
    x: tuple[Fraction, ...], y: tuple[Fraction, ...]
) -> tuple[list[Fraction], list[Fraction]]:
    """Positional tuples (X sorted, Y reordered) whose Hamming distance is the multiset one:
    shared values stay in place, the other coordinates of X receive Y's remaining values."""
    common = Counter(x) & Counter(y)
    extra = iter(sorted((Counter(y) - common).elements()))
    out = []
    for v in x:
        if common[v] > 0:
            common[v] -= 1
            out.append(v)
        else:
            out.append(next(extra))
    return list(x), out


def positional_distance(x: list[Fraction], y: list[Fraction]) -> int:
    """d_H(X, Y) = #{i : X_i ≠ Y_i} (Def. 1.1)."""
    return sum(a != b for a, b in zip(x, y, strict=True))


def has_tie_at_median(x: tuple[Fraction, ...] | list[Fraction], params: MedianParameters) -> bool:
    """More than one point equals m(X) (such points count in both windows of H)."""
    data = exact_data(list(x), params.n)
    return data.count(left_median(data, params)) > 1


def has_no_ties(x: tuple[Fraction, ...] | list[Fraction]) -> bool:
    return len(set(x)) == len(x)


Violated = Callable[[Fraction, int, MedianParameters], bool]


def b1_violated(gap: Fraction, d: int, params: MedianParameters) -> bool:
    """(B.1) fails: min{(Ln/3C)|m(X) − m(Y)|, Lrn} > d_H."""
    return min(params.L * params.n / (3 * params.C) * gap, params.L * params.r * params.n) > d


def median_gap_violated(gap: Fraction, d: int, params: MedianParameters) -> bool:
    """Lemma 3.2's first inequality fails: |m(X) − m(Y)| > (2⌊d/2⌋ + 2)C/(Ln)."""
    return gap > (2 * (d // 2) + 2) * params.C / (params.L * params.n)


def restricted_ratio_violated(gap: Fraction, d: int, params: MedianParameters) -> bool:
    """Lemma 3.3 fails in closed form: with equal normalisers (Lemma A.4) the sup of
    log f_Â(X)/f_Â(Y) is (ε/4)·min{(Ln/3C)|m(X) − m(Y)|, Lrn} (Property B.0.1 is tight at
    ω = m(X)), and it exceeds (ε/2)·d_H iff that min exceeds 2·d_H. (Certified separately.)"""
    return min(params.L * params.n / (3 * params.C) * gap, params.L * params.r * params.n) > 2 * d


def smallest_violation(
    violated: Violated,
    grid: tuple[Fraction, ...],
    *,
    distinct: bool,
    ns: range,
    cs: tuple[Fraction, ...] = (F(1),),
    pair_filter: Callable[[int, MedianParameters], bool] = lambda d, p: True,
) -> Violation | None:
    """Exhaustive search: the first n (then the least d, then C, then the lexicographically least
    pair) with X, Y ∈ H on the grid violating the claim; None if the grid has none for ns."""
    for n in ns:
        found = []
        for C in cs:
            params = params_for(n, C)
            groups: dict[Fraction, list[Member]] = {}
            for member in typical_members(params, grid, distinct):
                groups.setdefault(member.median, []).append(member)
            for ma, mb in itertools.combinations_with_replacement(sorted(groups), 2):
                gap = abs(ma - mb)
                if not violated(gap, 1, params):  # harder as d grows: skip the whole block
                    continue
                block = (
                    itertools.combinations(groups[ma], 2)
                    if ma == mb
                    else itertools.product(groups[ma], groups[mb])
                )
                for a, b in block:
                    d = multiset_distance(a.data, b.data)
                    if pair_filter(d, params) and violated(gap, d, params):
                        found.append(Violation(n, d, C, *sorted((a.data, b.data))))
        if found:
            return min(found, key=lambda v: (v.d, v.C, v.x, v.y))
    return None


def recheck_pair(
    x: list[Fraction], y: list[Fraction], C: Fraction
) -> tuple[MedianParameters, int, Fraction]:
    """Both in H (independently of the search); returns (params, positional d_H, |Δm|)."""
    params = params_for(len(x), C)
    assert in_typical_set(x, params) and in_typical_set(y, params)
    gap = abs(left_median(exact_data(x), params) - left_median(exact_data(y), params))
    return params, positional_distance(x, y), gap


def searched_pair(
    violated: Violated, grid: tuple[Fraction, ...], **search: Any
) -> tuple[Violation, list[Fraction], list[Fraction], MedianParameters, int, Fraction]:
    """The search's smallest violation (it must find one), as positional tuples re-checked
    independently: (hit, X, Y, params, d_H, |Δm|), with d_H equal to the search's multiset d."""
    hit = smallest_violation(violated, grid, **search)
    assert hit is not None
    x, y = aligned(hit.x, hit.y)
    params, d, gap = recheck_pair(x, y, hit.C)
    assert d == hit.d
    return hit, x, y, params, d, gap


# ------------------------------------------------------------------- Lemma 3.2 / (B.1) search


def test_lemma_3_2_search_finds_a_tie_counterexample_within_the_windows() -> None:
    """E1 cause (a): with K >= 1 windows and d_H <= K (where B.2's argument should work) the
    search finds X, Y ∈ H violating (B.1) — and the witness has a tie at a median (without ties
    d_H <= 2K forces |Δm| <= d_H·C/(Ln), see the exhaustive test below)."""
    _, x, y, params, d, gap = searched_pair(
        b1_violated, GRID_TIES, distinct=False, ns=range(1, 7),
        pair_filter=lambda d, p: p.windows >= 1 and d <= p.windows,
    )  # fmt: skip
    assert d <= params.windows and b1_violated(gap, d, params)
    assert has_tie_at_median(x, params) or has_tie_at_median(y, params)


def test_lemma_3_2_search_finds_a_tie_free_counterexample_beyond_the_windows() -> None:
    """E1 cause (b), K >= 1: a tie-free block of 2K + 1 cluster points is moved (d_H = 2K + 1 >
    K) while the cap Lrn still exceeds d_H; the search finds it (no ties in X or Y)."""
    _, x, y, params, d, gap = searched_pair(
        b1_violated, GRID_DISTINCT, distinct=True, ns=range(4, 9),
        pair_filter=lambda d, p: p.windows >= 1,
    )  # fmt: skip
    assert has_no_ties(x) and has_no_ties(y)
    assert d >= 2 * params.windows + 1 and b1_violated(gap, d, params)


def test_lemma_3_2_search_finds_a_counterexample_without_any_window() -> None:
    """E1 cause (b) at its extreme, K = ⌊Lrn/2C⌋ = 0: H = {m(X) ∈ Ξ}, yet (B.1) caps at
    Lrn = n/2 > 1 once n >= 3; the search finds a tie-free witness at n = 3, none below (n <= 2
    gives Lrn <= 1 <= d_H)."""
    assert smallest_violation(b1_violated, GRID_DISTINCT, distinct=True, ns=range(1, 3)) is None
    hit, x, y, params, d, gap = searched_pair(
        b1_violated, GRID_DISTINCT, distinct=True, ns=range(1, 6)
    )
    assert hit.n == 3 and d == 1
    assert params.windows == 0 and has_no_ties(x) and has_no_ties(y) and b1_violated(gap, d, params)


def test_lemma_3_2_median_gap_form_search_finds_a_tie_free_witness_with_windows() -> None:
    """The first inequality |Δm| <= (2⌊κ/2⌋ + 2)C/(Ln) (stronger than (B.1)) also fails for tie-free
    data with K >= 1 once κ >= 2K + 1 — found by the search."""
    _, x, y, params, d, gap = searched_pair(
        median_gap_violated, GRID_DISTINCT, distinct=True, ns=range(4, 9),
        pair_filter=lambda d, p: p.windows >= 1,
    )  # fmt: skip
    assert has_no_ties(x) and has_no_ties(y) and d >= 2 * params.windows + 1
    assert median_gap_violated(gap, d, params)


@pytest.mark.parametrize("C", CS)
def test_lemma_3_2_holds_for_tie_free_pairs_within_two_k_changes(C) -> None:
    """What survives of Lemma 3.2 [OURS]: for tie-free X, Y ∈ H with d_H = κ <= 2K, interlacing
    (Y_(i) ∈ [X_(i−κ), X_(i+κ)]) and both sets of windows give |m(X) − m(Y)| <= κC/(Ln), hence
    (B.1) and the first inequality. Checked exhaustively on the tie-free grid, n = 4..8."""
    checked = 0
    for n in range(4, 9):
        params = params_for(n, C)
        if params.windows == 0:
            continue
        members = typical_members(params, GRID_DISTINCT, distinct=True)
        for a, b in itertools.combinations(members, 2):
            d = multiset_distance(a.data, b.data)
            if d <= 2 * params.windows:
                checked += 1
                gap = abs(a.median - b.median)
                assert gap <= d * params.delta
                assert not b1_violated(gap, d, params) and not median_gap_violated(gap, d, params)
    assert checked > 0


# regression: the smallest counterexamples found (positional tuples, L = 1/2, r = 1, R = 5)
LEMMA_3_2_REGRESSIONS = [
    # (cause, C, X, Y): (a) ties, n = 4, K = 1, d_H = 1; m(X) = −5, m(Y) = −1/2
    ("ties", F(1), [-5, -5, F(-1, 2), F(-1, 2)], [-5, F(-1, 2), F(-1, 2), F(-1, 2)]),
    # (b) no windows (K = 0), tie-free, n = 3, d_H = 1; m(X) = −1/2, m(Y) = 9/2
    ("K=0", F(1), [F(-11, 2), F(-1, 2), F(9, 2)], [F(-11, 2), F(19, 4), F(9, 2)]),
    # (b) tie-free block of 2K + 1 = 3 points moved, n = 7, K = 1; m(X) = 0, m(Y) = 19/4
    ("block", F(1), [F(-11, 2), F(-1, 2), F(-1, 4), 0, F(1, 4), F(9, 2), F(19, 4)],
     [F(-11, 2), F(-1, 2), 5, F(21, 4), F(11, 2), F(9, 2), F(19, 4)]),
]  # fmt: skip


@pytest.mark.parametrize(("cause", "C", "x", "y"), LEMMA_3_2_REGRESSIONS)
def test_lemma_3_2_b_1_smallest_counterexamples(cause, C, x, y) -> None:
    """Regression (the search's smallest witnesses per cause): X, Y ∈ H with
    min{(Ln/3C)|m(X) − m(Y)|, Lrn} > d_H(X, Y), and the first inequality fails too."""
    x, y = [F(v) for v in x], [F(v) for v in y]
    params, d, gap = recheck_pair(x, y, C)
    assert b1_violated(gap, d, params) and median_gap_violated(gap, d, params)
    if cause == "ties":
        assert d <= params.windows and has_tie_at_median(x, params)
    else:
        assert has_no_ties(x) and has_no_ties(y) and d >= 2 * params.windows + 1


def test_lemma_3_2_median_gap_smallest_counterexamples() -> None:
    """Regression for the first inequality alone: n = 1 (K = 0): X = (−5), Y = (−1/2),
    |Δm| = 9/2 > 2C/(Ln) = 4; with a window (K = 1), tie-free, n = 4, d_H = 3:
    X = (−1/2, −1/4, 0, 9/2), Y = (19/4, 5, 21/4, 9/2), |Δm| = 5 > 4C/(Ln) = 2, while (B.1)
    holds there (min{10/3, 2} = 2 <= 3)."""
    params, d, gap = recheck_pair([F(-5)], [F(-1, 2)], F(1))
    assert (d, gap) == (1, F(9, 2)) and median_gap_violated(gap, d, params)
    x = [F(-1, 2), F(-1, 4), F(0), F(9, 2)]
    y = [F(19, 4), F(5), F(21, 4), F(9, 2)]
    params, d, gap = recheck_pair(x, y, F(1))
    assert (params.windows, d, gap) == (1, 3, F(5)) and median_gap_violated(gap, d, params)
    assert not b1_violated(gap, d, params)


# -------------------------------------------------------------------------------- Lemma 3.3


def certified_restricted_loss(x: list[Fraction], y: list[Fraction], params, eps):
    """Certified enclosure of sup |log f_Â(X) − log f_Â(Y)| (Eq. (A.2), exact normalisers)."""
    mx = left_median(exact_data(x), params)
    my = left_median(exact_data(y), params)
    return certified_privacy_loss(restricted_law(mx, params, eps), restricted_law(my, params, eps))


def test_lemma_3_3_cannot_fail_below_n_5_and_the_search_finds_a_failure_at_5() -> None:
    """Lemma 3.3: the restricted log-ratio is at most (ε/4)·Lrn = εn/8, which is <= ε/2 <=
    (ε/2)d_H for n <= 4 (so no failure there: the search on the tie grid confirms it); the
    search finds a pair at n = 5 whose CERTIFIED loss exceeds (ε/2)·d_H for every ε."""
    assert (
        smallest_violation(
            restricted_ratio_violated, GRID_TIES, distinct=False, ns=range(1, 5), cs=CS
        )
        is None
    )
    hit, x, y, params, d, _ = searched_pair(
        restricted_ratio_violated, GRID_TIES, distinct=False, ns=range(5, 7), cs=CS
    )
    assert hit.n == 5
    for eps in EPSILONS:
        loss = certified_restricted_loss(x, y, params, eps)
        with workdps():
            assert mpmath.mpf(loss.a) > to_mpf(eps) / 2 * d + MARGIN


def test_lemma_3_3_search_finds_a_tie_free_failure() -> None:
    """Ties are not needed for Lemma 3.3 to fail: a tie-free pair of H at n = 5 (the least
    possible n, above) with K = 0 windows has certified loss > (ε/2)·d_H."""
    _, x, y, params, d, _ = searched_pair(
        restricted_ratio_violated, GRID_DISTINCT_SMALL, distinct=True, ns=range(5, 6), cs=CS
    )
    assert has_no_ties(x) and has_no_ties(y)
    loss = certified_restricted_loss(x, y, params, F(1))
    with workdps():
        assert mpmath.mpf(loss.a) > mpmath.mpf(d) / 2 + MARGIN


LEMMA_3_3_REGRESSIONS = [
    # ties, n = 5, C = 1 (K = 1), d_H = 1: m(X) = −5, m(Y) = −1/2
    (F(1), [-5, -5, -5, F(-1, 2), F(-1, 2)], [-5, -5, F(-1, 2), F(-1, 2), F(-1, 2)]),
    # tie-free, n = 5, C = 3/2 (K = 0), d_H = 1: m(X) = −1/4, m(Y) = 9/2
    (F(3, 2), [F(-11, 2), F(-1, 2), F(-1, 4), F(9, 2), F(19, 4)],
     [F(-11, 2), F(-1, 2), 5, F(9, 2), F(19, 4)]),
]  # fmt: skip


@pytest.mark.parametrize(("C", "x", "y"), LEMMA_3_3_REGRESSIONS)
@pytest.mark.parametrize("eps", EPSILONS)
def test_lemma_3_3_smallest_counterexamples_lose_five_eighths_epsilon(C, x, y, eps) -> None:
    """Regression: neighbours in H (d_H = 1, n = 5) whose restricted laws are 5ε/8 apart
    (= (ε/4)·Lrn, the cap: (Ln/3C)|Δm| >= Lrn here), certified, > ε/2 = (ε/2)·d_H."""
    x, y = [F(v) for v in x], [F(v) for v in y]
    params, d, gap = recheck_pair(x, y, C)
    assert d == 1 and params.L * params.n / (3 * C) * gap >= params.L * params.r * params.n
    loss = certified_restricted_loss(x, y, params, eps)
    with workdps():
        exact = to_mpf(eps) * 5 / 8
        assert mpmath.mpf(loss.a) - MARGIN <= exact <= mpmath.mpf(loss.b) + MARGIN
        assert mpmath.mpf(loss.a) > to_mpf(eps) / 2 * d + MARGIN


# ----------------------------------------------------------------------------- Prop A.5(b)


def extension_differs_from_restricted(x: tuple[Fraction, ...], params: MedianParameters) -> bool:
    """Ψ_X ≠ the single tent at m(X), i.e. A(X) ≠ Â(X) in law (both are exact piece lists)."""
    mech = PrivateMedian(params.L, params.r, params.R, params.C, 1)
    return mech.pieces(list(x)) != restricted_pieces(left_median(list(x), params), params)


def test_proposition_a_5b_search_finds_typical_data_where_a_differs_from_a_hat() -> None:
    """Prop A.5(b) fails: the search over H on the tie grid (C ∈ {1, 5/4, 3/2, 2}) finds X ∈ H
    with A(X) ≠ Â(X), first at n = 5. None exists for n <= 4: there every other tent satisfies
    h_k >= k − Lrn/2 >= 0 >= the tent at m(X) (Lrn/2 <= 1)."""
    first = None
    for n in range(1, 7):
        for C in CS:
            params = params_for(n, C)
            hits = [
                x
                for x in typical_members(params, GRID_TIES, False)
                if extension_differs_from_restricted(x.data, params)
            ]
            if hits and first is None:
                first = (n, C, hits[0].data)
        if first is not None:
            break
    assert first is not None and first[0] == 5
    n, C, x = first
    params = params_for(n, C)
    assert in_typical_set(list(x), params)
    mech = PrivateMedian(L_HALF, R_ONE, R_FIVE, C, 1)
    loss = certified_privacy_loss(
        mech.exact(list(x)), restricted_law(left_median(list(x), params), params, 1)
    )
    assert mpmath.mpf(loss.a) > MARGIN  # different laws, certified


@pytest.mark.parametrize(
    ("x", "psi_at_median"),
    [
        ([-5, -5, -5, F(-1, 2), F(-1, 2)], None),  # the search's smallest (n = 5, C = 1)
        ([-5, -5, -5, 0, 0, 0, 5, 5], F(-1)),  # regression fixture 1: Ψ(0) = −1
    ],
)
def test_proposition_a_5b_smallest_counterexample_and_regression_fixture_1(
    x, psi_at_median
) -> None:
    """Regression: X ∈ H (C = 1) with Ψ_X < the tent at m(X) somewhere, so A(X) ≠ Â(X); for
    regression fixture 1, Ψ_X(m(X)) = −1 where Â's log-density peaks (0)."""
    x = [F(v) for v in x]
    params = params_for(len(x), F(1))
    assert in_typical_set(x, params)
    mech = PrivateMedian(L_HALF, R_ONE, R_FIVE, 1, 1)
    m = left_median(exact_data(x), params)
    pieces, tent = mech.pieces(x), restricted_pieces(m, params)
    assert pieces != tent
    if psi_at_median is not None:
        assert next(p(m) for p in pieces if p.lo <= m <= p.hi) == psi_at_median
    loss = certified_privacy_loss(mech.exact(x), restricted_law(m, params, 1))
    assert mpmath.mpf(loss.a) > MARGIN


# ----------------------------------------------------------------------- paper mode is not DP


def test_paper_mode_search_finds_neighbours_in_h_losing_more_than_epsilon() -> None:
    """Algorithm 1 as printed (mode="paper") is not ε-DP: between two neighbours in H its loss is
    (ε/4)·min{(Ln/3C)|Δm|, Lrn} <= εn/8, so n >= 9 is needed (nothing for n <= 8 on the grid);
    the search finds d_H = 1 pairs at n = 9 and the smallest has a certified loss > ε for every
    ε, while mode="extension" on the same pair stays <= ε (Prop A.5(a))."""
    over_eps = lambda gap, d, p: restricted_ratio_violated(gap, 2 * d, p)  # noqa: E731 (> 4d)
    assert smallest_violation(over_eps, GRID_TIES, distinct=False, ns=range(1, 9)) is None
    hit, x, y, _, d, _ = searched_pair(
        over_eps, GRID_TIES, distinct=False, ns=range(9, 10), pair_filter=lambda d, p: d == 1
    )
    assert hit.n == 9 and d == 1
    for eps in EPSILONS:
        paper = PrivateMedian(L_HALF, R_ONE, R_FIVE, hit.C, eps, mode="paper")
        extension = PrivateMedian(L_HALF, R_ONE, R_FIVE, hit.C, eps)
        with workdps():
            assert (
                mpmath.mpf(certified_privacy_loss(paper.exact(x), paper.exact(y)).a)
                > to_mpf(eps) + MARGIN
            )
            assert (
                mpmath.mpf(certified_privacy_loss(extension.exact(x), extension.exact(y)).b)
                <= to_mpf(eps) + MARGIN
            )


PAPER_REGRESSION = (
    [F(-5), F(-5), F(-5), F(-5), F(-5), F(-1, 2), F(-1, 2), F(-1, 2), F(-1, 2)],
    [F(-5), F(-5), F(-5), F(-5), F(-1, 2), F(-1, 2), F(-1, 2), F(-1, 2), F(-1, 2)],
)


@pytest.mark.parametrize("eps", EPSILONS)
def test_paper_mode_smallest_counterexample_loses_nine_eighths_epsilon(eps) -> None:
    """Regression (n = 9, C = 1, K = 2, d_H = 1; m(X) = −5, m(Y) = −1/2, both in H): the paper
    mode's exact loss is (ε/4)·Lrn = 9ε/8 > ε (certified); the extension's is <= ε."""
    x, y = PAPER_REGRESSION
    params, d, _ = recheck_pair(x, y, F(1))
    assert d == 1 and params.windows == 2
    paper = PrivateMedian(L_HALF, R_ONE, R_FIVE, 1, eps, mode="paper")
    extension = PrivateMedian(L_HALF, R_ONE, R_FIVE, 1, eps)
    loss = certified_privacy_loss(paper.exact(x), paper.exact(y))
    with workdps():
        exact = to_mpf(eps) * 9 / 8
        assert mpmath.mpf(loss.a) - MARGIN <= exact <= mpmath.mpf(loss.b) + MARGIN
        assert mpmath.mpf(loss.a) > to_mpf(eps) + MARGIN
        assert (
            mpmath.mpf(certified_privacy_loss(extension.exact(x), extension.exact(y)).b)
            <= to_mpf(eps) + MARGIN
        )
