"""``benchmarks/bench_audit.py``'s seed study (issue 39, item 3) on a tiny size, so that it cannot
rot: its lines and its exit status."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from benchmark_scripts import load_script

from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

bench = load_script("bench_audit")


def test_the_seed_study_exits_1_when_fewer_than_99_percent_reach_the_tightness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """At ε = 0.5 and 100 000 draws no audit can reach 0.8·ε (its evaluation draws promise at
    most about 0.6·ε, ``benchmarks/study_budget_limit.py``): two real seeded audits fail."""
    args = ["--study-only", "--budget", "100000", "--seeds", "2", "--epsilons", "0.5", "--no-leak"]
    assert bench.main(args) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("EM median eps=0.5: tightness >= 0.8 on 0/2 seeds (0..1)")
    assert line.endswith("0 flagged; FAIL (target 99%, none flagged)")


def test_the_seed_study_passes_when_every_seed_is_tight_and_the_leak_is_found(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def tight(mech: Any, **kwargs: Any) -> SimpleNamespace:
        eps = getattr(mech, "epsilon", 1.0)
        leak = not isinstance(mech, ExponentialQuantile)  # the multi-quantile leak is flagged
        return SimpleNamespace(epsilon_lower_bound=0.9 * eps, samples_used=7, violation=leak)

    monkeypatch.setattr(bench, "audit_mechanism", tight)
    args = ["--study-only", "--budget", "100000", "--seeds", "3", "--first-seed", "5"]
    assert bench.main([*args, "--epsilons", "1", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "EM median eps=1",
        "EM median eps=0.5",
        "multi_quantile_full_budget",
    ]
    assert all("3/3 seeds" in line for line in lines) and "(5..7)" in lines[0]


def test_the_seed_study_fails_when_an_audit_flags_the_correct_em_median(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tight bounds that come with a violation are false alarms on an ε-DP mechanism: exit 1."""

    def alarm(mech: Any, **kwargs: Any) -> SimpleNamespace:
        return SimpleNamespace(epsilon_lower_bound=1.2, samples_used=7, violation=True)

    monkeypatch.setattr(bench, "audit_mechanism", alarm)
    args = ["--study-only", "--budget", "100000", "--seeds", "2", "--epsilons", "1", "--no-leak"]
    assert bench.main(args) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert "on 2/2 seeds" in line and line.endswith("2 flagged; FAIL (target 99%, none flagged)")


def test_the_study_only_run_needs_a_budget_and_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        bench.main(["--study-only", "--seeds", "2"])
    assert info.value.code == 2
