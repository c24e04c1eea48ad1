"""The aamand25 claims marked `documented` are recorded in notes/aamand25.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.claims import load_ledger

NOTES = Path(__file__).resolve().parent.parent / "notes" / "aamand25.md"
DOCUMENTED = [c.id for c in load_ledger() if c.paper == "aamand25" and c.status == "documented"]


@pytest.mark.parametrize("claim_id", DOCUMENTED)
def test_documented_aamand25_claims_are_recorded_in_the_notes(claim_id) -> None:
    assert f"`{claim_id}`" in NOTES.read_text(encoding="utf-8")
