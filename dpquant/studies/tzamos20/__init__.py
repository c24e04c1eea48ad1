"""The tzamos20 study: the accuracy of the ε-DP private median of Tzamos, Vlatakis-Gkaragkounis,
Zadik, "Optimal Private Median Estimation under Minimal Distributional Assumptions" (NeurIPS
2020). The paper has no experiments; this study is ours (``notes/tzamos20.md``, "Accuracy
study").

``dpquant reproduce tzamos20 [--runs 40] [--n-values 20,40,...,5120] [--regimes LIST]
[--distributions uniform,pareto] [--c 5/4] [--c-rule constant|log] [--seed 0] [--workers 1]
[--out DIR] [--quick]``, or ``run(make_study(regimes="local", ns=[20, 40]), out=...)``. Modules:
``data`` (two admissible laws and the fixed design), ``config`` (regimes, C, cells,
:class:`Study`), ``runner`` (the exact miss of every data set over a process pool), ``tables``
(means, CIs, crossings), ``plots``, ``arguments`` (the command line's options). The rate terms
and exact miss probabilities are paper maths: :mod:`dpquant.reference.private_median.rates`.
"""

from dpquant.studies.tzamos20.config import (
    C_RULES,
    DEFAULT_C,
    DEFAULT_OUT,
    DEFAULT_RUNS,
    QUICK_REGIMES,
    QUICK_RUNS,
    REGIMES,
    Cell,
    Regime,
    Study,
    c_for,
    make_study,
)
from dpquant.studies.tzamos20.data import (
    DISTRIBUTIONS,
    ParetoTailedData,
    UniformData,
    fixed_design,
    make_distribution,
)
from dpquant.studies.tzamos20.runner import (
    build_tasks,
    cell_data,
    data_seed,
    evaluate_data,
    run,
    run_data,
    run_tasks,
)
from dpquant.studies.tzamos20.tables import (
    CROSSING_COLUMNS,
    RUN_COLUMNS,
    SUMMARY_COLUMNS,
    TIMING_COLUMNS,
    DataResult,
    crossing,
    crossing_rows,
    first_stay_below,
    summary_row,
)

__all__ = [
    "DEFAULT_RUNS",
    "QUICK_RUNS",
    "CROSSING_COLUMNS",
    "C_RULES",
    "DEFAULT_C",
    "DEFAULT_OUT",
    "DISTRIBUTIONS",
    "QUICK_REGIMES",
    "REGIMES",
    "RUN_COLUMNS",
    "SUMMARY_COLUMNS",
    "TIMING_COLUMNS",
    "Cell",
    "DataResult",
    "ParetoTailedData",
    "Regime",
    "Study",
    "UniformData",
    "build_tasks",
    "c_for",
    "cell_data",
    "crossing",
    "crossing_rows",
    "data_seed",
    "evaluate_data",
    "first_stay_below",
    "fixed_design",
    "make_distribution",
    "make_study",
    "run",
    "run_data",
    "run_tasks",
    "summary_row",
]
