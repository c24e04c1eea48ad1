"""Reproduction of fukuchi19's synthetic study (Sec. 6.1, Figures 1–2; spec §4.1, §4.4, §5 items
11–14).

``dpquant reproduce fukuchi19 [--runs 1000] [--settings all|main] [--other-runs R]
[--min-log2n 10] [--max-log2n 20] [--data-models fixed,iid] [--schedules lower_alpha,unknown_alpha]
[--laplace main|all|none] [--laplace-iid] [--no-eps-sweep] [--exact-max-levels 10] [--seed 0]
[--workers 1] [--out DIR] [--quick]`` or :func:`run_study`.

**Grid** (Sec. 6.1): the 30 Beta settings of :mod:`.fukuchi19_data` (Δ × α × β), N = 2^10..2^20,
ε ∈ {1, 4}, both schedules of spec §2.2 (``lower_alpha``: L = ⌈log₂N/2⌉, h_N = ln N/2;
``unknown_alpha``: L = ⌈log₂²N/(2 log₂1000)⌉, h_N = ln²N/(2 ln 1000); γ of Theorem 2, never
clamped), both data models (``fixed``: the binomial sampler, exact in law, O(L) per run, vectorised
over runs; ``iid``: the lazy sampler with the Beta CDF, exact in law). The Err-vs-ε panel (Fig. 1
right): the main setting, ε = 2^−3..2^6, N ∈ {2^15, 2^20}.

**Metric** (Sec. 6.1, spec §5 item 11): for each x_min of {k·0.2·(2 − Δ) − 1 : k = 0..5} the MAE
E|x̃ − x_min| over ``runs`` runs (1000), its standard error and a normal 95% CI (mean ± 1.96·SE);
the reported row is the **worst case over x_min** of the simulated MAE, with the 0.05/0.95
quantiles (``inverted_cdf``) of the errors at that x_min. The worst case of six noisy means is
biased up by at most max_x |MC error| (about one SE); the per-x_min rows are written too.

**Exact law** (spec §6): on fixed data, when L <= ``exact_max_levels`` (10: every Lower-α cell and
Unknown-α up to N = 2^14) the pruned float tree law :func:`~reference.ldp_minimum.exact_law.leaf_probabilities`
(pruning 1e-15, the dropped mass reported) gives the exact MAE and quantiles at every x_min:
``mae_exact`` is the exact MAE at the simulated worst x_min (``z_exact`` = (mae − mae_exact)/SE
checks the sampler), ``mae_exact_worst`` the exact worst case over x_min (spec §4.4's "exact").

**Baseline** (Sec. 6.1, spec §2.2): every user reports x_i + Laplace(0, 2/ε), the server outputs
the minimum, unclipped. Then min − x_min has the same law for every x_min (a shift of the data
shifts every report), so one x_min (the first) is run; :func:`laplace_shift_gap` checks the
invariance on the exact law of the minimum and the note records the gap. It costs N·runs draws,
so by default it runs on the main setting only (``laplace="all"``: every setting), on fixed data
(``laplace_iid=True`` adds i.i.d. data). Its exact MAE and error quantiles come from a series for
−ln P(min > y) (:class:`LaplaceMinimumLaw`, :func:`laplace_mae_exact`; cheap at any N).

**Guidelines** (spec §5 item 12): K·(ln^k N/(ε²N))^{1/(2α)} with k = 3 (Lower α, Cor. 1) or 6
(Unknown α, Cor. 2), the true α of the data, and K fitted by least squares on the log scale, over
n = log₂N in [14, 20] (Err vs N) or ε in [1, 4] (Err vs ε); the fitted rate (−slope of
log₂ MAE on log₂ N, resp. log₂ ε, by OLS over the same points) is reported beside the
guideline's own rate over those points and the asymptotic 1/(2α) (resp. 1/α).

**Randomness**: ``SeedSequence(seed, spawn_key=(crc("fukuchi19"), crc(cell key), crc(x_min)))``
per (setting, data model, mechanism, schedule, N, ε, x_min): the results depend neither on
``workers`` nor on the order of the cells, and a cell shared by both panels is computed once.

Outputs in ``out``: ``fukuchi19.csv`` (one row per panel and curve point, worst case over x_min),
``fukuchi19_xmin.csv`` (every x_min), ``fukuchi19_fits.csv`` (guideline constants and rates),
``fukuchi19_fig1.png`` (Fig. 1 left/middle/right, fixed data), ``fukuchi19_fig1_iid.png``,
``fukuchi19_fig2.png`` (Fig. 2: proposed vs baseline, ε = 1 and 4) and, when more than the main
setting ran, ``fukuchi19_settings_<schedule>_<data model>.png`` (every setting, Err vs N).
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reference.experiments.aamand25 import _axes_grid, write_csv
from reference.experiments.aamand25_data import check_seed
from reference.experiments.common import name_choices
from reference.experiments.fukuchi19_data import (
    MAIN_SETTING,
    Setting,
    all_settings,
    beta_cdf,
    beta_quantile_grid,
    fixed_data,
    iid_data,
    x_min_grid,
)
from reference.ldp_minimum.exact_law import SparseLeafLaw, leaf_probabilities
from reference.ldp_minimum.laplace_baseline import laplace_scale, minimum_cdf
from reference.ldp_minimum.round_statistic import RoundRule, round_rule
from reference.ldp_minimum.schedules import SCHEDULES, Schedule, schedule
from reference.ldp_minimum.search import sample_binomial, sample_iid
from reference.validation import check_choice, check_flag, check_int, check_positive, check_rng

MAX_RUNS = 10**7
MAX_WORKERS = 256


PANELS = ("err_vs_n", "err_vs_eps")
MECHANISMS = ("ldp_min", "laplace")
DATA_MODELS = ("fixed", "iid")
SETTINGS_CHOICES = ("main", "all")
LAPLACE_CHOICES = ("main", "all", "none")
LOG2N: tuple[int, ...] = tuple(range(10, 21))
EPSILONS: tuple[float, ...] = (1.0, 4.0)
EPS_SWEEP: tuple[float, ...] = tuple(2.0**k for k in range(-3, 7))
EPS_SWEEP_LOG2N: tuple[int, ...] = (15, 20)
DEFAULT_RUNS = 1000
QUICK_RUNS = 300
QUICK_LOG2N: tuple[int, ...] = (10, 11, 12)
QUICK_EPS_SWEEP: tuple[float, ...] = (0.125, 1.0, 8.0)
QUICK_EPS_SWEEP_LOG2N: tuple[int, ...] = (15,)
FIT_LOG2N = (14, 20)  # Err vs N: the guideline is fitted on n = log2 N in this range
EPS_FIT = (1.0, 4.0)  # Err vs ε: ... and on ε in this range (moderate: no saturation at 2)
EXACT_MAX_LEVELS = 10
PRUNE = 1e-15
Z95 = 1.959963984540054
GUIDELINE_LOG_POWER = {"lower_alpha": 3, "unknown_alpha": 6}
LAPLACE_CHUNK_CELLS = 1 << 22
DEFAULT_OUT = Path("reports") / "fukuchi19"

SUMMARY_COLUMNS = (
    "panel", "setting", "main", "alpha", "beta", "delta_width", "data_model", "mechanism",
    "schedule", "N", "log2_n", "epsilon", "levels", "h_n", "gamma", "runs", "x_min_count",
    "x_min_worst", "mae", "mae_se", "mae_ci_low", "mae_ci_high", "q05", "q95", "mae_exact",
    "q05_exact", "q95_exact", "z_exact", "mae_exact_worst", "x_min_worst_exact", "exact_error_bound",
    "seconds", "note",
)  # fmt: skip
XMIN_COLUMNS = (
    "setting", "alpha", "beta", "delta_width", "data_model", "mechanism", "schedule", "N",
    "epsilon", "x_min", "runs", "mae", "mae_se", "q05", "q95", "mae_exact", "q05_exact",
    "q95_exact", "exact_error_bound",
)  # fmt: skip
FIT_COLUMNS = (
    "panel", "setting", "alpha", "beta", "delta_width", "data_model", "schedule", "epsilon", "N",
    "fit_from", "fit_to", "points", "guideline", "K", "rate_fitted", "rate_guideline",
    "rate_asymptotic", "log_rmse",
)  # fmt: skip
TIMING_COLUMNS = ("seconds",)

Progress = Callable[[str, int, int], None]


# --------------------------------------------------------------------------------------------
# cells
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One curve point before the worst case over x_min: a mechanism (and schedule) on one
    setting and data model at N = 2^log2_n and budget ε."""

    setting: Setting
    data_model: str
    mechanism: str
    schedule: str | None
    log2_n: int
    epsilon: float
    runs: int

    @property
    def n(self) -> int:
        return 1 << self.log2_n

    @property
    def key(self) -> str:
        """What the seeds depend on (not ``runs``)."""
        return (
            f"{self.setting.name}|{self.data_model}|{self.mechanism}|{self.schedule}|"
            f"{self.log2_n}|{self.epsilon!r}"
        )

    def x_mins(self) -> tuple[float, ...]:
        """The six x_min of Sec. 6.1; the unclipped baseline needs one (module docstring)."""
        grid = x_min_grid(self.setting.delta)
        return grid[:1] if self.mechanism == "laplace" else grid


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def cell_seed(seed: int, cell: Cell, x_min: float) -> np.random.SeedSequence:
    """The randomness of one (cell, x_min) (module docstring)."""
    key = (_crc("fukuchi19"), _crc(cell.key), _crc(repr(float(x_min))))
    return np.random.SeedSequence(check_seed(seed), spawn_key=key)


def cell_rule(cell: Cell) -> tuple[Schedule, RoundRule]:
    """The schedule (L, h_N, γ of Theorem 2) and the round rule of Algorithm 2 for a cell."""
    if cell.schedule is None:
        raise ValueError("the Laplace baseline has no schedule")
    s = schedule(cell.schedule, cell.n, cell.epsilon)
    return s, round_rule(cell.n, s.levels, s.gamma, epsilon=cell.epsilon)


# --------------------------------------------------------------------------------------------
# errors of one (cell, x_min)
# --------------------------------------------------------------------------------------------


def check_data_model(data_model: Any) -> str:
    if data_model not in DATA_MODELS:
        raise ValueError(f"data_model must be one of {DATA_MODELS}, got {data_model!r}")
    return data_model


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
    with the Beta CDF (spec §2.2; both exact in law)."""
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
            raise ValueError(f"grid must have n = {n} points, got {x.size}")
    out = np.empty(runs)
    chunk = max(1, LAPLACE_CHUNK_CELLS // n)
    for start in range(0, runs, chunk):
        size = min(chunk, runs - start)
        data = x[None, :] if x is not None else iid_data(setting, x_min, (size, n), rng)
        out[start : start + size] = (data + rng.laplace(0.0, b, (size, n))).min(axis=1)
    return np.abs(out - x_min)


def laplace_shift_gap(setting: Setting, n: int, epsilon: float, points: int = 41) -> float:
    """max over y and over the six x_min of |P(min − x_min <= y) − the same at the first x_min|,
    from the exact law of the minimum (:func:`~reference.ldp_minimum.laplace_baseline.minimum_cdf`)
    on the fixed data: 0 up to float rounding, since unclipped the law is shift-invariant."""
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


# --------------------------------------------------------------------------------------------
# the baseline's exact law (by a series in u = e^{(y − x_min)/b})
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LaplaceMinimumLaw:
    """The law of Y = min_i(x_i + Lap(0, b)) below x_min, for data x_i >= x_min.

    For y <= x_min, P(x_i + δ_i <= y) = ½e^{(y − x_i)/b}; with u = e^{(y − x_min)/b} ∈ (0, 1],

        −ln P(Y > y) = G(u) := −Σ_i ln(1 − u·w_i/2) = Σ_{k>=1} (u/2)^k·M_k/k,

    w_i = e^{−(x_i − x_min)/b} ∈ (0, 1], M_k = Σ_i w_i^k (fixed data) or N·E[w^k] (i.i.d. data).
    ``coefficients`` holds M_k/(k·2^k), k = 1..K (the remainder after K terms is below
    N·2^{−K}/(K + 1)); ``log_survival_above`` = ln P(Y > x_min) = −G(1) when known in closed form
    (i.i.d.), else −G(1) from the series.
    """

    n: int
    scale: float  # b = 2/ε
    coefficients: np.ndarray
    spread: float  # max x_i − x_min (bounds the part of E|Y − x_min| above x_min)

    def g(self, u: float) -> float:
        """G(u), 0 <= u <= 1."""
        return float(np.polynomial.polynomial.polyval(u, np.r_[0.0, self.coefficients]))

    def below_probability(self, e: float) -> float:
        """P(Y > x_min − e) = exp(−G(e^{−e/b})) for an error e >= 0."""
        return math.exp(-self.g(math.exp(-e / self.scale)))


LAPLACE_SERIES_TERMS = 64


def _series_law(n: int, epsilon: float, moments: np.ndarray, spread: float) -> LaplaceMinimumLaw:
    k = np.arange(1, moments.size + 1, dtype=float)
    return LaplaceMinimumLaw(n, laplace_scale(epsilon), moments / (k * 2.0**k), spread)


def laplace_law_fixed(x: np.ndarray, x_min: float, epsilon: float) -> LaplaceMinimumLaw:
    """The law of the baseline's minimum on fixed data x >= x_min (M_k = Σ_i w_i^k)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size == 0 or np.min(x) < x_min:
        raise ValueError("x must be a non-empty 1-D array with every value >= x_min")
    w = np.exp(-(x - x_min) / laplace_scale(epsilon))
    moments = np.empty(LAPLACE_SERIES_TERMS)
    wk = np.ones_like(w)
    for k in range(LAPLACE_SERIES_TERMS):
        wk *= w
        moments[k] = wk.sum()
    return _series_law(x.size, epsilon, moments, float(np.max(x) - x_min))


def laplace_law_iid(setting: Setting, n: int, epsilon: float) -> LaplaceMinimumLaw:
    """The same for n i.i.d. values x_min + Δ·Beta(α, β): M_k = N·E[e^{−kΔX/b}] = N·₁F₁(α; α + β;
    −kΔ/b) (the Beta moment generating function, Kummer's function)."""
    from scipy import special

    n = check_int(n, "n", minimum=1)
    b = laplace_scale(epsilon)
    k = np.arange(1, LAPLACE_SERIES_TERMS + 1, dtype=float)
    moments = n * special.hyp1f1(
        setting.alpha, setting.alpha + setting.beta, -k * setting.delta / b
    )
    return _series_law(n, epsilon, moments, setting.delta)


def laplace_mae_exact(law: LaplaceMinimumLaw) -> tuple[float, float]:
    """E|Y − x_min| and a bound on the error of the value returned.

    E|Y − x_min| = ∫_{−∞}^{x_min} P(Y <= y) dy + ∫_{x_min}^∞ P(Y > y) dy. The first is
    b·∫_{−∞}^0 (1 − exp(−G(e^t))) dt, by adaptive quadrature on [−(ln N + 40), 0] (G(u) <= N·u, so
    the cut tail is below N·e^{t_lo} = e^{−40}). The second is at most
    p₀·(spread + b·(1 + ln(1/(2p₀)))) with p₀ = P(Y > x_min) = e^{−G(1)} (every y > x_min needs all
    x_i + δ_i > y, in particular the largest one); it is not computed but added to the bound, so
    the method needs p₀ tiny (N >= 2^10 in the study gives p₀ < 1e-200); a bound above 1e-9 raises.
    """
    from scipy import integrate

    b = law.scale
    t_lo = -(math.log(law.n) + 40.0)
    value, err = integrate.quad(
        lambda t: -math.expm1(-law.g(math.exp(t))),
        t_lo,
        0.0,
        epsabs=1e-13,
        epsrel=1e-12,
        limit=500,
    )
    p0 = math.exp(-law.g(1.0))
    above = 0.0 if p0 == 0 else p0 * (law.spread + b * (1.0 + math.log(1.0 / (2.0 * p0))))
    bound = b * (abs(err) + law.n * math.exp(t_lo)) + above
    if not bound <= 1e-9:
        raise ValueError(
            f"the series method needs P(min > x_min) tiny; got a bound {bound:.3g} (N = {law.n})"
        )
    return b * value, bound


def laplace_error_quantile(law: LaplaceMinimumLaw, q: float) -> float:
    """The q-quantile of |Y − x_min| when Y <= x_min (up to p₀): the e solving
    exp(−G(e^{−e/b})) = q, by bracketing (P(|Y − x_min| <= e) is increasing in e)."""
    from scipy import optimize

    q = float(q)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie in (0, 1), got {q!r}")
    hi = law.scale * (math.log(law.n) + 50.0)
    return float(
        optimize.brentq(lambda e: law.below_probability(e) - q, 0.0, hi, xtol=1e-13, rtol=1e-13)
    )


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
        raise ValueError(f"errors must be a 1-D array of at least 2 runs, got shape {e.shape}")
    q05, q95 = np.quantile(e, [0.05, 0.95], method="inverted_cdf")
    # identical errors: exactly 0 (the float mean need not equal the common value)
    se = 0.0 if np.all(e == e[0]) else float(e.std(ddof=1) / math.sqrt(e.size))
    mae = float(e[0]) if se == 0.0 else float(e.mean())
    return XminResult(float(x_min), int(e.size), mae, se, float(q05), float(q95))


def with_laplace_exact(result: XminResult, law: LaplaceMinimumLaw) -> XminResult:
    """``result`` with the baseline's exact MAE and error quantiles (:func:`laplace_mae_exact`)."""
    mae, bound = laplace_mae_exact(law)
    return XminResult(
        result.x_min,
        result.runs,
        result.mae,
        result.mae_se,
        result.q05,
        result.q95,
        mae,
        laplace_error_quantile(law, 0.05),
        laplace_error_quantile(law, 0.95),
        bound,
    )


def with_exact(result: XminResult, law: SparseLeafLaw) -> XminResult:
    """``result`` with the exact MAE and quantiles at its x_min from the tree law."""
    t = result.x_min
    return XminResult(
        result.x_min,
        result.runs,
        result.mae,
        result.mae_se,
        result.q05,
        result.q95,
        law.mean_absolute_error(t),
        law.error_quantile(t, 0.05),
        law.error_quantile(t, 0.95),
        2.0 * law.pruned,  # the errors are at most 2
    )


# --------------------------------------------------------------------------------------------
# one cell
# --------------------------------------------------------------------------------------------


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
        return max(self.results, key=lambda r: r.mae_exact)


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
            law = (
                laplace_law_fixed(fixed_data(grid, cell.setting.delta, x_min), x_min, cell.epsilon)
                if cell.data_model == "fixed"
                else laplace_law_iid(cell.setting, cell.n, cell.epsilon)
            )
            res = with_laplace_exact(res, law)
        if rule is not None and cell.data_model == "fixed" and rule.levels <= exact_max_levels:
            x = fixed_data(grid, cell.setting.delta, x_min)
            res = with_exact(res, leaf_probabilities(x, rule, prune=PRUNE))
        results.append(res)
    seconds = time.perf_counter() - start
    return CellResult(cell, levels, h_n, gamma, tuple(results), seconds, note)


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


# --------------------------------------------------------------------------------------------
# the study
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Study:
    """Every resolved option of a run (see :func:`make_study`)."""

    settings: tuple[Setting, ...]
    runs: int
    other_runs: int
    log2ns: tuple[int, ...]
    epsilons: tuple[float, ...]
    schedules: tuple[str, ...]
    data_models: tuple[str, ...]
    laplace: str
    laplace_iid: bool
    eps_sweep: tuple[float, ...]
    eps_sweep_log2ns: tuple[int, ...]
    exact_max_levels: int
    seed: int
    fit_log2n: tuple[int, int]
    eps_fit: tuple[float, float]
    quick: bool = False
    laplace_settings: tuple[Setting, ...] = field(default=())

    def runs_for(self, setting: Setting) -> int:
        return self.runs if setting.is_main else self.other_runs


def make_study(
    *,
    settings: str | None = None,
    runs: int | None = None,
    other_runs: int | None = None,
    min_log2n: int | None = None,
    max_log2n: int | None = None,
    data_models: Sequence[str] | str | None = None,
    schedules: Sequence[str] | str | None = None,
    laplace: str | None = None,
    laplace_iid: bool = False,
    eps_sweep: bool = True,
    exact_max_levels: int | None = None,
    seed: int = 0,
    quick: bool = False,
) -> Study:
    """Resolve the options of :func:`run_study` (defaults: the full study; ``quick``: the main
    setting, N = 2^10..2^12, 300 runs, the ε sweep at N = 2^15 with ε ∈ {1/8, 1, 8})."""
    quick = check_flag(quick, "quick")
    laplace_iid = check_flag(laplace_iid, "laplace_iid")
    eps_sweep = check_flag(eps_sweep, "eps_sweep")
    settings = settings if settings is not None else ("main" if quick else "all")
    check_choice(settings, "settings", SETTINGS_CHOICES)
    chosen = (MAIN_SETTING,) if settings == "main" else all_settings()
    runs = (QUICK_RUNS if quick else DEFAULT_RUNS) if runs is None else runs
    runs = check_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    other_runs = (
        runs
        if other_runs is None
        else check_int(other_runs, "other_runs", minimum=2, maximum=MAX_RUNS)
    )
    lo = 10 if min_log2n is None else check_int(min_log2n, "min_log2n", minimum=1)
    hi = (max(QUICK_LOG2N) if quick else 20) if max_log2n is None else max_log2n
    hi = check_int(hi, "max_log2n", minimum=1)
    if hi > 30 or lo > hi:
        raise ValueError(f"need 1 <= min_log2n <= max_log2n <= 30, got {lo} and {hi}")
    log2ns = tuple(range(lo, hi + 1))
    if quick:
        log2ns = tuple(n for n in QUICK_LOG2N if lo <= n <= hi) or log2ns
    # the ε sweep keeps its own N (quick: 2^15 even though the N sweep stops at 2^12), within
    # the bounds given explicitly
    sweep_hi = hi if (max_log2n is not None or not quick) else max(QUICK_EPS_SWEEP_LOG2N)
    sweep_ns = QUICK_EPS_SWEEP_LOG2N if quick else EPS_SWEEP_LOG2N
    sweep_ns = tuple(n for n in sweep_ns if lo <= n <= sweep_hi)
    sweep = (QUICK_EPS_SWEEP if quick else EPS_SWEEP) if eps_sweep else ()
    laplace = "main" if laplace is None else laplace
    check_choice(laplace, "laplace", LAPLACE_CHOICES)
    laplace_settings = {"main": (MAIN_SETTING,), "all": chosen, "none": ()}[laplace]
    laplace_settings = tuple(s for s in laplace_settings if s in chosen)
    exact = EXACT_MAX_LEVELS if exact_max_levels is None else exact_max_levels
    exact = check_int(exact, "exact_max_levels", minimum=0, maximum=52)
    fit_log2n = (min(log2ns), max(log2ns)) if quick else FIT_LOG2N
    return Study(
        settings=chosen,
        runs=runs,
        other_runs=other_runs,
        log2ns=log2ns,
        epsilons=EPSILONS,
        schedules=name_choices(SCHEDULES if schedules is None else schedules, SCHEDULES, "schedules"),
        data_models=name_choices(
            DATA_MODELS if data_models is None else data_models, DATA_MODELS, "data_models"
        ),
        laplace=laplace,
        laplace_iid=bool(laplace_iid),
        eps_sweep=sweep if MAIN_SETTING in chosen else (),
        eps_sweep_log2ns=sweep_ns,
        exact_max_levels=exact,
        seed=check_seed(seed),
        fit_log2n=fit_log2n,
        eps_fit=EPS_FIT,
        quick=bool(quick),
        laplace_settings=laplace_settings,
    )


@dataclass(frozen=True)
class PanelPoint:
    """A cell as a point of a panel."""

    panel: str
    cell: Cell


def build_points(study: Study) -> list[PanelPoint]:
    """Every (panel, cell) of the study: Err vs N for Algorithm 2 (every setting) and the baseline,
    Err vs ε for Algorithm 2 (main setting)."""
    pts: list[PanelPoint] = []
    for s in study.settings:
        runs = study.runs_for(s)
        for dm in study.data_models:
            for sched in study.schedules:
                for eps in study.epsilons:
                    for n in study.log2ns:
                        pts.append(
                            PanelPoint("err_vs_n", Cell(s, dm, "ldp_min", sched, n, eps, runs))
                        )
    for s in study.laplace_settings:
        runs = study.runs_for(s)
        for dm in ("fixed", "iid") if study.laplace_iid else ("fixed",):
            for eps in study.epsilons:
                for n in study.log2ns:
                    pts.append(PanelPoint("err_vs_n", Cell(s, dm, "laplace", None, n, eps, runs)))
    if study.eps_sweep:
        for dm in study.data_models:
            for sched in study.schedules:
                for n in study.eps_sweep_log2ns:
                    for eps in study.eps_sweep:
                        cell = Cell(MAIN_SETTING, dm, "ldp_min", sched, n, eps, study.runs)
                        pts.append(PanelPoint("err_vs_eps", cell))
    return pts


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
    progress: Progress | None = None,
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
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for out in pool.map(_run_task, tasks):
            for res in out:
                tick(res)
    return results


# --------------------------------------------------------------------------------------------
# rows
# --------------------------------------------------------------------------------------------


def _setting_fields(setting: Setting) -> dict[str, Any]:
    return {
        "setting": setting.name,
        "alpha": setting.alpha,
        "beta": setting.beta,
        "delta_width": setting.delta,
    }


def summary_row(panel: str, res: CellResult) -> dict[str, Any]:
    """The worst case over x_min of one cell (module docstring)."""
    c, w, we = res.cell, res.worst, res.worst_exact
    z = None
    if w.mae_exact is not None and w.mae_se > 0:
        z = (w.mae - w.mae_exact) / w.mae_se
    bounds = [r.exact_error_bound for r in res.results if r.exact_error_bound is not None]
    return {
        "panel": panel,
        **_setting_fields(c.setting),
        "main": c.setting.is_main,
        "data_model": c.data_model,
        "mechanism": c.mechanism,
        "schedule": c.schedule,
        "N": c.n,
        "log2_n": c.log2_n,
        "epsilon": c.epsilon,
        "levels": res.levels,
        "h_n": res.h_n,
        "gamma": res.gamma,
        "runs": w.runs,
        "x_min_count": len(res.results),
        "x_min_worst": w.x_min,
        "mae": w.mae,
        "mae_se": w.mae_se,
        "mae_ci_low": w.mae - Z95 * w.mae_se,
        "mae_ci_high": w.mae + Z95 * w.mae_se,
        "q05": w.q05,
        "q95": w.q95,
        "mae_exact": w.mae_exact,
        "q05_exact": w.q05_exact,
        "q95_exact": w.q95_exact,
        "z_exact": z,
        "mae_exact_worst": None if we is None else we.mae_exact,
        "x_min_worst_exact": None if we is None else we.x_min,
        "exact_error_bound": max(bounds) if bounds else None,
        "seconds": res.seconds,
        "note": res.note,
    }


def xmin_rows(res: CellResult) -> list[dict[str, Any]]:
    c = res.cell
    base = {
        **_setting_fields(c.setting),
        "data_model": c.data_model,
        "mechanism": c.mechanism,
        "schedule": c.schedule,
        "N": c.n,
        "epsilon": c.epsilon,
    }
    return [{**base, **r.__dict__} for r in res.results]


# --------------------------------------------------------------------------------------------
# guidelines (spec §5 item 12)
# --------------------------------------------------------------------------------------------


def guideline(n: Any, epsilon: Any, alpha: float, schedule_name: str) -> np.ndarray:
    """(ln^k N/(ε²N))^{1/(2α)}: k = 3 for Lower α (Cor. 1, Eq. 4), 6 for Unknown α (Cor. 2,
    Eq. 5); without the constant."""
    if schedule_name not in GUIDELINE_LOG_POWER:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule_name!r}")
    alpha = check_positive(alpha, "alpha")
    n = np.asarray(n, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(n < 2) or np.any(eps <= 0):
        raise ValueError("n must be >= 2 and epsilon > 0")
    k = GUIDELINE_LOG_POWER[schedule_name]
    return (np.log(n) ** k / (eps**2 * n)) ** (1.0 / (2.0 * alpha))


def fit_constant(values: Any, shape: Any) -> tuple[float, float]:
    """K minimising Σ (ln y − ln K − ln g)² (log-scale least squares: ln K = mean(ln y − ln g))
    and the root mean square of the log residuals."""
    y, g = np.asarray(values, dtype=float), np.asarray(shape, dtype=float)
    if y.shape != g.shape or y.size == 0 or np.any(y <= 0) or np.any(g <= 0):
        raise ValueError("values and shape must be positive arrays of the same non-zero length")
    r = np.log(y) - np.log(g)
    log_k = float(r.mean())
    return math.exp(log_k), float(np.sqrt(np.mean((r - log_k) ** 2)))


def fitted_rate(x: Any, y: Any) -> float:
    """−(OLS slope of log₂ y on log₂ x): the decay per doubling of x."""
    lx, ly = np.log2(np.asarray(x, dtype=float)), np.log2(np.asarray(y, dtype=float))
    if lx.shape != ly.shape or lx.size < 2 or np.ptp(lx) == 0:
        raise ValueError("x and y need at least two points with distinct x")
    return float(-np.polyfit(lx, ly, 1)[0])


def _fit_row(
    panel: str, key: dict[str, Any], xs: np.ndarray, ys: np.ndarray, g: np.ndarray, alpha: float
) -> dict[str, Any]:
    k_const, rmse = fit_constant(ys, g)
    asym = 1.0 / (2.0 * alpha) if panel == "err_vs_n" else 1.0 / alpha
    return {
        "panel": panel,
        **key,
        "fit_from": float(xs.min()),
        "fit_to": float(xs.max()),
        "points": int(xs.size),
        "K": k_const,
        "rate_fitted": fitted_rate(xs, ys),
        "rate_guideline": fitted_rate(xs, g),
        "rate_asymptotic": asym,
        "log_rmse": rmse,
    }


def fit_rows(summary: Sequence[dict[str, Any]], study: Study) -> list[dict[str, Any]]:
    """The guideline fits of every Algorithm-2 curve (module docstring): per (setting, data
    model, schedule, ε) over N, and per (data model, schedule, N) over ε."""
    curves: dict[tuple, list[dict[str, Any]]] = {}
    for r in summary:
        if r["mechanism"] != "ldp_min":
            continue
        fixed = r["epsilon"] if r["panel"] == "err_vs_n" else r["N"]
        key = (r["panel"], r["setting"], r["data_model"], r["schedule"], fixed)
        curves.setdefault(key, []).append(r)
    out = []
    for (panel, _, dm, sched, fixed), rows in curves.items():
        r0 = rows[0]
        alpha = r0["alpha"]
        if panel == "err_vs_n":
            lo, hi = study.fit_log2n
            use = [r for r in rows if lo <= r["log2_n"] <= hi]
            xs_name = "N"
        else:
            lo, hi = study.eps_fit
            use = [r for r in rows if lo <= r["epsilon"] <= hi]
            xs_name = "epsilon"
        use = use if len({r[xs_name] for r in use}) >= 2 else rows
        use = [r for r in use if r["mae"] > 0]
        if len({r[xs_name] for r in use}) < 2:
            continue
        use.sort(key=lambda r: r[xs_name])
        ns = np.array([r["N"] for r in use], dtype=float)
        eps = np.array([r["epsilon"] for r in use], dtype=float)
        ys = np.array([r["mae"] for r in use], dtype=float)
        g = guideline(ns, eps, alpha, sched)
        key = {
            **{k: r0[k] for k in ("setting", "alpha", "beta", "delta_width")},
            "data_model": dm,
            "schedule": sched,
            "epsilon": fixed if panel == "err_vs_n" else None,
            "N": fixed if panel == "err_vs_eps" else None,
            "guideline": f"K*(ln^{GUIDELINE_LOG_POWER[sched]} N/(eps^2 N))^(1/(2*{alpha:g}))",
        }
        xs = ns if panel == "err_vs_n" else eps
        out.append(_fit_row(panel, key, xs, ys, g, alpha))
    return out


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------

EPS_COLOURS = {1.0: "tab:red", 4.0: "tab:green"}
N_COLOURS = {1 << 15: "tab:purple", 1 << 20: "tab:orange"}
SCHEDULE_LABELS = {"lower_alpha": "Lower α", "unknown_alpha": "Unknown α"}


def _curve(
    summary: Sequence[dict[str, Any]], x: str, **match: Any
) -> tuple[np.ndarray, ...] | None:
    rows = sorted(
        (r for r in summary if all(r.get(k) == v for k, v in match.items())), key=lambda r: r[x]
    )
    if not rows:
        return None
    cols = (x, "mae", "q05", "q95", "mae_exact_worst")
    return tuple(
        np.array([np.nan if r[c] is None else r[c] for r in rows], dtype=float) for c in cols
    )


def _fit_for(fits: Sequence[dict[str, Any]], **match: Any) -> dict[str, Any] | None:
    return next((f for f in fits if all(f.get(k) == v for k, v in match.items())), None)


def _draw(ax: Any, curve: tuple[np.ndarray, ...], colour: str, label: str, ls: str = "-") -> None:
    x, y, lo, hi, exact = curve
    ax.plot(x, y, marker="o", ms=3, color=colour, ls=ls, label=label)
    ax.fill_between(x, np.maximum(lo, 1e-6), hi, color=colour, alpha=0.12, lw=0)
    if np.any(np.isfinite(exact)):
        ax.plot(x, exact, ls="none", marker="x", ms=5, color="black", alpha=0.6)


def plot_figure_1(
    summary: Sequence[dict[str, Any]],
    fits: Sequence[dict[str, Any]],
    out: Path,
    data_model: str = "fixed",
) -> Path | None:
    """Fig. 1 of the paper for the main setting: Err vs N with Lower α (left) and Unknown α
    (middle) for ε = 1, 4, Err vs ε for N = 2^15, 2^20 (right); q05–q95 bands; fitted guidelines
    dashed (blue: vs N, yellow: vs ε); exact worst-case MAE as black crosses."""
    main = [r for r in summary if r["main"] and r["data_model"] == data_model]
    main = [r for r in main if r["mechanism"] == "ldp_min"]
    if not main:
        return None
    fig, canvas, axes = _axes_grid(1, 3, 4.6, 3.6)
    for col, sched in enumerate(SCHEDULES):
        ax = axes[0, col]
        for eps in EPSILONS:
            cur = _curve(main, "N", panel="err_vs_n", schedule=sched, epsilon=eps)
            if cur is None:
                continue
            _draw(ax, cur, EPS_COLOURS[eps], f"ε = {eps:g}")
            fit = _fit_for(fits, panel="err_vs_n", setting=MAIN_SETTING.name,
                           data_model=data_model, schedule=sched, epsilon=eps)  # fmt: skip
            if fit is not None:
                g = fit["K"] * guideline(cur[0], eps, MAIN_SETTING.alpha, sched)
                ax.plot(cur[0], g, ls="--", color="tab:blue", lw=1,
                        label=f"guideline ε = {eps:g} (rate {fit['rate_guideline']:.3f}, "
                              f"fit {fit['rate_fitted']:.3f})")  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("N")
        ax.set_ylabel("Err (worst case over x_min)")
        ax.set_title(f"{SCHEDULE_LABELS[sched]}: Err vs N", fontsize=9)
        ax.legend(fontsize=6)
    ax = axes[0, 2]
    for sched, ls in zip(SCHEDULES, ("-", ":"), strict=True):
        for n in sorted({r["N"] for r in main if r["panel"] == "err_vs_eps"}):
            cur = _curve(main, "epsilon", panel="err_vs_eps", schedule=sched, N=n)
            if cur is None:
                continue
            colour = N_COLOURS.get(n, "tab:gray")
            label = f"{SCHEDULE_LABELS[sched]}, N = 2^{int(math.log2(n))}"
            _draw(ax, cur, colour, label, ls)
            fit = _fit_for(fits, panel="err_vs_eps", setting=MAIN_SETTING.name,
                           data_model=data_model, schedule=sched, N=n)  # fmt: skip
            if fit is not None:
                g = fit["K"] * guideline(n, cur[0], MAIN_SETTING.alpha, sched)
                ax.plot(cur[0], g, ls="--", color="gold", lw=1)
    ax.axhline(2.0, color="gray", lw=0.6, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("Err (worst case over x_min)")
    ax.set_title("Err vs ε (guidelines yellow, dashed)", fontsize=9)
    ax.legend(fontsize=6)
    fig.suptitle(
        f"fukuchi19 Fig. 1: Beta(1, 1), Δ = 0.3, {data_model} data (bands: q05–q95; "
        "×: exact worst-case MAE)",
        fontsize=10,
    )
    path = out / (
        "fukuchi19_fig1.png" if data_model == "fixed" else f"fukuchi19_fig1_{data_model}.png"
    )
    canvas.print_png(str(path))
    return path


def plot_figure_2(summary: Sequence[dict[str, Any]], out: Path) -> Path | None:
    """Fig. 2: Algorithm 2 (both schedules) vs the Laplace baseline on the main setting, fixed
    data, ε = 1 (left) and 4 (right), Err vs N with q05–q95 bands."""
    main = [r for r in summary if r["main"] and r["data_model"] == "fixed"]
    main = [r for r in main if r["panel"] == "err_vs_n"]
    if not main:
        return None
    fig, canvas, axes = _axes_grid(1, 2, 4.8, 3.6)
    styles = {
        ("ldp_min", "lower_alpha"): ("tab:blue", "proposed, Lower α"),
        ("ldp_min", "unknown_alpha"): ("tab:orange", "proposed, Unknown α"),
        ("laplace", None): ("tab:gray", "Laplace baseline (unclipped)"),
    }
    for col, eps in enumerate(EPSILONS):
        ax = axes[0, col]
        for (mech, sched), (colour, label) in styles.items():
            cur = _curve(main, "N", mechanism=mech, schedule=sched, epsilon=eps)
            if cur is not None:
                _draw(ax, cur, colour, label)
        ax.axhline(1.0, color="black", lw=0.6, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("N")
        ax.set_ylabel("Err (worst case over x_min)")
        ax.set_title(f"ε = {eps:g}", fontsize=9)
        ax.legend(fontsize=6)
    fig.suptitle("fukuchi19 Fig. 2: proposed vs Laplace, Beta(1, 1), Δ = 0.3, fixed data",
                 fontsize=10)  # fmt: skip
    path = out / "fukuchi19_fig2.png"
    canvas.print_png(str(path))
    return path


def plot_settings(
    summary: Sequence[dict[str, Any]], out: Path, schedule_name: str, data_model: str
) -> Path | None:
    """Every setting (rows β, columns α; a line per Δ and ε): Err vs N, worst case over x_min."""
    rows = [
        r
        for r in summary
        if r["panel"] == "err_vs_n"
        and r["mechanism"] == "ldp_min"
        and r["schedule"] == schedule_name
        and r["data_model"] == data_model
    ]
    alphas = sorted({r["alpha"] for r in rows})
    betas = sorted({r["beta"] for r in rows})
    if not rows or len({r["setting"] for r in rows}) <= 1:
        return None
    fig, canvas, axes = _axes_grid(len(betas), len(alphas), 3.4, 2.8)
    deltas = sorted({r["delta_width"] for r in rows})
    for i, b in enumerate(betas):
        for j, a in enumerate(alphas):
            ax = axes[i, j]
            for d, colour in zip(deltas, ("tab:blue", "tab:orange", "tab:green"), strict=False):
                for eps, ls in zip(EPSILONS, ("-", "--"), strict=True):
                    cur = _curve(rows, "N", alpha=a, beta=b, delta_width=d, epsilon=eps)
                    if cur is not None:
                        ax.plot(cur[0], cur[1], ls=ls, marker="o", ms=2, color=colour,
                                label=f"Δ = {d:g}, ε = {eps:g}")  # fmt: skip
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"Beta({a:g}, {b:g})", fontsize=8)
            ax.tick_params(labelsize=6)
            if i == 0 and j == 0:
                ax.legend(fontsize=5)
    fig.suptitle(f"fukuchi19: Err vs N, {SCHEDULE_LABELS[schedule_name]}, {data_model} data",
                 fontsize=10)  # fmt: skip
    path = out / f"fukuchi19_settings_{schedule_name}_{data_model}.png"
    canvas.print_png(str(path))
    return path


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def _check_workers(workers: Any) -> int:
    return 1 if workers is None else check_int(workers, "workers", minimum=1, maximum=MAX_WORKERS)


def run_study(
    *,
    settings: str | None = None,
    runs: int | None = None,
    other_runs: int | None = None,
    min_log2n: int | None = None,
    max_log2n: int | None = None,
    data_models: Sequence[str] | str | None = None,
    schedules: Sequence[str] | str | None = None,
    laplace: str | None = None,
    laplace_iid: bool = False,
    eps_sweep: bool = True,
    exact_max_levels: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path = DEFAULT_OUT,
    quick: bool = False,
    progress: Progress | None = None,
    plot: bool = True,
) -> list[Path]:
    """Run the study (module docstring) and write its CSV and PNG files into ``out``.

    ``settings`` "all" (default) or "main"; ``runs`` per cell (1000; quick 300), ``other_runs``
    for the settings other than the main one (default ``runs``); N = 2^min_log2n..2^max_log2n
    (10..20; quick 10..12); ``data_models`` among fixed, iid; ``schedules`` among lower_alpha,
    unknown_alpha; ``laplace`` main|all|none; ``laplace_iid`` adds the baseline on i.i.d. data;
    ``eps_sweep`` the Err-vs-ε panel; ``exact_max_levels`` (10; 0: no exact law); ``workers``
    processes (default 1; the results do not depend on it). Returns the paths written."""
    study = make_study(
        settings=settings,
        runs=runs,
        other_runs=other_runs,
        min_log2n=min_log2n,
        max_log2n=max_log2n,
        data_models=data_models,
        schedules=schedules,
        laplace=laplace,
        laplace_iid=laplace_iid,
        eps_sweep=eps_sweep,
        exact_max_levels=exact_max_levels,
        seed=seed,
        quick=quick,
    )
    workers = _check_workers(workers)
    plot = check_flag(plot, "plot")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable or None, got {type(progress).__name__}")
    if not isinstance(out, str | Path) or (isinstance(out, str) and not out):
        raise ValueError(f"out must be a directory path (str or Path), got {out!r:.80}")
    out = Path(out)
    points = build_points(study)
    results = run_points(study, points, workers, progress)
    summary = [summary_row(p.panel, results[p.cell.key]) for p in points]
    per_x = [row for res in results.values() for row in xmin_rows(res)]
    fits = fit_rows(summary, study)
    paths = [
        write_csv(out / "fukuchi19.csv", summary, SUMMARY_COLUMNS),
        write_csv(out / "fukuchi19_xmin.csv", per_x, XMIN_COLUMNS),
        write_csv(out / "fukuchi19_fits.csv", fits, FIT_COLUMNS),
    ]
    if plot:
        figures = [plot_figure_1(summary, fits, out, dm) for dm in study.data_models]
        figures.append(plot_figure_2(summary, out))
        figures += [
            plot_settings(summary, out, sched, dm)
            for sched in study.schedules
            for dm in study.data_models
        ]
        paths += [p for p in figures if p is not None]
    return paths


__all__ = [
    "DATA_MODELS",
    "EPSILONS",
    "EPS_SWEEP",
    "LOG2N",
    "MECHANISMS",
    "PANELS",
    "Cell",
    "CellResult",
    "PanelPoint",
    "Study",
    "XminResult",
    "build_points",
    "cell_rule",
    "cell_seed",
    "fit_constant",
    "fit_rows",
    "fitted_rate",
    "guideline",
    "laplace_errors",
    "laplace_shift_gap",
    "ldp_min_errors",
    "make_study",
    "run_cell",
    "run_points",
    "run_study",
    "summarize_errors",
    "summary_row",
]
