"""Certified claims of tzamos20 (Tzamos, Vlatakis-Gkaragkounis, Zadik, NeurIPS 2020: private
median estimation under minimal distributional assumptions).

Notation of the paper (App. A): n data, ℓ = ⌈n/2⌉ (the left median m(X) = x_(ℓ)), δ = C/(Ln),
K = ⌊Lrn/(2C)⌋ windows of the typical set H (display (3.3)), Ξ = [−R − r/2, R + r/2],
I = [−B, B] with B = R + 4Cr, the restricted density (A.2)
f_Â(X)(ω) ∝ exp(−(ε/4)·min{(Ln/(3C))|m(X) − ω|, Lrn}) on I, and its normaliser Ẑ (Lemma A.4).

The counterexamples (Lemmas 3.2, 3.3, Prop. A.5(b)) share one pair of neighbours of H at n = 5:
X = (−5, −5, −5, −1/2, −1/2), Y = (−5, −5, −1/2, −1/2, −1/2) (d_H = 1, m(X) = −5, m(Y) = −1/2),
L = 1/2, r = 1, R = 5, with C a variable; their hypotheses state that X and Y lie in H (sorted,
medians in Ξ, each window κ <= K witnessed by κ + 1 named points) and that they differ in one
position only.
"""

from __future__ import annotations

from fractions import Fraction

from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

_F = Fraction

# ------------------------------------------------------------------- the pair X, Y of H (n = 5)

PAIR_X: tuple[Fraction, ...] = (_F(-5), _F(-5), _F(-5), _F(-1, 2), _F(-1, 2))
"""X (sorted, positional): m(X) = x_3 = −5."""
PAIR_Y: tuple[Fraction, ...] = (_F(-5), _F(-5), _F(-1, 2), _F(-1, 2), _F(-1, 2))
"""Y (sorted, positional; Y differs from X in position 3 only): m(Y) = y_3 = −1/2."""
PAIR_CONSTANTS: dict[str, Fraction] = {"n": _F(5), "L": _F(1, 2), "r": _F(1), "R": _F(5)}
"""n, L, r, R of the pair (Lr = 1/2: Assumption 1.2's largest)."""
PAIR_MAX_WINDOWS = 1
"""The hypotheses allow K = ⌊Lrn/(2C)⌋ <= 1 (true for C > 5/8): window κ = 1 is witnessed."""


def _fixed(name: str, value: Fraction) -> Variable:
    return Variable(name, value, value)


def _window_witnesses(data: tuple[Fraction, ...], ell: int, kmax: int, delta: Fraction
                      ) -> list[tuple[int, list[int], list[int]]]:
    """For κ = 1..kmax: κ + 1 indices j (1-based) with x_j − m ∈ [0, κδ] (right) and κ + 1 with
    m − x_j ∈ [0, κδ] (left), m = x_ℓ, chosen nearest to m; ``delta`` is the least δ of the
    domain (the windows only widen as δ grows)."""
    m = data[ell - 1]
    out = []
    for kappa in range(1, kmax + 1):
        right = sorted((j for j, v in enumerate(data, 1) if 0 <= v - m <= kappa * delta),
                       key=lambda j: data[j - 1] - m)[: kappa + 1]
        left = sorted((j for j, v in enumerate(data, 1) if 0 <= m - v <= kappa * delta),
                      key=lambda j: m - data[j - 1])[: kappa + 1]
        if len(right) < kappa + 1 or len(left) < kappa + 1:
            raise ValueError(f"window {kappa} of {data} is not witnessed")
        out.append((kappa, right, left))
    return out


def typical_set_hypotheses(name: str, data: tuple[Fraction, ...], kmax: int,
                           least_delta: Fraction) -> tuple[Condition, ...]:
    """``name``1..``name``n (variables) sorted, their left median in Ξ, and H's windows
    κ = 1..kmax witnessed (each by κ + 1 named points within κ·C/(Ln) of the median on its side):
    together with ⌊Lrn/(2C)⌋ <= kmax, the data set lies in H (display (3.3))."""
    n = len(data)
    ell = (n + 1) // 2
    m = f"{name}{ell}"
    out = [Condition(f"{name}{i + 1} - {name}{i}", ">=") for i in range(1, n)]
    out += [Condition(f"{m} + R + r/2", ">="), Condition(f"R + r/2 - {m}", ">=")]
    for kappa, right, left in _window_witnesses(data, ell, kmax, least_delta):
        for j in right:
            out += [Condition(f"{name}{j} - {m}", ">="),
                    Condition(f"{name}{j} - {m} - {kappa}*C/(L*n)", "<=")]
        for j in left:
            out += [Condition(f"{m} - {name}{j}", ">="),
                    Condition(f"{m} - {name}{j} - {kappa}*C/(L*n)", "<=")]
    return tuple(out)


def _pair_variables(c_lo: Fraction, c_hi: Fraction) -> tuple[Variable, ...]:
    fixed = [_fixed(k, v) for k, v in PAIR_CONSTANTS.items()]
    fixed += [_fixed(f"x{i}", v) for i, v in enumerate(PAIR_X, 1)]
    fixed += [_fixed(f"y{i}", v) for i, v in enumerate(PAIR_Y, 1)]
    return (*fixed, Variable("C", c_lo, c_hi))


def _pair_hypotheses(c_lo: Fraction) -> tuple[Condition, ...]:
    """C > 1 (H's constant, App. E), Lr <= 1/2, K <= 1, X and Y in H, X = Y off position 3."""
    least_delta = c_lo / (PAIR_CONSTANTS["L"] * PAIR_CONSTANTS["n"])
    same = tuple(Condition(f"-(x{i} - y{i})**2", ">=") for i in (1, 2, 4, 5))
    return (
        Condition("C - 1", ">="),
        Condition("1/2 - L*r", ">="),
        Condition(f"{PAIR_MAX_WINDOWS + 1} - L*r*n/(2*C)", ">"),
        *typical_set_hypotheses("x", PAIR_X, PAIR_MAX_WINDOWS, least_delta),
        *typical_set_hypotheses("y", PAIR_Y, PAIR_MAX_WINDOWS, least_delta),
        *same,
    )


_PAIR_TEXT = (
    "X = (−5, −5, −5, −1/2, −1/2), Y = (−5, −5, −1/2, −1/2, −1/2) (n = 5, d_H = 1, both in H), "
    "L = 1/2, r = 1, R = 5"
)

LEMMA_3_2 = ClaimCertification(
    claim="tzamos20/lemma-3.2",
    statement=(
        "Counterexample: X, Y ∈ H with κ = d_H(X, Y) = 1 and |m(X) − m(Y)| = 9/2 > "
        "(2⌊κ/2⌋ + 2)C/(Ln) = 4C/5 for C < 45/8, and min{(Ln/3C)|m(X) − m(Y)|, Lrn} = "
        "min{15/(4C), 5/2} > 1 = d_H(X, Y) for C < 15/4: (B.1) and the first inequality fail."
    ),
    domain=f"{_PAIR_TEXT}, every C ∈ [1, 11/2] (first inequality) and C ∈ [1, 37/10] ((B.1)) "
           "(inside the paper's domain C > 1 except the end C = 1)",
    parts=(
        Part(
            name="the median gap exceeds (2 floor(k/2) + 2) C/(Ln) at d_H = 1",
            variables=_pair_variables(_F(1), _F(11, 2)),
            hypotheses=_pair_hypotheses(_F(1)),
            goal=Condition("Abs(x3 - y3) - (2*floor(1/2) + 2)*C/(L*n)", ">"),
            note=(
                "κ = d_H(X, Y) = 1: the hypotheses make X = Y except in position 3 (so d_H <= 1) "
                "and the medians x_3 ≠ y_3 (so d_H >= 1)."
            ),
        ),
        Part(
            name="(B.1) fails: min{(Ln/3C)|m(X) - m(Y)|, Lrn} > d_H = 1",
            variables=_pair_variables(_F(1), _F(37, 10)),
            hypotheses=_pair_hypotheses(_F(1)),
            goal=Condition("Min(L*n/(3*C)*Abs(x3 - y3), L*r*n) - 1", ">"),
            note="The left medians are x_3 and y_3 (ℓ = 3); d_H = 1 as in the first part.",
        ),
    ),
)

LEMMA_3_3 = ClaimCertification(
    claim="tzamos20/lemma-3.3",
    statement=(
        "Counterexample: for X, Y ∈ H at d_H = 1 and q = m(Y), log f_Â(Y)(q) − log f_Â(X)(q) = "
        "(ε/4)·min{15/(4C), 5/2} > (ε/2)·d_H(X, Y) for every ε > 0 and C < 15/8."
    ),
    domain=f"{_PAIR_TEXT}, every C ∈ [1, 37/20] and every ε > 0 (paper: ε ∈ (0, 1), C > 1)",
    parts=(
        Part(
            name="the restricted log-density ratio at q = m(Y) exceeds (eps/2) d_H, per unit eps",
            variables=_pair_variables(_F(1), _F(37, 20)),
            hypotheses=_pair_hypotheses(_F(1)),
            goal=Condition(
                "(Min(L*n/(3*C)*Abs(x3 - y3), L*r*n) - Min(L*n/(3*C)*Abs(y3 - y3), L*r*n))/4"
                " - 1/2", ">",
            ),
            note=(
                "By Lemma A.4 (certified: tzamos20/lemma-A.4; m(X), m(Y) ∈ Ξ, C > 1/2) Â(X) and "
                "Â(Y) have the same normaliser Ẑ, so at q = m(Y) = y_3 ∈ I, log f_Â(Y)(q) − "
                "log f_Â(X)(q) = (ε/4)(min{(Ln/3C)|x_3 − q|, Lrn} − min{(Ln/3C)|y_3 − q|, Lrn}); "
                "the goal is that difference minus (ε/2)·d_H, divided by ε > 0 (d_H = 1)."
            ),
        ),
    ),
)

PROPOSITION_A_5B = ClaimCertification(
    claim="tzamos20/proposition-A.5b",
    statement=(
        "Counterexample: X ∈ H whose extension law differs from Â(X): Ψ_X(m(X)) <= "
        "d_H(X, Y) − (1/2)min{(Ln/3C)|m(Y) − m(X)|, Lrn} = 1 − (1/2)min{15/(4C), 5/2} < 0 = "
        "the restricted tent at m(X), for C < 15/8."
    ),
    domain="X = (−5, −5, −5, −1/2, −1/2) ∈ H with the witness X′ = (−5, −5, −1/2, −1/2, −1/2) "
           "∈ H (d_H = 1), n = 5, L = 1/2, r = 1, R = 5, every C ∈ [1, 37/20] and every ε > 0 "
           "(paper: ε ∈ (0, 1), C > 1)",
    parts=(
        Part(
            name="the extension's envelope at m(X) lies below the restricted tent's peak 0",
            variables=_pair_variables(_F(1), _F(37, 20)),
            hypotheses=_pair_hypotheses(_F(1)),
            goal=Condition("0 - (1 - Min(L*n/(3*C)*Abs(y3 - x3), L*r*n)/2)", ">"),
            note=(
                "f_A(X) ∝ exp((ε/2)Ψ_X) with Ψ_X(ω) = inf_{X′∈H}[d_H(X, X′) − (1/2)min{(Ln/3C)"
                "|m(X′) − ω|, Lrn}] ((A.6), weight ε/2), f_Â(X) ∝ exp((ε/2)h_0), h_0(ω) = "
                "−(1/2)min{(Ln/3C)|m(X) − ω|, Lrn}. X′ = X gives Ψ_X <= h_0; d_H >= 0 gives "
                "Ψ_X >= −Lrn/2 = h_0 on h_0's plateau |ω − m(X)| >= 3Cr inside I (non-empty: "
                "B − |m(X)| >= R + 4Cr − R − r/2 > 3Cr). Equal laws would make Ψ_X − h_0 a "
                "constant (both continuous), 0 on the plateau; X′ = Y (d_H = 1) gives Ψ_X(m(X)) "
                "<= the goal's bracket, and the goal is h_0(m(X)) = 0 minus it."
            ),
        ),
    ),
)

# ------------------------------------------------------------------------------ Lemma A.4

_LAM = "(eps*L*n/(12*C))"
_CAP = "(3*C*r)"
_B = "(R + 4*C*r)"
Z_HAT = "24*C/(eps*L*n)*(1 - exp(-eps*L*r*n/4)) + (2*R + 2*C*r)*exp(-eps*L*r*n/4)"
"""Ẑ of Lemma A.4 (the stray dω of its printed statement removed)."""
Z_PIECES = (
    f"({'m'} - {_CAP} + {_B})*exp(-{_LAM}*{_CAP}) + 2*(1 - exp(-{_LAM}*{_CAP}))/{_LAM}"
    f" + ({_B} - m - {_CAP})*exp(-{_LAM}*{_CAP})"
)
"""∫_I exp(−(ε/4)min{(Ln/3C)|m − ω|, Lrn})dω piece by piece when [m − 3Cr, m + 3Cr] ⊆ I:
plateau [−B, m − 3Cr], the two Laplace halves ∫_0^{3Cr} e^{−λu}du = (1 − e^{−3Crλ})/λ with
λ = εLn/(12C) (so that (ε/4)(Ln/3C)|m − ω| = λ|m − ω| and λ·3Cr = εLrn/4), plateau
[m + 3Cr, B]."""

_A4_VARIABLES = (
    Variable("eps", _F(1, 10**6), 1), Variable("L", _F(1, 10**6), 1), Variable("n", 1, 10**6),
    Variable("C", _F(1, 2), 10**6), Variable("r", _F(1, 10**6), 10**6),
    Variable("R", _F(1, 10**6), 10**6), Variable("m", -(10**6), 10**6),
)

LEMMA_A_4 = ClaimCertification(
    claim="tzamos20/lemma-A.4",
    statement=(
        "For C >= 1/2 and m ∈ Ξ: [m − 3Cr, m + 3Cr] ⊆ I, and then ∫_I exp(−(ε/4)min{(Ln/3C)"
        "|m − ω|, Lrn})dω = (24C/(εLn))(1 − e^{−εLrn/4}) + (2R + 2Cr)e^{−εLrn/4} = Ẑ, the same "
        "for every m ∈ Ξ (m = 0 included): the normaliser does not depend on X ∈ H."
    ),
    domain=(
        "every ε, L, r, R > 0, n >= 1, C >= 1/2 and every median m ∈ Ξ = [−R − r/2, R + r/2] "
        "(symbolic identities; the paper's domain C > 1/2 and X ∈ H, given the two "
        "one-line integrals of the pieces)"
    ),
    parts=(
        Part(
            name="the Laplace window fits in I: upper slack",
            variables=_A4_VARIABLES,
            method="identity",
            goal=Condition(f"{_B} - (m + {_CAP}) - ((R + r/2 - m) + (C - 1/2)*r)", ">="),
            note=(
                "B − (m + 3Cr) = (R + r/2 − m) + (C − 1/2)r: both terms are >= 0 for m <= R + r/2 "
                "(m ∈ Ξ) and C >= 1/2, so m + 3Cr <= B."
            ),
        ),
        Part(
            name="the Laplace window fits in I: lower slack",
            variables=_A4_VARIABLES,
            method="identity",
            goal=Condition(f"(m - {_CAP}) + {_B} - ((m + R + r/2) + (C - 1/2)*r)", ">="),
            note="(m − 3Cr) − (−B) = (m + R + r/2) + (C − 1/2)r >= 0 for m >= −R − r/2, C >= 1/2.",
        ),
        Part(
            name="the normaliser, piece by piece, is the closed form for every centre m",
            variables=_A4_VARIABLES,
            method="identity",
            goal=Condition(f"{Z_PIECES} - ({Z_HAT})", ">="),
            note=(
                "With [m − 3Cr, m + 3Cr] ⊆ I (the first two parts) the integrand is e^{−εLrn/4} on "
                "[−B, m − 3Cr] and [m + 3Cr, B] and e^{−λ|m − ω|} between; the sum of the pieces' "
                "integrals minus Ẑ simplifies to 0 for every m, so the integral at m(X) equals the "
                "one at 0 (0 ∈ Ξ)."
            ),
        ),
    ),
)

# ------------------------------------------------------------------------------ Lemma A.6

LEMMA_A_6 = ClaimCertification(
    claim="tzamos20/lemma-A.6",
    statement=(
        "Counterexample to '∫G_X <= 1': for X = (1000, …, 1000) (n = 8) every X′ ∈ H has "
        "d_H(X, X′) >= ℓ = 4, so G_X >= e^{(ε/2)·4 − εLrn/4}/Ẑ on I and ∫G_X >= "
        "2B·e^{(ε/2)ℓ − εLrn/4}/Ẑ > 1 (at ε = C = 1 it is 3e²/(e + 1) = 5.96…)."
    ),
    domain=(
        "X = (1000)⁸, L = 1/2, r = 1, R = 5, every C ∈ [1, 2] and every ε ∈ [1/50, 1] "
        "(inside the paper's domain ε ∈ (0, 1), C > 1, except the ends ε = 1, C = 1)"
    ),
    parts=(
        Part(
            name="a lower bound on the integral of G_X exceeds 1",
            variables=(
                Variable("eps", _F(1, 50), 1, scale="log"), Variable("C", 1, 2),
                _fixed("n", _F(8)), _fixed("l", _F(4)), _fixed("L", _F(1, 2)),
                _fixed("r", _F(1)), _fixed("R", _F(5)), _fixed("x", _F(1000)),
            ),
            hypotheses=(
                Condition("x - (R + r/2)", ">"),
                Condition("l - n/2", ">="),
                Condition("1/2 - L*r", ">="),
                Condition("C - 1", ">="),
            ),
            goal=Condition(f"2*{_B}*exp(eps*l/2 - eps*L*r*n/4)/({Z_HAT}) - 1", ">"),
            note=(
                "Every X′ ∈ H has m(X′) <= R + r/2 < x, so its ℓ = ⌈n/2⌉ smallest coordinates "
                "differ from X's (all equal to x): d_H(X, X′) >= ℓ. Every f_Â(X′) >= "
                "e^{−εLrn/4}/Ẑ on I (the flattened floor, with Ẑ of Lemma A.4 for X′ ∈ H). "
                "Hence G_X(ω) = inf_{X′∈H} e^{(ε/2)d_H(X, X′)}f_Â(X′)(ω) >= e^{(ε/2)ℓ − εLrn/4}/Ẑ "
                "on I, of length 2B; the goal is that lower bound on ∫G_X minus 1."
            ),
        ),
    ),
)

CERTIFICATIONS = (LEMMA_3_2, LEMMA_3_3, LEMMA_A_4, PROPOSITION_A_5B, LEMMA_A_6)
"""The tzamos20 certifications, in ledger order."""
