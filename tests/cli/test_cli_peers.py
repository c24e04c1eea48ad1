"""``peer:NAME[:KEY=VALUE]...`` (dpquant/cli/peers.py): another library's quantile audited and
validated at the user's ε, bounds and options (issue 35, item 6). Each peer's test skips, with the
reason, when its library is not installed (the extra ``peers``).

A peer's own search takes minutes (a library call per draw, notes/peers.md), so the audits here
run the real auditor on one fixed neighbouring pair instead (``on_one_pair``): the command line's
part (the spec parsed, the adapter built at the user's parameters, its claim, its name in the
report) is what these tests check; the search is the auditor's, tested in tests/audit.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_errors import one_error_line

import dpquant.audit
from dpquant.audit.suites.adapters import PEERS, PeerUnavailable
from dpquant.cli import main
from dpquant.cli.peers import parse_peer, peer_parameters
from dpquant.cli.targets import resolve_candidate
from dpquant.options import UsageError

TARGETS = Path(__file__).with_name("cli_targets.py")
QUICK = ["--samples", "200", "--quiet"]


def installed(name: str) -> None:
    """Skip, naming the reason, when the library of the peer ``name`` is missing."""
    try:
        PEERS[name]()
    except PeerUnavailable as exc:
        pytest.skip(str(exc))


ONE_PAIR_SCREEN = 100
"""Draws a side of the auditor's second and third screens in these tests (defaults 2 000 and
10 000): the screens rank candidate pairs, and here there is one, so they choose nothing; at their
defaults they were most of each test's draws (a library call each)."""


@pytest.fixture
def on_one_pair(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The real auditor, on one neighbouring pair in [10, 20] (of the claim's relation) instead
    of its search, its screens of that one pair shrunk to :data:`ONE_PAIR_SCREEN` draws a side;
    records the mechanism and the name the command line passed it."""
    from dpquant.audit.pipeline import stage2_screening

    monkeypatch.setattr(stage2_screening, "MIDSCREEN_SAMPLES", ONE_PAIR_SCREEN)
    monkeypatch.setattr(stage2_screening, "RESCREEN_SAMPLES", ONE_PAIR_SCREEN)
    real = dpquant.audit.audit_mechanism
    seen: dict[str, Any] = {}

    def audit(mech: Any, **options: Any) -> Any:
        seen["mech"], seen["name"] = mech, options["options"].name
        if mech.claim.adjacency == "add_remove":
            options["pairs"] = [([12.0], [12.0, 18.0])]
        else:
            options["pairs"] = [([11.0, 12.0], [11.0, 18.0])]
        return real(mech, **options)

    monkeypatch.setattr(dpquant.audit, "audit_mechanism", audit)
    return seen


# (peer, spec at the user's parameters, the name's parts, the values its draws take)
AT_USER_PARAMETERS = [
    (
        "diffprivlib",
        "peer:diffprivlib:epsilon=0.5:bounds=10,20:quantile=0.25",
        ("diffprivlib", "q=0.25", "eps=0.5", "bounds=(10,20)"),
        "in [10, 20]",
    ),
    (
        "python-dp",
        "peer:python-dp:epsilon=0.5:bounds=10,20:function=percentile:percentile=0.25",
        ("python-dp", "p=0.25", "eps=0.5", "bounds=(10,20)"),
        "in [10, 20]",
    ),
    (
        "opendp",
        "peer:opendp:epsilon=0.5:candidates=10,15,20:quantile=0.25",
        ("opendp", "q=0.25", "eps=0.5", "candidates=(10,15,20)"),
        "candidates",
    ),
    (
        "eeprivacy",
        "peer:eeprivacy:epsilon=0.5:candidates=10,15,20:quantile=0.25",
        ("eeprivacy", "q=0.25", "eps=0.5", "candidates=(10,15,20)"),
        "candidates",
    ),
]


@pytest.mark.parametrize(
    "peer, spec, parts, outputs", AT_USER_PARAMETERS, ids=[c[0] for c in AT_USER_PARAMETERS]
)
def test_each_peer_is_audited_at_the_users_epsilon_and_bounds_under_a_claim_of_that_epsilon(
    peer: str,
    spec: str,
    parts: tuple[str, ...],
    outputs: str,
    on_one_pair: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    installed(peer)
    out = tmp_path / "report.json"
    code = main(["audit", spec, *QUICK, "--json", str(out)])
    header = capsys.readouterr().out.splitlines()[0]
    assert code == 0, header
    report = json.loads(out.read_text())
    assert report["claim"]["epsilon"] == report["claimed_epsilon"] == 0.5
    assert all(part in report["mechanism"] for part in parts), report["mechanism"]
    assert header.startswith(report["mechanism"]) and "claimed ε = 0.5 " in header
    mech = on_one_pair["mech"]
    assert on_one_pair["name"] == mech.name == report["mechanism"]
    draws = np.asarray(mech.sample(np.array([11.0, 12.0, 18.0]), 60, np.random.default_rng(1)))
    if outputs == "candidates":
        assert set(draws.tolist()) <= {10.0, 15.0, 20.0}
    else:
        assert np.all((10.0 <= draws) & (draws <= 20.0)) and np.any(draws > 1.0)


def test_epsilon_given_as_well_overrides_the_peers_claim_and_the_name_keeps_the_peers_epsilon(
    on_one_pair: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    installed("eeprivacy")
    out = tmp_path / "report.json"
    spec = "peer:eeprivacy:epsilon=0.5:candidates=10,15,20"
    assert main(["audit", spec, "--epsilon", "0.25", *QUICK, "--json", str(out)]) in (0, 1)
    report = json.loads(out.read_text())
    assert report["claimed_epsilon"] == 0.25 and "eps=0.5" in report["mechanism"]
    assert on_one_pair["mech"].claim.epsilon == 0.25


@pytest.mark.parametrize(
    "option, value, key",
    [("--epsilon", "0.5", "epsilon"), ("--adjacency", "add_remove", "adjacency")],
)
def test_a_claim_option_for_a_peer_whose_spec_leaves_it_out_is_refused_with_the_spec_to_write(
    option: str, value: str, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``peer:diffprivlib --epsilon 0.5`` would audit diffprivlib at its default ε = 1 against a
    claim of 0.5: ambiguous, so refused before anything is built or drawn."""
    assert main(["audit", "peer:diffprivlib", option, value, "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"{option} sets the audited claim" in line
    assert f"peer:diffprivlib:{key}={value}" in line


def test_python_dp_takes_no_adjacency_so_adjacency_overrides_its_claim_as_for_any_mechanism(
    on_one_pair: dict[str, Any], tmp_path: Path
) -> None:
    installed("python-dp")
    out = tmp_path / "report.json"
    spec = "peer:python-dp:bounds=10,20"
    assert main(["audit", spec, "--adjacency", "replace_one", *QUICK, "--json", str(out)]) in (0, 1)
    assert json.loads(out.read_text())["claim"]["adjacency"] == "replace_one"


def test_two_parameterisations_never_share_a_name() -> None:
    installed("diffprivlib")
    installed("opendp")
    specs = [
        "peer:diffprivlib",
        "peer:diffprivlib:epsilon=0.1234567",
        "peer:diffprivlib:epsilon=0.1234568",
        "peer:diffprivlib:bounds=0,100",
        "peer:diffprivlib:quantile=0.25",
        "peer:diffprivlib:adjacency=add_remove",
        "peer:opendp:candidates=0,0.5,1",
        "peer:opendp:candidates=0,0.25,1",
        "peer:opendp:candidates=" + ",".join(str(i / 20) for i in range(21)),  # not linspace's
        "peer:opendp:candidates=" + ",".join(str(i / 19) for i in range(20)),
        "peer:opendp:candidates=" + ",".join(str(i / 19 + 1) for i in range(20)),
    ]
    names = [resolve_candidate(spec)[1] for spec in specs]
    assert len(set(names)) == len(names), names


def test_the_defaults_keep_their_names() -> None:
    installed("diffprivlib")
    assert resolve_candidate("peer:diffprivlib")[1] == (
        "diffprivlib quantile[q=0.5,eps=1,bounds=(0,1),replace_one]"
    )


def test_validate_takes_a_peer_at_the_users_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """diffprivlib at q = ¼, ε = ½, bounds (0, 100) draws from Smith's EM at those parameters
    (our reference, by MODULE:ATTR): the validation passes; it could not at the defaults."""
    installed("diffprivlib")
    reference = f"{TARGETS}:em_q25_eps05_0_100"
    spec = "peer:diffprivlib:quantile=0.25:epsilon=0.5:bounds=0,100"
    args = ["--no-audit", "--samples", "500", "--sizes", "1,2"]
    assert main(["validate", reference, spec, *args]) == 0
    assert "diffprivlib quantile[q=0.25,eps=0.5,bounds=(0,100)" in capsys.readouterr().out
    assert main(["validate", reference, "peer:diffprivlib", *args]) == 1


BAD_SPECS = [
    ("peer:diffprivlib:epsilon=nan", "peer:diffprivlib: epsilon must be"),
    ("peer:diffprivlib:epsilon=inf", "peer:diffprivlib: epsilon must be a finite"),
    ("peer:diffprivlib:epsilon=-1", "peer:diffprivlib: epsilon must be a finite number > 0"),
    ("peer:diffprivlib:epsilon=0", "peer:diffprivlib: epsilon must be a finite number > 0"),
    ("peer:diffprivlib:epsilon=abc", "peer:diffprivlib: epsilon must be a number, got 'abc'"),
    ("peer:diffprivlib:epsilon=true", "peer:diffprivlib: epsilon must be a number, got 'true'"),
    ("peer:diffprivlib:epsilon=1_000", "peer:diffprivlib: epsilon must be a number"),
    ("peer:diffprivlib:epsilon=1e400", "peer:diffprivlib: epsilon must fit a float64"),
    ("peer:diffprivlib:quantile=1.5", "peer:diffprivlib: quantile must lie in [0, 1]"),
    ("peer:diffprivlib:bounds=100,0", "peer:diffprivlib: bounds must have lo < hi"),
    ("peer:diffprivlib:bounds=5,5", "peer:diffprivlib: bounds must have lo < hi"),
    ("peer:diffprivlib:bounds=0,inf", "peer:diffprivlib: bounds must be finite"),
    ("peer:diffprivlib:bounds=nan,1", "peer:diffprivlib: bounds must have lo < hi"),
    ("peer:diffprivlib:bounds=0", "peer:diffprivlib: bounds must be 'lo,hi'"),
    ("peer:diffprivlib:bounds=a,b", "peer:diffprivlib: bounds must be two numbers"),
    ("peer:diffprivlib:function=mode", "peer:diffprivlib: function must be one of quantile,"),
    ("peer:diffprivlib:function=Median", "peer:diffprivlib: function must be one of"),
    ("peer:diffprivlib:function=median:quantile=0.25", "peer:diffprivlib: quantile must be 0.5"),
    ("peer:diffprivlib:epsilon=0.5:epsilon=0.4", "peer:diffprivlib: epsilon is given twice"),
    ("peer:diffprivlib:=0.5", "peer:diffprivlib: option '=0.5' has an empty key"),
    ("peer:diffprivlib:epsilon=", "peer:diffprivlib: epsilon has no value"),
    ("peer:diffprivlib:epsilon", "peer:diffprivlib: option 'epsilon' must be KEY=VALUE"),
    ("peer:diffprivlib::epsilon=1", "peer:diffprivlib: an empty option"),
    ("peer:diffprivlib:", "peer:diffprivlib: an empty option"),
    ("peer:python-dp:percentile=0.9", "peer:python-dp: percentile must be 0.5"),
    ("peer:python-dp:epsilon=1e-12", "peer:python-dp: epsilon must be at least 2^-30"),
    ("peer:opendp:candidates=0,0.5,0.5", "peer:opendp: candidates must not repeat a value"),
    ("peer:opendp:candidates=0,,1", "peer:opendp: candidates must not have an empty item"),
    ("peer:opendp:candidates=0,inf", "peer:opendp: candidates must be finite"),
    ("peer:opendp:adjacency=local", "peer:opendp: adjacency must be one of add_remove,"),
    ("peer:opendp:epsilon=1e-320", "peer:opendp: epsilon = 1e-320 gives a noise scale"),
    ("peer:eeprivacy:measure=max_divergence", "peer:eeprivacy has no option 'measure'"),
]


@pytest.mark.parametrize("spec, says", BAD_SPECS, ids=[s for s, _ in BAD_SPECS])
def test_every_bad_option_is_one_usage_line_naming_the_peer_and_the_parameter(
    spec: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    installed(spec.split(":")[1])
    assert main(["audit", spec, "--quiet"]) == 2
    assert says in one_error_line(capsys.readouterr().err)


def test_validate_refuses_a_bad_peer_option_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    installed("diffprivlib")
    reference = "exponential_quantile[q=0.5,eps=1,replace_one]"
    assert main(["validate", reference, "peer:diffprivlib:bounds=1,0"]) == 2
    assert "peer:diffprivlib: bounds must have lo < hi" in one_error_line(capsys.readouterr().err)


def test_an_unknown_key_lists_every_key_the_peer_takes_with_its_type_and_range(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", "peer:diffprivlib:eps=0.5", "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "peer:diffprivlib has no option 'eps'; did you mean 'epsilon'?" in line
    for part in (
        "quantile=NUMBER in [0, 1] (default 0.5)",
        "epsilon=NUMBER > 0 (default 1)",
        "bounds=LO,HI with LO < HI (default 0,1)",
        "function=quantile|median|percentile (default quantile)",
        "adjacency=replace_one|add_remove|local (default replace_one)",
    ):
        assert part in line, line


def test_an_unknown_key_with_nothing_close_still_lists_the_keys(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["audit", "peer:opendp:zzz=1", "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "peer:opendp has no option 'zzz'; it takes: quantile=" in line
    assert "did you mean" not in line and "measure=max_divergence|zero_concentrated" in line


@pytest.mark.parametrize(
    "spec, close",
    [("peer:difprivlib", "peer:diffprivlib"), ("peer:opendb", "peer:opendp"),
     ("peer:pythondp", "peer:python-dp"), ("peer:EEPRIVACY", "peer:eeprivacy")],
)  # fmt: skip
def test_a_mistyped_peer_name_gets_the_close_one_and_the_known_ones(
    spec: str, close: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", f"{spec}:epsilon=0.5", "--quiet"]) == 2
    line = one_error_line(capsys.readouterr().err)
    name = spec.split(":")[1]
    assert f"unknown peer '{name}'; did you mean '{close}'?" in line
    assert "(known: diffprivlib, eeprivacy, opendp, python-dp)" in line


def test_every_peer_takes_exactly_its_factorys_keyword_parameters() -> None:
    for name, factory in PEERS.items():
        params = peer_parameters(name)
        assert list(params) == list(factory.__code__.co_varnames[: len(params)])
        assert all(p.default is not inspect.Parameter.empty for p in params.values())


def test_values_are_converted_to_the_factorys_types() -> None:
    peer = parse_peer(
        "peer:opendp:quantile=0.25:epsilon=2:candidates=0,0.5,1:measure=zero_concentrated_divergence"
    )
    assert peer.options == {
        "quantile": 0.25,
        "epsilon": 2.0,
        "candidates": (0.0, 0.5, 1.0),
        "measure": "zero_concentrated_divergence",
    }
    assert parse_peer("peer:diffprivlib:bounds=-1,1e3").options == {"bounds": (-1.0, 1000.0)}


def _toy(size: int = 3, strict: bool = False, epsilon: float = 1.0) -> dict[str, Any]:
    """A factory with an integer and a flag, as a future adapter might have."""
    return {"size": size, "strict": strict, "epsilon": epsilon}


def test_integers_and_flags_are_read_and_refused_by_their_type(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PEERS, "toy", _toy)
    assert parse_peer("peer:toy:size=7:strict=true").options == {"size": 7, "strict": True}
    assert parse_peer("peer:toy:strict=FALSE").options == {"strict": False}
    for spec, says in [
        ("peer:toy:size=2.5", "peer:toy: size must be an integer"),
        ("peer:toy:size=true", "peer:toy: size must be an integer"),
        ("peer:toy:strict=1", "peer:toy: strict must be true or false, got '1'"),
        ("peer:toy:strict=yes", "peer:toy: strict must be true or false"),
    ]:
        with pytest.raises(UsageError, match=says.replace("(", r"\(")):
            parse_peer(spec)


def test_mechanisms_shows_every_option_of_every_peer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mechanisms"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("peer:")]
    assert [line.split()[0] for line in lines] == [f"peer:{n}" for n in sorted(PEERS)]
    for line in lines:
        name = line.split()[0].removeprefix("peer:")
        assert " peer " in line
        for key in peer_parameters(name):
            assert f" {key}=" in line or f", {key}=" in line, (key, line)
