"""ClipRange: the order in which Algorithm 1 releases its m estimates and the range each EM call
is clipped to (Algorithm 1 lines 11–14 and Sec. 3.2).

The paper releases in the tree order {z_{m/2}, z_{m/4}, z_{3m/4}, ...} and clips each EM to
(z of the nearest released quantile below, z of the nearest released quantile above), with
z_0 = a and z_{m+1} = b; line 14's argument π(j − 1) should read "the previously released"
(notes/imola25.md, erratum 13). We follow the authors' recursion: the middle of each index range
(0-based ⌊len/2⌋) first, then both halves recursively, so the outputs are non-decreasing.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dpquant.reference.slice_quantiles.inputs import MAX_QUANTILES
from dpquant.reference.validation import check_int


def release_levels(m: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
    """The tree order as levels: per level, the 0-based indices released and the indices of
    their clipping anchors (−1 = the lower bound a, m = the upper bound b). The middle of each
    range (0-based ⌊len/2⌋) goes first, then both halves recursively (authors' recursion)."""
    return _release_levels(check_int(m, "m", minimum=1, maximum=MAX_QUANTILES))


@lru_cache(maxsize=256)
def _release_levels(m: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
    levels = []
    ranges = [(0, m)]
    while ranges:
        idx, left, right, nxt = [], [], [], []
        for lo, hi in ranges:
            mid = lo + (hi - lo) // 2
            idx.append(mid)
            left.append(lo - 1)
            right.append(hi)
            if mid > lo:
                nxt.append((lo, mid))
            if hi > mid + 1:
                nxt.append((mid + 1, hi))
        levels.append((np.array(idx), np.array(left), np.array(right)))
        ranges = nxt
    return tuple(levels)


def release_order(m: int) -> list[int]:
    """The 0-based indices in the order they are released."""
    return [int(j) for level in release_levels(m) for j in level[0]]
