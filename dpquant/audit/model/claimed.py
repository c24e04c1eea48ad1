"""What carries a claim whole (a :class:`dpquant.reference.PrivacyClaim`) instead of deriving it from
ε, δ and adjacency fields: the auditor's wrapped function (:class:`dpquant.audit.model.wrap.CallableMechanism`),
a mechanism audited against another claim than its own (:class:`ClaimOverride`, which the
command line's ``--epsilon``, ``--delta`` and ``--adjacency`` use) and the audit report
(:class:`dpquant.audit.report.result.AuditReport`) read the claim's parts from it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from dpquant.reference.core import MechanismBase, PrivacyClaim
from dpquant.reference.measures import AnyClaim


class _HasClaim(Protocol):
    @property
    def claim(self) -> PrivacyClaim: ...


class ClaimParts:
    """``claimed_epsilon`` and ``claimed_delta``: the parts of ``self.claim`` (an (ε, δ) claim;
    a claim of another measure has neither)."""

    @property
    def claimed_epsilon(self: _HasClaim) -> float:
        return self.claim.epsilon

    @property
    def claimed_delta(self: _HasClaim) -> float:
        return self.claim.delta


class ClaimedMechanism(ClaimParts, MechanismBase):
    """A mechanism audited against the claim stored whole in its field ``privacy_claim``: its
    :attr:`claim` is that claim, and ``claimed_epsilon``, ``claimed_delta`` and ``adjacency`` are
    that claim's (the base, :class:`dpquant.reference.core.MechanismBase`, derives them the other way,
    from fields)."""

    privacy_claim: AnyClaim

    @property
    def claim(self) -> PrivacyClaim:
        return self.privacy_claim  # type: ignore[return-value]

    @property
    def adjacency(self) -> str:  # type: ignore[override]
        return self.privacy_claim.adjacency


@dataclass(frozen=True)
class ClaimOverride(ClaimedMechanism):
    """``mechanism`` audited against the claim ``privacy_claim`` (the override): everything else
    is the original's.

    A wrapper on :class:`ClaimedMechanism`: :attr:`claim` (and its parts) come from
    ``privacy_claim``; ``sample`` delegates to the original unchanged (the original checks its
    own input, and the auditor must see its outputs as they are, never re-checked or converted),
    as do :attr:`domain`, :attr:`output_range`, ``check_input`` and ``draw_limit``; optional
    attributes (``exact``, ``input_values``, ``name``) are looked up on the original, so the
    wrapper has them exactly when it does.
    """

    mechanism: Any
    privacy_claim: AnyClaim

    @property
    def domain(self) -> tuple[float, float]:
        return self.mechanism.domain

    @property
    def output_range(self) -> tuple[float, float] | None:
        return getattr(self.mechanism, "output_range", None)

    def check_input(self, data: Any) -> Any:
        check = getattr(self.mechanism, "check_input", None)
        return check(data) if callable(check) else super().check_input(data)

    def draw_limit(self, data: Any) -> int:
        limit = getattr(self.mechanism, "draw_limit", None)
        return limit(data) if callable(limit) else super().draw_limit(data)

    def sample(self, data: Any, size: int, rng: Any) -> Any:
        return self.mechanism.sample(data, size, rng)

    def _draw(self, data: Any, size: int, rng: Any) -> Any:
        return self.mechanism.sample(data, size, rng)  # never called: sample delegates whole

    def __getattr__(self, attr: str) -> Any:
        # only called for attributes not found normally; never for private names or the fields
        # (unpickling looks some up before the fields exist)
        if attr.startswith("_") or attr in ("mechanism", "privacy_claim"):
            raise AttributeError(attr)
        return getattr(self.mechanism, attr)


__all__ = ["ClaimOverride", "ClaimParts", "ClaimedMechanism"]
