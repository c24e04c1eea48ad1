"""``benchmarks/bench_auditor_suite.py`` (the classic benchmark at the suite's size, of which
tests/audit/suites/test_classic_run.py runs a smoke subset) run on two rows at a small size, so
that it cannot rot: its rows, its acceptance lines and its exit status."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script

bench = load_script("bench_auditor_suite")


def test_two_rows_at_20000_draws_flag_the_incorrect_one_and_exit_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--epsilons", "0.5", "--only", "NoisyHist2", "LaplaceMechanism", "--samples", "20000"]
    assert bench.main(args) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()[:1]}
    assert "VIOLATION" in rows["NoisyHist2"] and "VIOLATION" not in rows["LaplaceMechanism"]
    assert "incorrect mechanisms missed: []" in out
    assert "correct mechanisms flagged: []" in out


def test_a_missed_incorrect_mechanism_makes_the_exit_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The audit replaced by a stand-in that flags nothing: the incorrect NoisyHist2 is missed."""

    def unflagged(e, eps, **kwargs):
        return bench.SuiteRun(e.name, eps, "incorrect", 2.0, False, 0.1, 10, 0.0, "", "")

    monkeypatch.setattr(bench, "run_entry", unflagged)
    assert bench.main(["--epsilons", "0.5", "--only", "NoisyHist2"]) == 1
    assert "incorrect mechanisms missed: [('NoisyHist2', 0.5)]" in capsys.readouterr().out
