"""``benchmarks/study_tzamos20_fixed_search.py`` (the 1 500-example counterexample search moved out
of ``tests/reference/private_median/test_tzamos20_fixed_variant.py``) runs at a tiny size, so that
it cannot rot."""

from __future__ import annotations

from benchmark_scripts import load_script

study = load_script("study_tzamos20_fixed_search")


def test_the_search_passes_on_a_few_examples(capsys) -> None:
    assert study.main(["--examples", "5", "--seed", "1"]) == 0
    assert "ok: no counterexample in 5 examples" in capsys.readouterr().out


def test_a_counterexample_fails_the_study(monkeypatch, capsys) -> None:
    """A search that finds a counterexample (hypothesis re-raises the property's failure): exit
    1, the failure printed."""

    def found(examples: int, seed: int | None) -> None:
        raise AssertionError("a counterexample")

    monkeypatch.setattr(study, "search", found)
    assert study.main(["--examples", "5"]) == 1
    assert "FAIL: counterexample" in capsys.readouterr().out
