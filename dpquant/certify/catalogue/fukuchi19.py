"""Certified claims of fukuchi19 (Fukuchi, Yu, Haishima, Sakuma, *Locally Differentially Private
Minimum Finding*, arXiv:1905.11067).

Verified claims proven on their domain: Theorem 3 (Eq. 76's arithmetic, given the quoted
Theorem 7), Lemma 2 (Eqs. 15–16, given Hoeffding's inequality), Eqs. 45–46, the unbiasedness of
Φ′ (Sec. 4). Refuted claims with their counterexamples certified: Theorems 4 and 5 (Eqs. 8, 10),
Lemma 1 (Eq. 14), Example 1 (the printed max), Example 2's remark (Gamma(2, 1) truncated to
[0, 1] is not 1-fat) and Sec. 6.1's f(u) <= 2/u² (false for every u in (0, 10^6]). The
counterexamples' exact laws of Algorithm 2 are written out by
:mod:`dpquant.certify.catalogue.fukuchi19_laws`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from dpquant.certify.catalogue import fukuchi19_laws as laws
from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

# ----------------------------------------------------------------------------- Theorem 3

THEOREM_3_DELTA = "(16*eps**2*N)**(-1/(2*alpha))/2"
"""δ = (16ε²N)^{−1/(2α)}/2, the separation chosen in the proof of Theorem 3 (before Eq. 76)."""
THEOREM_3_TV = f"((2*{THEOREM_3_DELTA})**alpha)"
"""TV(F, F′) = (2δ)^α of the constructions (Eqs. 75, 80)."""
THEOREM_7_BOUND = f"{THEOREM_3_DELTA}*(1/2 - sqrt(N*eps**2*{THEOREM_3_TV}**2))"
"""Theorem 7 (Eq. 70, quoted from Duchi et al. 2016): δ(1/2 − sqrt(Nε²TV²))."""
THEOREM_3_BOUND = "(1/8)*(1/(16*eps**2*N))**(1/(2*alpha))"
"""Eq. 76: (1/8)(1/(16ε²N))^{1/(2α)}."""

THEOREM_3 = ClaimCertification(
    claim="fukuchi19/theorem-3",
    statement=(
        "Eq. 76: Theorem 7's bound δ(1/2 − sqrt(Nε²TV²)) at δ = (16ε²N)^{−1/(2α)}/2 and "
        "TV = (2δ)^α equals (1/8)(1/(16ε²N))^{1/(2α)}, so every ε-LDP mechanism has "
        "Err >= (1/8)(1/(16ε²N))^{1/(2α)} under F or F′."
    ),
    domain=(
        "every α > 0, ε ∈ (0, 22/35] and N >= 1 with 16ε²N >= 1 (symbolic identity over positive "
        "reals), given Theorem 7 (Duchi et al. 2016, cited) and TV(F, F′) = (2δ)^α of the "
        "constructions (Eqs. 73–75, 79–80; human step)"
    ),
    parts=(
        Part(
            name="Theorem 7's bound at the chosen delta is Eq. 76",
            variables=(
                Variable("alpha", Fraction(1, 10**6), 10**6),
                Variable("eps", Fraction(1, 10**6), Fraction(22, 35)),
                Variable("N", 1, 10**12, integer=True),
            ),
            goal=Condition(f"{THEOREM_7_BOUND} - {THEOREM_3_BOUND}", ">="),
            method="identity",
            note=(
                "Human steps: the constructions F, F′ (α < 1: F′ the shift of F by 2δ; α >= 1: "
                "F′ = F − (2δ)^α on [−1 + 2δ, 0] with an atom at 0) have minima 2δ apart and "
                "TV = (2δ)^α (f − f′ > 0 exactly on [−1, −1 + 2δ), of mass (2δ)^α); 16ε²N >= 1 "
                "makes 2δ <= 1, so both live in [−1, 1]; Theorem 7 then gives Err >= this "
                "expression. The identity holds for all positive α, ε, N (the box is nominal)."
            ),
        ),
    ),
)

# ----------------------------------------------------------------------------- Lemma 2

LEMMA_2_RATE = "(1 - w)**2/(4*(1 + w))"
"""Lemma 2's exponent per N(F̃(τ) − γ)²: (e^ε − 1)²/(4(e^ε + 1)e^ε) at w = e^{−ε}."""
HOEFFDING_RATE = "2*(1 - w)**2/(1 + w)**2"
"""Hoeffding's exponent per N(F̃(τ) − γ)²: 2/c², c = (e^ε + 1)/(e^ε − 1), at w = e^{−ε}."""

LEMMA_2 = ClaimCertification(
    claim="fukuchi19/lemma-2",
    statement=(
        "Eqs. 15–16: P{Φ′ > γ} (γ > F̃(τ)) and P{Φ′ < γ} (γ < F̃(τ)) are at most "
        "exp(−(e^ε − 1)²(F̃(τ) − γ)²N/(4(e^ε + 1)e^ε)), because Hoeffding's bound "
        "exp(−2N(F̃(τ) − γ)²/c²) is at most that: 2/c² >= (e^ε − 1)²/(4(e^ε + 1)e^ε)."
    ),
    domain=(
        "every N >= 1, ε > 0 (w = e^{−ε} ∈ [0, 1]), τ and γ ≠ F̃(τ), both events (and '>=', '<='), "
        "given Hoeffding's inequality (cited) and E Φ′ = F̃(τ) (human steps)"
    ),
    parts=(
        Part(
            name="Hoeffding's exponent exceeds Lemma 2's, per (1 - w)^2",
            variables=(Variable("w", 0, 1),),
            goal=Condition("2/(1 + w)**2 - 1/(4*(1 + w))", ">"),
            note=(
                "Φ′ = Σ_i (c·z′_i/(2N) + 1/(2N)) with independent z′_i ∈ {−1, 1}: N terms of range "
                "c/N each, mean F̃(τ) (Sec. 4's unbiasedness, certified). Hoeffding: "
                "P{Φ′ − F̃ >= t} and P{Φ′ − F̃ <= −t} are <= exp(−2Nt²/c²), t = |F̃(τ) − γ|. With "
                "w = e^{−ε}: 2/c² = 2(1 − w)²/(1 + w)² and Lemma 2's rate is (1 − w)²/(4(1 + w)); "
                "dividing by (1 − w)² > 0 (ε > 0) leaves this goal, so exp(−2Nt²/c²) <= Lemma 2's "
                "bound."
            ),
        ),
    ),
)

# ----------------------------------------------------------------------------- Eqs. 45–46

EQ_45_BETA_RATIO = (
    "(gamma(k + 1/alpha)*gamma(N - k + 1)/gamma(N + 1 + 1/alpha))"
    "/(gamma(k)*gamma(N - k + 1)/gamma(N + 1))"
)
"""B(k + 1/α, N − k + 1)/B(k, N − k + 1), with B(x, y) = Γ(x)Γ(y)/Γ(x + y)."""
EQ_46_GAMMA_FORM = "gamma(k + 1/alpha)*gamma(N + 1)/(gamma(N + 1 + 1/alpha)*gamma(k))"
"""Γ(k + 1/α)Γ(N + 1)/(Γ(N + 1 + 1/α)Γ(k)) (Eq. 46)."""
EQ_46_RISING = "(gamma(k + 1/alpha)/gamma(k))/(gamma(N + 1 + 1/alpha)/gamma(N + 1))"
"""(k)^{(1/α)↑}/(N + 1)^{(1/α)↑}, (x)^{a↑} = Γ(x + a)/Γ(x) (Theorem 5's notation)."""

_EQ_45_VARIABLES = (
    Variable("alpha", Fraction(1, 10**6), 10**6),
    Variable("k", 1, 10**12, integer=True),
    Variable("N", 1, 10**12, integer=True),
)

EQ_45_46 = ClaimCertification(
    claim="fukuchi19/eq-45-46",
    statement=(
        "E[U_(k)^{1/α}] = B(k + 1/α, N − k + 1)/B(k, N − k + 1) = Γ(k + 1/α)Γ(N + 1)/"
        "(Γ(N + 1 + 1/α)Γ(k)) = (k)^{(1/α)↑}/(N + 1)^{(1/α)↑} for U_(k) ~ Beta(k, N − k + 1)."
    ),
    domain=(
        "every α > 0 and integers 1 <= k <= N (symbolic identities over positive reals), the first "
        "equality being the Beta integral ∫u^{1/α}·u^{k−1}(1 − u)^{N−k}du = B(k + 1/α, N − k + 1) "
        "and B(x, y) = Γ(x)Γ(y)/Γ(x + y) (human steps)"
    ),
    parts=(
        Part(
            name="the Beta ratio is the Gamma form (Eq. 46)",
            variables=_EQ_45_VARIABLES,
            goal=Condition(f"{EQ_45_BETA_RATIO} - {EQ_46_GAMMA_FORM}", ">="),
            method="identity",
            note=(
                "E[U^{1/α}] = ∫u^{1/α}·u^{k−1}(1 − u)^{N−k}du/B(k, N − k + 1) = B(k + 1/α, N − k + 1)"
                "/B(k, N − k + 1) by the definition of B (Eq. 45); B = ΓΓ/Γ gives this expression."
            ),
        ),
        Part(
            name="the Gamma form is the ratio of rising factorials",
            variables=_EQ_45_VARIABLES,
            goal=Condition(f"{EQ_46_GAMMA_FORM} - {EQ_46_RISING}", ">="),
            method="identity",
        ),
    ),
)

# ----------------------------------------------------------------------------- unbiasedness

PHI_PRIME_MEAN = (
    "((a + 1)/(a - 1))/(2*N)*(k*(2*a/(1 + a) - 1) + (N - k)*(1 - 2*a/(1 + a))) + 1/2"
)
"""E Φ′ = (c/(2N))·Σ E z′_i + 1/2: E z′_i = 2p − 1 for the k users with x_i <= τ (true +1) and
1 − 2p for the others, p = a/(1 + a), c = (a + 1)/(a − 1), a = e^u."""

UNBIASEDNESS = ClaimCertification(
    claim="fukuchi19/unbiasedness",
    statement="E Φ′(z′) = F̃(τ) = k/N, Φ′ = (c/(2N))Σz′_i + 1/2, c = (e^u + 1)/(e^u − 1).",
    domain=(
        "every u > 0 (a = e^u > 1), N >= 1 and 0 <= k <= N (symbolic identity), by linearity of "
        "expectation (human step)"
    ),
    parts=(
        Part(
            name="the mean of Phi' is k/N",
            variables=(
                Variable("a", 1, 10**12),
                Variable("N", 1, 10**12, integer=True),
                Variable("k", 0, 10**12, integer=True),
            ),
            goal=Condition(f"{PHI_PRIME_MEAN} - k/N", ">="),
            method="identity",
            note=(
                "Randomized response keeps each sign b_i = sign(τ − x_i) with probability "
                "p = e^u/(1 + e^u), so E z′_i = b_i(2p − 1); k of the N signs are +1 (F̃(τ) = k/N)."
            ),
        ),
    ),
)

# ----------------------------------------------------------------------------- Sec. 6.1

SERIES_TERMS = 10
"""The Taylor polynomial of g(u)/u³ used near u = 0 runs to u^{SERIES_TERMS − 3}."""


def series_coefficient(n: int) -> Fraction:
    """The n-th Taylor coefficient of g(u) = u²(e^u + e^{2u}) − 2e^{2u} + 4e^u − 2, read off the
    four exponential series (0 for n <= 2)."""
    if n < 2:
        return Fraction(0)
    return (Fraction(1 + 2 ** (n - 2), math.factorial(n - 2))
            - Fraction(2 ** (n + 1) - 4, math.factorial(n)))


def _series_lower_bound(terms: int) -> str:
    """Σ_{n=3}^{M} g_n u^{n−3} − 2^{M+2}u^{M−2}e^{2u}/(M + 1)!, M = ``terms``: a lower bound of
    g(u)/u³ for u >= 0 (every g_n >= −2^{n+1}/n!, and Σ_{n>M} (2u)^n/n! <= (2u)^{M+1}e^{2u}/(M+1)!)."""
    parts = [f"({series_coefficient(n)})*u**{n - 3}" for n in range(3, terms + 1)]
    tail = f"{2 ** (terms + 2)}*u**{terms - 2}*exp(2*u)/{math.factorial(terms + 1)}"
    return " + ".join(parts) + f" - {tail}"


SECTION_6_1_F = "(1 + exp(-u))/(1 - exp(-u))**2"
"""f(u) = e^u(1 + e^u)/(e^u − 1)² = (1 + e^{−u})/(1 − e^{−u})², u = ε/L (Sec. 6.1; the second
form, numerator and denominator divided by e^{2u}, keeps the balls tight for large u)."""

SECTION_6_1_BOUND = ClaimCertification(
    claim="fukuchi19/section-6.1-bound",
    statement=(
        "Refuted: f(u)^{1/(2α)} <= (2L²/ε²)^{1/(2α)} (u = ε/L) fails for every u ∈ (0, 10^6], "
        "however small ε is: u²f(u) > 2 there."
    ),
    domain=(
        "every u = ε/L ∈ (0, 10^6] and every α > 0 (the paper: ε sufficiently small; x ↦ x^{1/(2α)} "
        "is increasing, so the bound is f(u) <= 2/u²)"
    ),
    parts=(
        Part(
            name="near 0: g(u)/u^3 > 0 by its Taylor polynomial and a tail bound",
            variables=(Variable("u", 0, 1),),
            goal=Condition(_series_lower_bound(SERIES_TERMS), ">"),
            note=(
                "u²f(u) − 2 = g(u)/(e^u − 1)² with g(u) = u²(e^u + e^{2u}) − 2e^{2u} + 4e^u − 2 "
                "= Σ_{n>=3} g_n u^n (g_0 = g_1 = g_2 = 0); the goal is a lower bound of g(u)/u³, "
                "so g(u) > 0 and f(u) > 2/u² on (0, 1]."
            ),
        ),
        Part(
            name="away from 0: u^2 f(u) - 2 > 0",
            variables=(Variable("u", 1, 10**6, scale="log"),),
            goal=Condition(f"u**2*{SECTION_6_1_F} - 2", ">"),
        ),
    ),
)

# ----------------------------------------------------------------------------- Example 1

EXAMPLE_1_C_PRINTED = "Max(1, 1/(alpha*gamma(alpha)*gamma(beta)/gamma(alpha + beta)))"
"""The printed constant of Example 1 at x_max − x_min = 1: max{1, (αB(α, β))^{−1}}."""
EXAMPLE_1_CDF = "(1 - (1 - y)**beta)"
"""I_y(1, β) = 1 − (1 − y)^β, the Beta(1, β) CDF."""

EXAMPLE_1 = ClaimCertification(
    claim="fukuchi19/example-1",
    statement=(
        "Refuted: Beta(1, 2) on [0, 1] does not satisfy Definition 1 with the printed "
        "C = max{1, (αB(α, β))^{−1}} = 2 and x̄ = x_max: F(1/2) = 3/4 < C·(1/2)^1 = 1."
    ),
    domain="the point α = 1, β = 2, x_min = 0, x_max = x̄ = 1, x = 1/2 (inside the paper's domain)",
    parts=(
        Part(
            name="F(x) < C (x - x_min)^alpha at x = 1/2",
            variables=(Variable("alpha", 1, 1), Variable("beta", 2, 2), Variable("y", 0, 1)),
            goal=Condition(f"{EXAMPLE_1_C_PRINTED}*y**alpha - {EXAMPLE_1_CDF}", ">"),
            hypotheses=(Condition("y", ">"), Condition("1 - y", ">")),
            method="points",
            points=({"alpha": 1, "beta": 2, "y": Fraction(1, 2)},),
            note=(
                "x_min = 0, x_max = 1, so F = I_y(α, β) and x − x_min = y; at α = 1 the CDF is "
                "1 − (1 − y)^β. The hypotheses are x_min < x < x̄."
            ),
        ),
    ),
)

# ----------------------------------------------------------------------------- Example 2's remark

GAMMA_2_MASS = "(1 - exp(-x)*(1 + x))"
"""P(X <= x) for X ~ Gamma(2, 1); divided by its value 1 − 2/e at x = 1 it is the CDF F of the
law truncated to [0, 1]."""
REMARK_TERMS = 8


def remark_coefficient(n: int) -> Fraction:
    """The n-th Taylor coefficient of e^{−x}(1 + x): (−1)^n(1 − n)/n!."""
    return Fraction((-1) ** n * (1 - n), math.factorial(n))


def _remark_lower_bound(terms: int) -> str:
    """Σ_{n=3}^{M} c_n x^{n−3} − x^{M−2}e^x/M!, M = ``terms``: a lower bound of
    (x²/2 − 1 + e^{−x}(1 + x))/x³ for x >= 0 (|c_n| = (n − 1)/n! <= 1/(n − 1)!, so the tail
    Σ_{n>M} |c_n|x^n <= x·Σ_{m>=M} x^m/m! <= x^{M+1}e^x/M!)."""
    parts = [f"({remark_coefficient(n)})*x**{n - 3}" for n in range(3, terms + 1)]
    return " + ".join(parts) + f" - x**{terms - 2}*exp(x)/{math.factorial(terms)}"


EXAMPLE_2_REMARK = ClaimCertification(
    claim="fukuchi19/example-2-remark",
    statement=(
        "Refuted: Gamma(2, 1) truncated to [0, 1] (x_min = 0) is not 1-fat: F(x) < x²/(2(1 − 2/e)) "
        "on (0, 1], so F(x)/x → 0 and no C > 0 and x̄ satisfy Definition 1 with α = 1."
    ),
    domain=(
        "the law Gamma(2, 1) truncated to [0, 1], every x ∈ (0, 1]: F(x)·2(1 − 2/e) < x²; hence for "
        "every C > 0 and x̄ ∈ (0, 1] the point x = min(x̄, 2C(1 − 2/e))/2 has F(x) < Cx (human "
        "step; the paper: any truncated distribution)"
    ),
    parts=(
        Part(
            name="near 0: (x^2/2 - P(X <= x))/x^3 > 0 by its Taylor polynomial and a tail bound",
            variables=(Variable("x", 0, Fraction(1, 2)),),
            goal=Condition(_remark_lower_bound(REMARK_TERMS), ">"),
            note=(
                "x²/2 − (1 − e^{−x}(1 + x)) = Σ_{n>=3} c_n x^n with c_n the coefficients of "
                "e^{−x}(1 + x) (c_0 = 1, c_1 = 0, c_2 = −1/2); the goal bounds its quotient by x³ "
                "from below, so P(X <= x) < x²/2 on (0, 1/2]."
            ),
        ),
        Part(
            name="away from 0: x^2/2 - P(X <= x) > 0",
            variables=(Variable("x", Fraction(1, 2), 1),),
            goal=Condition(f"x**2/2 - {GAMMA_2_MASS}", ">"),
            note=(
                "F(x) = P(X <= x)/(1 − 2/e), so F(x) < x²/(2(1 − 2/e)); at x = min(x̄, 2C(1 − 2/e))/2 "
                "<= C(1 − 2/e) this gives F(x) < Cx/2 < Cx with x_min = 0 < x < x̄."
            ),
        ),
    ),
)

# ------------------------------------------------------- Theorems 4–5, Lemma 1 (exact laws)

LEVELS = 8
CE_DATA = (Fraction(49, 50), Fraction(1))
CE_X_MIN, CE_WIDTH, CE_ALPHA = Fraction(49, 50), Fraction(1, 50), Fraction(1, 2)
CE_POINT: dict[str, Fraction | int | str] = {"eps": 1, "gam": Fraction(3033, 10000)}
"""The reference counterexample: N = 2, L = 8, ε = 1, γ = 0.3033, F the CDF of
x_min + Δ·Beta(1/2, 1) with x_min = 0.98, Δ = 0.02."""
_A = f"exp(eps/{LEVELS})"
KEEP, FLIP = f"(1/(1 + exp(-eps/{LEVELS})))", f"(1/(1 + {_A}))"
THRESHOLD = laws.threshold_argument(2, "gam", f"(({_A} - 1)/({_A} + 1))")
CE_THRESHOLD = laws.threshold_at(THRESHOLD, {k: Fraction(v) for k, v in CE_POINT.items()})
C_FAT = f"(({laws.q(CE_WIDTH)})**(-{laws.q(CE_ALPHA)}))"
"""C = Δ^{−α}: F(x) = ((x − x_min)/Δ)^α = C(x − x_min)^α on [x_min, x_min + Δ]."""
E_GAMMA = f"exp(-({_A} - 1)**2*gam**2*2/(4*({_A} + 1)*{_A}))"
"""e_γ = exp(−(e^u − 1)²γ²N/(4(e^u + 1)e^u)) at N = 2, u = ε/8."""
THEOREM_4_PRINTED = f"(2*(2*gam/{C_FAT})**(1/{laws.q(CE_ALPHA)}) + {E_GAMMA} + 2**(-{LEVELS}))"
"""Eq. 8: 2(2γ/C)^{1/α} + e_γ + 2^{−L}."""
_J = "ceiling(2*gam*2)"
THEOREM_5_PRINTED = (
    f"(2*(1/{C_FAT})**(1/{laws.q(CE_ALPHA)})*(gamma({_J} + 2)/gamma({_J}))/(gamma(3 + 2)/gamma(3))"
    f" + {E_GAMMA} + 2**(-{LEVELS}))"
)
"""Eq. 10 at N = 2, 1/α = 2: 2(1/C)^{1/α}(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑} + e_γ + 2^{−L}."""
THEOREM_4_ERROR = laws.fixed_data_error(list(CE_DATA), LEVELS, CE_THRESHOLD, KEEP, FLIP, CE_X_MIN)
"""E|x̃ − x_min| of Algorithm 2 on the fixed data (0.98, 1), exactly (the 2^8-leaf tree)."""
THEOREM_5_ERROR = laws.iid_error(
    2, LEVELS, CE_THRESHOLD, KEEP, FLIP,
    lambda t: f"sqrt(({laws.q(t)} - {laws.q(CE_X_MIN)})/{laws.q(CE_WIDTH)})",
    (CE_X_MIN, CE_X_MIN + CE_WIDTH), CE_X_MIN,
)
"""E|x̃ − x_min| of Algorithm 2 on N = 2 i.i.d. values of x_min + Δ·Beta(1/2, 1), exactly."""
_CE_HYPOTHESES = (
    Condition("eps", ">"),
    Condition("gam", ">"),
    Condition(f"{C_FAT}*(1 - {laws.q(CE_X_MIN)})**{laws.q(CE_ALPHA)} - 2*gam", ">"),
    *(Condition(h, r) for h, r in laws.threshold_hypotheses(THRESHOLD, CE_THRESHOLD)),
)
_CE_VARIABLES = (Variable("eps", 0, 8), Variable("gam", 0, 1))
_CE_NOTE = (
    "F(x) = ((x − x_min)/Δ)^{1/2} on [0.98, 1]: Definition 1 holds with equality for C = Δ^{−1/2} "
    "and x̄ = x_max = 1, so Eq. 7 (hypothesis 2) is the paper's condition. Hypotheses 3–4 state "
    f"that the threshold m* = ⌈N(1 + (2γ − 1)tanh(u/2))/2⌉ is {CE_THRESHOLD} at the point, which "
    "the written-out law of Algorithm 2 uses (go left iff at least m* of the N reports are +1)."
)

THEOREM_4 = ClaimCertification(
    claim="fukuchi19/theorem-4",
    statement=(
        "Refuted: fixed data (0.98, 1) from F = CDF of 0.98 + 0.02·Beta(1/2, 1) (1/2-fat, "
        "C = 50^{1/2}, x̄ = 1), N = 2, L = 8, ε = 1, γ = 0.3033 meet Eq. 7, yet Algorithm 2's "
        "Err = 1.41393 exceeds Eq. 8's bound 1.01829."
    ),
    domain=(
        "the point N = 2, data (49/50, 1), α = 1/2, C = 50^{1/2}, x̄ = 1, L = 8, ε = 1, "
        "γ = 3033/10000 (inside the paper's domain: Eq. 7 holds)"
    ),
    parts=(
        Part(
            name="Err exceeds Eq. 8 at the reference counterexample",
            variables=_CE_VARIABLES,
            goal=Condition(f"{THEOREM_4_ERROR} - {THEOREM_4_PRINTED}", ">"),
            hypotheses=_CE_HYPOTHESES,
            method="points",
            points=(CE_POINT,),
            note=_CE_NOTE + " Fixed data: F(x_(i)) = (i − 1)/(N − 1) (Sec. 3) gives (0.98, 1).",
        ),
    ),
)

THEOREM_5 = ClaimCertification(
    claim="fukuchi19/theorem-5",
    statement=(
        "Refuted: N = 2 i.i.d. values of 0.98 + 0.02·Beta(1/2, 1) (1/2-fat, C = 50^{1/2}, x̄ = 1), "
        "L = 8, ε = 1, γ = 0.3033 meet Eq. 9, yet Algorithm 2's Err = 1.41393 exceeds Eq. 10's "
        "bound 1.02357."
    ),
    domain=(
        "the point N = 2 i.i.d. from F = CDF of 49/50 + Beta(1/2, 1)/50 (α = 1/2, C = 50^{1/2}, "
        "x̄ = 1), L = 8, ε = 1, γ = 3033/10000 (inside the paper's domain: Eq. 9 holds)"
    ),
    parts=(
        Part(
            name="Err exceeds Eq. 10 at the reference counterexample (i.i.d. data)",
            variables=_CE_VARIABLES,
            goal=Condition(f"{THEOREM_5_ERROR} - {THEOREM_5_PRINTED}", ">"),
            hypotheses=_CE_HYPOTHESES,
            method="points",
            points=(CE_POINT,),
            note=_CE_NOTE + (
                " The law of the data enters through F at the midpoints in [0.98, 1) "
                "(63/64 and 127/128): a multinomial mixture of the fixed-count trees."
            ),
        ),
    ),
)


def _lemma_1() -> ClaimCertification:
    """Lemma 1's smallest counterexample: N = 1, x = 1, L = 2, e^u = 3, γ = 1/2, δ = 1/16."""
    levels, data, target = 2, [Fraction(1)], Fraction(1)  # q = F̃*(γ) = x_(⌈γN⌉) = 1
    point: dict[str, Fraction | int | str] = {"a": 3, "gam": Fraction(1, 2), "delta": Fraction(1, 16)}
    argument = laws.threshold_argument(1, "gam", "((a - 1)/(a + 1))")
    m = laws.threshold_at(argument, {k: Fraction(v) for k, v in point.items()})
    rows = {k: laws.plus_at_least(1, k, m, "(a/(1 + a))", "(1/(1 + a))") for k in (0, 1)}

    def left(tau: Fraction) -> str:
        return rows[laws.count_at_or_below(data, tau)]

    error = laws.tree_expectation(levels, left, target, data)
    paths = laws.path_terms(levels, left)

    def mistake(tau: Fraction, pl: str) -> str:
        return pl if tau < target else (f"(1 - {pl})" if tau > target else "0")

    conditional = " + ".join(
        f"{mass}*{laws.nested_max([mistake(t, pl) for t, pl, _ in rounds])}" for mass, rounds in paths
    )
    marginal_t = [
        "(" + " + ".join(
            mass for mass, rounds in paths
            if (rounds[t][0] < target) == (rounds[t][2] == "left") and rounds[t][0] != target
        ) + ")"
        for t in range(levels)
    ]
    marginal = laws.nested_max(marginal_t)  # every path's rounds are all far (hypotheses)
    distances = sorted({abs(tau - target) for _, tau in laws.tree_nodes(levels)})
    hypotheses = (
        Condition("delta", ">"),
        Condition(f"{laws.q(distances[0])} - delta", ">"),  # every τ is far: |τ − q| > δ
        *(Condition(h, r) for h, r in laws.threshold_hypotheses(argument, m)),
    )
    variables = (Variable("a", 1, 100), Variable("gam", 0, 1), Variable("delta", 0, 2))
    note = (
        f"N = 1, x = 1, so q = F̃*(1/2) = 1; e^u = a = 3, p = 3/4; m* = {m} (hypotheses 3–4), so "
        "each round goes left (away from q: a mistake, every τ < q) with probability 1/(1 + a). "
        "Hypothesis 2: every midpoint is farther than δ from q, so every round counts in Eq. 14."
    )
    tail = f"2**(-{levels})"
    return ClaimCertification(
        claim="fukuchi19/lemma-1",
        statement=(
            "Refuted: N = 1, x = 1, L = 2, e^u = 3, γ = 1/2, δ = 1/16: E|x̃ − F̃*(γ)| = 5/8 exceeds "
            "Eq. 14's right-hand side 9/16, with P{M_t} read given the history (the proof's "
            "Eq. 36) or as the marginal probability of a mistake at round t."
        ),
        domain=(
            "the point N = 1, x = 1, L = 2, ε = 2 ln 3 (e^u = 3), γ = 1/2, δ = 1/16 (inside the "
            "paper's domain: any δ > 0)"
        ),
        parts=(
            Part(
                name="E|x - q| exceeds Eq. 14 (P{M_t} given the history)",
                variables=variables,
                goal=Condition(f"{error} - (delta + {conditional} + {tail})", ">"),
                hypotheses=hypotheses, method="points", points=(point,), note=note,
            ),
            Part(
                name="E|x - q| exceeds Eq. 14 (P{M_t} marginal)",
                variables=variables,
                goal=Condition(f"{error} - (delta + {marginal} + {tail})", ">"),
                hypotheses=hypotheses, method="points", points=(point,), note=note,
            ),
        ),
    )


LEMMA_1 = _lemma_1()

CERTIFICATIONS = (
    THEOREM_3, THEOREM_4, THEOREM_5, LEMMA_1, LEMMA_2, EXAMPLE_1, EXAMPLE_2_REMARK, EQ_45_46,
    SECTION_6_1_BOUND, UNBIASEDNESS,
)
