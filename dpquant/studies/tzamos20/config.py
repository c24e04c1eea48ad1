"""What the tzamos20 accuracy study runs: the regimes of (ε, α, R), the constant C, the cells and
the study's configuration (:class:`Study`, :func:`make_study`).

The paper has no experiments; this study is ours (``notes/tzamos20.md``, "Accuracy study"). It
measures the exact miss probability of PrivateMedian(mode="extension") as n grows, against the
terms of Theorem 3.1 (:mod:`dpquant.reference.private_median.rates`). The default :data:`REGIMES` choose
(ε, α, R) so that each of T₁, T₂, T₃ dominates in turn.

**C**: a constant (default 5/4: Lemma 3.4 needs C > 1) or C = C₀·ln n (Cor. E.10; rounded to a
multiple of 1/64 so that everything stays rational). The theory's C > 104.3 (Lemma 3.5) is out of
reach: the Laplace rate of the output is λ = εLn/(12C), so the local term needs
n ≈ 12C·log(1/β)/(εLα), i.e. n ≈ 10⁴ already for ε = 1/4, α = 9/10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from dpquant.errors import ParameterError
from dpquant.reference.private_median import PrivateMedian
from dpquant.reference.validation import check_choice, check_flag, check_fraction, check_int
from dpquant.studies.harness import check_seed, name_choices
from dpquant.studies.tzamos20.data import DISTRIBUTIONS, Distribution, make_distribution

MAX_STUDY_N = 10**5
MAX_RUNS = 10**6
C_RULES = ("constant", "log")
DEFAULT_L = Fraction(2, 5)
DEFAULT_r = Fraction(1)
DEFAULT_C = Fraction(5, 4)
DEFAULT_BETA = Fraction(1, 10)
DEFAULT_RUNS = 40
QUICK_RUNS = 12
DEFAULT_NS: tuple[int, ...] = (20, 40, 80, 160, 320, 480, 640, 1280, 2560, 5120)
QUICK_NS: tuple[int, ...] = (8, 16, 32)
C_LOG_DENOMINATOR = 64
DEFAULT_OUT = Path("reports") / "tzamos20"


@dataclass(frozen=True)
class Regime:
    """A setting of (ε, α, R) with β; L, r, C are the study's."""

    name: str
    epsilon: Fraction
    alpha: Fraction
    R: Fraction
    beta: Fraction = DEFAULT_BETA

    def __post_init__(self) -> None:
        for k in ("epsilon", "alpha", "R", "beta"):
            object.__setattr__(self, k, check_fraction(getattr(self, k), k, positive=True))
        if not self.beta < Fraction(1, 2):
            raise ParameterError("beta", "must lie in (0, 1/2)", self.beta)


# (ε, α, R) chosen so that T₁, T₂, T₃ dominate in turn for L = 2/5, r = 1, β = 1/10:
#   statistical: (T₁, T₂, T₃) = (230, 23, 4.0); local: (17.8, 25.6, 7.5); global: (17.8, 12.8, 69.5).
REGIMES: tuple[Regime, ...] = (
    Regime("statistical", Fraction(1), Fraction(1, 4), Fraction(1)),
    Regime("local", Fraction(1, 4), Fraction(9, 10), Fraction(1)),
    Regime("global", Fraction(1, 2), Fraction(9, 10), Fraction(10**6)),
)
QUICK_REGIMES: tuple[Regime, ...] = (Regime("quick", Fraction(1), Fraction(9, 10), Fraction(1)),)


def c_for(n: int, c: Fraction, c_rule: str) -> Fraction:
    """C for sample size n: the constant ``c``, or C₀·ln n with C₀ = ``c`` (Cor. E.10), rounded
    to a multiple of 1/64 and at least 1/64."""
    if c_rule == "constant":
        return c
    if c_rule == "log":
        value = float(c) * math.log(max(n, 2))
        return max(Fraction(round(value * C_LOG_DENOMINATOR), C_LOG_DENOMINATOR), Fraction(1, 64))
    raise ParameterError("c_rule", f"must be one of {C_RULES}", repr(c_rule))


@dataclass(frozen=True)
class Cell:
    """One curve point: a regime, a distribution and n."""

    regime: Regime
    distribution: str
    n: int
    L: Fraction
    r: Fraction
    C: Fraction
    median: Fraction
    runs: int

    @property
    def key(self) -> str:
        """The cell's identity (not ``runs``)."""
        g = self.regime
        return f"{g.name}|{g.epsilon}|{g.alpha}|{g.R}|{self.C}|{self.data_key}"

    @property
    def data_key(self) -> str:
        """What the data depend on: not the regime nor C (common random numbers: every regime
        sees the same data sets)."""
        return f"{self.distribution}|{self.n}|{self.L}|{self.r}|{self.median}"

    def mechanism(self) -> PrivateMedian:
        return PrivateMedian(self.L, self.r, self.regime.R, self.C, self.regime.epsilon)

    def dist(self) -> Distribution:
        return make_distribution(self.distribution, self.L, self.r, self.median)


@dataclass(frozen=True)
class Study:
    """What :func:`dpquant.studies.tzamos20.run` runs: every resolved option (see
    :func:`make_study`)."""

    regimes: tuple[Regime, ...]
    distributions: tuple[str, ...]
    ns: tuple[int, ...]
    runs: int
    L: Fraction
    r: Fraction
    c: Fraction
    c_rule: str
    median: Fraction
    seed: int
    fixed_design: bool = True
    quick: bool = False

    def cells(self) -> list[Cell]:
        return [
            Cell(g, d, n, self.L, self.r, c_for(n, self.c, self.c_rule), self.median, self.runs)
            for g in self.regimes
            for d in self.distributions
            for n in self.ns
        ]


def make_study(
    *,
    regimes: Sequence[str] | str | None = None,
    distributions: Sequence[str] | str | None = None,
    ns: Sequence[int] | None = None,
    runs: int | None = None,
    L: Any = DEFAULT_L,
    r: Any = DEFAULT_r,
    c: Any = None,
    c_rule: str = "constant",
    median: Any = 0,
    seed: int = 0,
    fixed_design: bool = True,
    quick: bool = False,
) -> Study:
    """The validated configuration (defaults: the three :data:`REGIMES`, both
    distributions, n ∈ :data:`DEFAULT_NS`, 40 data sets per cell, L = 2/5, r = 1, C = 5/4;
    ``quick``: one regime (ε = 1, α = 9/10, R = 1), n ∈ {8, 16, 32}, 12 data sets)."""
    quick = check_flag(quick, "quick")
    fixed_design = check_flag(fixed_design, "fixed_design")
    pool = {g.name: g for g in (*REGIMES, *QUICK_REGIMES)}
    default = QUICK_REGIMES if quick else REGIMES
    names = name_choices(
        [g.name for g in default] if regimes is None else regimes, tuple(pool), "regimes"
    )
    dists = name_choices(
        DISTRIBUTIONS if distributions is None else distributions, DISTRIBUTIONS, "distributions"
    )
    if ns is not None and not isinstance(ns, list | tuple | range):
        raise ParameterError("ns", "must be a non-empty list of integers >= 2", f"{ns!r:.80}")
    ns = (QUICK_NS if quick else DEFAULT_NS) if ns is None else tuple(ns)
    ns = tuple(sorted({check_int(n, "n", minimum=2, maximum=MAX_STUDY_N) for n in ns}))
    if not ns:
        raise ParameterError("ns", "must be a non-empty list of integers >= 2")
    runs = (QUICK_RUNS if quick else DEFAULT_RUNS) if runs is None else runs
    runs = check_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    L = check_fraction(L, "L", positive=True)
    r = check_fraction(r, "r", positive=True)
    c = DEFAULT_C if c is None else check_fraction(c, "c", positive=True)
    check_choice(c_rule, "c_rule", C_RULES)
    median = check_fraction(median, "median")
    chosen = tuple(pool[k] for k in names)
    for g in chosen:
        if not g.alpha < min(r, g.R):
            raise ParameterError(
                "alpha",
                f"must lie in (0, min(r, R)); regime {g.name} has {g.alpha}",
            )
        for d in dists:
            make_distribution(d, L, r, median).check_admissible(L, r, g.R)
    return Study(
        regimes=chosen,
        distributions=dists,
        ns=ns,
        runs=runs,
        L=L,
        r=r,
        c=c,
        c_rule=c_rule,
        median=median,
        seed=check_seed(seed),
        fixed_design=bool(fixed_design),
        quick=bool(quick),
    )


__all__ = [
    "C_RULES",
    "DEFAULT_C",
    "DEFAULT_OUT",
    "MAX_STUDY_N",
    "QUICK_REGIMES",
    "REGIMES",
    "Cell",
    "Regime",
    "Study",
    "c_for",
    "make_study",
]
