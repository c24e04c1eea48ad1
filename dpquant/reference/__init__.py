"""dpquant's reference implementations: contracts, exact laws, primitives and the papers'
mechanisms. See ``docs/DESIGN.md`` (the design and its contracts) and the README."""

from dpquant.reference.core import (
    ADJACENCIES,
    CLAIM_ADJACENCIES,
    OBJECT_RELATIONS,
    Adjacency,
    ExactMechanism,
    Mechanism,
    PrivacyClaim,
    check_adjacency,
)
from dpquant.reference.distributions import (
    DiscreteLaw,
    ExactDistribution,
    PiecewiseLogLinear,
    hockey_stick,
    max_log_ratio,
    privacy_loss,
    renyi_divergence,
)

__all__ = [
    "ADJACENCIES",
    "CLAIM_ADJACENCIES",
    "OBJECT_RELATIONS",
    "Adjacency",
    "DiscreteLaw",
    "ExactDistribution",
    "ExactMechanism",
    "Mechanism",
    "PiecewiseLogLinear",
    "PrivacyClaim",
    "check_adjacency",
    "hockey_stick",
    "max_log_ratio",
    "privacy_loss",
    "renyi_divergence",
]
