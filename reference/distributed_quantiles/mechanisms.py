"""The protocols as :class:`reference.core.Mechanism` objects, for the auditor.

* :class:`ProtocolMechanism` — a whole protocol run on ``n`` users, claim ε-DP under
  ``replace_one`` (each user answers one ε-RR bit: the users' reports are disjoint, so changing
  one user changes one ε-DP report, spec §3.10). ``sample`` reruns the protocol; ``exact`` is the
  enumerated law of :mod:`reference.distributed_quantiles.protocol_law` when ``n`` is tiny.
* its local randomizer, :meth:`ProtocolMechanism.local_randomizer`, is a
  :class:`ThresholdQuery` (claim ε, adjacency ``local``, exact 2×2 channel).
* :func:`two_answers_nbs` — the deliberately broken variant the auditor must catch: DpNaiveNBS in
  which the first user also answers the second batch's query at full ε (two ε-RR bits from one
  user, true loss up to 2ε, claimed ε).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reference.core import PrivacyClaim
from reference.distributed_quantiles.naive_nbs import dp_naive_nbs
from reference.distributed_quantiles.protocol_law import protocol_law
from reference.distributed_quantiles.threshold_query import ThresholdQuery, threshold_rr
from reference.distributed_quantiles.users import UserStream, check_domain_size, check_users
from reference.distributions import DiscreteLaw
from reference.validation import check_epsilon, check_int, check_rng, check_size

EXACT_MAX_USERS = 5


@dataclass(frozen=True)
class ProtocolMechanism:
    """``protocol(users, B, epsilon, rng, **options)`` on data sets of exactly ``n`` users."""

    name: str
    protocol: Callable[..., int]
    B: int
    epsilon: float
    n: int
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_domain_size(self.B)
        check_epsilon(self.epsilon)
        check_int(self.n, "n", minimum=1)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        return (1.0, float(self.B))

    @property
    def input_values(self) -> tuple[float, ...]:
        if self.B <= 16:
            return tuple(float(v) for v in range(1, self.B + 1))
        return (1.0, float(self.B // 2), float(self.B // 2 + 1), float(self.B))

    def _users(self, data: Any) -> np.ndarray:
        x = check_users(data, self.B, "data")
        if x.size != self.n:
            raise ValueError(f"data must hold exactly n = {self.n} users, got {x.size}")
        return x

    def run(self, data: Any, rng: np.random.Generator) -> int:
        return int(self.protocol(self._users(data), self.B, self.epsilon, rng, **self.options))

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        x = self._users(data)
        size, rng = check_size(size), check_rng(rng)
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            out[i] = self.protocol(x, self.B, self.epsilon, rng, **self.options)
        return out

    def exact(self, data: Any) -> DiscreteLaw:
        """The enumerated output law (n <= :data:`EXACT_MAX_USERS`)."""
        x = self._users(data)
        if self.n > EXACT_MAX_USERS:
            raise ValueError(f"exact laws are enumerated for n <= {EXACT_MAX_USERS}, got {self.n}")
        return protocol_law(
            lambda rng: self.protocol(x, self.B, self.epsilon, rng, **self.options), self.epsilon
        )

    def local_randomizer(self, coin: int | None = None) -> ThresholdQuery:
        """The randomizer each user runs: one ε-RR bit of [x <= coin] (default: the middle)."""
        return ThresholdQuery(self.B, self.B // 2 if coin is None else coin, self.epsilon)


def two_answers_nbs(users: Any, B: int, epsilon: float, rng: np.random.Generator) -> int:
    """BROKEN on purpose: DpNaiveNBS where user 1 answers the first two batches' queries.

    Batches of one user each over the coins 1..B; the first user's value is asked at the first
    midpoint and again at the second, each time with a fresh ε-RR bit — a user answering two
    queries at full ε. Used only to show that the auditor catches it.
    """
    B = check_domain_size(B)
    x = check_users(users, B)
    epsilon = check_epsilon(epsilon)
    stream = UserStream(x, check_rng(rng))
    rounds = math.ceil(math.log2(B))
    first = stream.take(1, "the broken search")
    scale = (math.exp(epsilon) + 1) / (math.exp(epsilon) - 1)
    lo, hi = 0, B - 1
    for r in range(rounds):
        if lo > hi:
            break
        idx = (lo + hi) // 2
        who = first if r < 2 else stream.take(1, "the broken search")
        y = threshold_rr(who, idx + 1, epsilon, rng).mean()
        p_hat = scale * (y - 1 / (math.exp(epsilon) + 1))
        if p_hat > 0.5:
            hi = idx - 1
        else:
            lo = idx + 1
    return (lo + hi) // 2 + 1 if lo + hi >= 0 else 1


def nbs_mechanism(B: int, epsilon: float, n: int) -> ProtocolMechanism:
    return ProtocolMechanism("DpNaiveNBS", dp_naive_nbs, B, epsilon, n)


def broken_nbs_mechanism(B: int, epsilon: float, n: int) -> ProtocolMechanism:
    return ProtocolMechanism("DpNaiveNBS[user answers twice]", two_answers_nbs, B, epsilon, n)
