"""Exact answer-list probabilities of the sparse vector technique, written out as closed-form
expressions of the certificates' language (for :mod:`dpquant.certify.catalogue.classic`).

Lyu, Su and Li's template (VLDB 2017, Alg. 1): ρ ~ Lap(κ_ρ/ε), ν_i ~ Lap(κ_ν/ε) (none when
κ_ν = 0), the answer to query i is ⊤ when q_i + ν_i >= T + ρ and ⊥ otherwise; after the cutoff
the positions are aborted (they carry no factor). Given ρ = r the answers are independent, so

    P(list) = ∫ f_ρ(r) Π_i g_i(r) dr,   g_i(r) = F_ν(T + r − q_i) (⊥) or 1 − F_ν(T + r − q_i) (⊤),

F_ν the Laplace CDF (e^{x/b}/2 for x < 0, 1 − e^{−x/b}/2 for x >= 0). Between consecutive
breakpoints (r = 0 and r = q_i − T) every factor is a sum of terms c·e^{ε(αr + β)}, so the
integrand is such a sum and its integral over each piece is exact: this module multiplies the
terms out with exact rationals and integrates each one (e^{ε(αr+β)} over [a, b] is
(e^{ε(αb+β)} − e^{ε(αa+β)})/(εα), or (b − a)·e^{εβ} when α = 0; on the two unbounded pieces
every term decays). With the density's factor ε/(2κ_ρ) the result is
Σ_γ A_γ e^{εγ} + ε·Σ_γ B_γ e^{εγ}, rational A, B and γ: the text returned, over the variable
``eps``. No sum is left implicit and no tail is cut.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

from dpquant.certify.specs import Condition, Part, Variable

ABOVE = "T"
BELOW = "F"
"""The answer symbols of a pattern string: ``"FFFT"`` is ⊥⊥⊥⊤ (then aborted, if shorter)."""

Term = tuple[Fraction, Fraction, Fraction]
"""c·e^{ε(αr + β)} as (c, α, β)."""


def _factor(symbol: str, shift: Fraction, nu: Fraction, negative: bool) -> list[Term]:
    """g(r) on a piece where x = r + shift is negative (``negative``) or not; κ_ν = ``nu``
    (0: no query noise, then g is the indicator of ⊤ ⇔ x <= 0)."""
    if nu == 0:
        above = negative  # x < 0 on the piece's interior: q_i >= T + r
        return [(Fraction(1), Fraction(0), Fraction(0))] if above == (symbol == ABOVE) else []
    a, b = 1 / nu, shift / nu
    half = Fraction(1, 2)
    if negative:  # F = e^{x/b}/2
        low = [(half, a, b)]
        high = [(Fraction(1), Fraction(0), Fraction(0)), (-half, a, b)]
    else:  # F = 1 − e^{−x/b}/2
        low = [(Fraction(1), Fraction(0), Fraction(0)), (-half, -a, -b)]
        high = [(half, -a, -b)]
    return low if symbol == BELOW else high


def _multiply(left: list[Term], right: list[Term]) -> list[Term]:
    out: dict[tuple[Fraction, Fraction], Fraction] = defaultdict(Fraction)
    for c1, a1, b1 in left:
        for c2, a2, b2 in right:
            out[(a1 + a2, b1 + b2)] += c1 * c2
    return [(c, a, b) for (a, b), c in out.items() if c]


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
    cuts = sorted({Fraction(0), *(-s for s in shifts)})
    pieces = [(None, cuts[0]), *zip(cuts, cuts[1:], strict=False), (cuts[-1], None)]
    plain: dict[Fraction, Fraction] = defaultdict(Fraction)
    over: dict[Fraction, Fraction] = defaultdict(Fraction)
    for lo, hi in pieces:
        if lo is None:
            assert hi is not None  # noqa: S101 -- the first piece has a right end
            inside = hi - 1
        else:
            inside = lo + 1 if hi is None else (lo + hi) / 2
        terms: list[Term] = [(Fraction(1), (1 if inside < 0 else -1) / kr, Fraction(0))]
        for symbol, s in zip(pattern, shifts, strict=False):
            terms = _multiply(terms, _factor(symbol, s, kn, inside + s < 0))
        for c, a, b in terms:
            c = c / (2 * kr)  # the density's ε/(2κ_ρ); the integral's 1/(εα) takes the ε
            if a == 0:
                if lo is None or hi is None:
                    raise ValueError("a term that does not decay on an unbounded piece")
                over[b] += c * (hi - lo)
                continue
            for end, sign in ((hi, 1), (lo, -1)):
                if end is None:
                    if (a > 0) == (sign == 1):
                        raise ValueError("a term that does not decay on an unbounded piece")
                    continue
                plain[a * end + b] += sign * c / a
    return (
        {g: v for g, v in plain.items() if v},
        {g: v for g, v in over.items() if v},
    )


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
    """The text of P(pattern) over ``eps`` (arguments as :func:`list_probability_terms`)."""
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
