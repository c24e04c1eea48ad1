"""The shuffle-DP binary search of Thm 1.4 / G.6 (aamand25 App. G and I.3).

Same as DpNaiveNBS (App. I) except that every user of a batch randomizes with the amplified
local budget ε_L (:func:`dpquant.reference.distributed_quantiles.amplification.shuffle_local_epsilon`) and
a trusted shuffler permutes each batch's reports before the server sees them. The server only uses
the batch's number of ones, a function of the shuffled multiset of reports, so the permutation
itself need not be drawn: the output has the same law with or without it.

Privacy (App. G; Def. 2.4): within batch t every user applies the same ε_L-RR of the threshold
[x ≤ c_t], where c_t depends only on earlier batches' outputs; by Thm G.4 the shuffled batch is
(ε, δ)-DP in the data of its own users whenever ε_L satisfies the FMT precondition and
fmt_epsilon(ε_L, |batch|, δ) ≤ ε. The batches are disjoint and each later round is
post-processing of earlier outputs plus other users' data, so the protocol is (ε, δ)-shuffle DP
(the definition of Sec. 2 preceding Def. 2.4); each user is also ε_L-LDP, ε_L = Θ(log n). The
budget is computed for the smallest batch ⌊n/r⌋ (``"lemma_g5"``, ``"inverted"``); the bound is
decreasing in the batch size, so the larger batches ⌊n/r⌋ + 1 are covered too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpquant.reference.distributed_quantiles.amplification import (
    LOCAL_EPSILON_RULES,
    shuffle_local_epsilon,
)
from dpquant.reference.distributed_quantiles.naive_nbs import (
    CandidateCoins,
    batched_search,
    open_stream,
)
from dpquant.reference.distributed_quantiles.population import SAMPLERS, Population
from dpquant.reference.distributed_quantiles.users import UserStream, check_domain_size, check_users
from dpquant.reference.validation import (
    check_choice,
    check_epsilon,
    check_flag,
    check_probability,
    check_rng,
)

STAGE = "shuffle NBS"


def shuffle_nbs(
    users: Any,
    B: int,
    epsilon: float,
    delta: float,
    rng: np.random.Generator,
    *,
    tau: float = 0.5,
    local_epsilon: str = "lemma_g5",
    coins: Any = None,
    faithful: bool = False,
    sampler: str = "per_user",
) -> int:
    """Estimate the τ-quantile coin under (ε, δ)-shuffle DP (Thm 1.4 / G.6; App. I.3).

    ``local_epsilon`` picks the per-batch budget: ``"lemma_g5"`` (default; Lemma G.5 on the smallest
    batch ⌊n/r⌋, ``notes/aamand25.md`` "Shuffle local ε"), ``"inverted"`` (the largest ε_L the exact
    Thm G.4 bound allows on that batch), ``"paper"`` (App. I.3's formula) or ``"authors"`` (the
    authors' code, n/ln K). ``coins`` and ``faithful`` are as in
    :func:`dpquant.reference.distributed_quantiles.naive_nbs.dp_naive_nbs`, as are ``users`` (values or
    a :class:`.population.Population`) and ``sampler`` (``"per_user"`` or ``"counts"``: the same
    law, the counts drawn in O(rounds) per batch).

    Raises ``ValueError`` when the rule gives ε_L ≤ 0 or breaks the FMT precondition (the message
    names the failure and what would fix it), before any user is queried.
    """
    B = check_domain_size(B)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    tau = check_probability(tau, "tau", open_left=True, open_right=True)
    delta = check_probability(delta, "delta", open_left=True, open_right=True)
    local_epsilon = check_choice(local_epsilon, "local_epsilon", LOCAL_EPSILON_RULES)
    faithful = check_flag(faithful, "faithful")
    sampler = check_choice(sampler, "sampler", SAMPLERS)
    if sampler == "counts" or isinstance(users, Population):
        values: Population | np.ndarray = Population.of(users, B)
    else:
        values = check_users(users, B)
    n = values.n if isinstance(values, Population) else int(values.size)
    cs = CandidateCoins(coins, B)
    if cs.K == 1:
        return cs[0]
    eps_local = shuffle_local_epsilon(epsilon, delta, n, cs.K, local_epsilon)
    # checked users go straight into their stream (open_stream would check them again)
    stream = (
        UserStream(values, rng)
        if isinstance(values, np.ndarray)
        else open_stream(values, B, rng, sampler)
    )
    return batched_search(stream, cs, tau, eps_local, rng, faithful=faithful, stage=STAGE)
