"""aamand25 under hostile input (issue 18): every refusal is a ``ValueError`` naming the
parameter, raised before any large allocation or long computation; the numerics that used to
overflow, divide by zero or silently drop a term hold at the extremes."""

from __future__ import annotations

import math
import time
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpquant.audit.suites.catalogue.repeated_answers import (
    RepeatedThresholdQuery,
    broken_nbs_mechanism,
    two_answers_nbs,
)
from dpquant.reference.core import ExactMechanismBase
from dpquant.reference.distributed_quantiles import (
    amplification,
    channel,
    concentration,
    lower_bound,
    potential,
)
from dpquant.reference.distributed_quantiles.bayess import bayess_theorem_1_1
from dpquant.reference.distributed_quantiles.hierarchical import (
    HierarchicalRandomizer,
    hierarchical_quantile,
    prefix_nodes,
)
from dpquant.reference.distributed_quantiles.mechanisms import (
    DRAW_BUDGET,
    ProtocolMechanism,
    nbs_mechanism,
)
from dpquant.reference.distributed_quantiles.naive_nbs import debiased_estimate, dp_naive_nbs
from dpquant.reference.distributed_quantiles.private_bayess import dp_bayess, select_quantiles
from dpquant.reference.distributed_quantiles.protocol_enumeration import (
    MAX_PATHS,
    ScriptedGenerator,
    protocol_law,
)
from dpquant.reference.distributed_quantiles.shuffle_search import shuffle_nbs
from dpquant.reference.distributed_quantiles.threshold_query import ThresholdQuery
from dpquant.reference.distributed_quantiles.unary_encoding import (
    UnaryEncoding,
    check_variant,
    iid_binomial,
    ue_estimate,
    ue_probabilities,
)
from dpquant.reference.distributed_quantiles.users import check_user_value, check_users
from dpquant.studies import aamand25 as experiments
from dpquant.studies.aamand25.data import dataset_users, pareto_values

RNG = np.random.default_rng(0)

MECHANISMS = [
    ThresholdQuery(8, 4, 1.0),
    RepeatedThresholdQuery(8, 4, 1.0, answers=3),
    UnaryEncoding(4, 1.0),
    HierarchicalRandomizer(4, 1.0, branching=2),
    nbs_mechanism(4, 1.0, 2),
    broken_nbs_mechanism(4, 1.0, 2),
]
IDS = [type(m).__name__ for m in MECHANISMS]


def _valid(mech):
    return [1, 3] if isinstance(mech, ProtocolMechanism) else 3


# -- the mechanism classes on the base --------------------------------------------------------


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
def test_every_mechanism_class_derives_from_the_exact_base(mech) -> None:
    assert isinstance(mech, ExactMechanismBase)


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
@pytest.mark.parametrize("size", [0, -1, 2.0, True, "8", 10**12, 2**64])
def test_mechanisms_refuse_bad_sizes_before_drawing(mech, size) -> None:
    with pytest.raises(ValueError, match="size"):
        mech.sample(_valid(mech), size, RNG)


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
@pytest.mark.parametrize("rng", [None, 0, np.random.RandomState(0)])
def test_mechanisms_refuse_bad_rngs(mech, rng) -> None:
    with pytest.raises(ValueError, match="rng"):
        mech.sample(_valid(mech), 4, rng)


@pytest.mark.parametrize("mech", MECHANISMS, ids=IDS)
@pytest.mark.parametrize(
    "data", [True, "3", [True, False], 2.5, math.nan, 10**400, [[1, 2]], None, Fraction(5, 2)]
)
def test_mechanisms_refuse_bad_users_naming_data(mech, data) -> None:
    with pytest.raises(ValueError, match="data"):
        mech.sample(data, 4, RNG)
    with pytest.raises(ValueError, match="data"):
        mech.exact(data)


def test_integral_floats_and_fractions_are_users_booleans_never() -> None:
    """Decision: 3.0 and Fraction(3) are the user 3 (the auditor probes floats); True is not."""
    assert check_user_value(3.0, 8) == 3 == check_user_value(Fraction(3), 8)
    assert check_user_value(np.array([3.0]), 8) == 3
    assert check_users([1.0, 2, Fraction(8)], 8).tolist() == [1, 2, 8]
    for bad in (True, np.bool_(True), "3", 3.5, math.inf):
        with pytest.raises(ValueError, match="data"):
            check_user_value(bad, 8)
    for bad in ([True, 2], np.array([1, 2], dtype=bool), ["1"], [10**400], [], [1, [2]]):
        with pytest.raises(ValueError, match="users"):
            check_users(bad, 8)


def test_a_protocol_mechanism_refuses_more_draws_than_its_budget_before_running() -> None:
    mech = nbs_mechanism(4, 1.0, 2)
    limit = mech.draw_limit(np.array([1, 3]))
    assert limit == DRAW_BUDGET // 66 >= 65536  # one auditor chunk fits in one call
    start = time.perf_counter()
    with pytest.raises(ValueError, match="size must be at most"):
        mech.sample([1, 3], limit + 1, RNG)
    assert time.perf_counter() - start < 0.5


def test_protocol_mechanism_exact_refuses_many_users_before_enumerating() -> None:
    mech = nbs_mechanism(64, 1.0, 40)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="exact laws are enumerated for n <= 5"):
        mech.exact(list(range(1, 41)))
    assert time.perf_counter() - start < 0.5


def test_protocol_mechanism_checks_options_against_the_protocol_signature() -> None:
    with pytest.raises(ValueError, match="options"):
        ProtocolMechanism("x", dp_naive_nbs, 4, 1.0, 2, {"nope": 1})
    with pytest.raises(ValueError, match="protocol"):
        ProtocolMechanism("x", "dp_naive_nbs", 4, 1.0, 2)
    with pytest.raises(ValueError, match="n must"):
        ProtocolMechanism("x", dp_naive_nbs, 4, 1.0, 10**9)


def test_a_protocol_returning_a_non_coin_is_a_value_error() -> None:
    mech = ProtocolMechanism("bad", lambda users, B, eps, rng: 1.5, 4, 1.0, 2)
    with pytest.raises(ValueError, match="integer coin"):
        mech.sample([1, 2], 3, RNG)


def test_protocol_law_refuses_what_it_cannot_enumerate() -> None:
    with pytest.raises(ValueError, match="max_paths"):
        protocol_law(lambda g: 1, 1.0, max_paths=MAX_PATHS + 1)
    with pytest.raises(ValueError, match="run"):
        protocol_law(None, 1.0)
    with pytest.raises(ValueError, match="run cannot be enumerated"):
        protocol_law(lambda g: int(g.permutation(30)[0]), 1.0)
    with pytest.raises(ValueError, match="run cannot be enumerated"):
        protocol_law(lambda g: int(g.integers(3)), 1.0)
    with pytest.raises(ValueError, match="max_paths"):
        protocol_law(lambda g: int(g.random(20).sum()), 1.0, max_paths=100)


def test_scripted_generator_unranks_permutations_without_a_table() -> None:
    gen = ScriptedGenerator([math.factorial(12) - 1])
    assert gen.permutation(12).tolist() == list(range(11, -1, -1))


def test_repeated_threshold_query_answers_are_capped() -> None:
    with pytest.raises(ValueError, match="answers"):
        RepeatedThresholdQuery(8, 4, 1.0, answers=10**9)


def test_unary_encoding_domain_is_capped_and_its_draws_bounded() -> None:
    with pytest.raises(ValueError, match="d must"):
        UnaryEncoding(10**12, 1.0)
    mech = UnaryEncoding(10**6, 1.0)
    with pytest.raises(ValueError, match="size must be at most"):
        mech.sample(5, 1000, RNG)


# -- numerics at the extremes -----------------------------------------------------------------


def test_debiased_estimate_keeps_the_order_epsilon_term_at_tiny_epsilon() -> None:
    """Eq. (8) at ȳ = 1/2 is exactly 1/2 for every ε; the old (ȳ − (1 − p))/(2p − 1) with
    p = 1/2 in floats gave 0/0 below ε ≈ 1e-16 (ZeroDivisionError)."""
    for eps in (1e-300, 1e-20, 1e-8, 1.0, 50.0, 1e308):
        assert debiased_estimate(5, 10, eps) == 0.5
    assert debiased_estimate(6, 10, 1e-300) == pytest.approx(0.5 + 0.1 / math.tanh(5e-301))
    assert debiased_estimate(10, 10, 1e308) == 1.0
    with pytest.raises(ValueError, match="epsilon"):
        debiased_estimate(5, 10, 5e-324)


def test_protocols_run_at_huge_and_tiny_epsilon() -> None:
    users = [1, 2, 3, 4] * 4
    for eps in (1e-300, 1e308):
        assert 1 <= dp_naive_nbs(users, 4, eps, RNG) <= 4
        assert 1 <= two_answers_nbs(users, 4, eps, RNG) <= 4  # math.exp(ε) overflowed
    # no flips at ε = 1e308: all users at 3 give F(2) = 0 <= τ < F(3) = 1, the coin 2 exactly
    assert dp_naive_nbs([3] * 8, 4, 1e308, np.random.default_rng(1)) == 2
    with pytest.raises(ValueError, match="epsilon"):
        dp_naive_nbs(users, 4, 5e-324, RNG)


def test_flags_and_choices_are_exact() -> None:
    with pytest.raises(ValueError, match="faithful"):
        dp_naive_nbs([1, 2, 3, 4], 4, 1.0, RNG, faithful="no")
    with pytest.raises(ValueError, match="faithful_search"):
        dp_bayess(list(range(1, 7)) * 3, 6, 1.0, RNG, c=0.1, faithful_search=1)
    with pytest.raises(ValueError, match="local_epsilon"):
        shuffle_nbs([1, 2] * 100, 2, 1.0, 0.1, RNG, local_epsilon="LEMMA_G5")
    with pytest.raises(ValueError, match="variant"):
        check_variant("OUE")


def test_bayess_update_parameter_out_of_range_names_alpha_and_epsilon() -> None:
    users = list(range(1, 9)) * 13
    with pytest.raises(ValueError, match="epsilon"):
        bayess_theorem_1_1(users, 8, 1e308, RNG, alpha=0.2)
    with pytest.raises(ValueError, match="epsilon"):
        bayess_theorem_1_1(users, 8, 5e-324, RNG, alpha=0.2)


def test_dp_bayess_huge_c_is_refused_naming_c() -> None:
    with pytest.raises(ValueError, match="c too large"):
        dp_bayess(list(range(1, 7)) * 3, 6, 1.0, RNG, c=1e308)


def test_select_quantiles_refuses_a_gamma_that_would_allocate_huge_grids() -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match="gamma"):
        select_quantiles(np.array([1, 2, 3]), 1e-300, "numpy")
    assert time.perf_counter() - start < 0.5


def test_shuffle_local_epsilon_rules_never_overflow() -> None:
    """ε² overflowed (1e308) or underflowed to a log of 0 (1e-300); δ = 5e-324 made 4/δ inf."""
    for rule in ("paper", "authors", "lemma_g5", "inverted"):
        with pytest.raises(ValueError, match="epsilon"):
            amplification.shuffle_local_epsilon(1e-300, 1e-6, 10**6, 16, rule)
    for rule in ("paper", "authors", "lemma_g5"):  # the precondition fails; no n helps
        with pytest.raises(ValueError, match="it needs epsilon <="):
            amplification.shuffle_local_epsilon(1e308, 1e-6, 10**6, 16, rule)
    # the inverted rule is the precondition's cap ln(n'/(16 ln(2/δ))), n' = 10^6/4
    cap = amplification.fmt_precondition_bound(250_000, 1e-6)
    inverted = amplification.shuffle_local_epsilon(1e308, 1e-6, 10**6, 16, "inverted")
    assert inverted == pytest.approx(cap, rel=1e-14)
    assert math.isfinite(amplification.fmt_precondition_bound(10**6, 5e-324))
    assert math.isfinite(amplification.fmt_epsilon(5e-324, 10**6, 1e-6))
    assert amplification.notebook_min_users(1e308, 16, 1e-6) == 0.0
    with pytest.raises(ValueError, match="epsilon"):
        amplification.notebook_min_users(1e-300, 16, 1e-6)


def test_unary_encoding_probabilities_and_estimates_at_the_extremes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ue_probabilities(1e308) == (0.5, 0.0)
        assert ue_probabilities(1e308, "sue") == (1.0, 0.0)
    est = ue_estimate([3, 1], 4, 1e-290)
    assert np.isfinite(est).all()
    with pytest.raises(ValueError, match="epsilon"):
        ue_estimate([3, 1], 4, 1e-310)


def test_iid_binomial_checks_its_probability_and_trials() -> None:
    with pytest.raises(ValueError, match="prob"):
        iid_binomial(5, math.nan, 3, RNG)
    with pytest.raises(ValueError, match="trials"):
        iid_binomial(10**12, 0.5, 3, RNG)


def test_hierarchical_mechanism_refuses_trees_it_cannot_allocate() -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match="b\\^k"):
        hierarchical_quantile([1, 2], 4**12, 1.0, RNG)
    with pytest.raises(ValueError, match="branching"):
        hierarchical_quantile([1, 2], 4, 1.0, RNG, branching=2**62)
    with pytest.raises(ValueError, match="branching"):
        prefix_nodes(3, 2**60, branching=2**40)
    assert time.perf_counter() - start < 1.0


def test_channel_mp_tier_takes_numpy_scalars_and_caps_its_precision() -> None:
    assert channel.capacity_mp(np.float32(0.5), np.float64(0.1)) == channel.capacity_mp(
        float(np.float32(0.5)), 0.1
    )
    with pytest.raises(ValueError, match="dps"):
        channel.capacity_mp(0.5, 0.1, dps=10**9)
    # a subnormal α no longer gives a (tiny) negative capacity
    assert channel.capacity(1e-300, 1e-310) >= 0.0


def test_concentration_exact_programmes_refuse_sizes_they_cannot_finish() -> None:
    start = time.perf_counter()
    for call, name in [
        (lambda: concentration.random_walk_max_tail(10**6, 3), "n"),
        (lambda: concentration.max_deviation_tail(10**5, 10, 5, 0.1), "total"),
        (lambda: concentration.max_deviation_tail_by_enumeration(40, 20, 5, 0.1), "zeros"),
        (lambda: concentration.lemma_g1_exact_tail(10**9, 0.5, 0.1, 1.0), "n"),
        (lambda: concentration.lemma_g2_exact_tail(10**6, 10, 0.1, 1.0), "n"),
        (lambda: lower_bound.lower_bound_family(8, 0.5, 0.1, 3, base=True), "base"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()
    assert time.perf_counter() - start < 1.0


def test_lemma_g2_bracket_at_tiny_epsilon_uses_expm1() -> None:
    """e^ε − 1 at ε = 1e-300 is 0 at 60 digits (ZeroDivisionError before); expm1 keeps it."""
    with mpmath.workdps(60):
        value = concentration.lemma_g2_bracket(0.1, 1e-300)
        assert mpmath.isfinite(value) and value > mpmath.mpf("1e600")


def test_potential_refuses_a_target_outside_the_unit_interval() -> None:
    p1 = [0.0, 0.2, 0.45, 0.55, 0.8, 1.0]
    with pytest.raises(ValueError, match="tau"):
        potential.good_intervals(p1, 2.0, 0.1)  # ArithmeticError before
    with pytest.raises(ValueError, match="direction"):
        potential.adversarial_probabilities(p1, 0.05, 1.0, np.array([1, -1]))


# -- the experiments' entry points ----------------------------------------------------------


def _stub(users, B, *args, **kwargs):
    return 1


STUBS = {name: _stub for name in experiments.SERIES}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"runs": 2**31}, "runs"),
        ({"workers": 10**6}, "workers"),
        ({"quick": "no"}, "quick"),
        ({"plot": 1}, "plot"),
        ({"progress": "yes"}, "progress"),
        ({"estimators": {"HM": 3}}, "estimators"),
        ({"estimators": {"nope": _stub}}, "estimators"),
        ({"out": 3}, "out"),
    ],
)
def test_run_figure_checks_its_arguments_before_any_work(kwargs, match, tmp_path) -> None:
    args = {
        "runs": 1,
        "workers": 1,
        "quick": True,
        "out": tmp_path,
        "estimators": STUBS,
        "plot": False,
    }
    args.update(kwargs)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        experiments.run_figure("fig1b", **args)
    assert time.perf_counter() - start < 0.5
    assert not any(tmp_path.iterdir())


def test_run_figure_refuses_an_output_that_is_a_file(tmp_path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(ValueError, match="out must be a directory"):
        experiments.run_figure(
            "fig1b", runs=1, workers=1, quick=True, out=target, estimators=STUBS, plot=False
        )


def test_data_generators_cap_n_and_clip_huge_draws() -> None:
    with pytest.raises(ValueError, match="n must"):
        dataset_users("pareto", 10**12, 64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = pareto_values(50, 64, scale=1e308)
    assert values.min() >= 0 and values.max() == 63
