"""What the fukuchi19 study runs (Sec. 6.1, Figures 1–2 of Fukuchi et al.): the cells and the
study's configuration (:class:`Study`, :func:`make_study`).

Grid (Sec. 6.1): the 30 Beta settings of :mod:`.data` (Δ × α × β), N = 2^10..2^20, ε ∈ {1, 4},
the schedules of Corollaries 1 and 2 (Sec. 5; ``lower_alpha``: L = ⌈log₂N/2⌉, h_N = ln N/2;
``unknown_alpha``: L = ⌈log₂²N/(2 log₂1000)⌉, h_N = ln²N/(2 ln 1000); γ of Theorem 2, never
clamped), both data models (``fixed`` and ``iid``, :mod:`.data`). The Err-vs-ε panel (Fig. 1 right): the main
setting, ε = 2^−3..2^6, N ∈ {2^15, 2^20}. The Laplace baseline costs N·runs draws, so by default
it runs on the main setting only (``laplace="all"``: every setting), on fixed data
(``laplace_iid=True`` adds i.i.d. data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpquant.errors import CombinationError, ParameterError
from dpquant.reference.ldp_minimum import SCHEDULES
from dpquant.reference.validation import check_choice, check_flag, check_int
from dpquant.studies.fukuchi19.data import MAIN_SETTING, Setting, all_settings, x_min_grid
from dpquant.studies.harness import check_seed, name_choices

MAX_RUNS = 10**7
PANELS = ("err_vs_n", "err_vs_eps")
MECHANISMS = ("ldp_min", "laplace")
DATA_MODELS = ("fixed", "iid")
SETTINGS_CHOICES = ("main", "all")
LAPLACE_CHOICES = ("main", "all", "none")
LOG2N: tuple[int, ...] = tuple(range(10, 21))
MAX_LOG2N = 30
EPSILONS: tuple[float, ...] = (1.0, 4.0)
EPS_SWEEP: tuple[float, ...] = tuple(2.0**k for k in range(-3, 7))
EPS_SWEEP_LOG2N: tuple[int, ...] = (15, 20)
DEFAULT_RUNS = 1000
QUICK_RUNS = 300
QUICK_LOG2N: tuple[int, ...] = (10, 11, 12)
QUICK_EPS_SWEEP: tuple[float, ...] = (0.125, 1.0, 8.0)
QUICK_EPS_SWEEP_LOG2N: tuple[int, ...] = (15,)
FIT_LOG2N = (14, 20)  # Err vs N: the guideline is fitted on n = log2 N in this range
EPS_FIT = (1.0, 4.0)  # Err vs ε: ... and on ε in this range (moderate: no saturation at 2)
EXACT_MAX_LEVELS = 10
DEFAULT_OUT = Path("reports") / "fukuchi19"


@dataclass(frozen=True)
class Cell:
    """One curve point before the worst case over x_min: a mechanism (and schedule) on one
    setting and data model at N = 2^log2_n and budget ε."""

    setting: Setting
    data_model: str
    mechanism: str
    schedule: str | None
    log2_n: int
    epsilon: float
    runs: int

    @property
    def n(self) -> int:
        return 1 << self.log2_n

    @property
    def key(self) -> str:
        """What the seeds depend on (not ``runs``)."""
        return (
            f"{self.setting.name}|{self.data_model}|{self.mechanism}|{self.schedule}|"
            f"{self.log2_n}|{self.epsilon!r}"
        )

    def x_mins(self) -> tuple[float, ...]:
        """The six x_min of Sec. 6.1; the unclipped baseline needs one (its error's law does not
        depend on x_min)."""
        grid = x_min_grid(self.setting.delta)
        return grid[:1] if self.mechanism == "laplace" else grid


def check_data_model(data_model: Any) -> str:
    """``"fixed"`` or ``"iid"``."""
    if data_model not in DATA_MODELS:
        raise ParameterError("data_model", f"must be one of {DATA_MODELS}", repr(data_model))
    return data_model


@dataclass(frozen=True)
class Study:
    """Every resolved option of a run (see :func:`make_study`)."""

    settings: tuple[Setting, ...]
    runs: int
    other_runs: int
    log2ns: tuple[int, ...]
    epsilons: tuple[float, ...]
    schedules: tuple[str, ...]
    data_models: tuple[str, ...]
    laplace: str
    laplace_iid: bool
    eps_sweep: tuple[float, ...]
    eps_sweep_log2ns: tuple[int, ...]
    exact_max_levels: int
    seed: int
    fit_log2n: tuple[int, int]
    eps_fit: tuple[float, float]
    quick: bool = False
    laplace_settings: tuple[Setting, ...] = field(default=())

    def runs_for(self, setting: Setting) -> int:
        return self.runs if setting.is_main else self.other_runs


def make_study(
    *,
    settings: str | None = None,
    runs: int | None = None,
    other_runs: int | None = None,
    min_log2n: int | None = None,
    max_log2n: int | None = None,
    data_models: Sequence[str] | str | None = None,
    schedules: Sequence[str] | str | None = None,
    laplace: str | None = None,
    laplace_iid: bool = False,
    eps_sweep: bool = True,
    exact_max_levels: int | None = None,
    seed: int = 0,
    quick: bool = False,
) -> Study:
    """The validated configuration (defaults: the full study; ``quick``: the main setting,
    N = 2^10..2^12, 300 runs, the ε sweep at N = 2^15 with ε ∈ {1/8, 1, 8}).

    ``settings`` "all" (default) or "main"; ``runs`` per cell (1000; quick 300), ``other_runs``
    for the settings other than the main one (default ``runs``); N = 2^min_log2n..2^max_log2n
    (10..20; quick 10..12); ``data_models`` among fixed, iid; ``schedules`` among lower_alpha,
    unknown_alpha; ``laplace`` main|all|none; ``laplace_iid`` adds the baseline on i.i.d. data;
    ``eps_sweep`` the Err-vs-ε panel; ``exact_max_levels`` (10; 0: no exact law)."""
    quick = check_flag(quick, "quick")
    laplace_iid = check_flag(laplace_iid, "laplace_iid")
    eps_sweep = check_flag(eps_sweep, "eps_sweep")
    settings = settings if settings is not None else ("main" if quick else "all")
    check_choice(settings, "settings", SETTINGS_CHOICES)
    chosen = (MAIN_SETTING,) if settings == "main" else all_settings()
    runs = (QUICK_RUNS if quick else DEFAULT_RUNS) if runs is None else runs
    runs = check_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    other_runs = (
        runs
        if other_runs is None
        else check_int(other_runs, "other_runs", minimum=2, maximum=MAX_RUNS)
    )
    lo = 10 if min_log2n is None else check_int(min_log2n, "min_log2n", minimum=1)
    hi = (max(QUICK_LOG2N) if quick else 20) if max_log2n is None else max_log2n
    hi = check_int(hi, "max_log2n", minimum=1)
    if hi > MAX_LOG2N or lo > hi:
        raise CombinationError(
            ("min_log2n", "max_log2n"), f"need 1 <= min <= max <= {MAX_LOG2N}", f"{lo} and {hi}"
        )
    log2ns = tuple(range(lo, hi + 1))
    if quick:
        log2ns = tuple(n for n in QUICK_LOG2N if lo <= n <= hi) or log2ns
    # the ε sweep keeps its own N (quick: 2^15 even though the N sweep stops at 2^12), within
    # the bounds given explicitly
    sweep_hi = hi if (max_log2n is not None or not quick) else max(QUICK_EPS_SWEEP_LOG2N)
    sweep_ns = QUICK_EPS_SWEEP_LOG2N if quick else EPS_SWEEP_LOG2N
    sweep_ns = tuple(n for n in sweep_ns if lo <= n <= sweep_hi)
    sweep = (QUICK_EPS_SWEEP if quick else EPS_SWEEP) if eps_sweep else ()
    laplace = "main" if laplace is None else laplace
    check_choice(laplace, "laplace", LAPLACE_CHOICES)
    laplace_settings = {"main": (MAIN_SETTING,), "all": chosen, "none": ()}[laplace]
    laplace_settings = tuple(s for s in laplace_settings if s in chosen)
    exact = EXACT_MAX_LEVELS if exact_max_levels is None else exact_max_levels
    exact = check_int(exact, "exact_max_levels", minimum=0, maximum=52)
    fit_log2n = (min(log2ns), max(log2ns)) if quick else FIT_LOG2N
    return Study(
        settings=chosen,
        runs=runs,
        other_runs=other_runs,
        log2ns=log2ns,
        epsilons=EPSILONS,
        schedules=name_choices(
            SCHEDULES if schedules is None else schedules, SCHEDULES, "schedules"
        ),
        data_models=name_choices(
            DATA_MODELS if data_models is None else data_models, DATA_MODELS, "data_models"
        ),
        laplace=laplace,
        laplace_iid=bool(laplace_iid),
        eps_sweep=sweep if MAIN_SETTING in chosen else (),
        eps_sweep_log2ns=sweep_ns,
        exact_max_levels=exact,
        seed=check_seed(seed),
        fit_log2n=fit_log2n,
        eps_fit=EPS_FIT,
        quick=bool(quick),
        laplace_settings=laplace_settings,
    )


@dataclass(frozen=True)
class PanelPoint:
    """A cell as a point of a panel."""

    panel: str
    cell: Cell


def build_points(study: Study) -> list[PanelPoint]:
    """Every (panel, cell) of the study: Err vs N for Algorithm 2 (every setting) and the baseline,
    Err vs ε for Algorithm 2 (main setting)."""
    pts: list[PanelPoint] = []
    for s in study.settings:
        runs = study.runs_for(s)
        for dm in study.data_models:
            for sched in study.schedules:
                for eps in study.epsilons:
                    for n in study.log2ns:
                        pts.append(
                            PanelPoint("err_vs_n", Cell(s, dm, "ldp_min", sched, n, eps, runs))
                        )
    for s in study.laplace_settings:
        runs = study.runs_for(s)
        for dm in ("fixed", "iid") if study.laplace_iid else ("fixed",):
            for eps in study.epsilons:
                for n in study.log2ns:
                    pts.append(PanelPoint("err_vs_n", Cell(s, dm, "laplace", None, n, eps, runs)))
    if study.eps_sweep:
        for dm in study.data_models:
            for sched in study.schedules:
                for n in study.eps_sweep_log2ns:
                    for eps in study.eps_sweep:
                        cell = Cell(MAIN_SETTING, dm, "ldp_min", sched, n, eps, study.runs)
                        pts.append(PanelPoint("err_vs_eps", cell))
    return pts


__all__ = [
    "DATA_MODELS",
    "DEFAULT_OUT",
    "EPSILONS",
    "EPS_SWEEP",
    "LOG2N",
    "MECHANISMS",
    "PANELS",
    "Cell",
    "PanelPoint",
    "Study",
    "build_points",
    "check_data_model",
    "make_study",
]
