"""The figures of the tzamos20 accuracy study (matplotlib's Agg canvas): ``tzamos20_miss.png``
(miss vs n per regime, with T₁, T₂, T₃ and the bound of Theorem 3.6), ``tzamos20_typical.png``
(P[X ∉ H] and the quantiles of TH(X, m(X)) vs n; Lemmas B.2, B.3) and ``tzamos20_crossings.png``
(the crossing n vs max(T₁, T₂, T₃) and vs the bound of Theorem 3.6)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dpquant.studies.harness import axes_grid

DIST_COLOURS = {"uniform": "tab:blue", "pareto": "tab:red"}
TERM_STYLES = {"T1": ("tab:green", ":"), "T2": ("tab:purple", "--"), "T3": ("tab:brown", "-.")}


def _rows(summary: Sequence[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    return sorted(
        (r for r in summary if all(r[k] == v for k, v in match.items())), key=lambda r: r["n"]
    )


def _col(rows: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    return np.array([np.nan if r[key] is None else r[key] for r in rows], dtype=float)


def plot_miss(summary: Sequence[dict[str, Any]], out: Path) -> Path | None:
    """Miss probability vs n per regime: private mean with its 95% CI band (solid), the fixed
    design (dashed), the exact baseline (grey), β, and T₁, T₂, T₃ and the Thm 3.6 bound as
    vertical lines."""
    regimes = list(dict.fromkeys(r["regime"] for r in summary))
    if not regimes:
        return None
    fig, canvas, axes = axes_grid(1, len(regimes), 4.6, 3.8)
    for col, regime in enumerate(regimes):
        ax = axes[0, col]
        rows0 = [r for r in summary if r["regime"] == regime]
        for dist in dict.fromkeys(r["distribution"] for r in rows0):
            rows = _rows(summary, regime=regime, distribution=dist)
            n = _col(rows, "n")
            colour = DIST_COLOURS.get(dist, "tab:gray")
            ax.plot(n, _col(rows, "miss_mean"), marker="o", ms=3, color=colour,
                    label=f"private, {dist} (mean over X)")  # fmt: skip
            ax.fill_between(n, _col(rows, "miss_ci_low"), _col(rows, "miss_ci_high"),
                            color=colour, alpha=0.15, lw=0)  # fmt: skip
            if np.any(np.isfinite(_col(rows, "miss_fixed"))):
                ax.plot(n, _col(rows, "miss_fixed"), ls="--", color=colour, lw=1,
                        label=f"private, {dist} quantile data")  # fmt: skip
        rows = _rows(summary, regime=regime, distribution=rows0[0]["distribution"])
        private = np.concatenate([_col(rows0, "miss_mean"), _col(rows0, "miss_fixed")])
        private = private[np.isfinite(private) & (private > 0)]
        floor = max(1e-30, float(private.min()) / 3) if private.size else 1e-6
        baseline = _col(rows, "baseline_exact")
        ax.plot(_col(rows, "n"), np.where(baseline >= floor, baseline, np.nan), color="gray",
                marker="x", ms=3, label="empirical median (exact)")  # fmt: skip
        r0 = rows[0]
        ax.axhline(r0["beta"], color="black", lw=0.7, ls=":")
        for term, (colour, ls) in TERM_STYLES.items():
            ax.axvline(r0[term], color=colour, ls=ls, lw=1, label=f"{term} = {r0[term]:.3g}")
        ax.axvline(r0["thm36_bound"], color="black", ls="--", lw=0.8,
                   label=f"T1 + C·T2 + T3 = {r0['thm36_bound']:.3g}")  # fmt: skip
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(min(floor, 1e-6), 1.5)
        ax.set_xlabel("n")
        ax.set_ylabel("P(|A(X) − m(D)| > α)")
        ax.set_title(
            f"{regime} ({r0['dominant_term']} largest): ε = {r0['epsilon']:g}, α = "
            f"{r0['alpha']:g}, R = {r0['R']:g}, C = {r0['C']:g}",
            fontsize=8,
        )
        ax.legend(fontsize=5)
    fig.suptitle(
        "tzamos20: exact miss probability of the ε-DP private median (extension), β dotted",
        fontsize=10,
    )
    path = out / "tzamos20_miss.png"
    canvas.print_png(str(path))
    return path


def plot_typical(summary: Sequence[dict[str, Any]], out: Path) -> Path | None:
    """P[X ∉ H] (with Clopper–Pearson band) and TH(X, m(X)) median / 90% quantile / max vs n."""
    if not summary:
        return None
    fig, canvas, axes = axes_grid(1, 2, 4.8, 3.6)
    seen = set()
    for r0 in summary:
        if r0["distribution"] in seen:
            continue
        seen.add(r0["distribution"])
        rows = _rows(summary, regime=r0["regime"], distribution=r0["distribution"])
        n = _col(rows, "n")
        colour = DIST_COLOURS.get(r0["distribution"], "tab:gray")
        axes[0, 0].plot(n, _col(rows, "atypical_rate"), marker="o", ms=3, color=colour,
                        label=r0["distribution"])  # fmt: skip
        axes[0, 0].fill_between(n, _col(rows, "atypical_ci_low"), _col(rows, "atypical_ci_high"),
                                color=colour, alpha=0.15, lw=0)  # fmt: skip
        for key, ls in (("th_q50", "-"), ("th_q90", "--"), ("th_max", ":")):
            axes[0, 1].plot(n, _col(rows, key), ls=ls, marker="o", ms=2, color=colour,
                            label=f"{r0['distribution']} {key[3:]}")  # fmt: skip
    axes[0, 0].set_xscale("log")
    axes[0, 0].set_xlabel("n")
    axes[0, 0].set_ylabel("P[X ∉ H] (Lemma B.2, T = 1)")
    axes[0, 0].legend(fontsize=6)
    axes[0, 1].set_xscale("log")
    axes[0, 1].set_xlabel("n")
    axes[0, 1].set_ylabel("TH(X, m(X)) (Lemma B.3)")
    axes[0, 1].legend(fontsize=6)
    fig.suptitle(f"tzamos20: typicality of X ~ Dⁿ (regime {summary[0]['regime']})", fontsize=10)
    path = out / "tzamos20_typical.png"
    canvas.print_png(str(path))
    return path


def plot_crossings(crossings: Sequence[dict[str, Any]], out: Path) -> Path | None:
    """Crossing n (miss = β, interpolated) vs max(T₁, T₂, T₃) and vs the Thm 3.6 bound."""
    pts = [c for c in crossings if c["n_cross"] is not None]
    if not pts:
        return None
    fig, canvas, axes = axes_grid(1, 2, 4.4, 3.6)
    for ax, key, label in (
        (axes[0, 0], "T_max", "max(T1, T2, T3)"),
        (axes[0, 1], "thm36_bound", "T1 + C·T2 + T3"),
    ):
        for c in pts:
            ax.scatter(c[key], c["n_cross"], color=DIST_COLOURS.get(c["distribution"], "gray"),
                       marker={"T1": "o", "T2": "s", "T3": "^"}[c["dominant_term"]],
                       label=f"{c['regime']} / {c['distribution']}")  # fmt: skip
        xs = np.array([c[key] for c in pts] + [c["n_cross"] for c in pts], dtype=float)
        lim = (xs.min() / 2, xs.max() * 2)
        ax.plot(lim, lim, color="gray", lw=0.7, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("n with miss = β (interpolated)")
        ax.legend(fontsize=6)
    fig.suptitle("tzamos20: sample size needed vs Theorem 3.1 / 3.6 terms", fontsize=10)
    path = out / "tzamos20_crossings.png"
    canvas.print_png(str(path))
    return path


def plot_study(
    summary: Sequence[dict[str, Any]], crossings: Sequence[dict[str, Any]], out: Path
) -> list[Path]:
    """Every figure of the study (module docstring); those without data are skipped."""
    out.mkdir(parents=True, exist_ok=True)
    figures = [plot_miss(summary, out), plot_typical(summary, out), plot_crossings(crossings, out)]
    return [p for p in figures if p is not None]


__all__ = ["plot_crossings", "plot_miss", "plot_study", "plot_typical"]
