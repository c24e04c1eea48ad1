"""Running the aamand25 study: every run of every cell, seeded, in parallel, then the files.

Randomness: the data sets are fixed (the authors' seed 42, generated once per configuration);
every run gets its own ``SeedSequence(seed, spawn_key=(figure, configuration, mechanism, ε,
run))`` (the names hashed with CRC-32), so the output depends neither on ``workers`` nor on how
runs are batched. A ``ValueError`` raised by an estimator skips that run and is recorded in the
``note`` column (e.g. the shuffle protocol's local-ε rule refusing a small ε).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles import Population
from dpquant.reference.validation import check_choice, check_int
from dpquant.studies import harness
from dpquant.studies.aamand25.config import (
    DEFAULT_OUT,
    FIGURES,
    SERIES,
    Cell,
    Study,
    check_runs,
    make_study,
)
from dpquant.studies.aamand25.data import dataset_users
from dpquant.studies.aamand25.plots import plot_figure
from dpquant.studies.aamand25.tables import TABLES, RunResult, figure_tables

Estimators = Mapping[str, Callable[..., Any]]
"""Stand-in estimators by series name (tests): they replace the series' functions."""


def check_estimators(estimators: Any, name: str = "estimators") -> None:
    """``None`` or a mapping from series names of :data:`SERIES` to callables."""
    if estimators is None:
        return
    if not isinstance(estimators, Mapping):
        raise ParameterError(
            name,
            "must be None or a mapping from series names to functions",
            type(estimators).__name__,
        )
    for key, fn in estimators.items():
        if not isinstance(key, str) or key not in SERIES:
            raise ValueError(f"{name} keys must be series names {sorted(SERIES)}, got {key!r:.60}")
        if not callable(fn):
            raise ValueError(f"{name}[{key!r}] must be callable, got {type(fn).__name__}")


def resolve_series(
    name: str, overrides: Estimators | None = None
) -> tuple[Callable[..., Any], dict[str, Any]]:
    """The estimator of series ``name`` and its keyword options; ``overrides`` maps series names
    to stand-in functions (tests), which get the same options."""
    if not isinstance(name, str) or name not in SERIES:
        raise ParameterError("mechanism", f"must be one of {sorted(SERIES)}", f"{name!r:.80}")
    check_estimators(overrides, "overrides")
    spec = SERIES[name]
    fn = overrides[name] if overrides and name in overrides else spec.target
    return fn, dict(spec.options)


def run_seed(seed: int, cell: Cell, run: int) -> np.random.SeedSequence:
    """The SeedSequence of one run: entropy ``seed``, spawn key (figure, configuration,
    mechanism, ε, run), the names hashed with CRC-32 (stable across processes and versions)."""
    if not isinstance(cell, Cell):
        raise ParameterError("cell", "must be a Cell", type(cell).__name__)
    run = check_int(run, "run", minimum=0, maximum=2**32 - 1)
    names = (cell.figure, cell.configuration, cell.mechanism, repr(cell.epsilon))
    return harness.spawn_seed(seed, *names, run)


@dataclass(frozen=True)
class _Task:
    cell: Cell
    fn: Callable[..., Any]
    options: Mapping[str, Any]
    shuffle: bool
    runs: tuple[int, ...]
    seed: int


def _run_task(task: _Task) -> list[RunResult]:
    """Runs of one cell: (run, coin, None) or (run, None, "ValueError: ...")."""
    cell = task.cell
    users: Any = dataset_users(cell.dataset, cell.n, cell.B, cell.data_seed)
    options = dict(task.options)
    counts_from = SERIES[cell.mechanism].counts_from
    if counts_from is not None and cell.n >= counts_from:
        users = Population.of(users, cell.B)  # sorted once for the task's runs
        options["sampler"] = "counts"
    if cell.c is not None:
        options["c"] = cell.c
    spec = SERIES[cell.mechanism]
    if spec.batched is not None and task.fn is spec.target and not task.shuffle:
        rngs = [np.random.default_rng(run_seed(task.seed, cell, run)) for run in task.runs]
        try:  # every run in one batch (the same coins as run by run)
            coins = spec.batched(users, cell.B, cell.epsilon, rngs, **options)
        except ValueError:
            pass  # some run fails: run them one by one to record which
        else:
            return [(run, _coin(cell, c), None) for run, c in zip(task.runs, coins, strict=True)]
    out: list[RunResult] = []
    for run in task.runs:
        rng = np.random.default_rng(run_seed(task.seed, cell, run))
        try:
            if task.shuffle:
                coin = task.fn(users, cell.B, cell.epsilon, cell.delta, rng, **options)
            else:
                coin = task.fn(users, cell.B, cell.epsilon, rng, **options)
        except ValueError as exc:
            out.append((run, None, f"ValueError: {exc}"))
            continue
        out.append((run, _coin(cell, coin), None))
    return out


def _coin(cell: Cell, coin: Any) -> int:
    """An estimator's output, checked to be a coin in [1, B]."""
    if not 1 <= int(coin) <= cell.B or int(coin) != coin:
        raise RuntimeError(f"{cell.mechanism} returned {coin!r}, not a coin in [1, {cell.B}]")
    return int(coin)


def run_cells(
    cells: Sequence[Cell],
    *,
    runs: int,
    seed: int,
    executor: Executor | None = None,
    workers: int = 1,
    estimators: Estimators | None = None,
    progress: harness.Progress | None = None,
    label: str = "",
) -> list[list[RunResult]]:
    """Every run of every cell (in cell order, runs in order); parallel when ``executor``."""
    if not isinstance(cells, list | tuple) or not all(isinstance(c, Cell) for c in cells):
        raise ParameterError("cells", "must be a sequence of Cell")
    runs, seed = check_runs(runs, False), harness.check_seed(seed)
    workers = harness.check_workers(workers)
    harness.check_progress(progress)
    if not isinstance(label, str):
        raise ParameterError("label", "must be a string", type(label).__name__)
    resolved = {m: resolve_series(m, estimators) for m in dict.fromkeys(c.mechanism for c in cells)}
    tasks, owner = [], []
    for i, cell in enumerate(cells):
        fn, options = resolved[cell.mechanism]
        shuffle = SERIES[cell.mechanism].shuffle
        for chunk in harness.chunks(runs, len(cells), workers):
            tasks.append(_Task(cell, fn, options, shuffle, chunk, seed))
            owner.append(i)
    results: list[list[RunResult]] = [[] for _ in cells]
    total, done = runs * len(cells), 0
    for i, out in zip(owner, harness.task_map(_run_task, tasks, executor), strict=True):
        results[i].extend(out)
        done += len(out)
        if progress is not None:
            progress(label, done, total)
    return results


def study_parts(
    study: Study,
    workers: int,
    progress: harness.Progress | None,
    estimators: Estimators | None = None,
) -> Iterator[harness.StudyPart]:
    """One part per figure, as each is done: ``<figure>.csv``, ``<figure>_errors.csv``,
    ``<figure>.png`` and ``<figure>_alpha.png``; one process pool serves every figure.
    ``estimators`` replaces series by stand-in functions (by series name); every estimator is
    resolved before any run; ``progress(figure, runs_done, runs_total)`` is called after each
    batch."""
    check_estimators(estimators)
    specs = study.specs()
    for spec in specs:  # fail before any work if an estimator is refused
        for mech in dict.fromkeys(c.mechanism for c in spec.cells):
            resolve_series(mech, estimators)
    with harness.process_pool(workers) as pool:
        for spec in specs:
            results = run_cells(
                spec.cells,
                runs=study.runs,
                seed=study.seed,
                executor=pool,
                workers=workers,
                estimators=estimators,
                progress=progress,
                label=spec.name,
            )
            summary, errors = figure_tables(spec, results)
            figures = functools.partial(plot_figure, spec, summary, errors)
            yield harness.StudyPart(spec.name, TABLES, (summary, errors), figures)


run = harness.study_runner(Study, DEFAULT_OUT, study_parts)


def run_figure(
    name: str,
    *,
    runs: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path = DEFAULT_OUT,
    quick: bool = False,
    estimators: Estimators | None = None,
    progress: harness.Progress | None = None,
    plot: bool = True,
) -> list[Path]:
    """Run one figure ("fig1a", "fig1b", "fig2", "fig3", "fig4" or "fig5"): :func:`run` of
    ``make_study([name], runs=runs, seed=seed, quick=quick)``."""
    name = check_choice(name, "figure", FIGURES)
    study = make_study([name], runs=runs, seed=seed, quick=quick)
    return run(study, workers=workers, out=out, estimators=estimators, progress=progress, plot=plot)


__all__ = [
    "check_estimators",
    "resolve_series",
    "run",
    "run_cells",
    "run_figure",
    "run_seed",
    "study_parts",
]
