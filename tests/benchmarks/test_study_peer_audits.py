"""``benchmarks/study_peer_audits.py`` (the peers' full-size audits, moved out of
tests/audit/suites/test_peers_audit.py) run on a tiny size, so that it cannot rot: its table, its
exit status, and the options it refuses."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script

study = load_script("study_peer_audits")


def test_the_validations_at_100_draws_a_data_set_hold_and_print_one_row_each(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """At 100 draws per data set (family-wise 1e-7) a correct library passes; a missing one is
    a row saying so."""
    assert study.main(["--only", "validate-opendp,validate-diffprivlib", "--samples", "100"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| validate")]
    assert [r.split(" | ")[0] for r in rows] == ["| validate-opendp", "| validate-diffprivlib"]
    assert all(r.endswith("| yes |") for r in rows), rows
    assert all("equivalent on" in r or "skipped" in r for r in rows), rows


def test_a_check_that_fails_makes_the_exit_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def failing(size: int) -> object:
        return study.Outcome("no violation", f"VIOLATION at {size}", False, 2.5, size)

    _, _, budget, default = study.CHECKS["opendp"]
    monkeypatch.setitem(study.CHECKS, "opendp", ("opendp", failing, budget, default))
    monkeypatch.setitem(study.PEERS, "opendp", lambda: None)  # installed or not
    assert study.main(["--only", "opendp", "--max-draws", "100000"]) == 1
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.startswith("| opendp |") and "VIOLATION at 100000" in row and row.endswith("| NO |")


@pytest.mark.parametrize(
    "args",
    [["--only", "opendb"], ["--only", ""], ["--max-draws", "99999"], ["--samples", "99"]],
)
def test_bad_options_are_refused_before_any_check_runs(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        study.main(args)
    assert info.value.code == 2
    assert "| check |" not in capsys.readouterr().out
