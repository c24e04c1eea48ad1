"""The protocols as :class:`dpquant.reference.core.Mechanism` objects, for the auditor.

* :class:`ProtocolMechanism` — a whole protocol run on ``n`` users, claim ε-DP under ``replace_one``
  (each user answers one ε-RR bit: the users' reports are disjoint, so changing one user changes one
  ε-DP report: Lemma A.1 and Eq. (2)). ``sample`` reruns the protocol; ``exact`` is the enumerated
  law of :mod:`dpquant.reference.distributed_quantiles.protocol_enumeration` when ``n`` is tiny.
* its local randomizer, :meth:`ProtocolMechanism.local_randomizer`, is a
  :class:`ThresholdQuery` (claim ε, adjacency ``local``, exact 2×2 channel).
* :func:`nbs_mechanism` — DpNaiveNBS as such a mechanism.

The deliberately broken variant the auditor must catch (DpNaiveNBS in which the first user also
answers the second batch's query at full ε) lives with the known-bad catalogue:
:mod:`dpquant.audit.suites.catalogue.repeated_answers`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase, PerDrawMechanism
from dpquant.reference.distributed_quantiles.naive_nbs import dp_naive_nbs
from dpquant.reference.distributed_quantiles.protocol_enumeration import protocol_law
from dpquant.reference.distributed_quantiles.threshold_query import ThresholdQuery
from dpquant.reference.distributed_quantiles.users import check_domain_size, check_users
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.validation import check_epsilon, check_int, check_rng

EXACT_MAX_USERS = 5
"""``exact`` enumerates n!·2^(reports) random paths: n <= 5 users (at most 120·2^6 paths)."""

MAX_USERS = 10**6
"""The most users a :class:`ProtocolMechanism` data set may hold (one protocol run is O(n))."""

DRAW_BUDGET = 5 * 10**6
"""Work units one ``sample`` call may spend: a run costs about n + :data:`RUN_OVERHEAD` units
(a unit is roughly a microsecond of Python), so a call of the largest allowed size finishes in
a few seconds."""

RUN_OVERHEAD = 64


def check_options(protocol: Callable[..., Any], options: Any, name: str) -> dict[str, Any]:
    """``options``: a dict of keyword arguments that ``protocol(users, B, epsilon, rng,
    **options)`` accepts (checked against its signature, so a wrong keyword is a ``ValueError``
    naming ``options`` rather than a ``TypeError`` inside a run)."""
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise ParameterError(
            "options",
            "must be a dict of keyword arguments",
            type(options).__name__,
        )
    try:
        signature = inspect.signature(protocol)
    except (TypeError, ValueError):
        return options  # a builtin without a signature: nothing to check
    try:
        signature.bind(None, None, None, None, **options)
    except TypeError as exc:
        raise ParameterError(
            "options",
            f"must be keyword arguments that {name} accepts as {name}(users, B, epsilon, rng, "
            f"**options): {exc}",
        ) from None
    return options


@dataclass(frozen=True)
class ProtocolMechanism(PerDrawMechanism, ExactMechanismBase):
    """``protocol(users, B, epsilon, rng, **options)`` on data sets of exactly ``n`` users.

    ``sample`` reruns the protocol once per draw (:class:`dpquant.reference.core.PerDrawMechanism`
    loops over :meth:`_draw_one`), at most :meth:`draw_limit` runs per call; ``exact`` enumerates
    the protocol's random choices
    (:func:`dpquant.reference.distributed_quantiles.protocol_enumeration.protocol_law`) for n <=
    :data:`EXACT_MAX_USERS`. The claim is under replace-one: data sets of exactly n users.
    """

    name: str
    protocol: Callable[..., int]
    B: int
    epsilon: float
    n: int
    options: dict[str, Any] = field(default_factory=dict)

    adjacency = Adjacency.REPLACE_ONE  # data sets of exactly n users

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ParameterError("name", "must be a string", type(self.name).__name__)
        if not callable(self.protocol):
            raise ParameterError(
                "protocol",
                "must be callable as protocol(users, B, epsilon, rng, **options)",
                type(self.protocol).__name__,
            )
        object.__setattr__(self, "B", check_domain_size(self.B))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "n", check_int(self.n, "n", minimum=1, maximum=MAX_USERS))
        check_options(self.protocol, self.options, "protocol")

    @property
    def domain(self) -> tuple[float, float]:
        return (1.0, float(self.B))

    @property
    def output_range(self) -> tuple[float, float]:
        return (1.0, float(self.B))

    @property
    def input_values(self) -> tuple[float, ...]:
        if self.B <= 16:
            return tuple(float(v) for v in range(1, self.B + 1))
        return (1.0, float(self.B // 2), float(self.B // 2 + 1), float(self.B))

    def check_input(self, data: Any) -> np.ndarray:
        x = check_users(data, self.B, "data")
        if x.size != self.n:
            raise ParameterError("data", f"must hold exactly n = {self.n} users", x.size)
        return x

    def draw_limit(self, data: np.ndarray) -> int:
        return max(1, DRAW_BUDGET // (self.n + RUN_OVERHEAD))

    def run(self, data: Any, rng: np.random.Generator) -> int:
        """One run of the protocol on ``data`` (checked as ``sample`` checks it)."""
        return self._draw_one(self.check_input(data), check_rng(rng))

    def _draw_one(self, data: np.ndarray, rng: np.random.Generator) -> int:
        coin = self.protocol(data, self.B, self.epsilon, rng, **self.options)
        if isinstance(coin, bool | np.bool_) or not isinstance(coin, int | np.integer):
            raise ValueError(
                f"protocol {self.name!r} must return an integer coin in [1, {self.B}], got "
                f"{coin!r:.60}"
            )
        return int(coin)

    def _law(self, data: np.ndarray) -> DiscreteLaw:
        """The enumerated output law (n <= :data:`EXACT_MAX_USERS`)."""
        if self.n > EXACT_MAX_USERS:
            raise ValueError(
                f"exact laws are enumerated for n <= {EXACT_MAX_USERS} users (n!·2^n random "
                f"paths), got n = {self.n}"
            )
        return protocol_law(lambda rng: self._draw_one(data, rng), self.epsilon)

    def local_randomizer(self, coin: int | None = None) -> ThresholdQuery:
        """The randomizer each user runs: one ε-RR bit of [x <= coin] (default: the middle)."""
        return ThresholdQuery(self.B, self.B // 2 if coin is None else coin, self.epsilon)


def nbs_mechanism(B: int, epsilon: float, n: int) -> ProtocolMechanism:
    """DpNaiveNBS (App. I, Thm G.3) on ``n`` users over [B] as a :class:`ProtocolMechanism`.

    Args:
        B: The domain size, an integer in [2, MAX_B].
        epsilon: The local budget ε > 0 of each user's one RR bit.
        n: The number of users, an integer in [1, :data:`MAX_USERS`].

    Returns:
        The mechanism (claim ε, ``replace_one``).

    Raises:
        ValueError: ``B``, ``epsilon`` or ``n`` out of range (named).
    """
    return ProtocolMechanism("DpNaiveNBS", dp_naive_nbs, B, epsilon, n)
