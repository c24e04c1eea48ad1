"""BayesLearn (Alg. 2, after Alg. 2 of Gretta & Price) for any target τ, on any list of intervals.

Each step queries one fresh user about one coin: the interval j holding the q-point of the posterior
(q = argmax of the channel's mutual information, App. E), rounded to one of its two coins, and
updates the posterior multiplicatively with the Bayes weights d_{ỹ,0} (left of the q-point), d_{ỹ,1}
(right of it) and the split factor k·d_{ỹ,0} + (1 − k)·d_{ỹ,1} on interval j (Alg. 2 line 18 with
the typo W(j) − 1 read as W(j) − q, ``notes/aamand25.md`` erratum 1). The multiset L of the queried
intervals is the output.

Rounding (RoundIntervalToCoin): ``"paper"`` flips the left coin when k <= q and the right one
otherwise (the paper and Gretta–Price; Lemma E.3 needs it); ``"left"`` always flips the left coin
(the authors' code, ``notes/aamand25.md`` "Rounding"; ``proofs_checks/test_aamand25_lemma_e3.py``
shows it breaks the potential argument of Lemma E.3).

In the DP version every flip is sent through RR_ε, so the learner runs on the RR-domain coins
p' = 1/(e^ε + 1) + p·tanh(ε/2); their τ-quantile is the RR-domain target
τ' = 1/(e^ε + 1) + τ·tanh(ε/2) (= 1/2 for the median), which is the target the channel quantities
use (``notes/aamand25.md``, "BayesLearn in the RR domain"). ``alpha`` is the update parameter as the
paper's experiments use it (α̃ for DpBayeSS), applied in the domain the learner sees.

The posterior lives in :class:`dpquant.reference.distributed_quantiles.weight_tree.LogWeightTree`
(O(log N) per step, log space), so a full domain of B = 2^32 coins is never allocated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.bayes_kernel import learn_runs
from dpquant.reference.distributed_quantiles.channel import bayes_weights, rr_domain_target
from dpquant.reference.distributed_quantiles.users import MAX_B, check_domain_size, check_integers
from dpquant.reference.distributed_quantiles.weight_tree import LogWeightTree
from dpquant.reference.primitives.randomized_response import keep_probability
from dpquant.reference.validation import (
    check_choice,
    check_epsilon,
    check_int,
    check_probability,
    check_rng,
)

ROUNDINGS = ("paper", "left")


@dataclass(frozen=True)
class Intervals:
    """Intervals i = 1..N between a left and a right coin.

    ``full(B)`` is the whole domain, I_i = [i, i + 1] for i = 1..B − 1, stored as arithmetic (no
    arrays); ``from_coins`` keeps explicit endpoint arrays, which may be non-contiguous (the
    second pass of DpBayeSS).
    """

    count: int
    lefts: np.ndarray | None = None
    rights: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "count", check_int(self.count, "count", minimum=1, maximum=MAX_B))
        if (self.lefts is None) != (self.rights is None):
            raise ValueError("lefts and rights must both be given or both be None")
        if self.lefts is not None:
            lo = check_integers(self.lefts, "lefts", minimum=1, maximum=MAX_B)
            hi = check_integers(self.rights, "rights", minimum=1, maximum=MAX_B)
            if lo.size != self.count or hi.size != self.count:
                raise ValueError(
                    f"lefts and rights must hold count = {self.count} coins each, got "
                    f"{lo.size} and {hi.size}"
                )
            if np.any(hi < lo) or np.any(np.diff(lo) < 0):
                raise ParameterError("intervals", "must be sorted with left <= right")
            object.__setattr__(self, "lefts", lo)
            object.__setattr__(self, "rights", hi)

    @classmethod
    def full(cls, B: int) -> Intervals:
        return cls(check_domain_size(B) - 1)

    @classmethod
    def from_coins(cls, lefts: Any, rights: Any) -> Intervals:
        lo = check_integers(lefts, "lefts", minimum=1, maximum=MAX_B)
        hi = check_integers(rights, "rights", minimum=1, maximum=MAX_B)
        if lo.shape != hi.shape:
            raise ValueError("lefts and rights must be non-empty 1-D arrays of the same length")
        return cls(int(lo.size), lo, hi)

    def _index(self, j: Any) -> int:
        return check_int(j, "j", minimum=1, maximum=self.count)

    def left(self, j: int) -> int:
        j = self._index(j)
        return j if self.lefts is None else int(self.lefts[j - 1])

    def right(self, j: int) -> int:
        j = self._index(j)
        return j + 1 if self.rights is None else int(self.rights[j - 1])

    def as_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(lefts, rights) as int64 arrays (built for the full domain: count <= 10^7)."""
        if self.lefts is not None and self.rights is not None:
            return self.lefts, self.rights
        if self.count > 10**7:
            raise ValueError(f"the full domain of {self.count} intervals is not listed")
        lo = np.arange(1, self.count + 1, dtype=np.int64)
        return lo, lo + 1


def check_rounding(rounding: Any) -> str:
    return check_choice(rounding, "rounding", ROUNDINGS)


def learner_target(tau: float, epsilon: float | None) -> float:
    """The τ the learner aims at: τ itself without RR, τ' = 1/(e^ε + 1) + τ·tanh(ε/2) with it."""
    if epsilon is None:
        return check_probability(tau, "tau", open_left=True, open_right=True)
    return rr_domain_target(tau, epsilon)


def _learner_setup(
    tau: float, epsilon: float | None, alpha: float, rounding: str
) -> tuple[float | None, float, tuple[float, float], tuple[float, float], bool]:
    """Checked (ε, q, d0 = (d_{0,0}, d_{1,0}), d1 = (d_{0,1}, d_{1,1}), paper rounding)."""
    tau = check_probability(tau, "tau", open_left=True, open_right=True)
    rounding = check_rounding(rounding)
    if epsilon is not None:
        epsilon = check_epsilon(epsilon)
    weights = bayes_weights(learner_target(tau, epsilon), alpha)
    d0 = (weights.d00, weights.d10)  # d_{ỹ,0}: the factor left of the q-point
    d1 = (weights.d01, weights.d11)  # d_{ỹ,1}: the factor right of it
    return epsilon, weights.q, d0, d1, rounding == "paper"


def _user_values(users: Any) -> np.ndarray:
    if isinstance(users, np.ndarray) and users.dtype.kind in "iu" and users.ndim == 1:
        return users
    return check_integers(users, "users", minimum=1, maximum=MAX_B, allow_empty=True)


def _flips(steps: int, epsilon: float | None, rng: np.random.Generator) -> np.ndarray:
    """The RR flips of ``steps`` answers: one uniform each, flip iff u >= e^ε/(1 + e^ε)."""
    if epsilon is None:
        return np.zeros(steps, dtype=np.int8)
    return (rng.random(steps) >= keep_probability(epsilon)).astype(np.int8)


def bayes_learn(
    users: np.ndarray,
    intervals: Intervals,
    alpha: float,
    rng: np.random.Generator,
    *,
    tau: float = 0.5,
    epsilon: float | None = None,
    rounding: str = "paper",
) -> np.ndarray:
    """Run ``len(users)`` steps of BayesLearn, one user per step, in the given order (Alg. 2).

    ``epsilon=None`` is the non-private learner (ỹ = y); otherwise each answer goes through
    RR_ε. Returns L, the queried interval indices (1-based, in query order). The steps run in
    :func:`dpquant.reference.distributed_quantiles.bayes_kernel.learn_runs` (compiled); the same steps in
    plain Python are :func:`bayes_learn_tree`, and the two give the same L.
    """
    return learn_batch(
        [users], [intervals], alpha, [rng], tau=tau, epsilon=epsilon, rounding=rounding
    )[0]


def learn_batch(
    users: Sequence[Any],
    intervals: Sequence[Intervals],
    alpha: float,
    rngs: Sequence[np.random.Generator],
    *,
    tau: float = 0.5,
    epsilon: float | None = None,
    rounding: str = "paper",
) -> list[np.ndarray]:
    """:func:`bayes_learn` for many independent runs in one compiled call: run r learns on
    ``users[r]`` over ``intervals[r]`` with its own generator ``rngs[r]`` (its RR flips drawn
    from it exactly as :func:`bayes_learn` draws them), so each run's L is the one
    ``bayes_learn(users[r], intervals[r], alpha, rngs[r], ...)`` returns. The runs must have the
    same number of users."""
    epsilon, q, d0, d1, paper = _learner_setup(tau, epsilon, alpha, rounding)
    if not isinstance(users, list | tuple) or not isinstance(intervals, list | tuple):
        raise ValueError("users and intervals must be lists (one entry per run)")
    if not isinstance(rngs, list | tuple):
        raise ParameterError("rngs", "must be a list of numpy Generators (one per run)")
    if not len(users) == len(intervals) == len(rngs) or not users:
        raise ValueError(
            f"users, intervals and rngs must hold one entry per run (at least one), got "
            f"{len(users)}, {len(intervals)} and {len(rngs)}"
        )
    for iv in intervals:
        if not isinstance(iv, Intervals):
            raise ParameterError("intervals", "must be Intervals", type(iv).__name__)
    gens = [check_rng(g) for g in rngs]
    if len({id(g) for g in gens}) < len(gens):
        raise ParameterError("rngs", "must be distinct Generators: a run shares no randomness")
    values = [_user_values(u) for u in users]
    steps = values[0].size
    if any(v.size != steps for v in values):
        raise ValueError("every run of a batch must have the same number of users")
    flips = np.stack([_flips(steps, epsilon, g) for g in gens])
    counts = np.array([iv.count for iv in intervals], dtype=np.int64)
    full = [iv.lefts is None for iv in intervals]
    if all(full):
        L = learn_runs(np.stack(values), flips, counts, None, None, None, q, d0, d1, paper)
    else:
        spans = [iv.as_arrays() for iv in intervals]
        offsets = np.concatenate([[0], np.cumsum([lo.size for lo, _ in spans])])
        lefts = np.concatenate([lo for lo, _ in spans])
        rights = np.concatenate([hi for _, hi in spans])
        L = learn_runs(np.stack(values), flips, counts, lefts, rights, offsets, q, d0, d1, paper)
    return list(L)


def bayes_learn_tree(
    users: np.ndarray,
    intervals: Intervals,
    alpha: float,
    rng: np.random.Generator,
    *,
    tau: float = 0.5,
    epsilon: float | None = None,
    rounding: str = "paper",
) -> np.ndarray:
    """:func:`bayes_learn` step by step in plain Python on a
    :class:`dpquant.reference.distributed_quantiles.weight_tree.LogWeightTree`: the readable reference
    of the compiled steps (same inputs, same L)."""
    epsilon, q, d0, d1, paper = _learner_setup(tau, epsilon, alpha, rounding)
    rng = check_rng(rng)
    if not isinstance(intervals, Intervals):
        raise ParameterError("intervals", "must be an Intervals", type(intervals).__name__)
    values = _user_values(users).tolist()
    log_d0 = (math.log(d0[0]), math.log(d0[1]))
    log_d1 = (math.log(d1[0]), math.log(d1[1]))
    steps = len(values)
    flips = _flips(steps, epsilon, rng).tolist()
    tree = LogWeightTree(intervals.count)
    out = np.empty(steps, dtype=np.int64)
    lefts, rights = intervals.lefts, intervals.rights
    log = math.log
    for s in range(steps):
        loc = tree.locate_unchecked(q)
        j, k = loc.j, loc.k
        right_coin = paper and k > q
        if lefts is None or rights is None:  # both None together (Intervals)
            coin = j + 1 if right_coin else j
        else:
            coin = int(rights[j - 1]) if right_coin else int(lefts[j - 1])
        y = (1 if values[s] <= coin else 0) ^ flips[s]
        cell = k * d0[y] + (1.0 - k) * d1[y]
        tree.update_unchecked(log_d0[y], log_d1[y], log(cell))
        out[s] = j
    return out
