"""Neighbour search honouring the declared adjacency (spec auditor.md §6.2, §6.4(i)).

A neighbouring pair is stored as (shared records, x, y): D = shared + {x}, D' = shared + {y};
``x = None`` means D = shared (add/remove); for local DP ``shared`` is empty. Moves of the local
search act on this form, so every pair it visits is a neighbouring pair by construction.

Candidates come from three sources:

* :func:`probe_values`: the values data are drawn from -- the domain ends, interior points, and
  large magnitudes (±1000) on unbounded sides (Google's quantile tests use ±1000 for the same reason);
* :func:`exhaustive_pairs` (all multisets up to a size on those values) and :func:`pattern_pairs`
  (StatDP's patterns adapted to quantiles: empty or one-point data, all-equal data, heavy ties at
  the target rank, one point far away, larger sizes);
* :func:`hill_climb`: local search that maximises an objective (the exact loss or, with or without an
  exact law, the expected black-box bound) by moving one value at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np

from reference.core import check_adjacency
from reference.validation import check_int

LARGE = 1000.0


@dataclass(frozen=True, order=True)
class Pair:
    """A neighbouring pair in the form (shared, x, y): D = shared + {x}, D' = shared + {y}."""

    shared: tuple[float, ...]
    x: float | None
    y: float

    @property
    def data(self) -> tuple[np.ndarray, np.ndarray]:
        d0 = self.shared if self.x is None else (*self.shared, self.x)
        d1 = (*self.shared, self.y)
        return np.sort(np.asarray(d0, dtype=float)), np.sort(np.asarray(d1, dtype=float))

    @property
    def key(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        d0, d1 = (tuple(d.tolist()) for d in self.data)
        return (d0, d1) if self.x is None or d0 <= d1 else (d1, d0)

    @property
    def size(self) -> int:
        return len(self.shared) + 1


def make_pair(shared: Iterable[float], x: float | None, y: float) -> Pair:
    return Pair(tuple(sorted(float(v) for v in shared)), None if x is None else float(x), float(y))


def probe_values(
    domain: tuple[float, float], inputs: Sequence[float] | None = None
) -> tuple[float, ...]:
    """Data values to probe: the ends, interior points, ±1000 beyond infinite ends; a mechanism
    with a finite input set (``inputs``) is probed on exactly that set."""
    if inputs is not None:
        return tuple(sorted({float(v) for v in inputs}))
    lo, hi = float(domain[0]), float(domain[1])
    if math.isfinite(lo) and math.isfinite(hi):
        return tuple(sorted({lo + f * (hi - lo) for f in (0.0, 0.25, 0.5, 0.75, 1.0)}))
    if math.isinf(lo) and math.isinf(hi):
        return (-LARGE, -1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 2.0, LARGE)
    if math.isinf(hi):
        return tuple(lo + v for v in (0.0, 0.25, 0.5, 0.75, 1.0, 2.0, LARGE))
    return tuple(hi - v for v in (LARGE, 2.0, 1.0, 0.75, 0.5, 0.25, 0.0))


def exhaustive_pairs(values: Sequence[float], max_n: int, adjacency: str) -> Iterator[Pair]:
    """Every neighbouring pair of data sets of size <= ``max_n`` over ``values``, each listed once
    (a multiset's law does not depend on order, and the privacy loss is symmetric)."""
    adjacency = check_adjacency(adjacency)
    max_n = check_int(max_n, "max_n", minimum=1)
    grid = sorted({float(v) for v in values})
    if not grid:
        raise ValueError("values must be non-empty")
    if adjacency == "local":
        for i, x in enumerate(grid):
            for y in grid[i + 1 :]:
                yield Pair((), x, y)
        return
    if adjacency == "add_remove":
        for n in range(max_n):
            for shared in combinations_with_replacement(grid, n):
                for y in grid:
                    yield Pair(shared, None, y)
        return
    for n in range(max_n):  # D ∩ D' = shared, so (shared, x < y) names each pair once
        for shared in combinations_with_replacement(grid, n):
            for i, x in enumerate(grid):
                for y in grid[i + 1 :]:
                    yield Pair(shared, x, y)


def exhaustive_data_pairs(
    values: Sequence[float], max_n: int, adjacency: str
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """:func:`exhaustive_pairs` as (D, D') arrays (sorted)."""
    return (p.data for p in exhaustive_pairs(values, max_n, adjacency))


def pattern_pairs(
    values: Sequence[float], adjacency: str, sizes: Sequence[int] = (6, 9, 16, 33)
) -> list[Pair]:
    """StatDP's input patterns adapted to quantiles, at sizes beyond the exhaustive family:
    all-equal data with one record moved (to the ends, far away), heavy ties at the middle rank
    with one record moved across, data spread over the values with one record moved, and
    :func:`split_pairs` (two clusters split at the median rank, one record moved across)."""
    adjacency = check_adjacency(adjacency)
    grid = sorted({float(v) for v in values})
    if adjacency == "local" or len(grid) < 2:
        return []
    lo, hi, mid = grid[0], grid[-1], grid[len(grid) // 2]
    out: list[Pair] = []
    for n in sizes:
        m = n - 1
        spread = tuple(grid[(k * len(grid)) // m] for k in range(m))
        ties = (lo,) * (m // 4) + (mid,) * (m - 2 * (m // 4)) + (hi,) * (m // 4)
        for shared in ((mid,) * m, ties, spread):
            for y in (lo, hi, grid[1], grid[-2]):
                if adjacency == "add_remove":
                    out.append(make_pair(shared, None, y))
                elif y != mid:
                    out.append(make_pair(shared, mid, y))
    out += split_pairs(grid, adjacency, sizes)
    return list(dict.fromkeys(out))


def split_pairs(
    values: Sequence[float], adjacency: str, sizes: Sequence[int] = (6, 9, 16, 33)
) -> list[Pair]:
    """Two clusters split at the median rank, one record moved from one to the other, so that the
    empirical median jumps between the clusters (a mechanism whose output concentrates at the
    median of tied data loses up to its whole scale here; tzamos20's printed Algorithm 1 is
    caught this way). Clusters at pairs of the outer, inner-extreme and middle values; the split
    a = ⌈n/2⌉ − 1 or ⌊n/2⌋ − 1 records at the lower value, so that the ⌈n/2⌉-th or ⌊n/2⌋-th
    order statistic moves. Replace-one: a + 1 of n records at v against a. Add/remove: D holds a
    records at v and n − 1 − a at w, D′ adds one more at w or at v (whichever moves the median
    rank's value for that n and convention)."""
    adjacency = check_adjacency(adjacency)
    grid = sorted({float(v) for v in values})
    if adjacency == "local" or len(grid) < 2:
        return []
    picks = sorted({grid[0], grid[1], grid[len(grid) // 2], grid[-2], grid[-1]})
    out: list[Pair] = []
    for n in sizes:
        for rank in (lambda k: (k + 1) // 2, lambda k: max(k // 2, 1)):  # ⌈k/2⌉, ⌊k/2⌋
            a = rank(n) - 1  # records at v in D′ ∩ D; the rank-th of n is v iff a + 1 of n are
            for i, v in enumerate(picks):
                for w in picks[i + 1 :]:
                    shared = (v,) * a + (w,) * (n - 1 - a)
                    if adjacency == "replace_one":  # D = shared + {v}, D′ = shared + {w}
                        out.append(make_pair(shared, v, w))
                    elif n >= 2:  # D = shared (n − 1 records), D′ = shared + {w} or + {v}
                        moved_up = rank(n) > rank(n - 1)  # then shared's median is v, D′'s w
                        out.append(make_pair(shared, None, w if moved_up else v))
    return list(dict.fromkeys(out))


def neighbours_of(pair: Pair, values: Sequence[float], adjacency: str) -> list[Pair]:
    """Pairs one move away: one shared record changed, added or removed, or x or y changed."""
    grid = sorted({float(v) for v in values})
    out: list[Pair] = []
    shared = list(pair.shared)
    for k, v in enumerate(shared):
        if k and shared[k - 1] == v:
            continue
        rest = shared[:k] + shared[k + 1 :]
        if adjacency != "local":
            out.append(make_pair(rest, pair.x, pair.y))
        for w in grid:
            if w != v:
                out.append(make_pair([*rest, w], pair.x, pair.y))
    if adjacency != "local":
        out += [make_pair([*shared, w], pair.x, pair.y) for w in grid]
    for w in grid:
        if w != pair.y and w != pair.x:
            out.append(make_pair(shared, pair.x, w))
            if pair.x is not None:
                out.append(make_pair(shared, w, pair.y))
    return list(dict.fromkeys(p for p in out if p.x != p.y))


def refine_values(values: Sequence[float]) -> tuple[float, ...]:
    """The values plus the midpoints of neighbouring values (the local search's finer grid)."""
    grid = sorted({float(v) for v in values})
    mids = [(a + b) / 2 for a, b in zip(grid, grid[1:], strict=False)]
    return tuple(sorted({*grid, *mids}))


def hill_climb(
    start: Pair,
    objective: Callable[[Pair], float],
    values: Sequence[float],
    adjacency: str,
    steps: int = 20,
    max_size: int = 64,
) -> tuple[Pair, float, int]:
    """Steepest ascent from ``start`` over :func:`neighbours_of`; returns the best pair, its
    objective and the number of pairs evaluated."""
    best, best_value = start, objective(start)
    evaluated = 1
    for _ in range(steps):
        moves = [p for p in neighbours_of(best, values, adjacency) if p.size <= max_size]
        if not moves:
            break
        scores = [objective(p) for p in moves]
        evaluated += len(moves)
        k = int(np.argmax(scores))
        if not scores[k] > best_value:
            break
        best, best_value = moves[k], scores[k]
    return best, best_value, evaluated


def tie_family(v: float, w: float, adjacency: str) -> Callable[[int], Pair]:
    """Pairs along a size axis: n records at v plus one at w (D) against the neighbour with one
    more record at w (replace-one: one v replaced by w; add/remove: the extra w added)."""
    if adjacency == "add_remove":
        return lambda n: make_pair((v,) * n + (w,), None, w)
    return lambda n: make_pair((v,) * (n - 1) + (w,), v, w)
