"""The command line names a library's refusal by the option the user typed, read from the error's
attributes (issue 36, "errors as types"): ``epsilon`` is written ``--epsilon``, each parameter
of a combination its option, and a plain ``ValueError`` keeps its message."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpquant.cli import main
from dpquant.errors import CombinationError, MissingAttributeError, ParameterError
from dpquant.options import option_message

OPTIONS = {"min_log2n": "--min-log2n", "max_log2n": "--max-log2n", "samples": "--samples"}


def test_a_parameter_is_written_as_its_option() -> None:
    error = ParameterError("samples", "must be an integer in [10, 100]", "5")
    assert option_message(error, OPTIONS) == "--samples must be an integer in [10, 100], got 5"


def test_each_parameter_of_a_combination_is_written_as_its_option() -> None:
    error = CombinationError(("min_log2n", "max_log2n"), "need 1 <= min <= max <= 30", "12 and 11")
    assert (
        option_message(error, OPTIONS)
        == "--min-log2n, --max-log2n: need 1 <= min <= max <= 30, got 12 and 11"
    )


def test_a_parameter_no_option_sets_keeps_its_name() -> None:
    assert option_message(MissingAttributeError("mech.claim"), OPTIONS) == "mech.claim is missing"


def test_a_plain_value_error_keeps_its_message_even_when_it_mentions_a_keyword() -> None:
    """The old rewriter replaced ``samples`` wherever the text had it; only the parameter an error
    carries is an option's now."""
    error = ValueError("samples must be set here")
    assert option_message(error, OPTIONS) == "samples must be set here"
    named = ParameterError("data", "must hold at least samples values")
    assert option_message(named, OPTIONS) == "data must hold at least samples values"


def test_reproduce_names_both_options_of_a_refused_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["reproduce", "fukuchi19", "--min-log2n", "12", "--max-log2n", "11"]
    assert main([*argv, "--out", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == (
        "dpquant: error: reproduce fukuchi19: --min-log2n, --max-log2n: need 1 <= min <= max "
        "<= 30, got 12 and 11\n"
    )
    assert not (tmp_path / "out").exists()


def test_the_auditors_refusal_of_the_domain_names_the_domain_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One input value leaves a single value to probe: the auditor refuses ``domain``, which the
    command line writes ``--domain``."""
    target = f"{Path(__file__).with_name('cli_targets.py')}:rr_vectorized"
    argv = ["audit", target, "--epsilon", "1", "--adjacency", "local", "--domain", "0,1"]
    assert main([*argv, "--vectorized", "--input-values", "1", "--samples", "100", "-q"]) == 2
    assert capsys.readouterr().err == (
        "dpquant: error: --domain must give two values to probe for a local audit (widen it, or "
        "give pairs), got (0.0, 1.0), which gives one: (1.0,)\n"
    )
