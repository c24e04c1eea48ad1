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

from reference.core import PrivacyClaim
from reference.distributed_quantiles.users import check_domain_size, check_user_value
from reference.distributions import DiscreteLaw, ProductLaw
from reference.primitives.randomized_response import keep_probability, rr_law
from reference.validation import check_epsilon, check_int, check_rng, check_size


def threshold_bits(values: np.ndarray, coin: int) -> np.ndarray:
    """The true answers [x <= coin] as int8."""
    return (np.asarray(values) <= coin).astype(np.int8)


def threshold_rr(
    values: np.ndarray, coin: int, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """RR_ε([x <= coin]) for each user (vectorised): each bit kept w.p. e^ε/(1 + e^ε)."""
    bits = threshold_bits(values, coin)
    flip = rng.random(bits.shape) >= keep_probability(epsilon)
    return np.where(flip, 1 - bits, bits).astype(np.int8)


@dataclass(frozen=True)
class ThresholdQuery:
    """One user's report to the query "is your value <= coin?" as a local-DP :class:`Mechanism`.

    ``data`` is the user's value in {1, ..., B}; ``exact(data)`` is the law of the report on {0, 1}.
    ``answers`` > 1 gives the deliberately broken variant of the auditor tests: the same user
    answers ``answers`` coins (``coin``, ``coin + 1``, ...) each at full ε, a vector output whose
    true loss is ``answers``·ε between values on opposite sides of all of them.
    """

    B: int
    coin: int
    epsilon: float
    answers: int = 1

    def __post_init__(self) -> None:
        check_domain_size(self.B)
        check_int(self.coin, "coin", minimum=1)
        if self.coin > self.B:
            raise ValueError(f"coin must lie in [1, {self.B}], got {self.coin}")
        check_epsilon(self.epsilon)
        check_int(self.answers, "answers", minimum=1)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "local")

    @property
    def domain(self) -> tuple[float, float]:
        return (1.0, float(self.B))

    @property
    def input_values(self) -> tuple[float, ...]:
        """Every user value when B is small, else the values around the coin and the ends."""
        if self.B <= 16:
            return tuple(float(v) for v in range(1, self.B + 1))
        around = {1, self.B, self.coin, self.coin + 1, self.coin + self.answers}
        return tuple(float(v) for v in sorted(v for v in around if 1 <= v <= self.B))

    def _value(self, data: Any) -> int:
        return check_user_value(data, self.B)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        x = self._value(data)
        size, rng = check_size(size), check_rng(rng)
        if self.answers == 1:
            return threshold_rr(np.full(size, x), self.coin, self.epsilon, rng)
        cols = [
            threshold_rr(np.full(size, x), self.coin + a, self.epsilon, rng)
            for a in range(self.answers)
        ]
        return np.stack(cols, axis=1)

    def exact(self, data: Any) -> DiscreteLaw | ProductLaw:
        x = self._value(data)
        laws = [rr_law(int(x <= self.coin + a), self.epsilon) for a in range(self.answers)]
        if self.answers == 1:
            return laws[0]
        return ProductLaw(tuple(laws))
