"""Shared set-up of the auditor's tests: a mechanism audited against another claim than its own."""

from __future__ import annotations

import pytest

from dpquant.audit.model.claimed import ClaimOverride


@pytest.fixture
def reclaimed() -> type[ClaimOverride]:
    """``reclaimed(inner, claim)``: ``inner`` audited against ``claim`` (the claim object as it
    is, possibly a corrupted one: the auditor must refuse it)."""
    return ClaimOverride
