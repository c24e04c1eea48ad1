"""Exhaustive neighbour families on a small grid of values.

Data sets are multisets (a mechanism's law does not depend on record order), enumerated as sorted
tuples. Each neighbouring pair is listed once: the exact privacy loss is symmetric.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement

from reference.core import check_adjacency
from reference.validation import check_int

Dataset = tuple[float, ...]


def multisets(values: Sequence[float], size: int) -> Iterator[Dataset]:
    """All sorted tuples of ``size`` values drawn with repetition from ``values``."""
    return combinations_with_replacement(sorted(set(values)), size)


def neighbour_pairs(
    values: Sequence[float], max_n: int, adjacency: str
) -> Iterator[tuple[Dataset, Dataset]]:
    """Every unordered neighbouring pair of data sets of size <= ``max_n`` over ``values``.

    * ``replace_one``: same size 1..max_n, one record replaced by a different value;
    * ``add_remove``: D (size 0..max_n−1) and D plus one value;
    * ``local``: two different single values.
    """
    adjacency = check_adjacency(adjacency)
    max_n = check_int(max_n, "max_n", minimum=1)
    grid = sorted(set(values))
    if not grid:
        raise ValueError("values must be non-empty")
    if adjacency == "local":
        for i, x in enumerate(grid):
            for y in grid[i + 1 :]:
                yield (x,), (y,)
        return
    if adjacency == "add_remove":
        for n in range(max_n):
            for d in multisets(grid, n):
                for y in grid:
                    yield d, tuple(sorted((*d, y)))
        return
    seen: set[tuple[Dataset, Dataset]] = set()
    for n in range(1, max_n + 1):
        for d in multisets(grid, n):
            for k, x in enumerate(d):
                if k and d[k - 1] == x:
                    continue
                rest = d[:k] + d[k + 1 :]
                for y in grid:
                    if y == x:
                        continue
                    other = tuple(sorted((*rest, y)))
                    key = (d, other) if d < other else (other, d)
                    if key not in seen:
                        seen.add(key)
                        yield key
