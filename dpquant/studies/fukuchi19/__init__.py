"""The fukuchi19 study: the synthetic study of Fukuchi et al., "Locally Differentially Private
Minimum Finding" (Sec. 6.1, Figures 1–2).

``dpquant reproduce fukuchi19 [--runs 1000] [--settings all|main] [--other-runs R]
[--min-log2n 10] [--max-log2n 20] [--data-models fixed,iid] [--schedules lower_alpha,unknown_alpha]
[--laplace main|all|none] [--laplace-iid] [--no-eps-sweep] [--exact-max-levels 10] [--seed 0]
[--workers 1] [--out DIR] [--quick]``, or ``run(make_study(settings="main"), out=...)``.
Modules: ``data`` (the Beta settings, fixed and i.i.d. data), ``config`` (the cells,
:class:`Study`), ``simulation`` (one cell: simulated and exact errors at each x_min), ``runner``
(every cell over a process pool), ``tables`` (worst case over x_min, guideline fits), ``plots``,
``arguments`` (the command line's options). The exact laws of the baseline and the rates of
Corollaries 1–2 are paper maths: :mod:`dpquant.reference.ldp_minimum.minimum_laws`. Results:
``notes/fukuchi19.md``, "Reproduction of the synthetic study".
"""

from dpquant.studies.fukuchi19.config import (
    DATA_MODELS,
    DEFAULT_OUT,
    DEFAULT_RUNS,
    EPS_SWEEP,
    EPSILONS,
    LOG2N,
    MECHANISMS,
    PANELS,
    QUICK_RUNS,
    Cell,
    PanelPoint,
    Study,
    build_points,
    make_study,
)
from dpquant.studies.fukuchi19.runner import run, run_points
from dpquant.studies.fukuchi19.simulation import (
    CellResult,
    XminResult,
    cell_rule,
    cell_seed,
    laplace_errors,
    laplace_shift_gap,
    ldp_min_errors,
    run_cell,
    summarize_errors,
)
from dpquant.studies.fukuchi19.tables import (
    FIT_COLUMNS,
    SUMMARY_COLUMNS,
    TIMING_COLUMNS,
    XMIN_COLUMNS,
    fit_constant,
    fit_rows,
    fitted_rate,
    summary_row,
)

__all__ = [
    "DEFAULT_RUNS",
    "QUICK_RUNS",
    "DATA_MODELS",
    "DEFAULT_OUT",
    "EPSILONS",
    "EPS_SWEEP",
    "FIT_COLUMNS",
    "LOG2N",
    "MECHANISMS",
    "PANELS",
    "SUMMARY_COLUMNS",
    "TIMING_COLUMNS",
    "XMIN_COLUMNS",
    "Cell",
    "CellResult",
    "PanelPoint",
    "Study",
    "XminResult",
    "build_points",
    "cell_rule",
    "cell_seed",
    "fit_constant",
    "fit_rows",
    "fitted_rate",
    "laplace_errors",
    "laplace_shift_gap",
    "ldp_min_errors",
    "make_study",
    "run",
    "run_cell",
    "run_points",
    "summarize_errors",
    "summary_row",
]
