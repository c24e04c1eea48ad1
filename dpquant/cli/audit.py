"""``dpquant audit``: audit one mechanism or function, or everything (``--all``).

* ``dpquant audit MODULE:ATTR`` (or ``path/to/file.py:ATTR``, a name of ``dpquant mechanisms``,
  or ``peer:NAME[:KEY=VALUE]...`` for a library adapter of :mod:`dpquant.audit.suites.adapters` at the
  user's parameters, :mod:`dpquant.cli.peers`) audits one mechanism, or one function
  ``fn(data, rng) -> output`` with the claim given by ``--epsilon/--delta/--adjacency``;
  ``--json``, ``--markdown`` and ``--plot`` write the report;
* ``dpquant audit --all`` audits the reference registry, the controls and the known-bad catalogue
  and writes ``<out>/audit.md``, ``audit.json`` and the plots (the body of ``make audit``); exit 1
  when an outcome is not the expected one (a reference flagged, a known-bad entry not flagged).

Option values and output paths are checked before any work: numbers must be finite and in range
(``--samples`` at most the auditor's cap, ``--seed`` at most the auditor's largest seed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dpquant.audit.report.extras import MissingExtra, missing, require
from dpquant.cli.claim_options import add_claim_options, claim_from_options
from dpquant.cli.cluster import cluster_executor
from dpquant.cli.mechanisms import audited_targets
from dpquant.cli.messages import (
    EXIT_FAILED,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    on_terminal,
    stderr_progress,
)
from dpquant.cli.paths import (
    check_output_file,
    check_output_folder,
    distinct_paths,
    print_out,
    write_text,
)
from dpquant.cli.targets import build_mechanism, resolve_audited
from dpquant.options import (
    UsageError,
    option_message,
    optional,
    parse_delta,
    parse_domain,
    parse_epsilon,
    parse_float_list,
    parse_int,
    parse_open_probability,
    parse_positive,
    show,
)
from dpquant.reference.core import ADJACENCIES, PrivacyClaim, has_exact

MODES = ("auto", "exact", "blackbox")
DEFAULT_ALPHA = 1e-6
DEFAULT_OUT = "reports"
PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")
"""File suffixes ``--plot`` accepts (formats matplotlib writes without extra software)."""

AUDITOR_OPTIONS = {
    k: "--" + k.replace("_", "-")
    for k in ("domain", "samples", "alpha", "seed", "mode", "timeout", "max_draws", "workers")
}
"""Each keyword of ``audit_mechanism`` that an option of ``dpquant audit`` sets → that option,
to name the option in the auditor's refusals (:func:`dpquant.options.option_message`)."""
_SINGLE_ONLY = (
    "epsilon", "delta", "adjacency", "domain", "alpha", "json", "markdown", "plot", "timeout",
    "float_lattice", "vectorized", "input_values", "tighten", "max_draws",
    "rho", "xi", "renyi", "gdp", "profile",
)  # fmt: skip


# --------------------------------------------------------------------------------------------
# option values shared with `dpquant validate`
# --------------------------------------------------------------------------------------------


def samples_cap() -> int:
    """The auditor's cap on ``samples`` (draws per data set)."""
    from dpquant.audit.model import limits

    return int(limits.MAX_SAMPLES)


def max_draws_range() -> tuple[int, int]:
    """The auditor's range of ``max_draws`` (a total budget of draws)."""
    from dpquant.audit.model import limits

    return int(limits.MIN_MAX_DRAWS), int(limits.MAX_MAX_DRAWS)


def audit_workers(text: Any) -> int:
    """The worker processes that draw an audit's samples: an integer in [1, the auditor's
    most]."""
    from dpquant.audit.model import limits

    return parse_int(text, "--workers", 1, int(limits.MAX_WORKERS))


def audit_seed(text: Any) -> int:
    """An auditor's seed: an integer in [0, the auditor's largest seed]."""
    from dpquant.audit.model import limits

    return parse_int(text, "--seed", 0, int(limits.MAX_SEED))


def audit_alpha(text: Any) -> float:
    """The auditor's α: in [the auditor's smallest α, 1) (default :data:`DEFAULT_ALPHA`)."""
    from dpquant.audit.model import limits

    if text is None:
        return DEFAULT_ALPHA
    alpha = parse_open_probability(text, "--alpha")
    smallest = float(limits.MIN_ALPHA)
    if alpha < smallest:
        raise UsageError(f"--alpha must lie in [{smallest:g}, 1), got {show(text)}")
    return alpha


def parse_timeout(text: Any) -> float:
    """A per-draw time limit in seconds: in (0, the auditor's largest]."""
    from dpquant.audit.model import limits

    timeout = parse_positive(text, "--timeout")
    largest = float(limits.MAX_TIMEOUT)
    if timeout > largest:
        raise UsageError(f"--timeout must be at most {largest:g} seconds, got {show(text)}")
    return timeout


def write_report_files(report: Any, json_path: Path | None, markdown_path: Path | None) -> None:
    """Write a report's ``to_dict()`` as JSON and its ``to_markdown()``, where paths are given
    (missing folders are created); a file that cannot be written is a :class:`UsageError`."""
    if json_path:
        text = json.dumps(report.to_dict(), indent=1, default=str) + "\n"
        write_text(Path(json_path), text, "--json")
        print_out(f"JSON written to {json_path}")
    if markdown_path:
        write_text(Path(markdown_path), report.to_markdown(), "--markdown")
        print_out(f"Markdown written to {markdown_path}")


def passes(report: Any) -> bool:
    """An audit passes when it found no violation and could look (``report.passed``: the sampler
    matches its exact law, no draw exceeded the time limit, the audit is not inconclusive); an
    audit that concluded nothing is never exit 0."""
    return bool(report.passed)


def exit_code(report: Any) -> int:
    """0 when the audit passes; 1 for a finding (a violation, a draw that exceeded the time
    limit, a sampler that does not match its law: the verdicts that outrank INCONCLUSIVE); 4 when
    it is inconclusive (it could not look) and found nothing."""
    if passes(report):
        return EXIT_OK
    finding = report.violation or report.timed_out is not None or report.sampler_conforms is False
    return EXIT_FAILED if finding else EXIT_INCONCLUSIVE


# --------------------------------------------------------------------------------------------
# dpquant audit MODULE:ATTR
# --------------------------------------------------------------------------------------------


def _check_values(args: argparse.Namespace) -> None:
    """Every numeric option of ``audit`` parsed and range-checked in place (before any work)."""
    args.seed = audit_seed(args.seed)
    args.samples = optional(args.samples, parse_int, "--samples", 10, samples_cap())
    args.workers = optional(args.workers, audit_workers)
    if args.all:
        return
    args.epsilon = optional(args.epsilon, parse_epsilon)
    args.delta = optional(args.delta, parse_delta)
    claim = claim_from_options(args)  # one kind of claim, each value in range, a file read
    args.measure_claim = None if isinstance(claim, PrivacyClaim) else claim
    args.alpha = audit_alpha(args.alpha)
    args.domain = optional(args.domain, parse_domain)
    args.timeout = optional(args.timeout, parse_timeout)
    args.input_values = optional(args.input_values, parse_float_list, "--input-values")
    args.max_draws = optional(args.max_draws, parse_int, "--max-draws", *max_draws_range())
    if args.max_draws is not None and args.samples is not None:
        raise UsageError(
            "--max-draws and --samples: give one (a total budget, or draws per data set)"
        )


def _write_plot(report: Any, plot_path: Path) -> None:
    try:
        written = report.plot(plot_path)
    except OSError as exc:
        raise UsageError(
            f"--plot: cannot write {str(plot_path)!r} ({exc.strerror or exc})"
        ) from None
    print_out(f"plot written to {written}")


def _plots_installed(option: str) -> None:
    """``--plot`` needs matplotlib: refused (exit 2, naming the extra) before any work."""
    try:
        require("matplotlib", option)
    except MissingExtra as exc:
        raise UsageError(str(exc)) from None


def audit_one(args: argparse.Namespace) -> int:
    """``dpquant audit TARGET``: exit 0 when the audit passes, 1 otherwise."""
    from dpquant import audit

    _check_values(args)
    json_path = optional(args.json, check_output_file, "--json")
    md_path = optional(args.markdown, check_output_file, "--markdown")
    plot_path = optional(args.plot, check_output_file, "--plot", PLOT_FORMATS)
    distinct_paths({"--json": json_path, "--markdown": md_path, "--plot": plot_path})
    if plot_path is not None:
        _plots_installed("--plot")
    obj, entry_name, pairs = resolve_audited(
        args.target, epsilon=args.epsilon, adjacency=args.adjacency
    )
    mech, name = build_mechanism(
        obj,
        args.target,
        epsilon=args.epsilon,
        delta=args.delta,
        adjacency=args.adjacency,
        claim=args.measure_claim,
        domain=args.domain,
        vectorized=bool(args.vectorized),
        input_values=args.input_values,
    )
    name = entry_name or name
    if args.mode == "exact" and not has_exact(mech):
        raise UsageError(
            f"--mode exact needs a mechanism with an exact(data) law; {args.target} has none"
        )
    if args.measure_claim is not None or not isinstance(getattr(mech, "claim", None), PrivacyClaim):
        return _audit_claim(audit, args, mech, name, pairs, json_path, md_path, plot_path)
    budget = {} if args.max_draws is None else {"max_draws": args.max_draws}
    report = _audited(audit.audit_mechanism, audit, args, mech, name, pairs, **budget)
    print_out(report.explanation())  # a reader that has gone (| head) keeps the verdict's code
    if report.sampler_conforms is False:
        print_out("the sampler does not match its exact law (see the conformance section)")
    write_report_files(report, json_path, md_path)
    if plot_path is not None:
        _write_plot(report, plot_path)
    return exit_code(report)


def _audited(
    run: Callable[..., Any],
    audit: Any,
    args: argparse.Namespace,
    mech: Any,
    name: str,
    pairs: Any,
    **budget: Any,
) -> Any:
    """``run`` (``audit_mechanism`` or ``audit_claim``) on ``mech`` with the options of ``args``;
    a value the auditor refuses is a usage error naming its option."""
    try:
        options = audit.AuditOptions(
            timeout=args.timeout,
            tighten=bool(args.tighten),
            float_lattice=bool(args.float_lattice),
            name=name,
            progress=stderr_progress(args.quiet),
        )
        return run(
            mech,
            pairs=pairs,
            domain=args.domain,
            samples=args.samples,
            alpha=args.alpha,
            seed=args.seed,
            mode=args.mode,
            workers=args.workers,
            options=options,
            **budget,
        )
    except ValueError as exc:
        raise UsageError(option_message(exc, AUDITOR_OPTIONS)) from None


def _audit_claim(
    audit: Any,
    args: argparse.Namespace,
    mech: Any,
    name: str,
    pairs: Any,
    json_path: Path | None,
    md_path: Path | None,
    plot_path: Path | None,
) -> int:
    """``dpquant audit`` under a claim of another measure (``--rho``, ``--renyi``, ``--gdp``,
    ``--profile``, or a mechanism whose own claim is one): :func:`dpquant.audit.audit_claim`."""
    if args.max_draws is not None or args.tighten:
        raise UsageError(
            "--max-draws and --tighten go with an (ε, δ) claim only: under --rho, --renyi, "
            "--gdp or --profile the audit draws --samples per data set at each point"
        )
    report = _audited(audit.audit_claim, audit, args, mech, name, pairs)
    print_out(report.explanation())
    write_report_files(report, json_path, md_path)
    if plot_path is not None:
        _write_plot(report, plot_path)
    return EXIT_OK if report.passed else (EXIT_FAILED if report.violation else EXIT_INCONCLUSIVE)


# --------------------------------------------------------------------------------------------
# dpquant audit --all
# --------------------------------------------------------------------------------------------


def all_progress(
    total: int, quiet: bool
) -> tuple[Callable[[str], None] | None, Callable[[], None]]:
    """A progress callback for ``audit_all`` and a function closing it: on a terminal, a tqdm
    bar over the mechanisms (one line per mechanism without tqdm); none with ``quiet`` or when
    stderr is not a terminal (:func:`dpquant.cli.messages.on_terminal`)."""
    if quiet or not on_terminal():
        return None, lambda: None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dev dependency
        return stderr_progress(False), lambda: None
    bar = tqdm(total=total, unit="mech", file=sys.stderr, dynamic_ncols=True)
    seen: list[str] = []

    def progress(line: str) -> None:
        if seen:
            bar.update(1)
        seen.append(line)
        bar.set_description(line.split("] ", 1)[-1][:40])

    def close() -> None:
        if seen:
            bar.update(1)
        bar.close()

    return progress, close


def audit_everything(args: argparse.Namespace) -> int:
    """``dpquant audit --all``: exit 0 when every outcome is the expected one, 1 otherwise."""
    from dpquant.audit.report.render import cell, fmt
    from dpquant.cli import batch_audit as batch

    _check_values(args)
    out = check_output_folder(
        DEFAULT_OUT if args.out is None else args.out, "--out", ("audit.md", "audit.json", "audit/")
    )
    if args.scheduler is not None and args.workers is not None:
        raise UsageError("--workers and --scheduler: give one (the cluster's workers audit)")
    workers = {} if args.workers is None else {"workers": args.workers}
    targets = audited_targets()
    progress, close = all_progress(len(targets), args.quiet)
    try:
        with cluster_executor(args.scheduler) as (executor, _):
            reports = batch.audit_all(
                out,
                seed=args.seed,
                samples=args.samples,
                progress=progress,
                executor=executor,
                **workers,
            )
    finally:
        close()
    by_name = {r.mechanism: r for r in reports}
    unexpected = []
    print_out(
        f"{'mechanism':<48} {'kind':<10} {'verdict':<20} {'eps_lb':>8} {'exact eps':>9} seconds"
    )
    for name, kind, _ in targets:
        r = by_name.get(name)
        if r is None:
            unexpected.append(f"{name} ({kind}): not audited")
            continue
        ok = r.violation if kind == "known-bad" else passes(r)
        print_out(
            f"{name:<48} {kind:<10} {r.verdict:<20} {fmt(r.epsilon_lower_bound):>8} "
            f"{cell(r.epsilon_exact):>9} {r.seconds:7.1f}{'' if ok else '  UNEXPECTED'}"
        )
        if not ok:
            wanted = "a violation" if kind == "known-bad" else "no violation"
            unexpected.append(f"{name} ({kind}): expected {wanted}, got {r.verdict}")
    no_plots = missing("matplotlib", "the plots of the audit report")
    plots = f"plots in {out / 'audit'}" if no_plots is None else f"no plots ({no_plots})"
    print_out(f"report written to {out / 'audit.md'} and {out / 'audit.json'}, {plots}")
    for line in unexpected:
        print_out(f"unexpected: {line}")
    return EXIT_FAILED if unexpected else EXIT_OK


def run(args: argparse.Namespace) -> int:
    """One target or ``--all``, after the options that do not fit are refused."""
    if args.all:
        if args.target is not None:
            raise UsageError("pass either a target MODULE:ATTR or --all, not both")
        given = [f"--{o.replace('_', '-')}" for o in _SINGLE_ONLY if getattr(args, o) is not None]
        if args.mode != "auto":
            given.append("--mode")
        if given:
            raise UsageError(f"not used with --all (they apply to one target): {', '.join(given)}")
        return audit_everything(args)
    if args.target is None:
        raise UsageError("pass a target MODULE:ATTR (or path/to/file.py:ATTR), or --all")
    if args.out is not None:
        raise UsageError("--out only applies to --all (use --json, --markdown, --plot)")
    if args.scheduler is not None:
        raise UsageError("--scheduler only applies to --all")
    return audit_one(args)


DESCRIPTION = (
    "Audit one mechanism (an object with sample() and claim) or one function "
    "fn(data, rng) -> output named by MODULE:ATTR or path/to/file.py:ATTR, a name listed by "
    "`dpquant mechanisms`, or another library's quantile at your parameters, "
    "peer:NAME:KEY=VALUE:... (e.g. peer:diffprivlib:epsilon=0.5:bounds=0,100:quantile=0.25; "
    "`dpquant mechanisms` lists each peer's options; its claim is built at its epsilon); or, "
    "with --all, the reference registry, the controls and the known-bad catalogue. Exit "
    "code 0: no violation found (--all: every outcome as expected); 1: a violation "
    "(or a sampler that does not match its exact law, or a draw that exceeded --timeout; "
    "--all: an unexpected outcome); "
    "2: usage error (a bad option value or output path, a target that cannot be "
    "imported, a function whose signature or trial call fails, a mechanism whose sample() "
    "breaks the sampling contract); 3: the run failed unexpectedly; 4: inconclusive (the "
    "mechanism produced no output to judge: every draw raised, returned None or NaN); "
    "130: interrupted."
)


def add_parser(commands: Any) -> None:
    """The ``audit`` sub-parser."""
    p = commands.add_parser(
        "audit",
        help="audit a mechanism or function (MODULE:ATTR), or everything (--all)",
        description=DESCRIPTION,
    )
    p.add_argument(
        "target",
        nargs="?",
        help="MODULE:ATTR, path/to/file.py:ATTR, a name of `dpquant mechanisms`, or "
        "peer:NAME[:KEY=VALUE]... (another library at your parameters)",
    )
    p.add_argument("--all", action="store_true", help="audit the registry and the catalogue")
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="--all: audit on a dask.distributed cluster (tcp://host:8786, or 'local'); the same "
        "reports as on one process",
    )
    claim = p.add_argument_group(
        "claim",
        "one kind: --epsilon/--delta, --rho, --renyi, --gdp or --profile; required for a plain "
        "function; for a mechanism, it overrides its claim; a peer's claim follows its own "
        "epsilon (peer:NAME:epsilon=E), which --epsilon then overrides",
    )
    claim.add_argument("--epsilon", default=None, help="claimed ε (a finite number > 0)")
    claim.add_argument("--delta", default=None, help="claimed δ in [0, 1) (default 0)")
    claim.add_argument(
        "--adjacency",
        choices=ADJACENCIES,
        default=None,
        help="neighbouring relation (default for a function: replace_one)",
    )
    add_claim_options(claim)
    p.add_argument(
        "--domain",
        default=None,
        metavar="LO,HI",
        help="input values to search, e.g. 0,1 or -inf,inf (default: the mechanism's domain)",
    )
    function = p.add_argument_group("plain function", "how a plain function is called")
    function.add_argument(
        "--vectorized",
        action="store_true",
        default=None,
        help="the function is fn(data, size, rng) and returns size outputs",
    )
    function.add_argument(
        "--input-values",
        default=None,
        metavar="V1,V2,...",
        help="the function's finite input set (searched instead of probe values)",
    )
    p.add_argument("--samples", default=None, help="draws per data set (default: the auditor's)")
    p.add_argument("--seed", default=0, help="random seed (default 0)")
    p.add_argument("--alpha", default=None, help="1 − confidence of the bound (default 1e-6)")
    p.add_argument("--mode", choices=MODES, default="auto", help="default: auto")
    p.add_argument(
        "--timeout",
        default=None,
        metavar="SECONDS",
        help="per-draw time limit: a draw that takes longer ends the audit with a clear report",
    )
    p.add_argument(
        "--workers",
        default=None,
        metavar="N",
        help="worker processes that draw the samples (default: the usable cores; 1: in this "
        "process); the report is the same for any number",
    )
    p.add_argument(
        "--float-lattice",
        action="store_true",
        default=None,
        help="also test float-lattice events: finds leaks of the float realisation (Mironov 2012)",
    )
    p.add_argument(
        "--tighten",
        action="store_true",
        default=None,
        help="the full --samples for every finalist even after a clear violation: the tightest "
        "bound rather than the quickest verdict",
    )
    p.add_argument(
        "--max-draws",
        default=None,
        metavar="N",
        help="a total budget of draws for the whole audit, search included, instead of --samples",
    )
    p.add_argument("--json", default=None, metavar="PATH", help="write the report as JSON")
    p.add_argument("--markdown", default=None, metavar="PATH", help="write the report as Markdown")
    p.add_argument("--plot", default=None, metavar="PATH", help="write a PNG plot")
    p.add_argument(
        "--out", default=None, help="--all: output folder (default: reports)", metavar="DIR"
    )
    p.add_argument(
        "-q", "--quiet", action="store_true",
        help="no progress on stderr (shown only when stderr is a terminal)",
    )  # fmt: skip
    p.set_defaults(func=run)


__all__ = [
    "AUDITOR_OPTIONS",
    "DEFAULT_ALPHA",
    "MODES",
    "PLOT_FORMATS",
    "add_parser",
    "all_progress",
    "audit_alpha",
    "audit_everything",
    "audit_one",
    "audit_seed",
    "audit_workers",
    "exit_code",
    "parse_timeout",
    "passes",
    "run",
    "samples_cap",
    "write_report_files",
]
