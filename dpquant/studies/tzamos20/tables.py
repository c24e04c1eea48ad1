"""The tables of the tzamos20 accuracy study: ``tzamos20.csv`` (one row per regime,
distribution and n), ``tzamos20_runs.csv`` (one row per data set) and ``tzamos20_crossings.csv``.

Per cell: the mean exact miss over the data sets with its standard error and a normal 95% CI,
its quantiles, the fixed-design miss, the baseline's exact miss and its Monte Carlo estimate on
the same data sets, P[X ∉ H] (Clopper–Pearson 95%), the quantiles of TH(X, m(X)), the share of
data sets on which A(X) = Â(X) exactly, and the terms of Theorem 3.1. Per regime and
distribution: the crossing n (the grid n from which the mean miss stays <= β, and a log-log
interpolation of the first crossing) against max(T₁, T₂, T₃) and the bound of Theorem 3.6.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.reference.conformance import clopper_pearson
from dpquant.reference.private_median import (
    dominant_term,
    empirical_median_miss,
    rate_terms,
    theorem_3_6_bound,
)
from dpquant.studies.harness import Z95
from dpquant.studies.tzamos20.config import Cell

SUMMARY_COLUMNS = (
    "regime", "dominant_term", "distribution", "n", "epsilon", "alpha", "beta", "L", "r", "R",
    "median", "C", "K", "runs", "miss_mean", "miss_se", "miss_ci_low", "miss_ci_high",
    "miss_q10", "miss_q50", "miss_q90", "miss_fixed", "baseline_exact", "baseline_mc",
    "baseline_mc_se", "atypical_rate", "atypical_ci_low", "atypical_ci_high", "th_mean",
    "th_q50", "th_q90", "th_max", "restricted_share", "T1", "T2", "T3", "T_max", "thm36_bound",
    "seconds",
)  # fmt: skip
RUN_COLUMNS = (
    "regime", "distribution", "n", "run", "C", "miss", "baseline_miss", "in_h", "th_median",
    "pieces", "restricted", "seconds",
)  # fmt: skip
CROSSING_COLUMNS = (
    "regime", "dominant_term", "distribution", "epsilon", "alpha", "beta", "R", "C", "T1", "T2",
    "T3", "T_max", "thm36_bound", "n_star_mean", "n_star_ci", "n_cross", "ratio_to_T_max",
    "ratio_to_thm36", "baseline_n_star", "baseline_n_cross",
)  # fmt: skip
TIMING_COLUMNS = ("seconds",)
"""The wall-clock columns: the only ones that vary between two runs of the same study."""
TABLES = {"": SUMMARY_COLUMNS, "_runs": RUN_COLUMNS, "_crossings": CROSSING_COLUMNS}
"""The files ``tzamos20<key>.csv`` (harness ``write_tables``) and their columns."""


@dataclass(frozen=True)
class DataResult:
    """What one data set gives: the exact private miss, the baseline's miss indicator, X ∈ H,
    TH(X, m(X)), the number of pieces of Ψ_X and whether Ψ_X is the restricted tent."""

    run: int
    miss: float
    baseline_miss: bool
    in_h: bool
    th_median: int
    pieces: int
    restricted: bool
    seconds: float


def _quantile(values: Sequence[float] | np.ndarray, q: float) -> float:
    return float(np.quantile(np.asarray(values, dtype=float), q, method="inverted_cdf"))


def summary_row(cell: Cell, results: Sequence[DataResult]) -> dict[str, Any]:
    """The CSV row of one cell (module docstring): mean exact miss, SE, normal 95% CI, its
    quantiles over the data sets, the fixed-design miss, the baseline (exact and Monte Carlo),
    P[X ∉ H] (Clopper–Pearson 95%), TH(X, m(X)) quantiles, the rate terms."""
    g = cell.regime
    iid = [r for r in results if r.run >= 0]
    fixed = next((r for r in results if r.run < 0), None)
    m = len(iid)
    miss = np.array([r.miss for r in iid], dtype=float)
    mean = float(miss.mean()) if m else math.nan
    se = float(miss.std(ddof=1) / math.sqrt(m)) if m > 1 else math.nan
    hits = np.array([r.baseline_miss for r in iid], dtype=float)
    atypical = sum(1 for r in iid if not r.in_h)
    lo, hi = clopper_pearson(atypical, m, 0.05) if m else (math.nan, math.nan)
    th = [r.th_median for r in iid]
    terms = rate_terms(cell.L, cell.r, g.R, g.epsilon, g.alpha, g.beta)
    params = cell.mechanism().parameters(cell.n)
    return {
        "regime": g.name,
        "dominant_term": dominant_term(terms),
        "distribution": cell.distribution,
        "n": cell.n,
        "epsilon": float(g.epsilon),
        "alpha": float(g.alpha),
        "beta": float(g.beta),
        "L": float(cell.L),
        "r": float(cell.r),
        "R": float(g.R),
        "median": float(cell.median),
        "C": float(cell.C),
        "K": params.windows,
        "runs": m,
        "miss_mean": mean,
        "miss_se": se,
        "miss_ci_low": max(0.0, mean - Z95 * se) if m > 1 else math.nan,
        "miss_ci_high": min(1.0, mean + Z95 * se) if m > 1 else math.nan,
        "miss_q10": _quantile(miss, 0.1) if m else math.nan,
        "miss_q50": _quantile(miss, 0.5) if m else math.nan,
        "miss_q90": _quantile(miss, 0.9) if m else math.nan,
        "miss_fixed": fixed.miss if fixed is not None else math.nan,
        "baseline_exact": float(empirical_median_miss(cell.dist(), cell.n, g.alpha)),
        "baseline_mc": float(hits.mean()) if m else math.nan,
        "baseline_mc_se": float(hits.std(ddof=1) / math.sqrt(m)) if m > 1 else math.nan,
        "atypical_rate": atypical / m if m else math.nan,
        "atypical_ci_low": lo,
        "atypical_ci_high": hi,
        "th_mean": float(np.mean(th)) if m else math.nan,
        "th_q50": _quantile(th, 0.5) if m else math.nan,
        "th_q90": _quantile(th, 0.9) if m else math.nan,
        "th_max": float(max(th)) if m else math.nan,
        "restricted_share": sum(r.restricted for r in iid) / m if m else math.nan,
        **terms,
        "T_max": max(terms.values()),
        "thm36_bound": theorem_3_6_bound(terms, cell.C),
        "seconds": float(sum(r.seconds for r in results)),
    }


def run_rows(cell: Cell, results: Sequence[DataResult]) -> list[dict[str, Any]]:
    """One row per data set (run −1: the fixed design)."""
    return [
        {
            "regime": cell.regime.name,
            "distribution": cell.distribution,
            "n": cell.n,
            "run": r.run,
            "C": float(cell.C),
            "miss": r.miss,
            "baseline_miss": int(r.baseline_miss),
            "in_h": int(r.in_h),
            "th_median": r.th_median,
            "pieces": r.pieces,
            "restricted": int(r.restricted),
            "seconds": r.seconds,
        }
        for r in sorted(results, key=lambda r: r.run)
    ]


def first_stay_below(ns: Sequence[int], values: Sequence[float], beta: float) -> int | None:
    """The smallest grid n from which on every value is <= β (None if the last one is not)."""
    out = None
    for n, v in sorted(zip(ns, values, strict=True), reverse=True):
        if not v <= beta:
            break
        out = n
    return out


def crossing(ns: Sequence[int], values: Sequence[float], beta: float) -> float | None:
    """The n at which the curve first falls to β, by log-log interpolation between the last grid
    point above β and the next one (None if it never does; the first n if it starts below)."""
    pts = sorted(zip(ns, values, strict=True))
    for i, (n, v) in enumerate(pts):
        if v <= beta:
            if i == 0:
                return float(n)
            n0, v0 = pts[i - 1]
            if v <= 0:
                return float(n)
            t = (math.log(v0) - math.log(beta)) / (math.log(v0) - math.log(v))
            return float(math.exp(math.log(n0) + t * (math.log(n) - math.log(n0))))
    return None


def crossing_rows(summary: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per regime and distribution: the crossing n of the private curve (mean; upper CI) and of
    the baseline, against max(T₁, T₂, T₃) and the Thm 3.6 bound (at the crossing's C)."""
    out = []
    keys = dict.fromkeys((r["regime"], r["distribution"]) for r in summary)
    for regime, dist in keys:
        rows = sorted(
            (r for r in summary if r["regime"] == regime and r["distribution"] == dist),
            key=lambda r: r["n"],
        )
        ns = [r["n"] for r in rows]
        beta = rows[0]["beta"]
        n_cross = crossing(ns, [r["miss_mean"] for r in rows], beta)
        r0 = rows[-1]
        out.append(
            {
                **{k: r0[k] for k in ("regime", "dominant_term", "distribution", "epsilon")},
                **{k: r0[k] for k in ("alpha", "beta", "R", "C", "T1", "T2", "T3", "T_max")},
                "thm36_bound": r0["thm36_bound"],
                "n_star_mean": first_stay_below(ns, [r["miss_mean"] for r in rows], beta),
                "n_star_ci": first_stay_below(ns, [r["miss_ci_high"] for r in rows], beta),
                "n_cross": n_cross,
                "ratio_to_T_max": None if n_cross is None else n_cross / r0["T_max"],
                "ratio_to_thm36": None if n_cross is None else n_cross / r0["thm36_bound"],
                "baseline_n_star": first_stay_below(ns, [r["baseline_exact"] for r in rows], beta),
                "baseline_n_cross": crossing(ns, [r["baseline_exact"] for r in rows], beta),
            }
        )
    return out


__all__ = [
    "CROSSING_COLUMNS",
    "RUN_COLUMNS",
    "SUMMARY_COLUMNS",
    "TABLES",
    "TIMING_COLUMNS",
    "DataResult",
    "crossing",
    "crossing_rows",
    "first_stay_below",
    "run_rows",
    "summary_row",
]
