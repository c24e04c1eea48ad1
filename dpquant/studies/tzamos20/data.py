"""The data of the tzamos20 accuracy study: two (L, R, r)-admissible laws (Assumption 1.2 of
Tzamos et al.) with density exactly L on [m − r, m + r], so the study sits on the boundary of the
class.

:class:`UniformData` is U[m − 1/(2L), m + 1/(2L)]; :class:`ParetoTailedData` is a uniform core of
mass 2Lr plus a symmetric Pareto(1) tail (no mean). Their CDFs agree on [m − r, m + r], so the
non-private baseline (the empirical median) has the same miss probability under both for every
α < r: any difference in the private curves is due to the tails alone. :func:`fixed_design` is
the quantile data set F⁻¹((i − ½)/n), whose miss probability needs no Monte Carlo at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_int, check_rng

DISTRIBUTIONS = ("uniform", "pareto")


def _check_admissible(median: Fraction, L: Fraction, r: Fraction, R: Fraction) -> None:
    """The parts of Assumption 1.2 common to both families: Lr <= 1/2, |m| <= R."""
    if L * r > Fraction(1, 2):
        raise ValueError(f"L·r must be at most 1/2, got {L * r}")
    if abs(median) > R:
        raise ValueError(f"the median must lie in [-R, R] = [{-R}, {R}], got {median}")


@dataclass(frozen=True)
class UniformData:
    """D = U[m − w, m + w] with w = 1/(2L): density exactly L on its support.

    Admissibility (Assumption 1.2): the median is m (symmetry, F strictly increasing), and
    [m − r, m + r] ⊆ [m − w, m + w] because Lr <= 1/2 ⇔ r <= w, where the density is L; with
    |m| <= R it is (L, R, r)-admissible, and tight (the density bound holds with equality).
    CDF: F(m + t) = 1/2 + L·t for |t| <= w.
    """

    L: Fraction
    median: Fraction = Fraction(0)
    name: str = "uniform"

    @property
    def half_width(self) -> Fraction:
        return 1 / (2 * self.L)

    def check_admissible(self, L: Any, r: Any, R: Any) -> None:
        """ValueError unless D is (L, R, r)-admissible."""
        L, r, R = Fraction(L), Fraction(r), Fraction(R)
        _check_admissible(self.median, L, r, R)
        if self.L < L:
            raise ValueError(f"the density 1/(2w) = {self.L} is below L = {L}")

    def cdf(self, x: Any) -> Fraction:
        """F(x), exact."""
        t = Fraction(x) - self.median
        w = self.half_width
        return Fraction(0) if t <= -w else Fraction(1) if t >= w else Fraction(1, 2) + self.L * t

    def quantile(self, u: np.ndarray) -> np.ndarray:
        """F⁻¹(u), float."""
        w = float(self.half_width)
        return float(self.median) + w * (2.0 * np.asarray(u, dtype=float) - 1.0)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` i.i.d. draws (float, vectorised)."""
        return self.quantile(check_rng(rng).random(size))


@dataclass(frozen=True)
class ParetoTailedData:
    """A heavy-tailed admissible D: with probability w = 2Lr a point of U[m − r, m + r], otherwise
    m ± r/V with V ~ U(0, 1] and the sign a fair coin (a Pareto(1) tail on each side: no mean).

    Density: L·1{|t| <= r} + ((1 − w)/2)·r/t²·1{|t| > r} at m + t. Admissibility (Assumption 1.2):
    (i) D is symmetric about m and has density L > 0 at m, so m is its unique median; |m| <= R is
    checked. (ii) On [m − r, m + r] the density is w/(2r) = L (the tail puts no mass there), so
    the bound f >= L holds with equality. Outside, D is arbitrary (here: no moments).
    CDF: F(m + t) = ((1 − w)/2)·r/|t| for t <= −r, 1/2 + L·t for |t| <= r,
    1 − ((1 − w)/2)·r/t for t >= r. It agrees with :class:`UniformData` on [m − r, m + r].
    """

    L: Fraction
    r: Fraction
    median: Fraction = Fraction(0)
    name: str = "pareto"

    @property
    def core_mass(self) -> Fraction:
        return 2 * self.L * self.r

    def check_admissible(self, L: Any, r: Any, R: Any) -> None:
        """ValueError unless D is (L, R, r)-admissible."""
        L, r, R = Fraction(L), Fraction(r), Fraction(R)
        _check_admissible(self.median, L, r, R)
        if self.core_mass > 1:
            raise ValueError(f"the core mass 2Lr must be at most 1, got {self.core_mass}")
        if self.L < L or self.r < r:
            raise ValueError(f"the core (L = {self.L}, r = {self.r}) is narrower than (L, r)")

    def cdf(self, x: Any) -> Fraction:
        """F(x), exact."""
        t = Fraction(x) - self.median
        tail = (1 - self.core_mass) / 2
        if t <= -self.r:
            return tail * self.r / -t
        if t >= self.r:
            return 1 - tail * self.r / t
        return Fraction(1, 2) + self.L * t

    def quantile(self, u: np.ndarray) -> np.ndarray:
        """F⁻¹(u) for u ∈ (0, 1), float."""
        u = np.asarray(u, dtype=float)
        tail, r, L = float((1 - self.core_mass) / 2), float(self.r), float(self.L)
        with np.errstate(divide="ignore"):
            low = -tail * r / np.where(u < tail, u, 1.0)
            high = tail * r / np.where(u > 1.0 - tail, 1.0 - u, 1.0)
        core = (u - 0.5) / L
        t = np.where(u < tail, low, np.where(u > 1.0 - tail, high, core))
        return float(self.median) + t

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` i.i.d. draws (float, vectorised): the component, then the point."""
        rng = check_rng(rng)
        core = rng.random(size) < float(self.core_mass)
        u = rng.random(size)
        v = 1.0 - rng.random(size)  # (0, 1]
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        r = float(self.r)
        t = np.where(core, r * (2.0 * u - 1.0), sign * r / v)
        return float(self.median) + t


Distribution = UniformData | ParetoTailedData


def make_distribution(name: str, L: Any, r: Any, median: Any = 0) -> Distribution:
    """The study's D ∈ {uniform, pareto} with density exactly L on [m − r, m + r]."""
    L, r, median = Fraction(L), Fraction(r), Fraction(median)
    if name == "uniform":
        return UniformData(L, median)
    if name == "pareto":
        return ParetoTailedData(L, r, median)
    raise ParameterError("distribution", f"must be one of {DISTRIBUTIONS}", repr(name))


def fixed_design(dist: Distribution, n: int) -> np.ndarray:
    """The quantile data set F⁻¹((i − ½)/n), i = 1..n (floats; read exactly by the mechanism)."""
    n = check_int(n, "n", minimum=1)
    return dist.quantile((np.arange(1, n + 1) - 0.5) / n)


__all__ = [
    "DISTRIBUTIONS",
    "Distribution",
    "ParetoTailedData",
    "UniformData",
    "fixed_design",
    "make_distribution",
]
