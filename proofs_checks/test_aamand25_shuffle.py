"""aamand25 App. G: Thm G.3 (naive NBS sample size), Thm G.4 (FMT21 bound), Lemma G.5.

Lemma G.5 and Thm G.4 are checked at the project's mpmath precision (>= 50 digits) with a safe
margin; Thm G.3 by a seeded Monte Carlo at the theorem's n with a Clopper–Pearson bound.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.conformance import clopper_pearson
from dpquant.reference.distributed_quantiles.amplification import (
    fmt_epsilon,
    fmt_epsilon_mp,
    fmt_precondition,
    local_epsilon_lemma_g5,
)
from dpquant.reference.distributed_quantiles.naive_nbs import dp_naive_nbs, search_rounds
from dpquant.reference.exact.mp import to_mpf, workdps

epsilons = st.floats(min_value=1e-3, max_value=1.0)
deltas = st.floats(min_value=1e-15, max_value=1.0 - 1e-9)
# Theorem G.4's bound as a function of the local ε, the batch size n and δ
local_epsilons = st.floats(min_value=1e-4, max_value=15.0)
batch_sizes = st.integers(min_value=1, max_value=10**9)
g4_deltas = st.floats(min_value=1e-15, max_value=0.99)


def ordered_pairs(values: st.SearchStrategy) -> st.SearchStrategy:
    """Two different draws of ``values``, the smaller first (for a strict monotonicity check)."""
    return st.tuples(values, values).filter(lambda p: p[0] != p[1]).map(sorted)


def lemma_g5_min_n(eps: float, delta: float) -> int:
    """The smallest integer n with ε > 16·sqrt(ln(4/δ)/n), i.e. n > 256·ln(4/δ)/ε²."""
    return math.floor(256.0 * math.log(4.0 / delta) / eps**2) + 1


@given(epsilons, deltas, st.floats(min_value=1.0, max_value=1e6))
def test_lemma_G5_local_epsilon_is_positive_meets_the_precondition_and_fmt_at_most_epsilon(
    eps, delta, stretch
) -> None:
    """0 < ε_L ≤ ln(n/(16 ln(2/δ))) and Thm G.4's ε' ≤ ε for ε_L = ln(ε²n/(80 ln(4/δ))).

    The proof's chain gives ε' ≤ ln(1 + 8·(1/√80 + 1/(80 ln 4))·ε) ≤ 0.967ε, so the check uses the
    margin ε' ≤ 0.97·ε, on the double the implementation returns, at 60 digits.
    """
    n = math.ceil(lemma_g5_min_n(eps, delta) * stretch)
    with workdps():
        e, d = to_mpf(eps), to_mpf(delta)
        assert e > 16 * mpmath.sqrt(mpmath.log(4 / d) / n)  # the lemma's hypothesis
        eps_local = local_epsilon_lemma_g5(eps, n, delta)
        exact = mpmath.log(e**2 * n / (80 * mpmath.log(4 / d)))
        assert abs(to_mpf(eps_local) - exact) <= mpmath.mpf(1e-13) * max(1, abs(exact))
        assert eps_local > 0
        cap = mpmath.log(n / (16 * mpmath.log(2 / d)))
        assert cap - to_mpf(eps_local) > mpmath.mpf("1e-6")  # strictly inside the precondition
        assert fmt_precondition(eps_local, n, delta)
        assert fmt_epsilon_mp(eps_local, n, delta) <= mpmath.mpf("0.97") * e


@given(epsilons, deltas, st.floats(min_value=1.0, max_value=1e6))
def test_lemma_G5_proof_identities_sqrt_term_is_eps_over_sqrt80_and_linear_term_and_sum(
    eps, delta, stretch
) -> None:
    """sqrt(e^{ε_L}·ln(4/δ)/n) = ε/√80, e^{ε_L}/n = ε²/(80 ln(4/δ)), and their sum < ε/8."""
    n = math.ceil(lemma_g5_min_n(eps, delta) * stretch)
    with workdps():
        e, a = to_mpf(eps), mpmath.log(4 / to_mpf(delta))
        eps_local = mpmath.log(e**2 * n / (80 * a))
        sqrt_term = mpmath.sqrt(mpmath.exp(eps_local) * a / n)
        lin_term = mpmath.exp(eps_local) / n
        tiny = mpmath.mpf(10) ** -45
        assert abs(sqrt_term - e / mpmath.sqrt(80)) <= tiny * e
        assert abs(lin_term - e**2 / (80 * a)) <= tiny * e**2
        assert e / 8 - (sqrt_term + lin_term) >= e * mpmath.mpf("0.004")  # margin ≈ 0.0042ε


def test_lemma_G5_proof_identities_symbolically() -> None:
    eps, n, a = sympy.symbols("epsilon n a", positive=True)
    eps_local = sympy.log(eps**2 * n / (80 * a))
    assert sympy.simplify(sympy.sqrt(sympy.exp(eps_local) * a / n) - eps / sympy.sqrt(80)) == 0
    assert sympy.simplify(sympy.exp(eps_local) / n - eps**2 / (80 * a)) == 0
    # the sum bound for ε ≤ 1, a = ln(4/δ) ≥ ln 4: 1/√80 + 1/(80 ln 4) < 1/8, exactly
    gap = sympy.Rational(1, 8) - 1 / sympy.sqrt(80) - 1 / (80 * sympy.log(4))
    assert gap.evalf(60) > sympy.Float("0.004", 60)


def test_lemma_G5_precondition_holds_iff_eps_squared_at_most_5_ln4d_over_ln2d() -> None:
    """ε_L ≤ ln(n/(16 ln(2/δ))) ⇔ ε² ≤ 5·ln(4/δ)/ln(2/δ) (n cancels): > 5 for every δ < 1, so
    the lemma's ε ≤ 1 leaves room, and more users never repair a failure for larger ε."""
    eps, n, a, b = sympy.symbols("epsilon n a b", positive=True)
    lhs = sympy.log(eps**2 * n / (80 * a)) - sympy.log(n / (16 * b))
    assert sympy.simplify(sympy.expand_log(lhs, force=True) - sympy.log(eps**2 * b / (5 * a))) == 0
    with workdps():
        for delta in (1e-15, 1e-8, 0.5, 0.999):
            d = to_mpf(delta)
            assert 5 * mpmath.log(4 / d) / mpmath.log(2 / d) > 5


@given(ordered_pairs(local_epsilons), batch_sizes, g4_deltas)
def test_theorem_G4_bound_is_increasing_in_eps_local(eps_pair, n, delta) -> None:
    lo, hi = eps_pair
    with workdps():
        assert fmt_epsilon_mp(lo, n, delta) < fmt_epsilon_mp(hi, n, delta)
        assert fmt_epsilon_mp(lo, n, delta) > 0


@given(local_epsilons, ordered_pairs(batch_sizes), g4_deltas)
def test_theorem_G4_bound_is_decreasing_in_n_and_float_matches_mpmath(e_l, n_pair, delta) -> None:
    small, large = n_pair
    with workdps():
        assert fmt_epsilon_mp(e_l, large, delta) < fmt_epsilon_mp(e_l, small, delta)
        ref = fmt_epsilon_mp(e_l, small, delta)
        assert abs(fmt_epsilon(e_l, small, delta) - ref) <= 1e-12 * ref


def test_theorem_G4_formula_at_a_hand_computed_point() -> None:
    # ε_L = ln 3, n = 100, δ = 4e^{-3} (ln(4/δ) = 3): tanh(ε_L/2) = 1/2, sqrt term =
    # sqrt(3·3/100) = 3/10, linear term = 3/100, so ε = ln(1 + 8·(1/2)·(33/100)) = ln(2.32)
    with workdps():
        delta = 4 * mpmath.exp(-3)
        expected = mpmath.log(mpmath.mpf("2.32"))
        got = fmt_epsilon_mp(mpmath.log(3), 100, delta)
        assert abs(got - expected) < mpmath.mpf(10) ** -50


def g3_sample_size(alpha: float, eps: float, beta: float, B: int) -> int:
    """Thm G.3 (with 'n ≥', ``notes/aamand25.md`` erratum 3): n = bracket·log B·ln(log B/β),
    bracket of Lemma G.2; log B read as the number of rounds r = ⌈lg B⌉ (the proof's n' = n/log B per round)."""
    e = math.exp(eps)
    bracket = 2 * e / (alpha**2 * (e - 1) ** 2) + 2 * (e + 1) / (3 * alpha * (e - 1))
    r = search_rounds(B)
    return math.ceil(bracket * r * math.log(r / beta))


def test_theorem_G3_naive_nbs_succeeds_with_probability_at_least_1_minus_beta_at_its_n() -> None:
    """α = 0.1, ε = 1, β = 0.1, B = 64: n = 4878 (6 rounds of ~813 users). Three datasets
    (uniform, skewed, two-point), 400 seeded runs each; the one-sided 1 − 1e-7 Clopper–Pearson
    lower bound of the success rate must reach 1 − β. The theorem only accounts for the RR noise
    of each batch (Lemma G.2), not for the batch-vs-population sampling error (Lemma 3.1); at this
    n the latter is small, and the simulation covers both."""
    alpha, eps, beta, B, runs = 0.1, 1.0, 0.1, 64, 400
    n = g3_sample_size(alpha, eps, beta, B)
    assert n == 4878  # bracket 198.557 (by hand) × 6 rounds × ln(60)
    rng = np.random.default_rng(20250131)
    datasets = {
        "uniform": rng.integers(1, B, size=n),
        "skewed": np.minimum(rng.geometric(0.08, size=n), B - 1),
        "two-point": np.where(rng.random(n) < 0.5, 20, 40),
    }
    for name, users in datasets.items():
        ordered = np.sort(users)
        wins = 0
        for _ in range(runs):
            m = dp_naive_nbs(users, B, eps, rng)
            f_m, f_next = np.searchsorted(ordered, [m, m + 1], side="right") / n
            wins += bool(f_m < 0.5 + alpha and f_next > 0.5 - alpha)
        lower, _ = clopper_pearson(wins, runs, 2e-7)
        assert lower >= 1 - beta, (name, wins)
