"""Privacy measures beyond (ε, δ): claims of every kind (zCDP, Rényi DP, Gaussian DP, privacy
profiles) as values, and the conversions between them (``notes/measures.md``)."""

from dpquant.reference.measures.claims import (
    CLAIM_KINDS,
    AnyClaim,
    GDPClaim,
    MeasureClaim,
    ProfileClaim,
    RenyiClaim,
    ZCDPClaim,
    check_any_claim,
    claim_delta_at,
    claim_measure,
    claim_renyi_at,
)

__all__ = [
    "CLAIM_KINDS",
    "AnyClaim",
    "GDPClaim",
    "MeasureClaim",
    "ProfileClaim",
    "RenyiClaim",
    "ZCDPClaim",
    "check_any_claim",
    "claim_delta_at",
    "claim_measure",
    "claim_renyi_at",
]
