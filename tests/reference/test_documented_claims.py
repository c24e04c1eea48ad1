"""Claims marked `documented` in the ledger are recorded in their paper's notes/<paper>.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpquant.reference.claims import load_ledger

NOTES = Path(__file__).resolve().parents[2] / "notes"
DOCUMENTED = [(c.paper, c.id) for c in load_ledger() if c.status == "documented"]


@pytest.mark.parametrize(("paper", "claim_id"), DOCUMENTED)
def test_documented_claims_are_recorded_in_the_notes(paper, claim_id) -> None:
    assert f"`{claim_id}`" in (NOTES / f"{paper}.md").read_text(encoding="utf-8")
