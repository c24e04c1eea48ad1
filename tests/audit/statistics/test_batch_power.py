"""dpquant.audit.statistics.batch_power: the batched float screen equals the per-pair one, bit for
bit, and fails as it does."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpquant.audit.statistics.batch_power import CdfTable, pair_powers
from dpquant.audit.statistics.power import PairPower, pair_power
from dpquant.reference.distributions import DiscreteLaw, GridLaw, PiecewiseLogLinear, ProductLaw
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.laplace import laplace_law

N_EVAL, DELTA, ALPHA = 100_000, 0.0, 1e-6


def bits(pw: PairPower) -> tuple[object, ...]:
    """Every field, floats by their bits (so -0.0 is not 0.0 and NaN is itself)."""
    return tuple(v.hex() if isinstance(v, float) else v for v in vars(pw).values())


def random_discrete(rng: np.random.Generator) -> DiscreteLaw:
    support = rng.choice(6, size=rng.integers(1, 5), replace=False).tolist()
    weights = rng.choice([0.0, -0.5, -1.0, -3.0, -40.0], size=len(support))  # ties on purpose
    return DiscreteLaw(support, weights.tolist())


def random_piecewise(rng: np.random.Generator) -> PiecewiseLogLinear:
    inner = np.sort(rng.choice([0.125, 0.25, 0.5, 0.75, 0.875], rng.integers(0, 4), replace=False))
    breaks = [0.0, *inner.tolist(), 1.0]
    if rng.random() < 0.3:  # unbounded sides
        breaks = [-math.inf, *breaks[1:-1], math.inf] if len(breaks) > 2 else breaks
    m = len(breaks) - 1
    slopes = rng.choice([0.0, 0.0, 2.0, -3.0], size=m)
    if math.isinf(breaks[0]):
        slopes[0] = 1.0
    if math.isinf(breaks[-1]):
        slopes[-1] = -1.0
    return PiecewiseLogLinear(breaks, slopes.tolist(), rng.choice([0.0, 0.5, -1.0], m).tolist())


def random_grid(rng: np.random.Generator) -> GridLaw:
    axes = [[0, 1, 2], [0, 1]] if rng.random() < 0.5 else [[0, 1, 2], [0, 0.5, 1]]
    shape = (len(axes[0]) - 1, len(axes[1]) - 1)
    return GridLaw(axes, rng.choice([0.0, -0.5, 1.0], size=shape).tolist())


def random_pairs(seed: int, count: int) -> list[tuple[object, object]]:
    """Pairs of each law type, pairs of a law with itself, and mismatched (singular) pairs."""
    rng = np.random.default_rng(seed)
    makers = {
        "discrete": random_discrete,
        "piecewise": random_piecewise,
        "grid": random_grid,
        "product": lambda r: ProductLaw([random_discrete(r), random_piecewise(r)]),
    }
    pool = {kind: [make(rng) for _ in range(6)] for kind, make in makers.items()}
    pairs: list[tuple[object, object]] = []
    for _ in range(count):
        kind = rng.choice(list(makers))
        p, q = rng.choice(len(pool[kind]), size=2)  # laws shared between pairs, and p = q
        pairs.append((pool[kind][p], pool[kind][q]))
        if rng.random() < 0.1:  # a density against atoms: mutually singular
            pairs.append((pool["discrete"][p], pool["piecewise"][q]))
    return pairs


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("delta", "n_eval"), [(0.0, 100_000), (1e-5, 2_000), (0.3, 50)])
def test_pair_powers_equals_pair_power_bit_for_bit_on_random_pairs(seed, delta, n_eval) -> None:
    pairs = random_pairs(seed, 60)
    want = [bits(pair_power(p, q, n_eval, delta, ALPHA)) for p, q in pairs]
    assert [bits(pw) for pw in pair_powers(pairs, n_eval, delta, ALPHA)] == want
    assert any(w[0] == math.inf.hex() for w in want)  # singular pairs are among them


def test_pair_powers_equals_pair_power_on_exponential_mechanism_pairs_with_one_table() -> None:
    """The exact stage's case: many piecewise laws, each in many pairs, over several batches
    that share a table of cdf values."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    data = [[0.5], [0.0, 1.0], [0.25, 0.5, 0.75], [0.5, 0.5, 1.0], [0.1, 0.2], [1.0]]
    laws = [em.exact(d) for d in data]
    pairs = [(p, q) for p in laws for q in laws]
    table = CdfTable()
    first = pair_powers(pairs[:20], N_EVAL, DELTA, ALPHA, table)
    second = pair_powers(pairs[10:], N_EVAL, DELTA, ALPHA, table)
    want = [bits(pair_power(p, q, N_EVAL, DELTA, ALPHA)) for p, q in pairs]
    assert [bits(pw) for pw in first] == want[:20]
    assert [bits(pw) for pw in second] == want[10:]


def test_pair_powers_takes_the_same_event_on_log_ratio_ties_and_laplace_tails() -> None:
    rr = DiscreteLaw([0, 1, 2, 3], [0.0, 0.0, -1.0, -1.0])
    flipped = DiscreteLaw([0, 1, 2, 3], [-1.0, -1.0, 0.0, 0.0])
    pairs = [(rr, flipped), (flipped, rr), (laplace_law(0.0, 1.0), laplace_law(1.5, 1.0))]
    got = pair_powers(pairs, N_EVAL, DELTA, ALPHA)
    assert [bits(pw) for pw in got] == [
        bits(pair_power(p, q, N_EVAL, DELTA, ALPHA)) for p, q in pairs
    ]
    # both tied atoms are in the event: mass 2/(2 + 2/e) against 2/e / (2 + 2/e)
    assert got[0].p0 == pytest.approx(1 / (1 + math.exp(-1.0)), abs=1e-12)
    assert got[0].p1 == pytest.approx(math.exp(-1.0) / (1 + math.exp(-1.0)), abs=1e-12)


def test_pair_powers_of_no_pair_is_empty_and_arguments_are_checked() -> None:
    assert pair_powers([], N_EVAL, DELTA, ALPHA) == []
    law = DiscreteLaw([0, 1], [0.0, -1.0])
    with pytest.raises(ValueError, match="n_eval"):
        pair_powers([(law, law)], 0, DELTA, ALPHA)
    with pytest.raises(ValueError, match="alpha"):
        pair_powers([(law, law)], N_EVAL, DELTA, 1.0)


class NaNLaw(DiscreteLaw):
    """A law whose float probabilities are NaN (what a broken law would yield)."""

    @property
    def probabilities(self) -> np.ndarray:
        return np.full(len(self.support), math.nan)


class MasslessLaw(DiscreteLaw):
    """A law whose float probabilities all underflowed to 0."""

    @property
    def probabilities(self) -> np.ndarray:
        return np.zeros(len(self.support))


def _error(p: object, q: object) -> str:
    with pytest.raises(ValueError) as info:
        pair_power(p, q, N_EVAL, DELTA, ALPHA)
    return str(info.value)


def test_pair_powers_raises_the_error_of_the_first_pair_that_fails() -> None:
    good = DiscreteLaw([0, 1], [0.0, -1.0])
    nan, massless = NaNLaw([0, 1], [0.0, 0.0]), MasslessLaw([0, 1], [0.0, 0.0])
    assert "NaN cell masses" in _error(nan, good)
    assert _error(massless, massless) != _error(nan, good)
    for pairs, first in (
        ([(good, good), (nan, good), (massless, massless)], (nan, good)),
        ([(good, good), (massless, massless), (nan, good)], (massless, massless)),
        ([(good, nan)], (good, nan)),
    ):
        with pytest.raises(ValueError) as info:
            pair_powers(pairs, N_EVAL, DELTA, ALPHA)
        assert str(info.value) == _error(*first)


def test_cdf_table_reads_the_values_of_one_cdf_call_and_refuses_points_not_prepared() -> None:
    law = laplace_law(0.0, 1.0)
    table = CdfTable()
    table.prepare([(law, np.array([-1.0, 0.5])), (law, np.array([2.0, -1.0]))])
    table.prepare([(law, np.array([0.25, -math.inf]))])  # a later batch adds points
    points = np.array([2.0, -math.inf, 0.25, -1.0, 0.5])
    assert table.values(law, points).tolist() == law.cdf(points).tolist()
    with pytest.raises(KeyError):
        table.values(law, np.array([0.3]))
    with pytest.raises(KeyError):
        table.values(laplace_law(0.0, 2.0), points)
