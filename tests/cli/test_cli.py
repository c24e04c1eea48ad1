"""The ``dpquant`` command line: ``audit MODULE:ATTR``, ``audit --all`` (parsing and outcome
logic only: the full run is ``make audit``), ``mechanisms`` and ``claims``."""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpquant.cli import app, build_parser, main
from dpquant.cli.app import join_domain, shared_parser
from dpquant.cli.targets import ClaimOverride
from dpquant.errors import ParameterError
from dpquant.options import parse_domain
from dpquant.reference.core import MechanismBase, PrivacyClaim, has_exact
from dpquant.reference.primitives.randomized_response import RandomizedResponse
from dpquant.reference.registry import REGISTRY

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
    assert captured.err == ""  # stderr is not a terminal: no progress (tests/cli/test_cli_output.py)
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
        ("dpquant.reference.primitives.randomized_response:RandomizedResponse", "is a class"),
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
    assert join_domain(["audit", "x:y", "--domain", "-1,1"]) == ["audit", "x:y", "--domain=-1,1"]
    args = build_parser().parse_args(join_domain(["audit", "x:y", "--domain", "-1,1"]))
    assert parse_domain(args.domain) == (-1.0, 1.0)


def test_claim_override_delegates_everything_but_the_claim() -> None:
    from dpquant.audit import from_callable

    rr = RandomizedResponse(1.0)
    over = ClaimOverride(rr, PrivacyClaim(0.5, 0.0, "local"))
    assert isinstance(over, MechanismBase)  # a wrapper on the one mechanism base
    assert over.claim == PrivacyClaim(0.5, 0.0, "local") and over.domain == rr.domain
    assert over.claimed_epsilon == 0.5 and over.adjacency == "local"
    draws = over.sample(1, 50, np.random.default_rng(0))
    assert np.array_equal(draws, rr.sample(1, 50, np.random.default_rng(0)))
    with pytest.raises(ValueError, match="data"):  # the original's own input check
        over.sample(0.5, 5, np.random.default_rng(0))
    assert over.exact(1).support == rr.exact(1).support and over.exact(1).logp == rr.exact(1).logp
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
    # argparse keeps the text; each command checks its values before any work
    assert args.all and args.out == "somewhere" and args.seed == "3" and args.samples == "1000"
    assert args.target is None


def test_main_builds_its_parser_once_and_no_call_carries_into_the_next(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """main reads every command line with shared_parser, built once per process (building it
    was most of the time of a refused call); each call's values are its own."""
    built: list[Any] = []

    def counted() -> Any:
        built.append(build_parser())
        return built[-1]

    monkeypatch.setattr(app, "build_parser", counted)
    shared_parser.cache_clear()
    try:
        assert main(["audit", "--all", "--seed", "x"]) == 2
        assert main(["audit", "--all", "--samples", "-5"]) == 2
        assert len(built) == 1 and shared_parser() is built[0]
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 2 and "--seed" in err[0] and "--samples" in err[1]
        first = shared_parser().parse_args(["audit", "--all", "--out", "somewhere", "--seed", "3"])
        second = shared_parser().parse_args(["audit", "--all"])
        assert first.seed == "3" and first.out == "somewhere"
        assert vars(second) == vars(build_parser().parse_args(["audit", "--all"]))
    finally:
        shared_parser.cache_clear()


class _FakeReport:
    inconclusive = None

    def __init__(self, name: str, violation: bool, conforms: bool | None = None) -> None:
        self.mechanism, self.violation, self.sampler_conforms = name, violation, conforms
        self.epsilon_lower_bound, self.epsilon_exact, self.seconds = 0.5, None, 0.1
        self.passed = not violation and conforms is not False

    @property
    def verdict(self) -> str:
        if self.violation:
            return "VIOLATION"
        return "SAMPLER DOES NOT MATCH" if self.sampler_conforms is False else "no violation found"


def _fake_audit_all(outcomes: dict[str, Any]) -> Any:
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS

    def fake(
        out: Any, seed: int = 0, samples: Any = None, progress: Any = None, executor: Any = None
    ) -> list[Any]:
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
    import dpquant.cli.batch_audit
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS

    fake = _fake_audit_all({})
    monkeypatch.setattr(dpquant.cli.batch_audit, "audit_all", fake)
    argv = ["audit", "--all", "--out", str(tmp_path), "--seed", "4", "--samples", "500", "-q"]
    assert main(argv) == 0
    assert fake.called == {"out": tmp_path, "seed": 4, "samples": 500}
    out = capsys.readouterr().out
    assert "UNEXPECTED" not in out and str(tmp_path / "audit.md") in out
    for e in (*REGISTRY, *CONTROLS, *CATALOGUE):
        assert e.name in out
    # a known-bad entry not flagged, and a reference mechanism flagged: both unexpected
    missed, flagged = CATALOGUE[0].name, REGISTRY[0].name
    monkeypatch.setattr(dpquant.cli.batch_audit, "audit_all", _fake_audit_all({missed: False, flagged: True}))
    assert main(argv) == 1
    out = capsys.readouterr().out
    unexpected = [line for line in out.splitlines() if line.startswith("unexpected:")]
    assert len(unexpected) == 2
    assert any(missed in u for u in unexpected) and any(flagged in u for u in unexpected)


def test_all_progress_is_a_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    from dpquant.cli.audit import all_progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    progress, close = all_progress(3, quiet=False)
    assert progress is not None
    for i, name in enumerate(["a", "b", "c"]):
        progress(f"[{i + 1}/3] {name}")
    close()
    assert "3/3" in screen.getvalue() and "\r" in screen.getvalue()
    assert all_progress(3, quiet=True)[0] is None


def test_mechanisms_lists_registry_and_catalogue_then_the_peers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from dpquant.audit.suites.adapters import PEERS
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS

    assert main(["mechanisms"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(REGISTRY) + len(CONTROLS) + len(CATALOGUE) + len(PEERS)
    assert all(" peer " in line for line in lines[-len(PEERS) :])
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
    assert "VIOLATION" in proc.stdout and "witness: D = " in proc.stdout
    assert proc.stderr == ""  # stderr is a pipe, not a terminal: no progress
    assert json.loads(out_json.read_text())["violation"] is True


def test_python_dash_m_dpquant_is_the_same_program(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "dpquant"]
    proc = subprocess.run(
        [*run, "mechanisms"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) >= len(REGISTRY)
    proc = subprocess.run(
        [*run, "reproduce", "imola25", "--figure", "fig1a"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "dpquant: error: unrecognized arguments: --figure fig1a\n"


# --------------------------------------------------------------------------------------------
# issue 18: the CLI fails fast and cleanly (exit 2 and one line; exit 1 only for a finding)
# --------------------------------------------------------------------------------------------

MECH = target("rr_mechanism")
QUICK_EXACT = ["--mode", "exact", "--samples", "10", "-q"]


def _error_line(err: str, *names: str) -> str:
    """The one line on stderr of a refused command; it names each of ``names``."""
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {err!r}"
    assert lines[0].startswith("dpquant: error: "), lines[0]
    for name in names:
        assert name in lines[0], f"{name!r} not named in {lines[0]!r}"
    return lines[0]


@pytest.fixture
def no_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any audit or study that starts fails the test: the refusal must come before any work."""
    import dpquant.cli.batch_audit
    from dpquant import audit
    from dpquant.studies import aamand25, fukuchi19, imola25, tzamos20

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("work started before the options were checked")

    monkeypatch.setattr(audit, "audit_mechanism", forbidden)
    monkeypatch.setattr(dpquant.cli.batch_audit, "audit_all", forbidden)
    for study in (aamand25, imola25, fukuchi19, tzamos20):
        monkeypatch.setattr(study, "run", forbidden)


def test_json_at_a_directory_exits_2_before_the_audit(
    tmp_path: Path, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", MECH, "--json", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "is a folder" in _error_line(captured.err, "--json") and captured.out == ""


@pytest.mark.parametrize("option", ["--json", "--markdown", "--plot"])
def test_an_output_file_under_a_file_exits_2_before_the_audit(
    option: str, tmp_path: Path, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    assert main(["audit", MECH, option, str(blocker / "sub" / "out.png")]) == 2
    assert "which is a file" in _error_line(capsys.readouterr().err, option, str(blocker))


def test_out_under_a_file_exits_2_before_audit_all(
    tmp_path: Path, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    assert main(["audit", "--all", "--out", str(blocker / "reports")]) == 2
    assert "which is a file" in _error_line(capsys.readouterr().err, "--out")
    assert main(["audit", "--all", "--out", str(blocker)]) == 2
    assert "is a file, not a folder" in _error_line(capsys.readouterr().err, "--out")
    (tmp_path / "r" / "audit.md").mkdir(parents=True)  # the report file would be a folder
    assert main(["audit", "--all", "--out", str(tmp_path / "r")]) == 2
    _error_line(capsys.readouterr().err, "--out", "audit.md")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_unwritable_folder_exits_2(no_audit: None, capsys: pytest.CaptureFixture[str]) -> None:
    # /proc refuses new files for every user, root included (chmod does not stop root)
    assert main(["audit", MECH, "--markdown", "/proc/dpquant_report.md"]) == 2
    assert "cannot write" in _error_line(capsys.readouterr().err, "--markdown")


def test_unwritable_folder_by_permissions(
    tmp_path: Path, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user whom permissions do not stop (root)")
        assert main(["audit", MECH, "--json", str(locked / "r.json")]) == 2
        _error_line(capsys.readouterr().err, "--json", "cannot write")
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--json", ""),
        ("--json", "ends_with_a_slash/"),
        ("--json", "nul\0byte.json"),
        ("--plot", "plot.xyz"),
        ("--plot", "plot_without_suffix"),
        ("--markdown", "x" * 300 + ".md"),  # a file name longer than the system allows
    ],
)
def test_bad_output_paths_exit_2(
    option: str, value: str, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", MECH, option, value]) == 2
    _error_line(capsys.readouterr().err, option)


def test_two_outputs_naming_one_file_exit_2(
    tmp_path: Path, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    same = str(tmp_path / "r.txt")
    assert main(["audit", MECH, "--json", same, "--markdown", same]) == 2
    _error_line(capsys.readouterr().err, "--json", "--markdown", "same file")


def test_missing_output_folders_are_created_and_the_check_leaves_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "deeper" / "r.json"
    assert main(["audit", MECH, *QUICK_EXACT, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["violation"] is False
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["deeper", "new", "r.json"]


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nsys.exit(0)\n",
        "import sys\nsys.exit(3)\n",
        "raise SystemExit\n",
        "raise KeyboardInterrupt\n",
        "1 / 0\n",
        "import no_such_module_for_dpquant_tests\n",
        "def broken(:\n",
    ],
    ids=["exit0", "exit3", "SystemExit", "KeyboardInterrupt", "ZeroDivision", "import", "syntax"],
)
def test_a_target_that_exits_or_fails_at_import_exits_2(
    source: str, tmp_path: Path, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "bad_target.py"
    script.write_text(source)
    for argv in (
        ["audit", f"{script}:mech"],
        ["audit", f"{script}:fn", "--epsilon", "1"],
        ["validate", "randomized_response[eps=1]", f"{script}:fn"],
    ):
        assert main(argv) == 2
        captured = capsys.readouterr()
        _error_line(captured.err, str(script))
        assert captured.out == ""


def test_a_module_target_that_exits_at_import_exits_2(
    tmp_path: Path,
    no_audit: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "dpquant_exiting_module.py").write_text("import sys\nsys.exit(0)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["audit", "dpquant_exiting_module:mech"]) == 2
    assert "sys.exit(0)" in _error_line(capsys.readouterr().err, "dpquant_exiting_module")
    assert "dpquant_exiting_module" not in sys.modules


@pytest.mark.parametrize(
    ("attr", "message"),
    [
        ("claim_raises", "claim raised RuntimeError"),
        ("nan_claim", "claim"),  # ε = NaN set on a frozen mechanism: never audited
        ("not_a_mechanism", "neither a mechanism"),
        ("KEEP", "neither a mechanism"),
    ],
)
def test_targets_that_are_not_usable_mechanisms_exit_2(
    attr: str, message: str, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", target(attr)]) == 2
    _error_line(capsys.readouterr().err, attr, message)


BAD_AUDIT_VALUES = [
    ("--epsilon", v) for v in ("nan", "inf", "-inf", "-1", "0", "1e400", "1e-400", "abc", "", "1,5")
] + [
    ("--delta", v) for v in ("nan", "inf", "-0.1", "1", "2", "1e400", "x")
] + [
    ("--alpha", v) for v in ("0", "1", "nan", "-1e-9", "inf", "1e-400", "1e-200")
] + [
    ("--samples", v)
    for v in ("1000000000000", "10**12", "1e6", "-5", "9", "0", "abc", "", "2.5", "9" * 5000)
] + [
    ("--seed", v) for v in ("-1", str(2**128), "9" * 41, "1e3", "abc", "nan", "")
] + [
    ("--domain", v) for v in ("nan,1", "1,0", "0,1e400", "a,b", "", "0", "0,1,2", "1,1")
] + [
    ("--mode", v) for v in ("fast", "", "EXACT")
] + [
    ("--adjacency", v) for v in ("x", "", "Local")
] + [
    ("--timeout", v) for v in ("0", "-1", "nan", "inf", "1e9", "abc")
] + [
    ("--workers", v) for v in ("0", "-1", "1025", "1.5", "2e0", "abc", "", "true")
]  # fmt: skip


@pytest.mark.parametrize(("option", "value"), BAD_AUDIT_VALUES)
def test_bad_audit_option_values_exit_2_with_one_line(
    option: str, value: str, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", MECH, option, value]) == 2
    captured = capsys.readouterr()
    _error_line(captured.err, option)
    assert captured.out == ""


def test_samples_above_the_auditors_cap_are_refused(
    no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpquant.cli.audit import samples_cap

    cap = samples_cap()
    assert main(["audit", MECH, "--samples", str(cap + 1)]) == 2
    assert str(cap) in _error_line(capsys.readouterr().err, "--samples")
    assert main(["audit", "--all", "--samples", str(10**12)]) == 2
    _error_line(capsys.readouterr().err, "--samples")


BAD_REPRODUCE = [
    ("aamand25", ["--workers", "0"], "--workers"),
    ("aamand25", ["--workers", "1000000"], "--workers"),
    ("aamand25", ["--workers", "abc"], "--workers"),
    ("aamand25", ["--runs", "0"], "--runs"),
    ("aamand25", ["--runs", "1000000000000"], "--runs"),
    ("aamand25", ["--seed", "-1"], "--seed"),
    ("aamand25", ["--seed", "1e400"], "--seed"),
    ("aamand25", ["--seed", "4294967296"], "--seed"),  # the experiments' RandomState seeds
    ("aamand25", ["--figure", "fig9"], "--figure"),
    ("imola25", ["--duplication", "1000000000"], "--duplication"),
    ("imola25", ["--duplication", "0"], "--duplication"),
    ("imola25", ["--m", "0"], "--m"),
    ("imola25", ["--m", "10**12"], "--m"),
    ("imola25", ["--m", ","], "--m"),
    ("imola25", ["--panels", "e"], "--panels"),
    ("imola25", ["--jointexp-runs", "-1"], "--jointexp-runs"),
    ("imola25", ["--jointexp-m", "251"], "--jointexp-m"),
    ("fukuchi19", ["--runs", "1"], "--runs"),
    ("fukuchi19", ["--other-runs", "nan"], "--other-runs"),
    ("fukuchi19", ["--min-log2n", "0"], "--min-log2n"),
    ("fukuchi19", ["--max-log2n", "31"], "--max-log2n"),
    ("fukuchi19", ["--min-log2n", "12", "--max-log2n", "11"], "log2n"),
    ("fukuchi19", ["--exact-max-levels", "-1"], "--exact-max-levels"),
    ("fukuchi19", ["--data-models", "fixed,foo"], "--data-models"),
    ("fukuchi19", ["--schedules", ""], "--schedules"),
    ("fukuchi19", ["--settings", "some"], "--settings"),
    ("tzamos20", ["--n-values", "1000000000000"], "--n-values"),
    ("tzamos20", ["--n-values", "1"], "--n-values"),
    ("tzamos20", ["--c", "nan"], "--c"),
    ("tzamos20", ["--c", "0"], "--c"),
    ("tzamos20", ["--c", "1e1000000000"], "--c"),
    ("tzamos20", ["--c", "1/0"], "--c"),
    ("tzamos20", ["--regimes", "fast"], "--regimes"),
    ("tzamos20", ["--distributions", "normal"], "--distributions"),
    ("tzamos20", ["--c-rule", "cubic"], "--c-rule"),
]


@pytest.mark.parametrize(("paper", "argv", "option"), BAD_REPRODUCE)
def test_bad_reproduce_values_exit_2_before_the_study(
    paper: str,
    argv: list[str],
    option: str,
    tmp_path: Path,
    no_audit: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["reproduce", paper, *argv, "--out", str(tmp_path / "out"), "-q"]) == 2
    _error_line(capsys.readouterr().err, option)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("paper", ["aamand25", "imola25", "fukuchi19", "tzamos20"])
def test_reproduce_out_under_a_file_exits_2_before_the_study(
    paper: str, tmp_path: Path, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    assert main(["reproduce", paper, "--quick", "--out", str(blocker / "out")]) == 2
    _error_line(capsys.readouterr().err, "--out", "which is a file")
    assert main(["reproduce", paper, "--quick", "--out", str(blocker)]) == 2
    _error_line(capsys.readouterr().err, "--out", "not a folder")


def test_valid_reproduce_options_reach_the_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpquant.studies import tzamos20

    seen: dict[str, Any] = {}

    def fake(study: Any, **kwargs: Any) -> list[Path]:
        seen.update(kwargs, study=study)
        return [Path(kwargs["out"]) / "tzamos20.csv"]

    monkeypatch.setattr(tzamos20, "run", fake)
    argv = ["reproduce", "tzamos20", "--n-values", "8,16", "--c", "5/4", "--runs", "3"]
    assert main([*argv, "--seed", "7", "--workers", "2", "--out", str(tmp_path), "-q"]) == 0
    study = seen["study"]
    assert study.ns == (8, 16) and study.c == Fraction(5, 4) and study.runs == 3
    assert study.seed == 7 and seen["workers"] == 2 and seen["out"] == tmp_path
    assert "written: " in capsys.readouterr().out


def test_common_reproduce_options_may_come_before_the_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dpquant.studies import imola25

    seen: dict[str, Any] = {}

    def fake(study: Any, **kwargs: Any) -> list[Path]:
        seen.update(kwargs, study=study)
        return []

    monkeypatch.setattr(imola25, "run", fake)
    argv = ["reproduce", "--quick", "--runs", "2", "--out", str(tmp_path), "imola25", "-q"]
    assert main([*argv, "--m", "10", "--seed", "5"]) == 0
    study = seen["study"]
    assert study.runs == 2 and study.ms == (10,) and study.seed == 5
    assert study.panels == ("a", "c") and seen["out"] == tmp_path  # --quick's panels


@pytest.mark.parametrize(
    ("paper", "option"),
    [
        ("aamand25", ["--m", "10"]),
        ("aamand25", ["--regimes", "local"]),
        ("imola25", ["--figure", "fig1a"]),
        ("imola25", ["--laplace", "all"]),
        ("fukuchi19", ["--m", "10"]),
        ("tzamos20", ["--settings", "main"]),
    ],
)
def test_a_papers_options_are_unknown_to_the_others(
    paper: str,
    option: list[str],
    tmp_path: Path,
    no_audit: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["reproduce", paper, *option, "--out", str(tmp_path / "out")]) == 2
    line = _error_line(capsys.readouterr().err, option[0])
    assert "unrecognized arguments" in line or "ambiguous option" in line  # --m: --min-log2n?
    assert not (tmp_path / "out").exists()


BAD_VALIDATE = [
    (["--samples", "1000000000000"], "--samples"),
    (["--samples", "99"], "--samples"),
    (["--alpha", "nan"], "--alpha"),
    (["--beta", "0"], "--beta"),
    (["--beta", "1"], "--beta"),
    (["--seed", "-3"], "--seed"),
    (["--sizes", "0"], "--sizes"),
    (["--sizes", "1000000000000"], "--sizes"),
    (["--audit-samples", "1000000000000"], "--audit-samples"),
    (["--json", "."], "--json"),
]


@pytest.mark.parametrize(("argv", "option"), BAD_VALIDATE)
def test_bad_validate_values_exit_2(
    argv: list[str], option: str, no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "randomized_response[eps=1]", target("rr_fn"), *argv]) == 2
    _error_line(capsys.readouterr().err, option)


@pytest.mark.parametrize("ledger", ["", ".", "tests/cli/cli_targets.py", "/no/such/claims.toml"])
def test_bad_ledgers_exit_2(ledger: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims", "--ledger", ledger]) == 2
    _error_line(capsys.readouterr().err, "ledger")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["nope"],
        ["audit", MECH, "--no-such-option"],
        ["mechanisms", "extra"],
        ["reproduce"],
        ["validate", "one_only"],
        ["audit", MECH, "--epsilon"],  # the value is missing
    ],
)
def test_argparse_errors_are_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    _error_line(captured.err)
    assert "usage:" not in captured.err and captured.out == ""


def test_arguments_that_are_not_strings_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", MECH, "--samples", 10]) == 2  # type: ignore[list-item]
    _error_line(capsys.readouterr().err, "strings")
    assert main("audit") == 2  # type: ignore[arg-type]
    _error_line(capsys.readouterr().err, "strings")


def test_exit_0_only_when_an_audit_ran_and_exit_1_only_for_a_violation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", MECH, *QUICK_EXACT]) == 0
    assert "no violation found" in capsys.readouterr().out
    assert main(["audit", MECH, *QUICK_EXACT, "--epsilon", "0.5"]) == 1
    assert "VIOLATION" in capsys.readouterr().out


def test_the_audited_code_exiting_during_the_run_exits_3(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["audit", target("exiting_fn"), *LOCAL_01, "--samples", "10", "-q"]
    assert main(argv) == 3
    assert "sys.exit(0)" in _error_line(capsys.readouterr().err)


def test_an_unexpected_exception_exits_3_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpquant import audit

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("something internal\nover two lines")

    monkeypatch.setattr(audit, "audit_mechanism", broken)
    monkeypatch.delenv("DPQUANT_TRACEBACK", raising=False)
    assert main(["audit", MECH, "-q"]) == 3
    assert "unexpected TypeError: something internal over two lines" in _error_line(
        capsys.readouterr().err
    )


def test_an_interrupt_during_the_run_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpquant import audit

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(audit, "audit_mechanism", interrupted)
    assert main(["audit", MECH, "-q"]) == 130
    assert "interrupted" in _error_line(capsys.readouterr().err)


class _Report:
    violation, sampler_conforms, witness, inconclusive, passed = False, None, None, None, True

    def summary(self) -> str:
        return "fake: no violation found"

    def explanation(self) -> str:
        return f"{self.summary()}\nwitness: none"


def test_timeout_is_passed_to_the_auditor(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dpquant import audit

    seen: dict[str, Any] = {}

    def fake(mech: Any, **kwargs: Any) -> _Report:
        seen.update(kwargs)
        return _Report()

    monkeypatch.setattr(audit, "audit_mechanism", fake)
    assert main(["audit", MECH, "-q", "--timeout", "2.5"]) == 0
    assert seen["options"].timeout == 2.5
    seen.clear()
    assert main(["audit", MECH, "-q"]) == 0
    assert seen["options"].timeout is None  # the auditor's default
    assert main(["audit", "--all", "--timeout", "3"]) == 2
    _error_line(capsys.readouterr().err, "--timeout")


def test_workers_are_passed_to_the_auditor(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--workers N`` (issue 39): the worker processes of one audit, or of each audit of
    ``--all``; not with ``--scheduler``, whose cluster audits."""
    import dpquant.cli.batch_audit
    from dpquant import audit

    seen: dict[str, Any] = {}

    def fake(mech: Any, **kwargs: Any) -> _Report:
        seen.update(kwargs)
        return _Report()

    monkeypatch.setattr(audit, "audit_mechanism", fake)
    assert main(["audit", MECH, "-q", "--workers", "3"]) == 0
    assert seen["workers"] == 3
    assert main(["audit", MECH, "-q"]) == 0
    assert seen["workers"] is None  # the auditor's default: the usable cores
    given: dict[str, Any] = {}

    def fake_all(out: Any, **kwargs: Any) -> list[Any]:
        given.update(kwargs)
        return []

    monkeypatch.setattr(dpquant.cli.batch_audit, "audit_all", fake_all)
    main(["audit", "--all", "-q", "--out", str(tmp_path), "--workers", "1"])
    assert given["workers"] == 1
    capsys.readouterr()
    assert main(["audit", "--all", "-q", "--workers", "2", "--scheduler", "local"]) == 2
    _error_line(capsys.readouterr().err, "--workers")


def test_timeout_ends_the_audit_of_a_hanging_function_with_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import time

    start = time.perf_counter()
    argv = ["audit", target("slow_fn"), *LOCAL_01, "--samples", "10", "-q", "--timeout", "0.2"]
    code = main(argv)
    assert time.perf_counter() - start < 60
    captured = capsys.readouterr()
    assert code == 1, captured  # an incomplete audit is never "no violation found" (exit 0)
    assert "INCOMPLETE" in captured.out and "TIME LIMIT" in captured.out


def test_a_local_mechanism_cannot_be_audited_under_another_adjacency(
    no_audit: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", MECH, "--adjacency", "add_remove"]) == 2
    _error_line(capsys.readouterr().err, "--adjacency", "local")


def test_warnings_are_one_line_each_after_a_completed_command_and_none_after_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import warnings

    from dpquant import audit

    real = audit.audit_mechanism

    def noisy(*args: Any, **kwargs: Any) -> Any:
        warnings.warn("first\nsecond line", RuntimeWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(audit, "audit_mechanism", noisy)
    assert main(["audit", MECH, *QUICK_EXACT]) == 0
    assert capsys.readouterr().err == "dpquant: warning: RuntimeWarning: first second line\n"

    def noisy_refusal(*args: Any, **kwargs: Any) -> Any:
        warnings.warn("noise", RuntimeWarning, stacklevel=1)
        raise ParameterError("samples", "must be refused here")

    monkeypatch.setattr(audit, "audit_mechanism", noisy_refusal)
    assert main(["audit", MECH, *QUICK_EXACT]) == 2
    assert "--samples must be refused here" in _error_line(capsys.readouterr().err)


def test_audit_of_a_vectorised_function_on_its_input_set(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--vectorized`` calls fn(data, size, rng); ``--input-values`` is its finite input set."""
    code = main(
        ["audit", target("rr_vectorized"), *LOCAL_01, *FAST, "--vectorized"]
        + ["--input-values", "0,1"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured
    assert "no violation found" in captured.out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--input-values", "0,nan"], "--input-values must be finite"),
        (["--input-values", "0,2"], "--input-values must lie inside domain"),
        (["--input-values", ""], "--input-values must be 1 to"),
    ],
)
def test_bad_input_values_are_usage_errors(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["audit", target("rr_vectorized"), *LOCAL_01, *FAST, "--vectorized", *extra])
    assert code == 2
    assert message in capsys.readouterr().err


def test_vectorized_is_for_plain_functions_only(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", target("rr_mechanism"), *FAST, "--vectorized"])
    assert code == 2
    assert "describe a plain function" in capsys.readouterr().err
    assert main(["audit", "--all", "--vectorized"]) == 2


def test_tighten_spends_the_full_budget_after_a_clear_violation(tmp_path: Path) -> None:
    """``--tighten``: the leaky function's violation is clear at once; with the option every
    finalist still gets the full --samples, so the audit draws more (``samples_used``)."""
    runs = {}
    for extra in ([], ["--tighten"]):
        out = tmp_path / f"r{len(extra)}.json"
        code = main(["audit", target("leaky_fn"), *LOCAL_01, *FAST, "--json", str(out), *extra])
        assert code == 1
        runs[bool(extra)] = json.loads(out.read_text())
    assert runs[True]["samples_used"] > runs[False]["samples_used"]


def test_max_draws_caps_the_whole_audit(tmp_path: Path) -> None:
    """``--max-draws N``: the search and the evaluation together draw at most N samples (the
    leak of the leaky function is found, and its clear violation cuts the evaluation to what it
    needs; with ``--tighten`` the finalist gets every draw the search left)."""
    out = tmp_path / "r.json"
    code = main(
        ["audit", target("leaky_fn"), *LOCAL_01, "--max-draws", "100000", "--json", str(out)]
    )
    assert code == 1
    report = json.loads(out.read_text())
    assert report["violation"] and report["samples_used"] < 90_000
    code = main(["audit", target("leaky_fn"), *LOCAL_01, "--max-draws", "100000", "--tighten",
                 "--json", str(out)])  # fmt: skip
    assert code == 1
    report = json.loads(out.read_text())
    assert report["violation"] and 99_000 <= report["samples_used"] <= 100_000


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--max-draws", "99999"], "--max-draws must be an integer >= 100000"),
        (["--max-draws", "1e6"], "--max-draws"),
        (["--max-draws", "100000", "--samples", "50"], "--max-draws and --samples"),
    ],
)
def test_max_draws_is_checked(extra, message, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", target("leaky_fn"), *LOCAL_01, *extra]) == 2
    assert message in capsys.readouterr().err
    assert main(["audit", "--all", "--max-draws", "100000"]) == 2
