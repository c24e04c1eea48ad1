"""Black-box lower bounds in every privacy measure, from one event's counts (issue 37).

For an event S and neighbours (D, D'), with k0 of n0 draws on D and k1 of n1 draws on D' in S, let
p0_L be the one-sided Clopper–Pearson lower bound of P0 = Pr[M(D) ∈ S] and p1_U the upper bound of
P1 = Pr[M(D') ∈ S], each at level α/2 (the project's one Clopper–Pearson,
:func:`dpquant.reference.conformance.clopper_pearson_lower` and ``clopper_pearson_upper``, through
:mod:`.counts`, as for :mod:`.bounds`). Each measure below is a function v(P0, P1) with

1. v(P0, P1) <= the mechanism's true value in the measure, for every event, and
2. v nondecreasing in P0 and nonincreasing in P1 (on all of [0, 1]², thanks to the floors below).

Except with probability at most α (either Clopper–Pearson bound fails), (P0, P1) lies in the box
[p0_L, 1] × [0, p1_U], where by (2) v is smallest at the corner: the bound **v(p0_L, p1_U)** is
<= v(P0, P1) <= the true value. A claim is refuted (:meth:`EventMeasure.violated`) when the bound
exceeds the claimed value. The event must be chosen without looking at the evaluation draws;
candidates evaluated together share α (Bonferroni), as for :mod:`.bounds`.

**Why each v is a lower bound** (the event's indicator is a post-processing of the output, so
M(D), M(D') become Bern(P0), Bern(P1)):

* ε (:class:`ApproximateDPMeasure`): (ε, δ)-DP gives P0 <= e^ε P1 + δ, so ε >= ln((P0 − δ)/P1)
  (−inf where P0 <= δ: no bound). Exactly :mod:`.bounds`'s numbers.
* Rényi DP of order a (:class:`RenyiMeasure`): Rényi divergences satisfy the data-processing
  inequality (van Erven and Harremoës, IEEE Trans. Inf. Theory 2014, Theorem 9), so
  D_a(M(D) ‖ M(D')) >= D_a(Bern(P0) ‖ Bern(P1)) = ln(P0^a P1^(1−a) + (1−P0)^a (1−P1)^(1−a))/(a−1)
  (at a = ∞: max(ln(P0/P1), ln((1−P0)/(1−P1)))). v is that divergence where P0 > P1, else 0.
* zCDP (:class:`ZCDPMeasure`): (ξ, ρ)-zCDP is D_a <= ξ + ρa for all a > 1 (Bun and Steinke,
  TCC 2016, Definition 1.1), so ρ >= (D_a(Bern(P0) ‖ Bern(P1)) − ξ)/a for every a > 1, and in the
  limit a → 1 (the KL divergence). v is the supremum over a, floored at 0 (ρ >= 0). Any order
  gives a valid bound because the confidence box does not depend on a: a maximiser that misses
  the best order loses power, never soundness (:func:`.bernoulli.zcdp_rho`).
* μ-GDP (:class:`GDPMeasure`): M is μ-GDP when T(M(D), M(D')) >= G_μ for all neighbours, with
  T(P, Q)(x) = inf{1 − E_Q[φ] : E_P[φ] <= x} and G_μ(x) = Φ(Φ^{-1}(1 − x) − μ) (Dong, Roth and Su,
  JRSS B 2022, Definitions 2.1, 2.4). The relation is symmetric, so T(M(D'), M(D)) >= G_μ too; the
  test φ = 1_S has E_{M(D')}[φ] = P1 and 1 − E_{M(D)}[φ] = 1 − P0, so 1 − P0 >= Φ(Φ^{-1}(1 − P1)
  − μ). Apply the increasing Φ^{-1} and Φ^{-1}(1 − x) = −Φ^{-1}(x): −Φ^{-1}(P0) >= −Φ^{-1}(P1)
  − μ, that is μ >= Φ^{-1}(P0) − Φ^{-1}(P1). v is that gap where P0 > P1, else 0 (μ >= 0).
* Privacy profile (:class:`ProfileMeasure`): a claim that M is (ε_i, δ_i)-DP at every point of a
  table; the event refutes point i when P0 − e^(ε_i) P1 > δ_i. v is the largest excess
  max_i (P0 − e^(ε_i) P1 − δ_i) (claimed value 0), searching the profile for its weakest point as
  Delta-Siege does (Lokna, Paradis, Dimitrov and Vechev, "Group and Attack: Auditing
  Differential Privacy", CCS 2023).

**Monotonicity** (property 2). ε: ln(P0 − δ) increases in P0, −ln P1 decreases in P1. Rényi,
finite a > 1 and p > q: D_a = ln H/(a − 1) with H = p^a q^(1−a) + (1−p)^a (1−q)^(1−a), and
∂H/∂p = a[(p/q)^(a−1) − ((1−p)/(1−q))^(a−1)] > 0, ∂H/∂q = (1−a)[(p/q)^a − ((1−p)/(1−q))^a] < 0,
because p/q > 1 > (1−p)/(1−q) when p > q, and a > 1. At a = ∞, D_∞ = ln(p/q) there. At a → 1,
∂KL/∂p = ln(p/q) − ln((1−p)/(1−q)) > 0 and ∂KL/∂q = (1−p)/(1−q) − p/q < 0. Each divergence is 0 at
p = q, so the floor (0 where p <= q) keeps v continuous and monotone on the whole square. zCDP: each
(D_a − ξ)/a is monotone (a > 0), and so are a supremum of such functions and its floor at 0.
GDP: Φ^{-1} is increasing. Profile: each P0 − e^(ε_i) P1 − δ_i is, and so is their maximum.

**Rounding never overstates**: the ε measure is :mod:`.bounds`'s float formula (so reports do
not move); the others are float values less a relative downward margin of 1e-12
(:data:`.bernoulli.ROUNDING_MARGIN`), checked against mpmath at 50 digits in the tests. A float 0
for p1_U (an underflow, never seen) gives no bound, as in :mod:`.bounds`.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpquant.audit.statistics.bernoulli import (
    ROUNDING_MARGIN,
    gaussian_gap,
    renyi_divergence,
    zcdp_rho,
)
from dpquant.audit.statistics.counts import (
    MAX_DRAWS_PLANNED,
    SELECTION_Z,
    check_broadcastable,
    check_counts,
    check_level,
    check_masses,
    check_nonnegative,
    check_same_shape,
    check_z,
    cp_lower,
    cp_upper,
    pessimistic_masses,
)
from dpquant.errors import ParameterError
from dpquant.reference.validation import (
    check_delta,
    check_int,
    check_probability,
    check_real,
    check_real_array,
)


class EventMeasure(abc.ABC):
    """A privacy measure bounded below through one event's masses (module docstring).

    A subclass checks its claim in ``__init__`` and implements :meth:`_value` (v on checked
    arrays); the public methods check their inputs and call it.

    Attributes:
        name: The measure's short name: ``"epsilon"``, ``"renyi"``, ``"rho"``, ``"mu"`` or
            ``"profile"``.
    """

    name: str = ""
    _no_bound: float = -math.inf
    """The value where the event gives nothing (−inf, or 0 for a measure that is >= 0)."""

    @property
    @abc.abstractmethod
    def claimed(self) -> float:
        """The claim's value in this measure (ε, ε_a, ρ, μ; 0 for a profile's excess)."""

    @property
    @abc.abstractmethod
    def unit_label(self) -> str:
        """What the bound is, for a report (``"ε (δ = 1e-06)"``, ``"ρ (zCDP, ξ = 0)"``)."""

    @abc.abstractmethod
    def _value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        """v(p0, p1) on checked arrays (masses in [0, 1], broadcastable), never overstated."""

    def _sharp_value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        """v for a reported bound or planning: :meth:`_value`, refined by zCDP."""
        return self._value(p0, p1)

    def _bound(self, p0_lower: np.ndarray, p1_upper: np.ndarray) -> np.ndarray:
        """v at the corner of the confidence box; no bound where p1_U is a float 0."""
        return np.where(p1_upper > 0, self._sharp_value(p0_lower, p1_upper), self._no_bound)

    def _bounds_at(
        self, k0: Any, n0: Any, k1: Any, n1: Any, alpha: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """The checked corner (p0_L, p1_U) of the confidence box, each at level α/2."""
        alpha = check_level(alpha, "alpha")
        kk0, nn0 = check_counts(k0, n0, "k0", "n0")
        kk1, nn1 = check_counts(k1, n1, "k1", "n1")
        check_same_shape(kk0, nn0, kk1, nn1)
        return cp_lower(kk0, nn0, alpha / 2.0), cp_upper(kk1, nn1, alpha / 2.0)

    def value(self, p0: Any, p1: Any) -> np.ndarray:
        """v(P0, P1): the lower bound the event's masses imply (for zCDP the maximum over a fixed
        grid of orders, for ranking; :meth:`value_with_argument` refines it).

        Args:
            p0: Pr[M(D) ∈ S], in [0, 1] (arrays broadcast).
            p1: Pr[M(D') ∈ S], in [0, 1].

        Returns:
            The values, an array of the broadcast shape: −inf where the ε measure has no bound
            (P0 <= δ), 0 where the others have none (P0 <= P1); a profile's excess may be < 0.

        Raises:
            ParameterError: A mass is not a real number in [0, 1].
            ValueError: ``p0`` and ``p1`` do not broadcast.
        """
        pp0, pp1 = check_masses(p0, "p0"), check_masses(p1, "p1")
        check_broadcastable(pp0, pp1, "p0", "p1")
        return np.asarray(self._value(pp0, pp1), dtype=float)

    def lower_bound(self, k0: Any, n0: Any, k1: Any, n1: Any, alpha: Any) -> np.ndarray:
        """v(p0_L, p1_U) with both Clopper–Pearson bounds at level α/2: at most the true value in
        this measure except with probability at most α (module docstring).

        Args:
            k0: Draws on D in the event, 0 <= k0 <= n0 (arrays broadcast; real counts allowed).
            n0: Draws on D, in [1, 2^40].
            k1: Draws on D' in the event, 0 <= k1 <= n1.
            n1: Draws on D', in [1, 2^40].
            alpha: The confidence level's complement, in (0, 1).

        Returns:
            The bounds, an array of the broadcast shape.

        Raises:
            ParameterError: A count or ``alpha`` is out of range or not a real number.
            ValueError: The counts do not broadcast to one shape.
        """
        return self._bound(*self._bounds_at(k0, n0, k1, n1, alpha))

    def _with_argument(self, p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_sharp_value` and where it is attained (NaN: nowhere to name)."""
        value = self._sharp_value(p0, p1)
        return value, np.full(np.shape(value), np.nan)

    def value_with_argument(self, p0: Any, p1: Any) -> tuple[np.ndarray, np.ndarray]:
        """v(P0, P1) as :meth:`lower_bound` computes it (zCDP: refined), and where it is attained.

        Args:
            p0: Pr[M(D) ∈ S], in [0, 1] (arrays broadcast).
            p1: Pr[M(D') ∈ S], in [0, 1].

        Returns:
            (value, argument), arrays of the broadcast shape. The argument is the order a for zCDP
            (1 for the limit a → 1, the KL divergence; +inf where the value is; NaN where it is
            0), the index of the weakest point for a profile (an integer, as a float), NaN for
            the other measures.

        Raises:
            ParameterError: A mass is not a real number in [0, 1].
            ValueError: ``p0`` and ``p1`` do not broadcast.
        """
        pp0, pp1 = check_masses(p0, "p0"), check_masses(p1, "p1")
        check_broadcastable(pp0, pp1, "p0", "p1")
        value, argument = self._with_argument(pp0, pp1)
        return np.asarray(value, dtype=float), np.asarray(argument, dtype=float)

    def lower_bound_with_argument(
        self, k0: Any, n0: Any, k1: Any, n1: Any, alpha: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`lower_bound`, and where in the measure it is attained (the zCDP order, the
        profile's weakest point: as :meth:`value_with_argument`).

        Args:
            k0: As for :meth:`lower_bound`.
            n0: As for :meth:`lower_bound`.
            k1: As for :meth:`lower_bound`.
            n1: As for :meth:`lower_bound`.
            alpha: As for :meth:`lower_bound`.

        Returns:
            (bound, argument), arrays of the broadcast shape.

        Raises:
            ParameterError: A count or ``alpha`` is out of range or not a real number.
            ValueError: The counts do not broadcast to one shape.
        """
        p0_lower, p1_upper = self._bounds_at(k0, n0, k1, n1, alpha)
        value, argument = self._with_argument(p0_lower, p1_upper)
        empty = p1_upper <= 0
        return np.where(empty, self._no_bound, value), np.where(empty, np.nan, argument)

    def violated(self, bound: Any) -> bool:
        """Whether a bound refutes the claim: ``bound > claimed``, strictly (the bound is already
        sound: no tolerance).

        Args:
            bound: A bound from :meth:`lower_bound`, a real number (±inf allowed).

        Returns:
            True when the bound exceeds the claimed value.

        Raises:
            ParameterError: ``bound`` is not a real number (NaN, a string, a bool).
        """
        return check_real(bound, "bound") > self.claimed

    def _expected(self, p0: np.ndarray, p1: np.ndarray, n: int, alpha: float) -> np.ndarray:
        size = np.asarray(float(n))
        return self._bound(cp_lower(p0 * n, size, alpha / 2.0), cp_upper(p1 * n, size, alpha / 2.0))

    def expected_bound(self, p0: Any, p1: Any, n: Any, alpha: Any) -> np.ndarray:
        """The bound ``n`` fresh draws per side would give if the counts came out at their means
        p·n (the planning objective, as :func:`.bounds.expected_bound`).

        Args:
            p0: Pr[M(D) ∈ S], in [0, 1] (arrays broadcast).
            p1: Pr[M(D') ∈ S], in [0, 1].
            n: Draws per side, an int in [1, 2^40].
            alpha: In (0, 1).

        Returns:
            The expected bounds, an array of the broadcast shape.

        Raises:
            ParameterError: An argument is out of range or of the wrong type.
            ValueError: ``p0`` and ``p1`` do not broadcast.
        """
        pp0, pp1 = check_masses(p0, "p0"), check_masses(p1, "p1")
        n = check_int(n, "n", minimum=1, maximum=MAX_DRAWS_PLANNED)
        alpha = check_level(alpha, "alpha")
        check_broadcastable(pp0, pp1, "p0", "p1")
        return self._expected(pp0, pp1, n, alpha)

    def samples_needed(self, p0: Any, p1: Any, alpha: Any, limit: Any = 10**12) -> int | None:
        """The smallest n (draws per side, within 0.1 %) whose expected bound exceeds the claimed
        value, for an event of masses p0, p1 (as :func:`.bounds.samples_needed`).

        Args:
            p0: Pr[M(D) ∈ S], in [0, 1].
            p1: Pr[M(D') ∈ S], in [0, 1].
            alpha: In (0, 1).
            limit: The most draws per side considered, an int in [1, 2^40].

        Returns:
            The number of draws, or None if not even ``limit`` draws suffice.

        Raises:
            ParameterError: An argument is out of range or of the wrong type.
        """
        q0 = np.asarray(check_probability(p0, "p0"))
        q1 = np.asarray(check_probability(p1, "p1"))
        alpha = check_level(alpha, "alpha")
        limit = check_int(limit, "limit", minimum=1, maximum=MAX_DRAWS_PLANNED)
        target = self.claimed

        def bound(n: int) -> float:
            return float(self._expected(q0, q1, n, alpha))

        if bound(limit) <= target:
            return None
        lo, hi = 0, 1  # after doubling: n = lo is not enough (n = 0 never is), n = hi is
        while bound(hi) <= target:
            lo, hi = hi, hi * 2
        while hi - lo > max(1, lo // 1000):
            mid = (lo + hi) // 2
            if bound(mid) > target:
                hi = mid
            else:
                lo = mid
        return hi

    def selection_score(
        self,
        k0: Any,
        n0: Any,
        k1: Any,
        n1: Any,
        n_eval: Any,
        alpha: Any,
        z_selection: Any = SELECTION_Z,
    ) -> np.ndarray:
        """The pessimistic ranking objective of :func:`.bounds.selection_score` in this measure:
        v at the masses' Wilson bounds (z = ``z_selection``) pushed through the Wilson bounds
        ``n_eval`` evaluation draws would give. Chooses events; never a reported bound.

        Args:
            k0: Selection draws on D in the event (arrays broadcast).
            n0: Selection draws on D, in [1, 2^40].
            k1: Selection draws on D' in the event.
            n1: Selection draws on D', in [1, 2^40].
            n_eval: Evaluation draws per side, an int in [1, 2^40].
            alpha: In (0, 1).
            z_selection: The Wilson quantile of the selection, a real in [0, 100].

        Returns:
            The scores, an array of the broadcast shape.

        Raises:
            ParameterError: An argument is out of range or of the wrong type.
            ValueError: The counts do not broadcast to one shape.
        """
        kk0, nn0 = check_counts(k0, n0, "k0", "n0")
        kk1, nn1 = check_counts(k1, n1, "k1", "n1")
        n_eval = check_int(n_eval, "n_eval", minimum=1, maximum=MAX_DRAWS_PLANNED)
        alpha = check_level(alpha, "alpha")
        z_selection = check_z(z_selection, "z_selection")
        check_same_shape(kk0, nn0, kk1, nn1)
        lo, hi = pessimistic_masses(kk0, nn0, kk1, nn1, n_eval, alpha, z_selection)
        return self._value(lo, hi)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.unit_label}, claimed={self.claimed!r})"


class ApproximateDPMeasure(EventMeasure):
    """(ε, δ)-DP: v = ln((P0 − δ)/P1), −inf where P0 <= δ; exactly :mod:`.bounds`'s numbers.

    Args:
        epsilon: The claimed ε, a finite real >= 0.
        delta: The claimed δ, in [0, 1).

    Raises:
        ParameterError: ``epsilon`` or ``delta`` is out of range or not a real number.
    """

    name = "epsilon"

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        self._epsilon = check_nonnegative(epsilon, "epsilon")
        self._delta = check_delta(delta, "delta")

    @property
    def claimed(self) -> float:
        """The claimed ε."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """The claimed δ, subtracted from P0 in the bound."""
        return self._delta

    @property
    def unit_label(self) -> str:
        """``"ε"``, with the claimed δ when it is not 0."""
        return "ε" if self._delta == 0 else f"ε (δ = {self._delta:g})"

    def _value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        # bounds._epsilon_lower_bound's expression, operation for operation (its p1 > 0 test is
        # _bound's: at true masses P1 = 0 < P0 − δ the value is +inf, at a float p1_U of 0 none)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.log(p0 - self._delta) - np.log(p1)
        return np.where(p0 > self._delta, out, -np.inf)


class RenyiMeasure(EventMeasure):
    """Rényi DP of order a: v = D_a(Bern(P0) ‖ Bern(P1)) where P0 > P1, else 0 (Mironov,
    "Rényi Differential Privacy", CSF 2017, Definition 4).

    Args:
        order: The order a, a real > 1 or +inf.
        claimed: The claimed ε_a, a finite real >= 0.

    Raises:
        ParameterError: ``order`` is not a real > 1 (NaN, a string, a bool, <= 1), or
            ``claimed`` is out of range.
    """

    name = "renyi"
    _no_bound = 0.0

    def __init__(self, order: float, claimed: float) -> None:
        value = check_real(order, "order")
        if not value > 1:
            raise ParameterError("order", "must be a real number > 1 or inf", repr(value))
        self._order = value
        self._claimed = check_nonnegative(claimed, "claimed")

    @property
    def order(self) -> float:
        """The order a, in (1, ∞]."""
        return self._order

    @property
    def claimed(self) -> float:
        """The claimed ε_a."""
        return self._claimed

    @property
    def unit_label(self) -> str:
        """``"ε_a (Rényi DP, a = ...)"``."""
        return f"ε_a (Rényi DP, a = {self._order:g})"

    def _value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        return renyi_divergence(p0, p1, self._order)


class ZCDPMeasure(EventMeasure):
    """(ξ, ρ)-zCDP: v = sup over a > 1 of (D_a(Bern(P0) ‖ Bern(P1)) − ξ)/a, floored at 0
    (Bun and Steinke 2016, Definition 1.1). :meth:`value` and :meth:`selection_score` take the
    maximum over a fixed grid of orders (:data:`.bernoulli.ORDER_GRID`: fast, for ranking); the
    other methods refine it (golden section), each value computed at the order it reports.

    Args:
        rho: The claimed ρ, a finite real >= 0.
        xi: The claimed ξ, a finite real >= 0 (0: ρ-zCDP).

    Raises:
        ParameterError: ``rho`` or ``xi`` is out of range or not a real number.
    """

    name = "rho"
    _no_bound = 0.0

    def __init__(self, rho: float, xi: float = 0.0) -> None:
        self._rho = check_nonnegative(rho, "rho")
        self._xi = check_nonnegative(xi, "xi")

    @property
    def claimed(self) -> float:
        """The claimed ρ."""
        return self._rho

    @property
    def xi(self) -> float:
        """The claimed ξ."""
        return self._xi

    @property
    def unit_label(self) -> str:
        """``"ρ (zCDP)"``, with ξ when it is not 0."""
        return "ρ (zCDP)" if self._xi == 0 else f"ρ (zCDP, ξ = {self._xi:g})"

    def _value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        return zcdp_rho(p0, p1, self._xi, refine=False)[0]

    def _sharp_value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        return zcdp_rho(p0, p1, self._xi, refine=True)[0]

    def _with_argument(self, p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return zcdp_rho(p0, p1, self._xi, refine=True)


class GDPMeasure(EventMeasure):
    """μ-GDP: v = Φ^{-1}(P0) − Φ^{-1}(P1) where P0 > P1, else 0 (Dong, Roth and Su 2022,
    Definition 2.4; the derivation is in the module docstring).

    Args:
        mu: The claimed μ, a finite real >= 0.

    Raises:
        ParameterError: ``mu`` is out of range or not a real number.
    """

    name = "mu"
    _no_bound = 0.0

    def __init__(self, mu: float) -> None:
        self._mu = check_nonnegative(mu, "mu")

    @property
    def claimed(self) -> float:
        """The claimed μ."""
        return self._mu

    @property
    def unit_label(self) -> str:
        """``"μ (Gaussian DP)"``."""
        return "μ (Gaussian DP)"

    def _value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        return gaussian_gap(p0, p1)


class ProfileMeasure(EventMeasure):
    """A privacy profile: the claim that M is (ε_i, δ_i)-DP at each point of a table. v is the
    largest excess max_i (P0 − e^(ε_i) P1 − δ_i), rounded down; the claimed value is 0 and a
    positive bound refutes the point attaining it (Lokna et al., CCS 2023).

    Args:
        points: The table: a non-empty sequence of pairs (ε_i, δ_i) (or an array of shape
            (m, 2)) with finite ε_i >= 0 strictly increasing and δ_i in [0, 1].

    Raises:
        ParameterError: ``points`` is empty, not pairs of real numbers, unsorted, or has a value
            out of range.
    """

    name = "profile"

    def __init__(self, points: Sequence[tuple[float, float]] | np.ndarray) -> None:
        table = check_real_array(points, "points")
        if table.ndim != 2 or table.shape[1] != 2 or table.shape[0] == 0:
            raise ParameterError(
                "points",
                "must be a non-empty sequence of pairs (epsilon, delta)",
                f"shape {table.shape}",
            )
        eps, delta = table[:, 0], table[:, 1]
        if eps.min() < 0 or np.any(np.diff(eps) <= 0):
            raise ParameterError(
                "points", "must have epsilons >= 0 in strictly increasing order", repr(eps.tolist())
            )
        if delta.min() < 0 or delta.max() > 1:
            raise ParameterError("points", "must have deltas in [0, 1]", repr(delta.tolist()))
        self._epsilons, self._deltas = eps, delta
        with np.errstate(over="ignore"):
            self._scales = np.exp(eps)

    @property
    def points(self) -> tuple[tuple[float, float], ...]:
        """The table, as pairs (ε_i, δ_i)."""
        return tuple(zip(self._epsilons.tolist(), self._deltas.tolist(), strict=True))

    @property
    def claimed(self) -> float:
        """0: the excess a profile claims is at most 0 at every point."""
        return 0.0

    @property
    def unit_label(self) -> str:
        """``"δ excess over the privacy profile (m points)"``."""
        return f"δ excess over the privacy profile ({self._epsilons.size} points)"

    def _excesses(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        """P0 − e^(ε_i) P1 − δ_i for each point (last axis), less the rounding margin."""
        p0, p1 = np.asarray(p0, float)[..., None], np.asarray(p1, float)[..., None]
        with np.errstate(invalid="ignore", over="ignore"):
            scaled = np.where(p1 > 0, self._scales * p1, 0.0)  # e^ε overflows only for ε > 709
            excess = p0 - scaled - self._deltas
            excess = excess - ROUNDING_MARGIN * (p0 + scaled + self._deltas)
        return np.where(np.isinf(scaled), -np.inf, excess)

    def _value(self, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        return np.max(self._excesses(p0, p1), axis=-1)

    def _with_argument(self, p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        excesses = self._excesses(p0, p1)
        index = np.argmax(excesses, axis=-1)
        return np.take_along_axis(excesses, index[..., None], axis=-1)[..., 0], index.astype(float)


__all__ = [
    "ApproximateDPMeasure",
    "EventMeasure",
    "GDPMeasure",
    "ProfileMeasure",
    "RenyiMeasure",
    "ZCDPMeasure",
]
