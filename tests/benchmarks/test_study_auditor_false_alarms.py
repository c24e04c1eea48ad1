"""``benchmarks/study_auditor_false_alarms.py`` (the 50-seed false-alarm study moved out of
``tests/audit/test_audit_acceptance.py``) runs at a tiny size, so that it cannot rot."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script

study = load_script("study_auditor_false_alarms")


def test_the_study_passes_on_two_seeds_of_randomized_response(capsys) -> None:
    assert study.main(["--seeds", "2", "--mechanism", "randomized_response"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("randomized_response"))
    assert row.split()[1:3] == ["2", "0"]  # 2 audits, none flagged
    assert "ok: no false violation" in out


def test_the_study_fails_when_a_seed_is_flagged(monkeypatch, capsys) -> None:
    """A study whose auditor flags seed 1 exits 1 and names the seed."""
    monkeypatch.setattr(study, "flagged_seeds", lambda mech, seeds, alpha: ([1], 1.5))
    assert study.main(["--seeds", "2", "--mechanism", "randomized_response"]) == 1
    assert "flagged seeds: [1]" in capsys.readouterr().out


def test_an_unknown_mechanism_is_refused() -> None:
    with pytest.raises(SystemExit):
        study.main(["--mechanism", "laplace"])
