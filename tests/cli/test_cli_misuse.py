"""An attacker's pass over the command line (issue 34): hostile ledgers, a closed stdout, hostile
values of ``reproduce`` and of the list and count options. Misuse is exit code 2 and one line on
stderr naming the option, never exit 3, a traceback or a hang.

Every test runs ``main`` in-process (the studies replaced by a stand-in that records the parsed
configuration) except the closed-pipe ones, which need a real pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpquant.cli import main
from dpquant.cli.reproduce import STUDIES

GOOD_CLAIM = (
    '[[claim]]\nid = "imola25/lemma-9.9"\npaper = "imola25"\nkind = "lemma"\nnumber = "9.9"\n'
    'statement = "x"\nstatus = "todo"\n'
)
REPO = Path(__file__).resolve().parents[2]


def error_line(err: str, *needles: str) -> str:
    """The one error line of a refused command, holding every needle."""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpquant: error: "), err
    assert all(n in lines[0] for n in needles), (needles, lines[0])
    assert "Traceback" not in err
    return lines[0]


# --------------------------------------------------------------------------------------------
# dpquant claims --ledger PATH


def _write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def _sparse(path: Path) -> Path:
    with path.open("wb") as fh:
        fh.write(GOOD_CLAIM.encode())
        fh.truncate(2**33)  # 8 GiB, none of it on disk
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


HOSTILE_LEDGERS = {
    "a folder": lambda d: d,
    "an empty file": lambda d: _write(d / "x.toml", ""),
    "random bytes": lambda d: _write(d / "x.toml", np.random.default_rng(34).bytes(4096)),  # seeded
    "a PNG": lambda d: _write(d / "x.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64),
    "NUL bytes": lambda d: _write(d / "x.toml", b"\x00" * 100),
    "malformed TOML": lambda d: _write(d / "x.toml", "claim = [\n"),
    "claims that are not tables": lambda d: _write(d / "x.toml", "claim = [1, 2]\n"),
    "a claim that is not an array": lambda d: _write(d / "x.toml", "claim = 5\n"),
    "no claims": lambda d: _write(d / "x.toml", 'title = "x"\n'),
    "missing fields": lambda d: _write(d / "x.toml", '[[claim]]\nid = "x"\n'),
    "wrong types": lambda d: _write(d / "x.toml", GOOD_CLAIM.replace('"x"', "[1, 2]")),
    "a huge string": lambda d: _write(
        d / "x.toml", GOOD_CLAIM.replace('"x"', '"' + "x" * 10**6 + '"')
    ),
    "an escape sequence": lambda d: _write(d / "x.toml", GOOD_CLAIM.replace('"x"', '"\\u001b[2J"')),
    "an integer too long": lambda d: _write(d / "x.toml", "x = " + "9" * 5000 + "\n"),
    "not UTF-8": lambda d: _write(d / "x.toml", GOOD_CLAIM.replace("x", "é").encode("latin-1")),
    "nested 100000 deep": lambda d: _write(d / "x.toml", "x = " + "[" * 10**5 + "]" * 10**5),
    "tables nested 100000 deep": lambda d: _write(
        d / "x.toml", "x = " + "{a = " * 10**5 + "1" + "}" * 10**5
    ),
    "a missing path": lambda d: d / "missing.toml",
    "a path under a file": lambda d: _write(d / "f", "x") / "claims.toml",
    "a FIFO": lambda d: _fifo(d / "fifo.toml"),
    "a huge sparse file": lambda d: _sparse(d / "x.toml"),
    "a character device": lambda d: Path("/dev/zero"),
    "a name too long": lambda d: d / ("x" * 300),
}


@pytest.mark.parametrize("kind", list(HOSTILE_LEDGERS))
def test_a_hostile_ledger_is_one_line_naming_ledger(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = HOSTILE_LEDGERS[kind](tmp_path)
    assert main(["claims", "--ledger", str(path)]) == 2
    captured = capsys.readouterr()
    error_line(captured.err, "--ledger")
    assert captured.out == ""


def test_an_unreadable_ledger_is_one_line_naming_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As root a mode of 000 does not stop reading: the refusal of the open is simulated (and the
    real mode tested when not root)."""
    from dpquant.reference import claims as claims_module

    ledger = _write(tmp_path / "x.toml", GOOD_CLAIM)
    if os.geteuid() != 0:
        ledger.chmod(0)
    else:

        def denied(path: Path) -> int:
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(claims_module, "_open_ledger", denied)
    assert main(["claims", "--ledger", str(ledger)]) == 2
    error_line(capsys.readouterr().err, "--ledger", "Permission denied")


def test_a_ledger_whose_test_ids_point_outside_the_tests_is_read_safely(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checks = '["/dev/zero::x", "../../../../etc/passwd::x", "README.md::x"]'
    ledger = _write(
        tmp_path / "x.toml", GOOD_CLAIM.replace('"todo"', '"verified"') + f"checks = {checks}\n"
    )
    assert main(["claims", "--ledger", str(ledger)]) == 1
    err = capsys.readouterr().err
    assert err.count("does not exist") == 3 and "Traceback" not in err


# --------------------------------------------------------------------------------------------
# a closed stdout: dpquant claims | head -1


class ClosedPipe:
    """A stdout whose reader has gone: every write raises ``BrokenPipeError``."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise OSError("no file descriptor")


TARGETS = Path(__file__).with_name("cli_targets.py")
PRINTING = [
    ["claims"],
    ["claims", "--full"],
    ["mechanisms"],
    ["audit", f"{TARGETS}:rr_fn", "--epsilon", "1", "--adjacency", "local", "--domain", "0,1",
     "--samples", "2000"],
    ["validate", "randomized_response[eps=1]", f"{TARGETS}:rr_fn", "--samples", "500",
     "--no-audit"],
]  # fmt: skip


def command_id(command: list[str]) -> str:
    """The first two words of ``command``, a target file by its name (ids stay the same anywhere)."""
    return " ".join(Path(word).name if word.startswith("/") else word for word in command[:2])


@pytest.mark.parametrize("command", PRINTING, ids=command_id)
def test_a_closed_stdout_ends_a_listing_quietly(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(command) in (0, 1)  # 1: a problem of the ledger, said on stderr
    err = capsys.readouterr().err
    assert "Broken pipe" not in err and "error" not in err


@pytest.mark.parametrize("command", PRINTING, ids=command_id)
def test_a_listing_piped_into_a_reader_that_quits_says_nothing_of_it(command: list[str]) -> None:
    """``dpquant claims | head -1``: the reader is gone before the first write."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "dpquant", *command],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) in (0, 1), err
    assert "Broken pipe" not in err and "Exception ignored" not in err and "Traceback" not in err


# --------------------------------------------------------------------------------------------
# dpquant reproduce PAPER with hostile values


@pytest.fixture
def studies_recorded(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every study's ``run`` replaced by a stand-in that records its configuration."""
    seen: list[Any] = []
    for study, _ in STUDIES.values():

        def stand_in(config: Any, **kwargs: Any) -> list[Path]:
            seen.append(config)
            return []

        monkeypatch.setattr(study, "run", stand_in)
    return seen


def reproduce(paper: str, *argv: str, out: Path) -> list[str]:
    return ["reproduce", paper, "--quick", "-q", "--out", str(out), *argv]


HOSTILE_NUMBERS = ["nan", "inf", "-inf", "-1", "0", "1e400", "10**400", "1" + "0" * 400, "",
                   "true", "True", "1.5", "3.0", "1e3", "0x10", "1_000", "\u0663", "abc"]  # fmt: skip
STUDY_OPTIONS = {
    "aamand25": ["--runs", "--seed", "--workers"],
    "imola25": ["--m", "--duplication", "--jointexp-runs", "--jointexp-m"],
    "fukuchi19": ["--other-runs", "--min-log2n", "--max-log2n", "--exact-max-levels"],
    "tzamos20": ["--n-values", "--c"],
}
VALID = {"0": ("--jointexp-runs", "--exact-max-levels", "--seed"), "1.5": ("--c",),
         "3.0": ("--c",), "1e3": ("--c",)}  # fmt: skip


@pytest.mark.parametrize(
    ("paper", "option"), [(p, o) for p, options in STUDY_OPTIONS.items() for o in options]
)
def test_hostile_numbers_of_a_study_are_one_line_naming_the_option(
    paper: str,
    option: str,
    studies_recorded: list[Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for text in HOSTILE_NUMBERS:
        if option in VALID.get(text, ()):
            continue
        assert main(reproduce(paper, f"{option}={text}", out=tmp_path)) == 2, (option, text)
        error_line(capsys.readouterr().err, option)
    assert studies_recorded == []


@pytest.mark.parametrize(
    ("paper", "option", "text"),
    [
        ("imola25", "--m", "10,10"),
        ("imola25", "--m", "10,20,10"),
        ("imola25", "--m", "10,,20"),
        ("imola25", "--m", "10,"),
        ("imola25", "--jointexp-m", "10,10"),
        ("imola25", "--panels", "a,a"),
        ("imola25", "--panels", ""),
        ("imola25", "--panels", "a,,c"),
        ("tzamos20", "--n-values", "8,8"),
        ("tzamos20", "--regimes", "quick,quick"),
        ("tzamos20", "--distributions", "uniform,uniform"),
        ("fukuchi19", "--data-models", "fixed,fixed"),
        ("fukuchi19", "--schedules", "lower_alpha,,unknown_alpha"),
    ],
)
def test_a_list_with_a_repeated_or_an_empty_item_is_refused(
    paper: str,
    option: str,
    text: str,
    studies_recorded: list[Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(reproduce(paper, f"{option}={text}", out=tmp_path)) == 2
    error_line(capsys.readouterr().err, option)


@pytest.mark.parametrize(
    ("name", "hint"),
    [("imola2", "did you mean imola25"), ("IMOLA25", "did you mean imola25"),
     ("tzamos", "did you mean tzamos20"), ("", "the papers: aamand25"),
     ("xyz", "the papers: aamand25")],
)  # fmt: skip
def test_an_unknown_paper_is_refused_with_the_closest_names(
    name: str, hint: str, studies_recorded: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reproduce", name, "--quick"]) == 2
    error_line(capsys.readouterr().err, "PAPER", hint)


@pytest.mark.parametrize(
    ("paper", "argv", "option"),
    [
        ("aamand25", ["--m", "10"], "--m"),
        ("aamand25", ["--c", "5/4"], "--c"),
        ("imola25", ["--figure", "fig1a"], "--figure"),
        ("tzamos20", ["--laplace", "main"], "--laplace"),
        ("fukuchi19", ["--laplace-iid", "yes"], "yes"),
        ("aamand25", ["--figure", ""], "--figure"),
        ("aamand25", ["--figure", "fig9"], "--figure"),
        ("fukuchi19", ["--settings", "All"], "--settings"),
    ],
)
def test_another_papers_option_or_a_bad_choice_is_one_line_naming_it(
    paper: str,
    argv: list[str],
    option: str,
    studies_recorded: list[Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(reproduce(paper, *argv, out=tmp_path)) == 2
    error_line(capsys.readouterr().err, option)


def test_out_must_be_a_folder_it_can_write(
    studies_recorded: list[Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a_file = _write(tmp_path / "a_file", "x")
    for out, why in [(a_file, "is a file"), (Path("/dev/null"), "not a folder"),
                     (a_file / "sub", "which is a file"), (Path("/proc/x"), "cannot write")]:  # fmt: skip
        assert main(["reproduce", "aamand25", "--quick", "--out", str(out)]) == 2
        error_line(capsys.readouterr().err, "--out", why)
    for out in ("", "nul\0byte"):
        assert main(["reproduce", "aamand25", "--quick", "--out", out]) == 2
        error_line(capsys.readouterr().err, "--out")
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o500)
    else:  # root writes anywhere: the refusal of the write is simulated
        from dpquant.cli import paths

        def denied(*args: Any, **kwargs: Any) -> Any:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(paths.tempfile, "mkstemp", denied)
    assert main(["reproduce", "aamand25", "--quick", "--out", str(locked / "new")]) == 2
    error_line(capsys.readouterr().err, "--out", "Permission denied")
    assert studies_recorded == []


def test_valid_values_reach_the_study(
    studies_recorded: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(reproduce("imola25", "--m=20,10", "--runs", "+3", "--seed=-0", out=tmp_path)) == 0
    assert main(reproduce("tzamos20", "--c", "1e6", "--n-values", "8", out=tmp_path)) == 0
    imola, tzamos = studies_recorded
    assert imola.runs == 3 and imola.seed == 0 and sorted(imola.ms) == [10, 20]
    assert tzamos.c == 10**6


# --------------------------------------------------------------------------------------------
# dpquant audit TARGET --input-values / --max-draws, at the parsing level


@pytest.fixture
def no_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit itself must never be reached by these refusals (it would exit 3)."""
    from dpquant import audit

    def reached(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the audit ran")

    monkeypatch.setattr(audit, "audit_mechanism", reached)


FUNCTION = [
    "audit", f"{REPO / 'tests' / 'cli' / 'cli_targets.py'}:rr_fn", "-q",
    "--epsilon", "1", "--adjacency", "local", "--domain", "0,1",
]  # fmt: skip
HOSTILE_INPUT_VALUES = [
    "nan", "inf", "-inf", "0,nan", "1,inf", "", ",", "0,0", "0,1,0", "-0,0", "0.5,0.50",
    "1,,0", "1,", ",1", "a,b", "1e400", "10**400", "1" + "0" * 400, "0_1", "\u0660", "true",
    "True,False", "[0,1]", "0;1", ",".join(str(i / 20001) for i in range(20001)),
]  # fmt: skip
HOSTILE_MAX_DRAWS = [
    "nan", "inf", "-inf", "", "1e6", "1000000.0", "1.5", "-1", "0", "99", "10**400",
    "1" + "0" * 400, "true", "True", "1_000_000", "\u0661\u0660\u0660\u0660\u0660\u0660\u0660",
    "1000000,2000000", str(10**13),
]  # fmt: skip


@pytest.mark.parametrize("text", HOSTILE_INPUT_VALUES, ids=lambda t: repr(t[:20]))
def test_hostile_input_values_are_one_line_naming_the_option(
    text: str, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*FUNCTION, f"--input-values={text}"]) == 2
    error_line(capsys.readouterr().err, "--input-values")


@pytest.mark.parametrize("text", HOSTILE_MAX_DRAWS, ids=lambda t: repr(t[:20]))
def test_hostile_max_draws_are_one_line_naming_the_option(
    text: str, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*FUNCTION, f"--max-draws={text}"]) == 2
    error_line(capsys.readouterr().err, "--max-draws")


def test_list_options_read_their_values_exactly() -> None:
    from dpquant.options import parse_float_list, parse_int_list, parse_names

    assert parse_float_list(" -1.5 , 0 ,2e-3,.5", "--x") == (-1.5, 0.0, 0.002, 0.5)
    assert parse_int_list("3, +4", "--x", 1, 9) == (3, 4)
    assert parse_names("b,a", "--x", ("a", "b")) == ("b", "a")
    with pytest.raises(ValueError, match=r"--x must not repeat a value \(0.0 twice\)"):
        parse_float_list("-0,0", "--x")


def test_validate_refuses_repeated_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["validate", "randomized_response[eps=1]", "randomized_response[eps=1]"]
    assert main([*argv, "--sizes", "5,9,5", "--no-audit"]) == 2
    error_line(capsys.readouterr().err, "--sizes", "must not repeat a value (5 twice)")
