"""The tables of the aamand25 study: one summary row per (configuration, mechanism, ε, α_test)
and one row per run, written as ``<figure>.csv`` and ``<figure>_errors.csv``.

``<figure>.csv``: the success rate over the runs, its binomial standard error sqrt(p(1 − p)/runs)
(the paper's error bars), the mean and median absolute quantile error and a ``note`` (e.g. an ε
at which the shuffle protocol's local-ε rule refuses). ``<figure>_errors.csv``: the coin, F at
the coin and at the next coin, the error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpquant.studies.aamand25.config import ALPHA_TESTS, Cell, FigureSpec
from dpquant.studies.aamand25.data import dataset_users
from dpquant.studies.aamand25.metrics import (
    SortedUsers,
    binomial_stderr,
    success_indicators,
    true_median,
)
from dpquant.studies.harness import attributes

RunResult = tuple[int, int | None, str | None]
"""One run: (run, coin, None), or (run, None, "ValueError: ...") when the estimator refused."""

CELL_COLUMNS = (
    "figure", "panel", "dataset", "n", "B", "data_seed", "epsilon", "mechanism", "c", "delta",
)  # fmt: skip
"""The columns that name a cell (its attributes), first in ``<figure>.csv``."""
SUMMARY_COLUMNS = (
    *CELL_COLUMNS, "runs", "completed_runs", "alpha_test", "successes", "success_rate", "stderr",
    "mean_error", "median_error", "note",
)  # fmt: skip
ERROR_COLUMNS = (
    "figure", "panel", "dataset", "n", "B", "epsilon", "mechanism", "c", "delta", "run", "coin",
    "F_coin", "F_next", "true_median", "F_true_median", "error", "note",
)  # fmt: skip
TABLES = {"": SUMMARY_COLUMNS, "_errors": ERROR_COLUMNS}
"""The files ``<figure><key>.csv`` (harness ``write_tables``) and their columns."""


def _note(failures: list[str], runs: int) -> str:
    if not failures:
        return ""
    first = failures[0]
    if len(failures) == runs:
        return f"skipped: every run raised {first}"
    return f"{len(failures)} of {runs} runs raised {first} (counted as failures)"


def summarize_cell(
    cell: Cell, results: Sequence[RunResult], users: SortedUsers, median: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The summary rows (one per α_test) and the per-run error rows of one cell (Sec. 5 metrics).

    success_rate = successes/runs with a run that raised ``ValueError`` counted as a failure (and
    named in ``note``; every run failing gives an empty rate); stderr = sqrt(p(1 − p)/runs), the
    paper's error bars; mean/median error over the completed runs.
    """
    runs = len(results)
    ok = [(r, c) for r, c, _ in results if c is not None]
    failures = [msg for _, c, msg in results if c is None and msg is not None]
    coins = np.array([c for _, c in ok], dtype=np.int64)
    f_ref = float(users.cdf([median])[0])
    f_coin, f_next = users.cdf(coins), users.cdf(coins + 1)
    errors = np.abs(f_coin - f_ref)
    hits = success_indicators(users, coins).sum(axis=0) if ok else np.zeros(len(ALPHA_TESTS))
    note = _note(failures, runs)
    base = attributes(cell, CELL_COLUMNS)
    summary = []
    for alpha, k in zip(ALPHA_TESTS, hits, strict=True):
        p = float(k) / runs if ok else math.nan
        summary.append(
            {
                **base,
                "runs": runs,
                "completed_runs": len(ok),
                "alpha_test": alpha,
                "successes": int(k),
                "success_rate": p,
                "stderr": binomial_stderr(p, runs) if ok else math.nan,
                "mean_error": float(errors.mean()) if ok else math.nan,
                "median_error": float(np.median(errors)) if ok else math.nan,
                "note": note,
            }
        )
    per_run = []
    by_run = {r: j for j, (r, _) in enumerate(ok)}
    for run, coin, msg in results:
        row = {k: base[k] for k in ERROR_COLUMNS if k in base}
        row.update(run=run, true_median=median, F_true_median=f_ref, note=msg or "")
        if coin is not None:
            j = by_run[run]
            row.update(coin=coin, F_coin=float(f_coin[j]), F_next=float(f_next[j]))
            row["error"] = float(errors[j])
        per_run.append(row)
    return summary, per_run


def figure_tables(
    spec: FigureSpec, results: Sequence[Sequence[RunResult]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The summary rows and the per-run rows of a figure (its cells in order)."""
    summary: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    sorted_users: dict[tuple[str, int, int, int], tuple[SortedUsers, int]] = {}
    for cell, res in zip(spec.cells, results, strict=True):
        key = (cell.dataset, cell.n, cell.B, cell.data_seed)
        if key not in sorted_users:
            users = dataset_users(*key)
            sorted_users[key] = (SortedUsers(users), true_median(users, cell.dataset))
        su, median = sorted_users[key]
        rows, per_run = summarize_cell(cell, res, su, median)
        summary += rows
        errors += per_run
    return summary, errors


__all__ = [
    "CELL_COLUMNS",
    "ERROR_COLUMNS",
    "SUMMARY_COLUMNS",
    "TABLES",
    "RunResult",
    "figure_tables",
    "summarize_cell",
]
