"""Certified claims of aamand25 (Aamand et al., ICML 2025)."""

from __future__ import annotations

from fractions import Fraction

from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

LEMMA_G5 = ClaimCertification(
    claim="aamand25/lemma-G.5",
    statement=(
        "Thm G.4's ε' = ln(1 + 8·tanh(ε_L/2)·(sqrt(e^ε_L·ln(4/δ)/n) + e^ε_L/n)) at "
        "ε_L = ln(ε²n/(80·ln(4/δ))) is at most ε whenever ε > 16·sqrt(ln(4/δ)/n), and ε_L meets "
        "Thm G.4's precondition ε_L ≤ ln(n/(16·ln(2/δ)))."
    ),
    domain=(
        "ε ∈ [1e-12, 1], every δ ∈ (0, 1] and every n with ε > 16·sqrt(ln(4/δ)/n), given Thm G.4 "
        "(FMT21, cited; paper: ε ∈ (0, 1])"
    ),
    parts=(
        Part(
            name="Thm G.4's epsilon at Lemma G.5's local epsilon is at most epsilon",
            variables=(
                Variable("eps", Fraction(1, 10**12), 1, scale="log"),
                Variable("s", 0, "1000/1386"),
                Variable("w", 0, "5/16"),
            ),
            goal=Condition("eps - log(1 + 8*(1 - w)/(1 + w)*(eps/sqrt(80) + eps**2*s/80))", ">="),
            note=(
                "s = 1/ln(4/δ) ∈ (0, 1/ln 4] (1000/1386 > 1/ln 4), w = e^(−ε_L) = 80·ln(4/δ)/(ε²n): "
                "then sqrt(e^ε_L·ln(4/δ)/n) = ε/√80, e^ε_L/n = ε²s/80, tanh(ε_L/2) = (1 − w)/(1 + w), "
                "and the hypothesis ε > 16·sqrt(ln(4/δ)/n) is w < 5/16."
            ),
        ),
        Part(
            name="Thm G.4's precondition: the local epsilon is at most ln(n/(16 ln(2/delta)))",
            variables=(Variable("eps", 0, 1), Variable("u", 0, "3/2")),
            goal=Condition("5 + 5*u*log(2) - eps**2", ">"),
            note=(
                "u = 1/ln(2/δ) ∈ (0, 1/ln 2] (3/2 > 1/ln 2): ε_L ≤ ln(n/(16·ln(2/δ))) ⇔ "
                "ε²·ln(2/δ) ≤ 5·ln(4/δ) (n cancels) ⇔ ε² ≤ 5·(1 + u·ln 2)."
            ),
        ),
    ),
)

CERTIFICATIONS = (LEMMA_G5,)
