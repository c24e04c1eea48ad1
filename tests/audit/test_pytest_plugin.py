"""The pytest plugin (``dpquant/audit/pytest_plugin.py``) as a downstream project sees it: it is loaded
by its ``pytest11`` entry point, with no conftest and no ``-p`` option."""

from __future__ import annotations

import os

import numpy.fft  # noqa: F401 -- loaded once here: pytester's in-process runs cannot load it again
import pytest
import scipy.special  # noqa: F401 -- likewise (it loads numpy.fft's extension module)

from dpquant.audit.pytest_plugin import make_auditor
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.randomized_response import RandomizedResponse

pytest_plugins = ["pytester"]

# Entry points are what a downstream project relies on; if autoloading is off, load it by name.
LOAD = ["-p", "dpquant_audit"] if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") else []

DOWNSTREAM = """
import math

import pytest

from dpquant.reference import PrivacyClaim
from dpquant.reference.primitives.randomized_response import RandomizedResponse

KEEP = math.exp(1.0) / (1.0 + math.exp(1.0))
LOCAL = PrivacyClaim(1.0, 0.0, "local")


def randomized_response(data, rng):
    bit = int(data[0] >= 0.5)
    return bit if rng.random() < KEEP else 1 - bit


@pytest.mark.audit
def test_correct_function(dp_audit):
    dp_audit(randomized_response, claim=LOCAL, domain=(0, 1), alpha=1e-9).assert_private()


@pytest.mark.audit
def test_correct_mechanism(dp_audit, request):
    report = dp_audit(RandomizedResponse(1.0), alpha=1e-9)
    report.assert_private()
    assert report.seed == 3  # --audit-seed
    assert max(report.blackbox.budgets_per_side) <= 20_000  # --audit-samples
    assert request.node.user_properties[0][0] == "dp_audit"


@pytest.mark.audit
def test_broken_function(dp_audit):
    dp_audit(lambda data, rng: float(data[0]), claim=LOCAL, domain=(0, 1)).assert_private()


def forgot_to_return(data, rng):
    rng.random()


@pytest.mark.audit
def test_function_with_no_output(dp_audit):
    assert not dp_audit(forgot_to_return, claim=LOCAL, domain=(0, 1)).violation


@pytest.mark.audit
def test_function_with_a_broken_signature(dp_audit):
    assert not dp_audit(lambda data: 0.5, claim=LOCAL, domain=(0, 1)).violation
"""

# dp_audit with audit_mechanism replaced by a spy: checks what the options pass, instantly
SPY = """
import dpquant.audit.pipeline.runner
import pytest

from dpquant.reference.primitives.randomized_response import RandomizedResponse


class Stub:
    inconclusive = None
    violation = False

    def summary(self):
        return "stub"


@pytest.fixture
def seen(monkeypatch):
    calls = []

    def spy(mech, **kw):
        calls.append(kw)
        return Stub()

    monkeypatch.setattr(dpquant.audit.pipeline.runner, "audit_mechanism", spy)
    return calls


def test_settings(dp_audit, seen, request):
    assert request.config.pluginmanager.has_plugin("dpquant_audit")
    dp_audit(RandomizedResponse(1.0))
    dp_audit(RandomizedResponse(1.0), samples=99, seed=5, alpha=1e-3)
    print("SEEN", seen[0].get("samples"), seen[0]["seed"], "DRAWS", seen[0].get("max_draws"))
    assert seen[1] == {"samples": 99, "seed": 5, "alpha": 1e-3}


def test_a_tests_own_size_replaces_the_options(dp_audit, seen):
    dp_audit(RandomizedResponse(1.0), max_draws=300_000)
    dp_audit(RandomizedResponse(1.0), samples=77)
    print("OWN", seen[0].get("samples"), seen[0].get("max_draws"), seen[1].get("samples"),
          seen[1].get("max_draws"))


def test_function_needs_a_claim(dp_audit, seen):
    with pytest.raises(ValueError, match="claim="):
        dp_audit(lambda data, rng: 0.0)
    with pytest.raises(ValueError, match="own claim"):
        dp_audit(RandomizedResponse(1.0), claim=RandomizedResponse(1.0).claim)
"""


def test_downstream_audits_pass_and_fail(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_downstream=DOWNSTREAM)
    result = pytester.runpytest_inprocess(
        *LOAD, "--strict-markers", "-m", "audit", "--audit-samples", "20000", "--audit-seed", "3"
    )
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*dpquant audit: samples=20000, seed=3*",
            "*AssertionError*<lambda>: VIOLATION*",
            "*dp_audit: forgot_to_return: INCONCLUSIVE: the mechanism produced no output: every "
            "one of its * draws returned None*",
            "*ValueError: fn '*<lambda>' must be callable as fn(data, rng)*",
        ]
    )
    # a failing audit reads as the command line's two lines: ε_lb against the claim, then the
    # witness (not the witness's raw dict, not the auditor's own frame)
    result.stdout.fnmatch_lines(
        [
            "*<lambda>: VIOLATION -- claimed ε = 1 (δ = 0, local); ε lower bound * at confidence *",
            "*witness: D = (*), D' = (*); event: *; counts */* vs */* [[]blackbox]*",
        ]
    )
    out = result.stdout.str()
    assert "'k0'" not in out and "selection_expected_bound" not in out and "n/a" not in out
    assert "dpquant/audit/report/result.py" not in out


ENV_NAMES = (
    "DPQUANT_AUDIT_SAMPLES",
    "DPQUANT_AUDIT_SEED",
    "DPQUANT_AUDIT_MAX_DRAWS",
    "DPQUANT_AUDIT_TIME_BUDGET",
    "DPQUANT_AUDIT_WORKERS",
)


def _run_spy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], *args: str
) -> pytest.RunResult:
    """The spying test file run in-process with ``args``, under exactly the plugin's variables
    of ``env``."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(test_spy=SPY)
    return pytester.runpytest_inprocess(*LOAD, *args)


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        ([], {}, "SEEN None 0"),
        (["--audit-samples", "1234", "--audit-seed", "7"], {}, "SEEN 1234 7"),
        ([], {"DPQUANT_AUDIT_SAMPLES": "555", "DPQUANT_AUDIT_SEED": "3"}, "SEEN 555 3"),
        (
            ["--audit-seed", "8"],
            {"DPQUANT_AUDIT_SAMPLES": "555", "DPQUANT_AUDIT_SEED": "3"},
            "SEEN 555 8",
        ),
    ],
)
def test_options_and_environment(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    expected: str,
) -> None:
    result = _run_spy(pytester, monkeypatch, env, "-s", *args)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([f"*{expected}*"])




@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["--audit-max-draws", "200000"], {}, "SEEN None 0 DRAWS 200000"),
        ([], {"DPQUANT_AUDIT_MAX_DRAWS": "150000"}, "SEEN None 0 DRAWS 150000"),
        (["--audit-max-draws", "400000"], {"DPQUANT_AUDIT_MAX_DRAWS": "150000"}, "DRAWS 400000"),
        (["--audit-samples", "1234"], {}, "SEEN 1234 0 DRAWS None"),
        # the command line beats the environment, either way round
        (["--audit-max-draws", "200000"], {"DPQUANT_AUDIT_SAMPLES": "10"}, "SEEN None 0 DRAWS 200000"),
        (["--audit-samples", "99"], {"DPQUANT_AUDIT_MAX_DRAWS": "200000"}, "SEEN 99 0 DRAWS None"),
        (["--audit-samples", "98"], {"DPQUANT_AUDIT_TIME_BUDGET": "30"}, "SEEN 98 0 DRAWS None"),
    ],
)
def test_a_total_budget_of_draws_for_every_audit_of_a_run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    expected: str,
) -> None:
    """``--audit-max-draws`` (issue 35): one number bounds every audit of a CI run; a test that
    sizes its own audit (``samples=`` or ``max_draws=``) keeps its own size."""
    result = _run_spy(pytester, monkeypatch, env, "-s", *args)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([f"*{expected}*", "*OWN None 300000 77 None*"])


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--audit-max-draws", "99999"], {}, "--audit-max-draws must be in [100000, "),
        (["--audit-max-draws", str(10**12 + 1)], {}, "--audit-max-draws must be in [100000, "),
        ([], {"DPQUANT_AUDIT_MAX_DRAWS": "1e6"}, "DPQUANT_AUDIT_MAX_DRAWS must be an integer"),
        ([], {"DPQUANT_AUDIT_MAX_DRAWS": "5"}, "DPQUANT_AUDIT_MAX_DRAWS must be in [100000, "),
        (["--audit-max-draws", "200000", "--audit-samples", "10"], {}, "give one"),
        ([], {"DPQUANT_AUDIT_MAX_DRAWS": "200000", "DPQUANT_AUDIT_SAMPLES": "10"}, "give one"),
        (["--audit-time-budget", "0.5"], {}, "--audit-time-budget must lie in [1, 86400]"),
        (["--audit-time-budget", "nan"], {}, "--audit-time-budget must lie in [1, 86400]"),
        ([], {"DPQUANT_AUDIT_TIME_BUDGET": "soon"}, "must be a number of seconds"),
        (["--audit-time-budget", "30", "--audit-max-draws", "200000"], {}, "give one"),
        ([], {"DPQUANT_AUDIT_TIME_BUDGET": "30", "DPQUANT_AUDIT_SAMPLES": "10"}, "give one"),
    ],
)
def test_a_bad_total_budget_is_a_usage_error_at_start_up(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    message: str,
) -> None:
    result = _run_spy(pytester, monkeypatch, env, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_the_report_header_names_the_total_budget(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run_spy(pytester, monkeypatch, {}, "--audit-max-draws", "250000")
    result.stdout.fnmatch_lines(["dpquant audit: max_draws=250000, seed=0"])
    result = _run_spy(pytester, monkeypatch, {}, "--audit-time-budget", "30", "--co")
    result.stdout.fnmatch_lines(["dpquant audit: time budget 30 s, seed=0"])


WORKERS_SPY = SPY + """

def test_workers(dp_audit, seen):
    from concurrent.futures import ThreadPoolExecutor

    dp_audit(RandomizedResponse(1.0))
    dp_audit(RandomizedResponse(1.0), workers=1)
    with ThreadPoolExecutor(1) as pool:  # a test's executor draws: the option's workers do not
        dp_audit(RandomizedResponse(1.0), executor=pool)
    print("WORKERS", seen[0].get("workers"), seen[1]["workers"], "workers" in seen[2])
"""


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        ([], {}, "WORKERS None 1 False"),
        (["--audit-workers", "3"], {}, "WORKERS 3 1 False"),
        ([], {"DPQUANT_AUDIT_WORKERS": "2"}, "WORKERS 2 1 False"),
        (["--audit-workers", "1"], {"DPQUANT_AUDIT_WORKERS": "2"}, "WORKERS 1 1 False"),
    ],
)
def test_the_workers_of_every_audit_of_a_run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    expected: str,
) -> None:
    """``--audit-workers`` (issue 39): the worker processes that draw each audit's samples."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(test_spy=WORKERS_SPY)
    result = pytester.runpytest_inprocess(*LOAD, "-s", "-k", "test_workers", *args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*{expected}*"])
    if args:
        result.stdout.fnmatch_lines([f"dpquant audit: samples=auditor default, seed=0, workers={args[1]}"])


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--audit-workers", "0"], {}, "--audit-workers must be in [1, 1024], got 0"),
        (["--audit-workers", "1025"], {}, "--audit-workers must be in [1, 1024], got 1025"),
        ([], {"DPQUANT_AUDIT_WORKERS": "two"}, "DPQUANT_AUDIT_WORKERS must be an integer"),
        ([], {"DPQUANT_AUDIT_WORKERS": "0"}, "DPQUANT_AUDIT_WORKERS must be in [1, 1024], got 0"),
    ],
)
def test_bad_workers_are_a_usage_error_at_start_up(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    message: str,
) -> None:
    result = _run_spy(pytester, monkeypatch, env, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


TIMED = """
import pytest
from dpquant.reference.primitives.randomized_response import RandomizedResponse


@pytest.mark.audit
def test_within_the_budget(dp_audit):
    report = dp_audit(RandomizedResponse(1.0))
    report.assert_private()
    print("NOTE", report.notes[-1][:40], "ALPHA", report.alpha)
"""


def test_a_time_budget_sizes_each_audit_of_a_run(pytester: pytest.Pytester) -> None:
    """``--audit-time-budget`` (issue 35): a real audit, labelled, at alpha / 2."""
    pytester.makepyfile(test_timed=TIMED)
    result = pytester.runpytest_inprocess(*LOAD, "-s", "-m", "audit", "--audit-time-budget", "2")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*NOTE time budget 2 s: a pilot audit of * ALPHA 5e-07*"])


def test_bad_environment_value_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPQUANT_AUDIT_SAMPLES", "many")
    pytester.makepyfile(test_spy=SPY)
    result = pytester.runpytest_inprocess(*LOAD)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "DPQUANT_AUDIT_SAMPLES must be an integer" in result.stderr.str()


def test_marker_is_registered_once(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(*LOAD, "--markers")
    lines = [line for line in result.stdout.lines if line.startswith("@pytest.mark.audit:")]
    assert lines == ["@pytest.mark.audit: privacy audits (dpquant)"]
    # a project that declares the marker itself (as dpquant does) keeps its own line only
    pytester.makeini("[pytest]\nmarkers =\n    audit: our audits\n")
    result = pytester.runpytest_inprocess(*LOAD, "--markers")
    lines = [line for line in result.stdout.lines if line.startswith("@pytest.mark.audit:")]
    assert lines == ["@pytest.mark.audit: our audits"]


def test_entry_point_autoloads_in_a_fresh_interpreter(pytester: pytest.Pytester) -> None:
    """The installed entry point, in a new process: the fixture exists without any set-up, and
    disappears with ``-p no:dpquant_audit``."""
    pytester.makepyfile(test_spy=SPY)
    result = pytester.runpytest_subprocess(*LOAD, "-s", "--audit-samples", "42")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*SEEN 42 0*"])
    if not LOAD:
        result = pytester.runpytest_subprocess("-p", "no:dpquant_audit")
        result.assert_outcomes(errors=3)
        result.stdout.fnmatch_lines(["*fixture 'dp_audit' not found*"])


def test_the_total_budget_bounds_a_real_audit_and_still_flags_a_leak() -> None:
    """The option's budget reaches ``audit_mechanism``: every draw counted, search included."""
    dp_audit = make_auditor({"samples": None, "max_draws": 200_000, "seed": 0, "timeout": None})
    report = dp_audit(RandomizedResponse(1.0))
    assert report.samples_used <= 200_000 and not report.violation

    def leaky(data, rng):
        return float(data[0]) + 0.01 * rng.random()

    claim = PrivacyClaim(1.0, adjacency="local")
    report = dp_audit(leaky, claim=claim, domain=(0.0, 1.0))
    assert report.samples_used <= 200_000 and report.violation


def test_dp_audit_takes_a_claim_of_any_measure(dp_audit) -> None:
    """A zCDP claim on a plain function, and a mechanism whose own claim is μ-GDP, go through
    dpquant.audit.audit_claim; max_draws is refused with them (issue 37)."""
    import numpy as np

    from dpquant.reference.measures import ZCDPClaim
    from dpquant.reference.primitives import GaussianCount

    def count(data, size, rng):
        return float(np.sum(data)) + rng.standard_normal(size)

    claim = ZCDPClaim(0.5, adjacency="add_remove")
    report = dp_audit(count, claim=claim, domain=(0, 1), vectorized=True, input_values=(0, 1),
                      samples=20_000, alpha=1e-7)
    report.assert_private()
    assert report.bounds[0].measure == "rho"
    own = dp_audit(GaussianCount(0.5), samples=20_000, alpha=1e-7)  # its own claim: 2-GDP
    own.assert_private()
    with pytest.raises(ValueError, match="max_draws and time_budget"):
        dp_audit(GaussianCount(0.5), max_draws=10**6)
