"""The ``dpquant`` command line: ``audit MODULE:ATTR``, ``audit --all`` (parsing and outcome
logic only: the full run is ``make audit``), ``mechanisms`` and ``claims``."""

from __future__ import annotations

import io
import json
import math
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reference.cli import ClaimOverride, _join_domain, build_parser, main, parse_domain
from reference.core import PrivacyClaim, has_exact
from reference.primitives.randomized_response import RandomizedResponse
from reference.registry import REGISTRY

TARGETS = Path(__file__).with_name("cli_targets.py")
FAST = ["--samples", "20000", "--alpha", "1e-9", "--quiet"]
LOCAL_01 = ["--epsilon", "1", "--adjacency", "local", "--domain", "0,1"]
CONTRACT_KEYS = {"claimed_epsilon", "epsilon_lower_bound", "epsilon_exact", "violation", "witness"}


def target(attr: str) -> str:
    return f"{TARGETS}:{attr}"


def test_audit_of_a_correct_function_in_a_file_passes_and_writes_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json, out_md, out_png = tmp_path / "out.json", tmp_path / "r" / "out.md", tmp_path / "p.png"
    code = main(
        ["audit", target("rr_fn"), *LOCAL_01, "--samples", "20000", "--alpha", "1e-9"]
        + ["--json", str(out_json), "--markdown", str(out_md), "--plot", str(out_png)]
    )
    captured = capsys.readouterr()
    assert code == 0, captured
    assert "no violation found" in captured.out and "witness: D = " in captured.out
    assert "dpquant: black-box stage" in captured.err  # progress goes to stderr
    report = json.loads(out_json.read_text())
    assert CONTRACT_KEYS <= set(report)
    assert report["claimed_epsilon"] == 1.0 and report["violation"] is False
    assert report["claim"] == {"epsilon": 1.0, "delta": 0.0, "adjacency": "local"}
    assert 0.5 < report["epsilon_lower_bound"] <= 1.0
    assert report["epsilon_exact"] is None  # a function has no exact law
    assert report["mechanism"].endswith("cli_targets.py:rr_fn")
    assert out_md.read_text().startswith("## ")
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_audit_of_a_leaky_function_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "leak.json"
    code = main(["audit", target("leaky_fn"), *LOCAL_01, *FAST, "--json", str(out_json)])
    captured = capsys.readouterr()
    assert code == 1
    assert "VIOLATION" in captured.out and captured.err == ""  # --quiet: no progress
    report = json.loads(out_json.read_text())
    assert report["violation"] is True and report["epsilon_lower_bound"] > 1.0
    assert len(report["witness"]["data"]) == len(report["witness"]["data_prime"]) == 1


def test_a_mechanism_is_audited_against_its_own_claim_or_the_one_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", target("rr_mechanism"), *FAST]) == 0
    assert "claimed ε = 1 " in capsys.readouterr().out
    # true ε is 1: a claim of 0.5 is false, and the exact stage still runs through the adapter
    assert main(["audit", target("rr_mechanism"), "--epsilon", "0.5", *FAST]) == 1
    out = capsys.readouterr().out
    assert (
        "VIOLATION" in out
        and "claimed ε = 0.5 " in out
        and "exact ε on the searched pairs 1.0000" in out
    )


def test_module_form_of_the_target(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(TARGETS.parent))
    assert main(["audit", "cli_targets:rr_mechanism", "--mode", "exact", "--quiet"]) == 0
    assert "claimed ε = 1 " in capsys.readouterr().out


def test_a_function_without_epsilon_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", target("rr_fn"), "--domain", "0,1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpquant: error:") and "--epsilon" in err


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (target("no_such_attribute"), "has no attribute 'no_such_attribute'"),
        ("no_such_module_for_dpquant:fn", "cannot import module 'no_such_module_for_dpquant'"),
        ("tests/no_such_file.py:fn", "no such file"),
        ("no_colon_here", "MODULE:ATTR"),
        (target("not_a_mechanism"), "neither a mechanism"),
        ("reference.primitives.randomized_response:RandomizedResponse", "is a class"),
    ],
)
def test_bad_targets_are_usage_errors(
    spec: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", spec, "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpquant: error:") and message in err


@pytest.mark.parametrize(
    "argv",
    [
        ["audit"],  # neither a target nor --all
        ["audit", "--all", target("rr_fn")],
        ["audit", "--all", "--json", "x.json"],
        ["audit", target("rr_fn"), "--epsilon", "1", "--out", "reports"],
        ["audit", target("rr_fn"), "--epsilon", "-1"],  # PrivacyClaim rejects it
        ["audit", target("rr_fn"), "--epsilon", "1", "--domain", "1,0"],  # argparse error
        ["audit", target("rr_fn"), "--epsilon", "1", "--mode", "fast"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "error" in capsys.readouterr().err


def test_domain_parsing() -> None:
    assert parse_domain("0,1") == (0.0, 1.0)
    assert parse_domain(" -inf , inf ") == (-math.inf, math.inf)
    for bad in ("1", "0,1,2", "a,b", "1,1", "nan,1", ","):
        with pytest.raises(ValueError, match="--domain"):
            parse_domain(bad)
    # "--domain -1,1" would be read by argparse as an option; main joins it
    assert _join_domain(["audit", "x:y", "--domain", "-1,1"]) == ["audit", "x:y", "--domain=-1,1"]
    args = build_parser().parse_args(_join_domain(["audit", "x:y", "--domain", "-1,1"]))
    assert args.domain == (-1.0, 1.0)


def test_claim_override_delegates_everything_but_the_claim() -> None:
    from audit import from_callable

    rr = RandomizedResponse(1.0)
    over = ClaimOverride(rr, PrivacyClaim(0.5, 0.0, "local"))
    assert over.claim.epsilon == 0.5 and over.domain == rr.domain
    assert has_exact(over) and over.input_values == rr.input_values
    assert pickle.loads(pickle.dumps(over)) == over  # executors pickle mechanisms
    fn = from_callable(lambda d, rng: 0.0, PrivacyClaim(1.0), (0.0, 1.0), name="f")
    plain = ClaimOverride(fn, PrivacyClaim(2.0))
    assert not has_exact(plain) and getattr(plain, "input_values", None) is None
    assert plain.name == "f"


def test_all_arguments_parse() -> None:
    args = build_parser().parse_args(
        ["audit", "--all", "--out", "somewhere", "--seed", "3", "--samples", "1000"]
    )
    assert args.all and args.out == "somewhere" and args.seed == 3 and args.samples == 1000
    assert args.target is None


class _FakeReport:
    def __init__(self, name: str, violation: bool, conforms: bool | None = None) -> None:
        self.mechanism, self.violation, self.sampler_conforms = name, violation, conforms
        self.epsilon_lower_bound, self.epsilon_exact, self.seconds = 0.5, None, 0.1

    def verdict(self) -> str:
        if self.violation:
            return "VIOLATION"
        return "SAMPLER DOES NOT MATCH" if self.sampler_conforms is False else "no violation found"


def _fake_audit_all(outcomes: dict[str, Any]) -> Any:
    from audit.catalogue import CATALOGUE, CONTROLS

    def fake(out: Any, seed: int = 0, samples: Any = None, progress: Any = None) -> list[Any]:
        fake.called = {"out": Path(out), "seed": seed, "samples": samples}
        reports = []
        for e in (*REGISTRY, *CONTROLS, *CATALOGUE):
            bad = e in CATALOGUE
            reports.append(_FakeReport(e.name, outcomes.get(e.name, bad)))
        return reports

    return fake


def test_all_exit_code_follows_expected_outcomes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import audit.report
    from audit.catalogue import CATALOGUE, CONTROLS

    fake = _fake_audit_all({})
    monkeypatch.setattr(audit.report, "audit_all", fake)
    argv = ["audit", "--all", "--out", str(tmp_path), "--seed", "4", "--samples", "500", "-q"]
    assert main(argv) == 0
    assert fake.called == {"out": tmp_path, "seed": 4, "samples": 500}
    out = capsys.readouterr().out
    assert "UNEXPECTED" not in out and str(tmp_path / "audit.md") in out
    for e in (*REGISTRY, *CONTROLS, *CATALOGUE):
        assert e.name in out
    # a known-bad entry not flagged, and a reference mechanism flagged: both unexpected
    missed, flagged = CATALOGUE[0].name, REGISTRY[0].name
    monkeypatch.setattr(audit.report, "audit_all", _fake_audit_all({missed: False, flagged: True}))
    assert main(argv) == 1
    out = capsys.readouterr().out
    unexpected = [line for line in out.splitlines() if line.startswith("unexpected:")]
    assert len(unexpected) == 2
    assert any(missed in u for u in unexpected) and any(flagged in u for u in unexpected)


def test_all_progress_is_a_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    from reference.cli import _all_progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    progress, close = _all_progress(3, quiet=False)
    assert progress is not None
    for i, name in enumerate(["a", "b", "c"]):
        progress(f"[{i + 1}/3] {name}")
    close()
    assert "3/3" in screen.getvalue() and "\r" in screen.getvalue()
    assert _all_progress(3, quiet=True)[0] is None


def test_mechanisms_lists_registry_and_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    from audit.catalogue import CATALOGUE, CONTROLS

    assert main(["mechanisms"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(REGISTRY) + len(CONTROLS) + len(CATALOGUE)
    for e in REGISTRY:
        assert any(line.startswith(e.name) and " reference " in line for line in lines)
    for e in CATALOGUE:
        assert any(line.startswith(e.name) and " known-bad " in line for line in lines)
    for e in CONTROLS:
        assert any(line.startswith(e.name) and " control " in line for line in lines)


def test_claims_still_prints_the_ledger(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims"]) in (0, 1)
    assert capsys.readouterr().out.strip()


def test_installed_console_script(tmp_path: Path) -> None:
    exe = shutil.which("dpquant", path=str(Path(sys.executable).parent)) or shutil.which("dpquant")
    if exe is None:
        pytest.skip("the dpquant console script is not installed")
    out_json = tmp_path / "leak.json"
    proc = subprocess.run(
        [exe, "audit", target("leaky_fn"), *LOCAL_01, "--samples", "20000"]
        + ["--json", str(out_json)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "VIOLATION" in proc.stdout and "dpquant: screening" in proc.stderr
    assert json.loads(out_json.read_text())["violation"] is True
