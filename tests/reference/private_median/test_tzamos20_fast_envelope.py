"""tzamos20 issue item 6: the fast exact construction of Ψ_X equals the direct one.

Every step is compared with an independent oracle on exact Fractions:

* step 1 — TH's closed form = the (s_L, s_R) program (``notes/tzamos20.md``) = the brute-force
  subset search;
* step 2 — TH on every point and open cell from the int64 tables = :func:`cell_levels` (one exact
  TH evaluation per cell), for the paper's H and for H_fix; the nested level bounds =
  ``nested_extremes(level_extremes(X))``; several row chunks give the same answer as one;
* step 3 — the sweep = the direct envelope (tent breakpoints and pairwise intersections).

Data on k/8 grids (ties), on the δ-lattice itself (anchors of different points coincide), with
outliers up to 10³⁰ (the gap compression of the keys), C from 1/2 to 2, both median indices.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.private_median import fast_envelope as fe
from dpquant.reference.private_median.extended_density import (
    cell_levels,
    envelope,
    envelope_from_levels,
    level_extremes,
    tent_slope,
)
from dpquant.reference.private_median.fast_envelope import (
    fast_cells,
    fast_envelope,
    make_lattice,
    nested_extremes,
    nested_level_bounds,
    sweep_envelope,
    typical_hamming_closed_form,
)
from dpquant.reference.private_median.fixed_typical_set import (
    fixed_cap,
    fixed_cell_levels,
    fixed_envelope,
    fixed_level_extremes,
)
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.typical_set import (
    anchor_points,
    typical_hamming,
    typical_hamming_brute,
)

CS = [F(1, 2), F(3, 4), F(1), F(5, 4), F(3, 2), F(2)]


@st.composite
def cases(draw, max_n: int = 10):
    """(X, params) with X of four kinds: a k/8 grid, points on the δ/4-lattice, points on the
    δ-lattice shifted by 1/3, integers times powers of ten up to 10³⁰ (outliers)."""
    n = draw(st.integers(1, max_n))
    params = MedianParameters(
        n,
        F(1, 2),
        F(1),
        draw(st.sampled_from([F(1), F(2), F(5)])),
        draw(st.sampled_from(CS)),
        draw(st.sampled_from(["ceil", "floor"])),
    )
    kind = draw(st.integers(0, 3))
    ks = draw(st.lists(st.integers(-48, 48), min_size=n, max_size=n))
    if kind == 0:
        x = [F(k, 8) for k in ks]
    elif kind == 1:
        x = [F(k % 41 - 20, 4) * params.delta for k in ks]
    elif kind == 2:
        x = [(k % 13 - 6) * params.delta + F(1, 3) for k in ks]
    else:
        powers = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
        x = [F(k % 7 - 3) * 10**p for k, p in zip(ks, powers, strict=True)]
    return x, params


# ------------------------------------------------------------------------------- step 1


@given(cases(max_n=8), st.data())
def test_th_closed_form_equals_the_program_and_the_brute_force_oracle(case, data) -> None:
    """TH(X, ξ) = max(a_L + a_R, window bounds, 0) (step 1) equals the (s_L, s_R) minimisation and
    exhaustive search, at every anchor and at points inside the cells (and off Ξ: +inf)."""
    x, params = case
    if params.windows + 1 > params.n:
        assert typical_hamming_closed_form(x, 0, params) == math.inf
        return
    pts = anchor_points(x, params)
    cands = pts + [(a + b) / 2 for a, b in itertools.pairwise(pts)]
    lo, hi = params.xi_range
    cands += [lo - F(1, 7), hi + 1]
    for xi in data.draw(st.lists(st.sampled_from(cands), min_size=1, max_size=6)):
        closed = typical_hamming_closed_form(x, xi, params)
        assert closed == typical_hamming(x, xi, params) == typical_hamming_brute(x, xi, params)


# ------------------------------------------------------------------------------- step 2


@given(cases())
def test_th_on_every_cell_from_the_int64_tables_equals_one_exact_evaluation_per_cell(case) -> None:
    """The fast tables' TH at each anchor and on each open cell (including the check that TH just
    right of an anchor equals TH just left of the next) = :func:`cell_levels`."""
    x, params = case
    if params.windows + 1 > params.n:
        with pytest.raises(ValueError, match="C must be greater than"):
            fast_cells(x, params)
        return
    assert fast_cells(x, params) == cell_levels(x, params)


@given(cases())
def test_th_fix_on_every_cell_from_the_int64_tables_equals_the_closed_form(case) -> None:
    """The same for the fixed typical set H_fix (never empty: any C)."""
    x, params = case
    assert fast_cells(x, params, "fixed") == fixed_cell_levels(x, params)


@given(cases())
def test_nested_level_bounds_equal_the_nested_extremes_of_the_direct_levels(case) -> None:
    """lo_k = inf{ξ : TH <= k}, hi_k = sup{ξ : TH <= k} from the row records = the prefix
    extremes of the direct {k: (ξ_{k,inf}, ξ_{k,sup})} (Def. E.7), for H and H_fix."""
    x, params = case
    assert nested_level_bounds(x, params, "fixed") == nested_extremes(
        fixed_level_extremes(x, params)
    )
    if params.windows + 1 <= params.n:
        assert nested_level_bounds(x, params) == nested_extremes(level_extremes(x, params))


def test_rows_split_into_many_chunks_give_the_same_bounds(monkeypatch) -> None:
    """Memory is bounded by processing rows in chunks; one row per chunk changes nothing."""
    rng = np.random.default_rng(7)
    params = MedianParameters(60, F(1, 2), F(1), F(5), F(1))
    x = [F(int(k), 16) for k in rng.integers(-40, 40, 60)]
    whole = nested_level_bounds(x, params)
    monkeypatch.setattr(fe, "CHUNK_ENTRIES", 1)
    assert nested_level_bounds(x, params) == whole
    assert fast_envelope(x, params) == envelope_from_levels(level_extremes(x, params), params)


def test_lattice_keys_order_values_exactly_and_decode_anchors_across_shrunk_gaps() -> None:
    """key(v + qδ) = key(v) + q·M orders the lattice points exactly, and every anchor decodes to
    its value, also next to a gap of 10³⁰/δ lattice steps (shrunk to 2K + 2)."""
    params = MedianParameters(8, F(1, 2), F(1), F(5), F(1))  # δ = 1/4, K = 2
    delta, K = params.delta, params.windows
    bases = sorted({F(0), F(1, 3), F(10) ** 30, F(10) ** 30 + F(1, 7), F(-11, 2), F(11, 2)})
    lattice = make_lattice(bases, params)
    points = [(b, q) for b in bases for q in range(-K, K + 1)]
    keyed = sorted(points, key=lambda bq: lattice.key(bq[0]) + bq[1] * lattice.m)
    assert [b + q * delta for b, q in keyed] == sorted(b + q * delta for b, q in points)
    for b, q in points:
        assert lattice.value(lattice.key(b) + q * lattice.m) == b + q * delta
    assert int(lattice.anchor_pc[-1]) < 10 * len(bases) * (2 * K + 2)


def test_empty_typical_set_raises_a_clear_value_error() -> None:
    """K + 1 > n (C <= Lr/2): H is empty and the extension is undefined."""
    params = MedianParameters(4, F(1, 2), F(1), F(5), F(1, 4))  # K = 4 = n
    with pytest.raises(ValueError, match=r"C must be greater than L·r/2 = 1/4"):
        fast_envelope([0, 0, 0, 0], params)


# ------------------------------------------------------------------------------- step 3


@given(cases())
def test_fast_envelope_equals_the_direct_construction(case) -> None:
    """Ψ_X: the sweep over nested bounds = the direct minimum over all tents (exact pieces), for
    the paper's H and, with the variant's cap d_M, for H_fix."""
    x, params = case
    assert fast_envelope(x, params, "fixed", fixed_cap(params)) == fixed_envelope(x, params)
    if params.windows + 1 <= params.n:
        assert fast_envelope(x, params) == envelope(x, params)


@given(
    st.lists(st.tuples(st.integers(-40, 40), st.integers(0, 30)), min_size=1, max_size=8).map(
        lambda ab: sorted({(F(a, 4), F(a, 4) + F(b, 4)) for a, b in ab})
    ),
    st.sampled_from([F(1, 2), F(1), F(3, 2)]),
)
def test_sweep_equals_the_tent_minimum_for_arbitrary_nested_intervals(intervals, cap_scale) -> None:
    """The sweep of step 3 on arbitrary level intervals (levels 0, 1, …, not only those coming
    from data) = :func:`envelope_from_levels`, with several caps."""
    params = MedianParameters(10, F(1, 2), F(1), F(5), F(1))
    levels = {k: iv for k, iv in enumerate(intervals)}
    cap = 3 * params.C * params.r * cap_scale
    expect = envelope_from_levels(levels, params, cap=cap)
    assert sweep_envelope(nested_extremes(levels), params, cap) == expect


def test_lemma_4_2_piece_count_is_far_below_seven_n_squared_at_moderate_n() -> None:
    """Lemma 4.2 / E.8: at most 7n² pieces; on i.i.d. uniform and tied data at n = 300 (fast path,
    checked continuous with slopes 0 or ±s) the envelope has a handful."""
    rng = np.random.default_rng(11)
    for x in (rng.uniform(-1, 1, 300), np.round(rng.uniform(-2, 2, 300) * 4) / 4):
        params = MedianParameters(300, F(1, 2), F(1), F(5), F(1))
        pieces = fast_envelope(x, params)
        s = tent_slope(params)
        assert len(pieces) <= 7 * 300**2 and len(pieces) < 60
        assert all(p.slope in (0, s, -s) for p in pieces)
        for a, b in itertools.pairwise(pieces):
            assert a.hi == b.lo and a(a.hi) == b(b.lo)


def test_fast_equals_direct_on_a_medium_sample_with_ties() -> None:
    """n = 40 (K = 10, ~800 anchors): the direct construction is still affordable."""
    rng = np.random.default_rng(3)
    params = MedianParameters(40, F(1, 2), F(1), F(2), F(1))
    x = [F(int(k), 8) for k in rng.integers(-12, 12, 40)]
    assert fast_envelope(x, params) == envelope(x, params)
