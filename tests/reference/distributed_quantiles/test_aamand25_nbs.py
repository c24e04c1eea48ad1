"""aamand25: DpNaiveNBS (App. I), shuffle amplification (App. G) and the shuffle search (App. I.3).

Statistical tests are seeded; each states the bound on its failure probability for a correct
implementation. The n = 10^7 runs of Fig. 4 belong to the reproduction, not here.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpquant.reference.distributed_quantiles import amplification
from dpquant.reference.distributed_quantiles.naive_nbs import (
    batch_schedule,
    debiased_estimate,
    dp_naive_nbs,
    search_rounds,
)
from dpquant.reference.distributed_quantiles.shuffle_search import shuffle_nbs
from dpquant.reference.distributed_quantiles.users import (
    UserStream,
    is_approximate_quantile,
    quantile_error,
)
from dpquant.reference.exact.mp import workdps

GRID = np.geomspace(0.1, 5, 10)  # the experiments' ε grid (Sec. 5, App. I)
DELTA = 1e-8
N_FIG4, B_FIG4 = 10**7, 4**8  # Fig. 4: batches of 10^7/16 = 625000 users


def gap_data(rng, n: int, B: int, m: int) -> np.ndarray:
    """40% of the users uniform on [1, m], 20% at m + 1, 40% uniform on [m + 2, B]: the exact
    median coin is m, with F(m) = 0.4 and F(m + 1) = 0.6 (a 0.1 margin on both sides)."""
    k_lo, k_mid = (2 * n) // 5, n // 5
    lo = rng.integers(1, m + 1, size=k_lo)
    mid = np.full(k_mid, m + 1)
    hi = rng.integers(m + 2, B + 1, size=n - k_lo - k_mid)
    return np.concatenate([lo, mid, hi])


def hoeffding_two_sided(n: int, t: float) -> float:
    """Hoeffding (also valid for sampling without replacement): P(|mean − E| >= t) <= 2e^{−2nt²}."""
    return 2.0 * math.exp(-2.0 * n * t * t)


def bernstein_rr(n: int, alpha: float, eps: float) -> float:
    """Lemma G.2 in the standard two-sided form (erratum 3): P(|p̂ − P| >= α) <= 2·exp(−n t²/
    (2σ² + 2t/3)), t = α·tanh(ε/2), σ² = e^ε/(e^ε + 1)² per fixed bit."""
    t = alpha * math.tanh(eps / 2.0)
    var = math.exp(eps) / (math.exp(eps) + 1.0) ** 2
    return 2.0 * math.exp(-n * t * t / (2.0 * var + 2.0 * t / 3.0))


# ------------------------------------------------------------------------------ batch schedule


@given(st.integers(min_value=1, max_value=10**7), st.integers(min_value=2, max_value=2**40))
def test_batch_schedule_has_ceil_lg_K_batches_of_b_or_b_plus_1_summing_to_n(n, K) -> None:
    r = 0
    while 2**r < K:  # the smallest r with 2^r >= K
        r += 1
    assert search_rounds(K) == r
    if n < r:
        with pytest.raises(ValueError, match="n too small for"):
            batch_schedule(n, K)
        return
    sizes = batch_schedule(n, K)
    b = n // r
    assert len(sizes) == r and sum(sizes) == n
    assert set(sizes) <= {b, b + 1}
    assert sizes == sorted(sizes, reverse=True)  # the b + 1 batches come first
    assert sizes.count(b + 1) == n - r * b


def test_batch_schedule_matches_app_i_batches() -> None:
    # App. I's split of n users into ⌈lg K⌉ batches: n = 2500, B = 4^8 → 16 batches of 156
    # (+4 remainder); B = 10^6 → 20 of 125
    assert batch_schedule(2500, 4**8) == [157] * 4 + [156] * 12
    assert batch_schedule(2500, 10**6) == [125] * 20
    assert batch_schedule(5, 1) == []


def test_debiased_estimate_is_equation_8() -> None:
    for eps in (0.1, 1.0, 5.0):
        for ones, size in ((0, 10), (3, 10), (10, 10), (517, 1000)):
            y = ones / size
            eq8 = (math.exp(eps) + 1) / (math.exp(eps) - 1) * (y - 1 / (math.exp(eps) + 1))
            assert debiased_estimate(ones, size, eps) == pytest.approx(eq8, rel=1e-12, abs=1e-12)


# ------------------------------------------------------------------------ deterministic regime


@pytest.mark.parametrize(("B", "m"), [(1024, 300), (1024, 1), (1000, 998), (4**8, 12345), (7, 3)])
def test_search_returns_the_exact_median_coin_at_huge_epsilon(B, m, rng) -> None:
    # ε = 30: a flip has probability 9.4e-14. Batches of n/r >= 2000 users; the batch CDF at any
    # coin is within 0.1 of F with probability >= 1 − 2e^{−40} per (round, coin side) by
    # Hoeffding, and F has a 0.1 margin around τ at the median coin m: the search is exact with
    # probability >= 1 − 16·2e^{−40} − 20000·1e-13 > 1 − 1e-8.
    users = gap_data(rng, 20_000 if B < 4**8 else 32_000, B, m)
    assert dp_naive_nbs(users, B, 30.0, rng) == m
    assert quantile_error(users, m, 0.5) == 0.0


def test_a_tie_at_tau_goes_right() -> None:
    # ε = 60: keep probability rounds to exactly 1.0, so p̂ = ȳ exactly. B = 2 has one batch
    # (both users) and queries coin 1 with F(1) = 1/2 = τ: a tie. Right ⇒ coin 2; left ⇒ coin 1.
    rng = np.random.default_rng(1)
    assert debiased_estimate(1, 2, 60.0) == 0.5
    assert dp_naive_nbs([1, 2], 2, 60.0, rng) == 2
    assert dp_naive_nbs([1, 2], 2, 60.0, rng, faithful=True) == 2
    # the same data with τ just below the tie goes left and ends at R = −1
    assert dp_naive_nbs([1, 2], 2, 60.0, rng, tau=0.49) == 1


def test_faithful_returns_the_largest_coin_when_every_answer_goes_left(rng) -> None:
    # All users at 1: every p̂ = 1 > τ, R ends at −1. The authors' coins[-1] gives B; the default
    # gives the smallest coin (the closest one to the answer, which lies left of the domain).
    B = 1024
    users = np.ones(5000, dtype=int)
    assert dp_naive_nbs(users, B, 30.0, rng) == 1
    assert dp_naive_nbs(users, B, 30.0, rng, faithful=True) == B
    # 60% at 1, 40% at B: coin 1 is a 0.15-approximate median, coin B is not. Batches of 2000:
    # a batch's share of 1s drops to 0.5 with probability <= 2e^{−2·2000·0.01} = 8e-18 (Hoeffding)
    users = np.concatenate([np.ones(12_000, dtype=int), np.full(8000, B)])
    default = dp_naive_nbs(users, B, 30.0, rng)
    authors = dp_naive_nbs(users, B, 30.0, rng, faithful=True)
    assert (default, authors) == (1, B)
    assert is_approximate_quantile(users, default, 0.5, 0.15)
    assert not is_approximate_quantile(users, authors, 0.5, 0.15)
    assert quantile_error(users, default, 0.5) < quantile_error(users, authors, 0.5)


def test_search_returns_the_untested_top_coin_when_every_answer_goes_right(rng) -> None:
    # Documented limitation (notes): for K a power of two the all-right path needs lg K + 1
    # comparisons but only lg K batches exist, so coin K is returned without a test. Over [B] that
    # is coin B (F(B) = 1), wrong when F(B − 1) <= τ. With B = 1000 (not a power of 2) it is fine.
    users = np.concatenate([np.full(4000, 1023), np.full(6000, 1024)])
    assert dp_naive_nbs(users, 1024, 30.0, rng) == 1024
    assert not is_approximate_quantile(users, 1024, 0.5, 0.05)
    users = np.concatenate([np.full(4000, 999), np.full(6000, 1000)])
    assert dp_naive_nbs(users, 1000, 30.0, rng) == 999


def test_search_over_a_subset_of_coins_returns_the_last_coin_with_cdf_at_most_tau(rng) -> None:
    B = 10_000
    coins = np.arange(37, B, 97)  # K = 103 coins, r = 7 batches
    users = gap_data(rng, 30_000, B, 5000)  # F <= 0.4 up to 5000, F >= 0.6 from 5001
    expected = int(coins[coins <= 5000][-1])
    got = dp_naive_nbs(users, B, 30.0, rng, coins=coins)
    assert got == expected and got in set(coins.tolist())
    assert dp_naive_nbs(users, B, 30.0, rng, coins=[4000, 6000, 8000]) == 4000


def test_search_takes_exactly_the_remaining_users_of_a_given_stream(rng) -> None:
    users = gap_data(rng, 25_000, 1000, 600)
    stream = UserStream(users, rng)
    stream.take(1234, "earlier stage")
    rest = stream.order[1234:].copy()
    m = dp_naive_nbs(None, 1000, 30.0, rng, stream=stream)
    assert stream.remaining == 0 and stream.used == users.size
    assert m == 600 and is_approximate_quantile(rest, m, 0.5, 0.05)
    # K = 1: nothing to ask, nobody consumed
    stream = UserStream(users, rng)
    assert dp_naive_nbs(None, 1000, 1.0, rng, coins=[17], stream=stream) == 17
    assert stream.used == 0
    # fewer remaining users than rounds: refused
    stream = UserStream(users[:20], rng)
    stream.take(15)
    with pytest.raises(ValueError, match="n too small for DpNaiveNBS"):
        dp_naive_nbs(None, 1000, 1.0, rng, stream=stream)


def test_single_coin_is_returned_without_a_query(rng) -> None:
    assert dp_naive_nbs([1, 2, 3], 10, 1.0, rng, coins=[4]) == 4
    assert shuffle_nbs([1, 2, 3], 10, 1.0, 1e-6, rng, coins=[9]) == 9


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(users=[]), "non-empty"),
        (dict(users=[0, 1, 2]), r"\[1, 16\]"),
        (dict(users=[1, 17]), r"\[1, 16\]"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=-1.0), "epsilon"),
        (dict(B=1), "B must be an integer >= 2"),
        (dict(users=[1, 2, 3]), "n too small for DpNaiveNBS"),
        (dict(coins=[3, 2]), "strictly increasing"),
        (dict(coins=[0, 2]), "coins must lie in"),
        (dict(coins=[]), "coins must be"),
        (dict(tau=1.0), "tau"),
        (dict(rng=0), "rng"),
    ],
)
def test_dp_naive_nbs_rejects_bad_input(kwargs, match) -> None:
    args = dict(users=list(range(1, 17)) * 3, B=16, epsilon=1.0, rng=np.random.default_rng(0))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        dp_naive_nbs(args.pop("users"), args.pop("B"), args.pop("epsilon"), args.pop("rng"), **args)


# ---------------------------------------------------------------------------- seeded accuracy


def test_dp_naive_nbs_finds_an_alpha_approximate_quantile_with_the_lemma_g2_failure_bound() -> None:
    """ε = 1, B = 2^10, n = 2·10^5, τ = 0.3 (debiasing matters), α = 0.05, 100 runs.

    One run fails only if some round's estimate is >= α off F at its coin. Split α = 0.02 + 0.03:
    the batch CDF (a uniform subset of >= 20000 users; the data has s support points, so every
    coin's batch CDF is one of s values) is 0.02-off with probability <= s·r·2e^{−2·20000·0.02²}
    (Hoeffding), and the debiased RR mean is 0.03-off its batch CDF with probability <=
    r·Lemma G.2 (two-sided Bernstein). That gives p_fail <= 1.6e-3 per run; the allowed number of
    failures k keeps P[Binomial(100, p_fail) > k] < 1e-7.
    """
    rng = np.random.default_rng(5151)
    B, n, eps, tau, alpha, runs = 2**10, 200_000, 1.0, 0.3, 0.05, 100
    support = np.sort(rng.choice(np.arange(2, B), size=40, replace=False))
    users = rng.choice(support, size=n, p=rng.dirichlet(np.ones(support.size)))
    r, n_min = search_rounds(B), min(batch_schedule(n, B))
    p_fail = support.size * r * hoeffding_two_sided(n_min, 0.02) + r * bernstein_rr(
        n_min, 0.03, eps
    )
    assert p_fail < 2e-3
    k_allowed = int(stats.binom.isf(1e-7, runs, p_fail))
    assert k_allowed <= 7
    ordered = np.sort(users)
    failures = 0
    for _ in range(runs):
        m = dp_naive_nbs(users, B, eps, rng, tau=tau)
        f_m, f_next = np.searchsorted(ordered, [m, m + 1], side="right") / n
        failures += not (f_m < tau + alpha and f_next > tau - alpha)
    assert failures <= k_allowed


# -------------------------------------------------------------------- amplification (App. G)


# Fig. 4's setting: ε, ε_RR paper, ε_RR code, FMT ε' (paper), FMT ε' (code) on a 625000-user batch
FMT_TABLE = [
    (GRID[0], 1.3723, 1.7388, 0.0519, 0.0727),
    (GRID[4], 4.8496, 5.2161, 0.4072, 0.4744),
    (GRID[6], 6.5883, 6.9548, 0.7974, 0.9037),  # 0.797445…, not a double-rounded 0.7975
    (GRID[7], 7.4576, 7.8242, 1.0629, 1.1885),
]


@pytest.mark.parametrize(("eps", "paper", "code", "fmt_paper", "fmt_code"), FMT_TABLE)
def test_table_of_shuffle_local_epsilons_and_their_fmt_epsilons(
    eps, paper, code, fmt_paper, fmt_code
) -> None:
    e_paper = amplification.local_epsilon_paper(
        eps, N_FIG4, B_FIG4, DELTA, require_precondition=False
    )
    e_code = amplification.local_epsilon_authors(
        eps, N_FIG4, B_FIG4, DELTA, require_precondition=False
    )
    assert round(e_paper, 4) == paper and round(e_code, 4) == code
    assert round(e_code - e_paper, 4) == 0.3665  # n/ln K against n/⌈lg K⌉: 0.3665 higher
    batch = N_FIG4 // 16
    assert batch == 625_000
    assert round(amplification.fmt_epsilon(e_paper, batch, DELTA), 4) == fmt_paper
    assert round(amplification.fmt_epsilon(e_code, batch, DELTA), 4) == fmt_code
    # every ε' in the table is below its ε: the bound holds (when the precondition does)
    assert amplification.fmt_epsilon(e_code, batch, DELTA) < eps
    with workdps():
        assert (
            abs(
                amplification.fmt_epsilon_mp(e_code, batch, DELTA)
                - amplification.fmt_epsilon(e_code, batch, DELTA)
            )
            < 1e-13
        )


def test_fmt_entry_at_1_357_is_0_79744_not_0_7975() -> None:
    # the exact value rounds to 0.7974 (``notes/aamand25.md`` erratum 6)
    e_paper = amplification.local_epsilon_paper(GRID[6], N_FIG4, B_FIG4, DELTA)
    with workdps():
        value = amplification.fmt_epsilon_mp(e_paper, N_FIG4 // 16, DELTA)
        assert mpmath.mpf("0.797445") < value < mpmath.mpf("0.7974455")


def test_fmt_precondition_fails_from_2_096_for_the_code_and_3_237_for_the_paper_formula() -> None:
    batch = N_FIG4 // 16
    for i, eps in enumerate(GRID):
        e_paper = amplification.local_epsilon_paper(
            eps, N_FIG4, B_FIG4, DELTA, require_precondition=False
        )
        e_code = amplification.local_epsilon_authors(
            eps, N_FIG4, B_FIG4, DELTA, require_precondition=False
        )
        # fails from 3.237 = GRID[8]
        assert amplification.fmt_precondition(e_paper, batch, DELTA) == (i < 8)
        # fails from 2.096 = GRID[7]
        assert amplification.fmt_precondition(e_code, batch, DELTA) == (i < 7)
    with pytest.raises(ValueError, match="FMT precondition fails for the authors rule"):
        amplification.local_epsilon_authors(GRID[7], N_FIG4, B_FIG4, DELTA)
    with pytest.raises(ValueError, match="FMT precondition fails for the paper rule"):
        amplification.local_epsilon_paper(GRID[8], N_FIG4, B_FIG4, DELTA)
    assert amplification.local_epsilon_paper(GRID[7], N_FIG4, B_FIG4, DELTA) == pytest.approx(
        7.4576, abs=5e-5
    )


def test_claim_7_user_thresholds_are_2_535e6_7_83e4_1_376e4_and_the_paper_2_5e7_is_a_typo() -> None:
    thresholds = [
        amplification.notebook_min_users(e, B_FIG4, DELTA) for e in (GRID[0], GRID[4], GRID[6])
    ]
    assert [float(f"{t:.4g}") for t in thresholds] == [2.535e6, 7.831e4, 1.376e4]
    assert thresholds[0] < 2.5e7 / 9  # the printed 2.5·10^7 is ten times too large
    # at the literal ε = 0.5 and 1 the formula gives 1.01e5 and 2.53e4, not 7.8e4 and 1.3e4
    assert round(amplification.notebook_min_users(0.5, B_FIG4, DELTA), -3) == 101_000
    assert round(amplification.notebook_min_users(1.0, B_FIG4, DELTA), -2) == 25_400
    # the threshold is where the paper's ε_RR turns positive
    for eps, t in zip((GRID[0], GRID[4], GRID[6]), thresholds, strict=True):
        assert amplification.local_epsilon_paper(eps, math.ceil(t), B_FIG4, DELTA) > 0
        with pytest.raises(ValueError, match=r"<= 0.*needs n >= "):
            amplification.local_epsilon_paper(eps, math.floor(0.99 * t), B_FIG4, DELTA)


@given(
    st.floats(min_value=0.01, max_value=2.2),
    st.integers(min_value=10**4, max_value=10**9),
    st.floats(min_value=1e-12, max_value=0.5),
)
def test_inverted_local_epsilon_dominates_lemma_g5_and_meets_the_fmt_bound_at_50_digits(
    eps, n_batch, delta
) -> None:
    inverted = amplification.local_epsilon_inverted(eps, n_batch, delta)
    with workdps():
        assert amplification.fmt_epsilon_mp(inverted, n_batch, delta) <= mpmath.mpf(eps)
    assert amplification.fmt_precondition(inverted, n_batch, delta)
    try:
        g5 = amplification.local_epsilon_lemma_g5(eps, n_batch, delta)
    except ValueError:
        return  # the lemma refuses (ε_L <= 0); the inverted rule still gives a positive budget
    assert inverted >= g5


def test_inverted_local_epsilon_is_the_largest_allowed() -> None:
    # one ulp above it, either the precondition or the bound fails (checked at 50+ digits)
    for eps in (0.1, GRID[4], 1.0, GRID[7]):
        e = amplification.local_epsilon_inverted(eps, 625_000, DELTA)
        up = math.nextafter(e, math.inf) * (1 + 1e-12)
        with workdps():
            over = amplification.fmt_epsilon_mp(up, 625_000, DELTA) > mpmath.mpf(eps)
        assert over or not amplification.fmt_precondition(up, 625_000, DELTA)


def test_fmt_epsilon_float_matches_mpmath_and_never_overflows() -> None:
    with workdps():
        for e_l, n in ((1e-6, 10), (0.5, 1000), (7.8, 625_000), (30.0, 10**12)):
            ref = amplification.fmt_epsilon_mp(e_l, n, DELTA)
            assert abs(amplification.fmt_epsilon(e_l, n, DELTA) - ref) <= 1e-12 * ref
    big = amplification.fmt_epsilon(800.0, 1000, DELTA)
    assert math.isfinite(big) and big == pytest.approx(800.0 - math.log(1000) + math.log(8), 1e-9)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: amplification.fmt_epsilon(0.0, 10, DELTA), "eps_local"),
        (lambda: amplification.fmt_epsilon(1.0, 0, DELTA), "n must be"),
        (lambda: amplification.fmt_epsilon(1.0, 10, 0.0), "delta"),
        (lambda: amplification.fmt_epsilon(1.0, 10, 1.0), "delta"),
        (lambda: amplification.local_epsilon_lemma_g5(0.0, 10**6, DELTA), "epsilon"),
        (lambda: amplification.local_epsilon_lemma_g5(1.0, 10**6, 1.5), "delta"),
        (lambda: amplification.local_epsilon_lemma_g5(1.0, 0, DELTA), "n_batch"),
        (
            lambda: amplification.local_epsilon_lemma_g5(0.1, 1000, DELTA),
            r"<= 0.*n_batch >= 158456",
        ),
        (
            lambda: amplification.local_epsilon_lemma_g5(3.0, 10**8, DELTA),
            "precondition.*epsilon <= 2.276",
        ),
        (
            lambda: amplification.local_epsilon_inverted(1.0, 300, DELTA),
            "precondition.*n_batch >= 306",
        ),
        (lambda: amplification.local_epsilon_paper(1.0, 10, 4**8, DELTA), "n too small"),
        (lambda: amplification.local_epsilon_authors(1.0, 10**6, 1, DELTA), "K must be"),
        (
            lambda: amplification.shuffle_local_epsilon(1.0, DELTA, 10**6, 4**8, "nope"),
            "rule must be",
        ),
        (
            lambda: amplification.shuffle_local_epsilon(0.1, DELTA, 10**4, 4**8),
            r"n >= 2535296 in total",
        ),
    ],
)
def test_amplification_rejects_bad_input_with_a_clear_message(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_shuffle_local_epsilon_uses_the_smallest_batch() -> None:
    n = 16 * 100_000 + 15  # fifteen batches of 100001, one of 100000
    assert batch_schedule(n, 4**8)[-1] == 100_000
    assert amplification.shuffle_local_epsilon(
        1.0, DELTA, n, 4**8
    ) == amplification.local_epsilon_lemma_g5(1.0, 100_000, DELTA)
    assert amplification.shuffle_local_epsilon(
        1.0, DELTA, n, 4**8, "inverted"
    ) == amplification.local_epsilon_inverted(1.0, 100_000, DELTA)
    assert amplification.shuffle_local_epsilon(
        1.0, DELTA, n, 4**8, "paper"
    ) == amplification.local_epsilon_paper(1.0, n, 4**8, DELTA)
    assert amplification.shuffle_local_epsilon(
        1.0, DELTA, n, 4**8, "authors"
    ) == amplification.local_epsilon_authors(1.0, n, 4**8, DELTA)


@given(
    st.floats(min_value=0.05, max_value=5.0),
    st.integers(min_value=10**4, max_value=10**9),
    st.integers(min_value=2, max_value=2**32),
    st.floats(min_value=1e-12, max_value=0.1),
    st.sampled_from(["lemma_g5", "paper", "authors", "inverted"]),
)
def test_every_accepted_local_epsilon_is_eps_delta_private_on_every_batch(
    eps, n, K, delta, rule
) -> None:
    """Whatever rule, an accepted ε_L meets the precondition and the Thm G.4 bound ≤ ε on the
    smallest batch ⌊n/r⌋ (and hence on the larger ones, the bound decreasing in n)."""
    try:
        e_l = amplification.shuffle_local_epsilon(eps, delta, n, K, rule)
    except ValueError as err:
        assert "<= 0" in str(err) or "precondition" in str(err) or "too small" in str(err)
        return
    m = n // search_rounds(K)
    assert e_l > 0 and amplification.fmt_precondition(e_l, m, delta)
    with workdps():
        assert amplification.fmt_epsilon_mp(e_l, m, delta) <= mpmath.mpf(eps)
        assert amplification.fmt_epsilon_mp(e_l, m + 1, delta) <= amplification.fmt_epsilon_mp(
            e_l, m, delta
        )


# ------------------------------------------------------------------------ the shuffle search


def test_shuffle_nbs_is_dp_naive_nbs_run_at_the_amplified_local_epsilon() -> None:
    users = gap_data(np.random.default_rng(3), 200_000, 4**8, 20_000)
    for rule in ("lemma_g5", "inverted", "paper", "authors"):
        e_l = amplification.shuffle_local_epsilon(1.0, DELTA, users.size, 4**8, rule)
        a = shuffle_nbs(users, 4**8, 1.0, DELTA, np.random.default_rng(9), local_epsilon=rule)
        b = dp_naive_nbs(users, 4**8, e_l, np.random.default_rng(9))
        assert a == b


@pytest.mark.parametrize(
    ("eps", "rule", "match"),
    [
        (GRID[7], "authors", "FMT precondition fails for the authors rule"),
        (GRID[8], "paper", "FMT precondition fails for the paper rule"),
        (3.0, "lemma_g5", "FMT precondition fails for the lemma_g5 rule"),
        (0.1, "lemma_g5", r"<= 0.*n >= \d+ in total"),
        (0.01, "paper", r"<= 0.*needs n >= "),
    ],
)
def test_shuffle_nbs_refuses_where_the_local_epsilon_is_unusable(eps, rule, match) -> None:
    users = np.random.default_rng(2).integers(1, 4**8 + 1, size=20_000)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=match):
        shuffle_nbs(users, 4**8, eps, DELTA, rng, local_epsilon=rule)
    with pytest.raises(ValueError, match="delta"):
        shuffle_nbs(users, 4**8, 1.0, 0.0, rng)
    with pytest.raises(ValueError, match="local_epsilon must be one of"):
        shuffle_nbs(users, 4**8, 1.0, DELTA, rng, local_epsilon="code")


def test_shuffle_nbs_smoke_accuracy_at_a_million_users() -> None:
    """n = 10^6 Lomax(1.5, 2000) users (the paper's Pareto data, 1-based), B = 4^8, ε = 1.

    Batches of 62500; ε_L = 3.67 (Lemma G.5). α = 0.025 = 0.018 (batch sampling, union over the
    distinct values) + 0.007 (RR, Lemma G.2), failure bound asserted below 1e-6.
    """
    rng = np.random.default_rng(77)
    B, n = 4**8, 10**6
    users = (np.clip(np.round(2000 * rng.pareto(1.5, n)), 0, B - 1) + 1).astype(np.int64)
    e_l = amplification.shuffle_local_epsilon(1.0, DELTA, n, B)
    n_min, r = n // 16, 16
    p_fail = np.unique(users).size * r * hoeffding_two_sided(n_min, 0.018) + r * bernstein_rr(
        n_min, 0.007, e_l
    )
    assert p_fail < 1e-6
    m = shuffle_nbs(users, B, 1.0, DELTA, rng)
    assert is_approximate_quantile(users, m, 0.5, 0.025)
