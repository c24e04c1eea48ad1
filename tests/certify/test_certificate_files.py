"""The committed certificates are what the catalogue proves, and the ledger points at them.

The tests of one certification are parametrized over the ledger's certified claims (cheap to
read), not over the catalogue, which is built in the test (not when every worker collects it):
the ledger's and the catalogue's claims are the same set
(:func:`test_every_ledger_certificate_comes_from_the_catalogue`)."""

from __future__ import annotations

import json

import pytest

from dpquant.certify.catalogue import catalogue
from dpquant.certify.certificates import CERTIFICATES, certificate_path, certify, dumps, statement
from dpquant.certify.specs import ClaimCertification
from dpquant.reference.claims import REPO_ROOT, load_ledger

LEDGER = {c.id: c for c in load_ledger()}
CERTIFIED = sorted(c.id for c in LEDGER.values() if c.certificate)


def catalogued(claim: str) -> ClaimCertification:
    """The catalogue's certification of ``claim`` (a failure when it holds none)."""
    found = [s for s in catalogue() if s.claim == claim]
    assert len(found) == 1, f"the catalogue holds {len(found)} certifications of {claim}"
    return found[0]


def header(part: dict) -> dict:
    """A certificate part without its proof (the tree, the points' bounds, the derived
    expressions of its monotone leaves)."""
    out = {k: v for k, v in part.items() if k not in ("tree", "points", "precision", "expressions")}
    if "points" in part:
        out["at"] = [p["at"] for p in part["points"]]
    return out


@pytest.mark.parametrize("claim", CERTIFIED)
def test_the_committed_certificate_states_what_the_catalogue_states(claim: str) -> None:
    """Same claim, domain, variables, goals and hypotheses (the proof itself is the checker's)."""
    spec = catalogued(claim)
    committed = json.loads(certificate_path(spec.claim).read_text(encoding="utf-8"))
    spec_data = statement(spec)
    assert {k: committed[k] for k in ("claim", "domain", "statement")} == {
        k: spec_data[k] for k in ("claim", "domain", "statement")
    }
    assert [header(p) for p in committed["parts"]] == spec_data["parts"]


@pytest.mark.parametrize("claim", CERTIFIED)
def test_the_ledger_entry_names_the_certificate_and_its_domain(claim: str) -> None:
    spec = catalogued(claim)
    entry = LEDGER[spec.claim]
    assert entry.status in ("certified", "refuted")
    assert entry.domain == spec.domain
    assert (REPO_ROOT / entry.certificate) == certificate_path(spec.claim)
    assert (
        f"proofs_checks/test_certificates.py::test_certificate_is_accepted[{spec.claim}]"
        in entry.checks
    )


def test_every_ledger_certificate_comes_from_the_catalogue() -> None:
    claims = [s.claim for s in catalogue()]
    assert len(set(claims)) == len(claims)
    assert set(CERTIFIED) == set(claims)


def test_every_certificate_file_is_catalogued_or_a_known_bad_mechanism() -> None:
    files = {
        p.relative_to(CERTIFICATES).with_suffix("").as_posix() for p in CERTIFICATES.rglob("*.json")
    }
    assert {f for f in files if not f.startswith("catalogue/")} == {s.claim for s in catalogue()}


def test_the_certificate_text_is_json_with_each_proof_on_one_line() -> None:
    data = certify(catalogue()[0]).data
    text = dumps(data)
    assert json.loads(text) == data
    assert all(
        len(line) < 2000 or '"tree": {' in line or '"points": [' in line
        for line in text.splitlines()
    )
