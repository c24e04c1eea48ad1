"""The figures of the imola25 study: Figure 1's layout (2 × 2: panels a, b on top, c, d below),
the rank error vs m per mechanism with its 95% bootstrap band (matplotlib's Agg canvas)."""

from __future__ import annotations

import csv
import io
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from dpquant.reference.validation import check_choice
from dpquant.studies.harness import axes_grid, check_out, check_sequence
from dpquant.studies.imola25.config import MECHANISMS, PANEL_TITLES, PANELS
from dpquant.studies.imola25.data import ADULT_SIZE

TRACED_CSV = "figure_1_traced.csv"
"""Curve values traced from the authors' notebook figure (n = 586,104, their k-ary CC, which is
not a valid continual counter: notes/imola25.md; read accuracy ≈ ±3) at m = 10, 50, 100, 150,
200, one row per (panel, mechanism, m); drawn dashed for comparison."""


def traced_curves() -> dict[str, dict[str, list[tuple[int, int]]]]:
    """The traced curves of :data:`TRACED_CSV`: panel → mechanism → [(m, max rank error)]."""
    text = resources.files(__package__).joinpath(TRACED_CSV).read_text(encoding="utf-8")
    curves: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        curve = curves.setdefault(row["panel"], {}).setdefault(row["mechanism"], [])
        curve.append((int(row["m"]), int(row["max_rank_error"])))
    return curves


COLOURS = {"SliceQuantiles": "C0", "AQ pure": "C1", "AQ zCDP": "C2", "JointExp": "C3"}


def plot_study(summary: list[dict[str, Any]], out: Path, metric: str = "max_rank_error") -> Path:
    """``metric`` vs m per mechanism with its 95% bootstrap band, in Figure 1's layout; for the
    max error also the traced values of the authors' run (``imola25.png``; the mean rank error:
    ``imola25_mean.png``)."""
    metric = check_choice(metric, "metric", ("max_rank_error", "mean_rank_error"))
    summary = list(check_sequence(summary, "summary"))
    out = check_out(out)
    fig, canvas, axes = axes_grid(2, 2, 5.0, 3.6)
    curves = traced_curves()
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
            traced = [(t, v) for t, v in curves.get(panel, {}).get(mech, []) if m_lo <= t <= m_hi]
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
    out.mkdir(parents=True, exist_ok=True)
    path = out / ("imola25.png" if metric == "max_rank_error" else "imola25_mean.png")
    canvas.print_png(str(path))
    return path


__all__ = ["COLOURS", "TRACED_CSV", "plot_study", "traced_curves"]
