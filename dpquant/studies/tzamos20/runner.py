"""Running the tzamos20 accuracy study: the exact miss of every data set, over a process pool.

For each data set X the inner probability P(A(X) ∈ [m(D) − α, m(D) + α] | X) is exact (the
piecewise log-linear output law of the extension, Eq. (A.6), integrated at 60 digits:
:func:`dpquant.reference.private_median.rates.private_miss`); only the outer expectation over X ~ Dⁿ is
Monte Carlo (``runs`` data sets per cell), plus one fixed-design data set per cell whose miss is
exact outright. Per data set also: X ∈ H and TH(X, m(X)) (Lemmas B.2, B.3; the exact
TYPICALHAMMING), and whether Ψ_X is the single tent at m(X) (A(X) = Â(X) exactly).

**Randomness**: ``SeedSequence(seed, spawn_key=(crc("tzamos20"), crc(data key), j))`` for data
set j, the data key being (distribution, n, L, r, median): the results depend neither on
``workers`` nor on how the cells are chunked, and every regime sees the same data sets (common
random numbers, so the regimes' curves differ by the mechanism only).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.private_median import (
    MedianParameters,
    PrivateMedian,
    exact_data,
    in_typical_set,
    left_median,
    private_miss,
    restricted_pieces,
    typical_hamming,
)
from dpquant.studies import harness
from dpquant.studies.tzamos20.config import DEFAULT_OUT, Cell, Study
from dpquant.studies.tzamos20.data import fixed_design
from dpquant.studies.tzamos20.plots import plot_study
from dpquant.studies.tzamos20.tables import (
    TABLES,
    DataResult,
    crossing_rows,
    run_rows,
    summary_row,
)

CHUNK = 8  # data sets per task


def data_seed(seed: int, cell: Cell, j: int) -> np.random.SeedSequence:
    """The randomness of data set ``j`` of ``cell`` (module docstring)."""
    return harness.spawn_seed(seed, "tzamos20", cell.data_key, j)


def cell_data(cell: Cell, seed: int, j: int) -> np.ndarray:
    """Data set ``j`` of ``cell``: n i.i.d. draws of D; j = −1 is the fixed design."""
    dist = cell.dist()
    if j < 0:
        return fixed_design(dist, cell.n)
    return dist.sample(cell.n, np.random.default_rng(data_seed(seed, cell, j)))


def evaluate_data(
    mech: PrivateMedian, data: Any, center: Any, alpha: Any
) -> tuple[float, bool, bool, int, int, bool]:
    """For one data set: (exact miss of A(X) around ``center``, |m(X) − center| > α, X ∈ H,
    TH(X, m(X)), #pieces of Ψ_X, Ψ_X = the single tent at m(X))."""
    x = exact_data(data)
    params: MedianParameters = mech.parameters(len(x))
    pieces = mech.pieces(x)
    law = mech.exact(x)
    if not isinstance(law, PiecewiseLogLinear):  # the extension's law, Eq. (A.6)
        raise TypeError(f"the mechanism's law must be piecewise log-linear, got {law!r:.80}")
    miss = float(private_miss(law, center, alpha))
    m = left_median(x, params)
    tent = restricted_pieces(m, params)
    return (
        miss,
        abs(m - Fraction(center)) > Fraction(alpha),
        in_typical_set(x, params),
        int(typical_hamming(x, m, params)),
        len(pieces),
        list(pieces) == list(tent),
    )


def run_data(cell: Cell, seed: int, j: int) -> DataResult:
    """Evaluate data set ``j`` of ``cell`` (j = −1: the fixed design)."""
    start = time.perf_counter()
    x = cell_data(cell, seed, j)
    out = evaluate_data(cell.mechanism(), x, cell.median, cell.regime.alpha)
    return DataResult(j, *out, time.perf_counter() - start)


@dataclass(frozen=True)
class _Task:
    cell: Cell
    seed: int
    runs: tuple[int, ...]


def _run_task(task: _Task) -> tuple[Cell, list[DataResult]]:
    return task.cell, [run_data(task.cell, task.seed, j) for j in task.runs]


def build_tasks(study: Study) -> list[_Task]:
    """Chunks of :data:`CHUNK` data sets (plus the fixed design), the most expensive (largest n)
    first."""
    tasks = []
    for cell in study.cells():
        runs = list(range(study.runs))
        if study.fixed_design:
            runs = [-1, *runs]
        for i in range(0, len(runs), CHUNK):
            tasks.append(_Task(cell, study.seed, tuple(runs[i : i + CHUNK])))
    return sorted(tasks, key=lambda t: -t.cell.n)


def run_tasks(
    tasks: Sequence[_Task], workers: int, progress: harness.Progress | None = None
) -> dict[str, tuple[Cell, list[DataResult]]]:
    """Run every task (in ``workers`` processes when > 1); results grouped by cell key."""
    out: dict[str, tuple[Cell, list[DataResult]]] = {}
    total = sum(len(t.runs) for t in tasks)
    done = 0

    def collect(cell: Cell, results: list[DataResult]) -> None:
        nonlocal done
        out.setdefault(cell.key, (cell, []))[1].extend(results)
        done += len(results)
        if progress is not None:
            progress("tzamos20", done, total)

    if workers <= 1:
        for t in tasks:
            collect(*_run_task(t))
    else:
        with harness.process_pool(workers) as pool:
            for cell, results in harness.task_map(_run_task, tasks, pool):
                collect(cell, results)
    return out


def study_parts(
    study: Study, workers: int, progress: harness.Progress | None
) -> list[harness.StudyPart]:
    """The study's one part: ``tzamos20.csv`` (one row per regime, distribution and n),
    ``tzamos20_runs.csv`` (one row per data set), ``tzamos20_crossings.csv`` and the figures
    (:mod:`.plots`). ``progress("tzamos20", done, total)`` counts data sets."""
    results = run_tasks(build_tasks(study), workers, progress)
    cells = [results[c.key] for c in study.cells()]
    summary = [summary_row(cell, res) for cell, res in cells]
    per_run = [row for cell, res in cells for row in run_rows(cell, res)]
    crossings = crossing_rows(summary)
    figures = functools.partial(plot_study, summary, crossings)
    return [harness.StudyPart("tzamos20", TABLES, (summary, per_run, crossings), figures)]


run = harness.study_runner(Study, DEFAULT_OUT, study_parts, default_workers=1)


__all__ = [
    "build_tasks",
    "cell_data",
    "data_seed",
    "evaluate_data",
    "run",
    "run_data",
    "run_tasks",
    "study_parts",
]
