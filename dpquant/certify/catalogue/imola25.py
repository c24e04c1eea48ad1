"""Certified claims of imola25 (Imola et al., SliceQuantiles).

Lemma 3.1 (2) is refuted by a certified counterexample (m = 1); Lemma 4.3 is certified by the
identity its proof (App. B.3) rests on.
"""

from __future__ import annotations

from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

# ----------------------------------------------------------------------------- Lemma 3.1

LEMMA_3_1_THRESHOLD_LN = "3*log(m)*log(m/(2*beta))/eps"
"""Lemma 3.1 (2)'s threshold 3·log(m)·log(m/(2β))/ε with natural logarithms."""
LEMMA_3_1_THRESHOLD_LOG2 = "3*(log(m)/log(2))*(log(m/(2*beta))/log(2))/eps"
"""The same threshold with base-2 logarithms."""

LEMMA_3_1 = ClaimCertification(
    claim="imola25/lemma-3.1",
    statement=(
        "Refutation of Lemma 3.1 (2): for m = 1 the threshold 3·log(m)·log(m/(2β))/ε is 0 in "
        "either log base, and ‖r − CC(r)‖∞ ≥ 0 holds surely for every CC, so the probability "
        "is 1 > β for every β < 1 (no CC meets (2); part (1) is not in question)."
    ),
    domain=(
        "the points m = 1, ε = 1, β ∈ {1/100, 1/2, 99/100}, natural and base-2 logarithms "
        "(inside the lemma's domain β > 0); the same argument holds for every β ∈ (0, 1), ε > 0"
    ),
    parts=(
        Part(
            name="m = 1: the threshold is 0, the event is sure, its probability 1 exceeds beta",
            variables=(
                Variable("m", 1, 1, integer=True),
                Variable("beta", 0, 1),
                Variable("eps", 0, 100),
            ),
            goal=Condition("1 - beta", ">"),
            hypotheses=(
                Condition("beta", ">"),
                Condition("eps", ">"),
                Condition(f"-({LEMMA_3_1_THRESHOLD_LN})", ">="),
                Condition(f"-({LEMMA_3_1_THRESHOLD_LOG2})", ">="),
            ),
            method="points",
            points=(
                {"m": 1, "beta": "1/100", "eps": 1},
                {"m": 1, "beta": "1/2", "eps": 1},
                {"m": 1, "beta": "99/100", "eps": 1},
            ),
            note=(
                "The last two hypotheses say the threshold is ≤ 0 in both log bases; a norm is "
                "≥ 0, so Pr[‖r − CC(r)‖∞ ≥ threshold] = 1 for every algorithm CC, and the goal "
                "1 − β > 0 is the violation of '≤ β'."
            ),
        ),
    ),
)

# ----------------------------------------------------------------------------- Lemma 4.3

LEMMA_4_3_GAMMA = "d*K/(exp(eps) - 1)"
"""γ = δ|Y|/(e^ε − 1) (Lemma 4.3), δ written d and |Y| written K."""
_G = LEMMA_4_3_GAMMA
LEMMA_4_3_MIXED_X = f"(1 - {_G})*(exp(eps)*b + d - s) + {_G}/K"
"""Ã(X)(y) = (1 − γ)·A(X)(y) + γ/|Y| with A(X)(y) = e^ε·A(X')(y) + δ − s (s ≥ 0: the slack of
the (ε, δ)-DP bound at the singleton {y})."""
LEMMA_4_3_MIXED_X_PRIME = f"(1 - {_G})*b + {_G}/K"
"""Ã(X')(y) with b = A(X')(y)."""

LEMMA_4_3 = ClaimCertification(
    claim="imola25/lemma-4.3",
    statement=(
        "For every output y: e^ε·Ã(X')(y) − Ã(X)(y) = (1 − γ)·s + γ·δ, where "
        "s = e^ε·A(X')(y) + δ − A(X)(y) ≥ 0 by (ε, δ)-DP at the singleton {y}; with "
        "γ = δ|Y|/(e^ε − 1) ∈ [0, 1] the right side is ≥ 0, so Ã(X)(y) ≤ e^ε·Ã(X')(y) for "
        "every y, which for a discrete range is (ε, 0)-DP."
    ),
    domain=(
        "every ε > 0, δ ≥ 0, finite |Y| ≥ 1 with δ|Y|/(e^ε − 1) ≤ 1, every pair of neighbours "
        "and every output (a sympy identity in ε, δ, |Y|, A(X')(y) and the slack s; the "
        "singleton step, (1 − γ)s + γδ ≥ 0 and 'pointwise ⇒ every set' are the human steps)"
    ),
    parts=(
        Part(
            name="the mixture's privacy gap is (1 - gamma) s + gamma delta",
            variables=(
                Variable("eps", "1/1000000", 1000),
                Variable("d", 0, 1),
                Variable("K", 1, 10**9, integer=True),
                Variable("b", 0, 1),
                Variable("s", 0, 1000),
            ),
            goal=Condition(
                f"exp(eps)*({LEMMA_4_3_MIXED_X_PRIME}) - ({LEMMA_4_3_MIXED_X}) "
                f"- ((1 - {_G})*s + {_G}*d)"
            ),
            method="identity",
            note=(
                "App. B.3's chain, written as one identity: the δ(1 − γ) and γ(1 − e^ε)/|Y| "
                "terms cancel to −γδ exactly because γ(e^ε − 1)/|Y| = δ. The box is nominal: "
                "sympy proves it for every real value with ε > 0 and K ≥ 1."
            ),
        ),
    ),
)

CERTIFICATIONS = (LEMMA_3_1, LEMMA_4_3)
