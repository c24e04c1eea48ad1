"""The committed certificates are what the catalogue proves, and the ledger points at them."""

from __future__ import annotations

import json

import pytest

from dpquant.certify.catalogue import CATALOGUE
from dpquant.certify.certificates import CERTIFICATES, certificate_path, certify, dumps, statement
from dpquant.certify.specs import ClaimCertification
from dpquant.reference.claims import REPO_ROOT, load_ledger

LEDGER = {c.id: c for c in load_ledger()}


def header(part: dict) -> dict:
    """A certificate part without its proof (the tree, the points' bounds, the derived
    expressions of its monotone leaves)."""
    out = {k: v for k, v in part.items() if k not in ("tree", "points", "precision", "expressions")}
    if "points" in part:
        out["at"] = [p["at"] for p in part["points"]]
    return out


@pytest.mark.parametrize("spec", CATALOGUE, ids=[s.claim for s in CATALOGUE])
def test_the_committed_certificate_states_what_the_catalogue_states(
    spec: ClaimCertification,
) -> None:
    """Same claim, domain, variables, goals and hypotheses (the proof itself is the checker's)."""
    committed = json.loads(certificate_path(spec.claim).read_text(encoding="utf-8"))
    spec_data = statement(spec)
    assert {k: committed[k] for k in ("claim", "domain", "statement")} == {
        k: spec_data[k] for k in ("claim", "domain", "statement")
    }
    assert [header(p) for p in committed["parts"]] == spec_data["parts"]


@pytest.mark.parametrize("spec", CATALOGUE, ids=[s.claim for s in CATALOGUE])
def test_the_ledger_entry_names_the_certificate_and_its_domain(spec: ClaimCertification) -> None:
    entry = LEDGER[spec.claim]
    assert entry.status in ("certified", "refuted")
    assert entry.domain == spec.domain
    assert (REPO_ROOT / entry.certificate) == certificate_path(spec.claim)
    assert (
        f"proofs_checks/test_certificates.py::test_certificate_is_accepted[{spec.claim}]"
        in entry.checks
    )


def test_every_ledger_certificate_comes_from_the_catalogue() -> None:
    catalogued = {s.claim for s in CATALOGUE}
    assert {c.id for c in LEDGER.values() if c.certificate} == catalogued


def test_every_certificate_file_is_catalogued_or_a_known_bad_mechanism() -> None:
    files = {
        p.relative_to(CERTIFICATES).with_suffix("").as_posix() for p in CERTIFICATES.rglob("*.json")
    }
    catalogued = {s.claim for s in CATALOGUE}
    assert {f for f in files if not f.startswith("catalogue/")} == catalogued


def test_the_certificate_text_is_json_with_each_proof_on_one_line() -> None:
    data = certify(CATALOGUE[0]).data
    text = dumps(data)
    assert json.loads(text) == data
    assert all(
        len(line) < 2000 or '"tree": {' in line or '"points": [' in line
        for line in text.splitlines()
    )
