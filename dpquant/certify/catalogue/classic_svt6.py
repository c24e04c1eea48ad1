"""SVT6's largest answer-list losses on StatDP's twelve query-answer pairs at ε = 1/10 (ledger
``classic/fact-SVT6-rare-best-pairs``; Lyu, Su and Li, VLDB 2017, Alg. 6; the pairs of StatDP,
Ding et al., CCS 2018, Sec. 5).

SVT6 (T = 1, ρ and every ν_i ~ Lap(2/ε), no cutoff) answers all ten queries. Given ρ = r the
answers are independent and the factor of position i depends only on (q_i, its answer), so on a
pair (q, q') the probability of a list on either input is unchanged when the list is permuted
inside a *block* of positions with equal (q_i, q'_i): a list's class is the number of ⊤ in each
block, and every list of a class has the class's two probabilities (the human step). The
twelve pairs have one or two blocks: 254 classes stand for all 12·1024 lists.

Each class's probabilities are the exact closed forms of
:func:`dpquant.certify.catalogue.classic_laws.list_probability` at the class's representative
(⊤ first in each block). The certification is built on first use (PEP 562): its 508 exact laws
are not computed when the module is imported (by every test worker that collects its tests).
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

from dpquant.certify.catalogue.classic_laws import list_probability
from dpquant.certify.catalogue.classic_svt import HALF, STATDP_PAIRS
from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable

Pair = tuple[tuple[int, ...], tuple[int, ...]]

SVT6_SCALES = (1, 2, 2)
"""T, ε·(scale of ρ), ε·(scale of ν): SVT6 (Lyu et al., Alg. 6)."""
POINT = Fraction(1, 10)
X_SHAPE: Pair = ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5)
RARE = (HALF, X_SHAPE)
"""The two pairs whose largest list log-ratio exceeds 0.40."""
RARE_RATIO, OTHER_RATIO, BOUND = Fraction(2, 5), Fraction(3, 20), Fraction(1, 2)
"""0.40, 0.15 and kε/2 = 10·(1/10)/2."""
RARE_MASS = Fraction(6, 10000)
"""0.06 %: every list whose log-ratio exceeds 0.40 has less mass than this on both inputs."""


def blocks(pair: Pair) -> list[list[int]]:
    """The positions grouped by (q_i, q'_i), in order of first appearance."""
    keys = list(dict.fromkeys(zip(*pair, strict=True)))
    return [[i for i, k in enumerate(zip(*pair, strict=True)) if k == key] for key in keys]


def classes(pair: Pair) -> list[tuple[tuple[int, ...], str]]:
    """Each class (⊤ count per block) with its representative list (⊤ first in each block)."""
    out = []
    parts = blocks(pair)
    for counts in itertools.product(*(range(len(b) + 1) for b in parts)):
        pattern = ["F"] * len(pair[0])
        for block, c in zip(parts, counts, strict=True):
            for i in block[:c]:
                pattern[i] = "T"
        out.append((counts, "".join(pattern)))
    return out


def probabilities(pair: Pair, pattern: str) -> tuple[str, str]:
    """P(pattern | q) and P(pattern | q'), as text over ``eps``."""
    first, second = (list_probability(q, pattern, *SVT6_SCALES) for q in pair)
    return first, second


RARE_CLASSES: dict[Pair, tuple[tuple[int, ...], ...]] = {
    HALF: ((0, 5), (5, 0)),
    X_SHAPE: ((5, 0), (0, 5)),
}
"""On each rare pair, the classes whose log-ratio exceeds 0.40 (counts of ⊤ per block); every
other class of those pairs stays at most 0.40."""
BEST: dict[Pair, tuple[int, ...]] = {HALF: (0, 5), X_SHAPE: (5, 0)}
"""A class above 0.40 on each rare pair (the largest: ⊥⁵⊤⁵ at 0.420 on the half-and-half pair,
⊤⁵⊥⁵ at 0.414 on the x shape)."""


def _at(name: str, goal: str) -> Part:
    return Part(
        name=name,
        variables=(Variable("eps", POINT, POINT),),
        goal=Condition(goal, ">"),
        method="points",
        points=({"eps": POINT},),
        precision=256,
    )


def _below(bound: Fraction, ratio: str) -> str:
    """b² − L² > 0 ⇔ |L| < b (b > 0); a square, not (b − L)(b + L) or Abs, which sympy reads
    some thirty times slower. Both evaluators bound an even power of a ball holding 0."""
    square = bound**2
    return f"{square.numerator}/{square.denominator} - ({ratio})**2"


def pair_parts(k: int, pair: Pair) -> list[Part]:
    """One part per class: |L| < 0.15 (other pairs) or ≤ 0.40 (rare pairs, outside the rare
    classes); for a rare class |L| < kε/2, both masses < 0.06 %, and at the best L > 0.40."""
    out = []
    rare = RARE_CLASSES.get(pair, ())
    for counts, pattern in classes(pair):
        first, second = probabilities(pair, pattern)
        ratio = f"log({first}/({second}))"
        label = f"pair {k} of 12, class {counts} ({pattern})"
        if counts in rare:
            out.append(_at(f"{label}: |log-ratio| < k eps/2", _below(BOUND, ratio)))
            for side, p in (("first", first), ("second", second)):
                out.append(_at(f"{label}: mass on the {side} input < 6/10000",
                               f"6/10000 - {p}"))
            if counts == BEST[pair]:
                out.append(_at(f"{label}: log-ratio > 2/5", f"{ratio} - 2/5"))
        else:
            bound = RARE_RATIO if pair in RARE else OTHER_RATIO
            out.append(_at(f"{label}: |log-ratio| < {bound}", _below(bound, ratio)))
    return out


@functools.cache
def _svt6_rare_best_pairs() -> ClaimCertification:
    return ClaimCertification(
        claim="classic/fact-SVT6-rare-best-pairs",
        statement=(
            "SVT6 at ε = 1/10 (T = 1, ρ, ν_i ~ Lap(20), ten answers, no cutoff) on StatDP's twelve "
            "query-answer pairs: on the half-and-half pair ([1]×10 against [2]×5 + [0]×5) and the "
            "x shape ([1]×5 + [0]×5 against [0]×5 + [1]×5) some answer list has log-ratio above "
            "0.40, every list whose |log-ratio| exceeds 0.40 has mass under 6/10000 on both inputs, "
            "and every |log-ratio| is below kε/2 = 1/2; on the ten other pairs every list's "
            "|log-ratio| is below 0.15."
        ),
        domain=(
            "the point ε = 1/10, T = 1, every one of the 1024 answer lists of each of the twelve "
            "pairs, through its class (the ⊤ count in each block of positions with equal "
            "(q_i, q'_i)): exchangeability inside a block is the human step"
        ),
        parts=tuple(part for k, pair in enumerate(STATDP_PAIRS) for part in pair_parts(k + 1, pair)),
    )


SVT6_RARE_BEST_PAIRS: ClaimCertification
# declared, not assigned: reading it calls __getattr__ below


def __getattr__(name: str) -> ClaimCertification:
    """:data:`SVT6_RARE_BEST_PAIRS`, built once on first use (PEP 562)."""
    if name == "SVT6_RARE_BEST_PAIRS":
        return _svt6_rare_best_pairs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BEST",
    "RARE_CLASSES",
    "SVT6_RARE_BEST_PAIRS",
    "SVT6_SCALES",
    "X_SHAPE",
    "blocks",
    "classes",
    "probabilities",
]
