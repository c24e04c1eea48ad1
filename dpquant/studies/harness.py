"""What every study shares: seeds, workers and process pools, progress, CSV files and figures.

* **Seeds**: a study's ``seed`` is an integer in [0, 2^32 − 1] (:func:`check_seed`; the aamand25
  data seed numpy's legacy ``RandomState``); every unit of randomness gets its own
  ``numpy.random.SeedSequence(seed, spawn_key=...)`` (:func:`spawn_seed`) whose key holds
  names hashed by :func:`crc` (CRC-32: stable across processes, platforms and versions), so no
  result depends on the number of workers or on how runs are batched.
* **Workers**: ``workers`` processes (:func:`check_workers`); :func:`process_pool` gives a pool
  (``None`` for one worker: everything runs in-process) and :func:`task_map` maps over it. A
  study run with ``executor=`` (a dask.distributed client's executor, say) sends its tasks there
  instead (:func:`on_executor`); a task that fails is reported with its parameters
  (:class:`TaskFailed`).
* **Progress**: ``progress(label, done, total)`` (:data:`Progress`).
* **Runs**: :func:`study_runner` makes a study's ``run(study, *, workers, out, progress, plot)``
  (:class:`StudyRun`): :func:`check_run` checks its options, then the study's parts
  (:class:`StudyPart`: tables and figures) are written as they come.
* **Files**: :func:`write_csv` (floats by ``repr``, so values round-trip), :func:`write_tables`
  (a study's CSV files), :func:`attributes` (an object's fields as a row) and :func:`axes_grid`
  (a matplotlib figure on the Agg canvas, no pyplot state).
"""

from __future__ import annotations

import contextlib
import contextvars
import csv
import inspect
import math
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_executor, check_flag, check_int

MAX_SEED = 2**32 - 1
"""A study's seed lies in [0, 2^32 − 1] (numpy's legacy ``RandomState`` takes no more)."""
MAX_WORKERS = max(256, 2 * (os.cpu_count() or 1))
"""The most processes a study starts (a process pool forks every worker at once)."""
Z95 = 1.959963984540054
"""The 0.975 quantile of the standard normal law: a normal 95% interval is mean ± Z95·SE."""

Progress = Callable[[str, int, int], None]
"""``progress(label, done, total)``: called after each batch of runs of a study."""

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")


# --------------------------------------------------------------------------------------------
# checks of a study's options
# --------------------------------------------------------------------------------------------


def check_seed(seed: Any, name: str = "seed") -> int:
    """A seed for numpy's legacy ``RandomState``: an integer in [0, 2^32 − 1]."""
    value = check_int(seed, name, minimum=0)
    if value > MAX_SEED:
        raise ParameterError(name, "must be an integer in [0, 2^32 - 1]", value)
    return value


def check_workers(workers: Any, default: int | None = None) -> int:
    """A number of processes in [1, :data:`MAX_WORKERS`]; ``None`` gives ``default`` (``None``:
    the number of CPUs)."""
    if workers is None:
        return default if default is not None else os.cpu_count() or 1
    return check_int(workers, "workers", minimum=1, maximum=MAX_WORKERS)


def check_progress(progress: Any) -> None:
    """``progress`` is ``None`` or a callable ``progress(label, done, total)``."""
    if progress is not None and not callable(progress):
        raise ParameterError(
            "progress",
            "must be None or callable as progress(label, done, total)",
            type(progress).__name__,
        )


def check_out(out: Any, name: str = "out") -> Path:
    """An output folder: a non-empty path (str or os.PathLike) without NUL characters, not an
    existing file (missing folders are created when the files are written)."""
    if isinstance(out, bytes) or not isinstance(out, str | os.PathLike):
        raise ParameterError(
            name,
            "must be a directory path (str or os.PathLike)",
            type(out).__name__,
        )
    try:
        path = Path(out)
    except TypeError:
        raise ParameterError(name, "must be a directory path", f"{out!r:.60}") from None
    text = str(out) if isinstance(out, str) else str(path)
    if not text.strip() or "\x00" in text:
        raise ParameterError(name, "must be a non-empty directory path without NUL characters")
    if path.exists() and not path.is_dir():
        raise ParameterError(name, "must be a directory", f"the existing file {str(path)!r:.80}")
    return path


def check_run(
    study: Any,
    kind: type[S],
    *,
    workers: Any,
    out: Any,
    progress: Any,
    plot: Any,
    default_workers: int | None = None,
) -> tuple[S, int, Path, bool]:
    """The options of a study's ``run``, checked: ``study`` (a ``kind``, built by its
    ``make_study``), ``workers`` (:func:`check_workers` with ``default_workers``), ``plot`` (a
    flag), ``progress`` (:func:`check_progress`) and ``out`` (:func:`check_out`); returns
    (study, workers, out, plot)."""
    if not isinstance(study, kind):
        raise ParameterError(
            "study",
            f"must be a {kind.__name__} (make_study(...))",
            type(study).__name__,
        )
    workers = check_workers(workers, default_workers)
    plot = check_flag(plot, "plot")
    check_progress(progress)
    return study, workers, check_out(out), plot


@dataclass(frozen=True)
class StudyPart:
    """What one part of a study writes: its tables, as ``<name><key>.csv`` with the columns of
    ``files`` (:func:`write_tables`), and ``figures(out)``, which draws its figures into ``out``
    and returns their paths (called only when the study plots)."""

    name: str
    files: Mapping[str, Sequence[str]]
    tables: tuple[Iterable[Mapping[str, Any]], ...]
    figures: Callable[[Path], list[Path]]


class StudyRun(Protocol):
    """A study's ``run``, made by :func:`study_runner`."""

    def __call__(
        self,
        study: Any,
        *,
        workers: int | None = None,
        out: str | Path = ...,
        progress: Progress | None = None,
        plot: bool = True,
        executor: Executor | None = None,
        **options: Any,
    ) -> list[Path]: ...


def study_runner(
    kind: type[S],
    default_out: Path,
    parts: Callable[..., Iterable[StudyPart]],
    *,
    default_workers: int | None = None,
) -> StudyRun:
    """A study's ``run(study, *, workers=None, out=default_out, progress=None, plot=True,
    **options) -> list[Path]``: the options checked (:func:`check_run`), then every part of
    ``parts(study, workers, progress, **options)`` (in order, as it comes) written into
    ``out``, its figures too unless ``plot`` is false; returns the paths written. Its docstring
    is this one's first sentence, made for the study, followed by ``parts``' docstring."""

    def run(
        study: Any,
        *,
        workers: int | None = None,
        out: str | Path = default_out,
        progress: Progress | None = None,
        plot: bool = True,
        executor: Executor | None = None,
        **options: Any,
    ) -> list[Path]:
        check_executor(executor)
        checked, count, folder, plot = check_run(
            study,
            kind,
            workers=workers,
            out=out,
            progress=progress,
            plot=plot,
            default_workers=default_workers,
        )
        paths: list[Path] = []
        with on_executor(executor):
            for part in parts(checked, count, progress, **options):
                paths += write_tables(folder, part.name, part.files, *part.tables)
                if plot:
                    paths += part.figures(folder)
        return paths

    processes = "the number of CPUs" if default_workers is None else default_workers
    run.__doc__ = (
        f"Run ``study`` (a :class:`{kind.__name__}` from ``make_study``) and write its parts "
        f"(:func:`{parts.__name__}`) into ``out`` (default ``{default_out}``); returns the paths "
        f"written. ``workers`` processes (default {processes}; 1 runs in-process; the results "
        f"do not depend on it), or the tasks go to ``executor`` (a dask.distributed client's "
        f"executor: the same results), ``progress(label, done, total)`` after each batch of runs, "
        f"``plot=False`` writes the CSV files only; other keywords go to "
        f"``{parts.__name__}``.\n\n{inspect.cleandoc(parts.__doc__ or '')}"
    )
    run.__module__ = parts.__module__
    return run


def check_sequence(values: Any, name: str) -> Sequence[Any]:
    """A list, tuple or range (not a string, a set or a scalar)."""
    if not isinstance(values, list | tuple | range):
        raise ParameterError(name, "must be a list or tuple", f"{values!r:.80}")
    return values


def name_choices(values: Any, allowed: Sequence[str], name: str) -> tuple[str, ...]:
    """``values`` (a list, or a comma-separated string) as a tuple of distinct names, in order;
    ValueError unless it is a string or a list or tuple of strings, non-empty, and every name is
    in ``allowed``."""
    if not isinstance(values, str) and not (
        isinstance(values, list | tuple) and all(isinstance(v, str) for v in values)
    ):
        raise ParameterError(
            name,
            f"must be a non-empty list among {tuple(allowed)}",
            f"{values!r:.80}",
        )
    if isinstance(values, str):
        values = [v.strip() for v in values.split(",") if v.strip()]
    out = tuple(dict.fromkeys(values))
    if not out or any(v not in allowed for v in out):
        raise ParameterError(name, f"must be a non-empty list among {tuple(allowed)}", repr(values))
    return out


# --------------------------------------------------------------------------------------------
# seeds and tasks
# --------------------------------------------------------------------------------------------


def crc(text: str) -> int:
    """CRC-32 of ``text`` (UTF-8): a name as a part of a seed's spawn key."""
    return zlib.crc32(text.encode("utf-8"))


def spawn_seed(seed: int, *key: str | int) -> np.random.SeedSequence:
    """``SeedSequence(seed, spawn_key=key)`` for a checked ``seed`` (:func:`check_seed`), each
    name in ``key`` replaced by its :func:`crc` and each integer kept: one unit of randomness."""
    spawn_key = tuple(crc(part) if isinstance(part, str) else int(part) for part in key)
    return np.random.SeedSequence(check_seed(seed), spawn_key=spawn_key)


def chunks(runs: int, cells: int, workers: int) -> list[tuple[int, ...]]:
    """Runs 0..runs−1 of one cell in batches, about four batches per worker over ``cells``
    cells (enough to balance a pool without paying a task per run)."""
    per = max(1, min(runs, math.ceil(runs * cells / (4 * workers))))
    return [tuple(range(s, min(runs, s + per))) for s in range(0, runs, per)]


_EXECUTOR: contextvars.ContextVar[Executor | None] = contextvars.ContextVar(
    "dpquant_study_executor", default=None
)


@contextlib.contextmanager
def on_executor(executor: Executor | None) -> Iterator[None]:
    """Within the block, :func:`process_pool` gives ``executor`` (not owned: left running)
    instead of starting processes; ``None`` changes nothing."""
    token = _EXECUTOR.set(check_executor(executor) or _EXECUTOR.get())
    try:
        yield
    finally:
        _EXECUTOR.reset(token)


@contextlib.contextmanager
def process_pool(workers: int) -> Iterator[Executor | None]:
    """A pool of ``workers`` processes (``None`` for one worker), shut down on exit with the
    pending tasks cancelled (an interrupted study stops at once); inside :func:`on_executor`,
    that executor instead."""
    given = _EXECUTOR.get()
    if given is not None:
        yield given
        return
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        yield pool
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


class TaskFailed(RuntimeError):
    """A study task raised: the message names the task's parameters and the error."""


def task_map(fn: Callable[[T], R], tasks: Iterable[T], executor: Executor | None) -> Iterator[R]:
    """``fn`` over ``tasks`` in order: on ``executor`` when given, else in this process. A task
    that raises stops the map with :class:`TaskFailed` naming the task (its repr, the first
    400 characters) and the error."""
    check_executor(executor)
    listed = list(tasks)
    return _named_failures(fn, listed, executor.map(fn, listed) if executor else map(fn, listed))


def _named_failures(fn: Callable[[T], R], tasks: list[T], results: Iterator[R]) -> Iterator[R]:
    for task in tasks:
        try:
            yield next(results)
        except Exception as exc:  # noqa: BLE001 -- re-raised with the task's parameters
            raise TaskFailed(
                f"{getattr(fn, '__name__', 'a task')} failed on {task!r:.400}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc


# --------------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------------


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else repr(float(value))
    return str(value)


def write_csv(path: Path, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> Path:
    """Rows as CSV (floats by ``repr``, so values round-trip; ``None``/NaN as empty cells);
    missing folders are created."""
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike):
        raise ParameterError("path", "must be a path (str or os.PathLike)", type(path).__name__)
    path = Path(path)
    if isinstance(columns, str | bytes) or not all(isinstance(c, str) for c in columns):
        raise ParameterError("columns", "must be a sequence of column names (strings)")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell_text(row.get(c)) for c in columns])
    return path


def write_tables(
    out: Path,
    name: str,
    files: Mapping[str, Sequence[str]],
    *tables: Iterable[Mapping[str, Any]],
) -> list[Path]:
    """A study's tables as CSV files (:func:`write_csv`) in ``out``: the i-th table as
    ``<name><key>.csv`` with the columns of the i-th entry (key, columns) of ``files``."""
    return [
        write_csv(out / f"{name}{key}.csv", rows, columns)
        for (key, columns), rows in zip(files.items(), tables, strict=True)
    ]


def attributes(obj: Any, names: Iterable[str]) -> dict[str, Any]:
    """``obj``'s attributes ``names`` as a row (name → value)."""
    return {name: getattr(obj, name) for name in names}


def axes_grid(rows: int, cols: int, width: float, height: float) -> tuple[Any, Any, np.ndarray]:
    """(figure, Agg canvas, axes as a rows × cols array): panels of ``width`` × ``height``
    inches, constrained layout; no pyplot state (safe in worker processes and tests)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    canvas = FigureCanvasAgg(fig)
    axes = np.atleast_2d(np.asarray(fig.subplots(rows, cols, squeeze=False)))
    return fig, canvas, axes


def colormap(k: int, name: str = "viridis") -> list[Any]:
    """``k`` colours spread over a matplotlib colour map."""
    from matplotlib import colormaps

    cmap = colormaps[name]
    return [cmap(i / max(1, k - 1)) for i in range(k)]


__all__ = [
    "MAX_SEED",
    "MAX_WORKERS",
    "Z95",
    "Progress",
    "StudyPart",
    "StudyRun",
    "TaskFailed",
    "attributes",
    "axes_grid",
    "check_out",
    "check_progress",
    "check_run",
    "check_seed",
    "check_sequence",
    "check_workers",
    "chunks",
    "colormap",
    "crc",
    "name_choices",
    "on_executor",
    "process_pool",
    "spawn_seed",
    "study_runner",
    "task_map",
    "write_csv",
    "write_tables",
]
