"""Counting queries with additive noise, each carrying its own guarantee in its own measure: the
Gaussian (μ-GDP), the Laplace (pure ε-DP) and the discrete Gaussian (ρ-zCDP).

A data set is a list of bits (a record is in the count or not); the count has sensitivity 1 under
add/remove and replace-one alike. Each mechanism states the claim that is exact for it and offers
the others it implies, so that an audit can take the mechanism under every kind of claim it
satisfies (:func:`dpquant.audit.tools.measure_audit.audit_claim`):

* :class:`GaussianCount` — count + N(0, σ²): exactly (1/σ)-GDP (Dong, Roth and Su, "Gaussian
  Differential Privacy", JRSS B 2022, Theorem 2.7), hence (1/2σ²)-zCDP (Bun and Steinke, TCC
  2016, Proposition 1.6) and (ε, δ_{1/σ}(ε))-DP for every ε (Balle and Wang, ICML 2018,
  Theorem 8). No exact law: a Gaussian density is not piecewise log-linear.
* :class:`LaplaceCount` — count + Laplace(1/ε): ε-DP (Dwork, McSherry, Nissim and Smith, TCC
  2006), with its exact law (:func:`~dpquant.reference.primitives.laplace.laplace_law`).
* :class:`DiscreteGaussianCount` — count + N_Z(0, σ²): (1/2σ²)-zCDP (Canonne, Kamath and
  Steinke, NeurIPS 2020, Theorem 4), with its exact law's image on a window: ``exact`` returns
  the law clamped to [−R, ``max_records`` + R], R = ⌈40σ⌉ + 1, whose end atoms hold the tails
  (a post-processing, so every divergence of two such images is at most the true one; the tails
  beyond carry less than e^{−800} of mass), for data sets of at most ``max_records`` ones. It is *not* (1/σ)-GDP: its total variation at shift 1
  exceeds the Gaussian's (``notes/measures.md``, "Discrete Gaussian").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase, MechanismBase, PrivacyClaim
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear
from dpquant.reference.measures import GDPClaim, ZCDPClaim
from dpquant.reference.measures.conversions import gdp_delta
from dpquant.reference.primitives.discrete_gaussian import DiscreteGaussianLaw
from dpquant.reference.primitives.discrete_gaussian_sampler import sample_discrete_gaussian
from dpquant.reference.primitives.laplace import laplace_law, sample_laplace
from dpquant.reference.validation import check_choice, check_data, check_int, check_positive

MAX_RECORDS = 10_000
"""Most ``max_records`` of :class:`DiscreteGaussianCount` (its window holds about 80σ +
``max_records`` atoms)."""
MAX_LAPLACE_EPSILON = 1e3
"""Largest ε of :class:`LaplaceCount` (and 1e-6 the least): the float Laplace sampler resolves a
scale 1/ε down to 2^12 float spacings of the count, so counts up to about 10^9 draw exactly."""
MAX_DISCRETE_SIGMA = 50.0
"""Largest σ of :class:`DiscreteGaussianCount`: its exact law's window holds about 80σ +
``max_records`` atoms."""
MAX_GAUSSIAN_SIGMA = 1e6
"""Largest σ of :class:`GaussianCount` and :class:`DiscreteGaussianCount` (the discrete one's
window holds about 80σ atoms)."""
WINDOW_SIGMAS = 40
"""The discrete Gaussian's window reaches ⌈40σ⌉ + 1 beyond the counts it can take."""
_RELATIONS = (Adjacency.ADD_REMOVE, Adjacency.REPLACE_ONE)


def _count(data: Any) -> int:
    """The number of ones in a data set of bits. Any size the data policy allows is taken: a
    mechanism that refused data sets above a size would leak the size (the auditor's crash scan
    finds such refusals: ``notes/auditor.md``)."""
    arr = check_data(data, "data", domain=(0.0, 1.0), allow_empty=True)
    if np.any((arr != 0.0) & (arr != 1.0)):
        raise ParameterError("data", "must hold bits (0 or 1)", repr(arr[:8].tolist()))
    return int(arr.sum())


def _sigma(sigma: Any, largest: float = MAX_GAUSSIAN_SIGMA) -> float:
    value = check_positive(sigma, "sigma")
    if not 1e-3 <= value <= largest:
        raise ParameterError("sigma", f"must lie in [0.001, {largest:g}]", repr(sigma))
    return value


class _CountBase(MechanismBase):
    """Shared checks: bits in, a float or int count out."""

    adjacency: Adjacency | str

    @property
    def domain(self) -> tuple[float, float]:
        return (0.0, 1.0)

    @property
    def output_range(self) -> tuple[float, float] | None:
        return None

    @property
    def input_values(self) -> tuple[float, ...]:
        """The valid records (bits): the auditor probes exactly these."""
        return (0.0, 1.0)

    def check_input(self, data: Any) -> int:
        """The count of a data set of bits.

        Args:
            data: The data set.

        Returns:
            The number of ones.

        Raises:
            ValueError: Not bits (named ``data``).
        """
        return _count(data)


def _relation(adjacency: Any) -> Adjacency:
    return Adjacency(check_choice(adjacency, "adjacency", _RELATIONS))


@dataclass(frozen=True)
class GaussianCount(_CountBase):
    """count + N(0, σ²): (1/σ)-GDP, exactly (module docstring).

    Args:
        sigma: σ in [0.001, 10^6].
        adjacency: ``"add_remove"`` or ``"replace_one"`` (the count's sensitivity is 1 under both).

    Raises:
        ValueError: A field out of range (named).
    """

    sigma: float
    adjacency: Adjacency | str = Adjacency.ADD_REMOVE

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", _sigma(self.sigma))
        object.__setattr__(self, "adjacency", _relation(self.adjacency))

    @property
    def claim(self) -> GDPClaim:  # type: ignore[override]
        """(1/σ)-GDP, the Gaussian's exact guarantee."""
        return GDPClaim(1.0 / self.sigma, self.adjacency)

    @property
    def zcdp_claim(self) -> ZCDPClaim:
        """(1/2σ²)-zCDP (Bun and Steinke 2016, Proposition 1.6)."""
        return ZCDPClaim(1.0 / (2.0 * self.sigma**2), adjacency=self.adjacency)

    def approximate_claim(self, epsilon: float) -> PrivacyClaim:
        """(ε, δ_{1/σ}(ε))-DP, δ rounded up to a float (Balle and Wang 2018, Theorem 8).

        Args:
            epsilon: ε, a finite number > 0.

        Returns:
            The claim.

        Raises:
            ValueError: ε out of range.
        """
        eps = check_positive(epsilon, "epsilon")
        delta = math.nextafter(float(gdp_delta(1.0 / self.sigma, eps)), 1.0)
        return PrivacyClaim(eps, delta, self.adjacency)

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return data + self.sigma * rng.standard_normal(size)


@dataclass(frozen=True)
class LaplaceCount(_CountBase, ExactMechanismBase):
    """count + Laplace(1/ε): ε-DP, with its exact law.

    Args:
        epsilon: ε in [1e-6, 1000].
        adjacency: ``"add_remove"`` or ``"replace_one"``.

    Raises:
        ValueError: A field out of range (named).
    """

    epsilon: float
    adjacency: Adjacency | str = Adjacency.ADD_REMOVE

    def __post_init__(self) -> None:
        eps = check_positive(self.epsilon, "epsilon")
        if not 1e-6 <= eps <= MAX_LAPLACE_EPSILON:
            raise ParameterError(
                "epsilon", f"must lie in [1e-06, {MAX_LAPLACE_EPSILON:g}]", repr(self.epsilon)
            )
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "adjacency", _relation(self.adjacency))

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return sample_laplace(float(data), 1.0 / self.epsilon, size, rng)

    def _law(self, data: int) -> PiecewiseLogLinear:
        return laplace_law(float(data), 1.0 / self.epsilon)


@dataclass(frozen=True)
class DiscreteGaussianCount(_CountBase, ExactMechanismBase):
    """count + N_Z(0, σ²): (1/2σ²)-zCDP, with the exact law's image on a window (module
    docstring).

    Args:
        sigma: σ in [0.001, 50].
        adjacency: ``"add_remove"`` or ``"replace_one"``.
        max_records: Most ones a data set may count for its exact law (the window ends at
            ``max_records`` + R); ``sample`` takes any count, ``exact`` refuses larger ones.

    Raises:
        ValueError: A field out of range (named).
    """

    sigma: float
    adjacency: Adjacency | str = Adjacency.ADD_REMOVE
    max_records: int = 8
    window_sigmas: ClassVar[int] = WINDOW_SIGMAS

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", _sigma(self.sigma, MAX_DISCRETE_SIGMA))
        object.__setattr__(self, "adjacency", _relation(self.adjacency))
        object.__setattr__(
            self,
            "max_records",
            check_int(self.max_records, "max_records", minimum=1, maximum=MAX_RECORDS),
        )

    @property
    def claim(self) -> ZCDPClaim:  # type: ignore[override]
        """(1/2σ²)-zCDP (Canonne, Kamath and Steinke 2020, Theorem 4)."""
        return ZCDPClaim(1.0 / (2.0 * self.sigma**2), adjacency=self.adjacency)

    @property
    def radius(self) -> int:
        """R = ⌈40σ⌉ + 1: the window's reach beyond the counts."""
        return math.ceil(WINDOW_SIGMAS * self.sigma) + 1

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return sample_discrete_gaussian(self.sigma, size, rng, loc=data)

    def _law(self, data: int) -> DiscreteLaw:
        if data > self.max_records:
            raise ParameterError(
                "data", f"has an exact law here only with at most {self.max_records} ones", str(data)
            )
        law = DiscreteGaussianLaw(self.sigma, loc=data)
        return law.clamped(-self.radius, self.max_records + self.radius)


__all__ = [
    "MAX_DISCRETE_SIGMA",
    "MAX_GAUSSIAN_SIGMA",
    "MAX_LAPLACE_EPSILON",
    "MAX_RECORDS",
    "WINDOW_SIGMAS",
    "DiscreteGaussianCount",
    "GaussianCount",
    "LaplaceCount",
]
