"""``dpquant certify``: proves the catalogue's claims again, lists them, writes their
certificates, and refuses a claim id the catalogue does not hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpquant.certify.catalogue import catalogue
from dpquant.cli import main

CLAIM = "aamand25/lemma-G.5"


def test_list_names_every_catalogued_claim_with_its_domain(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["certify", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(spec.claim in out for spec in catalogue())
    assert next(s for s in catalogue() if s.claim == CLAIM).domain in out


def test_one_claim_is_proven_and_written_where_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["certify", "--claim", CLAIM, "--write", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"proven  {CLAIM}" in out and "1 proven, 0 not proven" in out
    written = json.loads((tmp_path / "aamand25" / "lemma-G.5.json").read_text(encoding="utf-8"))
    assert written["claim"] == CLAIM and written["parts"][0]["tree"]


def test_an_unknown_claim_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--claim", "nobody/lemma-0"]) == 2
    assert "--claim 'nobody/lemma-0' is not in the catalogue" in capsys.readouterr().err
