"""``audit_all``: the batch audit behind ``dpquant audit --all`` and ``make audit``.

It audits every mechanism of :mod:`dpquant.reference.registry`, the correct controls and every entry of
the known-bad catalogue (:mod:`dpquant.audit.suites.catalogue`), and writes ``audit.md`` (a table, then one
section per mechanism with its plot), ``audit.json`` and the plots under ``audit/`` in a folder
(``reports/`` by default).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from dpquant.audit.model.limits import MAX_SAMPLES, MAX_SEED, MAX_TIMEOUT, MIN_TIMEOUT
from dpquant.audit.pipeline.options import AuditOptions
from dpquant.audit.pipeline.runner import audit_mechanism
from dpquant.audit.pipeline.workers import resolve_workers
from dpquant.audit.report.extras import missing
from dpquant.audit.report.render import cell, fmt, plot_report, render_report
from dpquant.audit.report.result import AuditReport
from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS
from dpquant.reference.registry import REGISTRY
from dpquant.reference.validation import check_executor, check_int, check_positive


def audit_all(
    out: str | Path = "reports",
    seed: int = 0,
    samples: int | None = None,
    progress: Callable[[str], None] | None = None,
    timeout: float | None = None,
    executor: Executor | None = None,
    only: Sequence[str] | None = None,
    workers: int | None = None,
) -> list[AuditReport]:
    """Audit the registry and the catalogue; write ``audit.md``, ``audit.json`` and plots.

    The plots are drawn when matplotlib is installed (:data:`dpquant.audit.report.extras.EXTRAS`);
    without it, ``audit.md`` says that no plot was drawn and which extra draws them. Every
    argument is checked before anything is audited.

    Args:
        out: The folder the reports are written to (created if missing).
        seed: As for :func:`dpquant.audit.audit_mechanism`.
        samples: As for :func:`dpquant.audit.audit_mechanism`.
        progress: A callable that receives one line per mechanism audited, or None.
        timeout: As for :func:`dpquant.audit.audit_mechanism`.
        executor: A ``concurrent.futures.Executor`` (e.g. a dask.distributed client's): each
            audit runs there as one task, the reports the same as in this process (each audit
            is seeded by ``seed`` alone). None: audit in this process.
        only: Audit just these names (in the usual order); None: every one.
        workers: The worker processes that draw each audit's samples in this process (as for
            :func:`dpquant.audit.audit_mechanism`; None: the usable cores); not with an
            ``executor``, on which each audit draws in its own task's process.

    Returns:
        The reports, in the order audited.

    Raises:
        ValueError: An argument is refused (named in the message), ``out`` cannot be created,
            or ``only`` names a mechanism that is not audited (the registry's, the controls,
            the catalogue's).
    """
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
    check_executor(executor)
    workers = resolve_workers(workers, executor)
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
    if only is not None:
        if isinstance(only, str) or not all(isinstance(n, str) for n in only):
            raise ValueError("only must be a sequence of mechanism names")
        unknown = sorted(set(only) - {t[0] for t in targets})
        if unknown:
            raise ValueError(f"only names mechanisms that are not audited: {unknown}")
        targets = [t for t in targets if t[0] in set(only)]
    jobs = [
        (name, mech, pairs, samples, seed, timeout, workers) for name, mech, _, pairs in targets
    ]
    done = executor.map(_audit_one, jobs) if executor is not None else map(_audit_one, jobs)
    reports: list[AuditReport] = []
    sections: list[str] = []
    no_plots = missing("matplotlib", "the plots of the audit report")
    rows = [
        "| mechanism | kind | claim | ε lower bound | exact ε (searched) | verdict | draws | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, (name, _, kind, _) in enumerate(targets):
        if progress:
            progress(f"[{i + 1}/{len(targets)}] {name}")
        try:
            r = next(done)
        except Exception as exc:  # noqa: BLE001 -- re-raised naming the mechanism
            raise RuntimeError(f"the audit of {name} ({kind}) failed: {exc}") from exc
        reports.append(r)
        png = None if no_plots else plot_report(r, plots / f"{_slug(name)}.png")
        rel = f"audit/{png.name}" if png else None
        c = r.claim
        rows.append(
            f"| {name} | {kind} | ε={c.epsilon:g}, δ={c.delta:g}, {c.adjacency} | "
            f"{fmt(r.epsilon_lower_bound)} | {cell(r.epsilon_exact)} | {r.verdict} | "
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
        *([] if no_plots is None else [f"No plot was drawn: {no_plots}.", ""]),
    ]
    (out / "audit.md").write_text("\n".join(header + rows + [""] + sections))
    (out / "audit.json").write_text(json.dumps([r.to_dict() for r in reports], indent=1))
    return reports


def _audit_one(job: tuple[str, Any, Any, int | None, int, float | None, int]) -> AuditReport:
    """One audit of :func:`audit_all` (a task: it may run on another machine)."""
    name, mech, pairs, samples, seed, timeout, workers = job
    options = AuditOptions(name=name, timeout=timeout)
    return audit_mechanism(
        mech, pairs=pairs, samples=samples, seed=seed, workers=workers, options=options
    )


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name).strip("_")


__all__ = ["audit_all"]
