"""Certified claims of the classic benchmark of DP-violation detectors (ledger group ``classic``):
the true ε of StatDP's and DP-Sniper's mechanisms (Ding et al., CCS 2018; Bichsel et al., IEEE
S&P 2021), derived in :mod:`dpquant.audit.suites.classic.suite`, and DP-Sniper's published bounds.

Most of these facts are exact identities of Laplace and geometric laws plus a human step (the
triangle inequality, the monotonicity of a CDF, a term-by-term bound of a sum of products,
post-processing); the identities are certified with ``method="identity"`` after rewriting each
difference into a form that is evidently non-negative (a square, a product of positive
factors), and the numbers at given ε with ``method="points"``. The sparse vector facts are in
:mod:`dpquant.certify.catalogue.classic_svt` and :mod:`dpquant.certify.catalogue.classic_svt6`.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from dpquant.certify.catalogue import classic_svt, classic_svt6
from dpquant.certify.catalogue.classic_laws import (
    EPS,
    LAPLACE_CDF_LEMMA,
    LEMMA_NOTE,
    identity_part,
)
from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

# -------------------------------------------------------------- report noisy max

RNM3 = ClaimCertification(
    claim="classic/fact-RNM3",
    statement=(
        "The noisy maximum max_i (q_i + Lap(b)), b = 2/ε, of k answers is exactly (kε/2)-DP under "
        "ℓ∞ neighbours: its density Σ_i f(x − q_i) Π_{j≠i} F(x − q_j) moves by at most e^(k/b) "
        "= e^(kε/2), and the event max < 1 has probability ratio exactly e^(kε/2) on [1]×k "
        "against [2]×k (1.25 for k = 5, ε = 0.5)."
    ),
    domain=(
        "every k >= 1, every ε > 0 and every pair of ℓ∞ neighbours, given the term-by-term bound "
        "of the max's density (human step: each of its k terms is a product of k Laplace factors, "
        "each moving by at most e^(1/b))"
    ),
    parts=(
        *LAPLACE_CDF_LEMMA,
        identity_part(
            "the event max < 1 on [1]xk against [2]xk: ratio exactly e^(k eps/2)",
            "((1/2)/(exp(-eps/2)/2))**k - exp(k*eps/2)",
            (EPS, Variable("k", 1, 10**6, integer=True)),
            "P(max < 1 | q) = Π F_b(1 − q_i): F(0)^k against F(−1)^k, F(−1) = e^(−1/b)/2, "
            "b = 2/ε; so no ε' < kε/2 holds (k = 5, ε = 1/2: kε/2 = 5/4).",
        ),
        identity_part(
            "the density's ratio below min q on [1]xk against [2]xk is e^(k eps/2)",
            "k*(exp((x - 1)*eps/2)*eps/4)*(exp((x - 1)*eps/2)/2)**(k - 1)"
            "/(k*(exp((x - 2)*eps/2)*eps/4)*(exp((x - 2)*eps/2)/2)**(k - 1)) - exp(k*eps/2)",
            (Variable("x", -(10**300), 1), EPS, Variable("k", 1, 10**6, integer=True)),
            "x < 1: every term of the density is f(x − q)F(x − q)^(k−1) with f(y) = e^(y/b)/(2b), "
            "F(y) = e^(y/b)/2, 1/(2b) = ε/4. The upper bound: " + LEMMA_NOTE + ".",
        ),
    ),
)

RNM4 = ClaimCertification(
    claim="classic/fact-RNM4",
    statement=(
        "With exponential noise of scale b = 2/ε the noisy maximum of [1]×5 is below 2 with "
        "probability (1 − e^(−ε/2))^5 > 0, while the noisy maximum of [2]×5 is at least 2: no "
        "finite ε' holds."
    ),
    domain=(
        "every ε ∈ [1e-15, 1e15] (the implementation takes ε from 2e-300 on), given that the noise is "
        "non-negative (so max >= 2 on [2]×5: human step)"
    ),
    parts=(
        Part(
            name="P(max < 2 | [1]x5) = (1 - e^(-eps/2))^5 is positive",
            variables=(Variable("eps", Fraction(1, 10**15), 10**15, scale="log"),),
            goal=Condition("(1 - exp(-eps/2))**5", ">"),
            note="P(1 + E_i < 2) = 1 − e^(−1/b) for E_i ~ Exp(b), independent, b = 2/ε.",
        ),
    ),
)

# -------------------------------------------------------------- Laplace releases

NOISY_HIST2 = ClaimCertification(
    claim="classic/fact-NoisyHist2",
    statement=(
        "Laplace noise of scale ε on a histogram of ℓ1 sensitivity 1 is exactly (1/ε)-DP: the "
        "density ratio is at most e^(‖q − q'‖₁/ε) and equals e^(1/ε) in the tail; 1/ε > ε for "
        "ε < 1, 1/ε = ε at ε = 1."
    ),
    domain="every ε > 0, given the triangle inequality for the upper bound (human step)",
    parts=(
        identity_part(
            "tail ratio of one bin: f(y - 1)/f(y) = e^(1/eps) for y >= 1",
            "exp(-(y - 1)/eps)/exp(-y/eps) - exp(1/eps)",
            (Variable("y", 1, 10**300), EPS),
            "f(y) = e^(−|y|/ε)/(2ε); one bin moved by 1, the others unchanged. Upper bound: "
            "Σ_i (|x_i − q'_i| − |x_i − q_i|)/ε <= ‖q − q'‖₁/ε (triangle inequality).",
        ),
        identity_part(
            "1/eps - eps = (1 - eps)(1 + eps)/eps: positive for eps < 1, zero at eps = 1",
            "1/eps - eps - (1 - eps)*(1 + eps)/eps",
            (EPS,),
            "So the exact 1/ε exceeds the claimed ε for every ε < 1 and equals it at ε = 1.",
        ),
    ),
)

PREFIX_SUM = ClaimCertification(
    claim="classic/fact-PrefixSum",
    statement=(
        "Prefix sums of q + Lap(1/ε) on k answers are exactly kε-DP under ℓ∞ neighbours: a "
        "bijective post-processing of q + η, whose density moves by at most e^(ε‖q − q'‖₁) <= "
        "e^(kε), and by exactly e^(kε) in the tail when every answer moves up by 1."
    ),
    domain=(
        "every k >= 1 and ε > 0, given the triangle inequality and that prefix sums are a "
        "bijection (human steps; under ℓ1 the same bound gives ε)"
    ),
    parts=(
        identity_part(
            "tail ratio, every answer up by 1: e^(k eps)",
            "(exp(-(y - 1)*eps)/exp(-y*eps))**k - exp(k*eps)",
            (Variable("y", 1, 10**300), EPS, Variable("k", 1, 10**6, integer=True)),
            "Each of the k coordinates y_i >= 1 of q + η: f(y − 1)/f(y) = e^ε, f(y) = "
            "(ε/2)e^(−ε|y|). Upper bound: Σ_i ε(|y_i − q'_i| − |y_i − q_i|) <= ε‖q − q'‖₁ <= kε.",
        ),
    ),
)

# -------------------------------------------------------------- GeoSample

_A = "(2**k/(2**k + 1))"
_GEO_VARS = (
    Variable("k", 0, 10**6, integer=True),
    Variable("c", 0, 10**6, integer=True),
    Variable("z", 0, 10**6, integer=True),
    Variable("n", 1, 10**6, integer=True),
)
GEO_SAMPLE = ClaimCertification(
    claim="classic/fact-GeoSample",
    statement=(
        "GeoSample's law (Balcer and Vadhan, Alg. 4.8: the two-sided geometric ∝ α^|z−c|, "
        "α = 2^k/(2^k + 1), k = ⌈ln(2/ε)⌉, tails piled on 0 and n) moves by exactly a factor "
        "α^(±1) between counts c and c + 1 at every output z: exactly ln(1 + 2^(−k))-DP "
        "(Thm 4.7); 0.1178 > 0.1 at ε = 0.1, ln 1.25 < 0.5 at ε = 0.5."
    ),
    domain=(
        "every k >= 0 (ε ∈ (0, 2]), every n >= 1, 0 <= c < n, 0 <= z <= n (the ratio identities, "
        "by the cases z <= c and z >= c + 1, tails included: human case split); the values at "
        "the points ε = 1/10 and ε = 1/2"
    ),
    parts=(
        identity_part(
            "inside, z <= c: P_c(z)/P_(c+1)(z) = 1 + 2^(-k)",
            f"((1 - {_A})/(1 + {_A})*{_A}**(c - z))/((1 - {_A})/(1 + {_A})*{_A}**(c + 1 - z))"
            " - (1 + 2**(-k))",
            _GEO_VARS,
            "P_c(z) = (1 − α)/(1 + α)·α^|z−c| for 0 < z < n; |z − c| = c − z, |z − c − 1| = "
            "c + 1 − z.",
        ),
        identity_part(
            "inside, z >= c + 1: P_(c+1)(z)/P_c(z) = 1 + 2^(-k)",
            f"((1 - {_A})/(1 + {_A})*{_A}**(z - c - 1))/((1 - {_A})/(1 + {_A})*{_A}**(z - c))"
            " - (1 + 2**(-k))",
            _GEO_VARS,
            "|z − c| = z − c, |z − c − 1| = z − c − 1.",
        ),
        identity_part(
            "tail z = 0: P_c(0)/P_(c+1)(0) = 1 + 2^(-k)",
            f"({_A}**c/(1 + {_A}))/({_A}**(c + 1)/(1 + {_A})) - (1 + 2**(-k))",
            _GEO_VARS,
            "P_c(0) = α^c/(1 + α).",
        ),
        identity_part(
            "tail z = n: P_(c+1)(n)/P_c(n) = 1 + 2^(-k)",
            f"({_A}**(n - c - 1)/(1 + {_A}))/({_A}**(n - c)/(1 + {_A})) - (1 + 2**(-k))",
            _GEO_VARS,
            "P_c(n) = α^(n−c)/(1 + α). Every ratio is α^(±1), so the largest is 1/α = 1 + 2^−k, "
            "reached: the true ε is ln(1 + 2^−k).",
        ),
        Part(
            name="at eps = 1/10: ln(1 + 2^-k) exceeds eps (not 0.1-DP)",
            variables=(Variable("eps", Fraction(1, 10), Fraction(1, 10)),),
            goal=Condition("log(1 + 2**(-ceiling(log(2/eps)))) - eps", ">"),
            method="points",
            points=({"eps": Fraction(1, 10)},),
        ),
        Part(
            name="at eps = 1/10: ln(1 + 2^-k) = 0.1178 to four decimals",
            variables=(Variable("eps", Fraction(1, 10), Fraction(1, 10)),),
            goal=Condition(
                "Abs(log(1 + 2**(-ceiling(log(2/eps)))) - 1178/10000) - 1/20000", "<"
            ),
            method="points",
            points=({"eps": Fraction(1, 10)},),
            note="k = ⌈ln 20⌉ = 3: ln(9/8) = 0.11778...",
        ),
        Part(
            name="at eps = 1/2: k = 2, so the true eps is ln(5/4), below eps",
            variables=(Variable("eps", Fraction(1, 2), Fraction(1, 2)),),
            goal=Condition("Min(eps - log(1 + 2**(-ceiling(log(2/eps)))), "
                           "1/2 - Abs(ceiling(log(2/eps)) - 2))", ">"),
            method="points",
            points=({"eps": Fraction(1, 2)},),
            note="|⌈ln 4⌉ − 2| < 1/2 with ⌈·⌉ an integer: k = 2 and 1 + 2^−k = 5/4.",
        ),
    ),
)

# -------------------------------------------------------------- RAPPOR

RAPPOR = ClaimCertification(
    claim="classic/fact-RAPPOR",
    statement=(
        "RAPPOR's permanent randomized response with f = 2/(1 + e^(ε/2h)) keeps each bit with "
        "probability ratio (1 − f/2)/(f/2) = e^(ε/2h) (either value of the bit), so two filters "
        "differing in at most 2h bits give ε∞ = 2h·ln((1 − f/2)/(f/2)) = ε (Erlingsson et al., "
        "CCS 2014, Sec. 4); the instantaneous step is post-processing."
    ),
    domain=(
        "every ε > 0 and h >= 1, given that the bits are independent, two h-hash Bloom filters "
        "differ in at most 2h bits, and post-processing (human steps)"
    ),
    parts=(
        identity_part(
            "f = 2/(1 + e^(eps/2h)) gives (1 - f/2)/(f/2) = e^(eps/2h)",
            "(1 - 1/(1 + exp(eps/(2*h))))/(1/(1 + exp(eps/(2*h)))) - exp(eps/(2*h))",
            (EPS, Variable("h", 1, 64, integer=True)),
            "P(report 1 | bit 1) = 1 − f/2, P(report 1 | bit 0) = f/2, and for a report 0 the "
            "same ratio inverted: each differing bit moves the report's probability by at most "
            "e^(ε/2h), at most 2h bits differ, so ε∞ = 2h·(ε/2h) = ε.",
        ),
    ),
)

# -------------------------------------------------------------- published bounds

_TIGHT = (  # name, DP-Sniper's larger bound (LR or NN) at ε = 0.1, the exact true ε over eps
    ("LaplaceMechanism", "976/10000", "eps"),
    ("TruncatedGeometricMechanism", "1156/10000", "log(1 + 2**(-ceiling(log(2/eps))))"),
    ("NoisyHist1", "978/10000", "eps"),
    ("NoisyHist2", "46020/10000", "1/eps"),
    ("ReportNoisyMax3", "2488/10000", "5*eps/2"),
    ("LaplaceParallel", "350/10000", "eps"),
    ("PrefixSum", "5774/10000", "10*eps"),
)
_UPPER = (  # the correct mechanisms whose true ε is only bounded above, and SVT4's bound
    ("ReportNoisyMax1", "925/10000", "eps"),
    ("ReportNoisyMax2", "979/10000", "eps"),
    ("SparseVectorTechnique1", "858/10000", "eps"),
    ("SparseVectorTechnique2", "859/10000", "eps"),
    ("SparseVectorTechnique4", "1696/10000", "7*eps/4"),
    ("NumericalSVT", "345/10000", "eps"),
)


def nested_min(terms: list[str]) -> str:
    """``Min(a, Min(b, ...))`` of the texts ``terms`` (the language's Min takes two)."""
    return terms[0] if len(terms) == 1 else f"Min({terms[0]}, {nested_min(terms[1:])})"


def margins(rows: tuple[tuple[str, str, str], ...]) -> str:
    """The least margin (true − published) over ``rows``."""
    return nested_min([f"({true}) - {bound}" for _, bound, true in rows])


_AT_TENTH = (Variable("eps", Fraction(1, 10), Fraction(1, 10)),)
DPSNIPER_BOUNDS = ClaimCertification(
    claim="classic/fact-DPSniper-bounds",
    statement=(
        "At ε = 0.1 DP-Sniper's published lower bounds (the larger of LR and NN, four decimals) "
        "are below the exact true ε of LaplaceMechanism, GeoSample, NoisyHist1, NoisyHist2, "
        "ReportNoisyMax3, LaplaceParallel and PrefixSum (ReportNoisyMax4 and SVT5: ∞)."
    ),
    domain=(
        "the point ε = 0.1 (DP-Sniper's claim), the seven mechanisms with a finite exact true ε "
        "(from their certified facts; the Laplace releases ε by the Laplace mechanism); RAPPOR "
        "and the unknown SVT3, SVT6, SVT34Parallel left out as in the statement"
    ),
    parts=(
        Part(
            name="published bound below the exact true epsilon (seven mechanisms)",
            variables=_AT_TENTH,
            goal=Condition(margins(_TIGHT), ">"),
            method="points",
            points=({"eps": Fraction(1, 10)},),
            note="Rows in order: " + ", ".join(r[0] for r in _TIGHT) + ".",
        ),
        Part(
            name="published bound below the known upper bound (six more, consistency only)",
            variables=_AT_TENTH,
            goal=Condition(margins(_UPPER), ">"),
            method="points",
            points=({"eps": Fraction(1, 10)},),
            note="Rows: " + ", ".join(r[0] for r in _UPPER) + "; their true ε is not known, "
            "only bounded above, so this is consistency, not the claim.",
        ),
    ),
)

STATDP_FIXED_NOISYHIST2 = ClaimCertification(
    claim="classic/fact-StatDP-Fixed-NoisyHist2",
    statement=(
        "Counterexample: StatDP-Fixed's second-run lower bound for NoisyHist2 at ε = 0.1, "
        "10.0022, exceeds its exact true ε 1/ε = 10."
    ),
    domain=(
        "the point ε = 0.1 (DP-Sniper's claimed ε; NoisyHist2's true ε is 1/ε, "
        "classic/fact-NoisyHist2)"
    ),
    parts=(
        Part(
            name="10.0022 exceeds 1/eps at eps = 1/10",
            variables=_AT_TENTH,
            goal=Condition("100022/10000 - 1/eps", ">"),
            method="points",
            points=({"eps": Fraction(1, 10)},),
        ),
    ),
)


@functools.cache
def certifications() -> tuple[ClaimCertification, ...]:
    """The classic group's certifications, in ledger order (the sparse vector ones from
    :mod:`dpquant.certify.catalogue.classic_svt` and :mod:`dpquant.certify.catalogue.classic_svt6`,
    built on first use: :data:`CERTIFICATIONS`)."""
    return (
        RNM3,
        RNM4,
        NOISY_HIST2,
        PREFIX_SUM,
        classic_svt.SVT4,
        classic_svt.SVT5,
        classic_svt.SVT6,
        GEO_SAMPLE,
        RAPPOR,
        DPSNIPER_BOUNDS,
        STATDP_FIXED_NOISYHIST2,
        classic_svt.SVT1_ODD_LAST,
        classic_svt6.SVT6_RARE_BEST_PAIRS,
    )


CERTIFICATIONS: tuple[ClaimCertification, ...]
# declared, not assigned: reading it calls __getattr__ below (the sparse vector laws are computed
# then, not when the module is imported)


def __getattr__(name: str) -> tuple[ClaimCertification, ...]:
    """:data:`CERTIFICATIONS`, built once on first use (PEP 562)."""
    if name == "CERTIFICATIONS":
        return certifications()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CERTIFICATIONS",
    "certifications",
    "DPSNIPER_BOUNDS",
    "GEO_SAMPLE",
    "NOISY_HIST2",
    "PREFIX_SUM",
    "RAPPOR",
    "RNM3",
    "RNM4",
    "STATDP_FIXED_NOISYHIST2",
    "margins",
    "nested_min",
]
