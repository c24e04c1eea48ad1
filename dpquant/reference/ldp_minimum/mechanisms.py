""":class:`dpquant.reference.core.Mechanism` wrappers of fukuchi19's mechanisms.

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
:class:`dpquant.reference.ldp_minimum.transcript.UserTranscript`.

All of them derive from :class:`dpquant.reference.core.MechanismBase`: ``sample`` checks size, rng and
the data once (public bounds, or any finite value when ``clamp``), the outputs are checked to lie
in :attr:`output_range`, and the parameters whose outputs or exact laws cannot be represented
are refused at construction with ``ValueError`` naming them (``notes/fukuchi19.md``, "Bad input
and limits").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase, MechanismBase
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear
from dpquant.reference.ldp_minimum.domain_map import UnitMap
from dpquant.reference.ldp_minimum.exact_law import check_exact_tree, leaf_probabilities_exact
from dpquant.reference.ldp_minimum.laplace_baseline import (
    CLAMP_SCALES,
    GRID,
    check_grid,
    check_noise,
    grid_clamp,
    grid_report_law,
    laplace_scale,
    report_draw_limit,
    sample_grid_reports,
    sample_laplace_extreme,
)
from dpquant.reference.ldp_minimum.round_statistic import (
    RoundRule,
    check_exp_u,
    epsilon_of_exp_u,
    round_rule,
)
from dpquant.reference.ldp_minimum.schedules import check_levels, check_users, schedule
from dpquant.reference.ldp_minimum.search import (
    check_round_fields,
    check_target,
    leaf_values,
    per_user_draw_limit,
    prepared,
    sample_minimum,
)
from dpquant.reference.primitives.laplace import laplace_law
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_domain,
    check_epsilon,
    check_flag,
    check_positive,
    check_record,
)

SCHEDULE_OPTIONS = ("alpha0", "scale", "extra_log_levels")


@lru_cache(maxsize=256)
def _rule(n: int, levels: int, gamma: float, epsilon: float, exp_u: Fraction | None) -> RoundRule:
    if exp_u is not None:
        return round_rule(n, levels, gamma, exp_u=exp_u)
    return round_rule(n, levels, gamma, epsilon=epsilon)


def _check_options(options: dict, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ParameterError("options", f"must be among {allowed}", unknown)


def _unit_map(bounds: Any, clamp: bool = False) -> UnitMap:
    lo, hi = check_domain(bounds, "bounds", finite=True)
    return UnitMap(lo, hi, clamp=clamp)


def _mapped_range(unit: UnitMap, radius: float, what: str) -> tuple[float, float]:
    """The image of [−radius, radius] (radius >= 1) under the map back to [a, b]; refused
    naming ``what`` when it leaves the float range."""
    half = (unit.hi - unit.lo) / 2.0
    with np.errstate(over="ignore", invalid="ignore"):
        lo = unit.lo + (1.0 - radius) * half
        hi = unit.lo + (1.0 + radius) * half
    if not (math.isfinite(lo) and math.isfinite(hi)) or max(abs(lo), abs(hi)) > MAX_FLOAT / 2:
        raise ValueError(
            f"{what}: the reports reach ±{radius:.4g} on [−1, 1], which the bounds "
            f"({unit.lo!r}, {unit.hi!r}) map outside the float range; use a larger epsilon or "
            f"narrower bounds"
        )
    return (lo, hi)


@dataclass(frozen=True)
class LDPMinimum(ExactMechanismBase):
    """Algorithm 2 of fukuchi19 as a Mechanism: ε-LDP minimum (``target="max"``: maximum).

    ``levels`` = L rounds at ε/L each (1 <= L <= 52, 2^-1000 <= ε/L <= 20: see
    :data:`.round_statistic.MAX_ROUND_EPSILON`); ``gamma`` = the threshold (Theorem 2's value via
    :meth:`for_schedule`); ``bounds`` = the public [a, b] (finite, width b − a a finite float;
    values outside raise unless ``clamp``); ``sampler`` = ``"binomial"`` (exact in law, fast) or
    ``"per_user"`` (every user's report drawn). ``exp_u`` (an int or Fraction > 1) fixes e^{ε/L}
    exactly, which makes :meth:`exact` rational; build such a mechanism with :meth:`with_exp_u`.
    Outputs are the leaf midpoints mapped back into [a, b] (never outside). ``exact`` refuses
    inputs beyond :data:`.round_statistic.MAX_EXACT_WORK` (about 10 s) or 16 levels.
    """

    epsilon: float
    levels: int
    gamma: float
    bounds: tuple[float, float] = (-1.0, 1.0)
    target: str = "min"
    sampler: str = "binomial"
    clamp: bool = False
    exp_u: Fraction | None = None

    adjacency = Adjacency.REPLACE_ONE  # the users' data set, one user's value replaced

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", check_levels(self.levels))
        object.__setattr__(self, "gamma", check_positive(self.gamma, "gamma"))
        object.__setattr__(self, "clamp", check_flag(self.clamp, "clamp"))
        object.__setattr__(self, "bounds", _unit_map(self.bounds, self.clamp).bounds)
        check_target(self.target)
        check_round_fields(self, "LDPMinimum.with_exp_u")

    @classmethod
    def with_exp_u(cls, exp_u: Any, levels: int, gamma: float, **options: Any) -> LDPMinimum:
        """The mechanism with per-round factor e^{ε/L} = ``exp_u`` exactly (ε = L·ln exp_u)."""
        exp_u = check_exp_u(exp_u)
        levels = check_levels(levels)
        _check_options(options, ("bounds", "target", "sampler", "clamp"))
        return cls(epsilon_of_exp_u(exp_u, levels), levels, gamma, exp_u=exp_u, **options)

    @classmethod
    def for_schedule(
        cls, name: str, n: int, epsilon: float, *, schedule_options: dict | None = None, **options
    ) -> LDPMinimum:
        """The mechanism with the Lower-α or Unknown-α schedule's L and Theorem 2's γ for N."""
        if schedule_options is None:
            schedule_options = {}
        if not isinstance(schedule_options, dict) or not set(schedule_options) <= set(
            SCHEDULE_OPTIONS
        ):
            raise ParameterError(
                "schedule_options",
                f"must be a dict with keys among {SCHEDULE_OPTIONS}",
                f"{schedule_options!r:.80}",
            )
        _check_options(options, ("bounds", "target", "sampler", "clamp"))
        s = schedule(name, n, epsilon, **schedule_options)
        return cls(epsilon, s.levels, s.gamma, **options)

    @property
    def domain(self) -> tuple[float, float]:
        """The public bounds, or any finite value when ``clamp`` (values are clipped first)."""
        return (-math.inf, math.inf) if self.clamp else self.bounds

    @property
    def unit_map(self) -> UnitMap:
        return UnitMap(*self.bounds, clamp=self.clamp)

    def rule(self, n: int) -> RoundRule:
        """The round rule (threshold m*) for N = ``n`` users."""
        return _rule(check_users(n, "n"), self.levels, self.gamma, self.epsilon, self.exp_u)

    def draw_limit(self, data: np.ndarray) -> int:
        if self.sampler == "per_user":
            return min(self.max_draws, per_user_draw_limit(data.size, self.levels))
        return self.max_draws

    def _unit(self, data: np.ndarray) -> np.ndarray:
        x = self.unit_map.checked_to_unit(data)
        return -x if self.target == "max" else x

    def _from_unit(self, y: np.ndarray) -> np.ndarray:
        return self.unit_map.from_unit(-y if self.target == "max" else y)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        x = prepared(self._unit(data))
        y = sample_minimum(x, self.rule(x.size), size, rng, self.sampler)
        return self._from_unit(y)

    def _law(self, data: np.ndarray) -> DiscreteLaw:
        """The exact output law (Fractions when ``exp_u`` is set, else 60-digit mpmath)."""
        x = prepared(self._unit(data))
        rule = self.rule(x.size)
        check_exact_tree(x.sorted, rule, "data")
        probs = leaf_probabilities_exact(x, rule)
        values = self._from_unit(leaf_values(self.levels))
        return DiscreteLaw.from_probabilities(values.tolist(), probs)


def _check_continuous(unit: UnitMap, epsilon: float) -> float:
    """The continuous report's scale (b − a)/ε, refused naming ε and the bounds when it or the
    reports x + noise (|noise| < 40·scale for a float Laplace draw) leave the float range."""
    with np.errstate(over="ignore"):
        scale = float(np.float64(unit.hi - unit.lo) / np.float64(epsilon))
    top = max(abs(unit.lo), abs(unit.hi)) + 2 * CLAMP_SCALES * scale
    if not (0.0 < scale and math.isfinite(top) and top <= MAX_FLOAT / 2):
        raise ValueError(
            f"epsilon and bounds give a continuous noise scale (b − a)/ε = {scale:.4g} whose "
            f"reports leave the float range; use a larger epsilon or narrower bounds"
        )
    return scale


@dataclass(frozen=True)
class LaplaceReport(ExactMechanismBase):
    """One user's baseline report on public bounds [a, b] (local DP).

    ``noise="grid"`` (default): the exactly ε-LDP grid report of
    :mod:`~dpquant.reference.ldp_minimum.laplace_baseline` (value rounded to the grid ``grid`` on
    [−1, 1], exact discrete Laplace, clamped), with its finite exact law. ``noise="continuous"``:
    the paper's x + Laplace(0, (b − a)/ε) in floats; ``exact`` is then the law of the real-valued
    mechanism, which the float sampler does not follow bit for bit (its realised loss is infinite,
    and the auditor finds it). The data is one user's value in [a, b].
    """

    epsilon: float
    bounds: tuple[float, float] = (-1.0, 1.0)
    noise: str = "grid"
    grid: float = GRID

    adjacency = Adjacency.LOCAL

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        unit = _unit_map(self.bounds)
        object.__setattr__(self, "bounds", unit.bounds)
        check_noise(self.noise)
        object.__setattr__(self, "grid", check_grid(self.grid))
        if self.noise == "continuous":
            _check_continuous(unit, self.epsilon)
        else:
            _mapped_range(unit, grid_clamp(self.epsilon, self.grid) * self.grid, "epsilon, bounds")

    @property
    def scale(self) -> float:
        """The continuous noise's scale (b − a)/ε."""
        return (self.bounds[1] - self.bounds[0]) / self.epsilon

    @property
    def output_range(self) -> tuple[float, float] | None:
        """Grid reports lie in the image of Λ·[−M, M]; continuous ones anywhere finite."""
        if self.noise == "continuous":
            return None
        return _mapped_range(
            UnitMap(*self.bounds), grid_clamp(self.epsilon, self.grid) * self.grid, "bounds"
        )

    def check_input(self, data: Any) -> float:
        """One user's value in [a, b]."""
        x = check_record(data, "data")
        lo, hi = self.bounds
        if not lo <= x <= hi:
            raise ParameterError("data", f"must lie inside the domain [{lo}, {hi}]", repr(x))
        return x

    def draw_limit(self, data: float) -> int:
        return min(self.max_draws, report_draw_limit(self.epsilon, self.grid, self.noise))

    def _draw(self, data: float, size: int, rng: np.random.Generator) -> np.ndarray:
        if self.noise == "continuous":
            return rng.laplace(data, self.scale, size)
        unit = UnitMap(*self.bounds)
        u = float(unit.checked_to_unit(np.array([data]))[0])
        return unit.from_unit(sample_grid_reports(u, self.epsilon, size, rng, self.grid))

    def _law(self, data: float) -> PiecewiseLogLinear | DiscreteLaw:
        if self.noise == "continuous":
            try:
                return laplace_law(data, self.scale)
            except ValueError as exc:
                raise ValueError(f"data, epsilon, bounds: {exc}") from None
        unit = UnitMap(*self.bounds)
        u = float(unit.checked_to_unit(np.array([data]))[0])
        try:
            law = grid_report_law(u, self.epsilon, self.grid)
        except ValueError as exc:
            raise ValueError(f"the exact law of this report is refused: {exc}") from None
        return DiscreteLaw(unit.from_unit(np.array(law.support)).tolist(), list(law.logp))


@dataclass(frozen=True)
class LaplaceExtreme(MechanismBase):
    """The baseline's server output: min (or max) of every user's report, unclipped unless
    ``clip`` (then clipped to [a, b]). ``noise`` as in :class:`LaplaceReport` (default
    ``"grid"``: exactly ε-LDP reports, sampled exactly). Each draw costs N reports, so one call
    draws at most :data:`.laplace_baseline.REPORT_DRAWS` / N outputs."""

    epsilon: float
    bounds: tuple[float, float] = (-1.0, 1.0)
    target: str = "min"
    clip: bool = False
    clamp: bool = False
    noise: str = "grid"
    grid: float = GRID

    adjacency = Adjacency.REPLACE_ONE  # the users' data set, one user's value replaced

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "clamp", check_flag(self.clamp, "clamp"))
        unit = _unit_map(self.bounds, self.clamp)
        object.__setattr__(self, "bounds", unit.bounds)
        check_target(self.target)
        object.__setattr__(self, "clip", check_flag(self.clip, "clip"))
        check_noise(self.noise)
        object.__setattr__(self, "grid", check_grid(self.grid))
        object.__setattr__(self, "_range", self._reach(unit))

    def _reach(self, unit: UnitMap) -> tuple[float, float]:
        if self.noise == "grid":
            radius = grid_clamp(self.epsilon, self.grid) * self.grid
        else:
            radius = 1.0 + 2 * CLAMP_SCALES * laplace_scale(self.epsilon)
        return _mapped_range(unit, radius, "epsilon, bounds")

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf) if self.clamp else self.bounds

    @property
    def output_range(self) -> tuple[float, float]:
        """[a, b] when ``clip``, else the image of the reports' reach."""
        return self.bounds if self.clip else self._range  # type: ignore[attr-defined]

    def draw_limit(self, data: np.ndarray) -> int:
        per_call = report_draw_limit(self.epsilon, self.grid, self.noise)
        return min(self.max_draws, max(1, per_call // data.size))

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        unit = UnitMap(*self.bounds, clamp=self.clamp)
        y = sample_laplace_extreme(
            prepared(unit.checked_to_unit(data)),
            self.epsilon,
            size,
            rng,
            target=self.target,
            clip=self.clip,
            noise=self.noise,
            grid=self.grid,
        )
        return unit.from_unit(y)


__all__ = ["SCHEDULE_OPTIONS", "LDPMinimum", "LaplaceExtreme", "LaplaceReport"]
