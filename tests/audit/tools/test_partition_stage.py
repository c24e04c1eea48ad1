"""dpquant.audit.tools.partition_stage: Rényi and zCDP bounds from a partition chosen on selection
draws and counted on fresh ones, and its place in audit_claim."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpquant.audit.events.families import Event
from dpquant.audit.model.outputs import normalise
from dpquant.audit.report.findings import DataPair, EvaluatedCandidate
from dpquant.audit.tools.measure_audit import PROXY_DELTAS, audit_claim
from dpquant.audit.tools.partition_stage import (
    SELECTION_DRAWS,
    _candidate_cuts,
    _cell_counts,
    event_score,
    partition_stage,
    selection_draws,
)
from dpquant.reference.measures import GDPClaim, RenyiClaim, ZCDPClaim
from dpquant.reference.primitives import GaussianCount

ADJ = "add_remove"
ALPHA = 1e-9
RENYI = RenyiClaim({2.0: 1.0, 8.0: 4.0}, adjacency=ADJ)  # σ = 1's D_α = α/2, exactly


def _candidate(event: Event) -> EvaluatedCandidate:
    """An evaluated threshold event on the count's pair D = {1}, D' = {} (counts irrelevant)."""
    return EvaluatedCandidate(0, DataPair.of([1.0], []), event, 10, 20, 5, 20, 0.0, (0.0, 1.0), 0.0)


def test_cells_are_left_open_right_closed_with_a_cell_for_draws_without_a_score() -> None:
    cuts = np.array([0.0, 1.0])
    z = np.array([-np.inf, -1.0, 0.0, 0.5, 1.0, 2.0, np.inf, np.nan])
    assert _cell_counts(z, cuts).tolist() == [3, 2, 2, 1]


def test_candidate_cuts_are_sorted_distinct_and_finer_in_the_tails() -> None:
    rng = np.random.default_rng(0)
    z0, z1 = rng.normal(1.0, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
    z0[:10] = np.nan
    found = _candidate_cuts(z0, z1)
    assert found
    for cuts in found:
        assert np.all(np.diff(cuts) > 0) and np.all(np.isfinite(cuts))
    pooled = np.sort(np.concatenate([z0[10:], z1]))
    finest = found[-1]
    # the outermost cuts leave only a few dozen pooled draws beyond them
    assert np.sum(pooled > finest[-1]) < 100 and np.sum(pooled <= finest[0]) < 100
    assert _candidate_cuts(np.full(3, np.nan), np.full(3, np.nan)) == []


def test_event_scores_follow_the_events_kinds() -> None:
    out = normalise(np.array([0.5, 2.0, 3.0]), 3)
    interval = event_score(Event("interval", lo=1.0))
    assert interval is not None and interval(out).tolist() == [0.5, 2.0, 3.0]
    ratio = event_score(Event("likelihood_ratio", lo=0.0, llr=lambda y: 2.0 * y[:, 0]))
    assert ratio is not None and ratio(out).tolist() == [1.0, 4.0, 6.0]
    reverse = event_score(Event("likelihood_ratio_reverse", lo=0.0, llr=lambda y: y[:, 0]))
    assert reverse is not None and reverse(out).tolist() == [-0.5, -2.0, -3.0]
    wide = event_score(Event("interval", lo=1.0, width=2))
    assert wide is not None and np.isnan(wide(out)).all()  # another width: no score
    assert event_score(Event("atom", atom="*")) is None


def test_the_gaussian_at_08_of_its_scale_breaks_order_2_through_the_partition() -> None:
    """σ = 0.8: D_2 = 2/(2 · 0.64) = 1.5625 against the claimed 1.0; the partition shows it
    (seeded), while σ = 1 (D_2 = 1 exactly) is never flagged and its bound stays below 1."""
    event = Event("interval", lo=0.5)
    bad = partition_stage(
        GaussianCount(0.8, ADJ), RENYI, _candidate(event), n_eval=400_000, alpha=ALPHA, seed=1
    )
    assert bad is not None and bad.violation
    order2 = next(b for b in bad.bounds if b.argument == 2.0)
    assert 1.0 < order2.bound < 1.5625
    assert bad.draws == 2 * (SELECTION_DRAWS + 400_000)
    assert len(bad.counts0) == len(bad.counts1) >= 4
    good = partition_stage(
        GaussianCount(1.0, ADJ), RENYI, _candidate(event), n_eval=400_000, alpha=ALPHA, seed=1
    )
    assert good is not None and not good.violation
    assert all(b.bound <= b.claimed for b in good.bounds)


def test_the_selection_follows_a_small_budget_and_stops_at_its_largest() -> None:
    """A small evaluation budget draws as many selection draws (a 2 000-draw audit stays small);
    from 2^17 evaluation draws on, the selection is 2^17; and the stage says what it drew."""
    assert selection_draws(10) == 10
    assert selection_draws(SELECTION_DRAWS - 1) == SELECTION_DRAWS - 1
    assert selection_draws(SELECTION_DRAWS) == selection_draws(10**9) == SELECTION_DRAWS
    for bad in (0, -1, 1.5, True, "100"):
        with pytest.raises(ValueError, match="n_eval"):
            selection_draws(bad)
    small = partition_stage(
        GaussianCount(1.0, ADJ), RENYI, _candidate(Event("interval", lo=0.5)), n_eval=4_000,
        alpha=ALPHA, seed=3,
    )
    assert small is not None and small.draws == 2 * (4_000 + 4_000)
    assert sum(small.counts0) == sum(small.counts1) == 4_000


def test_the_zcdp_bound_of_the_partition_is_below_the_true_rho_and_names_its_order() -> None:
    claim = ZCDPClaim(0.5, adjacency=ADJ)
    found = partition_stage(
        GaussianCount(1.0, ADJ),
        claim,
        _candidate(Event("interval", lo=0.5)),
        n_eval=200_000,
        alpha=ALPHA,
        seed=2,
    )
    assert found is not None
    (rho,) = found.bounds
    assert 0.3 < rho.bound <= 0.5 and rho.argument > 1


def test_an_event_without_an_order_gives_no_partition() -> None:
    found = partition_stage(
        GaussianCount(1.0, ADJ),
        RENYI,
        _candidate(Event("atom", atom="*")),
        n_eval=1000,
        alpha=ALPHA,
        seed=0,
    )
    assert found is None


def test_audit_claim_runs_the_stage_for_renyi_and_zcdp_claims_only_and_shares_alpha() -> None:
    report = audit_claim(GaussianCount(0.8, ADJ), RENYI, alpha=1e-6, seed=0)
    assert report.violation and report.partition is not None and report.partition.violation
    points = len(PROXY_DELTAS)
    assert report.partition.alpha == pytest.approx(1e-6 / (points + 1))
    assert len(report.proxies) == 1  # stopped once the violation was established
    assert any("stopped after 1" in n for n in report.notes)
    assert report.draws == report.proxies[0].report.samples_used + report.partition.draws
    assert report.to_dict()["partition"]["violation"] is True
    assert "partition of" in report.explanation()
    gdp = audit_claim(GaussianCount(1.0, ADJ), GDPClaim(1.0, adjacency=ADJ), samples=50_000)
    assert gdp.partition is None
    assert math.isclose(gdp.proxies[0].report.alpha, 1e-6 / points)


def test_a_black_box_report_plots_the_partitions_bounds_beside_the_events(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    report = audit_claim(GaussianCount(0.8, ADJ), RENYI, alpha=1e-6, seed=0, mode="blackbox")
    assert report.partition is not None
    written = report.plot(tmp_path / "renyi.png")
    assert written.exists() and written.stat().st_size > 1000
    assert "partition" in report.summary()


@pytest.mark.parametrize(
    "change, name",
    [
        ({"claim": GDPClaim(1.0, adjacency=ADJ)}, "claim"),
        ({"candidate": "event"}, "candidate"),
        ({"n_eval": 5}, "n_eval"),
        ({"n_eval": True}, "n_eval"),
        ({"n_eval": 1e308}, "n_eval"),
        ({"alpha": math.nan}, "alpha"),
        ({"alpha": 1.0}, "alpha"),
        ({"seed": -1}, "seed"),
        ({"seed": "0"}, "seed"),
        ({"timeout": 0.0}, "timeout"),
        ({"timeout": math.nan}, "timeout"),
    ],
)
def test_partition_stage_refuses_bad_arguments_before_drawing(change, name) -> None:
    from dpquant.errors import ParameterError

    kwargs = {
        "claim": RENYI,
        "candidate": _candidate(Event("interval", lo=0.5)),
        "n_eval": 1000,
        "alpha": 1e-6,
        "seed": 0,
        "timeout": None,
    }
    kwargs.update(change)
    claim, candidate = kwargs.pop("claim"), kwargs.pop("candidate")
    with pytest.raises(ParameterError) as info:
        partition_stage(GaussianCount(1.0, ADJ), claim, candidate, **kwargs)
    assert info.value.parameter == name
