"""The auditor's reports at seed 0 are the golden ones (``golden_reports.py``): a few cheap
entries of ``dpquant audit --all`` and of the classic suite, in ``make test``; every entry with
``make golden``."""

from __future__ import annotations

import json

import pytest
from golden_reports import (
    AUDIT_ALL,
    CLASSIC_SUITE,
    audit_all_reports,
    by_name,
    differences,
    stable,
    suite_runs,
)

SMOKE_AUDITS = (
    "randomized_response[eps=1]",
    "control_randomized_response",
    "rr_wrong_flip",
    "em_underflow",
)
SMOKE_SUITE = ("NoisyHist2", "ReportNoisyMax4", "SparseVectorTechnique5")


def _golden(path, key):
    return by_name(json.loads(path.read_text("utf-8")), key)


@pytest.mark.audit
def test_audit_all_reports_at_seed_0_are_the_golden_ones() -> None:
    golden = _golden(AUDIT_ALL, "mechanism")
    now = by_name(audit_all_reports(SMOKE_AUDITS), "mechanism")
    assert set(now) == set(SMOKE_AUDITS)
    for name in SMOKE_AUDITS:
        assert differences(golden[name], now[name], name) == []


@pytest.mark.audit
def test_classic_suite_runs_at_seed_0_are_the_golden_ones() -> None:
    golden = _golden(CLASSIC_SUITE, "name")
    now = by_name(suite_runs(SMOKE_SUITE), "name")
    assert len(now) == 2 * len(SMOKE_SUITE)
    for name, run in now.items():
        assert differences(golden[name], run, name) == []


def test_the_golden_files_hold_every_audited_mechanism_and_suite_run() -> None:
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS
    from dpquant.audit.suites.classic import SUITE
    from dpquant.reference.registry import REGISTRY

    names = {e.name for e in (*REGISTRY, *CONTROLS, *CATALOGUE)}
    assert set(_golden(AUDIT_ALL, "mechanism")) == names
    assert set(_golden(CLASSIC_SUITE, "name")) == {
        f"{e.name}@{eps:g}" for e in SUITE for eps in (0.5, 1.0)
    }


def test_what_a_clock_decides_is_left_out_and_a_change_is_found() -> None:
    report = {
        "seconds": 1.5,
        "blackbox": {"stage_seconds": 2, "k0": 3},
        "notes": ["took 1.2 s", "budget 10"],
    }
    assert stable(report) == {"blackbox": {"k0": 3}, "notes": ["budget 10"]}
    assert differences({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == [
        ".a[1].b: 2 in the golden file, 3 now"
    ]
    assert differences({"a": 1}, {"a": 1, "c": 2}) == [".c: new"]
