"""fukuchi19 core: Algorithm 2's samplers, the exact tree law, the schedules and bad input.

Statistical tests use :func:`dpquant.reference.conformance.check_sampler` at α = 1e-7 (false-alarm
probability of a correct sampler below 1e-7 each), seeded.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpquant.reference.conformance import check_sampler, dkw_test
from dpquant.reference.distributions import DiscreteLaw, privacy_loss
from dpquant.reference.ldp_minimum.domain_map import UnitMap
from dpquant.reference.ldp_minimum.exact_law import (
    iid_leaf_probabilities_exact,
    leaf_probabilities,
    leaf_probabilities_exact,
    mean_absolute_error_exact,
    output_law,
)
from dpquant.reference.ldp_minimum.laplace_baseline import minimum_cdf, sample_laplace_extreme
from dpquant.reference.ldp_minimum.mechanisms import LaplaceExtreme, LaplaceReport, LDPMinimum
from dpquant.reference.ldp_minimum.round_statistic import (
    left_probability,
    left_probability_exact,
    plus_count_pmf_exact,
    round_rule,
)
from dpquant.reference.ldp_minimum.schedules import schedule, theorem_2_gamma
from dpquant.reference.ldp_minimum.search import (
    leaf_values,
    maximum,
    run_protocol,
    sample_binomial,
    sample_iid,
    sample_per_user,
)

ALPHA = 1e-7
F = Fraction


def _fixed_beta_data(n: int, x_min: float, delta: float, a: float = 1.0, b: float = 1.0):
    """The fixed data of Sec. 6.1: x_(i) = x_min + Δ·BetaPPF((i − 1)/(N − 1); α, β)."""
    return np.clip(x_min + delta * stats.beta.ppf(np.arange(n) / (n - 1), a, b), -1.0, 1.0)


# ---------------------------------------------------------------------------- exact examples


def test_single_user_reference_law_attains_e_to_the_epsilon_exactly() -> None:
    rule = round_rule(1, 2, 0.5, exp_u=3)
    low = leaf_probabilities_exact([-1.0], rule)
    high = leaf_probabilities_exact([1.0], rule)
    assert low == [F(9, 16), F(3, 16), F(3, 16), F(1, 16)]
    assert high == [F(1, 16), F(3, 16), F(3, 16), F(9, 16)]
    assert max(max(p / q, q / p) for p, q in zip(low, high, strict=True)) == 9  # = e^ε


def test_two_users_reference_law_is_reproduced_as_fractions() -> None:
    rule = round_rule(2, 2, 0.5, exp_u=3)
    assert leaf_probabilities_exact([-1.0, 1.0], rule) == [F(v, 256) for v in (169, 39, 39, 9)]
    assert leaf_probabilities_exact([1.0, 1.0], rule) == [F(v, 256) for v in (49, 63, 63, 81)]


def test_three_users_reference_law_ratio_and_error_are_reproduced_as_fractions() -> None:
    rule = round_rule(3, 3, 1 / 3, exp_u=3)
    d = leaf_probabilities_exact([-0.5, 0.0, 0.5], rule)
    d2 = leaf_probabilities_exact([1.0, 0.0, 0.5], rule)
    assert d == [F(v, 32768) for v in (1155, 6237, 4851, 9261, 6237, 3267, 1485, 275)]
    assert d2 == [F(v, 32768) for v in (275, 1485, 1485, 8019, 4851, 9261, 4851, 2541)]
    assert max(max(p / q, q / p) for p, q in zip(d, d2, strict=True)) == F(231, 25)
    assert mean_absolute_error_exact(d, 3, F(-1, 2)) == F(28195, 65536)


def test_threshold_matches_the_exact_comparison_phi_at_least_gamma() -> None:
    """m* is the least P with c(2P − N)/(2N) + 1/2 >= γ, for rational e^u (exact) and float ε
    (60-digit mpmath, far from any tie)."""
    for n in (1, 2, 3, 7, 20, 101):
        for gamma in (0.05, 1 / 3, 0.5, 0.9, 1.7):
            rule = round_rule(n, 3, gamma, exp_u=F(5, 2))
            c = (F(5, 2) + 1) / (F(5, 2) - 1)
            ok = [c * (2 * p - n) / (2 * n) + F(1, 2) >= F(gamma) for p in range(n + 1)]
            assert rule.threshold == (ok.index(True) if any(ok) else n + 1)
            rule = round_rule(n, 3, gamma, epsilon=1.3)
            with mpmath.workdps(80):
                c = 1 / mpmath.tanh(mpmath.mpf(1.3) / 6)
                ok = [c * (2 * p - n) / (2 * n) + 0.5 >= mpmath.mpf(gamma) for p in range(n + 1)]
            assert rule.threshold == (ok.index(True) if any(ok) else n + 1)


def test_gamma_one_half_with_an_exact_tie_goes_left() -> None:
    """e^u = 3: c = 2, Φ′ = S/N + 1/2; with N = 2 and one '+1', Φ′ = 1/2 = γ: non-strict ⇒ left."""
    rule = round_rule(2, 1, 0.5, exp_u=3)
    assert rule.threshold == 1
    assert bool(rule.goes_left(1)) and not bool(rule.goes_left(0))


def test_round_law_sums_to_one_and_left_probability_is_its_tail() -> None:
    rule = round_rule(6, 2, 0.4, exp_u=F(7, 3))
    for k in range(7):
        pmf = plus_count_pmf_exact(rule, k)
        assert sum(pmf) == 1
        assert left_probability_exact(rule, k) == sum(pmf[rule.threshold :])
        left, right = left_probability(rule, k)
        assert left == pytest.approx(float(sum(pmf[rule.threshold :])), rel=1e-12, abs=1e-300)
        assert right == pytest.approx(float(sum(pmf[: rule.threshold])), rel=1e-12, abs=1e-300)


def test_exact_law_in_mpmath_agrees_with_fractions_at_the_same_epsilon() -> None:
    """ε = 2·ln 3 as a float is within 1e-16 of the rational case: the laws agree to 1e-14."""
    data = [-0.5, 0.0, 0.5]
    exact = leaf_probabilities_exact(data, round_rule(3, 3, 1 / 3, exp_u=3))
    mp = leaf_probabilities_exact(data, round_rule(3, 3, 1 / 3, epsilon=3 * math.log(3)))
    assert all(isinstance(p, mpmath.mpf) for p in mp)
    assert max(abs(float(a) - float(b)) for a, b in zip(exact, mp, strict=True)) < 1e-14


def test_pruned_float_law_agrees_with_the_exact_law() -> None:
    x = _fixed_beta_data(40, -0.6, 0.3)
    rule = round_rule(40, 6, 0.3, epsilon=2.0)
    exact = np.array([float(p) for p in leaf_probabilities_exact(x, rule)])
    sparse = leaf_probabilities(x, rule, prune=1e-300)
    dense = np.zeros(2**6)
    dense[sparse.leaves] = sparse.probabilities
    assert np.max(np.abs(dense - exact)) < 1e-13
    pruned = leaf_probabilities(x, rule, prune=1e-6)
    assert pruned.pruned <= 2**6 * 1e-6
    assert abs(pruned.probabilities.sum() + pruned.pruned - 1.0) < 1e-12


@pytest.mark.parametrize(
    ("log2n", "eps", "expected"),
    [(10, 1.0, 0.5158), (11, 1.0, 0.2714), (12, 1.0, 0.1701), (13, 1.0, 0.1455),
     (10, 4.0, 0.0865), (12, 4.0, 0.0518), (14, 4.0, 0.0308), (16, 4.0, 0.0182)],
)  # fmt: skip
def test_reference_lower_alpha_worst_case_error_is_reproduced_by_the_exact_law(
    log2n: int, eps: float, expected: float
) -> None:
    """The reference values (``notes/fukuchi19.md``; an independent tree computation): Beta(1, 1), Δ = 0.3, fixed
    data, worst case over the six x_min, Lower-α schedule; 4 printed digits."""
    n = 2**log2n
    s = schedule("lower_alpha", n, eps)
    rule = round_rule(n, s.levels, s.gamma, epsilon=eps)
    worst = 0.0
    for k in range(6):
        x_min = k * 0.2 * (2 - 0.3) - 1
        law = leaf_probabilities(_fixed_beta_data(n, x_min, 0.3), rule)
        worst = max(worst, law.mean_absolute_error(x_min))
    assert round(worst, 4) == expected


# ---------------------------------------------------------------------------- schedules


REF_SCHEDULES = {  # log2 N: (Lower L, h_N, γ ε=1, γ ε=4), (Unknown L, h_N, γ ε=1, γ ε=4)
    10: ((5, 3.466, 0.866, 0.254), (6, 3.478, 1.032, 0.295)),
    13: ((7, 4.506, 0.481, 0.135), (9, 5.877, 0.701, 0.191)),
    15: ((8, 5.199, 0.294, 0.081), (12, 7.825, 0.536, 0.143)),
    17: ((9, 5.892, 0.176, 0.048), (15, 10.05, 0.378, 0.099)),
    20: ((10, 6.931, 0.075, 0.020), (21, 13.91, 0.219, 0.057)),
}


@pytest.mark.parametrize("log2n", sorted(REF_SCHEDULES))
def test_reference_schedules_are_reproduced(log2n: int) -> None:
    n = 2**log2n
    for name, row in zip(("lower_alpha", "unknown_alpha"), REF_SCHEDULES[log2n], strict=True):
        levels, h_n, g1, g4 = row
        s1, s4 = schedule(name, n, 1.0), schedule(name, n, 4.0)
        assert s1.levels == s4.levels == levels
        assert s1.h_n == pytest.approx(h_n, abs=0.006)
        assert round(s1.gamma, 3) == g1 and round(s4.gamma, 3) == g4


def test_theorem_2_gamma_is_never_clamped() -> None:
    """Unknown α, ε = 1, N = 2^10: γ = 1.032 > 1 (``notes/fukuchi19.md``, decisions)."""
    assert schedule("unknown_alpha", 2**10, 1.0).gamma > 1.0


def test_extra_log_levels_adds_ln_l_to_h_n() -> None:
    plain = schedule("lower_alpha", 2**12, 1.0)
    fixed = schedule("lower_alpha", 2**12, 1.0, extra_log_levels=True)
    assert fixed.h_n == pytest.approx(plain.h_n + math.log(plain.levels), rel=1e-15)
    assert fixed.gamma == pytest.approx(
        theorem_2_gamma(1.0, plain.levels, 2**12, fixed.h_n), rel=1e-15
    )


# ---------------------------------------------------------------------------- samplers agree


def _conforms(law: DiscreteLaw, samples: np.ndarray) -> None:
    result = check_sampler(law, samples, ALPHA)
    assert result.passed, result.detail


def test_binomial_fast_path_follows_the_exact_law() -> None:
    x = np.array([-0.9, -0.3, -0.3, 0.2, 0.7])
    rule = round_rule(5, 4, 0.35, epsilon=2.0)
    _conforms(output_law(x, rule), sample_binomial(x, rule, 200_000, np.random.default_rng(1)))


def test_per_user_path_follows_the_exact_law() -> None:
    x = np.array([-0.9, -0.3, -0.3, 0.2, 0.7])
    rule = round_rule(5, 4, 0.35, epsilon=2.0)
    _conforms(output_law(x, rule), sample_per_user(x, rule, 100_000, np.random.default_rng(2)))


def test_per_user_and_binomial_paths_agree_at_a_larger_n() -> None:
    """Two-sample check through the exact float law: both conform to it at N = 300."""
    x = _fixed_beta_data(300, -0.2, 0.6, 2.0, 1.0)
    rule = round_rule(300, 5, 0.2, epsilon=1.0)
    law = output_law(x, rule)
    _conforms(law, sample_per_user(x, rule, 20_000, np.random.default_rng(3)))
    _conforms(law, sample_binomial(x, rule, 100_000, np.random.default_rng(4)))


def _uniform_cdf_exact(point: Fraction) -> Fraction:
    return (point + 1) / 2


def test_lazy_iid_sampler_follows_the_exact_iid_law() -> None:
    rule = round_rule(4, 3, 0.3, exp_u=F(5, 2))
    probs = iid_leaf_probabilities_exact(_uniform_cdf_exact, rule)
    assert sum(probs) == 1
    law = DiscreteLaw.from_probabilities(leaf_values(3).tolist(), probs)
    out = sample_iid(lambda t: (t + 1) / 2, rule, 200_000, np.random.default_rng(5))
    _conforms(law, out)


def test_per_user_path_on_fresh_iid_data_follows_the_exact_iid_law() -> None:
    """The per-user protocol on N fresh uniform draws per run has the same law as the lazy
    i.i.d. sampler (its exact law); CDF with an atom at −1 and a kink, to exercise A > 0."""

    def cdf_exact(t: Fraction) -> Fraction:
        return F(1, 5) + F(4, 5) * ((t + 1) / 2) ** 2

    rule = round_rule(3, 3, 0.4, exp_u=3)
    law = DiscreteLaw.from_probabilities(
        leaf_values(3).tolist(), iid_leaf_probabilities_exact(cdf_exact, rule)
    )
    rng = np.random.default_rng(6)
    runs = 20_000
    atom = rng.random((runs, 3)) < 0.2
    data = np.where(atom, -1.0, -1.0 + 2.0 * np.sqrt(rng.random((runs, 3))))
    out = np.array([run_protocol(d, rule, rng).output for d in data])
    _conforms(law, out)
    lazy = sample_iid(lambda t: 0.2 + 0.8 * ((t + 1) / 2) ** 2, rule, 200_000, rng)
    _conforms(law, lazy)


def test_run_protocol_transcript_is_consistent() -> None:
    x = np.linspace(-1, 1, 11)
    rule = round_rule(11, 5, 0.3, epsilon=3.0)
    t = run_protocol(x, rule, np.random.default_rng(7))
    assert t.reports.shape == (5, 11) and set(np.unique(t.reports)) <= {-1, 1}
    plus = (t.reports == 1).sum(axis=1)
    np.testing.assert_allclose(t.phis, rule.debias * (2 * plus - 11) / 22 + 0.5, rtol=1e-15)
    assert np.array_equal(t.left, plus >= rule.threshold)
    lo, hi = -1.0, 1.0
    for tau, left in zip(t.taus, t.left, strict=True):
        assert tau == (lo + hi) / 2
        lo, hi = (lo, tau) if left else (tau, hi)
    assert t.output == (lo + hi) / 2


# ---------------------------------------------------------------------------- invariances


def test_maximum_is_the_mirrored_minimum() -> None:
    x = np.array([-0.5, 0.1, 0.8])
    mech = LDPMinimum.with_exp_u(3, 3, 0.4, target="max")
    law = mech.exact(x)
    mirror = output_law(-x, round_rule(3, 3, 0.4, exp_u=3))
    assert [-a for a in law.support[::-1]] == list(mirror.support)
    assert law.logp[::-1] == mirror.logp
    rule = mech.rule(3)
    a = maximum(x, rule, 50, np.random.default_rng(8))
    b = -sample_binomial(-x, rule, 50, np.random.default_rng(8))
    assert np.array_equal(a, b)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 15), min_size=1, max_size=6),
    st.integers(0, 2**31 - 1),
)
def test_count_preserving_perturbation_leaves_the_law_and_the_binomial_draws_unchanged(
    cells: list[int], seed: int
) -> None:
    """The law depends on the data only through #{x_i <= τ} at depth-<= L dyadic τ (the tree law):
    moving points inside their dyadic cell (−1 + c/8, −1 + (c+1)/8] changes nothing."""
    rule = round_rule(len(cells), 3, 0.4, exp_u=3)
    left_ends = np.array([-1.0 + (c + 1) / 8 for c in cells])  # right end of the cell (closed)
    inner = left_ends - 1 / 16
    assert leaf_probabilities_exact(left_ends, rule) == leaf_probabilities_exact(inner, rule)
    a = sample_binomial(left_ends, rule, 20, np.random.default_rng(seed))
    b = sample_binomial(inner, rule, 20, np.random.default_rng(seed))
    assert np.array_equal(a, b)


def test_noiseless_mode_is_deterministic() -> None:
    x = np.array([0.3, -0.2, 0.9])
    rule = round_rule(3, 10, 0.2, epsilon=math.inf)
    out = sample_per_user(x, rule, 5, np.random.default_rng(9))
    assert np.all(out == out[0]) and abs(out[0] - (-0.2)) <= 2.0**-10


def test_bounds_are_mapped_affinely_and_errors_scale() -> None:
    mech = LDPMinimum.with_exp_u(3, 3, 0.4, bounds=(0.0, 150.0))
    unit = LDPMinimum.with_exp_u(3, 3, 0.4)
    ages = np.array([18.0, 40.0, 90.0])
    law, law_unit = mech.exact(ages), unit.exact(ages / 75.0 - 1.0)
    np.testing.assert_allclose(np.array(law.support), 75.0 * (np.array(law_unit.support) + 1))
    assert law.logp == law_unit.logp
    assert UnitMap(0.0, 150.0).scale == 75.0


def test_clamp_clips_out_of_bounds_values_only_when_asked() -> None:
    with pytest.raises(ValueError, match="data must lie inside the domain"):
        LDPMinimum(1.0, 3, 0.4, bounds=(0.0, 10.0)).sample([-1.0, 5.0], 3, np.random.default_rng())
    mech = LDPMinimum(1.0, 3, 0.4, bounds=(0.0, 10.0), clamp=True)
    assert mech.exact([-1.0, 5.0]).logp == mech.exact([0.0, 5.0]).logp


# ---------------------------------------------------------------------------- Laplace baseline


def test_laplace_minimum_sampler_follows_the_exact_cdf() -> None:
    x = np.array([-0.7, 0.0, 0.4, 0.9])
    out = sample_laplace_extreme(x, 1.5, 100_000, np.random.default_rng(10))
    result = dkw_test(out, lambda y: minimum_cdf(y, x, 1.5), ALPHA)
    assert result.passed, result.detail


def test_laplace_minimum_error_is_shift_invariant_in_law() -> None:
    """min_i(x_i + s + L_i) − (x_min + s) has the law of min_i(x_i + L_i) − x_min: the exact CDFs
    agree at every point."""
    x = _fixed_beta_data(50, -1.0, 0.3)
    ys = np.linspace(-15, 1, 33)
    for s in (0.34, 0.7):
        np.testing.assert_allclose(
            minimum_cdf(ys + s, x + s, 1.0), minimum_cdf(ys, x, 1.0), rtol=1e-12, atol=1e-15
        )


def test_laplace_report_loss_is_epsilon_at_the_bounds() -> None:
    """Real-valued report (``noise="continuous"``): loss ε|x − x′|/(b − a). Grid report: loss
    |i − i′|/t with i = round(x/Λ) on [−1, 1] and t = 2/(εΛ) (here exactly 32): ε at the bounds,
    7/32 for x = 1, x′ = 2 on [0, 5] (unit values −0.6, −0.2: indices −10, −3)."""
    cont = LaplaceReport(1.0, bounds=(0.0, 5.0), noise="continuous")
    assert float(privacy_loss(cont.exact(0.0), cont.exact(5.0))) == pytest.approx(1.0, rel=1e-12)
    assert float(privacy_loss(cont.exact(1.0), cont.exact(2.0))) == pytest.approx(0.2, rel=1e-12)
    grid = LaplaceReport(1.0, bounds=(0.0, 5.0))
    assert float(privacy_loss(grid.exact(0.0), grid.exact(5.0))) == pytest.approx(1.0, rel=1e-12)
    assert float(privacy_loss(grid.exact(1.0), grid.exact(2.0))) == pytest.approx(7 / 32, rel=1e-12)


def test_grid_report_sampler_follows_its_exact_law() -> None:
    rep = LaplaceReport(2.0, bounds=(0.0, 5.0), grid=0.125)
    _conforms(rep.exact(1.3), rep.sample(1.3, 200_000, np.random.default_rng(12)))


def test_laplace_extreme_clip_option_clips_to_the_bounds() -> None:
    out = LaplaceExtreme(1.0, (0.0, 10.0), clip=True).sample(
        [5.0] * 50, 200, np.random.default_rng()
    )
    assert out.min() >= 0.0 and out.max() <= 10.0
    raw = LaplaceExtreme(1.0, (0.0, 10.0)).sample([5.0] * 50, 200, np.random.default_rng(0))
    assert raw.min() < 0.0  # unclipped by default: 50 reports of scale 10 go far below 0


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: round_rule(0, 3, 0.5, epsilon=1.0), "n must be an integer >= 1"),
        (lambda: round_rule(3, 0, 0.5, epsilon=1.0), "levels must be an integer >= 1"),
        (lambda: round_rule(3, 53, 0.5, epsilon=1.0), r"levels must be an integer in \[1, 52\]"),
        (lambda: round_rule(3, 3, 0.5, epsilon=0.0), "epsilon must be a number > 0"),
        (lambda: round_rule(3, 3, 0.5, epsilon=-1.0), "epsilon must be a number > 0"),
        (lambda: round_rule(3, 3, 0.5, epsilon=math.nan), "epsilon must be a real number"),
        (lambda: round_rule(3, 3, math.nan, epsilon=1.0), "gamma must be a real number"),
        (lambda: round_rule(3, 3, 0.0, epsilon=1.0), "gamma must be a finite number > 0"),
        (lambda: round_rule(3, 3, 0.5, exp_u=1), "exp_u must be an int or Fraction > 1"),
        (lambda: round_rule(3, 3, 0.5, exp_u=2.5), "exp_u must be an int or Fraction > 1"),
        (lambda: round_rule(3, 3, 0.5), "give exactly one of epsilon and exp_u"),
        (lambda: LDPMinimum(1.0, 3, 0.5, target="median"), "target must be one of"),
        (lambda: LDPMinimum(1.0, 3, 0.5, sampler="fast"), "sampler must be one of"),
        (lambda: LDPMinimum(1.0, 3, 0.5, bounds=(1.0, 1.0)), "bounds must be a pair"),
        (lambda: LDPMinimum(math.inf, 3, 0.5), "epsilon must be a finite"),
        (lambda: schedule("known", 100, 1.0), "schedule name must be one of"),
        (lambda: schedule("lower_alpha", 1, 1.0), "n must be an integer >= 2"),
        (lambda: LaplaceExtreme(0.0), "epsilon must be a finite number > 0"),
        (lambda: LaplaceReport(1.0, noise="float"), "noise must be one of"),
        (lambda: LaplaceReport(1.0, grid=0.3), "grid must be a power of two"),
        (lambda: LaplaceExtreme(1.0, grid=2.0), "grid must be a power of two"),
    ],
)
def test_bad_parameters_raise_a_clear_value_error(build, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        build()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([], "data must be non-empty"),
        ([0.1, math.nan], "finite numbers only"),
        ([0.1, 1.5], r"data must lie inside the domain \[-1.0, 1.0\]"),
        ([[0.1, 0.2]], "1-D sequence"),
    ],
)
def test_bad_data_raise_a_clear_value_error(data, match: str) -> None:
    rng = np.random.default_rng(0)
    rule = round_rule(2, 3, 0.5, epsilon=1.0)
    for call in (
        lambda: sample_binomial(data, rule, 3, rng),
        lambda: sample_per_user(data, rule, 3, rng),
        lambda: leaf_probabilities_exact(data, rule),
        lambda: LDPMinimum(1.0, 3, 0.5).sample(data, 3, rng),
        lambda: LDPMinimum(1.0, 3, 0.5).exact(data),
        lambda: sample_laplace_extreme(data, 1.0, 3, rng),
    ):
        with pytest.raises(ValueError, match=match):
            call()


def test_rule_for_another_n_is_refused() -> None:
    rule = round_rule(3, 3, 0.5, epsilon=1.0)
    with pytest.raises(ValueError, match="rule was built for N = 3 users"):
        sample_binomial([0.1, 0.2], rule, 3, np.random.default_rng())


def test_iid_sampler_refuses_a_cdf_that_is_not_one_at_the_top() -> None:
    rule = round_rule(3, 3, 0.5, epsilon=1.0)
    with pytest.raises(ValueError, match="cdf must reach 1 at x = 1"):
        sample_iid(lambda t: 0.5 * (t + 1) / 2, rule, 3, np.random.default_rng())
    with pytest.raises(ValueError, match="cdf must be non-decreasing"):
        sample_iid(lambda t: np.where(t >= 1, 1.0, 0.5 - t / 4), rule, 3, np.random.default_rng())


def test_single_run_scalar_path_follows_the_exact_law() -> None:
    """size = 1 takes a scalar loop; 20,000 such calls conform to the exact law."""
    x = np.array([-0.9, -0.3, -0.3, 0.2, 0.7])
    rule = round_rule(5, 4, 0.35, epsilon=2.0)
    rng = np.random.default_rng(11)
    out = np.concatenate([sample_binomial(x, rule, 1, rng) for _ in range(20_000)])
    _conforms(output_law(x, rule), out)
