"""Names on the command line (dpquant/cli/targets.py): a name of ``dpquant mechanisms`` is a
target of ``dpquant audit`` and ``dpquant validate``; a mistyped one gets the close names ("did
you mean"), on one line, exit 2 (issue 35, item 5); a MODULE:ATTR that nothing is close to keeps
its own message."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_errors import one_error_line

from dpquant.cli import main

REFERENCE = "exponential_quantile[q=0.5,eps=1,replace_one]"
TARGETS = Path(__file__).with_name("cli_targets.py")


@pytest.mark.parametrize(
    "typed, close",
    [
        ("em_no_hal", "'em_no_half'"),
        ("EM_NO_HALF", "'em_no_half'"),
        ("control_em_medain", "'control_em_median'"),
        ("randomized_response[eps=1", "'randomized_response[eps=1]'"),
        ("exponential_quantile", f"'{REFERENCE}'"),
        ("diffprivlib", "'peer:diffprivlib'"),
        ("python_dp", "'peer:python-dp'"),
    ],
)
def test_audit_of_a_mistyped_name_suggests_the_close_ones(
    typed: str, close: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", typed, "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f"dpquant: error: unknown mechanism {typed!r}; did you mean ")
    assert close in line and line.endswith("?")


def test_the_suggestions_are_at_most_four_and_joined_by_or(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", "exponential_quantile", "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line.count("'exponential_quantile[") == 4 and "' or '" in line


@pytest.mark.parametrize("typed", ["zzz_no_such_thing", "dp_bayes"])
def test_a_name_with_nothing_close_keeps_the_module_attr_message(
    typed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", typed, "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "target must be MODULE:ATTR or path/to/file.py:ATTR" in line
    assert "did you mean" not in line


def test_a_failing_module_attr_close_to_a_peer_gets_the_hint_after_its_own_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", "pear:opendp", "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "cannot import module 'pear'" in line and "did you mean 'peer:opendp'" in line


def test_a_genuine_module_attr_that_fails_gets_no_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "no_such_module_for_dpquant:fn", "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "cannot import module 'no_such_module_for_dpquant'" in line
    assert "did you mean" not in line


def test_validate_suggests_the_close_reference_and_the_close_candidate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["validate", REFERENCE[:-1], "peer:opendp"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"unknown mechanism {REFERENCE[:-1]!r}; did you mean {REFERENCE!r}" in line
    assert main(["validate", REFERENCE, "peer:difprivlib"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "unknown peer 'difprivlib'; did you mean 'peer:diffprivlib'?" in line
    assert main(["validate", REFERENCE, "em_no_hal"]) == 2
    assert "did you mean 'em_no_half'" in one_error_line(capsys.readouterr().err)


def test_validate_refuses_a_peer_as_the_reference_and_says_where_it_goes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["validate", "peer:diffprivlib", REFERENCE]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "peer:diffprivlib is another library's implementation: pass it as the candidate" in line


def test_audit_takes_a_name_of_dpquant_mechanisms_and_reports_under_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rr.json"
    code = main(
        ["audit", "randomized_response[eps=1]", "--samples", "2000", "-q", "--json", str(out)]
    )
    assert code == 0, capsys.readouterr()
    report = json.loads(out.read_text())
    assert report["mechanism"] == "randomized_response[eps=1]"
    assert report["claim"] == {"epsilon": 1.0, "delta": 0.0, "adjacency": "local"}


def test_audit_of_a_registry_name_uses_its_explicit_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The imola25 entry lists its neighbours (the registry's ``pairs``): they reach the auditor,
    as in ``--all``."""
    import dpquant.audit
    from dpquant.reference.registry import REGISTRY

    entry = next(e for e in REGISTRY if e.pairs is not None)
    seen: dict[str, object] = {}

    def record(mech: object, **options: object) -> None:
        seen.update(options)
        raise ValueError("recorded")

    monkeypatch.setattr(dpquant.audit, "audit_mechanism", record)
    assert main(["audit", entry.name, "-q"]) == 2
    given, listed = seen["pairs"], entry.pairs()
    assert isinstance(given, list) and len(given) == len(listed) > 0
    for (a, b), (c, d) in zip(given, listed, strict=True):
        assert np.array_equal(a, c) and np.array_equal(b, d)
    assert seen["options"].name == entry.name  # type: ignore[attr-defined]


def test_validate_takes_a_catalogue_name_as_the_candidate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``em_no_half`` (ε-weights without the ½) against Smith's EM: a difference, exit 1."""
    code = main(["validate", REFERENCE, "em_no_half", "--no-audit", "--samples", "2000"])
    assert code == 1
    assert "em_no_half" in capsys.readouterr().out
