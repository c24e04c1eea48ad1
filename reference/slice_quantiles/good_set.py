"""The Good sets of imola25 Algorithm 1 and the slices they guarantee (spec §2.0, §5 item 2).

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

from typing import Any

import numpy as np

from reference.validation import check_int

GOOD_RULES = ("corrected", "printed")


def check_rule(rule: Any) -> str:
    if rule not in GOOD_RULES:
        raise ValueError(f"rule must be one of {GOOD_RULES}, got {rule!r}")
    return rule


def min_gap(h: int, rule: str = "corrected") -> int:
    """Smallest allowed r̃_i − r̃_{i−1}: 2h + 1 (corrected, disjoint slices) or 2h (printed)."""
    h = check_int(h, "h", minimum=0)
    return 2 * h + 1 if check_rule(rule) == "corrected" else 2 * h


def in_good_set(r_tilde: Any, n: int, h: int, rule: str = "corrected") -> np.ndarray | bool:
    """r̃ ∈ Good_{m,n,h} (last axis = the m ranks; vectorised over leading axes)."""
    r = np.asarray(r_tilde)
    if r.ndim == 0 or r.shape[-1] == 0:
        raise ValueError("r_tilde must have a last axis of length m >= 1")
    n = check_int(n, "n", minimum=0)
    gap = min_gap(h, rule)
    ok = (r[..., 0] - h >= 1) & (r[..., -1] + h <= n)
    if r.shape[-1] > 1:
        ok = ok & np.all(np.diff(r, axis=-1) >= gap, axis=-1)
    return bool(ok) if np.ndim(ok) == 0 else ok


def slice_index_ranges(r_tilde: Any, h: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last 1-indexed order statistic of each slice: (r̃_i − h, r̃_i + h)."""
    r = np.asarray(r_tilde, dtype=np.int64)
    h = check_int(h, "h", minimum=0)
    return r - h, r + h


def slices(sorted_data: np.ndarray, r_tilde: Any, h: int) -> np.ndarray:
    """The slices S_i as rows of a (m, 2h + 1) array (needs r̃ with in-range slices)."""
    lo, hi = slice_index_ranges(r_tilde, h)
    n = len(sorted_data)
    if np.any(lo < 1) or np.any(hi > n):
        raise ValueError(f"slices out of range: need r̃_i − h >= 1 and r̃_i + h <= n = {n}")
    offsets = np.arange(2 * h + 1)
    return np.asarray(sorted_data)[(lo - 1)[..., None] + offsets]


def good_set_members(m: int, n: int, h: int, rule: str = "corrected") -> np.ndarray:
    """Every r̃ ∈ Good_{m,n,h} (shape (k, m)), in lexicographic order; for small n and m."""
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=0)
    gap = min_gap(h, rule)
    lo, hi = h + 1, n - h
    out: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...], start: int) -> None:
        if len(prefix) == m:
            out.append(prefix)
            return
        remaining = m - len(prefix) - 1
        for v in range(start, hi - remaining * gap + 1):
            extend(prefix + (v,), v + gap)

    extend((), lo)
    return np.array(out, dtype=np.int64).reshape(len(out), m)
