"""The independent checker (``certificate_checker.py``) accepts every certificate of the
repository, refuses each kind of tampering, and imports no dpquant code."""

from __future__ import annotations

import ast
import copy
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from proofs_checks.certificate_checker import (
    CERTIFICATES,
    CertificateError,
    certificate_files,
    check_certificate,
    check_file,
    main,
    parse,
)

FILES = list(certificate_files())
CLAIMS = [json.loads(p.read_text(encoding="utf-8"))["claim"] for p in FILES]
SAMPLE = CERTIFICATES / "aamand25" / "lemma-G.5.json"


def test_there_are_certificates() -> None:
    assert len(FILES) >= 1


@pytest.mark.parametrize("path", FILES, ids=CLAIMS)
def test_certificate_is_accepted(path: Path) -> None:
    checked = check_file(path)
    assert checked.claim == json.loads(path.read_text(encoding="utf-8"))["claim"]
    assert checked.leaves >= 1


@pytest.mark.parametrize("module", ["certificate_checker.py", "certificate_language.py"])
def test_the_checker_imports_no_dpquant_code(module: str) -> None:
    tree = ast.parse((Path(__file__).parent / module).read_text(encoding="utf-8"))
    modules = {
        a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    modules |= {
        n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
    }
    assert modules <= {
        "__future__",
        "json",
        "re",
        "sys",
        "time",
        "collections",
        "dataclasses",
        "fractions",
        "pathlib",
        "typing",
        "flint",
        "sympy",
        "certificate_language",
    }, modules


def sample() -> dict[str, Any]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def first_leaf(node: dict[str, Any]) -> dict[str, Any]:
    while "split" in node:
        node = node["low"]
    return node


def refused(data: dict[str, Any]) -> CertificateError:
    with pytest.raises(CertificateError) as info:
        check_certificate(data)
    return info.value


def test_a_leaf_bound_raised_above_the_enclosure_is_refused() -> None:
    data = sample()
    leaf = first_leaf(data["parts"][0]["tree"])
    leaf["bound"] = str(Fraction(leaf["bound"]) * 1000)
    assert "not shown" in refused(data).reason


def test_a_leaf_bound_on_the_wrong_side_of_zero_is_refused() -> None:
    data = sample()
    first_leaf(data["parts"][0]["tree"])["bound"] = "-1"
    refused(data)


def test_a_tighter_goal_than_proven_is_refused() -> None:
    data = sample()
    goal = data["parts"][0]["goal"]
    goal["expression"] = goal["expression"].replace("eps - log", "eps/2 - log", 1)
    refused(data)


def test_a_pruned_subtree_is_refused() -> None:
    data = sample()
    tree = data["parts"][0]["tree"]
    data["parts"][0]["tree"] = first_leaf(tree)
    refused(data)


def test_a_widened_domain_where_the_claim_fails_is_refused() -> None:
    data = sample()
    data["parts"][1]["variables"][0]["hi"] = "3"  # eps up to 3: eps^2 > 5 + 5 u ln 2 near u = 0
    refused(data)


def test_a_split_outside_its_box_is_refused() -> None:
    data = sample()
    data["parts"][0]["tree"]["at"] = "7"
    refused(data)


@pytest.mark.parametrize("key, value", [("skip", True), ("trusted", "yes")])
def test_an_unknown_key_is_refused(key: str, value: Any) -> None:
    data = sample()
    data["parts"][0][key] = value
    refused(data)


def test_a_point_outside_the_hypotheses_is_refused() -> None:
    part = {
        "name": "x > 1 where x > 2",
        "method": "points",
        "variables": [{"name": "x", "lo": "0", "hi": "10"}],
        "hypotheses": [{"expression": "x - 2", "relation": ">"}],
        "goal": {"expression": "x - 1", "relation": ">"},
        "points": [{"at": {"x": "1/2"}, "bound": "0"}],
    }
    data = {"format": "dpquant-certificate/1", "claim": "test/x", "domain": "x", "parts": [part]}
    assert "hypothesis 0" in refused(copy.deepcopy(data)).reason
    part["points"] = [{"at": {"x": "3"}, "bound": "1"}]
    assert check_certificate(data).leaves == 1


def test_an_identity_that_is_not_one_is_refused() -> None:
    part = {
        "name": "i",
        "method": "identity",
        "variables": [{"name": "x", "lo": "1", "hi": "2"}],
        "goal": {"expression": "log(exp(x)) - x", "relation": ">="},
    }
    data = {"format": "dpquant-certificate/1", "claim": "test/i", "domain": "x", "parts": [part]}
    assert check_certificate(data).leaves == 1
    part["goal"]["expression"] = "log(exp(x)) - x + 1/10**30"
    refused(data)


@pytest.mark.parametrize("text", ["0.5*x", "x ^ 2", "foo(x)", "y", "x +", "__import__", "1e3"])
def test_the_parser_refuses_what_the_language_lacks(text: str) -> None:
    with pytest.raises(CertificateError):
        parse(text, {"x"}, "t")


def test_the_parser_reads_python_precedence() -> None:
    from flint import arb

    values = {"x": arb(3)}
    from proofs_checks.certificate_checker import evaluate

    assert evaluate(parse("-x**2", {"x"}, "t"), values) == arb(-9)
    assert evaluate(parse("2**3**2", {"x"}, "t"), values) == arb(512)
    assert evaluate(parse("x - 1 - 1", {"x"}, "t"), values) == arb(1)
    assert evaluate(parse("x**-1*3", {"x"}, "t"), values).contains(1)


def test_no_certificate_is_a_failure_not_a_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path)]) == 1
    assert "nothing was checked" in capsys.readouterr().err


def test_main_accepts_a_folder_and_refuses_a_tampered_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line over one group's folder (every file is checked by
    ``test_certificate_is_accepted``), then with a tampered copy beside it: exit 1."""
    folder = CERTIFICATES / "imola25"
    assert main([str(folder)]) == 0
    assert f"{len(list(folder.glob('*.json')))} accepted, 0 refused" in capsys.readouterr().out
    data = sample()
    first_leaf(data["parts"][0]["tree"])["bound"] = "1000"
    (tmp_path / "tampered.json").write_text(json.dumps(data), encoding="utf-8")
    assert main([str(folder), str(tmp_path)]) == 1
    assert "REFUSED" in capsys.readouterr().out
