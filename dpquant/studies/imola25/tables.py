"""The tables of the imola25 study: ``imola25.csv`` (one row per panel, m and mechanism: means
over the completed runs with 95% bootstrap CIs), ``imola25_runs.csv`` (one row per run) and
``imola25_feasibility.csv`` (the duplication factors, :mod:`.feasibility`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_flag
from dpquant.studies.harness import attributes, check_sequence, spawn_seed
from dpquant.studies.imola25.config import Cell, Study, check_cell, check_study
from dpquant.studies.imola25.data import ADULT_SIZE
from dpquant.studies.imola25.feasibility import slice_parameters
from dpquant.studies.imola25.metrics import bootstrap_mean_ci

RunResult = tuple[int, float, float, float, str]
"""One run: (run, max rank error, mean rank error, seconds, note); a refused run has NaN errors
and its ``ValueError`` as the note."""

CELL_COLUMNS = (
    "panel", "dataset", "adjacency", "duplication", "n", "m", "epsilon", "delta", "mechanism",
)  # fmt: skip
"""The columns that name a cell (its attributes), first in both tables of runs."""
SUMMARY_COLUMNS = (
    *CELL_COLUMNS, "runs", "completed_runs", "max_rank_error", "max_rank_error_ci_low",
    "max_rank_error_ci_high", "mean_rank_error", "mean_rank_error_ci_low",
    "mean_rank_error_ci_high", "half_width", "cc_error_bound", "seconds_per_run", "note",
)  # fmt: skip
RUN_COLUMNS = (*CELL_COLUMNS, "run", "max_rank_error", "mean_rank_error", "seconds", "note")
FEASIBILITY_COLUMNS = (
    "adjacency", "duplication", "n", "m", "epsilon1", "epsilon2", "cc_delta", "w", "h",
    "spacing", "required_spacing", "first_rank", "last_rank", "feasible", "role",
)  # fmt: skip
TIMING_COLUMNS = ("seconds_per_run", "seconds")
"""The wall-clock columns: the only ones that vary between two runs of the same study."""
TABLES = {"": SUMMARY_COLUMNS, "_runs": RUN_COLUMNS, "_feasibility": FEASIBILITY_COLUMNS}
"""The files ``imola25<key>.csv`` (harness ``write_tables``) and their columns."""


def bootstrap_seed(seed: int, cell: Cell) -> np.random.SeedSequence:
    """The bootstrap of one cell's summary: key ("bootstrap", dataset, adjacency, m, mechanism)."""
    cell = check_cell(cell)
    return spawn_seed(seed, "bootstrap", cell.dataset, cell.adjacency, cell.m, cell.mechanism)


def _note(cell: Cell, failures: list[str], study: Study, feasible: bool, seconds: float) -> str:
    parts = []
    if cell.mechanism == "JointExp":
        parts.append(
            f"JointExp: only {cell.runs} runs (runs 0..{cell.runs - 1}, the same quantile draws) "
            f"at a subset of m: {seconds:.1f} s per release measured (O(m·n)); "
            "see --jointexp-runs/--jointexp-m"
        )
    if cell.mechanism == "SliceQuantiles":
        if study.duplication is None:
            parts.append(f"n = {cell.duplication}×{ADULT_SIZE}: smallest feasible duplication")
        elif not feasible:
            parts.append(f"forced duplication {cell.duplication}: not every grid draw is feasible")
    if failures:
        first = failures[0]
        if len(failures) == cell.runs:
            parts.append(f"skipped: every run raised {first}")
        else:
            parts.append(
                f"{len(failures)} of {cell.runs} runs skipped (the means are over the other "
                f"runs, a selected subset): {first}"
            )
    return "; ".join(parts)


def _check_results(results: Any) -> Sequence[RunResult]:
    results = check_sequence(results, "results")
    for r in results:
        if not (
            isinstance(r, tuple)
            and len(r) == 5
            and isinstance(r[4], str)
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in r[:4])
        ):
            raise ParameterError(
                "results",
                "must hold (run, max error, mean error, seconds, note) tuples",
                f"{r!r:.80}",
            )
    return results


def summarize_cell(
    cell: Cell, results: Sequence[RunResult], study: Study, feasible: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The summary row (means over the completed runs, bootstrap CIs) and the per-run rows."""
    cell, study = check_cell(cell), check_study(study)
    feasible = check_flag(feasible, "feasible")
    results = _check_results(results)
    base = attributes(cell, CELL_COLUMNS)
    ok = [r for r in results if not r[4]]
    failures = [r[4] for r in results if r[4]]
    row: dict[str, Any] = {**base, "runs": cell.runs, "completed_runs": len(ok)}
    if ok:
        maxes = np.array([r[1] for r in ok])
        means = np.array([r[2] for r in ok])
        rng = np.random.default_rng(bootstrap_seed(study.seed, cell))
        lo1, hi1 = bootstrap_mean_ci(maxes, rng)
        lo2, hi2 = bootstrap_mean_ci(means, rng)
        row.update(
            max_rank_error=float(maxes.mean()),
            max_rank_error_ci_low=lo1,
            max_rank_error_ci_high=hi1,
            mean_rank_error=float(means.mean()),
            mean_rank_error_ci_low=lo2,
            mean_rank_error_ci_high=hi2,
            seconds_per_run=float(np.mean([r[3] for r in ok])),
        )
    if cell.mechanism == "SliceQuantiles":
        h, w, _ = slice_parameters(cell.n, cell.m, cell.adjacency, cell.epsilon, cell.delta)
        row.update(half_width=h, cc_error_bound=w)
    seconds = float(np.mean([r[3] for r in results])) if results else math.nan
    row["note"] = _note(cell, failures, study, feasible, seconds)
    per_run = [
        {
            **base,
            "run": run,
            "max_rank_error": mx,
            "mean_rank_error": mean,
            "seconds": s,
            "note": note,
        }
        for run, mx, mean, s, note in results
    ]
    return row, per_run


def study_tables(
    study: Study,
    cells: Sequence[Cell],
    results: Sequence[Sequence[RunResult]],
    feasible: dict[str, bool],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The summary rows and the per-run rows of every cell (``feasible`` per adjacency)."""
    summary, per_run = [], []
    for cell, res in zip(cells, results, strict=True):
        row, rows = summarize_cell(cell, res, study, feasible[cell.adjacency])
        summary.append(row)
        per_run += rows
    return summary, per_run


__all__ = [
    "CELL_COLUMNS",
    "FEASIBILITY_COLUMNS",
    "RUN_COLUMNS",
    "SUMMARY_COLUMNS",
    "TABLES",
    "TIMING_COLUMNS",
    "RunResult",
    "bootstrap_seed",
    "study_tables",
    "summarize_cell",
]
