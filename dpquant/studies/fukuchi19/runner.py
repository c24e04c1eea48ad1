"""Running the fukuchi19 study: each distinct cell once, grouped by (α, β) (the cells of one
group share the BetaPPF grids), serially or over a process pool; then the files.

The seeds are keyed by cell and x_min (:func:`.simulation.cell_seed`), so the results depend
neither on ``workers`` nor on the order of the cells, and a cell shared by both panels is
computed once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from dpquant.studies import harness
from dpquant.studies.fukuchi19.config import DEFAULT_OUT, Cell, PanelPoint, Study, build_points
from dpquant.studies.fukuchi19.data import Setting, beta_quantile_grid
from dpquant.studies.fukuchi19.plots import plot_study
from dpquant.studies.fukuchi19.simulation import CellResult, laplace_shift_gap, run_cell
from dpquant.studies.fukuchi19.tables import TABLES, fit_rows, summary_row, xmin_rows


@dataclass(frozen=True)
class _Task:
    cells: tuple[Cell, ...]  # one (α, β): they share the BetaPPF grids
    seed: int
    exact_max_levels: int
    notes: tuple[tuple[str, str], ...] = ()


def _run_task(
    task: _Task, progress: Callable[[CellResult], None] | None = None
) -> list[CellResult]:
    grids: dict[int, np.ndarray] = {}
    notes = dict(task.notes)
    out = []
    for cell in task.cells:
        grid = None
        if cell.data_model == "fixed":
            if cell.log2_n not in grids:
                grids[cell.log2_n] = beta_quantile_grid(
                    cell.n, cell.setting.alpha, cell.setting.beta
                )
            grid = grids[cell.log2_n]
        res = run_cell(cell, task.seed, grid, task.exact_max_levels, notes.get(cell.key, ""))
        out.append(res)
        if progress is not None:
            progress(res)
    return out


def _tasks(cells: Iterable[Cell], study: Study, notes: dict[str, str]) -> list[_Task]:
    groups: dict[tuple[float, float], list[Cell]] = {}
    for c in cells:
        groups.setdefault((c.setting.alpha, c.setting.beta), []).append(c)
    return [
        _Task(
            tuple(g),
            study.seed,
            study.exact_max_levels,
            tuple((c.key, notes[c.key]) for c in g if c.key in notes),
        )
        for g in groups.values()
    ]


def laplace_notes(study: Study, cells: Iterable[Cell]) -> dict[str, str]:
    """The note of each baseline cell: the measured shift-invariance gap (at the smallest N)."""
    notes = {}
    gaps: dict[tuple[Setting, float], float] = {}
    n0 = 1 << min(study.log2ns)
    for c in cells:
        if c.mechanism != "laplace":
            continue
        key = (c.setting, c.epsilon)
        if key not in gaps:
            gaps[key] = laplace_shift_gap(c.setting, max(n0, 2), c.epsilon)
            if not gaps[key] <= 1e-9:
                raise ArithmeticError(
                    f"the unclipped Laplace baseline should be shift-invariant in x_min, but the "
                    f"exact CDFs of min − x_min differ by {gaps[key]:.3g} ({c.setting.name})"
                )
        notes[c.key] = (
            f"unclipped: the law of min − x_min does not depend on x_min (exact CDF gap "
            f"{gaps[key]:.1e} over the six x_min at N = {max(n0, 2)}); one x_min run"
        )
    return notes


def run_points(
    study: Study,
    points: Sequence[PanelPoint],
    workers: int = 1,
    progress: harness.Progress | None = None,
) -> dict[str, CellResult]:
    """Each distinct cell once (serial, or grouped by (α, β) over ``workers`` processes)."""
    cells = list({p.cell.key: p.cell for p in points}.values())
    notes = laplace_notes(study, cells)
    tasks = _tasks(cells, study, notes)
    total, done = len(cells), 0
    results: dict[str, CellResult] = {}

    def tick(res: CellResult) -> None:
        nonlocal done
        done += 1
        results[res.cell.key] = res
        if progress is not None:
            progress("fukuchi19 cells", done, total)

    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            _run_task(task, tick)
        return results
    with harness.process_pool(workers) as pool:
        for out in harness.task_map(_run_task, tasks, pool):
            for res in out:
                tick(res)
    return results


def study_parts(
    study: Study, workers: int, progress: harness.Progress | None
) -> list[harness.StudyPart]:
    """The study's one part: ``fukuchi19.csv`` (worst case over x_min per panel point),
    ``fukuchi19_xmin.csv``, ``fukuchi19_fits.csv`` (:mod:`.tables`) and the figures
    (:mod:`.plots`). Each distinct cell runs once (:func:`run_points`); ``progress`` is called
    per cell."""
    points = build_points(study)
    results = run_points(study, points, workers, progress)
    summary = [summary_row(p.panel, results[p.cell.key]) for p in points]
    per_x = [row for res in results.values() for row in xmin_rows(res)]
    fits = fit_rows(summary, study)
    figures = functools.partial(plot_study, summary, fits, study)
    return [harness.StudyPart("fukuchi19", TABLES, (summary, per_x, fits), figures)]


run = harness.study_runner(Study, DEFAULT_OUT, study_parts, default_workers=1)


__all__ = ["laplace_notes", "run", "run_points", "study_parts"]
