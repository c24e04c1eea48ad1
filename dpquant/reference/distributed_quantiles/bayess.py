"""The theoretical protocols: BayeSS for Thm 1.1 (empirical median) and Thm C.1 (statistical).

Both run the learner of Thm 3.2 / E.4 on the RR-domain coins (target 1/2, which RR keeps for the
median) and then TestCoins (Alg. 1):

1. BayesLearn with update parameter α' for T steps, one fresh user per flip, each answering
   RR_ε([x <= coin]) (Thm 1.1: α' = αε/8 and users 1..n/4 of a uniformly random order;
   Thm C.1: α' = α·tanh(ε/2) and half of the users);
2. S = the sorted-L entries at positions ⌈γ|L|⌉, 2⌈γ|L|⌉, … with γ = 1/13 (about 13 intervals);
3. TestCoins: each endpoint coin of each interval in S is flipped m times by fresh users (the
   next n/4, resp. the other half), and the interval whose estimated RR-domain step
   [p̃_left, p̃_right] is closest to 1/2 wins (the paper leaves the test rule open; our choice,
   ``notes/aamand25.md``, "Thm 1.1 / C.1 protocols"). Its left coin j* is returned (the proof's
   "j* + 1" is a typo: by Eq. (3) j* itself is the approximate median).

T defaults to every user of the learning share: the theorem only needs T = O(log B/α'²) and more
flips only sharpen the posterior; ``steps`` chooses T explicitly. Each user answers one ε-RR
bit, so the protocols are ε-LDP with no composition (proof of Thm 1.1, Sec. 4; Lemma A.1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.bayes_learning import (
    Intervals,
    bayes_learn,
    check_rounding,
)
from dpquant.reference.distributed_quantiles.naive_nbs import rr_tanh
from dpquant.reference.distributed_quantiles.private_bayess import select_quantiles
from dpquant.reference.distributed_quantiles.threshold_query import threshold_rr
from dpquant.reference.distributed_quantiles.users import UserStream, check_domain_size, check_users
from dpquant.reference.validation import check_epsilon, check_int, check_probability, check_rng

GAMMA = 1 / 13


def _check_update(alpha_update: float, formula: str, alpha: float, epsilon: float) -> float:
    """The learner's update parameter α' must lie in (0, 1/2) (the channel's crossover
    probabilities 1/2 ± α' inside (0, 1)); refuse naming α and ε otherwise."""
    if not 0.0 < alpha_update < 0.5:
        raise ValueError(
            f"alpha and epsilon must give an update parameter {formula} = {alpha_update:.4g} in "
            f"(0, 1/2), got alpha = {alpha!r}, epsilon = {epsilon!r}"
        )
    return alpha_update


def _check_alpha(alpha: Any) -> float:
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    if not alpha < 0.25:
        raise ParameterError("alpha", "must lie in (0, 1/4)", repr(alpha))
    return alpha


def select_by_test_coins(
    stream: UserStream,
    candidates: Intervals,
    count: int,
    epsilon: float,
    rng: np.random.Generator,
) -> int:
    """TestCoins (Alg. 1): the candidate whose RR-domain step [p̃_left, p̃_right] is nearest 1/2.

    ``count`` users of ``stream`` are shared evenly between the 2·|S| endpoint flips (each user
    answers one coin). Returns the winning interval's left coin.
    """
    if not isinstance(stream, UserStream):
        raise ParameterError("stream", "must be a UserStream", type(stream).__name__)
    if not isinstance(candidates, Intervals):
        raise ParameterError("candidates", "must be an Intervals", type(candidates).__name__)
    count = check_int(count, "count", minimum=0, maximum=stream.remaining)
    rr_tanh(epsilon)
    rng = check_rng(rng)
    flips = 2 * candidates.count
    if flips > count:
        raise ValueError(f"n too small for TestCoins: {count} users for {flips} coin estimates")
    per_coin = count // flips
    if per_coin < 1:
        raise ValueError(f"n too small for TestCoins: {count} users for {flips} coin estimates")
    best, best_gap = 1, math.inf
    for j in range(1, candidates.count + 1):
        left, right = candidates.left(j), candidates.right(j)
        p_left = threshold_rr(stream.take(per_coin, "TestCoins"), left, epsilon, rng).mean()
        p_right = threshold_rr(stream.take(per_coin, "TestCoins"), right, epsilon, rng).mean()
        gap = max(p_left - 0.5, 0.5 - p_right, 0.0)
        if gap < best_gap:
            best, best_gap = j, gap
    return candidates.left(best)


@dataclass(frozen=True)
class _Variant:
    """What sets the two theorems apart: the protocol's public name and docstring, the update
    parameter α'(α, ε) (and its formula, for the error message) and the (learning, test) user
    counts out of n."""

    name: str
    doc: str
    update: Callable[[float, float], float]
    formula: str
    shares: Callable[[int], tuple[int, int]]


def _protocol(variant: _Variant) -> Callable[..., int]:
    """The protocol ``variant.name(users, B, epsilon, rng, *, alpha, steps=None,
    rounding="paper") -> int`` (steps 1–3 of the module docstring with ``variant``'s α' and
    user shares)."""

    def protocol(
        users: Any,
        B: int,
        epsilon: float,
        rng: np.random.Generator,
        *,
        alpha: float,
        steps: int | None = None,
        rounding: str = "paper",
    ) -> int:
        B = check_domain_size(B)
        x = check_users(users, B)
        alpha, epsilon = _check_alpha(alpha), check_epsilon(epsilon)
        alpha_update = _check_update(
            variant.update(alpha, epsilon), variant.formula, alpha, epsilon
        )
        learn, test = variant.shares(x.size)
        rng, rounding = check_rng(rng), check_rounding(rounding)
        stream = UserStream(x, rng)
        T = learn if steps is None else check_int(steps, "steps", minimum=1)
        if T > learn:
            raise ParameterError("steps", f"must be at most {learn} (the learning users)", T)
        if T < 1:
            raise ValueError("n too small for BayesLearn: no learning users")
        L = bayes_learn(
            stream.take(T, "BayesLearn"),
            Intervals.full(B),
            alpha_update,
            rng,
            epsilon=epsilon,
            rounding=rounding,
        )
        stream.take(learn - T, "BayesLearn")  # unused learning users are never queried
        picks = select_quantiles(L, GAMMA, "paper")
        candidates = Intervals.from_coins(picks, picks + 1)
        return select_by_test_coins(stream, candidates, test, epsilon, rng)

    protocol.__name__ = protocol.__qualname__ = variant.name
    protocol.__doc__ = variant.doc
    return protocol


bayess_theorem_1_1 = _protocol(
    _Variant(
        "bayess_theorem_1_1",
        "The ε-LDP empirical-median protocol of Theorem 1.1 (α' = αε/8, users 1..n/2 only).",
        lambda a, e: a * e / 8,
        "alpha·epsilon/8",
        lambda n: (n // 4, n // 4),
    )
)
bayess_statistical = _protocol(
    _Variant(
        "bayess_statistical",
        "The statistical-median protocol of Theorem C.1 (α' = α·tanh(ε/2), i.i.d. users).",
        lambda a, e: a * math.tanh(e / 2),
        "alpha·tanh(epsilon/2)",
        lambda n: (n // 2, n - n // 2),
    )
)
