"""tzamos20 extended density: the exact envelope Ψ_X and Z_X (Eq. (A.6), Lemma E.8; the regression
fixtures of ``notes/tzamos20.md``)."""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.private_median.extended_density import (
    envelope,
    envelope_brute,
    level_extremes,
    log_normalizer,
    tent_slope,
)
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.typical_set import in_typical_set

FIXTURE_PARAMS = dict(L=F(1, 2), r=F(1), R=F(5), C=F(1))  # B = 9, Ξ = [−11/2, 11/2], ε = 1

# the regression fixtures (notes/tzamos20.md): data, k-extremes, Ψ pieces (lo, hi, slope,
# intercept), log Z (25 digits)
FIXTURES = [
    (
        [-5, -5, -5, 0, 0, 0, 5, 5],
        {0: (0, 0), 1: (-5, -5), 3: (-5, 5), 4: (F(-11, 2), -5), 5: (5, F(11, 2))},
        [(-9, -3, 0, -2), (-3, F(-3, 2), F(2, 3), 0), (F(-3, 2), F(3, 2), 0, -1),
         (F(3, 2), 3, F(-2, 3), 0), (3, 9, 0, -2)],
        "2.036801826371617420966021",
    ),
    (
        [F(-1, 4), F(-1, 8), 0, 0, F(1, 8), F(1, 4), F(3, 8), F(1, 2)],
        {0: (0, 0), 1: (0, F(1, 8)), 2: (F(-1, 8), F(1, 4)), 3: (F(-1, 4), F(3, 8)),
         4: (F(-11, 2), F(1, 2)), 5: (F(1, 2), F(11, 2))},
        [(-9, -3, 0, -2), (-3, 0, F(2, 3), 0), (0, 3, F(-2, 3), 0), (3, 9, 0, -2)],
        "2.105021156746277834861473",
    ),
    ([1000] * 8, {4: (F(-11, 2), F(11, 2))}, [(-9, 9, 0, 2)], "3.890371757896164692207723"),
    (
        [-3, -1, 0, 2, 4, 6],
        {1: (-1, 2), 2: (-3, 4), 3: (F(-11, 2), F(11, 2))},
        [(-9, -1, 0, F(-1, 2)), (-1, F(1, 2), F(1, 2), 0), (F(1, 2), 2, F(-1, 2), F(1, 2)),
         (2, 9, 0, F(-1, 2))],
        "2.675306124537438242384848",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("data", "extremes", "pieces", "log_z"), FIXTURES)
def test_regression_fixtures_are_reproduced_exactly_and_log_z_to_20_digits(
    data, extremes, pieces, log_z
) -> None:
    params = MedianParameters(len(data), **FIXTURE_PARAMS)
    assert level_extremes(data, params) == {k: (F(a), F(b)) for k, (a, b) in extremes.items()}
    got = [(p.lo, p.hi, p.slope, p.intercept) for p in envelope(data, params)]
    assert got == [tuple(F(v) for v in piece) for piece in pieces]
    with workdps():
        assert abs(log_normalizer(envelope(data, params), 1) - mpmath.mpf(log_z)) < mpmath.mpf(
            10
        ) ** (-20)


def test_lemma_a_4_normaliser_closed_form_on_a_nice_typical_data_set() -> None:
    """Fixture 2 lies in H and its envelope is h₀: Z_X = Ẑ =
    (24C/(εLn))(1 − e^{−εLrn/4}) + (2R + 2Cr)e^{−εLrn/4} (Lemma A.4)."""
    data = FIXTURES[1][0]
    params = MedianParameters(8, **FIXTURE_PARAMS)
    assert in_typical_set(data, params)
    with workdps():
        e, L, n, r, R, C = (to_mpf(v) for v in (1, F(1, 2), 8, 1, 5, 1))
        tail = mpmath.exp(-e * L * r * n / 4)
        z_hat = 24 * C / (e * L * n) * (1 - tail) + (2 * R + 2 * C * r) * tail
        assert abs(log_normalizer(envelope(data, params), 1) - mpmath.log(z_hat)) < mpmath.mpf(
            10
        ) ** (-40)


GRID = st.integers(-24, 24).map(lambda k: F(k, 4))


@st.composite
def data_sets(draw):
    n = draw(st.integers(1, 7))
    x = draw(st.lists(GRID, min_size=n, max_size=n))
    C = draw(st.sampled_from([F(1), F(5, 4), F(3, 2), F(2)]))
    R = draw(st.sampled_from([F(1), F(2), F(5)]))
    return x, MedianParameters(n, F(1, 2), F(1), R, C)


@settings(max_examples=60, deadline=None)
@given(data_sets(), st.lists(st.integers(0, 10**6), min_size=5, max_size=5))
def test_lemma_4_2_envelope_equals_the_minimum_over_all_cells(case, ts) -> None:
    """Lemma E.8 (T15): the merged pieces equal the brute-force minimum over every cell at random
    rational points; Ψ is continuous, its slopes are 0 or ±s, the pieces tile [−B, B] and there
    are at most 7n² of them."""
    x, params = case
    pieces = envelope(x, params)
    bound, s = params.output_bound, tent_slope(params)
    assert pieces[0].lo == -bound and pieces[-1].hi == bound
    for left, right in zip(pieces, pieces[1:], strict=False):
        assert left.hi == right.lo and left(left.hi) == right(right.lo)
        assert (left.slope, left.intercept) != (right.slope, right.intercept)
    assert all(p.slope in (0, s, -s) for p in pieces)
    assert len(pieces) <= 7 * params.n**2  # footnote 5: |J| <= 7n²
    for t in ts:
        y = -bound + 2 * bound * F(t, 10**6)
        piece = next(p for p in pieces if p.lo <= y <= p.hi)
        assert piece(y) == envelope_brute(x, params, y)


def test_far_away_data_give_the_uniform_output() -> None:
    """Fixture 3: TH ≡ n/2 on Ξ, so Ψ ≡ 2 and the output is uniform on [−B, B]: Z = 18·e^{(ε/2)·2}."""
    params = MedianParameters(8, **FIXTURE_PARAMS)
    (piece,) = envelope([1000] * 8, params)
    assert piece.slope == 0
    with workdps():
        assert abs(log_normalizer([piece], 1) - (1 + mpmath.log(18))) < mpmath.mpf(10) ** -40


def test_log_normalizer_rejects_a_bad_epsilon() -> None:
    params = MedianParameters(8, **FIXTURE_PARAMS)
    with pytest.raises(ValueError, match="epsilon"):
        log_normalizer(envelope([0] * 8, params), 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        log_normalizer(envelope([0] * 8, params), math.nan)


@pytest.mark.parametrize(("data", "extremes", "pieces", "log_z"), FIXTURES)
def test_sympy_form_of_z_equals_the_mpmath_value_to_50_digits(data, extremes, pieces, log_z) -> None:
    """Z_X as an exact sympy sum of exponentials of rationals (Lemma E.9's piece masses), evaluated
    at 60 digits, equals exp(log_normalizer) to 50 digits and the fixture's log Z to 20 digits; at
    ε = 1/3 too."""
    import sympy

    from dpquant.reference.private_median.extended_density import normalizer_sympy

    params = MedianParameters(len(data), **FIXTURE_PARAMS)
    env = envelope(data, params)
    for eps in (F(1), F(1, 3)):
        expr = normalizer_sympy(env, eps)
        assert not expr.free_symbols
        assert all(e.args[0].is_Rational for e in expr.atoms(sympy.exp))
        with workdps():
            symbolic = mpmath.mpf(str(sympy.N(expr, 60)))
            numeric = mpmath.exp(log_normalizer(env, eps))
            assert abs(symbolic / numeric - 1) < mpmath.mpf(10) ** -50
            if eps == 1:
                assert abs(mpmath.log(symbolic) - mpmath.mpf(log_z)) < mpmath.mpf(10) ** -20
