"""The figures of the aamand25 study (matplotlib's Agg canvas, no pyplot state).

``<figure>.png``: per panel, success vs ε (or B, or c) at α_test = 0.04 with ±1 s.e. bars, and the
CDF of the absolute error (Fig. 2: the mean error vs c); ``<figure>_alpha.png``: the success
curves for every α_test of the authors' notebooks. Fig. 1a's panel also shows the authors' own
200-run success rates (dashed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dpquant.studies.aamand25.config import (
    ALPHA_TESTS,
    EPS_GRID,
    MAIN_ALPHA,
    FigureSpec,
    PlotSpec,
    panel_name,
)
from dpquant.studies.harness import axes_grid, colormap

# Fig. 1a left as the authors measured it (their committed 200-run results, Pareto n = 2500,
# B = 4⁹, α_test = 0.04, over EPS_GRID; notes/aamand25.md, "Reproduction"): drawn dashed next to
# ours in that panel (Fig. 1a, Fig. 5).
AUTHORS_FIG1A_SUCCESS = {
    "DpBayeSS": (0.020, 0.045, 0.155, 0.285, 0.480, 0.695, 0.760, 0.920, 0.970, 0.975),
    "DpNaiveNBS": (0.025, 0.035, 0.070, 0.175, 0.260, 0.385, 0.540, 0.670, 0.775, 0.670),
    "HM": (0.000, 0.000, 0.005, 0.005, 0.005, 0.000, 0.010, 0.090, 0.415, 0.530),
}


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
    colours = colormap(len(ALPHA_TESTS))
    for alpha, colour in zip(ALPHA_TESTS, colours, strict=True):
        pts = sorted((r[spec.x], r["success_rate"]) for r in rows if r["alpha_test"] == alpha)
        if pts:
            x, y = (np.array(v, dtype=float) for v in zip(*pts, strict=True))
            ax.plot(x, y, marker=".", color=colour, label=f"{alpha:g}")
    _set_x(ax, spec)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("success rate", fontsize=7)


def plot_figure(
    spec: FigureSpec, summary: list[dict[str, Any]], errors: list[dict[str, Any]], out: Path
) -> list[Path]:
    """``<figure>.png`` (per panel: success at α_test = 0.04 with ±1 s.e. bars, and the error CDF
    or mean error) and ``<figure>_alpha.png`` (per panel and line: success for every α_test)."""
    panels = list(dict.fromkeys(c.panel for c in spec.cells))
    fig, canvas, axes = axes_grid(len(panels), 2, 5.0, 3.6)
    for i, panel in enumerate(panels):
        rows = [r for r in summary if r["panel"] == panel]
        errs = [r for r in errors if r["panel"] == panel]
        _success_panel(axes[i, 0], rows, spec.plot, MAIN_ALPHA)
        _error_panel(axes[i, 1], rows, errs, spec.plot)
        if panel == panel_name(2500, 4**9) and spec.plot.lines == "mechanism":
            for (mech, rates), mark in zip(AUTHORS_FIG1A_SUCCESS.items(), "x+1", strict=True):
                label = f"{mech} (authors' runs)"
                axes[i, 0].plot(EPS_GRID, rates, ls="--", marker=mark, color="0.5", label=label)
        axes[i, 0].set_title(panel, fontsize=9)
        axes[i, 0].legend(fontsize=7)
        axes[i, 1].legend(fontsize=7)
    fig.suptitle(spec.title)
    out.mkdir(parents=True, exist_ok=True)
    main = out / f"{spec.name}.png"
    canvas.print_png(str(main))
    values = list(
        dict.fromkeys(
            c.mechanism if spec.plot.lines == "mechanism" else c.epsilon for c in spec.cells
        )
    )
    fig, canvas, axes = axes_grid(len(panels), len(values), 3.6, 2.8)
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


__all__ = ["AUTHORS_FIG1A_SUCCESS", "plot_figure"]
