"""A fast exact construction of Ψ_X (ours; the paper's Lemma E.8 construction is O(n⁴)).

Three steps, each exact and tested equal to the direct construction of :mod:`extended_density`
(``tests/reference/private_median/test_tzamos20_fast_envelope.py``):

1. **TH in closed form.** In the (s_L, s_R) program of :func:`.typical_set.typical_hamming`
   (``notes/tzamos20.md``) the κ-Right condition e₀ + s_L + min(B₀, s_R + r_κ) >= κ + 1 splits
   into s_L >= κ + 1 − e₀ − B₀ and s_L + s_R >= κ + 1 − e₀ − r_κ (likewise κ-Left), so with
   t = s_L + s_R

       TH(X, ξ) = max(a_L + a_R, max_κ (κ + 1 − e₀ − r_κ), max_κ (κ + 1 − e₀ − l_κ), 0),
       a_L = max(0, A₀ − (ℓ − 1), K + 1 − e₀ − B₀),  a_R = max(0, B₀ − (n − ℓ), K + 1 − e₀ − A₀)

   (the K + 1 terms only when K >= 1). Every bound is attainable when K + 1 <= n (a_L <= A₀,
   a_R <= B₀, the window bounds are <= K + 1 − e₀ <= A₀ + B₀); when K + 1 > n, H is empty.
   :func:`typical_hamming_closed_form` is this formula at one ξ.

2. **All cells at once, in int64.** Write v/δ = p + f (p integer, 0 <= f < 1) and rank the
   distinct fractional parts of the data and of Ξ's ends exactly (M of them). The key p·M + rank
   orders these values exactly, and v + jδ has key key(v) + j·M. Every anchor of Claim E.4 is
   X_a + qδ (|q| <= K) or an end of Ξ, and TH at an anchor P, just right of it (the open cell
   (P, next anchor)) and just left of it needs only the counts #{X_i <= P + jδ} and
   #{X_i < P + jδ}, |j| <= 2K: a ``searchsorted`` of the row X_a + jδ, j = −2K..2K, on the data
   keys. The maxima over κ are sliding-window maxima along the row (van Herk / Gil–Werman).
   Gaps between the integer parts wider than 2K + 2 are shrunk to 2K + 2 (no comparison made
   here spans more than 2K lattice steps), so far outliers cannot overflow the keys.
   Rows are processed in chunks (memory O(chunk·K)); cost O(n·K·log n) integer operations.

   Only the nested level bounds are kept: lo_k = inf{ξ ∈ Ξ : TH(X, ξ) <= k} and
   hi_k = sup{ξ ∈ Ξ : TH(X, ξ) <= k}. Along a row the anchors increase, so lo_k is attained at a
   *record* of the running minimum of TH from the left (hi_k from the right): each row gives a
   few (level, key) records, folded with ``np.minimum.at``; no global sort of the O(n·K) anchors.
   Only the final bounds (at most 2(n + 1)) are turned back into exact Fractions.

3. **The envelope by a sweep** (:mod:`.sweep`). With the nested bounds (replacing a level's
   extremes by the larger [lo_k, hi_k] only lowers its tent, and the level j <= k that set the
   bound is lower still, so min_k h_k is unchanged), the tents of the levels k <= k*(y) = the
   last k with hi_k − 3Cr < y < lo_k + 3Cr are unflattened and all higher ones flat, so

       Ψ(y) = min(k⁺(y) − s·3Cr, P₁(k*) − s·y, P₂(k*) + s·y),
       P₁(k) = min_{j<=k} (j + s·lo_j),  P₂(k) = min_{j<=k} (j − s·hi_j),

   k⁺ the first level after k*; k* changes only at the points hi_k − 3Cr, lo_k + 3Cr, and
   between two of them Ψ is the minimum of a constant and two lines of slopes ∓s: O(n log n).
   :func:`fast_envelope` runs it on integers (one common scale D for the lattice and the sweep,
   issue 39): the same pieces as the Fraction sweep :func:`.sweep.sweep_envelope`.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.private_median.extended_density import Piece, check_levels_map
from dpquant.reference.private_median.fixed_typical_set import fixed_window_ranges
from dpquant.reference.private_median.parameters import MedianParameters, check_params, check_work
from dpquant.reference.private_median.sweep import (
    MAX_NESTED,
    check_cap,
    common_scale,
    paper_cap,
    scaled_int,
    scaled_sweep,
    sweep_envelope,
)
from dpquant.reference.private_median.typical_set import exact_data
from dpquant.reference.validation import check_choice, check_fraction

_KEY_LIMIT = 2**62
_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
CHUNK_ENTRIES = 1 << 21  # grid entries per chunk of rows (memory ~ 30 int64 arrays of this size)
TYPICAL_SETS = ("paper", "fixed")
MAX_FAST_WORK = 6 * 10**7
"""The fast construction's budget: n·(K + 2000) (the O(n·K·log n) tables plus the O(n log n)
exact work per value), about 20 s on a 2-core machine. It admits n = 10^4 with the constants of
``notes/tzamos20.md`` (L = 1/2, r = 1, C = 1: K = 2500, work 4.5·10^7, 12.8 s measured by
``benchmarks/bench_tzamos20.py``)."""


def check_fast(params: MedianParameters, what: str = "data, params") -> None:
    """ValueError when the fast construction exceeds :data:`MAX_FAST_WORK`."""
    check_work(params.n * (params.windows + 2000), MAX_FAST_WORK, what, params)


def check_typical_set_nonempty(params: MedianParameters) -> None:
    """ValueError when H is empty: the κ = K window needs K + 1 <= n points, and
    K = ⌊Lrn/(2C)⌋ <= n − 1 for every n iff C > Lr/2 (C > 1/4 always suffices)."""
    params = check_params(params)
    if params.windows + 1 > params.n:
        raise ParameterError(
            "C",
            f"must be greater than L·r/2 = {params.L * params.r / 2} (got C = {params.C}): for n "
            f"= {params.n} the typical set H is empty (its κ = K window needs K + 1 = "
            f"{params.windows + 1} > n points, K = ⌊Lrn/(2C)⌋)",
        )


def typical_hamming_closed_form(data: Any, xi: Any, params: MedianParameters) -> int | float:
    """TH(X, ξ) by the closed form of step 1 (+inf when ξ ∉ Ξ or H is empty)."""
    params = check_params(params)
    x = exact_data(data, params.n)
    xi = check_fraction(xi, "xi")
    lo, hi = params.xi_range
    n, ell, K, delta = params.n, params.ell, params.windows, params.delta
    if not lo <= xi <= hi or K + 1 > n:
        return math.inf
    below, upto = bisect_left(x, xi), bisect_right(x, xi)
    equal, above = upto - below, n - upto
    a_l = max(0, below - (ell - 1), (K + 1 - equal - above) if K else 0)
    a_r = max(0, above - (n - ell), (K + 1 - equal - below) if K else 0)
    best = max(0, a_l + a_r)
    for kappa in range(1, K + 1):
        r_k = bisect_right(x, xi + kappa * delta) - upto
        l_k = below - bisect_left(x, xi - kappa * delta)
        best = max(best, kappa + 1 - equal - r_k, kappa + 1 - equal - l_k)
    return best


# ------------------------------------------------------------------------------ exact lattice


@dataclass(frozen=True)
class Lattice:
    """Exact int64 keys of the δ-lattice through the data and Ξ's ends (step 2).

    Values are handled as integers on a common scale D (V = D·v; D·δ = ``step`` is an integer):
    v/δ = p + f with p = V // step and the fractional part f·step = V mod step. ``anchor_p``/
    ``anchor_pc``: the distinct integer parts p of the lattice's base points and their compressed
    values p′ (gaps > ``gap`` shrunk to ``gap``); ``fracs``: the distinct fractional parts (times
    ``step``), ranked; key(v + qδ) = (p′(v) + q)·M + rank(frac(v))."""

    delta: Fraction
    scale: int
    step: int
    anchor_p: tuple[int, ...]
    anchor_pc: tuple[int, ...]
    fracs: tuple[int, ...]
    rank: dict[int, int]
    gap: int

    @property
    def m(self) -> int:
        return len(self.fracs)

    def scaled_key(self, v: int) -> int:
        """The key of a base point given as D·v (a data value or an end of Ξ)."""
        p, f = divmod(v, self.step)
        return self.anchor_pc[bisect_left(self.anchor_p, p)] * len(self.fracs) + self.rank[f]

    def key(self, v: Fraction) -> int:
        """The key of a base point (a data value or an end of Ξ)."""
        scaled = v * self.scale
        if scaled.denominator != 1:
            raise ParameterError("v", "must be a base point of the lattice", v)
        return self.scaled_key(int(scaled))

    def scaled_value(self, key: int) -> int:
        """D times the value of a lattice point base + qδ with |q| <= gap/2 (an integer)."""
        pc, r = divmod(int(key), len(self.fracs))
        i = bisect_right(self.anchor_pc, pc) - 1
        if i < 0 or (i + 1 < len(self.anchor_p) and pc - self.anchor_pc[i] > self.gap // 2):
            i += 1  # nearer to the next base point, across a shrunk gap
        return (self.anchor_p[i] + pc - self.anchor_pc[i]) * self.step + self.fracs[r]

    def value(self, key: int) -> Fraction:
        """The exact value of a lattice point base + qδ with |q| <= gap/2 (what step 2 decodes)."""
        return Fraction(self.scaled_value(key), self.scale)


def lattice_scale(values: list[Fraction], params: MedianParameters) -> int:
    """The least scale of a lattice through ``values``.

    Args:
        values: The base points (exact Fractions, already checked).
        params: The constants (δ = C/(Ln)).

    Returns:
        The least D making D·δ and every D·v (v in ``values``) integers.
    """
    return math.lcm(params.delta.denominator, *(v.denominator for v in values))


def make_lattice(bases: list[Fraction], params: MedianParameters) -> Lattice:
    """The lattice of ``bases`` (sorted distinct values) with gaps shrunk to 2K + 2."""
    params = check_params(params)
    check_fast(params, "bases, params")
    bases = sorted(set(exact_data(bases, name="bases")))
    scale = lattice_scale(bases, params)
    return _scaled_lattice([int(v * scale) for v in bases], params, scale)


def _scaled_lattice(bases: list[int], params: MedianParameters, scale: int) -> Lattice:
    """The lattice of the sorted distinct base points D·v (D = ``scale``, D·δ an integer)."""
    step = scaled_int(params.delta, scale)
    gap = 2 * params.windows + 2
    split = [divmod(v, step) for v in bases]
    fracs = sorted({f for _, f in split})
    anchor_p = sorted({p for p, _ in split})
    anchor_pc = [0]
    for a, b in zip(anchor_p, anchor_p[1:], strict=False):
        anchor_pc.append(anchor_pc[-1] + min(b - a, gap))
    if (anchor_pc[-1] + 2 * gap + 2) * max(len(fracs), 1) >= _KEY_LIMIT:
        raise ValueError("n and K are too large for the int64 keys of the fast construction")
    rank = {f: i for i, f in enumerate(fracs)}
    return Lattice(
        params.delta, scale, step, tuple(anchor_p), tuple(anchor_pc), tuple(fracs), rank, gap
    )


# --------------------------------------------------------------------------- TH on all cells


def _sliding_max(rows: np.ndarray, width: int) -> np.ndarray:
    """out[:, i] = rows[:, i:i + width].max(axis=1), i = 0..len − width (van Herk / Gil–Werman:
    block prefix and suffix maxima, O(1) per entry)."""
    count, length = rows.shape
    blocks = -(-length // width)
    pad = np.full((count, blocks * width), _INT64_MIN, dtype=np.int64)
    pad[:, :length] = rows
    shaped = pad.reshape(count, blocks, width)
    prefix = np.maximum.accumulate(shaped, axis=2).reshape(count, -1)
    suffix = np.maximum.accumulate(shaped[:, :, ::-1], axis=2)[:, :, ::-1].reshape(count, -1)
    starts = np.arange(length - width + 1)
    return np.maximum(suffix[:, starts], prefix[:, starts + width - 1])


@dataclass(frozen=True)
class CellBlock:
    """TH around the anchors of a block of rows: ``keys[i, q]`` is the anchor's key, ``valid``
    whether it lies in Ξ (and belongs to the row), ``at``/``right``/``left`` are TH at the anchor,
    just right of it and just left of it (int64)."""

    keys: np.ndarray
    valid: np.ndarray
    at: np.ndarray
    right: np.ndarray
    left: np.ndarray


def _level(params, below, equal, above, win_r, win_l) -> np.ndarray:
    """TH from the counts (step 1), vectorised."""
    n, ell, K = params.n, params.ell, params.windows
    a_l = np.maximum(0, below - (ell - 1))
    a_r = np.maximum(0, above - (n - ell))
    if not K:
        return a_l + a_r
    a_l = np.maximum(a_l, K + 1 - equal - above)
    a_r = np.maximum(a_r, K + 1 - equal - below)
    return np.maximum(np.maximum(a_l + a_r, np.maximum(win_r, win_l)), 0)


def _fixed_levels(params, le: np.ndarray, lt: np.ndarray, js: np.ndarray, qs: np.ndarray):
    """TH_fix (:func:`fixed_typical_set.fixed_typical_hamming`) at, right of and left of the
    anchors: s₊ = max(0, max_{j<=K₊} (ℓ + j − #{X_i <= ξ + jδ})) and
    s₋ = max(0, max_{j<=K₋} (#{X_i < ξ − jδ} − (ℓ − 1 − j))), the counts taken at P, P⁺ or P⁻."""
    K, ell = params.windows, params.ell
    k_minus, k_plus = fixed_window_ranges(params)
    # max_{j=0..K₊} (ℓ + j − N(P + jδ)) = max_{c=q..q+K₊} (c − N_c) + ℓ − q (column c + 2K)
    plus_le = _sliding_max(js - le, k_plus + 1)[:, K : 3 * K + 1] + ell - qs
    plus_lt = _sliding_max(js - lt, k_plus + 1)[:, K : 3 * K + 1] + ell - qs
    # max_{j=0..K₋} (N(P − jδ) − (ℓ − 1 − j)) = max_{c=q−K₋..q} (N_c − c) + q − ℓ + 1
    start = 2 * K - k_minus
    minus_lt = _sliding_max(lt - js, k_minus + 1)[:, start - K : start + K + 1] + qs - ell + 1
    minus_le = _sliding_max(le - js, k_minus + 1)[:, start - K : start + K + 1] + qs - ell + 1
    zero = np.int64(0)
    at = np.maximum(plus_le, zero) + np.maximum(minus_lt, zero)
    right = np.maximum(plus_le, zero) + np.maximum(minus_le, zero)
    left = np.maximum(plus_lt, zero) + np.maximum(minus_lt, zero)
    return at, right, left


def _cell_block(
    params: MedianParameters,
    data_keys: np.ndarray,
    row_keys: np.ndarray,
    single: np.ndarray,
    m: int,
    key_lo: int,
    key_hi: int,
    typical_set: str = "paper",
) -> CellBlock:
    """TH at, right of and left of every anchor row_key + qM, |q| <= K (``single`` rows: q = 0
    only, the ends of Ξ); TH_fix when ``typical_set="fixed"``."""
    n, K = params.n, params.windows
    qs = np.arange(-K, K + 1, dtype=np.int64)
    js = np.arange(-2 * K, 2 * K + 1, dtype=np.int64)
    grid = row_keys[:, None] + js[None, :] * m
    le = np.searchsorted(data_keys, grid, side="right").astype(np.int64)  # #{X_i <= P + jδ}
    lt = np.searchsorted(data_keys, grid, side="left").astype(np.int64)  # #{X_i < P + jδ}
    del grid
    centre = slice(K, 3 * K + 1)
    le_c, lt_c = le[:, centre], lt[:, centre]
    if typical_set == "fixed":
        at, right, left = _fixed_levels(params, le, lt, js, qs)
    elif K:
        # max_{κ=1..K} (κ − N(P + κδ)) = max_{j=q+1..q+K} (j − N_j) − q, and
        # max_{κ=1..K} (κ + N(P − κδ)) = max_{j=q−K..q−1} (N_j − j) + q
        right_le = _sliding_max(js - le, K)[:, K + 1 : 3 * K + 2] - qs
        right_lt = _sliding_max(js - lt, K)[:, K + 1 : 3 * K + 2] - qs
        left_le = _sliding_max(le - js, K)[:, : 2 * K + 1] + qs
        left_lt = _sliding_max(lt - js, K)[:, : 2 * K + 1] + qs
        at = _level(params, lt_c, le_c - lt_c, n - le_c, 1 + lt_c + right_le, 1 - le_c + left_lt)
        right = _level(params, le_c, 0, n - le_c, 1 + le_c + right_le, 1 - le_c + left_le)
        left = _level(params, lt_c, 0, n - lt_c, 1 + lt_c + right_lt, 1 - lt_c + left_lt)
    else:
        at = _level(params, lt_c, le_c - lt_c, n - le_c, None, None)
        right = _level(params, le_c, 0, n - le_c, None, None)
        left = _level(params, lt_c, 0, n - lt_c, None, None)
    keys = row_keys[:, None] + qs[None, :] * m
    valid = (keys >= key_lo) & (keys <= key_hi)
    valid[single, :] = False
    valid[single, K] = True
    return CellBlock(keys, valid, at, right, left)


def _check_typical_set(typical_set: str) -> str:
    return check_choice(typical_set, "typical_set", TYPICAL_SETS)


def _blocks(
    data: Any, params: MedianParameters, typical_set: str = "paper"
) -> tuple[Lattice, int, int, Iterator[CellBlock]]:
    """(lattice, key of Ξ's low end, key of its high end, the blocks of rows): one row per
    distinct data value whose anchors can meet Ξ, plus the two ends of Ξ."""
    x = _checked(data, params, typical_set)
    scale = lattice_scale([*x, *params.xi_range], params)
    return _scaled_blocks([int(v * scale) for v in x], params, typical_set, scale)


def _checked(data: Any, params: MedianParameters, typical_set: str) -> list[Fraction]:
    """The data, sorted and exact, once ``params`` and ``typical_set`` pass the construction's
    checks (H non-empty for the paper's H, the work budget)."""
    params = check_params(params)
    if _check_typical_set(typical_set) == "paper":
        check_typical_set_nonempty(params)
    x = exact_data(data, params.n)
    check_fast(params)
    return x


def _scaled_blocks(
    xs: list[int], params: MedianParameters, typical_set: str, scale: int
) -> tuple[Lattice, int, int, Iterator[CellBlock]]:
    """:func:`_blocks` on the sorted data given as integers D·x_i (D = ``scale``: D·δ and D·v at
    Ξ's ends are integers)."""
    lo, hi = (scaled_int(v, scale) for v in params.xi_range)
    K = params.windows
    reach = K * scaled_int(params.delta, scale)
    distinct = sorted(set(xs))
    lattice = _scaled_lattice(sorted({*distinct, lo, hi}), params, scale)
    keys = {v: lattice.scaled_key(v) for v in {*distinct, lo, hi}}
    data_keys = np.array([keys[v] for v in xs], dtype=np.int64)
    rows = [v for v in distinct if lo - reach <= v <= hi + reach]
    row_keys = np.array([keys[v] for v in rows] + [keys[lo], keys[hi]], dtype=np.int64)
    single = np.zeros(len(row_keys), dtype=bool)
    single[-2:] = True
    step = max(1, CHUNK_ENTRIES // (4 * K + 1))

    def blocks() -> Iterator[CellBlock]:
        for start in range(0, len(row_keys), step):
            part = slice(start, start + step)
            yield _cell_block(
                params,
                data_keys,
                row_keys[part],
                single[part],
                lattice.m,
                keys[lo],
                keys[hi],
                typical_set,
            )

    return lattice, keys[lo], keys[hi], blocks()


def fast_cells(
    data: Any, params: MedianParameters, typical_set: str = "paper"
) -> list[tuple[Fraction, Fraction, int]]:
    """Every cell of Ξ cut by the anchors, with TH (or TH_fix) on it — (a, b, k), a = b for a
    point — from the int64 tables (the form of :func:`extended_density.cell_levels`, for tests on
    small n). Also checks that TH just right of an anchor equals TH just left of the next one."""
    lattice, _, _, blocks = _blocks(data, params, typical_set)
    at: dict[int, int] = {}
    right: dict[int, int] = {}
    left: dict[int, int] = {}
    for b in blocks:
        for table, values in ((at, b.at), (right, b.right), (left, b.left)):
            table.update(zip(b.keys[b.valid].tolist(), values[b.valid].tolist(), strict=True))
    order = sorted(at)
    cells = [(lattice.value(k), lattice.value(k), at[k]) for k in order]
    for k1, k2 in zip(order, order[1:], strict=False):
        if right[k1] != left[k2]:  # pragma: no cover - a failure of the construction
            raise AssertionError(f"TH right of {k1} is {right[k1]}, left of {k2} is {left[k2]}")
        cells.append((lattice.value(k1), lattice.value(k2), right[k1]))
    return sorted(cells)


# --------------------------------------------------------------------- nested level bounds


def _records(levels: np.ndarray, from_right: bool) -> np.ndarray:
    """Where ``levels`` (rows) reaches a new running minimum, scanning each row from the left
    (or the right)."""
    big = _INT64_MAX
    seq = levels[:, ::-1] if from_right else levels
    run = np.minimum.accumulate(seq, axis=1)
    before = np.concatenate([np.full((len(seq), 1), big), run[:, :-1]], axis=1)
    out = seq < before
    return out[:, ::-1] if from_right else out


def nested_level_bounds(
    data: Any, params: MedianParameters, typical_set: str = "paper"
) -> list[tuple[int, Fraction, Fraction]]:
    """(k, lo_k, hi_k) with lo_k = inf{ξ ∈ Ξ : TH(X, ξ) <= k}, hi_k = sup{…}, for the levels k at
    which [lo_k, hi_k] grows (step 2; equal to ``nested_extremes(level_extremes(X))``; TH_fix
    and ``fixed_level_extremes`` when ``typical_set="fixed"``)."""
    lattice, key_lo, key_hi, blocks = _blocks(data, params, typical_set)
    nested = _nested_keys(key_lo, key_hi, blocks, params.n)
    return [(k, lattice.value(a), lattice.value(b)) for k, a, b in nested]


def _nested_keys(
    key_lo: int, key_hi: int, blocks: Iterator[CellBlock], n: int
) -> list[tuple[int, int, int]]:
    """(k, key of lo_k, key of hi_k) at the levels where [lo_k, hi_k] grows (the row records)."""
    big = _INT64_MAX
    best_lo = np.full(n + 1, big, dtype=np.int64)
    best_hi = np.full(n + 1, _INT64_MIN, dtype=np.int64)
    for b in blocks:
        inf_side = np.where(b.valid, np.minimum(b.at, np.where(b.keys < key_hi, b.right, big)), big)
        sup_side = np.where(b.valid, np.minimum(b.at, np.where(b.keys > key_lo, b.left, big)), big)
        rec = _records(inf_side, from_right=False)
        np.minimum.at(best_lo, inf_side[rec], b.keys[rec])
        rec = _records(sup_side, from_right=True)
        np.maximum.at(best_hi, sup_side[rec], b.keys[rec])
    lo_k = np.minimum.accumulate(best_lo).tolist()
    hi_k = np.maximum.accumulate(best_hi).tolist()
    out: list[tuple[int, int, int]] = []
    for k in range(n + 1):
        if lo_k[k] == big or (out and (lo_k[k], hi_k[k]) == out[-1][1:]):
            continue
        out.append((k, lo_k[k], hi_k[k]))
    return out


def nested_extremes(
    levels: dict[int, tuple[Fraction, Fraction]],
) -> list[tuple[int, Fraction, Fraction]]:
    """(k, lo_k, hi_k) with lo_k = min_{j<=k} ξ_{j,inf}, hi_k = max_{j<=k} ξ_{j,sup}, keeping
    only the levels where the interval grows (the others' tents are dominated)."""
    levels = check_levels_map(levels, limit=MAX_NESTED)
    out: list[tuple[int, Fraction, Fraction]] = []
    for k in sorted(levels):
        a, b = levels[k]
        if out:
            a, b = min(a, out[-1][1]), max(b, out[-1][2])
            if (a, b) == out[-1][1:]:
                continue
        out.append((k, a, b))
    return out


def fast_envelope(
    data: Any, params: MedianParameters, typical_set: str = "paper", cap: Fraction | None = None
) -> list[Piece]:
    """Ψ_X exactly, by steps 2 and 3 (O(n·K·log n) integer work plus an O(n log n) sweep).
    ``typical_set="fixed"`` with the variant's ``cap`` d_M gives Ψ^fix_X
    (:func:`fixed_typical_set.fixed_envelope`). Refused beyond :data:`MAX_FAST_WORK`.

    The sweep runs on integers (:func:`.sweep.scaled_sweep`, issue 39): the same pieces
    as :func:`sweep_envelope` on :func:`nested_level_bounds`, several times faster on small n."""
    x = _checked(data, params, typical_set)
    return fast_envelope_presorted(x, params, typical_set, None if cap is None else check_cap(cap))


def fast_envelope_presorted(
    x: list[Fraction], params: MedianParameters, typical_set: str, cap: Fraction | None
) -> list[Piece]:
    """:func:`fast_envelope` without its checks (the mechanism's fast path).

    One common scale D (:func:`.sweep.common_scale`) serves the lattice and the sweep: the nested
    bounds come out of the lattice as the integers D·lo_k, D·hi_k.

    Args:
        x: The data, already checked: n sorted exact Fractions.
        params: The constants, with H non-empty (``typical_set="paper"``) and the work within
            :data:`MAX_FAST_WORK` already checked.
        typical_set: ``"paper"`` or ``"fixed"`` (checked).
        cap: The flattening distance (a Fraction >= 0; None for the paper's 3Cr).

    Returns:
        The merged exact pieces of Ψ_X (or Ψ^fix_X).
    """
    cap = paper_cap(params) if cap is None else cap
    lo, hi = params.xi_range
    scale = common_scale(params, cap, [lo.denominator, hi.denominator, *{v.denominator for v in x}])
    xs = [v.numerator * (scale // v.denominator) for v in x]
    lattice, key_lo, key_hi, blocks = _scaled_blocks(xs, params, typical_set, scale)
    nested = [
        (k, lattice.scaled_value(a), lattice.scaled_value(b))
        for k, a, b in _nested_keys(key_lo, key_hi, blocks, params.n)
    ]
    return scaled_sweep(nested, scale, params, cap)


__all__ = [
    "CHUNK_ENTRIES",
    "MAX_FAST_WORK",
    "TYPICAL_SETS",
    "CellBlock",
    "check_fast",
    "Lattice",
    "check_typical_set_nonempty",
    "fast_cells",
    "fast_envelope",
    "fast_envelope_presorted",
    "lattice_scale",
    "make_lattice",
    "nested_extremes",
    "nested_level_bounds",
    "sweep_envelope",
    "typical_hamming_closed_form",
]
