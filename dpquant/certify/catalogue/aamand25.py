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


# ----------------------------------------------------------------------------- Lemma A.1

_KEEP = "exp(eps)/(exp(eps) + 1)"
_FLIP = "1/(exp(eps) + 1)"

LEMMA_A1 = ClaimCertification(
    claim="aamand25/lemma-A.1",
    statement=(
        "Binary randomized response (keep the bit w.p. e^ε/(e^ε+1), flip it otherwise) is a "
        "channel whose likelihood ratios are e^ε (the kept report) and e^(−ε) (the flipped "
        "report), so P(y | x) ≤ e^ε·P(y | x') for every input pair and output: ε-LDP."
    ),
    domain=(
        "every ε ≥ 0 (sympy identities in ε, valid for every real ε; e^(−ε) ≤ 1 ≤ e^ε for "
        "ε ≥ 0 is the human step)"
    ),
    parts=(
        Part(
            name="the two report probabilities sum to 1",
            variables=(Variable("eps", 0, 1000),),
            goal=Condition(f"{_KEEP} + {_FLIP} - 1"),
            method="identity",
            note="Lemma A.1's channel: P(M(x) = x) = e^ε/(e^ε+1), P(M(x) = 1 − x) = 1/(e^ε+1).",
        ),
        Part(
            name="the kept report's likelihood ratio is e^eps",
            variables=(Variable("eps", 0, 1000),),
            goal=Condition(f"({_KEEP})/({_FLIP}) - exp(eps)"),
            method="identity",
            note=(
                "y = x, x' = 1 − x: P(y | x)/P(y | x') = e^ε, so P(y | x) ≤ e^ε·P(y | x') with "
                "equality (the bound is tight)."
            ),
        ),
        Part(
            name="the flipped report's likelihood ratio is e^(-eps)",
            variables=(Variable("eps", 0, 1000),),
            goal=Condition(f"({_FLIP})/({_KEEP}) - exp(-eps)"),
            method="identity",
            note=(
                "y = 1 − x, x' = 1 − x: the ratio is e^(−ε) ≤ e^ε for ε ≥ 0; for x = x' the "
                "ratio is 1 ≤ e^ε. The box of ε is nominal: sympy proves each identity for every "
                "real ε."
            ),
        ),
    ),
)

# ----------------------------------------------------------------------------- Theorem A.3

_A3_BOUND = "exp(-n*alpha**2/(2*p*(1 - p) + 2*alpha/3))"

THEOREM_A3 = ClaimCertification(
    claim="aamand25/theorem-A.3",
    statement=(
        "Refutation of Thm A.3 as printed (one-sided factor for the two-sided event): for n = 1 "
        "and X_1 ~ Bernoulli(p) (bounded by 1, σ² = p(1 − p)), every α < min(p, 1 − p) gives "
        "Pr[|X_1 − p| > α] = 1 (both outcomes miss the mean by more than α), while the printed "
        "bound exp(−α²/(2σ² + 2α/3)) is below 1."
    ),
    domain=(
        "the point n = 1, p = 1/2, α = 2/5 (inside the theorem's domain: one variable bounded by "
        "1), and the region n = 1, α ∈ [1/1000, 1/2], α < p < 1 − α"
    ),
    parts=(
        Part(
            name="one fair bit at alpha = 2/5: probability 1 exceeds the printed bound",
            variables=(
                Variable("n", 1, 1, integer=True),
                Variable("p", 0, 1),
                Variable("alpha", 0, 1),
            ),
            goal=Condition(f"1 - {_A3_BOUND}", ">"),
            hypotheses=(
                Condition("alpha", ">"),
                Condition("p - alpha", ">"),
                Condition("1 - p - alpha", ">"),
            ),
            method="points",
            points=({"n": 1, "p": "1/2", "alpha": "2/5"},),
            note=(
                "X_1 ∈ {0, 1}, E X_1 = p: |X_1 − p| ∈ {p, 1 − p}, both > α by the hypotheses, so "
                "the probability of the event is 1; the goal is 1 − (printed bound) > 0."
            ),
        ),
        Part(
            name="a region of violation: n = 1, alpha < min(p, 1 - p)",
            variables=(
                Variable("n", 1, 1, integer=True),
                Variable("p", 0, 1),
                Variable("alpha", "1/1000", "1/2"),
            ),
            goal=Condition(f"1 - {_A3_BOUND}", ">"),
            hypotheses=(Condition("p - alpha", ">"), Condition("1 - p - alpha", ">")),
            note="As the point's note: on the whole region the exact probability is 1.",
        ),
    ),
)

# ----------------------------------------------------------------------------- Lemma B.1

_FP = "((1 - tau)*n + c)/(2*n)"
_B1_VARIABLES = (
    Variable("n", 1, 10**6, integer=True),
    Variable("c", 0, 10**6, integer=True),
    Variable("tau", "1/1000000", "999999/1000000"),
    Variable("alpha", "1/1000000", "1/2"),
)

LEMMA_B1 = ClaimCertification(
    claim="aamand25/lemma-B.1",
    statement=(
        "Padding D (n users on [B]) with (1−τ)n copies of 1 and τn of B gives |D_P| = 2n and "
        "F_P(y) = (1−τ)/2 + F_D(y)/2 for y ∈ [1, B−1] (App. B, the display before Eq. (6)); "
        "hence F_D(y) − (τ + 2α) = 2·(F_P(y) − (1/2 + α)) and F_D(y) − (τ − 2α) = "
        "2·(F_P(y) − (1/2 − α)), so a median m_P with F_P(m_P) < 1/2 + α and "
        "F_P(m_P + 1) > 1/2 − α (Eq. (5)) has F_D(m_P) < τ + 2α and F_D(m_P + 1) > τ − 2α."
    ),
    domain=(
        "every n ≥ 1 with τn an integer (the paper's footnote), τ ∈ (0, 1), α ∈ (0, 1/2), every "
        "dataset on [B] (sympy identities in n, c = |{x ∈ D : x ≤ y}|, τ, α; the edge cases "
        "m_P = B (impossible: F_P(B) = 1 ≥ 1/2 + α) and m_P + 1 = B (F_D(B) = 1 > τ − 2α) are "
        "the human step)"
    ),
    parts=(
        Part(
            name="the padded CDF is (1 - tau)/2 + F_D/2",
            variables=_B1_VARIABLES,
            goal=Condition(f"{_FP} - ((1 - tau)/2 + (c/n)/2)"),
            method="identity",
            note=(
                "For y ∈ [1, B−1] the points of D_P at most y are the (1−τ)n ones and the "
                "c = n·F_D(y) points of D (the τn copies of B are above y); |D_P| = 2n."
            ),
        ),
        Part(
            name="upper side: F_D - (tau + 2 alpha) = 2 (F_P - (1/2 + alpha))",
            variables=_B1_VARIABLES,
            goal=Condition(f"(c/n - (tau + 2*alpha)) - 2*({_FP} - (1/2 + alpha))"),
            method="identity",
            note="At y = m_P: F_P(m_P) < 1/2 + α gives F_D(m_P) < τ + 2α (a factor 2 > 0).",
        ),
        Part(
            name="lower side: F_D - (tau - 2 alpha) = 2 (F_P - (1/2 - alpha))",
            variables=_B1_VARIABLES,
            goal=Condition(f"(c/n - (tau - 2*alpha)) - 2*({_FP} - (1/2 - alpha))"),
            method="identity",
            note=(
                "At y = m_P + 1 ≤ B − 1: F_P(m_P + 1) > 1/2 − α gives F_D(m_P + 1) > τ − 2α; "
                "at m_P + 1 = B, F_D(B) = 1 > τ − 2α."
            ),
        ),
    ),
)

# ----------------------------------------------------------------------------- Lemma G.1

G1_N = 1768
"""The printed statement's counterexample: α = β = 1/20, ε = 1, p = 1/2 and the least n ≥ the
printed bracket·ln(1/β) = 1767.21 (the statement read with "n ≥")."""
G1_UPPER, G1_LOWER, G1_TERMS = 925, 843, 40
"""The least report count whose estimate overshoots p by more than α, the largest that
undershoots by more than α, and how many further terms of each tail the lower bound keeps."""

_G1_Q = "((exp(eps) - 1)*p + 1)/(exp(eps) + 1)"
_G1_ESTIMATE = "((exp(eps) + 1)/(exp(eps) - 1)*{k}/n - 1/(exp(eps) - 1))"


def _binomial_term(k: int, q: str = _G1_Q) -> str:
    """P(Binomial(n, q) = k), by default with q the report probability of the proof of Lemma G.1."""
    return (
        f"exp(loggamma(n + 1) - loggamma({k + 1}) - loggamma(n - {k} + 1) "
        f"+ {k}*log({q}) + (n - {k})*log(1 - {q}))"
    )


def g1_tail_lower_bound(upper: int = G1_UPPER, lower: int = G1_LOWER, terms: int = G1_TERMS) -> str:
    """Terms of Pr[|p̂ − p| > α]: k = upper..upper + terms and k = lower − terms..lower, each a
    miss by more than α once the part's hypotheses hold (p̂ is increasing in k)."""
    ks = [*range(upper, upper + terms + 1), *range(max(lower - terms, 0), lower + 1)]
    return " + ".join(_binomial_term(k) for k in ks)


_G1_PRINTED = (
    "(2*p*(1 - p)/alpha**2 + exp(eps)/(alpha**2*(exp(eps) - 1)**2) "
    "+ 2*(exp(eps) + 1)/(4*alpha*(exp(eps) - 1)))*log(1/beta)"
)
_G1_PROOF = (
    "(2*p*(1 - p)/alpha**2 + 2*exp(eps)/(alpha**2*(exp(eps) - 1)**2) "
    "+ 2*(exp(eps) + 1)/(3*alpha*(exp(eps) - 1)))*log(1/beta)"
)
_G1_VARIABLES = (
    Variable("n", 1, 10**6, integer=True),
    Variable("eps", 0, 100),
    Variable("alpha", 0, 1),
    Variable("beta", 0, 1),
    Variable("p", 0, 1),
)
_G1_NOTE = (
    "The n reports are i.i.d. Bernoulli(q), q = ((e^ε−1)p + 1)/(e^ε+1) (proof of Lemma G.1), "
    "so nȲ ~ Binomial(n, q), and p̂ = ((e^ε+1)/(e^ε−1))·k/n − 1/(e^ε−1) at nȲ = k is "
    "increasing in k: the last two hypotheses put every k ≥ {upper} and every k ≤ {lower} in "
    "the event |p̂ − p| > α, so the goal's sum of binomial terms is at most its probability."
)


def _g1_part(name: str, bracket: str, upper: int, lower: int, terms: int,
             point: dict[str, Fraction | int | str]) -> Part:
    return Part(
        name=name,
        variables=_G1_VARIABLES,
        goal=Condition(f"{g1_tail_lower_bound(upper, lower, terms)} - beta", ">"),
        hypotheses=(
            Condition(f"n - {bracket}", ">="),
            Condition("eps", ">"),
            Condition("alpha", ">"),
            Condition("beta", ">"),
            Condition("1 - beta", ">"),
            Condition("p*(1 - p)", ">="),
            Condition(f"{_G1_ESTIMATE.format(k=upper)} - p - alpha", ">"),
            Condition(f"p - {_G1_ESTIMATE.format(k=lower)} - alpha", ">"),
        ),
        method="points",
        points=(point,),
        precision=192,
        note=_G1_NOTE.format(upper=upper, lower=lower),
    )


LEMMA_G1 = ClaimCertification(
    claim="aamand25/lemma-G.1",
    statement=(
        "Refutation of Lemma G.1, both as printed (read with n ≥) and in the proof's corrected "
        "form. Printed: at α = β = 1/20, ε = 1, p = 1/2 and n = 1768 ≥ (2p(1−p)/α² + "
        "e^ε/(α²(e^ε−1)²) + 2(e^ε+1)/(4α(e^ε−1)))·ln(1/β) = 1767.21, Pr[|p̂ − p| > α] "
        "(≈ 0.0540) exceeds β: 82 of its binomial terms sum to ≈ 0.0539 > 1/20. Corrected form "
        "(2e^ε/…, 3α): at α = 9/20, ε = 8, β = 4/5, p = 1/2 the bracket·ln(1/β) is ≈ 0.88, so "
        "n = 1 is allowed, and one report misses p by more than α surely: probability 1 > β."
    ),
    domain=(
        "the points n = 1768, ε = 1, α = β = 1/20, p = 1/2 (printed form, its 'n ≤' read as "
        "'n ≥') and n = 1, ε = 8, α = 9/20, β = 4/5, p = 1/2 (the proof's corrected form); both "
        "inside the lemma's domain"
    ),
    parts=(
        _g1_part(
            "printed form: the exact tail at the printed sample size exceeds beta",
            _G1_PRINTED, G1_UPPER, G1_LOWER, G1_TERMS,
            {"n": G1_N, "eps": 1, "alpha": "1/20", "beta": "1/20", "p": "1/2"},
        ),
        _g1_part(
            "corrected form: one report at beta = 4/5 misses surely",
            _G1_PROOF, 1, 0, 0,
            {"n": 1, "eps": 8, "alpha": "9/20", "beta": "4/5", "p": "1/2"},
        ),
    ),
)

# ----------------------------------------------------------------------------- Lemma G.2

G2_N = 2
"""Lemma G.2's counterexample: n = 2 users, both bits 1 (P = 1), ε = 1, α = 49/100, β = 9/10."""
G2_KEEP = _KEEP
"""With every bit 1 each report is 1 with the keep probability e^ε/(e^ε + 1) (Lemma A.1)."""
G2_BRACKET = (
    "(2*exp(eps)/(alpha**2*(exp(eps) - 1)**2) + 2*(exp(eps) + 1)/(3*alpha*(exp(eps) - 1)))"
)
"""Lemma G.2's bracket (statement = proof); the sample-size condition is n ≥ bracket·log(1/β)."""


def g2_tail(n: int = G2_N) -> str:
    """Pr[nY = k] summed over k = 0..n for n reports that are each 1 with the keep probability:
    the whole law (1 exactly), and the event's probability once every k misses."""
    return " + ".join(_binomial_term(k, G2_KEEP) for k in range(n + 1))


LEMMA_G2 = ClaimCertification(
    claim="aamand25/lemma-G.2",
    statement=(
        "Refutation of Lemma G.2 (its 'n ≤' read as 'n ≥', natural or base-2 log): n = 2 users "
        "with both bits 1 (P = 1), ε = 1, α = 49/100, β = 9/10. The sample-size condition holds "
        "(bracket·ln(1/β) ≈ 1.12 ≤ 2, bracket·log₂(1/β) ≈ 1.61 ≤ 2), but P̂ takes the values "
        "≈ −0.58, 0.50, 1.58 at nY = 0, 1, 2, each more than α from P = 1: Pr[|P̂ − P| > α] = 1 "
        "> β."
    ),
    domain=(
        "the point n = 2, x = (1, 1), ε = 1, α = 49/100, β = 9/10 (inside the lemma's domain: "
        "the sample-size condition holds with either log). Violations are confined to small n "
        "and large β: every one found for n < 60 has β > 0.82 (search, not certified)"
    ),
    parts=(
        Part(
            name="two users with bit 1 at beta = 9/10: every report count misses P = 1 by > alpha",
            variables=(
                Variable("n", 1, 10**6, integer=True),
                Variable("eps", 0, 100),
                Variable("alpha", 0, 1),
                Variable("beta", 0, 1),
            ),
            goal=Condition(f"{g2_tail()} - beta", ">"),
            hypotheses=(
                Condition(f"n - {G2_BRACKET}*log(1/beta)", ">="),
                Condition(f"n - {G2_BRACKET}*log(1/beta)/log(2)", ">="),
                Condition("eps", ">"),
                Condition("alpha", ">"),
                Condition("1 - alpha", ">"),
                Condition("beta", ">"),
                Condition("1 - beta", ">"),
                Condition("2 - n", ">="),
                Condition(f"{_G1_ESTIMATE.format(k=2)} - 1 - alpha", ">"),
                Condition(f"1 - {_G1_ESTIMATE.format(k=1)} - alpha", ">"),
            ),
            method="points",
            points=({"n": G2_N, "eps": 1, "alpha": "49/100", "beta": "9/10"},),
            precision=192,
            note=(
                "Every bit is 1, so P = 1 and the n reports are i.i.d. Bernoulli(e^ε/(e^ε+1)): "
                "nY ~ Binomial(n, e^ε/(e^ε+1)), and the goal's sum over k = 0..n is its whole "
                "law. P̂ = ((e^ε+1)/(e^ε−1))·k/n − 1/(e^ε−1) at nY = k is increasing in k; with "
                "n ≤ 2 the last two hypotheses put k = 2 above P + α and k ≤ 1 below P − α, so "
                "every k is in the event |P̂ − P| > α and the goal is its probability minus β. "
                "The first two hypotheses are the sample-size condition with the natural and "
                "the base-2 log."
            ),
        ),
    ),
)

CERTIFICATIONS = (LEMMA_A1, THEOREM_A3, LEMMA_B1, LEMMA_G1, LEMMA_G2, LEMMA_G5)
