"""tzamos20 issue 39 item 2: the sweep of step 3 on integers equals the sweep on Fractions.

:func:`scaled_sweep` (one common scale D, Python ints) is what :func:`fast_envelope` runs;
:func:`sweep_envelope` (Fractions) is the reference it replaced, itself tested equal to the
direct tent minimum (``test_tzamos20_fast_envelope.py``). Compared here piece for piece (the same
Fractions): on the nested bounds of many seeded data sets (ties, values on the δ-lattice, at the
ends of Ξ and of [−B, B], outliers up to 10³⁰; n = 1..6 and auditor-sized n up to 34; both typical
sets and both caps of H_fix; C from 1/2 to 2; both median indices), and on arbitrary nested
intervals with several caps.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.private_median.extended_density import envelope_from_levels
from dpquant.reference.private_median.fast_envelope import (
    fast_envelope,
    nested_extremes,
    nested_level_bounds,
)
from dpquant.reference.private_median.fixed_typical_set import fixed_cap
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.sweep import common_scale, scaled_sweep, sweep_envelope

CS = [F(1, 2), F(3, 4), F(1), F(5, 4), F(3, 2), F(2)]
EDGES = [F(-11, 2), F(11, 2), F(-9), F(9), F(-1000), F(1000), F(10) ** 30, F(-1, 3), F(0)]
"""Ξ's ends, B's ends (R = 5, r = 1, C = 1), far outliers, a value off every dyadic grid."""


def data_set(rng: np.random.Generator, n: int, params: MedianParameters) -> list[F]:
    """n values of one of four kinds: a k/16 grid with ties, points of the δ-lattice, the edge
    values above mixed with a k/4 grid, and a few distinct values repeated."""
    kind = int(rng.integers(4))
    if kind == 0:
        return [F(int(k), 16) for k in rng.integers(-40, 41, n)]
    if kind == 1:
        return [int(k) * params.delta for k in rng.integers(-30, 31, n)]
    if kind == 2:
        pool = EDGES + [F(int(k), 4) for k in range(-24, 25)]
        return [pool[int(i)] for i in rng.integers(len(pool), size=n)]
    few = [F(int(k), 8) for k in rng.integers(-20, 21, 2)]
    return [few[int(i)] for i in rng.integers(2, size=n)]


def _cases(seed: int, count: int, sizes: list[int]):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = sizes[int(rng.integers(len(sizes)))]
        params = MedianParameters(
            n, F(1, 2), F(1), F(5), CS[int(rng.integers(len(CS)))], ("ceil", "floor")[n % 2]
        )
        yield data_set(rng, n, params), params


def _fraction_path(x: list[F], params: MedianParameters, typical_set: str, cap: F | None):
    """The construction before issue 39: nested bounds as Fractions, then the Fraction sweep."""
    return sweep_envelope(nested_level_bounds(x, params, typical_set), params, cap)


@pytest.mark.parametrize(
    "seed, count, sizes",
    [(0, 250, [1, 2, 3, 4, 5, 6]), (1, 60, list(range(7, 35)))],
    ids=["n=1..6", "n=7..34"],
)
def test_the_integer_sweep_gives_the_pieces_of_the_fraction_sweep_on_many_data_sets(
    seed, count, sizes
) -> None:
    """fast_envelope (integer lattice values, integer sweep) = the Fraction sweep on the
    Fraction nested bounds, for the paper's H (when non-empty) and for H_fix with both caps."""
    compared = 0
    for x, params in _cases(seed, count, sizes):
        for rule in ("four_k", "tight"):
            cap = fixed_cap(params, rule)
            assert fast_envelope(x, params, "fixed", cap) == _fraction_path(x, params, "fixed", cap)
        if params.windows + 1 <= params.n:
            assert fast_envelope(x, params) == _fraction_path(x, params, "paper", None)
            compared += 1
    assert compared > count // 3  # the paper's H was non-empty often enough to compare


def test_common_scale_makes_every_quantity_of_the_sweep_an_even_integer() -> None:
    """D·δ, D·cap, D·B, D/s and D·v for the given denominators are integers, D·cap, D·B and D/s
    even (what makes every crossing of two forms an integer)."""
    params = MedianParameters(7, F(1, 2), F(1), F(5), F(3, 4))
    cap = fixed_cap(params, "tight")
    scale = common_scale(params, cap, [3, 16])
    s = params.L * params.n / (6 * params.C)
    for value in (params.delta, F(1, 3), F(1, 16)):
        assert (value * scale).denominator == 1
    for value in (cap * scale, params.output_bound * scale, scale / s):
        assert value.denominator == 1 and value.numerator % 2 == 0


@given(
    st.lists(st.tuples(st.integers(-40, 40), st.integers(0, 30)), min_size=1, max_size=8).map(
        lambda ab: sorted({(F(a, 12), F(a, 12) + F(b, 7)) for a, b in ab})
    ),
    st.sampled_from([F(1, 2), F(1), F(3, 2), F(7, 5)]),
    st.sampled_from(CS),
)
def test_the_integer_sweep_equals_the_fraction_sweep_on_arbitrary_nested_intervals(
    intervals, cap_scale, c
) -> None:
    """Levels 0, 1, … with arbitrary intervals (denominators 12 and 7, not from data), several
    caps and C: the integer sweep's pieces = the Fraction sweep's = the direct tent minimum."""
    params = MedianParameters(10, F(1, 2), F(1), F(5), c)
    nested = nested_extremes({k: iv for k, iv in enumerate(intervals)})
    cap = 3 * params.C * params.r * cap_scale
    scale = common_scale(params, cap, [12 * 7])
    ints = [(k, int(lo * scale), int(hi * scale)) for k, lo, hi in nested]
    expect = sweep_envelope(nested, params, cap)
    assert scaled_sweep(ints, scale, params, cap) == expect
    assert expect == envelope_from_levels({k: (lo, hi) for k, lo, hi in nested}, params, cap=cap)


def test_scaled_sweep_refuses_a_scale_that_would_put_a_crossing_off_the_integers() -> None:
    """An odd scale, or one that leaves D/s, D·cap or D·B fractional or odd, and odd or
    non-nested bounds are refused naming ``scale`` or ``nested`` (never a wrong answer)."""
    params = MedianParameters(4, F(1, 2), F(1), F(5), F(1))  # s = 1/3, B = 9, cap = 3
    nested = [(0, -2, 2), (1, -4, 4)]
    assert scaled_sweep(nested, 2, params, F(3))  # D = 2: D/s = 6, D·cap = 6, D·B = 18
    for scale in (1, 3, 0, -2, 2.0, True):
        with pytest.raises(ValueError, match="scale"):
            scaled_sweep(nested, scale, params, F(3))
    with pytest.raises(ValueError, match="scale"):
        scaled_sweep(nested, 2, params, F(3, 2))  # D·cap = 3: odd
    for bad in (
        [],
        [(0, -1, 1)],
        [(1, -2, 2), (0, -4, 4)],
        [(0, -4, 4), (1, -2, 2)],
        [(0, 2.0, 4)],
    ):
        with pytest.raises(ValueError, match="nested"):
            scaled_sweep(bad, 2, params, F(3))
    with pytest.raises(ValueError, match="denominators"):
        common_scale(params, F(3), [2, 0])
    with pytest.raises(ValueError, match="cap"):
        common_scale(params, -1, [2])
    assert math.gcd(common_scale(params, F(3), []), 2) == 2
