"""The claims ledger stays in step with the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.claims import (
    PAPERS,
    STATUSES,
    check_exists,
    format_ledger,
    ledger_problems,
    load_ledger,
)
from reference.cli import main


def test_ledger_has_no_problems() -> None:
    problems = ledger_problems(load_ledger())
    assert problems == [], "\n".join(problems)


def test_ledger_covers_every_paper_with_its_numbered_results() -> None:
    claims = load_ledger()
    per_paper = {p: [c for c in claims if c.paper == p] for p in PAPERS}
    assert all(len(v) >= 10 for v in per_paper.values()), {p: len(v) for p, v in per_paper.items()}
    assert {c.status for c in claims} <= set(STATUSES)


def test_a_missing_check_and_a_checked_status_without_checks_are_flagged(tmp_path: Path) -> None:
    ledger = tmp_path / "claims.toml"
    ledger.write_text(
        '[[claim]]\nid = "imola25/lemma-9.9"\npaper = "imola25"\nkind = "lemma"\nnumber = "9.9"\n'
        'statement = "x"\nstatus = "verified"\nchecks = ["tests/test_nope.py::test_nothing"]\n\n'
        '[[claim]]\nid = "imola25/lemma-9.8"\npaper = "imola25"\nkind = "lemma"\nnumber = "9.8"\n'
        'statement = "y"\nstatus = "refuted"\nchecks = []\n\n'
        '[[claim]]\nid = "imola25/lemma-9.7"\npaper = "imola25"\nkind = "lemma"\nnumber = "9.7"\n'
        'statement = "z"\nstatus = "proven"\nchecks = []\n'
    )
    problems = ledger_problems(load_ledger(ledger))
    assert any("test_nothing does not exist" in p for p in problems)
    assert any("lemma-9.8: status 'refuted' needs at least one check" in p for p in problems)
    assert any("'proven' is not one of" in p for p in problems)


def test_check_exists_resolves_functions_classes_and_parameters() -> None:
    here = "tests/test_claims_ledger.py"
    assert check_exists(f"{here}::test_ledger_has_no_problems")
    assert check_exists(f"{here}::test_ledger_has_no_problems[param-1]")
    assert not check_exists(f"{here}::test_does_not_exist")
    assert not check_exists("tests/nope.py::test_x")
    assert not check_exists(here)


def test_format_ledger_counts_every_status() -> None:
    claims = load_ledger()
    text = format_ledger(claims)
    assert f"({len(claims)} claims)" in text
    for status in STATUSES:
        assert status in text.splitlines()[-len(PAPERS) - 1]


def test_cli_claims_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims"]) == 0
    out = capsys.readouterr().out
    assert "aamand25/theorem-1.1" in out and "total:" in out


def test_cli_claims_with_a_missing_ledger_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["claims", "--ledger", "/nonexistent/claims.toml"]) == 2
    assert "ledger file not found" in capsys.readouterr().err
