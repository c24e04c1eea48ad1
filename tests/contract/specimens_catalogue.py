"""Contract specimens and fuzz entries of the catalogue area (see :mod:`harness`): the auditor's
known-bad mechanisms (``dpquant.audit.suites.catalogue``), its helpers, and the claims ledger
(``dpquant.reference.claims``). The bad mechanisms break privacy, not input checking: they are held to
the same contract as every other mechanism."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen

from dpquant.audit.suites import catalogue
from dpquant.reference.claims import (
    REPO_ROOT,
    Claim,
    check_exists,
    format_ledger,
    ledger_problems,
    load_ledger,
    status_counts,
)

DATA = [0.1, 0.4, 0.4, 0.9]
ONE_QUANTILE = {"quantile": 0.5, "epsilon": 1.0, "bounds": (0.0, 1.0)}
ONE_QUANTILE_KINDS = {"quantile": "real", "epsilon": "real", "bounds": "pair"}

SPECIMENS: list[Specimen] = [
    Specimen("EMNoHalf", catalogue.EMNoHalf, ONE_QUANTILE, ONE_QUANTILE_KINDS, DATA),
    Specimen("EMNoWidth", catalogue.EMNoWidth, ONE_QUANTILE, ONE_QUANTILE_KINDS, DATA),
    # an outlier outside the bounds: the bug stretches the output range to 2
    Specimen(
        "EMNoClamp", catalogue.EMNoClamp, ONE_QUANTILE, ONE_QUANTILE_KINDS, [0.1, 0.4, 0.4, 2.0]
    ),
    Specimen(
        "EMDataBounds", catalogue.EMDataBounds, ONE_QUANTILE, ONE_QUANTILE_KINDS, [0.2, 0.5, 0.9]
    ),
    Specimen(
        "EMOutputsDataValue", catalogue.EMOutputsDataValue, ONE_QUANTILE, ONE_QUANTILE_KINDS, DATA
    ),
    # n = 2, q = 1/2: the interval [.25, .75] sits at the target rank, so no weight underflows
    # whatever ε (the deliberate "no candidate" needs thousands of tied points)
    Specimen("EMUnderflow", catalogue.EMUnderflow, ONE_QUANTILE, ONE_QUANTILE_KINDS, [0.25, 0.75]),
    Specimen(
        "MedianLocalSensitivityLaplace",
        catalogue.MedianLocalSensitivityLaplace,
        {"epsilon": 1.0, "bounds": (0.0, 1.0)},
        {"epsilon": "real", "bounds": "pair"},
        [0.1, 0.4, 0.9],
    ),
    Specimen("RRWrongFlip", catalogue.RRWrongFlip, {"epsilon": 1.0}, {"epsilon": "real"}, 1),
    Specimen(
        "MultiQuantileFullBudget",
        catalogue.MultiQuantileFullBudget,
        {"epsilon": 1.0, "quantiles": (0.25, 0.75), "bounds": (0.0, 1.0)},
        {"epsilon": "real", "quantiles": "data", "bounds": "pair"},
        [0.0, 0.25, 0.25, 0.25],
        extra={"quantiles": ((), (0.5,), range(2), np.array([[0.5]]), (0.5,) * 1001)},
    ),
]


# -- checks of accepted calls -----------------------------------------------------------------


def _is_entry(result: Any) -> None:
    assert isinstance(result, catalogue.CatalogueEntry), f"not a CatalogueEntry: {result!r:.100}"


def _is_loss(result: Any) -> None:
    assert isinstance(result, mpmath.mpf), f"not an mpf: {result!r:.100}"
    assert mpmath.isfinite(result) and result >= 0, f"privacy loss {result}"


def _is_keep_probability(result: Any) -> None:
    assert isinstance(result, mpmath.mpf) and 0.5 <= result <= 1, f"keep probability {result}"


def _is_ledger(result: Any) -> None:
    assert isinstance(result, list) and all(isinstance(c, Claim) for c in result)


def _is_text(result: Any) -> None:
    assert isinstance(result, str) and "total:" in result


def _is_problem_list(result: Any) -> None:
    assert isinstance(result, list) and all(isinstance(p, str) for p in result)


def _is_bool(result: Any) -> None:
    assert isinstance(result, bool)


def _is_counts(result: Any) -> None:
    assert isinstance(result, dict) and all(isinstance(k, int) for k in result.values())


def _is_claim(result: Any) -> None:
    assert isinstance(result, Claim)
    assert all(isinstance(getattr(result, f), str) for f in ("id", "paper", "statement", "note"))
    assert isinstance(result.checks, tuple) and all(isinstance(c, str) for c in result.checks)


def _registry_entry(**kwargs: Any) -> Any:
    from dpquant.reference.registry import RegistryEntry  # the registry imports every package

    entry = RegistryEntry(**kwargs)
    assert all(isinstance(v, float) and np.isfinite(v) for v in entry.grid)
    assert isinstance(entry.max_n, int) and entry.max_n >= 1
    return entry


# -- hostile ledgers ----------------------------------------------------------------------------

_TMP = tempfile.TemporaryDirectory(prefix="dpquant-contract-ledger-")
_DIR = Path(_TMP.name)


def _ledger_file(name: str, content: str | bytes) -> Path:
    path = _DIR / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


_GOOD_CLAIM = (
    '[[claim]]\nid = "imola25/lemma-9.9"\npaper = "imola25"\nkind = "lemma"\nnumber = "9.9"\n'
    'statement = "x"\nstatus = "todo"\n'
)
GOOD_LEDGER = _ledger_file("good.toml", _GOOD_CLAIM)
HOSTILE_LEDGERS: tuple[Any, ...] = (
    _DIR,  # a directory
    str(_DIR),
    _DIR / "missing.toml",
    _DIR / "missing" / "claims.toml",
    _ledger_file("not_toml.toml", "this is = = not TOML\n[[["),
    _ledger_file("binary.toml", b"\xff\xfe\x00\x01binary\x80"),
    _ledger_file("no_claims.toml", 'title = "a TOML file that is not a ledger"\n'),
    _ledger_file("claim_int.toml", "claim = 5\n"),
    _ledger_file("claim_not_tables.toml", "claim = [1, 2]\n"),
    _ledger_file("missing_fields.toml", '[[claim]]\nid = "imola25/x"\n'),
    _ledger_file("int_statement.toml", _GOOD_CLAIM.replace('"x"', "5")),
    _ledger_file("checks_string.toml", _GOOD_CLAIM + 'checks = "tests/x.py::test_y"\n'),
    _ledger_file("bool_number.toml", _GOOD_CLAIM.replace('number = "9.9"', "number = true")),
    REPO_ROOT / "README.md",
    REPO_ROOT / "pyproject.toml",
    "x" * 5000,
    "a\0b.toml",
    b"notes/claims.toml",
)

_CHECK = "tests/reference/test_claims_ledger.py::test_ledger_has_no_problems"
CLAIMS = [
    Claim("imola25/lemma-9.9", "imola25", "lemma", "9.9", "x", "verified", (_CHECK,)),
    Claim("imola25/lemma-9.8", "imola25", "lemma", "9.8", "y", "refuted", ()),
    Claim("tzamos20/lemma-1.1", "tzamos20", "lemma", "1.1", "z " * 60, "todo", ()),
]
HOSTILE_CLAIMS: tuple[Any, ...] = (
    [*CLAIMS, 5],
    [CLAIMS[0], None],
    [{"id": "imola25/x"}],
    "imola25/lemma-9.9",
    CLAIMS[0],
    tuple(CLAIMS),
)
HOSTILE_ROOTS: tuple[Any, ...] = (
    _DIR,
    _DIR / "missing",
    GOOD_LEDGER,
    "x" * 5000,
    b"/",
    "a\0b",
)
HOSTILE_NODE_IDS: tuple[Any, ...] = (
    "",
    "::",
    "tests/reference/test_claims_ledger.py",
    "tests/reference/test_claims_ledger.py::",
    f"{_CHECK}[param]::deeper",
    "tests/::test_x",
    "../../../../etc/passwd::x",
    "/etc/passwd::x",
    "a\0b::c",
    "x" * 5000 + "::y",
    "README.md::x",
    "reference/data::x",
)


ENTRIES: list[Entry] = [
    Entry(
        "catalogue_entry",
        catalogue.catalogue_entry,
        {"name": "em_no_half"},
        {"name": "choice"},
        check=_is_entry,
        extra={"name": ("EM_NO_HALF", "em_no_half ", "control_em_median", "rr_wrong_flip")},
    ),
    Entry(
        "multi_quantile_exact_epsilon",
        catalogue.multi_quantile_exact_epsilon,
        {
            "mech": catalogue.MultiQuantileFullBudget(quantiles=(0.25, 0.75)),
            "d0": [0.0, 0.25, 0.25],
            "d1": [0.25, 0.25, 1.0],
        },
        {"mech": "any", "d0": "data", "d1": "data"},
        check=_is_loss,
        extra={
            "mech": (
                catalogue.EMNoHalf(),
                catalogue.MultiQuantileFullBudget,
                catalogue.MultiQuantileFullBudget(1e-300),
            )
        },
    ),
    Entry(
        "wrong_keep_probability_mp",
        catalogue.wrong_keep_probability_mp,
        {"epsilon": 1.0},
        {"epsilon": "real"},
        check=_is_keep_probability,
    ),
    Entry(
        "load_ledger",
        load_ledger,
        {"path": GOOD_LEDGER},
        {"path": "any"},
        check=_is_ledger,
        extra={"path": HOSTILE_LEDGERS},
    ),
    Entry(
        "format_ledger",
        lambda claims, width: format_ledger(claims, width=width),
        {"claims": CLAIMS, "width": 20},
        {"claims": "any", "width": "int"},
        check=_is_text,
        extra={"claims": HOSTILE_CLAIMS},
    ),
    Entry(
        "ledger_problems",
        ledger_problems,
        {"claims": CLAIMS, "root": REPO_ROOT},
        {"claims": "any", "root": "any"},
        check=_is_problem_list,
        extra={"claims": HOSTILE_CLAIMS, "root": HOSTILE_ROOTS},
    ),
    Entry(
        "check_exists",
        check_exists,
        {"node_id": _CHECK, "root": REPO_ROOT},
        {"node_id": "any", "root": "any"},
        check=_is_bool,
        extra={"node_id": HOSTILE_NODE_IDS, "root": HOSTILE_ROOTS},
    ),
    Entry(
        "Claim",
        Claim,
        {
            "id": "imola25/lemma-9.9",
            "paper": "imola25",
            "kind": "lemma",
            "number": "9.9",
            "statement": "x",
            "status": "todo",
            "checks": (_CHECK,),
            "note": "",
        },
        {
            "id": "any",
            "paper": "any",
            "kind": "any",
            "number": "any",
            "statement": "any",
            "status": "any",
            "checks": "any",
            "note": "any",
        },
        check=_is_claim,
        extra={"checks": ("tests/x.py::y", [_CHECK, 5], [b"x"])},
    ),
    Entry(
        "RegistryEntry",
        _registry_entry,
        {
            "name": "em",
            "description": "an entry",
            "build": lambda: None,
            "grid": (0.0, 0.5, 1.0),
            "max_n": 2,
            "pairs": None,
        },
        {
            "name": "any",
            "description": "any",
            "build": "any",
            "grid": "data",
            "max_n": "int",
            "pairs": "any",
        },
        check=lambda e: None,
    ),
    Entry(
        "status_counts",
        status_counts,
        {"claims": CLAIMS},
        {"claims": "any"},
        check=_is_counts,
        extra={"claims": HOSTILE_CLAIMS},
    ),
]
