"""``dpquant audit TARGET`` on broken targets: a function whose signature or trial call fails, a
mechanism whose ``sample`` breaks the sampling contract (exit 2, one line naming it), a mechanism
that produces no output (exit 4, INCONCLUSIVE); never exit 0 (issue 34)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_errors import one_error_line

from dpquant.cli import main
from dpquant.cli.audit import exit_code
from dpquant.cli.messages import EXIT_FAILED, EXIT_INCONCLUSIVE, EXIT_USAGE

TARGETS = Path(__file__).with_name("cli_broken_targets.py")
LOCAL_01 = ["--epsilon", "1", "--adjacency", "local", "--domain", "0,1"]
FAST = ["--samples", "2000", "--quiet"]


def target(attr: str) -> str:
    return f"{TARGETS}:{attr}"


@pytest.mark.parametrize(
    "attr, extra, says",
    [
        ("one_argument", [], "must be callable as fn(data, rng), but its signature is"),
        ("plain", ["--vectorized"], "drop vectorized=True (CLI: --vectorized)"),
        ("always_raises", [], "raised on every trial call fn(data, rng)"),
        ("recurses", [], "RecursionError"),
        ("returns_a_dict", [], "returned a dict on a trial call"),
    ],
)
def test_a_broken_function_is_a_usage_error_before_any_draw(
    attr: str, extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.perf_counter()
    code = main(["audit", target(attr), *LOCAL_01, *FAST, *extra])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE, captured
    line = one_error_line(captured.err)
    assert f"fn '{TARGETS}:{attr}'" in line and says in line, line
    assert captured.out == ""  # no report: nothing was audited
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    "attr, says",
    [
        ("leaky_more", "draws for"),
        ("leaky_fewer", "draws for"),
        ("leaky_scalar", "(a scalar), not"),
        ("leaky_none", "returned None, not"),
        ("leaky_cube", "returned an array of shape"),
    ],
)
def test_a_mechanism_that_breaks_the_sampling_contract_is_refused_naming_it(
    attr: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["audit", target(attr), *FAST])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE, captured
    line = one_error_line(captured.err)
    assert "mechanism 'leaky, " in line and says in line and "sample(data, " in line, line


def test_the_same_leaky_mechanism_with_the_right_shape_is_a_violation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["audit", target("leaky_right_shape"), *FAST])
    assert code == EXIT_FAILED
    assert "VIOLATION" in capsys.readouterr().out


@pytest.mark.parametrize(
    "attr, extra, says",
    [
        ("forgot_to_return", LOCAL_01, "every one of its"),
        ("raises_always", [], "raised ZeroDivisionError"),
    ],
)
def test_a_mechanism_with_no_output_is_inconclusive_exit_4(
    attr: str, extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["audit", target(attr), *extra, *FAST])
    captured = capsys.readouterr()
    assert code == EXIT_INCONCLUSIVE, captured
    assert "INCONCLUSIVE: the mechanism produced no output" in captured.out
    assert says in captured.out and "no violation found" not in captured.out


@pytest.mark.parametrize(
    "violation, timed_out, conforms, inconclusive, code",
    [
        (False, None, None, None, 0),
        (True, None, None, None, EXIT_FAILED),
        (False, {"stage": "x"}, None, None, EXIT_FAILED),
        (False, None, False, None, EXIT_FAILED),
        (False, None, False, "no output", EXIT_FAILED),  # a finding outranks inconclusive
        (False, None, None, "no output", EXIT_INCONCLUSIVE),
        (False, None, True, "no output", EXIT_INCONCLUSIVE),
    ],
)
def test_the_exit_code_follows_the_verdicts_order(
    violation: bool, timed_out: Any, conforms: Any, inconclusive: Any, code: int
) -> None:
    report = SimpleNamespace(
        violation=violation,
        timed_out=timed_out,
        sampler_conforms=conforms,
        inconclusive=inconclusive,
        passed=not (violation or timed_out or conforms is False or inconclusive),
    )
    assert exit_code(report) == code
