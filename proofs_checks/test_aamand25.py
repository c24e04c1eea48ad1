"""Machine checks of the claims of aamand25 (Aamand et al., ICML 2025), one block per claim.

Exact arithmetic throughout (``Fraction``, sympy, mpmath at >= 60 digits). Where a probability is a
step function of a threshold (discrete laws), checking every achievable threshold covers every
real threshold: the tail ``Pr[D ≥ a]`` is constant on each interval ``(d_{j−1}, d_j]`` between
consecutive achievable values while the bound decreases in ``a``, so the worst ratio on the
interval sits at ``a = d_j``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpquant.reference.distributed_quantiles.concentration import (
    azuma_bound,
    bernstein_as_stated,
    bernstein_bracket,
    bernstein_two_sided,
    binomial_mean_deviation_tail,
    deviation_probability,
    lemma_3_1_bound_printed,
    lemma_3_1_bound_proof,
    lemma_3_1_exact_tail,
    lemma_4_1_bound,
    lemma_4_1_exact_tail,
    lemma_4_1_next_values,
    lemma_4_1_x,
    lemma_g1_bracket,
    lemma_g1_bracket_as_printed,
    lemma_g1_exact_tail,
    lemma_g1_sample_size,
    lemma_g2_bracket,
    lemma_g2_exact_tail,
    lemma_g2_sample_size,
    max_deviation_tail,
    max_deviation_tail_by_enumeration,
    rademacher_mean_deviation_tail,
    random_walk_max_tail,
    random_walk_one_sided_max_tail,
    remaining_zeros_law,
    theorem_g3_sample_size,
)
from dpquant.reference.distributed_quantiles.lower_bound import (
    approximate_quantile_set,
    fano_lower_bound,
    fano_step_holds,
    lower_bound_family,
    total_variation,
)
from dpquant.reference.distributed_quantiles.padding import (
    exact_cdf,
    is_exact_approximate_quantile,
    pad_users,
    padding_counts,
)
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.primitives.randomized_response import keep_probability_mp

HALF = Fraction(1, 2)


def mp(x) -> mpmath.mpf:
    return to_mpf(x)


def deviations(total: int, zeros: int, steps: int) -> list[Fraction]:
    """Every positive value |Y_i/(total − i) − zeros/total| can take for 1 <= i <= steps."""
    base = Fraction(zeros, total)
    vals = {
        abs(Fraction(y, total - i) - base)
        for i in range(1, steps + 1)
        for y in range(0, total - i + 1)
    }
    return sorted(v for v in vals if v > 0)


# =============================================================================== Lemma 4.1


def _reachable(n: int, k: int, i: int) -> range:
    """Values Y_i can take: zeros left among 2n − i items when k of 2n are zeros."""
    return range(max(0, k - i), min(k, 2 * n - i) + 1)


def test_lemma_4_1_x0_is_zero() -> None:
    for n in range(1, 9):
        for k in range(2 * n + 1):
            assert lemma_4_1_x(n, k, 0, k) == 0


def test_lemma_4_1_martingale_identity_exact() -> None:
    """E[X_{i+1} | Y_i] = X_i and E[Y_{i+1} | Y_i] = Y_i − Y_i/(2n − i), all 2n <= 16."""
    for n in range(1, 9):
        for k in range(2 * n + 1):
            for i in range(0, 2 * n - 1):
                for y in _reachable(n, k, i):
                    nxt = lemma_4_1_next_values(n, k, i, y)
                    assert sum(p for p, _ in nxt) == 1
                    assert sum(p * x for p, x in nxt) == lemma_4_1_x(n, k, i, y)
                    rem = 2 * n - i
                    p_zero = Fraction(y, rem)
                    assert p_zero * (y - 1) + (1 - p_zero) * y == y - Fraction(y, rem)


def test_lemma_4_1_increment_bound_one_over_n() -> None:
    """|X_{i+1} − X_i| equals the proof's two expressions and is <= 1/(2n − i − 1) <= 1/n, i < n."""
    for n in range(1, 9):
        for k in range(2 * n + 1):
            for i in range(n):
                rem = 2 * n - i
                for y in _reachable(n, k, i):
                    x_i = lemma_4_1_x(n, k, i, y)
                    for p, x_next in lemma_4_1_next_values(n, k, i, y):
                        step = abs(x_next - x_i)
                        if p == Fraction(y, rem) and y > 0:  # a zero is drawn: Y drops by one
                            assert step == Fraction(rem - y, rem * (rem - 1))
                        else:  # a one is drawn
                            assert step == Fraction(y, rem * (rem - 1))
                        assert step <= Fraction(1, rem - 1) <= Fraction(1, n)


def test_lemma_4_1_exact_tail_dp_matches_enumeration_of_zero_patterns() -> None:
    for n in range(1, 6):
        for k in range(2 * n + 1):
            for t in (Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)):
                assert max_deviation_tail(2 * n, k, n, t) == max_deviation_tail_by_enumeration(
                    2 * n, k, n, t
                )


def test_lemma_4_1_exact_tail_below_2exp_minus_t2n_over_2() -> None:
    """Pr[max_{1≤i≤n}|X_i| ≥ t] <= 2exp(−t²n/2) for every k and every t > 0, 2n <= 14."""
    worst = mpmath.mpf(0)
    with workdps():
        for n in range(1, 8):
            for k in range(2 * n + 1):
                for t in deviations(2 * n, k, n):
                    ratio = mp(lemma_4_1_exact_tail(n, k, t)) / lemma_4_1_bound(n, t)
                    worst = max(worst, ratio)
    assert worst < mpmath.mpf("0.6")  # the bound holds with room to spare (worst ≈ 0.567)


def test_lemma_4_1_example_2n_14_k_7_t_0_3() -> None:
    tail = lemma_4_1_exact_tail(7, 7, Fraction(3, 10))
    assert tail == max_deviation_tail_by_enumeration(14, 7, 7, Fraction(3, 10))
    assert abs(float(tail) - 0.0291) < 5e-5
    assert abs(float(lemma_4_1_bound(7, Fraction(3, 10))) - 1.46) < 5e-3


def test_lemma_4_1_bound_is_azuma_rescaled_by_n() -> None:
    """Azuma on n·X_i (increments <= 1) at level n·t gives exactly 2exp(−t²n/2)."""
    n, t = sympy.symbols("n t", positive=True)
    azuma = 2 * sympy.exp(-((n * t) ** 2) / (2 * n))
    assert sympy.simplify(azuma - 2 * sympy.exp(-(t**2) * n / 2)) == 0


# =============================================================================== Lemma 3.1


def test_lemma_3_1_remaining_zeros_are_hypergeometric_by_enumeration() -> None:
    """Y_t ~ Hypergeometric(n, k, n − t): enumerate all zero patterns (proof of Lemma 4.1)."""
    for total in range(1, 9):
        for zeros in range(total + 1):
            patterns = list(itertools.combinations(range(1, total + 1), zeros))
            for t in range(total + 1):
                counts: dict[int, int] = {}
                for pos in patterns:
                    y = sum(1 for p in pos if p > t)
                    counts[y] = counts.get(y, 0) + 1
                law = remaining_zeros_law(total, zeros, t)
                assert law == {y: Fraction(c, len(patterns)) for y, c in counts.items()}
                pmf = stats.hypergeom(total, zeros, total - t).pmf(list(law))
                assert np.allclose(pmf, [float(v) for v in law.values()], rtol=1e-12)


def test_lemma_3_1_ones_fraction_and_zeros_fraction_deviate_by_the_same_amount() -> None:
    """p^t counts ones, Y_t counts zeros (``notes/aamand25.md`` erratum 4):
    |p^t − p^0| = |Y_t/(n−t) − Y_0/n|."""
    n = 9
    for ones in range(n + 1):
        for t in range(n):
            for y in remaining_zeros_law(n, n - ones, t):
                p_t = 1 - Fraction(y, n - t)
                assert abs(p_t - Fraction(ones, n)) == abs(
                    Fraction(y, n - t) - Fraction(n - ones, n)
                )


def test_lemma_3_1_per_t_deviation_probability_is_exact_and_below_the_max_tail() -> None:
    """Pr[|p^t − p^0| ≥ α] for one t (hypergeometric) never exceeds the maximal tail up to t."""
    for n in range(2, 13):
        for zeros in range(n + 1):
            for alpha in (Fraction(1, 10), Fraction(1, 5), Fraction(1, 3)):
                for t in range(1, n // 2 + 1):
                    per_t = deviation_probability(n, zeros, t, alpha)
                    assert per_t <= max_deviation_tail(n, zeros, t, alpha)
                    if t == 1:  # the max over {1} is the single-step event itself
                        assert per_t == max_deviation_tail(n, zeros, 1, alpha)


def test_lemma_3_1_proof_bound_2exp_minus_alpha2_n_over_4_holds_exactly() -> None:
    """For n = 2n' users the proof (Lemma 4.1 with n') gives 2exp(−α²n/4); exact, n <= 16."""
    with workdps():
        for n in range(2, 17, 2):
            for ones in range(n + 1):
                for a in deviations(n, n - ones, n // 2):
                    assert mp(lemma_3_1_exact_tail(n, ones, a)) <= lemma_3_1_bound_proof(n, a)


def test_lemma_3_1_printed_bound_2exp_minus_alpha2_n_over_2_not_refuted_for_small_n() -> None:
    """The printed 2exp(−α²n/2) is not what the proof gives, but it holds for every n <= 16.

    Exhaustive: every n, every number of ones, every achievable α (hence every α > 0). The worst
    ratio (≈ 0.642) is at n = 2, one 1, α = 1/2: tail 1 against 2e^{−1/4}.
    """
    worst = mpmath.mpf(0)
    with workdps():
        for n in range(2, 17):
            for ones in range(n + 1):
                for a in deviations(n, n - ones, n // 2):
                    r = mp(lemma_3_1_exact_tail(n, ones, a)) / lemma_3_1_bound_printed(n, a)
                    worst = max(worst, r)
        assert worst < mpmath.mpf("0.65")
        assert abs(worst - 1 / (2 * mpmath.exp(mpmath.mpf(-1) / 4))) < mpmath.mpf("1e-50")


def test_lemma_3_1_proof_only_gives_the_quarter_exponent() -> None:
    """Lemma 4.1 with 2n' = n bits: 2exp(−α²n'/2) = 2exp(−α²n/4), weaker than the printed /2."""
    n, a = sympy.symbols("n alpha", positive=True)
    via_4_1 = 2 * sympy.exp(-(a**2) * (n / 2) / 2)
    assert sympy.simplify(via_4_1 - 2 * sympy.exp(-(a**2) * n / 4)) == 0
    assert sympy.simplify(via_4_1 - 2 * sympy.exp(-(a**2) * n / 2)) != 0
    with workdps():
        assert lemma_3_1_bound_proof(100, 0.2) > lemma_3_1_bound_printed(100, 0.2)


# =============================================================================== Theorem A.2


def test_theorem_a2_azuma_exact_on_the_random_walk() -> None:
    """Pr[max_{1≤i≤n}|S_i| ≥ t] <= 2exp(−t²/(2n)) for the ±1 walk; integer t covers all t > 0."""
    with workdps():
        for n in range(1, 41):
            for t in range(1, n + 1):
                tail = random_walk_max_tail(n, t)
                assert mp(tail) <= azuma_bound(n, t)


def test_random_walk_max_tail_matches_path_enumeration_and_reflection() -> None:
    for n in range(1, 13):
        paths = list(itertools.product((-1, 1), repeat=n))
        for t in range(1, n + 1):
            hits = sum(1 for p in paths if max(abs(s) for s in itertools.accumulate(p)) >= t)
            two_sided = random_walk_max_tail(n, t)
            assert two_sided == Fraction(hits, 2**n)
            one_sided = random_walk_one_sided_max_tail(n, t)
            ups = sum(1 for p in paths if max(itertools.accumulate(p)) >= t)
            assert one_sided == Fraction(ups, 2**n)
            assert one_sided <= two_sided <= 2 * one_sided


# =============================================================================== Theorem A.3


def test_theorem_a3_bernstein_as_stated_is_refuted_without_the_factor_2() -> None:
    """Counterexamples to exp(−nα²/(2σ² + 2α/3)) for the two-sided event (erratum 3)."""
    with workdps():
        # one fair bit: |X − 1/2| = 1/2 > 2/5 always; the printed bound is ≈ 0.812
        tail = binomial_mean_deviation_tail(1, HALF, Fraction(2, 5))
        bound = bernstein_as_stated(1, Fraction(2, 5), Fraction(1, 4))
        assert tail == 1 and bound < mpmath.mpf("0.82")
        # two Rademacher signs, σ² = 1: |S/2| = 1 w.p. 1/2 > 99/100; printed bound ≈ 0.4786
        tail = rademacher_mean_deviation_tail(2, Fraction(99, 100))
        bound = bernstein_as_stated(2, Fraction(99, 100), 1)
        assert tail == HALF and bound < mpmath.mpf("0.479")
        # the standard two-sided form covers both
        assert bernstein_two_sided(1, Fraction(2, 5), Fraction(1, 4)) > 1
        assert bernstein_two_sided(2, Fraction(99, 100), 1) > mpmath.mpf("0.95")


def test_theorem_a3_two_sided_bernstein_holds_on_exact_binomial_tails() -> None:
    """Pr[|S/n − p| ≥ α] <= 2exp(−nα²/(2σ² + 2α/3)), every achievable α, n <= 40 (and ±1 signs)."""
    ps = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 10), Fraction(9, 10), Fraction(3, 7)]
    with workdps():
        for n in range(1, 41):
            for p in ps:
                for a in sorted({abs(Fraction(s, n) - p) for s in range(n + 1)} - {0}):
                    tail = binomial_mean_deviation_tail(n, p, a, strict=False)
                    assert mp(tail) <= bernstein_two_sided(n, a, p * (1 - p))
            for k in range(n + 1):
                a = Fraction(abs(2 * k - n), n)
                if a > 0:
                    tail = rademacher_mean_deviation_tail(n, a, strict=False)
                    assert mp(tail) <= bernstein_two_sided(n, a, 1)


# =============================================================================== Lemma B.1


def test_lemma_b1_padding_identity_and_implication_exhaustive() -> None:
    """Every dataset of n <= 4 users on [B], B <= 5, every τ = k/n, α on a grid (exact)."""
    alphas = [Fraction(1, 100), Fraction(1, 10), Fraction(1, 4), Fraction(49, 100)]
    for B in range(2, 6):
        for n in range(2, 5):
            for data in itertools.combinations_with_replacement(range(1, B + 1), n):
                users = np.array(data)
                for k in range(1, n):
                    tau = Fraction(k, n)
                    assert padding_counts(n, tau) == (n - k, k)
                    padded = pad_users(users, B, tau)
                    for y in range(1, B):
                        assert exact_cdf(padded, y) == (1 - tau) / 2 + exact_cdf(users, y) / 2
                    for a in alphas:
                        for m in range(1, B + 1):
                            if is_exact_approximate_quantile(padded, m, HALF, a):
                                assert is_exact_approximate_quantile(users, m, tau, 2 * a)


# =============================================================================== Theorem F.1

F1_PARAMS = [
    (Fraction(1, 2), Fraction(1, 10)),
    (Fraction(1, 3), Fraction(1, 20)),
    (Fraction(3, 10), Fraction(7, 100)),
    (Fraction(4, 5), Fraction(9, 100)),
]


@pytest.mark.parametrize("base", [0, 1])
def test_theorem_f1_family_pairwise_total_variation_is_4alpha_exactly(base) -> None:
    for B in range(4, 13):
        betas = range(1, B) if base == 0 else range(2, B - 1)
        for q, a in F1_PARAMS:
            fam = {b: lower_bound_family(B, q, a, b, base=base) for b in betas}
            for b in betas:
                assert sum(fam[b].values()) == 1
                for b2 in betas:
                    assert total_variation(fam[b], fam[b2]) == (4 * a if b != b2 else 0)


@pytest.mark.parametrize("base", [0, 1])
def test_theorem_f1_alpha_approximate_q_quantile_set_is_beta_minus_one(base) -> None:
    for B in range(4, 13):
        betas = range(1, B) if base == 0 else range(2, B - 1)
        domain = range(0, B) if base == 0 else range(1, B + 1)
        for q, a in F1_PARAMS:
            for b in betas:
                pmf = lower_bound_family(B, q, a, b, base=base)
                assert approximate_quantile_set(pmf, domain, q, a) == [b - 1]


def test_theorem_f1_e_eps_minus_1_squared_at_most_4_eps_squared() -> None:
    """(e^ε − 1)² <= 4ε² on (0, 1): (e^ε − 1)/ε increases to e − 1 < 2 (margin 0.26)."""
    with workdps():
        assert (mpmath.e - 1) ** 2 / 4 < mpmath.mpf("0.74")
        for j in range(1, 1001):
            eps = mpmath.mpf(j) / 1000
            assert (mpmath.exp(eps) - 1) ** 2 <= mpmath.mpf("0.74") * 4 * eps**2
        x = sympy.symbols("x", positive=True)
        ratio = (sympy.exp(x) - 1) / x
        # derivative (x e^x − e^x + 1)/x² > 0: the ratio is increasing
        assert (
            sympy.simplify(sympy.diff(ratio, x) - (x * sympy.exp(x) - sympy.exp(x) + 1) / x**2) == 0
        )


def test_theorem_f1_mutual_information_chain_gives_lg_b_le_1024_eps2_alpha2_n() -> None:
    eps, n, a, B = sympy.symbols("epsilon n alpha B", positive=True)
    duchi = 4 * (4 * eps**2) * (n / B**2) * B**2 * (4 * a) ** 2  # (e^ε−1)² <= 4ε², TV = 4α
    assert sympy.simplify(duchi - 256 * eps**2 * n * a**2) == 0
    lgB = sympy.symbols("L", positive=True)
    # ¼·lg B <= 256ε²nα²  ⇔  lg B <= 1024ε²α²n
    assert sympy.simplify(4 * 256 * eps**2 * n * a**2 - 1024 * eps**2 * a**2 * n) == 0
    assert (
        sympy.simplify(lgB / 4 - 256 * eps**2 * n * a**2 - (lgB - 1024 * eps**2 * a**2 * n) / 4)
        == 0
    )


def test_theorem_f1_fano_step_fails_below_b_14_and_below_18_with_entropy_lg_b_minus_1() -> None:
    """lg B − 1 − ½lg(B−1) >= ¼lg B iff B >= 14; with H(β*) = lg(B−1) iff B >= 18 (erratum 5)."""
    with workdps():
        for B in range(2, 400):
            for entropy, threshold in (("printed", 14), ("uniform", 18)):
                holds = fano_step_holds(B, entropy=entropy)
                assert holds == (B >= threshold)
                gap = fano_lower_bound(B, entropy=entropy) - mpmath.log(B, 2) / 4
                assert (gap >= 0) == holds and abs(gap) > mpmath.mpf("1e-3")
    # beyond the range: B³ − 16(B−1)² and B² − 18B + 1 increase for B >= 10 (derivatives > 0)
    b = sympy.symbols("b", positive=True)
    for poly in (b**3 - 16 * (b - 1) ** 2, b**2 - 18 * b + 1):
        deriv = sympy.diff(poly, b)
        roots = [r for r in sympy.real_roots(sympy.Poly(deriv, b))]
        assert all(r < 10 for r in roots) and deriv.subs(b, 10) > 0


# =============================================================================== Theorem F.2


def test_theorem_f2_condition_log_b_over_1024_eps2_alpha2_at_least_4_over_alpha2() -> None:
    """log B/(1024ε²α²) >= 4/α²  ⇔  ε <= √(log B)/64 (the printed condition)."""
    L, a, eps = sympy.symbols("L alpha epsilon", positive=True)
    lhs_minus_rhs = L / (1024 * eps**2 * a**2) - 4 / a**2
    boundary = sympy.sqrt(L) / 64
    assert sympy.simplify(lhs_minus_rhs.subs(eps, boundary)) == 0
    assert sympy.diff(lhs_minus_rhs, eps).could_extract_minus_sign()  # decreasing in ε
    for Lv, av in ((2, Fraction(1, 10)), (32, Fraction(1, 100))):
        e_ok = sympy.sqrt(Lv) / 64
        assert lhs_minus_rhs.subs({L: Lv, a: av, eps: e_ok * sympy.Rational(99, 100)}) > 0
        assert lhs_minus_rhs.subs({L: Lv, a: av, eps: e_ok * sympy.Rational(101, 100)}) < 0


def test_theorem_f2_hoeffding_failure_below_quarter_when_n_at_least_2_over_alpha2() -> None:
    """n >= 2/α²: each CDF point deviates by > α w.p. <= 2e^{−2nα²} <= 2e^{−4}; two points < 1/4."""
    with workdps():
        assert 2 * (2 * mpmath.exp(-4)) < mpmath.mpf("0.074") < mpmath.mpf(1) / 4


def test_theorem_f2_reduction_at_2alpha_needs_a_smaller_epsilon_range_documented() -> None:
    """Documented constant gap: the reduction yields the F.1 bound at accuracy 2α,
    lg B/(1024ε²(2α)²), and that exceeds Hoeffding's 2/α² iff ε < √(lg B)/(64√2); at the printed
    limit ε = √(lg B)/64 it is only 1/α²."""
    L, a, eps = sympy.symbols("L alpha epsilon", positive=True)
    at_2alpha = L / (1024 * eps**2 * (2 * a) ** 2)
    assert sympy.simplify(at_2alpha.subs(eps, sympy.sqrt(L) / 64) - 1 / a**2) == 0
    assert sympy.simplify(at_2alpha.subs(eps, sympy.sqrt(L) / (64 * sympy.sqrt(2))) - 2 / a**2) == 0


# =============================================================================== Lemma F.5


@st.composite
def f5_cases(draw):
    n = draw(st.integers(2, 10))
    B = draw(st.integers(2, 8))
    users = np.array(draw(st.lists(st.integers(1, B), min_size=n, max_size=n)))
    q = Fraction(draw(st.integers(1, 50)), 100)  # WLOG q <= 1/2
    c = draw(st.integers(0, 3 * n))
    side = draw(st.sampled_from(["B", "1"]))
    alpha = q * Fraction(draw(st.integers(1, 49)), 100)  # α < q/2 so q + α < 1
    return users, B, q, c, side, alpha


@given(f5_cases())
def test_lemma_f5_padding_arithmetic_exact(case) -> None:
    """Padding c copies of B (q' > q) or of 1 (q' < q) moves the q-quantile to q' with error
    scale N/n <= 1/q, and the paper's counts are (q' − q)n/q and (q − q')n/(1 − q)."""
    users, B, q, c, side, alpha = case
    n = users.size
    N = n + c
    if side == "B":
        q_new = q * N / n
        if q_new >= 1:
            return
        assert c == (q_new - q) * n / q
        padded = np.concatenate([users, np.full(c, B)])
    else:
        q_new = (q * N - c) / n
        if q_new <= 0:
            return
        assert c == (q - q_new) * n / (1 - q)
        padded = np.concatenate([users, np.ones(c, dtype=int)])
    assert c <= n / q  # at most n/q padded users (the paper's n + 1 .. n + n/q)
    scale = Fraction(N, n)
    assert scale <= 1 / q
    for m in range(1, B + 1):
        if is_exact_approximate_quantile(padded, m, q, alpha):
            assert is_exact_approximate_quantile(users, m, q_new, alpha * scale)
            assert is_exact_approximate_quantile(users, m, q_new, alpha / q)
    assert alpha + (1 - alpha) * alpha / q <= alpha * (1 + 1 / q)


# =============================================================================== Lemmas G.1 / G.2, Theorem G.3


def _symbols():
    E, a, p = sympy.symbols("E alpha p", positive=True)  # E = e^ε > 1
    tanh = (E - 1) / (E + 1)
    return E, a, p, tanh


def test_lemma_g1_report_variance_formula() -> None:
    """Var(y) = q(1 − q) with q = tanh(ε/2)p + 1/(e^ε+1) equals tanh²p(1−p) + e^ε/(e^ε+1)²."""
    E, a, p, tanh = _symbols()
    q = tanh * p + 1 / (E + 1)
    assert sympy.simplify(q * (1 - q) - (tanh**2 * p * (1 - p) + E / (E + 1) ** 2)) == 0
    assert sympy.simplify(q.subs(p, 0) * (1 - q.subs(p, 0)) - E / (E + 1) ** 2) == 0  # G.2


def test_lemma_g1_g2_brackets_equal_2sigma2_over_t2_plus_2_over_3t() -> None:
    E, a, p, tanh = _symbols()
    t = a * tanh
    g2 = 2 * E / (a**2 * (E - 1) ** 2) + 2 * (E + 1) / (3 * a * (E - 1))
    g1 = 2 * p * (1 - p) / a**2 + g2
    sigma2_g1 = tanh**2 * p * (1 - p) + E / (E + 1) ** 2
    sigma2_g2 = E / (E + 1) ** 2
    assert sympy.simplify(2 * sigma2_g1 / t**2 + 2 / (3 * t) - g1) == 0
    assert sympy.simplify(2 * sigma2_g2 / t**2 + 2 / (3 * t) - g2) == 0
    # and the numeric helpers agree with the Bernstein bracket
    with workdps():
        eps, al, pp = mp(1.0), mp(0.05), mp(0.3)  # the helpers read floats exactly
        th = mpmath.tanh(eps / 2)
        s2 = th**2 * pp * (1 - pp) + mpmath.e / (mpmath.e + 1) ** 2
        assert abs(bernstein_bracket(s2, al * th) - lemma_g1_bracket(0.3, 0.05, 1.0)) < mpmath.mpf(
            "1e-40"
        )


def test_lemma_g1_statement_misprints_differ_from_the_proof() -> None:
    """Printed: e^ε/(α²(e^ε−1)²) (no 2) and 2(e^ε+1)/(4α(e^ε−1)) (4α for 3α): always smaller."""
    E, a, p, tanh = _symbols()
    proof = 2 * p * (1 - p) / a**2 + 2 * E / (a**2 * (E - 1) ** 2) + 2 * (E + 1) / (3 * a * (E - 1))
    printed = 2 * p * (1 - p) / a**2 + E / (a**2 * (E - 1) ** 2) + 2 * (E + 1) / (4 * a * (E - 1))
    diff = sympy.simplify(
        proof - printed - (E / (a**2 * (E - 1) ** 2) + (E + 1) / (6 * a * (E - 1)))
    )
    assert diff == 0
    with workdps():
        assert (
            abs(
                lemma_g1_bracket_as_printed(0.5, 0.05, 1.0) * mpmath.log(20)
                - mpmath.mpf("1767.2093")
            )
            < 1e-3
        )


def test_lemma_g_reference_sample_sizes() -> None:
    """Reference values at α = .05, ε = 1, β = .05: G.2 n = 2292.9, G.1 (p = 1/2) n = 2892.1."""
    with workdps():
        assert abs(lemma_g2_sample_size(0.05, 1.0, 0.05) - mpmath.mpf("2292.9")) < 0.05
        assert abs(lemma_g1_sample_size(0.5, 0.05, 1.0, 0.05) - mpmath.mpf("2892.1")) < 0.05


def test_lemma_g1_exact_tail_below_beta_at_the_proof_sample_size() -> None:
    """Exact Binomial tail of |p̂ − p| > α at n = ⌈G.1 bracket·ln(1/β)⌉ (α=.05, ε=1, β=.05)."""
    with workdps():
        for p in (0.5, 0.3, 0.1, 0.0):
            n = int(mpmath.ceil(lemma_g1_sample_size(p, 0.05, 1.0, 0.05)))
            assert lemma_g1_exact_tail(n, p, 0.05, 1.0) < mpmath.mpf("0.03")  # β = 0.05


def test_lemma_g1_exact_tail_cross_checked_with_scipy() -> None:
    n, p, a, eps = 500, 0.3, 0.1, 1.0
    q = math.tanh(eps / 2) * p + 1 / (math.exp(eps) + 1)
    t = a * math.tanh(eps / 2)
    s = np.arange(n + 1)
    ref = stats.binom.pmf(s, n, q)[np.abs(s / n - q) > t].sum()
    assert abs(float(lemma_g1_exact_tail(n, p, a, eps)) - ref) < 1e-12


def test_lemma_g1_printed_statement_is_refuted_by_the_exact_tail() -> None:
    """Read as "n >=", the printed bracket is too small: at its n the exact tail exceeds β."""
    with workdps():
        # α = .05, ε = 1, β = .05: n = ⌈1767.2⌉ = 1768, tail 0.0540 > β = 0.05
        n = int(mpmath.ceil(lemma_g1_bracket_as_printed(0.5, 0.05, 1.0) * mpmath.log(20)))
        assert n == 1768
        assert lemma_g1_exact_tail(n, 0.5, 0.05, 1.0) > mpmath.mpf("0.053")
        # a starker one: ε = 0.1, α = 0.2, β = 0.01: tail ≈ 0.0305, three times β
        n = int(mpmath.ceil(lemma_g1_bracket_as_printed(0.5, 0.2, 0.1) * mpmath.log(100)))
        assert lemma_g1_exact_tail(n, 0.5, 0.2, 0.1) > mpmath.mpf("0.03")


def test_lemma_g1_proof_form_fails_in_a_degenerate_case_bernstein_without_factor_2() -> None:
    """With β = 0.8 the proof's n is 1 and one report always misses by > α = 0.45: tail 1 > β.
    The standard two-sided Bernstein (ln(2/β) for ln(1/β)) asks for more users and holds."""
    with workdps():
        n = int(mpmath.ceil(lemma_g1_sample_size(0.5, 0.45, 8.0, 0.8)))
        assert n == 1
        assert lemma_g1_exact_tail(1, 0.5, 0.45, 8.0) == 1
        n2 = int(mpmath.ceil(lemma_g1_bracket(0.5, 0.45, 8.0) * mpmath.log(2 / mpmath.mpf("0.8"))))
        assert n2 > 1 and lemma_g1_exact_tail(n2, 0.5, 0.45, 8.0) <= mpmath.mpf("0.8")


@pytest.mark.parametrize("frac", [0.0, 0.25, 0.5, 1.0])
def test_lemma_g2_exact_tail_below_beta_at_the_sample_size(frac) -> None:
    """Fixed bits through ε-RR: exact (float convolution) tail at n = ⌈2292.9⌉ is ≈ 0.0125 < β.

    Only on the lemma's true sub-domain (small β): Lemma G.2 fails for large β (n = 2, both bits
    1, ε = 1, α = 0.49, β = 0.9: tail 1 > β; see the test below and its certificate)."""
    n = int(math.ceil(float(lemma_g2_sample_size(0.05, 1.0, 0.05))))
    assert n == 2293
    tail = lemma_g2_exact_tail(n, int(frac * n), 0.05, 1.0)
    assert tail < 0.02  # β = 0.05; float error ~1e-15


def test_lemma_g2_fails_for_large_beta_and_two_sided_bernstein_repairs_it() -> None:
    """Lemma G.2 is false for large β: at α = 0.49, ε = 1, β = 0.9 its n is ⌈1.118⌉ = 2 and with
    both bits 1 every outcome misses P = 1 by more than α (tail 1 > β). With ln(2/β) the n is 9
    and the exact tail is at most 0.14 ≤ β for every bit count."""
    n = int(math.ceil(float(lemma_g2_sample_size(0.49, 1.0, 0.9))))
    assert n == 2
    assert lemma_g2_exact_tail(n, n, 0.49, 1.0) > 1 - 1e-12
    with workdps():
        n2 = int(mpmath.ceil(lemma_g2_bracket(0.49, 1.0) * mpmath.log(2 / mp(0.9))))
    assert n2 == 9
    assert max(lemma_g2_exact_tail(n2, ones, 0.49, 1.0) for ones in range(n2 + 1)) < 0.14


def test_lemma_g2_exact_tail_matches_mpmath_for_all_zero_bits() -> None:
    with workdps():
        n, eps, a = 400, 1.0, 0.1
        # ones = 0: the sum is Binomial(n, 1/(e^ε+1)), the G.1 law with p = 0
        assert (
            abs(lemma_g2_exact_tail(n, 0, a, eps) - float(lemma_g1_exact_tail(n, 0.0, a, eps)))
            < 1e-12
        )


def test_theorem_g3_is_lemma_g2_per_round_with_a_union_bound() -> None:
    """n = r·n' with n' = G.2 bracket·ln(r/β) (Lemma G.2 at β/r); the per-round exact tails times
    r stay below β (B = 2^10, r = 10)."""
    B, beta, a, eps = 2**10, 0.05, 0.1, 1.0
    r = 10
    with workdps():
        per_round = lemma_g2_bracket(a, eps) * mpmath.log(r / mp(beta))
        assert abs(theorem_g3_sample_size(a, eps, beta, B) - r * per_round) < mpmath.mpf("1e-40")
        # the same per-round size as Lemma G.2 at failure β/r (up to the float β/r)
        assert abs(lemma_g2_sample_size(a, eps, beta / r) - per_round) < mpmath.mpf("1e-9")
    n_round = int(math.ceil(float(per_round)))
    worst = max(lemma_g2_exact_tail(n_round, o, a, eps) for o in (0, n_round // 4, n_round // 2))
    assert worst * r < beta  # union bound over the r rounds


# =============================================================================== Section 3.1 facts


def test_tanh_half_eps_at_most_half_eps_for_all_eps() -> None:
    x = sympy.symbols("x", nonnegative=True)
    g = x / 2 - sympy.tanh(x / 2)
    assert g.subs(x, 0) == 0
    assert sympy.simplify(sympy.diff(g, x) - sympy.tanh(x / 2) ** 2 / 2) == 0  # >= 0
    with workdps():
        for j in range(0, 2001):
            eps = mpmath.mpf(j) / 100
            assert mpmath.tanh(eps / 2) <= eps / 2


def test_tanh_half_eps_at_least_quarter_eps_iff_eps_le_3_830016096() -> None:
    with mpmath.workdps(60):
        root = mpmath.findroot(lambda e: mpmath.tanh(e / 2) - e / 4, mpmath.mpf("3.83"))
        assert abs(root - mpmath.mpf("3.830016096")) < mpmath.mpf("5e-10")
        assert abs(mpmath.tanh(root / 2) - root / 4) < mpmath.mpf("1e-55")
        # g(ε) = tanh(ε/2) − ε/4 is concave with g(0) = 0 and g'(0) = 1/4: one positive root
        delta = mpmath.mpf("1e-40")
        assert mpmath.tanh((root - delta) / 2) - (root - delta) / 4 > 0
        assert mpmath.tanh((root + delta) / 2) - (root + delta) / 4 < 0
        for j in range(1, 1001):
            eps = mpmath.mpf(j) / 100
            assert (mpmath.tanh(eps / 2) >= eps / 4) == (eps <= root)
    x = sympy.symbols("x", nonnegative=True)
    g2 = sympy.diff(sympy.tanh(x / 2) - x / 4, x, 2)
    assert sympy.simplify(g2 + sympy.tanh(x / 2) * (1 - sympy.tanh(x / 2) ** 2) / 2) == 0  # <= 0


@pytest.mark.parametrize(
    "eps, keep, tanh_half",
    [
        (0.1, "0.52497919", "0.049958375"),
        (0.5, "0.62245933", "0.24491866"),
        (1.0, "0.73105858", "0.46211716"),
        (2.0, "0.88079708", "0.76159416"),
        (5.0, "0.99330715", "0.9866143"),
    ],
)
def test_rr_reference_numbers(eps, keep, tanh_half) -> None:
    with workdps():
        p = keep_probability_mp(eps)
        assert abs(p - mpmath.mpf(keep)) < mpmath.mpf("5e-9")
        assert abs(mpmath.tanh(mpmath.mpf(eps) / 2) - mpmath.mpf(tanh_half)) < mpmath.mpf("5e-9")
        assert abs(mpmath.tanh(mpmath.mpf(eps) / 2) - (2 * p - 1)) < mpmath.mpf("1e-50")


def test_rr_flip_probability_is_half_minus_quarter_eps_not_half_minus_eps() -> None:
    """1/(1 + e^ε) = 1/2 − ε/4 + ε³/48 + O(ε⁵) (erratum 9: the paper's "≈ 1/2 − ε" is wrong)."""
    e = sympy.symbols("epsilon")
    series = sympy.series(1 / (1 + sympy.exp(e)), e, 0, 5).removeO()
    assert sympy.expand(series - (sympy.Rational(1, 2) - e / 4 + e**3 / 48)) == 0
    assert series.coeff(e, 1) == sympy.Rational(-1, 4) != -1
    with workdps():
        flip = 1 / (1 + mpmath.exp(mpmath.mpf("0.1")))
        assert abs(flip - (mpmath.mpf("0.5") - mpmath.mpf("0.1") / 4)) < mpmath.mpf("3e-5")
        assert abs(flip - (mpmath.mpf("0.5") - mpmath.mpf("0.1"))) > mpmath.mpf("0.07")
