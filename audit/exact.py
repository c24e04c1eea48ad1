"""Exact mode: the privacy loss of a mechanism with a known output law, pair by pair.

For each neighbouring pair the exact laws are compared on their merged breakpoints (mpmath):
ε(D, D') = sup |log f_D − log f_D'|, and the hockey-stick δ at the claimed ε. This is proof by
computation on the searched family only, not a proof for all data sets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from reference.core import has_exact
from reference.distributions import hockey_stick, privacy_loss, renyi_divergence
from reference.exact.mp import workdps


@dataclass
class ExactSweep:
    """Result of :func:`exact_sweep`."""

    claimed_epsilon: float
    claimed_delta: float
    pairs: int
    max_loss: mpmath.mpf
    witness: tuple[Any, Any] | None
    max_delta_at_claim: mpmath.mpf
    delta_witness: tuple[Any, Any] | None

    @property
    def violation(self) -> bool:
        """True when some pair breaks the claim: δ(ε_claimed) > δ_claimed (for pure claims this is
        the same as ε_exact > ε_claimed, up to the 1e-30 slack of the working precision)."""
        return bool(self.max_delta_at_claim > self.claimed_delta + mpmath.mpf("1e-30"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "claimed_epsilon": self.claimed_epsilon,
            "claimed_delta": self.claimed_delta,
            "pairs": self.pairs,
            "epsilon_exact_max": float(self.max_loss),
            "epsilon_exact_max_digits": mpmath.nstr(self.max_loss, 30),
            "witness": _jsonable(self.witness),
            "delta_at_claimed_epsilon_max": float(self.max_delta_at_claim),
            "delta_witness": _jsonable(self.delta_witness),
            "violation": self.violation,
        }


def _jsonable(pair: tuple[Any, Any] | None) -> Any:
    if pair is None:
        return None
    return [np.asarray(d, dtype=float).tolist() for d in pair]


def exact_sweep(mechanism: Any, pairs: Iterable[tuple[Any, Any]]) -> ExactSweep:
    """Exact privacy loss and δ(ε_claimed) over ``pairs`` (laws cached per data set)."""
    if not has_exact(mechanism):
        raise ValueError("mechanism must provide exact(data) for the exact mode")
    claim = mechanism.claim
    cache: dict[Any, Any] = {}

    def law(d: Any) -> Any:
        key = tuple(np.asarray(d, dtype=float).tolist())
        if key not in cache:
            cache[key] = mechanism.exact(np.asarray(key, dtype=float))
        return cache[key]

    best, witness = mpmath.mpf("-inf"), None
    best_delta, delta_witness = mpmath.mpf(0), None
    count = 0
    with workdps():
        for d0, d1 in pairs:
            p, q = law(d0), law(d1)
            loss = privacy_loss(p, q)
            count += 1
            if loss > best:
                best, witness = loss, (d0, d1)
            if loss > claim.epsilon:
                delta = max(hockey_stick(p, q, claim.epsilon), hockey_stick(q, p, claim.epsilon))
                if delta > best_delta:
                    best_delta, delta_witness = delta, (d0, d1)
    if count == 0:
        raise ValueError("pairs must contain at least one neighbouring pair")
    return ExactSweep(claim.epsilon, claim.delta, count, best, witness, best_delta, delta_witness)


DELTA_CURVE_POINTS = 25
RENYI_ORDERS: tuple[float, ...] = (2.0, 5.0, 10.0)


@dataclass(frozen=True)
class ExactPair:
    """The exact analysis of one neighbouring pair: ε(D, D') (sup of |log ratio|, infinite when the
    supports differ), the hockey-stick curve δ(ε') = max of both directions, Rényi divergences
    (max of both directions) and δ at the claimed ε."""

    data: tuple[np.ndarray, np.ndarray]
    epsilon: mpmath.mpf
    delta_at_claim: mpmath.mpf
    delta_curve: tuple[tuple[float, float], ...]
    renyi: tuple[tuple[float, float], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "data": [d.tolist() for d in self.data],
            "epsilon_exact": float(self.epsilon),
            "epsilon_exact_digits": mpmath.nstr(self.epsilon, 30),
            "delta_at_claimed_epsilon": float(self.delta_at_claim),
            "delta_curve": [list(p) for p in self.delta_curve],
            "renyi": [list(p) for p in self.renyi],
        }


def delta_at(p: Any, q: Any, epsilon: float) -> mpmath.mpf:
    """max(δ_{p,q}(ε), δ_{q,p}(ε)): the δ a claim at ε needs on this pair (both orders)."""
    with workdps():
        return max(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon))


def analyse_pair(
    p: Any, q: Any, data: tuple[np.ndarray, np.ndarray], claim: Any, curve: bool = True
) -> ExactPair:
    """Exact ε, δ(ε_claimed), and optionally the δ(ε') curve on [0, max(2ε_claimed, ε)] and the
    Rényi divergences of orders :data:`RENYI_ORDERS` and ∞."""
    with workdps():
        eps = privacy_loss(p, q)
        delta_claim = delta_at(p, q, claim.epsilon)
        points: list[tuple[float, float]] = []
        renyi: list[tuple[float, float]] = []
        if curve:
            top = 2.0 * claim.epsilon if mpmath.isinf(eps) else max(2.0 * claim.epsilon, float(eps))
            for e in np.linspace(0.0, top, DELTA_CURVE_POINTS):
                points.append((float(e), float(delta_at(p, q, float(e)))))
            for order in RENYI_ORDERS:
                d = max(renyi_divergence(p, q, order), renyi_divergence(q, p, order))
                renyi.append((order, float(d)))
            renyi.append((float("inf"), float(eps)))
    return ExactPair(data, eps, delta_claim, tuple(points), tuple(renyi))
