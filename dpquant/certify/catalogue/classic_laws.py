"""Exact answer-list probabilities of the sparse vector technique, written out as closed-form
expressions of the certificates' language (for :mod:`dpquant.certify.catalogue.classic`).

Lyu, Su and Li's template (VLDB 2017, Alg. 1): ρ ~ Lap(κ_ρ/ε), ν_i ~ Lap(κ_ν/ε) (none when
κ_ν = 0), the answer to query i is ⊤ when q_i + ν_i >= T + ρ and ⊥ otherwise; after the cutoff
the positions are aborted (they carry no factor). Given ρ = r the answers are independent, so

    P(list) = ∫ f_ρ(r) Π_i g_i(r) dr,   g_i(r) = F_ν(T + r − q_i) (⊥) or 1 − F_ν(T + r − q_i) (⊤),

F_ν the Laplace CDF (e^{x/b}/2 for x < 0, 1 − e^{−x/b}/2 for x >= 0). Between consecutive
breakpoints (r = 0 and r = q_i − T) every factor is a sum of terms c·e^{ε(αr + β)}, so the
integrand is such a sum and its integral over each piece is exact: this module multiplies the
terms out exactly (in integers: each factor doubled, every exponent over a common denominator)
and integrates each one (e^{ε(αr+β)} over [a, b] is
(e^{ε(αb+β)} − e^{ε(αa+β)})/(εα), or (b − a)·e^{εβ} when α = 0; on the two unbounded pieces
every term decays). With the density's factor ε/(2κ_ρ) the result is
Σ_γ A_γ e^{εγ} + ε·Σ_γ B_γ e^{εγ}, rational A, B and γ: the text returned, over the variable
``eps``. No sum is left implicit and no tail is cut.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

from dpquant.certify.specs import Condition, Part, Variable

ABOVE = "T"
BELOW = "F"
"""The answer symbols of a pattern string: ``"FFFT"`` is ⊥⊥⊥⊤ (then aborted, if shorter)."""

Term = tuple[int, int, int]
"""A term of a factor 2·g_i(r) in integers: (C, i, j) stands for C·e^{ε(i·r + j/D)/κ_ν}, D a
common denominator of the shifts; products of such terms stay integers (exact, and many times
faster than Fractions)."""
Product = dict[tuple[int, int], int]
"""Σ C·e^{ε(i·r + j/D)/κ_ν} as {(i, j): C}."""


def _factor(symbol: str, shift: int, nu: Fraction, negative: bool) -> list[Term]:
    """2·g(r) (g(r) when κ_ν = ``nu`` is 0) on a piece where x = r + shift/D is negative
    (``negative``) or not, ``shift`` scaled by D (0: no query noise, then g is the indicator
    of ⊤ ⇔ x <= 0)."""
    if nu == 0:
        above = negative  # x < 0 on the piece's interior: q_i >= T + r
        return [(1, 0, 0)] if above == (symbol == ABOVE) else []
    if negative:  # F = e^{x/b}/2
        low, high = [(1, 1, shift)], [(2, 0, 0), (-1, 1, shift)]
    else:  # F = 1 − e^{−x/b}/2
        low, high = [(2, 0, 0), (-1, -1, -shift)], [(1, -1, -shift)]
    return low if symbol == BELOW else high


def _multiply(left: Product, right: list[Term]) -> Product:
    out: Product = defaultdict(int)
    for (i1, j1), c1 in left.items():
        for c2, i2, j2 in right:
            out[(i1 + i2, j1 + j2)] += c1 * c2
    return out


Piece = tuple[Fraction | None, Fraction | None]
"""An interval of r between consecutive breakpoints (None: unbounded)."""


class _Integral:
    """Σ over pieces of ∫ (ε/(2κ_ρ))·e^{−ε|r|/κ_ρ}·Π_i g_i(r) dr, gathered in integers: the
    integral of e^{ε(αr+β)} over [a, b] is (e^{ε(αb+β)} − e^{ε(αa+β)})/(εα), or (b − a)·e^{εβ}
    when α = 0; on a piece of sign d (of r) α = d/κ_ρ + i/κ_ν and β = j/(Dκ_ν), and every
    exponent αe + β at an end e is an integer over one common denominator G."""

    def __init__(self, pieces: list[Piece], rho: Fraction, nu: Fraction, scale: int,
                 factors: int) -> None:
        self.rho, self.per_i = rho, (1 / nu if nu else Fraction(0))
        self.per_j = self.per_i / scale
        # the density's ε/(2κ_ρ), over 2 per noisy factor of 2·g_i (1/(εα) takes the ε)
        self.unit = 1 / (2 * rho * (2**factors if nu else 1))
        steps = [self.per_j] + [x * e for lo, hi in pieces for e in (lo, hi) if e is not None
                                for x in (1 / rho, self.per_i)]
        self.common = math.lcm(*(x.denominator for x in steps))  # G
        self.plain: dict[tuple[int, int, int], int] = defaultdict(int)  # (αe + β)·G, d, i
        self.over: dict[Fraction, Fraction] = defaultdict(Fraction)

    def add(self, product: Product, piece: Piece, d: int) -> None:
        """Add the integral over ``piece`` (r of sign ``d``) of the density times ``product``."""
        lo, hi = piece
        g, step_j = self.common, int(self.per_j * self.common)
        ends = [(int(d / self.rho * e * g), int(self.per_i * e * g), sign)
                for e, sign in ((hi, 1), (lo, -1)) if e is not None]
        slopes = {i: d / self.rho + i * self.per_i for i in {i for i, _ in product}}  # α
        for (i, j), c in product.items():
            if not c:
                continue
            a = slopes[i]
            if a == 0:
                if lo is None or hi is None:
                    raise ValueError("a term that does not decay on an unbounded piece")
                self.over[j * self.per_j] += c * self.unit * (hi - lo)
                continue
            if (lo is None and a < 0) or (hi is None and a > 0):
                raise ValueError("a term that does not decay on an unbounded piece")
            for at, per_i, sign in ends:
                self.plain[(at + i * per_i + j * step_j, d, i)] += sign * c

    def sums(self) -> tuple[dict[Fraction, Fraction], dict[Fraction, Fraction]]:
        """(A, B) of :func:`list_probability_terms`: each coefficient unit/α, over one common
        denominator W, so that only the few distinct exponents are Fractions."""
        pairs = {(d, i) for _, d, i in self.plain}
        slopes = {(d, i): d / self.rho + i * self.per_i for d, i in pairs}
        weights = {key: self.unit / a for key, a in slopes.items() if a}
        common = math.lcm(1, *(w.denominator for w in weights.values()))  # W
        scaled = {key: int(w * common) for key, w in weights.items()}
        plain: dict[int, int] = defaultdict(int)
        for (gamma, d, i), c in self.plain.items():
            if c:
                plain[gamma] += c * scaled[(d, i)]
        return (
            {Fraction(g, self.common): Fraction(v, common) for g, v in plain.items() if v},
            {g: v for g, v in self.over.items() if v},
        )


def list_probability_terms(
    q: Sequence[Fraction | int], pattern: str, threshold: Fraction | int, rho: Fraction | int,
    nu: Fraction | int,
) -> tuple[dict[Fraction, Fraction], dict[Fraction, Fraction]]:
    """(A, B) with P(pattern) = Σ_γ A_γ e^{εγ} + ε·Σ_γ B_γ e^{εγ} (module docstring).

    Args:
        q: The query answers (exact).
        pattern: ⊥/⊤ as ``"F"``/``"T"``, one per position answered (shorter than ``q``: the rest
            aborted).
        threshold: T.
        rho: κ_ρ, the threshold noise's scale times ε.
        nu: κ_ν, the query noise's scale times ε (0: none).
    """
    t, kr, kn = Fraction(threshold), Fraction(rho), Fraction(nu)
    shifts = [t - Fraction(x) for x in q[: len(pattern)]]  # x_i = r + shift_i
    scale = math.lcm(1, *(s.denominator for s in shifts))  # D
    scaled = [int(s * scale) for s in shifts]
    cuts = sorted({Fraction(0), *(-s for s in shifts)})
    pieces: list[Piece] = [(None, cuts[0]), *zip(cuts, cuts[1:], strict=False),
                           (cuts[-1], None)]
    integral = _Integral(pieces, kr, kn, scale, len(shifts))
    for lo, hi in pieces:
        if lo is None:
            assert hi is not None
            inside = hi - 1
        else:
            inside = lo + 1 if hi is None else (lo + hi) / 2
        product: Product = {(0, 0): 1}
        for symbol, s, exact in zip(pattern, scaled, shifts, strict=False):
            product = _multiply(product, _factor(symbol, s, kn, inside + exact < 0))
        integral.add(product, (lo, hi), 1 if inside < 0 else -1)  # e^{−|r|ε/κ_ρ}
    return integral.sums()


def _exp(gamma: Fraction) -> str:
    if gamma == 0:
        return "1"
    return f"exp({gamma.numerator}*eps/{gamma.denominator})"


def _sum(terms: dict[Fraction, Fraction]) -> str:
    return " + ".join(
        f"({c.numerator})/{c.denominator}*{_exp(g)}" for g, c in sorted(terms.items())
    ) or "0"


def list_probability(
    q: Sequence[Fraction | int], pattern: str, threshold: Fraction | int, rho: Fraction | int,
    nu: Fraction | int,
) -> str:
    """The text of P(pattern) over ``eps`` (arguments as :func:`list_probability_terms`;
    remembered: the catalogue asks for many lists twice)."""
    return _text(tuple(Fraction(x) for x in q), pattern, Fraction(threshold), Fraction(rho),
                 Fraction(nu))


@functools.cache
def _text(q: tuple[Fraction, ...], pattern: str, threshold: Fraction, rho: Fraction,
          nu: Fraction) -> str:
    plain, over = list_probability_terms(q, pattern, threshold, rho, nu)
    if not over:
        return f"({_sum(plain)})"
    return f"({_sum(plain)} + eps*({_sum(over)}))"


# -------------------------------------------------------------- shared parts

EPS = Variable("eps", Fraction(1, 10**300), 10**300, scale="log")
"""ε > 0 for identity parts (only its sign matters there: every ε > 0)."""
B = Variable("b", Fraction(1, 10**300), 10**300, scale="log")
"""A Laplace scale b > 0 (identity parts: every b > 0)."""


def identity_part(name: str, expression: str, variables: tuple[Variable, ...], note: str) -> Part:
    return Part(name=name, variables=variables, goal=Condition(expression, ">="),
                method="identity", note=note)


# -------------------------------------------------------------- the Laplace CDF lemma

LAPLACE_CDF_LEMMA = (
    identity_part(
        "Laplace CDF, y <= -1: F(y + 1)/F(y) = e^(1/b) exactly",
        "exp((y + 1)/b)/2/(exp(y/b)/2) - exp(1/b)",
        (Variable("y", -(10**300), -1), B),
        "F(y) = e^(y/b)/2 for y <= 0.",
    ),
    identity_part(
        "Laplace CDF, -1 <= y <= 0: e^(1/b) F(y) - F(y + 1) is a square over 2",
        "exp(1/b)*exp(y/b)/2 - (1 - exp(-(y + 1)/b)/2)"
        " - (exp((y + 1)/(2*b)) - exp(-(y + 1)/(2*b)))**2/2",
        (Variable("y", -1, 0), B),
        "F(y) = e^(y/b)/2 (y <= 0), F(y + 1) = 1 - e^(-(y+1)/b)/2 (y + 1 >= 0); the difference "
        "equals (e^((y+1)/2b) - e^(-(y+1)/2b))^2/2 >= 0.",
    ),
    identity_part(
        "Laplace CDF, y >= 0: e^(1/b) F(y) - F(y + 1) is a product of positive factors",
        "exp(1/b)*(1 - exp(-y/b)/2) - (1 - exp(-(y + 1)/b)/2)"
        " - (exp(1/b) - 1)*(1 - exp(-y/b)*(1 + exp(-1/b))/2)",
        (Variable("y", 0, 10**300), B),
        "F(y) = 1 - e^(-y/b)/2 (y >= 0); the difference equals (e^(1/b) - 1)(1 - e^(-y/b)(1 + "
        "e^(-1/b))/2), both factors positive for b > 0, y >= 0 (e^(-y/b) <= 1 < 2/(1 + e^(-1/b))).",
    ),
)
"""F(y + 1) <= e^(1/b)·F(y) for the Laplace(b) CDF F, every y and b > 0: with F increasing and
1 − F(y) = F(−y), every factor F(y + s) or 1 − F(y + s), |s| <= 1, is within a factor e^(1/b) of
its value at s = 0 (human step); the density's ratio e^(−|y|/b)/e^(−|y+s|/b) <= e^(1/b) is the
triangle inequality."""

LEMMA_NOTE = (
    "with F(y+1) <= e^(1/b) F(y) (the Laplace CDF lemma, parts 1-3), F increasing and "
    "1 - F(y) = F(-y), every CDF factor moves by at most e^(1/b) when its location moves by at "
    "most 1; the density's by the triangle inequality (human steps)"
)


__all__ = [
    "ABOVE",
    "B",
    "BELOW",
    "EPS",
    "LAPLACE_CDF_LEMMA",
    "LEMMA_NOTE",
    "identity_part",
    "list_probability",
    "list_probability_terms",
]
