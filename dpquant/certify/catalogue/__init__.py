"""The catalogue of certified claims: one module per ledger group, each a tuple
``CERTIFICATIONS`` of :class:`~dpquant.certify.specs.ClaimCertification`."""

from __future__ import annotations

from dpquant.certify.catalogue import (
    aamand25,
    classic,
    fukuchi19,
    imola25,
    measures,
    measures_conversions,
    tzamos20,
)
from dpquant.certify.specs import ClaimCertification

CATALOGUE: tuple[ClaimCertification, ...] = (
    *aamand25.CERTIFICATIONS,
    *imola25.CERTIFICATIONS,
    *fukuchi19.CERTIFICATIONS,
    *tzamos20.CERTIFICATIONS,
    *classic.CERTIFICATIONS,
    *measures.CERTIFICATIONS,
    *measures_conversions.CERTIFICATIONS,
)
"""Every certification, in ledger order of groups."""

__all__ = ["CATALOGUE"]
