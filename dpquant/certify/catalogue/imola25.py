"""Certified claims of imola25 (Imola et al., SliceQuantiles).

Lemma 3.1 (2) is refuted by a certified counterexample (m = 1); Lemma 4.1's add case, as App. B.1
proves it on the printed Good set, by a certified point (Σ d_sub = 2); Lemma 4.3 is certified by
the identity its proof (App. B.3) rests on.
"""

from __future__ import annotations

from fractions import Fraction

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

# ----------------------------------------------------------------------------- Lemma 4.1

L41_N, L41_H = 5, 1
"""The counterexample's data size |X| (X = (1, …, 5)) and slice half-width h."""
L41_POINT: dict[str, Fraction | int | str] = {"s": 3, "r1": 2, "r2": 4}
"""X' = X ∪ {5/2} (the new point has rank s = 3 in X') and r̃ = (2, 4) ∈ Good_{2,5,1} (printed)."""


def l41_step(v: str) -> str:
    """1[v > 0] for an integer v: its clamp to [0, 1], (|v| − |v − 1| + 1)/2 (Abs only: sympy
    reads nested Min and Max slowly)."""
    return f"(Abs({v}) - Abs({v} - 1) + 1)/2"


def _positive_part(y: str) -> str:
    """max(0, y) = (y + |y|)/2."""
    return f"(({y}) + Abs({y}))/2"


def l41_shifted(r: str) -> str:
    """App. B.1's F⁺ coordinate r + 1[r − h > s] (h = 1)."""
    return f"({r} + {l41_step(f'{r} - {L41_H} - s')})"


def l41_x_prime(k: str) -> str:
    """x'_(k) of X' = (1, …, n) ∪ {s − 1/2} (sorted, 1-indexed): k below s, s − 1/2 at s, k − 1
    above (k an integer expression)."""
    at_s = _positive_part(f"1 - Abs(({k}) - s)")
    return f"(({k}) - {l41_step(f'({k}) - s')} - {at_s}/2)"


def _equal(a: str, b: str) -> str:
    """1[a = b] for a, b multiples of 1/2 (distinct ones differ by at least 1/2)."""
    return _positive_part(f"1 - 2*Abs(({a}) - ({b}))")


def l41_dsub(r: str) -> str:
    """d_sub(S_i, S'_i) = 3 − |S_i ∩ S'_i|: S_i = (x_(r−1), x_(r), x_(r+1)) of X = (1, …, n)
    (x_(k) = k) at r, S'_i the same ranks of X' at F⁺'s coordinate."""
    shifted = l41_shifted(r)
    mine = [f"{r} - 1", r, f"{r} + 1"]
    theirs = [l41_x_prime(f"{shifted} - 1"), l41_x_prime(shifted), l41_x_prime(f"{shifted} + 1")]
    common = " + ".join(_equal(a, b) for a in mine for b in theirs)
    return f"(3 - ({common}))"


def _good(r1: str, r2: str, n: int) -> tuple[Condition, ...]:
    """(r1, r2) ∈ Good_{2,n,1} as printed (gap 2h), slices in range: r1 − h ≥ 1, r2 + h ≤ n."""
    return (
        Condition(f"{r1} - {L41_H} - 1", ">="),
        Condition(f"{n} - {r2} - {L41_H}", ">="),
        Condition(f"{r2} - {r1} - {2 * L41_H}", ">="),
    )


LEMMA_4_1 = ClaimCertification(
    claim="imola25/lemma-4.1",
    statement=(
        "Refutation of Lemma 4.1's add case as App. B.1 proves it (F⁺(r̃) = r̃ + e, "
        "e_i = 1[r̃_i − h > s]) on the printed Good set (gap 2h): m = 2, h = 1, X = (1, …, 5), "
        "X' = X ∪ {5/2} (s = 3), r̃ = (2, 4) ∈ Good_{2,5,1}. F⁺(r̃) = (2, 4) ∈ Good_{2,6,1}, "
        "and the slices (1, 2, 3), (3, 4, 5) of X against (1, 2, 5/2), (5/2, 3, 4) of X' have "
        "Σ d_sub = 2 > 1: the two slices share x_(3) and the new point enters both."
    ),
    domain=(
        "the point m = 2, h = 1, X = (1, …, 5), X' = X ∪ {5/2}, r̃ = (2, 4), with App. B.1's "
        "map F⁺ on the printed Good set (gap 2h, slices in range). Not refuted: the existence of "
        "some injective F⁺ of the lemma's form (at this r̃, j = 2 gives Σ d_sub = 1; an "
        "exhaustive matching search, m ≤ 3, h ≤ 2, n ≤ 13, found one in every case, not "
        "certified); with gap 2h + 1 (Good*) App. B.1's maps satisfy the lemma (tested)"
    ),
    parts=(
        Part(
            name="App. B.1's F+ at r = (2, 4), h = 1, X' = X + {5/2}: sum of d_sub is 2 > 1",
            variables=(
                Variable("s", 1, L41_N + 1, integer=True),
                Variable("r1", 1, L41_N, integer=True),
                Variable("r2", 1, L41_N, integer=True),
            ),
            goal=Condition(f"{l41_dsub('r1')} + {l41_dsub('r2')} - 1", ">"),
            hypotheses=(
                *_good("r1", "r2", L41_N),
                *_good(l41_shifted("r1"), l41_shifted("r2"), L41_N + 1),
            ),
            method="points",
            points=(L41_POINT,),
            note=(
                "X = (1, …, 5) so x_(k) = k; X' adds s − 1/2 at rank s. The first three "
                "hypotheses put r̃ in Good_{2,5,1} as printed (gap 2h = 2), the last three its "
                "image F⁺(r̃)_i = r̃_i + 1[r̃_i − h > s] in Good_{2,6,1}. Data are distinct, so "
                "d_sub = 3 − Σ_{a ∈ S_i, b ∈ S'_i} 1[a = b] (the multiset intersection), each "
                "indicator exact on multiples of 1/2; the goal is Σ_i d_sub − 1 > 0, the "
                "violation of the lemma's 'Σ d_sub ≤ 1'."
            ),
        ),
    ),
)

CERTIFICATIONS = (LEMMA_3_1, LEMMA_4_1, LEMMA_4_3)
