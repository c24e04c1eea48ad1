"""The rank maps F⁺ and F⁻ of imola25 Lemma 4.1 (proof in App. B.1; notes/imola25.md
errata 2–4).

Conventions (those of :mod:`dpquant.reference.slice_quantiles`): X holds n distinct points with order
statistics x_(1) < ... < x_(n) (1-indexed); a noisy rank vector r̃ = (r̃_1 < ... < r̃_m) selects the
slices S_i = (x_(r̃_i − h), ..., x_(r̃_i + h)). For a neighbour X' the map sends r̃ to r̃' = r̃ + e with
a contiguous e (Eq. 1) such that the slices of X at r̃ and of X' at r̃' differ by few substitutions.

**Add** (X' = X ∪ {x}, the new point has rank s in X', i.e. x'_(s) = x, s ∈ [1, n + 1], so
x'_(i) = x_(i) for i < s and x'_(i+1) = x_(i) for i >= s):

    F⁺(r̃)_i = r̃_i + 1[r̃_i − h > s]                                   (App. B.1, first display)

Domain Good*_{m,n,h} → codomain Good*_{m,n+1,h} (n = |X|). A slice that starts above s is shifted
with the data (no change); a slice that contains index s loses x_(r̃_i + h) and gains x: one
substitution. With disjoint slices (Good*, gap 2h + 1) at most one slice contains s, so
Σ_i d_sub(S_i, S'_i) <= 1. With the printed gap 2h two slices can share index s: Σ d_sub = 2.

**Remove** (X' = X \\ {x_(s)}, s ∈ [1, n], so x'_(i) = x_(i) for i < s and x'_(i−1) = x_(i) for
i > s; the paper's "i >= s" is a typo, notes/imola25.md erratum 4):

    F⁻(r̃)_1 = r̃_1,   F⁻(r̃)_i = r̃_i − 1[r̃_{i−1} − h > s]   (i > 1)       (App. B.1, second display)

The lag by one index is what makes F⁻ injective: the naive e_i = −1[r̃_i − h > s]
(:func:`naive_remove_map`) sends r̃_i = s + h and r̃_i = s + h + 1 to the same s + h. Domain
Good*_{m,n−1,h+1} → codomain Good*_{m,n−1,h} with n = |X| (the indices the proof of Thm 4.2 uses;
the lemma's statement "Good_{m,n,h} → Good_{m,n,h−1}" is wrong, notes/imola25.md erratum 3): the slices of X at
r̃ use half-width h, the extra 1 in the domain's h + 1 leaves room for the lagged shift (gap shrinks
by at most 1) and for the slice of X' at r̃_m (needs r̃_m + h <= n − 1). At most two slices change,
each by one substitution: the slice containing s (if any) and the first slice that starts above s
(it keeps its ranks while the data under it move down by one). Hence Σ d_sub <= 2.

Both maps are vectorised over the leading axes of ``r_tilde`` (last axis = the m ranks). They are
defined on all of ℤ^m; the domains above are where Lemma 4.1's properties hold (checked exhaustively
in ``proofs_checks/test_imola25.py``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles.good_set import MAX_RANK, slices
from dpquant.reference.slice_quantiles.inputs import check_int_array
from dpquant.reference.validation import check_data, check_finite, check_int

MAX_SLICE = 10**6
"""Most points of one slice :func:`substitution_distance` compares."""


def _check_ranks(r_tilde: Any, name: str = "r_tilde") -> np.ndarray:
    """An integer array whose last axis holds the m >= 1 noisy ranks (Algorithm 1's r̃)."""
    r = check_int_array(r_tilde, name)
    if r.ndim == 0 or r.shape[-1] == 0:
        raise ParameterError(name, "must have a last axis of length m >= 1")
    return r


def _check_s_h(s: Any, h: Any) -> tuple[int, int]:
    return (
        check_int(s, "s", minimum=1, maximum=MAX_RANK),
        check_int(h, "h", minimum=0, maximum=MAX_RANK),
    )


def add_shift(r_tilde: Any, s: int, h: int) -> np.ndarray:
    """The shift e of F⁺: e_i = 1[r̃_i − h > s] (Lemma 4.1, App. B.1).

    ``s`` is the rank of the added point in X' (x'_(s) = x, 1 <= s <= n + 1), ``h`` the slice
    half-width. For increasing r̃ the result is contiguous (Eq. 1) with d = +1.
    """
    r = _check_ranks(r_tilde)
    s, h = _check_s_h(s, h)
    return (r - h > s).astype(np.int64)


def add_map(r_tilde: Any, s: int, h: int) -> np.ndarray:
    """F⁺(r̃) = r̃ + e, e_i = 1[r̃_i − h > s]: Good*_{m,n,h} → Good*_{m,n+1,h} (Lemma 4.1, App. B.1).

    n = |X|, X' = X ∪ {x} with x'_(s) = x (1 <= s <= n + 1). Injective on ℤ^m (each coordinate is
    the strictly increasing v ↦ v + 1[v − h > s]); Σ_i d_sub(S_i, S'_i) <= 1 on Good* (notes/imola25.md erratum 2).
    """
    r = _check_ranks(r_tilde)
    return r + add_shift(r, s, h)


def remove_shift(r_tilde: Any, s: int, h: int) -> np.ndarray:
    """The lagged shift e of F⁻: e_1 = 0, e_i = −1[r̃_{i−1} − h > s] for i > 1 (App. B.1).

    ``s`` is the rank in X of the removed point (X' = X \\ {x_(s)}, 1 <= s <= n). For increasing r̃
    the result is contiguous (Eq. 1) with d = −1 and t >= 1.
    """
    r = _check_ranks(r_tilde)
    s, h = _check_s_h(s, h)
    e = np.zeros_like(r)
    e[..., 1:] = -(r[..., :-1] - h > s).astype(np.int64)
    return e


def remove_map(r_tilde: Any, s: int, h: int) -> np.ndarray:
    """F⁻(r̃) = r̃ + e with the lagged e of :func:`remove_shift` (Lemma 4.1, App. B.1).

    Good*_{m,n−1,h+1} → Good*_{m,n−1,h} with n = |X| (as used in the proof of Thm 4.2, notes/imola25.md
    erratum 3); injective there, Σ_i d_sub(S_i, S'_i) <= 2 with slices of half-width h.
    """
    r = _check_ranks(r_tilde)
    return r + remove_shift(r, s, h)


def naive_remove_map(r_tilde: Any, s: int, h: int) -> np.ndarray:
    """The un-lagged r̃_i − 1[r̃_i − h > s]: NOT injective (r̃_i = s + h and s + h + 1 collide).

    Kept only to show why App. B.1 lags the removal shift by one index (Lemma 4.1).
    """
    r = _check_ranks(r_tilde)
    s, h = _check_s_h(s, h)
    return r - (r - h > s).astype(np.int64)


def is_contiguous(e: Any) -> bool:
    """e is a contiguous vector (Eq. 1): e_i = 0 for i <= t and e_i = d for i > t, t ∈ {0..m},
    d ∈ {−1, +1} (the zero vector is contiguous with t = m)."""
    v = _check_ranks(e, "e")
    if v.ndim != 1:
        raise ParameterError("e", "must be a 1-D vector", f"shape {v.shape}")
    nonzero = np.flatnonzero(v)
    if len(nonzero) == 0:
        return True
    t = int(nonzero[0])
    d = int(v[t])
    return d in (-1, 1) and bool(np.all(v[t:] == d))


def substitution_distance(S: Any, S_prime: Any) -> int:
    """d_sub(S, S') for equal-size slices (Lemma 4.1): the least number of single-point
    substitutions turning S into S' as multisets, = |S| − |S ∩ S'| (multiset intersection).

    Slices are sorted runs of order statistics and the EM that consumes them sorts its input, so
    multiset equality is the right notion; d_sub = 1 is exactly replace-one adjacency of the slices.
    """
    a = _check_slice(S, "S")
    b = _check_slice(S_prime, "S_prime")
    if len(a) != len(b):
        raise ValueError(f"S and S_prime must have equal size, got {len(a)} and {len(b)}")
    common = Counter(a.tolist()) & Counter(b.tolist())
    return len(a) - sum(common.values())


def _check_slice(values: Any, name: str) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        arr = values.ravel()
        if not np.all(np.isfinite(arr)):
            raise ParameterError(name, "must hold finite real numbers")
        arr = arr.astype(float)
    else:
        arr = check_data(values, name, allow_empty=True)
    if arr.size > MAX_SLICE:
        raise ParameterError(name, f"must hold at most {MAX_SLICE} points")
    return arr


def slice_distances(X: Any, X_prime: Any, r_tilde: Any, r_tilde_prime: Any, h: int) -> list[int]:
    """[d_sub(S_i, S'_i)]_{i=1..m}: S_i slices of X at r̃, S'_i slices of X' at r̃' (Lemma 4.1 (2)).

    Both slice sets use half-width ``h``; every slice must lie in range (r̃_i − h >= 1,
    r̃_i + h <= |X|, and the same for r̃' and X'), otherwise ValueError.
    """
    xs = np.sort(check_data(X, "X"))
    xps = np.sort(check_data(X_prime, "X_prime"))
    r, rp = _check_ranks(r_tilde), _check_ranks(r_tilde_prime, "r_tilde_prime")
    if r.ndim != 1 or rp.shape != r.shape:
        raise ValueError(
            f"r_tilde and r_tilde_prime must be 1-D of equal length, got {r.shape}, {rp.shape}"
        )
    h = check_int(h, "h", minimum=0, maximum=MAX_RANK)
    S = slices(xs, r, h, data_name="X", name="r_tilde")
    Sp = slices(xps, rp, h, data_name="X_prime", name="r_tilde_prime")
    return [substitution_distance(a, b) for a, b in zip(S, Sp, strict=True)]


def added_point_rank(X: Any, x: float) -> int:
    """The s of the add case: the 1-indexed rank of x in X' = X ∪ {x} (x'_(s) = x), i.e.
    1 + #{y ∈ X : y < x}; x must not already be in X (distinct points: the minimum gap g > 0 of Sec. 2)."""
    xs = check_data(X, "X", allow_empty=True)
    x = check_finite(x, "x")
    if np.any(xs == x):
        raise ParameterError("x", "must differ from every point of X (distinct points)")
    return 1 + int(np.sum(xs < x))


def removed_point_rank(X: Any, x: float) -> int:
    """The s of the remove case: the 1-indexed rank of x in X (x = x_(s)); x must be in X."""
    xs = check_data(X, "X")
    x = check_finite(x, "x")
    if not np.any(xs == x):
        raise ParameterError("x", "must be a point of X")
    return 1 + int(np.sum(xs < x))
