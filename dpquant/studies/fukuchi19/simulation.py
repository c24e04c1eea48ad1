"""One cell of the fukuchi19 study: the simulated errors at each x_min and, where cheap, the
exact ones (Sec. 6.1 of Fukuchi et al.).

**Metric** (Sec. 6.1): for each x_min of {k·0.2·(2 − Δ) − 1 : k = 0..5} the MAE E|x̃ − x_min| over
``runs`` runs, its standard error and the 0.05/0.95 quantiles (``inverted_cdf``) of the errors.
The study reports the worst case over x_min of the simulated MAE (:class:`CellResult`).

**Exact law**: on fixed data, when L <= ``exact_max_levels`` (10: every Lower-α cell and
Unknown α up to N = 2^14) the pruned float tree law
(:func:`dpquant.reference.ldp_minimum.leaf_probabilities`, pruning 1e-15, the dropped mass reported)
gives the exact MAE and quantiles at every x_min. The baseline's exact MAE and error quantiles
come from the series of :mod:`dpquant.reference.ldp_minimum.minimum_laws`.

**Baseline**: every user reports x_i + Laplace(0, 2/ε), the server outputs the minimum, unclipped;
min − x_min then has the same law for every x_min (a shift of the data shifts every report), so
one x_min (the first) is run, and :func:`laplace_shift_gap` checks the invariance on the exact law
of the minimum.

**Randomness**: ``SeedSequence(seed, spawn_key=(crc("fukuchi19"), crc(cell key), crc(x_min)))``
per (setting, data model, mechanism, schedule, N, ε, x_min).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.ldp_minimum import (
    LaplaceMinimumLaw,
    RoundRule,
    Schedule,
    SparseLeafLaw,
    laplace_error_quantile,
    laplace_law_fixed,
    laplace_law_iid,
    laplace_mae_exact,
    laplace_scale,
    leaf_probabilities,
    minimum_cdf,
    round_rule,
    sample_binomial,
    sample_iid,
    schedule,
)
from dpquant.reference.validation import check_int, check_rng
from dpquant.studies.fukuchi19.config import EXACT_MAX_LEVELS, Cell, check_data_model
from dpquant.studies.fukuchi19.data import (
    Setting,
    beta_cdf,
    beta_quantile_grid,
    fixed_data,
    iid_data,
    x_min_grid,
)
from dpquant.studies.harness import spawn_seed

PRUNE = 1e-15
LAPLACE_CHUNK_CELLS = 1 << 22


def cell_seed(seed: int, cell: Cell, x_min: float) -> np.random.SeedSequence:
    """The randomness of one (cell, x_min) (module docstring)."""
    return spawn_seed(seed, "fukuchi19", cell.key, repr(float(x_min)))


def cell_rule(cell: Cell) -> tuple[Schedule, RoundRule]:
    """The schedule (L, h_N, γ of Theorem 2) and the round rule of Algorithm 2 for a cell."""
    if cell.schedule is None:
        raise ValueError("the Laplace baseline has no schedule")
    s = schedule(cell.schedule, cell.n, cell.epsilon)
    return s, round_rule(cell.n, s.levels, s.gamma, epsilon=cell.epsilon)


def ldp_min_errors(
    setting: Setting,
    data_model: str,
    x_min: float,
    rule: RoundRule,
    runs: int,
    rng: np.random.Generator,
    grid: np.ndarray | None = None,
) -> np.ndarray:
    """|x̃ − x_min| for ``runs`` runs of Algorithm 2: fixed data by the binomial sampler (``grid``
    = the BetaPPF grid of N = ``rule.n``; computed when not given), i.i.d. data by the lazy sampler
    with the Beta CDF (both exact in law)."""
    data_model = check_data_model(data_model)
    rng = check_rng(rng)
    if data_model == "fixed":
        if grid is None:
            grid = beta_quantile_grid(rule.n, setting.alpha, setting.beta)
        out = sample_binomial(fixed_data(grid, setting.delta, x_min), rule, runs, rng)
    else:
        out = sample_iid(beta_cdf(setting, x_min), rule, runs, rng)
    return np.abs(out - x_min)


def laplace_errors(
    setting: Setting,
    data_model: str,
    x_min: float,
    n: int,
    epsilon: float,
    runs: int,
    rng: np.random.Generator,
    grid: np.ndarray | None = None,
) -> np.ndarray:
    """|min_i(x_i + Lap(0, 2/ε)) − x_min| for ``runs`` runs of the unclipped baseline (Sec. 6.1):
    on the fixed data, or on fresh i.i.d. data per run; users × runs drawn in chunks."""
    data_model = check_data_model(data_model)
    n = check_int(n, "n", minimum=2)
    runs = check_int(runs, "runs", minimum=1)
    rng = check_rng(rng)
    b = laplace_scale(epsilon)
    x = None
    if data_model == "fixed":
        if grid is None:
            grid = beta_quantile_grid(n, setting.alpha, setting.beta)
        x = fixed_data(grid, setting.delta, x_min)
        if x.size != n:
            raise ParameterError("grid", f"must have n = {n} points", x.size)
    out = np.empty(runs)
    chunk = max(1, LAPLACE_CHUNK_CELLS // n)
    for start in range(0, runs, chunk):
        size = min(chunk, runs - start)
        data = x[None, :] if x is not None else iid_data(setting, x_min, (size, n), rng)
        out[start : start + size] = (data + rng.laplace(0.0, b, (size, n))).min(axis=1)
    return np.abs(out - x_min)


def laplace_shift_gap(setting: Setting, n: int, epsilon: float, points: int = 41) -> float:
    """max over y and over the six x_min of |P(min − x_min <= y) − the same at the first x_min|,
    from the exact law of the minimum (:func:`dpquant.reference.ldp_minimum.minimum_cdf`) on the fixed
    data: 0 up to float rounding, since unclipped the law is shift-invariant."""
    grid = beta_quantile_grid(n, setting.alpha, setting.beta)
    b = laplace_scale(epsilon)
    y = np.linspace(-(math.log(n) + 8.0) * b, setting.delta + 2.0 * b, points)
    ref = None
    gap = 0.0
    for x_min in x_min_grid(setting.delta):
        x = fixed_data(grid, setting.delta, x_min)
        cdf = minimum_cdf(x_min + y, x, epsilon)
        ref = cdf if ref is None else ref
        gap = max(gap, float(np.max(np.abs(cdf - ref))))
    return gap


@dataclass(frozen=True)
class XminResult:
    """The errors' summary at one x_min (and the exact law's, when computed)."""

    x_min: float
    runs: int
    mae: float
    mae_se: float
    q05: float
    q95: float
    mae_exact: float | None = None
    q05_exact: float | None = None
    q95_exact: float | None = None
    exact_error_bound: float | None = None  # on |mae_exact − the true MAE|


def summarize_errors(x_min: float, errors: np.ndarray) -> XminResult:
    """MAE, its standard error (sample sd/√runs) and the 0.05/0.95 error quantiles (empirical,
    ``inverted_cdf``, the same rule as :meth:`SparseLeafLaw.error_quantile`)."""
    e = np.asarray(errors, dtype=float)
    if e.ndim != 1 or e.size < 2:
        raise ParameterError("errors", "must be a 1-D array of at least 2 runs", f"shape {e.shape}")
    q05, q95 = np.quantile(e, [0.05, 0.95], method="inverted_cdf")
    # identical errors: exactly 0 (the float mean need not equal the common value)
    se = 0.0 if np.all(e == e[0]) else float(e.std(ddof=1) / math.sqrt(e.size))
    mae = float(e[0]) if se == 0.0 else float(e.mean())
    return XminResult(float(x_min), int(e.size), mae, se, float(q05), float(q95))


def with_laplace_exact(result: XminResult, law: LaplaceMinimumLaw) -> XminResult:
    """``result`` with the baseline's exact MAE and error quantiles."""
    mae, bound = laplace_mae_exact(law)
    return replace(
        result,
        mae_exact=mae,
        q05_exact=laplace_error_quantile(law, 0.05),
        q95_exact=laplace_error_quantile(law, 0.95),
        exact_error_bound=bound,
    )


def with_exact(result: XminResult, law: SparseLeafLaw) -> XminResult:
    """``result`` with the exact MAE and quantiles at its x_min from the tree law."""
    t = result.x_min
    return replace(
        result,
        mae_exact=law.mean_absolute_error(t),
        q05_exact=law.error_quantile(t, 0.05),
        q95_exact=law.error_quantile(t, 0.95),
        exact_error_bound=2.0 * law.pruned,  # the errors are at most 2
    )


@dataclass(frozen=True)
class CellResult:
    cell: Cell
    levels: int | None
    h_n: float | None
    gamma: float | None
    results: tuple[XminResult, ...]
    seconds: float
    note: str = ""

    @property
    def worst(self) -> XminResult:
        """The x_min with the largest simulated MAE (the first on ties)."""
        return max(self.results, key=lambda r: r.mae)

    @property
    def worst_exact(self) -> XminResult | None:
        if any(r.mae_exact is None for r in self.results):
            return None
        return max(self.results, key=lambda r: float(r.mae_exact or 0.0))


def run_cell(
    cell: Cell,
    seed: int,
    grid: np.ndarray | None = None,
    exact_max_levels: int = EXACT_MAX_LEVELS,
    note: str = "",
) -> CellResult:
    """Every x_min of a cell: simulated errors and, on fixed data with L <= ``exact_max_levels``,
    the exact tree law (module docstring)."""
    start = time.perf_counter()
    if cell.data_model == "fixed" and grid is None:
        grid = beta_quantile_grid(cell.n, cell.setting.alpha, cell.setting.beta)
    levels = h_n = gamma = None
    rule = None
    if cell.mechanism == "ldp_min":
        s, rule = cell_rule(cell)
        levels, h_n, gamma = s.levels, s.h_n, s.gamma
    fixed = grid if cell.data_model == "fixed" else None
    results = []
    for x_min in cell.x_mins():
        rng = np.random.default_rng(cell_seed(seed, cell, x_min))
        if rule is None:
            errors = laplace_errors(
                cell.setting, cell.data_model, x_min, cell.n, cell.epsilon, cell.runs, rng, grid
            )
        else:
            errors = ldp_min_errors(
                cell.setting, cell.data_model, x_min, rule, cell.runs, rng, grid
            )
        res = summarize_errors(x_min, errors)
        if rule is None:
            st = cell.setting
            law = (
                laplace_law_fixed(fixed_data(fixed, st.delta, x_min), x_min, cell.epsilon)
                if fixed is not None
                else laplace_law_iid(cell.n, cell.epsilon, st.alpha, st.beta, st.delta)
            )
            res = with_laplace_exact(res, law)
        if rule is not None and fixed is not None and rule.levels <= exact_max_levels:
            x = fixed_data(fixed, cell.setting.delta, x_min)
            res = with_exact(res, leaf_probabilities(x, rule, prune=PRUNE))
        results.append(res)
    seconds = time.perf_counter() - start
    return CellResult(cell, levels, h_n, gamma, tuple(results), seconds, note)


__all__ = [
    "CellResult",
    "XminResult",
    "cell_rule",
    "cell_seed",
    "laplace_errors",
    "laplace_shift_gap",
    "ldp_min_errors",
    "run_cell",
    "summarize_errors",
    "with_exact",
    "with_laplace_exact",
]
