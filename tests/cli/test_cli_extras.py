"""The command line without an optional dependency (issue 35): one line naming the extra,
exit 2, before any work."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dpquant.cli import main


@pytest.fixture
def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """matplotlib as if it were not installed (a None entry stops its import)."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_cli_plot_without_matplotlib_is_refused_before_the_audit(
    no_matplotlib: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the audit ran although --plot cannot be written")

    monkeypatch.setattr("dpquant.audit.pipeline.runner.audit_mechanism", never)
    target = "dpquant.reference.registry:REGISTRY"  # never reached: the plot check comes first
    code = main(["audit", target, "--plot", str(tmp_path / "r.png"), "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "--plot needs matplotlib" in err[0] and "dpquant[plots]" in err[0]



@pytest.mark.parametrize("paper", ["aamand25", "imola25", "fukuchi19", "tzamos20"])
def test_reproduce_without_matplotlib_is_refused_before_any_run(
    paper: str, no_matplotlib: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["reproduce", paper, "--out", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert f"dpquant reproduce {paper} (its figures) needs matplotlib" in err[0]
    assert "dpquant[plots]" in err[0]
    assert not any((tmp_path / "out").glob("*.csv"))
