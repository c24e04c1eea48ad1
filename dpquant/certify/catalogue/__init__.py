"""The catalogue of certified claims: one module per ledger group, each a tuple
``CERTIFICATIONS`` of :class:`~dpquant.certify.specs.ClaimCertification`.

:data:`CATALOGUE` (every group's, in ledger order) is built on first use (PEP 562), and importing
the package imports no group: a group module (e.g. :mod:`dpquant.certify.catalogue.aamand25`) is
imported alone, and the exact laws of the classic group's sparse vector facts are computed only
when asked for (not by every test worker that collects a test of the catalogue).
"""

from __future__ import annotations

import functools

from dpquant.certify.specs import ClaimCertification


@functools.cache
def catalogue() -> tuple[ClaimCertification, ...]:
    """Every certification, in ledger order of groups (:data:`CATALOGUE`)."""
    from dpquant.certify.catalogue import (
        aamand25,
        classic,
        fukuchi19,
        imola25,
        measures,
        measures_conversions,
        tzamos20,
    )

    return (
        *aamand25.CERTIFICATIONS,
        *imola25.CERTIFICATIONS,
        *fukuchi19.CERTIFICATIONS,
        *tzamos20.CERTIFICATIONS,
        *classic.certifications(),
        *measures.CERTIFICATIONS,
        *measures_conversions.CERTIFICATIONS,
    )


CATALOGUE: tuple[ClaimCertification, ...]
# declared, not assigned: reading it calls __getattr__ below


def __getattr__(name: str) -> tuple[ClaimCertification, ...]:
    """:data:`CATALOGUE`, built once on first use (PEP 562)."""
    if name == "CATALOGUE":
        return catalogue()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CATALOGUE", "catalogue"]
