"""The local randomizer of every adaptive protocol here: one ε-RR bit of the threshold [x <= m].

A user holding x is asked once about one coin m and reports RR_ε([x <= m]) (Lemma A.1): the true
bit with probability e^ε/(1 + e^ε). Its exact channel and the vectorised sampler sit side by side;
the privacy loss between any two user values is exactly ε when they sit on different sides of the
coin and 0 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.users import (
    MAX_B,
    UserValueRandomizer,
    check_domain_size,
    check_users,
)
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.primitives.randomized_response import keep_probability, rr_law
from dpquant.reference.validation import check_epsilon, check_int, check_rng

CELL_BUDGET = 10**7
"""The most report bits one ``sample`` call of a local randomizer here draws (~200 MB)."""


def _check_coin(coin: Any, name: str = "coin") -> int:
    return check_int(coin, name, minimum=-MAX_B, maximum=2 * MAX_B)


def threshold_bits(values: Any, coin: int) -> np.ndarray:
    """The true answers [x <= coin] as int8 (``values``: a 1-D integer array, or users as
    :func:`check_users` accepts them in [1, MAX_B])."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim == 1:
        arr = values
    else:
        arr = check_users(values, MAX_B, "values")
    return (arr <= _check_coin(coin)).astype(np.int8)


def threshold_rr(values: Any, coin: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """RR_ε([x <= coin]) for each user (vectorised): each bit kept w.p. e^ε/(1 + e^ε)."""
    keep = keep_probability(epsilon)
    rng = check_rng(rng)
    bits = threshold_bits(values, coin)
    flip = rng.random(bits.shape) >= keep
    return np.where(flip, 1 - bits, bits).astype(np.int8)


@dataclass(frozen=True)
class ThresholdQuery(UserValueRandomizer):
    """One user's report to the query "is your value <= coin?" as a local-DP :class:`Mechanism`.

    ``data`` is the user's value in {1, ..., B}; ``exact(data)`` is the law of the report on {0, 1}.
    (A user answering several coins at full ε, the broken variant the auditor must catch, is
    :class:`dpquant.audit.suites.catalogue.repeated_answers.RepeatedThresholdQuery`.)
    """

    B: int
    coin: int
    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "B", check_domain_size(self.B))
        coin = check_int(self.coin, "coin", minimum=1)
        if coin > self.B:
            raise ParameterError("coin", f"must lie in [1, B] = [1, {self.B}]", coin)
        object.__setattr__(self, "coin", coin)
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def input_values(self) -> tuple[float, ...]:
        """Every user value when B is small, else the values around the coin and the ends."""
        if self.B <= 16:
            return super().input_values
        around = {1, self.B, self.coin, self.coin + 1}
        return tuple(float(v) for v in sorted(v for v in around if 1 <= v <= self.B))

    def draw_limit(self, data: int) -> int:
        return CELL_BUDGET

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return threshold_rr(np.full(size, data, dtype=np.int64), self.coin, self.epsilon, rng)

    def _law(self, data: int) -> DiscreteLaw:
        return rr_law(int(data <= self.coin), self.epsilon)
