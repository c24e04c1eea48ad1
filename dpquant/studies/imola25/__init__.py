"""The imola25 study: Sec. 6 and Figure 1 of Imola et al., "Differentially Private Quantiles with
Smaller Error", on the UCI Adult ``age`` and ``hours_per_week`` columns.

``dpquant reproduce imola25 [--runs 200] [--m 10,20,...] [--panels a,b,c,d] [--duplication K]
[--jointexp-runs 10] [--jointexp-m 10,50,100,200] [--seed 0] [--workers N] [--out DIR] [--quick]``,
or ``run(make_study(panels=["a"], ms=[10, 50]), out="reports/imola25")``. Modules: ``data`` (the
distinct Adult columns and the quantile draws), ``config`` (panels, mechanisms, :class:`Study`),
``feasibility`` (SliceQuantiles' parameters and the smallest feasible duplication), ``metrics``
(the rank error and bootstrap CIs), ``runner`` (seeded releases over a process pool), ``tables``
and ``plots`` (the files), ``arguments`` (the command line's options). Results and decisions:
``notes/imola25.md``, "Reproduction of Figure 1".
"""

from dpquant.studies.imola25.config import (
    ADJACENCIES,
    DEFAULT_OUT,
    DEFAULT_RUNS,
    DELTA,
    EPSILON,
    M_VALUES,
    MECHANISMS,
    PANELS,
    QUICK_RUNS,
    Cell,
    Study,
    build_cells,
    make_study,
)
from dpquant.studies.imola25.data import (
    ADULT_SIZE,
    BOUNDS,
    DATASETS,
    GRID,
    MAX_DUPLICATION,
    adult_distinct,
    draw_quantiles,
    grid_quantiles,
    make_distinct,
)
from dpquant.studies.imola25.feasibility import (
    Feasibility,
    choose_duplications,
    find_duplication,
    slice_feasibility,
    slice_parameters,
)
from dpquant.studies.imola25.metrics import bootstrap_mean_ci, rank_errors
from dpquant.studies.imola25.runner import (
    noise_seed,
    quantile_seed,
    release,
    run,
    run_cells,
    run_quantiles,
)
from dpquant.studies.imola25.tables import (
    FEASIBILITY_COLUMNS,
    RUN_COLUMNS,
    SUMMARY_COLUMNS,
    TIMING_COLUMNS,
    summarize_cell,
)

__all__ = [
    "DEFAULT_RUNS",
    "QUICK_RUNS",
    "ADJACENCIES",
    "ADULT_SIZE",
    "BOUNDS",
    "DATASETS",
    "DEFAULT_OUT",
    "DELTA",
    "EPSILON",
    "FEASIBILITY_COLUMNS",
    "GRID",
    "MAX_DUPLICATION",
    "MECHANISMS",
    "M_VALUES",
    "PANELS",
    "RUN_COLUMNS",
    "SUMMARY_COLUMNS",
    "TIMING_COLUMNS",
    "Cell",
    "Feasibility",
    "Study",
    "adult_distinct",
    "bootstrap_mean_ci",
    "build_cells",
    "choose_duplications",
    "draw_quantiles",
    "find_duplication",
    "grid_quantiles",
    "make_distinct",
    "make_study",
    "noise_seed",
    "quantile_seed",
    "rank_errors",
    "release",
    "run",
    "run_cells",
    "run_quantiles",
    "slice_feasibility",
    "slice_parameters",
    "summarize_cell",
]
