"""Rendering an audit report for people: Markdown and a plot.

The functions take any object with the fields of :class:`dpquant.audit.report.result.AuditReport`
(:class:`ReportView`); this module imports nothing of the auditor at run time (the types of the
findings, :mod:`dpquant.audit.report.findings`, only for type checking), so the report, a plain
value, stays independent of how it is shown (``AuditReport.to_markdown()`` and
``AuditReport.plot()`` call these functions).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dpquant.audit.report.extras import require
from dpquant.reference.core import PrivacyClaim

if TYPE_CHECKING:
    from dpquant.audit.report.findings import (
        BlackboxFindings,
        ConformanceCheck,
        ExactFindings,
        TimeoutFinding,
        Witness,
    )


class ReportView(Protocol):
    """What rendering reads of a report (the fields of :class:`dpquant.audit.report.result.AuditReport`)."""

    mechanism: str
    claim: PrivacyClaim
    mode: str
    epsilon_lower_bound: float
    epsilon_exact: float | None
    witness: Witness | None
    alpha: float
    seed: int
    samples_used: int
    seconds: float
    exact: ExactFindings | None
    blackbox: BlackboxFindings | None
    conformance: list[ConformanceCheck]
    notes: list[str]
    timed_out: TimeoutFinding | None

    @property
    def tightness(self) -> float: ...

    @property
    def verdict(self) -> str: ...


def fmt(x: float) -> str:
    """A privacy loss for people: four decimals, or ``inf``."""
    return ("inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:.4f}"


NOT_COMPUTED = "—"
"""A table's cell for a value the audit did not compute (an exact ε without an exact law)."""


def cell(x: float | None) -> str:
    """A table's cell: :func:`fmt`, or :data:`NOT_COMPUTED` for None."""
    return NOT_COMPUTED if x is None else fmt(x)


MAX_SHOWN = 12  # data values shown before a data set is abbreviated


def short(data: Any) -> str:
    """A data set for humans: all values if few, else the size, the distinct values and counts;
    a vector record in parentheses, ``(0, 1, 0.5)``."""
    values = [_record(v) for v in data]
    if len(values) <= MAX_SHOWN:
        return "(" + ", ".join(_shown(v) for v in values) + ")"
    counts: dict[Any, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    parts = [f"{_shown(v)}×{c}" if c > 1 else _shown(v) for v, c in sorted(counts.items())]
    return (
        f"n={len(values)}: "
        + ", ".join(parts[:MAX_SHOWN])
        + (" ..." if len(parts) > MAX_SHOWN else "")
    )


def _record(v: Any) -> Any:
    """A record as a float, or a vector record as a tuple of floats (hashable, ordered)."""
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, list | tuple):
        return tuple(_record(x) for x in v)
    return float(v)


def _shown(v: Any) -> str:
    return "(" + ", ".join(_shown(x) for x in v) + ")" if isinstance(v, tuple) else f"{v:g}"


def witness_line(w: Witness | None) -> str:
    """The witness on one line, as the command line and a failing test print it: the two
    neighbours, the event and its counts on each (a black-box or timeout witness), and where it
    comes from in brackets (``exact``, ``blackbox``, ``timeout``); ``none`` without one.

    Args:
        w: The witness (:class:`dpquant.audit.report.findings.Witness`), or None.

    Returns:
        The line.
    """
    if w is None:
        return "none"
    text = f"D = {short(w.data)}, D' = {short(w.data_prime)}"
    if w.event is not None:
        text += f"; event: {w.event.describe()}; counts {w.k0}/{w.n0} vs {w.k1}/{w.n1}"
        if w.counting == "poisson":
            text += " (Poisson numbers of draws)"
    return f"{text} [{w.source}]"


def render_report(r: ReportView, plot: str | None = None) -> str:
    """One mechanism's report as Markdown."""
    lines = [
        f"## {r.mechanism}",
        "",
        f"* verdict: **{r.verdict}**",
        f"* claim: ε = {r.claim.epsilon:g}, δ = {r.claim.delta:g}, adjacency {r.claim.adjacency}",
        f"* ε lower bound (confidence 1 − {r.alpha:g}): {fmt(r.epsilon_lower_bound)}"
        f" (tightness {r.tightness:.3f})",
        *(
            []
            if r.epsilon_exact is None
            else [f"* exact ε on the searched pairs: {fmt(r.epsilon_exact)}"]
        ),
        f"* witness: {witness_line(r.witness)}",
        f"* mode {r.mode}; {r.samples_used} draws; {r.seconds:.1f} s; seed {r.seed}",
    ]
    if r.exact is not None:
        x = r.exact
        lines.append(
            f"* exact stage: {x.pairs_screened} pairs screened, {x.pairs_exact} in mpmath; "
            f"δ(ε_claimed) = {x.delta_at_claimed_epsilon:.3g}; draws needed to exceed the claim "
            f"on the most detectable pair: {x.planning.samples_needed_to_exceed_claim}"
        )
        lines.append(
            "* Rényi divergences on the worst pair: "
            + ", ".join(f"D_{_order(a)} = {fmt(d)}" for a, d in x.worst_pair_analysis.renyi)
        )
    if r.blackbox is not None:
        for e in r.blackbox.evaluated:
            lo, hi = e.event_log_ratio_ci
            lines.append(
                f"* evaluated: {e.event.describe()} on D = {short(e.pair.data)}, "
                f"D' = {short(e.pair.data_prime)}: {e.k0}/{e.n0} vs {e.k1}/{e.n1}"
                + (" (Poisson numbers of draws), " if e.counting == "poisson" else ", ")
                + f"ε_lb = {fmt(e.epsilon_lower_bound)}, ln(p0/p1) ∈ [{fmt(lo)}, {fmt(hi)}]"
            )
    for c in r.conformance:
        lines.append(
            f"* sampler conformance on {short(c.data)}: {c.test} "
            f"{'passed' if c.passed else 'FAILED'} (statistic {c.statistic:.3g}, "
            f"threshold {c.threshold:.3g})"
        )
    if r.timed_out is not None:
        t = r.timed_out
        h = t.hang_test
        lines.append(
            f"* stopped: a {t.stage} draw on D = {short(t.pair.data)} took longer than "
            f"{t.limit_seconds:g} s; hang test: {h.timeouts_on_data}/{h.draws_on_data} "
            f"timed out on D, {h.timeouts_on_data_prime}/{h.draws_on_data_prime} on "
            f"D' = {short(t.pair.data_prime)} (ε_lb = {fmt(h.epsilon_lower_bound)})"
        )
    for n in r.notes[:5]:
        lines.append(f"* note: {n}")
    if plot:
        lines += ["", f"![{r.mechanism}]({plot})"]
    return "\n".join(lines) + "\n"


def _order(a: float) -> str:
    return "∞" if math.isinf(a) else f"{a:g}"


def plot_report(r: ReportView, path: str | Path) -> Path:
    """PNG of the exact hockey-stick curve δ(ε') of the worst pair (when known) with the claim and
    the black-box bound marked; without an exact law, the evaluated events' estimated log ratios
    and their confidence intervals.

    Args:
        r: the report.
        path: a file path (str or ``os.PathLike``) with an image suffix matplotlib writes;
            missing folders are created.

    Returns:
        The path written.

    Raises:
        ValueError: naming ``path``, when it is not a file path with such a suffix or cannot be
            written.
        dpquant.audit.report.extras.MissingExtra: when matplotlib is not installed (the extra
            ``dpquant[plots]``).
    """
    path = image_path(path)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    if r.exact is not None:
        curve = r.exact.worst_pair_analysis.delta_curve
        ax.plot([e for e, _ in curve], [d for _, d in curve], label="exact δ(ε) on the worst pair")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ")
    elif r.blackbox is not None:
        for i, e in enumerate(r.blackbox.evaluated):
            lo, hi = e.event_log_ratio_ci
            hat = math.log(max(e.p0_hat, 1e-300) / max(e.p1_hat, 1e-300)) if e.p1_hat else lo
            top = hi if math.isfinite(hi) else max(lo, hat) + 1.0
            ax.errorbar(
                [i],
                [hat if math.isfinite(hat) else lo],
                yerr=[[max(0.0, hat - lo)], [max(0.0, top - hat)]],
                fmt="o",
            )
        ax.set_xlabel("evaluated candidate")
        ax.set_ylabel("ln p0/p1 (estimate and CI)")
    ax.axvline(r.claim.epsilon, color="k", ls="--", label="claimed ε") if r.exact else ax.axhline(
        r.claim.epsilon, color="k", ls="--", label="claimed ε"
    )
    if r.exact and r.epsilon_lower_bound > 0:
        ax.axvline(r.epsilon_lower_bound, color="r", ls=":", label="black-box ε lower bound")
    ax.set_title(r.mechanism[:60], fontsize=9)
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def image_path(path: str | os.PathLike[str]) -> Path:
    """A checked image file path whose folder exists (created if missing), for a plot.

    Args:
        path: A file path (str or ``os.PathLike``) with an image suffix matplotlib writes.

    Returns:
        The path.

    Raises:
        ValueError: naming ``path``, when it is not such a file path or its folder cannot be
            created.
        dpquant.audit.report.extras.MissingExtra: when matplotlib is not installed.
    """
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike):
        raise ValueError(f"path must be a file path (str or os.PathLike), got {path!r:.80}")
    if not str(path).strip() or "\x00" in str(path):
        raise ValueError(f"path must be a non-empty file path, got {str(path)!r:.80}")
    require("matplotlib", "report.plot()").use("Agg")
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    formats = image_formats()
    if suffix not in formats:
        raise ValueError(
            f"path must end in an image format matplotlib writes ({', '.join(sorted(formats))}), "
            f"got {str(path)!r:.120}"
        )
    if path.is_dir():
        raise ValueError(f"path must be a file, got the directory {str(path)!r:.120}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(
            f"path {str(path)!r:.120}: cannot create its folder ({exc.strerror or exc})"
        ) from None
    return path


def save_figure(fig: Any, path: Path) -> Path:
    """Write a matplotlib figure to ``path`` and close it.

    Args:
        fig: The figure.
        path: A path from :func:`image_path`.

    Returns:
        The path.

    Raises:
        ValueError: naming ``path``, when it cannot be written.
    """
    import matplotlib.pyplot as plt

    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:
        raise ValueError(
            f"path {str(path)!r:.120}: cannot write it ({exc.strerror or exc})"
        ) from None
    finally:
        plt.close(fig)
    return path


def image_formats() -> frozenset[str]:
    """The file suffixes matplotlib's Agg backend writes (png, pdf, svg, ...).

    Raises:
        dpquant.audit.report.extras.MissingExtra: when matplotlib is not installed.
    """
    require("matplotlib", "plotting an audit report")
    from matplotlib.backend_bases import FigureCanvasBase

    return frozenset(FigureCanvasBase.get_supported_filetypes())


__all__ = [
    "MAX_SHOWN",
    "ReportView",
    "fmt",
    "image_formats",
    "image_path",
    "plot_report",
    "render_report",
    "save_figure",
    "short",
    "witness_line",
]
