"""The figures of the fukuchi19 study (Figures 1–2 of Fukuchi et al., Sec. 6.1; matplotlib's Agg
canvas): ``fukuchi19_fig1.png`` (Fig. 1 left/middle/right, fixed data), ``fukuchi19_fig1_iid.png``,
``fukuchi19_fig2.png`` (Fig. 2: proposed vs baseline, ε = 1 and 4) and, when more than the main
setting ran, ``fukuchi19_settings_<schedule>_<data model>.png`` (every setting, Err vs N).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dpquant.reference.ldp_minimum import SCHEDULES, guideline
from dpquant.studies.fukuchi19.config import EPSILONS, Study
from dpquant.studies.fukuchi19.data import MAIN_SETTING
from dpquant.studies.harness import axes_grid

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


def _err_axes(ax: Any, xlabel: str, title: str) -> None:
    """A panel of Err (log) vs ``xlabel`` (log₂), its title and legend."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Err (worst case over x_min)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6)


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
    fig, canvas, axes = axes_grid(1, 3, 4.6, 3.6)
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
        _err_axes(ax, "N", f"{SCHEDULE_LABELS[sched]}: Err vs N")
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
    _err_axes(ax, "ε", "Err vs ε (guidelines yellow, dashed)")
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
    fig, canvas, axes = axes_grid(1, 2, 4.8, 3.6)
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
        _err_axes(ax, "N", f"ε = {eps:g}")
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
    fig, canvas, axes = axes_grid(len(betas), len(alphas), 3.4, 2.8)
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


def plot_study(
    summary: Sequence[dict[str, Any]], fits: Sequence[dict[str, Any]], study: Study, out: Path
) -> list[Path]:
    """Every figure of the study (module docstring); those without data are skipped."""
    out.mkdir(parents=True, exist_ok=True)
    figures = [plot_figure_1(summary, fits, out, dm) for dm in study.data_models]
    figures.append(plot_figure_2(summary, out))
    figures += [
        plot_settings(summary, out, sched, dm)
        for sched in study.schedules
        for dm in study.data_models
    ]
    return [p for p in figures if p is not None]


__all__ = ["plot_figure_1", "plot_figure_2", "plot_settings", "plot_study"]
