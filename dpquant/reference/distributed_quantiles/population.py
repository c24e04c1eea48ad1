"""A large population of users as counts: the batches of the adaptive searches drawn from their
exact joint law in O(queries) per batch instead of O(users).

The batched searches (DpNaiveNBS, App. I; the shuffle search, App. I.3) put the users in a
uniformly random order, cut them into consecutive batches, and ask batch t about one threshold
c_t chosen from the earlier batches' answers; the server sees only the batch's number of ones
(RR_ε of [x ≤ c_t] summed over the batch). That number depends on the batch only through
k_t = |{users of batch t with x ≤ c_t}|:

    ones_t = Bin(k_t, p) + (s_t − k_t) − Bin(s_t − k_t, p),    p = e^ε/(1 + e^ε),

the kept true answers below the coin plus the flipped answers above it. And the k_t have an
exact joint law that needs no user order. Cut the domain at the coins asked so far into cells;
record for each cell its number of users N_j and how many of them earlier batches took, m_j.
By exchangeability, given those counts the users taken from cell j are a uniformly random m_j-subset
of its users, independently across cells. So

- a new coin c that splits cell j into (≤ c, > c) with N_a and N_j − N_a users splits its taken
  count as m_a ~ Hypergeometric(N_a, N_j − N_a, m_j), and
- the next batch of s users takes from the cells' remaining users (N_j − m_j) a multivariate
  hypergeometric sample of size s; k_t is the sum over the cells at or below c.

The counts of :class:`CountStream` therefore have the joint law of :class:`UserStream`'s batches'
threshold counts, and the ones the law of the per-user RR sum; a test ties the two exactly
(:func:`dpquant.reference.distributed_quantiles.protocol_enumeration.protocol_law` enumerates both on
tiny inputs and gets the same 50-digit law). :class:`Population` sorts the users once so that N
below any coin is one binary search; a study reuses it across runs.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.users import check_domain_size, check_users
from dpquant.reference.primitives.randomized_response import keep_probability
from dpquant.reference.validation import check_epsilon, check_int, check_rng

SAMPLERS = ("per_user", "counts")
"""How a protocol draws its users' randomness: ``"per_user"`` draws every user's choices and
reports one by one (O(n)); ``"counts"`` draws the aggregate counts the server sees from their
exact joint law (O(queries) or O(distinct values)). Same law of the output, not the same output
for the same seed."""

MAX_POPULATION = 10**9 - 1
"""The most users of a :class:`Population`: numpy's hypergeometric samplers, exact below it,
refuse a total of 10^9 or more."""


@dataclass(frozen=True)
class Population:
    """The users' values in {1, ..., B}, sorted once (read-only); ``at_most(c)`` = |{x ≤ c}|."""

    values: np.ndarray
    B: int

    @classmethod
    def of(cls, users: Any, B: int, name: str = "users") -> Population:
        """The population of ``users`` (as :func:`check_users` accepts them; at most
        :data:`MAX_POPULATION`); a :class:`Population` is returned as it is when its ``B``
        matches."""
        B = check_domain_size(B)
        if isinstance(users, Population):
            if users.B != B:
                raise ParameterError(name, f"is a Population over [1, {users.B}], not [1, {B}]")
            return users
        values = np.sort(check_users(users, B, name))
        if values.size > MAX_POPULATION:
            raise ParameterError(
                name,
                f"must hold at most {MAX_POPULATION} users for the counts sampler (numpy's "
                "hypergeometric)",
                values.size,
            )
        values.setflags(write=False)
        return cls(values, B)

    @property
    def n(self) -> int:
        return int(self.values.size)

    def at_most(self, coin: int) -> int:
        """|{users with x ≤ coin}| (one binary search)."""
        return int(np.searchsorted(self.values, coin, side="right"))

    @functools.cached_property
    def distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """(the distinct values, increasing; how many users hold each), computed once."""
        values, counts = np.unique(self.values, return_counts=True)
        return values, counts.astype(np.int64)


class CountStream:
    """The users of a :class:`Population` in a uniformly random order, handed out as counts.

    The counts analogue of :class:`dpquant.reference.distributed_quantiles.users.UserStream`:
    ``take(k, stage)`` hands out the next ``k`` users without saying anything about them (their
    cell counts are drawn and recorded), ``count_at_most(k, coin, stage)`` hands out the next
    ``k`` and returns how many of them hold x ≤ coin, ``rr_ones(k, coin, ε, rng, stage)`` the
    number of ones of their ε-RR answers to [x ≤ coin]. Asking for more users than remain raises
    a ``ValueError`` naming the stage, as ``UserStream`` does.
    """

    def __init__(self, population: Population, rng: np.random.Generator):
        if not isinstance(population, Population):
            raise ParameterError("population", "must be a Population", type(population).__name__)
        self.population = population
        self.rng = check_rng(rng)
        self.used = 0
        # cell j holds the users in (edges[j − 1], edges[j]] (edges[−1] = −inf, edges[len] = +inf)
        self._edges: list[int] = []
        self._total: list[int] = [population.n]
        self._taken: list[int] = [0]

    @property
    def remaining(self) -> int:
        return self.population.n - self.used

    def _cell_of(self, coin: int) -> int:
        """The index of the cell whose upper edge is ``coin``, splitting a cell if needed."""
        j = bisect.bisect_left(self._edges, coin)
        if j < len(self._edges) and self._edges[j] == coin:
            return j
        below = self.population.at_most(coin)
        if j > 0:
            below -= self.population.at_most(self._edges[j - 1])
        above = self._total[j] - below
        taken = self._taken[j]
        taken_below = int(self.rng.hypergeometric(below, above, taken)) if taken else 0
        self._edges.insert(j, coin)
        self._total[j : j + 1] = [below, above]
        self._taken[j : j + 1] = [taken_below, taken - taken_below]
        return j

    def _draw(self, k: int, stage: str) -> np.ndarray:
        k = check_int(k, "k", minimum=0)
        if k > self.remaining:
            raise ValueError(
                f"n too small for {stage}: it needs {k} users but only {self.remaining} of "
                f"{self.population.n} remain"
            )
        rest = [t - m for t, m in zip(self._total, self._taken, strict=True)]
        if len(rest) == 1:
            counts = np.array([k], dtype=np.int64)
        else:
            counts = self.rng.multivariate_hypergeometric(rest, k, method="marginals")
        self._taken = [m + int(c) for m, c in zip(self._taken, counts, strict=True)]
        self.used += k
        return counts

    def take(self, k: int, stage: str = "stage") -> None:
        """Hand out the next ``k`` users, asking them nothing."""
        self._draw(k, stage)

    def count_at_most(self, k: int, coin: int, stage: str = "stage") -> int:
        """Hand out the next ``k`` users; the number of them with x ≤ ``coin``."""
        j = self._cell_of(check_int(coin, "coin"))
        return int(self._draw(k, stage)[: j + 1].sum())

    def rr_ones(
        self, k: int, coin: int, epsilon: float, rng: np.random.Generator, stage: str = "stage"
    ) -> int:
        """Hand out the next ``k`` users; the number of ones among their ε-RR answers to
        [x ≤ coin]: Bin(below, p) kept ones plus (k − below) − Bin(k − below, p) flipped ones,
        p = e^ε/(1 + e^ε)."""
        keep = keep_probability(check_epsilon(epsilon))
        below = self.count_at_most(k, coin, stage)
        rng = check_rng(rng)
        above = k - below
        return int(rng.binomial(below, keep)) + above - int(rng.binomial(above, keep))


__all__ = ["MAX_POPULATION", "SAMPLERS", "CountStream", "Population"]
