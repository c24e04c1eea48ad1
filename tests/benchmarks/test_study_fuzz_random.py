"""benchmarks/study_fuzz_random.py at a tiny size, so that the full-size run cannot rot: it runs
the entries it is given and exits 0, and a failing entry is a FAILED row and exit 1."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _study() -> ModuleType:
    path = ROOT / "benchmarks" / "study_fuzz_random.py"
    spec = importlib.util.spec_from_file_location("study_fuzz_random", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_study_runs_the_named_entries_and_passes_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    study = _study()
    names = ["check_int", "RandomizedResponse.sample"]
    assert study.main(["--examples", "3", "--only", ",".join(names)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.split(" ")[0] in names]
    assert len(rows) == 2 and all(line.endswith("ok") for line in rows)
    assert "2 entries, 3 examples each" in out and "every entry passed" in out


def test_an_entry_that_raises_another_exception_is_a_failed_row() -> None:
    study = _study()
    from harness import Entry

    def broken(x: float) -> float:
        raise TypeError("not a ValueError")

    entry = Entry("broken", broken, {"x": 0.5}, {"x": "real"})
    finding = study.check_entry(entry, 3)
    assert finding is not None and "raised TypeError" in finding
    with pytest.raises(SystemExit):  # an unknown name is a usage error
        study.main(["--only", "no such entry"])
