"""Step 3 of the fast construction (:mod:`.fast_envelope`): the envelope min_k h_k by a sweep
over the nested level bounds, on Fractions (:func:`sweep_envelope`, the reference) and on
integers (:func:`scaled_sweep`, issue 39 item 2, what the mechanism runs).

**On Fractions.** With the nested bounds (k, lo_k, hi_k), the tents of the levels
k <= k*(y) = the last k with hi_k − cap < y < lo_k + cap are unflattened and all higher ones flat,
so Ψ(y) = min(k⁺(y) − s·cap, P₁(k*) − s·y, P₂(k*) + s·y) with the prefix minima
P₁(k) = min_{j<=k} (j + s·lo_j), P₂(k) = min_{j<=k} (j − s·hi_j); k* changes only at the points
hi_k − cap, lo_k + cap, and between two of them Ψ is the minimum of a constant and two lines.

**On integers.** The auditor asks for thousands of small laws, and there the Fraction arithmetic
(normalising gcds, mixed comparisons) was most of the cost. Every quantity the sweep touches is
a rational with a denominator known in advance, so one common scale D (:func:`common_scale`)
turns them all into Python ints:

* the nested bounds lo_k, hi_k (lattice points v + qδ of the data and of Ξ's ends), the cap (3Cr
  or the variant's d_M) and B are multiples of 1/D;
* in the coordinates Y = D·y and the units H = (D/s)·Ψ, with T = D/s an integer, the forms
  (0, k − s·cap), (−s, j + s·lo_j), (+s, j − s·hi_j) become (0, T·k − D·cap), (−1, T·j + D·lo_j),
  (+1, T·j − D·hi_j);
* with D even (D = 2·D₀), every intercept and every cut is even, so the crossing of two forms of
  slopes ∓1, Y = (c₁ − c₂)/2, and the crossing of a flat form with a sloped one, Y = ±(c₀ − c),
  are integers; a sub-interval's midpoint is compared at 2Y (no halves).

The integer sweep makes the same steps as the Fraction one (the same cuts, the same prefix k*,
the same forms in the same order, the same merging of equal neighbours), so its pieces,
converted back by y = Y/D, slope = σ·s and intercept = H·s/D, are the same Fractions
(``tests/reference/private_median/test_tzamos20_sweep.py``).
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_left
from collections.abc import Collection
from fractions import Fraction
from typing import Any

from dpquant.errors import CombinationError, ParameterError
from dpquant.reference.private_median.extended_density import Piece, tent_slope
from dpquant.reference.private_median.parameters import MedianParameters, check_params
from dpquant.reference.validation import check_fraction, check_int

MAX_NESTED = 10**6
"""The most levels :func:`sweep_envelope` takes."""

Form = tuple[int, int]
"""(σ, c): the line H(Y) = σ·Y + c in scaled units, σ ∈ {−1, 0, +1}."""


# ------------------------------------------------------------ on Fractions (the reference)


def _first(values: list[Fraction], test) -> int:
    """The first index where the monotone predicate ``test`` holds (len(values) if none)."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if test(values[mid]):
            hi = mid
        else:
            lo = mid + 1
    return lo


def check_cap(cap: Any) -> Fraction:
    """The tents' flattening distance checked.

    Args:
        cap: A rational >= 0 (int, Fraction, or a finite float read exactly).

    Returns:
        ``cap`` as a Fraction.

    Raises:
        ValueError: ``cap`` is not a rational number, or is negative (naming ``cap``).
    """
    value = cap if isinstance(cap, Fraction) else check_fraction(cap, "cap")
    if value < 0:
        raise ParameterError("cap", "must be >= 0", value)
    return value


def _check_nested(nested: Any) -> list[tuple[int, Fraction, Fraction]]:
    """(k, lo_k, hi_k) triples with k increasing and [lo_k, hi_k] growing (nested)."""
    if isinstance(nested, str | bytes) or not isinstance(nested, list | tuple) or not nested:
        raise ParameterError("nested", "must be a non-empty list of (k, lo_k, hi_k)")
    if len(nested) > MAX_NESTED:
        raise ParameterError("nested", f"must hold at most {MAX_NESTED} levels", len(nested))
    out: list[tuple[int, Fraction, Fraction]] = []
    for item in nested:
        if not isinstance(item, tuple | list) or len(item) != 3:
            raise ParameterError("nested", "must be a list of triples (k, lo_k, hi_k)")
        k = check_int(item[0], "nested (a level k)", minimum=0)
        lo = item[1] if isinstance(item[1], Fraction) else check_fraction(item[1], "nested")
        hi = item[2] if isinstance(item[2], Fraction) else check_fraction(item[2], "nested")
        if lo > hi or (out and (k <= out[-1][0] or lo > out[-1][1] or hi < out[-1][2])):
            raise ParameterError(
                "nested",
                "must have increasing k and growing intervals lo_k <= hi_k",
            )
        out.append((k, lo, hi))
    return out


def sweep_envelope(
    nested: list[tuple[int, Fraction, Fraction]],
    params: MedianParameters,
    cap: Fraction | None = None,
) -> list[Piece]:
    """min_k h_k on [−B, B] from the nested level bounds (k, lo_k, hi_k) by the O(n log n) sweep
    of step 3 (merged exact pieces; equal to :func:`extended_density.envelope_from_levels`).
    The Fraction reference of :func:`scaled_sweep`."""
    params = check_params(params)
    nested = _check_nested(nested)
    s, bound = tent_slope(params), params.output_bound
    cap = 3 * params.C * params.r if cap is None else check_cap(cap)
    p1: list[Fraction] = []
    p2: list[Fraction] = []
    for k, a, b in nested:
        p1.append(min(k + s * a, p1[-1]) if p1 else k + s * a)
        p2.append(min(k - s * b, p2[-1]) if p2 else k - s * b)
    los, his = [a for _, a, _ in nested], [b for _, _, b in nested]
    events = {-bound, bound}
    for _, a, b in nested:
        for c in (b - cap, a + cap):
            if -bound < c < bound:
                events.add(c)
    cuts = sorted(events)
    pieces: list[Piece] = []

    def emit(lo: Fraction, hi: Fraction, slope: Fraction, intercept: Fraction) -> None:
        if pieces and (pieces[-1].slope, pieces[-1].intercept) == (slope, intercept):
            pieces[-1] = Piece(pieces[-1].lo, hi, slope, intercept)
        else:
            pieces.append(Piece(lo, hi, slope, intercept))

    for a, b in zip(cuts, cuts[1:], strict=False):
        mid = (a + b) / 2
        # the unflattened levels form a prefix: hi_k − cap < mid fails from the first k with
        # hi_k >= mid + cap on (hi non-decreasing), mid < lo_k + cap from lo_k <= mid − cap on
        star = min(
            _first(his, lambda v, t=mid + cap: v >= t), _first(los, lambda v, t=mid - cap: v <= t)
        )
        star -= 1
        forms: list[tuple[Fraction, Fraction]] = []
        if star + 1 < len(nested):
            forms.append((Fraction(0), nested[star + 1][0] - s * cap))
        if star >= 0:
            forms += [(-s, p1[star]), (s, p2[star])]
        sub = {a, b}
        for i in range(len(forms)):
            for j in range(i + 1, len(forms)):
                (m1, c1), (m2, c2) = forms[i], forms[j]
                if m1 != m2:
                    y = (c2 - c1) / (m1 - m2)
                    if a < y < b:
                        sub.add(y)
        edges = sorted(sub)
        for lo, hi in zip(edges, edges[1:], strict=False):
            ym = (lo + hi) / 2
            slope, intercept = min(forms, key=lambda f: f[0] * ym + f[1])
            emit(lo, hi, slope, intercept)
    return pieces


# ------------------------------------------------------------------------------ on integers


def paper_cap(params: MedianParameters) -> Fraction:
    """The paper's flattening distance 3Cr (s·3Cr = Lrn/2), computed once per ``params``.

    Args:
        params: The constants.

    Returns:
        3Cr as a Fraction.

    Raises:
        ValueError: ``params`` is not a :class:`MedianParameters`.
    """
    return _paper_cap(check_params(params))


@functools.lru_cache(maxsize=256)
def _paper_cap(params: MedianParameters) -> Fraction:
    return 3 * params.C * params.r


@functools.lru_cache(maxsize=256)
def _constants(params: MedianParameters, cap: Fraction) -> tuple[Fraction, int]:
    """(s, lcm(den δ, den cap, den B, den 1/s)): per (params, cap), computed once."""
    s = tent_slope(params)
    dens = (params.delta.denominator, cap.denominator, params.output_bound.denominator)
    return s, math.lcm(*dens, s.numerator)


def common_scale(params: MedianParameters, cap: Any, denominators: Collection[int]) -> int:
    """D = 2·lcm(the ``denominators`` (of the lattice's values), den δ, den cap, den B, den 1/s).

    Args:
        params: The constants (δ = C/(Ln), B = R + 4Cr, s = Ln/(6C)).
        cap: The distance at which the tents flatten (3Cr, or the variant's d_M).
        denominators: The denominators of the values the sweep will see (the data and Ξ's ends:
            every lattice point v + qδ is then a multiple of 1/D).

    Returns:
        The even common scale D.

    Raises:
        ValueError: ``params`` is not a :class:`MedianParameters`, ``cap`` not a rational >= 0,
            or ``denominators`` not a list or tuple of ints >= 1.
    """
    params = check_params(params)
    cap = check_cap(cap)
    if not isinstance(denominators, list | tuple | set) or not all(
        type(d) is int and d >= 1 for d in denominators
    ):
        raise ParameterError("denominators", "must be a list of ints >= 1")
    return 2 * math.lcm(_constants(params, cap)[1], *denominators)


def scaled_int(value: Any, scale: int) -> int:
    """D·v as an int.

    Args:
        value: An exact rational v (int, Fraction, or a finite float read exactly).
        scale: The scale D (an int whose multiple of ``value`` is an integer).

    Returns:
        The integer D·v.

    Raises:
        ValueError: ``value`` is not a rational number, ``scale`` not an int, or D·v is not an
            integer (naming both).
    """
    if not isinstance(value, Fraction):
        value = check_fraction(value, "value")
    if type(scale) is not int:
        raise ParameterError("scale", "must be an int", type(scale).__name__)
    if scale % value.denominator:
        raise CombinationError(("value", "scale"), "D·v must be an integer (D = scale, v = value)")
    return value.numerator * (scale // value.denominator)


def _check_scaled(nested: list[tuple[int, int, int]], scale: int) -> None:
    """A positive even scale; levels increasing, intervals of even ints growing (nested)."""
    if not isinstance(scale, int) or isinstance(scale, bool) or scale <= 0 or scale % 2:
        raise ParameterError("scale", "must be an even int > 0", repr(scale))
    if not isinstance(nested, list) or not nested:
        raise ParameterError("nested", "must be a non-empty list of (k, lo_k, hi_k) ints")
    previous: tuple[int, int, int] | None = None
    for item in nested:
        if not (isinstance(item, tuple) and len(item) == 3 and all(type(v) is int for v in item)):
            raise ParameterError("nested", "must be a list of int triples (k, D·lo_k, D·hi_k)")
        k, lo, hi = item
        if k < 0 or lo > hi or lo % 2 or hi % 2:
            raise ParameterError(
                "nested", "must have levels k >= 0 and even D·lo_k <= D·hi_k (D = 2·D₀)"
            )
        if previous and (k <= previous[0] or lo > previous[1] or hi < previous[2]):
            raise ParameterError("nested", "must have increasing k and growing intervals")
        previous = item


def _crossings(forms: list[Form], a: int, b: int) -> list[int]:
    """The sorted cuts a, b and every crossing of two forms strictly inside (a, b)."""
    sub = {a, b}
    for i, (m1, c1) in enumerate(forms):
        for m2, c2 in forms[i + 1 :]:
            if m1 != m2:
                y, rest = divmod(c2 - c1, m1 - m2)
                if rest:  # pragma: no cover - excluded by the even values (module docstring)
                    raise AssertionError("a crossing off the integer grid: the scale is wrong")
                if a < y < b:
                    sub.add(y)
    return sorted(sub)


def _lowest(forms: list[Form], twice_y: int) -> Form:
    """The first form of least value at y (compared at 2y: 2H(y) = σ·2y + 2c)."""
    return min(forms, key=lambda f: f[0] * twice_y + 2 * f[1])


def _scaled_pieces(
    nested: list[tuple[int, int, int]], scale: int, tilt: int, cap: int, bound: int
) -> list[tuple[int, int, int, int]]:
    """The merged pieces (Y_lo, Y_hi, σ, c) of min_k H_k on [−bound, bound] (all scaled)."""
    p1: list[int] = []
    p2: list[int] = []
    for k, lo, hi in nested:
        p1.append(min(tilt * k + lo, p1[-1]) if p1 else tilt * k + lo)
        p2.append(min(tilt * k - hi, p2[-1]) if p2 else tilt * k - hi)
    # 2·(hi_k − cap) non-decreasing, −2·(lo_k + cap) non-decreasing: bisect at 2·midpoint
    his = [2 * (hi - cap) for _, _, hi in nested]
    los = [-2 * (lo + cap) for _, lo, _ in nested]
    events = {-bound, bound}
    for _, lo, hi in nested:
        events.update(c for c in (hi - cap, lo + cap) if -bound < c < bound)
    cuts = sorted(events)
    out: list[tuple[int, int, int, int]] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        twice_mid = a + b
        star = min(bisect_left(his, twice_mid), bisect_left(los, -twice_mid)) - 1
        forms: list[Form] = []
        if star + 1 < len(nested):
            forms.append((0, tilt * nested[star + 1][0] - cap))
        if star >= 0:
            forms += [(-1, p1[star]), (1, p2[star])]
        edges = _crossings(forms, a, b)
        for lo, hi in zip(edges, edges[1:], strict=False):
            slope, intercept = _lowest(forms, lo + hi)
            if out and out[-1][2:] == (slope, intercept):
                out[-1] = (out[-1][0], hi, slope, intercept)
            else:
                out.append((lo, hi, slope, intercept))
    return out


def scaled_sweep(
    nested: list[tuple[int, int, int]], scale: int, params: MedianParameters, cap: Any
) -> list[Piece]:
    """min_k h_k on [−B, B] from nested bounds given as ints D·lo_k, D·hi_k, as exact pieces.

    Equal, piece for piece, to :func:`sweep_envelope` on the bounds lo_k = lo/D,
    hi_k = hi/D (module docstring).

    Args:
        nested: (k, D·lo_k, D·hi_k) with k increasing and [lo_k, hi_k] growing, D·lo_k and
            D·hi_k even integers.
        scale: D from :func:`common_scale` (D·cap, D·B and D/s are even integers).
        params: The constants (s = Ln/(6C), B = R + 4Cr).
        cap: The distance at which the tents flatten (3Cr, or the variant's d_M).

    Returns:
        The merged pieces (lo, hi, slope, intercept) as Fractions.

    Raises:
        ValueError: Malformed ``nested``, ``scale`` or ``cap``, or a ``scale`` that does not
            make D·cap, D·B and D/s even integers.
    """
    params = check_params(params)
    cap = check_cap(cap)
    _check_scaled(nested, scale)
    s = _constants(params, cap)[0]
    scaled = [
        divmod(scale * v.denominator, v.numerator)
        if flip
        else divmod(v.numerator * scale, v.denominator)
        for v, flip in ((s, True), (cap, False), (params.output_bound, False))
    ]
    if any(rest or value % 2 for value, rest in scaled):
        raise ParameterError("scale", "must make D/s, D·cap and D·B even integers", scale)
    tilt, cap_int, bound = (value for value, _ in scaled)
    slopes = {-1: -s, 0: Fraction(0), 1: s}
    num, den = s.numerator, s.denominator * scale
    return [
        Piece(Fraction(lo, scale), Fraction(hi, scale), slopes[sigma], Fraction(c * num, den))
        for lo, hi, sigma, c in _scaled_pieces(nested, scale, tilt, cap_int, bound)
    ]


__all__ = [
    "MAX_NESTED",
    "check_cap",
    "common_scale",
    "paper_cap",
    "scaled_int",
    "scaled_sweep",
    "sweep_envelope",
]
