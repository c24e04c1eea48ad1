""":class:`reference.core.Mechanism` wrappers of fukuchi19's mechanisms.

* :class:`LDPMinimum` — Algorithm 2 (or its maximum by symmetry) on data in public bounds [a, b].
  The server's output is a post-processing of ε-LDP reports, so it is ε-DP for the replacement of
  any one user's value: the claim is ``PrivacyClaim(ε, 0, "replace_one")``. N is public (the
  threshold depends on it), so add/remove is not claimed. ``exact(data)`` is the tree law.
* :class:`LaplaceReport` — one user's baseline report, local claim, exact law: by default the
  float-safe grid report (exactly ε-LDP), or the paper's x + Laplace(0, (b − a)/ε)
  (``noise="continuous"``, not ε-LDP in floating point; see :mod:`.laplace_baseline`).
* :class:`LaplaceExtreme` — the baseline's server output min_i (or max_i) of the reports,
  replace-one claim, sampling only.

The per-user transcript channel (one user's view of the whole protocol) is
:class:`reference.ldp_minimum.transcript.UserTranscript`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from reference.core import PrivacyClaim
from reference.distributions import DiscreteLaw, PiecewiseLogLinear
from reference.ldp_minimum.domain_map import UnitMap
from reference.ldp_minimum.exact_law import leaf_probabilities_exact
from reference.ldp_minimum.laplace_baseline import (
    GRID,
    check_grid,
    check_noise,
    grid_report_law,
    sample_grid_reports,
    sample_laplace_extreme,
)
from reference.ldp_minimum.round_statistic import (
    RoundRule,
    check_epsilon_matches_exp_u,
    check_exp_u,
    epsilon_of_exp_u,
    round_rule,
)
from reference.ldp_minimum.schedules import check_levels, schedule
from reference.ldp_minimum.search import (
    SAMPLERS,
    check_target,
    leaf_values,
    sample_minimum,
)
from reference.primitives.laplace import laplace_law, sample_laplace
from reference.validation import (
    check_data,
    check_epsilon,
    check_positive,
    check_rng,
    check_size,
)


@lru_cache(maxsize=256)
def _rule(n: int, levels: int, gamma: float, epsilon: float, exp_u: Fraction | None) -> RoundRule:
    if exp_u is not None:
        return round_rule(n, levels, gamma, exp_u=exp_u)
    return round_rule(n, levels, gamma, epsilon=epsilon)


@dataclass(frozen=True)
class LDPMinimum:
    """Algorithm 2 of fukuchi19 as a Mechanism: ε-LDP minimum (``target="max"``: maximum).

    ``levels`` = L rounds at ε/L each; ``gamma`` = the threshold (Theorem 2's value via
    :meth:`for_schedule`); ``bounds`` = the public [a, b] (values outside raise unless
    ``clamp``); ``sampler`` = ``"binomial"`` (exact in law, fast) or ``"per_user"`` (every user's
    report drawn). ``exp_u`` (an int or Fraction > 1) fixes e^{ε/L} exactly, which makes
    :meth:`exact` rational; build such a mechanism with :meth:`with_exp_u`.
    """

    epsilon: float
    levels: int
    gamma: float
    bounds: tuple[float, float] = (-1.0, 1.0)
    target: str = "min"
    sampler: str = "binomial"
    clamp: bool = False
    exp_u: Fraction | None = None

    def __post_init__(self) -> None:
        check_levels(self.levels)
        check_positive(self.gamma, "gamma")
        object.__setattr__(self, "bounds", UnitMap(*self.bounds, clamp=self.clamp).bounds)
        check_target(self.target)
        if self.sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {SAMPLERS}, got {self.sampler!r}")
        if self.exp_u is not None:
            exp_u = check_epsilon_matches_exp_u(
                self.epsilon, self.exp_u, self.levels, "LDPMinimum.with_exp_u"
            )
            object.__setattr__(self, "exp_u", exp_u)
        check_epsilon(self.epsilon)

    @classmethod
    def with_exp_u(cls, exp_u: Any, levels: int, gamma: float, **options: Any) -> LDPMinimum:
        """The mechanism with per-round factor e^{ε/L} = ``exp_u`` exactly (ε = L·ln exp_u)."""
        exp_u = check_exp_u(exp_u)
        levels = check_levels(levels)
        return cls(epsilon_of_exp_u(exp_u, levels), levels, gamma, exp_u=exp_u, **options)

    @classmethod
    def for_schedule(
        cls, name: str, n: int, epsilon: float, *, schedule_options: dict | None = None, **options
    ) -> LDPMinimum:
        """The mechanism with the Lower-α or Unknown-α schedule's L and Theorem 2's γ for N."""
        s = schedule(name, n, epsilon, **(schedule_options or {}))
        return cls(epsilon, s.levels, s.gamma, **options)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        return self.bounds

    @property
    def unit_map(self) -> UnitMap:
        return UnitMap(*self.bounds, clamp=self.clamp)

    def rule(self, n: int) -> RoundRule:
        """The round rule (threshold m*) for N = ``n`` users."""
        return _rule(n, self.levels, self.gamma, self.epsilon, self.exp_u)

    def _unit_data(self, data: Any) -> np.ndarray:
        x = self.unit_map.to_unit(data)
        return -x if self.target == "max" else x

    def _from_unit(self, y: np.ndarray) -> np.ndarray:
        return self.unit_map.from_unit(-y if self.target == "max" else y)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        x = self._unit_data(data)
        y = sample_minimum(x, self.rule(x.size), check_size(size), check_rng(rng), self.sampler)
        return self._from_unit(y)

    def exact(self, data: Any) -> DiscreteLaw:
        """The exact output law (Fractions when ``exp_u`` is set, else 60-digit mpmath)."""
        x = self._unit_data(data)
        probs = leaf_probabilities_exact(x, self.rule(x.size))
        values = self._from_unit(leaf_values(self.levels))
        return DiscreteLaw.from_probabilities(values.tolist(), probs)


@dataclass(frozen=True)
class LaplaceReport:
    """One user's baseline report on public bounds [a, b] (local DP).

    ``noise="grid"`` (default): the exactly ε-LDP grid report of
    :mod:`~reference.ldp_minimum.laplace_baseline` (value rounded to the grid ``grid`` on
    [−1, 1], exact discrete Laplace, clamped), with its finite exact law. ``noise="continuous"``:
    the paper's x + Laplace(0, (b − a)/ε) in floats; ``exact`` is then the law of the real-valued
    mechanism, which the float sampler does not follow bit for bit (its realised loss is infinite,
    and the auditor finds it).
    """

    epsilon: float
    bounds: tuple[float, float] = (-1.0, 1.0)
    noise: str = "grid"
    grid: float = GRID

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        object.__setattr__(self, "bounds", UnitMap(*self.bounds).bounds)
        check_noise(self.noise)
        object.__setattr__(self, "grid", check_grid(self.grid))

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "local")

    @property
    def domain(self) -> tuple[float, float]:
        return self.bounds

    @property
    def scale(self) -> float:
        """The continuous noise's scale (b − a)/ε."""
        return (self.bounds[1] - self.bounds[0]) / self.epsilon

    def _value(self, data: Any) -> float:
        x = check_data(np.atleast_1d(np.asarray(data, dtype=object)), "data", domain=self.bounds)
        if x.size != 1:
            raise ValueError(f"data must be one user's value, got {x.size} values")
        return float(x[0])

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        x = self._value(data)
        if self.noise == "continuous":
            return sample_laplace(x, self.scale, size, rng)
        unit = UnitMap(*self.bounds)
        reports = sample_grid_reports(
            float(unit.to_unit([x])[0]), self.epsilon, size, rng, self.grid
        )
        return unit.from_unit(reports)

    def exact(self, data: Any) -> PiecewiseLogLinear | DiscreteLaw:
        x = self._value(data)
        if self.noise == "continuous":
            return laplace_law(x, self.scale)
        unit = UnitMap(*self.bounds)
        law = grid_report_law(float(unit.to_unit([x])[0]), self.epsilon, self.grid)
        return DiscreteLaw(unit.from_unit(np.array(law.support)).tolist(), list(law.logp))


@dataclass(frozen=True)
class LaplaceExtreme:
    """The baseline's server output: min (or max) of every user's report, unclipped unless
    ``clip`` (then clipped to [a, b]). ``noise`` as in :class:`LaplaceReport` (default
    ``"grid"``: exactly ε-LDP reports, sampled exactly)."""

    epsilon: float
    bounds: tuple[float, float] = (-1.0, 1.0)
    target: str = "min"
    clip: bool = False
    clamp: bool = False
    noise: str = "grid"
    grid: float = GRID

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        object.__setattr__(self, "bounds", UnitMap(*self.bounds, clamp=self.clamp).bounds)
        check_target(self.target)
        if not isinstance(self.clip, bool):
            raise ValueError(f"clip must be True or False, got {self.clip!r}")
        check_noise(self.noise)
        object.__setattr__(self, "grid", check_grid(self.grid))

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        return self.bounds

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        unit = UnitMap(*self.bounds, clamp=self.clamp)
        y = sample_laplace_extreme(
            unit.to_unit(data),
            self.epsilon,
            size,
            rng,
            target=self.target,
            clip=self.clip,
            noise=self.noise,
            grid=self.grid,
        )
        return unit.from_unit(y)


__all__ = ["LDPMinimum", "LaplaceExtreme", "LaplaceReport"]
