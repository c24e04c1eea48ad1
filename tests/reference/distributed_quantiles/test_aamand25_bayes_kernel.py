"""aamand25: BayesLearn's compiled steps (Alg. 2) and the batched DpBayeSS driver (Alg. 3).

The compiled kernel must take exactly the steps of the plain-Python tree (the same queried
intervals L, bit for bit), and a batch of runs must give each run the coin its single run gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.reference.distributed_quantiles.bayes_learning import (
    Intervals,
    bayes_learn,
    bayes_learn_tree,
    learn_batch,
)
from dpquant.reference.distributed_quantiles.private_bayess import (
    AUTHORS_OPTIONS,
    dp_bayess,
    dp_bayess_runs,
)

RNG0 = np.random.default_rng(0)


def _pareto(n: int, B: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.minimum(B, 1 + np.floor(rng.pareto(1.5, n) * 2000)).astype(np.int64)


@settings(max_examples=60, deadline=None)
@given(
    B=st.sampled_from([3, 17, 1000, 4**9, 2**32, 2**62]),
    n=st.integers(0, 400),
    scattered=st.booleans(),
    epsilon=st.one_of(st.none(), st.floats(0.05, 4.0)),
    rounding=st.sampled_from(["paper", "left"]),
    tau=st.floats(0.1, 0.9),
    alpha=st.floats(0.01, 0.09),  # below min(τ', 1 − τ') for every τ here (the channel's range)
    seed=st.integers(0, 2**32 - 1),
)
def test_compiled_bayes_learn_takes_the_steps_of_the_log_weight_tree(
    B, n, scattered, epsilon, rounding, tau, alpha, seed
) -> None:
    """Alg. 2 compiled and in plain Python on the same users, flips and intervals: the same L,
    step for step (contiguous and scattered intervals, both roundings, with and without RR)."""
    rng = np.random.default_rng(seed)
    users = rng.integers(1, B, n, endpoint=True)
    if scattered and B > 40:
        lefts = np.sort(rng.choice(np.arange(1, min(B, 10**6)), 30, replace=False))
        intervals = Intervals.from_coins(lefts, np.minimum(lefts + rng.integers(0, 3, 30), B))
    else:
        intervals = Intervals.full(B)
    options = {"tau": tau, "epsilon": epsilon, "rounding": rounding}
    compiled = bayes_learn(users, intervals, alpha, np.random.default_rng(seed), **options)
    plain = bayes_learn_tree(users, intervals, alpha, np.random.default_rng(seed), **options)
    assert np.array_equal(compiled, plain)


def test_a_long_run_grows_the_node_pool_and_keeps_the_tree_steps() -> None:
    """3 000 steps over 2^40 intervals outgrow the kernel's first node pool (1 024 nodes)."""
    users = _pareto(3000, 2**40, 1)
    iv = Intervals.full(2**40)
    a = bayes_learn(users, iv, 0.02, np.random.default_rng(3), epsilon=1.0)
    b = bayes_learn_tree(users, iv, 0.02, np.random.default_rng(3), epsilon=1.0)
    assert np.array_equal(a, b) and len(set(a.tolist())) > 30


def test_learn_batch_gives_each_run_the_l_of_its_single_run() -> None:
    users = [_pareto(500, 4**9, s) for s in range(6)]
    intervals = [Intervals.full(4**9)] * 3 + [
        Intervals.from_coins([1, 5, 9, 300], [5, 9, 300, 4**9]),
        Intervals.from_coins([2, 3], [3, 4]),
        Intervals.from_coins([10], [10]),
    ]
    batch = learn_batch(
        users, intervals, 0.05, [np.random.default_rng(s) for s in range(6)], epsilon=0.7
    )
    for s in range(6):
        single = bayes_learn(users[s], intervals[s], 0.05, np.random.default_rng(s), epsilon=0.7)
        assert np.array_equal(batch[s], single)


@pytest.mark.parametrize(
    ("n", "B", "epsilon", "options"),
    [
        (2500, 4**9, 0.57, {}),
        (2500, 4**9, 1.0, AUTHORS_OPTIONS),
        (800, 1000, 0.3, {"rounding": "left"}),
        (400, 50, 2.0, {"selection": "numpy"}),  # few survivors: no second BayesLearn
    ],
)
def test_dp_bayess_runs_gives_each_run_the_coin_of_its_single_run(n, B, epsilon, options):
    users = _pareto(n, B, 11)
    rngs = [np.random.default_rng([7, s]) for s in range(25)]
    batch = dp_bayess_runs(users, B, epsilon, rngs, **options)
    single = [
        dp_bayess(users, B, epsilon, np.random.default_rng([7, s]), **options) for s in range(25)
    ]
    assert batch.tolist() == single
    assert len(set(single)) > 1  # the runs differ


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: learn_batch([], [], 0.1, []), "one entry per run"),
        (
            lambda: learn_batch([[1, 2]], [Intervals.full(4)], 0.1, [np.random.default_rng(0)] * 2),
            "one entry per run",
        ),
        (
            lambda: learn_batch(
                [[1, 2], [1]],
                [Intervals.full(4)] * 2,
                0.1,
                [np.random.default_rng(0), np.random.default_rng(1)],
            ),
            "same number of users",
        ),
        (
            lambda: learn_batch([[1], [2]], [Intervals.full(4)] * 2, 0.1, [RNG0, RNG0]),
            "distinct Generators",
        ),
        (lambda: dp_bayess_runs([1, 2] * 500, 8, 1.0, [RNG0, RNG0]), "distinct Generators"),
        (lambda: learn_batch([[1]], [4], 0.1, [np.random.default_rng(0)]), "Intervals"),
        (lambda: learn_batch([[1]], [Intervals.full(4)], 0.1, ["seed"]), "rng"),
        (lambda: learn_batch(np.ones((1, 2)), [Intervals.full(4)], 0.1, [None]), "lists"),
        (lambda: dp_bayess_runs([1, 2] * 500, 8, 1.0, []), "non-empty list"),
        (lambda: dp_bayess_runs([1, 2] * 500, 8, 1.0, np.random.default_rng(0)), "list"),
        (lambda: dp_bayess_runs([1, 2] * 500, 8, 1.0, [np.random.default_rng(0), 3]), "rng"),
        (lambda: dp_bayess_runs([1, 2] * 5, 8, 1.0, [np.random.default_rng(0)]), "n too small"),
    ],
)
def test_batched_bayes_learn_refuses_bad_input_with_a_clear_message(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()
