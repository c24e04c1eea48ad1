"""The report of audit_claim (dpquant.audit.tools.claim_report): verdict, explanation, JSON, the
plot of the worst pair's profile and Rényi curve against the claim's."""

from __future__ import annotations

import json
import math

import pytest

from dpquant.audit import audit_claim
from dpquant.audit.tools.claim_report import CURVE_ORDERS, CURVE_POINTS
from dpquant.reference.measures import GDPClaim, ZCDPClaim
from dpquant.reference.primitives import RandomizedResponse


@pytest.fixture(scope="module")
def refuted():
    return audit_claim(RandomizedResponse(1.0), GDPClaim(0.9, adjacency="local"), mode="exact")


def test_an_exact_violation_fails_assert_private_with_its_explanation(refuted) -> None:
    assert refuted.verdict == "VIOLATION" and not refuted.passed
    with pytest.raises(AssertionError, match="exact .* gdp value 1.23"):
        refuted.assert_private()
    met = audit_claim(RandomizedResponse(1.0), ZCDPClaim(0.5, adjacency="local"), mode="exact")
    met.assert_private()
    assert met.inconclusive is None


def test_the_curves_compare_the_worst_pair_with_the_claim(refuted) -> None:
    exact = refuted.exact
    assert len(exact.profile_curve) == CURVE_POINTS
    assert [a for a, _, _ in exact.renyi_curve] == list(CURVE_ORDERS)
    # randomised response at ε = 1: D_∞ = 1, so every D_α is at most 1 and increases with α
    divergences = [d for _, d, _ in exact.renyi_curve]
    assert divergences == sorted(divergences) and divergences[-1] <= 1.0 + 1e-12
    # the claimed profile is μ = 0.9's, below the pair's at ε = 0 (the violation)
    eps0, pair0, claimed0 = exact.profile_curve[0]
    assert eps0 == 0.0 and pair0 > claimed0
    assert all(not math.isnan(c) for _, _, c in exact.renyi_curve)  # μ-GDP implies every order


def test_the_report_serialises_and_plots(refuted, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    data = json.loads(json.dumps(refuted.to_dict()))
    assert data["verdict"] == "VIOLATION" and data["measure"] == "gdp"
    assert len(data["exact"]["renyi_curve"]) == len(CURVE_ORDERS)
    written = refuted.plot(tmp_path / "sub" / "claim.png")
    assert written.stat().st_size > 1000
    with pytest.raises(ValueError, match="path"):
        refuted.plot(tmp_path / "claim.nothing")
    assert refuted.to_markdown().startswith("# VIOLATION")
