"""DpBayeSS (Alg. 3, App. I), the theoretical BayeSS (Thm 1.1, Thm C.1) and their exact laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpquant.reference.conformance import atom_test
from dpquant.reference.distributed_quantiles.bayess import bayess_statistical, bayess_theorem_1_1
from dpquant.reference.distributed_quantiles.naive_nbs import dp_naive_nbs
from dpquant.reference.distributed_quantiles.private_bayess import (
    AUTHORS_OPTIONS,
    dp_bayess,
    sample_split,
    select_quantiles,
    update_parameter,
)
from dpquant.reference.distributed_quantiles.protocol_enumeration import (
    ScriptedGenerator,
    protocol_law,
)
from dpquant.reference.distributed_quantiles.users import is_approximate_quantile


@pytest.mark.parametrize(
    ("n", "B", "split", "alpha"),
    [
        (2500, 4**9, (1949, 394, 157), 0.04239),
        (2500, 4**8, (1912, 414, 174), 0.03996),
        (2500, 10**6, (1980, 376, 144), 0.04460),
        (2500, 10**3, (1754, 490, 256), 0.03154),
    ],
)
def test_app_i_sample_split_and_update_parameter_reference_values(n, B, split, alpha) -> None:
    assert sample_split(n, B) == split
    assert update_parameter(n, B) == pytest.approx(alpha, abs=5e-6)


def test_first_reduction_keeps_about_ln_squared_b_quantiles() -> None:
    """γ₁ = 1/ln²B: for B = 4^9 the authors' rule asks for ⌊ln²B⌋ = 155 quantiles (Alg. 3)."""
    assert math.floor(math.log(4**9) ** 2) == 155
    L = np.arange(1, 1950)
    picks = select_quantiles(L, 1 / math.log(4**9) ** 2, "numpy")
    assert picks.size == 155
    paper = select_quantiles(L, 1 / math.log(4**9) ** 2, "paper")
    s = math.ceil(L.size / math.log(4**9) ** 2)
    assert paper.tolist() == L[s - 1 :: s][: L.size // s].tolist()


def test_selection_rules_paper_positions_and_numpy_interpolation_differ() -> None:
    L = np.array([5, 1, 9, 9, 2, 7, 3, 3, 8, 4, 6, 2, 10])
    paper = select_quantiles(L, 1 / 4, "paper")  # s = ⌈13/4⌉ = 4: positions 4, 8, 12 of sorted L
    assert paper.tolist() == sorted(L)[3:12:4]
    numpy_rule = select_quantiles(L, 1 / 4, "numpy")  # i = 1..⌊1/γ⌋ = 4: the max is included
    assert numpy_rule.tolist() == sorted({round(v) for v in np.quantile(L, [0.25, 0.5, 0.75, 1])})
    assert paper.tolist() != numpy_rule.tolist()


def _lomax(n: int, B: int, seed: int = 42) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(np.round(2000 * rng.pareto(1.5, n)), 0, B - 1).astype(np.int64) + 1


@pytest.mark.parametrize("options", [{}, AUTHORS_OPTIONS], ids=["paper", "authors"])
def test_dp_bayess_succeeds_at_large_epsilon_on_the_paper_data(options) -> None:
    """Pareto data, n = 2500, B = 4^9, ε = 5, α_test = 0.04: the paper reports 0.975 (200 runs);
    we measured ≥ 0.95 for both option sets over 2000 runs (notes/aamand25.md). P(≤ 28 successes
    of 40 | p ≥ 0.95) < 1e-7, so the assertion fails only if the protocol is broken."""
    users = _lomax(2500, 4**9)
    rng = np.random.default_rng(7)
    wins = sum(
        is_approximate_quantile(users, dp_bayess(users, 4**9, 5.0, rng, **options), 0.5, 0.04)
        for _ in range(40)
    )
    assert wins > 28


def test_dp_bayess_beats_naive_nbs_at_moderate_epsilon() -> None:
    """The paper's claim 5 in a small seeded form: at ε = 1.357 the paper has .760 vs .540.
    Over 60 paired runs DpBayeSS must win more often; with true rates 0.76 vs 0.54 the chance
    of the reverse order is < 1e-4 by Hoeffding on the difference — the full study is in
    `dpquant reproduce aamand25` (notes/aamand25.md), this is its smoke version."""
    users = _lomax(2500, 4**9)
    rng = np.random.default_rng(11)
    eps = float(np.geomspace(0.1, 5, 10)[6])
    bayes = sum(
        is_approximate_quantile(users, dp_bayess(users, 4**9, eps, rng), 0.5, 0.04)
        for _ in range(60)
    )
    nbs = sum(
        is_approximate_quantile(users, dp_naive_nbs(users, 4**9, eps, rng), 0.5, 0.04)
        for _ in range(60)
    )
    assert bayes > nbs


def test_every_user_answers_at_most_one_rr_query() -> None:
    """Sequential adaptivity (Eq. (2)): one permutation, and at most n RR bits on every path."""
    users = np.array([1, 3, 3, 4, 2, 4, 1, 2, 3])
    for script in ([], [0] * 1 + [1] * 30, [5] + [1, 0] * 15):
        gen = ScriptedGenerator(list(script))
        dp_bayess(users, 4, 1.0, gen, c=0.1)
        assert gen.kinds.count("perm9") == 1
        assert gen.kinds.count("rr") <= users.size


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda r: dp_bayess([], 64, 1.0, r), "users"),
        (lambda r: dp_bayess([1, 65], 64, 1.0, r), r"\[1, 64\]"),
        (lambda r: dp_bayess([1, 2], 64, 0.0, r), "epsilon"),
        (lambda r: dp_bayess([1, 2], 64, -1.0, r), "epsilon"),
        (lambda r: dp_bayess([1, 2], 1, 1.0, r), "B"),
        (lambda r: dp_bayess([1, 2], 2, 1.0, r), "B must be an integer >= 3"),
        (lambda r: dp_bayess(np.ones(10, int), 4**9, 1.0, r), "n too small"),
        (lambda r: dp_bayess([1, 2], 64, 1.0, r, rounding="up"), "rounding"),
        (lambda r: dp_bayess([1, 2], 64, 1.0, r, selection="mean"), "selection"),
        (lambda r: bayess_theorem_1_1([1, 2], 64, 1.0, r, alpha=0.3), "alpha"),
        (lambda r: bayess_theorem_1_1([1, 2], 64, 1.0, r, alpha=0.1), "n too small"),
        (lambda r: bayess_statistical([1] * 40, 64, 0.0, r, alpha=0.1), "epsilon"),
    ],
)
def test_protocols_reject_bad_input(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call(np.random.default_rng(0))


def test_theorem_1_1_protocol_finds_an_approximate_median() -> None:
    """Thm 1.1 with α = 0.2, ε = 0.9 (α' = αε/8 = 0.0225) on n = 60000 users of a bimodal set
    over B = 2^16: the guarantee holds w.h.p.; 5 of 5 seeded runs succeed (a correct protocol
    fails a run with probability far below 1e-2 at this n, measured 0/200 failures)."""
    rng = np.random.default_rng(3)
    users = np.concatenate([rng.integers(1, 20000, 30000), rng.integers(40000, 65537, 30000)])
    for _ in range(5):
        m = bayess_theorem_1_1(users, 2**16, 0.9, rng, alpha=0.2)
        assert is_approximate_quantile(users, m, 0.5, 0.2)


def test_theorem_c_1_statistical_protocol_finds_the_population_median() -> None:
    """Thm C.1: i.i.d. users from a discrete law on [2^12]; the output is an α-approximate median
    of the population CDF (α = 0.1, ε = 1, n = 40000)."""
    rng = np.random.default_rng(4)
    B = 2**12
    users = rng.binomial(B - 1, 0.3, 40000) + 1
    for _ in range(3):
        m = bayess_statistical(users, B, 1.0, rng, alpha=0.1)
        # population CDF of 1 + Binomial(B − 1, 0.3), from scipy
        from scipy.stats import binom

        f_m, f_next = binom.cdf(m - 1, B - 1, 0.3), binom.cdf(m, B - 1, 0.3)
        assert f_m < 0.6 and f_next > 0.4


@pytest.mark.parametrize(
    ("protocol", "options", "data"),
    [
        (dp_naive_nbs, {}, [1, 3, 4]),
        (dp_bayess, {"c": 0.1}, [1, 2, 4, 4]),
        (dp_bayess, {"c": 0.1, **AUTHORS_OPTIONS}, [2, 2, 3, 4]),
    ],
)
def test_enumerated_protocol_law_is_the_law_the_protocol_samples(protocol, options, data) -> None:
    """The exact law (every permutation and RR outcome) sums to 1 and the sampler conforms to it
    (atom test at level 1e-7)."""
    B, eps = 4, 1.0
    users = np.array(data)
    law = protocol_law(lambda r: protocol(users, B, eps, r, **options), eps)
    assert abs(float(sum(law.probabilities)) - 1) < 1e-12
    rng = np.random.default_rng(9)
    draws = np.array([protocol(users, B, eps, rng, **options) for _ in range(3000)])
    result = atom_test(draws, dict(zip(law.support, law.probabilities, strict=True)), alpha=1e-7)
    assert result.passed, result
