"""A user who answers more than one query at full ε: aamand25's local randomizer and DpNaiveNBS,
broken on purpose.

aamand25 (Lemma A.1 and Eq. (2)) asks each user **one** ε-RR bit, so a whole protocol is ε-DP
under ``replace_one``. These variants let one user answer twice (or ``answers`` times), each time
at full ε, while still claiming ε: the true loss is up to ``answers``·ε. They are known-answer
tests for the auditor (``tests/reference/distributed_quantiles/test_aamand25_audit.py``), kept
here beside the catalogue rather than in the library.

* :class:`RepeatedThresholdQuery` — one user's reports to the coins ``coin``, ``coin + 1``, ...,
  each an ε-RR bit: a vector output with exact loss ``answers``·ε between values on opposite
  sides of all of them;
* :func:`two_answers_nbs` — DpNaiveNBS in which the first user also answers the second batch's
  query at full ε; :func:`broken_nbs_mechanism` makes it a
  :class:`~dpquant.reference.distributed_quantiles.mechanisms.ProtocolMechanism`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.reference.distributed_quantiles.mechanisms import ProtocolMechanism
from dpquant.reference.distributed_quantiles.naive_nbs import rr_tanh
from dpquant.reference.distributed_quantiles.threshold_query import (
    CELL_BUDGET,
    ThresholdQuery,
    threshold_rr,
)
from dpquant.reference.distributed_quantiles.users import (
    UserStream,
    UserValueRandomizer,
    check_domain_size,
    check_users,
)
from dpquant.reference.distributions import DiscreteLaw, ProductLaw
from dpquant.reference.primitives.randomized_response import rr_law
from dpquant.reference.validation import check_epsilon, check_int, check_rng

MAX_ANSWERS = 64
"""The most coins one :class:`RepeatedThresholdQuery` user may answer."""


@dataclass(frozen=True)
class RepeatedThresholdQuery(UserValueRandomizer):
    """BROKEN on purpose: one user answers ``answers`` coins, each with a fresh ε-RR bit.

    The reports are RR_ε([x <= coin + a]) for a = 0, ..., answers − 1 (a vector output); the claim
    stays ε (local DP) while the exact loss between values on opposite sides of every coin is
    ``answers``·ε. The fields are checked as :class:`ThresholdQuery` checks them.

    Args:
        B: The domain size, an integer in [2, MAX_B].
        coin: The first coin, an integer in [1, B].
        epsilon: The ε of each answer (and of the claim), positive and finite.
        answers: The number of coins answered, an integer in [1, :data:`MAX_ANSWERS`].

    Raises:
        ValueError: A field out of range (named).
    """

    B: int
    coin: int
    epsilon: float
    answers: int = 2

    def __post_init__(self) -> None:
        one = ThresholdQuery(self.B, self.coin, self.epsilon)
        for name in ("B", "coin", "epsilon"):
            object.__setattr__(self, name, getattr(one, name))
        object.__setattr__(
            self, "answers", check_int(self.answers, "answers", minimum=1, maximum=MAX_ANSWERS)
        )

    @property
    def input_values(self) -> tuple[float, ...]:
        """Every user value when B is small, else the values around the coins and the ends."""
        if self.B <= 16:
            return super().input_values
        around = {1, self.B, self.coin, self.coin + 1, self.coin + self.answers}
        return tuple(float(v) for v in sorted(v for v in around if 1 <= v <= self.B))

    def draw_limit(self, data: int) -> int:
        return CELL_BUDGET // self.answers

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        users = np.full(size, data, dtype=np.int64)
        if self.answers == 1:
            return threshold_rr(users, self.coin, self.epsilon, rng)
        cols = [threshold_rr(users, self.coin + a, self.epsilon, rng) for a in range(self.answers)]
        return np.stack(cols, axis=1)

    def _law(self, data: int) -> DiscreteLaw | ProductLaw:
        laws = [rr_law(int(data <= self.coin + a), self.epsilon) for a in range(self.answers)]
        if self.answers == 1:
            return laws[0]
        return ProductLaw(tuple(laws))


def two_answers_nbs(users: Any, B: int, epsilon: float, rng: np.random.Generator) -> int:
    """BROKEN on purpose: DpNaiveNBS where user 1 answers the first two batches' queries.

    Batches of one user each over the coins 1..B; the first user's value is asked at the first
    midpoint and again at the second, each time with a fresh ε-RR bit — a user answering two
    queries at full ε (true loss up to 2ε, claimed ε). The debiasing is aamand25's Eq. (8).

    Args:
        users: One integer in [1, B] per user.
        B: The domain size, an integer in [2, MAX_B].
        epsilon: The ε of each RR bit, positive and finite.
        rng: The numpy generator.

    Returns:
        The coin in [1, B] the search ends on.

    Raises:
        ValueError: Bad ``users``, ``B``, ``epsilon`` or ``rng``, or too few users (named).
    """
    B = check_domain_size(B)
    x = check_users(users, B)
    epsilon = check_epsilon(epsilon)
    t = rr_tanh(epsilon)
    stream = UserStream(x, check_rng(rng))
    rounds = (B - 1).bit_length()  # ceil(lg B)
    first = stream.take(1, "the broken search")
    lo, hi = 0, B - 1
    for r in range(rounds):
        if lo > hi:
            break
        idx = (lo + hi) // 2
        who = first if r < 2 else stream.take(1, "the broken search")
        y = threshold_rr(who, idx + 1, epsilon, rng).mean()
        p_hat = 0.5 + (2.0 * y - 1.0) / (2.0 * t)  # Eq. (8), as in debiased_estimate
        if p_hat > 0.5:
            hi = idx - 1
        else:
            lo = idx + 1
    return (lo + hi) // 2 + 1 if lo + hi >= 0 else 1


def broken_nbs_mechanism(B: int, epsilon: float, n: int) -> ProtocolMechanism:
    """:func:`two_answers_nbs` on ``n`` users as a mechanism that claims ε under ``replace_one``.

    Args:
        B: The domain size, an integer in [2, MAX_B].
        epsilon: The claimed ε, positive and finite.
        n: The number of users (at least 1).

    Returns:
        The mechanism, named ``"DpNaiveNBS[user answers twice]"``.

    Raises:
        ValueError: ``B``, ``epsilon`` or ``n`` out of range (named).
    """
    return ProtocolMechanism("DpNaiveNBS[user answers twice]", two_answers_nbs, B, epsilon, n)


__all__ = [
    "MAX_ANSWERS",
    "RepeatedThresholdQuery",
    "broken_nbs_mechanism",
    "two_answers_nbs",
]
