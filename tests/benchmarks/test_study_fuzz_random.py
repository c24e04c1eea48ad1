"""benchmarks/study_fuzz_random.py at a tiny size, so that the full-size run cannot rot: it runs
the entries it is given and exits 0, and a failing entry is a FAILED row and exit 1."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script


def test_the_study_runs_the_named_entries_and_passes_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    study = load_script("study_fuzz_random")
    names = ["check_int", "RandomizedResponse.sample"]
    assert study.main(["--examples", "3", "--only", ",".join(names)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.split(" ")[0] in names]
    assert len(rows) == 2 and all(line.endswith("ok") for line in rows)
    assert "2 entries, 3 examples each" in out and "every entry passed" in out


def test_an_entry_that_raises_another_exception_is_a_failed_row() -> None:
    study = load_script("study_fuzz_random")
    from harness import Entry

    def broken(x: float) -> float:
        raise TypeError("not a ValueError")

    entry = Entry("broken", broken, {"x": 0.5}, {"x": "real"})
    finding = study.check_entry(entry, 3)
    assert finding is not None and "raised TypeError" in finding
    with pytest.raises(SystemExit):  # an unknown name is a usage error
        study.main(["--only", "no such entry"])
