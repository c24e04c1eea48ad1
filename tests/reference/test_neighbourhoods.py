"""The exhaustive neighbour family and the neighbour relation shared by the auditor and the
certifier."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.neighbourhoods import RELATIONS, are_neighbours, exhaustive_shapes


@pytest.mark.parametrize("adjacency", RELATIONS)
@pytest.mark.parametrize("g, max_n", [(1, 3), (2, 1), (3, 3), (5, 2)])
def test_every_pair_is_listed_once_and_is_a_neighbouring_pair(
    adjacency: str, g: int, max_n: int
) -> None:
    grid = [float(v) for v in range(g)]
    shapes = list(exhaustive_shapes(grid, max_n, adjacency))
    multisets = sum(math.comb(g + n - 1, n) for n in range(max_n))
    expected = {
        "local": math.comb(g, 2),
        "add_remove": multisets * g,
        "replace_one": multisets * math.comb(g, 2),
    }[adjacency]
    pairs = {
        (tuple(sorted((*s,) if x is None else (*s, x))), tuple(sorted((*s, y))))
        for s, x, y in shapes
    }
    assert len(shapes) == len(pairs) == expected
    assert all(are_neighbours(a, b, adjacency) for a, b in pairs)


@given(st.lists(st.integers(0, 3), max_size=6), st.integers(0, 3))
def test_adding_one_record_makes_add_remove_neighbours_and_two_do_not(d: list[int], v: int) -> None:
    assert are_neighbours(d, [*d, v], "add_remove")
    assert are_neighbours([*d, v], d, "add_remove")
    assert not are_neighbours(d, [*d, v, v], "add_remove")


@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(0, 3), st.integers(0, 3))
def test_changing_one_record_makes_replace_one_neighbours_and_two_do_not(
    d: list[int], v: int, w: int
) -> None:
    assert are_neighbours(d, [*d[1:], v], "replace_one")
    if len(d) >= 2 and v not in d[:2] and w not in d[:2]:
        assert not are_neighbours(d, [*d[2:], v, w], "replace_one")
    assert not are_neighbours([], [], "replace_one")


def test_local_inputs_are_single_records() -> None:
    assert are_neighbours([0.0], [1.0], "local")
    assert not are_neighbours([0.0, 1.0], [1.0], "local")
