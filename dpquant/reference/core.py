"""Public contracts: adjacency relations, privacy claims and the ``Mechanism`` protocol.

These names are public API (``docs/DESIGN.md``): extend them, never rename them.

:class:`MechanismBase` is the one base class of every mechanism in :mod:`dpquant.reference` and of the
auditor's catalogue: its public :meth:`~MechanismBase.sample` checks ``size``, ``rng`` and the data
once, then calls the subclass's abstract ``_draw`` (the pattern of ``dp_accounting``'s
``PrivacyAccountant.compose``, which checks and then calls the abstract ``_compose``).
:class:`PerDrawMechanism` gives ``_draw`` as a loop over an abstract ``_draw_one``;
:class:`ExactMechanismBase` adds ``exact(data)`` the same way, around the abstract ``_law``.
Nothing in the contract is silent: a mechanism states its relation (an :class:`Adjacency`), or its
class is refused when it is defined.
"""

from __future__ import annotations

import inspect
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_data,
    check_delta,
    check_epsilon,
    check_rng,
    check_size,
)

if TYPE_CHECKING:  # pragma: no cover
    from dpquant.reference.distributions import ExactDistribution


class Adjacency(StrEnum):
    """Neighbouring relation a claim is made for: a ``str`` enum, so a string value is accepted
    wherever an ``Adjacency`` is (``PrivacyClaim(1.0, adjacency="local")``) and every member
    compares, hashes, formats and serialises (``json``) as its value.

    Between data sets of records (:data:`ADJACENCIES`, what the library's mechanisms take):

    * ``add_remove``  -- data sets differ by adding or removing one record;
    * ``replace_one`` -- same size, one record replaced by another value;
    * ``local``       -- local DP: any two single-user values are neighbours.

    Relations the auditor is given as objects (:data:`OBJECT_RELATIONS`;
    ``dpquant.audit.model.relations``):

    * ``query_answers`` -- the input is a vector of query answers, and neighbours differ by at
      most a sensitivity Δ in a norm (ℓ∞: every answer may move; ℓ1: the moves sum to at most Δ);
    * ``custom``        -- any relation, given by a predicate on pairs and a neighbour generator.

    A member's ``repr`` is its value's (``'local'``), so messages, dataclass reprs and reports
    read the same whether a relation was given as a string or a member.
    """

    ADD_REMOVE = "add_remove"
    REPLACE_ONE = "replace_one"
    LOCAL = "local"
    QUERY_ANSWERS = "query_answers"
    CUSTOM = "custom"

    def __repr__(self) -> str:
        return repr(self.value)


ADJACENCIES: tuple[Adjacency, ...] = (Adjacency.ADD_REMOVE, Adjacency.REPLACE_ONE, Adjacency.LOCAL)
"""The relations between data sets of records (a mechanism's ``adjacency``)."""
OBJECT_RELATIONS: tuple[Adjacency, ...] = (Adjacency.QUERY_ANSWERS, Adjacency.CUSTOM)
"""The relations a claim may name whose details (Δ, norm, predicate) an auditor's relation object
gives."""
CLAIM_ADJACENCIES: tuple[Adjacency, ...] = tuple(Adjacency)
"""Every relation a :class:`PrivacyClaim` may name."""


def check_adjacency(adjacency: Any, name: str = "adjacency") -> Adjacency:
    """Check a mechanism's relation between data sets of records.

    Args:
        adjacency: One of :data:`ADJACENCIES`, an :class:`Adjacency` or its string value.
        name: The argument named in the error.

    Returns:
        The :class:`Adjacency`.

    Raises:
        ValueError: It is not one of them (:func:`dpquant.reference.validation.check_choice`:
            the message names ``name`` and lists the allowed values).
    """
    return Adjacency(check_choice(adjacency, name, ADJACENCIES))


def check_claim_adjacency(adjacency: Any, name: str = "adjacency") -> Adjacency:
    """Check the relation a claim names.

    Args:
        adjacency: One of :data:`CLAIM_ADJACENCIES`, an :class:`Adjacency` or its string value.
        name: The argument named in the error.

    Returns:
        The :class:`Adjacency`.

    Raises:
        ValueError: A claim may not name it (the message names ``name`` and lists the allowed
            values).
    """
    return Adjacency(check_choice(adjacency, name, CLAIM_ADJACENCIES))


@dataclass(frozen=True)
class PrivacyClaim:
    """An (epsilon, delta)-DP claim under a neighbouring relation.

    Args:
        epsilon: ε, a finite float > 0.
        delta: δ, in [0, 1); a pure claim has ``delta == 0``.
        adjacency: The neighbouring relation, an :class:`Adjacency` or its string value (one
            of :data:`CLAIM_ADJACENCIES`); stored as the :class:`Adjacency`.

    Raises:
        ValueError: A field out of range (named).
    """

    epsilon: float
    delta: float = 0.0
    adjacency: Adjacency | str = Adjacency.REPLACE_ONE

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        object.__setattr__(self, "adjacency", check_claim_adjacency(self.adjacency))

    @property
    def is_pure(self) -> bool:
        return self.delta == 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "adjacency": self.adjacency}


@runtime_checkable
class Mechanism(Protocol):
    """Every reference mechanism satisfies this protocol.

    ``sample(data, size, rng)`` returns ``size`` independent outputs on the same input, with shape
    ``(size,)`` or ``(size, k)``. Mechanisms whose output law has a closed form also provide
    ``exact(data) -> ExactDistribution`` (see :class:`ExactMechanism`).
    """

    claim: PrivacyClaim
    domain: tuple[float, float]

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class ExactMechanism(Mechanism, Protocol):
    """A mechanism whose output law on a given input is known exactly."""

    def exact(self, data: Any) -> ExactDistribution: ...


def has_exact(mechanism: Any) -> bool:
    """Whether a mechanism offers its exact output law.

    Args:
        mechanism: Any object.

    Returns:
        True when it has a callable ``exact(data)``.
    """
    return callable(getattr(mechanism, "exact", None))


def check_claim(claim: Any, name: str = "claim") -> PrivacyClaim:
    """Check a claim at the time of use.

    The dataclass is frozen, but ``object.__setattr__`` can still change a field after
    construction, so whoever relies on a claim (the auditor) checks it again.

    Args:
        claim: A :class:`PrivacyClaim`.
        name: The argument named in errors.

    Returns:
        A claim whose fields are valid now (a new one when ε or δ is not a float or the
        relation is not an :class:`Adjacency`).

    Raises:
        ValueError: It is not a claim, or a field is out of range (named).
    """
    if not isinstance(claim, PrivacyClaim):
        raise ValueError(f"{name} must be a dpquant.reference.PrivacyClaim, got {type(claim).__name__}")
    check_epsilon(claim.epsilon, f"{name}.epsilon")
    check_delta(claim.delta, f"{name}.delta")
    adjacency = check_claim_adjacency(claim.adjacency, f"{name}.adjacency")
    if not (
        isinstance(claim.epsilon, float)
        and isinstance(claim.delta, float)
        and isinstance(claim.adjacency, Adjacency)
    ):
        return PrivacyClaim(claim.epsilon, claim.delta, adjacency)
    return claim


def _stated_adjacency(cls: type) -> tuple[bool, Any]:
    """Whether a :class:`MechanismBase` subclass states ``adjacency``, and the value it states.

    The nearest class of its method resolution order, :class:`MechanismBase` excepted, that has
    ``adjacency`` in its namespace (a class attribute, a dataclass field's default, a property)
    or its annotations (a dataclass field without default) states it.

    Args:
        cls: The class being defined.

    Returns:
        ``(stated, value)``: ``value`` is what the namespace holds (None for an annotation only).
    """
    for klass in cls.__mro__:
        if klass is MechanismBase:
            continue
        namespace = vars(klass)
        if "adjacency" in namespace:
            return True, namespace["adjacency"]
        if "adjacency" in namespace.get("__annotations__", {}):
            return True, None
    return False, None


class MechanismBase(ABC):
    """The base of every mechanism: checks once, then calls the subclass.

    A subclass (usually a frozen dataclass) provides

    * ``_draw(data, size, rng)`` (abstract): ``size`` independent outputs on checked ``data``,
      shape ``(size,)`` or ``(size, k)``, vectorised; a mechanism that cannot be vectorised
      derives from :class:`PerDrawMechanism` instead and gives ``_draw_one(data, rng)``;
    * its relation ``adjacency``, an :class:`Adjacency` or its string value: a class attribute,
      a dataclass field or a property. The base has no default: a class that can be instantiated
      (not :func:`inspect.isabstract`) and states none is refused when it is defined
      (``TypeError``), and a string it states is checked then (``ValueError``);
    * its privacy parameters as fields: ``epsilon`` (or an override of :attr:`claimed_epsilon`)
      and optionally ``delta``;
    * optionally ``bounds`` (a field): the input domain, unless :attr:`clamps` says values outside
      are clamped (then any finite value is valid input), and the range of the outputs.

    The base derives :attr:`claim`, :attr:`domain` and :attr:`output_range` from those fields, and
    its :meth:`sample` validates ``size`` (an ``int`` in [1, :attr:`max_draws`], refused before any
    allocation), ``rng`` (a ``numpy.random.Generator``) and ``data`` (:meth:`check_input`: the data
    policy of :func:`dpquant.reference.validation.check_data`), then checks what ``_draw`` returned: one
    row per draw, finite, inside :attr:`output_range`. A draw that breaks those is a numerical
    failure at the parameters' extremes and raises ``ValueError`` rather than being returned.
    """

    adjacency: Adjacency | str  # no default: every concrete subclass states it (__init_subclass__)
    max_draws: ClassVar[int] = MAX_DRAWS
    allow_empty: ClassVar[bool] = False
    clamps: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse, when it is defined, a subclass that could be instantiated without a relation.

        Args:
            **kwargs: Passed on to ``object.__init_subclass__``.

        Raises:
            TypeError: The class is not abstract and neither it nor a base below
                :class:`MechanismBase` states ``adjacency``; or it gives ``_draw_one`` while its
                ``_draw`` is still the abstract one (it does not derive from
                :class:`PerDrawMechanism`, whose ``_draw`` calls ``_draw_one``).
            ValueError: The ``adjacency`` string it states is not one of
                :data:`CLAIM_ADJACENCIES`.
        """
        super().__init_subclass__(**kwargs)
        stated, value = _stated_adjacency(cls)
        if isinstance(value, str):
            check_claim_adjacency(value, f"{cls.__qualname__}.adjacency")
        elif not stated and not inspect.isabstract(cls):
            raise TypeError(
                f"{cls.__qualname__} states no adjacency: a mechanism names its neighbouring "
                f"relation (a class attribute, a dataclass field or a property 'adjacency', one "
                f"of {CLAIM_ADJACENCIES}); MechanismBase has no default"
            )
        if "_draw_one" in vars(cls) and getattr(cls._draw, "__isabstractmethod__", False):
            raise TypeError(
                f"{cls.__qualname__} gives _draw_one but no _draw calls it: derive from "
                f"PerDrawMechanism (whose _draw loops over _draw_one) or give _draw"
            )

    # -- the contract, derived from fields -------------------------------------------------------

    @property
    def claimed_epsilon(self) -> float:
        """The ε of :attr:`claim` (the ``epsilon`` field unless a subclass composes several)."""
        return float(getattr(self, "epsilon"))  # noqa: B009 -- a subclass field

    @property
    def claimed_delta(self) -> float:
        """The δ of :attr:`claim` (the ``delta`` field, 0 when there is none)."""
        return float(getattr(self, "delta", 0.0))

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.claimed_epsilon, self.claimed_delta, self.adjacency)

    @property
    def domain(self) -> tuple[float, float]:
        """Valid input values: ``bounds`` unless the mechanism clamps (then any finite value)."""
        bounds = getattr(self, "bounds", None)
        if bounds is None or self.clamps:
            return (-math.inf, math.inf)
        return (float(bounds[0]), float(bounds[1]))

    @property
    def output_range(self) -> tuple[float, float] | None:
        """Where every numeric output lies (``bounds`` by default; None: anywhere finite)."""
        bounds = getattr(self, "bounds", None)
        return None if bounds is None else (float(bounds[0]), float(bounds[1]))

    # -- checks --------------------------------------------------------------------------------

    def check_input(self, data: Any) -> Any:
        """Check a data set the mechanism is to run on.

        Args:
            data: The data set.

        Returns:
            The checked data set (default: :func:`check_data` on :attr:`domain`).

        Raises:
            ValueError: The data break the data policy.
        """
        return check_data(data, "data", domain=self.domain, allow_empty=self.allow_empty)

    def draw_limit(self, data: Any) -> int:
        """The most draws one call may make on a data set.

        A mechanism whose draws cost time or memory growing with the data lowers it, so a call
        that could not finish in reasonable time and memory is refused up front.

        Args:
            data: The checked data set.

        Returns:
            The limit (default :attr:`max_draws`).
        """
        return self.max_draws

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent outputs of the mechanism on one data set.

        Args:
            data: The data set (:meth:`check_input`).
            size: The draws, an ``int`` in [1, :attr:`max_draws`] and at most
                :meth:`draw_limit`.
            rng: A ``numpy.random.Generator``.

        Returns:
            ``size`` outputs: shape ``(size,)`` or ``(size, k)``.

        Raises:
            ValueError: An argument is refused (before any allocation), or a draw is not
                finite or leaves :attr:`output_range` (the parameters are outside the range
                where draws are representable).
        """
        size = check_size(size, minimum=1, cap=self.max_draws)
        rng = check_rng(rng)
        x = self.check_input(data)
        limit = self.draw_limit(x)
        if size > limit:
            raise ValueError(
                f"size must be at most {limit} for {type(self).__name__} on this data "
                f"(its draws grow with the data), got {size}: draw in several calls"
            )
        return self._checked_output(self._draw(x, size, rng), size)

    @abstractmethod
    def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws on checked ``data``, shape ``(size,)`` or ``(size, k)``."""

    def _checked_output(self, out: Any, size: int) -> np.ndarray:
        if not isinstance(out, np.ndarray) or out.ndim not in (1, 2) or len(out) != size:
            raise TypeError(
                f"{type(self).__name__}._draw must return an array of {size} rows, got "
                f"{type(out).__name__} of shape {getattr(out, 'shape', None)}"
            )
        if out.dtype.kind == "f" and not np.isfinite(out).all():
            raise ValueError(
                f"{type(self).__name__}: the parameters are outside the range where its draws "
                f"are representable (a draw is not finite); parameters: {self!r:.300}"
            )
        rng_ = self.output_range
        if rng_ is not None and out.dtype.kind in "iuf" and out.size:
            lo, hi = out.min(), out.max()
            if lo < rng_[0] or hi > rng_[1]:
                raise ValueError(
                    f"{type(self).__name__}: the parameters are outside the range where its draws "
                    f"are representable (a draw left the output range {rng_}); parameters: "
                    f"{self!r:.300}"
                )
        return out


class PerDrawMechanism(MechanismBase):
    """A mechanism that cannot be vectorised: its ``_draw`` calls the subclass's abstract
    ``_draw_one(data, rng)`` once per draw (in order, on the one ``rng``) and stacks the
    outputs."""

    def _draw(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws, one :meth:`_draw_one` each."""
        rows = [self._draw_one(data, rng) for _ in range(size)]
        return np.asarray(rows)

    @abstractmethod
    def _draw_one(self, data: Any, rng: np.random.Generator) -> Any:
        """One output on checked ``data``."""


class ExactMechanismBase(MechanismBase):
    """A mechanism with an exact output law: ``exact(data)`` checks the data with the same
    :meth:`~MechanismBase.check_input` as ``sample``, then calls the subclass's ``_law``.

    ``_law`` raises ``ValueError`` naming the limit when the law cannot be built in reasonable
    time and memory on that input (e.g. an enumeration over too many paths)."""

    def exact(self, data: Any) -> ExactDistribution:
        """The exact output law on one data set.

        Args:
            data: The data set, checked as for ``sample``.

        Returns:
            The law.

        Raises:
            ValueError: The data are refused, or the law cannot be built in reasonable time
                and memory on them (the message names the limit).
        """
        return self._law(self.check_input(data))

    @abstractmethod
    def _law(self, data: Any) -> ExactDistribution: ...
