"""The README's auditor examples run as written (a person copies them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _block_after(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(heading)
    match = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert match is not None, f"no python block after {heading!r}"
    return match.group(1)


@pytest.mark.audit
def test_the_query_answer_custom_and_record_space_examples_run(capsys) -> None:
    """Noisy max (value: flagged), a histogram, the SVT, a count over bit vectors under a custom
    relation and a sum of vector records: each audited as the README shows."""
    exec(compile(_block_after("**Beyond data sets of records"), "README.md", "exec"), {})
    assert "VIOLATION" in capsys.readouterr().out


def test_the_claims_in_other_measures_example_runs(capsys) -> None:
    """Randomised response under GDP (refuted exactly) and zCDP (met), the discrete Gaussian at
    0.8σ under its ρ (refuted), as the README shows."""
    exec(compile(_block_after("**Claims in other measures**"), "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "VIOLATION"
    assert lines[1] == "no violation found"
    assert lines[2].startswith("VIOLATION")
