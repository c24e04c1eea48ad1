"""``benchmarks/bench_parallel_laplace.py`` (issue 39: the parallel Laplace audited on its
records) runs at a tiny budget, so that it cannot rot."""

from __future__ import annotations

import numpy as np
import pytest
from benchmark_scripts import load_script

bench = load_script("bench_parallel_laplace")


def test_the_mechanism_is_twenty_laplace_copies_of_the_clipped_sum() -> None:
    mech = bench.parallel_laplace_mechanism(0.5)
    draws = mech.sample(np.array([0.5, 1.0]), 4_000, np.random.default_rng(0))
    assert draws.shape == (4_000, 20)
    assert abs(np.median(draws) - 1.5) < 3.0  # Laplace(40) about 1.5: the median's error is 0.2


def test_a_tiny_audit_prints_its_figures_and_passes_lenient_targets(capsys) -> None:
    argv = ["--max-draws", "100000", "--workers", "1", "--copies", "3"]
    argv += ["--min-ratio", "0", "--max-seconds", "600"]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    for figure in ("seconds:", "draws:", "eps_lb:", "eps_lb/eps:", "winning event:", "load"):
        assert figure in out
    assert "ok:" in out


def test_a_missed_target_fails_the_benchmark(monkeypatch, capsys) -> None:
    """A bound below the target ratio, or an audit slower than the target: exit 1, each miss
    named (the audit's figures stubbed: the failure path is the script's, not the auditor's)."""
    figures = {
        "seconds": 200.0, "draws": 4_000_000, "by_stage": {}, "bound": 0.1, "ratio": 0.2,
        "event": "sum(y) in (0, 1]", "shift": 1.0, "verdict": "no violation found", "load": (1.0, 1.0),
        "looked": True, "flagged": False,
    }  # fmt: skip
    monkeypatch.setattr(bench, "run", lambda *args: figures)
    assert bench.main(["--copies", "3"]) == 1
    out = capsys.readouterr().out
    assert "FAIL: eps_lb/eps 0.200 < 0.35; 200.0 s > 120 s" in out


@pytest.mark.parametrize(
    ("looked", "flagged", "verdict"),
    [(True, True, "VIOLATION"), (False, False, "INCONCLUSIVE: no draw")],
)
def test_a_flagged_or_inconclusive_audit_fails_the_benchmark_whatever_its_bound(
    monkeypatch, capsys, looked, flagged, verdict
) -> None:
    """The mechanism is correct: a violation is a false alarm, and an audit that could not look
    has measured nothing, so neither passes on a bound that meets the target."""
    figures = {
        "seconds": 1.0, "draws": 100_000, "by_stage": {}, "bound": 0.4, "ratio": 0.8,
        "event": "none", "shift": 1.0, "verdict": verdict, "load": (1.0, 1.0),
        "looked": looked, "flagged": flagged,
    }  # fmt: skip
    monkeypatch.setattr(bench, "run", lambda *args: figures)
    assert bench.main(["--copies", "3"]) == 1
    assert f"FAIL: verdict {verdict}" in capsys.readouterr().out
