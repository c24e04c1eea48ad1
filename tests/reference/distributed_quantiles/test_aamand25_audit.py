"""aamand25 under the auditor: local randomizers (adjacency ``local``) and whole protocols
(``replace_one``) pass; a user answering two queries at full ε is caught."""

from __future__ import annotations

import numpy as np
import pytest

from dpquant.audit import audit_mechanism
from dpquant.audit.suites.catalogue.repeated_answers import (
    RepeatedThresholdQuery,
    broken_nbs_mechanism,
)
from dpquant.reference.distributed_quantiles.bayess import bayess_theorem_1_1
from dpquant.reference.distributed_quantiles.mechanisms import (
    ProtocolMechanism,
    nbs_mechanism,
)
from dpquant.reference.distributed_quantiles.private_bayess import AUTHORS_OPTIONS, dp_bayess
from dpquant.reference.distributed_quantiles.threshold_query import ThresholdQuery

pytestmark = pytest.mark.audit


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_threshold_query_randomizer_is_exactly_eps_ldp(eps) -> None:
    report = audit_mechanism(ThresholdQuery(8, 4, eps), mode="exact")
    assert not report.violation
    assert report.epsilon_exact == pytest.approx(eps, abs=1e-12)


def test_user_answering_two_queries_at_full_eps_is_caught_locally() -> None:
    report = audit_mechanism(RepeatedThresholdQuery(8, 4, 1.0, answers=2), mode="exact")
    assert report.violation
    assert report.epsilon_exact == pytest.approx(2.0, abs=1e-12)


def _tiny_pairs(n: int, B: int) -> list[tuple[list[int], list[int]]]:
    """Every replace-one pair on n users over [B] that differ in one user (first user changed)."""
    import itertools

    pairs = []
    for rest in itertools.combinations_with_replacement(range(1, B + 1), n - 1):
        for x, y in itertools.combinations(range(1, B + 1), 2):
            pairs.append(([x, *rest], [y, *rest]))
    return pairs


@pytest.mark.parametrize(
    "mech",
    [
        nbs_mechanism(4, 1.0, 3),
        ProtocolMechanism("DpBayeSS", dp_bayess, 6, 1.0, 3, {"c": 0.1}),
        ProtocolMechanism(
            "DpBayeSS[left,numpy]",
            dp_bayess,
            6,
            0.7,
            3,
            {"c": 0.1, "rounding": "left", "selection": "numpy"},
        ),
    ],
    ids=lambda m: m.name,
)
def test_whole_protocol_is_eps_dp_under_replace_one_exactly(mech) -> None:
    """Exact laws (every permutation and RR outcome) on every replace-one pair of tiny data."""
    report = audit_mechanism(mech, pairs=_tiny_pairs(mech.n, mech.B), mode="exact")
    assert not report.violation, report.summary()
    assert 0 < report.epsilon_exact <= mech.epsilon + 1e-12


def test_authors_search_quirk_makes_the_tiny_protocol_constant() -> None:
    """With all the authors' options, n = 3 and B = 6 leave one BayesLearn step and a final
    search over two coins, where the negative-index quirk returns the larger coin whatever the
    answer: the exact law is a point mass (ε = 0). Private, and useless (notes/aamand25.md)."""
    mech = ProtocolMechanism(
        "DpBayeSS[authors]", dp_bayess, 6, 1.0, 3, {"c": 0.1, **AUTHORS_OPTIONS}
    )
    report = audit_mechanism(mech, pairs=_tiny_pairs(3, 6)[:20], mode="exact")
    assert not report.violation and report.epsilon_exact == 0.0
    assert len(mech.exact([1, 2, 6]).support) == 1


def test_protocol_with_a_user_answering_twice_is_caught_exactly() -> None:
    mech = broken_nbs_mechanism(4, 1.0, 2)
    report = audit_mechanism(mech, pairs=_tiny_pairs(2, 4), mode="exact")
    assert report.violation
    assert report.epsilon_exact == pytest.approx(1.4337808304830273, rel=1e-9)


WITNESS = [([1, 1], [1, 4])]  # the exact stage's worst pair for both n = 2 searches


def test_protocol_with_a_user_answering_twice_is_caught_black_box() -> None:
    """Samples only (no exact law used): the broken protocol's loss (exactly 1.434 > ε = 1 on the
    witness pair) shows through at confidence 1 − 1e-6."""
    mech = broken_nbs_mechanism(4, 1.0, 2)
    report = audit_mechanism(
        mech, pairs=WITNESS, mode="blackbox", samples=40000, alpha=1e-6, seed=1
    )
    assert report.violation
    assert report.epsilon_lower_bound > 1.0


def test_black_box_audit_of_the_honest_protocol_finds_no_violation() -> None:
    """α = 1e-9: a correct protocol is flagged with probability <= 1e-9 (at any number of
    samples: 5 000 a side, each draw a run of the whole protocol)."""
    report = audit_mechanism(
        nbs_mechanism(4, 1.0, 2), pairs=WITNESS, mode="blackbox", samples=5000, alpha=1e-9, seed=2
    )
    assert not report.violation
    assert report.epsilon_lower_bound <= 1.0


def test_theorem_1_1_protocol_local_randomizer_and_mechanism_claims() -> None:
    mech = ProtocolMechanism(
        "BayeSS[Thm 1.1]", bayess_theorem_1_1, 64, 1.0, 200, {"alpha": 0.2, "steps": 20}
    )
    assert mech.claim.adjacency == "replace_one" and mech.claim.epsilon == 1.0
    local = mech.local_randomizer(10)
    assert local.claim.adjacency == "local"
    assert audit_mechanism(local, mode="exact").epsilon_exact == pytest.approx(1.0, abs=1e-12)
    out = mech.sample(np.arange(1, 201) % 64 + 1, 3, np.random.default_rng(0))
    assert out.shape == (3,) and np.all((out >= 1) & (out <= 64))
