"""Privacy claims of every kind, as values: zCDP, Rényi DP, Gaussian DP and privacy profiles.

:class:`~dpquant.reference.PrivacyClaim` states pure and approximate (ε, δ)-DP; this module adds
the measures the libraries dpquant's users validate state their guarantees in:

* :class:`ZCDPClaim` — (ξ, ρ)-zCDP: D_α(M(D)‖M(D')) <= ξ + ρα for every α > 1 (Bun and Steinke,
  "Concentrated Differential Privacy", TCC 2016, Definition 1.1; OpenDP's
  ``ZeroConcentratedDivergence``, Tumult's ``RhoZCDP``);
* :class:`RenyiClaim` — (α, ε_α)-RDP at one or several orders (Mironov, "Rényi Differential
  Privacy", CSF 2017, Definition 4);
* :class:`GDPClaim` — μ-GDP: the trade-off function of every neighbouring pair is at least G_μ
  (Dong, Roth and Su, "Gaussian Differential Privacy", JRSS B 2022, Definition 2.6);
* :class:`ProfileClaim` — a privacy profile given as a table: (ε_i, δ_i)-DP at each point (a
  composition from ``dp_accounting``, OpenDP's ``SmoothedMaxDivergence`` curve, a user's curve).

Every claim names its neighbouring relation like a :class:`PrivacyClaim` does, and answers two
questions the auditor asks of any claim: :meth:`delta_at` (the δ the claim implies at an ε: its
privacy profile, through :mod:`dpquant.reference.measures.conversions`) and :meth:`renyi_at` (the
Rényi bound it implies at an order, or None). :func:`check_any_claim` checks any of them, the
:class:`PrivacyClaim` included, at the time of use.
"""

from __future__ import annotations

import dataclasses
import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, PrivacyClaim, check_claim, check_claim_adjacency
from dpquant.reference.exact.mp import workdps
from dpquant.reference.measures import conversions as conv
from dpquant.reference.validation import check_finite, check_positive, check_real

MAX_PROFILE_POINTS = 10_000
"""Most points of a :class:`ProfileClaim` table."""
MAX_RENYI_ORDERS = 1_000
"""Most orders of a :class:`RenyiClaim`."""


def _nonnegative(x: Any, name: str) -> float:
    value = check_finite(x, name)
    if value < 0:
        raise ParameterError(name, "must be a finite number >= 0", repr(x))
    return value


def _order(x: Any, name: str) -> float:
    """A Rényi order: a real > 1, +inf allowed (of any real type: ``numpy.float32('inf')`` too)."""
    value = check_real(x, name)  # a real, not NaN, not bool, fitting a float64; ±inf kept
    if not value > 1:
        raise ParameterError(name, "must be a real number > 1 (+inf allowed)", repr(x))
    return value


def _delta_value(x: Any, name: str) -> float:
    """A profile's δ: a finite number in [0, 1]."""
    value = check_finite(x, name)
    if not 0.0 <= value <= 1.0:
        raise ParameterError(name, "must lie in [0, 1]", repr(x))
    return value


def _pair_table(
    raw: Any,
    name: str,
    parts: tuple[str, str],
    most: int,
    first: Callable[[Any, str], float],
    second: Callable[[Any, str], float],
) -> list[tuple[float, float]]:
    """A table of pairs (a mapping or an iterable of pairs), each part checked, sorted by the
    first, no first value twice; never read past one pair too many (an endless iterable).

    Args:
        raw: The table.
        name: The field named in errors (``orders``, ``points``).
        parts: The names of a pair's two parts, for messages.
        most: The most pairs.
        first: Checks a pair's first part (value, name) -> float.
        second: Checks its second part.

    Returns:
        The checked pairs, sorted.

    Raises:
        ValueError: Not pairs, none or more than ``most``, a part out of range or a first part
            twice (named).
    """
    if isinstance(raw, dict):
        raw = list(raw.items())
    what = f"({parts[0]}, {parts[1]})"
    if isinstance(raw, str | bytes) or not isinstance(raw, Iterable):
        raise ParameterError(name, f"must be pairs {what}", type(raw).__name__)
    pairs = list(itertools.islice(raw, most + 1))  # never more than one too many
    if not pairs or len(pairs) > most:
        raise ParameterError(name, f"must hold 1 to {most} pairs", str(len(pairs)))
    checked = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, str | bytes) or not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ParameterError(f"{name}[{i}]", f"must be a pair {what}", repr(pair))
        checked.append((first(pair[0], f"{name}[{i}][0]"), second(pair[1], f"{name}[{i}][1]")))
    checked.sort()
    for (a, _), (b, _) in zip(checked, checked[1:], strict=False):
        if a == b:
            raise ParameterError(name, f"must name each {parts[0]} once", repr(a))
    return checked


@dataclass(frozen=True)
class MeasureClaim(ABC):
    """The base of the claims of this module: it checks the relation, then the subclass's fields
    (the abstract :meth:`_check`), and answers :meth:`delta_at` through the abstract
    :meth:`_delta_at`."""

    measure: ClassVar[str]
    """The measure's name in reports: ``"zcdp"``, ``"renyi"``, ``"gdp"`` or ``"profile"``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "adjacency", check_claim_adjacency(self.adjacency))  # type: ignore[attr-defined]
        self._check()

    @abstractmethod
    def _check(self) -> None:
        """Check (and normalise, with ``object.__setattr__``) the subclass's fields."""

    @abstractmethod
    def _delta_at(self, epsilon: float) -> mpmath.mpf:
        """The implied δ at a checked ε >= 0."""

    def delta_at(self, epsilon: float) -> mpmath.mpf:
        """The δ this claim implies at ε (its privacy profile).

        Args:
            epsilon: ε, a finite number >= 0.

        Returns:
            δ(ε) in [0, 1] at the working precision (an implied value: where the conversion
            is an infimum, the value at the best parameter found).

        Raises:
            ValueError: ε out of range.
        """
        return self._delta_at(_nonnegative(epsilon, "epsilon"))

    def renyi_at(self, order: float) -> mpmath.mpf | None:
        """The bound on D_α this claim implies at an order, or None if it implies none.

        Args:
            order: α, a real > 1 (+inf allowed).

        Returns:
            The bound, or None.

        Raises:
            ValueError: The order out of range.
        """
        _order(order, "order")
        return None

    @property
    def is_pure(self) -> bool:
        """False: only a :class:`PrivacyClaim` with δ = 0 is a pure claim."""
        return False


@dataclass(frozen=True)
class ZCDPClaim(MeasureClaim):
    """(ξ, ρ)-zCDP (Bun and Steinke 2016, Definition 1.1; ρ-zCDP when ξ = 0).

    Args:
        rho: ρ, a finite number > 0.
        xi: ξ, a finite number >= 0.
        adjacency: The neighbouring relation (as for :class:`PrivacyClaim`).

    Raises:
        ValueError: A field out of range (named).
    """

    rho: float
    xi: float = 0.0
    adjacency: Adjacency | str = Adjacency.REPLACE_ONE
    measure: ClassVar[str] = "zcdp"

    def _check(self) -> None:
        object.__setattr__(self, "rho", check_positive(self.rho, "rho"))
        object.__setattr__(self, "xi", _nonnegative(self.xi, "xi"))

    def _delta_at(self, epsilon: float) -> mpmath.mpf:
        return conv.zcdp_delta(self.rho, epsilon, self.xi)

    def renyi_at(self, order: float) -> mpmath.mpf | None:
        """ξ + ρα (Definition 1.1); +inf at α = ∞.

        Args:
            order: α, a real > 1 (+inf allowed).

        Returns:
            The bound.

        Raises:
            ValueError: The order out of range.
        """
        a = _order(order, "order")
        with workdps():
            return mpmath.mpf(self.xi) + mpmath.mpf(self.rho) * a

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "rho": self.rho,
            "xi": self.xi,
            "adjacency": self.adjacency,
        }


@dataclass(frozen=True)
class RenyiClaim(MeasureClaim):
    """(α, ε_α)-Rényi DP at each listed order (Mironov 2017, Definition 4).

    Args:
        orders: Pairs (α, ε_α): α a real > 1 (+inf: pure DP) and ε_α a finite number >= 0, at
            most :data:`MAX_RENYI_ORDERS`, distinct orders; a mapping {α: ε_α} is accepted too.
            Stored sorted by order.
        adjacency: The neighbouring relation.

    Raises:
        ValueError: No order, a repeated order or a value out of range (named).
    """

    orders: tuple[tuple[float, float], ...]
    adjacency: Adjacency | str = Adjacency.REPLACE_ONE
    measure: ClassVar[str] = "renyi"

    def _check(self) -> None:
        checked = _pair_table(
            self.orders,
            "orders",
            ("order", "epsilon"),
            MAX_RENYI_ORDERS,
            lambda x, name: _order(x, name),
            _nonnegative,
        )
        object.__setattr__(self, "orders", tuple(checked))

    def _delta_at(self, epsilon: float) -> mpmath.mpf:
        return conv.renyi_curve_delta(self.orders, epsilon)

    def renyi_at(self, order: float) -> mpmath.mpf | None:
        """The least claimed ε_β over listed orders β >= α (D_α is nondecreasing in α: van Erven
        and Harremoës, "Rényi Divergence and Kullback–Leibler Divergence", IEEE Trans. IT 2014,
        Theorem 3), or None when no listed order is at least α.

        Args:
            order: α, a real > 1 (+inf allowed).

        Returns:
            The bound, or None.

        Raises:
            ValueError: The order out of range.
        """
        a = _order(order, "order")
        above = [e for b, e in self.orders if b >= a]
        return mpmath.mpf(min(above)) if above else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "orders": [list(p) for p in self.orders],
            "adjacency": self.adjacency,
        }


@dataclass(frozen=True)
class GDPClaim(MeasureClaim):
    """μ-Gaussian DP (Dong, Roth and Su 2022, Definition 2.6).

    Args:
        mu: μ, a finite number > 0.
        adjacency: The neighbouring relation.

    Raises:
        ValueError: A field out of range (named).
    """

    mu: float
    adjacency: Adjacency | str = Adjacency.REPLACE_ONE
    measure: ClassVar[str] = "gdp"

    def _check(self) -> None:
        object.__setattr__(self, "mu", check_positive(self.mu, "mu"))

    def _delta_at(self, epsilon: float) -> mpmath.mpf:
        return conv.gdp_delta(self.mu, epsilon)

    def renyi_at(self, order: float) -> mpmath.mpf | None:
        """αμ²/2 (μ-GDP implies μ²/2-zCDP: :func:`~dpquant.reference.measures.conversions.zcdp_of_gdp`).

        Args:
            order: α, a real > 1 (+inf allowed).

        Returns:
            The bound.

        Raises:
            ValueError: The order out of range.
        """
        a = _order(order, "order")
        with workdps():
            return mpmath.mpf(a) * conv.zcdp_of_gdp(self.mu)

    def to_dict(self) -> dict[str, Any]:
        return {"measure": self.measure, "mu": self.mu, "adjacency": self.adjacency}


@dataclass(frozen=True)
class ProfileClaim(MeasureClaim):
    """A privacy profile as a table: the mechanism is (ε_i, δ_i)-DP at each point.

    Between the points the claim says what (ε, δ)-DP implies for larger ε: at ε >= ε_i, δ_i
    still holds (so :meth:`delta_at` is the δ of the largest point at most ε, and 1 below the
    first point); nothing is interpolated.

    Args:
        points: Pairs (ε_i, δ_i), ε_i finite >= 0 and distinct, δ_i in [0, 1]; at most
            :data:`MAX_PROFILE_POINTS`; a mapping {ε_i: δ_i} is accepted too. Stored sorted by ε.
        adjacency: The neighbouring relation.
        source: Where the table comes from, for reports (``"table"``, ``"dp_accounting"``, a
            file name).

    Raises:
        ValueError: No point, a repeated ε or a value out of range (named).
    """

    points: tuple[tuple[float, float], ...]
    adjacency: Adjacency | str = Adjacency.REPLACE_ONE
    source: str = field(default="table", compare=False)
    measure: ClassVar[str] = "profile"

    def _check(self) -> None:
        checked = _pair_table(
            self.points,
            "points",
            ("epsilon", "delta"),
            MAX_PROFILE_POINTS,
            _nonnegative,
            _delta_value,
        )
        if not isinstance(self.source, str) or len(self.source) > 200:
            raise ParameterError(
                "source", "must be a str of at most 200 characters", type(self.source).__name__
            )
        object.__setattr__(self, "points", tuple(checked))

    def _delta_at(self, epsilon: float) -> mpmath.mpf:
        below = [d for e, d in self.points if e <= epsilon]
        return mpmath.mpf(min(below)) if below else mpmath.mpf(1)

    @classmethod
    def from_function(
        cls,
        delta_of_epsilon: Callable[[float], float],
        epsilons: Iterable[float],
        adjacency: Adjacency | str = Adjacency.REPLACE_ONE,
        source: str = "function",
    ) -> ProfileClaim:
        """The table of a function δ(ε) at the given ε values.

        Args:
            delta_of_epsilon: A function of ε returning δ in [0, 1].
            epsilons: The ε values (finite, >= 0, distinct).
            adjacency: The neighbouring relation.
            source: A label for reports.

        Returns:
            The claim.

        Raises:
            ValueError: A value out of range (named ``points[i]``), or the function is not
                callable.
        """
        if not callable(delta_of_epsilon):
            raise ParameterError(
                "delta_of_epsilon", "must be callable", type(delta_of_epsilon).__name__
            )
        eps = [_nonnegative(e, f"epsilons[{i}]") for i, e in enumerate(epsilons)]
        return cls(tuple((e, float(delta_of_epsilon(e))) for e in eps), adjacency, source)

    @classmethod
    def from_accountant(
        cls,
        accountant: Any,
        epsilons: Iterable[float],
        adjacency: Adjacency | str = Adjacency.REPLACE_ONE,
    ) -> ProfileClaim:
        """The table of a ``dp_accounting`` accountant (its ``get_delta(epsilon)``: an RDP or PLD
        accountant after composing a mechanism's events) at the given ε values.

        Args:
            accountant: An object with ``get_delta(epsilon) -> float``.
            epsilons: The ε values (finite, >= 0, distinct).
            adjacency: The neighbouring relation the accountant's events assume.

        Returns:
            The claim, with ``source="dp_accounting"``.

        Raises:
            ValueError: The accountant has no ``get_delta``, or a value out of range.
        """
        get_delta = getattr(accountant, "get_delta", None)
        if not callable(get_delta):
            raise ParameterError(
                "accountant", "must have a get_delta(epsilon) method", type(accountant).__name__
            )
        return cls.from_function(get_delta, epsilons, adjacency, "dp_accounting")

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "points": [list(p) for p in self.points],
            "source": self.source,
            "adjacency": self.adjacency,
        }


AnyClaim = PrivacyClaim | ZCDPClaim | RenyiClaim | GDPClaim | ProfileClaim
"""Every kind of claim the auditor takes."""

CLAIM_KINDS: tuple[type, ...] = (PrivacyClaim, ZCDPClaim, RenyiClaim, GDPClaim, ProfileClaim)


def claim_measure(claim: AnyClaim) -> str:
    """The measure a claim is stated in: ``"pure"`` or ``"approximate"`` for a
    :class:`PrivacyClaim`, else the claim's ``measure``.

    Args:
        claim: A checked claim.

    Returns:
        The measure's name.
    """
    if isinstance(claim, PrivacyClaim):
        return "pure" if claim.is_pure else "approximate"
    return claim.measure


def claim_delta_at(claim: AnyClaim, epsilon: float) -> mpmath.mpf:
    """The δ any claim implies at ε (:meth:`MeasureClaim.delta_at`; for a
    :class:`PrivacyClaim`, :func:`~dpquant.reference.measures.conversions.approximate_delta`).

    Args:
        claim: A checked claim.
        epsilon: ε, a finite number >= 0.

    Returns:
        δ(ε).

    Raises:
        ValueError: ε out of range.
    """
    if isinstance(claim, PrivacyClaim):
        return conv.approximate_delta(claim.epsilon, claim.delta, _nonnegative(epsilon, "epsilon"))
    return claim.delta_at(epsilon)


def claim_renyi_at(claim: AnyClaim, order: float) -> mpmath.mpf | None:
    """The Rényi bound any claim implies at an order (a pure ε-DP claim: min(ε, αε²/2), by
    D_α <= D_∞ and :func:`~dpquant.reference.measures.conversions.zcdp_of_pure`; an approximate
    claim: None).

    Args:
        claim: A checked claim.
        order: α, a real > 1 (+inf allowed).

    Returns:
        The bound, or None.

    Raises:
        ValueError: The order out of range.
    """
    if isinstance(claim, PrivacyClaim):
        a = _order(order, "order")
        if not claim.is_pure:
            return None
        with workdps():
            return min(mpmath.mpf(claim.epsilon), mpmath.mpf(a) * conv.zcdp_of_pure(claim.epsilon))
    return claim.renyi_at(order)


def check_any_claim(claim: Any, name: str = "claim") -> AnyClaim:
    """Check a claim of any kind at the time of use (frozen dataclasses can still be changed with
    ``object.__setattr__``; the auditor relies on what it checks now).

    Args:
        claim: A :class:`PrivacyClaim`, :class:`ZCDPClaim`, :class:`RenyiClaim`,
            :class:`GDPClaim` or :class:`ProfileClaim`.
        name: The argument named in errors.

    Returns:
        The claim, checked (rebuilt when a field had to be normalised).

    Raises:
        ValueError: It is no claim, or a field is out of range (named).
    """
    if isinstance(claim, PrivacyClaim):
        return check_claim(claim, name)
    if not isinstance(claim, MeasureClaim):
        kinds = ", ".join(k.__name__ for k in CLAIM_KINDS)
        raise ParameterError(name, f"must be a privacy claim ({kinds})", type(claim).__name__)
    try:
        fields = {f.name: getattr(claim, f.name) for f in dataclasses.fields(claim)}
        return cast(AnyClaim, type(claim)(**fields))
    except ParameterError as exc:
        raise ParameterError(f"{name}.{exc.parameter}", exc.allowed, exc.got) from None


__all__ = [
    "CLAIM_KINDS",
    "MAX_PROFILE_POINTS",
    "MAX_RENYI_ORDERS",
    "AnyClaim",
    "GDPClaim",
    "MeasureClaim",
    "ProfileClaim",
    "RenyiClaim",
    "ZCDPClaim",
    "check_any_claim",
    "claim_delta_at",
    "claim_measure",
    "claim_renyi_at",
]
