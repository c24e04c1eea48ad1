"""dpquant.audit.report.extras (issue 35): a feature whose optional dependency is missing says so when
it is used, naming the extra that installs it; nothing returns None in its place."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from dpquant.audit import audit_mechanism
from dpquant.audit.report.extras import EXTRAS, MissingExtra, missing, require
from dpquant.cli import batch_audit as batch
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.randomized_response import RandomizedResponse


@pytest.fixture
def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """matplotlib as if it were not installed (a None entry stops its import)."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def _report():
    return audit_mechanism(RandomizedResponse(1.0), samples=500, seed=0)


def test_require_returns_the_module_when_it_is_installed() -> None:
    assert require("matplotlib", "a plot").__name__ == "matplotlib"
    assert require("matplotlib.figure", "a plot").__name__ == "matplotlib.figure"
    assert missing("matplotlib", "a plot") is None


def test_a_missing_module_is_an_import_error_naming_its_extra(no_matplotlib: None) -> None:
    with pytest.raises(MissingExtra) as info:
        require("matplotlib.pyplot", "report.plot()")
    exc = info.value
    assert isinstance(exc, ImportError)
    assert (exc.module, exc.extra, exc.feature) == ("matplotlib", "plots", "report.plot()")
    assert "pip install 'dpquant[plots]'" in str(exc) and exc.name == "matplotlib"
    copy = pickle.loads(pickle.dumps(exc))
    assert (copy.module, copy.extra, str(copy)) == (exc.module, exc.extra, str(exc))
    assert missing("matplotlib", "report.plot()") == str(
        MissingExtra("matplotlib", "plots", "report.plot()")
    )


def test_every_extra_named_is_declared_in_the_package_metadata() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[3]
    extras = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"
    ]
    for module, extra in EXTRAS.items():
        assert any(dep.split("[")[0].split(">")[0] == module for dep in extras[extra]), extra


def test_a_broken_dependency_of_an_installed_module_is_not_called_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(name: str) -> None:
        raise ImportError("libfreetype.so.6: cannot open shared object file", name="ft2font")

    monkeypatch.setattr("dpquant.audit.report.extras.import_module", broken)
    with pytest.raises(ImportError) as info:
        require("matplotlib", "a plot")
    assert not isinstance(info.value, MissingExtra) and info.value.name == "ft2font"


@pytest.mark.parametrize("module", ["numpy", "", "matplotlibx", None])
def test_require_refuses_a_module_that_is_no_extra(module: object) -> None:
    with pytest.raises(ValueError, match="module must be one of"):
        require(module, "x")  # type: ignore[arg-type]


def test_report_plot_without_matplotlib_raises_naming_the_extra(
    no_matplotlib: None, tmp_path: Path
) -> None:
    report = _report()
    with pytest.raises(MissingExtra, match=r"report\.plot\(\) needs matplotlib.*dpquant\[plots\]"):
        report.plot(tmp_path / "r.png")
    assert not (tmp_path / "r.png").exists()


def test_report_plot_with_matplotlib_returns_the_path_written(tmp_path: Path) -> None:
    written = _report().plot(tmp_path / "sub" / "r.png")
    assert written == tmp_path / "sub" / "r.png" and written.stat().st_size > 1000


def test_audit_all_without_matplotlib_writes_its_report_and_says_no_plot_was_drawn(
    no_matplotlib: None, tmp_path: Path
) -> None:
    reports = batch.audit_all(tmp_path, samples=500, only=["randomized_response[eps=1]"])
    assert len(reports) == 1
    text = (tmp_path / "audit.md").read_text(encoding="utf-8")
    assert "No plot was drawn" in text and "dpquant[plots]" in text
    assert list((tmp_path / "audit").iterdir()) == []


def test_the_claim_is_unchanged_by_a_missing_plot(no_matplotlib: None) -> None:
    """A missing extra changes what is drawn, never what is audited."""
    r = _report()
    assert r.claim == PrivacyClaim(1.0, 0.0, "local") and not r.violation
    assert np.isfinite(r.epsilon_lower_bound)
