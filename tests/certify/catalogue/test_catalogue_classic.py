"""The catalogue's classic expressions are the implementation's quantities: the mechanisms'
noise scales and true ε, GeoSample's law, RAPPOR's flip probability, the published numbers, and
the exact sparse vector laws (against a quadrature of the implementation's noise laws)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from svt_quadrature import laplace_cdf, quadrature

from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.suites.classic import LaplaceRelease, NoisyMax, PrefixSum, SparseVector, entry
from dpquant.audit.suites.classic.geometric import geo_exponent, geo_pmf, geo_true_epsilon
from dpquant.audit.suites.classic.published import DPSNIPER
from dpquant.audit.suites.classic.rappor import flip_probability, rappor_epsilon
from dpquant.certify.catalogue import classic, classic_svt
from dpquant.certify.catalogue.classic_laws import list_probability
from dpquant.certify.expressions import enclose


def value(text: str, **point: Fraction) -> float:
    return float(enclose(text, point, precision=256).mid())


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([(4, Fraction(4), Fraction(4, 3)), (6, Fraction(2), Fraction(2)),
                     (1, Fraction(2), Fraction(4)), (5, Fraction(2), Fraction(0))]),
    st.lists(st.integers(0, 2), min_size=1, max_size=6),
    st.integers(0, 63),
    st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3)]),
)
def test_svt_list_probability_is_the_implementations_law(svt_scales, q, bits, eps) -> None:
    """The closed form equals the quadrature of the law of SparseVector(variant, ε): its scales
    are κ_ρ/ε and κ_ν/ε (the catalogue's κ), its threshold T = 1."""
    variant, rho, nu = svt_scales
    svt = SparseVector(variant, float(eps), queries=len(q))
    assert math.isclose(svt.threshold_scale * float(eps), float(rho), rel_tol=1e-14)
    assert math.isclose(svt.query_scale * float(eps), float(nu), rel_tol=1e-14, abs_tol=0)
    pattern = "".join("T" if bits >> i & 1 else "F" for i in range(len(q)))
    exact = value(list_probability(q, pattern, 1, rho, nu), eps=eps)
    assert abs(exact - quadrature(svt, q, pattern)) <= 1e-9


def test_the_pairs_and_lists_are_the_auditors_and_the_svts() -> None:
    pairs = [(tuple(int(v) for v in a), tuple(int(v) for v in b))
             for a, b in QueryAnswers(10).candidates((-10.0, 10.0))]
    assert pairs == list(classic_svt.STATDP_PAIRS)
    out = SparseVector(4, 0.5)(np.ones(10), 2000, np.random.default_rng(0))
    seen = {"".join("T" if s == "⊤" else "F" for s in row if s != "-") for row in out.tolist()}
    assert seen <= set(classic_svt.CUTOFF_ONE_LISTS)


def test_svt_witnesses_match_the_exact_losses_of_the_ledger() -> None:
    """SVT4 at ε = 0.5: 0.8748 (below 0.875); SVT6: 2.18; SVT1 at 0.1: 0.0984 and 0.0401."""
    half, tenth = Fraction(1, 2), Fraction(1, 10)
    svt4 = value(classic_svt.log_ratio(classic_svt.ODD_LAST, "F" * 9 + "T", 1, 4,
                                       Fraction(4, 3)), eps=half)
    assert 0.8747 < svt4 < 0.875 == entry("SparseVectorTechnique4").true_epsilon(0.5)
    svt6 = value(classic_svt.log_ratio(classic_svt.HALF, "F" * 5 + "T" * 5, 1, 2, 2), eps=half)
    assert 2.17 < svt6 < 2.19
    last = value(classic_svt.log_ratio(classic_svt.ODD_LAST, "F" * 9 + "T", 1, 2, 4), eps=tenth)
    first = value(classic_svt.log_ratio(classic_svt.ODD_FIRST, "F" * 10, 1, 2, 4), eps=tenth)
    assert 0.098 < last < 0.099 and 0.039 < first < 0.041
    svt5 = list_probability((1,) * 5 + (0,) * 5, "T" * 5 + "F" * 5, 1, 2, 0)
    assert math.isclose(value(svt5, eps=half), laplace_cdf(0, 4) - laplace_cdf(-1, 4))
    assert list_probability((0,) * 5 + (1,) * 5, "T" * 5 + "F" * 5, 1, 2, 0) == "(0)"


@given(st.floats(min_value=1e-3, max_value=50.0))
def test_laplace_and_noisy_max_scales_and_true_epsilons(eps: float) -> None:
    """RNM3/RNM4's b = 2/ε, NoisyHist2's scale ε, PrefixSum's 1/ε; true ε kε/2 (k = 5), 1/ε,
    kε (k = 10), ∞, as the identities certify."""
    assert math.isclose(NoisyMax(eps, "laplace", "value").scale, 2 / eps)
    assert math.isclose(NoisyMax(eps, "exponential", "value").scale, 2 / eps)
    assert math.isclose(LaplaceRelease(eps, answers=5, wrong_scale=True).scale, eps)
    assert math.isclose(PrefixSum(eps, answers=10).scale, 1 / eps)
    assert math.isclose(entry("ReportNoisyMax3").true_epsilon(eps), 5 * eps / 2)
    assert math.isclose(entry("NoisyHist2").true_epsilon(eps), 1 / eps)
    assert math.isclose(entry("PrefixSum").true_epsilon(eps), 10 * eps)
    assert entry("ReportNoisyMax4").true_epsilon(eps) == math.inf
    assert entry("SparseVectorTechnique5").true_epsilon(eps) == math.inf
    b = NoisyMax(eps, "exponential", "value").scale
    p = value(classic.RNM4.parts[0].goal.expression, eps=Fraction(eps))
    assert math.isclose(p, (1 - math.exp(-1 / b)) ** 5, rel_tol=1e-9)


@given(st.integers(0, 12), st.integers(1, 8), st.data())
def test_geo_sample_ratios_are_the_catalogues_cases(k: int, n: int, data: st.DataObject) -> None:
    """At ε with ⌈ln(2/ε)⌉ = k, GeoSample's exact law moves between counts c and c + 1 by the
    factor 1 + 2^−k of the case its z falls in (the identity parts)."""
    eps = 2 * math.exp(-k) * 1.01 if k else 2.0
    assert geo_exponent(eps) == k
    c = data.draw(st.integers(0, n - 1))
    z = data.draw(st.integers(0, n))
    low, high = geo_pmf(eps, c, n)[z], geo_pmf(eps, c + 1, n)[z]
    assert (low / high if z <= c else high / low) == 1 + Fraction(1, 2**k)
    assert math.isclose(geo_true_epsilon(eps), math.log1p(2.0**-k))


def test_geo_sample_points_are_the_implementations() -> None:
    text = "log(1 + 2**(-ceiling(log(2/eps))))"
    for eps in (Fraction(1, 10), Fraction(1, 2)):
        assert math.isclose(value(text, eps=eps), geo_true_epsilon(float(eps)), rel_tol=1e-14)


@given(st.floats(min_value=1e-3, max_value=100.0), st.integers(1, 8))
def test_rappor_flip_probability_is_the_catalogues(eps: float, h: int) -> None:
    f = flip_probability(eps, h)
    assert math.isclose(f, 2 / (1 + math.exp(eps / (2 * h))), rel_tol=1e-14)
    assert math.isclose(rappor_epsilon(f, h), eps, rel_tol=1e-9)


def test_published_rows_are_dpsnipers_and_true_epsilons_the_suites() -> None:
    for name, bound, true in classic._TIGHT + classic._UPPER:
        row = DPSNIPER[name]
        assert Fraction(bound) == Fraction(str(max(row.lr, row.nn)))
        assert math.isclose(value(true, eps=Fraction(1, 10)), entry(name).true_epsilon(0.1),
                            rel_tol=1e-12)
    tight = {n for n, *_ in classic._TIGHT}
    assert tight == {e.name for e in [entry(n) for n in DPSNIPER] if e.tight
                     and e.name not in ("Rappor", "OneTimeRappor")
                     and math.isfinite(e.true_epsilon(0.1))}
    assert Fraction(str(DPSNIPER["NoisyHist2"].statdp2)) == Fraction(100022, 10000)
    assert entry("NoisyHist2").true_epsilon(0.1) == 1 / 0.1
