"""benchmarks/study_partition_coverage.py at a tiny size, so that the full-size study cannot rot:
its table has every row, a vacuous bound fails its row, and coverage holds."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script


def test_the_study_prints_every_row_and_fails_the_vacuous_ones_at_four_draws(
    capsys: pytest.CaptureFixture[str],
) -> None:
    study = load_script("study_partition_coverage")
    code = study.main(["--n", "4"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("renyi", "zcdp"))]
    assert len(rows) == len(study.RENYI_ROWS) + len(study.ZCDP_ROWS)
    # at 4 draws a side the Rényi bound at order 2 is never positive: that row is vacuous
    failed = [line for line in rows if line.endswith("FAILED")]
    assert code == 1 and any(line.split()[:3] == ["renyi", "0.1", "2"] for line in failed)
    assert not any(line.startswith("zcdp") for line in failed)  # coverage holds at any size


def test_the_study_sums_probabilities_over_every_pair_of_count_vectors() -> None:
    """The failure and positive probabilities are probabilities; the zCDP bound covers."""
    study = load_script("study_partition_coverage")
    failure, positive = study.renyi_coverage(4, 0.5, float("inf"))
    assert 0.0 <= failure <= 0.5 and 0.0 <= positive <= 1.0
    assert study.zcdp_coverage(4, 0.3, 0.0) <= 0.3
