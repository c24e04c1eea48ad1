"""Public contracts: adjacency relations, privacy claims and the ``Mechanism`` protocol.

These names are public API (``../shared/DESIGN.md``): extend them, never rename them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from reference.distributions import ExactDistribution

Adjacency = Literal["add_remove", "replace_one", "local"]
"""Neighbouring relation a claim is made for.

* ``add_remove``  -- data sets differ by adding or removing one record;
* ``replace_one`` -- same size, one record replaced by another value;
* ``local``       -- local DP: any two single-user values are neighbours.
"""

ADJACENCIES: tuple[str, ...] = get_args(Adjacency)


def check_adjacency(adjacency: Any, name: str = "adjacency") -> str:
    """Return ``adjacency`` if it is one of :data:`ADJACENCIES`, else raise ``ValueError``."""
    if not isinstance(adjacency, str) or adjacency not in ADJACENCIES:
        raise ValueError(f"{name} must be one of {ADJACENCIES}, got {adjacency!r}")
    return adjacency


@dataclass(frozen=True)
class PrivacyClaim:
    """An (epsilon, delta)-DP claim under a neighbouring relation.

    ``epsilon`` is a finite float > 0 and ``delta`` lies in [0, 1); a pure claim has ``delta == 0``.
    """

    epsilon: float
    delta: float = 0.0
    adjacency: str = "replace_one"

    def __post_init__(self) -> None:
        from reference.validation import check_delta, check_epsilon

        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        check_adjacency(self.adjacency)

    @property
    def is_pure(self) -> bool:
        return self.delta == 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "adjacency": self.adjacency}


@runtime_checkable
class Mechanism(Protocol):
    """Every reference mechanism satisfies this protocol.

    ``sample(data, size, rng)`` returns ``size`` independent outputs on the same input, with shape
    ``(size,)`` or ``(size, k)``. Mechanisms whose output law has a closed form also provide
    ``exact(data) -> ExactDistribution`` (see :class:`ExactMechanism`).
    """

    claim: PrivacyClaim
    domain: tuple[float, float]

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class ExactMechanism(Mechanism, Protocol):
    """A mechanism whose output law on a given input is known exactly."""

    def exact(self, data: Any) -> ExactDistribution: ...


def has_exact(mechanism: Any) -> bool:
    """True when ``mechanism`` offers an ``exact(data)`` law."""
    return callable(getattr(mechanism, "exact", None))
