"""Reproduction of aamand25's experiments (Sec. 5, App. I; spec §5): figures 1a, 1b, 2, 3, 4 and 5.

``dpquant reproduce aamand25 [--figure NAME] [--runs 200] [--seed 0] [--workers N] [--out DIR]
[--quick]`` or :func:`run_figure` / :func:`run_figures`. For each figure it writes

* ``<figure>.csv``: one row per (configuration, mechanism, ε, α_test) with the success rate over
  the runs, its binomial standard error sqrt(p(1 − p)/runs) (the paper's error bars, called
  "standard deviation"), the mean and median absolute quantile error and a ``note`` (e.g. an ε
  at which the shuffle protocol's local-ε rule refuses);
* ``<figure>_errors.csv``: one row per run (the coin, F at the coin and the next coin, the error);
* ``<figure>.png``: per panel, success vs ε (or B, or c) at α_test = 0.04 with ±1 s.e. bars, and
  the CDF of the absolute error (Fig. 2: the mean error vs c);
* ``<figure>_alpha.png``: the success curves for every α_test of the authors' notebooks.

Metrics (spec §5, §6.1), in our shifted domain [B] = {1..B} (the authors' value v is our v + 1):
success = F(m̃) < ½ + α_test ∧ F(m̃ + 1) > ½ − α_test (strict, F(B + 1) = 1); absolute quantile
error = |F(m̃) − F(m)| with m the authors' "true median", the left coin of the crossing interval
(:func:`reference.experiments.aamand25_data.authors_true_median`). The empirical F is the true one
(the authors overwrite F(0) with 0, spec §6.17; that only matters for an output at their coin 0).

Randomness: the data sets are fixed (the authors' seed 42, generated once per configuration); every
run gets its own ``SeedSequence(seed, spawn_key=(figure, configuration, mechanism, ε, run))`` (the
names hashed with CRC-32), so the output does not depend on ``workers`` or on how runs are batched.

The estimators are looked up lazily by name in :data:`SERIES`; each is
``fn(users, B, epsilon, rng, **options) -> coin`` (the shuffle protocol also takes ``delta`` after
``epsilon``). A ``ValueError`` raised by an estimator skips that run and is recorded in ``note``.
"""

from __future__ import annotations

import csv
import importlib
import math
import os
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reference.distributed_quantiles.users import MAX_B, check_integers
from reference.experiments.aamand25_data import (
    AUTHORS_SEED,
    authors_true_median,
    check_seed,
    dataset_users,
)
from reference.validation import (
    check_choice,
    check_data,
    check_flag,
    check_int,
    check_probability,
)

TAU = 0.5
EPS_GRID: tuple[float, ...] = tuple(float(e) for e in np.geomspace(0.1, 5, 10))
C_GRID: tuple[float, ...] = tuple(float(c) for c in np.linspace(0.1, 2, 10))
ALPHA_TESTS = (0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.15, 0.2)
MAIN_ALPHA = 0.04
FIND_C_EPSILONS = (0.5, 1.0, 1.5)
UNIFORM_EPSILONS = (0.5, 1.0)
SHUFFLE_DELTA = 1e-8
DEFAULT_C = 0.6
DEFAULT_RUNS = 200
QUICK_RUNS = 4
DEFAULT_OUT = Path("reports") / "aamand25"
FIGURES = ("fig1a", "fig1b", "fig2", "fig3", "fig4", "fig5")
MAX_RUNS = 10_000
"""The most runs per configuration (the paper uses 200; 10^4 runs of one figure take hours)."""
MAX_WORKERS = max(256, 2 * (os.cpu_count() or 1))

# Fig. 1a left as the authors measured it (spec §5 [R]: their committed 200-run results, Pareto
# n = 2500, B = 4⁹, α_test = 0.04, over EPS_GRID); drawn dashed next to ours in that panel
# (Fig. 1a, Fig. 5).
AUTHORS_FIG1A_SUCCESS = {
    "DpBayeSS": (0.020, 0.045, 0.155, 0.285, 0.480, 0.695, 0.760, 0.920, 0.970, 0.975),
    "DpNaiveNBS": (0.025, 0.035, 0.070, 0.175, 0.260, 0.385, 0.540, 0.670, 0.775, 0.670),
    "HM": (0.000, 0.000, 0.005, 0.005, 0.005, 0.000, 0.010, 0.090, 0.415, 0.530),
}

SUMMARY_COLUMNS = (
    "figure", "panel", "dataset", "n", "B", "data_seed", "epsilon", "mechanism", "c", "delta",
    "runs", "completed_runs", "alpha_test", "successes", "success_rate", "stderr",
    "mean_error", "median_error", "note",
)  # fmt: skip
ERROR_COLUMNS = (
    "figure", "panel", "dataset", "n", "B", "epsilon", "mechanism", "c", "delta", "run", "coin",
    "F_coin", "F_next", "true_median", "F_true_median", "error", "note",
)  # fmt: skip


# --------------------------------------------------------------------------------------------
# the estimators
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """One plotted mechanism: ``target`` "module:function" (imported lazily) or a function.

    ``options`` are passed as keywords; ``options_from`` names a dict of the target's module
    merged under them (DpBayeSS's ``AUTHORS_OPTIONS``); ``takes_c`` passes the update constant c
    (App. I: α̃ = c·sqrt(ln B/n)); ``shuffle`` calls ``fn(users, B, epsilon, delta, rng, ...)``.
    """

    target: str | Callable[..., Any]
    options: Mapping[str, Any] = field(default_factory=dict)
    options_from: str | None = None
    takes_c: bool = False
    shuffle: bool = False


_DQ = "reference.distributed_quantiles"
_AUTHORS_BAYESS = {"rounding": "left", "selection": "numpy"}
_PAPER_BAYESS = {"rounding": "paper", "selection": "paper"}
SERIES: dict[str, Series] = {
    # what the paper plotted: the authors' always-left rounding and np.quantile selection
    "DpBayeSS": Series(f"{_DQ}.dp_bayess:dp_bayess", _AUTHORS_BAYESS, "AUTHORS_OPTIONS", True),
    "DpBayeSS (paper rounding)": Series(f"{_DQ}.dp_bayess:dp_bayess", _PAPER_BAYESS, None, True),
    "DpNaiveNBS": Series(f"{_DQ}.naive_nbs:dp_naive_nbs", {"faithful": True}),
    "HM": Series(f"{_DQ}.hierarchical:hierarchical_median"),
    "Shuffle DpNaiveNBS (paper ε_L)": Series(
        f"{_DQ}.shuffle_nbs:shuffle_nbs", {"local_epsilon": "paper", "faithful": True}, shuffle=True
    ),
    "Shuffle DpNaiveNBS (Lemma G.5 ε_L)": Series(
        f"{_DQ}.shuffle_nbs:shuffle_nbs",
        {"local_epsilon": "lemma_g5", "faithful": True},
        shuffle=True,
    ),
}


def resolve_series(
    name: str, overrides: Mapping[str, Callable[..., Any]] | None = None
) -> tuple[Callable[..., Any], dict[str, Any]]:
    """The estimator of series ``name`` and its keyword options (imports its module now).

    ``overrides`` maps series names to stand-in functions (tests); they get the same options
    (without ``options_from``). A missing module raises ``ValueError`` naming it.
    """
    if not isinstance(name, str) or name not in SERIES:
        raise ValueError(f"mechanism must be one of {sorted(SERIES)}, got {name!r:.80}")
    _check_estimators(overrides, "overrides")
    spec = SERIES[name]
    options = dict(spec.options)
    if overrides and name in overrides:
        return overrides[name], options
    if callable(spec.target):
        return spec.target, options
    module_name, _, attr = spec.target.partition(":")
    try:
        module = importlib.import_module(module_name)
        fn = getattr(module, attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(
            f"mechanism {name!r} is not available: {spec.target} ({type(exc).__name__}: {exc})"
        ) from exc
    if spec.options_from is not None:
        options = {**dict(getattr(module, spec.options_from, {})), **options}
    return fn, options


# --------------------------------------------------------------------------------------------
# metrics (spec §5, §6.1)
# --------------------------------------------------------------------------------------------


class SortedUsers:
    """The users sorted once: F(v) = |{i : x_i <= v}|/n by binary search (Eq. (1))."""

    def __init__(self, users: np.ndarray):
        if isinstance(users, np.ndarray) and users.dtype.kind in "iu" and users.ndim == 1:
            values = users  # integer users as they are (exact beyond 2^53)
            if values.size == 0:
                raise ValueError("users must be non-empty")
        else:
            values = check_data(users, "users")
        self.sorted = np.sort(values)

    def cdf(self, points: Any) -> np.ndarray:
        """F at each point; F(B + 1) = 1 and F(0) = 0 follow from the values lying in [1, B]."""
        if not (isinstance(points, np.ndarray) and points.dtype.kind in "iu"):
            points = check_data(points, "points", allow_empty=True)
        return np.searchsorted(self.sorted, points, side="right") / self.sorted.size


def success_indicators(
    users: np.ndarray | SortedUsers,
    coins: Sequence[int] | np.ndarray,
    alpha_tests: Sequence[float] = ALPHA_TESTS,
    tau: float = TAU,
) -> np.ndarray:
    """(runs × α_test) booleans: F(m̃) < τ + α ∧ F(m̃ + 1) > τ − α (spec §6.1, Sec. 5 metric).

    The strict criterion of :func:`reference.distributed_quantiles.users.is_approximate_quantile`,
    vectorised over coins and α_test.
    """
    su = users if isinstance(users, SortedUsers) else SortedUsers(users)
    m = _check_coins(coins)
    alphas = check_data(alpha_tests, "alpha_tests")
    tau = check_probability(tau, "tau")
    f_m, f_next = su.cdf(m)[:, None], su.cdf(m + 1)[:, None]
    return (f_m < tau + alphas[None, :]) & (f_next > tau - alphas[None, :])


def absolute_quantile_errors(
    users: np.ndarray | SortedUsers, coins: Sequence[int] | np.ndarray, reference: int
) -> np.ndarray:
    """|F(m̃) − F(m)| for each output m̃, with m = ``reference`` (Sec. 5 "absolute quantile
    error"; the authors' m is :func:`true_median`)."""
    su = users if isinstance(users, SortedUsers) else SortedUsers(users)
    reference = check_int(reference, "reference", minimum=-MAX_B, maximum=MAX_B)
    f_ref = su.cdf(np.array([reference], dtype=np.int64))[0]
    return np.abs(su.cdf(_check_coins(coins)) - f_ref)


def _check_coins(coins: Any) -> np.ndarray:
    """Output coins: integers (int64; the success criterion also reads the coin m + 1)."""
    return check_integers(coins, "coins", minimum=-MAX_B, maximum=MAX_B, allow_empty=True)


def true_median(users: np.ndarray, dataset: str) -> int:
    """The authors' reference coin for ``dataset`` ("pareto": largest value with F < ½;
    "uniform": largest value with F <= ½; see ``authors_true_median``)."""
    dataset = check_choice(dataset, "dataset", ("pareto", "uniform"))
    return authors_true_median(users, inclusive=dataset == "uniform")


def binomial_stderr(p: float, runs: int) -> float:
    """sqrt(p(1 − p)/runs): the error bars of the paper's success plots (Fig. 1 caption)."""
    runs = check_int(runs, "runs", minimum=1, maximum=MAX_B)
    p = check_probability(p, "p")
    return math.sqrt(p * (1.0 - p) / runs)


# --------------------------------------------------------------------------------------------
# configurations
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One (figure, configuration, mechanism, ε): a data set, an estimator and its parameters."""

    figure: str
    panel: str
    dataset: str
    n: int
    B: int
    mechanism: str
    epsilon: float
    c: float | None = None
    delta: float | None = None
    data_seed: int = AUTHORS_SEED

    @property
    def configuration(self) -> str:
        return (
            f"{self.dataset}:n={self.n}:B={self.B}:data_seed={self.data_seed}"
            f":c={self.c!r}:delta={self.delta!r}"
        )


@dataclass(frozen=True)
class PlotSpec:
    """How a figure is drawn: success vs ``x`` with one line per ``lines`` value, and the error
    CDF at ``cdf_at`` = (field, value) (``None``: the mean error vs ``x`` instead)."""

    x: str
    lines: str
    cdf_at: tuple[str, float] | None


@dataclass(frozen=True)
class FigureSpec:
    name: str
    title: str
    cells: tuple[Cell, ...]
    plot: PlotSpec


def _b_label(B: int) -> str:
    for base in (4, 10):
        k = round(math.log(B, base))
        if base**k == B:
            return f"{base}^{k}"
    return str(B)


def _panel(n: int, B: int, extra: str = "") -> str:
    return f"n={n}, B={_b_label(B)}{extra}"


# --quick: smaller n and B (4⁹ → 4⁷, 4⁸ → 4⁶), three ε, three c, two uniform B, 4 runs
_QUICK_N = {2500: 1000, 5000: 2000, 7500: 3000, 10**7: 2 * 10**5}
_QUICK_B = {4**9: 4**7, 4**8: 4**6}


def _size(n: int, B: int, quick: bool) -> tuple[int, int]:
    return (_QUICK_N.get(n, n), _QUICK_B.get(B, B)) if quick else (n, B)


def _eps_grid(quick: bool) -> tuple[float, ...]:
    return (EPS_GRID[0], EPS_GRID[4], EPS_GRID[9]) if quick else EPS_GRID


def _comparison_cells(
    figure: str, sizes: Iterable[tuple[int, int]], mechanisms: Sequence[str], quick: bool
) -> tuple[Cell, ...]:
    cells = []
    for n0, B0 in sizes:
        n, B = _size(n0, B0, quick)
        for mech in mechanisms:
            c = DEFAULT_C if SERIES[mech].takes_c else None
            for eps in _eps_grid(quick):
                cells.append(Cell(figure, _panel(n, B), "pareto", n, B, mech, eps, c))
    return tuple(cells)


_COMPARISON = ("DpBayeSS", "DpBayeSS (paper rounding)", "DpNaiveNBS", "HM")
_UNIFORM_MECHS = ("DpBayeSS", "DpNaiveNBS")


def _uniform_cells(
    figure: str, epsilons: Sequence[float], quick: bool, with_100: bool
) -> tuple[tuple[Cell, ...], int]:
    Bs = (
        (10**3, 10**4)
        if quick
        else ((10**2,) if with_100 else ()) + tuple(10**k for k in (3, 4, 5, 6))
    )
    n = 1000 if quick else 2500
    cells = []
    for eps in epsilons:
        for mech in _UNIFORM_MECHS:
            c = DEFAULT_C if SERIES[mech].takes_c else None
            for B in Bs:
                cells.append(Cell(figure, f"n={n}, ε={eps:g}", "uniform", n, B, mech, eps, c))
    return tuple(cells), max(Bs)


def build_figure(name: str, quick: bool = False) -> FigureSpec:
    """The configurations of one figure (spec §5 "Figures"; ``quick``: a tiny version)."""
    name = check_choice(name, "figure", FIGURES)
    quick = check_flag(quick, "quick")
    if name == "fig1a":
        cells = _comparison_cells(name, [(2500, 4**9)], _COMPARISON, quick)
        plot = PlotSpec("epsilon", "mechanism", ("epsilon", EPS_GRID[4]))
        return FigureSpec(name, "Fig. 1a: Pareto data, three mechanisms", cells, plot)
    if name == "fig1b":
        cells, b_max = _uniform_cells(name, (1.0,), quick, with_100=False)
        plot = PlotSpec("B", "mechanism", ("B", b_max))
        return FigureSpec(name, "Fig. 1b: uniform data, ε = 1", cells, plot)
    if name == "fig2":
        cgrid = (C_GRID[0], C_GRID[2], C_GRID[9]) if quick else C_GRID
        cells = []
        for n0, B0 in ((2500, 4**9), (5000, 4**8)):
            n, B = _size(n0, B0, quick)
            for eps in FIND_C_EPSILONS:
                for c in cgrid:
                    cells.append(Cell(name, _panel(n, B), "pareto", n, B, "DpBayeSS", eps, c))
        plot = PlotSpec("c", "epsilon", None)
        return FigureSpec(name, "Fig. 2: DpBayeSS, α̃ = c·sqrt(ln B/n)", tuple(cells), plot)
    if name == "fig3":
        cells, b_max = _uniform_cells(name, UNIFORM_EPSILONS, quick, with_100=True)
        plot = PlotSpec("B", "mechanism", ("B", b_max))
        return FigureSpec(name, "Fig. 3: uniform data", cells, plot)
    if name == "fig4":
        n, B = _size(10**7, 4**8, quick)
        cells = []
        for mech in (
            "DpNaiveNBS",
            "Shuffle DpNaiveNBS (paper ε_L)",
            "Shuffle DpNaiveNBS (Lemma G.5 ε_L)",
        ):
            delta = SHUFFLE_DELTA if SERIES[mech].shuffle else None
            for eps in _eps_grid(quick):
                cells.append(Cell(name, _panel(n, B), "pareto", n, B, mech, eps, None, delta))
        plot = PlotSpec("epsilon", "mechanism", ("epsilon", EPS_GRID[4]))
        return FigureSpec(name, "Fig. 4: shuffle vs local DpNaiveNBS, δ = 1e-8", tuple(cells), plot)
    if name == "fig5":
        sizes = [(n, B) for B in (4**9, 4**8) for n in (2500, 5000, 7500)]
        cells = _comparison_cells(name, sizes, _COMPARISON, quick)
        plot = PlotSpec("epsilon", "mechanism", ("epsilon", EPS_GRID[4]))
        return FigureSpec(name, "Fig. 5: comparison on Pareto data", cells, plot)
    raise ValueError(f"figure must be one of {FIGURES}, got {name!r}")


# --------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def run_seed(seed: int, cell: Cell, run: int) -> np.random.SeedSequence:
    """The SeedSequence of one run: entropy ``seed``, spawn key (figure, configuration,
    mechanism, ε, run), the names hashed with CRC-32 (stable across processes and versions)."""
    if not isinstance(cell, Cell):
        raise ValueError(f"cell must be a Cell, got {type(cell).__name__}")
    run = check_int(run, "run", minimum=0, maximum=2**32 - 1)
    key = (
        _crc(cell.figure),
        _crc(cell.configuration),
        _crc(cell.mechanism),
        _crc(repr(cell.epsilon)),
    )
    return np.random.SeedSequence(check_seed(seed), spawn_key=(*key, int(run)))


@dataclass(frozen=True)
class _Task:
    cell: Cell
    fn: Callable[..., Any]
    options: Mapping[str, Any]
    shuffle: bool
    runs: tuple[int, ...]
    seed: int


RunResult = tuple[int, int | None, str | None]


def _run_task(task: _Task) -> list[RunResult]:
    """Runs of one cell: (run, coin, None) or (run, None, "ValueError: ...")."""
    cell = task.cell
    users = dataset_users(cell.dataset, cell.n, cell.B, cell.data_seed)
    options = dict(task.options)
    if cell.c is not None:
        options["c"] = cell.c
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
        if not 1 <= int(coin) <= cell.B or int(coin) != coin:
            raise RuntimeError(f"{cell.mechanism} returned {coin!r}, not a coin in [1, {cell.B}]")
        out.append((run, int(coin), None))
    return out


def _chunks(runs: int, cells: int, workers: int) -> list[tuple[int, ...]]:
    per = max(1, min(runs, math.ceil(runs * cells / (4 * workers))))
    return [tuple(range(s, min(runs, s + per))) for s in range(0, runs, per)]


Progress = Callable[[str, int, int], None]


def run_cells(
    cells: Sequence[Cell],
    *,
    runs: int,
    seed: int,
    executor: Executor | None = None,
    workers: int = 1,
    estimators: Mapping[str, Callable[..., Any]] | None = None,
    progress: Progress | None = None,
    label: str = "",
) -> list[list[RunResult]]:
    """Every run of every cell (in cell order, runs in order); parallel when ``executor``."""
    if not isinstance(cells, list | tuple) or not all(isinstance(c, Cell) for c in cells):
        raise ValueError("cells must be a sequence of Cell")
    runs, seed = _check_runs(runs, False), check_seed(seed)
    workers = _check_workers(workers)
    if executor is not None and not isinstance(executor, Executor):
        raise ValueError(f"executor must be a concurrent.futures.Executor, got {executor!r:.60}")
    _check_progress(progress)
    if not isinstance(label, str):
        raise ValueError(f"label must be a string, got {type(label).__name__}")
    resolved = {m: resolve_series(m, estimators) for m in dict.fromkeys(c.mechanism for c in cells)}
    tasks, owner = [], []
    for i, cell in enumerate(cells):
        fn, options = resolved[cell.mechanism]
        shuffle = SERIES[cell.mechanism].shuffle
        for chunk in _chunks(runs, len(cells), workers):
            tasks.append(_Task(cell, fn, options, shuffle, chunk, seed))
            owner.append(i)
    results: list[list[RunResult]] = [[] for _ in cells]
    total, done = runs * len(cells), 0
    outputs = executor.map(_run_task, tasks) if executor is not None else map(_run_task, tasks)
    for i, out in zip(owner, outputs, strict=True):
        results[i].extend(out)
        done += len(out)
        if progress is not None:
            progress(label, done, total)
    return results


# --------------------------------------------------------------------------------------------
# summaries and CSV
# --------------------------------------------------------------------------------------------


def _cell_fields(cell: Cell) -> dict[str, Any]:
    return {
        "figure": cell.figure,
        "panel": cell.panel,
        "dataset": cell.dataset,
        "n": cell.n,
        "B": cell.B,
        "data_seed": cell.data_seed,
        "epsilon": cell.epsilon,
        "mechanism": cell.mechanism,
        "c": cell.c,
        "delta": cell.delta,
    }


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
    base = _cell_fields(cell)
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


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else repr(float(value))
    return str(value)


def write_csv(path: Path, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> Path:
    """Rows as CSV (floats by ``repr``, so values round-trip; ``None``/NaN as empty cells)."""
    path = _check_path(path, "path")
    if isinstance(columns, str | bytes) or not all(isinstance(c, str) for c in columns):
        raise ValueError("columns must be a sequence of column names (strings)")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_fmt(row.get(c)) for c in columns])
    return path


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------


def _axes_grid(rows: int, cols: int, width: float, height: float) -> tuple[Any, Any, np.ndarray]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    canvas = FigureCanvasAgg(fig)
    axes = np.atleast_2d(np.asarray(fig.subplots(rows, cols, squeeze=False)))
    return fig, canvas, axes


def _line_label(spec: PlotSpec, value: Any) -> str:
    return f"ε = {value:g}" if spec.lines == "epsilon" else str(value)


def _set_x(ax: Any, spec: PlotSpec) -> None:
    if spec.x in ("epsilon", "B"):
        ax.set_xscale("log")
    ax.set_xlabel({"epsilon": "ε", "B": "B", "c": "c"}[spec.x])


def _success_panel(ax: Any, rows: list[dict[str, Any]], spec: PlotSpec, alpha: float) -> None:
    lines = list(dict.fromkeys(r[spec.lines] for r in rows))
    for value in lines:
        pts = sorted(
            (r[spec.x], r["success_rate"], r["stderr"])
            for r in rows
            if r[spec.lines] == value and r["alpha_test"] == alpha
        )
        if not pts:
            continue
        x, y, e = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
        ax.errorbar(x, y, yerr=e, marker="o", ms=3, capsize=2, label=_line_label(spec, value))
    _set_x(ax, spec)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel(f"success rate (α_test = {alpha:g})")


def _error_panel(
    ax: Any, summary: list[dict[str, Any]], errors: list[dict[str, Any]], spec: PlotSpec
) -> None:
    if spec.cdf_at is None:
        for value in dict.fromkeys(r[spec.lines] for r in summary):
            pts = sorted(
                (r[spec.x], r["mean_error"])
                for r in summary
                if r[spec.lines] == value and r["alpha_test"] == MAIN_ALPHA
            )
            x, y = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
            ax.plot(x, y, marker="o", ms=3, label=_line_label(spec, value))
        _set_x(ax, spec)
        ax.set_ylabel("mean absolute quantile error")
        return
    key, at = spec.cdf_at
    for value in dict.fromkeys(r[spec.lines] for r in errors):
        errs = np.sort(
            [
                r["error"]
                for r in errors
                if r[spec.lines] == value and r[key] == at and r.get("error") is not None
            ]
        )
        if errs.size:
            x = np.concatenate([[0.0], errs])
            y = np.arange(errs.size + 1) / errs.size
            ax.step(x, y, where="post", label=str(value))
    ax.set_xlim(left=0)
    ax.set_xlabel("absolute quantile error |F(m̃) − F(m)|")
    ax.set_ylabel(f"empirical CDF ({'ε' if key == 'epsilon' else key} = {at:g})")
    ax.set_ylim(0, 1.02)


def _alpha_panel(ax: Any, rows: list[dict[str, Any]], spec: PlotSpec) -> None:
    colours = _colormap(len(ALPHA_TESTS))
    for alpha, colour in zip(ALPHA_TESTS, colours, strict=True):
        pts = sorted((r[spec.x], r["success_rate"]) for r in rows if r["alpha_test"] == alpha)
        if pts:
            x, y = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
            ax.plot(x, y, marker=".", color=colour, label=f"{alpha:g}")
    _set_x(ax, spec)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("success rate", fontsize=7)


def _colormap(k: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    return [cmap(i / max(1, k - 1)) for i in range(k)]


def plot_figure(
    spec: FigureSpec, summary: list[dict[str, Any]], errors: list[dict[str, Any]], out: Path
) -> list[Path]:
    """``<figure>.png`` (per panel: success at α_test = 0.04 with ±1 s.e. bars, and the error CDF
    or mean error) and ``<figure>_alpha.png`` (per panel and line: success for every α_test);
    matplotlib's Agg canvas, no pyplot state."""
    panels = list(dict.fromkeys(c.panel for c in spec.cells))
    fig, canvas, axes = _axes_grid(len(panels), 2, 5.0, 3.6)
    for i, panel in enumerate(panels):
        rows = [r for r in summary if r["panel"] == panel]
        errs = [r for r in errors if r["panel"] == panel]
        _success_panel(axes[i, 0], rows, spec.plot, MAIN_ALPHA)
        _error_panel(axes[i, 1], rows, errs, spec.plot)
        if panel == _panel(2500, 4**9) and spec.plot.lines == "mechanism":
            for (mech, rates), mark in zip(AUTHORS_FIG1A_SUCCESS.items(), "x+1", strict=True):
                label = f"{mech} (authors' runs)"
                axes[i, 0].plot(EPS_GRID, rates, ls="--", marker=mark, color="0.5", label=label)
        axes[i, 0].set_title(panel, fontsize=9)
        axes[i, 0].legend(fontsize=7)
        axes[i, 1].legend(fontsize=7)
    fig.suptitle(spec.title)
    main = out / f"{spec.name}.png"
    canvas.print_png(str(main))
    values = list(
        dict.fromkeys(
            c.mechanism if spec.plot.lines == "mechanism" else c.epsilon for c in spec.cells
        )
    )
    fig, canvas, axes = _axes_grid(len(panels), len(values), 3.6, 2.8)
    for i, panel in enumerate(panels):
        rows = [r for r in summary if r["panel"] == panel]
        for j, value in enumerate(values):
            _alpha_panel(axes[i, j], [r for r in rows if r[spec.plot.lines] == value], spec.plot)
            axes[i, j].set_title(f"{panel}: {_line_label(spec.plot, value)}", fontsize=7)
        axes[i, 0].legend(fontsize=6, title="α_test", title_fontsize=6)
    fig.suptitle(f"{spec.title}: success for each α_test")
    grid = out / f"{spec.name}_alpha.png"
    canvas.print_png(str(grid))
    return [main, grid]


# --------------------------------------------------------------------------------------------
# the public entry points
# --------------------------------------------------------------------------------------------


def _check_workers(workers: Any) -> int:
    if workers is None:
        return os.cpu_count() or 1
    return check_int(workers, "workers", minimum=1, maximum=MAX_WORKERS)


def _check_runs(runs: Any, quick: bool) -> int:
    if runs is None:
        return QUICK_RUNS if quick else DEFAULT_RUNS
    return check_int(runs, "runs", minimum=1, maximum=MAX_RUNS)


def _check_progress(progress: Any) -> None:
    if progress is not None and not callable(progress):
        raise ValueError(
            f"progress must be None or callable as progress(figure, done, total), got "
            f"{type(progress).__name__}"
        )


def _check_estimators(estimators: Any, name: str = "estimators") -> None:
    if estimators is None:
        return
    if not isinstance(estimators, Mapping):
        raise ValueError(
            f"{name} must be None or a mapping from series names to functions, got "
            f"{type(estimators).__name__}"
        )
    for key, fn in estimators.items():
        if not isinstance(key, str) or key not in SERIES:
            raise ValueError(f"{name} keys must be series names {sorted(SERIES)}, got {key!r:.60}")
        if not callable(fn):
            raise ValueError(f"{name}[{key!r}] must be callable, got {type(fn).__name__}")


def _check_path(path: Any, name: str) -> Path:
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike):
        raise ValueError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}")
    if isinstance(path, str) and not path.strip():
        raise ValueError(f"{name} must be a non-empty path, got {path!r}")
    try:
        out = Path(path)
    except TypeError:
        raise ValueError(f"{name} must be a path (str or os.PathLike), got {path!r:.60}") from None
    if str(out) == "" or "\x00" in str(out):
        raise ValueError(f"{name} must be a non-empty path without NUL characters")
    return out


def _figure_outputs(
    spec: FigureSpec, results: list[list[RunResult]], out: Path, plot: bool = True
) -> list[Path]:
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
    paths = [
        write_csv(out / f"{spec.name}.csv", summary, SUMMARY_COLUMNS),
        write_csv(out / f"{spec.name}_errors.csv", errors, ERROR_COLUMNS),
    ]
    return paths + (plot_figure(spec, summary, errors, out) if plot else [])


def run_figures(
    names: Sequence[str] | None = None,
    *,
    runs: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path = DEFAULT_OUT,
    quick: bool = False,
    estimators: Mapping[str, Callable[..., Any]] | None = None,
    progress: Progress | None = None,
    plot: bool = True,
) -> list[Path]:
    """Run ``names`` (default: every figure of :data:`FIGURES`) and write their CSV and PNG files
    into ``out``; returns the paths written. One process pool serves every figure."""
    if names is not None and (isinstance(names, str) or not isinstance(names, list | tuple)):
        raise ValueError(f"names must be None or a list of figure names, got {names!r:.60}")
    names = list(FIGURES if names is None else names)
    for name in names:
        check_choice(name, "figure", FIGURES)
    quick, plot = check_flag(quick, "quick"), check_flag(plot, "plot")
    runs, workers, seed = _check_runs(runs, quick), _check_workers(workers), check_seed(seed)
    _check_estimators(estimators)
    _check_progress(progress)
    out = _check_path(out, "out")
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must be a directory, got the existing file {str(out)!r:.80}")
    specs = [build_figure(name, quick) for name in names]
    for spec in specs:  # fail before any work if an estimator is missing
        for mech in dict.fromkeys(c.mechanism for c in spec.cells):
            resolve_series(mech, estimators)
    paths: list[Path] = []
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        for spec in specs:
            results = run_cells(
                spec.cells,
                runs=runs,
                seed=seed,
                executor=pool,
                workers=workers,
                estimators=estimators,
                progress=progress,
                label=spec.name,
            )
            paths += _figure_outputs(spec, results, out, plot)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return paths


def run_figure(
    name: str,
    *,
    runs: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path = DEFAULT_OUT,
    quick: bool = False,
    estimators: Mapping[str, Callable[..., Any]] | None = None,
    progress: Progress | None = None,
    plot: bool = True,
) -> list[Path]:
    """Run one figure ("fig1a", "fig1b", "fig2", "fig3", "fig4" or "fig5"; spec §5) and write
    ``<name>.csv``, ``<name>_errors.csv``, ``<name>.png`` and ``<name>_alpha.png`` into ``out``.

    ``runs`` per configuration (default 200, or 4 with ``quick``); ``seed`` (>= 0) drives every
    run's randomness; ``workers`` processes (default ``os.cpu_count()``; 1 runs in-process);
    ``quick`` shrinks the grids and sizes for smoke tests; ``estimators`` replaces series by
    stand-in functions (by series name); ``progress(figure, runs_done, runs_total)`` is called
    after each batch; ``plot=False`` writes the CSV files only.
    """
    name = check_choice(name, "figure", FIGURES)
    return run_figures(
        [name],
        runs=runs,
        seed=seed,
        workers=workers,
        out=out,
        quick=quick,
        estimators=estimators,
        progress=progress,
        plot=plot,
    )


__all__ = [
    "ALPHA_TESTS",
    "C_GRID",
    "EPS_GRID",
    "FIGURES",
    "SERIES",
    "Cell",
    "FigureSpec",
    "Series",
    "SortedUsers",
    "absolute_quantile_errors",
    "binomial_stderr",
    "build_figure",
    "resolve_series",
    "run_cells",
    "run_figure",
    "run_figures",
    "run_seed",
    "success_indicators",
    "summarize_cell",
    "true_median",
    "write_csv",
]
