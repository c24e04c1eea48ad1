"""Neighbouring data sets on a finite grid: the exhaustive family of small data sets and the
neighbour relation itself, shared by the auditor's exact stage (``dpquant.audit.model.neighbours``)
and the certifier's exhaustive verification (``dpquant.certify.exhaustive``).

A pair is written (shared records, x, y): D = shared + {x}, D' = shared + {y}, ``x = None`` for
add/remove (D = shared), ``shared`` empty for local DP. Each pair of multisets is listed once: a
multiset's law does not depend on the order of its records, and the privacy loss is symmetric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, combinations_with_replacement

RELATIONS = ("add_remove", "replace_one", "local")
"""The relations of a data-set pair this module enumerates."""

Shape = tuple[tuple[float, ...], float | None, float]


def exhaustive_shapes(grid: Sequence[float], max_n: int, adjacency: str) -> Iterator[Shape]:
    """Every neighbouring pair of data sets of size <= ``max_n`` over ``grid``, each once.

    Args:
        grid: Distinct values, sorted (the caller checks them).
        max_n: The largest data set, an int >= 1 (the caller checks it; local: one record).
        adjacency: One of :data:`RELATIONS` (the caller checks it).

    Returns:
        The pairs as (shared, x, y), lazily: local, every x < y; add/remove, every multiset of
        size < ``max_n`` and every added y; replace-one, every multiset of size < ``max_n`` and
        every x < y (D ∩ D' = shared, so the pair is named once).
    """
    if adjacency == "local":
        for x, y in combinations(grid, 2):
            yield (), x, y
        return
    for n in range(max_n):
        for shared in combinations_with_replacement(grid, n):
            if adjacency == "add_remove":
                for y in grid:
                    yield shared, None, y
            else:
                for x, y in combinations(grid, 2):
                    yield shared, x, y


def are_neighbours(a: Sequence[float], b: Sequence[float], adjacency: str) -> bool:
    """Whether two data sets (as multisets) are neighbours, in linear time.

    Args:
        a: A data set (local: one record).
        b: Another.
        adjacency: One of :data:`RELATIONS`.

    Returns:
        Local: one record each; add/remove: one is the other plus one record; replace-one: the
        same nonzero size, at most one record changed (equal data sets count: their loss is 0).
    """
    if adjacency == "local":
        return len(a) == 1 and len(b) == 1
    if adjacency == "add_remove":
        small, big = (a, b) if len(a) < len(b) else (b, a)
        return len(big) == len(small) + 1 and not Counter(small) - Counter(big)
    return len(a) == len(b) > 0 and sum((Counter(a) - Counter(b)).values()) <= 1


__all__ = ["RELATIONS", "are_neighbours", "exhaustive_shapes"]
