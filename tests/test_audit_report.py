"""``dpquant audit --all`` (the body of ``make audit``): exact sweep + conformance report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.neighbours import neighbour_pairs
from audit.report import audit_all
from reference.cli import main
from reference.registry import REGISTRY


def test_neighbour_pairs_counts_match_the_combinatorics() -> None:
    grid = (0.0, 0.5, 1.0)
    # add/remove: multisets of size 0..1 over 3 values (1 + 3), each extended by 3 values
    assert len(list(neighbour_pairs(grid, 2, "add_remove"))) == (1 + 3) * 3
    # replace-one, n = 1: the 3 unordered pairs of distinct values
    assert len(list(neighbour_pairs(grid, 1, "replace_one"))) == 3
    pairs = list(neighbour_pairs(grid, 3, "replace_one"))
    assert len(pairs) == len(set(pairs))
    for d0, d1 in pairs:
        assert (
            len(d0) == len(d1)
            and sum(a != b for a, b in zip(sorted(d0), sorted(d1), strict=True)) >= 1
        )
    assert list(neighbour_pairs(grid, 1, "local")) == [
        ((0.0,), (0.5,)),
        ((0.0,), (1.0,)),
        ((0.5,), (1.0,)),
    ]


@pytest.mark.audit
def test_audit_all_writes_a_report_with_no_violation(tmp_path: Path) -> None:
    report = audit_all(tmp_path, seed=1)
    assert report["violations"] == [] and report["conformance_failures"] == []
    assert len(report["mechanisms"]) == len(REGISTRY)
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["mechanisms"][0]["exact"]["epsilon_exact_max"] == pytest.approx(1.0, abs=1e-12)
    assert "| randomized_response[eps=1] |" in (tmp_path / "report.md").read_text()


def test_cli_audit_requires_all(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit"]) == 2
    assert "--all" in capsys.readouterr().err
