"""The tables of the fukuchi19 study: ``fukuchi19.csv`` (one row per panel and curve point, the
worst case over x_min), ``fukuchi19_xmin.csv`` (every x_min) and ``fukuchi19_fits.csv`` (the
guideline fits).

**Worst case** (Sec. 6.1): the reported row is the worst case over x_min of the simulated MAE,
with a normal 95% CI (mean ± 1.96·SE) and the error quantiles at that x_min. The worst case of six
noisy means is biased up by at most max_x |MC error| (about one SE); the per-x_min rows are
written too. ``mae_exact`` is the exact MAE at the simulated worst x_min (``z_exact`` =
(mae − mae_exact)/SE checks the sampler), ``mae_exact_worst`` the exact worst case over x_min.

**Guidelines** (Corollaries 1–2): K·(ln^k N/(ε²N))^{1/(2α)} with k = 3 (Lower α) or 6 (Unknown
α), the true α of the data, and K fitted by least squares on the log scale, over n = log₂N in
[14, 20] (Err vs N) or ε in [1, 4] (Err vs ε); the fitted rate (−slope of log₂ MAE on log₂ N,
resp. log₂ ε, by OLS over the same points) is reported beside the guideline's own rate over
those points and the asymptotic 1/(2α) (resp. 1/α).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpquant.reference.ldp_minimum import GUIDELINE_LOG_POWER, guideline
from dpquant.studies.fukuchi19.config import Study
from dpquant.studies.fukuchi19.data import Setting
from dpquant.studies.fukuchi19.simulation import CellResult
from dpquant.studies.harness import Z95

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
"""The wall-clock columns: the only ones that vary between two runs of the same study."""
TABLES = {"": SUMMARY_COLUMNS, "_xmin": XMIN_COLUMNS, "_fits": FIT_COLUMNS}
"""The files ``fukuchi19<key>.csv`` (harness ``write_tables``) and their columns."""


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
    """One row per x_min of a cell."""
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
            n_lo, n_hi = study.fit_log2n
            use = [r for r in rows if n_lo <= r["log2_n"] <= n_hi]
            xs_name = "N"
        else:
            e_lo, e_hi = study.eps_fit
            use = [r for r in rows if e_lo <= r["epsilon"] <= e_hi]
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
        fit_key = {
            **{k: r0[k] for k in ("setting", "alpha", "beta", "delta_width")},
            "data_model": dm,
            "schedule": sched,
            "epsilon": fixed if panel == "err_vs_n" else None,
            "N": fixed if panel == "err_vs_eps" else None,
            "guideline": f"K*(ln^{GUIDELINE_LOG_POWER[sched]} N/(eps^2 N))^(1/(2*{alpha:g}))",
        }
        xs = ns if panel == "err_vs_n" else eps
        out.append(_fit_row(panel, fit_key, xs, ys, g, alpha))
    return out


__all__ = [
    "FIT_COLUMNS",
    "SUMMARY_COLUMNS",
    "TABLES",
    "TIMING_COLUMNS",
    "XMIN_COLUMNS",
    "fit_constant",
    "fit_rows",
    "fitted_rate",
    "summary_row",
    "xmin_rows",
]
