"""Certified claims of the group ``measures`` (continued from :mod:`.measures`): the tightness
of Kairouz, Oh and Viswanath 2015's Theorem 2.1 (randomised response and the four-outcome law)
and the Gaussian's trade-off and Rényi divergence (Dong, Roth and Su 2022, Theorems 2.7 and
2.10), and Canonne, Kamath and Steinke 2020's Proposition 12.

Each certification proves the identities and inequalities a ledger entry's statement reduces to;
the reduction (a cited theorem, the data-processing inequality) is stated in the part's note and
the domain text.
"""

from __future__ import annotations

import re

from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

# ------------------------------------------------- Kairouz, Oh and Viswanath 2015, Theorem 2.1

RR_TERMS = ("(r - p)/(r*(1 + p))", "(p*r - 1)/(r*(1 + p))")
"""P(i) − e^ε Q(i) for the outcomes i = 0, 1 of ε₀-randomised response, P = (e^{ε₀}, 1)/(1 +
e^{ε₀}), Q = (1, e^{ε₀})/(1 + e^{ε₀}), in p = e^{−ε₀} and r = e^{−ε}."""

FOUR_OUTCOME_TERMS = (
    "d",
    "(1 - d)*(r - p)/(r*(1 + p))",
    "(1 - d)*(p*r - 1)/(r*(1 + p))",
    "-d/r",
)
"""P(i) − e^ε Q(i) for the four-outcome law of (ε₀, δ₀)-DP, P = (δ₀, (1 − δ₀)e^{ε₀}/(1 + e^{ε₀}),
(1 − δ₀)/(1 + e^{ε₀}), 0) and Q its mirror, in p = e^{−ε₀}, r = e^{−ε}, d = δ₀."""

_ORIGINAL = "(p, r) = (exp(-eps0), exp(-eps))"

_RR_ORIGINAL = (
    "exp(eps0)/(1 + exp(eps0)) - exp(eps)/(1 + exp(eps0))",
    "1/(1 + exp(eps0)) - exp(eps)*exp(eps0)/(1 + exp(eps0))",
)
"""RR_TERMS in ε₀ and ε: P(i) − e^ε Q(i) from the laws themselves."""

_EXPONENTIALS = {"p": "exp(-eps0)", "r": "exp(-eps)"}
_EPS_BOX = (Variable("eps0", "1/1000000", 10**6), Variable("eps", 0, 10**6))
_PR_BOX = (Variable("p", 0, 1), Variable("r", 0, 1))


def _substituted(expression: str) -> str:
    """``expression`` in p, r with p = e^{−ε₀}, r = e^{−ε} written in."""
    return re.sub(r"\b[pr]\b", lambda m: _EXPONENTIALS[m.group()], expression)


def _rr_parts(factor: str, outcomes: tuple[int, int], variables: tuple[Variable, ...]) -> tuple[Part, ...]:
    """The parts shared by both certifications: the two terms of randomised response (times
    ``factor``) are the laws' P(i) − e^ε Q(i), the second is ≤ 0, and the first is ≤ 0 from
    ε = ε₀ on (r = p·s, s = e^{−(ε − ε₀)} ∈ (0, 1])."""
    up, down = outcomes
    return tuple(
        Part(
            name=f"outcome {i}: P - e^eps Q in p = e^-eps0, r = e^-eps",
            variables=variables,
            goal=Condition(
                f"{factor}*({_substituted(term)}) - {factor}*({original})"
            ),
            method="identity",
            note=(
                f"Outcome {i}'s P(i) − e^ε Q(i), written from the laws (second term), is "
                f"{factor}·{term} at {_ORIGINAL} (first)."
            ),
        )
        for i, term, original in zip(outcomes, RR_TERMS, _RR_ORIGINAL, strict=True)
    ) + (
        Part(
            name=f"outcome {down}: P - e^eps Q <= 0 (its numerator p r - 1)",
            variables=_PR_BOX,
            goal=Condition("p*r - 1", "<="),
            monotone=("p", "r"),
            max_leaves=2000,
            note=(
                f"Outcome {down}'s term is {factor}·(pr − 1)/(r(1 + p)), the factor and "
                "r(1 + p) positive: every ε₀ > 0, ε ≥ 0 maps into (p, r) ∈ (0, 1) × (0, 1]."
            ),
        ),
        Part(
            name=f"outcome {up}: P - e^eps Q <= 0 for eps >= eps0 (its sign is that of s - 1, r = p s)",
            variables=(Variable("s", 0, 1),),
            goal=Condition("s - 1", "<="),
            monotone=("s",),
            max_leaves=2000,
            note=(
                f"For ε ≥ ε₀, r = p·s with s = e^{{−(ε − ε₀)}} ∈ (0, 1]: outcome {up}'s term is "
                f"{factor}·(s − 1)/(s(1 + p)) ≤ 0. Below ε₀ it is positive (r > p), so the "
                "sum of the positive parts is max(0, that term) at every ε ≥ 0."
            ),
        ),
    )


KOV15_THEOREM_2_1_PURE = ClaimCertification(
    claim="measures/kov15-theorem-2.1-pure",
    statement=(
        "ε₀-randomised response, P = (e^{ε₀}, 1)/(1 + e^{ε₀}) against its mirror Q, has "
        "hockey-stick divergence Σ_i max(0, P(i) − e^ε Q(i)) = max(0, (e^{ε₀} − e^ε)/(1 + "
        "e^{ε₀})) at every ε ≥ 0 (0 from ε = ε₀ on): the bound of Kairouz, Oh and Viswanath 2015, "
        "Theorem 2.1 is reached; every ε₀-DP pair is a post-processing of randomised response, so "
        "by data processing the bound holds for every ε₀-DP mechanism."
    ),
    domain=(
        "the tightness (randomised response's divergence is the formula), every ε₀ > 0 and "
        "ε ≥ 0; the upper bound for every ε₀-DP pair is cited: every ε₀-DP pair is a "
        "post-processing of randomised response (Kairouz, Oh and Viswanath 2015, proof of "
        "Theorem 2.1) and the hockey-stick divergence obeys data processing; the positivity of "
        "the denominators r(1 + p) is a human step"
    ),
    parts=_rr_parts("1", (0, 1), _EPS_BOX),
)


KOV15_THEOREM_2_1_APPROXIMATE = ClaimCertification(
    claim="measures/kov15-theorem-2.1-approximate",
    statement=(
        "The four-outcome law of (ε₀, δ₀)-DP, P = (δ₀, (1 − δ₀)e^{ε₀}/(1 + e^{ε₀}), (1 − δ₀)/(1 + "
        "e^{ε₀}), 0) against its mirror Q, has hockey-stick divergence δ₀ + (1 − δ₀)·max(0, "
        "(e^{ε₀} − e^ε)/(1 + e^{ε₀})) at every ε ≥ 0 (δ₀ from ε = ε₀ on), in both directions (Q "
        "is P reversed): the bound of Kairouz, Oh and Viswanath 2015, Theorem 2.1 is reached; "
        "every (ε₀, δ₀)-DP pair is a post-processing of this law, so by data processing the "
        "bound holds for every (ε₀, δ₀)-DP mechanism."
    ),
    domain=(
        "the tightness (the four-outcome law's divergence is the formula), every ε₀ > 0, "
        "δ₀ ∈ [0, 1) and ε ≥ 0; the upper bound for every (ε₀, δ₀)-DP pair is cited: every such "
        "pair is a post-processing of the four-outcome law (Kairouz, Oh and Viswanath 2015, "
        "proof of Theorem 2.1) and the hockey-stick divergence obeys data processing; the "
        "positivity of the denominators r(1 + p) and the symmetry of the mirrored pair are human "
        "steps"
    ),
    parts=(
        Part(
            name="outcomes 0 and 3: P - e^eps Q is d and -d e^eps",
            variables=(*_EPS_BOX, Variable("d", 0, 1)),
            goal=Condition(
                f"(d - exp(eps)*0) - ({_substituted(FOUR_OUTCOME_TERMS[0])}) "
                f"+ (0 - exp(eps)*d) - ({_substituted(FOUR_OUTCOME_TERMS[3])})"
            ),
            method="identity",
            note=(
                "P(0) = δ₀, Q(0) = 0 and P(3) = 0, Q(3) = δ₀: the terms are δ₀ ≥ 0 and "
                "−δ₀e^ε ≤ 0 (the identity checks the second's form −d/r at r = e^{−ε}; both "
                "signs are read off), so outcome 0 adds δ₀ and outcome 3 nothing."
            ),
        ),
        *_rr_parts("(1 - d)", (1, 2), (*_EPS_BOX, Variable("d", 0, 1))),
    ),
)


# ------------------------------------------------------- Dong, Roth and Su 2022, Theorem 2.7

GAUSSIAN_TYPE_ONE = "erfc((t/sigma)/sqrt(2))/2"
"""P(X > t) for X ~ N(0, σ²): the type I error of the test rejecting above t, Φ(−t/σ)."""

GAUSSIAN_TYPE_TWO = "erfc(-((t - Delta)/sigma)/sqrt(2))/2"
"""P(X ≤ t) for X ~ N(Δ, σ²): the type II error of that test, Φ((t − Δ)/σ)."""

GDP_TRADEOFF_AT = "erfc(-(({z}) - ({mu}))/sqrt(2))/2"
"""G_μ(x) = Φ(Φ^{-1}(1 − x) − μ) at x = Φ(−z), where Φ^{-1}(1 − x) = z: Φ(z − μ)."""

_GAUSS_BOX = (
    Variable("sigma", "1/1000000", 10**6),
    Variable("Delta", "1/1000000", 10**6),
    Variable("t", -(10**6), 10**6),
)

DRS22_THEOREM_2_7 = ClaimCertification(
    claim="measures/drs22-theorem-2.7",
    statement=(
        "The trade-off of N(0, σ²) against N(Δ, σ²) is G_{Δ/σ} (Dong, Roth and Su 2022, Theorem "
        "2.7): the log-likelihood ratio Δ(2x − Δ)/(2σ²) increases with x, so the optimal tests "
        "reject above a threshold t (Neyman–Pearson); that test's type I error is Φ(−t/σ) and "
        "its type II error Φ((t − Δ)/σ) = G_{Δ/σ}(Φ(−t/σ)), and as t ranges over ℝ the type I "
        "error ranges over (0, 1)."
    ),
    domain=(
        "the one-dimensional pair N(0, σ²), N(Δ, σ²), every σ > 0, Δ > 0 and threshold t "
        "real (sympy identities); the Neyman–Pearson lemma (the likelihood-ratio threshold "
        "tests are optimal), the reduction of an ℓ2-sensitivity-Δ mechanism's pairs to this one "
        "by rotation invariance (the theorem's proof), and G_μ decreasing in μ (so the shift Δ "
        "is the worst, reached: exactly Δ/σ-GDP) are cited or human steps; Φ^{-1}(1 − Φ(−z)) = z "
        "and x = Φ(−t/σ) sweeping (0, 1) are human steps"
    ),
    parts=(
        Part(
            name="the log-likelihood ratio of N(Delta, sigma^2) to N(0, sigma^2) is Delta(2x - Delta)/(2 sigma^2)",
            variables=(*_GAUSS_BOX[:2], Variable("x", -(10**6), 10**6)),
            goal=Condition(
                "(x**2 - (x - Delta)**2)/(2*sigma**2) - Delta*(2*x - Delta)/(2*sigma**2)"
            ),
            method="identity",
            note=(
                "log q(x) − log p(x) for the normal densities (the normaliser cancels); its "
                "slope in x is Δ/σ² > 0, so the likelihood-ratio tests are thresholds on x."
            ),
        ),
        Part(
            name="type I error at threshold t: P(X > t) = 1 - Phi(t/sigma) = Phi(-t/sigma)",
            variables=_GAUSS_BOX,
            goal=Condition(f"1 - erfc(-(t/sigma)/sqrt(2))/2 - {GAUSSIAN_TYPE_ONE}"),
            method="identity",
            note="Φ(x) = erfc(−x/√2)/2; 1 − Φ(t/σ) = Φ(−t/σ).",
        ),
        Part(
            name="type II error at threshold t is G_(Delta/sigma) at the type I error",
            variables=_GAUSS_BOX,
            goal=Condition(
                f"{GAUSSIAN_TYPE_TWO} - {GDP_TRADEOFF_AT.format(z='t/sigma', mu='Delta/sigma')}"
            ),
            method="identity",
            note=(
                "At x = Φ(−t/σ) (second part), Φ^{-1}(1 − x) = t/σ, so G_μ(x) = Φ(t/σ − μ); "
                "at μ = Δ/σ this is the test's type II error Φ((t − Δ)/σ)."
            ),
        ),
    ),
)


# ------------------------------------------------------ Dong, Roth and Su 2022, Theorem 2.10

_ORDER_BOX = (Variable("alpha", 1, 10**6), Variable("mu", "1/1000000", 10**6))

DRS22_THEOREM_2_10 = ClaimCertification(
    claim="measures/drs22-theorem-2.10",
    statement=(
        "μ-GDP implies (μ²/2)-zCDP (Dong, Roth and Su 2022, Theorem 2.10 with the Gaussian's "
        "Rényi divergence): a μ-GDP pair is a post-processing of N(0, 1), N(μ, 1) (Blackwell), "
        "whose D_α is αμ²/2 = α·(μ²/2) at every order α > 1 (completing the square), and D_α "
        "obeys data processing."
    ),
    domain=(
        "μ-GDP ⇒ (μ²/2)-zCDP for every μ > 0 and every order α > 1, given Blackwell's theorem "
        "(the theorem: a μ-GDP pair is a post-processing of the Gaussian pair), Rényi "
        "divergence's data processing and a normal density integrating to 1 (cited or human); "
        "the zCDP profile at ρ = μ²/2 being at least the GDP profile is not certified here: it "
        "follows from Canonne, Kamath and Steinke 2020, Proposition 12 (certified separately, "
        "measures/cks20-proposition-12) applied to the Gaussian pair at every order, whose "
        "exact profile is the GDP one (Balle and Wang 2018, Theorem 8, cited)"
    ),
    parts=(
        Part(
            name="completing the square for N(0, 1) against N(mu, 1)",
            variables=(*_ORDER_BOX, Variable("x", -(10**6), 10**6)),
            goal=Condition(
                "alpha*x**2 + (1 - alpha)*(x - mu)**2 - (x - (1 - alpha)*mu)**2 "
                "- alpha*(1 - alpha)*mu**2"
            ),
            method="identity",
            note=(
                "p^α q^{1−α} = φ(x − (1 − α)μ)·e^{α(α−1)μ²/2} for p = φ(x), q = φ(x − μ), so "
                "∫ p^α q^{1−α} = e^{α(α−1)μ²/2} (a normal density integrates to 1)."
            ),
        ),
        Part(
            name="D_alpha of the Gaussian pair is alpha rho at rho = mu^2/2",
            variables=_ORDER_BOX,
            goal=Condition(
                "log(exp(alpha*(alpha - 1)*mu**2/2))/(alpha - 1) - alpha*(mu**2/2)"
            ),
            method="identity",
            note=(
                "D_α = ln ∫ p^α q^{1−α}/(α − 1) = αμ²/2: the zCDP bound ρα with ρ = μ²/2, "
                "with equality, so ρ = μ²/2 is the least ρ the Gaussian pair allows."
            ),
        ),
    ),
)


# -------------------------------------------- Canonne, Kamath and Steinke 2020, Proposition 12

CKS20_CONSTANT = "(a/(a + 1))**(a + 1)/a"
"""(1 − 1/α)^α/(α − 1) in a = α − 1: the printed δ is e^{(α−1)(τ−ε)} times it."""

CKS20_GAPS = (
    f"log({CKS20_CONSTANT}) - a*log(a*s/(a + 1)) - log(1 - a*s/(a + 1))",
    f"log({CKS20_CONSTANT}) - a*log(1 - s/(a + 1)) - log(s/(a + 1))",
)
"""L = log C − (α − 1) log u − log(1 − u), the log-gap of u^{α−1}(1 − u) ≤ C, on the two sides of
its maximiser u* = (α − 1)/α: u = u*·s and 1 − u = (1 − u*)·s, s ∈ (0, 1]."""

CKS20_SLOPES = (
    "-a/s + a/(a + 1 - a*s)",
    "a/(a + 1 - s) - 1/s",
)
"""∂L/∂s of :data:`CKS20_GAPS` (the chain rule, by hand)."""

_A_S_BOX = (Variable("a", "1/1000000", 10**6), Variable("s", "1/1000000", 1))

CKS20_PROPOSITION_12 = ClaimCertification(
    claim="measures/cks20-proposition-12",
    statement=(
        "For every order α > 1 and real w, (1 − e^{−w})_+ ≤ e^{(α−1)w}·(1 − 1/α)^α/(α − 1) "
        "(Canonne, Kamath and Steinke 2020, Proposition 12's pointwise bound): for w > 0 and "
        "u = e^{−w} ∈ (0, 1) it is u^{α−1}(1 − u) ≤ C = (1 − 1/α)^α/(α − 1), whose log-gap L "
        "is 0 at u* = (α − 1)/α and decreases in s on both sides (u = u*s, 1 − u = (1 − u*)s). "
        "With w = z − ε and Z the privacy loss, δ(ε) = E_P(1 − e^{ε−Z})_+ ≤ "
        "C·e^{−(α−1)ε}E_P e^{(α−1)Z} = C·e^{(α−1)(D_α − ε)} ≤ e^{(α−1)(τ−ε)}/(α − 1)·(1 − 1/α)^α."
    ),
    domain=(
        "every order α > 1, τ ≥ D_α and ε (sympy identities in a = α − 1 > 0, s ∈ (0, 1]); "
        "the derivatives ∂L/∂s (chain rule, tied to finite differences), their sign "
        "((α − 1)α(s − 1) ≤ 0 and α(s − 1) ≤ 0 over positive denominators), the mean value "
        "theorem, w ≤ 0 (left side 0), δ(ε) = E_P(1 − e^{ε−Z})_+ and E_P e^{(α−1)Z} = "
        "e^{(α−1)D_α} (the definitions) are human steps"
    ),
    parts=(
        Part(
            name="L = 0 at the maximiser u* = (alpha - 1)/alpha (s = 1)",
            variables=_A_S_BOX,
            goal=Condition(f"log({CKS20_CONSTANT}) - a*log(a/(a + 1)) - log(1/(a + 1))"),
            method="identity",
            note=(
                "Both gaps of CKS20_GAPS at s = 1 (u = u* = a/(a + 1), 1 − u* = 1/(a + 1)): "
                "C = u*^{α−1}(1 − u*), the bound is attained."
            ),
        ),
        Part(
            name="below u*: dL/ds = (alpha - 1) alpha (s - 1)/(s (alpha - (alpha - 1) s)) <= 0",
            variables=_A_S_BOX,
            goal=Condition(
                f"{CKS20_SLOPES[0]} - a*(a + 1)*(s - 1)/(s*(a + 1 - a*s))"
            ),
            method="identity",
            note=(
                "u = u*s: ∂L/∂s = −a/s + (a/(a + 1))/(1 − as/(a + 1)) (first term); the closed "
                "form is ≤ 0 for s ≤ 1 (a + 1 − as ≥ 1), so L(s) ≥ L(1) = 0."
            ),
        ),
        Part(
            name="above u*: dL/ds = alpha (s - 1)/(s (alpha - s)) <= 0",
            variables=_A_S_BOX,
            goal=Condition(f"{CKS20_SLOPES[1]} - (a + 1)*(s - 1)/(s*(a + 1 - s))"),
            method="identity",
            note=(
                "1 − u = (1 − u*)s = s/(a + 1): ∂L/∂s = a/(a + 1 − s) − 1/s; the closed form is "
                "≤ 0 for s ≤ 1 (a + 1 − s ≥ a > 0), so L(s) ≥ L(1) = 0."
            ),
        ),
    ),
)


CERTIFICATIONS = (
    KOV15_THEOREM_2_1_PURE,
    KOV15_THEOREM_2_1_APPROXIMATE,
    DRS22_THEOREM_2_7,
    DRS22_THEOREM_2_10,
    CKS20_PROPOSITION_12,
)

__all__ = [
    "CERTIFICATIONS",
    "CKS20_CONSTANT",
    "CKS20_GAPS",
    "CKS20_PROPOSITION_12",
    "CKS20_SLOPES",
    "DRS22_THEOREM_2_10",
    "DRS22_THEOREM_2_7",
    "FOUR_OUTCOME_TERMS",
    "GAUSSIAN_TYPE_ONE",
    "GAUSSIAN_TYPE_TWO",
    "GDP_TRADEOFF_AT",
    "KOV15_THEOREM_2_1_APPROXIMATE",
    "KOV15_THEOREM_2_1_PURE",
    "RR_TERMS",
]
