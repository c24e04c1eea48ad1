"""DpNaiveNBS: the batched noisy binary search of the experiments (aamand25 App. I, Thm G.3).

The coins c_0 < … < c_{K−1} (K = B for the whole domain) are searched in r = ⌈lg K⌉ rounds. The
users, in a uniformly random order, are cut into r batches; the first n − r·b batches hold b + 1
users and the rest b, with b = ⌊n/r⌋ (App. I, as the authors' code splits them). In each round every
user of the batch reports RR_ε([x ≤ c_idx]) once, the server debiases the batch mean (Eq. (8)),

    p̂ = ((e^ε + 1)/(e^ε − 1))·(ȳ − 1/(e^ε + 1)),

and moves right (L ← idx + 1) when p̂ ≤ τ, left (R ← idx − 1) when p̂ > τ; ties go right. The
search stops when L > R or the batches run out and returns c_idx, idx = ⌊(L + R)/2⌋. At the end
coin c_R had p̂ ≤ τ and coin c_{R+1} had p̂ > τ, so c_R is the τ-quantile coin when every estimate
is within α of the CDF (the union bound of Thm G.3).

Each user answers exactly one query, so the protocol is ε-LDP (Lemma A.1, Eq. (2)); with a per-batch
budget ε_L and shuffled batches it is the shuffle-DP search of :mod:`.shuffle_nbs`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.population import SAMPLERS, CountStream, Population
from dpquant.reference.distributed_quantiles.threshold_query import threshold_rr
from dpquant.reference.distributed_quantiles.users import (
    MAX_B,
    UserStream,
    check_domain_size,
    check_users,
)
from dpquant.reference.validation import (
    check_choice,
    check_epsilon,
    check_flag,
    check_int,
    check_probability,
    check_rng,
)

STAGE = "DpNaiveNBS"


def search_rounds(K: int) -> int:
    """r = ⌈lg K⌉: the number of batches (rounds) of the search over K coins (App. I)."""
    K = check_int(K, "K", minimum=1, maximum=MAX_B)
    return (K - 1).bit_length()


def batch_schedule(n: int, K: int, stage: str = STAGE) -> list[int]:
    """Batch sizes for n users and K coins: r = ⌈lg K⌉ batches, b = ⌊n/r⌋, the first n − r·b of
    size b + 1 and the rest of size b (App. I; the sizes sum to n).

    K = 1 needs no query: the schedule is empty. Raises ``ValueError`` ("n too small for ...")
    when n < r, i.e. when some batch would be empty.
    """
    n = check_int(n, "n", minimum=0, maximum=MAX_B)
    r = search_rounds(K)
    if not isinstance(stage, str):
        raise ParameterError("stage", "must be a string (a label)", type(stage).__name__)
    if r == 0:
        return []
    b, extra = divmod(n, r)
    if b == 0:
        raise ValueError(
            f"n too small for {stage}: r = ceil(lg K) = {r} batches need at least {r} users, "
            f"got n = {n}"
        )
    return [b + 1] * extra + [b] * (r - extra)


def _debiased(ones: int, size: int, t: float) -> float:
    """1/2 + (2·ones − size)/(2·size·t) with t = tanh(ε/2) > 0 (see :func:`debiased_estimate`)."""
    return 0.5 + (2 * ones - size) / (2.0 * size * t)


def rr_tanh(epsilon: float, name: str = "epsilon") -> float:
    """tanh(ε/2) = 2p − 1 (p the RR keep probability), refusing the ε whose half underflows."""
    epsilon = check_epsilon(epsilon, name)
    t = math.tanh(epsilon / 2.0)
    if not t > 0.0:
        raise ParameterError(
            name,
            f"must be >= 1e-323 (tanh({name}/2) underflows to 0 below)",
            repr(epsilon),
        )
    return t


def debiased_estimate(ones: int, size: int, epsilon: float) -> float:
    """Eq. (8): p̂ = ((e^ε + 1)/(e^ε − 1))·(ȳ − 1/(e^ε + 1)) with ȳ = ones/size.

    Written as 1/2 + (2ȳ − 1)/(2·tanh(ε/2)), which is the same number (1/(e^ε − 1) =
    (1 − t)/(2t), t = tanh(ε/2)), never overflows for large ε and does not lose the O(ε) term
    1/(e^ε + 1) − 1/2 for tiny ε.
    """
    size = check_int(size, "size", minimum=1, maximum=MAX_B)
    ones = check_int(ones, "ones", minimum=0, maximum=size)
    return _debiased(ones, size, rr_tanh(epsilon))


class CandidateCoins:
    """The candidate coins, either 1..K by index arithmetic or a given sorted array."""

    def __init__(self, coins: Any, B: int):
        if coins is None:
            self.values: np.ndarray | None = None
            self.K = B
            return
        arr = check_users(coins, B, "coins")
        if arr.size > 1 and not np.all(np.diff(arr) > 0):
            raise ParameterError("coins", "must be strictly increasing")
        self.values = arr
        self.K = int(arr.size)

    def __getitem__(self, i: int) -> int:
        """The i-th coin; i = −1 is the last coin (Python's negative indexing, see ``faithful``)."""
        if i < 0:
            i += self.K
        if self.values is None:
            return i + 1
        return int(self.values[i])


def batched_search(
    stream: UserStream | CountStream,
    coins: CandidateCoins,
    tau: float,
    eps_local: float,
    rng: np.random.Generator,
    *,
    faithful: bool,
    stage: str,
) -> int:
    """The batched binary search shared by DpNaiveNBS (ε_L = ε) and the shuffle search (App. I).

    Uses all ``stream.remaining`` users: batch t is the next ``batch_schedule[t]`` users of the
    stream. Each batch answers one coin through RR at ``eps_local``; only the batch's number of
    ones reaches the server (drawn user by user from a ``UserStream``, as a count from a
    ``CountStream``). Batches left over when L > R are taken from the stream unqueried.
    """
    K = coins.K
    if K == 1:
        return coins[0]
    t = rr_tanh(eps_local, "eps_local")
    schedule = batch_schedule(stream.remaining, K, stage)
    left, right = 0, K - 1
    idx = (left + right) // 2
    for size in schedule:
        if left > right:
            stream.take(size, stage)  # the search is over: the batch is discarded unqueried
            continue
        ones = _batch_ones(stream, size, coins[idx], eps_local, rng, stage)
        if _debiased(ones, size, t) > tau:
            right = idx - 1
        else:  # ties p̂ = τ go right
            left = idx + 1
        idx = (left + right) // 2
    if idx < 0 and not faithful:
        # Every answer said "the τ-quantile lies left of this coin": the closest coin to the
        # answer is the smallest one. The authors' code indexes coins[-1] here and returns the
        # largest coin, the one farthest from the answer (faithful=True reproduces that).
        return coins[0]
    return coins[idx]


def _batch_ones(
    stream: UserStream | CountStream,
    size: int,
    coin: int,
    eps_local: float,
    rng: np.random.Generator,
    stage: str,
) -> int:
    """The number of ones of the next ``size`` users' ε_L-RR answers to [x ≤ coin]."""
    if isinstance(stream, CountStream):
        return stream.rr_ones(size, coin, eps_local, rng, stage)
    return int(threshold_rr(stream.take(size, stage), coin, eps_local, rng).sum())


def open_stream(
    users: Any, B: int, rng: np.random.Generator, sampler: str
) -> UserStream | CountStream:
    """The users as a stream for ``sampler`` (:data:`SAMPLERS`): a ``UserStream`` of the checked
    users, or a ``CountStream`` of their :class:`.population.Population` (``users`` may already
    be one: sorted once, reused across runs)."""
    sampler = check_choice(sampler, "sampler", SAMPLERS)
    if sampler == "counts":
        return CountStream(Population.of(users, B), rng)
    if isinstance(users, Population):
        if users.B != B:
            raise ParameterError("users", f"is a Population over [1, {users.B}], not [1, {B}]")
        return UserStream(np.array(users.values), rng)
    return UserStream(check_users(users, B), rng)


def _stream_for(
    users: Any,
    B: int,
    rng: np.random.Generator,
    stream: UserStream | CountStream | None,
    sampler: str,
) -> UserStream | CountStream:
    if stream is None:
        return open_stream(users, B, rng, sampler)
    if isinstance(stream, CountStream):
        if stream.population.n and stream.population.values[-1] > B:
            raise ValueError(f"stream users must lie in [1, {B}]")
        return stream
    if not isinstance(stream, UserStream):
        raise ParameterError(
            "stream",
            "must be a UserStream or a CountStream",
            type(stream).__name__,
        )
    rest = stream.order[stream.used :]
    if rest.size and (rest.min() < 1 or rest.max() > B):
        raise ValueError(f"stream users must lie in [1, {B}]")
    return stream


def dp_naive_nbs(
    users: Any,
    B: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    tau: float = 0.5,
    coins: Any = None,
    stream: UserStream | CountStream | None = None,
    faithful: bool = False,
    sampler: str = "per_user",
) -> int:
    """DpNaiveNBS (App. I, Thm G.3): an ε-LDP estimate of the τ-quantile coin.

    Parameters
    ----------
    users: the users' values in [1, B], or their :class:`.population.Population` (ignored when
        ``stream`` is given; pass ``None`` then). Per user, a Population's sorted values are put
        in a random order: the same law as the array, other coins for the same seed.
    B: the domain size (>= 2).
    epsilon: each user's local budget ε > 0 (one RR bit per user).
    rng: the randomness of the RR bits (and of the user order when no stream is given).
    tau: the quantile in (0, 1).
    coins: a strictly increasing array of candidate coins in [1, B]; default 1..B (never built).
    stream: a :class:`UserStream` or :class:`.population.CountStream` to take the users from;
        all ``stream.remaining`` users are used (``sampler`` is then the stream's own).
    faithful: reproduce the authors' code when every answer goes left (R = −1): it returns the
        *largest* coin (Python's ``coins[-1]``); the default returns the smallest coin.
    sampler: ``"per_user"`` (default: a random order and one RR bit per user, O(n)) or
        ``"counts"`` (each batch's ones from the same exact joint law, O(rounds²) in all; for
        n = 10^7, pass a ``Population`` built once). Same law of the output, different draws.

    Returns the coin c_idx. Raises ``ValueError`` when fewer users than rounds remain.
    """
    B = check_domain_size(B)
    rr_tanh(epsilon)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    tau = check_probability(tau, "tau", open_left=True, open_right=True)
    faithful = check_flag(faithful, "faithful")
    sampler = check_choice(sampler, "sampler", SAMPLERS)
    cs = CandidateCoins(coins, B)
    src = _stream_for(users, B, rng, stream, sampler)
    return batched_search(src, cs, tau, epsilon, rng, faithful=faithful, stage=STAGE)
