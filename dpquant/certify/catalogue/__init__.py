"""The catalogue of certified claims: one module per ledger group, each a tuple
``CERTIFICATIONS`` of :class:`~dpquant.certify.specs.ClaimCertification`."""

from __future__ import annotations

from dpquant.certify.catalogue import aamand25, classic
from dpquant.certify.specs import ClaimCertification

CATALOGUE: tuple[ClaimCertification, ...] = (*aamand25.CERTIFICATIONS, *classic.CERTIFICATIONS)
"""Every certification, in ledger order of groups."""

__all__ = ["CATALOGUE"]
