"""Reproduction of imola25's experiments (Sec. 6, Figure 1; spec §4, §5 items 19–28).

``dpquant reproduce imola25 [--runs 200] [--m 10,20,...] [--panels a,b,c,d] [--duplication K]
[--jointexp-runs 10] [--jointexp-m 10,50,100,200] [--seed 0] [--workers N] [--out DIR] [--quick]``
or :func:`run_study`. Setting (spec §4): the UCI Adult ``age`` and ``hours_per_week`` columns,
made distinct, domain (0, 100), ε = 1, δ = 10⁻¹⁶, m ∈ {10, 20, ..., 200} quantiles drawn per run
from the grid {i/251 : i = 1..250}; panels a = age/substitute, b = hours/substitute, c =
age/add-remove, d = hours/add-remove (the paper's "substitute" is our ``replace_one``).

Mechanisms (the same data, the same n and, within a run, the same quantiles for all of them):

* ``SliceQuantiles``: Algorithm 1 planned by
  :func:`reference.slice_quantiles.slice_quantiles.plan_slice_quantiles` (authors' budget split,
  half-width h = ⌈(2/ε2)·ln(2mψ/β)⌉ with ψ = 100·n (g = 1/n), β = 0.05, w = the exact CC tail at
  δ, or δ/(1 + e^{ε1+2ε2}) under substitution, binary-tree CC with discrete Laplace noise);
* ``AQ pure`` ((1, 0)-DP) and ``AQ zCDP`` (ρ from (ε, δ) by the CKS conversion, ≈ 0.00706), the
  KSS baseline :func:`reference.slice_quantiles.approximate_quantiles.approximate_quantiles`;
* ``JointExp`` (Gillenwater et al. 2021; not in the paper's figure, spec §2.7): O(m·n) per
  release (measured ≈ 7 s at m = 10 and ≈ 90 s at m = 200 for n ≈ 10⁶), so by default only the
  first 10 runs at m ∈ {10, 50, 100, 200} (``note`` says so, with the measured time).

Data (spec §4): every value duplicated k times, sorted, and i/n added to the i-th (i = 1..n), so
the values are strictly increasing with minimum gap g = 1/n (:func:`make_distinct`). The
duplication factor (spec §5 item 28): with a correct CC the paper's n ≈ 5·10⁵ is infeasible, so
for each adjacency :func:`find_duplication` returns the smallest k such that *every* draw of m
quantiles from the 250-grid passes SliceQuantiles' feasibility check for every m of the study
(the binding draw contains two consecutive grid points and the two extreme ones, so the check is
run on all 250 grid ranks with the h and w of each m). ``duplication=K`` forces k; a SliceQuantiles
run whose draw is then infeasible is skipped and counted in ``note``, never silently.

Metric (spec §1, §4): rank_X(z) = #{x < z} (``searchsorted(x, z, "left")``), per run the max and
the mean of |rank_X(z_i) − ⌊q_i·n⌋| over the m quantiles; per cell the mean over runs of each,
with a 95% percentile bootstrap CI (2000 resamples, seeded).

Randomness: ``SeedSequence(seed, spawn_key=...)`` per purpose, the names hashed with CRC-32:
the quantiles of a run from ("quantiles", dataset, adjacency, m, run) — shared by the mechanisms;
each mechanism's noise from ("noise", dataset, adjacency, m, mechanism, run) — fresh per run (the
authors' code reuses one CC draw for all 200 runs, spec §5 item 25; we do not); the bootstrap from
("bootstrap", dataset, adjacency, m, mechanism). The authors seed the quantiles with
``np.random.seed(42 + run)`` (spec §4); ours differ, which only changes which draws are used. The
output depends neither on ``workers`` nor on how the runs are batched.

Outputs in ``out``: ``imola25.csv`` (one row per panel, m, mechanism), ``imola25_runs.csv`` (one
row per run), ``imola25_feasibility.csv`` (per adjacency the chosen k and k − 1 with n, h, w, the
grid spacing and the spacing needed), ``imola25.png`` (Figure 1 layout: mean max rank error vs m,
95% CI bands, the spec §4 traced values of the authors' run dashed) and ``imola25_mean.png``
(the same for the mean rank error).
"""

from __future__ import annotations

import importlib
import math
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from reference.experiments.aamand25 import Progress, _axes_grid, _check_workers, _chunks, write_csv
from reference.experiments.aamand25_data import check_seed
from reference.slice_quantiles.parameters import (
    budget_split,
    check_feasible,
    delta_multiplier,
    half_width,
    required_spacing,
    target_ranks,
)
from reference.validation import (
    check_choice,
    check_data,
    check_delta,
    check_epsilon,
    check_flag,
    check_int,
    check_probability,
    check_rng,
)

DATASETS = ("age", "hours_per_week")
ADJACENCIES = ("replace_one", "add_remove")
PANELS: dict[str, tuple[str, str]] = {
    "a": ("age", "replace_one"),
    "b": ("hours_per_week", "replace_one"),
    "c": ("age", "add_remove"),
    "d": ("hours_per_week", "add_remove"),
}
PANEL_TITLES = {
    "a": "a) AdultAge, substitute",
    "b": "b) AdultHours, substitute",
    "c": "c) AdultAge, add/remove",
    "d": "d) AdultHours, add/remove",
}
MECHANISMS = ("SliceQuantiles", "AQ pure", "AQ zCDP", "JointExp")
BOUNDS = (0.0, 100.0)
EPSILON = 1.0
DELTA = 1e-16
BETA = 0.05
GRID = 251  # quantiles are drawn from {i/251 : i = 1..250} (spec §4)
ADULT_SIZE = 48_842
M_VALUES: tuple[int, ...] = tuple(range(10, 201, 10))
DEFAULT_RUNS = 200
DEFAULT_JOINTEXP_RUNS = 10
DEFAULT_JOINTEXP_M: tuple[int, ...] = (10, 50, 100, 200)
QUICK_PANELS = ("a", "c")
QUICK_M: tuple[int, ...] = (10, 20)
QUICK_RUNS = 3
QUICK_JOINTEXP_RUNS = 1
QUICK_JOINTEXP_M: tuple[int, ...] = (10,)
BOOTSTRAP_RESAMPLES = 2000
CI_LEVEL = 0.95
MAX_DUPLICATION = 1000
MAX_WORKERS = 256
MAX_BOOTSTRAP_CELLS = 10**8  # resamples × values of one bootstrap
DEFAULT_OUT = Path("reports") / "imola25"

SUMMARY_COLUMNS = (
    "panel", "dataset", "adjacency", "duplication", "n", "m", "epsilon", "delta", "mechanism",
    "runs", "completed_runs", "max_rank_error", "max_rank_error_ci_low", "max_rank_error_ci_high",
    "mean_rank_error", "mean_rank_error_ci_low", "mean_rank_error_ci_high", "half_width",
    "cc_error_bound", "seconds_per_run", "note",
)  # fmt: skip
RUN_COLUMNS = (
    "panel", "dataset", "adjacency", "duplication", "n", "m", "epsilon", "delta", "mechanism",
    "run", "max_rank_error", "mean_rank_error", "seconds", "note",
)  # fmt: skip
FEASIBILITY_COLUMNS = (
    "adjacency", "duplication", "n", "m", "epsilon1", "epsilon2", "cc_delta", "w", "h",
    "spacing", "required_spacing", "first_rank", "last_rank", "feasible", "role",
)  # fmt: skip
TIMING_COLUMNS = ("seconds_per_run", "seconds")

# Spec §4: curve values traced from the authors' notebook figure (n = 586,104, their flawed k-ary
# CC; read accuracy ≈ ±3), at m = 10, 50, 100, 150, 200; drawn dashed for comparison.
TRACED_M = (10, 50, 100, 150, 200)
TRACED: dict[str, dict[str, tuple[int, ...]]] = {
    "a": {
        "SliceQuantiles": (55, 92, 120, 122, 143),
        "AQ zCDP": (85, 172, 220, 234, 243),
        "AQ pure": (57, 145, 193, 220, 238),
    },
    "b": {
        "SliceQuantiles": (54, 99, 136, 112, 131),
        "AQ zCDP": (83, 177, 222, 231, 252),
        "AQ pure": (57, 148, 204, 222, 244),
    },
    "c": {
        "SliceQuantiles": (31, 53, 73, 76, 93),
        "AQ zCDP": (57, 113, 139, 142, 151),
        "AQ pure": (25, 69, 93, 98, 110),
    },
    "d": {
        "SliceQuantiles": (30, 54, 76, 69, 71),
        "AQ zCDP": (56, 113, 145, 159, 161),
        "AQ pure": (25, 64, 85, 97, 107),
    },
}
COLOURS = {"SliceQuantiles": "C0", "AQ pure": "C1", "AQ zCDP": "C2", "JointExp": "C3"}


# --------------------------------------------------------------------------------------------
# data (spec §4)
# --------------------------------------------------------------------------------------------


def check_dataset(dataset: Any) -> str:
    return check_choice(dataset, "dataset", DATASETS)


def _check_sequence(values: Any, name: str) -> Sequence[Any]:
    """A list, tuple or range (not a string, a set or a scalar)."""
    if not isinstance(values, list | tuple | range):
        raise ValueError(f"{name} must be a list or tuple, got {values!r:.80}")
    return values


def make_distinct(values: Any, duplication: int) -> np.ndarray:
    """Spec §4 / Sec. 6: each value repeated ``duplication`` times, sorted, then i/n added to the
    i-th smallest (i = 1..n). Sorted input values v_(1) <= ... <= v_(n) give x_(i) = v_(i) + i/n,
    strictly increasing with minimum gap 1/n (attained between copies of one value) and, for
    values in [0, 100 − 1], still inside the domain [0, 100]."""
    k = check_int(duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION)
    v = check_data(values, "values")
    if v.size * k > 10**8:
        raise ValueError(f"values × duplication must be at most 10^8 points, got {v.size}·{k}")
    x = np.sort(np.repeat(v, k))
    n = x.size
    out = x + np.arange(1, n + 1, dtype=float) / n
    with np.errstate(over="ignore", invalid="ignore"):
        distinct = n < 2 or bool(np.all(np.diff(out) > 0))
    if not distinct:
        raise ValueError(
            "values are too large for the i/n spacing (the shifted values are not distinct in "
            "float64): use values of magnitude well below 2^52/n"
        )
    return out


@lru_cache(maxsize=4)
def adult_distinct(dataset: str, duplication: int) -> np.ndarray:
    """The distinct, duplicated Adult column (read-only, cached per process)."""
    from reference.datasets import load_adult

    x = make_distinct(load_adult(check_dataset(dataset)), duplication)
    x.setflags(write=False)
    return x


# --------------------------------------------------------------------------------------------
# quantiles and the metric (spec §1, §4)
# --------------------------------------------------------------------------------------------


def check_m(m: Any, name: str = "m") -> int:
    """A number of quantiles drawable from the 250-grid: an integer in [1, 250]."""
    m = check_int(m, name, minimum=1)
    if m > GRID - 1:
        raise ValueError(f"{name} must be an integer in [1, {GRID - 1}], got {m}")
    return m


def draw_quantiles(m: int, rng: np.random.Generator) -> np.ndarray:
    """Spec §4 / §5 item 19: m distinct quantiles drawn uniformly without replacement from
    {i/251 : i = 1..250}, sorted."""
    m = check_m(m)
    rng = check_rng(rng)
    idx = rng.choice(GRID - 1, size=m, replace=False) + 1
    return np.sort(idx) / GRID


def grid_quantiles() -> np.ndarray:
    """All 250 grid quantiles i/251 (computed as in :func:`draw_quantiles`)."""
    return np.arange(1, GRID) / GRID


def rank_errors(x_sorted: np.ndarray, z: Any, ranks: Any) -> tuple[float, float]:
    """(max, mean) of |rank_X(z_i) − r_i| with rank_X(z) = #{x < z} (spec §1: Err_X(Q, Z) is
    the max; the mean is the authors' second metric, spec §4)."""
    from reference.slice_quantiles.good_set import check_int_array

    x_sorted = check_data(x_sorted, "x_sorted", allow_empty=True)
    if np.any(x_sorted[1:] < x_sorted[:-1]):
        raise ValueError("x_sorted must be sorted in non-decreasing order")
    z = check_data(z, "z")
    r = check_int_array(ranks, "ranks")
    if z.shape != r.shape or z.ndim != 1 or z.size == 0:
        raise ValueError(f"z and ranks must be 1-D of the same length, got {z.shape}, {r.shape}")
    err = np.abs(np.searchsorted(x_sorted, z, side="left") - r)
    return float(err.max()), float(err.mean())


def bootstrap_mean_ci(
    values: Any,
    rng: np.random.Generator,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = CI_LEVEL,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean (spec §4: the paper's 95% bootstrap CIs)."""
    v = check_data(values, "values")
    rng = check_rng(rng)
    resamples = check_int(resamples, "resamples", minimum=1)
    if resamples * v.size > MAX_BOOTSTRAP_CELLS:
        raise ValueError(
            f"resamples × len(values) must be at most {MAX_BOOTSTRAP_CELLS}, got "
            f"{resamples}·{v.size}"
        )
    level = check_probability(level, "level", open_left=True, open_right=True)
    with np.errstate(over="ignore", invalid="ignore"):
        means = v[rng.integers(0, v.size, size=(resamples, v.size))].mean(axis=1)
    if not np.isfinite(means).all():
        raise ValueError("values are too large: their mean overflows a float64")
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


# --------------------------------------------------------------------------------------------
# SliceQuantiles' parameters and the duplication factor (spec §2.3, §5 item 28)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Feasibility:
    """SliceQuantiles' feasibility on the whole 250-grid at n = duplication·48,842 (the binding
    m = the largest of the study; ``feasible`` covers every m of the study)."""

    adjacency: str
    duplication: int
    n: int
    m: int
    epsilon1: float
    epsilon2: float
    cc_delta: float
    w: int
    h: int
    spacing: int
    required_spacing: int
    first_rank: int
    last_rank: int
    feasible: bool

    def row(self, role: str) -> dict[str, Any]:
        return {**asdict(self), "role": role}


def slice_parameters(
    n: int, m: int, adjacency: str, epsilon: float = EPSILON, delta: float = DELTA
) -> tuple[int, int, float]:
    """(h, w, δ_CC) exactly as :func:`plan_slice_quantiles` chooses them for this study (authors'
    budget split, g = 1/n so ψ = 100·n, β = 0.05, exact CC tail, discrete noise)."""
    from reference.slice_quantiles.slice_quantiles import cc_error

    n = check_int(n, "n", minimum=1, maximum=2**53)
    m = check_m(m)
    split = budget_split(epsilon, adjacency)
    psi = (BOUNDS[1] - BOUNDS[0]) * n
    h = half_width(m, split.epsilon2, psi, BETA)
    cc_delta = check_delta(delta) / delta_multiplier(split.epsilon1, split.epsilon2, adjacency)
    w = cc_error(split.epsilon1, m, "discrete", "exact", delta=cc_delta)
    return h, w, cc_delta


def _grid_ok(ranks: np.ndarray, n: int, h: int, w: int) -> bool:
    try:
        check_feasible(ranks, n, h, w)
    except ValueError:
        return False
    return True


def slice_feasibility(
    adjacency: str,
    duplication: int,
    ms: Sequence[int],
    epsilon: float = EPSILON,
    delta: float = DELTA,
    base_n: int = ADULT_SIZE,
) -> Feasibility:
    """Is every draw of m grid quantiles feasible for SliceQuantiles at n = duplication·base_n,
    for every m in ``ms``? (All 250 grid ranks in Good*_{m,n−1,h+1+w} ⇔ every subset is: a subset
    keeps the ends and only widens the spacings, and at m = 200 > 125 some draw contains two
    consecutive grid points.)"""
    k = check_int(duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION)
    n = k * check_int(base_n, "base_n", minimum=1, maximum=2**40)
    ranks = target_ranks(grid_quantiles(), n)
    ok = True
    ms = sorted({check_m(v, "ms") for v in _check_sequence(ms, "ms")})
    if not ms:
        raise ValueError("ms must not be empty")
    for m in ms:
        h, w, cc_delta = slice_parameters(n, m, adjacency, epsilon, delta)
        ok = ok and _grid_ok(ranks, n, h, w)
    split = budget_split(epsilon, adjacency)
    return Feasibility(
        adjacency,
        k,
        n,
        m,
        split.epsilon1,
        split.epsilon2,
        cc_delta,
        w,
        h,
        int(np.diff(ranks).min()),
        required_spacing(h, w),
        int(ranks[0]),
        int(ranks[-1]),
        ok,
    )


def find_duplication(
    adjacency: str,
    ms: Sequence[int] = M_VALUES,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    base_n: int = ADULT_SIZE,
    max_duplication: int = MAX_DUPLICATION,
) -> Feasibility:
    """The smallest duplication factor k with :func:`slice_feasibility` true (spec §5 item 28
    estimates ≈ ×14 add/remove, ≈ ×25 substitute). A linear scan from k = 1, so k − 1 is
    infeasible by construction."""
    top = check_int(max_duplication, "max_duplication", minimum=1, maximum=MAX_DUPLICATION)
    for k in range(1, top + 1):
        f = slice_feasibility(adjacency, k, ms, epsilon, delta, base_n)
        if f.feasible:
            return f
    raise ValueError(
        f"no duplication factor <= max_duplication = {top} is feasible for {adjacency} at "
        f"epsilon = {epsilon!r}, delta = {delta!r}, ms = {tuple(ms)!r:.60}, base_n = {base_n!r}"
    )


# --------------------------------------------------------------------------------------------
# cells, seeds and runs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One (panel, m, mechanism) at a duplication factor."""

    panel: str
    dataset: str
    adjacency: str
    duplication: int
    m: int
    mechanism: str
    runs: int
    epsilon: float = EPSILON
    delta: float = DELTA

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        _check_panel(self.panel, "panel")
        check_dataset(self.dataset)
        check_choice(self.adjacency, "adjacency", ("add_remove", "replace_one"))
        put(
            "duplication",
            check_int(self.duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION),
        )
        put("m", check_m(self.m))
        check_choice(self.mechanism, "mechanism", MECHANISMS)
        put("runs", check_int(self.runs, "runs", minimum=0))
        put("epsilon", check_epsilon(self.epsilon))
        put("delta", check_delta(self.delta))

    @property
    def n(self) -> int:
        return self.duplication * ADULT_SIZE


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def quantile_seed(
    seed: int, dataset: str, adjacency: str, m: int, run: int
) -> np.random.SeedSequence:
    """The quantiles of one run, shared by every mechanism (module docstring)."""
    dataset = check_dataset(dataset)
    adjacency = check_choice(adjacency, "adjacency", ("add_remove", "replace_one"))
    m, run = check_m(m), check_int(run, "run", minimum=0)
    key = (_crc("quantiles"), _crc(dataset), _crc(adjacency), int(m), int(run))
    return np.random.SeedSequence(check_seed(seed), spawn_key=key)


def noise_seed(seed: int, cell: Cell, run: int) -> np.random.SeedSequence:
    """A mechanism's fresh noise in one run (module docstring; spec §5 item 25)."""
    cell = _check_cell(cell)
    run = check_int(run, "run", minimum=0)
    key = (
        _crc("noise"),
        _crc(cell.dataset),
        _crc(cell.adjacency),
        int(cell.m),
        _crc(cell.mechanism),
        int(run),
    )
    return np.random.SeedSequence(check_seed(seed), spawn_key=key)


def _check_cell(cell: Any, name: str = "cell") -> Cell:
    if not isinstance(cell, Cell):
        raise ValueError(f"{name} must be a Cell, got {type(cell).__name__}")
    return cell


def bootstrap_seed(seed: int, cell: Cell) -> np.random.SeedSequence:
    cell = _check_cell(cell)
    key = (
        _crc("bootstrap"),
        _crc(cell.dataset),
        _crc(cell.adjacency),
        int(cell.m),
        _crc(cell.mechanism),
    )
    return np.random.SeedSequence(check_seed(seed), spawn_key=key)


def run_quantiles(seed: int, dataset: str, adjacency: str, m: int, run: int) -> np.ndarray:
    return draw_quantiles(m, np.random.default_rng(quantile_seed(seed, dataset, adjacency, m, run)))


def _import(target: str) -> Callable[..., Any]:
    module_name, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"{target} is not available ({type(exc).__name__}: {exc})") from exc


_TARGETS = {
    "SliceQuantiles": "reference.slice_quantiles.slice_quantiles:plan_slice_quantiles",
    "AQ pure": "reference.slice_quantiles.approximate_quantiles:approximate_quantiles",
    "AQ zCDP": "reference.slice_quantiles.approximate_quantiles:approximate_quantiles",
    "JointExp": "reference.slice_quantiles.joint_exp:joint_exp",
}


def release(cell: Cell, x: np.ndarray, q: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One release of ``cell.mechanism`` on sorted ``x`` at quantiles ``q`` (spec §4)."""
    cell = _check_cell(cell)
    x = check_data(x, "x")
    if np.any(x[1:] < x[:-1]):
        raise ValueError("x must be sorted in non-decreasing order")
    rng = check_rng(rng)
    fn = _import(_TARGETS[cell.mechanism])
    adj, eps = cell.adjacency, cell.epsilon
    if cell.mechanism == "SliceQuantiles":
        plan = fn(
            len(x),  # public n (the same n as the ranks ⌊q·n⌋), spec §5 item 12
            BOUNDS,
            eps,
            cell.delta,
            quantiles=q,
            adjacency=adj,
            min_gap=1.0 / len(x),
            beta=BETA,
        )
        return plan.mechanism.release(x, rng)
    if cell.mechanism == "AQ pure":
        return fn(x, q, BOUNDS, eps, rng, adjacency=adj, mode="pure")
    if cell.mechanism == "AQ zCDP":
        return fn(x, q, BOUNDS, eps, rng, adjacency=adj, mode="zcdp", delta=cell.delta)
    if cell.mechanism == "JointExp":
        return fn(x, q, BOUNDS, eps, rng, adjacency=adj)
    raise ValueError(f"mechanism must be one of {MECHANISMS}, got {cell.mechanism!r}")


RunResult = tuple[int, float, float, float, str]  # run, max err, mean err, seconds, note


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
    progress: Progress | None = None,
) -> list[list[RunResult]]:
    """Every run of every cell (cells in order, runs in order); parallel when ``executor``.
    Progress is reported per panel: ``progress("imola25 <panel>", runs_done, runs_total)``."""
    cells = _check_sequence(cells, "cells")
    for cell in cells:
        _check_cell(cell, "cells[i]")
    check_seed(seed)
    if executor is not None and not isinstance(executor, Executor):
        raise ValueError(
            f"executor must be a concurrent.futures.Executor or None, got {executor!r:.80}"
        )
    workers = check_int(workers, "workers", minimum=1, maximum=MAX_WORKERS)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {progress!r:.80}")
    tasks, owner = [], []
    for i, cell in enumerate(cells):
        # JointExp takes seconds to minutes per release: one run per task balances the pool
        chunks = (
            [(r,) for r in range(cell.runs)]
            if cell.mechanism == "JointExp"
            else _chunks(cell.runs, len(cells), workers)
        )
        for chunk in chunks:
            tasks.append(_Task(cell, chunk, seed))
            owner.append(i)
    totals: dict[str, int] = {}
    for cell in cells:
        totals[cell.panel] = totals.get(cell.panel, 0) + cell.runs
    done = dict.fromkeys(totals, 0)
    results: list[list[RunResult]] = [[] for _ in cells]
    outputs = executor.map(_run_task, tasks) if executor is not None else map(_run_task, tasks)
    for i, res in zip(owner, outputs, strict=True):
        results[i].extend(res)
        panel = cells[i].panel
        done[panel] += len(res)
        if progress is not None:
            progress(f"imola25 {panel}", done[panel], totals[panel])
    return results


# --------------------------------------------------------------------------------------------
# configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Study:
    """What :func:`run_study` runs (defaults: spec §4; ``quick``: a tiny smoke version)."""

    panels: tuple[str, ...]
    ms: tuple[int, ...]
    runs: int
    jointexp_runs: int
    jointexp_ms: tuple[int, ...]
    duplication: int | None
    epsilon: float
    delta: float
    seed: int


def _check_list(values: Iterable[Any], check: Callable[[Any, str], Any], name: str) -> tuple:
    out = tuple(dict.fromkeys(check(v, name) for v in values))
    if not out:
        raise ValueError(f"{name} must not be empty")
    return out


def _check_panel(panel: Any, name: str = "panels") -> str:
    if not isinstance(panel, str) or panel not in PANELS:
        raise ValueError(f"{name} must be among {tuple(PANELS)}, got {panel!r:.80}")
    return panel


def make_study(
    *,
    panels: Sequence[str] | None = None,
    ms: Sequence[int] | None = None,
    runs: int | None = None,
    jointexp_runs: int | None = None,
    jointexp_ms: Sequence[int] | None = None,
    duplication: int | None = None,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    seed: int = 0,
    quick: bool = False,
) -> Study:
    """The validated configuration; ``None`` takes the default (or the ``quick`` default)."""
    quick = check_flag(quick, "quick")
    for name, value in (("panels", panels), ("ms", ms), ("jointexp_ms", jointexp_ms)):
        if value is not None:
            _check_sequence(value, name)
    panels = QUICK_PANELS if panels is None and quick else panels or tuple(PANELS)
    ms = (QUICK_M if quick else M_VALUES) if ms is None else ms
    jm = (QUICK_JOINTEXP_M if quick else DEFAULT_JOINTEXP_M) if jointexp_ms is None else jointexp_ms
    runs = (QUICK_RUNS if quick else DEFAULT_RUNS) if runs is None else runs
    jr = (
        (QUICK_JOINTEXP_RUNS if quick else DEFAULT_JOINTEXP_RUNS)
        if jointexp_runs is None
        else jointexp_runs
    )
    return Study(
        panels=tuple(sorted(_check_list(panels, _check_panel, "panels"))),
        ms=tuple(sorted(_check_list(ms, check_m, "ms"))),
        runs=check_int(runs, "runs", minimum=1),
        jointexp_runs=check_int(jr, "jointexp_runs", minimum=0),
        jointexp_ms=tuple(sorted(_check_list(jm, check_m, "jointexp_ms"))),
        duplication=None
        if duplication is None
        else check_int(duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION),
        epsilon=check_epsilon(epsilon),
        delta=check_delta(delta),
        seed=check_seed(seed),
    )


def choose_duplications(study: Study) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Per adjacency of the study: the duplication factor used and the feasibility rows (the
    smallest feasible k, k − 1, and a forced k if given)."""
    study = _check_study(study)
    chosen: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    for adj in dict.fromkeys(PANELS[p][1] for p in study.panels):
        best = find_duplication(adj, study.ms, study.epsilon, study.delta)
        if best.duplication > 1:
            below = slice_feasibility(
                adj, best.duplication - 1, study.ms, study.epsilon, study.delta
            )
            rows.append(below.row("smallest feasible − 1"))
        rows.append(best.row("smallest feasible" + ("" if study.duplication else " (used)")))
        chosen[adj] = best.duplication
        if study.duplication is not None:
            forced = slice_feasibility(adj, study.duplication, study.ms, study.epsilon, study.delta)
            rows.append(forced.row("forced (used)"))
            chosen[adj] = study.duplication
    return chosen, rows


def _check_study(study: Any) -> Study:
    if not isinstance(study, Study):
        raise ValueError(f"study must be a Study (make_study(...)), got {type(study).__name__}")
    return study


def build_cells(study: Study, duplications: dict[str, int]) -> list[Cell]:
    """Cells in panel, m, mechanism order; JointExp only at m ∈ jointexp_ms ∩ ms with its own run
    count (none when jointexp_runs = 0)."""
    study = _check_study(study)
    if not isinstance(duplications, dict) or any(
        PANELS[p][1] not in duplications for p in study.panels
    ):
        raise ValueError("duplications must map every adjacency of the study to a factor")
    cells = []
    for panel in study.panels:
        dataset, adj = PANELS[panel]
        for m in study.ms:
            for mech in MECHANISMS:
                runs = study.runs
                if mech == "JointExp":
                    if m not in study.jointexp_ms or study.jointexp_runs == 0:
                        continue
                    runs = study.jointexp_runs
                cells.append(
                    Cell(
                        panel,
                        dataset,
                        adj,
                        duplications[adj],
                        m,
                        mech,
                        runs,
                        study.epsilon,
                        study.delta,
                    )
                )
    return cells


# --------------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------------


def _cell_fields(cell: Cell) -> dict[str, Any]:
    return {
        "panel": cell.panel,
        "dataset": cell.dataset,
        "adjacency": cell.adjacency,
        "duplication": cell.duplication,
        "n": cell.n,
        "m": cell.m,
        "epsilon": cell.epsilon,
        "delta": cell.delta,
        "mechanism": cell.mechanism,
    }


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


def summarize_cell(
    cell: Cell, results: Sequence[RunResult], study: Study, feasible: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The summary row (means over the completed runs, bootstrap CIs) and the per-run rows."""
    cell, study = _check_cell(cell), _check_study(study)
    feasible = check_flag(feasible, "feasible")
    results = _check_sequence(results, "results")
    for r in results:
        if not (
            isinstance(r, tuple)
            and len(r) == 5
            and isinstance(r[4], str)
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in r[:4])
        ):
            raise ValueError(
                "results must hold (run, max error, mean error, seconds, note) tuples, got "
                f"{r!r:.80}"
            )
    base = _cell_fields(cell)
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


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------


def plot_study(summary: list[dict[str, Any]], out: Path, metric: str = "max_rank_error") -> Path:
    """Figure 1's layout (2 × 2: a, b top; c, d bottom): ``metric`` vs m per mechanism with its
    95% bootstrap band; for the max error also the spec §4 traced values of the authors' run."""
    metric = check_choice(metric, "metric", ("max_rank_error", "mean_rank_error"))
    summary = _check_sequence(summary, "summary")
    out = _check_out(out)
    fig, canvas, axes = _axes_grid(2, 2, 5.0, 3.6)
    for i, panel in enumerate(PANELS):
        ax = axes[i // 2, i % 2]
        rows = [r for r in summary if r["panel"] == panel]
        ax.set_title(PANEL_TITLES[panel], fontsize=9)
        if not rows:
            ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            continue
        m_lo, m_hi = min(r["m"] for r in rows), max(r["m"] for r in rows)
        for mech in MECHANISMS:
            pts = sorted(
                (r["m"], r[metric], r[f"{metric}_ci_low"], r[f"{metric}_ci_high"])
                for r in rows
                if r["mechanism"] == mech and r.get(metric) is not None
            )
            if not pts:
                continue
            m, y, lo, hi = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
            colour = COLOURS[mech]
            ax.plot(m, y, marker="o", ms=3, color=colour, label=mech)
            ax.fill_between(m, lo, hi, color=colour, alpha=0.2, lw=0)
            traced = [(t, v) for t, v in zip(TRACED_M, TRACED[panel].get(mech, ()), strict=False)
                      if m_lo <= t <= m_hi]  # fmt: skip
            if metric == "max_rank_error" and traced:
                tm, tv = zip(*traced, strict=True)
                ax.plot(tm, tv, ls="--", lw=0.8, marker="x", ms=3, color=colour, alpha=0.7,
                        label=f"{mech} (authors' run, traced)")  # fmt: skip
        n = rows[0]["n"]
        ax.set_xlabel(f"m (n = {n:,} = {rows[0]['duplication']}×{ADULT_SIZE:,})")
        ax.set_ylabel(metric.replace("_", " "))
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=6)
    fig.suptitle("imola25 Figure 1: Adult, ε = 1, δ = 1e-16")
    path = out / ("imola25.png" if metric == "max_rank_error" else "imola25_mean.png")
    canvas.print_png(str(path))
    return path


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def _check_out(out: Any) -> Path:
    if not isinstance(out, str | Path) or (isinstance(out, str) and not out):
        raise ValueError(f"out must be a directory path (str or Path), got {out!r:.80}")
    return Path(out)


def run_study(
    *,
    panels: Sequence[str] | None = None,
    ms: Sequence[int] | None = None,
    runs: int | None = None,
    jointexp_runs: int | None = None,
    jointexp_ms: Sequence[int] | None = None,
    duplication: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path = DEFAULT_OUT,
    quick: bool = False,
    progress: Progress | None = None,
    plot: bool = True,
) -> list[Path]:
    """Run the study (module docstring) and write its CSV and PNG files into ``out``.

    ``panels`` among "a".."d" (default all; quick: a and c), ``ms`` (default 10..200; quick 10,
    20), ``runs`` per cell (200; quick 3), ``jointexp_runs``/``jointexp_ms`` (10 at 10, 50, 100,
    200; quick 1 at 10; 0 runs = no JointExp), ``duplication`` forces k (default: the smallest
    feasible per adjacency), ``seed`` >= 0, ``workers`` processes (default the CPU count; 1 runs
    in-process; the results do not depend on it), ``progress(label, done, total)`` per panel.
    Returns the paths written."""
    plot = check_flag(plot, "plot")
    quick = check_flag(quick, "quick")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {progress!r:.80}")
    if workers is not None:
        check_int(workers, "workers", minimum=1, maximum=MAX_WORKERS)
    out = _check_out(out)
    study = make_study(
        panels=panels,
        ms=ms,
        runs=runs,
        jointexp_runs=jointexp_runs,
        jointexp_ms=jointexp_ms,
        duplication=duplication,
        seed=seed,
        quick=quick,
    )
    workers = _check_workers(workers)
    out = Path(out)
    for mech in MECHANISMS:  # fail before any work if a mechanism is missing
        if mech != "JointExp" or study.jointexp_runs > 0:
            _import(_TARGETS[mech])
    duplications, feas_rows = choose_duplications(study)
    feasible = {r["adjacency"]: r["feasible"] for r in feas_rows if r["role"].endswith("(used)")}
    cells = build_cells(study, duplications)
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        results = run_cells(
            cells, seed=study.seed, executor=pool, workers=workers, progress=progress
        )
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    summary, per_run = [], []
    for cell, res in zip(cells, results, strict=True):
        row, rows = summarize_cell(cell, res, study, feasible[cell.adjacency])
        summary.append(row)
        per_run += rows
    paths = [
        write_csv(out / "imola25.csv", summary, SUMMARY_COLUMNS),
        write_csv(out / "imola25_runs.csv", per_run, RUN_COLUMNS),
        write_csv(out / "imola25_feasibility.csv", feas_rows, FEASIBILITY_COLUMNS),
    ]
    if plot:
        paths += [plot_study(summary, out), plot_study(summary, out, "mean_rank_error")]
    return paths


__all__ = [
    "ADULT_SIZE",
    "BOUNDS",
    "DELTA",
    "EPSILON",
    "GRID",
    "MECHANISMS",
    "PANELS",
    "Cell",
    "Feasibility",
    "Study",
    "adult_distinct",
    "bootstrap_mean_ci",
    "build_cells",
    "choose_duplications",
    "draw_quantiles",
    "find_duplication",
    "grid_quantiles",
    "make_distinct",
    "make_study",
    "noise_seed",
    "quantile_seed",
    "rank_errors",
    "release",
    "run_cells",
    "run_quantiles",
    "run_study",
    "slice_feasibility",
    "slice_parameters",
    "summarize_cell",
]
