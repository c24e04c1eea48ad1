"""KSS ApproximateQuantiles on hostile data (issue 34): ties, values at the ends of the bounds,
subnormal values, many quantiles on few points. Each single release must be a draw of AQ's
recursion (notes/imola25.md, "Issue 34"): every EM call, given the values released before it,
follows ExponentialQuantile's exact law on its subset and range. Seeded; conformance tests at
α = 1e-7 each (:mod:`dpquant.reference.conformance`).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpquant.reference.conformance import dkw_test
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.slice_quantiles.aq_mechanism import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
)
from dpquant.reference.slice_quantiles.aq_recursion import Node, aq_plan, em_sensitivity
from dpquant.reference.slice_quantiles.subset_em import em_by_blocks

ALPHA = 1e-7
BOUNDS = (0.0, 1.0)


def _node_pits(
    x: np.ndarray, node: Node | None, sub: np.ndarray, lo: float, hi: float, out: np.ndarray,
    eps: float, pit: np.ndarray, rng: np.random.Generator,
) -> None:  # fmt: skip
    """PIT of every EM call of one release ``out`` below ``node`` (subset ``sub``, range (lo, hi)):
    the exact CDF of the call at its output; a call on a range of width zero must return lo (an
    atom: its PIT is drawn uniformly). Children: X_l = X_s[X_s <= v] on (lo, v) and
    X_u = X_s[X_s >= v] on (v, hi), as the fork splits."""
    if node is None:
        return
    v = float(out[node.index])
    if lo == hi:
        assert v == lo
        pit[node.index] = rng.random()
    else:
        law = ExponentialQuantile(node.q, eps, (lo, hi), "add_remove").exact(sub)
        pit[node.index] = float(law.cdf(v))
    _node_pits(x, node.left, sub[sub <= v], lo, v, out, eps, pit, rng)
    _node_pits(x, node.right, sub[sub >= v], v, hi, out, eps, pit, rng)


def assert_releases_follow_the_recursion(
    x: np.ndarray, qs: tuple[float, ...], out: np.ndarray, eps: float
) -> None:
    """Every column of the conditional PIT of the releases ``out`` (one per row) is uniform (DKW
    at α/m each)."""
    plan = aq_plan(qs)
    pit = np.empty_like(out)
    rng = np.random.default_rng(0)
    for s in range(out.shape[0]):
        _node_pits(x, plan.root, np.sort(x), *BOUNDS, out[s], eps, pit[s], rng)
    for col in range(len(qs)):
        dkw_test(pit[:, col], lambda u: np.clip(u, 0, 1), ALPHA / len(qs)).assert_ok()


@pytest.mark.parametrize(
    "data",
    [[0.5] * 5, [5e-324, 0.5], [0.0, 0.0, 1.0, 1.0], [1.0] * 4, [0.0] * 4, []],
    ids=["ties", "subnormal", "both-ends", "all-at-hi", "all-at-lo", "empty"],
)
@pytest.mark.parametrize("em_method", ["blocks", "linear"])
def test_a_single_aq_release_on_hostile_data_follows_its_recursion(data, em_method) -> None:
    """400 single releases of three quantiles on tied, subnormal or end-of-bounds data (the
    cases of issue 34 where an empty subset right of every point broke the blocks EM): each EM
    call follows its exact law given the values before it."""
    x = np.array(data, dtype=float)
    qs, eps = (0.25, 0.5, 0.75), 1.0
    rng = np.random.default_rng(34)
    out = np.array(
        [approximate_quantiles(x, qs, BOUNDS, eps, rng, em_method=em_method) for _ in range(400)]
    )
    per_call = ApproximateQuantilesMechanism(qs, eps, BOUNDS).epsilon_per_call
    assert_releases_follow_the_recursion(x, qs, out, per_call)


def test_seven_quantiles_on_two_tied_points_follow_the_recursion() -> None:
    """Many quantiles on few points: seven quantiles on two tied points, 300 single releases
    (blocks EM), every one of the seven EM calls of a release conditionally exact."""
    x = np.array([0.3, 0.3])
    qs = tuple(np.arange(1, 8) / 8)
    rng = np.random.default_rng(36)
    out = np.array([approximate_quantiles(x, qs, BOUNDS, 2.0, rng) for _ in range(300)])
    per_call = ApproximateQuantilesMechanism(qs, 2.0, BOUNDS).epsilon_per_call
    assert_releases_follow_the_recursion(x, qs, out, per_call)


@pytest.mark.parametrize(
    ("data", "m"),
    [([0.5] * 5, 3), ([5e-324, 0.5], 3), (np.linspace(0.001, 0.999, 200), 200), ([0.3], 49)],
    ids=["ties", "subnormal", "200-on-200", "49-on-1"],
)
def test_single_aq_releases_are_sorted_and_inside_the_bounds_for_every_seed(data, m) -> None:
    """Seeds 0..29 and ε from 1e-3 to 1e6 (the seeds 0, 1 and 4 of issue 34 included): every
    single release (blocks EM) is m finite sorted values inside the bounds."""
    qs = np.arange(1, m + 1) / (m + 1)
    for eps in (1e-3, 1.0, 1e6):
        for seed in range(30):
            out = approximate_quantiles(data, qs, BOUNDS, eps, np.random.default_rng(seed))
            assert out.shape == (m,) and np.all(np.isfinite(out))
            assert np.all(np.diff(out) >= 0) and out[0] >= 0.0 and out[-1] <= 1.0


def test_blocks_em_on_the_empty_subset_right_of_every_point_is_uniform_on_its_range() -> None:
    """The cause of issue 34's IndexError: a row whose subset is empty and starts at len(x) (AQ's
    X_u when the released value exceeds every point) is the uniform law on its range (DKW)."""
    x = np.array([0.1, 0.5, 0.5])
    n, q = 20_000, 0.25
    start, k = np.full(n, x.size), np.zeros(n, dtype=np.int64)
    lo, hi = np.full(n, 0.6), np.full(n, 0.9)
    scale = np.full(n, 1.0 / (2 * em_sensitivity(q)))
    draws = em_by_blocks(x, start, k, lo, hi, np.full(n, q), scale, np.random.default_rng(35))
    dkw_test(draws, lambda v: np.clip((v - 0.6) / 0.3, 0, 1), ALPHA).assert_ok()
