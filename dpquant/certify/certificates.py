"""Certificates: a :class:`~dpquant.certify.specs.ClaimCertification` proven and written as the
JSON the independent checker reads (``proofs_checks/certificate_checker.py``, which imports no
dpquant code), one file per ledger entry under ``proofs_checks/certificates/<paper>/``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from dpquant.certify.branch_and_bound import (
    CertificationFailed,
    point_text,
    prove_boxes_with_derivatives,
    prove_points,
)
from dpquant.certify.expressions import parse_expression
from dpquant.certify.specs import ClaimCertification, Part, Variable
from dpquant.errors import ParameterError

FORMAT = "dpquant-certificate/1"
"""The certificate format the checker accepts."""

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository around the package (a source checkout)."""
CERTIFICATES = REPO_ROOT / "proofs_checks" / "certificates"
"""Where the repository keeps its certificates (a source checkout)."""


@dataclass(frozen=True)
class Certified:
    """A certificate produced.

    Attributes:
        claim: The ledger id.
        data: The certificate (JSON-ready).
        leaves: Boxes and points proven.
        seconds: The time the proof took.
    """

    claim: str
    data: dict[str, Any]
    leaves: int
    seconds: float


def _variable(v: Variable) -> dict[str, Any]:
    out: dict[str, Any] = {"name": v.name, "lo": str(v.lo), "hi": str(v.hi)}
    if v.integer:
        out["integer"] = True
    return out


def _part_header(part: Part) -> dict[str, Any]:
    """A part's statement in the certificate: variables, goal, hypotheses, note."""
    out: dict[str, Any] = {
        "name": part.name,
        "method": part.method,
        "variables": [_variable(v) for v in part.variables],
        "goal": {"expression": part.goal.expression, "relation": part.goal.relation},
    }
    if part.hypotheses:
        out["hypotheses"] = [
            {"expression": h.expression, "relation": h.relation} for h in part.hypotheses
        ]
    if part.note:
        out["note"] = part.note
    return out


def _part(part: Part) -> tuple[dict[str, Any], int]:
    out = _part_header(part)
    if part.method == "boxes":
        out["precision"] = part.precision
        out["tree"], leaves, derivatives = prove_boxes_with_derivatives(part)
        if derivatives:
            out["expressions"] = derivatives
    elif part.method == "points":
        out["precision"] = part.precision
        out["points"] = prove_points(part)
        leaves = len(out["points"])
    else:
        _prove_identity(part)
        leaves = 1
    return out, leaves


def _prove_identity(part: Part) -> None:
    import sympy

    expr = parse_expression(part.goal.expression, part.names, name="goal")
    positive = {
        sympy.Symbol(v.name, real=True): sympy.Symbol(v.name, positive=True)
        for v in part.variables
        if Fraction(v.lo) > 0
    }
    if sympy.simplify(expr.xreplace(positive)) != 0:
        raise CertificationFailed(part.name, {}, False)


def certify(spec: ClaimCertification) -> Certified:
    """Prove every part of ``spec``.

    Args:
        spec: The certification.

    Returns:
        The certificate.

    Raises:
        CertificationFailed: A part not proven (its box or point named).
        ValueError: ``spec`` is not a :class:`ClaimCertification` (named).
    """
    if not isinstance(spec, ClaimCertification):
        raise ParameterError("spec", "must be a ClaimCertification", type(spec).__name__)
    start = time.perf_counter()
    parts, leaves = [], 0
    for part in spec.parts:
        data, n = _part(part)
        parts.append(data)
        leaves += n
    data = {
        "format": FORMAT,
        "claim": spec.claim,
        "statement": spec.statement,
        "domain": spec.domain,
        "produced_by": "dpquant certify",
        "parts": parts,
    }
    return Certified(spec.claim, data, leaves, time.perf_counter() - start)


def statement(spec: ClaimCertification) -> dict[str, Any]:
    """What a certificate of ``spec`` states, without its proofs (the trees and points' bounds).

    Args:
        spec: The certification.

    Returns:
        Its claim, domain, statement and each part's variables, goal, hypotheses and note.
    """
    parts = []
    for p in spec.parts:
        header = _part_header(p)
        if p.method == "points":
            header["at"] = [point_text(p, point) for point in p.points]
        parts.append(header)
    return {"claim": spec.claim, "domain": spec.domain, "statement": spec.statement, "parts": parts}


def certificate_path(claim: str, root: Path = CERTIFICATES) -> Path:
    """Where the certificate of a ledger entry lives.

    Args:
        claim: The ledger id (``"paper/name"``).
        root: The folder of the certificates.

    Returns:
        ``root/paper/name.json``.
    """
    paper, _, rest = claim.partition("/")
    return root / paper / f"{rest}.json"


def dumps(data: dict[str, Any]) -> str:
    """The certificate as text.

    Args:
        data: A certificate (:attr:`Certified.data`).

    Returns:
        Indented JSON, each part's tree or points on one line.
    """
    compact = {}
    parts = []
    for k, part in enumerate(data["parts"]):
        part = dict(part)
        for key in ("tree", "points"):
            if key in part:
                marker = f"@@{k}:{key}@@"
                compact[json.dumps(marker)] = json.dumps(part[key], separators=(",", ":"))
                part[key] = marker
        parts.append(part)
    text = json.dumps({**data, "parts": parts}, indent=1, ensure_ascii=False)
    for marker, value in compact.items():
        text = text.replace(marker, value)
    return text + "\n"


def write(certified: Certified, root: Path = CERTIFICATES) -> Path:
    """Write a certificate.

    Args:
        certified: The certificate.
        root: The folder of the certificates.

    Returns:
        The path written (:func:`certificate_path`).
    """
    path = certificate_path(certified.claim, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(certified.data), encoding="utf-8")
    return path


__all__ = [
    "CERTIFICATES",
    "FORMAT",
    "Certified",
    "certificate_path",
    "certify",
    "dumps",
    "statement",
    "write",
]
