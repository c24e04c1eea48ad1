"""Certified sparse vector facts of the classic benchmark (ledger group ``classic``): Lyu, Su and
Li's SVT4, SVT5 and SVT6 (VLDB 2017, Algs. 4-6) as StatDP and DP-Sniper run them, and SVT1's
odd-answer patterns (StatDP, Ding et al., CCS 2018, Sec. 5).

Each answer-list probability is the exact closed form of
:func:`dpquant.certify.catalogue.classic_laws.list_probability` (an integral over the threshold
noise, written out piece by piece), over the variable ``eps``.

The certifications (:data:`SVT4`, :data:`SVT5`, :data:`SVT6`, :data:`SVT1_ODD_LAST`) are built
on first use (PEP 562): their hundreds of exact laws are not computed when the module is imported
(by every test worker that collects a test of it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction

from dpquant.certify.catalogue.classic_laws import (
    LAPLACE_CDF_LEMMA,
    LEMMA_NOTE,
    list_probability,
)
from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

ONES = (1,) * 10
STATDP_PAIRS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    (ONES, (2,) + (1,) * 9),
    (ONES, (0,) + (1,) * 9),
    (ONES, (2,) + (0,) * 9),
    (ONES, (0,) + (2,) * 9),
    (ONES, (2,) * 5 + (0,) * 5),
    (ONES, (2,) * 10),
    (ONES, (0,) * 10),
    ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5),
    (ONES, (1,) * 9 + (2,)),
    (ONES, (1,) * 9 + (0,)),
    (ONES, (0,) * 9 + (2,)),
    (ONES, (2,) * 9 + (0,)),
)
"""The auditor's twelve query-answer pairs on ten answers (StatDP's patterns, the odd answer
first and last; :meth:`dpquant.audit.model.relations.QueryAnswers.candidates`)."""

CUTOFF_ONE_LISTS = tuple("F" * j + "T" for j in range(10)) + ("F" * 10,)
"""Every answer list of an SVT stopping after one ⊤ on ten answers (⊥ = F, ⊤ = T)."""

HALF = (ONES, (2,) * 5 + (0,) * 5)
ODD_LAST = (ONES, (2,) * 9 + (0,))
ODD_FIRST = (ONES, (0,) + (2,) * 9)


def log_ratio(pair: tuple[tuple[int, ...], tuple[int, ...]], pattern: str, threshold: int,
              rho: Fraction | int, nu: Fraction | int) -> str:
    """ln P(pattern | first) − ln P(pattern | second), as text over ``eps``."""
    a, b = (list_probability(q, pattern, threshold, rho, nu) for q in pair)
    return f"log({a}/{b})"


def bounded_losses(label: str, pair: tuple[tuple[int, ...], tuple[int, ...]], bound: str,
                   svt: tuple[int, int, Fraction | int], point: Fraction) -> tuple[Part, ...]:
    """Two parts per answer list of a cutoff-one SVT: at ε = ``point`` its log-ratio L on
    ``pair`` satisfies bound − L > 0 and bound + L > 0 (|L| < bound; no square or Abs: a
    ball containing 0 raised to a power is NaN in Arb, and sympy reads Abs slowly)."""
    return tuple(
        Part(
            name=f"{label}, list {pattern}: log-ratio {side} {bound}",
            variables=(Variable("eps", point, point),),
            goal=Condition(f"{bound} {sign} {log_ratio(pair, pattern, *svt)}", ">"),
            method="points",
            points=({"eps": point},),
            precision=256,
        )
        for pattern in CUTOFF_ONE_LISTS
        for sign, side in (("-", "below"), ("+", "above minus"))
    )


_SVT4 = (1, 4, Fraction(4, 3))  # T, ε·scale of ρ, ε·scale of ν (Lyu et al., Alg. 4)
_SVT6 = (1, 2, 2)
_SVT1 = (1, 2, 4)  # c = 1
_WIDE_EPS = Variable("eps", Fraction(1, 1000), 20, scale="log")
_HALF_EPS = Variable("eps", Fraction(1, 2), Fraction(1, 2))


@functools.cache
def _svt4() -> ClaimCertification:
    return ClaimCertification(
        claim="classic/fact-SVT4",
        statement=(
            "SVT4 (c = 1, T = 1, ρ ~ Lap(4/ε), ν_i ~ Lap(4/(3ε))) on ten answers is not ε-DP: the "
            "list ⊥⁹⊤ has log-ratio above ε on [1]×10 against [2]×9 + [0]; at ε = 0.5 every list's "
            "exact log-ratio on the twelve StatDP pairs is at most the bound (1 + 6c)ε/4 = 0.875."
        ),
        domain=(
            "not ε-DP: every ε ∈ [1/1000, 20] (numerically the log-ratio is 1.748ε to 1.750ε there); the "
            "twelve pairs' losses below (1 + 6c)ε/4: the point ε = 1/2; the bound (1 + 6c)ε/4 "
            "itself for every pair is Lyu et al.'s analysis (cited, not certified)"
        ),
        parts=(
            Part(
                name="the list F^9 T: log-ratio above eps on ([1]x10, [2]x9+[0])",
                variables=(_WIDE_EPS,),
                goal=Condition(f"{log_ratio(ODD_LAST, 'F' * 9 + 'T', *_SVT4)} - eps", ">"),
                precision=256,
                note="Exact answer-list probabilities (classic_laws): no threshold or query noise "
                "approximated.",
            ),
            *(
                part
                for k, pair in enumerate(STATDP_PAIRS)
                for part in bounded_losses(f"eps = 1/2, pair {k + 1} of 12", pair, "7*eps/4", _SVT4,
                                           Fraction(1, 2))
            ),
        ),
    )

@functools.cache
def _svt5() -> ClaimCertification:
    return ClaimCertification(
        claim="classic/fact-SVT5",
        statement=(
            "SVT5 (ρ ~ Lap(2/ε), no query noise, T = 1) on the x shape [1]×5 + [0]×5 gives ⊤×5 ⊥×5 "
            "with probability P(−1 < ρ <= 0) = (1 − e^(−ε/2))/2 > 0, and on [0]×5 + [1]×5 never "
            "(⊤ at a 0 needs ρ <= −1, ⊥ at a 1 needs ρ > 0): no finite ε' holds."
        ),
        domain=(
            "every ε ∈ [1e-15, 1e15] (the implementation takes ε from 2e-300 on); the zero probability "
            "on the second input is the case analysis of the statement (human step)"
        ),
        parts=(
            Part(
                name="P(TTTTTFFFFF | [1]x5 + [0]x5) is positive",
                variables=(Variable("eps", Fraction(1, 10**15), 10**15, scale="log"),),
                goal=Condition(list_probability((1,) * 5 + (0,) * 5, "T" * 5 + "F" * 5, 1, 2, 0),
                               ">"),
                note="Given ρ the answers are deterministic: ⊤ iff q_i >= 1 + ρ.",
            ),
        ),
    )

@functools.cache
def _svt6() -> ClaimCertification:
    return ClaimCertification(
        claim="classic/fact-SVT6",
        statement=(
            "SVT6 (ρ, ν_i ~ Lap(2/ε), no cutoff, T = 1) on ten answers is not ε-DP: the list ⊥⁵⊤⁵ "
            "has log-ratio above ε on [1]×10 against [2]×5 + [0]×5; every list's loss is at most "
            "kε/2 (k = 10)."
        ),
        domain=(
            "not ε-DP: every ε ∈ [1/1000, 20] (numerically the log-ratio is 4.1ε to 5ε there); the bound kε/2: "
            "every ε > 0, every pair of ℓ∞ neighbours, given the factor-by-factor step (human)"
        ),
        parts=(
            Part(
                name="the list F^5 T^5: log-ratio above eps on ([1]x10, [2]x5+[0]x5)",
                variables=(_WIDE_EPS,),
                goal=Condition(f"{log_ratio(HALF, 'F' * 5 + 'T' * 5, *_SVT6)} - eps", ">"),
                precision=256,
            ),
            *(
                Part(name=p.name, variables=p.variables, goal=p.goal, method=p.method,
                     note=p.note + " For SVT6: given ρ, P(list) = Π_i g_i(ρ), k = 10 factors; "
                     + LEMMA_NOTE + " (b = 2/ε), so P(list) moves by at most e^(k/b) = e^(kε/2).")
                for p in LAPLACE_CDF_LEMMA
            ),
        ),
    )


_TENTH = Variable("eps", Fraction(1, 10), Fraction(1, 10))


@functools.cache
def _svt1_odd_last() -> ClaimCertification:
    return ClaimCertification(
        claim="classic/fact-SVT1-odd-answer-last",
        statement=(
            "SVT1 at ε = 0.1 (c = 1, T = 1, ρ ~ Lap(20), ν_i ~ Lap(40)): the largest log-ratio of one "
            "answer list against [1]×10 is in (0.098, 0.099) for [2]×9 + [0] (the odd answer last: "
            "the list ⊥⁹⊤) and in (0.039, 0.041) for [0] + [2]×9 (first: the list ⊥¹⁰)."
        ),
        domain="the point ε = 1/10, T = 1, all eleven answer lists of each pair",
        parts=(
            Part(
                name="odd answer last: the list F^9 T has log-ratio above 0.098",
                variables=(_TENTH,),
                goal=Condition(f"{log_ratio(ODD_LAST, 'F' * 9 + 'T', *_SVT1)} - 98/1000", ">"),
                method="points", points=({"eps": Fraction(1, 10)},), precision=256,
            ),
            *bounded_losses("odd answer last", ODD_LAST, "99/1000", _SVT1, Fraction(1, 10)),
            Part(
                name="odd answer first: the list F^10 has log-ratio above 0.039",
                variables=(_TENTH,),
                goal=Condition(f"{log_ratio(ODD_FIRST, 'F' * 10, *_SVT1)} - 39/1000", ">"),
                method="points", points=({"eps": Fraction(1, 10)},), precision=256,
            ),
            *bounded_losses("odd answer first", ODD_FIRST, "41/1000", _SVT1, Fraction(1, 10)),
        ),
    )

_LAZY: dict[str, Callable[[], ClaimCertification]] = {
    "SVT4": _svt4, "SVT5": _svt5, "SVT6": _svt6, "SVT1_ODD_LAST": _svt1_odd_last,
}


SVT4: ClaimCertification
SVT5: ClaimCertification
SVT6: ClaimCertification
SVT1_ODD_LAST: ClaimCertification
# declared, not assigned: reading one calls __getattr__ below


def __getattr__(name: str) -> ClaimCertification:
    """The certifications, built once on first use (PEP 562)."""
    if name in _LAZY:
        return _LAZY[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CUTOFF_ONE_LISTS",
    "HALF",
    "ODD_FIRST",
    "ODD_LAST",
    "STATDP_PAIRS",
    "SVT1_ODD_LAST",
    "SVT4",
    "SVT5",
    "SVT6",
    "bounded_losses",
    "log_ratio",
]
