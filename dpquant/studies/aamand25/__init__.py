"""The aamand25 study: Sec. 5 and App. I of Aamand et al., "Lightweight Protocols for
Distributed Private Quantile Estimation" (ICML 2025), figures 1a, 1b, 2, 3, 4 and 5.

``dpquant reproduce aamand25 [--figure NAME] [--runs 200] [--seed 0] [--workers N] [--out DIR]
[--quick]``, or ``run(make_study(["fig1a"], runs=200), out="reports/aamand25")``
(:func:`run_figure` for one figure). Modules: ``data`` (the authors' data sets, bit for bit, and
their population laws), ``config`` (estimators, grids, the cells of each figure, :class:`Study`),
``metrics`` (success and absolute quantile error), ``runner`` (seeded runs over a process pool),
``tables`` (the CSV files), ``plots`` (the PNG files), ``arguments`` (the command line's options).
Results and the comparison with the paper: ``notes/aamand25.md``, "Reproduction".
"""

from dpquant.studies.aamand25.config import (
    ALPHA_TESTS,
    C_GRID,
    COMPARISON,
    COUNTS_FROM,
    DEFAULT_OUT,
    DEFAULT_RUNS,
    EPS_GRID,
    FIGURES,
    QUICK_RUNS,
    SERIES,
    Cell,
    FigureSpec,
    PlotSpec,
    Series,
    Study,
    build_figure,
    make_study,
)
from dpquant.studies.aamand25.metrics import (
    SortedUsers,
    absolute_quantile_errors,
    binomial_stderr,
    success_indicators,
    true_median,
)
from dpquant.studies.aamand25.runner import (
    check_estimators,
    resolve_series,
    run,
    run_cells,
    run_figure,
    run_seed,
)
from dpquant.studies.aamand25.tables import (
    ERROR_COLUMNS,
    SUMMARY_COLUMNS,
    RunResult,
    figure_tables,
    summarize_cell,
)

__all__ = [
    "DEFAULT_RUNS",
    "QUICK_RUNS",
    "ALPHA_TESTS",
    "COMPARISON",
    "COUNTS_FROM",
    "C_GRID",
    "DEFAULT_OUT",
    "EPS_GRID",
    "ERROR_COLUMNS",
    "FIGURES",
    "SERIES",
    "SUMMARY_COLUMNS",
    "Cell",
    "FigureSpec",
    "PlotSpec",
    "RunResult",
    "Series",
    "SortedUsers",
    "Study",
    "absolute_quantile_errors",
    "binomial_stderr",
    "build_figure",
    "check_estimators",
    "figure_tables",
    "make_study",
    "resolve_series",
    "run",
    "run_cells",
    "run_figure",
    "run_seed",
    "success_indicators",
    "summarize_cell",
    "true_median",
]
