"""The typed findings of an audit (``dpquant/audit/report/findings.py``, issue 36): each value's
``to_dict()`` is what the report's JSON held before the values were typed (the golden reports of
``tests/golden``, and the key order of the old dicts), the values are frozen, and no field of
:class:`~dpquant.audit.report.result.AuditReport` is a ``dict[str, Any]``."""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpquant.audit import AuditOptions, AuditReport, audit_mechanism, from_callable
from dpquant.audit.events.families import Event
from dpquant.audit.model.outputs import TIMEOUT
from dpquant.audit.report.findings import (
    BlackboxFindings,
    ConformanceCheck,
    DataPair,
    EvaluatedCandidate,
    ExactFindings,
    HangTest,
    TimeoutFinding,
    Witness,
    as_data,
)
from dpquant.audit.report.result import _jsonable
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.randomized_response import RandomizedResponse

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "audit_all.json"
LOCAL = PrivacyClaim(1.0, 0.0, "local")

WITNESS_KEYS = {
    "exact": ["data", "data_prime", "source"],
    "blackbox": [
        "round", "data", "data_prime", "event", "k0", "n0", "k1", "n1", "p0_hat", "p1_hat",
        "epsilon_lower_bound", "event_log_ratio_ci", "selection_expected_bound", "counting",
        "source",
    ],
    "timeout": [
        "data", "data_prime", "event", "k0", "n0", "k1", "n1", "epsilon_lower_bound", "source"
    ],
}  # fmt: skip
"""The keys, in order, of each kind of witness as the report's JSON has them (``counting`` since
issue 39: how a black-box witness's counts were drawn and bounded)."""
EXACT_KEYS = [
    "pairs_screened", "pairs_exact", "max_n", "epsilon_exact", "epsilon_exact_digits",
    "delta_at_claimed_epsilon", "violation", "worst_pair", "worst_pair_analysis", "planning",
    "note",
]  # fmt: skip
BLACKBOX_KEYS = [
    "finalists", "budgets_per_side", "rounds", "selection_fraction", "carried",
    "alpha_per_candidate", "evaluated", "epsilon_lower_bound", "violation",
]  # fmt: skip
CONFORMANCE_KEYS = ["data", "test", "passed", "statistic", "threshold", "alpha", "samples"]
TIMED_OUT_KEYS = ["limit_seconds", "stage", "data", "data_prime", "hang_test"]
HANG_TEST_KEYS = [
    "draws_per_side", "draws_on_data", "draws_on_data_prime", "timeouts_on_data",
    "timeouts_on_data_prime", "epsilon_lower_bound", "alpha", "skipped",
]  # fmt: skip


def _json(value: Any) -> Any:
    """``value.to_dict()`` as the report's JSON holds it (``AuditReport.to_dict`` makes floats
    that JSON cannot hold strings), without what a clock decides (as ``tests/golden`` compares)."""
    return _stable(json.loads(json.dumps(_jsonable(value.to_dict()))))


def _stable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _stable(v) for k, v in x.items() if not str(k).endswith("seconds")}
    if isinstance(x, list):
        return [_stable(v) for v in x]
    return x


@pytest.fixture(scope="module")
def golden_reports() -> dict[str, tuple[AuditReport, dict[str, Any]]]:
    """Two entries of ``dpquant audit --all`` at seed 0, each with its golden JSON: one with an
    exact law (exact stage, black-box stage, conformance), one black-box only."""
    from dpquant.cli.batch_audit import audit_all

    names = ("rr_wrong_flip", "em_underflow")
    golden = {r["mechanism"]: r for r in json.loads(GOLDEN.read_text("utf-8"))}
    with tempfile.TemporaryDirectory() as out:
        reports = audit_all(out, seed=0, only=names)
    return {r.mechanism: (r, golden[r.mechanism]) for r in reports}


@pytest.mark.audit
def test_an_exact_and_black_box_audits_values_give_the_golden_json(golden_reports) -> None:
    report, golden = golden_reports["rr_wrong_flip"]
    assert isinstance(report.exact, ExactFindings)
    assert isinstance(report.blackbox, BlackboxFindings)
    assert isinstance(report.witness, Witness) and report.witness.source == "blackbox"
    assert _json(report.exact) == golden["exact"]
    assert _json(report.blackbox) == golden["blackbox"]
    assert _json(report.witness) == golden["witness"]
    assert len(report.conformance) == 2
    assert [_json(c) for c in report.conformance] == golden["conformance"]
    assert list(report.exact.to_dict()) == EXACT_KEYS
    assert list(report.blackbox.to_dict()) == BLACKBOX_KEYS
    assert list(report.witness.to_dict()) == WITNESS_KEYS["blackbox"]
    assert all(list(c.to_dict()) == CONFORMANCE_KEYS for c in report.conformance)
    assert all(
        list(e.to_dict()) == WITNESS_KEYS["blackbox"][:-1] for e in report.blackbox.evaluated
    )


@pytest.mark.audit
def test_a_black_box_audits_values_give_the_golden_json(golden_reports) -> None:
    report, golden = golden_reports["em_underflow"]
    assert report.exact is None and golden["exact"] is None and report.conformance == []
    assert isinstance(report.blackbox, BlackboxFindings)
    assert _json(report.blackbox) == golden["blackbox"]
    assert _json(report.witness) == golden["witness"]
    best = max(report.blackbox.evaluated, key=lambda e: e.epsilon_lower_bound)
    assert report.witness == Witness.from_evaluated(best)
    assert report.witness.to_dict() == {**best.to_dict(), "source": "blackbox"}


def test_an_exact_witness_is_the_exact_stages_worst_pair() -> None:
    r = audit_mechanism(RandomizedResponse(1.0), mode="exact")
    assert r.witness is not None and r.exact is not None and r.blackbox is None
    assert r.witness == Witness.from_exact(r.exact.worst_pair)
    assert r.witness.to_dict() == {**r.exact.worst_pair.to_dict(), "source": "exact"}
    assert list(r.witness.to_dict()) == WITNESS_KEYS["exact"]
    assert r.to_dict()["witness"] == r.witness.to_dict()
    assert r.witness.event is None and r.witness.k0 is None


def _hangs_above_half(data: np.ndarray, rng: np.random.Generator) -> float:
    if data[0] > 0.5:
        time.sleep(30.0)
    return float(rng.random())


def test_a_timeout_witness_and_finding_hold_the_hang_tests_counts() -> None:
    """A function that hangs on one neighbour (as in tests/audit/pipeline/test_audit_bad_input.py):
    the witness and the time-out finding are typed, their JSON the hang test's counts."""
    mech = from_callable(_hangs_above_half, LOCAL, (0.0, 1.0), name="sleepy")
    r = audit_mechanism(mech, samples=4000, options=AuditOptions(timeout=0.05))
    t, w = r.timed_out, r.witness
    assert isinstance(t, TimeoutFinding) and isinstance(w, Witness) and w.source == "timeout"
    h = t.hang_test
    assert isinstance(h, HangTest) and not h.skipped and h.draws_per_side > 0
    assert w.pair == t.pair and w.event == Event("atom", atom=TIMEOUT)
    assert (w.k0, w.n0, w.k1, w.n1) == (
        h.timeouts_on_data, h.draws_on_data, h.timeouts_on_data_prime, h.draws_on_data_prime
    )  # fmt: skip
    assert w.epsilon_lower_bound == h.epsilon_lower_bound == r.epsilon_lower_bound
    assert list(w.to_dict()) == WITNESS_KEYS["timeout"]
    assert list(t.to_dict()) == TIMED_OUT_KEYS and list(h.to_dict()) == HANG_TEST_KEYS
    as_json = r.to_dict()
    assert as_json["timed_out"] == t.to_dict() and as_json["witness"] == w.to_dict()
    assert as_json["timed_out"]["hang_test"]["skipped"] is False
    assert as_json["witness"]["event"] == {
        "kind": "atom",
        "description": f"output is atom {TIMEOUT!r}",
        "atom": TIMEOUT,
    }


def test_the_findings_are_frozen() -> None:
    pair = DataPair.of(np.array([0.0, 1.0]), [0.0])
    assert pair == DataPair((0.0, 1.0), (0.0,)) and hash(pair) == hash(DataPair((0.0, 1.0), (0.0,)))
    e = EvaluatedCandidate(0, pair, Event("point", lo=1.0), 3, 10, 1, 10, 0.1, (0.0, 1.0), 0.2)
    w = Witness.from_evaluated(e)
    check = ConformanceCheck((0.0,), "dkw", True, 0.1, 0.2, alpha=1e-6, samples=10)
    for value, name in ((pair, "data"), (e, "k0"), (w, "source"), (check, "passed")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, None)
    assert isinstance(pair.data, tuple) and isinstance(w.event_log_ratio_ci, tuple)
    records = as_data(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert records == ((1.0, 2.0), (3.0, 4.0))
    assert DataPair(records, ()).to_dict() == {"data": [[1.0, 2.0], [3.0, 4.0]], "data_prime": []}


def test_a_witness_and_a_candidate_say_how_their_counts_were_drawn() -> None:
    """``counting``: ``"fixed"`` unless said (the fields of every report before Poisson counts),
    ``"poisson"`` carried from the evaluated candidate to its witness and their JSON; another
    value, or a counting on a witness with no counts of its own, is refused."""
    pair = DataPair((0.0,), (1.0,))
    fixed = EvaluatedCandidate(0, pair, Event("point", lo=1.0), 3, 10, 1, 10, 0.1, (0.0, 1.0), 0.2)
    assert fixed.counting == "fixed" and Witness.from_evaluated(fixed).counting == "fixed"
    poisson = dataclasses.replace(fixed, counting="poisson", n0=0)
    w = Witness.from_evaluated(poisson)
    assert w.counting == "poisson" and w.to_dict()["counting"] == "poisson"
    assert poisson.to_dict()["counting"] == "poisson" and poisson.p0_hat == 0.0
    with pytest.raises(ValueError, match="counting must be one of"):
        dataclasses.replace(fixed, counting="binomial")
    with pytest.raises(ValueError, match="counting must be one of"):
        Witness(pair, "exact", counting="fixed")
    with pytest.raises(ValueError, match="counting must be one of"):
        dataclasses.replace(w, counting="guess")


def test_a_witness_or_check_whose_fields_do_not_fit_its_kind_is_refused() -> None:
    pair = DataPair((0.0,), (1.0,))
    with pytest.raises(ValueError, match="source must be one of"):
        Witness(pair, "guess")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a timeout witness has its event, counts and bound"):
        Witness(pair, "timeout")
    with pytest.raises(ValueError, match="an exact witness has no event"):
        Witness(pair, "exact", Event("point", lo=1.0), 1, 2, 0, 2, 0.5)
    with pytest.raises(ValueError, match="round, interval and selection bound"):
        Witness(pair, "blackbox", Event("point", lo=1.0), 1, 2, 0, 2, 0.5)
    with pytest.raises(ValueError, match="alpha and samples .* or a detail"):
        ConformanceCheck((0.0,), "atoms", False, 1.0, 0.0, samples=10, detail="nan")
    with pytest.raises(ValueError, match="alpha and samples .* or a detail"):
        ConformanceCheck((0.0,), "dkw", True, 0.1, 0.2, alpha=1e-6)


def test_no_field_of_the_report_is_a_dict_of_anything() -> None:
    """The issue's "done when": the report's parts are typed values; ``samples_by_stage`` (draws
    by stage, ``dict[str, int]``) and ``notes`` stay as they are."""
    hints = typing.get_type_hints(AuditReport)
    shown = {name: str(hint) for name, hint in hints.items()}
    assert not [name for name, hint in shown.items() if "dict[str, typing.Any]" in hint], shown
    assert hints["witness"] == Witness | None
    assert hints["exact"] == ExactFindings | None
    assert hints["blackbox"] == BlackboxFindings | None
    assert hints["timed_out"] == TimeoutFinding | None
    assert hints["conformance"] == list[ConformanceCheck]
    assert hints["samples_by_stage"] == dict[str, int]
