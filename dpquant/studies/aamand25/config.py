"""What the aamand25 study runs: the estimators, the grids, the cells of each figure (Sec. 5 and
App. I of Aamand et al., ICML 2025) and the study's configuration (:class:`Study`).

Grids (Sec. 5, "Experimental setup"): ε over 10 log-spaced values in [0.1, 5], the update
constant c of DpBayeSS (α̃ = c·sqrt(ln B/n), App. I) over 10 values in [0.1, 2] (default 0.6),
α_test over the nine values of the authors' notebooks (0.04 in the figures).

Figures: 1a (Pareto, n = 2500, B = 4⁹, four mechanisms), 1b (skewed uniform, n = 2500, ε = 1,
B = 10³..10⁶), 2 (DpBayeSS's c sweep), 3 (skewed uniform, ε = 1/2 and 1), 4 (shuffle DpNaiveNBS
vs local, n = 10⁷, δ = 10⁻⁸) and 5 (the comparison at three n and two B). ``quick`` shrinks every
grid and size for smoke tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles import (
    AUTHORS_OPTIONS,
    dp_bayess,
    dp_bayess_runs,
    dp_naive_nbs,
    hierarchical_median,
    shuffle_nbs,
)
from dpquant.reference.validation import check_choice, check_flag, check_int
from dpquant.studies.aamand25.data import AUTHORS_SEED
from dpquant.studies.harness import check_seed

TAU = 0.5
EPS_GRID: tuple[float, ...] = tuple(float(e) for e in np.geomspace(0.1, 5, 10))
C_GRID: tuple[float, ...] = tuple(float(c) for c in np.linspace(0.1, 2, 10))
ALPHA_TESTS = (0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.15, 0.2)
MAIN_ALPHA = 0.04
FIND_C_EPSILONS = (0.5, 1.0, 1.5)
UNIFORM_EPSILONS = (0.5, 1.0)
SHUFFLE_DELTA = 1e-8
DEFAULT_C = 0.6
DEFAULT_RUNS = 200
QUICK_RUNS = 4
DEFAULT_OUT = Path("reports") / "aamand25"
FIGURES = ("fig1a", "fig1b", "fig2", "fig3", "fig4", "fig5")
MAX_RUNS = 10_000
"""The most runs per configuration (the paper uses 200; 10^4 runs of one figure take hours)."""


# --------------------------------------------------------------------------------------------
# the estimators
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """One plotted mechanism: its estimator ``fn(users, B, epsilon, rng, **options) -> coin``.

    ``options`` are passed as keywords; ``takes_c`` passes the update constant c (App. I:
    α̃ = c·sqrt(ln B/n)); ``shuffle`` calls ``fn(users, B, epsilon, delta, rng, ...)``;
    ``counts_from``: from this many users on, the runs draw each batch's answers as counts
    (``sampler="counts"``, the users passed as a ``Population`` sorted once per task: the same
    law as one RR bit per user, O(rounds) a run instead of O(n)); ``batched``, when set, runs
    a task's runs in one call ``batched(users, B, epsilon, rngs, **options)`` with the same
    coins as ``target`` run by run (DpBayeSS: its BayesLearn stages compiled for all runs).
    """

    target: Callable[..., Any]
    options: Mapping[str, Any] = field(default_factory=dict)
    takes_c: bool = False
    shuffle: bool = False
    counts_from: int | None = None
    batched: Callable[..., Any] | None = None


COUNTS_FROM = 10**6
"""The batched searches and the HM draw their users' randomness as counts from this many users on
(Fig. 4's n = 10^7; every other figure has n <= 7 500 and keeps the per-user draws its committed
tables were made with)."""


# what the paper plotted: the authors' always-left rounding and np.quantile selection
_AUTHORS_BAYESS = {**AUTHORS_OPTIONS, "rounding": "left", "selection": "numpy"}
_PAPER_BAYESS = {"rounding": "paper", "selection": "paper"}
SERIES: dict[str, Series] = {
    "DpBayeSS": Series(dp_bayess, _AUTHORS_BAYESS, True, batched=dp_bayess_runs),
    "DpBayeSS (paper rounding)": Series(dp_bayess, _PAPER_BAYESS, True, batched=dp_bayess_runs),
    "DpNaiveNBS": Series(dp_naive_nbs, {"faithful": True}, counts_from=COUNTS_FROM),
    "HM": Series(hierarchical_median, counts_from=COUNTS_FROM),
    "Shuffle DpNaiveNBS (paper ε_L)": Series(
        shuffle_nbs,
        {"local_epsilon": "paper", "faithful": True},
        shuffle=True,
        counts_from=COUNTS_FROM,
    ),
    "Shuffle DpNaiveNBS (Lemma G.5 ε_L)": Series(
        shuffle_nbs,
        {"local_epsilon": "lemma_g5", "faithful": True},
        shuffle=True,
        counts_from=COUNTS_FROM,
    ),
}
COMPARISON = ("DpBayeSS", "DpBayeSS (paper rounding)", "DpNaiveNBS", "HM")
"""The mechanisms of Fig. 1a and Fig. 5."""
UNIFORM_MECHANISMS = ("DpBayeSS", "DpNaiveNBS")
"""The mechanisms of Fig. 1b and Fig. 3."""


# --------------------------------------------------------------------------------------------
# cells and figures
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One (figure, configuration, mechanism, ε): a data set, an estimator and its parameters."""

    figure: str
    panel: str
    dataset: str
    n: int
    B: int
    mechanism: str
    epsilon: float
    c: float | None = None
    delta: float | None = None
    data_seed: int = AUTHORS_SEED

    @property
    def configuration(self) -> str:
        return (
            f"{self.dataset}:n={self.n}:B={self.B}:data_seed={self.data_seed}"
            f":c={self.c!r}:delta={self.delta!r}"
        )


@dataclass(frozen=True)
class PlotSpec:
    """How a figure is drawn: success vs ``x`` with one line per ``lines`` value, and the error
    CDF at ``cdf_at`` = (field, value) (``None``: the mean error vs ``x`` instead)."""

    x: str
    lines: str
    cdf_at: tuple[str, float] | None


@dataclass(frozen=True)
class FigureSpec:
    name: str
    title: str
    cells: tuple[Cell, ...]
    plot: PlotSpec


def b_label(B: int) -> str:
    """``4^9`` for 4⁹, ``10^3`` for 10³, else the number."""
    for base in (4, 10):
        k = round(math.log(B, base))
        if base**k == B:
            return f"{base}^{k}"
    return str(B)


def panel_name(n: int, B: int, extra: str = "") -> str:
    """The title of a panel of Pareto data: ``n=2500, B=4^9``."""
    return f"n={n}, B={b_label(B)}{extra}"


# --quick: smaller n and B (4⁹ → 4⁷, 4⁸ → 4⁶), three ε, three c, two uniform B, 4 runs
_QUICK_N = {2500: 1000, 5000: 2000, 7500: 3000, 10**7: 2 * 10**5}
_QUICK_B = {4**9: 4**7, 4**8: 4**6}


def _size(n: int, B: int, quick: bool) -> tuple[int, int]:
    return (_QUICK_N.get(n, n), _QUICK_B.get(B, B)) if quick else (n, B)


def _eps_grid(quick: bool) -> tuple[float, ...]:
    return (EPS_GRID[0], EPS_GRID[4], EPS_GRID[9]) if quick else EPS_GRID


def _comparison_cells(
    figure: str, sizes: Iterable[tuple[int, int]], mechanisms: Sequence[str], quick: bool
) -> tuple[Cell, ...]:
    cells = []
    for n0, B0 in sizes:
        n, B = _size(n0, B0, quick)
        for mech in mechanisms:
            c = DEFAULT_C if SERIES[mech].takes_c else None
            for eps in _eps_grid(quick):
                cells.append(Cell(figure, panel_name(n, B), "pareto", n, B, mech, eps, c))
    return tuple(cells)


def _uniform_cells(
    figure: str, epsilons: Sequence[float], quick: bool, with_100: bool
) -> tuple[tuple[Cell, ...], int]:
    Bs = (
        (10**3, 10**4)
        if quick
        else ((10**2,) if with_100 else ()) + tuple(10**k for k in (3, 4, 5, 6))
    )
    n = 1000 if quick else 2500
    cells = []
    for eps in epsilons:
        for mech in UNIFORM_MECHANISMS:
            c = DEFAULT_C if SERIES[mech].takes_c else None
            for B in Bs:
                cells.append(Cell(figure, f"n={n}, ε={eps:g}", "uniform", n, B, mech, eps, c))
    return tuple(cells), max(Bs)


def build_figure(name: str, quick: bool = False) -> FigureSpec:
    """The configurations of one figure (Sec. 5 and App. I; ``quick``: a tiny version)."""
    name = check_choice(name, "figure", FIGURES)
    quick = check_flag(quick, "quick")
    if name == "fig1a":
        cells = _comparison_cells(name, [(2500, 4**9)], COMPARISON, quick)
        plot = PlotSpec("epsilon", "mechanism", ("epsilon", EPS_GRID[4]))
        return FigureSpec(name, "Fig. 1a: Pareto data, three mechanisms", cells, plot)
    if name == "fig1b":
        cells, b_max = _uniform_cells(name, (1.0,), quick, with_100=False)
        plot = PlotSpec("B", "mechanism", ("B", b_max))
        return FigureSpec(name, "Fig. 1b: uniform data, ε = 1", cells, plot)
    if name == "fig2":
        cgrid = (C_GRID[0], C_GRID[2], C_GRID[9]) if quick else C_GRID
        sweep: list[Cell] = []
        for n0, B0 in ((2500, 4**9), (5000, 4**8)):
            n, B = _size(n0, B0, quick)
            for eps in FIND_C_EPSILONS:
                for c in cgrid:
                    sweep.append(Cell(name, panel_name(n, B), "pareto", n, B, "DpBayeSS", eps, c))
        plot = PlotSpec("c", "epsilon", None)
        return FigureSpec(name, "Fig. 2: DpBayeSS, α̃ = c·sqrt(ln B/n)", tuple(sweep), plot)
    if name == "fig3":
        cells, b_max = _uniform_cells(name, UNIFORM_EPSILONS, quick, with_100=True)
        plot = PlotSpec("B", "mechanism", ("B", b_max))
        return FigureSpec(name, "Fig. 3: uniform data", cells, plot)
    if name == "fig4":
        n, B = _size(10**7, 4**8, quick)
        shuffle: list[Cell] = []
        for mech in (
            "DpNaiveNBS",
            "Shuffle DpNaiveNBS (paper ε_L)",
            "Shuffle DpNaiveNBS (Lemma G.5 ε_L)",
        ):
            delta = SHUFFLE_DELTA if SERIES[mech].shuffle else None
            for eps in _eps_grid(quick):
                cell = Cell(name, panel_name(n, B), "pareto", n, B, mech, eps, None, delta)
                shuffle.append(cell)
        plot = PlotSpec("epsilon", "mechanism", ("epsilon", EPS_GRID[4]))
        title = "Fig. 4: shuffle vs local DpNaiveNBS, δ = 1e-8"
        return FigureSpec(name, title, tuple(shuffle), plot)
    sizes = [(n, B) for B in (4**9, 4**8) for n in (2500, 5000, 7500)]
    cells = _comparison_cells(name, sizes, COMPARISON, quick)
    plot = PlotSpec("epsilon", "mechanism", ("epsilon", EPS_GRID[4]))
    return FigureSpec(name, "Fig. 5: comparison on Pareto data", cells, plot)


# --------------------------------------------------------------------------------------------
# the study's configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Study:
    """What :func:`dpquant.studies.aamand25.run` runs: the figures, the runs per configuration,
    the seed of every run and whether the grids are the ``quick`` ones (see :func:`make_study`)."""

    figures: tuple[str, ...]
    runs: int
    seed: int
    quick: bool = False

    def specs(self) -> list[FigureSpec]:
        """The configurations of every figure of the study."""
        return [build_figure(name, self.quick) for name in self.figures]


def check_runs(runs: Any, quick: bool) -> int:
    """Runs per configuration in [1, :data:`MAX_RUNS`]; ``None``: 200 (``quick``: 4)."""
    if runs is None:
        return QUICK_RUNS if quick else DEFAULT_RUNS
    return check_int(runs, "runs", minimum=1, maximum=MAX_RUNS)


def make_study(
    figures: Sequence[str] | None = None,
    *,
    runs: int | None = None,
    seed: int = 0,
    quick: bool = False,
) -> Study:
    """The validated configuration: ``figures`` among :data:`FIGURES` (default all of them),
    ``runs`` per configuration (default 200, or 4 with ``quick``), ``seed`` >= 0 of every run,
    ``quick`` for the tiny grids of smoke tests."""
    if figures is not None and (isinstance(figures, str) or not isinstance(figures, list | tuple)):
        raise ParameterError("names", "must be None or a list of figure names", f"{figures!r:.60}")
    names = tuple(FIGURES if figures is None else figures)
    for name in names:
        check_choice(name, "figure", FIGURES)
    quick = check_flag(quick, "quick")
    return Study(names, check_runs(runs, quick), check_seed(seed), quick)


__all__ = [
    "ALPHA_TESTS",
    "COUNTS_FROM",
    "C_GRID",
    "DEFAULT_OUT",
    "EPS_GRID",
    "FIGURES",
    "MAIN_ALPHA",
    "SERIES",
    "Cell",
    "FigureSpec",
    "PlotSpec",
    "Series",
    "Study",
    "build_figure",
    "make_study",
]
