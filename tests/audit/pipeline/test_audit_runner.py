"""The auditor's contract: ``audit_mechanism``, ``from_callable``, modes, pairs, executors, reports."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from dpquant.audit import AuditReport, audit_mechanism, from_callable
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse

EM = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
EM_PAIR = [([0.0, 0.25, 0.25], [0.25, 0.25, 1.0])]


def crashes_on_half(data: np.ndarray, rng: np.random.Generator) -> float:
    """Output independent of the data, except that it raises when 0.5 is in the data."""
    if np.any(data == 0.5):
        raise ValueError("cannot handle 0.5")
    return float(rng.laplace())


def clipped_mean_laplace(data: np.ndarray, rng: np.random.Generator) -> float:
    """ε = 1 replace-one DP mean of data clipped to [0, 1] (n fixed, sensitivity 1/n)."""
    x = np.clip(data, 0.0, 1.0)
    return float(x.mean() + rng.laplace(scale=1.0 / len(x)))


def test_report_fields_follow_the_contract() -> None:
    r = audit_mechanism(EM, pairs=EM_PAIR, samples=20_000, seed=1, alpha=1e-9)
    assert isinstance(r, AuditReport)
    assert r.claimed_epsilon == 1.0
    assert isinstance(r.epsilon_lower_bound, float) and r.epsilon_lower_bound >= 0.0
    assert r.epsilon_exact == pytest.approx(0.7461540879301449, abs=1e-12)
    assert r.violation is False
    assert r.witness.data in ((0.0, 0.25, 0.25), (0.25, 0.25, 1.0))
    d = r.to_dict()
    json.dumps(d)  # JSON-ready
    for key in ("claimed_epsilon", "epsilon_lower_bound", "epsilon_exact", "violation", "witness"):
        assert key in d
    assert d["seed"] == 1 and d["samples_used"] == r.samples_used > 0


def test_exception_on_one_neighbour_only_is_found_as_a_leak() -> None:
    mech = from_callable(crashes_on_half, PrivacyClaim(1.0, 0.0, "replace_one"), (0.0, 1.0))
    r = audit_mechanism(mech, samples=20_000, seed=0)
    assert r.violation and r.epsilon_lower_bound > 3.0
    # the witness separates the data set holding 0.5 (always raises) from the one without it
    with_half = [0.5 in r.witness.data, 0.5 in r.witness.data_prime]
    assert sorted(with_half) == [False, True]


def test_private_callable_is_not_flagged() -> None:
    mech = from_callable(clipped_mean_laplace, PrivacyClaim(1.0, 0.0, "replace_one"), (0.0, 1.0))
    # a total budget of 200 000 draws (the bound reaches 0.92 of the claim 1.0 here): with
    # samples=40_000 the search alone drew 1.2 million, one Python call each; a correct
    # mechanism is flagged with probability at most α = 1e-9 at any budget
    r = audit_mechanism(mech, max_draws=200_000, seed=0, alpha=1e-9)
    assert not r.violation
    assert r.epsilon_exact is None and r.mode == "blackbox"
    assert r.epsilon_lower_bound <= 1.0


def test_exact_mode_reports_the_exact_loss_without_sampling() -> None:
    r = audit_mechanism(RandomizedResponse(1.0), mode="exact")
    assert r.samples_used == 0 and r.blackbox is None
    assert r.epsilon_exact == pytest.approx(1.0, abs=1e-12)
    assert r.epsilon_lower_bound == pytest.approx(1.0, abs=1e-12)
    assert not r.violation


def test_approximate_claim_is_checked_by_the_exact_hockey_stick(reclaimed) -> None:
    # RR at ε = 1: δ(0.5) = p − e^0.5 (1 − p) with p = e/(1 + e) = 0.28754...
    p = np.e / (1 + np.e)
    delta = p - np.exp(0.5) * (1 - p)
    rr = RandomizedResponse(1.0)
    ok = audit_mechanism(reclaimed(rr, PrivacyClaim(0.5, delta + 1e-9, "local")), mode="exact")
    bad = audit_mechanism(reclaimed(rr, PrivacyClaim(0.5, delta - 1e-9, "local")), mode="exact")
    assert not ok.violation and bad.violation
    assert bad.exact.delta_at_claimed_epsilon == pytest.approx(delta, abs=1e-12)


def test_blackbox_bound_subtracts_delta(reclaimed) -> None:
    rr = RandomizedResponse(1.0)
    claim = PrivacyClaim(0.5, 0.2, "local")
    r = audit_mechanism(reclaimed(rr, claim), mode="blackbox", samples=100_000)
    best = max(r.blackbox.evaluated, key=lambda e: e.epsilon_lower_bound)
    # with δ = 0.2 subtracted the bound is ln((0.731 − 0.2)/0.269) < 0.69 < 1
    assert best.epsilon_lower_bound < np.log((p_keep() - 0.2) / (1 - p_keep())) + 0.05
    assert r.violation  # δ(0.5) = 0.2875 > 0.2: the claim is false and the bound shows it


def p_keep() -> float:
    return float(np.e / (1 + np.e))


@pytest.mark.parametrize(
    "pairs, message",
    [
        ([([0.0, 0.25], [0.5, 1.0])], "neighbours"),
        ([([0.0, 0.25], [0.0, 0.25, 0.5])], "neighbours"),
        ([([0.0, 2.0], [0.0, 0.5])], "domain"),
        ([], "at least one"),
    ],
)
def test_bad_pairs_raise(pairs, message) -> None:
    mech = from_callable(clipped_mean_laplace, PrivacyClaim(1.0), (0.0, 1.0))
    with pytest.raises(ValueError, match=message):
        audit_mechanism(mech, pairs=pairs)


def test_bad_arguments_raise() -> None:
    mech = from_callable(clipped_mean_laplace, PrivacyClaim(1.0), (0.0, 1.0))
    with pytest.raises(ValueError, match="mode"):
        audit_mechanism(mech, mode="fast")
    with pytest.raises(ValueError, match="exact"):
        audit_mechanism(mech, mode="exact")
    with pytest.raises(ValueError, match="alpha"):
        audit_mechanism(mech, alpha=0.0)
    with pytest.raises(ValueError, match="samples"):
        audit_mechanism(mech, samples=3)
    with pytest.raises(ValueError, match="claim"):
        audit_mechanism(object())
    with pytest.raises(ValueError, match="claim"):
        from_callable(clipped_mean_laplace, 1.0, (0.0, 1.0))


def _without_time(r: AuditReport) -> dict:
    d = r.to_dict()
    d.pop("seconds")
    return d


def test_same_seed_same_report_in_process_and_on_a_thread_pool() -> None:
    a = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=7)
    with ThreadPoolExecutor(3) as ex:
        b = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=7, executor=ex)
    c = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=8)
    assert _without_time(a) == _without_time(b)
    assert _without_time(a) != _without_time(c)


def test_same_seed_same_report_on_a_dask_local_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    a = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=7)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None, processes=True
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        b = audit_mechanism(
            EM, pairs=EM_PAIR, samples=150_000, seed=7, executor=client.get_executor()
        )
    assert _without_time(a) == _without_time(b)


def test_markdown_and_plot(tmp_path) -> None:
    r = audit_mechanism(EM, pairs=EM_PAIR, samples=20_000, alpha=1e-9)
    md = r.to_markdown()
    assert "no violation found" in md and "ε lower bound" in md
    png = r.plot(tmp_path / "em.png")
    assert png is not None and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_assert_private_raises_on_a_violation() -> None:
    mech = from_callable(crashes_on_half, PrivacyClaim(1.0, 0.0, "replace_one"), (0.0, 1.0))
    r = audit_mechanism(mech, pairs=[([0.25], [0.5])], samples=5_000)
    with pytest.raises(AssertionError, match="VIOLATION"):
        r.assert_private()
    audit_mechanism(EM, pairs=EM_PAIR, samples=20_000, alpha=1e-9).assert_private()
