"""audit_claim: every kind of claim, exact in its measure and black-box through the (ε, δ) points
it implies (dpquant.audit.tools.measure_audit)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.model.wrap import from_callable
from dpquant.audit.tools.measure_audit import audit_claim, exact_measure, proxy_points
from dpquant.errors import ParameterError
from dpquant.reference import PrivacyClaim
from dpquant.reference.measures import GDPClaim, ProfileClaim, RenyiClaim, ZCDPClaim
from dpquant.reference.measures.conversions import gdp_delta, zcdp_delta
from dpquant.reference.primitives.randomized_response import RandomizedResponse

ALPHA = 1e-7
SAMPLES = 400_000


def _gaussian(sigma: float):
    def fn(data, size, rng):
        return np.asarray(data, dtype=float)[0] + sigma * rng.standard_normal(size)

    return from_callable(
        fn,
        PrivacyClaim(1.0, adjacency="query_answers"),
        domain=(-10.0, 10.0),
        name=f"gaussian(sigma={sigma})",
        vectorized=True,
        relation=QueryAnswers(1),
    )


CLAIMS = {
    "zcdp": ZCDPClaim(0.5, adjacency="query_answers"),
    "gdp": GDPClaim(1.0, adjacency="query_answers"),
    "profile": ProfileClaim(
        tuple((e, float(gdp_delta(1.0, e))) for e in (0.5, 1.0, 2.0, 3.0)),
        adjacency="query_answers",
    ),
}


@pytest.mark.parametrize("kind", sorted(CLAIMS))
def test_gaussian_at_its_claim_passes_and_a_smaller_scale_is_flagged(kind: str) -> None:
    """The Gaussian of σ = 1 is 1-GDP, 0.5-zCDP and meets its own GDP profile; at σ = 0.8 every
    claim is violated (μ = 1.25, ρ = 0.78) and the black-box part finds it (seeded). Under zCDP the
    finding is the ρ bound of an evaluated event (its (ε, δ) points are weaker), which needs the
    default budget."""
    claim = CLAIMS[kind]
    samples = None if kind == "zcdp" else SAMPLES
    good = audit_claim(_gaussian(1.0), claim, samples=samples, alpha=ALPHA, seed=3)
    assert good.passed and good.verdict == "no violation found"
    bad = audit_claim(_gaussian(0.8), claim, samples=samples, alpha=ALPHA, seed=3)
    assert bad.violation and bad.verdict == "VIOLATION"
    assert not bad.passed


def test_proxy_points_are_implied_by_the_claim() -> None:
    claim = CLAIMS["zcdp"]  # 0.5-zCDP (the Gaussian test's: its search is done once)
    points = proxy_points(claim)
    assert len(points) == 3
    for eps, delta in points:
        assert eps > 0
        assert float(zcdp_delta(0.5, eps)) <= delta < 1
    assert proxy_points(PrivacyClaim(1.0, 1e-5)) == [(1.0, 1e-5)]
    table = ProfileClaim(((0.0, 0.5), (1.0, 0.09), (2.0, 0.011), (3.0, 0.0)))
    assert proxy_points(table) == [(2.0, 0.011), (1.0, 0.09)]  # nearest 1e-2 first


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_exact_part_of_randomised_response_in_each_measure(eps: float) -> None:
    """Randomised response at ε: exact in every measure; the least μ is
    2Φ^{-1}(e^ε/(1 + e^ε)), D_∞ = ε, and a claim a little below its values is a witnessed
    violation while one a little above is not."""
    from scipy.special import ndtri

    mech = RandomizedResponse(eps)
    mu = 2 * ndtri(math.exp(eps) / (1 + math.exp(eps)))
    ok = exact_measure(mech, GDPClaim(mu * 1.0001, adjacency="local"))
    assert ok.pairs >= 1 and not ok.violation and abs(ok.value - mu) < 1e-12
    assert exact_measure(mech, GDPClaim(mu * 0.9999, adjacency="local")).violation
    renyi = exact_measure(mech, RenyiClaim({math.inf: eps * 1.0001}, adjacency="local"))
    assert not renyi.violation and abs(renyi.value - eps) < 1e-12
    assert exact_measure(mech, RenyiClaim({math.inf: eps * 0.9999}, adjacency="local")).violation
    rho = exact_measure(mech, ZCDPClaim(eps**2 / 2, adjacency="local"))
    assert not rho.violation and rho.upper <= eps**2 / 2  # pure ε implies ε²/2-zCDP
    assert exact_measure(mech, ZCDPClaim(rho.value * 0.999, adjacency="local")).violation


def test_audit_claim_reads_the_mechanisms_claim_and_refuses_bad_input() -> None:
    mech = RandomizedResponse(1.0)
    report = audit_claim(mech, mode="exact")
    assert report.exact is not None and report.proxies == ()
    assert report.to_dict()["measure"] == "pure"
    with pytest.raises(ParameterError) as info:
        audit_claim(mech, claim=0.5)
    assert info.value.parameter == "claim"
    with pytest.raises(ValueError):
        audit_claim(mech, mode="exhaustive")
    with pytest.raises(ValueError):
        audit_claim(_gaussian(1.0), CLAIMS["gdp"], mode="exact")


def test_aq_and_joint_exp_pass_their_zcdp_claims_on_a_pair() -> None:
    """imola25's baselines at ρ (seeded smoke version; the full audits with their broken
    variants are in benchmarks/bench_measures.py): AQ's zCDP mode at the ρ its budget was split
    from, JointExp at ε²/8 (one exponential mechanism), under add/remove."""
    from dpquant.reference.slice_quantiles.aq_mechanism import ApproximateQuantilesMechanism
    from dpquant.reference.slice_quantiles.joint_exp_mechanism import JointExpMechanism

    aq = ApproximateQuantilesMechanism(
        (0.5,), 1.0, (0.0, 1.0), adjacency="add_remove", mode="zcdp", delta=1e-6
    )
    joint = JointExpMechanism((0.5,), 1.0, (0.0, 1.0), adjacency="add_remove")
    assert joint.zcdp_claim == ZCDPClaim(1.0 / 8.0, adjacency="add_remove")
    assert aq.zcdp_claim == ZCDPClaim(aq.rho, adjacency="add_remove")
    pairs = [([0.2, 0.5, 0.9], [0.2, 0.5, 0.9, 0.0])]
    for mech in (aq, joint):
        report = audit_claim(mech, mech.zcdp_claim, samples=20_000, alpha=ALPHA, pairs=pairs)
        assert report.passed, report.summary()
        assert 0 < report.bounds[0].bound <= mech.zcdp_claim.rho


def test_a_probe_domain_outside_the_mechanisms_is_refused() -> None:
    with pytest.raises(ParameterError) as info:
        exact_measure(
            RandomizedResponse(1.0), PrivacyClaim(1.0, adjacency="local"), domain=(-1.0, 0.5)
        )
    assert info.value.parameter == "domain"
    inside = exact_measure(
        RandomizedResponse(1.0), PrivacyClaim(1.0, adjacency="local"), domain=(0.0, 1.0)
    )
    assert inside.pairs >= 1 and not inside.violation


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"samples": "10"}, "samples"),
        ({"samples": 10**20}, "samples"),
        ({"samples": True}, "samples"),
        ({"executor": "pool"}, "executor"),
        ({"alpha": float("nan")}, "alpha"),
        ({"seed": True}, "seed"),
    ],
)
def test_every_argument_is_checked_even_where_the_mode_does_not_use_it(kwargs, name) -> None:
    """An exact-only audit draws nothing, yet a bad ``samples`` or ``executor`` is refused."""
    with pytest.raises(ValueError) as info:
        audit_claim(RandomizedResponse(1.0), mode="exact", **kwargs)
    if isinstance(info.value, ParameterError):
        assert info.value.parameter == name
    else:
        assert name in str(info.value)


@functools.cache
def _bench_rows() -> dict:
    """The Laplace and discrete Gaussian rows of benchmarks/bench_measures.py (a script, loaded
    from its file once)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_measures.py"
    spec = importlib.util.spec_from_file_location("bench_measures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {r[0]: r for r in module.laplace_rows() + module.discrete_gaussian_rows()}


def _bench_row(name: str):
    rows = _bench_rows()
    assert len(rows) == len(BENCH_ROWS) and name in rows  # a row added there is tested here
    return rows[name]


BENCH_ROWS = [
    *(f"laplace/{k}" for k in ("pure", "zcdp", "gdp", "renyi", "profile")),
    *(f"discrete_gaussian/{k}" for k in ("zcdp", "renyi", "gdp", "profile")),
]


@pytest.mark.parametrize("name", BENCH_ROWS)
def test_benchmark_claims_are_met_by_the_correct_count_and_broken_at_08_of_its_scale(name) -> None:
    """The smoke version of benchmarks/bench_measures.py, exactly: every claim of a Laplace or
    discrete Gaussian row holds on the correct configuration's exact laws (the exact part
    passes) and is violated at 0.8 of the noise scale (a witnessed value above it)."""
    _, good, bad, claim = _bench_row(name)
    pairs = [([1.0], [])]  # a count's worst pair: its laws are shifts of each other
    assert audit_claim(good, claim, mode="exact", pairs=pairs).passed, name
    found = audit_claim(bad, claim, mode="exact", pairs=pairs)
    assert found.violation and found.exact is not None and found.exact.violation, name


def test_the_least_epsilon_of_a_claim_is_searched_once_per_claim_and_delta(monkeypatch) -> None:
    """proxy_points bisects the claim's profile for each δ of PROXY_DELTAS (about 60 evaluations
    each); a second call with the same claim reuses those searches (only δ_c at each found ε is
    evaluated again) and gives the same points, also at another working precision."""
    import mpmath

    from dpquant.audit.tools import measure_audit

    calls: list[float] = []
    real = measure_audit.claim_delta_at

    def counted(claim, epsilon):
        calls.append(epsilon)
        return real(claim, epsilon)

    monkeypatch.setattr(measure_audit, "claim_delta_at", counted)
    measure_audit._least_epsilon.cache_clear()
    claim = GDPClaim(0.7, adjacency="add_remove")  # a profile that is cheap to evaluate
    first = proxy_points(claim)
    searched = len(calls)
    assert len(first) == 3 and searched > 3 * 50
    calls.clear()
    assert proxy_points(claim) == first
    assert calls == [eps for eps, _ in first]  # δ*(ε*) only: no bisection
    with mpmath.workdps(30):  # another precision: searched again, the same points
        calls.clear()
        assert proxy_points(claim) == first
        assert len(calls) == searched
