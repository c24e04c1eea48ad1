"""JointExp's kernel sums, fast: the decayed prefix, window and two-sided kernel log-sum-exps of
the forward pass (:mod:`dpquant.reference.slice_quantiles.joint_exp_forward`) of JointExp (Gillenwater,
Joseph & Kulesza, "Differentially Private Quantiles", ICML 2021, arXiv 2102.08244): the
recursion over quantiles whose factor between consecutive outputs is φ_j(d) = exp(−c·|d − t_j|),
the paper's utility (a sum of |count − target| over the m + 1 gaps) scaled by c = ε/(2Δ).

The readable reference is :func:`~dpquant.reference.slice_quantiles.joint_exp_forward.decayed_prefix_lse`
(and its window and kernel siblings), built on ``numpy.logaddexp.accumulate``: a sequential
loop of one ``exp`` and one ``log1p`` per entry (about 25 ns). Here the same sums are formed in
sub-blocks of K entries (|c|·K <= 300) in linear space against a reference: one vectorised
``exp`` and one vectorised ``log`` per entry (numpy), and two compiled passes (numba) that
choose the references, accumulate, and carry each sub-block's total into the next one as the
reference does. A test ties both to 1e-12 relative on random inputs.

Numerical contract (as in the reference): only positive terms are ever added (no cancellation),
and local offsets stay below 300 (prefix) or c·⌊t_j⌋ (window). The reference of a sub-block is
its first finite term, so every running sum holds a term equal to 1 from there on and a term
below it by more than 745 (which underflows) is negligible against it; the carry from earlier
sub-blocks is added with the larger of the two as reference. Should a later term exceed the
first by more than 650 (overflow risk), the rest of that sub-block is summed by the exact
sequential recursion x ⊕ y = max + log1p(exp(−|x − y|)) instead.

Every value depends only on the entries before it (after it, for suffixes), in sub-blocks
aligned at fixed positions, and numpy's ``exp`` and ``log`` give the same bits wherever an entry
sits; so a sum over the first entries of an array equals bit for bit the sum over the whole
array at every position kept (the checkpointed backward pass of
:mod:`dpquant.reference.slice_quantiles.joint_exp_sampler` relies on this; a test checks it).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_LINEAR_RANGE = 300.0  # largest |c|·r inside one sub-block
_OVERFLOW = 650.0  # a term above the sub-block's first by more than this: exact recursion
_CARRY_RANGE = 700.0  # a carry above the sub-block's first by more than this is the reference
_MAX_BLOCK = 4096  # longest sub-block (small or zero c)
_FLOOR = -700.0  # exp arguments are raised to this (exp(-700) ≈ 1e-304: no change to a sum >= 1)
_CHUNK = 1 << 15  # entries worked at a time
_LOG2 = math.log(2.0)


def _sub_block(c: float, seg: int) -> int:
    """Sub-block length: |c|·K <= 300, at most one segment; never a function of the array's
    length, so that truncated arrays are summed in the same sub-blocks."""
    k = _MAX_BLOCK if c == 0 else int(max(1, min(_MAX_BLOCK, _LINEAR_RANGE // abs(c))))
    return max(1, min(seg, k))


@njit(cache=True)
def _positions(n: int, seg: int, k: int, reverse: bool, b: int, s0: int) -> tuple[int, int]:
    """Sub-block b of the segment starting at s0: the indices lo..hi − 1 it covers (sub-blocks
    are aligned at the segment's start, or at its end with ``reverse``)."""
    s1 = min(s0 + seg, n)
    if reverse:
        hi = s1 - b * k
        return max(s0, hi - k), hi
    lo = s0 + b * k
    return lo, min(lo + k, s1)


@njit(cache=True)
def _first_pass(  # pragma: no cover - compiled
    v: np.ndarray, c: float, seg: int, k: int, reverse: bool, z: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """z = y − y_first per sub-block, y = v + c·r (r the local offset, counted from the
    sub-block's end with ``reverse``), raised to −700 at least (module docstring); the first
    finite y of each sub-block and its offset (the length when there is none)."""
    n = v.size
    nsub = -(-seg // k)
    nseg = -(-n // seg)
    ref = np.full(nseg * nsub, -np.inf)
    first = np.zeros(nseg * nsub, dtype=np.int64)
    for s in range(nseg):
        for b in range(nsub):
            lo, hi = _positions(n, seg, k, reverse, b, s * seg)
            length = hi - lo
            if length <= 0:  # past the end of a short last segment: nothing to read
                break
            idx = s * nsub + b
            f = 0
            while f < length and v[hi - 1 - f if reverse else lo + f] == -np.inf:
                f += 1
            first[idx] = f
            if f == length:
                for p in range(lo, hi):
                    z[p] = _FLOOR
                continue
            top = v[hi - 1 - f if reverse else lo + f] + c * f
            ref[idx] = top
            if reverse:
                for p in range(lo, hi):  # r = hi − 1 − p, the loop runs forwards
                    z[p] = max(v[p] + c * (hi - 1 - p) - top, _FLOOR)
            else:
                for r in range(length):
                    z[lo + r] = max(v[lo + r] + c * r - top, _FLOOR)
    return ref, first


@njit(cache=True)
def _lse(x: float, y: float) -> float:
    if x < y:
        x, y = y, x
    if y == -np.inf:
        return x
    return x + math.log1p(math.exp(y - x))


@njit(cache=True)
def _second_pass(  # noqa: PLR0913  # pragma: no cover - compiled
    v: np.ndarray,
    c: float,
    seg: int,
    k: int,
    reverse: bool,
    z: np.ndarray,
    e: np.ndarray,
    ref: np.ndarray,
    first: np.ndarray,
    lin: np.ndarray,
    exact: np.ndarray,
    carry_in: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The running sums with the carry (module docstring). Per sub-block (offsets r): before
    its first finite term (r < first) the value is cc − c·r, cc the carry in local offsets;
    from there on log(lin) + anchor − c·r, up to ``stop``; from ``stop`` on (a term more than
    650 above the first) the exact recursion's values, in ``exact``. Returns cc, anchor and
    stop per sub-block, and the value at the last entry (the carry into a continuation of the
    last segment)."""
    n = v.size
    nsub = -(-seg // k)
    nseg = -(-n // seg)
    carries = np.empty(nseg * nsub)
    anchors = np.zeros(nseg * nsub)
    stops = np.zeros(nseg * nsub, dtype=np.int64)
    carry = carry_in
    step = -1 if reverse else 1
    for s in range(nseg):
        if s > 0:
            carry = -np.inf  # the value at the last entry of the previous sub-block
        for b in range(nsub):
            lo, hi = _positions(n, seg, k, reverse, b, s * seg)
            length = hi - lo
            if length <= 0:
                break
            start = hi - 1 if reverse else lo
            idx = s * nsub + b
            cc = carry - c  # the carry in the local offsets
            top = ref[idx]
            f = first[idx]
            scale, shift, anchor = 1.0, 0.0, top
            if cc - top > _CARRY_RANGE:
                scale, shift, anchor = math.exp(top - cc), 1.0, cc
            elif cc > -np.inf:
                shift = math.exp(cc - top)
            for r in range(min(f, length)):
                lin[start + step * r] = 1.0  # (the value is set by the third pass)
            total = 0.0
            r = f
            while r < length:
                p = start + step * r
                if z[p] > _OVERFLOW:
                    break
                total += e[p]
                lin[p] = total * scale + shift
                r += 1
            carries[idx], anchors[idx], stops[idx] = cc, anchor, r
            if r < length:  # overflow risk: the exact recursion from the value at r − 1
                acc = math.log(lin[start + step * (r - 1)]) + anchor
                while r < length:
                    p = start + step * r
                    acc = _lse(acc, v[p] + c * r)
                    exact[p] = acc - c * r
                    lin[p] = 1.0
                    r += 1
            last = start + step * (length - 1)
            if stops[idx] < length:
                carry = exact[last]
            elif f >= length:
                carry = cc - c * (length - 1)
            else:
                carry = math.log(lin[last]) + (anchor - c * (length - 1))
    return carries, anchors, stops, carry


@njit(cache=True)
def _third_pass(  # noqa: PLR0913  # pragma: no cover - compiled
    out: np.ndarray,
    c: float,
    seg: int,
    k: int,
    reverse: bool,
    first: np.ndarray,
    carries: np.ndarray,
    anchors: np.ndarray,
    stops: np.ndarray,
    exact: np.ndarray,
) -> None:
    """out holds log(lin): the values of :func:`_second_pass`'s docstring, in place."""
    n = out.size
    nsub = -(-seg // k)
    nseg = -(-n // seg)
    step = -1 if reverse else 1
    for s in range(nseg):
        for b in range(nsub):
            lo, hi = _positions(n, seg, k, reverse, b, s * seg)
            length = hi - lo
            if length <= 0:
                break
            start = hi - 1 if reverse else lo
            idx = s * nsub + b
            f, stop, cc, anchor = first[idx], stops[idx], carries[idx], anchors[idx]
            for r in range(min(f, length)):
                out[start + step * r] = cc - c * r
            for r in range(f, stop):
                out[start + step * r] += anchor - c * r
            for r in range(stop, length):
                p = start + step * r
                out[p] = exact[p]


def scan(
    v: np.ndarray,
    c: float,
    seg: int | None = None,
    reverse: bool = False,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """out(p) = LSE_{k = s(p)}^{p} [v(k) − c·(p − k)], s(p) = seg·⌊p/seg⌋ (0 for ``seg=None``),
    for real c (c < 0: growing weights) and a 1-D float array v of reals and −inf; with
    ``reverse`` the sum runs over k = p..e(p) (e(p) the last entry of p's segment) with weights
    −c·(k − p). Worked in chunks of about 2^15 entries (whole sub-blocks or segments) so that
    the temporaries stay in cache. As every function here, unchecked: the callers check their
    inputs (:mod:`~dpquant.reference.slice_quantiles.joint_exp_forward`)."""
    v = np.ascontiguousarray(v, dtype=float)
    n = v.size
    out = np.empty(n) if out is None else out
    if n == 0:
        return out
    k = _sub_block(c, seg if seg is not None else _MAX_BLOCK)
    single = seg is None or seg >= n
    span = n if seg is None else seg
    if single and not reverse:
        step = max(1, _CHUNK // k) * k  # sub-blocks, the carry passed on
    elif single:
        step = n
    else:
        step = span * max(1, _CHUNK // span)  # whole segments
    size = min(step, n)
    z, e, lin, exact = np.empty(size), np.empty(size), np.empty(size), np.empty(size)
    carry = -np.inf
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        m = hi - lo
        sg = m if single else span
        ref, first = _first_pass(v[lo:hi], c, sg, k, reverse, z[:m])
        with np.errstate(over="ignore"):
            np.exp(z[:m], out=e[:m])
        carry_in = carry if single else -np.inf
        chunk = (z[:m], e[:m], ref, first, lin[:m], exact[:m], carry_in)
        carries, anchors, stops, carry = _second_pass(v[lo:hi], c, sg, k, reverse, *chunk)
        with np.errstate(divide="ignore"):
            np.log(lin[:m], out=out[lo:hi])
        _third_pass(out[lo:hi], c, sg, k, reverse, first, carries, anchors, stops, exact[:m])
    return out


@njit(cache=True)
def _combine_offsets(  # noqa: PLR0913  # pragma: no cover - compiled
    parts: tuple[np.ndarray, ...],
    offsets: np.ndarray,
    shifts: np.ndarray,
    lo: int,
    z: np.ndarray,
    top: np.ndarray,
) -> None:
    """With term_q(i) = parts[q][i − offsets[q]] + shifts[q] (−inf outside parts[q]):
    z[q, i] = term_q(lo + i) − top[i] (raised to −700 at least), top[i] the largest term (−inf
    when all are −inf: then z = −700 and the sum's log + top is −inf)."""
    m = top.size
    top[:] = -np.inf
    for q in range(len(parts)):
        part, off, sh = parts[q], offsets[q], shifts[q]
        i0 = min(m, max(0, off - lo))
        i1 = max(i0, min(m, part.size + off - lo))
        for i in range(i0, i1):
            top[i] = max(top[i], part[lo + i - off] + sh)
    for q in range(len(parts)):
        part, off, sh = parts[q], offsets[q], shifts[q]
        i0 = min(m, max(0, off - lo))
        i1 = max(i0, min(m, part.size + off - lo))
        for i in range(i0):
            z[q, i] = _FLOOR
        for i in range(i0, i1):
            t = top[i] if top[i] > -np.inf else 0.0
            z[q, i] = max(part[lo + i - off] + sh - t, _FLOOR)
        for i in range(i1, m):
            z[q, i] = _FLOOR


@njit(cache=True)
def _combine_sum(e: np.ndarray, total: np.ndarray) -> None:  # pragma: no cover - compiled
    total[:] = e[0]
    for q in range(1, e.shape[0]):
        for i in range(total.size):
            total[i] += e[q, i]


def lse_combine(
    parts: list[np.ndarray],
    shifts: list[float],
    add: np.ndarray | None = None,
    offsets: list[int] | None = None,
    size: int | None = None,
) -> np.ndarray:
    """LSE_q term_q (+ ``add``) elementwise over i = 0..size − 1, term_q(i) = parts[q][i −
    offsets[q]] + shifts[q] (−inf outside parts[q]; offsets 0 and size len(parts[0]) by
    default), for arrays of reals and −inf: the largest term is the reference, so every summand
    is <= 1 and one is 1 (terms below it by more than 700, raised to −700, add at most 1e-304
    each: nothing); one vectorised ``exp`` per term and one ``log``, in chunks that stay in
    cache."""
    n = parts[0].size if size is None else size
    out = np.empty(n)
    tup = tuple(np.ascontiguousarray(p, dtype=float) for p in parts)
    sh = np.asarray(shifts, dtype=float)
    off = np.zeros(len(parts), dtype=np.int64) if offsets is None else np.asarray(offsets)
    width = min(n, _CHUNK)
    z = np.empty((len(parts), width))
    top = np.empty(width)
    total = np.empty(width)
    for lo in range(0, n, _CHUNK):
        hi = min(lo + _CHUNK, n)
        m = hi - lo
        _combine_offsets(tup, off, sh, lo, z[:, :m], top[:m])
        np.exp(z[:, :m], out=z[:, :m])
        _combine_sum(z[:, :m], total[:m])
        with np.errstate(divide="ignore"):
            np.log(total[:m], out=out[lo:hi])
        out[lo:hi] += top[:m]
        if add is not None:
            out[lo:hi] += add[lo:hi]
    return out


def fast_prefix_lse(v: np.ndarray, c: float) -> np.ndarray:
    """P(p) = LSE_{i <= p} [v(i) − c·(p − i)], as
    :func:`~dpquant.reference.slice_quantiles.joint_exp_forward.decayed_prefix_lse` (unchecked)."""
    return scan(v, c)


def _window_parts(
    v: np.ndarray, c: float, width: int, size: int
) -> tuple[list[np.ndarray], list[float]]:
    """Van Herk / Gil-Werman for the windows of ``width`` starting at p = 0..size − 1: a
    decayed suffix of p's block and a growing prefix of the next block (−inf at block starts),
    LSE of the two (plus the shifts returned) = LSE_{i = p}^{p + width − 1} [v(i) − c·(i − p)]."""
    suffix = scan(v, c, width, reverse=True)[:size]
    grow = scan(v, -c, width)  # LSE_{k' <= k in block} v(k') + c·(k − k')
    if size + width - 1 <= v.size:  # every window ends inside v: a slice
        grow[width - 1 :: width] = -np.inf  # windows starting a block have no next-block part
        return [suffix, grow[width - 1 : width - 1 + size]], [0.0, -c * (width - 1)]
    p = np.arange(size)
    q = np.minimum(p + (width - 1), v.size - 1)  # the window's end, or v's
    tail = grow[q] - c * (q - p)
    tail[q // width != p // width + 1] = -np.inf  # no entry of the next block in the window
    return [suffix, tail], [0.0, 0.0]


def fast_window_lse(v: np.ndarray, c: float, width: int) -> np.ndarray:
    """H(p) = LSE_{i = p}^{p + width − 1} [v(i) − c·(i − p)], as
    :func:`~dpquant.reference.slice_quantiles.joint_exp_forward.decayed_window_lse` (unchecked)."""
    n = v.size
    if n == 0:
        return np.asarray(v, dtype=float).copy()
    width = max(1, min(width, n))
    parts, shifts = _window_parts(np.asarray(v, dtype=float), c, width, n)
    return lse_combine(parts, shifts)


def kernel_terms(
    a: np.ndarray, t: float, c: float, length: int | None = None
) -> tuple[list[np.ndarray], list[int], list[float]]:
    """Arrays, offsets and shifts (as :func:`lse_combine` takes them) whose LSE is
    C(i) = LSE_{i' < i} [a(i') − c·|i − i' − t|] (i < len(a)). With D = ⌊t⌋: the far side
    d = i − i' > D is the decayed prefix of a at i − D − 1; the near side 1 <= d <= D is, by van
    Herk / Gil-Werman on blocks of D entries of a (aligned at 0), the decayed suffix of a's
    block at i − D (to the block's end, i' <= i − 1) and the growing prefix of the next block
    up to i − 1 (none when i − D starts a block, i.e. when i − 1 ends one). ``a`` may be the
    first entries of a row of ``length`` entries (default: all of it): D is capped at
    ``length``, as in the reference, and every term at i reads a(i' < i) in whole blocks only,
    so the terms are those of the whole row, bit for bit."""
    n = a.size
    length = n if length is None else length
    big_d = min(int(math.floor(t)), length) if t >= 1 else 0
    shift = big_d + 1
    far = scan(a[: max(0, n - shift)], c)
    if big_d < 1:
        return [far], [shift], [-c * (shift - t)]
    suffix = scan(a, c, big_d, reverse=True)  # LSE_{k' >= k in block} a(k') − c·(k' − k)
    grow = scan(a, -c, big_d)  # LSE_{k' <= k in block} a(k') + c·(k − k')
    grow[big_d - 1 :: big_d] = -np.inf
    near = -c * (t - big_d)
    shifts = [-c * (shift - t), near, -c * (big_d - 1) + near]
    return [far, suffix, grow], [shift, big_d, 1], shifts


def fast_kernel_convolution(a: np.ndarray, t: float, c: float) -> np.ndarray:
    """C(i) = LSE_{i' < i} [a(i') − c·|i − i' − t|], as
    :func:`~dpquant.reference.slice_quantiles.joint_exp_forward.kernel_convolution` (unchecked)."""
    a = np.asarray(a, dtype=float)
    parts, offsets, shifts = kernel_terms(a, t, c)
    return lse_combine(parts, shifts, offsets=offsets, size=a.size)


def rejection_row(
    prev: np.ndarray, log_len: np.ndarray, t: float, c: float, length: int
) -> np.ndarray:
    """The rejection method's next row (module docstring of the forward pass):
    A_j = log L + [C_j(A_{j−1}) ⊕ (log φ_j(0) − log 2 + A_{j−1})], C_j the kernel sum with
    t = t_j; ``prev`` may be the first entries of A_{j−1} (of ``length``), ``log_len`` as long."""
    parts, offsets, shifts = kernel_terms(prev, t, c, length)
    rep = -c * t - _LOG2
    return lse_combine([*parts, prev], [*shifts, rep], log_len, [*offsets, 0], prev.size)


__all__ = [
    "fast_kernel_convolution",
    "fast_prefix_lse",
    "fast_window_lse",
    "kernel_terms",
    "lse_combine",
    "rejection_row",
    "scan",
]
