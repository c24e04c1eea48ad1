"""The catalogue's SVT6 classes are the implementation's SVT6 at ε = 1/10: its scales and
threshold, its twelve pairs, and its law at every list through the class's closed forms."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from svt_quadrature import quadrature

from dpquant.audit.suites.classic import SparseVector
from dpquant.certify.catalogue import classic_svt, classic_svt6
from dpquant.certify.expressions import enclose

TENTH = Fraction(1, 10)


def value(text: str) -> float:
    return float(enclose(text, {"eps": TENTH}, precision=256).mid())


def test_svt6_scales_and_pairs_are_the_implementations() -> None:
    """SparseVector(6, 0.1): ρ and ν ~ Lap(20) (κ = 2), T = 1, no cutoff: all ten positions
    answered on every draw; the pairs are the auditor's (checked against QueryAnswers in
    test_catalogue_classic)."""
    svt = SparseVector(6, 0.1)
    t, rho, nu = classic_svt6.SVT6_SCALES
    assert svt.threshold == t
    assert math.isclose(svt.threshold_scale * 0.1, rho, rel_tol=1e-14)
    assert math.isclose(svt.query_scale * 0.1, nu, rel_tol=1e-14)
    out = svt(np.ones(10), 500, np.random.default_rng(1))
    assert all(s in ("⊤", "⊥") for s in out.ravel().tolist())
    assert classic_svt6.X_SHAPE in classic_svt.STATDP_PAIRS and classic_svt.HALF in classic_svt.STATDP_PAIRS


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 11), st.integers(0, 1023))
def test_every_list_has_its_class_probabilities_under_the_implementations_law(k: int, bits: int) -> None:
    """A random list of a random pair: the quadrature of the implementation's law at the list
    equals the closed form at its class's representative, on both inputs (the exchangeability
    inside a block, checked on the implementation)."""
    pair = classic_svt.STATDP_PAIRS[k]
    pattern = "".join("T" if bits >> i & 1 else "F" for i in range(10))
    counts = tuple(sum(pattern[i] == "T" for i in block) for block in classic_svt6.blocks(pair))
    representative = dict(classic_svt6.classes(pair))[counts]
    svt = SparseVector(6, 0.1)
    for q, text in zip(pair, classic_svt6.probabilities(pair, representative), strict=True):
        assert abs(value(text) - quadrature(svt, list(q), pattern)) <= 1e-9


def test_the_classes_cover_every_list() -> None:
    """Σ over classes of (number of lists in the class)·P(class) = 1 on both inputs of every pair,
    and the rare classes are exactly those above 0.40 (the others at most 0.33 there)."""
    for pair in classic_svt.STATDP_PAIRS:
        sizes = [len(b) for b in classic_svt6.blocks(pair)]
        totals = [0.0, 0.0]
        ratios = {}
        for counts, pattern in classic_svt6.classes(pair):
            lists = math.prod(math.comb(n, c) for n, c in zip(sizes, counts, strict=True))
            p = [value(t) for t in classic_svt6.probabilities(pair, pattern)]
            totals = [s + lists * x for s, x in zip(totals, p, strict=True)]
            ratios[counts] = abs(math.log(p[0] / p[1]))
        assert all(abs(s - 1) < 1e-12 for s in totals)
        above = {c for c, r in ratios.items() if r > 0.40}
        assert above == set(classic_svt6.RARE_CLASSES.get(pair, ()))
