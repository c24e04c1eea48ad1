"""The audit report as people and programs read it (``dpquant/audit/report/result.py`` and its rendering,
``dpquant/audit/report/render.py``): one kind of verdict, no "n/a", a failure that reads as the command
line's witness line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpquant.audit import audit_mechanism, from_callable
from dpquant.audit.events.families import Event
from dpquant.audit.model.outputs import TIMEOUT
from dpquant.audit.report.findings import DataPair, Witness
from dpquant.audit.report.render import NOT_COMPUTED, cell, fmt, render_report, witness_line
from dpquant.audit.report.result import AuditReport
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.randomized_response import RandomizedResponse

LOCAL = PrivacyClaim(1.0, adjacency="local")


def _leak(data, rng):
    """Releases its input (plus a little noise): no ε holds."""
    return float(data[0]) + 0.01 * rng.random()


@pytest.fixture(scope="module")
def blackbox_violation() -> AuditReport:
    """A black-box audit (no exact law) that finds a violation."""
    mech = from_callable(_leak, LOCAL, (0.0, 1.0), name="leak")
    return audit_mechanism(mech, max_draws=100_000, seed=0)


@pytest.fixture(scope="module")
def exact_pass() -> AuditReport:
    """An audit with an exact law that passes."""
    return audit_mechanism(RandomizedResponse(1.0), max_draws=100_000, seed=0)


def test_the_verdict_is_the_same_string_in_the_api_and_the_json(
    blackbox_violation: AuditReport, exact_pass: AuditReport
) -> None:
    for report in (blackbox_violation, exact_pass):
        assert isinstance(report.verdict, str)
        assert report.verdict == report.to_dict()["verdict"]
        assert json.loads(json.dumps(report.to_dict()))["verdict"] == report.verdict
    assert blackbox_violation.verdict == "VIOLATION"
    assert exact_pass.verdict == "no violation found"


def test_a_blackbox_summary_names_no_exact_value_and_says_no_n_a(
    blackbox_violation: AuditReport,
) -> None:
    assert blackbox_violation.epsilon_exact is None
    summary = blackbox_violation.summary()
    assert "n/a" not in summary and "exact ε" not in summary
    assert summary.startswith("leak: VIOLATION -- claimed ε = 1 (δ = 0, local); ε lower bound ")
    assert summary.endswith(" s") and f"{blackbox_violation.samples_used} draws" in summary
    markdown = blackbox_violation.to_markdown()
    assert "n/a" not in markdown and "exact ε" not in markdown


def test_an_exact_audit_states_its_exact_value(exact_pass: AuditReport) -> None:
    assert exact_pass.epsilon_exact is not None
    shown = f"exact ε on the searched pairs {fmt(exact_pass.epsilon_exact)}"
    assert shown in exact_pass.summary()
    assert f"exact ε on the searched pairs: {fmt(exact_pass.epsilon_exact)}" in (
        exact_pass.to_markdown()
    )


def test_a_failure_reads_as_the_command_lines_witness_line(
    blackbox_violation: AuditReport,
) -> None:
    with pytest.raises(AssertionError) as caught:
        blackbox_violation.assert_private()
    message = str(caught.value)
    assert message == blackbox_violation.explanation()
    summary, witness = message.split("\n")
    assert summary == blackbox_violation.summary()
    assert witness.startswith("witness: D = (") and witness.endswith(" [blackbox]")
    w = blackbox_violation.witness
    assert w is not None
    assert f"counts {w.k0}/{w.n0} vs {w.k1}/{w.n1}" in witness
    assert "'k0'" not in message and "{" not in message


def test_a_passing_audit_does_not_raise(exact_pass: AuditReport) -> None:
    exact_pass.assert_private()
    summary, witness = exact_pass.explanation().split("\n")
    assert summary == exact_pass.summary()
    assert witness == f"witness: {witness_line(exact_pass.witness)}"
    assert witness.startswith("witness: D = (") and "{" not in witness


def test_a_witness_line_shows_the_pair_the_event_and_counts_and_vector_records() -> None:
    assert witness_line(None) == "none"
    exact = Witness.from_exact(DataPair.of([0.5], [0.25, 0.5]))
    assert witness_line(exact) == "D = (0.5), D' = (0.25, 0.5) [exact]"
    records = DataPair.of(np.array([[1.0, 0.0, 0.5]]), np.array([[0.0, 1.0, 0.5]]))
    timeout = Witness.from_hang_test(records, Event("atom", atom=TIMEOUT), (64, 64, 0, 80), 1.5)
    assert witness_line(timeout) == (
        f"D = ((1, 0, 0.5)), D' = ((0, 1, 0.5)); event: output is atom {TIMEOUT!r}; "
        "counts 64/64 vs 0/80 [timeout]"
    )


def test_a_table_cell_marks_a_value_not_computed_without_n_a() -> None:
    assert cell(None) == NOT_COMPUTED != "n/a"
    assert cell(0.5) == "0.5000" and cell(float("inf")) == "inf" and fmt(-float("inf")) == "-inf"


def test_the_markdown_of_each_report_has_its_verdict(
    blackbox_violation: AuditReport, exact_pass: AuditReport
) -> None:
    for report in (blackbox_violation, exact_pass):
        assert f"* verdict: **{report.verdict}**" in render_report(report)


def test_the_markdown_of_a_report_on_vector_records_shows_each_record() -> None:
    """Before the findings were typed, a report whose evaluated pair held vector records could
    not be rendered (``short`` read each record as a number: a TypeError)."""
    from dpquant.audit.report.findings import BlackboxFindings, EvaluatedCandidate

    pair = DataPair.of(np.zeros((2, 3)), np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))
    e = EvaluatedCandidate(
        0, pair, Event("point", lo=1.0), 754, 3500, 183, 3500, 0.89, (0.88, 2.0), 0.6
    )
    blackbox = BlackboxFindings((pair,), (5000,), ((5000,),), 0.3, 2, 2.5e-7, (e,), 0.89, True)
    report = AuditReport(
        "vector sum", PrivacyClaim(0.5, 0.0, "replace_one"), "blackbox", 0.89, None, True,
        Witness.from_evaluated(e), 1e-6, 0, 10_000, 1.0, blackbox=blackbox,
    )  # fmt: skip
    shown = "D = ((0, 0, 0), (0, 0, 0)), D' = ((0, 0, 0), (1, 1, 1))"
    assert f"* evaluated: y == 1.0 on {shown}: 754/3500 vs 183/3500" in report.to_markdown()
    assert report.explanation().endswith(
        f"witness: {shown}; event: y == 1.0; counts 754/3500 vs 183/3500 [blackbox]"
    )
