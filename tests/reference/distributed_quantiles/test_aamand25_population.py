"""aamand25: the counts sampler of the batched searches (DpNaiveNBS, App. I; the shuffle search,
App. I.3) has the exact law of the per-user sampler.

The exact tests enumerate every random choice of both samplers on tiny inputs
(:func:`protocol_law`) and compare the two 50-digit laws; the statistical test is seeded and its
failure bound is stated.
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpquant.reference.distributed_quantiles import hierarchical as hier
from dpquant.reference.distributed_quantiles import population as pop
from dpquant.reference.distributed_quantiles.amplification import shuffle_local_epsilon
from dpquant.reference.distributed_quantiles.naive_nbs import dp_naive_nbs
from dpquant.reference.distributed_quantiles.population import CountStream, Population
from dpquant.reference.distributed_quantiles.protocol_enumeration import protocol_law
from dpquant.reference.distributed_quantiles.shuffle_search import shuffle_nbs
from dpquant.reference.distributed_quantiles.users import UserStream
from dpquant.reference.primitives.randomized_response import keep_probability


def _same_law(a, b) -> None:
    assert set(a.support) == set(b.support)
    for atom in a.support:
        assert abs(a.pmf_mp(atom) - b.pmf_mp(atom)) < mpmath.mpf(10) ** -45


@pytest.mark.parametrize(
    ("users", "B", "epsilon", "options"),
    [
        ([1, 2, 2, 5, 7], 8, 0.7, {}),  # three rounds over 8 coins, a tie
        ([3, 1, 4, 1, 5], 8, 1.3, {"tau": 0.3}),
        ([6, 6, 6, 2], 8, 0.4, {"faithful": True}),  # every answer may go left
        ([2, 9, 4, 7, 1], 10, 2.0, {"coins": [2, 4, 7, 9]}),  # a subset of coins
    ],
)
def test_counts_sampler_has_the_exact_law_of_one_rr_bit_per_user(users, B, epsilon, options):
    per_user = protocol_law(lambda g: dp_naive_nbs(users, B, epsilon, g, **options), epsilon)
    counts = protocol_law(
        lambda g: dp_naive_nbs(users, B, epsilon, g, sampler="counts", **options), epsilon
    )
    assert len(per_user.support) > 1  # the law is not trivial
    _same_law(per_user, counts)


def test_a_given_population_and_raw_users_give_the_same_counts_law() -> None:
    users, B, eps = [5, 1, 3, 3, 8], 8, 0.9
    raw = protocol_law(lambda g: dp_naive_nbs(users, B, eps, g, sampler="counts"), eps)
    sorted_once = Population.of(users, B)
    given_pop = protocol_law(lambda g: dp_naive_nbs(sorted_once, B, eps, g, sampler="counts"), eps)
    _same_law(raw, given_pop)


def test_counts_sampler_agrees_with_per_user_draws_on_two_thousand_users() -> None:
    """Beyond enumeration: the outputs of 3 000 runs of each sampler on n = 2 000 Pareto-like
    users (B = 256, ε = 0.5) are compared by a chi-square test of homogeneity (bins with fewer
    than 20 runs in all merged). A correct sampler fails with probability 1e-7."""
    rng = np.random.default_rng(20261126)
    users = np.minimum(256, 1 + np.floor(rng.pareto(1.5, 2000) * 20)).astype(np.int64)
    P = Population.of(users, 256)
    runs = 3000
    a = [dp_naive_nbs(users, 256, 0.5, np.random.default_rng([1, i])) for i in range(runs)]
    b = [
        dp_naive_nbs(P, 256, 0.5, np.random.default_rng([2, i]), sampler="counts")
        for i in range(runs)
    ]
    coins = np.union1d(a, b)
    ca = np.array([np.sum(np.equal(a, c)) for c in coins])
    cb = np.array([np.sum(np.equal(b, c)) for c in coins])
    keep = (ca + cb) >= 20
    table = np.array([[*ca[keep], ca[~keep].sum()], [*cb[keep], cb[~keep].sum()]])
    table = table[:, table.sum(axis=0) > 0]
    assert table.shape[1] >= 5  # the output is spread over several coins
    assert stats.chi2_contingency(table).pvalue > 1e-7


def test_shuffle_search_runs_the_counts_sampler_at_its_local_epsilon() -> None:
    """The shuffle search by counts is DpNaiveNBS by counts at the amplified ε_L (App. I.3),
    on the raw array or on its Population alike."""
    users = np.arange(1, 20_001) % 64 + 1
    eps_local = shuffle_local_epsilon(1.0, 1e-6, users.size, 64, "authors")
    options = {"local_epsilon": "authors", "sampler": "counts"}
    for seed in range(5):
        got = [
            shuffle_nbs(data, 64, 1.0, 1e-6, np.random.default_rng(seed), **options)
            for data in (users, Population.of(users, 64))
        ]
        local = dp_naive_nbs(users, 64, eps_local, np.random.default_rng(seed), sampler="counts")
        assert got[0] == got[1] == local


@given(
    users=st.lists(st.integers(1, 12), min_size=1, max_size=40),
    queries=st.lists(st.tuples(st.integers(0, 10), st.integers(0, 13)), max_size=8),
    coin=st.integers(0, 13),
    seed=st.integers(0, 2**32 - 1),
)
def test_count_stream_keeps_every_cell_consistent_and_the_last_batch_is_exact(
    users, queries, coin, seed
):
    """Cells partition the users (each holds exactly the users between its edges), no cell
    gives more users than it holds, and once every user is handed out the cells at or below
    any coin gave exactly |{x ≤ c}|."""
    P = Population.of(users, 12)
    stream = CountStream(P, np.random.default_rng(seed))
    for k, c in queries:
        k = min(k, stream.remaining)
        got = stream.count_at_most(k, c)
        assert 0 <= got <= k
        assert sum(stream._total) == P.n and sum(stream._taken) == stream.used
        assert all(0 <= m <= t for m, t in zip(stream._taken, stream._total, strict=True))
        edges = [-np.inf, *stream._edges, np.inf]
        for j, t in enumerate(stream._total):
            assert t == np.sum((np.asarray(users) > edges[j]) & (np.asarray(users) <= edges[j + 1]))
    left = stream.remaining
    last = stream.count_at_most(left, coin)
    assert 0 <= last <= left and stream.remaining == 0
    assert stream._taken == stream._total  # every user handed out, cell by cell
    upper = [*stream._edges, np.inf]
    assert sum(m for m, e in zip(stream._taken, upper, strict=True) if e <= coin) == P.at_most(coin)


def test_count_stream_refuses_more_users_than_remain() -> None:
    stream = CountStream(Population.of([1, 2, 3], 4), np.random.default_rng(0))
    stream.take(2, "first")
    with pytest.raises(ValueError, match="n too small for second: it needs 2 users but only 1"):
        stream.count_at_most(2, 2, "second")
    user_stream = UserStream(np.array([1, 2, 3]), np.random.default_rng(0))
    user_stream.take(2)
    with pytest.raises(ValueError, match="n too small"):
        user_stream.take(2)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: Population.of([1, 2, 9], 8), r"users must lie in \[1, 8\]"),
        (lambda: Population.of([True, False], 8), "booleans"),
        (lambda: Population.of([1.5], 8), "integer"),
        (lambda: Population.of([float("nan")], 8), "got nan"),
        (lambda: Population.of([], 8), "non-empty"),
        (lambda: Population.of(Population.of([1, 2], 8), 4), r"Population over \[1, 8\]"),
        (lambda: CountStream([1, 2], np.random.default_rng(0)), "population must be"),
        (lambda: CountStream(Population.of([1], 2), "seed"), "rng"),
        (
            lambda: dp_naive_nbs([1, 2], 2, 1.0, np.random.default_rng(0), sampler="fast"),
            "sampler must be one of",
        ),
        (
            lambda: shuffle_nbs([1, 2], 2, 1.0, 1e-6, np.random.default_rng(0), sampler=None),
            "sampler must be one of",
        ),
        (
            lambda: dp_naive_nbs(Population.of([1, 2], 8), 4, 1.0, np.random.default_rng(0)),
            r"Population over \[1, 8\]",
        ),
    ],
)
def test_counts_sampler_refuses_bad_input_with_a_clear_message(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_population_refuses_more_users_than_the_hypergeometric_sampler_takes(monkeypatch):
    monkeypatch.setattr(pop, "MAX_POPULATION", 3)
    with pytest.raises(ValueError, match="at most 3 users for the counts sampler"):
        Population.of([1, 2, 3, 4], 8)


def test_protocol_law_refuses_draws_it_cannot_enumerate() -> None:
    for run in (
        lambda g: int(g.poisson(1.0)),
        lambda g: int(g.spawn(1)[0].random() > 0.5),
        lambda g: int(g.binomial(3, 0.123)),  # not the keep probability
        lambda g: int(g.binomial(10**6, keep_probability(1.0))),  # too many outcomes
        lambda g: int(g.hypergeometric(10**6, 10**6, 10**6)),
        lambda g: int(g.multivariate_hypergeometric([50] * 6, 60)[0]),
    ):
        with pytest.raises(ValueError, match="cannot be enumerated"):
            protocol_law(run, 1.0)


def test_hm_level_counts_by_counts_have_the_exact_law_of_one_uniform_level_per_user() -> None:
    """Users [1, 1, 2, 4] on B = 4, branching 2 (k = 2 levels): the exact law of the per-level
    node counts is the average over the 2^4 level assignments. 20 000 draws of each sampler are
    tested against it by a chi-square goodness-of-fit test (every outcome has mass >= 1/16); a
    correct sampler fails with probability 1e-7 each."""
    users, B, b, k = [1, 1, 2, 4], 4, 2, 2
    exact: dict[tuple, float] = {}
    for levels in itertools.product((1, 2), repeat=len(users)):
        x, lv = np.array(users), np.array(levels)
        key = tuple(
            tuple(np.bincount(hier.node_index(x[lv == level], level, k, b), minlength=b**level))
            for level in (1, 2)
        )
        exact[key] = exact.get(key, 0.0) + 0.5 ** len(users)
    keys = sorted(exact)
    P = Population.of(users, B)
    for sampler, data in (("per_user", users), ("counts", P)):
        rng = np.random.default_rng(7)
        seen: dict[tuple, int] = {}
        for _ in range(20_000):
            got = hier._level_node_counts(data, B, k, b, rng, None, sampler)
            key = tuple(tuple(int(v) for v in level) for level in got)
            seen[key] = seen.get(key, 0) + 1
        assert set(seen) <= set(exact)
        observed = np.array([seen.get(key, 0) for key in keys])
        expected = 20_000 * np.array([exact[key] for key in keys])
        assert stats.chisquare(observed, expected).pvalue > 1e-7, sampler


def test_hm_by_counts_runs_on_a_population_and_refuses_fixed_levels() -> None:
    users = np.arange(1, 5001) % 256 + 1
    coin = hier.hierarchical_median(
        Population.of(users, 256), 256, 2.0, np.random.default_rng(0), sampler="counts"
    )
    assert 1 <= coin <= 256
    with pytest.raises(ValueError, match="levels fixes each user's level"):
        hier.level_estimates(
            users, 256, 1.0, np.random.default_rng(0), levels=[1] * 5000, sampler="counts"
        )
    with pytest.raises(ValueError, match="sampler must be one of"):
        hier.hierarchical_median(users, 256, 1.0, np.random.default_rng(0), sampler="fast")
