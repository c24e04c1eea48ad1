"""What the command line prints for people (``dpquant/cli/messages.py``, ``audit.py``,
``validate.py``, ``claims.py``): progress on a terminal only, a failure's witness line, every claim
whole with ``--full``, nothing that says "n/a"."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from dpquant.cli import main
from dpquant.cli.messages import on_terminal, stderr_progress
from dpquant.reference.claims import load_ledger

TARGETS = Path(__file__).with_name("cli_targets.py")
LOCAL_01 = ["--epsilon", "1", "--adjacency", "local", "--domain", "0,1"]
SMALL = ["--samples", "2000", "--alpha", "1e-6"]


class Terminal(io.StringIO):
    """A stderr that is a terminal."""

    def isatty(self) -> bool:
        return True


class Detached(io.StringIO):
    """A stderr whose ``isatty`` fails (closed or detached)."""

    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


def _audit(*extra: str) -> list[str]:
    return ["audit", f"{TARGETS}:rr_fn", *LOCAL_01, *SMALL, *extra]


def test_an_audit_shows_its_progress_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    assert main(_audit()) == 0
    lines = screen.getvalue().splitlines()
    assert any(line.startswith("dpquant: black-box stage") for line in lines), lines
    assert all(line.startswith("dpquant: ") for line in lines)
    assert "no violation found" in capsys.readouterr().out


def test_an_audit_is_quiet_with_q_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    assert main(_audit("-q")) == 0
    assert screen.getvalue() == ""
    assert "witness: D = " in capsys.readouterr().out


def test_an_audit_is_quiet_when_stderr_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_audit()) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "no violation found" in captured.out


def test_a_stderr_that_cannot_say_whether_it_is_a_terminal_gets_no_progress(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stderr", Detached())
    assert not on_terminal() and stderr_progress(False) is None
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert on_terminal() and stderr_progress(False) is not None and stderr_progress(True) is None


def test_a_validation_shows_its_progress_and_a_failure_its_witness(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    argv = ["validate", "randomized_response[eps=1]", f"{TARGETS}:leaky_fn", "--samples", "500"]
    assert main([*argv, "--audit-samples", "2000"]) == 1
    lines = screen.getvalue().splitlines()
    assert lines[0].startswith("dpquant: validate: data set 1/"), lines
    assert any("validate: auditing" in line for line in lines)
    assert any(line.startswith("dpquant: black-box stage") for line in lines)
    out = capsys.readouterr().out
    assert "FAILED" in out and "  audit: " in out and "VIOLATION" in out
    witness = [line for line in out.splitlines() if line.startswith("  witness: ")]
    assert len(witness) == 1 and witness[0].startswith("  witness: D = (")
    assert "n/a" not in out


def test_a_validation_is_quiet_with_q(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    argv = ["validate", "randomized_response[eps=1]", f"{TARGETS}:rr_fn", "--samples", "500"]
    assert main([*argv, "--no-audit", "-q"]) == 0
    assert screen.getvalue() == "" and "PASSED" in capsys.readouterr().out


def test_a_blackbox_audit_prints_no_n_a(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_audit()) == 0
    out = capsys.readouterr().out
    assert "n/a" not in out and "exact ε" not in out  # a function has no exact law


def test_claims_full_shows_every_claim_whole_with_its_checks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["claims", "--full"]) == 0
    out = capsys.readouterr().out
    claims = load_ledger()
    cut = [c for c in claims if len(c.statement) > 72]
    assert cut, "the table cuts no statement: this test shows nothing"
    for c in claims:
        assert f"  statement: {c.statement}\n" in out, c.id
        assert all(f"    {check}\n" in out for check in c.checks), c.id
        if c.note:
            assert f"  note: {c.note}\n" in out, c.id
    assert out.count("  statement: ") == len(claims)
    assert "…\n" not in out
    assert f"({len(claims)} claims)" in out


def test_claims_without_full_cuts_long_statements_to_a_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["claims"]) == 0
    out = capsys.readouterr().out
    longest = max(load_ledger(), key=lambda c: len(c.statement))
    assert longest.statement not in out and longest.statement[:40] in out


def test_reproduce_shows_its_progress_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpquant.cli.reproduce import _progress

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    progress = _progress(quiet=False)
    assert progress is not None and _progress(quiet=True) is None
    progress("fig1a", 1, 2)
    progress("fig1a", 2, 2)
    assert "fig1a" in screen.getvalue()
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert _progress(quiet=False) is None
