"""Neighbour search honouring the declared adjacency (``notes/auditor.md``, "Design").

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
  exact law, the expected black-box bound) by moving one value at a time
  (:func:`hill_climb_batched`: the same climb, scoring each step's moves in one call).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import check_adjacency
from dpquant.reference.neighbourhoods import are_neighbours, exhaustive_shapes
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_data,
    check_domain,
    check_finite,
    check_int,
)

LARGE = 1000.0
MAX_VALUES = 10_000  # probe values, grids
MAX_SIZE = 100_000  # records of one searched data set
MAX_SIZES = 100  # sizes given to the pattern families
MAX_STEPS = 10_000  # hill-climbing steps


# -- argument checks -----------------------------------------------------------------------------


def check_values(
    values: Any, name: str = "values", *, cap: int = MAX_VALUES, allow_empty: bool = False
) -> tuple[float, ...]:
    """A non-empty (unless ``allow_empty``) collection of finite reals (a sequence, an array, a
    set or any finite iterable; at most ``cap`` values), as a tuple of floats in the given
    order."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise ParameterError(name, "must be a non-empty sequence of finite real numbers")
    if not isinstance(values, list | tuple | range | np.ndarray):
        values = list(islice(values, cap + 1))
    if len(values) > cap:
        raise ParameterError(name, f"must hold at most {cap} values", "more")
    arr = check_data(values, name, allow_empty=allow_empty)
    return tuple(float(v) for v in arr)


def check_probe_domain(domain: Any, name: str = "domain") -> tuple[float, float]:
    """A domain (lo, hi) to draw probe values from: lo < hi, infinite ends allowed, and when
    both ends are finite their width hi − lo fits a float64 (the probes are lo + f·(hi − lo))."""
    lo, hi = check_domain(domain, name)
    if math.isfinite(lo) and math.isfinite(hi) and not math.isfinite(hi - lo):
        raise ParameterError(
            name,
            f"must have a width hi - lo that fits a float64 (<= {MAX_FLOAT:.4g})",
            f"({lo!r}, {hi!r})",
        )
    return lo, hi


def _check_sizes(sizes: Any, name: str = "sizes") -> tuple[int, ...]:
    if isinstance(sizes, str | bytes | Mapping) or not isinstance(sizes, Iterable):
        raise ValueError(f"{name} must be a sequence of integers in [1, {MAX_SIZE}]")
    out = tuple(islice(sizes, MAX_SIZES + 1))
    if len(out) > MAX_SIZES:
        raise ValueError(f"{name} must hold at most {MAX_SIZES} sizes")
    return tuple(
        check_int(n, f"{name}[{i}]", minimum=1, maximum=MAX_SIZE) for i, n in enumerate(out)
    )


def _check_pair(pair: Any, name: str = "pair") -> Pair:
    if not isinstance(pair, Pair):
        raise ValueError(
            f"{name} must be a dpquant.audit.model.neighbours.Pair (see make_pair), got {pair!r:.80}"
        )
    return pair


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
    """The pair D = shared + {x}, D' = shared + {y} (``x = None``: D = shared), checked: finite
    reals, x ≠ y, at most :data:`MAX_SIZE` shared records."""
    values = check_values(shared, "shared", cap=MAX_SIZE, allow_empty=True)
    y = check_finite(y, "y")
    x = None if x is None else check_finite(x, "x")
    if x == y:
        raise ValueError(f"x and y must differ (else D = D'), got x = y = {y!r}")
    return _pair(values, x, y)


def _pair(shared: Iterable[float], x: float | None, y: float) -> Pair:
    return Pair(tuple(sorted(float(v) for v in shared)), None if x is None else float(x), float(y))


def probe_values(
    domain: tuple[float, float], inputs: Sequence[float] | None = None
) -> tuple[float, ...]:
    """Data values to probe: the ends, interior points, ±1000 beyond infinite ends; a mechanism
    with a finite input set (``inputs``) is probed on exactly that set."""
    lo, hi = check_probe_domain(domain, "domain")
    if inputs is not None:
        return tuple(sorted(set(check_values(inputs, "inputs"))))
    if math.isfinite(lo) and math.isfinite(hi):
        return tuple(sorted({lo + f * (hi - lo) for f in (0.0, 0.25, 0.5, 0.75, 1.0)}))
    if math.isinf(lo) and math.isinf(hi):
        return (-LARGE, -1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 2.0, LARGE)
    if math.isinf(hi):
        return tuple(lo + v for v in (0.0, 0.25, 0.5, 0.75, 1.0, 2.0, LARGE))
    return tuple(hi - v for v in (LARGE, 2.0, 1.0, 0.75, 0.5, 0.25, 0.0))


def exhaustive_pairs(values: Sequence[float], max_n: int, adjacency: str) -> Iterator[Pair]:
    """Every neighbouring pair of data sets of size <= ``max_n`` over ``values``, each listed once
    (a multiset's law does not depend on order, and the privacy loss is symmetric). The arguments
    are checked at the call (``max_n`` at most :data:`MAX_SIZE`); the pairs come lazily."""
    adjacency = check_adjacency(adjacency)
    max_n = check_int(max_n, "max_n", minimum=1, maximum=MAX_SIZE)
    grid = sorted(set(check_values(values, "values")))
    return _exhaustive(grid, max_n, adjacency)


def _exhaustive(grid: list[float], max_n: int, adjacency: str) -> Iterator[Pair]:
    for shared, x, y in exhaustive_shapes(grid, max_n, adjacency):
        yield Pair(shared, x, y)


def exhaustive_data_pairs(
    values: Sequence[float], max_n: int, adjacency: str
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """:func:`exhaustive_pairs` as (D, D') arrays (sorted)."""
    pairs = exhaustive_pairs(values, max_n, adjacency)
    return (p.data for p in pairs)


def pattern_pairs(
    values: Sequence[float], adjacency: str, sizes: Sequence[int] = (6, 9, 16, 33)
) -> list[Pair]:
    """StatDP's input patterns adapted to quantiles, at sizes beyond the exhaustive family:
    all-equal data with one record moved (to the ends, far away), heavy ties at the middle rank
    with one record moved across, data spread over the values with one record moved, and
    :func:`split_pairs` (two clusters split at the median rank, one record moved across)."""
    adjacency = check_adjacency(adjacency)
    grid = sorted(set(check_values(values, "values")))
    sizes = _check_sizes(sizes)
    if adjacency == "local" or len(grid) < 2:
        return []
    lo, hi, mid = grid[0], grid[-1], grid[len(grid) // 2]
    out: list[Pair] = []
    for n in sizes:
        m = n - 1
        if m < 1:
            continue
        spread = tuple(grid[(k * len(grid)) // m] for k in range(m))
        ties = (lo,) * (m // 4) + (mid,) * (m - 2 * (m // 4)) + (hi,) * (m // 4)
        for shared in ((mid,) * m, ties, spread):
            for y in (lo, hi, grid[1], grid[-2]):
                if adjacency == "add_remove":
                    out.append(_pair(shared, None, y))
                elif y != mid:
                    out.append(_pair(shared, mid, y))
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
    grid = sorted(set(check_values(values, "values")))
    sizes = _check_sizes(sizes)
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
                        out.append(_pair(shared, v, w))
                    elif n >= 2:  # D = shared (n − 1 records), D′ = shared + {w} or + {v}
                        moved_up = rank(n) > rank(n - 1)  # then shared's median is v, D′'s w
                        out.append(_pair(shared, None, w if moved_up else v))
    return list(dict.fromkeys(out))


RANK_SHIFT_SIZES = (10, 16)
"""Sizes of the two-cluster rank shifts (:func:`rank_shift_pairs`)."""


def rank_shift_pairs(
    values: Sequence[float], adjacency: str, sizes: Sequence[int] = RANK_SHIFT_SIZES
) -> list[Pair]:
    """*Rank shifts*: the lowest value added against the highest, around shared records that
    stay, so that every shared record's rank moves by one. Replace-one: D = shared + {lo},
    D′ = shared + {hi}; add/remove: D = shared against shared + {lo} and shared + {hi}; local DP
    has no shared records: none. Two shapes of shared records:

    * one record at each interior value of the values' grid refined twice
      (:func:`refine_values`): the exponential-mechanism median (ε = 1, outputs in (0, 1)) loses
      0.9354 on ([lo, 1/16], [1/16, hi]), where the best pair on the probe grid of quarters
      loses 0.7462;
    * two clusters on the values' grid, n − 1 shared records of which ⌊n/2⌋ − 1 or ⌊n/2⌋ at v and
      the rest at w > v (n in ``sizes``): the shift moves the median rank from one cluster to
      the gap between them or back, and about a quarter of these pairs lose at least 0.92 on
      that median (``notes/auditor.md``, "A total budget of draws").

    At most :data:`MAX_PAIRS` pairs and :data:`MAX_PAIR_RECORDS` records in all (a
    ``ValueError`` before any is built)."""
    adjacency = check_adjacency(adjacency)
    grid = sorted(set(check_values(values, "values")))
    sizes = _check_sizes(sizes)
    if adjacency == "local" or len(grid) < 2:
        return []
    lo, hi = grid[0], grid[-1]
    interior = 4 * (len(grid) - 1) - 1  # at most, on the grid refined twice
    clusters = len(sizes) * len(grid) * (len(grid) - 1)  # two splits per pair of values
    pairs = (interior + clusters) * (1 if adjacency == "replace_one" else 2)
    records = pairs * (max(sizes, default=2) + 1)
    if pairs > MAX_PAIRS or records > MAX_PAIR_RECORDS:
        raise ValueError(
            f"values and sizes would give about {pairs} rank shifts of up to "
            f"{max(sizes, default=2)} records: at most {MAX_PAIRS} pairs and "
            f"{MAX_PAIR_RECORDS} records (fewer values or smaller sizes)"
        )
    shapes: list[tuple[float, ...]] = [(a,) for a in refine_values(refine_values(grid))[1:-1]]
    for n in sizes:
        for i, v in enumerate(grid):
            for w in grid[i + 1 :]:
                shapes += [(v,) * a + (w,) * (n - 1 - a) for a in {n // 2 - 1, n // 2} if a >= 0]
    out: list[Pair] = []
    for shared in shapes:
        if adjacency == "replace_one":
            out.append(_pair(shared, lo, hi))
        else:
            out += [_pair(shared, None, lo), _pair(shared, None, hi)]
    return list(dict.fromkeys(out))


def neighbours_of(pair: Pair, values: Sequence[float], adjacency: str) -> list[Pair]:
    """Pairs one move away: one shared record changed, added or removed, or x or y changed."""
    pair = _check_pair(pair)
    adjacency = check_adjacency(adjacency)
    return _neighbours(pair, sorted(set(check_values(values, "values"))), adjacency)


def _neighbours(pair: Pair, grid: list[float], adjacency: str) -> list[Pair]:
    out: list[Pair] = []
    shared = list(pair.shared)
    for k, v in enumerate(shared):
        if k and shared[k - 1] == v:
            continue
        rest = shared[:k] + shared[k + 1 :]
        if adjacency != "local":
            out.append(_pair(rest, pair.x, pair.y))
        for w in grid:
            if w != v:
                out.append(_pair([*rest, w], pair.x, pair.y))
    if adjacency != "local":
        out += [_pair([*shared, w], pair.x, pair.y) for w in grid]
    for w in grid:
        if w != pair.y and w != pair.x:
            out.append(_pair(shared, pair.x, w))
            if pair.x is not None:
                out.append(_pair(shared, w, pair.y))
    return list(dict.fromkeys(p for p in out if p.x != p.y))


def refine_values(values: Sequence[float]) -> tuple[float, ...]:
    """The values plus the midpoints of neighbouring values (the local search's finer grid)."""
    grid = sorted(set(check_values(values, "values")))
    mids = [a / 2 + b / 2 for a, b in zip(grid, grid[1:], strict=False)]  # no overflow
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
    objective and the number of pairs evaluated (``steps`` at most :data:`MAX_STEPS`,
    ``max_size`` at most :data:`MAX_SIZE`; an objective that is not a real number, or NaN, counts
    as −inf)."""
    start = _check_pair(start, "start")
    if not callable(objective):
        raise ValueError(f"objective must be callable, got {type(objective).__name__}")
    return hill_climb_batched(
        start, lambda pairs: [objective(p) for p in pairs], values, adjacency, steps, max_size
    )


def hill_climb_batched(
    start: Pair,
    objectives: Callable[[list[Pair]], Sequence[Any]],
    values: Sequence[float],
    adjacency: str,
    steps: int = 20,
    max_size: int = 64,
) -> tuple[Pair, float, int]:
    """:func:`hill_climb` with an objective that scores a list of pairs in one call: all the
    moves of a step at once (``notes/auditor.md``, "Fast exact stage (issue 39, item 2)").

    The climb is :func:`hill_climb`'s: the move taken is the first of the best-scoring moves, if
    it beats the pair it leaves.

    Args:
        start: The pair the climb starts from.
        objectives: Maps a list of pairs to their objectives, one per pair in order (a value
            that is not a real number, or NaN, counts as −inf).
        values: The grid of record values the moves use.
        adjacency: The neighbouring relation.
        steps: The most steps, at most :data:`MAX_STEPS`.
        max_size: The largest data set a move may make, at most :data:`MAX_SIZE`.

    Returns:
        The best pair, its objective and the number of pairs evaluated.

    Raises:
        ValueError: An argument is refused, or ``objectives`` gives a number of values other
            than the number of pairs.
    """
    start = _check_pair(start, "start")
    if not callable(objectives):
        raise ValueError(f"objectives must be callable, got {type(objectives).__name__}")
    grid = sorted(set(check_values(values, "values")))
    adjacency = check_adjacency(adjacency)
    steps = check_int(steps, "steps", minimum=0, maximum=MAX_STEPS)
    max_size = check_int(max_size, "max_size", minimum=1, maximum=MAX_SIZE)
    best, best_value = start, _scores(objectives, [start])[0]
    evaluated = 1
    for _ in range(steps):
        moves = [p for p in _neighbours(best, grid, adjacency) if p.size <= max_size]
        if not moves:
            break
        scores = _scores(objectives, moves)
        evaluated += len(moves)
        k = int(np.argmax(scores))
        if not scores[k] > best_value:
            break
        best, best_value = moves[k], scores[k]
    return best, best_value, evaluated


def _scores(objectives: Callable[[list[Pair]], Sequence[Any]], pairs: list[Pair]) -> list[float]:
    values = objectives(pairs)  # an error of the objective itself propagates as it is
    try:
        got = list(values)
    except TypeError:
        raise ValueError("objectives must return a sequence of values, one per pair") from None
    if len(got) != len(pairs):
        raise ValueError(
            f"objectives must give one value per pair: {len(got)} values for {len(pairs)} pairs"
        )
    return [_score(v) for v in got]


def _score(value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return -math.inf
    return -math.inf if math.isnan(x) else x


def tie_family(v: float, w: float, adjacency: str) -> Callable[[int], Pair]:
    """Pairs along a size axis: n records at v plus one at w (D) against the neighbour with one
    more record at w (replace-one: one v replaced by w; add/remove: the extra w added). The
    family takes n in [1, :data:`MAX_SIZE`]; v ≠ w finite."""
    v, w = check_finite(v, "v"), check_finite(w, "w")
    if v == w:
        raise ValueError(f"v and w must differ, got v = w = {v!r}")
    adjacency = check_adjacency(adjacency)

    def family(n: int) -> Pair:
        n = check_int(n, "n", minimum=1, maximum=MAX_SIZE)
        if adjacency == "add_remove":
            return _pair((v,) * n + (w,), None, w)
        return _pair((v,) * (n - 1) + (w,), v, w)

    return family


# -- caller's pairs --------------------------------------------------------------------------------

MAX_PAIRS = 10_000
MAX_PAIR_RECORDS = 10_000_000  # records over all the pairs given


def check_neighbours(d0: np.ndarray, d1: np.ndarray, adjacency: str, name: str = "pairs") -> None:
    """Check that two data sets are neighbours under ``adjacency`` (as multisets; linear time).

    Args:
        d0: A data set under the data policy (:func:`dpquant.reference.validation.check_data`,
            empty allowed).
        d1: The other data set, likewise.
        adjacency: The relation: ``"add_remove"``, ``"replace_one"`` or ``"local"`` (two data
            sets of one record each).
        name: The argument named in the error.

    Raises:
        ValueError: The two are not neighbours (naming ``name``).
    """
    adjacency = check_adjacency(adjacency)
    a = np.sort(check_data(d0, "d0", allow_empty=True))
    b = np.sort(check_data(d1, "d1", allow_empty=True))
    if not are_neighbours(a.tolist(), b.tolist(), adjacency):
        raise ValueError(
            f"{name} must be neighbours under {adjacency!r}: {_short(a)} and {_short(b)} (d0 and "
            "d1) are not"
        )


def _short(x: np.ndarray) -> str:
    return str(x.tolist()) if x.size <= 20 else f"[{x.size} records: {x[:5].tolist()} ...]"


def _as_data(x: Any, name: str, domain: tuple[float, float]) -> np.ndarray:
    if isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool | np.bool_):
        x = [x]  # a number is the data set of one record
    size = len_or_none(x)
    if size is not None and size > MAX_SIZE:
        raise ValueError(f"{name} must hold at most {MAX_SIZE} records, got {size}")
    arr = check_data(x, name, domain=domain, allow_empty=True)
    if arr.size > MAX_SIZE:
        raise ValueError(f"{name} must hold at most {MAX_SIZE} records, got {arr.size}")
    return np.sort(arr)


def len_or_none(x: Any) -> int | None:
    """``len(x)``, or None when ``x`` has no length."""
    try:
        return len(x)
    except Exception:  # noqa: BLE001 -- anything without a usable length
        return None


def check_pairs(
    pairs: Any,
    adjacency: str,
    domain: Any,
    inputs: Any = None,
    name: str = "pairs",
) -> list[tuple[np.ndarray, np.ndarray]]:
    """A caller's neighbouring pairs, checked: an iterable (not a string or a mapping) of at
    most :data:`MAX_PAIRS` pairs (D, D'), each data set a 1-D sequence of finite reals (a single
    number is a data set of one record) inside ``domain`` and, when the mechanism has a finite
    input set ``inputs``, made of those values; at most :data:`MAX_SIZE` records per data set
    and :data:`MAX_PAIR_RECORDS` in all; neighbours under ``adjacency``. Returned sorted."""
    adjacency = check_adjacency(adjacency)
    lo, hi = check_domain(domain, "domain")
    allowed = None if inputs is None else set(check_values(inputs, "inputs"))
    if isinstance(pairs, str | bytes | Mapping) or not isinstance(pairs, Iterable):
        raise ValueError(
            f"{name} must be an iterable of pairs (data, data_prime), got {type(pairs).__name__}"
        )
    out: list[tuple[np.ndarray, np.ndarray]] = []
    records = 0
    for i, pair in enumerate(islice(pairs, MAX_PAIRS + 1)):
        if i >= MAX_PAIRS:
            raise ValueError(f"{name} must hold at most {MAX_PAIRS} pairs")
        where = f"{name}[{i}]"
        if isinstance(pair, str | bytes | Mapping) or len_or_none(pair) != 2:
            raise ValueError(f"{where} must be a pair (data, data_prime), got {pair!r:.80}")
        d0, d1 = (_as_data(pair[k], f"{where}[{k}]", (lo, hi)) for k in (0, 1))
        if allowed is not None:
            for k, d in enumerate((d0, d1)):
                if not set(d.tolist()) <= allowed:
                    raise ValueError(
                        f"{where}[{k}] must hold values among the mechanism's inputs "
                        f"{sorted(allowed)[:20]}, got {_short(d)}"
                    )
        records += d0.size + d1.size
        if records > MAX_PAIR_RECORDS:
            raise ValueError(f"{name} must hold at most {MAX_PAIR_RECORDS} records in all")
        check_neighbours(d0, d1, adjacency, where)
        out.append((d0, d1))
    if not out:
        raise ValueError(f"{name} must contain at least one neighbouring pair")
    return out
