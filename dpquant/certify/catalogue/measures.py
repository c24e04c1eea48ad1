"""Certified claims of the group ``measures``: the conversions between privacy measures
(Kairouz, Oh and Viswanath 2015; Bun and Steinke 2016; Balle and Wang 2018; Canonne, Kamath and
Steinke 2020; Dong, Roth and Su 2022) and the discrete Gaussian's GDP.

Each certification proves the inequality (or identity) a ledger entry's statement reduces to;
the reduction (a cited theorem, a classical bound such as the normal tail's Mills ratio) is
stated in the part's note and the domain text.
"""

from __future__ import annotations

from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

THETA_TERMS = 60
"""Terms k = 1..60 of the discrete Gaussian's normaliser written out; the rest is bounded by a
geometric series (:func:`theta_upper`)."""


def theta_upper(sigma: str, terms: int = THETA_TERMS) -> str:
    """An upper bound of θ(0) = Σ_{k ∈ ℤ} e^{−k²/(2σ²)} (the normaliser of N_ℤ(0, σ²)): the terms
    |k| ≤ ``terms`` exactly, and the rest by 2·e^{−a²/(2σ²)}/(1 − e^{−a/σ²}), a = terms + 1
    (for i ≥ 0, (a + i)² ≥ a² + 2ai, so the tail is dominated by a geometric series).

    Args:
        sigma: The expression of σ.
        terms: How many terms k ≥ 1 are written out.

    Returns:
        The expression's text.
    """
    head = " + ".join(f"exp(-{k * k}/(2*{sigma}**2))" for k in range(1, terms + 1))
    a = terms + 1
    tail = f"2*exp(-{a * a}/(2*{sigma}**2))/(1 - exp(-{a}/{sigma}**2))"
    return f"1 + 2*({head}) + {tail}"


_TV_MINUS_GDP = f"1/({theta_upper('sigma')}) - erf(1/(2*sqrt(2)*sigma))"
"""A lower bound of TV(N_ℤ(0, σ²), N_ℤ(1, σ²)) = 1/θ(0) minus the (1/σ)-GDP profile at ε = 0,
2Φ(1/(2σ)) − 1 = erf(1/(2√2σ))."""

DISCRETE_GAUSSIAN_NOT_GDP = ClaimCertification(
    claim="measures/discrete-gaussian-not-gaussian-gdp",
    statement=(
        "The discrete Gaussian pair N_ℤ(0, σ²), N_ℤ(1, σ²) violates (1/σ)-GDP: its total "
        "variation 1/θ(0), θ(0) = Σ_k e^{−k²/(2σ²)}, exceeds the (1/σ)-GDP profile at ε = 0, "
        "2Φ(1/(2σ)) − 1 (Dong, Roth and Su 2022, Corollary 2.13), at σ = 2 and at every "
        "σ ∈ [1/5, 8]."
    ),
    domain=(
        "the point σ = 2 (shift 1, the statement's point) and every σ ∈ [1/5, 8] (the refuted "
        "transfer claims every σ > 0)"
    ),
    parts=(
        Part(
            name="at sigma = 2 the total variation exceeds the 1/2-GDP profile at epsilon = 0",
            variables=(Variable("sigma", 2, 2),),
            goal=Condition(_TV_MINUS_GDP, ">"),
            hypotheses=(Condition("sigma", ">"),),
            method="points",
            points=({"sigma": 2},),
            note=(
                "P(x)/Q(x) = e^{(1 − 2x)/(2σ²)} > 1 iff x ≤ 0, so TV = P(X ≤ 0) − P(X ≤ −1) = "
                "P(X = 0) = 1/θ(0) ≥ 1/θ_upper; (1/σ)-GDP would give TV = δ(0) ≤ Φ(μ/2) − "
                "Φ(−μ/2) = erf(μ/(2√2)) at μ = 1/σ (Corollary 2.13 at ε = 0)."
            ),
        ),
        Part(
            name="for every sigma in [1/5, 8] the total variation exceeds the (1/sigma)-GDP profile",
            variables=(Variable("sigma", "1/5", 8, scale="log"),),
            goal=Condition(_TV_MINUS_GDP, ">"),
            note="As the first part, σ free: the violation is not particular to σ = 2.",
        ),
    ),
)


# ------------------------------------------------------------------------ Balle and Wang 2018

_BW18_DIRECT = (
    "5/4*exp(-1/(2*s**2)) - erfc((1/s - eps*s/2)/sqrt(2))/2 "
    "+ exp(eps)*erfc((1/s + eps*s/2)/sqrt(2))/2"
)
"""δ − δ_μ(ε) at the classical σ: s = 1/sqrt(2L), L = ln(1.25/δ), μ = 1/σ_classical = εs."""

_BW18_MILLS = (
    "5/4 - exp(eps/2 - eps**2*s**2/8)/sqrt(2*pi)*(s/(1 - eps*s**2/2) "
    "- s*(1 + eps*s**2/2)/(s**2 + (1 + eps*s**2/2)**2))"
)
"""(δ − an upper bound of δ_μ(ε))·e^L at the classical σ, from the normal tail's bounds."""

BW18_THEOREM_8 = ClaimCertification(
    claim="measures/bw18-theorem-8",
    statement=(
        "At the classical σ = Δ·sqrt(2 ln(1.25/δ))/ε, the Gaussian's profile (Balle and Wang 2018, "
        "Theorem 8) is δ_{Δ/σ}(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) < δ (μ = Δ/σ), so the least "
        "σ of Theorem 8 is below the classical one."
    ),
    domain=(
        "the comparison with the classical σ for every ε ∈ (0, 1], δ ∈ (0, 1] and Δ > 0, given "
        "Theorem 8's profile and its growth with μ (cited; the least σ meeting δ is the tested "
        "bisection); the classical σ is Dwork and Roth's (Thm A.1, ε < 1). False for larger ε: "
        "at ε = 5, δ = 1/2 the classical σ gives δ_μ(ε) = 0.587 > δ"
    ),
    parts=(
        Part(
            name="the profile identity e^eps phi(b) = phi(a) at the classical sigma",
            variables=(Variable("eps", 0, 1), Variable("s", "1/1000", "3/2")),
            goal=Condition(
                "eps - (1/s + eps*s/2)**2/2 + (1/s - eps*s/2)**2/2", ">="
            ),
            method="identity",
            note=(
                "a = −ε/μ + μ/2 = −1/s + εs/2, b = −ε/μ − μ/2 = −1/s − εs/2 with μ = εs "
                "(ε/μ = 1/s = sqrt(2L)): ε − b²/2 + a²/2 = 0, i.e. e^ε φ(b) = φ(a)."
            ),
        ),
        Part(
            name="delta above the classical sigma's profile for delta <= 1.25 e^-2 (tail bounds)",
            variables=(Variable("eps", 0, 1), Variable("s", 0, "1/2")),
            goal=Condition(_BW18_MILLS, ">"),
            note=(
                "s = 1/sqrt(2 ln(1.25/δ)) ∈ (0, 1/2] (δ ≤ 1.25e^{−2}); |a| = 1/s − εs/2 > 0. The "
                "normal tail bounds x/(1 + x²)·φ(x) ≤ Φ(−x) ≤ φ(x)/x (x > 0) give δ_μ(ε) = Φ(a) − "
                "e^ε Φ(b) ≤ φ(a)·(1/|a| − |b|/(1 + b²)) (first part: e^ε φ(b) = φ(a)), and "
                "φ(a) = e^{−L}·e^{ε/2 − ε²s²/8}/sqrt(2π), δ = (5/4)e^{−L}: the goal is "
                "(δ − that bound)·e^L."
            ),
        ),
        Part(
            name="delta above the classical sigma's profile for delta in [1.25 e^-2, 1]",
            variables=(Variable("eps", 0, 1), Variable("s", "1/2", "3/2")),
            goal=Condition(_BW18_DIRECT, ">"),
            hypotheses=(Condition("1/(2*s**2) - log(5/4)", ">="),),
            note=(
                "s = 1/sqrt(2L), L = ln(1.25/δ): δ = (5/4)e^{−1/(2s²)}, Φ(x) = erfc(−x/√2)/2; "
                "δ ≤ 1 is the hypothesis L = 1/(2s²) ≥ ln(5/4); s ≤ 3/2 covers it "
                "(1/sqrt(2 ln(5/4)) = 1.4969)."
            ),
        ),
    ),
)


# ------------------------------------------------------------------------ Bun and Steinke 2016

BS16_PROPOSITION_1_6 = ClaimCertification(
    claim="measures/bs16-proposition-1.6",
    statement=(
        "D_α(N(0, σ²)‖N(Δ, σ²)) = αΔ²/(2σ²): p^α q^{1−α} is the density of N((1 − α)Δ, σ²) "
        "times e^{α(α−1)Δ²/(2σ²)} (completing the square), so ln ∫ p^α q^{1−α}/(α − 1) = "
        "αΔ²/(2σ²)."
    ),
    domain=(
        "every order α > 1, σ > 0 and Δ real, given that a normal density integrates to 1"
    ),
    parts=(
        Part(
            name="completing the square in the exponent of p^alpha q^(1-alpha)",
            variables=(
                Variable("alpha", 1, 10**6),
                Variable("x", -(10**6), 10**6),
                Variable("Delta", -(10**6), 10**6),
            ),
            goal=Condition(
                "alpha*x**2 + (1 - alpha)*(x - Delta)**2 - (x - (1 - alpha)*Delta)**2 "
                "- alpha*(1 - alpha)*Delta**2",
                ">=",
            ),
            method="identity",
            note=(
                "p^α q^{1−α} = exp(−[αx² + (1 − α)(x − Δ)²]/(2σ²))/(σ√(2π)) = "
                "exp(−(x − (1 − α)Δ)²/(2σ²))/(σ√(2π))·exp(α(α − 1)Δ²/(2σ²)) by this identity."
            ),
        ),
        Part(
            name="the order's normalisation gives alpha Delta^2/(2 sigma^2)",
            variables=(
                Variable("alpha", 1, 10**6),
                Variable("sigma", "1/1000000", 10**6),
                Variable("Delta", -(10**6), 10**6),
            ),
            goal=Condition(
                "log(exp(alpha*(alpha - 1)*Delta**2/(2*sigma**2)))/(alpha - 1) "
                "- alpha*Delta**2/(2*sigma**2)",
                ">=",
            ),
            method="identity",
            note="∫ p^α q^{1−α} = e^{α(α−1)Δ²/(2σ²)} (a normal density integrates to 1).",
        ),
    ),
)


# ------------------------------------------------------------ Bun and Steinke 2016, Prop. 1.4

RR_RENYI_TIMES_ORDER_MINUS_1 = (
    "(alpha - 1)*eps + log(1 + exp(-(2*alpha - 1)*eps)) - log(1 + exp(-eps))"
)
"""(α − 1)·D_α(RR_ε ‖ RR'_ε) for ε-randomised response, (e^ε, 1)/(1 + e^ε) against its mirror:
log((e^{αε} + e^{(1−α)ε})/(1 + e^ε)), written with decaying exponentials only."""

_H = "({w})**2/2 - ({w}) - log(1 + exp(-2*({w})))"
"""h(w) = w²/2 − log cosh(w) − log 2 written with decaying exponentials: h'(w) = w − tanh(w)."""

BS16_PROPOSITION_1_4 = ClaimCertification(
    claim="measures/bs16-proposition-1.4",
    statement=(
        "For ε₀-randomised response, D_α = log((e^{αε₀} + e^{(1−α)ε₀})/(1 + e^{ε₀}))/(α − 1) is at "
        "most ε₀ and at most αε₀²/2 for every order α > 1 (Bun and Steinke 2016, Proposition "
        "1.4); every ε₀-DP pair is a post-processing of it, so the bound holds for every "
        "ε₀-DP mechanism."
    ),
    domain=(
        "every ε₀ > 0 and every order α > 1, for ε₀-randomised response; that every ε₀-DP pair "
        "is a post-processing of it (Kairouz, Oh and Viswanath 2015, proof of Theorem 2.1) and "
        "Rényi divergence's data-processing inequality carry it to every ε₀-DP mechanism "
        "(cited); h nondecreasing from h' ≥ 0 (mean value theorem) and tanh w < 1 ≤ w "
        "for w ≥ 1 are human steps"
    ),
    parts=(
        Part(
            name="D_alpha of randomised response is at most eps0",
            variables=(Variable("p", 0, 1), Variable("w", 0, 1)),
            goal=Condition("log(1 + p) - log(1 + p*w)", ">="),
            monotone=("w", "p"),
            note=(
                "(α − 1)(ε₀ − D_α) = log(1 + e^{−ε₀}) − log(1 + e^{−(2α−1)ε₀}) at p = e^{−ε₀}, "
                "w = e^{−2(α−1)ε₀}: every α > 1, ε₀ > 0 maps into (0, 1)²."
            ),
        ),
        Part(
            name="(alpha - 1)(alpha eps0^2/2 - D_alpha) = h(v) - h(u), u = eps0/2, v = (alpha - 1/2) eps0",
            variables=(Variable("alpha", 1, 10**6), Variable("eps", 0, 10**6)),
            goal=Condition(
                f"alpha*(alpha - 1)*eps**2/2 - ({RR_RENYI_TIMES_ORDER_MINUS_1}) "
                f"- (({_H.format(w='(alpha - 1/2)*eps')}) - ({_H.format(w='(eps/2)')}))"
            ),
            method="identity",
            note=(
                "log cosh(y) = y + log(1 + e^{−2y}) − log 2 turns Bun and Steinke's "
                "cosh((α − ½)ε₀)/cosh(ε₀/2) form into this; the box is nominal (sympy's identity "
                "holds for every real α, ε₀)."
            ),
        ),
        Part(
            name="h'(w) = w - tanh(w) >= 0 on [0, 4]",
            variables=(Variable("w", 0, 4),),
            goal=Condition("w - (1 - exp(-2*w))/(1 + exp(-2*w))", ">="),
            monotone=("w",),
            note=(
                "h'(w) = w − 1 + 2e^{−2w}/(1 + e^{−2w}) = w − tanh(w); for w ≥ 1, tanh(w) < 1 ≤ w "
                "(human). So h is nondecreasing on [0, ∞) and, as v = (α − ½)ε₀ ≥ ε₀/2 = u ≥ 0 "
                "for α ≥ 1, h(v) ≥ h(u): (α − 1)D_α ≤ α(α − 1)ε₀²/2."
            ),
        ),
    ),
)


# ------------------------------------------------------------- Dong, Roth and Su 2022, GDP

GDP_DELTA = "erfc((eps/mu - mu/2)/sqrt(2))/2 - exp(eps)*erfc((eps/mu + mu/2)/sqrt(2))/2"
"""δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), Φ(x) = erfc(−x/√2)/2."""

GDP_DELTA_SLOPE = (
    "exp(-(eps/mu - mu/2)**2/2)*(eps/mu**2 + 1/2)/sqrt(2*pi) "
    "- exp(eps)*exp(-(eps/mu + mu/2)**2/2)*(eps/mu**2 - 1/2)/sqrt(2*pi)"
)
"""∂δ_μ(ε)/∂μ by the chain rule (Φ' = φ, ∂(−ε/μ ± μ/2)/∂μ = ε/μ² ± 1/2)."""

GDP_CONJUGATE = "1 - exp(eps)*erfc(({z})/sqrt(2))/2 - erfc(-({z} - mu)/sqrt(2))/2"
"""V(z) = 1 − e^ε x − G_μ(x) at x = Φ(−z) (then Φ^{-1}(1 − x) = z, G_μ(x) = Φ(z − μ))."""

_GDP_BOX = (Variable("mu", "1/1000000", 10**6), Variable("eps", 0, 10**6))

DRS22_COROLLARY_2_13 = ClaimCertification(
    claim="measures/drs22-corollary-2.13",
    statement=(
        "δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) grows with μ (Dong, Roth and Su 2022, Corollary "
        "2.13): ∂δ/∂μ = φ(−ε/μ + μ/2) > 0, since e^ε φ(−ε/μ − μ/2) = φ(−ε/μ + μ/2)."
    ),
    domain=(
        "the growth with μ, for every μ > 0 and ε ≥ 0 (sympy identities, valid for every real ε "
        "and μ ≠ 0; ∂δ/∂μ by the chain rule and φ > 0 are human steps); the equivalence μ-GDP ⇔ "
        "(ε, δ(ε))-DP for every ε ≥ 0 is the corollary's own proof (Proposition 2.12 and its "
        "converse), cited, not certified"
    ),
    parts=(
        Part(
            name="e^eps phi(-eps/mu - mu/2) = phi(-eps/mu + mu/2)",
            variables=_GDP_BOX,
            goal=Condition("eps - (eps/mu + mu/2)**2/2 + (eps/mu - mu/2)**2/2"),
            method="identity",
            note="The exponents: ε − (ε/μ + μ/2)²/2 = −(ε/μ − μ/2)²/2.",
        ),
        Part(
            name="d delta / d mu = phi(-eps/mu + mu/2)",
            variables=_GDP_BOX,
            goal=Condition(f"{GDP_DELTA_SLOPE} - exp(-(eps/mu - mu/2)**2/2)/sqrt(2*pi)"),
            method="identity",
            note=(
                "The first term is ∂δ/∂μ (chain rule, Φ(x) = erfc(−x/√2)/2); it equals "
                "φ(−ε/μ + μ/2) > 0, so δ(ε) strictly increases with μ."
            ),
        ),
    ),
)

DRS22_PROPOSITION_2_12 = ClaimCertification(
    claim="measures/drs22-proposition-2.12",
    statement=(
        "For f = G_μ, sup_x 1 − e^ε x − G_μ(x) is δ_μ(ε) (Dong, Roth and Su 2022, Proposition "
        "2.12 at the Gaussian trade-off): at x = Φ(−z), V(z) = 1 − e^ε Φ(−z) − Φ(z − μ) has "
        "V'(z) = φ(z)(e^ε − e^{μz − μ²/2}), positive below z* = ε/μ + μ/2 and negative above, "
        "and V(z*) = δ_μ(ε)."
    ),
    domain=(
        "the Gaussian trade-off's conjugate, for every μ > 0 and ε ≥ 0 (sympy identities, valid "
        "for every real z, ε and μ ≠ 0; V' by the chain rule, the sign of e^ε − e^{μz − μ²/2} "
        "(exp increasing) and x = Φ(−z) ranging over (0, 1) as z ranges over ℝ, with V → 0 at "
        "x ∈ {0, 1}, are human steps); the primal–dual statement for a general f is the "
        "proposition's own proof, cited, not certified"
    ),
    parts=(
        Part(
            name="V'(z) = phi(z) (e^eps - e^(mu z - mu^2/2))",
            variables=(*_GDP_BOX, Variable("z", -(10**6), 10**6)),
            goal=Condition(
                "(exp(eps)*exp(-z**2/2) - exp(-(z - mu)**2/2))/sqrt(2*pi) "
                "- exp(-z**2/2)/sqrt(2*pi)*(exp(eps) - exp(mu*z - mu**2/2))"
            ),
            method="identity",
            note=(
                "V(z) = 1 − e^ε Φ(−z) − Φ(z − μ): V'(z) = e^ε φ(z) − φ(z − μ) (the first term); "
                "φ(z − μ) = φ(z)e^{μz − μ²/2}."
            ),
        ),
        Part(
            name="V(z*) = delta_mu(eps) at z* = eps/mu + mu/2",
            variables=_GDP_BOX,
            goal=Condition(f"{GDP_CONJUGATE.format(z='(eps/mu + mu/2)')} - ({GDP_DELTA})"),
            method="identity",
            note=(
                "Φ(−z*) = erfc(z*/√2)/2 and Φ(z* − μ) = erfc(−(z* − μ)/√2)/2; "
                "1 − Φ(ε/μ − μ/2) = Φ(−ε/μ + μ/2)."
            ),
        ),
    ),
)


CERTIFICATIONS = (
    BS16_PROPOSITION_1_4,
    BS16_PROPOSITION_1_6,
    BW18_THEOREM_8,
    DISCRETE_GAUSSIAN_NOT_GDP,
    DRS22_COROLLARY_2_13,
    DRS22_PROPOSITION_2_12,
)

__all__ = [
    "BS16_PROPOSITION_1_4",
    "BS16_PROPOSITION_1_6",
    "BW18_THEOREM_8",
    "CERTIFICATIONS",
    "DISCRETE_GAUSSIAN_NOT_GDP",
    "DRS22_COROLLARY_2_13",
    "DRS22_PROPOSITION_2_12",
    "GDP_CONJUGATE",
    "GDP_DELTA",
    "GDP_DELTA_SLOPE",
    "RR_RENYI_TIMES_ORDER_MINUS_1",
    "theta_upper",
]
