"""The Good sets of imola25 Algorithm 1 and the slices they guarantee (Sec. 3.2, line 6;
notes/imola25.md erratum 2).

Ranks are 1-indexed: x_(1) <= ... <= x_(n) are the sorted data, a noisy rank vector
r̃ = (r̃_1 < ... < r̃_m) selects the slices S_i = (x_(r̃_i − h), ..., x_(r̃_i + h)) of 2h + 1
consecutive order statistics.

* ``rule="corrected"`` (default) — Good*_{m,n,h} = {r̃ : r̃_1 − h >= 1, r̃_i − r̃_{i−1} >= 2h + 1
  (i = 2..m), r̃_m + h <= n}: every slice is in range and the slices are pairwise disjoint, which is
  what Lemma 4.1's Σ d_sub bounds need.
* ``rule="printed"`` — the paper's gap 2h: adjacent slices may share one order statistic (the
  add case of Lemma 4.1 then reaches Σ d_sub = 2). The in-range conditions are kept (a slice that
  leaves [1, n] cannot be formed at all); only the gap differs. Kept to show the difference.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles.inputs import check_int_array
from dpquant.reference.validation import check_choice, check_data, check_int

GOOD_RULES = ("corrected", "printed")

MAX_RANK = 2**53
"""Largest rank, data size or half-width the imola25 modules accept (integer arithmetic on ranks
stays exact in int64 and in float64 below it)."""

MAX_MEMBERS = 10**6
"""Most members :func:`good_set_members` enumerates (refused before enumerating)."""

MAX_CELLS = 10**8
"""Most entries of a slice array :func:`slices` builds."""


def check_rule(rule: Any, name: str = "rule") -> str:
    """One of :data:`GOOD_RULES`."""
    return check_choice(rule, name, GOOD_RULES)


def _check_h(h: Any, name: str = "h") -> int:
    return check_int(h, name, minimum=0, maximum=MAX_RANK)


def min_gap(h: int, rule: str = "corrected") -> int:
    """Smallest allowed r̃_i − r̃_{i−1}: 2h + 1 (corrected, disjoint slices) or 2h (printed)."""
    h = _check_h(h)
    return 2 * h + 1 if check_rule(rule) == "corrected" else 2 * h


def in_good_set(r_tilde: Any, n: int, h: int, rule: str = "corrected") -> np.ndarray | bool:
    """r̃ ∈ Good_{m,n,h} (last axis = the m ranks; vectorised over leading axes)."""
    r = check_int_array(r_tilde, "r_tilde")
    if r.ndim == 0 or r.shape[-1] == 0:
        raise ParameterError("r_tilde", "must have a last axis of length m >= 1")
    n = check_int(n, "n", minimum=0, maximum=MAX_RANK)
    h = _check_h(h)
    gap = min_gap(h, rule)
    ok = (r[..., 0] - h >= 1) & (r[..., -1] + h <= n)
    if r.shape[-1] > 1:
        ok = ok & np.all(np.diff(r, axis=-1) >= gap, axis=-1)
    return bool(ok) if np.ndim(ok) == 0 else ok


def slice_index_ranges(r_tilde: Any, h: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last 1-indexed order statistic of each slice: (r̃_i − h, r̃_i + h)."""
    r = check_int_array(r_tilde, "r_tilde")
    h = _check_h(h)
    return r - h, r + h


def slices(
    sorted_data: Any,
    r_tilde: Any,
    h: int,
    *,
    data_name: str = "sorted_data",
    name: str = "r_tilde",
) -> np.ndarray:
    """The slices S_i as rows of a (..., m, 2h + 1) array (needs r̃ with in-range slices);
    ``data_name`` and ``name`` are the parameter names the errors use."""
    x = check_data(sorted_data, data_name)
    if np.any(x[1:] < x[:-1]):
        raise ParameterError(data_name, "must be sorted in non-decreasing order")
    h = _check_h(h)
    lo, hi = slice_index_ranges(check_int_array(r_tilde, name), h)
    n = len(x)
    if lo.size and (np.any(lo < 1) or np.any(hi > n)):
        raise ValueError(
            f"{name} and h give slices out of range of {data_name}: need {name}_i − h >= 1 and "
            f"{name}_i + h <= n = {n} = len({data_name})"
        )
    if lo.size * (2 * h + 1) > MAX_CELLS:
        raise ValueError(f"{name} and h give more than {MAX_CELLS} slice entries")
    offsets = np.arange(2 * h + 1)
    return x[(lo - 1)[..., None] + offsets]


def good_set_size(m: int, n: int, h: int, rule: str = "corrected") -> int:
    """|Good_{m,n,h}| in closed form: with s_i = r̃_i − (i − 1)(g − 1) (g the minimum gap) the
    members are the strictly increasing s in [h + 1, n − h − (m − 1)(g − 1)], so the count is
    C(n − 2h − (m − 1)(g − 1), m) (0 when that is negative)."""
    m = check_int(m, "m", minimum=1, maximum=MAX_RANK)
    n = check_int(n, "n", minimum=0, maximum=MAX_RANK)
    h = _check_h(h)
    gap = min_gap(h, rule)
    span = n - 2 * h - (m - 1) * (gap - 1)
    return math.comb(span, m) if span >= m else 0


def good_set_members(m: int, n: int, h: int, rule: str = "corrected") -> np.ndarray:
    """Every r̃ ∈ Good_{m,n,h} (shape (k, m)), in lexicographic order; for small n and m (at
    most :data:`MAX_MEMBERS` members, refused before enumerating)."""
    size = good_set_size(m, n, h, rule)
    m, n, h = int(m), int(n), int(h)
    if size > MAX_MEMBERS:
        raise ValueError(
            f"Good set of m = {m}, n = {n}, h = {h} has {size} members, more than "
            f"{MAX_MEMBERS} (use a smaller n or m)"
        )
    gap = min_gap(h, rule)
    if size == 0:
        return np.empty((0, m), dtype=np.int64)
    top = n - h - (m - 1) * (gap - 1)
    combos = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(h + 1, top + 1), m)),
        dtype=np.int64,
        count=size * m,
    ).reshape(size, m)
    return combos + np.arange(m, dtype=np.int64) * (gap - 1)
