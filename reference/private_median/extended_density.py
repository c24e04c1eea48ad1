"""The exact extended density of tzamos20's mechanism (spec §2.4–§2.5, §4.1–§4.2; Eq. (A.6)).

f_{A(X)}(y) = 1{|y| <= B}·exp((ε/2)·Ψ_X(y))/Z_X with the lower envelope

    Ψ_X(y) = min_k h_k(y),   h_k(y) = k − s·min{max(|y − ξ_{k,inf}|, |y − ξ_{k,sup}|), 3Cr},

s = Ln/(6C), where ξ_{k,inf}, ξ_{k,sup} are the extremes of the set of ξ ∈ Ξ with
TYPICALHAMMING(X, ξ) = k (k = 0..n; Def. E.7 with k from 0, spec E10). TH is constant on the
points and open cells cut from Ξ by the anchors X_i ± κδ, κ = 0..K (Claim E.4), so the extremes
come from one TH evaluation per cell (:func:`level_extremes`).

This is the direct construction (spec §2.5, "simplest exact implementation"): the tents'
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

from reference.distributions import PiecewiseLogLinear
from reference.exact.mp import logsumexp, to_mpf, workdps
from reference.private_median.parameters import MedianParameters
from reference.private_median.typical_set import anchor_points, exact_data, typical_hamming
from reference.validation import check_epsilon


@dataclass(frozen=True)
class Piece:
    """Ψ_X(y) = slope·y + intercept on [lo, hi] (exact)."""

    lo: Fraction
    hi: Fraction
    slope: Fraction
    intercept: Fraction

    def __call__(self, y: Fraction) -> Fraction:
        return self.slope * y + self.intercept


def tent_slope(params: MedianParameters) -> Fraction:
    """s = Ln/(6C): the tents' slope (half of (A.6)'s Ln/(3C), in units of ε/2)."""
    return params.L * params.n / (6 * params.C)


def cell_levels(data: Any, params: MedianParameters) -> list[tuple[Fraction, Fraction, int]]:
    """The cells of Ξ cut by the anchors (points and open intervals) with TH on each:
    (a, b, k), a = b for a point (Claim E.4, Def. E.6)."""
    x = exact_data(data, params.n)
    pts = anchor_points(x, params)
    out = [(p, p, int(typical_hamming(x, p, params))) for p in pts]
    out += [
        (a, b, int(typical_hamming(x, (a + b) / 2, params))) for a, b in itertools.pairwise(pts)
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
    paper's, by default: s·3Cr = Lrn/2)."""
    s, bound = tent_slope(params), params.output_bound
    cap = 3 * params.C * params.r if cap is None else Fraction(cap)
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


def envelope_brute(data: Any, params: MedianParameters, y: Fraction) -> Fraction:
    """Ψ_X(y) as the minimum over every cell (a, b, k) of k − s·min{max(|y − a|, |y − b|), 3Cr}
    (spec §4.3's oracle)."""
    s, cap = tent_slope(params), 3 * params.C * params.r
    return min(
        k - s * min(max(abs(y - a), abs(y - b)), cap) for a, b, k in cell_levels(data, params)
    )


def piece_log_mass(piece: Piece, epsilon: Any) -> mpmath.mpf:
    """log ∫_lo^hi exp((ε/2)(slope·y + intercept)) dy at the working precision."""
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
    """ε as an exact rational (a float is read as its exact binary value); ValueError unless ε is
    finite and > 0."""
    check_epsilon(float(epsilon))
    return Fraction(epsilon)


def law_from_pieces(pieces: list[Piece], epsilon: Any) -> PiecewiseLogLinear:
    """The density ∝ exp((ε/2)·Ψ(y)) on [−B, B] for Ψ given by ``pieces`` (Eq. (A.6) with Ẑ
    absorbed, spec §4.1): slopes (ε/2)·a_i and intercepts (ε/2)·b_i exactly (E10: Alg. 6 omits
    the ε/2). Exact masses, CDF and log-ratios come from :class:`PiecewiseLogLinear`."""
    half = exact_epsilon(epsilon) / 2
    breaks = [pieces[0].lo] + [p.hi for p in pieces]
    slopes = [half * p.slope for p in pieces]
    intercepts = [half * p.intercept for p in pieces]
    return PiecewiseLogLinear(
        [float(b) for b in breaks],
        [float(a) for a in slopes],
        [float(c) for c in intercepts],
        exact_breaks=breaks,
        exact_slopes=slopes,
        exact_intercepts=intercepts,
    )


def normalizer_sympy(pieces: list[Piece], epsilon: Any):
    """Z_X = Σ_i ∫_{lo_i}^{hi_i} exp((ε/2)(a_i·y + b_i)) dy as an exact sympy expression (spec
    §4.1–4.2): a ℚ-linear combination of exponentials of rationals when ε is rational (a float ε is
    read as its exact binary value). Each term is (hi − lo)·e^{(ε/2)b} for a flat piece and
    (e^{(ε/2)(a·hi + b)} − e^{(ε/2)(a·lo + b)})/((ε/2)a) otherwise."""
    import sympy

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
    check_epsilon(float(epsilon))
    return logsumexp([piece_log_mass(p, epsilon) for p in pieces])


__all__ = [
    "Piece",
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
