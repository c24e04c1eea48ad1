"""Running the imola25 study: the releases of every cell, seeded, in parallel, then the files.

Within a run every mechanism sees the same data, the same n and the same quantiles. Randomness:
``SeedSequence(seed, spawn_key=...)`` per purpose, the names hashed with CRC-32: the quantiles of
a run from ("quantiles", dataset, adjacency, m, run), shared by the mechanisms; each mechanism's
noise from ("noise", dataset, adjacency, m, mechanism, run), fresh per run (the authors reuse one
CC draw for all 200 runs; we do not, ``notes/imola25.md``, "Reproduction decisions"); the
bootstrap from ("bootstrap", dataset, adjacency, m, mechanism). The authors seed the quantiles
with ``np.random.seed(42 + run)``; ours differ, which only changes which draws are used. The
output depends neither on ``workers`` nor on how the runs are batched.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.slice_quantiles import (
    approximate_quantiles,
    joint_exp,
    plan_slice_quantiles,
    target_ranks,
    with_options,
)
from dpquant.reference.validation import check_choice, check_data, check_int, check_rng
from dpquant.studies import harness
from dpquant.studies.imola25.config import (
    ADJACENCIES,
    BETA,
    DEFAULT_OUT,
    MECHANISMS,
    Cell,
    Study,
    build_cells,
    check_cell,
)
from dpquant.studies.imola25.data import (
    BOUNDS,
    adult_distinct,
    check_dataset,
    check_m,
    draw_quantiles,
)
from dpquant.studies.imola25.feasibility import choose_duplications
from dpquant.studies.imola25.metrics import rank_errors
from dpquant.studies.imola25.plots import plot_study
from dpquant.studies.imola25.tables import TABLES, RunResult, study_tables


def quantile_seed(
    seed: int, dataset: str, adjacency: str, m: int, run: int
) -> np.random.SeedSequence:
    """The quantiles of one run, shared by every mechanism (module docstring)."""
    dataset = check_dataset(dataset)
    adjacency = check_choice(adjacency, "adjacency", ADJACENCIES)
    m, run = check_m(m), check_int(run, "run", minimum=0)
    return harness.spawn_seed(seed, "quantiles", dataset, adjacency, m, run)


def noise_seed(seed: int, cell: Cell, run: int) -> np.random.SeedSequence:
    """A mechanism's fresh noise in one run (module docstring)."""
    cell = check_cell(cell)
    run = check_int(run, "run", minimum=0)
    return harness.spawn_seed(
        seed, "noise", cell.dataset, cell.adjacency, cell.m, cell.mechanism, run
    )


def run_quantiles(seed: int, dataset: str, adjacency: str, m: int, run: int) -> np.ndarray:
    """The m quantiles of one run (the same for every mechanism)."""
    return draw_quantiles(m, np.random.default_rng(quantile_seed(seed, dataset, adjacency, m, run)))


def release(cell: Cell, x: np.ndarray, q: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One release of ``cell.mechanism`` on sorted ``x`` at quantiles ``q`` (Sec. 6)."""
    cell = check_cell(cell)
    x = check_data(x, "x")
    if np.any(x[1:] < x[:-1]):
        raise ParameterError("x", "must be sorted in non-decreasing order")
    rng = check_rng(rng)
    adj, eps = cell.adjacency, cell.epsilon
    if cell.mechanism == "SliceQuantiles":
        plan = plan_slice_quantiles(
            len(x),  # the public n, the same n as the ranks ⌊q·n⌋
            BOUNDS,
            eps,
            cell.delta,
            quantiles=q,
            adjacency=adj,
            min_gap=1.0 / len(x),
            beta=BETA,
        )
        # the Gumbel-max slice EM: the draws the committed tables of notes/imola25.md were made
        # with (the default inverse-CDF draws have the same law, other values for a seed)
        return with_options(plan.mechanism, em_method="gumbel").release(x, rng)
    # AQ's EM with the weights of every interval: the draws of the committed tables (the
    # default rejection from blocks has the same law, other values for a seed)
    if cell.mechanism == "AQ pure":
        return approximate_quantiles(
            x, q, BOUNDS, eps, rng, adjacency=adj, mode="pure", em_method="linear"
        )
    if cell.mechanism == "AQ zCDP":
        return approximate_quantiles(
            x, q, BOUNDS, eps, rng, adjacency=adj, mode="zcdp", delta=cell.delta, em_method="linear"
        )
    if cell.mechanism == "JointExp":
        return joint_exp(x, q, BOUNDS, eps, rng, adjacency=adj)
    raise ParameterError("mechanism", f"must be one of {MECHANISMS}", repr(cell.mechanism))


@dataclass(frozen=True)
class _Task:
    cell: Cell
    runs: tuple[int, ...]
    seed: int


def _run_task(task: _Task) -> list[RunResult]:
    """Some runs of one cell; a ValueError (e.g. infeasible ranks under a forced duplication)
    skips the run and is kept as its note."""
    cell = task.cell
    x = adult_distinct(cell.dataset, cell.duplication)
    out: list[RunResult] = []
    for run in task.runs:
        q = run_quantiles(task.seed, cell.dataset, cell.adjacency, cell.m, run)
        ranks = target_ranks(q, len(x))
        rng = np.random.default_rng(noise_seed(task.seed, cell, run))
        start = time.perf_counter()
        try:
            z = release(cell, x, q, rng)
        except ValueError as exc:
            out.append((run, math.nan, math.nan, time.perf_counter() - start, f"ValueError: {exc}"))
            continue
        seconds = time.perf_counter() - start
        mx, mean = rank_errors(x, z, ranks)
        out.append((run, mx, mean, seconds, ""))
    return out


def run_cells(
    cells: Sequence[Cell],
    *,
    seed: int,
    executor: Executor | None = None,
    workers: int = 1,
    progress: harness.Progress | None = None,
) -> list[list[RunResult]]:
    """Every run of every cell (cells in order, runs in order); parallel when ``executor``.
    Progress is reported per panel: ``progress("imola25 <panel>", runs_done, runs_total)``."""
    cells = harness.check_sequence(cells, "cells")
    for cell in cells:
        check_cell(cell, "cells[i]")
    harness.check_seed(seed)
    workers = harness.check_workers(workers)
    harness.check_progress(progress)
    tasks, owner = [], []
    for i, cell in enumerate(cells):
        # JointExp takes seconds to minutes per release: one run per task balances the pool
        batches = (
            [(r,) for r in range(cell.runs)]
            if cell.mechanism == "JointExp"
            else harness.chunks(cell.runs, len(cells), workers)
        )
        for batch in batches:
            tasks.append(_Task(cell, batch, seed))
            owner.append(i)
    totals: dict[str, int] = {}
    for cell in cells:
        totals[cell.panel] = totals.get(cell.panel, 0) + cell.runs
    done = dict.fromkeys(totals, 0)
    results: list[list[RunResult]] = [[] for _ in cells]
    for i, res in zip(owner, harness.task_map(_run_task, tasks, executor), strict=True):
        results[i].extend(res)
        panel = cells[i].panel
        done[panel] += len(res)
        if progress is not None:
            progress(f"imola25 {panel}", done[panel], totals[panel])
    return results


def study_parts(
    study: Study, workers: int, progress: harness.Progress | None
) -> list[harness.StudyPart]:
    """The study's one part: ``imola25.csv`` (one row per panel, m, mechanism),
    ``imola25_runs.csv`` (one row per run), ``imola25_feasibility.csv`` (per adjacency the chosen
    k and k − 1 with n, h, w, the grid spacing and the spacing needed), ``imola25.png`` (Figure
    1's layout) and ``imola25_mean.png`` (the mean rank error). Progress is reported per
    panel (:func:`run_cells`)."""
    duplications, feas_rows = choose_duplications(study)
    feasible = {r["adjacency"]: r["feasible"] for r in feas_rows if r["role"].endswith("(used)")}
    cells = build_cells(study, duplications)
    with harness.process_pool(workers) as pool:
        results = run_cells(
            cells, seed=study.seed, executor=pool, workers=workers, progress=progress
        )
    summary, per_run = study_tables(study, cells, results, feasible)

    def figures(out: Path) -> list[Path]:
        return [plot_study(summary, out), plot_study(summary, out, "mean_rank_error")]

    return [harness.StudyPart("imola25", TABLES, (summary, per_run, feas_rows), figures)]


run = harness.study_runner(Study, DEFAULT_OUT, study_parts)


__all__ = [
    "noise_seed",
    "quantile_seed",
    "release",
    "run",
    "run_cells",
    "run_quantiles",
    "study_parts",
]
