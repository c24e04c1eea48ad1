"""imola25's multi-quantile baselines: zCDP conversions, KSS ApproximateQuantiles, JointExp.

Reference numbers: notes/imola25.md, "Reference values". Exact oracles: mpmath at the
project precision (brute-force enumeration of JointExp's interval sequences, the exact law of
:class:`ExponentialQuantile` for every EM call of AQ). Statistical tests are seeded and use the
conformance tests of :mod:`dpquant.reference.conformance` at level α = 1e-7 each (Bonferroni inside), so a
correct sampler fails any one of them with probability <= 1e-7.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpquant.audit import audit_mechanism
from dpquant.reference.conformance import atom_test, check_sampler, dkw_test
from dpquant.reference.distributions import renyi_divergence
from dpquant.reference.exact.mp import logsumexp, to_mpf, workdps
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.slice_quantiles.aq_mechanism import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
)
from dpquant.reference.slice_quantiles.aq_recursion import (
    aq_plan,
    composition_count,
    em_sensitivity,
    layers_count,
    max_em_calls_per_point,
    per_em_epsilon,
    recursion_depth,
)
from dpquant.reference.slice_quantiles.joint_exp_forward import (
    decayed_prefix_lse,
    decayed_window_lse,
    forward,
    kernel_convolution,
)
from dpquant.reference.slice_quantiles.joint_exp_mechanism import (
    JointExpMechanism,
    joint_exp,
    joint_exp_sensitivity,
)
from dpquant.reference.slice_quantiles.joint_exp_sampler import (
    acceptance_log_probability,
    path_log_probability,
    sample_intervals,
)
from dpquant.reference.slice_quantiles.subset_em import em_by_blocks, subset_em_sample
from dpquant.reference.slice_quantiles.zcdp import (
    em_zcdp_rho,
    epsilon_from_rho,
    epsilon_from_rho_mp,
    rho_from_epsilon,
)

ALPHA = 1e-7
DELTA = 1e-16
RHO_1 = 0.0070552  # ε = 1, δ = 1e-16, "cks" form (notes/imola25.md, "Reference values")


# ============================================================================================
# zCDP ↔ (ε, δ)  (Sec. 6: the largest ρ giving (ε, δ)-DP)
# ============================================================================================


@pytest.mark.parametrize("epsilon, rho", [(0.5, 0.0018113), (1.0, 0.0070552), (5.0, 0.1604265)])
def test_largest_rho_for_epsilon_under_the_cks_conversion(epsilon, rho) -> None:
    assert rho_from_epsilon(epsilon, DELTA) == pytest.approx(rho, abs=5e-8)


def test_bun_steinke_conversion_gives_a_smaller_rho_at_epsilon_1() -> None:
    assert rho_from_epsilon(1.0, DELTA, form="bs16") == pytest.approx(0.0066953, abs=5e-8)
    assert rho_from_epsilon(1.0, DELTA, form="bs16") < rho_from_epsilon(1.0, DELTA)


def test_authors_rho_0_007055178_spends_epsilon_1() -> None:
    assert epsilon_from_rho(0.007055178, DELTA) == pytest.approx(1.0, abs=1e-7)


@pytest.mark.parametrize("form", ["cks", "bs16"])
@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-16), (1.0, 1e-6), (3.0, 0.01), (0.01, 0.3)])
def test_rho_from_epsilon_is_the_largest_double_within_the_budget(form, epsilon, delta) -> None:
    rho = rho_from_epsilon(epsilon, delta, form)
    with workdps():
        assert epsilon_from_rho_mp(rho, delta, form) <= to_mpf(epsilon)
        assert epsilon_from_rho_mp(math.nextafter(rho, 1.0), delta, form) > to_mpf(epsilon)


@pytest.mark.parametrize("rho", [1e-6, 1e-3, 0.05, 0.3])
def test_cks_conversion_is_tighter_than_bun_steinke_below_rho_one_over_pi(rho) -> None:
    assert epsilon_from_rho(rho, 1e-10) < epsilon_from_rho(rho, 1e-10, form="bs16")


def test_cks_logarithm_is_clipped_where_sqrt_pi_rho_is_below_delta() -> None:
    """ρ <= δ²/π: the printed ln(sqrt(πρ)/δ) is negative; the bound then holds with ε = ρ."""
    rho = 0.5 * 0.01**2 / math.pi
    assert epsilon_from_rho(rho, 0.01) == pytest.approx(rho, rel=1e-15)
    assert epsilon_from_rho(4 * rho, 0.01) > 4 * rho


def test_em_is_epsilon_squared_over_8_zcdp_and_aq_spends_exactly_rho() -> None:
    """The fork (notes/imola25.md erratum 27): comp EM calls at ε' = sqrt(8ρ/comp) spend comp·ε'²/8 = ρ; the original KSS
    constant sqrt(2ρ/comp) spends only ρ/4."""
    assert em_zcdp_rho(0.4) == pytest.approx(0.02, rel=1e-15)
    for m in (10, 100, 200):
        for adjacency in ("add_remove", "replace_one"):
            comp = composition_count(m, adjacency)
            fork = per_em_epsilon(m, adjacency, "zcdp", rho=RHO_1)
            kss = per_em_epsilon(m, adjacency, "zcdp", rho=RHO_1, kss_original_constant=True)
            assert comp * em_zcdp_rho(fork) == pytest.approx(RHO_1, rel=1e-12)
            assert comp * em_zcdp_rho(kss) == pytest.approx(RHO_1 / 4, rel=1e-12)
            assert fork == pytest.approx(2 * kss, rel=1e-14)


@pytest.mark.parametrize(
    "call",
    [
        lambda: rho_from_epsilon(0.0, 1e-6),
        lambda: rho_from_epsilon(-1.0, 1e-6),
        lambda: rho_from_epsilon(math.inf, 1e-6),
        lambda: rho_from_epsilon(1.0, 0.0),
        lambda: rho_from_epsilon(1.0, 1.0),
        lambda: rho_from_epsilon(1.0, -1e-3),
        lambda: rho_from_epsilon(1.0, math.nan),
        lambda: rho_from_epsilon(1.0, 1e-6, form="rdp"),
        lambda: epsilon_from_rho(0.0, 1e-6),
        lambda: epsilon_from_rho(-0.1, 1e-6),
        lambda: epsilon_from_rho(0.1, 0.0),
        lambda: em_zcdp_rho(0.0),
    ],
)
def test_zcdp_conversions_reject_out_of_range_parameters(call) -> None:
    with pytest.raises(ValueError):
        call()


# ============================================================================================
# ApproximateQuantiles (the paper's [14], as in the authors' fork)
# ============================================================================================

REF_PER_EM = {  # m: (pure A/R, pure sub, zCDP A/R, zCDP sub), ε = 1, ρ = 0.0070552
    10: (0.2314, 0.1157, 0.1143, 0.0808),
    100: (0.1308, 0.0654, 0.0859, 0.0608),
    200: (0.1157, 0.0578, 0.0808, 0.0571),
}


@pytest.mark.parametrize("m", sorted(REF_PER_EM))
def test_aq_per_em_epsilon_reference_table(m) -> None:
    got = (
        per_em_epsilon(m, "add_remove", "pure", epsilon=1.0),
        per_em_epsilon(m, "replace_one", "pure", epsilon=1.0),
        per_em_epsilon(m, "add_remove", "zcdp", rho=RHO_1),
        per_em_epsilon(m, "replace_one", "zcdp", rho=RHO_1),
    )
    assert got == pytest.approx(REF_PER_EM[m], abs=5e-5)
    mech = ApproximateQuantilesMechanism(
        tuple((np.arange(1, m + 1) / (m + 1)).tolist()), 1.0, (0, 100), mode="zcdp", delta=DELTA
    )
    assert mech.epsilon_per_call == pytest.approx(REF_PER_EM[m][3], abs=5e-5)


def _literal_aq(x, qs, bounds, eps, rng, counts, idx):
    """The AQ recursion of the authors' fork (`approximate_quantiles_algo`) transcribed literally
    (one release), counting for every data point the EM calls whose subset holds it."""
    if len(qs) == 0:
        return []
    counts[idx] += 1
    mid = len(qs) // 2
    q = qs[mid]
    em = ExponentialQuantile(q, eps, bounds, adjacency="add_remove")
    v = float(em.exact(x).sample(1, rng)[0])
    if len(qs) == 1:
        return [v]
    low, up = x <= v, x >= v
    left = _literal_aq(x[low], qs[:mid] / q, (bounds[0], v), eps, rng, counts, idx[low])
    right = _literal_aq(
        x[up], (qs[mid + 1 :] - q) / (1 - q), (v, bounds[1]), eps, rng, counts, idx[up]
    )
    return left + [v] + right


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 13, 31, 32, 33])
def test_layers_bound_the_em_calls_any_point_takes_part_in(m) -> None:
    """Instrumented literal recursion: the most EM calls one point meets is ⌊log₂ m⌋ + 1; all
    three layer rules are >= it, 'depth' equals it, 'authors' (log₂m + 1) exceeds it unless m is
    a power of two — so all are valid and 'depth' is the tight one."""
    rng = np.random.default_rng(m)
    x = np.sort(rng.uniform(0, 1, 400))
    qs = np.arange(1, m + 1) / (m + 1)
    counts = np.zeros(x.size, dtype=int)
    out = _literal_aq(x, qs, (0.0, 1.0), 5.0, rng, counts, np.arange(x.size))
    assert np.all(np.diff(out) >= 0)
    assert counts.max() == recursion_depth(m) == m.bit_length()
    assert max_em_calls_per_point(qs) == recursion_depth(m)
    for rule in ("authors", "ceil", "depth"):
        assert layers_count(m, rule) >= counts.max()
    assert layers_count(m, "depth") == counts.max()
    assert (layers_count(m, "authors") > counts.max()) == (m & (m - 1) != 0)


def test_plan_follows_the_forks_split_of_the_quantiles() -> None:
    """Middle q* = Q[⌊m/2⌋]; left Q[:mid]/q*, right (Q[mid+1:] − q*)/(1 − q*); pre-order."""
    plan = aq_plan([0.1, 0.2, 0.5, 0.6])
    assert [n.index for n in plan.order] == [2, 1, 0, 3]
    assert [n.q for n in plan.order] == pytest.approx([0.5, 0.4, 0.5, 0.2])
    assert [n.depth for n in plan.order] == [1, 2, 3, 2]


def _tiny_data():
    return np.array([0.05, 0.2, 0.2, 0.35, 0.6, 0.61, 0.9])


@pytest.mark.parametrize("method", ["blocks", "linear"])
def test_subset_em_fast_single_draw_conforms_to_exponential_quantile(method) -> None:
    """The one-release paths (rejection from blocks; linear-space weights, no exp per
    interval) on a sub-range with inner bounds, against ExponentialQuantile's exact law (DKW,
    α = 1e-7)."""
    x = _tiny_data()
    gaps = np.diff(x)
    q, eps, lo, hi = 0.4, 2.5, 0.1, 0.8
    sub = x[1:6]  # subset x[1:6] ⊂ (0.1, 0.8)
    rng = np.random.default_rng(11)
    one = np.array([1]), np.array([6]), np.array([lo]), np.array([hi])
    draws = np.array(
        [
            subset_em_sample(x, gaps, *one, q, eps, em_sensitivity(q), rng, method)[0]
            for _ in range(10_000)
        ]
    )
    law = ExponentialQuantile(q, eps, (lo, hi), adjacency="add_remove").exact(sub)
    check_sampler(law, draws, ALPHA).assert_ok()


@pytest.mark.parametrize(("eps", "ties"), [(0.05, False), (0.4, False), (0.05, True)])
def test_subset_em_by_rejection_from_blocks_conforms_on_long_subsets(eps, ties) -> None:
    """Blocks of 1/scale intervals (12 and 1–2 here; with ties many intervals of length 0): the
    rejection draws on a 260-point subset with inner bounds, 20 000 rows in one call, follow
    ExponentialQuantile's exact law (DKW, α = 1e-7)."""
    rng = np.random.default_rng(21)
    x = np.sort(rng.uniform(0.0, 1.0, 300))
    if ties:
        x = np.sort(np.round(x, 1))
    start, stop, q, n = 20, 280, 0.3, 20_000
    lo, hi = float(x[start]) - 0.01, float(x[stop - 1]) + 0.01
    scale = eps / (2 * em_sensitivity(q))
    rows = [np.full(n, v) for v in (start, stop - start)]
    draws = em_by_blocks(x, *rows, *(np.full(n, v) for v in (lo, hi, q, scale)), rng)
    law = ExponentialQuantile(q, eps, (lo, hi), adjacency="add_remove").exact(x[start:stop])
    check_sampler(law, draws, ALPHA).assert_ok()


def test_blocks_em_draws_rows_of_different_subsets_each_from_its_own_law() -> None:
    """One call with two kinds of rows interleaved (other subset, range, q and ε, as the calls
    of one depth of AQ): each kind follows its own exact law (DKW, α = 1e-7 each)."""
    x = np.sort(np.random.default_rng(22).uniform(0.0, 1.0, 400))
    kinds = [(10, 150, 0.0, 0.5, 0.25, 0.08), (200, 390, 0.45, 1.0, 0.7, 0.6)]
    n = 40_000
    pick = np.arange(n) % 2
    cols = [np.array([kind[c] for kind in kinds])[pick] for c in range(6)]
    start, stop, lo, hi, q, eps = cols
    scale = eps / (2 * np.maximum(q, 1 - q))
    draws = em_by_blocks(
        x, start.astype(np.int64), (stop - start).astype(np.int64), lo, hi, q, scale,
        np.random.default_rng(23),
    )  # fmt: skip
    for i, (s0, s1, l0, h0, q0, e0) in enumerate(kinds):
        law = ExponentialQuantile(q0, e0, (l0, h0), adjacency="add_remove").exact(x[s0:s1])
        check_sampler(law, draws[pick == i], ALPHA).assert_ok()


@pytest.mark.parametrize("em_method", ["blocks", "linear"])
def test_a_single_aq_release_conforms_to_its_recursion(em_method) -> None:
    """The single-release path, call by call, given the values released before it (the PIT
    test below, on 1 500 single releases of ``approximate_quantiles``)."""
    x = np.sort(np.random.default_rng(3).uniform(0.0, 1.0, 60))
    qs = (0.25, 0.5, 0.75)
    rng = np.random.default_rng(24)
    mech = ApproximateQuantilesMechanism(qs, 0.6, (0.0, 1.0), "add_remove")
    out = np.array(
        [
            approximate_quantiles(
                x, qs, (0.0, 1.0), 0.6, rng, adjacency="add_remove", em_method=em_method
            )
            for _ in range(1_500)
        ]
    )
    _assert_pit_uniform(x, out, mech.epsilon_per_call)


def test_subset_em_log_space_fallback_conforms_to_exponential_quantile() -> None:
    """Weights that underflow in linear space (ties around the target, huge ε) take the log
    path; the draws still follow ExponentialQuantile's exact law.

    The law is all but uniform on (0.1, 0.9) (the other intervals carry less than 1e-26), and
    each single draw walks the blocks (about 4 ms), so 2 000 draws: the DKW band's half-width at
    α = 1e-7 is then 0.065, below what a fault of the log path moves (a wrong interval or an
    underflow to lo moves mass 1; uniform on (0.1, 1) instead of (0.1, 0.9), 0.11)."""
    x = np.array([0.1] * 50 + [0.9])
    gaps = np.diff(x)
    q, eps = 0.5, 60.0
    rng = np.random.default_rng(12)
    one = np.array([0]), np.array([x.size]), np.array([0.0]), np.array([1.0])
    draws = np.array(
        [subset_em_sample(x, gaps, *one, q, eps, em_sensitivity(q), rng)[0] for _ in range(2_000)]
    )
    law = ExponentialQuantile(q, eps, (0.0, 1.0), adjacency="add_remove").exact(x)
    check_sampler(law, draws, ALPHA).assert_ok()


def test_subset_em_batch_conforms_to_exponential_quantile() -> None:
    x = _tiny_data()
    size = 100_000
    rng = np.random.default_rng(13)
    start, stop = np.full(size, 2), np.full(size, 7)
    lo, hi = np.full(size, 0.15), np.full(size, 1.0)
    q, eps = 0.75, 1.7
    draws = subset_em_sample(x, np.diff(x), start, stop, lo, hi, q, eps, em_sensitivity(q), rng)
    law = ExponentialQuantile(q, eps, (0.15, 1.0), adjacency="add_remove").exact(x[2:7])
    check_sampler(law, draws, ALPHA).assert_ok()


@pytest.mark.parametrize("adjacency", ["add_remove", "replace_one"])
def test_aq_release_conforms_to_its_recursion(adjacency) -> None:
    """Conditional probability-integral transform: every EM call of a vectorised release, given
    the values released before it, must follow ExponentialQuantile's exact law on AQ's
    subset and range (root on X in (a, b); left child on X[X <= v] in (a, v); right child on
    X[X >= v] in (v, b)). Each of the three PIT columns must be uniform (DKW at α/3)."""
    x = np.array([0.1, 0.15, 0.3, 0.42, 0.5, 0.51, 0.7, 0.95])
    qs = (0.25, 0.5, 0.75)
    mech = ApproximateQuantilesMechanism(qs, 3.0, (0.0, 1.0), adjacency)
    out = mech.sample(x, 1_500, np.random.default_rng(14))
    _assert_pit_uniform(x, out, mech.epsilon_per_call)


def _assert_pit_uniform(x: np.ndarray, out: np.ndarray, eps: float) -> None:
    """AQ on quantiles (1/4, 1/2, 3/4): each column of ``out``, transformed by the exact CDF of
    its EM call given the middle value v (root on X in (0, 1), left on X[X <= v] in (0, v),
    right on X[X >= v] in (v, 1)), is uniform (DKW at α/3 each)."""
    pit = np.empty_like(out)
    for s, (o0, v, o2) in enumerate(out):
        pit[s, 1] = ExponentialQuantile(0.5, eps, (0.0, 1.0), "add_remove").exact(x).cdf(v)
        left = ExponentialQuantile(0.5, eps, (0.0, v), "add_remove").exact(x[x <= v])
        right = ExponentialQuantile(0.5, eps, (v, 1.0), "add_remove").exact(x[x >= v])
        pit[s, 0], pit[s, 2] = left.cdf(o0), right.cdf(o2)
    for col in range(3):
        dkw_test(pit[:, col], lambda u: np.clip(u, 0, 1), ALPHA / 3).assert_ok()


def test_kss_original_constant_changes_the_root_law_by_the_factor_two() -> None:
    """The root column of AQ-zCDP follows EM(ε' = sqrt(8ρ/comp)) with the fork's constant and
    EM(ε'/2) with KSS's original sqrt(2ρ/comp); the two laws are far apart (sup-CDF gap 0.2),
    and each sample set is rejected by the other law (DKW threshold 0.04)."""
    x = np.linspace(0.01, 0.99, 200)
    qs = (0.5,)
    draws = {}
    laws = {}
    for kss in (False, True):
        mech = ApproximateQuantilesMechanism(
            qs, 1.0, (0.0, 1.0), "add_remove", mode="zcdp", delta=1e-3, kss_original_constant=kss
        )
        draws[kss] = mech.sample(x, 20_000, np.random.default_rng(15))[:, 0]
        laws[kss] = ExponentialQuantile(0.5, mech.epsilon_per_call, (0.0, 1.0), "add_remove")
    fork_eps = laws[False].epsilon
    assert fork_eps == pytest.approx(2 * laws[True].epsilon, rel=1e-14)
    for kss in (False, True):
        check_sampler(laws[kss].exact(x), draws[kss], ALPHA).assert_ok()
        assert not check_sampler(laws[not kss].exact(x), draws[kss], ALPHA).passed


def test_substitute_zcdp_accounting_undercharges_the_root_em() -> None:
    """imola25's AQ-zCDP under substitution (the fork: comp = 2·layers with ε' = sqrt(8ρ/comp))
    charges every level 2·ε'²/8 — one removal plus one addition. But at the root the subset is the
    whole data set, so a substitution changes one subset, and the root EM (weight ε'/(2·0.5) at
    q = 1/2) sees a shift of its utility by one on both sides of the target: its exact Rényi
    divergence of order 2 gives D₂/2 ≈ 1.85·(2·ε'²/8), i.e. the root alone spends about twice its
    share. The same EM respects the add/remove share ε'²/8 (sanity)."""
    eps_prime = 0.2
    x = np.linspace(1.0, 99.0, 120)
    moved = np.append(x[1:], 99.5)  # replace the smallest point by one above the largest
    added = np.append(x, 99.5)
    em = ExponentialQuantile(0.5, eps_prime, (0.0, 100.0), adjacency="add_remove")
    p, q_sub, q_add = em.exact(x), em.exact(moved), em.exact(added)
    with workdps():
        d2_sub = renyi_divergence(p, q_sub, 2) / 2
        d2_add = max(renyi_divergence(p, q_add, 2), renyi_divergence(q_add, p, 2)) / 2
    share_sub = 2 * em_zcdp_rho(eps_prime)
    assert d2_sub > 1.5 * share_sub
    assert d2_add <= em_zcdp_rho(eps_prime)


def check_sorted_in_bounds_and_clamped(
    mech: Any, release: Any, x: np.ndarray, qs: Any, size: int, rng: Any, seed: int
) -> None:
    """``mech`` (ε = 1 on [0, 1], any real input) releases sorted quantiles inside [0, 1], and
    ``release`` (its function) gives the same on ``x`` as on ``x`` clamped to [0, 1]."""
    assert mech.domain == (-np.inf, np.inf)
    out = mech.sample(x, size, rng)
    assert out.shape == (size, len(qs))
    assert np.all(np.diff(out, axis=1) >= 0) and out.min() >= 0 and out.max() <= 1
    a = release(x, qs, (0.0, 1.0), 1.0, np.random.default_rng(seed))
    b = release(np.clip(x, 0, 1), qs, (0.0, 1.0), 1.0, np.random.default_rng(seed))
    assert np.array_equal(a, b)


def test_aq_outputs_are_sorted_inside_the_bounds_and_clamping_is_documented() -> None:
    rng = np.random.default_rng(16)
    x = rng.normal(0.5, 0.4, 300)  # some values outside (0, 1): clamped
    qs = np.sort(rng.choice(np.arange(1, 40) / 40, 12, replace=False))
    mech = ApproximateQuantilesMechanism(tuple(qs), 1.0, (0.0, 1.0))
    check_sorted_in_bounds_and_clamped(mech, approximate_quantiles, x, qs, 2_000, rng, seed=5)


def test_aq_claims() -> None:
    qs = (0.2, 0.5)
    assert ApproximateQuantilesMechanism(qs, 1.0, (0, 1)).claim.delta == 0
    zc = ApproximateQuantilesMechanism(qs, 1.0, (0, 1), "add_remove", "zcdp", 1e-9)
    assert (zc.claim.epsilon, zc.claim.delta, zc.claim.adjacency) == (1.0, 1e-9, "add_remove")
    assert zc.rho == rho_from_epsilon(1.0, 1e-9)


def test_aq_single_release_on_the_experiment_scale_is_fast() -> None:
    """n = 586,104 distinct values in (0, 100), m = 200, ε = 1 (target <= 50 ms; asserted with a
    generous margin for loaded CI machines)."""
    rng = np.random.default_rng(17)
    x = np.sort(rng.uniform(0, 100, 586_104))
    qs = np.sort(rng.choice(np.arange(1, 251) / 251, 200, replace=False))
    approximate_quantiles(x, qs, (0, 100), 1.0, rng)
    start = time.perf_counter()
    out = approximate_quantiles(x, qs, (0, 100), 1.0, rng)
    assert time.perf_counter() - start < 1.0
    err = np.abs(np.searchsorted(x, out) - np.floor(qs * x.size))
    assert err.max() < 2_000  # the ε/comp-EMs' typical error is ~40 ranks


BAD_AQ = [
    dict(quantiles=[0.5, 0.2]),
    dict(quantiles=[0.2, 0.2]),
    dict(quantiles=[0.0, 0.5]),
    dict(quantiles=[0.5, 1.0]),
    dict(quantiles=[-0.1]),
    dict(quantiles=[]),
    dict(quantiles=[[0.2, 0.4]]),
    dict(quantiles=[math.nan]),
    dict(bounds=(1.0, 0.0)),
    dict(bounds=(0.0, math.inf)),
    dict(epsilon=0.0),
    dict(epsilon=-1.0),
    dict(adjacency="local"),
    dict(mode="approx"),
    dict(mode="zcdp"),
    dict(mode="zcdp", delta=0.0),
    dict(mode="zcdp", delta=1.0),
    dict(mode="zcdp", delta=1e-6, rho=0.1),
    dict(mode="zcdp", rho=-0.1),
    dict(mode="pure", delta=1e-6),
    dict(layers="floor"),
    dict(data=[0.1, math.nan]),
    dict(data=[[0.1, 0.2]]),
]


@pytest.mark.parametrize("bad", BAD_AQ)
def test_aq_rejects_bad_input(bad) -> None:
    args = dict(data=[0.1, 0.4, 0.7], quantiles=[0.25, 0.75], bounds=(0.0, 1.0), epsilon=1.0)
    args.update(bad)
    kwargs = {k: args.pop(k) for k in ("adjacency", "mode", "delta", "rho", "layers") if k in args}
    with pytest.raises(ValueError):
        approximate_quantiles(
            args["data"],
            args["quantiles"],
            args["bounds"],
            args["epsilon"],
            np.random.default_rng(0),
            **kwargs,
        )


def test_aq_mechanism_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        ApproximateQuantilesMechanism((0.2, 0.5), 1.0, (0, 1), mode="zcdp")
    with pytest.raises(ValueError):
        ApproximateQuantilesMechanism((0.5, 0.2), 1.0, (0, 1))
    with pytest.raises(ValueError):
        ApproximateQuantilesMechanism((0.2, 0.5), 1.0, (0, 1), composition=0.0)
    with pytest.raises(ValueError):
        ApproximateQuantilesMechanism((0.2,), 1.0, (0, 1)).sample(
            [0.5], -1, np.random.default_rng()
        )


# ============================================================================================
# JointExp (Gillenwater, Joseph, Kulesza 2021)
# ============================================================================================


def _direct_lse(values):
    finite = [v for v in values if v != -math.inf]
    if not finite:
        return -math.inf
    top = max(finite)
    return top + math.log(math.fsum(math.exp(v - top) for v in finite))


def test_kernel_sums_match_the_direct_definitions() -> None:
    """Decayed prefix, decayed window and the two-sided kernel against direct sums (random
    arrays with −inf entries; integer and fractional t; c from 0 to 50, i.e. one-entry blocks)."""
    rng = np.random.default_rng(20)
    for _ in range(150):
        n = int(rng.integers(1, 60))
        a = rng.normal(0, 5, n)
        a[rng.random(n) < 0.2] = -np.inf
        c = float(rng.choice([0.0, 0.01, 0.3, 2.0, 50.0]))
        t = float(rng.choice([rng.uniform(0, n + 2), float(rng.integers(0, n + 2)), 0.4]))
        width = int(rng.integers(1, n + 3))
        prefix = decayed_prefix_lse(a, c)
        window = decayed_window_lse(a, c, width)
        conv = kernel_convolution(a, t, c)
        for i in range(n):
            exp_p = _direct_lse([a[k] - c * (i - k) for k in range(i + 1)])
            exp_w = _direct_lse([a[k] - c * (k - i) for k in range(i, min(n, i + width))])
            exp_c = _direct_lse([a[k] - c * abs(i - k - t) for k in range(i)])
            for got, exp in ((prefix[i], exp_p), (window[i], exp_w), (conv[i], exp_c)):
                if exp == -math.inf:
                    assert got == -math.inf
                else:
                    assert abs(got - exp) < 1e-12 * max(1.0, abs(exp))


def _brute_force_law(x, qs, bounds, epsilon, adjacency):
    """JointExp's law over interval sequences by enumeration (mpmath, exact utilities).

    The utility is computed from its definition — counts of data between representative outputs
    (interval midpoints; o_0 = −inf, o_{m+1} = +inf) — not from interval indices."""
    x = sorted(min(max(v, bounds[0]), bounds[1]) for v in x)
    n, m = len(x), len(qs)
    br = [bounds[0], *x, bounds[1]]
    fq = [Fraction(0), *(Fraction(q) for q in qs), Fraction(1)]
    gaps = [fq[j] - fq[j - 1] for j in range(1, m + 2)]
    delta_u = 2 if adjacency == "replace_one" else 2 * (1 - min(gaps))
    with workdps():
        scale = to_mpf(epsilon) / (2 * to_mpf(delta_u))
        logw = {}
        for path in itertools.combinations_with_replacement(range(n + 1), m):
            lens = [Fraction(br[i + 1]) - Fraction(br[i]) for i in path]
            if min(lens) == 0:
                continue
            outs = [-math.inf, *((Fraction(br[i]) + Fraction(br[i + 1])) / 2 for i in path)]
            outs.append(math.inf)
            u = -sum(
                abs(sum(1 for v in x if outs[j - 1] < v <= outs[j]) - gaps[j - 1] * n)
                for j in range(1, m + 2)
            )
            lw = scale * to_mpf(u)
            for i in set(path):
                k = path.count(i)
                lw += k * mpmath.log(to_mpf(Fraction(br[i + 1]) - Fraction(br[i])))
                lw -= mpmath.log(mpmath.factorial(k))
            logw[path] = lw
        log_z = logsumexp(logw.values())
        return {p: mpmath.exp(v - log_z) for p, v in logw.items()}, log_z


TINY_CASES = [
    ([0.5, 1.0, 1.0, 2.5], (0.3, 0.6), 1.0, "replace_one"),
    ([0.2, 0.4, 2.9], (0.25, 0.75), 2.0, "add_remove"),
    ([1.5, 1.5], (0.4, 0.5), 0.7, "replace_one"),
    ([], (0.5, 0.9), 1.0, "replace_one"),
    ([0.0, 1.0, 3.0, 3.0], (0.1, 0.8), 3.0, "add_remove"),
    ([0.5, 1.0, 2.5], (0.3, 0.5, 0.6), 1.0, "replace_one"),
    ([0.5, 2.0, 2.1, 2.2], (0.2, 0.45, 0.5), 0.5, "add_remove"),
]


def _forward_of(x, qs, epsilon, adjacency, method):
    mech = JointExpMechanism(qs, epsilon, (0.0, 3.0), adjacency, method=method)
    return mech.forward(x)


@pytest.mark.parametrize("x, qs, epsilon, adjacency", TINY_CASES)
@pytest.mark.parametrize("method", ["exact", "rejection"])
def test_joint_exp_interval_probabilities_equal_brute_force(x, qs, epsilon, adjacency, method):
    """n <= 4, m = 2 and 3: the probability of every interval sequence from the forward pass
    and the sampler's backward conditionals (times the acceptance for the rejection method)
    equals the enumerated law to 1e-12; the exact method's normaliser also matches."""
    exact, log_z = _brute_force_law(x, qs, (0.0, 3.0), epsilon, adjacency)
    fw = _forward_of(x, qs, epsilon, adjacency, method)
    if method == "exact":
        assert abs(fw.log_z - float(log_z)) < 1e-12
    paths = list(itertools.combinations_with_replacement(range(fw.n + 1), len(qs)))
    logp = np.array([path_log_probability(fw, p) for p in paths])
    assert math.fsum(np.exp(logp)) == pytest.approx(1.0, abs=1e-13)
    if method == "rejection":
        logp = logp + acceptance_log_probability(np.array(paths))
    prob = np.exp(logp - _direct_lse(logp))
    for p, pr in zip(paths, prob, strict=True):
        assert abs(pr - float(exact.get(p, 0))) < 1e-12


def test_rejection_proposal_differs_from_the_law_when_three_outputs_share_an_interval() -> None:
    """The acceptance step matters: blocks of three get 2²/3! = 2/3 (m = 3, one big gap)."""
    x, qs = [0.5, 2.9], (0.4, 0.5, 0.6)
    assert acceptance_log_probability((1, 1, 1))[0] == pytest.approx(math.log(2 / 3))
    exact, _ = _brute_force_law(x, qs, (0.0, 3.0), 1.0, "replace_one")
    fw = _forward_of(x, qs, 1.0, "replace_one", "rejection")
    proposal = math.exp(path_log_probability(fw, (1, 1, 1)))
    assert proposal > float(exact[(1, 1, 1)]) + 0.01


def _marginal_cdf(fw_breaks, law, j):
    """CDF of o_j: a mixture over interval sequences of order statistics of uniforms."""

    def cdf(y):
        y = np.asarray(y, dtype=float)
        out = np.zeros_like(y)
        for path, p in law.items():
            i = path[j]
            first = path.index(i)
            k = path.count(i)
            r = j - first + 1
            lo, hi = fw_breaks[i], fw_breaks[i + 1]
            u = np.clip((y - lo) / (hi - lo), 0, 1)
            out += float(p) * stats.beta.cdf(u, r, k - r + 1)
        return out

    return cdf


@pytest.mark.parametrize("case", [0, 1, 5, 6])
@pytest.mark.parametrize("method", ["exact", "rejection"])
def test_joint_exp_sampler_conforms_to_the_brute_force_law(case, method) -> None:
    """Seeded: the released vectors' interval sequences against the enumerated probabilities
    (Clopper–Pearson per sequence, α/2) and each coordinate against its exact marginal CDF
    (DKW, α/(2m))."""
    x, qs, epsilon, adjacency = TINY_CASES[case]
    exact, _ = _brute_force_law(x, qs, (0.0, 3.0), epsilon, adjacency)
    mech = JointExpMechanism(qs, epsilon, (0.0, 3.0), adjacency, method=method)
    out = mech.sample(x, 60_000, np.random.default_rng(21 + case))
    breaks = np.concatenate([[0.0], np.sort(x), [3.0]])
    paths = np.searchsorted(breaks, out, side="right") - 1
    base = breaks.size
    keys = (paths * base ** np.arange(len(qs))).sum(axis=1)
    probs = {sum(i * base**c for c, i in enumerate(p)): float(v) for p, v in exact.items()}
    atom_test(keys, probs, ALPHA / 2).assert_ok()
    for j in range(len(qs)):
        dkw_test(out[:, j], _marginal_cdf(breaks, exact, j), ALPHA / (2 * len(qs))).assert_ok()


@pytest.mark.parametrize("adjacency", ["replace_one", "add_remove"])
@pytest.mark.parametrize("q", [0.3, 0.5, 0.85])
def test_joint_exp_with_one_quantile_is_the_exponential_mechanism(adjacency, q) -> None:
    """m = 1: u = −2|i − qn| and Δ = 2·Δ_EM, so JointExp's interval law is ExponentialQuantile's
    with the same adjacency (exact interval masses to 1e-12, and the sampler by DKW)."""
    x = np.array([0.3, 0.9, 0.9, 1.4, 2.2])
    mech = JointExpMechanism((q,), 1.3, (0.0, 3.0), adjacency)
    em = ExponentialQuantile(q, 1.3, (0.0, 3.0), adjacency=adjacency).exact(x)
    fw = mech.forward(x)
    for i in range(fw.n + 1):
        lo, hi = fw.breaks[i], fw.breaks[i + 1]
        p_em = float(em.mass(lo, hi)) if hi > lo else 0.0
        assert abs(math.exp(path_log_probability(fw, (i,))) - p_em) < 1e-12
    draws = mech.sample(x, 20_000, np.random.default_rng(22))[:, 0]
    check_sampler(em, draws, ALPHA).assert_ok()


def _utility(data, outs, qs):
    n = len(data)
    bounds = [-math.inf, *outs, math.inf]
    fq = [Fraction(0), *(Fraction(q) for q in qs), Fraction(1)]
    return -sum(
        abs(sum(1 for v in data if bounds[j - 1] < v <= bounds[j]) - (fq[j] - fq[j - 1]) * n)
        for j in range(1, len(qs) + 2)
    )


@pytest.mark.parametrize("adjacency", ["replace_one", "add_remove"])
@pytest.mark.parametrize("qs", [(0.3, 0.7), (0.2, 0.25, 0.9), (0.5,)])
def test_joint_exp_sensitivity_is_the_exact_maximum_utility_change(adjacency, qs) -> None:
    """Δ = max |u(X, o) − u(X', o)| over neighbours of size <= 3 on a grid and all sorted
    outputs between grid points: the formula is an upper bound and is attained."""
    grid = (0, 1, 2, 3)
    outs_grid = (Fraction(-1, 2), Fraction(1, 2), Fraction(3, 2), Fraction(5, 2), Fraction(7, 2))
    worst = Fraction(0)
    for size in range(0, 3):
        for base in itertools.combinations_with_replacement(grid, size):
            for y in grid:
                if adjacency == "add_remove":
                    pairs = [(list(base), [*base, y])]
                else:
                    pairs = [([*base, x], [*base, y]) for x in grid if x != y]
                for d0, d1 in pairs:
                    for outs in itertools.combinations_with_replacement(outs_grid, len(qs)):
                        worst = max(worst, abs(_utility(d0, outs, qs) - _utility(d1, outs, qs)))
    formula = joint_exp_sensitivity(qs, adjacency)
    assert worst <= Fraction(formula) + Fraction(1, 10**12)
    assert float(worst) == pytest.approx(formula, abs=1e-12)


def test_joint_exp_outputs_are_sorted_in_bounds_and_clamping_is_documented() -> None:
    rng = np.random.default_rng(23)
    x = rng.normal(0.5, 0.5, 200)
    qs = (0.1, 0.3, 0.31, 0.9)
    mech = JointExpMechanism(qs, 1.0, (0.0, 1.0))
    assert mech.claim.delta == 0 and mech.claim.epsilon == 1.0
    check_sorted_in_bounds_and_clamped(mech, joint_exp, x, qs, 500, rng, seed=3)


def test_joint_exp_exact_and_rejection_forward_agree_without_repeats() -> None:
    """For m = 2 the proposal is exact (no block of three), so both normalisers coincide; on
    n = 300 the forward pass also matches a direct O(n²) dynamic programme."""
    rng = np.random.default_rng(24)
    x = np.sort(rng.uniform(0, 3, 300))
    qs = np.array([0.2, 0.7])
    fe = forward(x, qs, (0.0, 3.0), 0.4, "exact")
    fr = forward(x, qs, (0.0, 3.0), 0.4, "rejection")
    assert fe.log_z == pytest.approx(fr.log_z, abs=1e-10)
    n = x.size
    t = np.diff(np.concatenate([[0], qs, [1]])) * n
    ll = np.log(np.diff(np.concatenate([[0.0], x, [3.0]])))
    i = np.arange(n + 1)
    a1 = ll - 0.4 * np.abs(i - t[0])
    same = ll - 0.4 * t[1] - math.log(2) + a1  # o_2 in the interval of o_1 (block of two)
    direct = np.array(
        [_direct_lse(list(a1[:k] - 0.4 * np.abs(k - np.arange(k) - t[1]))) for k in range(n + 1)]
    )
    a2 = np.logaddexp(ll + direct, same)
    expected = _direct_lse(list(a2 - 0.4 * np.abs(n - i - t[2])))
    assert fe.log_z == pytest.approx(expected, abs=1e-9)


def test_joint_exp_release_times() -> None:
    """n = 10^4, m = 20 (exact method) in well under 10 s; values are reported in the notes."""
    rng = np.random.default_rng(25)
    x = np.sort(rng.uniform(0, 100, 10_000))
    qs = np.sort(rng.choice(np.arange(1, 251) / 251, 20, replace=False))
    start = time.perf_counter()
    out = joint_exp(x, qs, (0, 100), 1.0, rng)
    assert time.perf_counter() - start < 10.0
    assert np.abs(np.searchsorted(x, out) - np.floor(qs * x.size)).max() < 200


def test_exact_method_samples_blocks_of_three_outputs_in_one_interval() -> None:
    fw = _forward_of([0.5, 2.9], (0.4, 0.5, 0.6), 1.0, "replace_one", "exact")
    paths = sample_intervals(fw, 1000, np.random.default_rng(26))
    assert np.all(np.diff(paths, axis=1) >= 0)
    assert (paths == 1).all(axis=1).any()  # blocks of three do occur


BAD_JE = [
    dict(quantiles=[0.7, 0.3]),
    dict(quantiles=[0.3, 0.3]),
    dict(quantiles=[0.0]),
    dict(quantiles=[1.0]),
    dict(quantiles=[1.5]),
    dict(quantiles=[]),
    dict(bounds=(2.0, 2.0)),
    dict(bounds=(-math.inf, 1.0)),
    dict(epsilon=0.0),
    dict(epsilon=math.nan),
    dict(adjacency="local"),
    dict(method="fft"),
    dict(data=[0.2, math.inf]),
]


@pytest.mark.parametrize("bad", BAD_JE)
def test_joint_exp_rejects_bad_input(bad) -> None:
    args = dict(data=[0.1, 0.4, 0.7], quantiles=[0.25, 0.75], bounds=(0.0, 1.0), epsilon=1.0)
    args.update(bad)
    kwargs = {k: args.pop(k) for k in ("adjacency", "method") if k in args}
    with pytest.raises(ValueError):
        joint_exp(
            args["data"],
            args["quantiles"],
            args["bounds"],
            args["epsilon"],
            np.random.default_rng(0),
            **kwargs,
        )
    with pytest.raises(ValueError):
        JointExpMechanism((0.2, 0.5), 1.0, (0, 1), sensitivity=-1.0)


# ============================================================================================
# black-box audits (explicit tiny pairs, 40k draws each: about 1 s apiece; the auditor's own
# neighbour search with its default budget takes 30–55 s per mechanism)
# ============================================================================================

PAIRS_SUB = [
    ([0.0, 0.25, 0.5], [0.0, 0.25, 1.0]),
    ([0.25, 0.5], [0.25, 1.0]),
    ([0.0, 0.5, 1.0], [0.0, 1.0, 1.0]),
    ([0.5], [1.0]),
]
PAIRS_AR = [([0.0, 0.25], [0.0, 0.25, 1.0]), ([0.5], [0.5, 1.0]), ([0.25, 0.5], [0.25, 0.5, 0.5])]


def _audit(mech):
    pairs = PAIRS_AR if mech.adjacency == "add_remove" else PAIRS_SUB
    return audit_mechanism(mech, pairs=pairs, samples=40_000, seed=0)


@pytest.mark.audit
@pytest.mark.parametrize(
    "mech",
    [
        ApproximateQuantilesMechanism((0.3, 0.7), 1.0, (0.0, 1.0), "replace_one"),
        ApproximateQuantilesMechanism((0.3, 0.7), 1.0, (0.0, 1.0), "add_remove"),
        ApproximateQuantilesMechanism(
            (0.25, 0.5, 0.75), 1.0, (0.0, 1.0), "add_remove", mode="zcdp", delta=1e-6
        ),
        JointExpMechanism((0.3, 0.7), 1.0, (0.0, 1.0), "replace_one"),
        JointExpMechanism((0.3, 0.7), 1.0, (0.0, 1.0), "add_remove"),
    ],
    ids=["aq-sub", "aq-ar", "aq-zcdp-ar", "jointexp-sub", "jointexp-ar"],
)
def test_baselines_pass_a_black_box_audit(mech) -> None:
    report = _audit(mech)
    assert not report.violation, report.summary()


@pytest.mark.audit
@pytest.mark.parametrize(
    "mech",
    [
        ApproximateQuantilesMechanism((0.3, 0.7), 1.0, (0.0, 1.0), "replace_one", composition=0.5),
        JointExpMechanism((0.3, 0.7), 1.0, (0.0, 1.0), "replace_one", sensitivity=0.5),
    ],
    ids=["aq-comp-too-small", "jointexp-sensitivity-too-small"],
)
def test_auditor_catches_a_miscalibrated_baseline(mech) -> None:
    report = _audit(mech)
    assert report.violation, report.summary()
    assert report.epsilon_lower_bound > mech.claim.epsilon
