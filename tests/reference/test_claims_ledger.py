"""The claims ledger stays in step with the tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dpquant.cli import main
from dpquant.reference import claims as claims_module
from dpquant.reference.claims import (
    PAPERS,
    STATUSES,
    check_exists,
    format_ledger,
    ledger_problems,
    load_ledger,
)


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
    here = "tests/reference/test_claims_ledger.py"
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


# --------------------------------------------------------------------------------------------
# Bad input (issue 18): a ValueError naming the parameter, never a traceback from deep inside
# --------------------------------------------------------------------------------------------

GOOD_CLAIM = (
    '[[claim]]\nid = "imola25/lemma-9.9"\npaper = "imola25"\nkind = "lemma"\nnumber = "9.9"\n'
    'statement = "x"\nstatus = "todo"\n'
)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda d: d, "path must name a ledger file.*not a regular file"),  # a directory
        (lambda d: d / "missing.toml", "ledger file not found.*path must name"),
        (lambda d: d / "a" / "b.toml", "ledger file not found"),
        (lambda d: _write(d / "x.toml", "not = = TOML [[["), "path .* is not a TOML ledger"),
        (lambda d: _write(d / "x.toml", b"\xff\xfe\x80binary"), "path .* is not a TOML ledger"),
        (lambda d: _write(d / "x.toml", 'title = "other"\n'), "path .* has no \\[\\[claim\\]\\]"),
        (lambda d: _write(d / "x.toml", "claim = 5\n"), "path .*'claim' must be an array"),
        (lambda d: _write(d / "x.toml", "claim = [1]\n"), "path .*must be a \\[\\[claim\\]\\]"),
        (lambda d: _write(d / "x.toml", GOOD_CLAIM.replace('"x"', "5")), "path .*statement"),
        (lambda d: _write(d / "x.toml", GOOD_CLAIM + "checks = 'a'\n"), "path .*checks"),
        (lambda d: 5, "path must be a path"),
        (lambda d: b"notes/claims.toml", "path must be a path"),
        (lambda d: "x" * 5000, "ledger file not found"),  # ENAMETOOLONG is not an OSError here
        (lambda d: "a\0b", "ledger file not found"),
    ],
)
def test_load_ledger_refuses_hostile_paths_naming_path(tmp_path: Path, make, match) -> None:
    with pytest.raises(ValueError, match=match) as info:
        load_ledger(make(tmp_path))
    assert "path" in str(info.value) and len(str(info.value)) < 600


def _write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def test_load_ledger_none_is_the_default_ledger_and_numbers_become_text(tmp_path: Path) -> None:
    assert load_ledger(None) == load_ledger()
    ledger = _write(tmp_path / "x.toml", GOOD_CLAIM.replace('number = "9.9"', "number = 9.9"))
    (claim,) = load_ledger(ledger)
    assert claim.number == "9.9" and claim.checks == ()


def test_without_the_repository_ledger_load_ledger_says_where_it_looked_and_takes_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither notes/ nor a packaged copy: the default ledger is missing, a given path works."""
    missing = tmp_path / "notes" / "claims.toml"
    monkeypatch.setattr(claims_module, "DEFAULT_LEDGER", missing)
    monkeypatch.setattr(claims_module, "PACKAGED_LEDGER", tmp_path / "reference" / "claims.toml")
    with pytest.raises(ValueError, match="ledger file not found") as info:
        load_ledger()
    assert str(missing) in str(info.value) and "path=" in str(info.value)
    assert "installed package" in str(info.value)
    ledger = _write(tmp_path / "mine.toml", GOOD_CLAIM)
    assert [c.id for c in load_ledger(ledger)] == ["imola25/lemma-9.9"]
    assert [c.id for c in load_ledger(str(ledger))] == ["imola25/lemma-9.9"]


def test_format_ledger_problems_and_counts_refuse_what_is_not_a_list_of_claims() -> None:
    from dpquant.reference.claims import Claim, status_counts

    claims = load_ledger()[:2]
    for bad in (None, 5, "claims", [None], [*claims, {"id": "x"}], claims[0]):
        for fn in (format_ledger, ledger_problems, status_counts):
            with pytest.raises(ValueError, match="^claims must be a list of Claim"):
                fn(bad)
    for width in (0, -1, True, 2.5, "72", None):
        with pytest.raises(ValueError, match="width"):
            format_ledger(claims, width=width)
    assert "…" in format_ledger(claims, width=1)
    with pytest.raises(ValueError, match="root"):
        ledger_problems(claims, root=5)
    with pytest.raises(ValueError, match="statement"):
        Claim("imola25/x", "imola25", "lemma", "1", None, "todo")  # type: ignore[arg-type]


def test_check_exists_is_false_for_unreadable_or_unparsable_files_and_refuses_non_strings(
    tmp_path: Path,
) -> None:
    _write(tmp_path / "broken.py", "def (:\n")
    _write(tmp_path / "binary.py", b"\x00\xff\xfe")
    assert not check_exists("broken.py::test_x", tmp_path)
    assert not check_exists("binary.py::test_x", tmp_path)
    assert not check_exists(".::test_x", tmp_path)  # a directory
    assert not check_exists("x" * 5000 + "::test_x", tmp_path)
    assert not check_exists("a\0b::test_x", tmp_path)
    with pytest.raises(ValueError, match="node_id"):
        check_exists(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="root"):
        check_exists(
            "tests/reference/test_claims_ledger.py::test_ledger_has_no_problems", root=None
        )


def test_an_installed_package_reads_its_shipped_ledger_and_skips_only_the_test_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside a source checkout (notes/ and tests/ absent) the copy the wheel ships is read and
    every check but the existence of the test ids is made (tests/packaging/ builds the wheel)."""
    (tmp_path / "site" / "reference").mkdir(parents=True)
    shipped = _write(
        tmp_path / "site" / "reference" / "claims.toml", claims_module.DEFAULT_LEDGER.read_bytes()
    )
    assert claims_module.source_checkout()
    monkeypatch.setattr(claims_module, "DEFAULT_LEDGER", tmp_path / "site" / "notes" / "x.toml")
    monkeypatch.setattr(claims_module, "PACKAGED_LEDGER", shipped)
    assert not claims_module.source_checkout()
    assert claims_module.default_ledger() == shipped
    claims = load_ledger()
    assert len(claims) > 50
    assert ledger_problems(claims, root=tmp_path, check_ids=False) == []
    assert ledger_problems(claims, root=tmp_path)  # every test id missing there
    assert main(["claims"]) == 0
    captured = capsys.readouterr()
    assert "total:" in captured.out
    assert "note: the test ids were not checked" in captured.err


def test_ledger_problems_without_test_ids_still_finds_the_other_problems(tmp_path: Path) -> None:
    ledger = _write(tmp_path / "x.toml", GOOD_CLAIM.replace('"todo"', '"verified"'))
    problems = ledger_problems(load_ledger(ledger), check_ids=False)
    assert problems == ["imola25/lemma-9.9: status 'verified' needs at least one check"]
    for bad in (None, 1, "yes"):
        with pytest.raises(ValueError, match="check_ids must be a bool"):
            ledger_problems(load_ledger(ledger), check_ids=bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# An attacker's ledgers (issue 34): each a ValueError naming path, never another exception, a
# hang or an unbounded read
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, match",
    [
        ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deep"),
        ("x = " + "{a = " * 100_000 + "1" + "}" * 100_000 + "\n", "nested too deep"),
        ("x = " + "1" * 5000 + "\n", "is not a TOML ledger"),  # int() refuses 4300+ digits
        (GOOD_CLAIM.replace('"9.9"', "0x" + "f" * 5000), "number must be"),  # str() refuses
        (GOOD_CLAIM.replace('"x"', '"' + "x" * 100_000 + '"'), "statement must have at most"),
        (GOOD_CLAIM.replace('"imola25/lemma-9.9"', '"' + "i" * 1000 + '"'), "id must have at"),
        (GOOD_CLAIM + "checks = [" + '"t.py::t", ' * 5000 + "]\n", "at most 1000 checks"),
        (GOOD_CLAIM.replace('"x"', '"\\u001b]0;owned\\u0007"'), "control character"),
        (GOOD_CLAIM + 'checks = ["a\\nb"]\n', "control character"),
    ],
)
def test_load_ledger_refuses_hostile_toml_naming_path(tmp_path: Path, content: str, match) -> None:
    ledger = _write(tmp_path / "x.toml", content)
    with pytest.raises(ValueError, match=match) as info:
        load_ledger(ledger)
    assert "path" in str(info.value) and len(str(info.value)) < 600


def test_load_ledger_reads_at_most_the_size_cap(tmp_path: Path) -> None:
    """A sparse file of 8 GiB is refused after reading the cap, not read whole."""
    ledger = tmp_path / "huge.toml"
    with ledger.open("wb") as fh:
        fh.write(GOOD_CLAIM.encode())
        fh.truncate(2**33)
    with pytest.raises(ValueError, match=r"path .* larger than .* bytes"):
        load_ledger(ledger)


def test_load_ledger_refuses_a_fifo_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "claims.toml"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="path must name a ledger file.*not a regular file"):
        load_ledger(fifo)


def test_load_ledger_refuses_a_file_it_may_not_read_naming_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root a mode of 000 does not stop reading: the refusal of the open is simulated."""
    ledger = _write(tmp_path / "x.toml", GOOD_CLAIM)

    def denied(path: Path) -> int:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(claims_module, "_open_ledger", denied)
    with pytest.raises(ValueError, match=r"path .*cannot read the ledger \(Permission denied\)"):
        load_ledger(ledger)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_load_ledger_refuses_a_file_of_mode_000(tmp_path: Path) -> None:
    ledger = _write(tmp_path / "x.toml", GOOD_CLAIM)
    ledger.chmod(0)
    with pytest.raises(ValueError, match="path .*cannot read the ledger"):
        load_ledger(ledger)


def test_check_exists_reads_only_python_files_under_root(tmp_path: Path) -> None:
    _write(tmp_path / "test_a.py", "def test_x():\n    pass\n")
    _write(tmp_path / "notes.txt", "def test_x():\n    pass\n")
    (tmp_path / "sub").mkdir()
    assert check_exists("test_a.py::test_x", tmp_path)
    assert not check_exists("notes.txt::test_x", tmp_path)  # not a test module
    assert not check_exists(f"{tmp_path / 'test_a.py'}::test_x", tmp_path / "sub")  # absolute
    assert not check_exists("../test_a.py::test_x", tmp_path / "sub")  # outside root


def test_ledger_problems_parses_each_test_module_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ledger listing one module thousands of times does not parse it thousands of times."""
    here = "tests/reference/test_claims_ledger.py::test_ledger_has_no_problems"
    claim = claims_module.Claim("imola25/x", "imola25", "lemma", "1", "s", "verified", (here,))
    parsed: list[str] = []
    real_parse = claims_module.ast.parse

    def counting(source: Any, *args: Any, **kwargs: Any) -> Any:
        parsed.append("parse")
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(claims_module.ast, "parse", counting)
    assert ledger_problems([claim] * 2000) == ["imola25/x: duplicate id"]
    assert len(parsed) <= 1
