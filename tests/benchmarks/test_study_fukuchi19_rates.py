"""benchmarks/study_fukuchi19_rates.py at a small size, so that the full study cannot rot: its
table has a row per configuration, a passing row passes and a slope outside the tolerance fails
the run."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script


def test_the_study_passes_the_lower_alpha_smoke_size_and_fails_a_size_where_the_rate_is_off(
    capsys: pytest.CaptureFixture[str],
) -> None:
    study = load_script("study_fukuchi19_rates")
    ok = study.main(
        ["--corollary", "1", "--alphas", "1", "--epsilons", "1", "4", "--n0", "12", "--n1", "16"]
    )
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith(" ")]
    assert ok == 0 and [r[:3] for r in rows] == [["1", "1", "1"], ["1", "1", "4"]]
    assert not any("FAILED" in r for r in rows)
    # at n = 6 -> 8 the log factor dominates: the measured slope is far above the secant
    bad = study.main(
        ["--corollary", "1", "--alphas", "1", "--epsilons", "4", "--n0", "6", "--n1", "8"]
    )
    assert bad == 1 and "FAILED" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["--n0", "16", "--n1", "14"],
        ["--n0", "1"],
        ["--n1", "30"],
        ["--corollary", "3"],
        ["--alphas", "nan"],
        ["--alphas", "-1"],
        ["--epsilons", "inf"],
        ["--epsilons", "0"],
        ["--epsilons", "one"],
    ],
)
def test_the_study_refuses_sizes_and_corollaries_outside_its_range(argv: list[str]) -> None:
    study = load_script("study_fukuchi19_rates")
    with pytest.raises(SystemExit) as exc:
        study.main(argv)
    assert exc.value.code == 2


@pytest.mark.parametrize(("corollary", "n0", "n1"), [(3, 14, 20), (1, 8, 8), (1, 1, 8)])
def test_a_row_outside_the_grid_is_a_value_error(corollary: int, n0: int, n1: int) -> None:
    study = load_script("study_fukuchi19_rates")
    with pytest.raises(ValueError):
        study.slope_row(corollary, 1.0, 1.0, n0, n1)
