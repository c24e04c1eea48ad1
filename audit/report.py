"""Rendering audit reports (Markdown, plots) and ``dpquant audit --all`` / ``make audit``.

``audit_all`` audits every mechanism of :mod:`reference.registry` and every entry of the known-bad
catalogue (:mod:`audit.catalogue`), and writes ``reports/audit.md`` (a table, then one section
per mechanism with its plot), ``reports/audit.json`` and the plots under ``reports/audit/``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from audit.result import AuditReport, _fmt

MAX_SHOWN = 12  # data values shown before a data set is abbreviated


def short(data: Any) -> str:
    """A data set for humans: all values if few, else the size, the distinct values and counts."""
    values = list(data)
    if len(values) <= MAX_SHOWN:
        return "(" + ", ".join(f"{float(v):g}" for v in values) + ")"
    counts: dict[float, int] = {}
    for v in values:
        counts[float(v)] = counts.get(float(v), 0) + 1
    parts = [f"{v:g}×{c}" if c > 1 else f"{v:g}" for v, c in sorted(counts.items())]
    return (
        f"n={len(values)}: "
        + ", ".join(parts[:MAX_SHOWN])
        + (" ..." if len(parts) > MAX_SHOWN else "")
    )


def witness_line(w: dict[str, Any] | None) -> str:
    if not w:
        return "none"
    event = w.get("event", {}).get("description", "")
    text = f"D = {short(w['data'])}, D' = {short(w['data_prime'])}"
    if event:
        text += f"; event: {event}; counts {w['k0']}/{w['n0']} vs {w['k1']}/{w['n1']}"
    return text


def render_report(r: AuditReport, plot: str | None = None) -> str:
    """One mechanism's report as Markdown."""
    lines = [
        f"## {r.mechanism}",
        "",
        f"* verdict: **{r.verdict()}**",
        f"* claim: ε = {r.claim.epsilon:g}, δ = {r.claim.delta:g}, adjacency {r.claim.adjacency}",
        f"* ε lower bound (confidence 1 − {r.alpha:g}): {_fmt(r.epsilon_lower_bound)}"
        f" (tightness {r.tightness:.3f})",
        f"* exact ε on the searched pairs: {_fmt(r.epsilon_exact)}",
        f"* witness: {witness_line(r.witness)}",
        f"* mode {r.mode}; {r.samples_used} draws; {r.seconds:.1f} s; seed {r.seed}",
    ]
    if r.exact:
        x = r.exact
        plan = x.get("planning", {})
        lines.append(
            f"* exact stage: {x['pairs_screened']} pairs screened, {x['pairs_exact']} in mpmath; "
            f"δ(ε_claimed) = {x['delta_at_claimed_epsilon']:.3g}; draws needed to exceed the claim "
            f"on the most detectable pair: {plan.get('samples_needed_to_exceed_claim')}"
        )
        renyi = x["worst_pair_analysis"]["renyi"]
        lines.append(
            "* Rényi divergences on the worst pair: "
            + ", ".join(f"D_{_order(a)} = {_fmt(d)}" for a, d in renyi)
        )
    if r.blackbox:
        for e in r.blackbox["evaluated"]:
            lo, hi = e["event_log_ratio_ci"]
            lines.append(
                f"* evaluated: {e['event']['description']} on D = {short(e['data'])}, "
                f"D' = {short(e['data_prime'])}: {e['k0']}/{e['n0']} vs {e['k1']}/{e['n1']}, "
                f"ε_lb = {_fmt(e['epsilon_lower_bound'])}, ln(p0/p1) ∈ [{_fmt(lo)}, {_fmt(hi)}]"
            )
    for c in r.conformance:
        lines.append(
            f"* sampler conformance on {short(c['data'])}: {c['test']} "
            f"{'passed' if c['passed'] else 'FAILED'} (statistic {c['statistic']:.3g}, "
            f"threshold {c['threshold']:.3g})"
        )
    if r.timed_out:
        t = r.timed_out
        h = t["hang_test"]
        lines.append(
            f"* stopped: a {t['stage']} draw on D = {short(t['data'])} took longer than "
            f"{t['limit_seconds']:g} s; hang test: {h['timeouts_on_data']}/{h['draws_per_side']} "
            f"timed out on D, {h['timeouts_on_data_prime']}/{h['draws_per_side']} on "
            f"D' = {short(t['data_prime'])} (ε_lb = {_fmt(h['epsilon_lower_bound'])})"
        )
    for n in r.notes[:5]:
        lines.append(f"* note: {n}")
    if plot:
        lines += ["", f"![{r.mechanism}]({plot})"]
    return "\n".join(lines) + "\n"


def _order(a: float) -> str:
    return "∞" if math.isinf(a) else f"{a:g}"


def plot_report(r: AuditReport, path: str | Path) -> Path | None:
    """PNG of the exact hockey-stick curve δ(ε') of the worst pair (when known) with the claim and
    the black-box bound marked; without an exact law, the evaluated events' estimated log ratios
    and their confidence intervals. Returns None if matplotlib is missing. ``path``: a file path
    (str or ``os.PathLike``) with an image suffix matplotlib writes; missing folders are created;
    a path that cannot be written is a ``ValueError`` naming it."""
    if isinstance(path, bytes) or not isinstance(path, str | os.PathLike):
        raise ValueError(f"path must be a file path (str or os.PathLike), got {path!r:.80}")
    if not str(path).strip() or "\x00" in str(path):
        raise ValueError(f"path must be a non-empty file path, got {str(path)!r:.80}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a dev dependency
        return None
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    formats = _image_formats()
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
    fig, ax = plt.subplots(figsize=(6, 3.6))
    if r.exact:
        curve = r.exact["worst_pair_analysis"]["delta_curve"]
        ax.plot([e for e, _ in curve], [d for _, d in curve], label="exact δ(ε) on the worst pair")
        ax.set_xlabel("ε")
        ax.set_ylabel("δ")
    elif r.blackbox:
        ev = r.blackbox["evaluated"]
        for i, e in enumerate(ev):
            lo, hi = e["event_log_ratio_ci"]
            hat = (
                math.log(max(e["p0_hat"], 1e-300) / max(e["p1_hat"], 1e-300)) if e["p1_hat"] else lo
            )
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


def _image_formats() -> frozenset[str]:
    """The file suffixes matplotlib's Agg backend writes (png, pdf, svg, ...)."""
    from matplotlib.backend_bases import FigureCanvasBase

    return frozenset(FigureCanvasBase.get_supported_filetypes())


def audit_all(
    out: str | Path = "reports",
    seed: int = 0,
    samples: int | None = None,
    progress: Callable[[str], None] | None = None,
    timeout: float | None = None,
) -> list[AuditReport]:
    """Audit the registry and the catalogue; write ``audit.md``, ``audit.json`` and plots.

    ``out``: a folder (created if missing); ``seed``, ``samples`` and ``timeout`` as for
    :func:`audit.audit_mechanism`, checked before anything is audited; ``progress`` a callable
    or None."""
    from audit.catalogue import CATALOGUE, CONTROLS
    from audit.runner import MAX_SAMPLES, MAX_SEED, MAX_TIMEOUT, MIN_TIMEOUT, audit_mechanism
    from reference.registry import REGISTRY
    from reference.validation import check_int, check_positive

    seed = check_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    if samples is not None:
        samples = check_int(samples, "samples", minimum=10, maximum=MAX_SAMPLES)
    if timeout is not None and not MIN_TIMEOUT <= check_positive(timeout, "timeout") <= MAX_TIMEOUT:
        raise ValueError(
            f"timeout must lie in [{MIN_TIMEOUT:g}, {MAX_TIMEOUT:g}] seconds, got {timeout!r}"
        )
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {progress!r:.80}")
    if isinstance(out, bytes) or not isinstance(out, str | os.PathLike) or not str(out).strip():
        raise ValueError(f"out must be a folder path (str or os.PathLike), got {out!r:.80}")
    out = Path(out)
    plots = out / "audit"
    try:
        plots.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(
            f"out {str(out)!r:.120}: cannot create {str(plots)!r:.120} ({exc.strerror or exc})"
        ) from None
    targets: list[tuple[str, Any, str, Any]] = [
        (e.name, e.build(), "reference", e.pairs() if e.pairs else None) for e in REGISTRY
    ]
    targets += [(e.name, e.mechanism, "control", None) for e in CONTROLS]
    targets += [(e.name, e.mechanism, "known-bad", None) for e in CATALOGUE]
    reports: list[AuditReport] = []
    sections: list[str] = []
    rows = [
        "| mechanism | kind | claim | ε lower bound | exact ε (searched) | verdict | draws | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, (name, mech, kind, pairs) in enumerate(targets):
        if progress:
            progress(f"[{i + 1}/{len(targets)}] {name}")
        r = audit_mechanism(
            mech, pairs=pairs, samples=samples, seed=seed, name=name, timeout=timeout
        )
        reports.append(r)
        png = plot_report(r, plots / f"{_slug(name)}.png")
        rel = f"audit/{png.name}" if png else None
        c = r.claim
        rows.append(
            f"| {name} | {kind} | ε={c.epsilon:g}, δ={c.delta:g}, {c.adjacency} | "
            f"{_fmt(r.epsilon_lower_bound)} | {_fmt(r.epsilon_exact)} | {r.verdict()} | "
            f"{r.samples_used} | {r.seconds:.1f} |"
        )
        sections.append(render_report(r, rel))
    header = [
        "# dpquant audit report",
        "",
        "Every reference mechanism, the correct controls and the known-bad catalogue, audited by",
        "`audit_mechanism` with its own neighbour search. ε lower bounds hold with confidence",
        "1 − α each (Clopper–Pearson on held-out draws, Bonferroni over carried candidates); exact",
        "values are proofs by computation on the searched pairs only.",
        "",
        f"Seed {seed}.",
        "",
    ]
    (out / "audit.md").write_text("\n".join(header + rows + [""] + sections))
    (out / "audit.json").write_text(json.dumps([r.to_dict() for r in reports], indent=1))
    return reports


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name).strip("_")
