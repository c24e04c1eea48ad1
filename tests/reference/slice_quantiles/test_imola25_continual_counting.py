"""imola25 continual counting: the Fenwick CC primitive (App. A, Lemma 3.1 (1)), its exact
tails (``dpquant.reference.slice_quantiles.laplace_sums``, ``cc_tails``: Sec. 6's E_CC) and the k-ary tree
analysis (``dpquant.reference.slice_quantiles.kary_tree``, notes/imola25.md erratum 23).

Statistical tests are seeded; each uses a Clopper–Pearson / DKW / atom test at level <= 1e-7, so
a correct implementation fails with probability well below 1e-6.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.conformance import atom_test, clopper_pearson, dkw_test
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives import continual_counting
from dpquant.reference.primitives.discrete_laplace import DiscreteLaplaceLaw
from dpquant.reference.slice_quantiles.cc_tails import (
    cc_error_bound,
    cc_max_error_tail,
    chernoff_bound,
    corollary_a1_cc_bound,
    lemma_3_1_threshold,
    max_popcount,
    popcount_classes,
    resolve_log_delta,
    sample_max_error,
    theorem_4_2_w,
)
from dpquant.reference.slice_quantiles.integer_lattice import (
    integer_column_echelon,
    lattice_noise_logpmf,
    left_null_vectors,
    min_l1_cost,
    span_membership,
)
from dpquant.reference.slice_quantiles.kary_tree import (
    authors_auto_k,
    authors_chernoff_bound,
    authors_claimed_sensitivity,
    authors_height,
    authors_kary_noise_matrix,
    authors_node_scale,
    authors_prefix_terms,
    contiguous_shift,
    fenwick_noise_matrix,
    fenwick_shift_losses,
    fenwick_shift_report,
    kary_shift_report,
    shift_loss_over_box,
)
from dpquant.reference.slice_quantiles.laplace_sums import (
    discrete_laplace_sum_pmf,
    discrete_laplace_sum_survival,
    discrete_laplace_sum_two_sided_tail,
    laplace_mixture_partial_fractions,
    laplace_mixture_sum_survival,
    laplace_sum_cdf_np,
    laplace_sum_density,
    laplace_sum_survival,
)

ALPHA = 1e-7  # per statistical test
SUBSTITUTE_DELTA = 1e-16 / (1 + math.exp(7 / 12))  # δ/(1 + e^{ε1+2ε2}), ε1 = 1/4, ε2 = 1/6


def box(m: int, radius: int) -> np.ndarray:
    """All integer vectors of [−radius, radius]^m, shape (K, m)."""
    axes = [np.arange(-radius, radius + 1)] * m
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, m)


# ============================================================================= the CC primitive
@pytest.mark.parametrize("m, epsilon, radius", [(1, 1.0, 12), (2, 2.0, 12), (3, 3.0, 9)])
def test_discrete_pmf_sums_to_one_over_a_box_up_to_the_tail_remainder(m, epsilon, radius) -> None:
    """Σ_{v ∈ box} P(N = v) = 1 − P(max_i |N_i| > R), and that remainder lies between the largest
    single-coordinate tail and the union bound (both exact, cc_tails)."""
    cc = continual_counting.ContinualCounting(m, epsilon)
    total = math.fsum(np.exp(cc.noise_logpmf(box(m, radius))).tolist())
    remainder = 1.0 - total
    union = float(cc_max_error_tail(m, epsilon, radius))
    p = math.exp(-epsilon / continual_counting.tree_height(m))
    single = max(
        float(discrete_laplace_sum_two_sided_tail(radius + 1, k, p)) for k in popcount_classes(m)
    )
    assert 1e-9 < single  # the box is small enough for the check to have teeth
    assert single - 1e-12 <= remainder <= union + 1e-12


def test_discrete_pmf_mp_sums_to_one_for_m_1_exactly() -> None:
    """m = 1: Σ_{|v| <= R} P(v) = 1 − 2p^{R+1}/(1+p) to 60 digits."""
    cc = continual_counting.ContinualCounting(1, 1.5)
    with workdps():
        p = mpmath.exp(-mpmath.mpf(1.5))
        total = mpmath.fsum(mpmath.exp(cc.noise_logpmf_mp([v])) for v in range(-40, 41))
        assert abs(total - (1 - 2 * p**41 / (1 + p))) < mpmath.mpf(10) ** -50


def encode(rows: np.ndarray, radius: int) -> np.ndarray:
    """Injective integer code of vectors in [−radius, radius]^m; others map to −1."""
    inside = np.all(np.abs(rows) <= radius, axis=1)
    base = 2 * radius + 1
    codes = ((rows + radius) * base ** np.arange(rows.shape[1])).sum(axis=1)
    return np.where(inside, codes, -1)


def test_discrete_sampler_matches_the_exact_joint_pmf_on_atoms(rng) -> None:
    """check the joint law, not only marginals: 27 atoms of [−1, 1]^3 (plus "other") by
    Clopper–Pearson at level 1e-7 (Bonferroni inside atom_test)."""
    cc = continual_counting.ContinualCounting(3, 2.0)
    samples = cc.sample_noise(200_000, rng)
    atoms = box(3, 1)
    codes = encode(atoms, 1)
    probs = {
        int(c): float(mpmath.exp(cc.noise_logpmf_mp(a))) for c, a in zip(codes, atoms, strict=True)
    }
    atom_test(encode(samples, 1), probs, ALPHA).assert_ok()


def test_discrete_sampler_node_differences_are_iid_discrete_laplace(rng) -> None:
    """η = W⁻¹N: each column is DLap(T/ε) (atoms |k| <= 3, Bonferroni over the m columns)."""
    m, epsilon = 5, 1.5
    cc = continual_counting.ContinualCounting(m, epsilon)
    eta = cc.node_differences(cc.sample_noise(100_000, rng))
    p = mpmath.exp(-mpmath.mpf(epsilon) / continual_counting.tree_height(m))
    probs = {k: float(discrete_laplace_sum_pmf(k, 1, p)) for k in range(-3, 4)}
    for i in range(m):
        atom_test(eta[:, i], probs, ALPHA / m).assert_ok()


def test_laplace_sampler_marginals_match_the_exact_laplace_sum_law(rng) -> None:
    """N_i is a sum of popcount(i) Lap(T/ε): DKW band per coordinate (Bonferroni over m)."""
    m, epsilon = 7, 1.0
    cc = continual_counting.ContinualCounting(m, epsilon, noise="laplace")
    draws = cc.sample_noise(50_000, rng)
    b = continual_counting.tree_height(m) / epsilon
    for i in range(1, m + 1):
        k = bin(i).count("1")
        dkw_test(draws[:, i - 1], lambda x, k=k: laplace_sum_cdf_np(x, k, b), ALPHA / m).assert_ok()


def test_laplace_release_rounds_half_up_on_the_noise(rng) -> None:
    """release = r + ⌊N + ½⌋ (same generator state ⇒ same noise)."""
    cc = continual_counting.ContinualCounting(4, 1.0, noise="laplace")
    r = np.array([3, 10, 11, 40])
    seed_a, seed_b = np.random.default_rng(5), np.random.default_rng(5)
    released = cc.release(r, 1000, seed_a)
    assert np.array_equal(
        released, r + continual_counting.round_half_up(cc.sample_noise(1000, seed_b))
    )


def test_round_half_up_sends_k_minus_half_to_k_unlike_numpy_round() -> None:
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, 2.4, -0.75])
    assert continual_counting.round_half_up(x).tolist() == [-2, -1, 0, 1, 2, 3, 0, 2, -1]
    # numpy rounds half to even
    assert np.round(x).tolist() != continual_counting.round_half_up(x).tolist()
    assert continual_counting.round_half_up(x).dtype == np.int64


def test_round_half_up_is_exact_one_ulp_below_one_half() -> None:
    """x = 0.5 − 2^{−54} < ½ must round to 0, although x + 0.5 rounds to 1.0 in double precision
    (same for odd integers above 2^52): the primitive computes ⌊x⌋ + (x − ⌊x⌋ >= ½) exactly."""
    x = np.array([np.nextafter(0.5, 0.0), 2.0**52 + 1])
    assert continual_counting.round_half_up(x).tolist() == [0, 2**52 + 1]


@pytest.mark.parametrize(
    "m, expected",
    [
        (3, [Fraction(1), Fraction(1, 2), Fraction(1, 2)]),
        (7, [Fraction(v, 3) for v in (3, 2, 2, 1, 2, 1, 1)]),
    ],
)
def test_exact_shift_losses_match_the_reference_values(m, expected) -> None:
    """The exact losses (ε/T)·c(s) at ε = 1 (notes/imola25.md, "Reference values"), and the
    brute-force max of log P(v) − log P(v − e) over a box equals it (the loss is attained, e.g.
    at v = 0)."""
    assert [continual_counting.shift_privacy_loss(m, s, 1) for s in range(1, m + 1)] == expected
    cc = continual_counting.ContinualCounting(m, 1.0)
    v = box(m, 2 if m == 3 else 1)
    base = cc.noise_logpmf(v)
    for s, loss in zip(range(1, m + 1), expected, strict=True):
        e = contiguous_shift(m, s)
        for d in (1, -1):
            worst = float(np.max(base - cc.noise_logpmf(v - d * e)))
            assert worst == pytest.approx(float(loss), abs=1e-12)


def test_under_noised_scale_gives_loss_above_epsilon() -> None:
    """scale = T/(2ε) doubles the loss of the shift e^{(1)} (c(1) = T nodes): exactly 2ε."""
    m, epsilon = 6, 1.0
    t = continual_counting.tree_height(m)
    honest = continual_counting.ContinualCounting(m, epsilon)
    weak = continual_counting.ContinualCounting(m, epsilon, scale=t / (2 * epsilon))
    v, e = np.zeros(m, dtype=np.int64), contiguous_shift(m, 1)
    with workdps():
        loss_honest = honest.noise_logpmf_mp(v) - honest.noise_logpmf_mp(v - e)
        loss_weak = weak.noise_logpmf_mp(v) - weak.noise_logpmf_mp(v - e)
        assert abs(loss_honest - epsilon) < mpmath.mpf(10) ** -50
        assert abs(loss_weak - 2 * epsilon) < mpmath.mpf(10) ** -50
    assert loss_weak > epsilon


@pytest.mark.parametrize(
    "call",
    [
        lambda: continual_counting.ContinualCounting(0, 1.0),
        lambda: continual_counting.ContinualCounting(2.5, 1.0),
        lambda: continual_counting.ContinualCounting(True, 1.0),
        lambda: continual_counting.ContinualCounting(3, 0.0),
        lambda: continual_counting.ContinualCounting(3, -1.0),
        lambda: continual_counting.ContinualCounting(3, float("nan")),
        lambda: continual_counting.ContinualCounting(3, 1.0, noise="gaussian"),
        lambda: continual_counting.ContinualCounting(3, 1.0, scale=0.0),
        lambda: continual_counting.ContinualCounting(3, 1.0, scale=-2.0),
        lambda: continual_counting.ContinualCounting(3, 1.0).release(
            [1, 2], 5, np.random.default_rng(0)
        ),
        lambda: continual_counting.ContinualCounting(3, 1.0).release(
            [1.0, 2.0, 3.0], 5, np.random.default_rng(0)
        ),
        lambda: continual_counting.ContinualCounting(3, 1.0).sample_noise(
            -1, np.random.default_rng(0)
        ),
        lambda: continual_counting.ContinualCounting(3, 1.0).sample_noise(5, 0),
        lambda: continual_counting.ContinualCounting(3, 1.0, noise="laplace").noise_logpmf_mp(
            [0, 0, 0]
        ),
        lambda: continual_counting.ContinualCounting(3, 1.0).noise_cell_probability_mp([0, 0, 0]),
        lambda: continual_counting.shift_nodes(3, 0),
        lambda: continual_counting.shift_nodes(3, 4),
        lambda: continual_counting.shift_privacy_loss(3, 1, 0),
        lambda: continual_counting.tree_height(0),
    ],
)
def test_cc_bad_input_raises_value_error(call) -> None:
    with pytest.raises(ValueError):
        call()


@given(st.integers(1, 40).flatmap(lambda m: st.tuples(st.just(m), st.integers(1, m))))
def test_fenwick_shift_cost_is_c_of_s_at_most_T(ms) -> None:
    """‖W⁻¹e^{(s)}‖₁ = c(s) <= T, W⁻¹e^{(s)} is the 0/1 indicator of shift_nodes(m, s)."""
    m, s = ms
    cc = continual_counting.ContinualCounting(m, 1.0)
    c = cc.node_differences(contiguous_shift(m, s))
    assert set(np.unique(c).tolist()) <= {0, 1}
    assert np.flatnonzero(c).tolist() == (continual_counting.shift_nodes(m, s) - 1).tolist()
    assert (
        int(np.abs(c).sum())
        == continual_counting.shift_node_count(m, s)
        <= continual_counting.tree_height(m)
    )
    # leaf 1 lies in the T power-of-two nodes
    assert continual_counting.shift_node_count(m, 1) == continual_counting.tree_height(m)


@given(
    st.integers(1, 40),
    st.integers(1, 4),
    st.integers(0, 2**32 - 1),
)
def test_prefix_sums_is_the_inverse_of_node_differences(m, rows, seed) -> None:
    r = np.random.default_rng(seed)
    cc = continual_counting.ContinualCounting(m, 1.0)
    eta = r.integers(-50, 51, size=(rows, m))
    assert np.array_equal(cc.node_differences(continual_counting.prefix_sums(eta)), eta)
    v = r.integers(-50, 51, size=(rows, m))
    assert np.array_equal(continual_counting.prefix_sums(cc.node_differences(v)), v)
    parents = continual_counting.fenwick_parents(m)
    assert all(parents[i] == i - continual_counting.lowbit(i) for i in range(1, m + 1))


# ============================================================================= cc_tails
@given(st.integers(1, 5000))
def test_popcount_classes_count_the_coordinates_by_number_of_nodes(m) -> None:
    brute: dict[int, int] = {}
    for i in range(1, m + 1):
        brute[i.bit_count()] = brute.get(i.bit_count(), 0) + 1
    assert popcount_classes(m) == brute
    assert max_popcount(m) in (
        continual_counting.tree_height(m) - 1,
        continual_counting.tree_height(m),
    )


@pytest.mark.parametrize("p", ["0.3", "0.5"])
def test_discrete_laplace_sum_law_matches_brute_force_convolution(p) -> None:
    """Closed-form survival of Σ_k DLap(p) vs an mpmath convolution on [−L, L] (truncation
    < 1e-44 at these p and L)."""
    with workdps():
        pm = mpmath.mpf(p)
        radius = 150 if p == "0.5" else 90
        base = {x: (1 - pm) / (1 + pm) * pm ** abs(x) for x in range(-radius, radius + 1)}
        law = dict(base)
        for k in range(1, 5):
            if k > 1:
                new: dict[int, mpmath.mpf] = {}
                for a, pa in law.items():
                    for b, pb in base.items():
                        if abs(a + b) <= radius:
                            new[a + b] = new.get(a + b, 0) + pa * pb
                law = new
            for t in (-4, 0, 1, 3, 17):
                brute = mpmath.fsum(v for x, v in law.items() if x >= t)
                assert abs(brute - discrete_laplace_sum_survival(t, k, pm)) < mpmath.mpf(10) ** -40
            assert abs(law[2] - discrete_laplace_sum_pmf(2, k, pm)) < mpmath.mpf(10) ** -40
            if k > 3:
                break


def test_discrete_laplace_tail_is_exact_far_below_float_range() -> None:
    """k = 1: P(S >= t) = p^t/(1+p) at t giving 1e-300 and 1e-2000 (relative error < 1e-50)."""
    with workdps():
        p = mpmath.exp(-mpmath.mpf(1) / 4)
        for target in (300, 2000):
            t = int(target * mpmath.log(10) * 4)
            exact = p**t / (1 + p)
            got = discrete_laplace_sum_survival(t, 1, p)
            assert abs(got / exact - 1) < mpmath.mpf(10) ** -50
            assert mpmath.log10(got) < -target + 1
        assert discrete_laplace_sum_two_sided_tail(0, 3, p) == 1
        s = discrete_laplace_sum_survival(4000, 6, p)
        assert s > 0 and mpmath.log10(s) < -400


def test_laplace_sum_density_is_the_closed_form() -> None:
    """k = 1, 2 in closed form; density integrates to 1; survival = ∫ density (scaled)."""
    with workdps():
        for x in (0, 0.3, 2.0, -5.0):
            xm = mpmath.mpf(x)
            assert abs(laplace_sum_density(x, 1) - mpmath.exp(-abs(xm)) / 2) < 1e-55
            f2 = (1 + abs(xm)) * mpmath.exp(-abs(xm)) / 4
            assert abs(laplace_sum_density(x, 2) - f2) < 1e-55
        for k in (1, 3, 7):
            total = mpmath.quad(lambda y, k=k: laplace_sum_density(y, k, 2), [-mpmath.inf, 0, 40])
            total += laplace_sum_survival(40, k, 2)
            assert abs(total - 1) < mpmath.mpf(10) ** -40
            tail = mpmath.quad(lambda y, k=k: laplace_sum_density(y, k, 2), [1.5, mpmath.inf])
            assert abs(tail - laplace_sum_survival(1.5, k, 2)) < mpmath.mpf(10) ** -40
            assert abs(laplace_sum_survival(-1.5, k, 2) + tail - 1) < mpmath.mpf(10) ** -40
        xs = np.array([-3.0, -0.1, 0.0, 0.7, 9.0])
        cdf = laplace_sum_cdf_np(xs, 3, 2.0)
        exact = [float(1 - laplace_sum_survival(x, 3, 2)) for x in xs]
        assert np.allclose(cdf, exact, atol=1e-14)


def test_laplace_mixture_survival_matches_equal_scales_and_a_numeric_convolution() -> None:
    with workdps():
        assert (
            abs(laplace_mixture_sum_survival(2, [2, 2, 2]) - laplace_sum_survival(2, 3, 2))
            < mpmath.mpf(10) ** -50
        )
        coefs = laplace_mixture_partial_fractions([1, 1, 3, Fraction(1, 2)])
        assert sum(a for a, _, _ in coefs) == 1  # characteristic function at ω = 0

        # P(Lap(1) + Lap(3) >= 2) = ∫ f_1(y) P(Lap(3) >= 2 − y) dy, one quadrature
        numeric = mpmath.quad(
            lambda y: laplace_sum_density(y, 1) * laplace_sum_survival(2 - y, 1, 3),
            [-mpmath.inf, 0, 2, mpmath.inf],
        )
        assert abs(numeric - laplace_mixture_sum_survival(2, [1, 3])) < mpmath.mpf(10) ** -40


def test_union_bound_dominates_the_monte_carlo_max_error(rng) -> None:
    """P(max > t) <= union bound: the Clopper–Pearson lower limit (level 1e-7) stays below it;
    for m = 2 the coordinates are independent (nodes 1, 2), so P(max > t) = 1 − Π(1 − q_i)
    exactly and the CP interval must contain it."""
    for noise in ("discrete", "laplace"):
        for m, t in ((2, 4), (6, 5)):
            x = sample_max_error(m, 1.0, 100_000, rng, noise)
            hits = int((x > t).sum())
            lo, hi = clopper_pearson(hits, x.size, ALPHA)
            union = float(cc_max_error_tail(m, 1.0, t, noise))
            assert lo <= union
            if m == 2:
                q = float(cc_max_error_tail(1, 1.0, t, noise, scale=2.0))
                assert lo <= 1 - (1 - q) ** 2 <= hi


@pytest.mark.parametrize("noise", ["discrete", "laplace"])
@pytest.mark.parametrize("m, epsilon, delta", [(1, 1.0, 0.1), (10, 0.5, 1e-16), (77, 2.0, 1e-6)])
def test_exact_error_bound_is_the_smallest_certified_integer(noise, m, epsilon, delta) -> None:
    w = cc_error_bound(epsilon, delta, m, noise)
    assert cc_max_error_tail(m, epsilon, w, noise) <= delta
    assert w == 0 or cc_max_error_tail(m, epsilon, w - 1, noise) > delta
    assert w <= cc_error_bound(epsilon, delta, m, noise, "chernoff")
    assert w <= cc_error_bound(epsilon, delta, m, noise, "corollary_a1")


def test_tail_bound_reference_table_is_reproduced() -> None:
    """The tail table of notes/imola25.md ("Reference values", δ = 1e-16): Cor A.1 /
    3 ln m ln(2m/δ)/ε / log₂ / Chernoff (binary tree, DLap); the last row's Chernoff uses
    δ/(1 + e^{7/12}), the other columns δ."""
    rows = [
        (10, 0.5, 901.4, 550.4, 1145.5, 393.9),
        (100, 0.5, 1668.6, 1164.4, 2423.5, 810.5),
        (200, 0.5, 1938.4, 1361.7, 2834.1, 967.7),
        (200, 0.25, 3876.8, 2723.3, 5668.2, 1972.2),
    ]
    for m, eps, cor, paper_ln, paper_2, chern in rows:
        d = 1e-16
        dc = SUBSTITUTE_DELTA if eps == 0.25 else d
        assert float(corollary_a1_cc_bound(m, eps, d)) == pytest.approx(cor, abs=0.05)
        assert float(theorem_4_2_w(eps, d, m, "e")) == pytest.approx(paper_ln, abs=0.05)
        assert float(theorem_4_2_w(eps, d, m, 2)) == pytest.approx(paper_2, abs=0.05)
        assert float(chernoff_bound(m, eps, dc)) == pytest.approx(chern, abs=0.05)
        assert cc_error_bound(eps, dc, m, method="chernoff") == math.ceil(chern)
        assert cc_error_bound(eps, d, m, method="paper") == math.ceil(paper_2)
        assert cc_error_bound(eps, d, m, method="paper", log_base="e") == math.ceil(paper_ln)
        # the exact union bound is tighter than every closed form
        assert cc_error_bound(eps, dc, m) < chern


def test_chernoff_default_k_is_the_max_popcount() -> None:
    """k = max popcount (T − 1 here) is what reproduces the table; k = T is larger."""
    assert max_popcount(200) == 7 == continual_counting.tree_height(200) - 1
    assert float(chernoff_bound(200, 0.5, 1e-16, k=8)) == pytest.approx(995.32, abs=0.01)
    assert float(chernoff_bound(200, 0.5, 1e-16, two_sided=False)) < 967.7


def test_exact_bound_meets_the_time_target_and_accepts_tiny_delta() -> None:
    """m = 1000, ε = 0.5, δ = 1e-16 well under 1 s (measured ≈ 0.06 s); δ = 1e-2000 given as an
    mpf or as log δ gives the same answer."""
    start = time.perf_counter()
    w = cc_error_bound(0.5, 1e-16, 1000)
    assert time.perf_counter() - start < 1.0
    assert cc_max_error_tail(1000, 0.5, w) <= 1e-16 < cc_max_error_tail(1000, 0.5, w - 1)
    with workdps():
        tiny = mpmath.mpf(10) ** -2000
        a = cc_error_bound(0.5, tiny, 1000)
        b = cc_error_bound(0.5, None, 1000, log_delta=-2000 * mpmath.log(10))
        assert a == b
        assert cc_max_error_tail(1000, 0.5, a) <= tiny < cc_max_error_tail(1000, 0.5, a - 1)
        assert cc_error_bound(0.5, None, 1000, "laplace", log_delta=-2000 * math.log(10)) > w


def test_lemma_and_theorem_formulas() -> None:
    """3 log m log(m/(2β))/ε and 3 log m log(2m/δ)/ε, both bases; m = 1 gives 0."""
    assert float(lemma_3_1_threshold(1.0, 0.01, 2, 2)) == pytest.approx(3 * math.log2(100))
    assert float(lemma_3_1_threshold(1.0, 0.01, 2, "e")) == pytest.approx(
        3 * math.log(2) * math.log(100)
    )
    assert float(theorem_4_2_w(2.0, 0.1, 8, 2)) == pytest.approx(3 * 3 * math.log2(160) / 2)
    assert lemma_3_1_threshold(1.0, 0.01, 1) == 0 == theorem_4_2_w(1.0, 0.01, 1)
    assert cc_error_bound(1.0, 0.01, 1, method="lemma_3_1") == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda: cc_error_bound(1.0, 0.0, 5),
        lambda: cc_error_bound(1.0, 1.0, 5),
        lambda: cc_error_bound(1.0, None, 5),
        lambda: cc_error_bound(1.0, 0.1, 5, log_delta=-3.0),
        lambda: cc_error_bound(1.0, None, 5, log_delta=0.5),
        lambda: cc_error_bound(1.0, 0.1, 5, method="magic"),
        lambda: cc_error_bound(1.0, 0.1, 5, noise="gauss"),
        lambda: cc_error_bound(1.0, 0.1, 0),
        lambda: cc_error_bound(0.0, 0.1, 5),
        lambda: cc_error_bound(1.0, 0.1, 5, log_base=10),
        lambda: cc_error_bound(1.0, 0.1, 5, scale=-1.0),
        lambda: cc_max_error_tail(5, 1.0, float("inf")),
        lambda: discrete_laplace_sum_survival(3, 0, 0.5),
        lambda: discrete_laplace_sum_survival(3, 2, 1.0),
        lambda: laplace_sum_survival(1.0, 2, 0.0),
        lambda: laplace_mixture_sum_survival(1.0, [1, -1]),
        lambda: sample_max_error(3, 1.0, -1, np.random.default_rng(0)),
        lambda: resolve_log_delta("0.1"),
    ],
)
def test_cc_tails_bad_input_raises_value_error(call) -> None:
    with pytest.raises(ValueError):
        call()


def test_sample_max_error_is_vectorised_and_chunk_invariant() -> None:
    a = sample_max_error(9, 1.0, 1000, np.random.default_rng(3), chunk=1000)
    b = sample_max_error(9, 1.0, 1000, np.random.default_rng(3), chunk=1000)
    assert a.shape == (1000,) and a.dtype == np.int64 and np.array_equal(a, b)
    assert (a >= 0).all()


# ============================================================================= kary_tree
def test_kary_tree_m20_k5_has_10_variables_rank_9_and_a_separating_null_vector() -> None:
    """Erratum 23 (notes/imola25.md): the covariance is singular, v·N ≡ 0 but v·e^{(s)} ≠ 0 ⇒
    CC(r) and CC(r + e^{(s)}) have disjoint supports (infinite loss)."""
    assert authors_auto_k(20, 0.5) == 5 and authors_auto_k(20, 0.25) == 5
    a, variables = authors_kary_noise_matrix(20, 5)
    rep = kary_shift_report(20, 5)
    assert rep.n_variables == len(variables) == 10 and rep.rank == 9
    assert np.linalg.matrix_rank(a @ a.T) == 9
    v = np.array(rep.null_vector)
    assert not np.any(v @ a)  # v·N = v·Aξ = 0 for every ξ
    assert int(v @ contiguous_shift(20, rep.witness_shift)) == rep.witness_dot != 0
    assert rep.outside_span == tuple(range(2, 21)) and not rep.is_valid_cc
    xi = np.random.default_rng(0).integers(-9, 10, size=(10, 100))
    assert not np.any(v @ (a @ xi))


def test_kary_tree_m200_k15_has_rank_29() -> None:
    assert authors_auto_k(200, 0.5) == 15 == authors_auto_k(200, 0.25)
    rep = kary_shift_report(200, 15, costs=False)
    assert (rep.n_variables, rep.rank) == (30, 29)
    assert rep.witness_shift is not None and rep.witness_dot != 0


def test_kary_tree_k2_m4_costs_exceed_the_claimed_sensitivity() -> None:
    """Erratum 23: k = 2, m = 4: min L1 cost 3 vs claimed (H+1)/2 = 1.5 (LP); e^{(2)}, e^{(3)} are
    in the real span but not in the integer lattice A·ℤ^5 (discrete noise: disjoint supports)."""
    rep = kary_shift_report(4, 2)
    assert rep.claimed_sensitivity == Fraction(3, 2)
    assert rep.rank == 4 == rep.m and rep.outside_span == ()
    assert rep.real_costs == {1: 1.0, 2: 2.5, 3: 1.5, 4: 3.0}
    assert rep.outside_lattice == (2, 3) and rep.integer_costs == {1: 1.0, 4: 3.0}
    assert not rep.is_valid_cc


def test_kary_tree_k2_m4_exact_loss_exceeds_epsilon() -> None:
    """Exact loss (closed-form lattice pmf) at ε = 1: s = 1 gives 2/3, s = 2 is infinite, s = 4
    exceeds ε (>= 1.8 on the box [−2, 2]^4)."""
    a, _ = authors_kary_noise_matrix(4, 2)
    scale = authors_node_scale(4, 2, 1.0)
    loss1, _ = shift_loss_over_box(a, contiguous_shift(4, 1), scale, 2)
    loss2, _ = shift_loss_over_box(a, contiguous_shift(4, 2), scale, 1)
    loss4, x4 = shift_loss_over_box(a, contiguous_shift(4, 4), scale, 2)
    assert abs(loss1 - mpmath.mpf(2) / 3) < 1e-40
    assert loss2 == mpmath.inf
    assert loss4 > 1.8
    ech = integer_column_echelon(a)
    direct = lattice_noise_logpmf(ech, x4, scale) - lattice_noise_logpmf(
        ech, tuple(np.asarray(x4) + contiguous_shift(4, 4)), scale
    )
    assert abs(abs(direct) - loss4) < 1e-40


def test_kary_tree_height_one_is_fine_over_reals_but_not_on_the_integer_lattice() -> None:
    """H = 1 (k = m = 10, the auto choice for m = 10): real LP cost 1 = (H+1)/2, but
    N_t − N_{t−1} = 2ξ_{t−1} is always even, so with integer (DLap) noise every e^{(s)}, s >= 2,
    changes a parity and separates the supports."""
    assert authors_auto_k(10, 0.5) == 10 and authors_height(10, 10) == 1
    a, variables = authors_kary_noise_matrix(10, 10)
    diffs = a[1:] - a[:-1]
    for t in range(2, 11):  # N_t − N_{t−1} = 2ξ_{(1, t−1)}
        unit = np.zeros(len(variables), dtype=np.int64)
        unit[variables.index((1, t - 1))] = 2
        assert np.array_equal(diffs[t - 2], unit)
    rep = kary_shift_report(10, 10)
    assert rep.outside_span == () and all(c == 1.0 for c in rep.real_costs.values())
    assert rep.outside_lattice == tuple(range(2, 11))
    loss, _ = shift_loss_over_box(a, contiguous_shift(10, 2), authors_node_scale(10, 10, 1), 0)
    assert loss == mpmath.inf


def test_kary_prefix_terms_follow_the_repo_walk() -> None:
    """Hand-checked rows for k = 2, m = 4 (H = 2): t = 1 stops at level 1 (rem = 0)."""
    assert authors_prefix_terms(4, 2, 1) == [((0, 0), 1), ((1, 1), -1), ((1, 0), 1)]
    assert authors_prefix_terms(4, 2, 2) == [((0, 0), 1), ((1, 1), -1), ((2, 0), 1), ((2, 1), 1)]
    a, variables = authors_kary_noise_matrix(4, 2)
    assert variables == ((0, 0), (1, 0), (1, 1), (2, 0), (2, 1))
    assert a.tolist() == [[1, 1, -1, 0, 0], [1, 0, -1, 1, 1], [1, 1, 1, 0, 0], [1, 1, 0, 1, 1]]
    assert authors_claimed_sensitivity(4, 2) == Fraction(3, 2)
    assert authors_height(125, 5) == 4  # float log: log(125, 5) = 3.0000000000000004


def test_authors_chernoff_reproduces_the_repo_tree_column() -> None:
    """The reference values' column "the repository's tree, Chernoff two-sided" (notes/imola25.md;
    two-sided log(2m/δ), δ = 1e-16): 126.5 / 233.8 / 266.2 / 533.2; the repo itself uses one-sided
    log(m/δ) and gets less."""
    for m, eps, value in (
        (10, 0.5, 126.5),
        (100, 0.5, 233.8),
        (200, 0.5, 266.2),
        (200, 0.25, 533.2),
    ):
        assert authors_chernoff_bound(m, eps, 1e-16, two_sided=True) == pytest.approx(
            value, abs=0.05
        )
        assert authors_chernoff_bound(m, eps, 1e-16) < value - 1


def test_fenwick_tree_is_a_valid_cc_for_contrast() -> None:
    """Full rank, unimodular (every shift in the lattice), integer cost c(s) <= T, exact loss
    (ε/T)c(s) <= ε — equal to the brute-force box loss of the lattice pmf."""
    for m in (1, 4, 7, 20, 64):
        rep = fenwick_shift_report(m)
        assert rep.full_rank and rep.outside_lattice == () and rep.is_valid_cc
        assert rep.integer_costs == {
            s: float(continual_counting.shift_node_count(m, s)) for s in range(1, m + 1)
        }
        assert max(rep.integer_costs.values()) == continual_counting.tree_height(m)
        assert all(loss <= 1 for loss in fenwick_shift_losses(m, 1).values())
    w, _ = fenwick_noise_matrix(5)
    for s, loss in fenwick_shift_losses(5, Fraction(1)).items():
        got, _ = shift_loss_over_box(
            w, contiguous_shift(5, s), continual_counting.tree_height(5), 1
        )
        assert abs(got - mpmath.mpf(loss.numerator) / loss.denominator) < 1e-40


def test_lattice_pmf_of_a_kernel_tree_sums_to_one_and_matches_enumeration() -> None:
    """N = Aξ for k = m = 3 (4 variables, kernel dimension 1): the closed-form lattice pmf
    summed over a box is 1 − (tail), and agrees with brute-force enumeration over ξ."""
    a, _ = authors_kary_noise_matrix(3, 3)
    ech = integer_column_echelon(a)
    assert len(ech.kernel()) == 1
    scale = mpmath.mpf(1) / 2
    with workdps():
        total = mpmath.fsum(
            mpmath.exp(lattice_noise_logpmf(ech, tuple(x), scale)) for x in box(3, 8).tolist()
        )
        assert 0 < 1 - total < mpmath.mpf(10) ** -4
    # brute force over ξ ∈ [−12, 12]^4 (float; truncation < 1e-10 relative at p = e^{−2})
    xi = box(4, 12)
    weights = np.exp(-2.0 * np.abs(xi).sum(axis=1)) * ((1 - math.exp(-2)) / (1 + math.exp(-2))) ** 4
    images = xi @ a.T
    for target in ((1, -1, 3), (0, 0, 0), (2, 4, 0)):
        brute = weights[np.all(images == np.array(target), axis=1)].sum()
        exact = float(mpmath.exp(lattice_noise_logpmf(ech, target, scale)))
        assert brute == pytest.approx(exact, rel=1e-9) and exact > 0


def test_lattice_helpers_agree_with_exact_linear_algebra() -> None:
    a, _ = authors_kary_noise_matrix(20, 5)
    for v in left_null_vectors(a):
        assert not np.any(np.asarray(v) @ a)
    ech = integer_column_echelon(a)
    in_span, c = span_membership(ech, a @ np.arange(10))
    assert in_span and np.array_equal(a @ np.array(c), a @ np.arange(10))
    assert min_l1_cost(a, contiguous_shift(20, 7)) is None
    assert min_l1_cost(a, contiguous_shift(20, 1), integer=True) == 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: authors_kary_noise_matrix(1, 2),
        lambda: authors_kary_noise_matrix(5, 1),
        lambda: authors_kary_noise_matrix(5, 6),
        lambda: authors_prefix_terms(5, 2, 6),
        lambda: authors_auto_k(10, 0.0),
        lambda: contiguous_shift(4, 5),
        lambda: contiguous_shift(4, 1, 2),
        lambda: integer_column_echelon(np.ones((2, 2))),
        lambda: fenwick_noise_matrix(0),
        lambda: shift_loss_over_box(np.eye(2, dtype=np.int64), [1, 1], 1.0, -1),
    ],
)
def test_kary_tree_bad_input_raises_value_error(call) -> None:
    with pytest.raises(ValueError):
        call()


# ============================================================================= extremes (issue 18)
def test_cc_epsilon_1e_minus_25_is_refused_instead_of_zero_noise() -> None:
    """Issue 18: ContinualCounting(4, 1e-25).sample_noise(2, rng) returned zero noise (per-node
    scale 3e25: numpy's geometric saturated at the int64 maximum and the two draws cancelled).
    A per-node scale above 2^50 is now refused, naming epsilon and the smallest valid one."""
    with pytest.raises(
        ValueError,
        match=r"^epsilon must give a per-node noise scale at most 2\^50 = 1\.1259e\+15 \(epsilon "
        r">= T/2\^50 = 2\.665e-15 for m = 4\)",
    ):
        continual_counting.ContinualCounting(4, 1e-25)
    with pytest.raises(ValueError, match=r"^epsilon must give a per-node noise scale"):
        continual_counting.ContinualCounting(4, 1e-25, noise="laplace")
    with pytest.raises(ValueError, match=r"^scale must give a per-node noise scale at most 2\^50"):
        continual_counting.ContinualCounting(4, 1.0, scale=1e19)


@pytest.mark.parametrize("m", [10**12, 2**63, 2**20 + 1])
def test_cc_with_huge_m_is_refused_before_any_allocation(m) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"^m must be an integer 1 <= m <= 1048576"):
        continual_counting.ContinualCounting(m, 1.0)
    with pytest.raises(ValueError, match=r"^m must be an integer 1 <= m <= 1048576"):
        continual_counting.fenwick_parents(m)
    assert time.perf_counter() - start < 0.5


def test_cc_tree_functions_take_any_m_up_to_2_to_62_in_log_time() -> None:
    """shift_nodes walks the Fenwick update path s, s + lowbit(s), ...: no array of m entries."""
    assert continual_counting.shift_nodes(10**12, 1).tolist() == [2**k for k in range(40)]
    assert (
        continual_counting.shift_node_count(2**62, 2**62) == 1
        and continual_counting.tree_height(10**400) == 1329
    )
    assert continual_counting.shift_privacy_loss(10**12, 1, Fraction(1, 2)) == Fraction(1, 2)
    with pytest.raises(ValueError, match=r"^m must be an integer 1 <= m <= "):
        continual_counting.shift_nodes(2**63, 1)
    with pytest.raises(ValueError, match=r"^epsilon must be a rational number"):
        continual_counting.shift_privacy_loss(7, 1, "1")


def test_cc_noise_size_times_m_is_capped() -> None:
    cc = continual_counting.ContinualCounting(1000, 1.0)
    with pytest.raises(ValueError, match=r"^size must be at most 8388 for m = 1000 counters"):
        cc.sample_noise(10_000, np.random.default_rng(0))
    assert cc.sample_noise(8388, np.random.default_rng(0)).shape == (8388, 1000)


@pytest.mark.parametrize("noise", continual_counting.NOISES)
def test_cc_at_the_largest_per_node_scale_draws_its_exact_law(noise) -> None:
    """Per-node scale 2^50 (the largest accepted): the node differences W⁻¹N are iid DLap(2^50)
    (discrete) or Lap(2^50) (laplace). DKW of each column against the exact CDF and, for the
    discrete noise, the residues mod 16 (exact probabilities 1/16 up to 16/t < 1e-13) by atoms;
    Bonferroni over the m = 3 columns, each at 1e-7/3: false alarm < 2e-7. The release (rounded
    for the Laplace noise) stays an int64 around the ranks."""
    t = 2.0**50
    cc = continual_counting.ContinualCounting(3, 1.0, noise, scale=t)
    rng = np.random.default_rng(4242)
    n = cc.sample_noise(60_000, rng)
    eta = cc.node_differences(n)
    if noise == "discrete":
        law_cdf = DiscreteLaplaceLaw(t).cdf
        assert n.dtype == np.int64
    else:

        def law_cdf(y):
            z = np.asarray(y) / t
            return np.where(
                z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0))
            )

    for i in range(3):
        dkw_test(eta[:, i], law_cdf, ALPHA / 3).assert_ok()
        if noise == "discrete":
            atom_test(eta[:, i] % 16, {r: 1 / 16 for r in range(16)}, ALPHA / 3).assert_ok()
    released = cc.release([5, 6, 7], 100, rng)
    assert released.dtype == np.int64 and (released != [5, 6, 7]).any(axis=1).all()


def test_cc_release_and_vectors_refuse_non_integer_or_out_of_range_values() -> None:
    cc = continual_counting.ContinualCounting(3, 1.0)
    rng = np.random.default_rng(0)
    for bad in (["1", "2", "3"], [True, 2, 3], [1, 2, 2**60], [1, 2, math.nan], [[1, 2, 3]]):
        with pytest.raises(ValueError, match=r"^ranks"):
            cc.release(bad, 2, rng)
    with pytest.raises(ValueError, match=r"^v must"):
        cc.noise_logpmf_mp([0.5, 0, 0])
    with pytest.raises(ValueError, match=r"^m must be at most 2 for noise_cell_probability_mp"):
        continual_counting.ContinualCounting(3, 1.0, "laplace").noise_cell_probability_mp([0, 0, 0])
    with pytest.raises(ValueError, match=r"^noise must be one of"):
        continual_counting.ContinualCounting(3, 1.0, noise="Discrete")
