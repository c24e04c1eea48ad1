"""The exact extended density of tzamos20's mechanism (Eq. (A.6); Def. E.6–E.7, Eq. (E.1),
Algorithms 4–6, Lemma E.8).

f_{A(X)}(y) = 1{|y| <= B}·exp((ε/2)·Ψ_X(y))/Z_X with the lower envelope

    Ψ_X(y) = min_k h_k(y),   h_k(y) = k − s·min{max(|y − ξ_{k,inf}|, |y − ξ_{k,sup}|), 3Cr},

s = Ln/(6C), where ξ_{k,inf}, ξ_{k,sup} are the extremes of the set of ξ ∈ Ξ with
TYPICALHAMMING(X, ξ) = k (k = 0..n; Def. E.7 with k from 0, erratum E10 in ``notes/tzamos20.md``).
TH is constant on the points and open cells cut from Ξ by the anchors X_i ± κδ, κ = 0..K
(Claim E.4), so the extremes come from one TH evaluation per cell (:func:`level_extremes`).

This is the direct construction (ours, in place of Algorithms 5–6's sweep): the tents'
breakpoints cut [−B, B] into intervals on which every tent is linear; inside each, the minimum of
the lines changes only at pairwise intersections; the argmin's form is taken at each sub-interval's
midpoint and equal neighbouring forms are merged. Everything is a Fraction; ε enters only through
Z_X, evaluated with mpmath (:func:`log_normalizer`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from dpquant.errors import CombinationError, ParameterError
from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.exact.mp import logsumexp, to_mpf, workdps
from dpquant.reference.private_median.parameters import MedianParameters, check_params
from dpquant.reference.private_median.typical_set import (
    anchor_points,
    check_direct,
    exact_data,
    typical_hamming_presorted,
)
from dpquant.reference.validation import MAX_FLOAT, check_epsilon, check_fraction, check_int

MAX_PIECES = 10**6
"""The most pieces :func:`law_from_pieces` and :func:`log_normalizer` take (10^4 for the
symbolic :func:`normalizer_sympy`)."""
MAX_LEVELS_DIRECT = 600
"""The most levels :func:`envelope_from_levels` takes (its cost grows as the cube)."""
_FLOAT_FIT = Fraction(MAX_FLOAT / 4)
"""MAX_FLOAT/4 as an exact rational (a Fraction compared with a float converts it every time)."""


def _rational(x: Any, name: str) -> Fraction:
    if isinstance(x, Fraction):
        return x
    return check_fraction(x, name)


@dataclass(frozen=True)
class Piece:
    """Ψ_X(y) = slope·y + intercept on [lo, hi] (exact rationals, lo < hi)."""

    lo: Fraction
    hi: Fraction
    slope: Fraction
    intercept: Fraction

    def __post_init__(self) -> None:
        for name in ("lo", "hi", "slope", "intercept"):
            value = getattr(self, name)
            if not isinstance(value, Fraction):
                object.__setattr__(self, name, check_fraction(value, name))
        if not self.lo < self.hi:
            raise ParameterError("lo", "must be < hi", f"[{self.lo}, {self.hi}]")

    def __call__(self, y: Fraction) -> Fraction:
        return self.slope * _rational(y, "y") + self.intercept


def check_pieces(pieces: Any, limit: int = MAX_PIECES) -> list[Piece]:
    """A non-empty list of contiguous :class:`Piece` (each ``hi`` the next ``lo``)."""
    if isinstance(pieces, str | bytes) or not isinstance(pieces, list | tuple):
        raise ParameterError("pieces", "must be a list of Piece", type(pieces).__name__)
    if not pieces:
        raise ParameterError("pieces", "must be non-empty")
    if len(pieces) > limit:
        raise ParameterError("pieces", f"must hold at most {limit} pieces", len(pieces))
    if not all(isinstance(p, Piece) for p in pieces):
        raise ParameterError("pieces", "must be a list of Piece")
    if any(a.hi != b.lo for a, b in itertools.pairwise(pieces)):
        raise ParameterError(
            "pieces",
            "must be contiguous (each piece's hi is the next piece's lo)",
        )
    return list(pieces)


def tent_slope(params: MedianParameters) -> Fraction:
    """s = Ln/(6C): the tents' slope (half of (A.6)'s Ln/(3C), in units of ε/2)."""
    return params.L * params.n / (6 * params.C)


def cell_levels(data: Any, params: MedianParameters) -> list[tuple[Fraction, Fraction, int]]:
    """The cells of Ξ cut by the anchors (points and open intervals) with TH on each:
    (a, b, k), a = b for a point (Claim E.4, Def. E.6). ValueError when H is empty (TH is
    +inf everywhere) or beyond :data:`.typical_set.MAX_DIRECT_WORK`."""
    params = check_params(params)
    x = exact_data(data, params.n)
    if params.windows + 1 > params.n:
        raise ParameterError(
            "C",
            f"must be greater than L·r/2 = {params.L * params.r / 2} (got C = {params.C}): for n "
            f"= {params.n} the typical set H is empty",
        )
    check_direct(params)
    pts = anchor_points(x, params)
    out = [(p, p, int(typical_hamming_presorted(x, p, params))) for p in pts]
    out += [
        (a, b, int(typical_hamming_presorted(x, (a + b) / 2, params)))
        for a, b in itertools.pairwise(pts)
    ]
    return sorted(out)


def level_extremes(data: Any, params: MedianParameters) -> dict[int, tuple[Fraction, Fraction]]:
    """{k: (ξ_{k,inf}, ξ_{k,sup})} over the non-empty levels 𝕀_k (closures of the cells)."""
    out: dict[int, tuple[Fraction, Fraction]] = {}
    for a, b, k in cell_levels(data, params):
        lo, hi = out.get(k, (a, b))
        out[k] = (min(lo, a), max(hi, b))
    return dict(sorted(out.items()))


def _tent_form(
    k: int, inf: Fraction, sup: Fraction, y: Fraction, s: Fraction, cap: Fraction
) -> tuple[Fraction, Fraction]:
    """(slope, intercept) of h_k on a neighbourhood of y that contains no breakpoint of h_k."""
    if y <= (inf + sup) / 2:  # max(|y − inf|, |y − sup|) = sup − y
        return (Fraction(0), k - s * cap) if sup - y >= cap else (s, k - s * sup)
    return (Fraction(0), k - s * cap) if y - inf >= cap else (-s, k + s * inf)


def envelope(data: Any, params: MedianParameters) -> list[Piece]:
    """Ψ_X on [−B, B] as merged linear pieces (exact; the direct construction)."""
    return envelope_from_levels(level_extremes(data, params), params)


def envelope_from_levels(
    levels: dict[int, tuple[Fraction, Fraction]],
    params: MedianParameters,
    cap: Fraction | None = None,
) -> list[Piece]:
    """min_k h_k on [−B, B] for the level extremes ``levels`` = {k: (ξ_{k,inf}, ξ_{k,sup})}, as
    merged exact linear pieces. ``cap`` is the distance at which the tents flatten (3Cr, the
    paper's, by default: s·3Cr = Lrn/2). At most :data:`MAX_LEVELS_DIRECT` levels."""
    params = check_params(params)
    levels = check_levels_map(levels)
    s, bound = tent_slope(params), params.output_bound
    cap = 3 * params.C * params.r if cap is None else _rational(cap, "cap")
    if cap < 0:
        raise ParameterError("cap", "must be >= 0", cap)
    cuts = {-bound, bound}
    for inf, sup in levels.values():
        for c in ((inf + sup) / 2, sup - cap, inf + cap):
            if -bound < c < bound:
                cuts.add(c)
    pieces: list[Piece] = []
    for a, b in itertools.pairwise(sorted(cuts)):
        mid = (a + b) / 2
        forms = [_tent_form(k, lo, hi, mid, s, cap) for k, (lo, hi) in levels.items()]
        sub = {a, b}
        for (m1, c1), (m2, c2) in itertools.combinations(set(forms), 2):
            if m1 != m2:
                y = (c2 - c1) / (m1 - m2)
                if a < y < b:
                    sub.add(y)
        for lo, hi in itertools.pairwise(sorted(sub)):
            ym = (lo + hi) / 2
            slope, intercept = min(forms, key=lambda f: f[0] * ym + f[1])
            if pieces and (pieces[-1].slope, pieces[-1].intercept) == (slope, intercept):
                pieces[-1] = Piece(pieces[-1].lo, hi, slope, intercept)
            else:
                pieces.append(Piece(lo, hi, slope, intercept))
    return pieces


def check_levels_map(levels: Any, limit: int = MAX_LEVELS_DIRECT) -> dict:
    """{k: (lo, hi)}: integer levels k >= 0 with exact rational extremes lo <= hi."""
    if not isinstance(levels, dict) or not levels:
        raise ParameterError("levels", "must be a non-empty dict {k: (xi_inf, xi_sup)}")
    if len(levels) > limit:
        raise ParameterError("levels", f"must hold at most {limit} levels", len(levels))
    out = {}
    for k, pair in levels.items():
        k = check_int(k, "levels (a level k)", minimum=0)
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ParameterError("levels", "must map each k to a pair (xi_inf, xi_sup)")
        lo, hi = _rational(pair[0], "levels (xi_inf)"), _rational(pair[1], "levels (xi_sup)")
        if lo > hi:
            raise ParameterError("levels", "must have xi_inf <= xi_sup", f"({lo}, {hi}) at k = {k}")
        out[k] = (lo, hi)
    return dict(sorted(out.items()))


def envelope_brute(data: Any, params: MedianParameters, y: Fraction) -> Fraction:
    """Ψ_X(y) as the minimum over every cell (a, b, k) of k − s·min{max(|y − a|, |y − b|), 3Cr}
    (the brute-force oracle of Eq. (A.6))."""
    params = check_params(params)
    y = _rational(y, "y")
    s, cap = tent_slope(params), 3 * params.C * params.r
    return min(
        k - s * min(max(abs(y - a), abs(y - b)), cap) for a, b, k in cell_levels(data, params)
    )


def piece_log_mass(piece: Piece, epsilon: Any) -> mpmath.mpf:
    """log ∫_lo^hi exp((ε/2)(slope·y + intercept)) dy at the working precision."""
    if not isinstance(piece, Piece):
        raise ParameterError("piece", "must be a Piece", type(piece).__name__)
    epsilon = exact_epsilon(epsilon)
    with workdps():
        e = to_mpf(epsilon) / 2
        a, b = e * to_mpf(piece.slope), e * to_mpf(piece.intercept)
        lo, hi = to_mpf(piece.lo), to_mpf(piece.hi)
        if a == 0:
            return b + mpmath.log(hi - lo)
        # ∫ e^{ay+b} = e^{b + a·top}(1 − e^{−|a|(hi − lo)})/|a|, top the end where ay is largest
        top = hi if a > 0 else lo
        return b + a * top + mpmath.log(-mpmath.expm1(-abs(a) * (hi - lo))) - mpmath.log(abs(a))


def exact_epsilon(epsilon: Any) -> Fraction:
    """ε as an exact rational (a float is read as its exact binary value): a real number (int,
    float or Fraction; never a string or a bool) that is > 0 and fits a float, also once
    rounded (a positive ε that rounds to 0.0 is refused, since the claim is a float)."""
    value = check_fraction(epsilon, "epsilon", positive=True)
    check_epsilon(float(value))
    return value


def law_from_pieces(pieces: list[Piece], epsilon: Any) -> PiecewiseLogLinear:
    """The density ∝ exp((ε/2)·Ψ(y)) on [−B, B] for Ψ given by ``pieces`` (Eq. (A.6) with Ẑ
    absorbed): slopes (ε/2)·a_i and intercepts (ε/2)·b_i exactly (erratum E10: Alg. 6 omits
    the ε/2). Exact masses, CDF and log-ratios come from :class:`PiecewiseLogLinear`.

    The float path needs every breakpoint, slope and intercept to fit a float and the
    breakpoints to stay distinct once rounded; pieces that break this are refused (ValueError
    naming ``pieces`` and ``epsilon``) rather than sampled from a different law."""
    pieces = check_pieces(pieces)
    half = exact_epsilon(epsilon) / 2
    breaks = [pieces[0].lo] + [p.hi for p in pieces]
    slopes = [half * p.slope for p in pieces]
    intercepts = [half * p.intercept for p in pieces]
    if any(abs(v) > _FLOAT_FIT for v in (*breaks[:1], *breaks[-1:], *slopes, *intercepts)):
        raise CombinationError(
            ("pieces", "epsilon"),
            "a breakpoint, slope (ε/2)·a or intercept (ε/2)·b does not fit a float",
        )
    fb = [float(b) for b in breaks]
    if any(not lo < hi for lo, hi in itertools.pairwise(fb)):
        raise CombinationError(
            ("pieces",),
            "two breakpoints of the density are closer than the float resolution "
            "(the data or the constants are too close together to be represented)",
        )
    return PiecewiseLogLinear(
        fb,
        [float(a) for a in slopes],
        [float(c) for c in intercepts],
        exact_breaks=breaks,
        exact_slopes=slopes,
        exact_intercepts=intercepts,
    )


def normalizer_sympy(pieces: list[Piece], epsilon: Any):
    """Z_X = Σ_i ∫_{lo_i}^{hi_i} exp((ε/2)(a_i·y + b_i)) dy as an exact sympy expression (the sum
    of Lemma E.9's piece masses p_i): a ℚ-linear combination of exponentials of rationals when ε is
    rational (a float ε is read as its exact binary value). Each term is (hi − lo)·e^{(ε/2)b} for a flat piece and
    (e^{(ε/2)(a·hi + b)} − e^{(ε/2)(a·lo + b)})/((ε/2)a) otherwise."""
    import sympy

    pieces = check_pieces(pieces, limit=10**4)
    half = exact_epsilon(epsilon) / 2
    terms = []
    for p in pieces:
        a, b = half * p.slope, half * p.intercept
        if a == 0:
            terms.append(sympy.Rational(p.hi - p.lo) * sympy.exp(sympy.Rational(b)))
        else:
            top, bottom = sympy.Rational(a * p.hi + b), sympy.Rational(a * p.lo + b)
            terms.append((sympy.exp(top) - sympy.exp(bottom)) / sympy.Rational(a))
    return sympy.Add(*terms)


def log_normalizer(pieces: list[Piece], epsilon: Any) -> mpmath.mpf:
    """log Z_X = log ∫_{−B}^{B} exp((ε/2)Ψ_X(y)) dy (mpmath, >= 50 digits)."""
    epsilon = exact_epsilon(epsilon)
    return logsumexp([piece_log_mass(p, epsilon) for p in check_pieces(pieces)])


__all__ = [
    "MAX_LEVELS_DIRECT",
    "MAX_PIECES",
    "Piece",
    "check_levels_map",
    "check_pieces",
    "cell_levels",
    "envelope",
    "envelope_brute",
    "envelope_from_levels",
    "law_from_pieces",
    "level_extremes",
    "log_normalizer",
    "normalizer_sympy",
    "piece_log_mass",
    "tent_slope",
]
