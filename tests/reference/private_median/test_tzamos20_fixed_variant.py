"""tzamos20: the fixed typical set H_fix [OURS, ``notes/tzamos20.md``] — order-statistic constraints
and the cap M = min{Lrn, 4K} — and the checks that decide whether it survives: the analogues of T3
(Lemma 3.2/(B.1)), T4 (Lemma 3.3), T11 (Prop. A.5(b)), Lemma A.4 and the ε-DP of the variant's
Case-(A) mechanism; plus TH_fix against a brute-force oracle and the cap's necessity.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.reference.distributions import certified_max_log_ratio, certified_privacy_loss
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.private_median.extended_density import (
    envelope,
    law_from_pieces,
    log_normalizer,
    tent_slope,
)
from dpquant.reference.private_median.fixed_typical_set import (
    CAP_RULES,
    fixed_cap,
    fixed_cap_level,
    fixed_cell_levels,
    fixed_envelope,
    fixed_envelope_brute,
    fixed_lemma_a_4_normalizer,
    fixed_normalizer_is_constant,
    fixed_pieces,
    fixed_restricted_pieces,
    fixed_typical_hamming,
    fixed_typical_hamming_brute,
    fixed_window_ranges,
    in_fixed_typical_set,
    tight_cap_level,
)
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.restricted_density import restricted_pieces
from dpquant.reference.private_median.typical_set import anchor_points, in_typical_set, left_median

HALF = F(1, 2)
CS = [F(1), F(5, 4), F(3, 2), F(2)]
FAR = F(100)


def params_of(n: int, C: F, R: F = F(2), median_index: str = "ceil") -> MedianParameters:
    return MedianParameters(n, HALF, F(1), R, C, median_index)


MARGIN = mpmath.mpf(10) ** (-30)


def upper(box) -> mpmath.mpf:
    """The upper end of a certified interval (``mpmath.iv``) as an mpf."""
    return mpmath.mpf(box.b.b)


def lower(box) -> mpmath.mpf:
    return mpmath.mpf(box.a.a)


def multiset_distance(x, y) -> int:
    """min over orderings of d_H: the mechanism sees the sorted data only, so this is the
    strongest form of every d_H bound below (it is <= the positional d_H)."""
    return len(x) - sum((Counter(x) & Counter(y)).values())


# ---------------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------------


@st.composite
def parameters(draw, max_n: int = 10, small_c: bool = False):
    n = draw(st.integers(1, max_n))
    cs = CS + [F(1, 2), F(3, 4)] if small_c else CS
    return params_of(
        n,
        draw(st.sampled_from(cs)),
        draw(st.sampled_from([F(1), F(2), F(5)])),
        draw(st.sampled_from(["ceil", "floor"])),
    )


@st.composite
def members(draw, p: MedianParameters):
    """X ∈ H_fix by construction: m on the grid k/4 inside [−R, R]; x_(ℓ±j) = m ± t_j·δ/4 with
    t_j non-decreasing and t_j <= 4j; the tails anywhere beyond the central block (near or far)."""
    q = p.delta / 4
    km, kp = fixed_window_ranges(p)
    m = F(draw(st.integers(int(-4 * p.R), int(4 * p.R))), 4)

    def side(count: int) -> list[F]:
        out, t = [], 0
        for j in range(1, count + 1):
            t = draw(st.integers(t, 4 * j))
            out.append(t * q)
        return out

    up = [m + d for d in side(kp)]
    down = [m - d for d in side(km)]
    top, bottom = (up[-1] if up else m), (down[-1] if down else m)
    n_up, n_down = p.n - p.ell - kp, p.ell - 1 - km
    tail = st.one_of(st.integers(0, 24).map(lambda u: u * q), st.just(FAR))
    ups = [top + draw(tail) for _ in range(n_up)]
    downs = [bottom - draw(tail) for _ in range(n_down)]
    return sorted(downs + down + [m] + up + ups)


@st.composite
def member_pairs(draw, max_n: int = 10, small_c: bool = False):
    """(params, X, Y): X ∈ H_fix, Y from X by replacing 1..n positions with values near the median,
    far away, or a shifted central block (the cluster move that refutes Lemma 3.2, erratum E1)."""
    p = draw(parameters(max_n, small_c))
    x = draw(members(p))
    m = left_median(x, p)
    pool = [m + t * p.delta / 4 for t in range(-4 * p.windows - 8, 4 * p.windows + 9)]
    pool += [-FAR, FAR, -p.R, p.R, F(0)]
    y = list(x)
    if draw(st.booleans()):  # move a block of consecutive order statistics to one new value
        start = draw(st.integers(0, p.n - 1))
        stop = draw(st.integers(start + 1, p.n))
        new = F(draw(st.integers(int(-4 * p.R), int(4 * p.R))), 4)
        y[start:stop] = [new] * (stop - start)
    else:
        for i in draw(st.sets(st.integers(0, p.n - 1), min_size=1)):
            y[i] = draw(st.sampled_from(pool))
    return p, x, sorted(y)


# ---------------------------------------------------------------------------------------------
# H_fix and TH_fix
# ---------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(parameters(), st.data())
def test_constructed_members_lie_in_the_fixed_typical_set_and_th_fix_at_the_median_is_zero(
    p, data
) -> None:
    x = data.draw(members(p))
    assert in_fixed_typical_set(x, p)
    assert fixed_typical_hamming(x, left_median(x, p), p) == 0


@settings(max_examples=40, deadline=None)
@given(parameters(max_n=5, small_c=True), st.lists(st.integers(-12, 12), min_size=5), st.data())
def test_th_fix_closed_form_equals_the_brute_force_oracle_with_a_rich_replacement_grid(
    p, ks, data
) -> None:
    """TH_fix = the exhaustive minimum over changed sets and replacement values from a grid that
    contains ξ, the data and ξ ± {1/2, 1, K, K + 1/2}δ: so the closed form (changed points set to
    ξ, farthest first) is exact and "set changed points to ξ" is never beaten."""
    x = [F(k, 4) for k in ks[: p.n]]
    pts = anchor_points(x, p)
    cands = pts + [(a + b) / 2 for a, b in itertools.pairwise(pts)]
    xi = data.draw(st.sampled_from(cands))
    assert fixed_typical_hamming(x, xi, p) == fixed_typical_hamming_brute(x, xi, p)


def test_th_fix_off_xi_is_infinite_and_the_brute_force_oracle_refuses_large_n() -> None:
    p = params_of(6, F(1))
    assert fixed_typical_hamming([0] * 6, 10, p) == math.inf
    assert fixed_typical_hamming_brute([0] * 6, 10, p) == math.inf
    with pytest.raises(ValueError, match="n must be at most"):
        fixed_typical_hamming_brute([0] * 8, 0, params_of(8, F(1)))


@settings(max_examples=60, deadline=None)
@given(parameters(small_c=True), st.lists(st.integers(-16, 16), min_size=10), st.data())
def test_th_fix_invariants_membership_lipschitz_and_constant_on_open_anchor_cells(
    p, ks, data
) -> None:
    """TH_fix(X, m(X)) = 0 ⇔ X ∈ H_fix; 0 <= TH_fix <= n; |TH_fix(X, ξ) − TH_fix(Y, ξ)| <= d_H;
    and TH_fix is constant on each open cell of the anchors X_i ± jδ, j = 0..K (Claim E.4's
    CONSTRUCTION-P still suffices: TH_fix only compares ξ with X_i ∓ jδ)."""
    x = [F(k, 4) for k in ks[: p.n]]
    m = left_median(sorted(x), p)
    assert (fixed_typical_hamming(x, m, p) == 0) == in_fixed_typical_set(x, p)
    y = list(x)
    y[data.draw(st.integers(0, p.n - 1))] = F(data.draw(st.integers(-16, 16)), 4)
    pts = anchor_points(x, p)
    for a, b in itertools.pairwise(pts):
        t1, t2 = data.draw(st.integers(1, 99)), data.draw(st.integers(1, 99))
        v1 = fixed_typical_hamming(x, a + (b - a) * F(t1, 100), p)
        assert v1 == fixed_typical_hamming(x, a + (b - a) * F(t2, 100), p)
        assert 0 <= v1 <= p.n
    for xi in pts:
        assert abs(fixed_typical_hamming(x, xi, p) - fixed_typical_hamming(y, xi, p)) <= 1


@settings(max_examples=40, deadline=None)
@given(parameters(max_n=8), st.lists(st.integers(-24, 24), min_size=8), st.data())
def test_fixed_envelope_equals_the_minimum_over_all_cells(p, ks, data) -> None:
    """Lemma E.8 (T15) for the variant: the merged pieces equal the brute-force minimum over every
    cell at rational points; slopes 0 or ±s; continuity; the pieces tile [−B, B]."""
    x = [F(k, 4) for k in ks[: p.n]]
    pieces = fixed_envelope(x, p)
    bound, s = p.output_bound, tent_slope(p)
    assert pieces[0].lo == -bound and pieces[-1].hi == bound
    for left, right in itertools.pairwise(pieces):
        assert left.hi == right.lo and left(left.hi) == right(right.lo)
    assert all(piece.slope in (0, s, -s) for piece in pieces)
    for _ in range(4):
        y = -bound + 2 * bound * F(data.draw(st.integers(0, 10**6)), 10**6)
        piece = next(q for q in pieces if q.lo <= y <= q.hi)
        assert piece(y) == fixed_envelope_brute(x, p, y)
    assert {k for _, _, k in fixed_cell_levels(x, p)} <= set(range(p.n + 1))


def test_boundary_decision_drops_order_statistics_that_do_not_exist() -> None:
    """C < 1 can give K > ℓ − 1: the constraints with ℓ − j < 1 are dropped (K₋ = ℓ − 1), so
    H_fix is not empty; for C >= 1 nothing is dropped (K <= ⌊n/4⌋ <= min(ℓ − 1, n − ℓ))."""
    p = params_of(4, F(1, 2))  # K = 2, ℓ = 2
    assert (p.windows, fixed_window_ranges(p)) == (2, (1, 2))
    assert in_fixed_typical_set([0, 0, 0, 0], p)
    for n, C, index in itertools.product(range(1, 41), CS, ["ceil", "floor"]):
        q = params_of(n, C, median_index=index)
        assert fixed_window_ranges(q) == (q.windows, q.windows)


def test_the_tie_counterexample_of_erratum_e1_is_in_h_but_not_in_h_fix() -> None:
    """Regression fixture 1 lies in the paper's H only because the three ties at m = 0 count on
    both sides; its order statistics x_(3) = −5 < 0 − δ put it outside H_fix."""
    p = MedianParameters(8, HALF, F(1), F(5), F(1))
    x = [-5, -5, -5, 0, 0, 0, 5, 5]
    assert in_typical_set(x, p) and not in_fixed_typical_set(x, p)
    assert fixed_typical_hamming(x, 0, p) == 2


# ---------------------------------------------------------------------------------------------
# T3 / T4 / T11 analogues
# ---------------------------------------------------------------------------------------------


def _check_pair(p: MedianParameters, x, y, epsilon: F) -> None:
    """T3: |Δm| <= κδ for κ <= K₋ + K₊ and min{(Ln/3C)|Δm|, M} <= 2κ; T4: the certified
    log-ratio of the variant's restricted laws is <= (ε/2)κ."""
    kappa = multiset_distance(x, y)
    if kappa == 0:
        return
    dm = abs(left_median(x, p) - left_median(y, p))
    km, kp = fixed_window_ranges(p)
    if kappa <= km + kp:
        assert dm <= kappa * p.delta
    assert min(p.L * p.n / (3 * p.C) * dm, fixed_cap_level(p)) <= 2 * kappa
    lx = law_from_pieces(fixed_restricted_pieces(left_median(x, p), p), epsilon)
    ly = law_from_pieces(fixed_restricted_pieces(left_median(y, p), p), epsilon)
    assert upper(certified_max_log_ratio(lx, ly)) <= to_mpf(epsilon / 2 * kappa) + MARGIN


@settings(max_examples=50, deadline=None)
@given(member_pairs(), st.sampled_from([F(1, 4), F(1, 2), F(1)]))
def test_lemma_3_2_and_3_3_hold_on_h_fix_with_the_variant_cap(case, epsilon) -> None:
    p, x, y = case
    if in_fixed_typical_set(y, p):
        _check_pair(p, x, y, epsilon)


def _grid_members(p: MedianParameters, half_steps: int, extra: list[F]) -> list[tuple[F, ...]]:
    values = sorted({t * p.delta / 2 for t in range(-half_steps, half_steps + 1)} | set(extra))
    return [
        x
        for x in itertools.combinations_with_replacement(values, p.n)
        if in_fixed_typical_set(list(x), p)
    ]


def test_lemma_3_2_holds_for_every_pair_of_h_fix_members_on_a_small_grid() -> None:
    """Exhaustive: every pair of multisets of size 4 (C = 1) from {tδ/2 : |t| <= 3} ∪ {±R, ±100}
    that lie in H_fix satisfies |Δm| <= κδ (κ <= 2K) and min{(Ln/3C)|Δm|, M} <= 2κ."""
    p = params_of(4, F(1), F(1))
    mem = _grid_members(p, 3, [-p.R, p.R, -FAR, FAR])
    assert len(mem) > 100
    med = [left_median(list(x), p) for x in mem]
    km, kp = fixed_window_ranges(p)
    worst = F(0)
    for i, j in itertools.combinations(range(len(mem)), 2):
        kappa, dm = multiset_distance(mem[i], mem[j]), abs(med[i] - med[j])
        if kappa <= km + kp:
            assert dm <= kappa * p.delta
        ratio = min(p.L * p.n / (3 * p.C) * dm, fixed_cap_level(p)) / (2 * kappa)
        worst = max(worst, ratio)
    assert worst <= 1


@settings(max_examples=40, deadline=None)
@given(parameters(small_c=True), st.sampled_from(CAP_RULES), st.data())
def test_prop_a_5_b_holds_on_h_fix_the_extension_is_the_single_restricted_tent(
    p, rule, data
) -> None:
    """T11 for the variant: X ∈ H_fix ⇒ Ψ^fix_X = −s·min{|y − m(X)|, d_M} exactly, i.e.
    A(X) = Â(X) (the Case-(A) shortcut is the extension itself), for M = min{Lrn, 4K} and for
    the tight M = min{Lrn, 2(K₋ + K₊ + 1)}."""
    x = data.draw(members(p))
    assert fixed_envelope(x, p, rule) == fixed_restricted_pieces(left_median(x, p), p, rule)
    assert fixed_pieces(x, p, rule) == fixed_envelope(x, p, rule)


def test_with_c_1_the_variants_restricted_density_is_the_papers() -> None:
    """For C = 1, 4K >= Lrn once K >= 1, so M = Lrn and the variant's Â is Eq. (A.2)."""
    for n in range(4, 30):
        p = params_of(n, F(1))
        assert fixed_cap_level(p) == p.L * p.r * n
        assert fixed_restricted_pieces(F(1, 3), p) == restricted_pieces(F(1, 3), p)


@settings(max_examples=30, deadline=None)
@given(member_pairs(max_n=9), st.sampled_from([F(1, 2), F(1)]), st.sampled_from(CAP_RULES))
def test_the_variants_case_a_mechanism_is_epsilon_dp_on_pairs_straddling_h_fix(
    case, epsilon, rule
) -> None:
    """ε-DP of Alg. 1 with H_fix and cap M (restricted on H_fix, extension off it): certified
    sup |log f_X − log f_Y| <= ε·κ, whether Y is in H_fix or not."""
    p, x, y = case
    kappa = multiset_distance(x, y)
    lx = law_from_pieces(fixed_pieces(x, p, rule), epsilon)
    ly = law_from_pieces(fixed_pieces(y, p, rule), epsilon)
    assert upper(certified_privacy_loss(lx, ly)) <= to_mpf(epsilon * kappa) + MARGIN


# A pair that moves the K₋ + K₊ + 1 = 3 central points (C = 2, n = 14, K = 1, Lrn = 7, R = 10).
CAP_PARAMS = MedianParameters(14, HALF, F(1), F(10), F(2))
CLUSTER_X = [F(-100)] * 5 + [F(0)] * 3 + [F(100)] * 6
CLUSTER_Y = [F(-100)] * 5 + [F(10)] * 3 + [F(100)] * 6


def test_cap_lrn_is_too_large_for_h_fix_and_4k_plus_2_is_the_largest_safe_cap() -> None:
    """Erratum E1(b): with the paper's cap Lrn = 7 the variant's T3/T11 fail on the cluster move
    (κ = 3 but s·min{|Δm|, d_M} = Lrn/2 = 7/2 > 3); the tight cap 2(K₋ + K₊ + 1) = 6 and the
    variant's 4K = 4 both work."""
    p = CAP_PARAMS
    assert in_fixed_typical_set(CLUSTER_X, p) and in_fixed_typical_set(CLUSTER_Y, p)
    assert multiset_distance(CLUSTER_X, CLUSTER_Y) == 3
    assert (fixed_cap_level(p), tight_cap_level(p), p.L * p.r * p.n) == (4, 6, 7)
    m = left_median(CLUSTER_X, p)
    lrn = p.L * p.r * p.n
    assert fixed_envelope(CLUSTER_X, p, cap_level=lrn) != fixed_restricted_pieces(
        m, p, cap_level=lrn
    )
    for level in (F(4), F(6)):
        assert fixed_envelope(CLUSTER_X, p, cap_level=level) == fixed_restricted_pieces(
            m, p, cap_level=level
        )
    lx = law_from_pieces(fixed_restricted_pieces(m, p, cap_level=lrn), 1)
    ly = law_from_pieces(fixed_restricted_pieces(left_median(CLUSTER_Y, p), p, cap_level=lrn), 1)
    assert lower(certified_max_log_ratio(lx, ly)) > to_mpf(
        F(3, 2)
    )  # > (ε/2)·κ: Lemma 3.3 fails with Lrn


def test_order_statistic_constraints_alone_do_not_make_the_shortcut_private() -> None:
    """C = 4, n = 30 (K = 1, Lrn = 15): X ∈ H_fix has 3 points at 0 and the rest at ±1000; Z
    moves its median point to 21/2. With the paper's cap Lrn the Case-(A) mechanism on H_fix
    loses more than ε on this neighbour pair; with the variant's cap 4K it loses at most ε."""
    p = MedianParameters(30, HALF, F(1), F(10), F(4))
    x = [F(-1000)] * 13 + [F(0)] * 3 + [F(1000)] * 14
    z = [F(-1000)] * 13 + [F(0)] * 2 + [F(21, 2)] + [F(1000)] * 14
    assert in_fixed_typical_set(x, p) and not in_fixed_typical_set(z, p)
    lrn = p.L * p.r * p.n
    bad = certified_privacy_loss(
        law_from_pieces(fixed_pieces(x, p, cap_level=lrn), 1),
        law_from_pieces(fixed_pieces(z, p, cap_level=lrn), 1),
    )
    assert lower(bad) > 1
    good = certified_privacy_loss(
        law_from_pieces(fixed_pieces(x, p), 1), law_from_pieces(fixed_pieces(z, p), 1)
    )
    assert upper(good) <= 1


# ---------------------------------------------------------------------------------------------
# Lemma A.4 analogue
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("C", CS + [F(1, 2)])
@pytest.mark.parametrize("n", [4, 9, 16])
def test_lemma_a_4_normaliser_of_the_variant_does_not_depend_on_the_median(C, n) -> None:
    """d_M <= 3Cr <= (4C − 1/2)r for C >= 1/2, so Ẑ_fix(m) is the closed form
    (24C/(εLn))(1 − e^{−εM/4}) + (2B − 2d_M)e^{−εM/4} for every m ∈ Ξ (ends included)."""
    p = params_of(n, C)
    assert fixed_normalizer_is_constant(p) and fixed_cap(p) <= 3 * p.C * p.r
    lo, hi = p.xi_range
    with workdps():
        closed = mpmath.log(fixed_lemma_a_4_normalizer(p, 1))
        for m in (lo, lo / 3, F(0), hi * F(2, 3), hi):
            assert abs(log_normalizer(fixed_restricted_pieces(m, p), 1) - closed) < mpmath.mpf(
                10
            ) ** (-40)


def test_lemma_a_4_analogue_fails_exactly_when_the_cap_reaches_past_the_output_range() -> None:
    """C = 1/4: d_M = 3Cr = 3/4 > (4C − 1/2)r = 1/2, and Ẑ_fix at the end of Ξ is smaller."""
    p = params_of(8, F(1, 4))
    assert not fixed_normalizer_is_constant(p)
    with pytest.raises(ValueError, match="cap_level"):
        fixed_lemma_a_4_normalizer(p, 1)
    at_end = log_normalizer(fixed_restricted_pieces(p.xi_range[1], p), 1)
    assert at_end < log_normalizer(fixed_restricted_pieces(0, p), 1) - mpmath.mpf(10) ** (-6)


# ---------------------------------------------------------------------------------------------
# accuracy and bad input
# ---------------------------------------------------------------------------------------------


def test_nice_typical_data_give_the_same_law_as_the_default_extension() -> None:
    """Regression fixture 2 lies in H and H_fix; with C = 1 the caps agree (M = Lrn), so the
    variant's output law is the default's: Ψ and log Z coincide."""
    p = MedianParameters(8, HALF, F(1), F(5), F(1))
    x = [F(-1, 4), F(-1, 8), 0, 0, F(1, 8), F(1, 4), F(3, 8), F(1, 2)]
    assert in_fixed_typical_set(x, p)
    assert fixed_pieces(x, p) == envelope(x, p)


def test_bad_input_raises_value_error_naming_the_parameter() -> None:
    p = params_of(4, F(1))
    with pytest.raises(ValueError, match="params"):
        in_fixed_typical_set([0] * 4, "p")
    with pytest.raises(ValueError, match="rule"):
        fixed_cap_level(p, "paper")
    with pytest.raises(ValueError, match="cap_level"):
        fixed_envelope([0] * 4, p, cap_level=-1)
    with pytest.raises(ValueError, match="median"):
        fixed_restricted_pieces(math.nan, p)
    with pytest.raises(ValueError, match="data"):
        fixed_typical_hamming([0] * 3, 0, p)


# ---------------------------------------------------------------------------------------------
# the counterexample search (slow); 1 500 examples: benchmarks/study_tzamos20_fixed_search.py
# ---------------------------------------------------------------------------------------------

SEARCH_EPSILONS = (F(1, 4), F(1))


def check_counterexample_candidate(case, epsilon: F) -> None:
    """One candidate of the search: on H_fix the envelope is the restricted tent (A.5(b)), a pair
    of members satisfies Lemmas 3.2 and 3.3 (``_check_pair``), and the variant's laws on X and Y
    are (ε·d(X, Y))-close (certified loss)."""
    p, x, y = case
    assert fixed_envelope(x, p) == fixed_restricted_pieces(left_median(x, p), p)
    if in_fixed_typical_set(y, p):
        _check_pair(p, x, y, epsilon)
    lx = law_from_pieces(fixed_pieces(x, p), epsilon)
    ly = law_from_pieces(fixed_pieces(y, p), epsilon)
    assert (
        upper(certified_privacy_loss(lx, ly)) <= to_mpf(epsilon * multiset_distance(x, y)) + MARGIN
    )


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(member_pairs(small_c=True), st.sampled_from(SEARCH_EPSILONS))
def test_counterexample_search_for_lemma_3_2_3_3_and_a_5_b_on_h_fix_over_300_examples(
    case, epsilon
) -> None:
    check_counterexample_candidate(case, epsilon)
