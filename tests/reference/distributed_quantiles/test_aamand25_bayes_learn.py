"""BayesLearn (Alg. 2): the log-space weight tree against the exact array, rounding, invariants."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.reference.distributed_quantiles.bayes_learning import Intervals, bayes_learn
from dpquant.reference.distributed_quantiles.channel import bayes_weights
from dpquant.reference.distributed_quantiles.weight_tree import ArrayWeights, LogWeightTree


def _factors(alpha: Fraction, y: int, q: Fraction = Fraction(1, 2)) -> tuple[Fraction, Fraction]:
    """Exact factors (d_{y,0}, d_{y,1}) with q·d_{y,0} + (1 − q)·d_{y,1} = 1, as the Bayes weights
    of App. E satisfy at their q (for q = 1/2: 1 ± 2α)."""
    a = 4 * alpha
    up, down = (1 + a * (1 - q), 1 - a * q) if y == 1 else (1 - a * (1 - q), 1 + a * q)
    return up, down


@settings(max_examples=40, deadline=None)
@given(
    N=st.integers(1, 40),
    q=st.fractions(Fraction(1, 20), Fraction(19, 20)).filter(lambda f: f.denominator > 7),
    alpha=st.sampled_from([Fraction(1, 50), Fraction(1, 10), Fraction(1, 5)]),
    answers=st.lists(st.integers(0, 1), min_size=1, max_size=60),
)
def test_alg2_log_tree_matches_exact_fraction_weights_step_by_step(N, q, alpha, answers) -> None:
    """Same located interval, same k and the same weights as exact rational arithmetic."""
    tree, exact = LogWeightTree(N), ArrayWeights(N, exact=True)
    for y in answers:
        a, b = tree.locate(float(q)), exact.locate(q)
        assert a.j == b.j
        assert abs(a.k - float(b.k)) < 1e-9
        left, right = _factors(alpha, y, q)
        cell = b.k * left + (1 - b.k) * right
        exact.update(left, right, cell)
        tree.update(math.log(left), math.log(right), math.log(a.k * left + (1 - a.k) * right))
        got = np.array(tree.log_weights())
        want = np.array([math.log(w) for w in exact.w])
        assert np.max(np.abs(got - want)) < 1e-9
        assert sum(exact.w) == 1  # Σw = 1 exactly: q·d_{y,0} + (1 − q)·d_{y,1} = 1 (Alg. 2)


def test_alg2_tie_at_an_interval_end_gives_the_same_coin_and_posterior() -> None:
    """W(j) = q exactly (uniform weights, N even): j with k = 1 or j + 1 with k = 0 are the same
    q-point; the paper's rounding flips coin j + 1 in both readings and the updates agree."""
    N, q = 8, 0.5
    exact = ArrayWeights(N, exact=True)
    loc = exact.locate(Fraction(1, 2))
    assert (loc.j, loc.k) == (4, 1)
    tree = LogWeightTree(N)
    t = tree.locate(q)
    coin_exact = loc.j + 1 if loc.k > q else loc.j
    coin_tree = t.j + 1 if t.k > q else t.j
    assert coin_exact == coin_tree == 5
    left, right = _factors(Fraction(1, 10), 1)
    exact.update(left, right, loc.k * left + (1 - loc.k) * right)
    tree.update(math.log(left), math.log(right), math.log(t.k * left + (1 - t.k) * float(right)))
    assert np.allclose(tree.log_weights(), [math.log(w) for w in exact.w], atol=1e-12)


def test_log_tree_on_two_to_the_32_allocates_only_along_the_search() -> None:
    """B = 2^32: 3000 steps create O(steps·log B) nodes, never B cells (O(log B) per step)."""
    tree = LogWeightTree(2**32 - 1)
    rng = np.random.default_rng(5)
    up, down = math.log(1.02), math.log(0.98)
    for y in rng.integers(0, 2, 3000):
        loc = tree.locate(0.5)
        a, b = (up, down) if y else (down, up)
        tree.update(a, b, math.log(loc.k * math.exp(a) + (1 - loc.k) * math.exp(b)))
    assert tree.nodes < 3000 * 2 * 33
    assert abs(tree.log_total()) < 1e-9


def test_log_tree_weights_do_not_underflow_when_the_posterior_concentrates() -> None:
    """After 20000 one-sided steps the far weights are ~e^-8000, far below the smallest double,
    and still finite in log space; the total stays 1."""
    tree = LogWeightTree(1000)
    up, down = math.log(1.4), math.log(0.6)
    for _ in range(20000):
        loc = tree.locate(0.5)
        tree.update(up, down, math.log(loc.k * 1.4 + (1 - loc.k) * 0.6))
    far = tree.log_weight(1000)
    assert math.isfinite(far) and far < -745
    assert abs(tree.log_total()) < 1e-6


def _run(users, rounding, seed=0, B=64, eps=None):
    return bayes_learn(
        np.asarray(users),
        Intervals.full(B),
        0.1,
        np.random.default_rng(seed),
        epsilon=eps,
        rounding=rounding,
    )


def test_alg2_non_private_learner_homes_in_on_the_median_interval() -> None:
    """No RR, all users at 20 on [64]: the queries end at the interval [19, 20] or [20, 21]."""
    L = _run(np.full(400, 20), "paper")
    assert set(L[-50:].tolist()) <= {19, 20}


def test_roundings_differ_and_left_rounding_always_flips_the_left_coin() -> None:
    """With the authors' always-left rounding the coin is the interval's left end, so a target
    exactly at a coin is approached from one side only; the paper's rule uses both ends."""
    users = np.full(300, 33)
    paper, left = _run(users, "paper"), _run(users, "left")
    assert not np.array_equal(paper, left)


def test_bayes_learn_with_asymmetric_target_uses_the_general_weights() -> None:
    """τ = 0.3 without RR: the learner's q-point and factors are the channel's (App. E)."""
    w = bayes_weights(0.3, 0.1)
    assert 0 < w.q < 1 and w.q != 0.5
    users = np.concatenate([np.full(30, 10), np.full(70, 50)])
    L = bayes_learn(
        np.random.default_rng(1).permutation(np.tile(users, 4)),
        Intervals.full(64),
        0.1,
        np.random.default_rng(2),
        tau=0.3,
    )
    assert np.median(L[-100:]) <= 12


def test_intervals_from_coins_validates_and_maps_coins() -> None:
    iv = Intervals.from_coins([1, 5, 9], [3, 8, 12])
    assert (iv.count, iv.left(2), iv.right(3)) == (3, 5, 12)
    full = Intervals.full(10)
    assert (full.count, full.left(4), full.right(4)) == (9, 4, 5)
    with pytest.raises(ValueError, match="lefts and rights"):
        Intervals.from_coins([1, 2], [3])
    with pytest.raises(ValueError, match="sorted"):
        Intervals.from_coins([5, 1], [6, 2])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rounding": "right"}, "rounding"),
        ({"tau": 0.0}, "tau"),
        ({"tau": 1.5}, "tau"),
        ({"eps": -1.0}, "epsilon"),
    ],
)
def test_bayes_learn_bad_input(kwargs, match) -> None:
    eps = kwargs.pop("eps", None)
    with pytest.raises(ValueError, match=match):
        bayes_learn(
            np.array([1, 2]),
            Intervals.full(8),
            0.1,
            np.random.default_rng(0),
            epsilon=eps,
            **kwargs,
        )


def test_bayes_learn_rejects_an_update_parameter_outside_the_channel_range() -> None:
    with pytest.raises(ValueError, match="alpha"):
        bayes_learn(np.array([1, 2]), Intervals.full(8), 0.6, np.random.default_rng(0))
